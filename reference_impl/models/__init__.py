"""Kubernetes' built-in models for server-side apply, one JSON file per minor version.

Each ``kubernetes-<minor>.json`` holds the OpenAPI v3 ``components.schemas`` of
k8s.io/kubernetes' ``api/openapi-spec/v3`` reduced to what schemaconv reads, and the kinds
they declare; :mod:`.regenerate` writes it. ``go-types.json`` holds what the models do not
say, the Go shape of the built-in kinds' fields (omitempty, pointer, struct...), which
:mod:`patchconf.reference_impl.govalue.gotypes` reads; ``regenerate --go-types`` writes it.

Both are read with :func:`read`: their ``definitions`` are parsed one by one when first asked
for, since a process meets a few dozen of the ~1,000 (parsing every one took most of the
CPU a process spent on its first server-side apply).
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Iterator, Mapping
from typing import Any

# regenerate.py writes a models file as this line, then one definition per line, then "}" and "}".
_DEFINITIONS_LINE = '"definitions":{'
_DECODER = json.JSONDecoder()


def read(file_name: str) -> dict[str, Any]:
    """A models file of this package, as :func:`parse` reads it."""
    return parse((importlib.resources.files(__name__) / file_name).read_text(encoding="utf-8"), file_name)


def parse(text: str, where: str) -> dict[str, Any]:
    """A models file's text as ``json.loads`` reads it, but for ``definitions``: a :class:`Definitions`."""
    head, _, rest = text.partition(f"\n{_DEFINITIONS_LINE}\n")
    lines = rest.split("\n")
    if not rest or lines[-3:] != ["}", "}", ""]:
        raise ValueError(f"{where}: not laid out as regenerate.py writes it (one definition per line)")
    document = json.loads(f"{head}{_DEFINITIONS_LINE}}}}}")
    document["definitions"] = Definitions(lines[:-3], where)
    return document


class Definitions(Mapping[str, Any]):
    """A models file's ``definitions`` by name, each parsed from its own line when first read."""

    def __init__(self, lines: list[str], where: str) -> None:
        self._where = where
        self._lines: dict[str, tuple[str, int]] = {}  # name -> its line, and where the value starts
        for line in lines:
            name, end = _DECODER.raw_decode(line)  # the name only, a JSON string
            if line[end:end + 1] != ":":
                raise ValueError(f"{where}: not a definition line: {line[:80]}")
            self._lines[name] = (line, end + 1)
        self._parsed: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        found = self._parsed.get(name)
        if found is None:
            line, start = self._lines[name]
            found, end = _DECODER.raw_decode(line, start)
            if line[end:] not in ("", ","):
                raise ValueError(f"{self._where}: {name}: more than one value on its line")
            self._parsed[name] = found
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._lines

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)
