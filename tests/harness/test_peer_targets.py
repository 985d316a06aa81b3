"""The Go peer targets (peer:NAME, targets/peers/): built on first use, run through the protocol.

Each peer is built once (kyaml takes about a minute cold, controller-runtime several) and a
few cases are run with the exact status each gets - the library's real answers, including
answers the corpus judges wrong, which must come back as failures. The server-side apply
fakes run tests/harness/data/ssa_fake_cases.yaml, whose expectations a real kube-apiserver
gave. Those tests skip where Go is not installed.
"""

from __future__ import annotations

import gc
import shutil
import textwrap
import threading
import time
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import load_corpus
from patchconf.harness.running.runner import FAIL, PASS, SKIP, run_case
from patchconf.harness.targets import TargetUnavailable, make_target
from tests.fixtures.corpus import cases_by_id

needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed: peers are Go programs")

JP_A1 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a1-adding-an-object-member"
JP_REMOVE_MISSING = "cases/json-patch/remove.yaml::remove-missing-member"
JP_NEGATIVE_INDEX = "cases/json-patch/add.yaml::add-array-negative-index-appends"
JP_NON_NUMERIC_INDEX = "cases/json-patch/add.yaml::add-array-index-non-numeric"
MP_BIG_INT = "cases/merge-patch/types.yaml::large-integer-preserved"
MP_CREATE_MISMATCH = "cases/merge-patch-2way/create.yaml::create-array-and-object-rejected"
SMP_UPDATE_IMAGE = "cases/strategic/merge-lists.yaml::update-container-image-in-place"
SMP_ADD_CONTAINER = "cases/strategic/merge-lists.yaml::add-container-is-prepended"
SMP_FLOAT_ZERO_FRACTION = "cases/strategic/numbers.yaml::float-with-zero-fraction-becomes-integer"
SMP_LIST_PATCHED_WITH_MAPS = "cases/strategic/type-changes.yaml::primitive-merge-list-patched-with-maps"


REPO = Path(__file__).resolve().parents[2]
SSA_FAKE_CASES = Path(__file__).parent / "data" / "ssa_fake_cases.yaml"
SSA_FORCE = "apply-creates-conflict-then-force"
SSA_UPDATE_TAKES = "update-takes-ownership-then-apply-conflicts"
SSA_NOOP = "reapplying-the-same-configuration-writes-nothing"
USED = (JP_A1, JP_REMOVE_MISSING, JP_NEGATIVE_INDEX, JP_NON_NUMERIC_INDEX, MP_BIG_INT, MP_CREATE_MISMATCH,
        SMP_UPDATE_IMAGE, SMP_ADD_CONTAINER, SMP_FLOAT_ZERO_FRACTION, SMP_LIST_PATCHED_WITH_MAPS)


@pytest.fixture(scope="module")
def corpus_cases():
    return cases_by_id(USED)


@pytest.fixture(scope="module")
def json_patch_v5():
    target = make_target("peer:evanphx-json-patch-v5")
    yield target
    target.close()


@pytest.fixture(scope="module")
def kyaml():
    target = make_target("peer:kustomize-kyaml")
    yield target
    target.close()


@needs_go
def test_json_patch_v5_declares_the_rfc_profile_and_its_module_version(json_patch_v5):
    info = json_patch_v5.info
    assert json_patch_v5.name == "peer:evanphx-json-patch-v5"
    assert info.family == "evanphx-json-patch-v5"
    assert info.profile == "rfc"
    assert info.messages is False
    assert info.patch_types == {"json-patch", "merge-patch", "merge-patch-2way"}
    assert info.version.startswith("v5.")


@needs_go
@pytest.mark.parametrize(("case_id", "status", "judged_by"), [
    (JP_A1, PASS, "case"),
    (JP_REMOVE_MISSING, PASS, "case"),  # ErrMissing is path-not-found
    (JP_NON_NUMERIC_INDEX, PASS, "case"),  # the strconv.Atoi failure is an invalid index
    (MP_BIG_INT, PASS, "case"),  # lazy decoding keeps the integer's text
    # Its profile is RFC 7396's, by which the modified object itself is a patch from an array (the
    # case's profiles.rfc); like Kubernetes it refuses: "Mismatched JSON Documents".
    (MP_CREATE_MISMATCH, FAIL, "profile rfc"),
    # Its default options accept a negative index, where RFC 6902 (its profile) refuses one.
    (JP_NEGATIVE_INDEX, FAIL, "profile rfc"),
    (SMP_UPDATE_IMAGE, SKIP, "case"),
])
def test_json_patch_v5_answers(json_patch_v5, corpus_cases, case_id, status, judged_by):
    result = run_case(corpus_cases[case_id], json_patch_v5)
    assert (result.status, result.judged_by if result.status != SKIP else "case") == (status, judged_by), result.reason
    if case_id == JP_NEGATIVE_INDEX:
        assert result.reason == "expected error 'invalid-index', got success: {\"foo\": [\"a\", \"b\", \"c\", \"x\"]}"
    if status == SKIP:
        assert result.reason == "peer:evanphx-json-patch-v5 does not run 'strategic' cases"


