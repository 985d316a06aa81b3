"""Field paths and sets of them, and their FieldsV1 encoding.

Go twin: sigs.k8s.io/structured-merge-diff/v4/fieldpath (element.go, set.go,
serialize.go, serialize-pe.go, managers.go). A path element is one step into a value: a
map field, a list item named by its key fields, a set member named by its value, or an
atomic list's index.
"""

from __future__ import annotations

import functools
import json
import operator
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

# Order of the element kinds when elements are compared: field < key < value < index.
FIELD, KEY, VALUE, INDEX = 0, 1, 2, 3
_PREFIX = {FIELD: "f:", KEY: "k:", VALUE: "v:", INDEX: "i:"}


def value_key(value: Any) -> tuple:
    """A hashable form of a JSON value in which equal values (1 and 1.0, not true and 1) are equal."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("list", tuple(value_key(item) for item in value))
    return ("map", tuple(sorted((k, value_key(v)) for k, v in value.items())))


def value_json(value: Any) -> str:
    """Compact JSON as structured-merge-diff writes values (sorted map keys, integral floats without '.0')."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{value_json(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(value_json(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


class PathElement:
    """One step of a path (fieldpath.PathElement); equal and hashed by meaning, not spelling.

    Immutable once made. Its hash, FieldsV1 key and sort key are computed when it is made: an
    element is hashed at every set operation and its key written at every encoding and sort.
    """

    __slots__ = ("_hash", "_identity", "_json_key", "_sort_key", "_text", "kind", "payload")

    def __init__(self, kind: int, payload: Any, identity: tuple = ()) -> None:
        self.kind = kind
        self.payload = payload  # field name; ((name, value), …) sorted by name; a value; an index
        self._identity = identity
        self._hash = hash(identity)
        self._json_key = self._written_json_key()
        self._sort_key = (kind, self._json_key)
        self._text: str | None = None

    @staticmethod
    def field(name: str) -> PathElement:
        return _field_element(name)

    @staticmethod
    def key(fields: Mapping[str, Any]) -> PathElement:
        items = tuple(fields.items()) if len(fields) == 1 else tuple(sorted(fields.items()))
        try:
            found = _STRING_KEYS.get(items)  # holds only keys of strings, which equal no other values
        except TypeError:  # a key value that is a list or a map
            found = None
        if found is not None:
            return found
        identity = (KEY, tuple([(n, value_key(v)) for n, v in items]))
        shareable = True
        strings = True
        for _, value in items:
            if type(value) is not str:
                strings = False
                shareable = shareable and type(value) in _SHARED_SCALARS
        if not shareable:
            return PathElement(KEY, items, identity)
        element = _shared_element(KEY, items, identity)
        if strings:
            if len(_STRING_KEYS) >= _MAX_SHARED:
                _STRING_KEYS.clear()
            _STRING_KEYS[items] = element
        return element

    @staticmethod
    def value(value: Any) -> PathElement:
        if type(value) in _SHARED_SCALARS:
            return _shared_element(VALUE, value, (VALUE, value_key(value)))
        return PathElement(VALUE, value, (VALUE, value_key(value)))

    @staticmethod
    def index(position: int) -> PathElement:
        return PathElement(INDEX, position, (INDEX, position))

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, PathElement) and self._hash == other._hash
                                 and self._identity == other._identity)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"PathElement({self.to_json_key()})"

    def sort_key(self) -> tuple:
        return self._sort_key

    def __str__(self) -> str:
        """As PathElement.String: ``.name``, ``[name="a"]``, ``[="x"]``, ``[3]``."""
        if self._text is None:
            self._text = self._written_text()
        return self._text

    def _written_text(self) -> str:
        if self.kind == FIELD:
            return "." + self.payload
        if self.kind == KEY:
            return "[" + ",".join(f"{name}={value_json(v)}" for name, v in self.payload) + "]"
        if self.kind == VALUE:
            return f"[={value_json(self.payload)}]"
        return f"[{self.payload}]"

    def to_json_key(self) -> str:
        """The FieldsV1 key: ``f:name``, ``k:{"name":"a"}``, ``v:"x"``, ``i:3``."""
        return self._json_key

    def _written_json_key(self) -> str:
        if self.kind == FIELD:
            return "f:" + self.payload
        if self.kind == KEY:
            return "k:{" + ",".join(f"{json.dumps(n)}:{value_json(v)}" for n, v in self.payload) + "}"
        if self.kind == VALUE:
            return "v:" + value_json(self.payload)
        return f"i:{self.payload}"

    @staticmethod
    def from_json_key(text: str) -> PathElement:
        found = _READ_ELEMENTS.get(text)
        if found is None:
            found = PathElement._read_json_key(text)
            if len(_READ_ELEMENTS) >= _MAX_SHARED:
                _READ_ELEMENTS.clear()
            _READ_ELEMENTS[text] = found
        return found

    @staticmethod
    def _read_json_key(text: str) -> PathElement:
        prefix, rest = text[:2], text[2:]
        if prefix == "f:":
            return PathElement.field(rest)
        if prefix == "k:":
            fields = json.loads(rest)
            if not isinstance(fields, dict):
                raise ValueError(f"key element {text!r} is not a JSON object")
            return PathElement.key(fields)
        if prefix == "v:":
            return PathElement.value(json.loads(rest))
        if prefix == "i:":
            return PathElement.index(int(rest))
        raise ValueError(f"unknown path element {text!r}")


