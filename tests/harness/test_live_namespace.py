"""A live run inside one existing namespace (``--namespace``) with only the README's RBAC.

As admin, each test makes a namespace, a ServiceAccount in it and the README's Role and
RoleBinding (and, for custom kinds, its ClusterRole and bindings); a token of the account
(TokenRequest) goes into a kubeconfig of its own. The local control plane authorizes by RBAC
(harness/controlplane/apiserver.py: ``--authorization-mode RBAC``; the admin token is in system:masters),
so the account holds exactly what the YAML grants.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from patchconf.harness.controlplane.live_cluster import RUN_LABEL, Cluster, delete_namespace
from patchconf.harness.corpus.cases import load_corpus
from patchconf.harness.running.runner import PASS, SKIP, run_cases
from patchconf.harness.targets import TargetUnavailable, make_target
from patchconf.harness.targets.live.conventions import SCHEMA_TYPES
from patchconf.harness.targets.live.corpus_fit import label_problem
from patchconf.harness.targets.live.placement import case_subject, is_object
from patchconf.reference_impl.kubernetes_object import is_custom_group

REPO = Path(__file__).resolve().parents[2]
RBAC = "/apis/rbac.authorization.k8s.io/v1"
README_NAMESPACE, README_ACCOUNT = "patchconf", "patchconf-runner"

# Every live flow (json-patch, merge-patch, strategic, update, apply through kubectl, server-side
# apply, with kubectl apply --server-side steps) and every built-in kind the corpus runs live
# (cases/live has each flow; the others add Pod, Service, ServiceAccount, StatefulSet, DaemonSet,
# Job, CronJob, Ingress, ControllerRevision, Secret), custom kinds, and cases on metadata.labels.
SLICE = [
    "cases/live",
    "cases/server-side-apply/versions.yaml",
    "cases/server-side-apply/remove.yaml",
    "cases/apply/create.yaml",
    "cases/apply/lists.yaml",
    "cases/strategic/nested-lists.yaml",
    "cases/strategic/replace-lists.yaml",
    "cases/strategic/unknown-fields.yaml",
    "cases/strategic/primitive-merge-lists.yaml",
    "cases/merge-patch/nested.yaml",
    "cases/json-patch/test.yaml",
]
LIVE_FLOWS = {"json-patch", "merge-patch", "strategic", "update", "apply", "server-side-apply"}
CRD_REFUSAL = re.compile(r"(is a custom kind|^a plain JSON document is held in a custom resource), served by a CRD "
                         r"of the run: this account may not create, get, list, "
                         r"delete customresourcedefinitions \(cluster-scoped; the README's ClusterRole "
                         r"patchconf-live-crds grants it\)$")
LABEL_REFUSAL = ("in an existing namespace (--namespace) or outside any (a cluster-scoped kind) every object the run "
                 "creates carries the label")


@pytest.fixture(scope="module")
def admin(request: pytest.FixtureRequest) -> Iterator[tuple[str, Cluster]]:
    kubeconfig = os.environ.get("PATCHCONF_LIVE_KUBECONFIG") or str(request.getfixturevalue("live_kubeconfig"))
    yield kubeconfig, Cluster(kubeconfig)


def readme_rbac() -> list[list[dict]]:
    """The YAML blocks of the README's section on least privilege, as documents."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Live runs with least privilege", 1)[1].split("\n## ", 1)[0]
    return [list(yaml.safe_load_all(block)) for block in re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)]


