from harness.cases import load_file
from harness.matrix import column_labels, matrix_html, matrix_markdown
from harness.report import Run
from harness.runner import run_cases
from harness.targets.base import Actual

CASES = """
    defaults:
      type: json-patch
      tags: [JP-ADD]
      provenance: [{implementation: kubectl, version: "1.32.4"}]
    cases:
      - name: plain
        description: plain add
        original: {a: 1}
        patch: [{op: add, path: /b, value: 2}]
        expected: {a: 1, b: 2}
      - name: negative
        description: negative index
        tags: [JP-K8S]
        original: {a: [1]}
        patch: [{op: add, path: /a/-1, value: 2}]
        expected: {a: [1, 2]}
        profiles:
          rfc: {expected_error: {class: invalid-index}, reason: RFC 6902 4.1}
"""


def test_matrix_shows_rates_per_behaviour_and_cells_per_case(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    good = scripted({"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})},
                    family="good")
    strict = scripted({"plain": Actual(document={"a": 1, "b": 2}),
                       "negative": Actual(document={"a": [1, 2]})}, family="strict", profile="rfc")
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in (good, strict)]
    text = matrix_markdown(runs)
    assert "| JP-ADD | 100% (1/1) | 100% (1/1) |" in text
    assert "| JP-K8S | 100% (1/1) | 0% (0/1) |" in text
    assert "m.yaml::negative` | ✓ | ✗ |" in text
    differing = text.split("## Cases on which the targets differ")[1].split("## Failures by target")[0]
    assert "1 of 2 cases." in differing and "m.yaml::negative` | ✓ | ✗ |" in differing
    assert "m.yaml::plain" not in differing
    failures = text.split("## Failures by target")[1].split("## Every case")[0]
    assert "### good: none" in failures
    assert "| `cases/json-patch/m.yaml::negative` | expected error 'invalid-index', got success" in failures
    assert "<td>JP-K8S</td><td>100% (1/1)</td><td>0% (0/1)</td>" in matrix_html(runs)


def test_command_targets_are_labelled_by_their_implementation(scripted):
    first = scripted({}, family="python-jsonpatch")
    second = scripted({}, family="python-jsonpatch")
    runs = [Run("cmd:python a.py", first.info, []), Run("cmd:python a.py --strict", second.info, []),
            Run("upstream@1.27", first.info, [])]
    assert column_labels(runs) == ["python-jsonpatch #1", "python-jsonpatch #2", "upstream@1.27"]
