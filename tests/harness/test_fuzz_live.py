"""patchconf fuzz against a live truth: the request sequences generated, what is compared, refusals by
validation, named divergences — without a server (a stand-in truth answers)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import Case
from patchconf.harness.fuzz import choices
from patchconf.harness.fuzz.divergences import BadDivergences, load_divergences
from patchconf.harness.fuzz.engine import AGREE, DISAGREE, DIVERGES, REFUSED, Plan, fuzz, generated_input, verdict
from patchconf.harness.fuzz.generators import GENERATORS
from patchconf.harness.fuzz.kinds import KINDS
from patchconf.harness.fuzz.livetruth import NOT_COMPARED, comparable, problem_shape
from patchconf.harness.fuzz.sequences import KIND_ORDER, LIVE_GENERATORS, MANAGERS
from patchconf.harness.fuzz.summary import summary_text
from patchconf.harness.targets.base import Actual, Target
from patchconf.harness.targets.reference import ReferenceTarget

LIVE_FLOWS = tuple(LIVE_GENERATORS)


class PretendLive(Target):
    """A truth of the live family answering each step as ``answers`` says (or as the reference does)."""

    name = "live"
    workers = 1

    def __init__(self, answer=None) -> None:
        self.reference = ReferenceTarget()
        self.answer = answer
        self.info = dataclasses.replace(self.reference.info, family="live", version="v1.33.13")

    def run(self, case: Case) -> Actual:
        return self.answer(case) if self.answer else self.reference.run(case)


def _plan(divergences=()) -> Plan:
    return Plan(LIVE_GENERATORS, tuple(divergences), "server-side-apply", reasks=1, shrink_calls=5, prune_calls=5)


def test_live_inputs_are_request_sequences_on_valid_built_in_objects() -> None:
    inputs = [generated_input(3, LIVE_FLOWS, index, _plan()) for index in range(400)]
    assert [item.case.raw for item in inputs[:50]] == [generated_input(3, LIVE_FLOWS, i, _plan()).case.raw
                                                       for i in range(50)]
    assert {item.case.type for item in inputs} == {"server-side-apply"}
    kinds = {(item.case.raw.get("current") or item.case.raw["steps"][0]["object"])["kind"] for item in inputs}
    assert kinds == set(KIND_ORDER) == set(KINDS)
    for item in inputs:
        steps = item.case.raw["steps"]
        if item.type == "server-side-apply":
            assert 2 <= len(steps) <= 5
            assert steps[0]["op"] == "apply" and steps[0]["manager"] == "alice"
            assert {step["manager"] for step in steps} <= set(MANAGERS)
        else:  # a patch flow: patches of its own type on a stored object
            assert item.case.raw["current"]["kind"] in KINDS
            assert {step["patch_type"] for step in steps} == {item.type}
            assert 1 <= len(steps) <= 2
    ops = {(step["op"], step.get("subresource"), step.get("patch_type"), "force" in step)
           for item in inputs if item.type == "server-side-apply" for step in item.case.raw["steps"]}
    assert {("apply", None, None, True), ("apply", None, None, False), ("update", None, None, False),
            ("apply", "status", None, False), ("update", "status", None, False),
            ("patch", None, "json-patch", False), ("patch", None, "strategic", False)} <= ops
    updates = [step["object"]["metadata"] for item in inputs for step in item.case.raw["steps"]
               if step["op"] == "update" and not step.get("subresource")]
    assert any(metadata.get("labels") == {} for metadata in updates)
    assert any("annotations" in metadata and metadata["annotations"] is None for metadata in updates)


def test_a_custom_kinds_inputs_name_its_schema_and_take_no_strategic_patch() -> None:
    inputs = [generated_input(5, LIVE_FLOWS, index, _plan()) for index in range(600)]
    custom = [item for item in inputs
              if (item.case.raw.get("current") or item.case.raw["steps"][0]["object"])["kind"] == "Database"]
    assert custom and all(item.case.raw["schema"] == {"named": "database"} for item in custom)
    assert {item.type for item in custom} == {"server-side-apply", "json-patch", "merge-patch"}
    assert not any(step.get("patch_type") == "strategic" for item in custom for step in item.case.raw["steps"])
    assert all("schema" not in item.case.raw for item in inputs if item not in custom)
    claims = [item.case.raw["steps"][0]["object"] for item in inputs if item.type == "server-side-apply"
              and item.case.raw["steps"][0]["object"]["kind"] == "PersistentVolumeClaim"]
    assert claims and all(claim["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"] for claim in claims)


@pytest.mark.parametrize("seed", [0, 58213, 99])
def test_every_seed_makes_inputs(seed: int) -> None:
    # a generator that raises on some decisions would end a run (an applier's null labels, say)
    for index in range(1500):
        generated_input(seed, LIVE_FLOWS, index, _plan())


def test_a_deployment_keeps_its_selector_matching_its_template() -> None:
    for index in range(200):
        deployment, _ = choices.generate(KINDS["Deployment"].make, f"d{index}")
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
        names = [container["name"] for container in deployment["spec"]["template"]["spec"]["containers"]]
        assert len(names) == len(set(names)) and names[0] == "app"


def test_a_secret_is_written_with_data_and_string_data_and_stays_valid() -> None:
    made = [choices.generate(KINDS["Secret"].make, f"s{index}")[0] for index in range(200)]
    varied = [choices.generate(lambda c, secret=secret: KINDS["Secret"].vary(c, secret), f"v{index}")[0]
              for index, secret in enumerate(made)]
    assert {secret.get("type") for secret in made} == {None, "Opaque", "kubernetes.io/basic-auth"}
    assert all(secret.get("data") or secret.get("stringData") for secret in made)
    for secret in made + varied:  # a varied Opaque Secret may have lost every key: valid too
        keys = set(secret.get("data") or {}) | set(secret.get("stringData") or {})
        assert all(secret.get(member) != {} for member in ("data", "stringData"))
        if secret.get("type") == "kubernetes.io/basic-auth":
            assert keys & {"username", "password"}
    assert any("data" in secret and "stringData" in secret for secret in made)
    keys_of = [set(secret.get("data") or {}) | set(secret.get("stringData") or {}) for secret in made]
    varied_keys = [set(secret.get("data") or {}) | set(secret.get("stringData") or {}) for secret in varied]
    assert any(after - before and before - after for before, after in zip(keys_of, varied_keys, strict=True))
    assert [secret.get("type") for secret in made] == [secret.get("type") for secret in varied]


def test_the_generators_of_the_other_truths_are_unchanged() -> None:
    # what upstream-truth runs of every flow generate for seed 7, as before the live generators came
    # (and since a first apply states original: null beside current: null, and since an apply's live
    # object is written as Go writes it, 2.0 as 2; with that taken out they hash as before)
    made = json.dumps([generated_input(7, tuple(GENERATORS), index).case.raw for index in range(180)], sort_keys=True)
    assert hashlib.sha256(made.encode()).hexdigest() == UNCHANGED_DIGEST


UNCHANGED_DIGEST = "795e4b5e051f081862bab19f1f3613a16510be5bee53a18153739313724a1312"


def _steps_answer(*results: dict) -> Actual:
    return Actual(document={"steps": list(results)})


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"selector": {"matchLabels": {"app": "web"}}}}


def _case(steps: int) -> Case:
    from patchconf.harness.fuzz.engine import make_case

    return make_case("server-side-apply", {"steps": [{"op": "apply", "manager": "alice", "object": DEPLOYMENT}
                                                     for _ in range(steps)]}, "input-0")


def _entry(manager: str, time: int | None) -> dict:
    return {"manager": manager, "operation": "Apply", "apiVersion": "apps/v1", "time": time,
            "fieldsV1": {"f:spec": {}}}


REFUSAL = {"error": {"class": "invalid", "status": 422, "reason": "Invalid", "message": "spec.template: Required"},
           "unchanged": True}


def test_times_and_allocated_values_are_not_compared_and_the_order_is() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
               "spec": {"clusterIP": "10.0.0.7", "clusterIPs": ["10.0.0.7"], "ipFamilies": ["IPv4"],
                        "ipFamilyPolicy": "SingleStack", "ports": [{"port": 80, "nodePort": 30001}]}}
    answer = comparable(_steps_answer({"document": service, "managed_fields": [_entry("a", 1), _entry("b", None)]}))
    step = answer.document["steps"][0]
    assert step["document"] == {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                                "spec": {"ports": [{"port": 80}]}}
    assert [entry.get("time", "none") for entry in step["managed_fields"]] == ["none", "none"]
    assert [entry["manager"] for entry in step["managed_fields"]] == ["a", "b"]
    assert set(NOT_COMPARED["Service"]) >= {("spec", "clusterIP"), ("spec", "ipFamilies")}
    case = _case(1)
    truth = PretendLive(lambda c: _steps_answer({"document": DEPLOYMENT, "changed": True,
                                                 "managed_fields": [_entry("a", 1), _entry("b", 1)]}))
    swapped = _steps_answer({"document": DEPLOYMENT, "changed": True,
                             "managed_fields": [_entry("b", 1), _entry("a", 1)]})
    timed_otherwise = _steps_answer({"document": DEPLOYMENT, "changed": True,
                                     "managed_fields": [_entry("a", 7), _entry("b", 9)]})
    assert verdict(case, truth.reference, truth, truth.run(case), timed_otherwise, "server-side-apply",
                   _plan()).status == AGREE
    judged = verdict(case, truth.reference, truth, truth.run(case), swapped, "server-side-apply", _plan())
    assert judged.status == DISAGREE
    assert judged.signature[:3] == ("live", "server-side-apply", "Deployment")


def test_a_refusal_by_validation_is_counted_apart_once_the_steps_before_it_agree() -> None:
    agreed = {"document": DEPLOYMENT, "changed": True, "managed_fields": [_entry("alice", 1)]}
    truth = PretendLive(lambda c: _steps_answer(agreed, REFUSAL, agreed))
    case = _case(3)
    target = truth.reference
    # the target does not validate: it changes the object where the server refused
    same_before = _steps_answer(agreed, {**agreed, "changed": True}, {"document": {}, "managed_fields": []})
    judged = verdict(case, target, truth, truth.run(case), same_before, "server-side-apply", _plan())
    assert (judged.status, judged.reason) == (REFUSED, "the server's validation refused step 2")
    other_before = _steps_answer({**agreed, "managed_fields": [_entry("bob", 1)]}, agreed, agreed)
    judged = verdict(case, target, truth, truth.run(case), other_before, "server-side-apply", _plan())
    assert judged.status == DISAGREE
    assert all(line.startswith("step 1:") for line in judged.result.diff)
    first = PretendLive(lambda c: _steps_answer(REFUSAL, agreed, agreed))
    assert verdict(case, target, first, first.run(case), other_before, "server-side-apply",
                   _plan()).status == REFUSED
    # a 422 that is not validation (a JSON patch that did not apply) is judged like any error
    bare = {"error": {"class": "invalid", "status": 422, "reason": None, "message": "x"}, "unchanged": True}
    unlike = PretendLive(lambda c: _steps_answer(agreed, bare, agreed))
    assert verdict(case, target, unlike, unlike.run(case), same_before, "server-side-apply",
                   _plan()).status == DISAGREE


def _divergences(tmp_path: Path, text: str):
    path = tmp_path / "divergences.yaml"
    path.write_text(text, encoding="utf-8")
    return load_divergences(path)


def test_a_disagreement_is_a_known_divergence_only_when_every_difference_is_explained(tmp_path: Path) -> None:
    divergences = _divergences(tmp_path, """
