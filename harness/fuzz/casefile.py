"""Disagreements as case files: the smallest input, Kubernetes' answer as its expectation.

One file per patch type, ``<out>/<type>/fuzz-seed<S>.yaml``, one case per distinct
disagreement, in the corpus's own style (:mod:`patchconf.harness.corpus.caseedit` renders it). The
expectation is what the truth answered, written as ``patchconf record`` writes it, and the
provenance names the truth (``{implementation: upstream, version, via: patchconf fuzz}``).
A file is checked before it is kept: it must load back to exactly what was meant and be a
valid corpus file (``patchconf validate``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...reference_impl.patch_types import patch_type
from ..corpus.caseedit import Quoted, item_lines, member_lines
from ..corpus.cases import INPUT_KEYS, Purpose, load_file
from ..corpus.yamlio import load_text
from ..provenance.verify import KUBERNETES_IMPLEMENTATIONS
from ..running.runner import clip
from .engine import Finding, FuzzRun, describe

VIA = "patchconf fuzz"


class NotWritable(Exception):
    """The findings cannot become corpus cases (the truth is not Kubernetes' code, or a file would be invalid)."""


def case_name(run: FuzzRun, finding: Finding) -> str:
    return f"fuzz-seed{run.seed}-input{finding.first_index}"


def case_data(run: FuzzRun, finding: Finding, implementation: str) -> dict[str, Any]:
    case = finding.verdict.case
    reason = clip(finding.verdict.reason, 300)
    description = (f"Found by patchconf fuzz --target {run.target} --seed {run.seed} (input {finding.first_index}, "
                   f"{finding.occurrences} inputs alike): {describe(finding.signature)}. {reason}")
    data: dict[str, Any] = {"name": case_name(run, finding), "description": description, "type": case.type,
                            "tags": list(finding.tags)}
    for key in ("schema", "options"):
        if key in case.raw:
            data[key] = case.raw[key]
    data.update({key: case.raw[key] for key in INPUT_KEYS if key in case.raw})
    members = dict(finding.verdict.members)  # the expectation (for a step sequence: the steps with theirs)
    if patch_type(case.type).states_only_patch:
        members.pop("expected", None)
    data.update(members)
    version = run.truth_version.removeprefix("v")
    data["provenance"] = [{"implementation": implementation, "version": Quoted(version), "via": Quoted(VIA)}]
    return data


def file_text(description: str, cases: Sequence[dict[str, Any]]) -> str:
    lines = [*member_lines("description", description, 0), "cases:"]
    for case in cases:
        lines += item_lines(case, 2)
    return "\n".join(lines) + "\n"


def write_findings(run: FuzzRun, out: Path, implementation: str) -> list[tuple[Path, int]]:
    """Write the findings under ``out``; returns each file written with its number of cases."""
    if implementation not in KUBERNETES_IMPLEMENTATIONS:
        raise NotWritable(f"{run.truth} is not Kubernetes' own code ({implementation}); "
                          "its answers cannot be a case's expectation")
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for finding in run.findings:
        by_type[finding.verdict.case.type].append(case_data(run, finding, implementation))
    written = []
    for case_type, cases in sorted(by_type.items()):
        path = out / case_type / f"fuzz-seed{run.seed}.yaml"
        description = (f"Inputs on which {run.target} disagrees with {run.truth} {run.truth_version}, found by "
                       f"patchconf fuzz --seed {run.seed} and shrunk; each expectation is {run.truth}'s answer.")
        text = file_text(description, cases)
        wanted = {"description": description, "cases": cases}
        if _canonical(load_text(text)) != _canonical(wanted):
            raise NotWritable(f"{path}: the rendered file does not load back to the cases meant")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        problems = load_file(path, Purpose.CORPUS)[1]
        if problems:
            raise NotWritable(f"{path}: not a valid case file: " + "; ".join(str(p) for p in problems))
        written.append((path, len(cases)))
    return written


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
