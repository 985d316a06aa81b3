"""The Python tool adapters (Ansible's kubernetes.core, the OpenShift client) on a few corpus cases.

Each adapter runs through `patchconf run` with its command target, in the Python that has
the tool installed: the one running the tests, or $PATCHCONF_TOOLS_PYTHON (a virtualenv
holding ansible==12.3.0, kubernetes and openshift==0.13.2, so the tools need not share the test
environment). A test skips, saying so, when its tool is not installed there. The statuses
and differences asserted are the tools' own answers; the two compute the same on every case
here but the NetworkPolicy's allow-all egress, which openshift empties.

The server's part both adapters share (adapters/kit/python/apiserver_standin.py) is checked
without the tools, against what Kubernetes answered; the calls and answers they share
(adapters/kit/python/client_side_apply.py) with a stand-in tool.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

CREATE_CONFIGMAP = "cases/apply/create.yaml::create-configmap"
FINALIZER_BESIDE_CONTROLLERS = "cases/apply/lists.yaml::finalizer-added-beside-controllers"
SAME_PORT_SECOND_PROTOCOL = "cases/apply/services.yaml::same-port-second-protocol-not-added"
SECOND_APPLY_SENDS_NOTHING = "cases/apply/roundtrip.yaml::second-apply-sends-nothing"
OVERWRITE_FALSE = "cases/apply/conflict.yaml::changed-file-conflicts-on-annotation"
OVERWRITE_FALSE_SKIP = "the case needs the overwrite=false mode, which the target lacks"  # the harness's one rule
ALLOW_ALL_EGRESS = "cases/apply/empty-elements.yaml::networkpolicy-allow-all-egress-kept-when-labels-change"
THREE_WAY_DELETION = "cases/merge-patch-3way/three-way.yaml::3way-removed-from-config-deleted"
THREE_WAY_NULL_IN_ARRAY = "cases/merge-patch-3way/three-way.yaml::3way-nulls-inside-array-objects-dropped"
THREE_WAY_STRING_FOR_MAP = "cases/merge-patch-3way/three-way.yaml::3way-no-conflict-where-one-is-expected"
CASES = (CREATE_CONFIGMAP, FINALIZER_BESIDE_CONTROLLERS, SAME_PORT_SECOND_PROTOCOL, SECOND_APPLY_SENDS_NOTHING,
         OVERWRITE_FALSE, ALLOW_ALL_EGRESS, THREE_WAY_DELETION, THREE_WAY_NULL_IN_ARRAY, THREE_WAY_STRING_FOR_MAP)


@dataclass(frozen=True)
class Tool:
    adapter: str  # directory under adapters/
    family: str
    module: str  # what must import in the tools' Python
    version_code: str  # prints the version the handshake must report
    overwrite_skip: str
    egress_sent: list  # what it sends for a NetworkPolicy's egress: [{}] it does not change


TOOLS = {
    "ansible-kubernetes-core": Tool(
        "python-ansible-kubernetes-core", "ansible-kubernetes-core",
        "ansible_collections.kubernetes.core.plugins.module_utils.apply",
        "import json, pathlib, ansible_collections.kubernetes.core.plugins.module_utils.apply as m; "
        "print(json.loads((pathlib.Path(m.__file__).parents[2] / 'MANIFEST.json').read_text())"
        "['collection_info']['version'])",
        OVERWRITE_FALSE_SKIP,
        [{}]),
    "python-openshift": Tool(
        "python-openshift", "python-openshift", "openshift.dynamic.apply",
        "import importlib.metadata; print(importlib.metadata.version('openshift'))",
        OVERWRITE_FALSE_SKIP,
        []),  # get_delta drops falsy list elements: allow-all egress becomes deny-all
}


def tools_python() -> str:
    return os.environ.get("PATCHCONF_TOOLS_PYTHON", sys.executable)


def patchconf_command() -> str:
    beside = Path(sys.executable).with_name("patchconf")
    found = str(beside) if beside.is_file() else shutil.which("patchconf")
    if found is None:
        pytest.skip("the patchconf command is not installed (pip install -e .)")
    return found


def installed_version(tool: Tool) -> str | None:
    """The tool's version in the tools' Python, or None when it does not import there."""
    probe = subprocess.run([tools_python(), "-c", tool.version_code], capture_output=True, text=True,
                           timeout=120, check=False)
    return probe.stdout.strip() if probe.returncode == 0 else None


@pytest.fixture(scope="module", params=sorted(TOOLS))
def run(request, tmp_path_factory):
    """The tool's results.json for CASES, with the version it has installed."""
    tool = TOOLS[request.param]
    version = installed_version(tool)
    if version is None:
        pytest.skip(f"{tool.module} does not import in {tools_python()} "
                    "(pip install ansible==12.3.0 kubernetes openshift==0.13.2, or set PATCHCONF_TOOLS_PYTHON)")
    report = tmp_path_factory.mktemp(tool.adapter)
    target = "cmd:" + shlex.join([tools_python(), str(REPO / "adapters" / tool.adapter / "adapter.py")])
    arguments = [patchconf_command(), "run", "--target", target, "--report", str(report), "--quiet"]
    for case_id in CASES:
        arguments += ["--id", case_id]
    finished = subprocess.run(arguments, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    results_file = report / "results.json"
    assert results_file.is_file(), finished.stdout + finished.stderr
    results = json.loads(results_file.read_text(encoding="utf-8"))
    return tool, version, results


def by_id(results: dict) -> dict[str, dict]:
    return {result["id"]: result for result in results["results"]}


def test_handshake_names_the_tool_and_its_installed_version(run):
    tool, version, results = run
    target = results["target"]
    assert target["family"] == tool.family
    assert target["version"] == version
    assert sorted(target["patch_types"]) == ["apply", "merge-patch-3way"]
    assert target["messages"] is False


def test_each_case_gets_its_exact_status(run):
    tool, _, results = run
    statuses = {case_id: result["status"] for case_id, result in by_id(results).items()}
    # an apply passes or fails on the object (the annotation's text and the request are judged apart)
    assert statuses == {
        CREATE_CONFIGMAP: "pass",  # the annotation text alone differs
        FINALIZER_BESIDE_CONTROLLERS: "fail",
        SAME_PORT_SECOND_PROTOCOL: "fail",
        SECOND_APPLY_SENDS_NOTHING: "pass",  # another request, the same object
        OVERWRITE_FALSE: "skip",
        ALLOW_ALL_EGRESS: "pass" if tool.egress_sent else "fail",
        THREE_WAY_DELETION: "pass",
        THREE_WAY_NULL_IN_ARRAY: "fail",
        THREE_WAY_STRING_FOR_MAP: "fail",
    }
    assert by_id(results)[OVERWRITE_FALSE]["reason"] == tool.overwrite_skip


def test_create_differs_from_kubectl_only_in_the_annotation_text(run):
    result = by_id(run[2])[CREATE_CONFIGMAP]
    assert result["diff"] == []
    assert result["aspects"] == {"object": "same", "annotation": "same", "annotation_text": "different",
                                 "notes": ["last-applied annotation text differs (same content)"]}
    created = result["actual"]["document"]
    # json.dumps(config, sort_keys=True, separators=(",", ":")): no "annotations":{} and no newline, as kubectl writes
    assert created["metadata"]["annotations"][LAST_APPLIED] == (
        '{"apiVersion":"v1","data":{"mode":"fast"},"kind":"ConfigMap",'
        '"metadata":{"name":"settings","namespace":"default"}}')
    assert "patch" not in result["actual"]  # a create, not a patch


def test_finalizers_are_replaced_whole(run):
    result = by_id(run[2])[FINALIZER_BESIDE_CONTROLLERS]
    assert 'document /metadata/finalizers/2: expected "controller.example.com/protect", got absent' in result["diff"]
    assert result["actual"]["patch"]["metadata"]["finalizers"] == ["example.com/cleanup", "example.com/backup"]


def test_service_ports_keyed_by_port_keep_the_later_element(run):
    result = by_id(run[2])[SAME_PORT_SECOND_PROTOCOL]
    assert 'document /spec/ports/0/protocol: expected "TCP", got "UDP"' in result["diff"]
    assert result["actual"]["document"]["spec"]["ports"] == [
        {"name": "dns-udp", "port": 53, "protocol": "UDP", "targetPort": 53}]


def test_unchanged_apply_resends_merge_keyed_lists(run):
    result = by_id(run[2])[SECOND_APPLY_SENDS_NOTHING]
    assert result["actual"]["patch"] == {"spec": {"ports": [
        {"name": "http", "port": 80, "targetPort": "http", "nodePort": 30214, "protocol": "TCP"},
        {"name": "https", "port": 443, "targetPort": "https"}]}}
    # the object the server holds is kubectl's, the annotation's text aside; the request is not
    assert result["diff"] == []
    assert {key: value for key, value in result["aspects"].items() if key != "notes"} == {
        "object": "same", "request": "different", "annotation": "same", "annotation_text": "different"}


def test_allow_all_egress_is_resent_and_only_openshift_empties_it(run):
    tool, _, results = run
    result = by_id(results)[ALLOW_ALL_EGRESS]
    assert result["actual"]["patch"]["spec"] == {"egress": tool.egress_sent, "policyTypes": ["Egress"]}
    assert result["actual"]["document"]["spec"]["egress"] == tool.egress_sent
    lost = "document /spec/egress/0: expected {}, got absent"
    assert (lost in result["diff"]) == (tool.egress_sent == [])


def test_three_way_patch_keeps_nulls_inside_array_elements(run):
    result = by_id(run[2])[THREE_WAY_NULL_IN_ARRAY]
    assert result["diff"] == ["patch /spec/rules/0/path: expected absent, got null"]


def test_three_way_patch_fails_where_the_live_value_is_a_string(run):
    result = by_id(run[2])[THREE_WAY_STRING_FOR_MAP]
    assert result["actual"]["error"] == {"class": "unclassified",
                                         "message": "AttributeError: 'str' object has no attribute 'get'"}


def load_standin():
    path = REPO / "adapters" / "kit" / "python" / "apiserver_standin.py"
    spec = importlib.util.spec_from_file_location("apiserver_standin", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_standin_merge_patch_gives_kubernetes_answers_to_rfc7396_appendix_a():
    """The server's part of a tool's merge patch, on the rows whose objects Kubernetes patched."""
    standin = load_standin()
    corpus = yaml.safe_load((REPO / "cases/merge-patch/rfc7396-appendix-a.yaml").read_text(encoding="utf-8"))
    rows = [case for case in corpus["cases"] if "expected" in case
            and isinstance(case["original"], dict) and isinstance(case["patch"], dict)]
    assert len(rows) >= 10
    for case in rows:
        original, patch = copy.deepcopy(case["original"]), copy.deepcopy(case["patch"])
        assert standin.apply_merge_patch(original, patch) == case["expected"], case["name"]
        assert (original, patch) == (case["original"], case["patch"])  # inputs untouched


def test_standin_stores_what_a_server_stores():
    standin = load_standin()
    # kube-apiserver 1.33.13, merge patch of a Deployment's container with these nulls: neither is stored
    container = {"name": "app", "image": "nginx", "resources": {"limits": None}, "env": [{"name": "A", "value": None}]}
    assert standin.stored(container) == {"name": "app", "image": "nginx", "resources": {}, "env": [{"name": "A"}]}
    # a whole float comes back as Go's encoder writes it: 1.0 as 1, but 1e21 as 1e+21 (a float again)
    numbers = standin.stored({"ratio": 1.0, "half": 0.5, "huge": 1e21})
    assert {name: (type(value), value) for name, value in numbers.items()} == {
        "ratio": (int, 1), "half": (float, 0.5), "huge": (float, 1e21)}


class MissingMergeKey(Exception):
    pass


class NotFound(Exception):
    pass


class ApiError(Exception):
    def __init__(self, status, reason):
        super().__init__(status, reason)


def test_client_side_apply_declines_in_order_then_calls_the_tool(monkeypatch):
    """The kit's helper both adapters are built on, with a stand-in tool: the first reason that
    applies declines, a missing object is the client's 404, ApplyException is merge-key-missing."""
    monkeypatch.syspath_prepend(str(REPO / "adapters" / "kit" / "python"))
    import client_side_apply

    calls = []

    def tool_apply(resource, definition):
        try:
            resource.get()
        except NotFound as exc:
            calls.append(exc.args[0].args)
            return resource.create(body=definition)
        raise MissingMergeKey("Expected key 'name' not found in position Pod.spec.containers")

    tool = client_side_apply.Tool(
        apply=tool_apply, merge=lambda original, modified, current: {"data": {"b": 1.0}},
        annotate=lambda obj: obj, merge_key_missing=MissingMergeKey, resource_instance=lambda client, obj: obj,
        not_found_error=NotFound, api_exception=ApiError)
    declined = [(client_side_apply.overwrite_false, "no overwrite=false"),
                (client_side_apply.not_an_object, "objects only"),
                (client_side_apply.three_way_without_last_applied, "no last-applied")]
    adapter = client_side_apply.adapter(lambda: tool, declined, name="stand-in", distribution="pytest",
                                        homepage="https://example.com", version=lambda: "9.9.9")
    handshake = adapter.handshake()
    assert handshake["implementation"] == {"name": "stand-in", "version": "9.9.9", "language": "python",
                                           "homepage": "https://example.com", "category": "tool"}
    assert handshake["capabilities"]["patch_types"] == ["apply", "merge-patch-3way"]

    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": None}}
    cases = [
        {"type": "apply", "options": {"overwrite": False}, "modified": []},
        {"type": "merge-patch-3way", "original": None, "modified": {"data": {}}, "current": {}},
        {"type": "merge-patch-3way", "original": None, "modified": config_map, "current": config_map},
        {"type": "merge-patch-3way", "original": config_map, "modified": config_map, "current": config_map},
        {"type": "apply", "modified": config_map, "current": None},
        {"type": "apply", "modified": config_map, "current": config_map},
    ]
    answers = [adapter.run(seq, case) for seq, case in enumerate(cases)]
    assert answers == [
        {"seq": 0, "skipped": "no overwrite=false"},
        {"seq": 1, "skipped": "objects only"},
        {"seq": 2, "skipped": "no last-applied"},
        {"seq": 3, "result": {"patch": {"data": {"b": 1.0}}}},
        {"seq": 4, "result": {"document": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                                           "data": {}}}},  # the created body, as a server stores it
        {"seq": 5, "error": {"class": "merge-key-missing", "message":
                             "MissingMergeKey: Expected key 'name' not found in position Pod.spec.containers"}},
    ]
    assert calls == [(404, "Not Found")]
    assert cases[4]["modified"] == config_map  # inputs untouched