@functools.lru_cache(maxsize=65536)
def _field_element(name: str) -> PathElement:
    """Field elements are shared: the same few names recur in every object and every set."""
    return PathElement(FIELD, name, (FIELD, name))


# Key and value elements whose values are strings, integers or booleans are shared too (a float is
# not: 1e21 and 10**21 are one element spelled two ways), and FieldsV1 keys read once: an element's
# hash, key text and path text are then computed once, not once per request. Bounded: cleared when full.
_SHARED_SCALARS = frozenset({str, int, bool})
_MAX_SHARED = 200_000
_SHARED_ELEMENTS: dict[tuple, PathElement] = {}
_STRING_KEYS: dict[tuple, PathElement] = {}  # key elements whose values are all strings, by their items
_READ_ELEMENTS: dict[str, PathElement] = {}


def _shared_element(kind: int, payload: Any, identity: tuple) -> PathElement:
    found = _SHARED_ELEMENTS.get(identity)
    if found is None:
        if len(_SHARED_ELEMENTS) >= _MAX_SHARED:
            _SHARED_ELEMENTS.clear()
        found = _SHARED_ELEMENTS[identity] = PathElement(kind, payload, identity)
    return found


Path = tuple[PathElement, ...]
_SORT_KEY = operator.attrgetter("_sort_key")


def path_string(path: Path) -> str:
    return "".join(str(element) for element in path)


def make_path(*parts: Any) -> Path:
    """fieldpath.MakePathOrDie for field names and indices."""
    return tuple(PathElement.field(p) if isinstance(p, str) else PathElement.index(p) for p in parts)


