"""Values read through a schema: validate, field set, merge, compare, remove.

Go twin: sigs.k8s.io/structured-merge-diff/v4/typed (v6 from Kubernetes 1.34: helpers.go, validate.go,
tofieldset.go, merge.go, compare.go, remove.go). Values are plain JSON data; ``MISSING``
stands for Go's nil Value (no value at all), which differs from JSON ``null``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from reference_impl.ssa.fieldpath import FieldSet, Path, PathElement
from reference_impl.ssa.schema import ABSENT_DEFAULT, Atom, ListType, Schema, TypeRef


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
ASSOCIATIVE, ATOMIC = "associative", "atomic"
# Kubernetes 1.34 took structured-merge-diff v6.3: a list-map item naming only some of its keys is
# keyed by those (Schema.partial_keys), where before it was refused.
PARTIAL_KEYS_SINCE = (1, 34)


class ValidationError(Exception):
    """typed.ValidationErrors: every problem with its path, as structured-merge-diff words them."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__(self.text())

    def text(self) -> str:
        lines = [f"{path}: {message}" if path else message for path, message in self.problems]
        if len(lines) == 1:
            return lines[0]
        return "\n".join(["errors:", *("  " + line for line in lines)])


_KINDS = {type(None): "null", bool: "bool", int: "number", float: "number", str: "string", list: "list",
          dict: "map"}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value)) or ("map" if isinstance(value, dict) else "list" if isinstance(value, list)
                                      else "number" if isinstance(value, (int, float)) else "string")


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (copy.deepcopy is several times slower on it). Scalars are
    shared, not copied: no call per leaf."""
    if isinstance(value, dict):
        return {key: json_copy(child) if isinstance(child, (dict, list)) else child
                for key, child in value.items()}
    if isinstance(value, list):
        return [json_copy(child) if isinstance(child, (dict, list)) else child for child in value]
    return value


def values_equal(a: Any, b: Any) -> bool:
    """value.Equals: numbers by value (1 == 1.0), booleans never equal to numbers."""
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        return False
    if ka == "list":
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    if ka == "map":
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    return a == b


def deduce_atom(atom: Atom, value: Any) -> Atom:
    """helpers.go deduceAtom: of a type that allows several shapes, the one the value has."""
    if (atom.scalar is None) + (atom.list is None) + (atom.map is None) >= 2:
        return atom  # one shape only: nothing to deduce
    kind = _kind(value) if value is not MISSING else None
    if kind in ("number", "string", "bool") and atom.scalar is not None:
        return Atom(scalar=atom.scalar)
    if kind == "list" and atom.list is not None:
        return Atom(list=atom.list)
    if kind == "map" and atom.map is not None:
        return Atom(map=atom.map)
    return atom


def _field_type(atom_map, name: str) -> TypeRef:
    found = atom_map.field(name)
    if found is not None:
        return found.type
    return atom_map.element_type if atom_map.element_type is not None else TypeRef()


def list_item_element(schema: Schema, list_type: ListType, item: Any) -> PathElement:
    """helpers.go listItemToPathElement: the key or value naming an associative list's item."""
    if list_type.element_relationship != ASSOCIATIVE:
        raise ValueError("invalid indexing of non-associative list")
    if list_type.keys:
        if item is None:
            raise ValueError("associative list with keys may not have a null element")
        if not isinstance(item, dict):
            raise ValueError("associative list with keys may not have non-map elements")
        fields = {}
        element_atom = schema.resolve(list_type.element_type)
        for name in list_type.keys:
            if name in item:
                fields[name] = item[name]
                continue
            declared = element_atom.map.field(name) if element_atom.map is not None else None
            default = declared.default if declared is not None else ABSENT_DEFAULT
            if default is not ABSENT_DEFAULT and default is not None:
                fields[name] = default
            elif not schema.partial_keys:
                raise ValueError(f"associative list with keys has an element that omits key field {json.dumps(name)}"
                                 " (and doesn't have default value)")
            # v6.3+: a key it lacks is left out; the keys it has name another item than a full key would
        if not fields:
            quoted = " ".join(json.dumps(name) for name in list_type.keys)  # Go's %q of a []string
            raise ValueError(f"associative list with keys has an element that omits all key fields [{quoted}]"
                             " (and doesn't have default values for any key fields)")
        return PathElement.key(fields)
    if isinstance(item, dict):
        raise ValueError("associative list without keys has an element that's a map type")
    if isinstance(item, list):
        raise ValueError("not supported: associative list with lists as elements")
    if item is None:
        raise ValueError("associative list without keys has an element that's an explicit null")
    return PathElement.value(item)


