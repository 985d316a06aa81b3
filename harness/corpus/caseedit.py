"""Adding members to the cases of a case file, keeping every line that was there.

``patchconf record`` writes what Kubernetes answered into cases that stated only their
inputs, and ``patchconf verify --write`` adds the judges that confirmed a case to its
``provenance`` (or to the file's ``defaults``). A full YAML round trip (ruamel.yaml's
included) rewrites more than it adds: on this corpus it turns ``null`` into an empty value
and ``[{b: c}]`` into ``[b: c]``. So the file is edited as text instead: PyYAML's node
positions say where each case (and each step of a server-side apply case, each list added
to) ends, the new members are rendered in the corpus's own style (flow mappings where they
fit on a line, block layout where not; strings quoted wherever a YAML 1.1 or 1.2 reader
could take them for something else) and inserted there. A case, step or list written in
flow style is rewritten in block style, the only lines that change.
The result is checked: it must load back to exactly the old data plus the new members.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from .cases import EXPECTATION_KEYS, INPUT_KEYS
from .yamlio import JsonYamlLoader, load_text

WIDTH = 120
# Lists of entries a reader scans one per line, even where they would fit on one.
BLOCK_LISTS = ("provenance", "expected_managed_fields", "steps")
_NUMBER_LIKE = re.compile(r"[0-9][0-9.:_+-]*")
_STR = "tag:yaml.org,2002:str"


class EditError(Exception):
    """The file could not be edited so that it loads back to what was meant."""


# New members go after the last of these a case has.
MEMBERS_BEFORE = (*INPUT_KEYS, *EXPECTATION_KEYS)


@dataclass(frozen=True)
class CaseAddition:
    """Members to add to one case (after its inputs and expectation), for a step sequence to
    its steps, and items to append to lists the case has (``{"provenance": [entry]}``)."""

    name: str
    members: dict[str, Any] = field(default_factory=dict)
    step_members: tuple[dict[str, Any], ...] = ()
    appended: dict[str, list[Any]] = field(default_factory=dict)


# --- rendering ----------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Quotes a string wherever either YAML 1.1 (PyYAML's own resolvers) or the 1.2 core
    schema our loader follows (``0o17``, ``1e3``) would read the plain text as something else,
    and, as the corpus does, a string that looks like a number (``"1.32.4"``); in double quotes."""

    def choose_scalar_style(self) -> str:
        style = super().choose_scalar_style()
        if style == "" and self.event.tag == _STR and _NUMBER_LIKE.fullmatch(self.event.value):
            return '"'
        return '"' if style == "'" else style


_Dumper.yaml_implicit_resolvers = {
    first: [*yaml.SafeDumper.yaml_implicit_resolvers.get(first, []),
            *JsonYamlLoader.yaml_implicit_resolvers.get(first, [])]
    for first in {*yaml.SafeDumper.yaml_implicit_resolvers, *JsonYamlLoader.yaml_implicit_resolvers}
}


class Quoted(str):
    """A string written in double quotes wherever it is (the corpus quotes provenance's texts)."""

    __slots__ = ()


_Dumper.add_representer(Quoted, lambda dumper, text: dumper.represent_scalar(_STR, str(text), style='"'))


def flow(value: Any) -> str:
    """``value`` as one line of flow YAML, e.g. ``{a: "1", b: [x, null]}``."""
    # Dumped inside a list: a plain top-level scalar would get a document-end marker.
    text = yaml.dump([value], Dumper=_Dumper, default_flow_style=True, sort_keys=False,
                     allow_unicode=True, width=2**31)
    return text.strip()[1:-1]


def _nested(value: Any) -> bool:
    return isinstance(value, (dict, list)) and bool(value)


def member_lines(key: str, value: Any, indent: int) -> list[str]:
    head = f"{' ' * indent}{flow(key)}:"
    inline = f"{head} {flow(value)}"
    if not _nested(value) or (len(inline) <= WIDTH and not (key in BLOCK_LISTS and isinstance(value, list))):
        return [inline]
    return [head, *block_lines(value, indent + 2)]


def block_lines(value: dict | list, indent: int) -> list[str]:
    if isinstance(value, dict):
        return [line for key, child in value.items() for line in member_lines(key, child, indent)]
    return [line for item in value for line in item_lines(item, indent)]


def item_lines(item: Any, indent: int) -> list[str]:
    prefix = " " * indent + "- "
    inline = prefix + flow(item)
    if not isinstance(item, dict) or not item or len(inline) <= WIDTH:
        return [inline]
    lines = block_lines(item, indent + 2)
    return [prefix + lines[0].lstrip(" "), *lines[1:]]


