"""``patchconf verify``: confirm the corpus against real Kubernetes code and record who did.

Every case runs on the judges (the ``upstream`` target and, where they apply, kubectl,
kubectl apply and a live server). A judge that agrees with the case's own expectation is
recorded in the case's ``provenance`` (``--write``); a judge that contradicts a case
without a declared divergence fails verification. Every verdict names its judge and the
judge's version. :func:`patchconf.harness.provenance.record.write_confirmations` writes
the confirmations into the case files.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..corpus.cases import Case
from ..running.runner import ERROR, FAIL, PASS, SKIP, UNCLASSIFIED, Result, run_cases
from ..targets.base import Target

# How each judge ran Kubernetes' code, keyed by target name (without its ``:PATH``/``@1.MINOR``).
VIA = {
    "upstream": "patchconf upstream target (Kubernetes' Go modules)",
    "kubectl": "kubectl patch --local",
    "kubectl-apply": "kubectl apply against patchconf's recording endpoint",
    "live": "patchconf live target, local kube-apiserver",
}
# provenance names the implementation; a target names its family
IMPLEMENTATION_OF_FAMILY = {"live": "apiserver"}
# the implementations provenance may name (case.schema.json): Kubernetes' own code
KUBERNETES_IMPLEMENTATIONS = ("kubectl", "upstream", "apiserver")


def implementation_of(judge: Target) -> str:
    return IMPLEMENTATION_OF_FAMILY.get(judge.info.family, judge.info.family)


def via_of(judge: Target, case: Case | None = None) -> str:
    name = re.split(r"[:@]", judge.name, maxsplit=1)[0]
    via = VIA.get(name, VIA.get(judge.info.family, judge.info.family))
    # a target that also ran a program of its own for the case (live: kubectl) says so
    helper = getattr(judge, "helper_for", None)
    used = helper(case) if helper is not None and case is not None else None
    return f"{via}, with {used}" if used else via


@dataclass(frozen=True)
class Confirmation:
    case: Case
    implementation: str
    version: str
    via: str = ""
    judge: str = ""  # the target that confirmed, e.g. kubectl-apply (implementation: kubectl)

    @property
    def by(self) -> str:
        return f"{self.judge or self.implementation} {self.version}"


@dataclass(frozen=True)
class Judgement:
    """One judge's result on one case, naming the judge and its version."""

    result: Result
    judge: str
    version: str

    @property
    def case(self) -> Case:
        return self.result.case

    @property
    def reason(self) -> str:
        return self.result.reason

    @property
    def by(self) -> str:
        return f"{self.judge} {self.version}"


@dataclass
class Verification:
    confirmations: list[Confirmation]
    contradictions: list[Judgement]  # a failed case, or a judge that crashed on it
    judges: list[str]
    abstentions: list[Judgement] = field(default_factory=list)  # neither confirmed nor contradicted

    @property
    def ok(self) -> bool:
        return not self.contradictions

    def unconfirmed(self, cases: Iterable[Case]) -> list[Case]:
        confirmed = {c.case.id for c in self.confirmations}
        return [case for case in cases if case.id not in confirmed]

    def report_lines(self, cases: Sequence[Case]) -> list[str]:
        """One line per case and verdict, each naming the judges and their versions."""
        by_case: dict[str, list[Confirmation]] = defaultdict(list)
        for confirmation in self.confirmations:
            by_case[confirmation.case.id].append(confirmation)
        lines = []
        for case in cases:
            if by_case[case.id]:
                lines.append(f"CONFIRMED {case.id} by {', '.join(c.by for c in by_case[case.id])}")
        for judgement in self.contradictions:
            if judgement.result.status == ERROR:
                lines.append(f"ERROR {judgement.case.id} on {judgement.by}: {judgement.reason}")
            else:
                lines.append(f"CONTRADICTED {judgement.case.id} by {judgement.by}: {judgement.reason}")
        abstained: dict[str, list[str]] = defaultdict(list)
        for judgement in self.abstentions:
            abstained[judgement.case.id].append(f"{judgement.by}: {_abstention(judgement.result)}")
        contradicted = {judgement.case.id for judgement in self.contradictions}
        for case in self.unconfirmed(cases):
            if case.id in contradicted:
                continue
            why = "; ".join(abstained[case.id]) or "no judge ran it"
            lines.append(f"UNCONFIRMED {case.id}: no judge reproduced its expectation ({why})")
        return lines


def _abstention(result: Result) -> str:
    if result.status == SKIP:
        return f"skipped: {result.reason}"
    if result.judged_by.startswith("case"):
        return "rejected it without naming an error class"
    return f"judged by {result.judged_by}"


def _confirms(result: Result) -> bool:
    # A judge that rejected without naming the class did not confirm an expected class.
    error = result.actual.get("error") or {}
    return result.status == PASS and result.judged_by.startswith("case") and error.get("class") != UNCLASSIFIED


def judge_name(judge: Target) -> str:
    """How verdicts name a judge: its target name (``kubectl-apply``, ``upstream@1.27``)."""
    return judge.name


def verify(cases: Sequence[Case], judges: Iterable[Target]) -> Verification:
    verification = Verification([], [], [])
    for judge in judges:
        verification.judges.append(f"{judge_name(judge)} {judge.info.version}")
        for result in run_cases(cases, judge):
            if _confirms(result):
                implementation = implementation_of(judge)
                verification.confirmations.append(
                    Confirmation(result.case, implementation, judge.info.version, via_of(judge, result.case),
                                 judge_name(judge)))
            elif result.status in (FAIL, ERROR):
                verification.contradictions.append(Judgement(result, judge_name(judge), judge.info.version))
            else:
                verification.abstentions.append(Judgement(result, judge_name(judge), judge.info.version))
    return verification


def missing_provenance(verification: Verification) -> list[Confirmation]:
    """Confirmations the cases do not record yet (same implementation and version)."""
    missing = []
    for confirmation in verification.confirmations:
        recorded = {(p["implementation"], str(p["version"]).lstrip("v")) for p in confirmation.case.provenance}
        if (confirmation.implementation, confirmation.version.lstrip("v")) not in recorded:
            missing.append(confirmation)
    return missing
