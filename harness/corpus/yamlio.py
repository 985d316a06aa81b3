"""Reading case files as plain JSON data.

Case files are YAML restricted to what JSON can hold, so any language can read them.
PyYAML speaks YAML 1.1, which turns ``yes``/``on`` into booleans and unquoted dates into
timestamps; our loader resolves only the YAML 1.2 core schema (``true``/``false``,
``null``, ints, floats, strings), and ``patchconf validate`` flags any scalar that a
YAML 1.1 reader would read differently, so the corpus means the same everywhere.

A case file is input from anyone who opens a pull request, so reading one is bounded: a
file over :data:`MAX_FILE_BYTES`, bytes that are not UTF-8, nesting deeper than
:data:`MAX_DEPTH`, a scalar over :data:`MAX_SCALAR_CHARS`, aliases that expand to more
than :data:`MAX_EXPANDED_SIZE` (an alias bomb) or that refer to their own anchor are
refused with :class:`RefusedInput`, in time linear in the file's size.

Speed: libyaml (PyYAML's C parser) scans and parses when it is installed; composing
nodes stays in Python, where depth and alias expansion are bounded (libyaml's own
composer recurses on the C stack and crashes the interpreter on deep nesting), and the
nodes become JSON values in one pass (:meth:`JsonYamlLoader.construct_json`).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent, StreamEndEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

from ...reference_impl import jsonpointer

try:  # libyaml's scanner and parser; PyYAML's own when PyYAML was built without it
    from yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover - depends on how PyYAML was installed
    _CParser = None

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 200
MAX_SCALAR_CHARS = 1024 * 1024
# nodes plus scalar characters, counting every alias as a copy of what it refers to
MAX_EXPANDED_SIZE = 16 * 1024 * 1024

STR_TAG = "tag:yaml.org,2002:str"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
BOOL_TAG = "tag:yaml.org,2002:bool"
NULL_TAG = "tag:yaml.org,2002:null"
SEQ_TAG = "tag:yaml.org,2002:seq"
MAP_TAG = "tag:yaml.org,2002:map"


class RefusedInput(yaml.MarkedYAMLError):
    """A file patchconf refuses to read: too large, too deep, not UTF-8, an alias bomb."""

    def __init__(self, problem: str, problem_mark: yaml.Mark | None = None) -> None:
        super().__init__(problem=problem, problem_mark=problem_mark)


_CORE_RESOLVERS = [
    (BOOL_TAG, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (NULL_TAG, r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    (INT_TAG, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        FLOAT_TAG,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
]


class CoreResolver(BaseResolver):
    """The YAML 1.2 core schema's implicit tags for plain scalars; no path resolvers."""

    yaml_implicit_resolvers: ClassVar[dict] = {}

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            if implicit[0]:
                for tag, regexp in self.yaml_implicit_resolvers.get(value[:1], ()):
                    if regexp.match(value):
                        return tag
            return STR_TAG
        return SEQ_TAG if kind is SequenceNode else MAP_TAG


for _tag, _pattern, _first in _CORE_RESOLVERS:
    CoreResolver.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _int(text: str) -> int:
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text)


def _float(text: str) -> float:
    lowered = text.lower()
    if lowered.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if lowered == ".nan":
        return math.nan
    return float(text)


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered not in ("true", "false"):
        raise ValueError(f"{text!r} is not true or false")
    return lowered == "true"


_SCALARS = {
    STR_TAG: str,
    INT_TAG: _int,
    FLOAT_TAG: _float,
    BOOL_TAG: _bool,
    NULL_TAG: lambda text: None,
}
_NO_KEY = object()


class _Collection:
    """A sequence or mapping being built."""

    __slots__ = ("anchor", "event", "key", "key_events", "value")

    def __init__(self, value: list | dict, anchor: str | None, event: yaml.Event) -> None:
        self.value = value
        self.anchor = anchor
        self.event = event
        self.key: Any = _NO_KEY
        self.key_events: dict[Any, yaml.Event] = {}


