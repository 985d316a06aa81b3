"""benchmarks/strategic_apply.py: the same inputs through the reference and upstream, side by side
(apply, two-way and three-way creation)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from patchconf.harness.targets.upstream import available as upstream_available

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


def test_the_new_configuration_changes_image_and_one_env_var_of_every_tenth_container(bench):
    original = bench.deployment(25)["spec"]["template"]["spec"]["containers"]
    modified = bench.changed_deployment(25)["spec"]["template"]["spec"]["containers"]
    changed = [i for i, (before, after) in enumerate(zip(original, modified, strict=True)) if before != after]
    assert changed == [0, 10, 20]
    assert modified[10]["image"] == "registry.example/app10:2.0"
    assert [i for i, (a, b) in enumerate(zip(original[10]["env"], modified[10]["env"], strict=True)) if a != b] == [7]
    assert modified[10]["env"][7] == {"name": "VAR_7", "value": "changed"}


def test_the_live_object_carries_what_a_server_adds(bench):
    live = bench.live_deployment(3)
    names = [c["name"] for c in live["spec"]["template"]["spec"]["containers"]]
    assert names == ["c0", "c1", "c2", "proxy-sidecar"]
    assert live["status"] == {"replicas": 3, "readyReplicas": 3, "observedGeneration": 4}
    assert {"uid", "resourceVersion", "generation", "creationTimestamp"} <= live["metadata"].keys()


@pytest.mark.parametrize("operation", ["two-way", "three-way"])
def test_reference_creation_answers_the_patch_of_the_change(bench, operation):
    # Three-way: the sidecar and status of the live object are not in the last-applied
    # configuration, so they stay; the patch is the two-way one.
    texts = [json.dumps(document) for document in bench.OPERATIONS[operation].inputs(11).values()]
    timings, text = bench.reference_run(bench.OPERATIONS[operation], texts, 2)
    assert len(timings) == 2 and all(ms > 0 for ms in timings)
    env_order = [{"name": f"VAR_{j}"} for j in range(20)]
    assert json.loads(text) == {"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": f"c{i}"} for i in range(11)],
        "containers": [
            {"name": f"c{i}", "image": f"registry.example/app{i}:2.0",
             "$setElementOrder/env": env_order, "env": [{"name": "VAR_7", "value": "changed"}]}
            for i in (0, 10)
        ],
    }}}}


def test_reference_only_run_prints_a_table_per_operation(bench, capsys):
    assert bench.main(["--sizes", "10", "--no-upstream"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("# ") and "upstream: not run" in lines[0]
    assert [line for line in lines if line.startswith("## ")] == [
        "## apply: StrategicMergePatch(object, patch)",
        "## two-way creation: CreateTwoWayMergePatch(original, modified)",
        "## three-way creation: CreateThreeWayMergePatch(original, modified, current, overwrite=true)",
    ]
    rows = [line.split() for line in lines if line.split() and line.split()[0] == "10"]
    assert len(rows) == 3 and all(row[2] == "n/a" for row in rows)


def test_ops_chooses_the_tables_and_refuses_unknown_ones(bench, capsys):
    assert bench.main(["--ops", "three-way", "--sizes", "5", "--no-upstream"]) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if line.startswith("## ")] == [
        "## three-way creation: CreateThreeWayMergePatch(original, modified, current, overwrite=true)"]
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--ops", "merge", "--no-upstream"])
    assert exit_info.value.code == 2
    assert "unknown operation 'merge'" in capsys.readouterr().err


@pytest.mark.skipif(not upstream_available(), reason="neither Go nor the judges wheel: no upstream")
@pytest.mark.parametrize("operation", ["apply", "two-way", "three-way"])
def test_upstream_times_the_same_inputs_and_gives_the_same_answer(bench, operation):
    from patchconf.harness.targets.upstream import build

    row, kubernetes = bench.measure(bench.OPERATIONS[operation], 30, build())
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
    from patchconf.harness.targets.reference import ReferenceTarget

    answer = ReferenceTarget().run(ssa_bench.case(3))
    steps = answer.document["steps"]
    assert [sorted(step) for step in steps] == [["changed", "document", "managed_fields"]] * 3
    assert [entry["manager"] for entry in steps[1]["managed_fields"]] == ["gitops", "controller"]
    assert [entry["manager"] for entry in steps[2]["managed_fields"]] == ["gitops"]