class Account:
    """A namespace with a ServiceAccount bound by the README's YAML, and a kubeconfig with its token."""

    def __init__(self, admin_kubeconfig: str, cluster: Cluster, directory: Path, blocks: int) -> None:
        self.cluster = cluster
        self.namespace = f"lns-{secrets.token_hex(3)}"
        self.name = "patchconf-runner"
        self.cluster_objects: list[str] = []
        assert cluster.request("POST", "/api/v1/namespaces", {"metadata": {"name": self.namespace}}).ok
        created = cluster.request("POST", f"/api/v1/namespaces/{self.namespace}/serviceaccounts",
                                  {"metadata": {"name": self.name}})
        assert created.ok, created.body
        for block in readme_rbac()[:blocks]:
            for document in block:
                self._create(document)
        token = cluster.request("POST", f"/api/v1/namespaces/{self.namespace}/serviceaccounts/{self.name}/token",
                                {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                                 "spec": {"expirationSeconds": 3600}})
        assert token.ok, token.body
        config = yaml.safe_load(Path(admin_kubeconfig).read_text())
        cluster_entry = next(c for c in config["clusters"]
                             if c["name"] == next(x for x in config["contexts"]
                                                  if x["name"] == config["current-context"])["context"]["cluster"])
        self.kubeconfig = directory / f"{self.namespace}.kubeconfig"
        self.kubeconfig.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "clusters": [cluster_entry],
            "users": [{"name": self.name, "user": {"token": token.body["status"]["token"]}}],
            "contexts": [{"name": "runner", "context": {"cluster": cluster_entry["name"], "user": self.name}}],
            "current-context": "runner"}))

    def _create(self, document: dict) -> None:
        """One of the README's objects, for this namespace and account (cluster-scoped ones named for it)."""
        document = json.loads(json.dumps(document).replace(f'"{README_NAMESPACE}"', f'"{self.namespace}"'))
        plural = document["kind"].lower() + "s"
        if document["kind"].startswith("Cluster"):
            document["metadata"]["name"] += f"-{self.namespace}"
            if "roleRef" in document and document["roleRef"]["kind"] == "ClusterRole":
                document["roleRef"]["name"] += f"-{self.namespace}"
            path = f"{RBAC}/{plural}"
            self.cluster_objects.append(f"{path}/{document['metadata']['name']}")
        else:
            assert document["metadata"]["namespace"] == self.namespace
            path = f"{RBAC}/namespaces/{self.namespace}/{plural}"
        for subject in document.get("subjects", []):
            assert (subject["name"], subject["namespace"]) == (self.name, self.namespace)
        answer = self.cluster.request("POST", path, document)
        assert answer.ok, answer.body

    def remove(self) -> None:
        for path in self.cluster_objects:
            self.cluster.request("DELETE", path)
        delete_namespace(self.cluster, self.namespace)


@pytest.fixture
def account(admin, tmp_path) -> Iterator[Account]:
    """An account holding only the README's Role in its namespace."""
    made = Account(*admin, tmp_path, blocks=1)
    yield made
    made.remove()


@pytest.fixture
def account_with_crds(admin, tmp_path) -> Iterator[Account]:
    """An account holding the README's Role and what it gives for custom kinds."""
    made = Account(*admin, tmp_path, blocks=2)
    yield made
    made.remove()


