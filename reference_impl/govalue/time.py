"""Go's ``time.Parse`` with the RFC 3339 layout, as ``metav1.Time``'s ``UnmarshalJSON`` calls it:
its error messages, word for word.

Go twin: time/format.go (``Parse``, ``quote``) and time/format_rfc3339.go.
"""

from __future__ import annotations

RFC3339 = "2006-01-02T15:04:05Z07:00"


def rfc3339_error(text: str) -> str | None:
    """Go's ``time.Parse(time.RFC3339, text)`` error message, or None when it parses."""
    value = text.encode("utf-8")
    rest = value

    def cannot_parse(element: str, at: bytes) -> str:
        return (f"parsing time {_quote(value)} as {_quote(RFC3339.encode())}: "
                f"cannot parse {_quote(at)} as {_quote(element.encode())}")

    def out_of_range(what: str) -> str:
        return f"parsing time {_quote(value)}: {what} out of range"

    def number(at: bytes, fixed: bool) -> tuple[int, bytes] | None:
        if not _digit(at, 0):
            return None
        if not _digit(at, 1):
            return None if fixed else (at[0] - 48, at[1:])
        return (at[0] - 48) * 10 + at[1] - 48, at[2:]

    def separator(char: str, at: bytes) -> bytes:
        if not at or at[0] != ord(char):
            raise _Bad(cannot_parse(char, at))
        return at[1:]

    try:
        if len(rest) < 4 or not all(_digit(rest, i) for i in range(4)):
            raise _Bad(cannot_parse("2006", rest))
        year, rest = int(rest[:4]), rest[4:]
        rest = separator("-", rest)
        parsed = number(rest, True)
        if parsed is None:
            raise _Bad(cannot_parse("01", rest))
        month, rest = parsed
        if not 1 <= month <= 12:
            return out_of_range("month")
        rest = separator("-", rest)
        parsed = number(rest, True)
        if parsed is None:
            raise _Bad(cannot_parse("02", rest))
        day, rest = parsed
        rest = separator("T", rest)
        parsed = number(rest, False)
        if parsed is None:
            raise _Bad(cannot_parse("15", rest))
        hour, rest = parsed
        if hour >= 24:
            return out_of_range("hour")
        for element, what in (("04", "minute"), ("05", "second")):
            rest = separator(":", rest)
            parsed = number(rest, True)
            if parsed is None:
                raise _Bad(cannot_parse(element, rest))
            amount, rest = parsed
            if amount >= 60:
                return out_of_range(what)
        if len(rest) >= 2 and rest[0] in b".," and _digit(rest, 1):  # a fraction the layout does not show
            end = 2
            while _digit(rest, end):
                end += 1
            rest = rest[end:]
        if rest[:1] == b"Z":
            rest = rest[1:]
        else:
            if len(rest) < 6 or rest[3] != ord(":"):
                raise _Bad(cannot_parse("Z07:00", rest))
            offset_hour, offset_minute = number(rest[1:3], True), number(rest[4:6], True)
            if offset_hour is not None and offset_minute is not None and offset_minute[0] > 60:
                return out_of_range("time zone offset minute")  # Go's later check wins
            if offset_hour is not None and offset_hour[0] > 24:
                return out_of_range("time zone offset hour")
            if offset_hour is None or offset_minute is None or rest[0] not in b"+-":
                raise _Bad(cannot_parse("Z07:00", rest))
            rest = rest[6:]
        if rest:
            return f"parsing time {_quote(value)}: extra text: {_quote(rest)}"
    except _Bad as bad:
        return str(bad)
    if not 1 <= day <= _days_in(month, year):
        return f"parsing time {_quote(value)}: day out of range"
    return None


class _Bad(Exception):
    pass


def _digit(text: bytes, index: int) -> bool:
    return index < len(text) and 48 <= text[index] <= 57


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _quote(text: bytes) -> str:
    """Go's time.quote: double quotes, '"' and '\\' escaped, bytes of non-ASCII or control
    characters as \\xNN."""
    out = ['"']
    for char in text.decode("utf-8", "surrogateescape"):
        if ord(char) >= 0x80 or ord(char) < 0x20:
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogateescape"))
        else:
            out.append("\\" + char if char in '"\\' else char)
    out.append('"')
    return "".join(out)
