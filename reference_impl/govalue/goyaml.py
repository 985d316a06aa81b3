"""YAML as sigs.k8s.io/yaml (go-yaml v2) writes and reads it, for the messages that show it.

upstream's conflict error of ``CreateThreeWayMergePatch`` prints both patches with
``yaml.Marshal``: here PyYAML's emitter, changed where go-yaml writes otherwise
(:class:`_GoYamlDumper`), with go-yaml's order of keys and its choice of the strings it quotes.
An OpenAPI extension reaches strategic merge patch as go-yaml v2 decodes it into ``interface{}``
(kube-openapi's ``VendorExtensionToMap``): :func:`go_type` names the Go type it gets.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml

from .encoding_json import go_float

Json = Any


class _GoYamlDumper(yaml.SafeDumper):
    """YAML as sigs.k8s.io/yaml (go-yaml v2) writes it for a conflict message."""

    def check_simple_key(self) -> bool:
        # go-yaml writes an empty key as `"": 0`; PyYAML would write `? ""` on a line of its own.
        simple = super().check_simple_key()
        if not simple and isinstance(self.event, yaml.ScalarEvent):
            return self.analysis.empty and not self.analysis.multiline
        return simple

    def write_single_quoted(self, text: str, split: bool = True) -> None:
        """PyYAML's writer, except that line breaks ending the string are not followed by
        indentation before the closing quote: go-yaml indents only before more text."""
        self.write_indicator("'", True)
        spaces = breaks = False
        start = end = 0
        while end <= len(text):
            ch = text[end] if end < len(text) else None
            if spaces:
                if ch is None or ch != " ":
                    if start + 1 == end and self.column > self.best_width and split and start != 0 \
                            and end != len(text):
                        self.write_indent()
                    else:
                        self.column += end - start
                        self.stream.write(text[start:end])
                    start = end
            elif breaks:
                if ch is None or ch not in LINE_BREAKS:
                    if text[start] == "\n":
                        self.write_line_break()
                    for br in text[start:end]:
                        self.write_line_break() if br == "\n" else self.write_line_break(br)
                    if ch is not None:
                        self.write_indent()
                    start = end
            elif (ch is None or ch in " " + LINE_BREAKS or ch == "'") and start < end:
                self.column += end - start
                self.stream.write(text[start:end])
                start = end
            if ch == "'":
                self.column += 2
                self.stream.write("''")
                start = end + 1
            if ch is not None:
                spaces, breaks = ch == " ", ch in LINE_BREAKS
            end += 1
        self.write_indicator("'", False)


LINE_BREAKS = "\n\x85\u2028\u2029"


# go-yaml v2's resolve(): the plain scalars that would read back as something other than a string.
_GO_YAML_NON_STRINGS = frozenset({
    "", "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
    "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
    "~", "null", "Null", "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
    "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
})
_GO_YAML_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_GO_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_GO_YAML_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?.*)?")
_GO_YAML_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")


def _go_yaml_reads_as_string(text: str) -> bool:
    if text in _GO_YAML_NON_STRINGS:
        return False
    if text[0] == ".":
        return not _GO_YAML_FLOAT.fullmatch(text)
    if text[0] not in "+-0123456789":
        return True
    plain = text.replace("_", "")
    if _GO_YAML_TIMESTAMP.fullmatch(text) or _GO_YAML_BASE60_FLOAT.fullmatch(text):
        return False
    if _GO_YAML_INT.fullmatch(plain) or _GO_YAML_FLOAT.fullmatch(plain):
        return False
    return not re.fullmatch(r"-?0b[01]+", plain)


def _represent_string(dumper: _GoYamlDumper, value: str) -> yaml.ScalarNode:
    # go-yaml double-quotes a string that would read back as another type ("", "1", "y");
    # other strings are plain where allowed, else single-quoted, as PyYAML writes them.
    style = None if _go_yaml_reads_as_string(value) else '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_GoYamlDumper.add_representer(str, _represent_string)


def _go_yaml_key_less(a: str, b: str) -> bool:
    """go-yaml v2's keyList.Less on two string keys: letters before other characters, runs
    of digits by their number."""
    ar, br = list(a), list(b)
    for i in range(min(len(ar), len(br))):
        if ar[i] == br[i]:
            continue
        a_letter, b_letter = ar[i].isalpha(), br[i].isalpha()
        if a_letter and b_letter:
            return ar[i] < br[i]
        if a_letter or b_letter:
            return b_letter
        an = bn = 0
        if ar[i] == "0" or br[i] == "0":
            j = i - 1
            while j >= 0 and ar[j].isdigit():
                if ar[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(ar) and ar[ai].isdigit():
            an = an * 10 + int(ar[ai])
            ai += 1
        bi = i
        while bi < len(br) and br[bi].isdigit():
            bn = bn * 10 + int(br[bi])
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ar[i] < br[i]
    return len(ar) < len(br)


_GO_YAML_KEY = functools.cmp_to_key(lambda a, b: -1 if _go_yaml_key_less(a, b) else 1 if _go_yaml_key_less(b, a) else 0)


def _go_yaml_ordered(value: Json) -> Json:
    if isinstance(value, dict):
        return {key: _go_yaml_ordered(value[key]) for key in sorted(value, key=_GO_YAML_KEY)}
    if isinstance(value, list):
        return [_go_yaml_ordered(item) for item in value]
    return value


def dump(value: Json) -> str:
    """``value`` as sigs.k8s.io/yaml's ``Marshal`` writes it (as a conflict message shows it)."""
    return yaml.dump(_go_yaml_ordered(value), Dumper=_GoYamlDumper, default_flow_style=False, sort_keys=False,
                     allow_unicode=True)


INT_RANGE = range(-(2**63), 2**63)  # int on a 64-bit platform
UINT64_RANGE = range(2**64)


def go_type(value: Json) -> str | None:
    """The Go type go-yaml v2 gives ``value`` decoded into ``interface{}`` (None for ``null``):
    an integer is an ``int``, else a ``uint64``, else a ``float64`` (resolve: ParseInt, ParseUint,
    ParseFloat); a mapping is a ``map[interface {}]interface {}``."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if value in INT_RANGE else "uint64" if value in UINT64_RANGE else "float64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[interface {}]interface {}"
    raise TypeError(f"not a decoded YAML value: {type(value).__name__}")


def through_yaml(value: Any) -> Any:
    """A patch as kubectl reads it (YAML to JSON): floats as float64, integers kept."""
    if isinstance(value, dict):
        return {key: through_yaml(child) for key, child in value.items()}
    if isinstance(value, list):
        return [through_yaml(child) for child in value]
    if isinstance(value, float):
        return go_float(value)
    return value