divergences:
  - id: pull-policy
    targets: [reference]
    kinds: [Deployment]
    explains: ['object /spec/template/spec/containers/\\*/imagePullPolicy: expected value, got absent']
    reason: for the test
""")
    truth_document = {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "template": {"spec": {"containers": [
        {"name": "a", "imagePullPolicy": "Always"}]}}}}
    without = {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "template": {"spec": {"containers": [{"name": "a"}]}}}}
    truth = PretendLive(lambda c: _steps_answer({"document": truth_document, "changed": True}))
    case = _case(1)
    plan = _plan(divergences)
    lacking = _steps_answer({"document": without, "changed": True})
    judged = verdict(case, truth.reference, truth, truth.run(case), lacking, "server-side-apply", plan)
    assert (judged.status, judged.divergences) == (DIVERGES, ("pull-policy",))
    also_changed = _steps_answer({"document": without, "changed": False})
    assert verdict(case, truth.reference, truth, truth.run(case), also_changed, "server-side-apply",
                   plan).status == DISAGREE
    upstream = dataclasses.replace(truth.reference.info, family="upstream")
    other_target = ReferenceTarget()
    other_target.info = upstream
    assert verdict(case, other_target, truth, truth.run(case), _steps_answer({"document": without, "changed": True}),
                   "server-side-apply", plan).status == DISAGREE


def test_problem_shapes_leave_out_step_numbers_indices_and_values() -> None:
    assert problem_shape("step 3: object /spec/template/spec/containers/1/imagePullPolicy: expected 'Always', "
                         "got absent") == "object /spec/template/spec/containers/*/imagePullPolicy: expected value, " \
                                          "got absent"
    assert problem_shape("step 2: expected error 'conflict', got success") == "expected error 'conflict', got success"
    assert problem_shape("step 1: expected success, got error 'conflict': Apply failed") == \
        "expected success, got error 'conflict'"


@pytest.mark.parametrize("text", [
    "divergences:\n  - {id: a, targets: [reference], explains: [x]}\n",
    "divergences:\n  - {id: a, targets: [reference], explains: [x], reason: ' '}\n",
    "divergences:\n  - {id: a, targets: [reference], explains: ['('], reason: r}\n",
    "divergences:\n  - {id: a, targets: [reference], explains: [x], reason: r}\n"
    "  - {id: a, targets: [upstream], explains: [y], reason: r}\n",
])
def test_a_divergence_without_a_reason_or_with_a_bad_pattern_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(BadDivergences):
        _divergences(tmp_path, text)


def test_the_named_divergences_load_and_each_says_why() -> None:
    for divergence in load_divergences():
        assert divergence.reason.strip() and divergence.explains and divergence.targets <= {"reference", "upstream"}


def test_a_run_against_a_live_truth_counts_per_kind_and_says_how_refusals_count() -> None:
    truth = PretendLive()  # the reference standing in for the server: everything agrees
    run = fuzz(ReferenceTarget(), truth, LIVE_FLOWS, seed=5, count=24, plan=_plan())
    assert run.count(AGREE) == 24 and run.full_agreement
    assert sum(n for (_, _, status), n in run.by_kind.items() if status == AGREE) == 24
    text = summary_text(run, [])
    assert "agreement per type and kind:" in text
    assert "refused by validation: the server's validation refused a step (422 Invalid)" in text


def test_the_command_judges_several_targets_against_one_answer_of_the_truth(capsys, monkeypatch) -> None:
    from patchconf.harness.cli import main
    from patchconf.harness.fuzz import livetruth

    asked = []
    remember = livetruth.RememberingTruth.__init__

    def counting(self, truth):
        remember(self, truth)
        run = truth.run
        truth.run = lambda case: asked.append(case.name) or run(case)

    monkeypatch.setattr(livetruth.RememberingTruth, "__init__", counting)
    code = main(["fuzz", "--truth", "reference", "--target", "reference", "--target", "reference:1.33",
                 "--type", "merge-patch", "--count", "12", "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("merge-patch       12/12 agree (100.0%)") == 2
    assert "patchconf fuzz: reference against reference" in out and "reference:1.33 against reference" in out
    assert sorted(asked) == sorted(f"input-{index}" for index in range(12))  # the truth asked once per input
