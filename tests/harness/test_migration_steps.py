"""The client-side to server-side apply steps (op csa-upgrade, op kubectl-apply-server-side):
their schema, how record keeps entries the server wrote without a time, how the live target
reads kubectl's answer, and the provenance naming kubectl."""

from __future__ import annotations

import json

import pytest

from patchconf.harness.corpus.cases import Purpose, load_file
from patchconf.harness.provenance.record import RECORDED, record_cases
from patchconf.harness.provenance.verify import via_of
from patchconf.harness.targets.base import Actual
from patchconf.harness.targets.live import kubectl_ssa

CM = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: '1'}}"
CASE = """\
cases:
  - name: migrate
    description: one step
    type: server-side-apply
    tags: [SSA-MIGRATE]
    current: {CM}
    steps:
      - {STEP}
"""


def draft(write_case_file, step: str):
    path = write_case_file("server-side-apply/migrate.yaml", CASE.replace("{CM}", CM).replace("{STEP}", step))
    return load_file(path, Purpose.RECORD)


@pytest.mark.parametrize("step", [
    "{op: csa-upgrade, manager: kubectl, csa_managers: [kubectl-client-side-apply]}",
    "{op: csa-upgrade, manager: kubectl, csa_managers: [a, b], subresource: status}",
    f"{{op: kubectl-apply-server-side, manager: kubectl, object: {CM}}}",
    f"{{op: kubectl-apply-server-side, manager: flux, force: true, object: {CM}}}",
])
def test_migration_steps_are_valid_case_data(write_case_file, step):
    cases, errors = draft(write_case_file, step)
    assert errors == [] and cases[0].inputs["steps"][0]["op"] in ("csa-upgrade", "kubectl-apply-server-side")


@pytest.mark.parametrize(("step", "problem"), [
    ("{op: csa-upgrade, manager: kubectl}", '"csa_managers" is a required property'),
    ("{op: csa-upgrade, csa_managers: [x]}", '"manager" is a required property'),
    (f"{{op: csa-upgrade, manager: kubectl, csa_managers: [x], object: {CM}}}",
     "'object' is not allowed where op is 'csa-upgrade'"),
    (f"{{op: kubectl-apply-server-side, object: {CM}}}", '"manager" is a required property'),
    ("{op: kubectl-apply-server-side, manager: kubectl}", '"object" is a required property'),
    (f"{{op: kubectl-apply-server-side, manager: kubectl, subresource: status, object: {CM}}}",
     "'subresource' is not allowed where op is 'kubectl-apply-server-side'"),
    (f"{{op: apply, manager: kubectl, csa_managers: [x], object: {CM}}}",
     "'csa_managers' is not allowed unless op is 'csa-upgrade'"),
])
def test_migration_steps_state_what_they_need_and_nothing_else(write_case_file, step, problem):
    _, errors = draft(write_case_file, step)
    assert len(errors) == 1 and errors[0].message == problem and errors[0].pointer == "/cases/0/steps/0"


def test_a_client_side_manager_is_named_once(write_case_file):
    _, errors = draft(write_case_file, "{op: csa-upgrade, manager: kubectl, csa_managers: [x, x]}")
    assert [(e.pointer, e.message) for e in errors] == [
        ("/cases/0/steps/0/csa_managers", '["x","x"] has non-unique elements')]


def test_an_entry_written_without_a_time_is_recorded_one_of_unknown_time_is_not(write_case_file, scripted):
    cases, _ = draft(write_case_file, "{op: csa-upgrade, manager: kubectl, csa_managers: [x]}")
    untimed = {"manager": "kubectl-last-applied", "operation": "Apply", "apiVersion": "v1",
               "fieldsV1": {"f:metadata": {}}}
    timed = {"manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "time": 1, "fieldsV1": {"f:data": {}}}
    document = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
    answer = Actual(document={"steps": [{"document": document, "changed": True, "managed_fields": [untimed, timed]}]})
    judge = scripted({"migrate": answer}, family="upstream", patch_types=frozenset({"server-side-apply"}))
    [recording] = record_cases(cases, [judge])
    assert recording.status == RECORDED
    assert recording.step_members == ({"expected": document, "expected_managed_fields": [untimed, timed],
                                       "expected_changed": True},)
    unknown = Actual(document={"steps": [{"document": document, "changed": True,
                                          "managed_fields": [{**timed, "time": None}]}]})
    live = scripted({"migrate": unknown}, family="upstream", patch_types=frozenset({"server-side-apply"}))
    [recording] = record_cases(cases, [live])
    assert recording.step_members == ({"expected": document, "expected_changed": True},)


# kubectl 1.32's -v=8 log of a conflicting `kubectl apply --server-side` (headers left out)
CONFLICT_STATUS = json.dumps({
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": 'Apply failed with 1 conflict: conflict with "scaler" using v1: .data.a', "reason": "Conflict",
    "details": {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "scaler" using v1',
                            "field": ".data.a"}]},
    "code": 409}, separators=(",", ":"))
