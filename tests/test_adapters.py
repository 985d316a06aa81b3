"""The peer-library adapters in adapters/, each through the cmd: target.

Each adapter is started once (all at the same time: some libraries take seconds to
import), its handshake is checked, and a few corpus cases are run with the exact status
each gets: the library's real answers, passes and divergences alike. A test skips when
its library (or node, or the adapter's node_modules) is not installed here.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import shlex
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.cases import Case, Outcome, load_corpus
from harness.runner import FAIL, PASS, run_case
from harness.targets import make_target

REPO = Path(__file__).resolve().parent.parent
ADAPTERS = REPO / "adapters"

JP_A1 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a1-adding-an-object-member"
JP_A7 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a7-moving-an-array-element"
JP_A9 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a9-testing-a-value-error"
JP_K8S_REMOVE_KIND = "cases/json-patch/kubernetes.yaml::k8s-remove-kind-refused"
JP_K8S_BIG_INT = "cases/json-patch/kubernetes.yaml::k8s-integer-beyond-int64-loses-precision"
JP_NEGATIVE_INDEX = "cases/json-patch/add.yaml::add-array-negative-index-appends"
JP_REMOVE_MISSING = "cases/json-patch/remove.yaml::remove-missing-member"
MP_A1 = "cases/merge-patch/rfc7396-appendix-a.yaml::rfc7396-a-01-replace-member"
MP_K8S_NULL_PATCH = "cases/merge-patch/kubernetes.yaml::root-null-patch-rejected"
MP_BIG_INT = "cases/merge-patch/types.yaml::large-integer-preserved"
SMP_UPDATE_IMAGE = "cases/strategic/merge-lists.yaml::update-container-image-in-place"
SMP_ADD_CONTAINER = "cases/strategic/merge-lists.yaml::add-container-is-prepended"
SMP_CUSTOM_RESOURCE = "cases/strategic/no-schema.yaml::custom-resource-refused"


@dataclass(frozen=True)
class Adapter:
    name: str
    command: list[str]
    requires: str  # the Python module, or the npm package in the adapter's node_modules
    distribution: str  # for the installed version
    patch_types: frozenset[str]
    profile: str

    @property
    def is_node(self) -> bool:
        return self.command[0] == "node"

    def missing(self) -> str | None:
        """Why this adapter cannot run here, or None."""
        if self.is_node:
            if shutil.which("node") is None:
                return "node is not installed"
            if not self.package_json().is_file():
                return f"{self.requires} is not installed: run npm install in adapters/{self.name}"
            return None
        if importlib.util.find_spec(self.requires) is None:
            return f"{self.distribution} is not installed (pip install {self.distribution})"
        return None

    def package_json(self) -> Path:
        return ADAPTERS / self.name / "node_modules" / self.requires / "package.json"

    def installed_version(self) -> str:
        if self.is_node:
            return json.loads(self.package_json().read_text(encoding="utf-8"))["version"]
        return importlib.metadata.version(self.distribution)

    def spec(self) -> str:
        return "cmd:" + shlex.join(self.command)


def python_adapter(name, module, distribution, patch_types, profile):
    command = [sys.executable, str(ADAPTERS / name / "adapter.py")]
    return Adapter(name, command, module, distribution, frozenset(patch_types), profile)


def node_adapter(name, package, patch_types):
    command = ["node", str(ADAPTERS / name / "adapter.js")]
    return Adapter(name, command, package, package, frozenset(patch_types), "rfc")


ALL = {
    adapter.name: adapter
    for adapter in (
        python_adapter("python-jsonpatch", "jsonpatch", "jsonpatch", ["json-patch"], "rfc"),
        python_adapter("python-json-merge-patch", "json_merge_patch", "json-merge-patch",
                       ["merge-patch", "merge-patch-2way"], "rfc"),
        python_adapter("python-oper8", "oper8", "oper8", ["strategic"], "kubernetes"),
        python_adapter("python-kubesdk", "kubesdk", "kubesdk", ["json-patch", "strategic-2way"], "rfc"),
        node_adapter("js-fast-json-patch", "fast-json-patch", ["json-patch"]),
        node_adapter("js-json-merge-patch", "json-merge-patch", ["merge-patch", "merge-patch-2way"]),
    )
}

# The exact status each library gets on a few corpus cases.
EXPECTED_STATUS = {
    "python-jsonpatch": {
        JP_A1: PASS,
        JP_A9: PASS,  # JsonPatchTestFailed is test-failed
        JP_K8S_REMOVE_KIND: PASS,  # Kubernetes refuses it; RFC 6902 (this target's profile) does not
        JP_NEGATIVE_INDEX: PASS,  # refused as RFC wants (JsonPointerException: unclassified, judged on rejecting)
    },
    "python-kubesdk": {
        JP_A1: PASS,
        JP_A7: FAIL,  # moves the array element one place too far
        JP_K8S_REMOVE_KIND: PASS,
    },
    "js-fast-json-patch": {
        JP_A1: PASS,
        JP_A9: PASS,  # TEST_OPERATION_FAILED is test-failed
        JP_REMOVE_MISSING: FAIL,  # without validation (the default) removing nothing succeeds
        JP_K8S_BIG_INT: FAIL,  # JavaScript numbers: the integer loses precision
    },
    "python-json-merge-patch": {
        MP_A1: PASS,
        MP_K8S_NULL_PATCH: PASS,  # judged by RFC 7396: a null patch document gives null
        MP_BIG_INT: PASS,
    },
    "js-json-merge-patch": {
        MP_A1: PASS,
        MP_K8S_NULL_PATCH: PASS,
        MP_BIG_INT: FAIL,  # JavaScript numbers: the integer loses precision
    },
    "python-oper8": {
        SMP_UPDATE_IMAGE: PASS,
        SMP_ADD_CONTAINER: FAIL,  # appends the new container where Kubernetes prepends it
        SMP_CUSTOM_RESOURCE: FAIL,  # patches a kind with no strategic schema instead of refusing
    },
}


@pytest.fixture(scope="module")
def started():
    """Every installed adapter started concurrently (and the corpus cases loaded meanwhile).

    Gives ``(targets, cases)``: adapter name -> target, skip reason or startup exception;
    case id -> case.
    """
    targets = {name: adapter.missing() for name, adapter in ALL.items() if adapter.missing()}
    runnable = [name for name in ALL if name not in targets]
    with ThreadPoolExecutor(max_workers=max(len(runnable), 1)) as pool:
        futures = {name: pool.submit(make_target, ALL[name].spec()) for name in runnable}
        try:
            cases = load_cases()
            for name, future in futures.items():
                try:
                    targets[name] = future.result()
                except Exception as exc:  # failed by the adapter's own tests, not here
                    targets[name] = exc
            yield targets, cases
        finally:
            for future in futures.values():
                future.cancel()
            running = [f.result() for f in futures.values() if not f.cancelled() and f.exception() is None]
            list(pool.map(lambda target: target.close(), running))


def load_cases() -> dict[str, Case]:
    ids = {case_id for statuses in EXPECTED_STATUS.values() for case_id in statuses}
    files = sorted({REPO / case_id.split("::")[0] for case_id in ids})
    corpus = load_corpus(files)
    assert not corpus.errors, corpus.errors
    return {case.id: case for case in corpus.cases}


@pytest.fixture(scope="module")
def targets(started):
    return started[0]


@pytest.fixture(scope="module")
def corpus_cases(started):
    return started[1]


def target_for(targets, name):
    target = targets[name]
    if isinstance(target, str):
        pytest.skip(target)
    if isinstance(target, Exception):
        raise target
    return target


@pytest.mark.parametrize("name", sorted(ALL))
def test_handshake(targets, name):
    adapter = ALL[name]
    info = target_for(targets, name).info
    assert info.family == name
    assert info.version == adapter.installed_version()
    assert info.patch_types == adapter.patch_types
    assert info.profile == adapter.profile
    assert info.messages is False


@pytest.mark.parametrize("name", sorted(ALL))
def test_corpus_cases_get_their_exact_status(targets, corpus_cases, name):
    target = target_for(targets, name)
    got = {}
    for case_id in EXPECTED_STATUS[name]:
        result = run_case(corpus_cases[case_id], target)
        got[case_id] = (result.status, result.reason)
        if case_id in (JP_K8S_REMOVE_KIND, MP_K8S_NULL_PATCH):
            assert result.judged_by == "profile rfc"
    assert {case_id: status for case_id, (status, _) in got.items()} == EXPECTED_STATUS[name], got


def adhoc_case(case_type: str, original, modified) -> Case:
    """A creation case with no expectation: only the library's answer is looked at."""
    return Case(file="adhoc", name=case_type, description="adapter check", type=case_type, tags=(),
                inputs={"original": original, "modified": modified}, outcome=Outcome(), provenance=())


