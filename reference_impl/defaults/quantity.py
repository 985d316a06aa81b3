"""resource.Quantity as the apiserver reads and writes it: parse, round up, canonical form.

Go twin: k8s.io/apimachinery/pkg/api/resource (quantity.go ``ParseQuantity``,
``parseQuantityString``, ``CanonicalizeBytes``, ``RoundUp``; amount.go ``AsCanonicalBytes``,
``AsCanonicalBase1024Bytes``; suffix.go ``newSuffixer``). A Quantity keeps its value and a
format (from its suffix) and, when parsing found it canonical enough, the text it was given.
The server writes that text back, or else the canonical form: "1000m" is stored as "1", "0.5" as
"500m", "1024Ki" as "1Mi" and "1.5Gi" as "1536Mi", while "1.Gi", "007" or "2.643P" stay as given.

Values are held exactly (``Fraction``); what Go computes on int64 or inf.Dec gives the same
numbers for every value the API accepts.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..govalue.decoded import INT64_MAX

BINARY_SI, DECIMAL_SI, DECIMAL_EXPONENT = "BinarySI", "DecimalSI", "DecimalExponent"
INT64_MAX_DIGITS = 18  # maxInt64Factors: decimal digits an int64 always holds
NANO = Fraction(1, 10**9)
MILLI_SCALE = -3  # pkg/apis/core/v1 SetDefaults_ResourceList rounds up to milli units

_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXPONENT = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {exponent // 10: suffix for suffix, exponent in _BINARY_SUFFIXES.items()}
_SUFFIX_LETTERS = set("eEinumkKMGTP")
_DIGITS = set("0123456789")


class QuantityError(ValueError):
    """Not a quantity (ErrFormatWrong, ErrSuffix or ErrNumeric in Go)."""


# A named tuple, not a frozen dataclass: as immutable and compared alike, and quicker to define at import.
class Quantity(NamedTuple):
    value: Fraction
    format: str
    text: str | None = None  # the text as given, when Go keeps it (MarshalJSON writes it back)


def _split(text: str) -> tuple[bool, str, str, str]:
    """parseQuantityString: sign, numerator, denominator and suffix of ``text``."""
    if not text:
        raise QuantityError("quantities must match the regular expression")
    position, positive = 0, True
    if text[0] in "+-":
        positive, position = text[0] == "+", 1
    while position < len(text) and text[position] == "0":
        position += 1
    if position == len(text):
        return positive, "0", "", ""
    start = position
    while position < len(text) and text[position] in _DIGITS:
        position += 1
    numerator = text[start:position] or "0"
    denominator = ""
    if position < len(text) and text[position] == ".":
        position += 1
        start = position
        while position < len(text) and text[position] in _DIGITS:
            position += 1
        denominator = text[start:position]
    suffix = text[position:]
    rest = suffix
    while rest and rest[0] in _SUFFIX_LETTERS:
        rest = rest[1:]
    rest = rest[1:] if rest[:1] in ("+", "-") else rest
    if rest and not set(rest) <= _DIGITS:
        raise QuantityError(f"quantities must match the regular expression: {text!r}")
    return positive, numerator, denominator, suffix


def _interpret(suffix: str) -> tuple[int, int, str]:
    """suffixHandler.interpret: (base, exponent, format) of a suffix."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            return 10, int(suffix[1:]), DECIMAL_EXPONENT
        except ValueError:
            pass
    raise QuantityError(f"unable to parse quantity's suffix: {suffix!r}")