CONFLICT_LOG = "\n".join([
    "I1123 19:11:22.526122   25026 round_trippers.go:560] PATCH https://127.0.0.1:32795/api/v1/namespaces/ns/"
    "configmaps/cm?fieldManager=kubectl&fieldValidation=Strict&force=false 409 Conflict in 2 milliseconds",
    'I1123 19:11:22.530343   25026 helper.go:269] "Response Body" body=<',
    "\t" + CONFLICT_STATUS,
    " >",
    'error: Apply failed with 1 conflict: conflict with "scaler" using v1: .data.a',
    "Please review the fields above--they currently have other managers. Here",
    "are the ways you can resolve this warning:",
    "* If you intend to manage all of these fields, please re-run the apply",
    "  command with the `--force-conflicts` flag.",
])


def test_kubectls_failure_is_read_from_its_words_and_its_log():
    assert kubectl_ssa.own_lines(CONFLICT_LOG) == ('Apply failed with 1 conflict: conflict with "scaler" '
                                                   "using v1: .data.a")
    assert kubectl_ssa.last_failure_status(CONFLICT_LOG) == json.loads(CONFLICT_STATUS)


def test_a_body_on_one_line_is_read_too_and_success_bodies_are_passed_over():
    failure = json.dumps({"kind": "Status", "status": "Failure", "code": 422})
    log = (f'I1 helper.go:269] "Response Body" body={json.dumps(failure)}\n'
           f'I1 helper.go:269] "Response Body" body={json.dumps(json.dumps({"kind": "ConfigMap"}))}\n')
    assert kubectl_ssa.last_failure_status(log) == {"kind": "Status", "status": "Failure", "code": 422}
    assert kubectl_ssa.last_failure_status("no bodies here") is None


class _Judge:
    def __init__(self, name: str, family: str, helper: str | None = None) -> None:
        self.name = name
        self.info = type("Info", (), {"family": family})()
        if helper is not None:
            self.helper_for = lambda case: helper if case.name == "migrate" else None


def test_provenance_names_the_program_a_target_ran_besides_the_server(write_case_file):
    [case], _ = draft(write_case_file, f"{{op: kubectl-apply-server-side, manager: kubectl, object: {CM}}}")
    live = _Judge("live", "live", "kubectl apply --server-side (kubectl 1.32.4)")
    assert via_of(live, case) == ("patchconf live target, local kube-apiserver, "
                                  "with kubectl apply --server-side (kubectl 1.32.4)")
    assert via_of(live) == "patchconf live target, local kube-apiserver"
    assert via_of(_Judge("upstream@1.30", "upstream"), case) == "patchconf upstream target (Kubernetes' Go modules)"


def test_the_bare_bodies_of_kubectl_before_1_32_are_read_too():
    log = "\n".join([
        "I1126 08:40:36.218358   21744 round_trippers.go:553] PATCH https://h/api/v1/namespaces/n/configmaps/cm"
        "?fieldManager=kubectl&force=false 409 Conflict in 2 milliseconds",
        f"I1126 08:40:36.221800   21744 request.go:1351] Response Body: {CONFLICT_STATUS}",
        'I1126 08:40:36.231800   21744 request.go:1351] Response Body: {"kind":"ConfigMap"}',
        'I1126 08:40:36.241800   21744 request.go:1351] Response Body: {"kind":"Status","status":"Failu',  # cut short
        'error: Apply failed with 1 conflict: conflict with "scaler" using v1: .data.a',
    ])
    assert kubectl_ssa.last_failure_status(log) == json.loads(CONFLICT_STATUS)
    assert kubectl_ssa.own_lines(log) == 'Apply failed with 1 conflict: conflict with "scaler" using v1: .data.a'