@pytest.mark.parametrize("name", ["python-json-merge-patch", "js-json-merge-patch"])
def test_merge_patch_creation(targets, name):
    target = target_for(targets, name)
    actual = target.run(adhoc_case("merge-patch-2way", {"a": 1, "b": {"c": 2, "d": 3}, "e": [1, 2]},
                                   {"a": 1, "b": {"c": 5}, "e": [1], "f": "x"}))
    assert actual.error is None
    assert actual.patch == {"b": {"c": 5, "d": None}, "e": [1], "f": "x"}
    assert actual.document == {"a": 1, "b": {"c": 5}, "e": [1], "f": "x"}
    same = target.run(adhoc_case("merge-patch-2way", {"a": 1}, {"a": 1}))
    if name == "python-json-merge-patch":
        assert same.error is None and same.patch == {}
    else:  # generate() answers undefined for "no difference", which is no JSON patch
        assert same.error is not None and same.error.error_class == "unclassified"
        assert "undefined" in same.error.message


def test_kubesdk_strategic_patch_creation(targets):
    target = target_for(targets, "python-kubesdk")
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    actual = target.run(adhoc_case("strategic-2way", {**configmap, "data": {"a": "1", "b": "2"}},
                                   {**configmap, "data": {"a": "1", "c": "3"}}))
    assert actual.error is None
    assert actual.patch == {"data": {"b": None, "c": "3"}}
    custom = {"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}}
    unknown = target.run(adhoc_case("strategic-2way", {**custom, "spec": {"a": 1}}, {**custom, "spec": {"a": 2}}))
    assert unknown.error is not None and unknown.error.error_class == "unclassified"
    assert "no model" in unknown.error.message