@dataclass
class TypedValue:
    """A value with the schema and type it is read by (typed.TypedValue)."""

    value: Any
    schema: Schema
    type_ref: TypeRef

    # --- validate ---------------------------------------------------------------------------

    def validate(self, allow_duplicates: bool = False) -> None:
        problems = _validate(self.schema, self.type_ref, self.value, allow_duplicates, "")
        if problems:
            raise ValidationError(problems)

    # --- field set --------------------------------------------------------------------------

    def to_field_set(self) -> FieldSet:
        """Every leaf, list item and empty or undeclared map entry the value sets (tofieldset.go)."""
        out = FieldSet()
        _to_field_set(self.schema, self.type_ref, self.value, (), out)
        return out

    # --- merge, compare, remove -------------------------------------------------------------

    def merge(self, other: TypedValue) -> TypedValue:
        """``other`` over ``self``, by the schema (merge.go with ruleKeepRHS)."""
        problems: list[tuple[str, str]] = []
        out = _merge(self.schema, self.type_ref, self.value, other.value, problems, "")
        if problems:
            raise ValidationError(problems)
        return TypedValue(None if out is MISSING else out, self.schema, self.type_ref)

    def compare(self, other: TypedValue) -> Comparison:
        comparison = Comparison()
        problems: list[tuple[str, str]] = []
        _compare(self.schema, self.type_ref, self.value, other.value, (), comparison, problems, "")
        if problems:
            raise ValidationError(problems)
        return comparison

    def remove_items(self, items: FieldSet) -> TypedValue:
        return TypedValue(_remove(self.value, items, self.schema, self.type_ref, extract=False),
                          self.schema, self.type_ref)

    def extract_items(self, items: FieldSet) -> TypedValue:
        return TypedValue(_remove(self.value, items, self.schema, self.type_ref, extract=True),
                          self.schema, self.type_ref)


@dataclass
class Comparison:
    """What changed from one value to another (typed.Comparison)."""

    removed: FieldSet = field(default_factory=FieldSet)
    modified: FieldSet = field(default_factory=FieldSet)
    added: FieldSet = field(default_factory=FieldSet)

    def is_same(self) -> bool:
        return self.removed.empty() and self.modified.empty() and self.added.empty()

    def filter(self, exclude: FieldSet | None) -> Comparison:
        """FilterFields with an exclude filter: the reset fields are nobody's change."""
        if exclude is None:
            return self
        return Comparison(self.removed.recursive_difference(exclude),
                          self.modified.recursive_difference(exclude),
                          self.added.recursive_difference(exclude))


def resolve_or_none(schema: Schema, type_ref: TypeRef | None) -> Atom | None:
    """The type's atom, or None where Go's Resolve fails (or there is no type)."""
    if type_ref is None:
        return None
    try:
        return schema.resolve(type_ref)
    except KeyError:
        return None


# --- validate.go --------------------------------------------------------------------------

def _scalar_problem(scalar: str, value: Any, prefix: str = "") -> str | None:
    if value is MISSING or value is None:
        return None
    kind = _kind(value)
    if scalar == "numeric" and kind != "number":
        return f"{prefix}expected numeric (int or float), got {_go_type(value)}"
    if scalar == "string" and kind != "string":
        return f"{prefix}expected string, got {_go_repr(value)}"
    if scalar == "boolean" and kind != "bool":
        return f"{prefix}expected boolean, got {_go_repr(value)}"
    if scalar == "untyped" and kind not in ("number", "string", "bool"):
        return f"{prefix}expected any scalar, got {_go_repr(value)}"
    return None


