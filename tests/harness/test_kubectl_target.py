"""The kubectl target against the machine's real kubectl (skipped, with the reason, without one)."""

import shutil

import pytest

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.running.runner import PASS, SKIP, run_cases
from patchconf.harness.targets.kubectl import KubectlTarget, classify_error
from tests.harness.corpus_snippets import case_file

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")

CASES = case_file("""
      - name: object
        description: a Kubernetes object, patched as it is
        original: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo}, data: {a: "1"}}
        patch: [{op: add, path: /data/b, value: "2"}]
        expected: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo}, data: {a: "1", b: "2"}}
      - name: bare
        description: a bare document, enveloped
        original: {foo: [bar]}
        patch: [{op: add, path: /foo/5, value: x}]
        expected_error: {class: invalid-index, message: "error in add for path: '/foo/5'"}
      - name: root
        description: a root operation cannot be enveloped
        original: {foo: 1}
        patch: [{op: replace, path: "", value: 2}]
        expected: 2
      - name: fragment-pointer
        description: a pointer without a leading / cannot be prefixed inside an envelope
        original: {a: 0}
        patch: [{op: move, from: /a, path: "#/a"}]
        expected: {a: 0}
      - name: merge
        description: merge patch enveloped
        type: merge-patch
        tags: [MP-NULL]
        original: {a: 1, b: 2}
        patch: {a: null}
        expected: {b: 2}
      - name: strategic-custom
        description: strategic merge on an unknown kind
        type: strategic
        tags: [SMP-NO-SCHEMA]
        original: {apiVersion: example.com/v1, kind: Foo, metadata: {name: x}}
        patch: {spec: {a: 1}}
        expected_error: {class: no-strategic-schema, message: "strategic merge patch is not supported"}
""")


def test_kubectl_runs_objects_and_enveloped_documents(write_case_file):
    cases, errors = load_file(write_case_file("json-patch/kubectl.yaml", CASES))
    assert errors == []
    target = KubectlTarget()
    try:
        results = run_cases(cases, target)
    finally:
        target.close()
    assert target.info.family == "kubectl" and target.info.version.count(".") == 2
    assert {r.case.name: r.status for r in results} == {
        "object": PASS, "bare": PASS, "root": SKIP, "fragment-pointer": SKIP, "merge": PASS,
        "strategic-custom": PASS}
    bare = next(r for r in results if r.case.name == "bare")
    assert bare.actual["notes"] == ["enveloped"]
    assert "/doc/" not in bare.actual["error"]["message"]


def test_explicit_binary_path_and_missing_binary():
    from patchconf.harness.targets.base import TargetUnavailable

    binary = shutil.which("kubectl")
    assert KubectlTarget(binary).name == f"kubectl:{binary}"
    with pytest.raises(TargetUnavailable, match="not found"):
        KubectlTarget("/nonexistent/kubectl")


@pytest.mark.parametrize(("message", "error_class"), [
    ("error in remove for path: '/x': Unable to remove nonexistent key: x: missing value", "path-not-found"),
    ("error in add for path: '/foo/3': Unable to access invalid index: 3: invalid index referenced", "invalid-index"),
    ("testing value /n failed: test failed", "test-failed"),
    ("Unexpected kind: bogus", "invalid-patch"),
    ("strategic merge patch is not supported for example.com/v1, Kind=Foo locally, try --type merge",
     "no-strategic-schema"),
    ("map: map[image:b] does not contain declared merge key: name", "merge-key-missing"),
    ("unknown patch type: bogus in map: map[$patch:bogus $retainKeys:[]]", "invalid-directive"),
    ("invalid patch format of retainKeys: map[$retainKeys:1]", "retain-keys-violation"),
    # kubectl 1.32.4 (fuzz --seed 8314462, input 140); upstream classifies it invalid-directive
    ("The order in patch list:\n[map[env:[map[$retainKeys:[]]] name:b] map[]]\n doesn't match $setElementOrder list:\n"
     "[map[name:b]]", "invalid-directive"),
    ("something nobody expected", "unclassified"),
])
def test_error_classifier_on_real_messages(message, error_class):
    assert classify_error(message) == error_class