# --- editing ------------------------------------------------------------------------------


def add_to_cases(text: str, additions: Sequence[CaseAddition], suffix: str = ".yaml",
                 defaults_appended: Mapping[str, list[Any]] | None = None) -> str:
    """The file's text with the members added (and ``defaults_appended``'s items appended to the
    lists of the file's ``defaults``); raises EditError if that cannot be done exactly."""
    data = load_text(text, suffix)
    expected = _with_additions(data, additions, defaults_appended or {})
    if suffix == ".json":
        edited = json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    else:
        edited = _edit_yaml(text, data, additions, defaults_appended or {})
    if _canonical(load_text(edited, suffix)) != _canonical(expected):
        raise EditError("the edited file does not load back to the old cases plus the new members")
    return edited


def _canonical(value: Any) -> str:
    # strict about types, as JSON is: 1, 1.0 and true differ
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _case_index(data: Any, name: str) -> int:
    for index, case in enumerate(data.get("cases", []) if isinstance(data, dict) else []):
        if isinstance(case, dict) and case.get("name") == name:
            return index
    raise EditError(f"case {name!r} not found")


def _ordered(mapping: dict[str, Any], members: dict[str, Any], after: Sequence[str]) -> dict[str, Any]:
    """``mapping`` with ``members`` placed after the last of the keys ``after`` (else at the end)."""
    keys = list(mapping)
    anchor = max((keys.index(k) for k in after if k in mapping), default=len(keys) - 1)
    result: dict[str, Any] = {}
    for position, key in enumerate(keys):
        result[key] = mapping[key]
        if position == anchor:
            result.update(members)
    result.update({k: v for k, v in members.items() if k not in result})
    return result


def _appended(mapping: dict[str, Any], appended: Mapping[str, list[Any]], where: str) -> dict[str, Any]:
    for key in appended:
        if not isinstance(mapping.get(key), list):
            raise EditError(f"{where} has no list {key!r} to add to")
    return {key: [*value, *appended[key]] if key in appended else value for key, value in mapping.items()}


def _with_additions(data: Any, additions: Sequence[CaseAddition], defaults_appended: Mapping[str, list[Any]]) -> Any:
    result = copy.deepcopy(data)
    if defaults_appended:
        defaults = result.get("defaults") if isinstance(result, dict) else None
        result["defaults"] = _appended(defaults if isinstance(defaults, dict) else {}, defaults_appended,
                                       "the file's defaults")
    for addition in additions:
        index = _case_index(result, addition.name)
        case = result["cases"][index]
        clash = [key for key in addition.members if key in case]
        if clash:
            raise EditError(f"case {addition.name!r} already has {', '.join(clash)}")
        if addition.step_members:
            steps = case.get("steps")
            if not isinstance(steps, list) or len(steps) != len(addition.step_members):
                raise EditError(f"case {addition.name!r} has not {len(addition.step_members)} steps")
            for step, members in zip(steps, addition.step_members, strict=True):
                if any(key in step for key in members):
                    raise EditError(f"a step of case {addition.name!r} already states {', '.join(members)}")
            case["steps"] = [{**step, **members} for step, members in zip(steps, addition.step_members, strict=True)]
        case = _appended(case, copy.deepcopy(addition.appended), f"case {addition.name!r}")
        result["cases"][index] = _ordered(case, addition.members, MEMBERS_BEFORE)
    return result


@dataclass(order=True)
class _Edit:
    line: int  # 0-based line where the edit starts
    column: int
    order: int  # at one place: a step's members before its case's
    end_line: int = -1  # for a replacement: where the replaced node ends
    end_column: int = 0
    lines: list[str] = field(default_factory=list)