class _JsonBuilder:
    """Parser events to JSON values (dict, list, str, int, float, bool, None) in one pass.

    What PyYAML's composer and SafeConstructor do, with an explicit stack instead of
    recursion, bounded (depth, scalar size, alias expansion), refusing duplicate keys and
    any tag JSON cannot hold. An alias is the very value its anchor built, as in PyYAML, so
    building stays linear; what aliases expand to is measured after, if there are any.
    """

    def get_single_data(self) -> Any:
        self.get_event()  # stream start
        if self.check_event(StreamEndEvent):
            self.get_event()
            return None
        self.get_event()  # document start
        value, mark = self._document()
        self.get_event()  # document end
        if not self.check_event(StreamEndEvent):
            event = self.get_event()
            raise ComposerError("expected a single document in the stream", mark,
                                "but found another document", event.start_mark)
        self.get_event()
        return value

    def _document(self) -> tuple[Any, yaml.Mark]:
        get_event, resolve = self.get_event, self.resolve
        implicit_tags = self.yaml_implicit_resolvers
        anchors: dict[str, tuple[Any, yaml.Event]] = {}
        open_anchors: set[str] = set()
        stack: list[_Collection] = []
        aliased = False
        while True:
            event = get_event()
            kind = event.__class__
            if kind is ScalarEvent:
                value = event.value
                if len(value) > MAX_SCALAR_CHARS:
                    raise RefusedInput(f"a scalar of {len(value):,} characters, over the limit of "
                                       f"{MAX_SCALAR_CHARS:,}", event.start_mark)
                tag = event.tag
                if tag is None or tag == "!":  # resolved here rather than by a call per scalar: most are strings
                    if event.implicit[0]:
                        for candidate, regexp in implicit_tags.get(value[:1], ()):
                            if regexp.match(value):
                                value = self._scalar(candidate, value, event.start_mark)
                                break
                elif tag != STR_TAG:
                    value = self._scalar(tag, value, event.start_mark)
                if event.anchor is not None:
                    self._anchor(anchors, event, value)
            elif kind is AliasEvent:
                if event.anchor in open_anchors:
                    raise RefusedInput(f"alias *{event.anchor} refers to the collection that defines it "
                                       "(a recursive alias)", event.start_mark)
                if event.anchor not in anchors:
                    raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
                value = anchors[event.anchor][0]
                aliased = True
            elif kind is SequenceStartEvent or kind is MappingStartEvent:
                sequence = kind is SequenceStartEvent
                tag = event.tag
                if tag is None or tag == "!":
                    tag = resolve(SequenceNode if sequence else MappingNode, None, event.implicit)
                if tag != (SEQ_TAG if sequence else MAP_TAG):
                    raise ConstructorError(None, None, f"tag {tag!r} is not allowed: case files hold JSON values",
                                           event.start_mark)
                if len(stack) >= MAX_DEPTH:
                    raise RefusedInput(f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
                if event.anchor is not None:
                    if event.anchor in open_anchors:
                        raise ComposerError(None, None, f"found duplicate anchor {event.anchor!r}", event.start_mark)
                    self._anchor(anchors, event, None)
                    open_anchors.add(event.anchor)
                stack.append(_Collection([] if sequence else {}, event.anchor, event))
                continue
            else:  # the end of a sequence or mapping
                done = stack.pop()
                value, event = done.value, done.event
                if done.anchor is not None:
                    open_anchors.discard(done.anchor)
                    anchors[done.anchor] = (value, event)
            if not stack:
                if aliased:
                    _bound_expansion(value, event, anchors)
                return value, event.start_mark
            parent = stack[-1]
            container = parent.value
            if container.__class__ is list:
                container.append(value)
            elif parent.key is not _NO_KEY:
                container[parent.key] = value
                parent.key = _NO_KEY
            else:
                # Every earlier key of this mapping has its value by now, so a repeated key is in it.
                try:
                    repeated = value in container
                except TypeError:
                    raise ConstructorError("while constructing a mapping", parent.event.start_mark,
                                           "found unhashable key", event.start_mark) from None
                if repeated:
                    # PyYAML keeps the last of repeated keys silently; other readers differ, so refuse them.
                    first = parent.key_events[value].start_mark.line + 1
                    raise ConstructorError("while constructing a mapping", parent.event.start_mark,
                                           f"found duplicate key {value!r} (first at line {first})", event.start_mark)
                parent.key_events[value] = event
                parent.key = value

    @staticmethod
    def _scalar(tag: str, text: str, mark: yaml.Mark) -> Any:
        convert = _SCALARS.get(tag)
        if convert is None:
            raise ConstructorError(None, None, f"tag {tag!r} is not allowed: case files hold JSON values", mark)
        try:
            return convert(text)
        except ValueError as exc:
            raise ConstructorError(None, None, f"cannot read {tag.rsplit(':', 1)[-1]} {text[:40]!r}: {exc}",
                                   mark) from None

    @staticmethod
    def _anchor(anchors: dict[str, tuple[Any, yaml.Event]], event: yaml.Event, value: Any) -> None:
        if event.anchor in anchors:
            raise ComposerError(f"found duplicate anchor {event.anchor!r}; first occurrence",
                                anchors[event.anchor][1].start_mark, "second occurrence", event.start_mark)
        anchors[event.anchor] = (value, event)


def _bound_expansion(root: Any, root_event: yaml.Event, anchors: dict[str, tuple[Any, yaml.Event]]) -> None:
    """Refuse a document whose aliases expand it beyond MAX_EXPANDED_SIZE or MAX_DEPTH.

    Values are shared, not copied, so this is linear in what was built: each collection's
    expanded size and depth are computed once. The first anchored collection over the
    limit is named (an alias bomb's first level too big), else the document.
    """
    measured: dict[int, tuple[int, int]] = {}

    def measure(value: Any) -> tuple[int, int]:
        stack = [(value, False)]
        while stack:
            node, children_done = stack.pop()
            if id(node) in measured:
                continue
            members = node.values() if node.__class__ is dict else node
            if not children_done:
                stack.append((node, True))
                stack.extend((m, False) for m in members if m.__class__ in (dict, list) and id(m) not in measured)
                continue
            size = 1 + (sum(1 + len(k) if k.__class__ is str else 1 for k in node) if node.__class__ is dict else 0)
            depth = 1
            for member in members:
                if member.__class__ in (dict, list):
                    member_size, member_depth = measured[id(member)]
                    size += member_size
                    depth = max(depth, member_depth + 1)
                else:
                    size += 1 + len(member) if member.__class__ is str else 1
            measured[id(node)] = (min(size, MAX_EXPANDED_SIZE + 1), depth)
        return measured[id(value)]

    for value, event in [*anchors.values(), (root, root_event)]:
        if value.__class__ not in (dict, list):
            continue
        size, depth = measure(value)
        if size > MAX_EXPANDED_SIZE:
            raise RefusedInput(f"aliases expand this collection to more than {MAX_EXPANDED_SIZE:,} nodes and "
                               "characters (an alias bomb?)", event.start_mark)
        if depth > MAX_DEPTH:
            raise RefusedInput(f"aliases nest this collection deeper than {MAX_DEPTH} levels", event.start_mark)



class PurePythonLoader(_JsonBuilder, yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, CoreResolver):
    """PyYAML's pure-Python scanner and parser, our resolver, events to JSON values."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        CoreResolver.__init__(self)


if _CParser is not None:

    class JsonYamlLoader(_JsonBuilder, _CParser, CoreResolver):
        """libyaml's scanner and parser, our resolver, events to JSON values."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            CoreResolver.__init__(self)

else:  # pragma: no cover - depends on how PyYAML was installed
    JsonYamlLoader = PurePythonLoader  # type: ignore[misc]


def _json_object(pairs: list[tuple[str, Any]]) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise RefusedInput(f"duplicate key {repeated!r} in a JSON object")
    return data


def _check_json_bounds(value: Any) -> None:
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= MAX_DEPTH:
                raise RefusedInput(f"nested deeper than {MAX_DEPTH} levels")
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(node, str) and len(node) > MAX_SCALAR_CHARS:
            raise RefusedInput(f"a string of {len(node):,} characters, over the limit of {MAX_SCALAR_CHARS:,}")


def load_text(text: str, suffix: str = ".yaml") -> Any:
    """Parse a case or schema file's text (JSON or YAML 1.2 core), refusing hostile input."""
    if suffix == ".json":
        try:
            data = json.loads(text, object_pairs_hook=_json_object)
        except RecursionError:
            raise RefusedInput(f"nested deeper than {MAX_DEPTH} levels") from None
        except json.JSONDecodeError:
            raise
        except ValueError as exc:  # an integer beyond Python's digit limit
            raise RefusedInput(str(exc)) from None
        _check_json_bounds(data)
        return data
    loader = JsonYamlLoader(text)
    try:
        return loader.get_single_data()
    except yaml.scanner.ScannerError as exc:
        if "maximum nesting depth" not in str(exc.problem):
            _show_source(exc, text)
            raise
        # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1,000 flow levels while it scans ahead,
        # before our builder sees the 201st; PyYAML's own scanner looks ahead at most 1,024
        # characters, so it finds where the 201st level opens and refuses it there.
        return _load_pure_python(text)
    except yaml.MarkedYAMLError as exc:
        _show_source(exc, text)
        raise
    finally:
        loader.dispose()


def _load_pure_python(text: str) -> Any:
    loader = PurePythonLoader(text)
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        _show_source(exc, text)
        raise
    finally:
        loader.dispose()


def _show_source(error: yaml.MarkedYAMLError, text: str) -> None:
    """Give libyaml's marks (which carry no text) the line they point at, as PyYAML's own show it."""
    for attribute in ("context_mark", "problem_mark"):
        mark = getattr(error, attribute)
        if mark is None or mark.buffer is not None:
            continue
        lines = text.split("\n", mark.line + 1)
        line = lines[mark.line] if mark.line < len(lines) else ""
        setattr(error, attribute, yaml.Mark(mark.name, mark.index, mark.line, mark.column, line + "\0",
                                            min(mark.column, len(line))))


def read_text(path: Path) -> str:
    """A case file's text: at most MAX_FILE_BYTES of UTF-8."""
    return decode_text(read_bytes(path))


def read_bytes(path: Path) -> bytes:
    """A case file's bytes, refused over MAX_FILE_BYTES."""
    with open(path, "rb") as stream:
        # A read of the file's own size: reading MAX_FILE_BYTES + 1 at once allocates that much
        # for every file (10 ms over the corpus). One byte more tells a file that grew meanwhile.
        size = os.fstat(stream.fileno()).st_size
        data = stream.read(min(size, MAX_FILE_BYTES) + 1)
        if len(data) > size:
            data += stream.read(MAX_FILE_BYTES + 1 - len(data))
    if len(data) > MAX_FILE_BYTES:
        raise RefusedInput(f"the file is over the limit of {MAX_FILE_BYTES:,} bytes for a case file")
    return data


def decode_text(data: bytes) -> str:
    """A case file's bytes as text, refused unless UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RefusedInput(f"not UTF-8: byte 0x{data[exc.start]:02x} at line {line}, column {column}") from None


def load_path(path: Path) -> Any:
    return load_text(read_text(path), path.suffix)


_YAML11_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def yaml11_differences(text: str) -> list[str]:
    """Scalars that PyYAML's YAML 1.1 SafeLoader reads differently from our 1.2 loader."""
    # Ours first: it refuses what could crash or exhaust libyaml's composer (deep nesting, alias bombs).
    ours = load_text(text)
    theirs = yaml.load(text, Loader=_YAML11_LOADER)
    found: list[str] = []
    _collect_differences(ours, theirs, "", found)
    return found


def _collect_differences(ours: Any, theirs: Any, pointer: str, found: list[str]) -> None:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if list(ours) != list(theirs):
            found.append(f"{pointer or '/'}: keys {list(ours)!r} read as {list(theirs)!r}")
            return
        for key in ours:
            _collect_differences(ours[key], theirs[key], jsonpointer.join(pointer, key), found)
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _collect_differences(a, b, f"{pointer}/{index}", found)
    elif type(ours) is not type(theirs) or ours != theirs:
        found.append(f"{pointer or '/'}: {ours!r} reads as {theirs!r} under YAML 1.1; quote it")


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False)