BYSTANDERS = [
    ("/api/v1", "configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bystander"},
                               "data": {"a": "1"}}),
    # carries the run label, but of no run of these tests: a run deletes only what it made
    ("/api/v1", "configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "other-run", "labels": {RUN_LABEL: "rsomeoneelse"}}}),
    ("/api/v1", "secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "bystander"},
                            "stringData": {"a": "1"}}),
    ("/api/v1", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "bystander"},
                             "spec": {"ports": [{"port": 80}]}}),
    ("/api/v1", "pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bystander"},
                         "spec": {"containers": [{"name": "c", "image": "busybox"}]}}),
    ("/apis/apps/v1", "deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bystander"},
        "spec": {"selector": {"matchLabels": {"app": "b"}}, "template": {
            "metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}),
]


def _plant_bystanders(cluster: Cluster, namespace: str) -> None:
    for base, plural, document in BYSTANDERS:
        answer = cluster.request("POST", f"{base}/namespaces/{namespace}/{plural}", document)
        assert answer.ok, answer.body


def snapshot(cluster: Cluster, namespace: str) -> dict[str, tuple[str, str]]:
    """Every object in the namespace (events aside), as admin sees it: kind/name -> (uid, resourceVersion)."""
    found = {}
    for group_version in cluster.preferred_group_versions():
        for resource in cluster.resources(group_version, refresh=True).values():
            if not resource.namespaced or "list" not in resource.verbs or resource.kind == "Event":
                continue
            answer = cluster.request("GET", resource.collection(namespace))
            assert answer.ok, (resource, answer.status)
            for item in answer.body["items"]:
                metadata = item["metadata"]
                found[f"{group_version}/{resource.kind}/{metadata['name']}"] = (metadata["uid"],
                                                                               metadata["resourceVersion"])
    return found


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "patchconf.harness.cli", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _custom(case) -> bool:
    """Whether the case needs a CRD of the run: a custom kind, or a plain JSON document (held in one)."""
    subject = case_subject(case)
    return not is_object(subject) or is_custom_group(subject["apiVersion"].rpartition("/")[0])


def _held_whole(result) -> bool:
    """A case the admin's run held whole in a custom resource (its kind not holdable as such)."""
    return any("held whole" in note for note in (result.actual or {}).get("notes") or [])


def _cluster_scoped(cluster: Cluster, case) -> bool:
    subject = case_subject(case)
    resource = cluster.resource_for(subject["apiVersion"], subject["kind"])
    return resource is not None and not resource.namespaced


def _run_in_namespace(account: Account, report: Path, paths: list[str]) -> tuple[subprocess.CompletedProcess, dict]:
    command = _cli("run", "--target", "live", "--kubeconfig", str(account.kubeconfig), "--namespace",
                   account.namespace, "--quiet", "--report", str(report))
    for path in paths:
        command += ["--cases", str(REPO / path)]
    completed = subprocess.run(command, env=_env(), cwd=REPO, capture_output=True, text=True, timeout=600)
    results = json.loads((report / "results.json").read_text())
    return completed, {result["id"]: result for result in results["results"]}


def test_namespace_scoped_account_runs_every_live_flow_and_leaves_the_namespace_as_it_was(admin, account, tmp_path):
    admin_kubeconfig, cluster = admin
    corpus = load_corpus([REPO / path for path in SLICE])
    assert corpus.errors == []
    target = make_target("live", kubeconfig=admin_kubeconfig)
    try:
        as_admin = {str(result.case.id): result for result in run_cases(corpus.cases, target)}
    finally:
        target.close()
    assert [case_id for case_id, result in as_admin.items() if result.status not in (PASS, SKIP)] == []

    # the server authorizes by RBAC: the account may do what the Role grants in its namespace, nothing else
    limited = Cluster(str(account.kubeconfig))
    assert limited.request("GET", f"/api/v1/namespaces/{account.namespace}/configmaps").ok
    assert limited.request("POST", "/api/v1/namespaces", {"metadata": {"name": f"{account.namespace}-x"}}).status == 403
    assert limited.request("GET", "/api/v1/namespaces/default/configmaps").status == 403

    _plant_bystanders(cluster, account.namespace)
    before = snapshot(cluster, account.namespace)
    completed, in_namespace = _run_in_namespace(account, tmp_path / "run", SLICE)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    assert f"in namespace {account.namespace}" in json.loads((tmp_path / "run" / "results.json").read_text())[
        "target"]["description"]

    expected_status, crd_skips, label_skips, outside_skips = {}, [], [], []
    for case in corpus.cases:
        case_id = str(case.id)
        if as_admin[case_id].status != PASS:
            expected_status[case_id] = SKIP
        elif not is_object(case_subject(case)) or _held_whole(as_admin[case_id]):  # held in a custom resource
            expected_status[case_id] = SKIP
            if not is_object(case_subject(case)):
                crd_skips.append(case_id)
        elif label_problem(case):
            expected_status[case_id] = SKIP
            label_skips.append(case_id)
        elif _cluster_scoped(cluster, case):
            expected_status[case_id] = SKIP
            outside_skips.append(case_id)
        elif _custom(case):
            expected_status[case_id] = SKIP
            crd_skips.append(case_id)
        else:
            expected_status[case_id] = PASS
    assert {case_id: result["status"] for case_id, result in in_namespace.items()} == expected_status
    for case_id in crd_skips:
        assert CRD_REFUSAL.search(in_namespace[case_id]["reason"]), in_namespace[case_id]["reason"]
    for case_id in label_skips:
        assert in_namespace[case_id]["reason"].startswith(LABEL_REFUSAL), in_namespace[case_id]["reason"]
    for case_id in outside_skips:
        assert in_namespace[case_id]["reason"].endswith(
            "is cluster-scoped, and a run in an existing namespace (--namespace) creates nothing outside it"), \
            in_namespace[case_id]["reason"]
    passed = [in_namespace[case_id] for case_id, status in expected_status.items() if status == PASS]
    kubectl = shutil.which("kubectl") is not None  # without it apply cases on built-in kinds skip for both
    assert {result["type"] for result in passed} == LIVE_FLOWS - (set() if kubectl else {"apply"})
    assert not kubectl or any("kubectl apply (real kubectl against the server)" in (r["actual"] or {}).get("notes", [])
                              for r in passed)
    assert crd_skips and label_skips
    assert len(passed) >= 100

    # nothing left behind, nothing it did not create touched (same uid, same resourceVersion)
    assert snapshot(cluster, account.namespace) == before


def test_custom_kinds_run_with_the_readmes_crd_grants(admin, account_with_crds, tmp_path):
    cluster = admin[1]
    paths = ["cases/live/content-type.yaml", "cases/server-side-apply/status.yaml"]
    before = snapshot(cluster, account_with_crds.namespace)
    completed, in_namespace = _run_in_namespace(account_with_crds, tmp_path / "run", paths)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    custom = [case for case in load_corpus([REPO / path for path in paths]).cases if _custom(case)]
    statuses = {str(case.id): in_namespace[str(case.id)]["status"] for case in custom
                if not (is_object(case_subject(case)) and label_problem(case))}
    assert len(statuses) >= 8 and set(statuses.values()) == {PASS}
    run_id = re.search(r"run (r[0-9a-f]+)", completed.stderr).group(1)
    crds = cluster.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions").body["items"]
    assert [crd["metadata"]["name"] for crd in crds if run_id in crd["metadata"]["name"]] == []
    assert snapshot(cluster, account_with_crds.namespace) == before


def test_live_cleanup_namespace_removes_only_what_runs_left_there(admin, account, tmp_path):
    """A run killed outright (no cleanup of its own) leaves labelled objects; `live cleanup
    --namespace` run by the same account deletes those and nothing else, in that namespace only."""
    cluster = admin[1]
    _plant_bystanders(cluster, account.namespace)
    elsewhere = f"lns-elsewhere-{secrets.token_hex(3)}"
    assert cluster.request("POST", "/api/v1/namespaces", {"metadata": {"name": elsewhere}}).ok
    try:
        left_elsewhere = {"metadata": {"name": "left", "labels": {RUN_LABEL: "rinterrupted"}}}
        assert cluster.request("POST", f"/api/v1/namespaces/{elsewhere}/configmaps", left_elsewhere).ok
        kept = {name: ids for name, ids in snapshot(cluster, account.namespace).items()
                if not name.endswith("/other-run")}  # labelled as a run's: cleanup of every run takes it
        # what an interrupted run leaves: objects labelled with its run id
        left = {"metadata": {"name": "c0001-left", "labels": {RUN_LABEL: "rinterrupted"}}, "data": {"a": "1"}}
        assert cluster.request("POST", f"/api/v1/namespaces/{account.namespace}/configmaps", left).ok
        report = tmp_path / "run"
        process = subprocess.Popen(
            _cli("run", "--target", "live", "--kubeconfig", str(account.kubeconfig), "--namespace",
                 account.namespace, "--quiet", "--workers", "2", "--report", str(report),
                 "--cases", str(REPO / "cases" / "apply")),
            env=_env(), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                log = report / "results.jsonl"
                if log.is_file() and len(log.read_text().splitlines()) > 10:
                    break
                time.sleep(0.1)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL

        cleaned = subprocess.run(_cli("live", "cleanup", "--kubeconfig", str(account.kubeconfig), "--namespace",
                                      account.namespace), env=_env(), cwd=REPO, capture_output=True, text=True,
                                 timeout=300)
        assert cleaned.returncode == 0, cleaned.stderr
        assert f"in namespace {account.namespace} (" in cleaned.stdout
        assert "ConfigMap/c0001-left" in cleaned.stdout and "ConfigMap/other-run" in cleaned.stdout
        assert "bystander" not in cleaned.stdout
        assert snapshot(cluster, account.namespace) == kept
        assert cluster.request("GET", f"/api/v1/namespaces/{elsewhere}/configmaps/left").ok
        again = subprocess.run(_cli("live", "cleanup", "--kubeconfig", str(account.kubeconfig), "--namespace",
                                    account.namespace), env=_env(), cwd=REPO, capture_output=True, text=True,
                               timeout=300)
        assert again.returncode == 0
        assert again.stdout.strip() == (f"patchconf live cleanup: nothing labelled patchconf.dev/run found "
                                        f"in namespace {account.namespace}")
    finally:
        delete_namespace(cluster, elsewhere)


def test_verify_with_the_live_judge_in_a_namespace(admin, account):
    before = snapshot(admin[1], account.namespace)
    path = REPO / "cases" / "live" / "update.yaml"
    count = len(load_corpus([path]).cases)
    completed = subprocess.run(_cli("verify", "--judges", "live", "--kubeconfig", str(account.kubeconfig),
                                    "--namespace", account.namespace, "--cases", str(path)),
                               env=_env(), cwd=REPO, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "judges: live v1." in completed.stdout
    assert f"{count} of {count} cases confirmed, 0 contradictions" in completed.stdout
    assert snapshot(admin[1], account.namespace) == before


def test_readmes_rbac_covers_every_kind_the_corpus_runs(admin):
    """Every namespaced built-in kind the corpus uses is in the README's Role, every custom kind
    (and the kind holding plain documents) in its Role for custom kinds, and so is every
    subresource (status, scale) a case's steps write through."""
    from patchconf.harness.targets.live.placement import HOST_KIND

    cluster = admin[1]
    role, custom_role = (next(d for d in block if d["kind"] == "Role") for block in readme_rbac())
    granted = {(group, resource) for rule in role["rules"] for group in rule["apiGroups"]
               for resource in rule["resources"]}
    granted_custom = {resource for rule in custom_role["rules"] for resource in rule["resources"]}
    needed, needed_custom = set(), {HOST_KIND.lower() + "s"}
    for case in load_corpus([REPO / "cases"]).cases:
        subject = case_subject(case)
        if not is_object(subject) or case.type not in LIVE_FLOWS:
            continue
        schema = case.effective_schema()
        if schema is not None and schema.named and case.type in SCHEMA_TYPES:
            continue  # never run live: only a server-side apply case gets its named schema's CRD
        group = subject["apiVersion"].rpartition("/")[0]
        if is_custom_group(group):
            plural = subject["kind"].lower() + "s"
            needed_custom.add(plural)
            needed_custom |= {f"{plural}/{step['subresource']}" for step in steps_of(case)
                              if step.get("subresource") and step.get("op") in ("apply", "update", "patch")}
            continue
        resource = cluster.resource_for(subject["apiVersion"], subject["kind"])
        if resource is not None and resource.namespaced:
            needed.add((group, resource.plural))
            needed |= {(group, f"{resource.plural}/{step['subresource']}") for step in steps_of(case)
                       if step.get("subresource") and step.get("op") in ("apply", "update", "patch")}
    assert {("", "configmaps"), ("apps", "deployments"), ("apps", "deployments/scale")} <= needed
    assert needed - granted == set()
    assert needed_custom - granted_custom == set()


def steps_of(case) -> list[dict]:
    return [step for step in case.inputs.get("steps") or () if isinstance(step, dict)]


def test_a_missing_namespace_is_unavailable(admin):
    with pytest.raises(TargetUnavailable, match="namespace lns-missing does not exist; --namespace runs in an "
                                                "existing namespace"):
        make_target("live", kubeconfig=admin[0], namespace="lns-missing")


def test_namespace_is_refused_for_other_targets():
    completed = subprocess.run(_cli("run", "--target", "reference", "--namespace", "x"), env=_env(), cwd=REPO,
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2
    assert "--namespace is for the live target, not 'reference'" in completed.stderr


# --- offline: which cases cannot run in an existing namespace, and what the run label owns -----------


def test_label_problem_names_cases_on_metadata_labels(write_case_file):
    from patchconf.harness.corpus.cases import Purpose, load_file

    path = write_case_file("live/labels.yaml", """
        defaults: {targets: [live]}
        cases:
          - {name: jp-label, type: json-patch, description: d, tags: [LIVE-DEFAULTS],
             original: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}},
             patch: [{op: add, path: /metadata/labels/a, value: b}]}
          - {name: jp-data, type: json-patch, description: d, tags: [LIVE-DEFAULTS],
             original: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}},
             patch: [{op: add, path: /data, value: {}}]}
          - {name: mp-label, type: merge-patch, description: d, tags: [LIVE-DEFAULTS],
             original: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}},
             patch: {metadata: {labels: null}}}
          - {name: smp-retain, type: strategic, description: d, tags: [LIVE-DEFAULTS],
             original: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}},
             patch: {metadata: {$retainKeys: [name]}}}
          - {name: smp-annotation, type: strategic, description: d, tags: [LIVE-DEFAULTS],
             original: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}},
             patch: {metadata: {annotations: {a: b}}}}
          - {name: apply-drops-labels, type: apply, description: d, tags: [LIVE-DEFAULTS],
             original: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}},
             current: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}},
             modified: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}}
          - {name: apply-keeps-labels, type: apply, description: d, tags: [LIVE-DEFAULTS],
             original: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}},
             current: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}},
             modified: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: c}}}}
          - {name: ssa-labels, type: server-side-apply, description: d, tags: [SSA-OWNERSHIP],
             steps: [{op: apply, manager: m,
                      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}}}]}
          - {name: ssa-labels-null, type: server-side-apply, description: d, tags: [SSA-DECODE],
             steps: [{op: update, manager: m,
                      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: null}}}]}
          - {name: ssa-data, type: server-side-apply, description: d, tags: [SSA-OWNERSHIP],
             steps: [{op: apply, manager: m, object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c},
                                                      data: {a: b}}}]}
    """)
    cases, errors = load_file(path, Purpose.RECORD)
    assert errors == []
    what = {case.name: (label_problem(case) or "").split("this case's ")[-1] for case in cases}
    assert what == {
        "jp-label": "patch operates on metadata.labels, which that label would change",
        "jp-data": "",
        "mp-label": "patch operates on metadata.labels, which that label would change",
        "smp-retain": "patch operates on metadata.labels, which that label would change",
        "smp-annotation": "",
        "apply-drops-labels": "apply drops metadata.labels, which that label would change",
        "apply-keeps-labels": "",
        "ssa-labels": "step object states metadata.labels, which that label would change",
        "ssa-labels-null": "step object states metadata.labels, which that label would change",
        "ssa-data": "",
    }


def test_run_label_ownership_is_not_shown():
    from patchconf.harness.targets.live.placement import owns_run_label, without_run_label

    run = f"f:{RUN_LABEL}"
    assert without_run_label({"f:metadata": {"f:labels": {".": {}, run: {}}}}) == {}
    assert without_run_label({"f:metadata": {"f:labels": {run: {}, "f:a": {}}}, "f:data": {"f:x": {}}}) == {
        "f:metadata": {"f:labels": {"f:a": {}}}, "f:data": {"f:x": {}}}
    assert without_run_label({"f:metadata": {"f:labels": {run: {}}, "f:annotations": {"f:a": {}}}}) == {
        "f:metadata": {"f:annotations": {"f:a": {}}}}
    unowned = {"f:data": {"f:x": {}}}
    assert without_run_label(unowned) is unowned
    assert owns_run_label({"fieldsV1": {"f:metadata": {"f:labels": {run: {}}}}})
    assert not owns_run_label({"fieldsV1": unowned})
