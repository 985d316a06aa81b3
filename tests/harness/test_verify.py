from harness.cases import load_file
from harness.targets.base import Actual, ActualError
from harness.verify import Confirmation, missing_provenance, record, verify

CASES = """\
description: verify demo
defaults:
  type: json-patch
  tags: [JP-ADD]
  provenance:
    - {implementation: kubectl, version: "1.32.4"}
cases:
  - name: one
    description: first
    original: {a: 1}
    patch: [{op: add, path: /b, value: 2}]
    expected: {a: 1, b: 2}

  - name: two
    description: second   # a comment that must survive
    original: {a: 1}
    patch: [{op: add, path: /c, value: 3}]
    expected: {a: 1, c: 3}
    provenance:
      - {implementation: kubectl, version: "1.31.0"}
"""


def test_verify_records_confirmations_without_disturbing_the_file(write_case_file, scripted, tmp_path):
    path = write_case_file("json-patch/verify.yaml", CASES)
    cases, _ = load_file(path)
    judge = scripted({"one": Actual(document={"a": 1, "b": 2}), "two": Actual(document={"a": 1, "c": 3})},
                     family="upstream", version="1.32.4")
    wrong = scripted({"one": Actual(document={"a": 1}), "two": Actual(document={"a": 1, "c": 3})},
                     family="kubectl", version="1.32.4")
    verification = verify(cases, [judge, wrong])
    assert [r.case.name for r in verification.contradictions] == ["one"]
    assert not verification.ok
    missing = missing_provenance(verification)
    assert sorted((c.case.name, c.implementation) for c in missing) == [
        ("one", "upstream"), ("two", "kubectl"), ("two", "upstream")]

    root = path.parents[2]
    relative = [Confirmation(c.case.__class__(**{**c.case.__dict__, "file": str(path.relative_to(root))}),
                             c.implementation, c.version) for c in missing]
    record(relative, root)
    text = path.read_text()
    assert "# a comment that must survive" in text
    reloaded, errors = load_file(path)
    assert errors == []
    provenance = {c.name: [(p["implementation"], p["version"]) for p in c.provenance] for c in reloaded}
    assert provenance == {
        "one": [("kubectl", "1.32.4"), ("upstream", "1.32.4")],
        "two": [("kubectl", "1.31.0"), ("kubectl", "1.32.4"), ("upstream", "1.32.4")],
    }
    # "one" was the only case taking the default, so the default list grew
    assert '  provenance:\n    - {implementation: kubectl, version: "1.32.4"}\n    - {implementation: upstream' in text


def test_an_unclassified_rejection_neither_confirms_nor_contradicts(write_case_file, scripted):
    text = CASES.replace("expected: {a: 1, b: 2}", "expected_error: {class: path-not-found}")
    cases, _ = load_file(write_case_file("json-patch/verify-unclassified.yaml", text))
    judge = scripted({"one": Actual(error=ActualError("unclassified", "no such member")),
                      "two": Actual(document={"a": 1, "c": 3})}, family="upstream", version="1.32.4")
    verification = verify(cases, [judge])
    assert verification.ok
    assert [(c.case.name, c.implementation) for c in verification.confirmations] == [("two", "upstream")]
