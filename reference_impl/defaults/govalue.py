"""The Go value a defaulter works on, as patchconf.reference_impl.ssa.gotypes models it.

A defaulting function in Go mutates the decoded struct: every field is there, a nil pointer,
slice or map is nil, an absent string is "". The defaulters here work on the same model:
``decode`` turns an object (in the form ``gotypes.round_trip`` gives) into dicts holding every
field of each struct, nil as None, a pointer to a scalar as the scalar; ``encode`` writes it back
as the converter does (omitempty dropped, non-omitempty zeros written).
"""

from __future__ import annotations

from typing import Any

from patchconf.reference_impl.ssa import gotypes

GoStruct = dict[str, Any]


def struct_shape(definition: str) -> dict[str, str]:
    return {"shape": "struct", "definition": definition}


def decode(obj: Any, definition: str) -> GoStruct:
    """The Go value of ``obj`` as a struct of ``definition`` (a fresh copy: ``obj`` is not touched)."""
    return gotypes.from_unstructured(obj, definition)


def encode(value: GoStruct, definition: str) -> dict[str, Any]:
    return gotypes.to_unstructured(value, definition)


def zero_struct(definition: str) -> GoStruct:
    """``T{}`` for the struct ``definition``: every field at its zero value."""
    return decode({}, definition)


def fields(definition: str) -> list[dict[str, Any]]:
    return gotypes._fields(definition)


def is_zero(value: Any) -> bool:
    """Go's comparison with the zero value for a scalar, pointer, slice or map (a struct is never zero here)."""
    if isinstance(value, gotypes._Zero):
        return True
    if isinstance(value, bool):
        return value is False
    return value is None or value == "" or (isinstance(value, (int, float)) and value == 0)


def is_empty(value: Any) -> bool:
    """``len(x) == 0`` for a string, slice or map (nil included)."""
    return value is None or len(value) == 0


def int_or_string_is_zero(value: Any) -> bool:
    """``x == intstr.FromInt32(0) || x == intstr.FromString("")``."""
    return isinstance(value, gotypes._Zero) or value == "" or (not isinstance(value, bool) and value == 0)
