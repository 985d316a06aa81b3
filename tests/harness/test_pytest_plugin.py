"""`pytest cases/` collects each case as an item named file::case."""

import shutil
from pathlib import Path

from tests.harness.corpus_snippets import case_file

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]

CASE_FILE = case_file("""
  - name: passes
    description: adds a member
    original: {a: 1}
    patch: [{op: add, path: /b, value: 2}]
    expected: {a: 1, b: 2}
  - name: fails
    description: wrong expectation on purpose
    original: {a: 1}
    patch: [{op: add, path: /b, value: 2}]
    expected: {a: 1, b: 3}
  - name: broken
    description: no expectation
    original: {a: 1}
    patch: []
""")


def test_cases_become_items_with_diffs(pytester):
    root = pytester.path / "cases"
    (root / "json-patch").mkdir(parents=True)
    shutil.copy(REPO / "cases" / "case.schema.json", root / "case.schema.json")
    shutil.copy(REPO / "cases" / "BEHAVIOURS.md", root / "BEHAVIOURS.md")
    (root / "json-patch" / "demo.yaml").write_text(CASE_FILE)
    (root / "schemas").mkdir()
    (root / "schemas" / "ignored.yaml").write_text("definitions: {}\n")
    result = pytester.runpytest_subprocess("cases", "-v")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        "*demo.yaml::broken FAILED*",
        "*demo.yaml::passes PASSED*",
        "*demo.yaml::fails FAILED*",
        "*load error: cases/json-patch/demo.yaml:16:5: cases/json-patch/demo.yaml::broken: needs one expectation*",
        "*document /b: expected 3, got 2*",
    ])


def test_pytest_k_selects_a_renamed_case_by_its_former_name(pytester):
    root = pytester.path / "cases"
    (root / "json-patch").mkdir(parents=True)
    shutil.copy(REPO / "cases" / "case.schema.json", root / "case.schema.json")
    shutil.copy(REPO / "cases" / "BEHAVIOURS.md", root / "BEHAVIOURS.md")
    renamed = CASE_FILE.replace("  - name: passes\n", "  - name: adds-member\n    aliases: [passes-old]\n")
    (root / "json-patch" / "demo.yaml").write_text(renamed)
    result = pytester.runpytest_subprocess("cases", "-v", "-k", "passes-old")
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.fnmatch_lines(["*demo.yaml::adds-member PASSED*"])
