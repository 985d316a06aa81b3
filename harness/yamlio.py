"""Reading case files as plain JSON data.

Case files are YAML restricted to what JSON can hold, so any language can read them.
PyYAML speaks YAML 1.1, which turns ``yes``/``on`` into booleans and unquoted dates into
timestamps; our loader resolves only the YAML 1.2 core schema (``true``/``false``,
``null``, ints, floats, strings), and ``patchconf validate`` flags any scalar that a
YAML 1.1 reader would read differently, so the corpus means the same everywhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml


class JsonYamlLoader(yaml.SafeLoader):
    """SafeLoader resolving only the YAML 1.2 core schema."""


JsonYamlLoader.yaml_implicit_resolvers = {}
_CORE_RESOLVERS = [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
]
for _tag, _pattern, _first in _CORE_RESOLVERS:
    JsonYamlLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    return int(text, 0) if text.startswith("0x") else int(text)


JsonYamlLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    # PyYAML keeps the last of repeated keys silently; other readers differ, so refuse them.
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                f"found duplicate key {key!r} (first at line {seen[key].start_mark.line + 1})", key_node.start_mark)
        seen[key] = key_node
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


JsonYamlLoader.add_constructor("tag:yaml.org,2002:map", lambda loader, node: _mapping(loader, node))


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode):
    data: dict = {}
    yield data
    data.update(_construct_mapping(loader, node))


def load_text(text: str, suffix: str = ".yaml") -> Any:
    """Parse a case or schema file's text (JSON or YAML 1.2 core)."""
    if suffix == ".json":
        return json.loads(text)
    return yaml.load(text, Loader=JsonYamlLoader)


def load_path(path: Path) -> Any:
    return load_text(path.read_text(encoding="utf-8"), path.suffix)


def yaml11_differences(text: str) -> list[str]:
    """Scalars that PyYAML's YAML 1.1 SafeLoader reads differently from our 1.2 loader."""
    ours = yaml.load(text, Loader=JsonYamlLoader)
    theirs = yaml.safe_load(text)
    found: list[str] = []
    _collect_differences(ours, theirs, "", found)
    return found


def _collect_differences(ours: Any, theirs: Any, pointer: str, found: list[str]) -> None:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if list(ours) != list(theirs):
            found.append(f"{pointer or '/'}: keys {list(ours)!r} read as {list(theirs)!r}")
            return
        for key in ours:
            token = str(key).replace("~", "~0").replace("/", "~1")
            _collect_differences(ours[key], theirs[key], f"{pointer}/{token}", found)
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _collect_differences(a, b, f"{pointer}/{index}", found)
    elif type(ours) is not type(theirs) or ours != theirs:
        found.append(f"{pointer or '/'}: {ours!r} reads as {theirs!r} under YAML 1.1; quote it")


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False)