@needs_go
def test_kyaml_declares_strategic_only_with_builtin_schemas(kyaml):
    info = kyaml.info
    assert info.family == "kustomize-kyaml"
    assert info.profile == "kubernetes"
    assert info.patch_types == {"strategic"}
    assert info.schemas == {"builtin"}


@needs_go
@pytest.mark.parametrize(("case_id", "status"), [
    (SMP_UPDATE_IMAGE, PASS),
    (SMP_ADD_CONTAINER, PASS),  # kustomize merges with ListIncreaseDirection: prepend, as Kubernetes does
    (SMP_LIST_PATCHED_WITH_MAPS, PASS),  # "wrong node kind" is type-mismatch
    # kyaml keeps the scalar's text 30.0 where Kubernetes' typed decoding writes 30.
    (SMP_FLOAT_ZERO_FRACTION, FAIL),
    (JP_A1, SKIP),
])
def test_kyaml_answers(kyaml, corpus_cases, case_id, status):
    result = run_case(corpus_cases[case_id], kyaml)
    assert result.status == status, result.reason
    if case_id == SMP_FLOAT_ZERO_FRACTION:
        assert result.diff == ("document /spec/terminationGracePeriodSeconds: expected 30, got 30.0 (int vs float)",)


@pytest.fixture(scope="module")
def ssa_cases():
    corpus = load_corpus([SSA_FAKE_CASES])
    assert not corpus.errors, corpus.errors
    return {case.name: case for case in corpus.cases}


@pytest.fixture(scope="module")
def client_go_fake():
    target = make_target("peer:client-go-fake")
    yield target
    target.close()


@pytest.fixture(scope="module")
def controller_runtime_fake():
    target = make_target("peer:controller-runtime-fake")
    yield target
    target.close()


@needs_go
def test_client_go_fake_declares_server_side_apply_on_builtin_kinds(client_go_fake):
    info = client_go_fake.info
    assert client_go_fake.name == "peer:client-go-fake"
    assert info.family == "client-go-fake"
    assert info.patch_types == {"server-side-apply"}
    # "none": a case that starts with no object names its kind only in its steps
    assert info.schemas == {"builtin", "none"}
    assert info.messages is True
    assert info.version == "v0.33.13"
    assert client_go_fake.timeout == 60.0


@needs_go
@pytest.mark.parametrize(("name", "status"), [
    (SSA_FORCE, PASS),
    (SSA_UPDATE_TAKES, PASS),
    # The fake's tracker stores every successful request and its watch delivers an event
    # for it; a server does not write a no-op apply.
    (SSA_NOOP, FAIL),
])
def test_client_go_fake_answers(client_go_fake, ssa_cases, name, status):
    result = run_case(ssa_cases[name], client_go_fake)
    assert result.status == status, result.reason
    if name == SSA_NOOP:
        assert result.diff == ("step 2: expected changed=False, got changed=True",)


@needs_go
def test_client_go_fake_reports_steps_times_and_conflicts(client_go_fake, ssa_cases):
    steps = client_go_fake.run(ssa_cases[SSA_FORCE]).document["steps"]
    assert steps[0] == {
        "document": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1", "b": "x"}},
        "managed_fields": [{"manager": "alice", "operation": "Apply", "apiVersion": "v1", "time": 1,
                            "fieldsV1": {"f:data": {"f:a": {}, "f:b": {}}}}],
        "changed": True,
    }
    assert steps[1] == {"error": {
        "class": "conflict", "message": 'Apply failed with 1 conflict: conflict with "alice": .data.a',
        "status": 409, "reason": "Conflict", "conflicts": [{"manager": "alice", "field": ".data.a"}]}}
    assert [entry["time"] for entry in steps[2]["managed_fields"]] == [1, 3]


@needs_go
def test_client_go_fake_skips_kinds_outside_its_scheme(client_go_fake):
    from patchconf.harness.corpus.cases import Case, Outcome

    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    case = Case(file="t.yaml", name="widget", description="", type="server-side-apply", tags=(),
                inputs={"steps": [{"op": "apply", "manager": "a", "object": widget}]},
                outcome=Outcome(document={"steps": [{}]}), provenance=())
    result = run_case(case, client_go_fake)
    assert result.status == SKIP
    assert result.reason == ("declined by the target: example.com/v1, Kind=Widget is not a kind of client-go's "
                             "scheme: the fake clientset serves built-in kinds only")


@needs_go
def test_controller_runtime_fake_declares_server_side_apply(controller_runtime_fake):
    info = controller_runtime_fake.info
    assert info.family == "controller-runtime-fake"
    assert info.patch_types == {"server-side-apply"}
    assert info.schemas == {"builtin", "named", "none"}
    assert info.version.startswith("v0.")


