"""Where a case stands in its file: the ``path:line`` a report points its reader to.

The loader keeps no positions (libyaml's fast path builds values, not nodes); a report needs the
line of a failing case only, so the file is composed again then, once per file and version.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import yaml

from .cases import Case
from .yamlio import JsonYamlLoader, RefusedInput, decode_text, read_bytes


def case_source(case: Case) -> str:
    """``/abs/path/to/file.yaml:LINE`` of the case (the line of its first member), the path alone
    when the line cannot be told, '' for a case not loaded from a file."""
    if case.path is None:
        return ""
    path = os.path.abspath(case.path)
    try:
        stat = os.stat(path)
    except OSError:
        return path
    line = _case_lines(path, stat.st_mtime_ns, stat.st_size).get(case.name)
    return f"{path}:{line}" if line else path


@functools.lru_cache(maxsize=64)
def _case_lines(path: str, mtime_ns: int, size: int) -> dict[str, int]:
    """Each case name of the file and its 1-based line (the file's version is in the cache key)."""
    try:
        root = yaml.compose(decode_text(read_bytes(Path(path))), Loader=JsonYamlLoader)
    except (OSError, RefusedInput, yaml.YAMLError):
        return {}
    cases = _member(root, "cases")
    if not isinstance(cases, yaml.SequenceNode):
        return {}
    lines: dict[str, int] = {}
    for node in cases.value:
        name = _member(node, "name")
        if isinstance(name, yaml.ScalarNode):
            lines.setdefault(name.value, node.start_mark.line + 1)
    return lines


def _member(mapping: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(mapping, yaml.MappingNode):
        return None
    return next((value for k, value in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
