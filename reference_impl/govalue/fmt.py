"""Go's ``fmt`` verbs ``%v``, ``%s`` and ``%#v`` of decoded JSON, as Kubernetes' messages print values.

Go twin: fmt/print.go. Values are as :mod:`.decoded` models them: an ``int`` within int64 is
an ``int64``, any other number a ``float64`` (a caller whose Go code decoded every number
as a float64 passes :func:`.decoded.float64_numbers` of its value). Maps print with their
keys sorted, as ``fmt`` does.
"""

from __future__ import annotations

from .decoded import INT64, Json, go_type, plain
from .strconv import format_float, quote


def go_v(value: Json) -> str:
    """``%v``."""
    kind = type(value)
    if kind is str:
        return value
    if value is None:
        return "<nil>"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value) if value in INT64 else format_float(float(value))
    if kind is float:
        return format_float(value)
    if kind is dict:
        return "map[" + " ".join(f"{key}:{go_v(value[key])}" for key in sorted(value)) + "]"
    if kind is list:
        return "[" + " ".join(go_v(item) for item in value) + "]"
    return go_v(plain(value))


def go_s(value: Json, top: bool = True) -> str:
    """``%s``: a value that is not a string prints as ``%!s(type=value)``."""
    kind = type(value)
    if kind is str:
        return value
    if value is None:
        return "%!s(<nil>)" if top else "<nil>"
    if kind is dict:
        return "map[" + " ".join(f"{key}:{go_s(value[key], False)}" for key in sorted(value)) + "]"
    if kind is list:
        return "[" + " ".join(go_s(item, False) for item in value) + "]"
    return f"%!s({go_type(value)}={go_v(value)})"


def go_sharp_v(value: Json, top: bool = True) -> str:
    """``%#v``: Go syntax (``[]interface {}{"a", 1}``; a nil inside a map or slice is ``interface {}(nil)``)."""
    kind = type(value)
    if kind is str:
        return quote(value)
    if value is None:
        return "<nil>" if top else "interface {}(nil)"
    if kind is list:
        return "[]interface {}{" + ", ".join(go_sharp_v(item, False) for item in value) + "}"
    if kind is dict:
        items = ", ".join(f"{quote(key)}:{go_sharp_v(value[key], False)}" for key in sorted(value))
        return "map[string]interface {}{" + items + "}"
    if kind in (bool, int, float):
        return go_v(value)
    return go_sharp_v(plain(value), top)
