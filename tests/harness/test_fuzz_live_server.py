"""The differential fuzz against a live kube-apiserver, as CI runs it (issue 24): the reference and
upstream judged against the server on request sequences of a fixed seed — 300 server-side apply
sequences and 300 JSON, merge and strategic patch inputs over the kinds of harness/fuzz/kinds.py
(the workloads, and what a Helm chart ships beside them: a custom resource among them, its CRD
made from cases/schemas/database.yaml). Any
disagreement that no named divergence (harness/fuzz/divergences.yaml) explains fails the test.

The server is the session's local control plane (harness/controlplane/pytest_apiserver.py), or the one
$PATCHCONF_LIVE_KUBECONFIG names. Every input is a function of the seed; the live target starts
each step in a later second of the server's clock, so the order of managedFields entries does
not depend on timing. Refusals by the server's validation are counted apart, never judged.
"""

from __future__ import annotations

import json
import os

import pytest

from patchconf.harness.fuzz.engine import AGREE, DISAGREE, FuzzRun, fuzz, plan_for
from patchconf.harness.fuzz.kinds import KINDS
from patchconf.harness.fuzz.livetruth import RememberingTruth
from patchconf.harness.targets import TargetUnavailable, make_target
from patchconf.harness.targets.reference import ReferenceTarget

SEED = 2411
SEQUENCES = 300
PATCH_INPUTS = 300
PATCH_FLOWS = ("json-patch", "merge-patch", "strategic")
LIVE_WORKERS = 10  # a paced sequence mostly waits for the server's clock (the client keeps 10 connections)
# A run whose inputs the server mostly refuses (or that are mostly skipped) would agree vacuously.
MIN_JUDGED_SHARE = 0.8


def _required() -> bool:
    return os.environ.get("PATCHCONF_REQUIRE_LIVE", "") not in ("", "0")


@pytest.fixture(scope="module")
def truth(request: pytest.FixtureRequest):
    kubeconfig = os.environ.get("PATCHCONF_LIVE_KUBECONFIG") or str(request.getfixturevalue("live_kubeconfig"))
    remembering = RememberingTruth(make_target("live", kubeconfig=kubeconfig, workers=LIVE_WORKERS))
    yield remembering
    remembering.close()


def _target(spec: str):
    if spec == "reference":
        return ReferenceTarget()
    try:
        return make_target(spec)
    except TargetUnavailable as exc:
        if _required():
            pytest.fail(f"PATCHCONF_REQUIRE_LIVE is set, but {spec} is unavailable: {exc}", pytrace=False)
        pytest.skip(f"{spec} unavailable: {exc}")


def _report(run: FuzzRun, flows: tuple[str, ...], count: int) -> str:
    """Each distinct disagreement with its first input, and how to find it again."""
    lines = [f"{run.target} disagrees with {run.truth} {run.truth_version} on {run.count(DISAGREE)} of "
             f"{run.judged} judged inputs (seed {run.seed}); reproduce and shrink with: patchconf fuzz --truth "
             f"live@1.33 --target {run.target} --seed {run.seed} --count {count} "
             + " ".join(f"--type {flow}" for flow in flows)]
    for finding in run.findings:
        verdict = finding.verdict
        lines.append(f"- {' | '.join(finding.signature[1:])}: {finding.occurrences} inputs, first input "
                     f"{finding.first_index}")
        lines += [f"    {line[:300]}" for line in (verdict.result.diff if verdict.result else ())[:6]]
        lines.append(f"    input: {json.dumps(verdict.case.raw.get('current'))[:400]} "
                     f"{json.dumps(verdict.case.raw['steps'])[:1200]}")
    return "\n".join(lines)


@pytest.mark.parametrize("spec", ["reference", "upstream"])
@pytest.mark.parametrize(("flows", "count"), [(("server-side-apply",), SEQUENCES), (PATCH_FLOWS, PATCH_INPUTS)],
                         ids=["server-side-apply", "patches"])
def test_the_server_and_the_target_agree_on_fuzzed_request_sequences(truth, spec: str, flows: tuple[str, ...],
                                                                       count: int) -> None:
    target = _target(spec)
    try:
        run = fuzz(target, truth, flows, SEED, count=count, shrink=False, plan=plan_for(truth))
    finally:
        target.close()
    assert run.count("unjudged") == 0 and run.count("skip") == 0 and not run.interrupted, run.skip_reasons
    # the server answering one sequence two ways would mean the steps were not paced apart
    assert run.count("nondeterministic") == 0
    assert run.judged >= MIN_JUDGED_SHARE * count, f"only {run.judged} of {count} inputs judged"
    assert {kind for _, kind, status in run.by_kind if status in (AGREE, DISAGREE)} == set(KINDS)
    assert run.full_agreement, _report(run, flows, count)
