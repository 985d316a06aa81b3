"""Helm as a target: helm upgrade's patching through Helm's own kube client, Helm 3
(peer:helm-v3, helm.sh/helm/v3 v3.22.0) and Helm 4 (peer:helm-v4, helm.sh/helm/v4 v4.3.1), on a
few corpus cases.

Client-side (Helm 3, and Helm 4 with --server-side=false): Client.Update against the peer's
loopback endpoint, the answer the PATCH Helm sent and the object after it. Server-side (Helm 4's
default): Client.Update with server-side apply on a kube-apiserver, $PATCHCONF_KUBECONFIG when
set, else the test session's control plane. The patches and objects asserted are Helm's own
answers, its departures from kubectl apply included. Each test skips where Go is not installed.
"""

from __future__ import annotations

import os
import shutil

import pytest

from patchconf.harness.running.runner import FAIL, PASS, SKIP, run_case
from patchconf.harness.targets import make_target
from patchconf.harness.targets.peer import PeerTarget
from tests.fixtures.corpus import cases_by_id, peer_kubeconfig

# The tools' Go builds take minutes each on a cold machine: their tests run where the tools are
# measured (tox -e compliance sets PATCHCONF_TOOL_TESTS=1), not in every tox.
needs_go = pytest.mark.skipif(
    shutil.which("go") is None or os.environ.get("PATCHCONF_TOOL_TESTS") != "1",
    reason="the Helm peers are Go programs built on first use: run with Go and PATCHCONF_TOOL_TESTS=1 "
           "(tox -e compliance)")

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

KEY_RENAMED = "cases/apply/configmaps.yaml::key-renamed"
CUSTOM_DRIFT = "cases/apply/crd.yaml::drift-reverted"
NOT_IN_RELEASE = "cases/apply/no-annotation.yaml::key-not-in-file-not-deleted"
ANNOTATIONS_DROPPED = "cases/apply/metadata.yaml::annotations-map-dropped-deletes-only-applied-keys"
OVERWRITE_FALSE = "cases/apply/conflict.yaml::changed-file-conflicts-on-annotation"
CONFIG_WINS = "cases/merge-patch-3way/three-way.yaml::3way-config-change-wins-over-live-change"
LIVE_DRIFT = "cases/merge-patch-3way/three-way.yaml::3way-live-drift-reverted"
BOTH_SIDES = "cases/strategic-3way/overwrite.yaml::scalar-changed-both-sides-overwrite"

FIRST_APPLY = "cases/server-side-apply/ownership.yaml::configmap-first-apply-owns-what-it-sent"
FORCE_TAKES = "cases/server-side-apply/ownership.yaml::configmap-second-applier-force-takes-field"
OTHER_VALUE_CONFLICTS = "cases/server-side-apply/ownership.yaml::configmap-second-applier-other-value-conflicts"

USED = (KEY_RENAMED, CUSTOM_DRIFT, NOT_IN_RELEASE, ANNOTATIONS_DROPPED, OVERWRITE_FALSE, CONFIG_WINS, LIVE_DRIFT,
        BOTH_SIDES, FIRST_APPLY, FORCE_TAKES, OTHER_VALUE_CONFLICTS)


@pytest.fixture(scope="module")
def corpus_cases():
    return cases_by_id(USED)


@pytest.fixture(scope="module")
def helm3():
    target = make_target("peer:helm-v3")
    yield target
    target.close()


@pytest.fixture(scope="module")
def helm4(request):
    """The Helm 4 peer on $PATCHCONF_KUBECONFIG's server, else the session's control plane."""
    kubeconfig = peer_kubeconfig(request)
    target = PeerTarget("helm-v4", kubeconfig=kubeconfig)
    yield target
    target.close()


@pytest.fixture(params=["helm3", "helm4"])
def client_side(request):
    """Either Helm's client-side update: Helm 3's only one, Helm 4's --server-side=false."""
    return request.getfixturevalue(request.param)


@needs_go
def test_helm3_declares_its_client_side_flows_as_a_tool_of_kubernetes_1_37(helm3):
    info = helm3.info
    assert helm3.name == "peer:helm-v3"
    assert (info.family, info.version, info.category) == ("helm-v3", "v3.22.0", "tool")
    assert info.kubernetes_version == "1.37.0"
    assert info.patch_types == {"apply", "strategic-3way", "merge-patch-3way"}
    assert info.messages is False


