"""The GitOps tools as targets: Argo CD's diff (peer:argocd-gitops-engine) and Flux's resource
manager (peer:flux-ssa), each on a few corpus cases through the real tool.

Argo CD's answer is gitops-engine v0.7.3's PredictedLive for `apply` cases, judged on the
document alone against the expectation as Argo CD's own normalization shows it; Flux's is
fluxcd/pkg/ssa v0.78.0's ResourceManager.Apply on a kube-apiserver: $PATCHCONF_KUBECONFIG
when set, else the test session's control plane (tests/conftest.py's live_kubeconfig). The
statuses and differences asserted are the tools' own answers, departures from kubectl and
from a client's server-side apply included. Each test skips where Go is not installed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import load_corpus
from patchconf.harness.running.runner import FAIL, PASS, SKIP, run_case
from patchconf.harness.targets import make_target
from patchconf.harness.targets.peer import PeerTarget
from tests.fixtures.corpus import cases_by_id, peer_kubeconfig

# The tools' Go builds take minutes each on a cold machine: their tests run where the tools are
# measured (tox -e compliance sets PATCHCONF_TOOL_TESTS=1), not in every tox.
needs_go = pytest.mark.skipif(
    shutil.which("go") is None or os.environ.get("PATCHCONF_TOOL_TESTS") != "1",
    reason="the tool peers are Go programs built on first use: run with Go and PATCHCONF_TOOL_TESTS=1 "
           "(tox -e compliance)")

REPO = Path(__file__).resolve().parent.parent
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

KEY_RENAMED = "cases/apply/configmaps.yaml::key-renamed"
ANNOTATIONS_DROPPED = "cases/apply/metadata.yaml::annotations-map-dropped-deletes-only-applied-keys"
OVERWRITE_FALSE = "cases/apply/conflict.yaml::changed-file-conflicts-on-annotation"
CONTAINER_ADDED = "cases/apply/lists.yaml::container-added"
CUSTOM_LIVE_ONLY = "cases/apply/crd.yaml::live-only-fields-kept"
DRIFT_REVERTED = "cases/apply/overwrite.yaml::image-drift-reverted"
SECOND_APPLY = "cases/apply/roundtrip.yaml::second-apply-sends-nothing"

FIRST_APPLY = "cases/server-side-apply/ownership.yaml::configmap-first-apply-owns-what-it-sent"
FORCE_TAKES = "cases/server-side-apply/ownership.yaml::configmap-second-applier-force-takes-field"
OTHER_VALUE_CONFLICTS = "cases/server-side-apply/ownership.yaml::configmap-second-applier-other-value-conflicts"
NEW_CO_OWNER = "cases/server-side-apply/noop.yaml::configmap-new-co-owner-is-a-change"
DEPLOYMENT_BY_APPLY = ("cases/server-side-apply/defaulted.yaml::"
                       "deployment-create-by-apply-applier-owns-only-what-it-sent")

USED = (KEY_RENAMED, ANNOTATIONS_DROPPED, OVERWRITE_FALSE, CONTAINER_ADDED, CUSTOM_LIVE_ONLY, DRIFT_REVERTED,
        SECOND_APPLY, FIRST_APPLY,
        FORCE_TAKES, OTHER_VALUE_CONFLICTS, NEW_CO_OWNER, DEPLOYMENT_BY_APPLY)


@pytest.fixture(scope="module")
def corpus_cases():
    return cases_by_id(USED)


@pytest.fixture(scope="module")
def argocd():
    target = make_target("peer:argocd-gitops-engine")
    yield target
    target.close()


@pytest.fixture(scope="module")
def flux(request):
    """The Flux peer on $PATCHCONF_KUBECONFIG's server, else the session's control plane."""
    kubeconfig = peer_kubeconfig(request)
    target = PeerTarget("flux-ssa", kubeconfig=kubeconfig)
    yield target
    target.close()


@needs_go
def test_argocd_declares_apply_as_a_tool_of_kubernetes_1_23(argocd):
    info = argocd.info
    assert argocd.name == "peer:argocd-gitops-engine"
    assert (info.family, info.version, info.category) == ("argocd-gitops-engine", "v0.7.3", "tool")
    assert info.kubernetes_version == "1.23.1"
    assert info.patch_types == {"apply"}
    assert info.messages is False
    # It predicts the object only, and shows expectations through its own normalization.
    assert info.answers == {"document"}
    assert info.renders is True


@needs_go
@pytest.mark.parametrize("case_id", [DRIFT_REVERTED, SECOND_APPLY])
def test_argocd_predicts_what_kubectl_leaves_as_it_compares_objects(argocd, corpus_cases, case_id):
    # Judged on the document, the expectation defaulted by Argo CD's scheme as NormalizedLive is.
    result = run_case(corpus_cases[case_id], argocd)
    assert result.status == PASS, result.reason
    assert result.judged_by == ("case; expectation as the target renders it; without the created patch "
                                "(the target answers the resulting document only); apply: on the object, "
                                "the request and last-applied annotation apart")


@needs_go
def test_argocd_predicts_the_change_but_not_the_new_annotation(argocd, corpus_cases):
    result = run_case(corpus_cases[KEY_RENAMED], argocd)
    # Judged on the object, the annotation apart: the object passes, the annotation's content differs.
    assert result.status == PASS, result.reason
    assert result.aspects == {"object": "same", "annotation": "different", "annotation_text": "different",
                              "notes": ['last-applied annotation content /data: expected {"log-level": "info"}, '
                                        'got {"log_level": "info"}']}
    document = result.actual["document"]
    # The rename itself is predicted as kubectl makes it.
    assert document["data"] == {"log-level": "info"}
    # The live object's last-applied annotation stays the old one, as kubectl wrote it: Argo CD
    # never writes it, where kubectl writes the new file there.
    assert document["metadata"]["annotations"][LAST_APPLIED] == (
        '{"apiVersion":"v1","data":{"log_level":"info"},"kind":"ConfigMap",'
        '"metadata":{"annotations":{},"name":"settings","namespace":"default"}}\n')


@needs_go
def test_argocd_predicts_every_annotation_gone_when_the_config_has_none(argocd, corpus_cases):
    # kubectl's configuration always carries an annotations map (its own annotation), so it
    # deletes only the keys last-applied had; Argo CD's config has none, and its three-way
    # patch deletes the whole map, the annotation another client added with it.
    result = run_case(corpus_cases[ANNOTATIONS_DROPPED], argocd)
    assert result.status == FAIL
    assert result.actual["document"] == {"apiVersion": "v1", "kind": "ConfigMap", "data": {"mode": "fast"},
                                         "metadata": {"name": "settings", "namespace": "default"}}


@needs_go
def test_argocd_is_skipped_where_a_case_needs_overwrite_false_as_every_target_without_it(argocd, corpus_cases):
    # its sync always overwrites (the README): like Helm and the Python clients, it is not charged
    result = run_case(corpus_cases[OVERWRITE_FALSE], argocd)
    assert (result.status, result.reason) == (SKIP, "the case needs the overwrite=false mode, which the target lacks")


@needs_go
def test_argocd_prediction_carries_kubernetes_1_23_defaults_and_a_retain_keys_directive(argocd, corpus_cases):
    result = run_case(corpus_cases[CONTAINER_ADDED], argocd)
    # The expectation rendered the same way: the object passes; only the annotation differs.
    assert result.status == PASS, result.reason
    assert result.aspects == {"object": "same", "annotation": "different", "annotation_text": "different",
                              "notes": ["last-applied annotation content /spec/template/spec/containers/1: expected "
                                        '{"image": "prom/statsd-exporter:0.26", "name": "metrics"}, got absent']}
    spec = result.actual["document"]["spec"]
    containers = spec["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["app", "metrics"]
    assert {c["terminationMessagePath"] for c in containers} == {"/dev/termination-log"}
    assert spec["progressDeadlineSeconds"] == 600
    # The strategy the defaulter added arrives through a strategic merge patch into an object
    # without one, and keeps the patch's directive.
    assert spec["strategy"] == {"$retainKeys": ["rollingUpdate", "type"], "type": "RollingUpdate",
                                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}


@needs_go
def test_argocd_normalization_drops_creation_timestamp(argocd, corpus_cases):
    result = run_case(corpus_cases[CUSTOM_LIVE_ONLY], argocd)
    # Its normalization drops the expectation's creation time too: the object passes; only the
    # annotation differs.
    assert result.status == PASS, result.reason
    assert result.aspects == {"object": "same", "annotation": "different", "annotation_text": "different",
                              "notes": ["last-applied annotation content /spec/size: expected 4.0, got 3.0"]}
    metadata = result.actual["document"]["metadata"]
    assert "creationTimestamp" not in metadata and metadata["uid"] == "6f1c3a2e-0d4b-4d8e-9a51-2c7f0e1b9a10"
    assert result.actual["document"]["spec"] == {"size": 4, "paused": False}


@needs_go
def test_flux_declares_server_side_apply_as_a_tool(flux):
    info = flux.info
    assert (info.family, info.version, info.category) == ("flux-ssa", "v0.78.0", "tool")
    assert info.kubernetes_version == "1.37.0"
    assert info.patch_types == {"server-side-apply"}
    assert info.schemas == {"builtin", "none"}
    # Each step waits for a wall-clock second of its own: the harness gives it a minute a case.
    assert flux.timeout == 60.0


@needs_go
@pytest.mark.parametrize("case_id", [FIRST_APPLY, FORCE_TAKES, DEPLOYMENT_BY_APPLY])
def test_flux_applies_as_a_server_does(flux, corpus_cases, case_id):
    result = run_case(corpus_cases[case_id], flux)
    assert result.status == PASS, result.reason


@needs_go
def test_flux_always_forces(flux, corpus_cases):
    result = run_case(corpus_cases[OTHER_VALUE_CONFLICTS], flux)
    assert result.status == FAIL
    assert result.diff == ("step 2: expected error 'conflict', got success",)
    step = result.actual["document"]["steps"][1]
    assert step["document"]["data"] == {"mode": "b"}
    assert [entry["manager"] for entry in step["managed_fields"]] == ["bob"]


@needs_go
def test_flux_does_not_apply_what_changes_only_ownership(flux, corpus_cases):
    # bob applies alice's value: the dry run shows no drift, so Flux sends nothing, and bob
    # never becomes a co-owner (a server records him and writes the object).
    result = run_case(corpus_cases[NEW_CO_OWNER], flux)
    assert result.status == FAIL
    step = result.actual["document"]["steps"][1]
    assert step["changed"] is False
    assert [entry["manager"] for entry in step["managed_fields"]] == ["alice"]


@needs_go
def test_flux_skips_custom_kinds_and_named_schemas(flux):
    corpus = load_corpus([REPO / "cases/server-side-apply/noop.yaml"])
    cases = {case.name: case for case in corpus.cases}
    gadget = run_case(cases["schemaless-same-apply-twice-is-no-op"], flux)
    assert gadget.status == SKIP
    assert gadget.reason == ("declined by the target: Gadget.schemaless.example.com is a custom kind: it needs a "
                             "CustomResourceDefinition, which this peer does not create")
    widget = run_case(cases["widget-same-apply-twice-is-no-op"], flux)
    assert widget.status == SKIP


@needs_go
def test_flux_leaves_no_namespace_terminating(flux, corpus_cases, request):
    # patchconf's control plane runs no namespace controller: a case's namespace that is only
    # deleted stays Terminating (it did before clusterkit finalized it).
    kubernetes = pytest.importorskip("kubernetes", reason="the kubernetes Python client is not installed")
    kubeconfig = peer_kubeconfig(request)

    def terminating_flux_namespaces() -> set[str]:
        with kubernetes.config.new_client_from_config(config_file=kubeconfig) as client:
            namespaces = kubernetes.client.CoreV1Api(client).list_namespace(label_selector="patchconf.dev/run").items
        return {ns.metadata.name for ns in namespaces
                if ns.metadata.name.startswith("pcg-flux-") and ns.status.phase == "Terminating"}

    before = terminating_flux_namespaces()
    result = run_case(corpus_cases[FIRST_APPLY], flux)
    assert result.status == PASS, result.reason
    assert terminating_flux_namespaces() - before == set()
