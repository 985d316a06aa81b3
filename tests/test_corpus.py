"""Invariants of the bundled corpus: it loads, it is portable, it is covered, and the
expectations still agree with the real Kubernetes code that its provenance names."""

import shutil
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import iter_case_files, load_corpus
from patchconf.harness.corpus.coverage import coverage, minimum_for
from patchconf.harness.corpus.yamlio import yaml11_differences
from patchconf.harness.running.runner import ERROR, FAIL, PASS, SKIP, run_cases
from patchconf.harness.targets.upstream import available as upstream_available

CASES = Path(__file__).resolve().parent.parent / "cases"
# Behaviour families whose corpus is complete: each id needs its minimum of cases.
COMPLETE_FAMILIES = ("JP-", "MP-", "SMP-", "SMP2-", "APPLY-", "LIVE-", "SSA-")


@pytest.fixture(scope="module")
def corpus():
    loaded = load_corpus([CASES])
    assert [str(e) for e in loaded.errors] == []
    return loaded


def test_every_case_file_reads_the_same_under_yaml_1_1():
    problems = []
    for path in iter_case_files([CASES]):
        if path.suffix in (".yaml", ".yml"):
            problems += [f"{path.name}: {d}" for d in yaml11_differences(path.read_text(encoding="utf-8"))]
    assert problems == []


@pytest.mark.parametrize("family", COMPLETE_FAMILIES)
def test_behaviour_family_is_covered(corpus, family):
    table = coverage(corpus.cases, CASES)
    short = {b: n for b, n in table.items() if b.startswith(family) and n < minimum_for(b)}
    assert short == {}


def test_case_ids_are_unique(corpus):
    ids = [case.id for case in corpus.cases]
    assert len(ids) == len(set(ids))


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")
def test_kubectl_confirms_every_case_it_is_credited_with(corpus):
    """Provenance is checked, not trusted: kubectl re-runs every case naming it."""
    from patchconf.harness.targets.kubectl import KubectlTarget

    # apply cases are credited to kubectl apply, re-run by the kubectl-apply test below
    credited = [c for c in corpus.cases
                if c.type != "apply" and any(p["implementation"] == "kubectl" for p in c.provenance)]
    target = KubectlTarget()
    try:
        results = run_cases(credited, target)
    finally:
        target.close()
    problems = [f"{r.case.id}: {r.status}: {r.reason}" for r in results if r.status in (FAIL, ERROR)]
    not_run = [f"{r.case.id}: {r.reason}" for r in results if r.status == SKIP]
    assert problems == []
    assert not_run == [], "cases credited to kubectl that kubectl cannot run"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH: kubectl apply cannot re-confirm")
def test_kubectl_apply_confirms_every_apply_case(corpus):
    """The real kubectl apply, against the recording endpoint, re-runs every apply case;
    only declared divergences may differ."""
    from patchconf.harness.targets.kubectl_apply import KubectlApplyTarget

    # Cases restricted to other targets (e.g. live-only) are not kubectl-apply's to confirm.
    apply_cases = [c for c in corpus.cases if c.type == "apply" and (not c.targets or "kubectl" in c.targets)]
    if not apply_cases:
        pytest.skip("the corpus has no apply cases")
    target = KubectlApplyTarget()
    try:
        results = run_cases(apply_cases, target)
    finally:
        target.close()
    problems = [f"{r.case.id}: {r.status}: {r.reason}" for r in results if r.status in (FAIL, ERROR)]
    not_run = [f"{r.case.id}: {r.reason}" for r in results if r.status == SKIP]
    assert problems == []
    assert not_run == [], "apply cases kubectl apply cannot run"


@pytest.mark.skipif(not upstream_available(), reason="neither Go nor the judges wheel: no upstream")
def test_upstream_agrees_with_every_case(corpus):
    """Kubernetes' own Go code runs the whole corpus; only declared divergences may differ."""
    from patchconf.harness.targets.upstream import UpstreamTarget

    target = UpstreamTarget()
    try:
        results = run_cases(corpus.cases, target)
    finally:
        target.close()
    problems = [f"{r.case.id}: {r.status}: {r.reason}" for r in results if r.status in (FAIL, ERROR)]
    assert problems == []
    credited = {c.id for c in corpus.cases if any(p["implementation"] == "upstream" for p in c.provenance)}
    not_run = [f"{r.case.id}: {r.reason}" for r in results if r.status == SKIP and r.case.id in credited]
    assert not_run == [], "cases credited to upstream that upstream cannot run"


@pytest.mark.parametrize("release", ["1.27", "1.28", "1.29", "1.33", "1.34", "1.36", "1.37"])
def test_reference_of_a_release_follows_the_cases_on_changed_behaviour(corpus, release):
    """reference:1.MINOR answers the SSA-RELEASE cases as that release does: by the case, or by
    the divergence declared for the release's range."""
    from patchconf.harness.targets.reference import ReferenceTarget

    # cases for other targets only (validation refusals: live and upstream) are not the reference's
    cases = [c for c in corpus.cases if "SSA-RELEASE" in c.tags and (not c.targets or "reference" in c.targets)]
    assert len(cases) >= 15
    results = run_cases(cases, ReferenceTarget(release))
    assert [f"{r.case.id}: {r.status}: {r.reason}" for r in results if r.status != PASS] == []


@pytest.mark.parametrize("release", ["1.27", "1.32", "1.34"])
def test_the_reference_changes_no_input_of_any_case(corpus, release):
    """The reference target hands every case its inputs uncopied (the implementation changes none of
    its arguments; apiserver.run_case copies what it keeps): after every case has run, every input is
    as the file has it."""
    import json

    from patchconf.harness.corpus.compare import json_equal
    from patchconf.harness.targets.reference import ReferenceTarget

    before = [json.loads(json.dumps(dict(case.inputs))) for case in corpus.cases]
    results = run_cases(corpus.cases, ReferenceTarget(release), workers=1)
    assert len(results) == len(before)
    changed = [case.id for case, inputs in zip(corpus.cases, before, strict=True) if not json_equal(dict(case.inputs),
                                                                                                  inputs)]
    assert changed == []
