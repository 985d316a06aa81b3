"""Go's ``strconv``: ``Quote``, ``FormatFloat(f, 'g', -1, 64)``, ``ParseInt(s, 10, 64)`` and ``Atoi``.

Go twins: strconv/quote.go, strconv/ftoa.go, strconv/atoi.go.
"""

from __future__ import annotations

from .decoded import INT64_MAX, INT64_MIN

_QUOTE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
                  '"': '\\"', "\\": "\\\\"}


def quote(text: str) -> str:
    """``text`` as ``strconv.Quote`` writes it (and ``%q``, and ``%#v`` of a string)."""
    quoted = []
    for char in text:
        code = ord(char)
        if char in _QUOTE_ESCAPES:
            quoted.append(_QUOTE_ESCAPES[char])
        elif char.isprintable():
            quoted.append(char)
        elif code < 0x20 or code == 0x7F:
            quoted.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            quoted.append(f"\\u{code:04x}")
        else:
            quoted.append(f"\\U{code:08x}")
    return '"' + "".join(quoted) + '"'


def format_float(number: float) -> str:
    """``strconv.FormatFloat(number, 'g', -1, 64)``, as ``%v`` prints a float64: the shortest
    digits, in exponent form below 1e-4 and from 1e6 on (``1e+06``)."""
    if number == 0:
        return "-0" if str(number).startswith("-") else "0"
    text = repr(float(number))
    sign = "-" if text.startswith("-") else ""
    mantissa, _, exponent = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction.rstrip("0")).lstrip("0") if fraction.rstrip("0") else whole.lstrip("0")
    # Position of the decimal point relative to the digits.
    point = len(whole.lstrip("0")) if whole.lstrip("0") else -(len(fraction) - len(fraction.lstrip("0")))
    point += int(exponent or 0)
    digits = digits.rstrip("0") or "0"
    exp = point - 1
    if exp < -4 or exp >= 6:
        tail = "." + digits[1:] if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{tail}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


class NumError(ValueError):
    """``strconv.NumError``: the function, the input as ``Quote`` writes it, and why it was refused."""

    def __init__(self, function: str, text: str, reason: str) -> None:
        super().__init__(f"strconv.{function}: parsing {quote(text)}: {reason}")


def parse_int(text: str, function: str = "ParseInt") -> int:
    """``strconv.ParseInt(text, 10, 64)``, or ``Atoi`` with ``function="Atoi"`` (the same rules on
    64 bits): an optional sign, then ASCII digits, within int64. Raises :class:`NumError`.

    A value that is no string (Go would not have decoded one here) is refused as invalid syntax.
    """
    if not isinstance(text, str):
        raise NumError(function, str(text), "invalid syntax")
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all("0" <= char <= "9" for char in digits):
        raise NumError(function, text, "invalid syntax")
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise NumError(function, text, "value out of range")
    return value
