"""benchmarks/strategic_apply.py: the same inputs through the reference and upstream, side by side."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "strategic_apply.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("strategic_apply", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_patch_changes_image_and_one_env_var_of_every_tenth_container(bench):
    containers = bench.patch(25)["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["c0", "c10", "c20"]
    assert containers[1] == {"name": "c10", "image": "registry.example/app10:2.0",
                             "env": [{"name": "VAR_7", "value": "changed"}]}
    assert len(bench.deployment(25)["spec"]["template"]["spec"]["containers"][24]["env"]) == 20


def test_the_table_shows_both_figures_their_ratio_and_whether_the_results_agree(bench):
    rows = [bench.Row(100, 12.0, 4.0, True), bench.Row(1000, 80.0, None, None)]
    assert bench.format_table(rows).splitlines() == [
        "containers  reference ms/op  upstream ms/op   ratio  same",
        "       100             12.0             4.0    3.00   yes",
        "      1000             80.0             n/a              ",
    ]


def test_reference_only_run_prints_its_row(bench, capsys):
    assert bench.main(["--sizes", "10", "--no-upstream"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# ") and "upstream: not run" in lines[0]
    assert lines[3].split()[0] == "10" and lines[3].split()[2] == "n/a"


@pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed: upstream is built from Go modules")
def test_upstream_times_the_same_inputs_and_reaches_the_same_document(bench):
    from harness.targets.upstream import build

    row, kubernetes = bench.measure(30, build())
    assert row.same_result is True
    assert row.upstream_ms > 0 and row.reference_ms > 0
    assert row.ratio == row.reference_ms / row.upstream_ms
    assert kubernetes.startswith("1.")


SSA_BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "server_side_apply.py"


@pytest.fixture(scope="module")
def ssa_bench():
    spec = importlib.util.spec_from_file_location("server_side_apply", SSA_BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_ssa_benchmark_is_apply_update_forced_apply_on_every_tenth_container(ssa_bench):
    steps = ssa_bench.steps(25)
    assert [(s["op"], s["manager"], s.get("force", False)) for s in steps] == [
        ("apply", "gitops", False), ("update", "controller", False), ("apply", "gitops", True)]
    images = [c["image"] for c in steps[1]["object"]["spec"]["template"]["spec"]["containers"]]
    assert [i for i, image in enumerate(images) if image.endswith(":2.0")] == [0, 10, 20]
    env = steps[2]["object"]["spec"]["template"]["spec"]["containers"][10]["env"]
    assert env[7] == {"name": "VAR_7", "value": "changed"} and env[6] == {"name": "VAR_6", "value": "value-10-6"}


def test_ssa_benchmark_reference_answers_every_step(ssa_bench):
    from harness.targets.reference import ReferenceTarget

    answer = ReferenceTarget().run(ssa_bench.case(3))
    steps = answer.document["steps"]
    assert [sorted(step) for step in steps] == [["changed", "document", "managed_fields"]] * 3
    assert [entry["manager"] for entry in steps[1]["managed_fields"]] == ["gitops", "controller"]
    assert [entry["manager"] for entry in steps[2]["managed_fields"]] == ["gitops"]