def _go_type(value: Any) -> str:
    return {"string": "string", "bool": "bool", "list": "[]interface {}", "map": "map[string]interface {}"}.get(
        _kind(value), "float64" if isinstance(value, float) else "int64")


def _go_repr(value: Any) -> str:
    return repr(value)


def _validate(schema: Schema, type_ref: TypeRef, value: Any, allow_duplicates: bool, path: str) -> list:
    atom = resolve_or_none(schema, type_ref)
    if atom is None:
        return [(path, "schema error: no type found matching: " + str(type_ref.named or "inlined type"))]
    atom = deduce_atom(atom, value)
    if atom.map is not None:
        if value is None:
            return []
        if not isinstance(value, dict):
            return [(path, f"expected map, got {_go_repr(value)}")]
        problems = []
        for key, child in value.items():
            declared = atom.map.field(key)
            if declared is None and atom.map.element_type is None:
                problems.append((path + "." + key, "field not declared in schema"))
                break
            child_type = declared.type if declared is not None else atom.map.element_type
            problems.extend(_validate(schema, child_type, child, allow_duplicates, path + "." + key))
        return problems
    if atom.scalar is not None:
        problem = _scalar_problem(atom.scalar, value)
        return [(path, problem)] if problem else []
    if atom.list is not None:
        if value is None:
            return []
        if not isinstance(value, list):
            return [(path, f"expected list, got {_go_repr(value)}")]
        problems = []
        seen: set[PathElement] = set()
        for index, item in enumerate(value):
            if atom.list.element_relationship != ASSOCIATIVE:
                element = PathElement.index(index)
            else:
                try:
                    element = list_item_element(schema, atom.list, item)
                except ValueError as exc:
                    problems.append((path, f"element {index}: {exc}"))
                    return problems
                if element in seen and not allow_duplicates:
                    problems.append((path, f"duplicate entries for key {element}"))
                seen.add(element)
            problems.extend(_validate(schema, atom.list.element_type, item, allow_duplicates, path + str(element)))
        return problems
    return [(path, "schema error: invalid atom: inlined")]


# --- tofieldset.go ------------------------------------------------------------------------

def _to_field_set(schema: Schema, type_ref: TypeRef, value: Any, path: Path, out: FieldSet) -> None:
    atom = resolve_or_none(schema, type_ref)
    if atom is None:
        return
    atom = deduce_atom(atom, value)
    if atom.map is not None:
        if atom.map.element_relationship == ATOMIC:
            out.insert(path)
            return
        if not isinstance(value, dict):
            return
        for key, child in value.items():
            child_path = (*path, PathElement.field(key))
            declared = atom.map.field(key)
            child_type = declared.type if declared is not None else (atom.map.element_type or TypeRef())
            _to_field_set(schema, child_type, child, child_path, out)
            if child is None or (isinstance(child, dict) and not child) or declared is None:
                out.insert(child_path)
        return
    if atom.scalar is not None:
        out.insert(path)
        return
    if atom.list is not None:
        if atom.list.element_relationship == ATOMIC:
            out.insert(path)
            return
        if not isinstance(value, list):
            return
        elements = [_item_element_or_none(schema, atom.list, item) for item in value]
        seen: set = set()
        duplicates: set = set()
        for element in elements:
            if element in seen and element not in duplicates:
                out.insert((*path, element))
                duplicates.add(element)
            seen.add(element)
        for element, item in zip(elements, value, strict=True):
            if element in duplicates:
                continue
            child_path = (*path, element)
            _to_field_set(schema, atom.list.element_type, item, child_path, out)
            out.insert(child_path)


def _item_element_or_none(schema: Schema, list_type: ListType, item: Any) -> PathElement:
    try:
        return list_item_element(schema, list_type, item)
    except ValueError:
        return PathElement(-1, None, (-1,))  # Go's zero PathElement: an empty path element