@needs_go
def test_helm4_declares_server_side_apply_beside_the_client_side_flows(helm4):
    info = helm4.info
    assert (info.family, info.version, info.category) == ("helm-v4", "v4.3.1", "tool")
    assert info.kubernetes_version == "1.37.1"
    assert info.patch_types == {"server-side-apply", "apply", "strategic-3way", "merge-patch-3way"}
    assert info.schemas == {"builtin", "none"}


@needs_go
@pytest.mark.parametrize("case_id", [CONFIG_WINS, BOTH_SIDES])
def test_helm_patches_as_the_three_way_merge_does(client_side, corpus_cases, case_id):
    result = run_case(corpus_cases[case_id], client_side)
    assert result.status == PASS, result.reason


@needs_go
def test_helm_makes_kubectls_change_without_its_annotation(client_side, corpus_cases):
    result = run_case(corpus_cases[KEY_RENAMED], client_side)
    # Judged on the object, with the annotation apart: the object and the request are kubectl's.
    assert result.status == PASS, result.reason
    assert result.diff == ()
    # The rename is the patch kubectl sends, less kubectl's last-applied annotation: Helm keeps
    # its previous manifest in the release, not on the object.
    assert result.actual["patch"] == {"data": {"log-level": "info", "log_level": None}}
    assert result.actual["document"] == {"apiVersion": "v1", "kind": "ConfigMap", "data": {"log-level": "info"},
                                         "metadata": {"name": "settings", "namespace": "default"}}
    assert result.aspects == {"object": "same", "request": "same", "annotation": "missing",
                              "annotation_text": "missing", "notes": ["last-applied annotation: none written"]}


@needs_go
@pytest.mark.parametrize("case_id", [CUSTOM_DRIFT, LIVE_DRIFT])
def test_helm_leaves_drift_on_a_custom_resource(client_side, corpus_cases, case_id):
    # Unchanged manifests give a two-way JSON merge patch of {} for a kind outside Helm's scheme:
    # the live change stays (helm/helm#9937); kubectl's three-way patch reverts it.
    result = run_case(corpus_cases[case_id], client_side)
    assert result.status == FAIL
    assert result.actual["patch"] == {}
    assert result.actual["document"]["spec"] == corpus_cases[case_id].inputs["current"]["spec"]


@needs_go
def test_helm_takes_the_live_object_as_baseline_for_an_object_not_in_the_release(client_side, corpus_cases):
    # No previous manifest: Update's baseline is the live object, so what only the live object
    # has is deleted (kubectl, with no annotation to go by, deletes nothing).
    result = run_case(corpus_cases[NOT_IN_RELEASE], client_side)
    assert result.status == FAIL
    assert result.actual["patch"] == {"data": {"debug": None}}
    assert result.actual["document"]["data"] == {"mode": "fast"}


@needs_go
def test_helm_drops_every_annotation_when_the_manifest_has_none(client_side, corpus_cases):
    # kubectl's configuration always holds an annotations map (its own annotation), so it
    # deletes only the keys it applied; Helm's manifest has none, and its patch deletes the map,
    # with the annotation another client added.
    result = run_case(corpus_cases[ANNOTATIONS_DROPPED], client_side)
    assert result.status == FAIL
    assert result.actual["patch"] == {"metadata": {"annotations": None}}
    assert result.actual["document"] == {"apiVersion": "v1", "kind": "ConfigMap", "data": {"mode": "fast"},
                                         "metadata": {"name": "settings", "namespace": "default"}}


@needs_go
def test_helm_has_no_overwrite_false(client_side, corpus_cases):
    result = run_case(corpus_cases[OVERWRITE_FALSE], client_side)
    assert (result.status, result.reason) == (SKIP, "the case needs the overwrite=false mode, which the target lacks")


@needs_go
@pytest.mark.parametrize("case_id", [FIRST_APPLY, FORCE_TAKES, OTHER_VALUE_CONFLICTS])
def test_helm4_applies_server_side_as_a_client_does(helm4, corpus_cases, case_id):
    result = run_case(corpus_cases[case_id], helm4)
    assert result.status == PASS, result.reason


@needs_go
def test_helm4_conflict_is_the_servers_in_helms_words(helm4, corpus_cases):
    result = run_case(corpus_cases[OTHER_VALUE_CONFLICTS], helm4)
    error = result.actual["document"]["steps"][1]["error"]
    assert error == {"class": "conflict", "status": 409, "reason": "Conflict",
                     "message": "conflict occurred while applying object default/cm /v1, Kind=ConfigMap: "
                                "Apply failed with 1 conflict: conflict with \"alice\": .data.mode",
                     "conflicts": [{"manager": "alice", "field": ".data.mode"}]}
