"""The Go peer targets (peer:NAME, targets/peers/): built on first use, run through the protocol.

Each peer is built once (kyaml takes about a minute cold) and a few corpus cases are run
with the exact status each gets - the library's real answers, including answers the corpus
judges wrong, which must come back as failures. Those tests skip where Go is not installed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.cases import load_corpus
from harness.runner import FAIL, PASS, SKIP, run_case
from harness.targets import TargetUnavailable, make_target

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
USED = (JP_A1, JP_REMOVE_MISSING, JP_NEGATIVE_INDEX, JP_NON_NUMERIC_INDEX, MP_BIG_INT, MP_CREATE_MISMATCH,
        SMP_UPDATE_IMAGE, SMP_ADD_CONTAINER, SMP_FLOAT_ZERO_FRACTION, SMP_LIST_PATCHED_WITH_MAPS)


@pytest.fixture(scope="module")
def corpus_cases():
    corpus = load_corpus(sorted({REPO / case_id.split("::")[0] for case_id in USED}))
    assert not corpus.errors, corpus.errors
    return {case.id: case for case in corpus.cases}


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
    (MP_CREATE_MISMATCH, PASS, "case"),  # "Mismatched JSON Documents" is type-mismatch
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


def test_an_unknown_peer_names_the_known_ones():
    with pytest.raises(TargetUnavailable, match=r"no peer 'nope'.*evanphx-json-patch-v5, kustomize-kyaml"):
        make_target("peer:nope")


def test_a_peer_without_a_name_is_refused():
    with pytest.raises(TargetUnavailable, match="give a peer name"):
        make_target("peer:")


def test_without_go_a_peer_is_unavailable_with_the_reason(monkeypatch, tmp_path):
    import harness.targets.upstream as upstream

    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path))
    monkeypatch.setattr(upstream.shutil, "which", lambda name: None)
    with pytest.raises(TargetUnavailable, match="Go is not installed"):
        make_target("peer:kustomize-kyaml")