class FieldSet:
    """A set of paths as a trie (fieldpath.Set): ``members`` end here, ``children`` go on."""

    __slots__ = ("children", "members")

    def __init__(self, members: set[PathElement] | None = None,
                 children: dict[PathElement, FieldSet] | None = None) -> None:
        self.members: set[PathElement] = members if members is not None else set()
        self.children: dict[PathElement, FieldSet] = children if children is not None else {}

    @staticmethod
    def of(*paths: Path) -> FieldSet:
        result = FieldSet()
        for path in paths:
            result.insert(path)
        return result

    def insert(self, path: Path) -> None:
        if not path:
            return
        node = self
        for element in path[:-1]:
            child = node.children.get(element)
            if child is None:
                child = node.children[element] = FieldSet()
            node = child
        node.members.add(path[-1])

    def has(self, path: Path) -> bool:
        if not path:
            return False
        node = self
        for element in path[:-1]:
            node = node.children.get(element)
            if node is None:
                return False
        return path[-1] in node.members

    def empty(self) -> bool:
        if self.members:
            return False
        for child in self.children.values():  # noqa: SIM110 - a loop is faster than all() over a generator
            if not child.empty():
                return False
        return True

    def copy(self) -> FieldSet:
        return FieldSet(set(self.members), {pe: child.copy() for pe, child in self.children.items()})

    def union(self, other: FieldSet) -> FieldSet:
        children = dict(self.children)
        for pe, child in other.children.items():
            mine = children.get(pe)
            children[pe] = child if mine is None else mine.union(child)
        return FieldSet(self.members | other.members, children)

    def intersection(self, other: FieldSet) -> FieldSet:
        children = {}
        for pe, child in self.children.items():
            theirs = other.children.get(pe)
            if theirs is not None:
                both = child.intersection(theirs)
                if not both.empty():
                    children[pe] = both
        return FieldSet(self.members & other.members, children)

    def difference(self, other: FieldSet) -> FieldSet:
        """Paths of self not in other; a member of other does not remove self's children below it."""
        children = {}
        for pe, child in self.children.items():
            theirs = other.children.get(pe)
            rest = child if theirs is None else child.difference(theirs)
            if theirs is None or not rest.empty():
                children[pe] = rest
        return FieldSet(self.members - other.members, children)

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Like difference, but a member of other removes everything below it too."""
        children = {}
        for pe, child in self.children.items():
            if pe in other.members:
                continue
            theirs = other.children.get(pe)
            if theirs is None:
                children[pe] = child
                continue
            rest = child.recursive_difference(theirs)
            if not rest.empty():
                children[pe] = rest
        return FieldSet(self.members - other.members, children)

    def with_prefix(self, element: PathElement) -> FieldSet:
        return self.children.get(element) or FieldSet()

    def leaves(self) -> FieldSet:
        """Members that have no children (fieldpath.Set.Leaves)."""
        return FieldSet({m for m in self.members if m not in self.children},
                        {pe: child.leaves() for pe, child in self.children.items()})

    def paths(self, prefix: Path = ()) -> Iterator[Path]:
        """Every path, members before children, each level in element order (Set.Iterate)."""
        for element in sorted(self.members, key=PathElement.sort_key):
            yield (*prefix, element)
        for element in sorted(self.children, key=PathElement.sort_key):
            yield from self.children[element].paths((*prefix, element))

    def same_trie(self, other: FieldSet) -> bool:
        """Whether both hold the same members and children, node for node (so they encode alike;
        ``==`` compares encodings, which a member and an empty child of one name also share)."""
        if self is other:
            return True
        if self.members != other.members or self.children.keys() != other.children.keys():
            return False
        theirs = other.children
        return all(child.same_trie(theirs[element]) for element, child in self.children.items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        return self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"FieldSet({[path_string(p) for p in self.paths()]})"

    # --- FieldsV1 -------------------------------------------------------------------------

    def to_json(self, member: bool = False) -> dict[str, Any]:
        """The FieldsV1 object: ``{"f:spec": {".": {}, "f:replicas": {}}}`` (``member``: these are
        the children of a path that is in the set too, written first as ``".": {}``)."""
        out: dict[str, Any] = {".": {}} if member else {}
        members, children = self.members, self.children
        for element in sorted(members.union(children), key=_SORT_KEY):
            child = children.get(element)
            out[element._json_key] = {} if child is None else child.to_json(element in members)
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> FieldSet:
        result = FieldSet()
        for text, child in data.items():
            if text == ".":
                continue
            element = PathElement.from_json_key(text)
            if type(child) is not dict and not isinstance(child, Mapping):
                raise ValueError(f"{text}: expected an object, got {child!r}")
            if not child or "." in child:
                result.members.add(element)
                if len(child) <= 1:  # nothing below it
                    continue
            nested = FieldSet.from_json(child)
            if not nested.empty():
                result.children[element] = nested
        return result


# A named tuple, not a dataclass: never changed, and quicker to define at import.
class VersionedSet(NamedTuple):
    """One manager's fields at an API version, and whether it got them by applying."""

    set: FieldSet
    api_version: str
    applied: bool