# --- merge.go -----------------------------------------------------------------------------

def _merge(schema: Schema, type_ref: TypeRef, lhs: Any, rhs: Any, problems: list, path: str) -> Any:
    """The merged value, or MISSING when the merge leaves nothing (an empty map or list)."""
    atom = resolve_or_none(schema, type_ref)
    if atom is None:
        problems.append((path, f"schema error: no type found matching: {type_ref.named}"))
        return MISSING
    left, right = deduce_atom(atom, lhs), deduce_atom(atom, rhs)
    if rhs is MISSING:
        chosen = left
    elif lhs is MISSING or left == right:
        chosen = right
    else:
        # Go walks the lhs shape first with a copy of its walker (output dropped), then the rhs shape.
        _merge_atom(schema, left, type_ref, lhs, rhs, problems, path)
        chosen = right
    return _merge_atom(schema, chosen, type_ref, lhs, rhs, problems, path)


def _keep_rhs(lhs: Any, rhs: Any) -> Any:
    if rhs is not MISSING:
        return rhs
    return lhs


def _merge_atom(schema, atom: Atom, type_ref, lhs, rhs, problems, path) -> Any:
    if atom.map is not None:
        return _merge_map(schema, atom, lhs, rhs, problems, path)
    if atom.scalar is not None:
        left = _scalar_problem(atom.scalar, lhs, "lhs: ")
        right = _scalar_problem(atom.scalar, rhs, "rhs: ")
        if left and right:
            problems.extend([(path, left), (path, right)])
            return MISSING
        return _keep_rhs(lhs, rhs)
    if atom.list is not None:
        return _merge_list(schema, atom.list, lhs, rhs, problems, path)
    name = f"named type: {type_ref.named}" if type_ref.named else "inlined"
    problems.append((path, f"schema error: invalid atom: {name}"))
    return MISSING


def _as_map(value: Any, side: str, problems, path) -> dict | None:
    if value is MISSING or value is None:
        return None
    if not isinstance(value, dict):
        problems.append((path, f"{side}: expected map, got {_go_repr(value)}"))
        return None
    return value


def _as_list(value: Any, side: str, problems, path) -> list | None:
    if value is MISSING or value is None:
        return None
    if not isinstance(value, list):
        problems.append((path, f"{side}: expected list, got {_go_repr(value)}"))
        return None
    return value


def _merge_map(schema, atom: Atom, lhs, rhs, problems, path) -> Any:
    left = _as_map(lhs, "lhs", [], path)
    right = _as_map(rhs, "rhs", [], path)
    if atom.map.element_relationship == ATOMIC or (not left and not right):
        return _keep_rhs(lhs, rhs)
    out = {}
    keys = list(left or {}) + [k for k in (right or {}) if k not in (left or {})]
    for key in keys:
        child = _merge(schema, _field_type(atom.map, key), (left or {}).get(key, MISSING),
                       (right or {}).get(key, MISSING), problems, path + "." + key)
        if child is not MISSING:
            out[key] = child
    return out if out else MISSING


def _index_items(schema, list_type, items, allow_duplicates, problems, path):
    """The elements naming the items in order, and element -> item (None for duplicated ones)."""
    elements, observed = [], {}
    for index, item in enumerate(items or ()):
        try:
            element = list_item_element(schema, list_type, item)
        except ValueError as exc:
            problems.append((path, f"element {index}: {exc}"))
            continue
        if element in observed:
            if not allow_duplicates:
                problems.append((path, f"duplicate entries for key {element}"))
                continue
            observed[element] = None
        else:
            observed[element] = item
        elements.append(element)
    return elements, observed