def _round_away_from_zero(value: Fraction, unit: Fraction) -> Fraction:
    steps = value / unit
    whole = -((-abs(steps)) // 1)  # ceiling of |steps|
    return (whole if value >= 0 else -whole) * unit


def _kept_text(text: str, numerator: str, denominator: str, exponent: int, format_: str) -> str | None:
    """ParseQuantity's fast path: the text a Quantity keeps (and writes back as given) when it fits
    an int64 at nano precision and looks canonical enough; None when Go computes the canonical text.

    The test is Go's, weaker than canonical form: "1.Gi", "007", "2.643P" and "1e0" are kept."""
    if format_ == BINARY_SI:
        if exponent < 0 or denominator:
            return None
        multiplier = 1 << exponent
        precision = 15 - len(numerator) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        multiplier = 1
        precision = INT64_MAX_DIGITS - (len(numerator) + len(denominator))
        scale = exponent - len(denominator)
    shifted = numerator + denominator
    if precision < 0 or scale < -9 or int(shifted) * multiplier > INT64_MAX:
        return None
    if format_ == BINARY_SI:
        return text if exponent % 10 == 0 and int(shifted) & 0x07 != 0 else None
    return text if scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0" else None


def parse(text: str | int | float) -> Quantity:
    """ParseQuantity (a JSON number is read as its text, as UnmarshalJSON does)."""
    if isinstance(text, bool):
        raise QuantityError(f"not a quantity: {text!r}")
    if isinstance(text, (int, float)):
        text = repr(text) if isinstance(text, float) else str(text)
    text = text.strip()
    if text == "0":
        return Quantity(Fraction(0), DECIMAL_SI, "0")
    positive, numerator, denominator, suffix = _split(text)
    base, exponent, format_ = _interpret(suffix)
    magnitude = Fraction(int(numerator + denominator), 10 ** len(denominator)) * Fraction(base) ** exponent
    kept = _kept_text(text, numerator, denominator, exponent, format_)
    if kept is not None:
        return Quantity(magnitude if positive else -magnitude, format_, kept)
    if magnitude.denominator != 1 and (magnitude / NANO).denominator != 1:
        magnitude = _round_away_from_zero(magnitude, NANO)  # less than a nano: rounded up
    if format_ == BINARY_SI and magnitude > INT64_MAX:
        magnitude = Fraction(INT64_MAX)
    if format_ == BINARY_SI and 0 < magnitude < 1:
        format_ = DECIMAL_SI
    return Quantity(magnitude if positive else -magnitude, format_)


def round_up(quantity: Quantity, scale: int) -> Quantity:
    """Quantity.RoundUp: away from zero to a multiple of 10**scale; a value already that precise
    keeps its text."""
    unit = Fraction(10) ** scale
    if (quantity.value / unit).denominator == 1:
        return quantity
    return Quantity(_round_away_from_zero(quantity.value, unit), quantity.format)


def _decimal_digits(value: Fraction) -> tuple[int, int]:
    """AsCanonicalBytes: mantissa and exponent, the exponent a multiple of 3 (1.1e5 -> 110, 3)."""
    exponent = 0
    while value.denominator != 1:
        value *= 10
        exponent -= 1
    mantissa = int(value)
    while mantissa and mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3  # Python's modulo floors, so the exponent moves down to a multiple of 3
    return mantissa * 10**shift, exponent - shift


def format_quantity(quantity: Quantity) -> str:
    """MarshalJSON: the kept text, else CanonicalizeBytes."""
    if quantity.text is not None:
        return quantity.text
    value, format_ = quantity.value, quantity.format
    if value == 0:
        return "0"
    if format_ == BINARY_SI and (-1024 < value < 1024 or value.denominator != 1):
        format_ = DECIMAL_SI  # no rounding to show a binary suffix
    if format_ == BINARY_SI:
        amount, exponent = int(value), 0
        while amount % 1024 == 0:
            amount //= 1024
            exponent += 1
        return f"{amount}{_BINARY_BY_EXPONENT.get(exponent, '')}"
    mantissa, exponent = _decimal_digits(value)
    if format_ == DECIMAL_SI:
        return f"{mantissa}{_DECIMAL_BY_EXPONENT.get(exponent, '')}"  # Go writes no suffix past E either
    return f"{mantissa}e{exponent}" if exponent else f"{mantissa}"


def canonical(text: str | int | float) -> str:
    """The text the server writes for a quantity: ``canonical("1000m") == "1"``, ``canonical("0.5") ==
    "500m"``, but ``canonical("1.Gi") == "1.Gi"`` (a text Go keeps)."""
    return format_quantity(parse(text))


def rounded_to_milli(text: str | int | float) -> str:
    """A ResourceList value after SetDefaults_ResourceList: rounded up to milli units, canonical."""
    return format_quantity(round_up(parse(text), MILLI_SCALE))
