"""patchconf fuzz: generation by seed, shrinking with Hypothesis, judging, case files, the command."""

from __future__ import annotations

import dataclasses

import pytest

from patchconf.harness.cli import main
from patchconf.harness.corpus.cases import Purpose, load_file
from patchconf.harness.fuzz import choices
from patchconf.harness.fuzz.casefile import NotWritable, write_findings
from patchconf.harness.fuzz.engine import (
    AGREE,
    DISAGREE,
    as_kubectl_passes_it,
    fuzz,
    generated_input,
    judge_case,
    make_case,
)
from patchconf.harness.fuzz.generators import GENERATORS
from patchconf.harness.running.runner import PASS, run_case
from patchconf.harness.targets.base import Actual
from patchconf.harness.targets.reference import ReferenceTarget
from tests.fixtures.interrupts import ctrl_c_to_a_worker_thread

TYPES = tuple(GENERATORS)


class PretendUpstream(ReferenceTarget):
    """The reference standing in for Kubernetes' code, so these tests need no Go."""

    name = "upstream"

    def __init__(self) -> None:
        super().__init__()
        self.info = dataclasses.replace(self.info, family="upstream", version="1.32.4")


class NullIgnoringTarget(ReferenceTarget):
    """A merge patch library with a planted bug: a null member of the patch is ignored, not a deletion."""

    name = "null-ignoring"

    def run(self, case):
        if case.type != "merge-patch" or not isinstance(case.inputs["patch"], dict):
            return super().run(case)
        patch = {key: member for key, member in case.inputs["patch"].items() if member is not None}
        return super().run(dataclasses.replace(case, inputs={**case.inputs, "patch": patch}))


def test_the_same_seed_gives_the_same_inputs() -> None:
    first = [generated_input(7, TYPES, index).case.raw for index in range(160)]
    again = [generated_input(7, TYPES, index).case.raw for index in range(160)]
    other = [generated_input(8, TYPES, index).case.raw for index in range(160)]
    assert first == again
    assert first != other
    assert {raw["type"] for raw in first} == set(TYPES)


@pytest.mark.parametrize("case_type", TYPES)
def test_hypothesis_replays_recorded_decisions_exactly(case_type: str) -> None:
    value, recorded = choices.generate(GENERATORS[case_type], f"replay:{case_type}")
    replayed = choices.shrink(GENERATORS[case_type], recorded, lambda candidate: True, shrinking=False)
    assert replayed == value


def test_shrinking_ends_at_the_smallest_value_that_still_satisfies() -> None:
    def numbers(c):
        return [c.integer(0, 100) for _ in range(c.integer(0, 6))]

    seed = next(s for s in range(100) if any(n >= 50 for n in choices.generate(numbers, s)[0]))
    _, recorded = choices.generate(numbers, seed)
    assert choices.shrink(numbers, recorded, lambda found: any(n >= 50 for n in found)) == [50]


def test_a_recording_that_no_longer_satisfies_is_reported() -> None:
    _, recorded = choices.generate(GENERATORS["merge-patch"], 1)
    with pytest.raises(choices.NotReproduced):
        choices.shrink(GENERATORS["merge-patch"], recorded, lambda found: False)


def test_agreeing_targets_agree_on_every_input() -> None:
    run = fuzz(ReferenceTarget(), PretendUpstream(), ["json-patch", "merge-patch", "strategic"], seed=3, count=90)
    assert run.judged == 90
    assert run.count(AGREE) == 90
    assert run.findings == []


def test_a_planted_bug_is_found_shrunk_and_written_as_a_valid_case(tmp_path) -> None:
    truth = PretendUpstream()
    run = fuzz(NullIgnoringTarget(), truth, ["merge-patch"], seed=1, count=200)
    assert run.count(DISAGREE) > 1
    assert [finding.signature for finding in run.findings] == [
        ("merge-patch", "success", "success", "document: member extra")]
    finding = run.findings[0]
    assert finding.shrunk
    assert finding.occurrences == run.count(DISAGREE)
    assert dict(finding.verdict.case.inputs) == {"original": {"a": 0}, "patch": {"a": None}}
    assert finding.tags == ("MP-NULL",)

    written = write_findings(run, tmp_path, "upstream")
    path = tmp_path / "merge-patch" / "fuzz-seed1.yaml"
    assert written == [(path, 1)]
    cases, errors = load_file(path, Purpose.CORPUS)
    assert errors == []
    [case] = cases
    assert case.name == f"fuzz-seed1-input{finding.first_index}"
    assert case.raw["expected"] == {}
    assert case.tags == ("MP-NULL",)
    assert case.provenance == ({"implementation": "upstream", "version": "1.32.4", "via": "patchconf fuzz"},)
    assert run_case(case, truth).status == PASS
    assert run_case(case, NullIgnoringTarget()).status != PASS


def test_the_same_seed_gives_the_same_findings() -> None:
    def signatures_and_inputs():
        run = fuzz(NullIgnoringTarget(), PretendUpstream(), ["merge-patch", "json-patch"], seed=5, count=120,
                   shrink=False)
        return [(f.signature, f.first_index, dict(f.verdict.case.inputs)) for f in run.findings]

    assert signatures_and_inputs() == signatures_and_inputs()


