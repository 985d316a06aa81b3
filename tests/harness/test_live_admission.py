"""The live target on a cluster that is not ours: admission webhooks change and refuse objects.

A webhook server of this test's own (HTTPS on loopback, a certificate made with openssl for the
test) is registered for the run's namespace only: a mutating webhook that injects a label and a
sidecar container into Pods and Deployments' pod templates at creation, as service meshes do,
and a validating one that refuses ConfigMaps carrying a deny label. Corpus cases then run with the
live target: each result says what the server added or refused beyond the request, affected
cases are judged as before (a wrong outcome still fails), and unaffected ones pass with nothing
to explain.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from patchconf.harness.controlplane.live_cluster import RUN_LABEL, Cluster
from patchconf.harness.corpus.cases import load_file
from patchconf.harness.reporting.report import Run, junit_xml, markdown, summary_text
from patchconf.harness.reporting.results import ResultsLog, read_log
from patchconf.harness.reporting.summary import summary_json, summary_markdown
from patchconf.harness.running.runner import FAIL, PASS, run_case, run_cases
from patchconf.harness.targets import make_target
from patchconf.harness.targets.base import Actual
from patchconf.harness.targets.live.mutations import AFTER, CREATED, RENDERED, REQUEST, object_changes, refusal
from tests.conftest import ScriptedTarget

REPO = Path(__file__).resolve().parents[2]
INJECTED_LABEL = "mesh.example/injected"
SIDECAR = "mesh-proxy"
SIDECAR_IMAGE = "mesh.example/proxy:1.0"
DENY_LABEL = "policy.example/deny"
PUBLIC_REGISTRY, MIRROR = "docker.io/", "mirror.example/"
LABEL_POINTER = "/" + INJECTED_LABEL.replace("/", "~1")
ADMISSION = "/apis/admissionregistration.k8s.io/v1"
READY_SECONDS = 30.0


@pytest.fixture(scope="module")
def kubeconfig(request: pytest.FixtureRequest) -> str:
    # the same server as test_live_target.py: $PATCHCONF_LIVE_KUBECONFIG, else the session's control plane
    return os.environ.get("PATCHCONF_LIVE_KUBECONFIG") or str(request.getfixturevalue("live_kubeconfig"))


@pytest.fixture
def live(kubeconfig: str):
    target = make_target("live", kubeconfig=kubeconfig)
    yield target
    target.close()


# --- the webhook server ----------------------------------------------------------------------


def _openssl(arguments: list[str], cwd: Path) -> None:
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True, text=True)


def _certificates(directory: Path) -> tuple[Path, Path, bytes]:
    """A CA and a serving certificate for 127.0.0.1 signed by it: (certificate, key, CA bundle)."""
    if shutil.which("openssl") is None:
        pytest.fail("the admission webhook test needs the openssl command", pytrace=False)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(["req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
              "-subj", "/CN=patchconf-test-webhook-ca", "-addext", "basicConstraints=critical,CA:TRUE",
              "-addext", "keyUsage=critical,keyCertSign,cRLSign"], directory)
    _openssl(["req", *ec, "-keyout", "webhook.key", "-out", "webhook.csr", "-subj", "/CN=patchconf-test-webhook"],
             directory)
    (directory / "webhook.ext").write_text("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    _openssl(["x509", "-req", "-in", "webhook.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
              "-out", "webhook.crt", "-days", "1", "-extfile", "webhook.ext"], directory)
    return directory / "webhook.crt", directory / "webhook.key", (directory / "ca.crt").read_bytes()


def mesh_patch(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON patch a mesh injector answers with: its label and its sidecar, unless already there;
    and, as a registry policy would, images from docker.io pointed at a mirror."""
    template = obj.get("kind") == "Deployment"
    base = "/spec/template" if template else ""
    pod = (obj.get("spec") or {}).get("template", {}) if template else obj
    labels = (pod.get("metadata") or {}).get("labels")
    operations = []
    if not isinstance(labels, dict):
        operations.append({"op": "add", "path": f"{base}/metadata/labels", "value": {INJECTED_LABEL: "true"}})
    elif INJECTED_LABEL not in labels:
        operations.append({"op": "add", "path": f"{base}/metadata/labels{LABEL_POINTER}", "value": "true"})
    containers = (pod.get("spec") or {}).get("containers") or []
    for index, container in enumerate(containers):
        image = container.get("image") or ""
        if image.startswith(PUBLIC_REGISTRY):
            operations.append({"op": "replace", "path": f"{base}/spec/containers/{index}/image",
                               "value": MIRROR + image.removeprefix(PUBLIC_REGISTRY)})
    if not any(container.get("name") == SIDECAR for container in containers):
        operations.append({"op": "add", "path": f"{base}/spec/containers/-",
                           "value": {"name": SIDECAR, "image": SIDECAR_IMAGE}})
    return operations


class WebhookHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        review = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        request = review["request"]
        response: dict[str, Any] = {"uid": request["uid"], "allowed": True}
        obj = request.get("object") or {}
        path = urlsplit(self.path).path  # the server adds ?timeout=
        if path == "/mutate":
            operations = mesh_patch(obj)
            if operations:
                response["patchType"] = "JSONPatch"
                response["patch"] = base64.b64encode(json.dumps(operations).encode()).decode()
        elif path == "/validate" and DENY_LABEL in ((obj.get("metadata") or {}).get("labels") or {}):
            response = {"uid": request["uid"], "allowed": False,
                        "status": {"code": 403, "reason": "Forbidden",
                                   "message": f"objects labelled {DENY_LABEL} are not allowed here"}}
        self.server.seen.append((path, request["operation"], obj.get("kind")))  # type: ignore[attr-defined]
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _configurations(run_id: str, port: int, ca_bundle: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(collection, body) of the mutating and the validating configuration, for the run's namespace only."""
    client = {"url": "", "caBundle": base64.b64encode(ca_bundle).decode()}
    common = {"namespaceSelector": {"matchLabels": {RUN_LABEL: run_id}}, "sideEffects": "None",
              "admissionReviewVersions": ["v1"], "failurePolicy": "Fail",
              "timeoutSeconds": 30}  # the most a server allows: a loaded CI machine answers slowly
    name = f"patchconf-test-{run_id}"
    mutating = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
                "metadata": {"name": name, "labels": {RUN_LABEL: run_id}},
                "webhooks": [{"name": "inject.mesh.example",
                              "clientConfig": {**client, "url": f"https://127.0.0.1:{port}/mutate"},
                              "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                         "resources": ["pods"]},
                                        {"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
                                         "resources": ["deployments"]}],
                              "reinvocationPolicy": "Never", **common}]}
    validating = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
                  "metadata": {"name": name, "labels": {RUN_LABEL: run_id}},
                  "webhooks": [{"name": "deny.policy.example",
                                "clientConfig": {**client, "url": f"https://127.0.0.1:{port}/validate"},
                                "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""],
                                           "apiVersions": ["v1"], "resources": ["configmaps"]}],
                                **common}]}
    return [(f"{ADMISSION}/mutatingwebhookconfigurations", mutating),
            (f"{ADMISSION}/validatingwebhookconfigurations", validating)]