@needs_go
@pytest.mark.parametrize(("name", "status"), [
    (SSA_FORCE, PASS),
    (SSA_UPDATE_TAKES, PASS),
    # Its tracker gives every write a new resourceVersion, the apply's too, so the field
    # manager sees a changed object and stamps a new time where a server writes nothing.
    (SSA_NOOP, FAIL),
])
def test_controller_runtime_fake_answers(controller_runtime_fake, ssa_cases, name, status):
    result = run_case(ssa_cases[name], controller_runtime_fake)
    assert result.status == status, result.reason
    if name == SSA_NOOP:
        assert result.diff == (
            "step 2: managedFields /0/time: expected 1, got 2",
            "step 2: expected changed=False, got changed=True",
        )


def test_an_unknown_peer_names_the_known_ones():
    from patchconf.harness.targets.peer import PEERS_DIR

    known = sorted(path.name for path in PEERS_DIR.iterdir() if (path / "go.mod").is_file())
    assert {"client-go-fake", "evanphx-json-patch-v5", "kustomize-kyaml"} <= set(known)
    with pytest.raises(TargetUnavailable) as raised:
        make_target("peer:nope")
    assert str(raised.value).startswith("no peer 'nope' in ")
    assert str(raised.value).endswith("; known peers: " + ", ".join(known))


def test_a_peer_without_a_name_is_refused():
    with pytest.raises(TargetUnavailable, match="give a peer name"):
        make_target("peer:")


def test_without_go_a_peer_is_unavailable_with_the_reason(monkeypatch, tmp_path):
    import patchconf.harness.targets.upstream as upstream

    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path))
    monkeypatch.setattr(upstream.shutil, "which", lambda name: None)
    with pytest.raises(TargetUnavailable, match="Go is not installed"):
        make_target("peer:kustomize-kyaml")


@needs_go
def test_the_go_peer_kit_passes_its_own_tests():
    """targets/peerkit: the protocol loop every Go peer runs (handshake, panics, bad lines)."""
    import subprocess

    done = subprocess.run(["go", "test", "-count=1", "./..."], cwd=REPO / "targets" / "peerkit",
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_tool_on_a_server_gets_the_kubeconfig_given_or_a_control_plane_started_and_stopped_for_it(
        tmp_path, monkeypatch):
    import stat
    import sys
    from types import SimpleNamespace

    from patchconf.harness.controlplane import apiserver
    from patchconf.harness.targets import peer

    program = tmp_path / "tool"
    program.write_text(f"#!{sys.executable}\n" + textwrap.dedent("""\
        import json, os, sys
        sys.stdin.readline()
        name = os.environ.get("PATCHCONF_KUBECONFIG", "none")
        print(json.dumps({"ready": True, "protocol": 1, "implementation": {"name": name, "version": "1"},
                          "capabilities": {"patch_types": ["server-side-apply"], "schemas": ["builtin"]}}),
              flush=True)
        sys.stdin.readline()
    """))
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(peer, "build", lambda name, version=None: program)
    monkeypatch.delenv("PATCHCONF_KUBECONFIG", raising=False)
    planes = []

    def start(kubeconfig):
        kubeconfig.write_text("apiVersion: v1\n")
        planes.append(SimpleNamespace(kubeconfig=kubeconfig, stopped=False))
        return planes[-1]

    monkeypatch.setattr(apiserver, "start", start)
    monkeypatch.setattr(apiserver, "stop", lambda plane: setattr(plane, "stopped", True))

    given = peer.PeerTarget("flux-ssa", kubeconfig="/somewhere/kubeconfig")
    given.close()
    started = peer.PeerTarget("flux-ssa")
    assert [plane.stopped for plane in planes] == [False]
    started.close()
    library = peer.PeerTarget("evanphx-json-patch-v5")
    library.close()
    assert given.info.description.startswith("/somewhere/kubeconfig ")
    assert started.info.description.startswith(f"{planes[0].kubeconfig} ")
    assert library.info.description.startswith("none ")
    assert [plane.stopped for plane in planes] == [True]
    assert not planes[0].kubeconfig.parent.exists()
    unclosed = peer.PeerTarget("helm-v4")  # a script that never closes it: collected, its plane is stopped
    threads = threading.active_count()
    process = next(iter(unclosed._running)).process
    del unclosed
    gc.collect()
    assert [plane.stopped for plane in planes] == [True, True]
    assert not planes[1].kubeconfig.parent.exists()
    assert process.wait(timeout=10) is not None  # and its program ended, with the thread reading it
    deadline = time.monotonic() + 10
    while threading.active_count() >= threads and time.monotonic() < deadline:
        time.sleep(0.02)
    assert threading.active_count() < threads