def _merge_list(schema, list_type: ListType, lhs, rhs, problems, path) -> Any:
    left = _as_list(lhs, "lhs", [], path)
    right = _as_list(rhs, "rhs", [], path)
    if list_type.element_relationship == ATOMIC or (not left and not right):
        return _keep_rhs(lhs, rhs)
    found: list = []
    right_elements, right_items = _index_items(schema, list_type, right, False, found, path)
    left_elements, left_items = _index_items(schema, list_type, left, True, found, path)
    if found:
        problems.extend(found)
        return MISSING
    # Items only on the left keep their place; shared items follow the right's order; new
    # right items are interleaved where they stand (merge.go visitListItems).
    shared_order = [pe for pe in right_elements if pe in left_items]
    next_shared = shared_order.pop(0) if shared_order else None
    merged_right: set = set()
    out = []

    def merge_item(element, left_item, right_item):
        child = _merge(schema, list_type.element_type, left_item, right_item, [], path + str(element))
        if child is not MISSING:
            out.append(child)

    li = ri = 0
    while li < len(left_elements) or ri < len(right_elements):
        if li < len(left_elements) and ri < len(right_elements):
            element = left_elements[li]
            if element == right_elements[ri]:
                merged_right.add(element)
                merge_item(element, left_items.get(element, MISSING), right_items[element])
                li += 1
                ri += 1
                next_shared = shared_order.pop(0) if shared_order else None
                continue
            if element in right_items and next_shared is not None and next_shared != element:
                li += 1
                continue
        if li < len(left_elements):
            element = left_elements[li]
            if element not in right_items:
                merge_item(element, left[li] if _position_ok(left, li) else MISSING, MISSING)
                li += 1
                continue
            if element in merged_right:
                li += 1
        if ri < len(right_elements):
            element = right_elements[ri]
            merged_right.add(element)
            merge_item(element, left_items.get(element, MISSING), right_items[element])
            ri += 1
            if next_shared is not None and next_shared == element:
                next_shared = shared_order.pop(0) if shared_order else None
    return out if out else MISSING


def _position_ok(items, index) -> bool:
    return items is not None and index < len(items)


# --- compare.go ---------------------------------------------------------------------------

def _compare(schema, type_ref, lhs, rhs, path: Path, comparison: Comparison, problems, where: str) -> bool:
    """Records the differences below ``path``; returns whether it handled a leaf."""
    atom = resolve_or_none(schema, type_ref)
    if atom is None:
        problems.append((where, f"schema error: no type found matching: {type_ref.named}"))
        return False
    left, right = deduce_atom(atom, lhs), deduce_atom(atom, rhs)
    if rhs is MISSING:
        in_leaf = _compare_atom(schema, left, lhs, rhs, path, comparison, problems, where)
    elif lhs is MISSING or left == right:
        in_leaf = _compare_atom(schema, right, lhs, rhs, path, comparison, problems, where)
    else:
        # Go walks the lhs shape with a copy of its walker (recording into the same comparison).
        _compare_atom(schema, left, lhs, rhs, path, comparison, problems, where)
        in_leaf = _compare_atom(schema, right, lhs, rhs, path, comparison, problems, where)
    if not in_leaf:
        if lhs is MISSING:
            comparison.added.insert(path)
        elif rhs is MISSING:
            comparison.removed.insert(path)
    return in_leaf


def _compare_leaf(lhs, rhs, path, comparison) -> bool:
    if lhs is MISSING:
        comparison.added.insert(path)
    elif rhs is MISSING:
        comparison.removed.insert(path)
    elif not values_equal(lhs, rhs):
        comparison.modified.insert(path)
    return True


def _compare_atom(schema, atom: Atom, lhs, rhs, path, comparison, problems, where) -> bool:
    if atom.map is not None:
        left, right = _as_map(lhs, "lhs", [], where), _as_map(rhs, "rhs", [], where)
        if atom.map.element_relationship == ATOMIC or (not left and not right):
            return _compare_leaf(lhs, rhs, path, comparison)
        keys = list(left or {}) + [k for k in (right or {}) if k not in (left or {})]
        for key in keys:
            _compare(schema, _field_type(atom.map, key), (left or {}).get(key, MISSING),
                     (right or {}).get(key, MISSING), (*path, PathElement.field(key)), comparison,
                     problems, where + "." + key)
        return False
    if atom.scalar is not None:
        left = _scalar_problem(atom.scalar, lhs, "lhs: ")
        right = _scalar_problem(atom.scalar, rhs, "rhs: ")
        if left and right:
            problems.extend([(where, left), (where, right)])
            return False
        return _compare_leaf(lhs, rhs, path, comparison)
    if atom.list is not None:
        left, right = _as_list(lhs, "lhs", [], where), _as_list(rhs, "rhs", [], where)
        if atom.list.element_relationship == ATOMIC or (not left and not right):
            return _compare_leaf(lhs, rhs, path, comparison)
        _compare_list(schema, atom.list, left, right, path, comparison, problems, where)
        return False
    problems.append((where, "schema error: invalid atom: inlined"))
    return False


