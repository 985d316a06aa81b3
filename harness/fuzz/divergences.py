"""Named divergences: known, explained differences between a target and a live server.

``harness/fuzz/divergences.yaml`` lists them, each with an ``id``, the ``targets`` (target
families: ``reference``, ``upstream``) it is about, optionally the ``flows`` and ``kinds`` it is
limited to, the judged differences it explains (``explains``: regular expressions, each matched
against one difference as :func:`patchconf.harness.fuzz.livetruth.problem_shape` writes it, in full), and
the ``reason``. A disagreement is a known divergence only when every one of its differences is
explained by a divergence that applies; one difference left over makes it a disagreement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..corpus.yamlio import load_text
from ..targets.base import Target
from .livetruth import problem_shape

DIVERGENCES_FILE = Path(__file__).with_name("divergences.yaml")
MEMBERS = frozenset({"id", "targets", "flows", "kinds", "explains", "reason"})


class BadDivergences(ValueError):
    """The divergences file is not as this module reads it."""


@dataclass(frozen=True)
class Divergence:
    id: str
    targets: frozenset[str]
    flows: frozenset[str] | None
    kinds: frozenset[str] | None
    explains: tuple[re.Pattern[str], ...]
    reason: str

    def applies(self, target: Target, flow: str, kind: str) -> bool:
        return target.info.family in self.targets and (self.flows is None or flow in self.flows) \
            and (self.kinds is None or kind in self.kinds)

    def explains_shape(self, shape: str) -> bool:
        return any(pattern.fullmatch(shape) for pattern in self.explains)


def _divergence(entry: Any, where: str) -> Divergence:
    if not isinstance(entry, dict) or set(entry) - MEMBERS or not {"id", "targets", "explains", "reason"} <= set(entry):
        raise BadDivergences(f"{where}: each divergence has id, targets, explains and reason "
                             f"(and optionally flows, kinds); got {entry!r}")
    if not str(entry["reason"]).strip():
        raise BadDivergences(f"{where}: divergence {entry['id']} gives no reason")
    optional = {key: frozenset(entry[key]) if key in entry else None for key in ("flows", "kinds")}
    try:
        patterns = tuple(re.compile(text) for text in entry["explains"])
    except re.error as exc:
        raise BadDivergences(f"{where}: divergence {entry['id']}: {exc}") from exc
    return Divergence(str(entry["id"]), frozenset(entry["targets"]), optional["flows"], optional["kinds"],
                      patterns, str(entry["reason"]))


def load_divergences(path: Path = DIVERGENCES_FILE) -> tuple[Divergence, ...]:
    data = load_text(path.read_text(encoding="utf-8")) or {}
    entries = data.get("divergences") or [] if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise BadDivergences(f"{path}: a mapping with a list 'divergences'")
    found = tuple(_divergence(entry, str(path)) for entry in entries)
    ids = [divergence.id for divergence in found]
    if len(set(ids)) != len(ids):
        raise BadDivergences(f"{path}: divergence ids repeat")
    return found


def covering(divergences: tuple[Divergence, ...], target: Target, flow: str, kind: str,
             differences: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The ids of the divergences that together explain every difference; () if one is left over."""
    applying = [d for d in divergences if d.applies(target, flow, kind)]
    used: list[str] = []
    for line in differences:
        shape = problem_shape(line)
        explaining = next((d for d in applying if d.explains_shape(shape)), None)
        if explaining is None:
            return ()
        if explaining.id not in used:
            used.append(explaining.id)
    return tuple(used)