def _wait_until_effective(cluster: Cluster, namespace: str) -> None:
    """The server picks up webhook configurations asynchronously: wait until both act in the namespace."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"},
           "spec": {"containers": [{"name": "probe", "image": "probe:1"}]}}
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "probe", "labels": {DENY_LABEL: "x"}}}
    deadline = time.monotonic() + READY_SECONDS
    while True:
        injected = cluster.request("POST", f"/api/v1/namespaces/{namespace}/pods", pod, query={"dryRun": "All"})
        refused = cluster.request("POST", f"/api/v1/namespaces/{namespace}/configmaps", config_map,
                                  query={"dryRun": "All"})
        labels = ((injected.body or {}).get("metadata") or {}).get("labels") or {} if injected.ok else {}
        if INJECTED_LABEL in labels and refused.status == 403:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"the webhooks did not take effect in {READY_SECONDS:.0f}s: pod {injected.status} "
                        f"{injected.body}, configmap {refused.status} {refused.body}", pytrace=False)
        time.sleep(0.2)


@pytest.fixture
def webhooks(live, tmp_path: Path) -> Iterator[list[tuple[str, str, str]]]:
    """The webhook server, registered for ``live``'s run namespace; deregistered and stopped afterwards
    whatever happens. Yields the (path, operation, kind) of every review it answered."""
    certificate, key, ca_bundle = _certificates(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), WebhookHandler)
    server.seen = []  # type: ignore[attr-defined]
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    cluster: Cluster = live.cluster
    registered: list[str] = []
    try:
        for collection, body in _configurations(live.run_id, server.server_address[1], ca_bundle):
            answer = cluster.request("POST", collection, body)
            assert answer.ok, f"cannot register {body['kind']}: {answer.status} {answer.body}"
            registered.append(f"{collection}/{body['metadata']['name']}")
        _wait_until_effective(cluster, live.namespace)
        yield server.seen  # type: ignore[attr-defined]
    finally:
        for path in registered:
            cluster.request("DELETE", path)
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    for path in registered:
        assert cluster.request("GET", path).status == 404, f"{path} was not deleted"


# --- the cases -----------------------------------------------------------------------------------


def _corpus_case(case_id: str):
    file, name = case_id.split("::")
    cases, errors = load_file(REPO / file)
    assert not errors
    return next(case for case in cases if case.name == name)


def _changes(result) -> dict[tuple[str, str], dict[str, Any]]:
    return {(fact["change"], fact["pointer"]): fact for fact in result.server_changes}


def test_injected_label_and_sidecar_explain_results(live, webhooks, write_case_file):
    """A merge patch replacing a Deployment's containers fails here: the server renders the expected
    object with the sidecar injected at creation, which the patched object no longer has. The
    result says so; cases the injection does not touch pass, carrying the same facts."""
    template_label = f"/spec/template/metadata/labels{LABEL_POINTER}"
    replaced = run_case(_corpus_case("cases/merge-patch/arrays.yaml::containers-replaced-whole"), live)
    assert replaced.status == FAIL, (replaced.reason, replaced.server_changes)
    assert replaced.diff == (
        'document /spec/template/spec/containers/1: expected {"image": "mesh.example/proxy:1.0", "imagePullPolicy": '
        '"IfNotPresent", "name": "mesh-proxy", "resources": {}, "termin..., got absent',)
    injected = json.dumps({"name": SIDECAR, "image": SIDECAR_IMAGE, "terminationMessagePath": "/dev/termination-log",
                           "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"})
    # the original's two containers had the sidecar appended third; the expected object's one, second
    assert replaced.server_changes == (
        {"change": "added", "pointer": template_label, "value": '"true"', "seen_in": [CREATED, AFTER, RENDERED]},
        {"change": "added", "pointer": "/spec/template/spec/containers/2", "value": injected, "seen_in": [CREATED]},
        {"change": "added", "pointer": "/spec/template/spec/containers/1", "value": injected, "seen_in": [RENDERED]},
    )

    scaled = run_case(_corpus_case("cases/strategic/seed-scenarios.yaml::replicas-zero-keeps-zero"), live)
    assert scaled.status == PASS, (scaled.reason, scaled.server_changes)
    assert {key: fact["seen_in"] for key, fact in _changes(scaled).items()} == {
        ("added", template_label): [CREATED, AFTER, RENDERED],
        ("added", "/spec/template/spec/containers/1"): [CREATED, AFTER, RENDERED],
    }

    pod = run_case(_corpus_case("cases/strategic/merge-lists.yaml::update-second-container-keeps-order"), live)
    assert pod.status == PASS, (pod.reason, pod.server_changes)
    assert set(_changes(pod)) == {("added", f"/metadata/labels{LABEL_POINTER}"), ("added", "/spec/containers/3")}

    mirrored = run_case(load_file(write_case_file("live/mirror.yaml", """
        cases:
          - name: label-added-to-mirrored-pod
            description: a label added to a Pod whose image a policy pointed at a mirror at creation
            type: strategic
            tags: [SMP-MAP]
            provenance:  # patchconf verify --write
              - {implementation: kubectl, version: "1.32.4", via: "kubectl patch --local"}
              - {implementation: upstream, version: "1.32.4", via: "patchconf upstream target (Kubernetes' Go modules)"}
            original:
              apiVersion: v1
              kind: Pod
              metadata: {name: web, labels: {app: web}}
              spec: {containers: [{name: web, image: "docker.io/library/nginx:1.25"}]}
            patch: {metadata: {labels: {tier: front}}}
            expected:
              apiVersion: v1
              kind: Pod
              metadata: {name: web, labels: {app: web, tier: front}}
              spec: {containers: [{name: web, image: "docker.io/library/nginx:1.25"}]}
    """))[0][0], live)
    # the server renders the expected object through the same policy, so the label patch passes; the
    # rewritten image is told apart from what the patch did
    assert mirrored.status == PASS, (mirrored.reason, mirrored.server_changes)
    assert mirrored.server_changes == (
        {"change": "added", "pointer": f"/metadata/labels{LABEL_POINTER}", "value": '"true"',
         "seen_in": [CREATED, AFTER, RENDERED]},
        {"change": "added", "pointer": "/spec/containers/1", "value": injected, "seen_in": [CREATED, AFTER, RENDERED]},
        {"change": "changed", "pointer": "/spec/containers/0/image",
         "value": '"mirror.example/library/nginx:1.25" (sent "docker.io/library/nginx:1.25")',
         "seen_in": [CREATED, RENDERED]},
    )

    untouched = run_case(_corpus_case("cases/merge-patch/nested.yaml::nested-add-label-keeps-others"), live)
    assert untouched.status == PASS, (untouched.reason, untouched.server_changes)
    assert untouched.server_changes == ()

    assert ("/mutate", "CREATE", "Deployment") in webhooks and ("/mutate", "CREATE", "Pod") in webhooks

    report = Run(live.name, live.info, [replaced, scaled, pod, mirrored, untouched])
    text = summary_text(report)
    assert ("server changes (admission, defaulting, policy): 1 of 1 failures and 3 passes ran on objects "
            "the server changed beyond the request") in text
    assert f"      +{template_label} = \"true\" ({CREATED}, {AFTER}, {RENDERED})" in text
    page = markdown(report)
    divergences, changed = page.split("## Failures on objects the server changed (admission, defaulting, policy)")
    assert "None on objects the server left as requested" in divergences
    assert "containers-replaced-whole" in changed and "+/spec/template/spec/containers/1 = {" in changed
    assert "## Passes on objects the server changed" in changed


def test_policy_refusal_explains_failure(live, webhooks, write_case_file):
    """A validating webhook refuses a label: the case fails (the patch was refused) and says by whom."""
    path = write_case_file("live/policy.yaml", """
        cases:
          - name: label-refused-by-policy
            description: a merge patch adds a label this cluster's policy refuses
            type: merge-patch
            tags: [MP-NESTED]
            provenance:  # patchconf verify --write
              - {implementation: kubectl, version: "1.32.4", via: "kubectl patch --local"}
              - {implementation: upstream, version: "1.32.4", via: "patchconf upstream target (Kubernetes' Go modules)"}
            original: {apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {a: "1"}}
            patch: {metadata: {labels: {policy.example/deny: "yes"}}}
            expected:
              apiVersion: v1
              kind: ConfigMap
              metadata: {name: settings, labels: {policy.example/deny: "yes"}}
              data: {a: "1"}
    """)
    cases, errors = load_file(path)
    assert not errors
    result = run_case(cases[0], live)
    assert result.status == FAIL, (result.reason, result.server_changes)
    assert result.reason.startswith("expected success, got error")
    # the server refused the expected object's dry-run and the patch alike, in the same words
    assert result.server_changes == ({
        "change": "refused", "pointer": "",
        "value": f'403 Forbidden: admission webhook "deny.policy.example" denied the request: '
                 f"objects labelled {DENY_LABEL} are not allowed here",
        "seen_in": [RENDERED, REQUEST]},)
    assert ("/validate", "UPDATE", "ConfigMap") in webhooks


# --- offline: facts from managedFields, and how results keep and show them ------------------------


def _managed(fields: dict[str, Any], manager: str = "patchconf-setup") -> list[dict[str, Any]]:
    return [{"manager": manager, "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
             "fieldsV1": fields}]


def test_object_changes_are_what_no_manager_owns():
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "uid": "u", "creationTimestamp": None,
                     "labels": {"app": "web", INJECTED_LABEL: "true"},
                     "managedFields": _managed({
                         "f:metadata": {"f:labels": {".": {}, "f:app": {}}, "f:annotations": {"f:note": {}}},
                         "f:spec": {"f:containers": {'k:{"name":"web"}': {".": {}, "f:name": {}, "f:image": {}}},
                                    "f:nodeSelector": {}}})},
        "spec": {
            "containers": [{"name": "web", "image": "nginx"}, {"name": SIDECAR, "image": SIDECAR_IMAGE}],
            "nodeSelector": {"zone": "a"},  # atomic: owned whole
            "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}],  # DefaultTolerationSeconds: every server's
            "priority": 0,
        },
        "status": {"phase": "Pending"},
    }
    assert object_changes(pod, "patchconf-setup") == [
        ("added", f"/metadata/labels{LABEL_POINTER}", "true"),
        ("added", "/spec/containers/1", {"name": SIDECAR, "image": SIDECAR_IMAGE}),
        ("added", "/spec/securityContext/runAsNonRoot", True),
        ("added", "/spec/securityContext/seccompProfile/type", "RuntimeDefault"),
        ("removed", "/metadata/annotations", None),
    ]
    # another manager's fields are not taken for removed ones; an object without managedFields tells nothing
    assert ("removed", "/metadata/annotations", None) not in object_changes(pod, "someone-else")
    assert object_changes({**pod, "metadata": {"name": "p"}}) == []
    # what every kube-apiserver adds after the field manager is no cluster's doing: a Job's generated
    # selector and labels, null creationTimestamps of the typed round trip
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "j", "managedFields": _managed({"f:spec": {"f:template": {"f:spec": {}}}})},
           "spec": {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}},
                    "template": {"metadata": {"creationTimestamp": None,
                                              "labels": {"job-name": "j", "controller-uid": "u"}},
                                 "spec": {}}}}
    assert object_changes(job) == []


def test_rewritten_values_are_told_from_normal_forms_and_defaults():
    owned = {"f:spec": {"f:containers": {'k:{"name":"web"}': {
        ".": {}, "f:name": {}, "f:image": {}, "f:resources": {"f:limits": {"f:cpu": {}, "f:memory": {}}}}},
        "f:ports": {'k:{"port":80,"protocol":"TCP"}': {".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {}}}}}
    sent = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "web", "image": "docker.io/nginx",
                                    "resources": {"limits": {"cpu": "0.5", "memory": "1Gi"}}}],
                     "ports": [{"port": 80, "protocol": "TCP", "targetPort": 0}]}}
    stored = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "managedFields": _managed(owned)},
              "spec": {"containers": [{"name": SIDECAR, "image": SIDECAR_IMAGE},  # injected first: no shift
                                      {"name": "web", "image": "mirror.example/nginx",
                                       "resources": {"limits": {"cpu": "500m", "memory": "1073741824"}}}],
                       "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]}}
    assert object_changes(stored, "patchconf-setup", sent) == [
        ("added", "/spec/containers/0", {"name": SIDECAR, "image": SIDECAR_IMAGE}),
        ("changed", "/spec/containers/1/image", '"mirror.example/nginx" (sent "docker.io/nginx")'),
    ]


def test_refusal_is_told_from_validation():
    assert refusal(400, "BadRequest", 'admission webhook "x" denied the request: no') == (
        '400 BadRequest: admission webhook "x" denied the request: no')
    assert refusal(403, "Forbidden", "configmaps is forbidden: exceeded quota") == (
        "403 Forbidden: configmaps is forbidden: exceeded quota")
    assert refusal(422, "Invalid", "Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1") is None


class ChangedTarget(ScriptedTarget):
    """A scripted target whose server changed the object of case ``bad`` and of case ``good``."""

    def server_changes(self, case, actual):
        if case.name in ("bad", "good"):
            return ({"change": "added", "pointer": "/metadata/labels/injected", "value": '"yes"',
                     "seen_in": [CREATED]},)
        return ()


def test_results_keep_server_changes_apart_from_the_verdict(write_case_file, tmp_path):
    cases, _ = load_file(write_case_file("json-patch/changed.yaml", """
        defaults: {type: json-patch, tags: [JP-REPLACE], provenance: [{implementation: kubectl, version: "1.32.4"}]}
        cases:
          - {name: good, description: d, original: {a: 1}, patch: [{op: replace, path: /a, value: 2}], expected: {a: 2}}
          - {name: bad, description: d, original: {a: 1}, patch: [{op: replace, path: /a, value: 2}], expected: {a: 2}}
          - {name: plain, description: d, original: {a: 1}, patch: [{op: add, path: /a, value: 2}], expected: {a: 2}}
    """))
    target = ChangedTarget({"good": Actual(document={"a": 2}), "bad": Actual(document={"a": 3}),
                            "plain": Actual(document={"a": 3})})
    results = run_cases(cases, target)
    assert [(r.status, len(r.server_changes)) for r in results] == [(PASS, 1), (FAIL, 1), (FAIL, 0)]
    run = Run("scripted", target.info, results)
    log = ResultsLog(tmp_path / "results.jsonl", run, planned=3)
    for index, result in enumerate(results):
        log.write(index, result)
    log.end(0.1, None)
    again = read_log(tmp_path / "results.jsonl")
    assert [r.server_changes for r in again.results] == [r.server_changes for r in results]
    assert again.to_json()["server_changed"] == {"pass": 1, "fail": 1}
    page = markdown(again)
    head, changed = page.split("## Failures on objects the server changed (admission, defaulting, policy)")
    divergences = head.split("\n## Divergences\n")[1]  # the page leads with the worst departures, bad's among them
    assert "changed.yaml::plain" in divergences and "changed.yaml::bad" not in divergences
    assert "changed.yaml::bad" in changed
    assert '  +/metadata/labels/injected = "yes" (original as created)' in changed
    assert "- cases/json-patch/changed.yaml::good: +/metadata/labels/injected" in changed.replace("\\", "")
    text = summary_text(again)
    assert ("server changes (admission, defaulting, policy): 1 of 2 failures and 1 passes ran on objects "
            "the server changed beyond the request") in text
    summary = json.loads(summary_json(again))
    assert summary["server_changed"] == {"pass": 1, "fail": 1}
    assert [failure.get("server_changed", False) for failure in summary["failures"]] == [True, False]
    assert ("- fail `cases/json-patch/changed.yaml::bad`: document /a: expected 2, got 3 (on an object the server "
            "changed: admission, policy)") in summary_markdown(again)
    junit = junit_xml(again)
    assert '+/metadata/labels/injected = "yes" (original as created)' in junit.replace("&quot;", '"')