def _edit_yaml(text: str, data: Any, additions: Sequence[CaseAddition],
               defaults_appended: Mapping[str, list[Any]]) -> str:
    root = yaml.compose(text, Loader=JsonYamlLoader)
    case_nodes = _value(root, "cases")
    if not isinstance(case_nodes, yaml.SequenceNode) or case_nodes.flow_style:
        raise EditError("the file's cases are not a block sequence; edit it by hand")
    expected = _with_additions(data, additions, defaults_appended)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    edits: list[_Edit] = []
    defaults_node = _value(root, "defaults")
    if defaults_appended:
        if not isinstance(defaults_node, yaml.MappingNode) or defaults_node.flow_style:
            raise EditError("the file's defaults are not a block mapping; edit it by hand")
        edits += _list_appends(defaults_node, expected["defaults"], defaults_appended, lines)
    for addition in additions:
        index = _case_index(data, addition.name)
        node = case_nodes.value[index]
        if node.flow_style:
            edits.append(_replacement(node, expected["cases"][index]))
            continue
        if addition.step_members:
            steps = _value(node, "steps")
            for step_node, step, members in zip(steps.value, expected["cases"][index]["steps"],
                                                addition.step_members, strict=True):
                if not members:
                    continue
                if step_node.flow_style:
                    edits.append(_replacement(step_node, step))
                else:
                    edits.append(_insertion(step_node, list(step_node.value), members, 0, lines))
        edits += _list_appends(node, expected["cases"][index], addition.appended, lines)
        if addition.members:
            pairs = list(node.value)
            before = [i for i, (key, _) in enumerate(pairs) if key.value in MEMBERS_BEFORE]
            last = before[-1] if before else len(pairs) - 1
            edits.append(_insertion(node, pairs[: last + 1], addition.members, 1, lines))
    for edit in sorted(edits, reverse=True):
        if edit.end_line < 0:
            lines[edit.line:edit.line] = [line + "\n" for line in edit.lines]
        else:
            prefix = lines[edit.line][: edit.column]
            rest = lines[edit.end_line][edit.end_column:].strip()
            new = [prefix + edit.lines[0][edit.column:], *edit.lines[1:]]
            if rest:  # a comment after the flow mapping: now after its first line
                new[0] += "  " + rest
            lines[edit.line:edit.end_line + 1] = [line + "\n" for line in new]
    return "".join(lines)


def _value(mapping: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(mapping, yaml.MappingNode):
        return None
    return next((value for k, value in mapping.value if k.value == key), None)


def _insertion(node: yaml.MappingNode, pairs: list[tuple[yaml.Node, yaml.Node]], members: dict[str, Any],
               order: int, lines: list[str]) -> _Edit:
    """Insert after the last of ``pairs``, at the indentation of the mapping's keys."""
    indent = node.value[0][0].start_mark.column
    key, value = pairs[-1]
    return _Edit(_last_line(value, key, lines) + 1, 0, order, lines=block_lines(members, indent))


def _list_appends(node: yaml.MappingNode, value: dict[str, Any], appended: Mapping[str, list[Any]],
                  lines: list[str]) -> list[_Edit]:
    """Items added after the last item of each block list ``appended`` names; a list in flow
    style is rewritten whole (in block style where it no longer fits on its line)."""
    edits = []
    for key_node, list_node in node.value:
        if key_node.value not in appended or not appended[key_node.value]:
            continue
        items = appended[key_node.value]
        if isinstance(list_node, yaml.SequenceNode) and not list_node.flow_style and list_node.value:
            column = list_node.start_mark.column  # the first item's dash
            new = [line for item in items for line in item_lines(item, column)]
            edits.append(_Edit(_last_line(list_node, key_node, lines) + 1, 0, 0, lines=new))
        else:
            column = key_node.start_mark.column
            edits.append(_Edit(key_node.start_mark.line, column, 2, list_node.end_mark.line, list_node.end_mark.column,
                               member_lines(key_node.value, value[key_node.value], column)))
    return edits


def _replacement(node: yaml.Node, value: dict[str, Any]) -> _Edit:
    """Replace a flow-style mapping by the block rendering of ``value``, starting where it started."""
    column = node.start_mark.column
    return _Edit(node.start_mark.line, column, 2, node.end_mark.line, node.end_mark.column,
                 block_lines(value, column))


def _last_line(node: yaml.Node, key: yaml.Node | None, lines: list[str]) -> int:
    """The last line holding part of ``node`` (0-based), not the blank lines or comments after it."""
    if key is not None and node.start_mark.line < key.start_mark.line:
        # an alias (`object: *config`): PyYAML hands back the anchored node, marks and all
        return key.end_mark.line
    if isinstance(node, yaml.ScalarNode):
        if node.value == "" and node.style is None and key is not None:  # `key:` alone, an implicit null
            return key.end_mark.line
        if node.style in ("|", ">"):
            # a block scalar ends at the start of the line after it, blank lines after it included
            line = node.end_mark.line - 1
            while line > node.start_mark.line and not lines[line].strip():
                line -= 1
            return line
        return node.end_mark.line if node.end_mark.column > 0 else node.end_mark.line - 1
    if node.flow_style:
        return node.end_mark.line if node.end_mark.column > 0 else node.end_mark.line - 1
    if isinstance(node, yaml.MappingNode):
        last_key, last_value = node.value[-1]
        return _last_line(last_value, last_key, lines)
    return _last_line(node.value[-1], None, lines)
