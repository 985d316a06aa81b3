from harness.cases import load_file
from harness.matrix import matrix_html, matrix_markdown
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
    assert "<td>JP-K8S</td><td>100% (1/1)</td><td>0% (0/1)</td>" in matrix_html(runs)
