"""Client-side apply steps (op kubectl-apply): their schema, how a step's warnings are judged and
recorded, and how the live target reads kubectl's warnings."""

from __future__ import annotations

import json

import pytest

from patchconf.harness.corpus.cases import Purpose, load_file
from patchconf.harness.provenance.record import RECORDED, record_cases
from patchconf.harness.running.runner import _step_mismatches
from patchconf.harness.targets.base import Actual
from patchconf.harness.targets.live import kubectl_ssa

CM = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: default}, data: {a: '1'}}"
CASE = """\
cases:
  - name: csa
    description: one step
    type: server-side-apply
    tags: [APPLY-CREATE]
    steps:
      - {STEP}
"""
WARNING = "resource configmaps/cm is missing the kubectl.kubernetes.io/last-applied-configuration annotation"


def draft(write_case_file, step: str):
    path = write_case_file("server-side-apply/csa.yaml", CASE.replace("{STEP}", step))
    return load_file(path, Purpose.RECORD)


@pytest.mark.parametrize("step", [
    f"{{op: kubectl-apply, manager: kubectl-client-side-apply, object: {CM}}}",
    f"{{op: kubectl-apply, manager: me, object: {CM}, expected_warnings: []}}",
])
def test_a_kubectl_apply_step_is_valid_case_data(write_case_file, step):
    cases, errors = draft(write_case_file, step)
    assert errors == [] and cases[0].inputs["steps"][0]["op"] == "kubectl-apply"


@pytest.mark.parametrize(("step", "problem"), [
    (f"{{op: kubectl-apply, object: {CM}}}", '"manager" is a required property'),
    ("{op: kubectl-apply, manager: m}", '"object" is a required property'),
    (f"{{op: kubectl-apply, manager: m, force: true, object: {CM}}}",
     "'force' is not allowed where op is 'kubectl-apply'"),
    (f"{{op: kubectl-apply, manager: m, subresource: status, object: {CM}}}",
     "'subresource' is not allowed where op is 'kubectl-apply'"),
    (f"{{op: apply, manager: m, object: {CM}, expected_warnings: []}}",
     "'expected_warnings' is not allowed unless op is 'kubectl-apply'"),
])
def test_a_kubectl_apply_step_states_what_it_needs_and_nothing_else(write_case_file, step, problem):
    _, errors = draft(write_case_file, step)
    assert len(errors) == 1 and errors[0].message == problem and errors[0].pointer == "/cases/0/steps/0"


def test_warnings_are_judged_in_order_where_the_target_reports_them():
    want = {"expected_changed": True, "expected_warnings": [WARNING]}
    assert _step_mismatches(want, {"changed": True, "warnings": [WARNING]}, True) == []
    assert _step_mismatches(want, {"changed": True}, True) == []  # a target that cannot tell
    assert _step_mismatches(want, {"changed": True, "warnings": []}, True) == [
        f'expected warnings ["{WARNING}"], got []']
    failed = {"expected_warnings": [], "expected_error": {"class": "invalid"}}
    assert _step_mismatches(failed, {"error": {"class": "invalid"}, "warnings": ["x"]}, True) == [
        'expected warnings [], got ["x"]']


def test_record_writes_the_warnings_of_a_step_and_of_a_failed_one(write_case_file, scripted):
    cases, _ = draft(write_case_file, f"{{op: kubectl-apply, manager: m, object: {CM}}}")
    answer = Actual(document={"steps": [{"changed": True, "warnings": [WARNING]}]})
    judge = scripted({"csa": answer}, family="upstream", patch_types=frozenset({"server-side-apply"}))
    [recording] = record_cases(cases, [judge])
    assert recording.status == RECORDED
    assert recording.step_members == ({"expected_changed": True, "expected_warnings": [WARNING]},)
    refused = Actual(document={"steps": [{"error": {"class": "invalid", "message": "m"}, "warnings": []}]})
    judge = scripted({"csa": refused}, family="upstream", patch_types=frozenset({"server-side-apply"}))
    [recording] = record_cases(cases, [judge])
    assert recording.step_members == (
        {"expected_warnings": [], "expected_error": {"class": "invalid", "message": "m"}},)


def test_kubectls_warnings_are_its_lines_starting_warning():
    log = "\n".join([
        "I1129 09:01:02.000000   1 round_trippers.go:560] GET https://h/api/v1/namespaces/n/configmaps/cm 200 OK",
        f"Warning: {WARNING}",
        "I1129 09:01:02.100000   1 helper.go:269] \"Response Body\" body=<",
        "\tWarning: not kubectl's: a body's text",
        "Warning: a second one ",
        "configmap/cm configured",
    ])
    assert kubectl_ssa.printed_warnings(log) == (WARNING, "a second one")
    assert kubectl_ssa.printed_warnings("configmap/cm created\n") == ()


STATUS_422 = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \\"c0001-x\\" '
              'is invalid: metadata.annotations: Too long: may not be more than 262144 bytes","reason":"Invalid",'
              '"details":{"name":"c0001-x","kind":"ConfigMap","causes":[{"reason":"FieldValueTooLong",'
              '"message":"Too long: may not be more than 262144 bytes","field":"metadata.annotations"}]},"code":422}')


def fake_kubectl(tmp_path, stderr: str, code: int):
    """A kubectl that records its arguments and the manifest, prints ``stderr`` and exits ``code``."""
    (tmp_path / "stderr.txt").write_text(stderr)
    script = tmp_path / "kubectl"
    script.write_text(f"""#!/bin/sh
echo "$@" > {tmp_path}/args.txt
while [ $# -gt 0 ]; do [ "$1" = "-f" ] && cp "$2" {tmp_path}/manifest.json; shift; done
cat {tmp_path}/stderr.txt >&2
exit {code}
""")
    script.chmod(0o755)
    return str(script)


def test_the_live_step_runs_client_side_kubectl_and_reads_its_refusal_from_the_status(tmp_path):
    log = "\n".join([
        f"Warning: {WARNING}",
        'I1129 09:01:02.100000   1 helper.go:269] "Response Body" body=<',
        "\t" + STATUS_422,
        " >",
        'Error from server (Invalid): error when applying patch:',
        '{"data":{"fill":"ffff"}}',
        'to:',
    ])
    kubectl = fake_kubectl(tmp_path, log, 1)
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c0001-x", "namespace": "ns"}}
    answer = kubectl_ssa.apply_client_side(kubectl, ["--kubeconfig", "k"], manifest, "ns", "kubectl-client-side-apply")
    args = (tmp_path / "args.txt").read_text().split()
    assert args[:2] == ["apply", "-f"] and "--server-side" not in args
    assert args[3:] == ["-n", "ns", "--field-manager=kubectl-client-side-apply", "-v=8", "--kubeconfig", "k"]
    assert json.loads((tmp_path / "manifest.json").read_text()) == manifest
    assert answer.ok is False and answer.warnings == (WARNING,)
    assert answer.message == ('ConfigMap "c0001-x" is invalid: metadata.annotations: Too long: '
                              "may not be more than 262144 bytes")
    assert answer.status["code"] == 422 and answer.status["reason"] == "Invalid"


def test_the_live_step_succeeding_keeps_kubectls_warnings(tmp_path):
    kubectl = fake_kubectl(tmp_path, f"Warning: {WARNING}\n", 0)
    answer = kubectl_ssa.apply_client_side(kubectl, [], {"apiVersion": "v1", "kind": "ConfigMap"}, "ns", "m")
    assert answer == kubectl_ssa.KubectlAnswer(ok=True, warnings=(WARNING,))