def value_positions(text: str) -> Callable[[Sequence[str | int]], tuple[int, int] | None]:
    """Where values are in a case file's text: a function from a JSON pointer's parts to the
    1-based line and column of the value there (of the deepest one that exists on the way, for a
    member that is missing), or None where the text cannot be composed. Only a file with problems
    asks, so the text is composed (again) once for all of them."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):
        root = None

    def position(parts: Sequence[str | int]) -> tuple[int, int] | None:
        if root is None:
            return None
        node = root
        for part in parts:
            if isinstance(node, yaml.MappingNode):
                found = [value for key, value in node.value
                         if isinstance(key, yaml.ScalarNode) and key.value == str(part)]
                if not found:
                    break
                node = found[-1]
            elif isinstance(node, yaml.SequenceNode) and str(part).isdigit() and int(part) < len(node.value):
                node = node.value[int(part)]
            else:
                break
        return node.start_mark.line + 1, node.start_mark.column + 1

    return position


VERSION_KEYS = ("version", "versions", "kubernetes_version")
_PLAIN_NUMBER = re.compile(r"[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?")


def unquoted_versions(text: str) -> list[tuple[int, int, str]]:
    """Version fields written as plain numbers, with their 1-based line and column: ``version: 1.10``
    is the number 1.1 to every YAML loader (1.1 and 1.2 alike), not the release 1.10."""
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):
        return []  # what cannot be composed is a load error already
    found: list[tuple[int, int, str]] = []
    pending = [root] if root is not None else []
    seen: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen:  # an alias: one node, reached twice
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if (isinstance(key, yaml.ScalarNode) and key.value in VERSION_KEYS
                        and isinstance(value, yaml.ScalarNode) and not value.style and value.value
                        and _PLAIN_NUMBER.fullmatch(value.value)):
                    read = load_text(f"v: {value.value}")["v"]
                    trap = f"the number {read!r}" + ("" if str(read) == value.value else f", not {value.value}")
                    found.append((value.start_mark.line + 1, value.start_mark.column + 1,
                                  f"{key.value}: {value.value} reads as {trap}; quote it: \"{value.value}\""))
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return sorted(found)