def test_a_truth_that_is_not_kubernetes_writes_no_cases(tmp_path) -> None:
    run = fuzz(NullIgnoringTarget(), ReferenceTarget(), ["merge-patch"], seed=1, count=40, shrink=False)
    assert run.findings
    with pytest.raises(NotWritable, match="not Kubernetes' own code"):
        write_findings(run, tmp_path, "reference")
    assert not list(tmp_path.iterdir())


def test_a_crashing_target_disagrees_and_the_run_goes_on() -> None:
    class Crashing(ReferenceTarget):
        def run(self, case):
            raise RuntimeError("boom")

    judged = judge_case(generated_input(1, ["merge-patch"], 0).case, Crashing(), PretendUpstream())
    assert judged.status == DISAGREE
    assert judged.signature[2] == "crash"
    assert "boom" in judged.reason


def test_a_declined_input_is_a_skip() -> None:
    from patchconf.harness.targets.base import TargetDeclined

    class Declining(ReferenceTarget):
        def run(self, case) -> Actual:
            raise TargetDeclined("not today")

    run = fuzz(Declining(), PretendUpstream(), ["merge-patch"], seed=1, count=10)
    assert run.count("skip") == 10
    assert run.skip_reasons == {"reference declined: not today": 10}


def test_the_command_reports_agreement_and_exits_0(capsys) -> None:
    code = main(["fuzz", "--target", "reference", "--truth", "reference", "--type", "merge-patch",
                 "--count", "40", "--seed", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "inputs tried: 40" in out
    assert "merge-patch       40/40 agree (100.0%)" in out
    assert "full agreement with reference on 40 judged inputs" in out


def test_the_command_refuses_an_unknown_type(capsys) -> None:
    assert main(["fuzz", "--target", "reference", "--type", "update"]) == 2
    assert "no generator for update" in capsys.readouterr().err


class LibraryTruth(PretendUpstream):
    """Answers as the strategic merge library alone does for `$patch: delete` at the root: `{}`."""

    def run(self, case) -> Actual:
        return Actual(document={})


class LibraryTarget(LibraryTruth):
    """A patch library (not kubectl-like): it never reads a result back as an object."""

    name = "peer:library"

    def __init__(self) -> None:
        super().__init__()
        self.info = dataclasses.replace(self.info, family="peer:library")


ROOT_DELETE = {"original": {"apiVersion": "v1", "kind": "ConfigMap"}, "patch": {"$patch": "delete"}}


def test_a_kubectl_like_target_is_judged_on_the_document_read_back_as_kubectl_reads_it() -> None:
    # The reference answers as kubectl: "Object 'Kind' is missing in '{}'" (the corpus's
    # strategic/directive-delete.yaml::delete-root-leaves-no-object).
    judged = judge_case(make_case("strategic", ROOT_DELETE, "root-delete"), ReferenceTarget(), LibraryTruth())
    assert judged.status == AGREE
    assert judged.members == {"expected": {}}


def test_a_library_target_is_judged_on_the_document_as_the_library_returns_it() -> None:
    judged = judge_case(make_case("strategic", ROOT_DELETE, "root-delete"), LibraryTarget(), LibraryTruth())
    assert judged.status == AGREE
    kubectl_like = judge_case(make_case("strategic", ROOT_DELETE, "root-delete"), LibraryTarget(), PretendUpstream())
    assert kubectl_like.status == DISAGREE


def test_a_kubectl_like_target_gets_the_object_as_kubectl_hands_it_to_the_library() -> None:
    members = {"original": {"apiVersion": "v1", "kind": "Pod", "spec": {"n": 30.0}}, "patch": {}}
    case = make_case("strategic", members, "float")
    passed = as_kubectl_passes_it(case, ReferenceTarget())
    assert passed.inputs["original"] == {"apiVersion": "v1", "kind": "Pod", "spec": {"n": 30}}
    assert type(passed.inputs["original"]["spec"]["n"]) is int
    assert as_kubectl_passes_it(case, LibraryTarget()) is case
    bare = make_case("strategic", {"original": {"spec": {"n": 30.0}}, "patch": {}}, "bare")
    assert as_kubectl_passes_it(bare, ReferenceTarget()) is bare


def test_an_interrupt_the_kernel_gives_a_worker_thread_stops_a_fuzz_run_at_once() -> None:
    import threading
    import time

    release, asked = threading.Event(), []

    class HeldTruth(PretendUpstream):
        def run(self, case):
            asked.append(threading.get_ident())
            release.wait(60)  # questions in flight end only when the test lets them
            return super().run(case)

    started = time.monotonic()
    try:
        with ctrl_c_to_a_worker_thread(asked):
            run = fuzz(ReferenceTarget(), HeldTruth(), ["merge-patch"], seed=1, count=10)
        assert time.monotonic() - started < 30  # not when the held questions end (60 s)
    finally:
        release.set()
    assert run.interrupted == "interrupted"
    assert sum(run.tried.values()) == 0
