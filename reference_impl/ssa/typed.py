"""Values read through a schema: validate, field set, merge, compare, remove.

Go twin: sigs.k8s.io/structured-merge-diff/v4/typed (v6 from Kubernetes 1.34: helpers.go, validate.go,
tofieldset.go, merge.go, compare.go, remove.go). Values are plain JSON data; ``MISSING``
stands for Go's nil Value (no value at all), which differs from JSON ``null``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..govalue.decoded import go_type
from ..govalue.fmt import go_sharp_v, go_v
from ..govalue.strconv import quote
from .fieldpath import KEY, FieldSet, PathElement
from .schema import ABSENT_DEFAULT, Atom, ResolvedType, Schema, TypeRef


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
# JSON's scalars: two of one of these classes are equal as Python says; a copy shares them
_SAME_CLASS_EQUAL = frozenset({str, int, float, bool, type(None)})


def _kind(value: Any) -> str:
    return _KINDS.get(type(value)) or ("map" if isinstance(value, dict) else "list" if isinstance(value, list)
                                      else "number" if isinstance(value, (int, float)) else "string")


def values_equal(a: Any, b: Any) -> bool:
    """value.Equals: numbers by value (1 == 1.0), booleans never equal to numbers."""
    cls = a.__class__
    if cls is b.__class__:  # the usual case, without working out kinds
        if cls is dict:
            return a.keys() == b.keys() and all(map(values_equal, a.values(), map(b.__getitem__, a)))
        if cls is list:
            return len(a) == len(b) and all(map(values_equal, a, b))
        if cls in _SAME_CLASS_EQUAL:
            return a == b
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        return False
    if ka == "list":
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    if ka == "map":
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    return a == b


def _kind_of(value: Any) -> str | None:
    """The kind deduceAtom reads: none for MISSING (Go's nil Value)."""
    return None if value is MISSING else _kind(value)


def deduce_atom(atom: Atom, value: Any) -> Atom:
    """helpers.go deduceAtom: of a type that allows several shapes, the one the value has.
    (The walks below use ResolvedType.deduced, which keeps each shape's view.)"""
    if (atom.scalar is None) + (atom.list is None) + (atom.map is None) >= 2:
        return atom  # one shape only: nothing to deduce
    kind = _kind_of(value)
    if kind in ("number", "string", "bool") and atom.scalar is not None:
        return Atom(scalar=atom.scalar)
    if kind == "list" and atom.list is not None:
        return Atom(list=atom.list)
    if kind == "map" and atom.map is not None:
        return Atom(map=atom.map)
    return atom


def list_item_element(list_type: ResolvedType, item: Any) -> PathElement:
    """helpers.go listItemToPathElement: the key or value naming an associative list's item."""
    if list_type.list.element_relationship != ASSOCIATIVE:
        raise ValueError("invalid indexing of non-associative list")
    keys = list_type.list.keys
    if keys:
        if item is None:
            raise ValueError("associative list with keys may not have a null element")
        if not isinstance(item, dict):
            raise ValueError("associative list with keys may not have non-map elements")
        fields = {}
        for name, default in list_type.key_defaults():
            if name in item:
                fields[name] = item[name]
            elif default is not ABSENT_DEFAULT and default is not None:
                fields[name] = default
            elif not list_type.partial_keys:
                raise ValueError(f"associative list with keys has an element that omits key field {quote(name)}"
                                 " (and doesn't have default value)")
            # v6.3+: a key it lacks is left out; the keys it has name another item than a full key would
        if not fields:
            quoted = " ".join(quote(name) for name in keys)  # Go's %q of a []string
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


def _where(chain: Any) -> str:
    """An error's path, as structured-merge-diff prints it, from the walk's chain of (parent, step)
    pairs (a step is a map key, a list index or a path element): built only when a problem is found."""
    steps = []
    while chain is not None:
        chain, step = chain
        steps.append("." + step if isinstance(step, str) else f"[{step}]" if isinstance(step, int) else str(step))
    return "".join(reversed(steps))


# A named tuple, not a dataclass: never changed, and quicker to define at import.
class TypedValue(NamedTuple):
    """A value with the schema and type it is read by (typed.TypedValue)."""

    value: Any
    schema: Schema
    type_ref: TypeRef

    @property
    def resolved(self) -> ResolvedType:
        return self.schema.resolved(self.type_ref)

    # --- validate ---------------------------------------------------------------------------

    def validate(self, allow_duplicates: bool = False) -> None:
        problems: list[tuple[str, str]] = []
        _validate(self.resolved, self.value, allow_duplicates, None, problems)
        if problems:
            raise ValidationError(problems)

    # --- field set --------------------------------------------------------------------------

    def to_field_set(self, named_fields_are_members: bool = False) -> FieldSet:
        """Every leaf, list item and empty or undeclared map entry the value sets (tofieldset.go);
        ``named_fields_are_members``: the set as EnsureNamedFieldsAreMembers would make it of that,
        built in the same walk."""
        out = FieldSet()
        _to_field_set(self.resolved, self.value, out, named_fields_are_members)
        return out

    # --- merge, compare, remove -------------------------------------------------------------

    def merge(self, other: TypedValue) -> TypedValue:
        """``other`` over ``self``, by the schema (merge.go with ruleKeepRHS)."""
        problems: list[tuple[str, str]] = []
        out = _merge(self.resolved, self.value, other.value, problems, None)
        if problems:
            raise ValidationError(problems)
        return TypedValue(None if out is MISSING else out, self.schema, self.type_ref)

    def compare(self, other: TypedValue) -> Comparison:
        comparison = Comparison(FieldSet(), FieldSet(), FieldSet())
        problems: list[tuple[str, str]] = []
        root = _Place(None, None, [comparison.removed, comparison.modified, comparison.added])
        _compare(self.resolved, self.value, other.value, root, problems)
        if problems:
            raise ValidationError(problems)
        return comparison

    def remove_items(self, items: FieldSet) -> TypedValue:
        return TypedValue(_remove(self.value, items, self.resolved, extract=False), self.schema, self.type_ref)

    def extract_items(self, items: FieldSet) -> TypedValue:
        return TypedValue(_remove(self.value, items, self.resolved, extract=True), self.schema, self.type_ref)


# A named tuple, not a dataclass: its sets are filled in, never replaced; and quicker to define at import.
class Comparison(NamedTuple):
    """What changed from one value to another (typed.Comparison)."""

    removed: FieldSet
    modified: FieldSet
    added: FieldSet

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
    return schema.resolved(type_ref).atom


# --- validate.go --------------------------------------------------------------------------

def _scalar_problem(scalar: str, value: Any, prefix: str = "") -> str | None:
    if value is MISSING or value is None:
        return None
    kind = _kind(value)
    if scalar == "numeric" and kind != "number":
        return f"{prefix}expected numeric (int or float), got {go_type(value)}"
    if scalar == "string" and kind != "string":
        return f"{prefix}expected string, got {_go_sharp_repr(value)}"
    if scalar == "boolean" and kind != "bool":
        return f"{prefix}expected boolean, got {_go_repr(value)}"
    if scalar == "untyped" and kind not in ("number", "string", "bool"):
        return f"{prefix}expected any scalar, got {_go_repr(value)}"
    return None


def _go_repr(value: Any) -> str:
    """Go's ``%v`` of the value.Value structured-merge-diff wraps decoded JSON in (a
    ``*valueUnstructured``), as its messages print it: ``&{a}``."""
    return "&{" + go_v(value) + "}"


def _go_sharp_repr(value: Any) -> str:
    """Go's ``%#v`` of that value: ``&value.valueUnstructured{Value:1}``."""
    return "&value.valueUnstructured{Value:" + go_sharp_v(value) + "}"


def _validate(rtype: ResolvedType, value: Any, allow_duplicates: bool, where: Any, problems: list) -> None:
    """Appends the value's problems. A child whose type takes it as it is (a scalar of its kind)
    is not visited."""
    if rtype.atom is None:
        problems.append((_where(where), "schema error: no type found matching: " + str(rtype.ref.named or
                                                                                        "inlined type")))
        return
    if rtype.anything:
        return  # untyped: no JSON value has a problem there (managedFields' FieldsV1, for one)
    if rtype.several:
        rtype = rtype.deduced(_kind_of(value))
    if rtype.map is not None:
        if value is None:
            return
        if not isinstance(value, dict):
            problems.append((_where(where), f"expected map, got {_go_repr(value)}"))
            return
        member_types = rtype.member_types
        for key, child in value.items():
            child_type = member_types.get(key) or rtype.member(key)
            if child_type is None:
                problems.append((_where((where, key)), "field not declared in schema"))
                break
            if type(child) not in child_type.accepts:
                _validate(child_type, child, allow_duplicates, (where, key), problems)
        return
    if rtype.scalar is not None:
        problem = _scalar_problem(rtype.scalar, value)
        if problem:
            problems.append((_where(where), problem))
        return
    if rtype.list is not None:
        if value is None:
            return
        if not isinstance(value, list):
            problems.append((_where(where), f"expected list, got {_go_repr(value)}"))
            return
        item_type = rtype.item()
        associative = rtype.list.element_relationship == ASSOCIATIVE
        seen: set[PathElement] = set()
        for index, item in enumerate(value):
            if not associative:
                if type(item) not in item_type.accepts:
                    _validate(item_type, item, allow_duplicates, (where, index), problems)
                continue
            try:
                element = list_item_element(rtype, item)
            except ValueError as exc:
                problems.append((_where(where), f"element {index}: {exc}"))
                return
            if element in seen and not allow_duplicates:
                problems.append((_where(where), f"duplicate entries for key {element}"))
            seen.add(element)
            if type(item) not in item_type.accepts:
                _validate(item_type, item, allow_duplicates, (where, element), problems)
        return
    problems.append((_where(where), "schema error: invalid atom: inlined"))


# --- tofieldset.go ------------------------------------------------------------------------

def _to_field_set(rtype: ResolvedType, value: Any, below: FieldSet, named_members: bool) -> bool:
    """Adds to ``below`` the paths under the value (relative to it); returns whether the value's
    own path is in the set (a scalar or an atomic value). The trie is built as the value is
    walked: no path is inserted from the root. ``named_members``: a declared field with paths
    below it is a member too (as EnsureNamedFieldsAreMembers would make it, down through keyed items)."""
    if rtype.atom is None:
        return False
    if rtype.several:
        rtype = rtype.deduced(_kind_of(value))
    if rtype.map is not None:
        if rtype.map.element_relationship == ATOMIC:
            return True
        if not isinstance(value, dict):
            return False
        member_types, declared = rtype.member_types, rtype.declared
        for key, child in value.items():
            element = PathElement.field(key)
            child_type = member_types.get(key) or rtype.member_or_empty(key)
            leaf = child_type.scalar_only or _child_field_set(child_type, child, below, element, named_members)
            if leaf or child is None or (isinstance(child, dict) and not child) or key not in declared or (
                    named_members and element in below.children):
                below.members.add(element)
        return False
    if rtype.scalar is not None:
        return True
    if rtype.list is not None:
        if rtype.list.element_relationship == ATOMIC:
            return True
        if not isinstance(value, list):
            return False
        elements = [_item_element_or_none(rtype, item) for item in value]
        seen: set = set()
        duplicates: set = set()
        for element in elements:
            if element in seen and element not in duplicates:
                below.members.add(element)
                duplicates.add(element)
            seen.add(element)
        item_type = rtype.item()
        for element, item in zip(elements, value, strict=True):
            if element in duplicates:
                continue
            _child_field_set(item_type, item, below, element, named_members and element.kind == KEY)
            below.members.add(element)
    return False


def _child_field_set(rtype: ResolvedType, value: Any, below: FieldSet, element: PathElement,
                     named_members: bool) -> bool:
    """The field set of a child value at ``element`` of ``below``; returns whether it is a leaf."""
    node = FieldSet()
    leaf = _to_field_set(rtype, value, node, named_members)
    if node.members or node.children:
        below.children[element] = node
    return leaf


def _item_element_or_none(list_type: ResolvedType, item: Any) -> PathElement:
    try:
        return list_item_element(list_type, item)
    except ValueError:
        return PathElement(-1, None, (-1,))  # Go's zero PathElement: an empty path element


# --- merge.go -----------------------------------------------------------------------------

def _merge(rtype: ResolvedType, lhs: Any, rhs: Any, problems: list, where: Any) -> Any:
    """The merged value, or MISSING when the merge leaves nothing (an empty map or list)."""
    if rtype.atom is None:
        problems.append((_where(where), f"schema error: no type found matching: {rtype.ref.named}"))
        return MISSING
    if rtype.several:
        left, right = rtype.deduced(_kind_of(lhs)), rtype.deduced(_kind_of(rhs))
    else:
        left = right = rtype
    if rhs is MISSING:
        chosen = left
    elif lhs is MISSING or left is right:
        chosen = right
    else:
        # Go walks the lhs shape first with a copy of its walker (output dropped), then the rhs shape.
        _merge_atom(left, lhs, rhs, problems, where)
        chosen = right
    return _merge_atom(chosen, lhs, rhs, problems, where)


def _keep_rhs(lhs: Any, rhs: Any) -> Any:
    if rhs is not MISSING:
        return rhs
    return lhs


def _merge_atom(rtype: ResolvedType, lhs, rhs, problems, where) -> Any:
    if rtype.map is not None:
        return _merge_map(rtype, lhs, rhs, problems, where)
    if rtype.scalar is not None:
        left = _scalar_problem(rtype.scalar, lhs, "lhs: ")
        right = _scalar_problem(rtype.scalar, rhs, "rhs: ")
        if left and right:
            problems.extend([(_where(where), left), (_where(where), right)])
            return MISSING
        return _keep_rhs(lhs, rhs)
    if rtype.list is not None:
        return _merge_list(rtype, lhs, rhs, problems, where)
    name = f"named type: {rtype.ref.named}" if rtype.ref.named else "inlined"
    problems.append((_where(where), f"schema error: invalid atom: {name}"))
    return MISSING


def _as_map(value: Any) -> dict | None:
    """The value if it is a map (else the walk leaves it, as Go's AsMap failing does)."""
    return value if isinstance(value, dict) else None


def _as_list(value: Any) -> list | None:
    return value if isinstance(value, list) else None


def _merge_map(rtype: ResolvedType, lhs, rhs, problems, where) -> Any:
    left = _as_map(lhs)
    right = _as_map(rhs)
    if rtype.map.element_relationship == ATOMIC or (not left and not right):
        return _keep_rhs(lhs, rhs)
    left = left or {}
    right = right or {}
    out = {}
    keys = list(left) + [k for k in right if k not in left]
    member_types = rtype.member_types
    for key in keys:
        child_type = member_types.get(key) or rtype.member_or_empty(key)
        left_child, right_child = left.get(key, MISSING), right.get(key, MISSING)
        if type(right_child) in child_type.accepts:
            child = right_child  # a scalar of its type: the right one wins, as _merge would decide
        else:
            child = _merge(child_type, left_child, right_child, problems, (where, key))
        if child is not MISSING:
            out[key] = child
    return out if out else MISSING


def _index_items(list_type: ResolvedType, items, allow_duplicates, problems, where):
    """The elements naming the items in order, and element -> item (None for duplicated ones)."""
    elements, observed = [], {}
    for index, item in enumerate(items or ()):
        try:
            element = list_item_element(list_type, item)
        except ValueError as exc:
            problems.append((_where(where), f"element {index}: {exc}"))
            continue
        if element in observed:
            if not allow_duplicates:
                problems.append((_where(where), f"duplicate entries for key {element}"))
                continue
            observed[element] = None
        else:
            observed[element] = item
        elements.append(element)
    return elements, observed


def _merge_list(rtype: ResolvedType, lhs, rhs, problems, where) -> Any:
    left = _as_list(lhs)
    right = _as_list(rhs)
    if rtype.list.element_relationship == ATOMIC or (not left and not right):
        return _keep_rhs(lhs, rhs)
    found: list = []
    right_elements, right_items = _index_items(rtype, right, False, found, where)
    left_elements, left_items = _index_items(rtype, left, True, found, where)
    if found:
        problems.extend(found)
        return MISSING
    item_type = rtype.item()
    # Items only on the left keep their place; shared items follow the right's order; new
    # right items are interleaved where they stand (merge.go visitListItems).
    shared_order = [pe for pe in right_elements if pe in left_items]
    shared_next = 0  # shared_order[shared_next] is the next shared item the right names
    merged_right: set = set()
    out = []

    def next_shared() -> PathElement | None:
        return shared_order[shared_next] if shared_next < len(shared_order) else None

    def merge_item(element, left_item, right_item):
        child = _merge(item_type, left_item, right_item, [], (where, element))
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
                shared_next += 1
                continue
            upcoming = next_shared()
            if element in right_items and upcoming is not None and upcoming != element:
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
            upcoming = next_shared()
            if upcoming is not None and upcoming == element:
                shared_next += 1
    return out if out else MISSING


def _position_ok(items, index) -> bool:
    return items is not None and index < len(items)


# --- compare.go ---------------------------------------------------------------------------

REMOVED, MODIFIED, ADDED = 0, 1, 2  # the comparison's sets, as _Place numbers them


class _Place:
    """Where the compare walk is: its path (the parent place and the last element) and, made as
    differences are recorded there or below, its node in each of the comparison's three sets, so
    that recording a path is not an insertion from the root."""

    __slots__ = ("element", "nodes", "parent")

    def __init__(self, parent: _Place | None, element: PathElement | None, nodes: list | None = None) -> None:
        self.parent = parent
        self.element = element
        self.nodes = nodes if nodes is not None else [None, None, None]

    def node(self, which: int) -> FieldSet:
        """The set of paths below this place in set ``which``."""
        found = self.nodes[which]
        if found is None:
            above = self.parent.node(which).children
            found = above.get(self.element)
            if found is None:
                found = above[self.element] = FieldSet()
            self.nodes[which] = found
        return found

    def record(self, which: int) -> None:
        """This place's path is in set ``which`` (the empty path is in none, as in FieldSet.insert)."""
        if self.parent is not None:
            self.parent.node(which).members.add(self.element)

    def where(self) -> str:
        """The path as error messages print it."""
        steps = []
        place = self
        while place.parent is not None:
            steps.append(str(place.element))
            place = place.parent
        return "".join(reversed(steps))


def _compare(rtype: ResolvedType, lhs, rhs, place: _Place, problems) -> bool:
    """Records the differences at and below ``place``; returns whether it handled a leaf."""
    if rtype.atom is None:
        problems.append((place.where(), f"schema error: no type found matching: {rtype.ref.named}"))
        return False
    if rtype.several:
        left, right = rtype.deduced(_kind_of(lhs)), rtype.deduced(_kind_of(rhs))
    else:
        left = right = rtype
    if rhs is MISSING:
        in_leaf = _compare_atom(left, lhs, rhs, place, problems)
    elif lhs is MISSING or left is right:
        in_leaf = _compare_atom(right, lhs, rhs, place, problems)
    else:
        # Go walks the lhs shape with a copy of its walker (recording into the same comparison).
        _compare_atom(left, lhs, rhs, place, problems)
        in_leaf = _compare_atom(right, lhs, rhs, place, problems)
    if not in_leaf:
        if lhs is MISSING:
            place.record(ADDED)
        elif rhs is MISSING:
            place.record(REMOVED)
    return in_leaf


def _compare_leaf(lhs, rhs, place: _Place) -> bool:
    if lhs is MISSING:
        place.record(ADDED)
    elif rhs is MISSING:
        place.record(REMOVED)
    elif not values_equal(lhs, rhs):
        place.record(MODIFIED)
    return True


def _compare_atom(rtype: ResolvedType, lhs, rhs, place: _Place, problems) -> bool:
    if rtype.map is not None:
        left, right = _as_map(lhs), _as_map(rhs)
        if rtype.map.element_relationship == ATOMIC or (not left and not right):
            return _compare_leaf(lhs, rhs, place)
        left = left or {}
        right = right or {}
        keys = list(left) + [k for k in right if k not in left]
        member_types = rtype.member_types
        for key in keys:
            child_type = member_types.get(key) or rtype.member_or_empty(key)
            left_child, right_child = left.get(key, MISSING), right.get(key, MISSING)
            if type(left_child) is type(right_child) and type(left_child) in child_type.accepts \
                    and left_child == right_child:
                continue  # equal scalars of their type: nothing to record
            _compare(child_type, left_child, right_child, _Place(place, PathElement.field(key)), problems)
        return False
    if rtype.scalar is not None:
        left = _scalar_problem(rtype.scalar, lhs, "lhs: ")
        right = _scalar_problem(rtype.scalar, rhs, "rhs: ")
        if left and right:
            problems.extend([(place.where(), left), (place.where(), right)])
            return False
        return _compare_leaf(lhs, rhs, place)
    if rtype.list is not None:
        left, right = _as_list(lhs), _as_list(rhs)
        if rtype.list.element_relationship == ATOMIC or (not left and not right):
            return _compare_leaf(lhs, rhs, place)
        _compare_list(rtype, left, right, place, problems)
        return False
    problems.append((place.where(), "schema error: invalid atom: inlined"))
    return False


def _compare_list(rtype: ResolvedType, left, right, place: _Place, problems) -> None:
    order: list[PathElement] = []
    left_values: dict[PathElement, list] = {}
    right_values: dict[PathElement, list] = {}
    for index, item in enumerate(left or ()):
        try:
            element = list_item_element(rtype, item)
        except ValueError as exc:
            problems.append((place.where(), f"element {index}: {exc}"))
            continue
        if element not in left_values:
            order.append(element)
            left_values[element] = [item]
        else:
            left_values[element].append(item)
    for index, item in enumerate(right or ()):
        try:
            element = list_item_element(rtype, item)
        except ValueError as exc:
            problems.append((place.where(), f"element {index}: {exc}"))
            continue
        if element not in right_values:
            if element not in left_values:
                order.append(element)
            right_values[element] = [item]
        else:
            right_values[element].append(item)
    item_type = rtype.item()
    for element in order:
        lefts, rights = left_values.get(element, ()), right_values.get(element, ())
        item_place = _Place(place, element)
        if len(lefts) <= 1 and len(rights) <= 1:
            _compare(item_type, lefts[0] if lefts else MISSING, rights[0] if rights else MISSING, item_place,
                     problems)
        elif len(lefts) >= 2 and len(rights) >= 2:
            if not values_equal(lefts, rights):
                item_place.record(MODIFIED)
        elif len(lefts) >= 2:
            if rights:
                _compare(item_type, MISSING, rights[0], item_place, problems)
            item_place.record(REMOVED)
        else:
            if lefts:
                _compare(item_type, lefts[0], MISSING, item_place, problems)
            item_place.record(ADDED)


# --- remove.go ----------------------------------------------------------------------------

def _remove(value: Any, items: FieldSet, rtype: ResolvedType, extract: bool) -> Any:
    """``value`` without (or, extracting, with only) ``items``; an emptied map or list becomes null."""
    if rtype.atom is None:
        return None
    if rtype.several:
        rtype = rtype.deduced(_kind_of(value))
    if rtype.map is not None:
        if not isinstance(value, dict) or not value:
            return None
        if rtype.map.element_relationship == ATOMIC:
            return value if extract else None
        out = {}
        for key, child in value.items():
            element = PathElement.field(key)
            if element in items.members:
                if extract:
                    out[key] = _remove(child, items, rtype.member_or_empty(key), extract)
                continue
            subset = items.children.get(element)
            if subset is not None and not subset.empty():
                child = _remove(child, subset, rtype.member_or_empty(key), extract)
            elif extract:
                continue
            out[key] = child
        return out or None
    if rtype.scalar is not None:
        return value
    if rtype.list is not None:
        if not isinstance(value, list) or not value:
            return None
        if rtype.list.element_relationship == ATOMIC:
            return value if extract else None
        item_type = rtype.item()
        out_items = []
        for item in value:
            element = _item_element_or_none(rtype, item)
            if element in items.members:
                if not extract:
                    continue
                out_items.append(_remove(item, items, item_type, extract))
            subset = items.children.get(element)
            if subset is not None and not subset.empty():
                item = _remove(item, subset, item_type, extract)
            elif extract:
                continue
            out_items.append(item)
        return out_items or None
    return None
