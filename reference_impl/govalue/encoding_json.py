"""JSON text exactly as Go's ``encoding/json`` writes it (Go twin: encoding/json/encode.go).

kubectl stores the last-applied configuration as the JSON text ``encoding/json`` produced
(through ``unstructured.UnstructuredJSONScheme``), and that text is compared byte for
byte. Go writes object keys sorted (by UTF-8 bytes), no whitespace, ``<``, ``>`` and
``&`` as ``\\u003c``/``\\u003e``/``\\u0026``, U+2028 and U+2029 escaped, control
characters as ``\\b \\f \\n \\r \\t`` or ``\\u00XX``; an ``int64`` as its digits and a
``float64`` in its shortest form, as ES6 does (``1e+21``, ``1e-7``, otherwise plain
decimals: ``2``, ``0.000001``).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from .decoded import INT64_MAX, INT64_MIN

_ESCAPES = {
    '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
    "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029",
}
_ESCAPES.update({chr(code): f"\\u{code:04x}" for code in range(0x20) if chr(code) not in _ESCAPES})
_NEEDS_ESCAPE = re.compile("[" + re.escape("".join(_ESCAPES)) + "]")
_ESCAPE_TABLE = str.maketrans(_ESCAPES)


def encode(value: Any, *, sort_keys: bool = True, numbers_as_written: bool = False) -> str:
    """``value`` as ``json.Marshal`` writes it (integers beyond int64 are float64s, as Go decodes them).

    A request body a case states is sent as the case writes it: ``sort_keys=False`` keeps its
    key order and ``numbers_as_written`` its numbers (80.0 stays 80.0: a float merge key is what
    a case may test), everything else as Go writes it.
    """
    parts: list[str] = []
    _encode(value, parts, sort_keys, numbers_as_written)
    return "".join(parts)


def _encode(value: Any, parts: list[str], sort_keys: bool = True, numbers_as_written: bool = False) -> None:
    if value.__class__ is str:  # most values, and the quickest to tell
        parts.append(string(value))
    elif isinstance(value, dict):
        opening = "{"
        # Go sorts keys by their UTF-8 bytes, which is the order of their code points: Python's.
        for key in sorted(value) if sort_keys else value:
            parts.append(opening)
            parts.append(string(key))
            parts.append(":")
            member = value[key]
            if member.__class__ is str:
                parts.append(string(member))
            else:
                _encode(member, parts, sort_keys, numbers_as_written)
            opening = ","
        parts.append("}" if opening == "," else "{}")  # (no member wrote the "{")
    elif isinstance(value, list):
        opening = "["
        for item in value:
            parts.append(opening)
            _encode(item, parts, sort_keys, numbers_as_written)
            opening = ","
        parts.append("]" if opening == "," else "[]")  # (no item wrote the "[")
    elif isinstance(value, str):
        parts.append(string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(str(value) if numbers_as_written or INT64_MIN <= value <= INT64_MAX else float64(float(value)))
    elif isinstance(value, float):
        parts.append(repr(value) if numbers_as_written else float64(value))
    else:
        raise TypeError(f"not a JSON value: {value!r}")


def string(text: str) -> str:
    """A JSON string literal as Go writes it (HTML-safe)."""
    if _NEEDS_ESCAPE.search(text) is None:  # most strings: nothing to escape
        return '"' + text + '"'
    return '"' + text.translate(_ESCAPE_TABLE) + '"'


def float64(number: float) -> str:
    """A float64 as ``encoding/json`` writes it."""
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"json: unsupported value: {number}")
    if number == 0:
        return "-0" if str(number).startswith("-") else "0"
    shortest = Decimal(repr(number))
    if 1e-6 <= abs(number) < 1e21:
        text = format(shortest, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    sign, digits, exponent = shortest.as_tuple()
    digits_text = "".join(map(str, digits)).rstrip("0") or "0"
    point_exponent = exponent + len(digits) - 1  # exponent of the leading digit
    mantissa = digits_text[0] + ("." + digits_text[1:] if len(digits_text) > 1 else "")
    # Go writes at least two exponent digits, then cleans "e-07" up to "e-7".
    magnitude = f"{point_exponent:02d}" if point_exponent >= 0 else str(-point_exponent)
    return f"{'-' if sign else ''}{mantissa}e{'+' if point_exponent >= 0 else '-'}{magnitude}"


def json_kind(value: Any) -> str:
    """What ``encoding/json``'s ``UnmarshalTypeError`` calls a JSON value (``number``, ``object``…)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def go_float(value: float) -> int | float:
    """A float64 as Go's encoding/json writes it, read back as JSON."""
    if value.is_integer() and abs(value) < 1e21:
        return int(Decimal(repr(value)))  # shortest round-trip digits, as Go prints them
    return value


def as_written(value: Any) -> Any:
    """A value through Go's JSON model (utiljson.through_go_json) as Go writes it and reads it
    back (a new structure): the same values, every map's keys in the order Go writes them.

    Go sorts keys by their UTF-8 bytes, which is the order of their code points: Python's.
    What Go's encoder refuses (NaN, ±Inf) is refused as :func:`encode` refuses it.
    """
    kind = value.__class__
    if kind is dict:
        keys = sorted(value)  # (strings do not compare with other keys: all are strings, or none is)
        if keys and not isinstance(keys[0], str):
            string(keys[0])  # raises for a key that is no string, as the encoder does
        written = {}
        for key in keys:  # (a loop: see utiljson.through_go_json)
            written[key] = as_written(value[key])
        return written
    if kind is list:
        return [as_written(item) for item in value]
    if kind not in _WRITTEN_AS_THEY_ARE:
        encode(value)  # raises for a value it cannot write
    return value


# Leaves Go always writes (not floats: it refuses NaN and ±Inf).
_WRITTEN_AS_THEY_ARE = frozenset({str, int, bool, type(None)})


def through_float64(value: Any) -> Any:
    """``value`` decoded with Go's plain encoding/json, where every number is a float64."""
    if isinstance(value, dict):
        return {key: through_float64(child) for key, child in value.items()}
    if isinstance(value, list):
        return [through_float64(child) for child in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return go_float(float(value))
    return value
