"""JSON Pointer (RFC 6901) helpers: escaping, joining and splitting pointers.

A pointer is ``""`` (the whole document) or a sequence of ``/``-prefixed reference tokens
in which ``~`` is written ``~0`` and ``/`` is written ``~1``.

Decoding follows Kubernetes' JSON Patch library rather than the letter of the RFC: only
``~0`` and ``~1`` are escape sequences, and any other ``~`` (``~2``, a trailing ``~``) is
kept as it is instead of being rejected. Pointers we build ourselves never contain such
sequences, so the leniency only matters when reading pointers someone else wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import InvalidPatch

ROOT = ""

_ESCAPED = re.compile(r"~[01]")
_UNESCAPED = {"~0": "~", "~1": "/"}


def escape(token: str) -> str:
    """The reference token ``token`` as it is written inside a pointer."""
    # "~" first: escaping "/" introduces new "~" characters that must stay as they are.
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The member name or index that an escaped reference token stands for."""
    # One left-to-right pass, so "~01" becomes "~1" and not "/" (RFC 6901 section 4).
    return _ESCAPED.sub(lambda match: _UNESCAPED[match.group()], token)


def join(pointer: str, token: str | int) -> str:
    """The pointer to member (or index) ``token`` of the node at ``pointer``."""
    return f"{pointer}/{escape(str(token))}"


def build(tokens: Iterable[str | int]) -> str:
    """The pointer made of ``tokens`` (unescaped member names or indices), from the root."""
    return "".join(join(ROOT, token) for token in tokens)


# A pointer not built yet: None (the root) or a pair (parent path, token), cheap to extend per
# element while walking a document; built (:func:`from_linked`) only when an error needs it.
LinkedPath = tuple | None


def from_linked(path: LinkedPath) -> str:
    """The pointer a linked path stands for."""
    tokens = []
    while path is not None:
        path, token = path
        tokens.append(escape(str(token)))
    return "".join("/" + token for token in reversed(tokens))


def parse(pointer: str) -> list[str]:
    """The unescaped reference tokens of ``pointer``; ``[]`` for the root pointer ``""``.

    Raises :class:`InvalidPatch` when ``pointer`` is neither empty nor starts with ``/``.
    """
    if pointer == ROOT:
        return []
    if not pointer.startswith("/"):
        raise InvalidPatch(f"JSON pointer must be empty or start with '/': {pointer!r}", pointer)
    return [unescape(token) for token in pointer.split("/")[1:]]