def _compare_list(schema, list_type, left, right, path, comparison, problems, where) -> None:
    order: list[PathElement] = []
    left_values: dict[PathElement, list] = {}
    right_values: dict[PathElement, list] = {}
    for index, item in enumerate(left or ()):
        try:
            element = list_item_element(schema, list_type, item)
        except ValueError as exc:
            problems.append((where, f"element {index}: {exc}"))
            continue
        if element not in left_values:
            order.append(element)
        left_values.setdefault(element, []).append(item)
    for index, item in enumerate(right or ()):
        try:
            element = list_item_element(schema, list_type, item)
        except ValueError as exc:
            problems.append((where, f"element {index}: {exc}"))
            continue
        if element not in right_values and element not in left_values:
            order.append(element)
        right_values.setdefault(element, []).append(item)
    for element in order:
        lefts, rights = left_values.get(element, []), right_values.get(element, [])
        item_path = (*path, element)
        if len(lefts) <= 1 and len(rights) <= 1:
            _compare(schema, list_type.element_type, lefts[0] if lefts else MISSING,
                     rights[0] if rights else MISSING, item_path, comparison, problems, where + str(element))
        elif len(lefts) >= 2 and len(rights) >= 2:
            if not values_equal(lefts, rights):
                comparison.modified.insert(item_path)
        elif len(lefts) >= 2:
            if rights:
                _compare(schema, list_type.element_type, MISSING, rights[0], item_path, comparison, problems,
                         where + str(element))
            comparison.removed.insert(item_path)
        else:
            if lefts:
                _compare(schema, list_type.element_type, lefts[0], MISSING, item_path, comparison, problems,
                         where + str(element))
            comparison.added.insert(item_path)


# --- remove.go ----------------------------------------------------------------------------

def _remove(value: Any, items: FieldSet, schema: Schema, type_ref: TypeRef, extract: bool) -> Any:
    """``value`` without (or, extracting, with only) ``items``; an emptied map or list becomes null."""
    atom = resolve_or_none(schema, type_ref)
    if atom is None:
        return None
    atom = deduce_atom(atom, value)
    if atom.map is not None:
        if not isinstance(value, dict) or not value:
            return None
        if atom.map.element_relationship == ATOMIC:
            return value if extract else None
        out = {}
        for key, child in value.items():
            element = PathElement.field(key)
            child_type = _field_type(atom.map, key)
            if items.has((element,)):
                if extract:
                    out[key] = _remove(child, items, schema, child_type, extract)
                continue
            subset = items.with_prefix(element)
            if not subset.empty():
                child = _remove(child, subset, schema, child_type, extract)
            elif extract:
                continue
            out[key] = child
        return out or None
    if atom.scalar is not None:
        return value
    if atom.list is not None:
        if not isinstance(value, list) or not value:
            return None
        if atom.list.element_relationship == ATOMIC:
            return value if extract else None
        out_items = []
        for item in value:
            element = _item_element_or_none(schema, atom.list, item)
            if items.has((element,)):
                if not extract:
                    continue
                out_items.append(_remove(item, items, schema, atom.list.element_type, extract))
            subset = items.with_prefix(element)
            if not subset.empty():
                item = _remove(item, subset, schema, atom.list.element_type, extract)
            elif extract:
                continue
            out_items.append(item)
        return out_items or None
    return None

