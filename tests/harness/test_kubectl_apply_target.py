"""The kubectl-apply target: the real kubectl apply against the loopback recording endpoint.

The endpoint is tested on its own everywhere; the runs through kubectl are skipped, with the
reason, where kubectl is not on PATH. Their expectations (tests/harness/data/
kubectl_apply_cases.yaml) are kubectl 1.32.4's own output, pasted, and compared exactly.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.provenance.verify import missing_provenance, verify
from patchconf.harness.running.runner import PASS, SKIP, run_case, run_cases
from patchconf.harness.targets import TargetUnavailable, make_target
from patchconf.harness.targets.kubectl_apply import (
    KUBECTL_GO_MEMORY,
    EndpointPool,
    EndpointState,
    KubectlApplyTarget,
    RecordingEndpoint,
    Resource,
    classify_apply_error,
    resource_of,
)

FIXTURE = Path(__file__).parent / "data" / "kubectl_apply_cases.yaml"
needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")


@pytest.fixture(scope="module")
def target():
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH")
    made = KubectlApplyTarget()
    yield made
    made.close()


@pytest.fixture
def fixture_cases(write_case_file):
    cases, errors = load_file(write_case_file("apply/kubectl-apply.yaml", FIXTURE.read_text(encoding="utf-8")))
    assert errors == []
    return {case.name: case for case in cases}


def _request(url: str, method: str = "GET", body: bytes | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


# The endpoint alone (no kubectl needed).

def _state(*resources: Resource, objects: dict | None = None, namespaces: frozenset = frozenset()) -> EndpointState:
    return EndpointState(resources, objects or {}, namespaces, "1.32.4", lambda live, content_type, body: (200, live))


def test_discovery_serves_the_case_kinds_with_their_scope():
    widget = resource_of({"apiVersion": "example.com/v1", "kind": "Widget"})
    namespace = resource_of({"apiVersion": "v1", "kind": "Namespace"})
    with RecordingEndpoint(_state(widget, namespace, namespaces=frozenset({"team"}))) as endpoint:
        assert _request(endpoint.url + "/apis") == (200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": "example.com", "versions": [{"groupVersion": "example.com/v1", "version": "v1"}],
             "preferredVersion": {"groupVersion": "example.com/v1", "version": "v1"}}]})
        status, widgets = _request(endpoint.url + "/apis/example.com/v1")
        assert status == 200
        assert [(r["name"], r["kind"], r["namespaced"]) for r in widgets["resources"]] == [("widgets", "Widget", True)]
        status, core = _request(endpoint.url + "/api/v1")
        assert [(r["name"], r["namespaced"]) for r in core["resources"]] == [("namespaces", False)]
        assert _request(endpoint.url + "/openapi/v2")[0] == 404
        assert _request(endpoint.url + "/api/v1/namespaces/team") == (200, {
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}, "status": {"phase": "Active"}})
        assert _request(endpoint.url + "/api/v1/namespaces/other")[0] == 404
    assert endpoint.state.unexpected == []


def test_object_paths_follow_scope_and_default_namespace():
    assert resource_of({"apiVersion": "apps/v1", "kind": "Deployment"}).object_path("web", None) == (
        "/apis/apps/v1/namespaces/default/deployments/web")
    assert resource_of({"apiVersion": "v1", "kind": "Endpoints"}).object_path("e", "team") == (
        "/api/v1/namespaces/team/endpoints/e")
    assert resource_of({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass"}).object_path("c", "x") == (
        "/apis/networking.k8s.io/v1/ingressclasses/c")
    assert resource_of({"apiVersion": "example.com/v1", "kind": "Namespace"}).namespaced  # a custom kind
    assert resource_of({"apiVersion": "v1"}) is None


def test_unserved_requests_are_recorded_and_refused_with_a_message():
    configmap = resource_of({"apiVersion": "v1", "kind": "ConfigMap"})
    with RecordingEndpoint(_state(configmap)) as endpoint:
        status, answer = _request(endpoint.url + "/apis/batch/v1/jobs")
        assert (status, answer["reason"]) == (404, "NotFound")
        assert "patchconf recording endpoint does not serve GET /apis/batch/v1/jobs" in answer["message"]
        status, answer = _request(endpoint.url + "/api/v1/namespaces/default/configmaps/demo", "PUT", b"{}")
        assert (status, answer["reason"]) == (405, "MethodNotAllowed")
        status, _ = _request(endpoint.url + "/api/v1/namespaces/default/configmaps/other", "PATCH", b"{}")
        assert status == 405
        assert _request(endpoint.url + "/api/v1/namespaces/default/configmaps/demo", "POST", b"{}")[0] == 405
        assert _request(endpoint.url + "/api/v1/namespaces/default/configmaps")[0] == 404  # a list
    assert endpoint.state.unexpected == [
        "GET /apis/batch/v1/jobs",
        "PUT /api/v1/namespaces/default/configmaps/demo b'{}'",
        "PATCH /api/v1/namespaces/default/configmaps/other b'{}'",
        "POST /api/v1/namespaces/default/configmaps/demo b'{}'",
        "GET /api/v1/namespaces/default/configmaps",
    ]


def test_patch_and_create_are_recorded_with_their_content_type():
    configmap = resource_of({"apiVersion": "v1", "kind": "ConfigMap"})
    path = "/api/v1/namespaces/default/configmaps/demo"
    live = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "demo"}}
    with RecordingEndpoint(_state(configmap, objects={path: live})) as endpoint:
        assert _request(endpoint.url + path) == (200, live)
        request = urllib.request.Request(endpoint.url + path + "?fieldManager=x", data=b'{"data":{"a":"1"}}',
                                         method="PATCH",
                                         headers={"Content-Type": "application/strategic-merge-patch+json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        assert _request(endpoint.url + "/api/v1/namespaces/default/configmaps", "POST", b'{"a": 1}') == (201, {"a": 1})
    patch, = endpoint.state.sent("PATCH")
    assert (patch.path, patch.content_type, patch.body) == (
        path, "application/strategic-merge-patch+json", b'{"data":{"a":"1"}}')
    assert endpoint.state.patched == {path: live}
    assert [r.body for r in endpoint.state.sent("POST")] == [b'{"a": 1}']


def test_the_pool_gives_each_invocation_in_flight_its_own_endpoint_and_reuses_idle_ones():
    configmap = resource_of({"apiVersion": "v1", "kind": "ConfigMap"})
    path = "/api/v1/namespaces/default/configmaps/demo"
    first = _state(configmap, objects={path: {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "1"}}})
    second = _state(configmap, objects={path: {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "2"}}})
    third = _state(configmap)
    pool = EndpointPool()
    try:
        with pool.serving(first) as endpoint:
            with pool.serving(second) as other:  # two invocations at once: the same path, each its own object
                assert other.url != endpoint.url
                assert _request(other.url + path)[1]["metadata"] == {"name": "2"}
            assert _request(endpoint.url + path)[1]["metadata"] == {"name": "1"}
        urls = {endpoint.url, other.url}
        status, answer = _request(endpoint.url + "/api/v1")  # between invocations: served to no one
        assert (status, answer["reason"]) == (503, "ServiceUnavailable")
        with pool.serving(third) as reused:
            assert reused.url in urls
            assert _request(reused.url + path)[0] == 404
        assert pool.size == 2
    finally:
        pool.close()
    assert [r.path for r in first.requests] == [path]
    assert [r.path for r in second.requests] == [path]
    assert [r.path for r in third.requests] == [path]
    for url in urls:  # closed: nothing listens any more
        with pytest.raises(urllib.error.URLError):
            _request(url + "/api")


def test_kubectl_runs_without_go_collections_unless_the_environment_says_otherwise(tmp_path, monkeypatch):
    fake = tmp_path / "kubectl"
    fake.write_text("#!/bin/sh\necho '{\"clientVersion\":{\"gitVersion\":\"v1.32.4\"}}'\n")
    fake.chmod(0o755)
    monkeypatch.delenv("GOGC", raising=False)
    monkeypatch.delenv("GOMEMLIMIT", raising=False)
    target = KubectlApplyTarget(str(fake))
    target.close()
    assert {key: target._env.get(key) for key in ("GOGC", "GOMEMLIMIT")} == KUBECTL_GO_MEMORY == {
        "GOGC": "off", "GOMEMLIMIT": "512MiB"}
    monkeypatch.setenv("GOGC", "200")
    target = KubectlApplyTarget(str(fake))
    target.close()
    assert (target._env["GOGC"], "GOMEMLIMIT" in target._env) == ("200", False)


def test_verify_names_each_route_to_kubectl(scripted):
    from patchconf.harness.provenance.verify import via_of

    judge = scripted({}, family="kubectl")
    judge.name = "kubectl-apply:/opt/kubectl.1.27"
    assert via_of(judge) == "kubectl apply against patchconf's recording endpoint"
    judge.name = "kubectl:/opt/kubectl.1.27"
    assert via_of(judge) == "kubectl patch --local"
    judge.name = "upstream@1.27"
    assert via_of(judge) == "patchconf upstream target (Kubernetes' Go modules)"


def test_apply_error_classes():
    assert classify_apply_error("patch: x\nconflicts with changes made from original to current:\ny") == "conflict"
    assert classify_apply_error("At least one of apiVersion, kind and name was changed") == "precondition-failed"


def test_without_kubectl_on_path_the_target_is_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TargetUnavailable, match="kubectl is not on PATH; the kubectl-apply target runs the real"):
        make_target("kubectl-apply")


def test_missing_kubectl_binary_is_unavailable(tmp_path):
    with pytest.raises(TargetUnavailable, match="not found or not executable"):
        make_target(f"kubectl-apply:{tmp_path / 'no-such-kubectl'}")


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if Path(f"/proc/{pid}/stat").is_file() and Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
            return True  # killed, waiting for its new parent to reap it
        time.sleep(0.1)
    return False


def test_a_hanging_kubectl_fails_its_case_and_is_killed(tmp_path, monkeypatch, write_case_file):
    import patchconf.harness.targets.kubectl_apply as kubectl_apply

    fake = tmp_path / "kubectl"
    version = '{"clientVersion":{"gitVersion":"v1.32.4"}}'
    # a dispatcher-like kubectl: the process that hangs is its child
    fake.write_text(f"#!/bin/sh\nif [ \"$1\" = version ]; then echo '{version}'; exit 0; fi\n"
                    f"sleep 60 &\necho $! > {tmp_path / 'pid'}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setattr(kubectl_apply, "KUBECTL_TIMEOUT_SECONDS", 1)
    cases, _ = load_file(write_case_file("apply/hang.yaml", """
        defaults: {type: apply, tags: [APPLY-CREATE], provenance: [{implementation: kubectl, version: "1.32.4"}]}
        cases:
          - name: hang
            description: kubectl never answers
            original: null
            current: null
            modified: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo, namespace: team}}
            expected: {}
    """))
    target = make_target(f"kubectl-apply:{fake}")
    started = time.monotonic()
    try:
        result = run_case(cases[0], target)
    finally:
        target.close()
    assert (result.status, result.reason) == ("error", "target failed: kubectl apply did not finish within 1s")
    assert time.monotonic() - started < 10  # the whole process group was killed, not only kubectl
    child = int((tmp_path / "pid").read_text())
    assert _gone_within(child, seconds=5)
    assert not Path(target._tmp.name).exists()


# Through the real kubectl.

@needs_kubectl
def test_every_fixture_case_matches_kubectls_pasted_outcome_exactly(target, fixture_cases):
    results = run_cases(list(fixture_cases.values()), target)
    assert {r.case.name: (r.status, r.reason) for r in results} == {name: (PASS, "") for name in fixture_cases}


def _release_binaries() -> list[str]:
    """kubectl.1.27 … kubectl.1.33 beside the kubectl on PATH, where the machine has them."""
    found = shutil.which("kubectl")
    if not found:
        return []
    directory = Path(found).resolve().parent
    return [str(directory / f"kubectl.1.{minor}") for minor in (27, 33) if (directory / f"kubectl.1.{minor}").is_file()]


@pytest.mark.parametrize("binary", _release_binaries() or [pytest.param(None, marks=pytest.mark.skip(
    reason="no kubectl.1.27 / kubectl.1.33 beside kubectl"))])
def test_oldest_and_newest_kubectl_releases_agree_with_the_fixture(binary, fixture_cases):
    """The endpoint serves what every release asks for (1.27 also asks for /swagger-2.0.0.pb-v1)."""
    release = make_target(f"kubectl-apply:{binary}")
    try:
        results = run_cases(list(fixture_cases.values()), release)
    finally:
        release.close()
    assert {r.case.name: (r.status, r.reason) for r in results} == {name: (PASS, "") for name in fixture_cases}


@needs_kubectl
def test_a_run_asks_kubectl_once_for_the_annotation_of_each_distinct_original(fixture_cases, monkeypatch):
    import patchconf.harness.targets.kubectl_apply as kubectl_apply

    commands: list[list[str]] = []
    real_run_process = kubectl_apply.run_process

    def counting(command, *arguments, **options):
        commands.append(command)
        return real_run_process(command, *arguments, **options)

    def annotations() -> int:  # kubectl apply --dry-run=client writing original's annotation
        return sum("--dry-run=client" in command for command in commands)

    def applies() -> int:
        return sum(command[1] == "apply" and "--dry-run=client" not in command for command in commands)

    monkeypatch.setattr(kubectl_apply, "run_process", counting)
    sharing = [fixture_cases["conflict-without-overwrite"], fixture_cases["unchanged-sends-nothing"]]
    assert sharing[0].inputs["original"] == sharing[1].inputs["original"]
    target = KubectlApplyTarget()
    try:
        results = run_cases(list(fixture_cases.values()), target, workers=1)
        # 6 of the 7 cases have an original; two of them share theirs
        assert (annotations(), applies()) == (5, 7)
        results += run_cases(sharing, target, workers=1)
        assert (annotations(), applies()) == (5, 9)
    finally:
        target.close()
    assert [(r.case.name, r.status, r.reason) for r in results] == [
        (case.name, PASS, "") for case in [*fixture_cases.values(), *sharing]]
    fresh = KubectlApplyTarget()  # what kubectl wrote is remembered for one run only
    try:
        assert run_case(sharing[0], fresh).status == PASS
    finally:
        fresh.close()
    assert (annotations(), applies()) == (6, 10)


@needs_kubectl
def test_cases_run_in_parallel_each_see_only_their_own_objects(target, fixture_cases):
    """Several of the fixture's cases serve the same object path (configmap team/demo) with
    different live objects; run many at once, each must see its own."""
    cases = list(fixture_cases.values()) * 3
    results = run_cases(cases, target, workers=8)
    assert [(r.case.name, r.status, r.reason) for r in results] == [(case.name, PASS, "") for case in cases]
    assert target._endpoints.size <= 8


@needs_kubectl
def test_first_apply_creates_with_the_annotation(target, fixture_cases):
    actual = target.run(fixture_cases["first-apply-creates"])
    assert actual.notes == ("created",)
    assert actual.document["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/last-applied-configuration":
            '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap",'
            '"metadata":{"annotations":{},"name":"demo","namespace":"team"}}\n'}


@needs_kubectl
def test_deleted_field_is_null_in_the_strategic_patch(target, fixture_cases):
    actual = target.run(fixture_cases["deleted-field"])
    assert actual.notes == ("Content-Type: application/strategic-merge-patch+json",)
    assert actual.patch["data"] == {"b": None}


@needs_kubectl
def test_sidecar_survives_and_deployment_gets_a_strategic_patch(target, fixture_cases):
    actual = target.run(fixture_cases["sidecar-survives"])
    assert actual.notes == ("Content-Type: application/strategic-merge-patch+json",)
    assert actual.document["spec"]["template"]["spec"]["containers"] == [
        {"image": "app:2", "name": "app"}, {"image": "proxy:1", "name": "proxy"}]


@needs_kubectl
def test_custom_kind_gets_a_json_merge_patch(target, fixture_cases):
    actual = target.run(fixture_cases["custom-kind-merge-patch"])
    assert actual.notes == ("Content-Type: application/merge-patch+json",)
    assert actual.patch["spec"] == {"size": None, "tags": ["c"]}


@needs_kubectl
def test_overwrite_false_reports_a_conflict(target, fixture_cases):
    actual = target.run(fixture_cases["conflict-without-overwrite"])
    assert actual.error is not None and actual.error.error_class == "conflict"
    assert "modified.json" in actual.error.message and "/tmp" not in actual.error.message


@needs_kubectl
def test_unchanged_config_sends_no_patch(target, fixture_cases):
    case = fixture_cases["unchanged-sends-nothing"]
    actual = target.run(case)
    assert (actual.patch, actual.notes) == ({}, ("no request sent",))
    assert actual.document["data"] == {"a": "1", "other": "x"}


@needs_kubectl
def test_kubectl_defaults_the_namespace_of_a_config_without_one(target, fixture_cases):
    actual = target.run(fixture_cases["namespace-defaulted"])
    assert actual.patch["metadata"]["namespace"] == "default"


@needs_kubectl
def test_inputs_are_not_mutated_and_other_types_are_skipped(target, fixture_cases, write_case_file):
    case = fixture_cases["sidecar-survives"]
    before = copy.deepcopy(dict(case.inputs))
    target.run(case)
    assert dict(case.inputs) == before
    other, _ = load_file(write_case_file("merge-patch/x.yaml", """
        defaults: {type: merge-patch, tags: [MP-NULL], provenance: [{implementation: kubectl, version: "1.32.4"}]}
        cases:
          - {name: m, description: d, original: {a: 1}, patch: {a: null}, expected: {}}
    """))
    assert run_case(other[0], target).status == SKIP


@needs_kubectl
def test_kubectl_stderr_is_the_failure_reason(target, write_case_file):
    cases, _ = load_file(write_case_file("apply/bad.yaml", """
        defaults: {type: apply, tags: [APPLY-CREATE], provenance: [{implementation: kubectl, version: "1.32.4"}]}
        cases:
          - name: bad-label
            description: kubectl itself rejects the config before any request
            original: null
            current: null
            modified: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo, namespace: team, labels: "x"}}
            expected: {}
    """))
    actual = target.run(cases[0])
    assert actual.error is not None and actual.error.error_class == "invalid-document"
    assert actual.error.message.startswith('unable to decode "modified.json": json: cannot unmarshal string into Go '
                                           'struct field ObjectMeta.metadata.labels')


@needs_kubectl
def test_verify_records_kubectl_apply_as_kubectl_with_its_via(target, fixture_cases):
    verification = verify([fixture_cases["deleted-field"]], [target])
    assert verification.ok
    confirmation, = verification.confirmations
    # the fixture already credits kubectl 1.32.4
    assert missing_provenance(verification) == ([] if target.info.version == "1.32.4" else [confirmation])
    assert (confirmation.implementation, confirmation.version, confirmation.via) == (
        "kubectl", target.info.version, "kubectl apply against patchconf's recording endpoint")


@needs_kubectl
def test_live_object_without_annotation_keeps_fields_and_carries_kubectls_warning(target, write_case_file):
    cases, _ = load_file(write_case_file("apply/no-annotation.yaml", """
        defaults: {type: apply, tags: [APPLY-NO-ANNOTATION], provenance: [{implementation: kubectl, version: "1.32.4"}]}
        cases:
          - name: live-without-annotation
            description: original null, the live object has no last-applied annotation; b is not deleted
            original: null
            current: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo, namespace: team}, data: {a: "1", b: "2"}}
            modified: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo, namespace: team}, data: {a: "1"}}
            expected: {}
    """))
    actual = target.run(cases[0])
    # pasted from kubectl 1.32.4
    assert actual.patch == {"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration":
                            '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap",'
                            '"metadata":{"annotations":{},"name":"demo","namespace":"team"}}\n'}}}
    assert actual.document["data"] == {"a": "1", "b": "2"}
    assert actual.notes[1].startswith("Warning: resource configmaps/demo is missing the "
                                      "kubectl.kubernetes.io/last-applied-configuration annotation")
