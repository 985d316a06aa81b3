from patchconf.harness.cli import main
from patchconf.harness.corpus.cases import load_file
from patchconf.harness.provenance.record import write_confirmations
from patchconf.harness.provenance.verify import Confirmation, missing_provenance, verify
from patchconf.harness.targets.base import Actual, ActualError

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
    write_confirmations(relative)
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


def test_a_case_taking_the_default_confirmed_alone_gets_its_own_list_and_the_default_stays(write_case_file):
    own = '    provenance:\n      - {implementation: kubectl, version: "1.31.0"}\n'
    path = write_case_file("json-patch/inherit.yaml", CASES.replace(own, ""))
    cases, _ = load_file(path)
    (change,) = write_confirmations([Confirmation(cases[0], "upstream", "1.32.4", "the judge")])
    assert change.error == ""
    reloaded, errors = load_file(path)
    assert errors == []
    assert [[(p["implementation"], p["version"]) for p in case.provenance] for case in reloaded] == [
        [("kubectl", "1.32.4"), ("upstream", "1.32.4")], [("kubectl", "1.32.4")]]
    assert path.read_text().count("{implementation: kubectl, version: \"1.32.4\"}") == 2


NEW_FILE = """\
description: a contributor's new cases, not yet confirmed by anyone
defaults:
  type: json-patch
  tags: [JP-ADD]
cases:
  - name: right
    description: the contributor guessed right
    original: {a: 1}
    patch: [{op: add, path: /b, value: 2}]
    expected: {a: 1, b: 2}
  - name: wrong
    description: the contributor guessed wrong
    original: {a: 1}
    patch: [{op: add, path: /b, value: 2}]
    expected: {a: 1, b: 3}
"""


def _judges(monkeypatch, scripted, answers):
    targets = {"upstream": scripted(answers, family="upstream", version="1.32.4"),
               "kubectl": scripted(answers, family="kubectl", version="1.31.2")}
    monkeypatch.setattr("patchconf.harness.cli.make_target", lambda spec, **options: targets[spec])


def test_verify_names_the_judge_of_every_verdict_and_fails_on_a_contradiction(write_case_file, scripted, capsys,
                                                                             monkeypatch):
    path = write_case_file("json-patch/new.yaml", NEW_FILE)
    _judges(monkeypatch, scripted, {"right": Actual(document={"a": 1, "b": 2}),
                                    "wrong": Actual(document={"a": 1, "b": 2})})
    assert main(["verify", "--cases", str(path), "--judges", "upstream,kubectl"]) == 1
    out = capsys.readouterr().out
    assert "CONFIRMED cases/json-patch/new.yaml::right by upstream 1.32.4, kubectl 1.31.2" in out
    assert "CONTRADICTED cases/json-patch/new.yaml::wrong by upstream 1.32.4: document /b: expected 3, got 2" in out
    assert "CONTRADICTED cases/json-patch/new.yaml::wrong by kubectl 1.31.2: document /b: expected 3, got 2" in out
    assert "judges: upstream 1.32.4, kubectl 1.31.2; 1 of 2 cases confirmed, 2 contradictions" in out


def test_verify_write_records_provenance_in_the_file_it_was_given(write_case_file, scripted, capsys, monkeypatch):
    path = write_case_file("json-patch/new.yaml", NEW_FILE.replace("b: 3}", "b: 2}"))
    _judges(monkeypatch, scripted, {"right": Actual(document={"a": 1, "b": 2}),
                                    "wrong": Actual(document={"a": 1, "b": 2})})
    assert load_file(path)[1] != []  # nobody confirmed them yet: not corpus cases
    assert main(["verify", "--cases", str(path), "--judges", "upstream,kubectl", "--write"]) == 0
    assert "recorded 4 confirmations in 1 files" in capsys.readouterr().out
    cases, errors = load_file(path)
    assert errors == []
    assert [(p["implementation"], p["version"]) for p in cases[0].provenance] == [
        ("kubectl", "1.31.2"), ("upstream", "1.32.4")]
    assert main(["validate", str(path)]) == 0


def test_verify_names_file_case_and_pointer_of_every_problem_and_fails(write_case_file, scripted, capsys,
                                                                       monkeypatch):
    _judges(monkeypatch, scripted, {})
    broken = NEW_FILE.replace("expected: {a: 1, b: 2}", "expected: {a: 1, b: 2}\n    expected_patch: 7\n"
                              "    tags: JP-ADD")
    path = write_case_file("json-patch/broken.yaml", broken)
    assert main(["verify", "--cases", str(path), "--judges", "upstream", "-k", "right"]) == 1
    captured = capsys.readouterr()
    assert ('LOAD ERROR cases/json-patch/broken.yaml:12:11: cases/json-patch/broken.yaml::right: "JP-ADD" is not '
            'of type "array"') in captured.out
    assert "no case to verify (see the load errors above)" in captured.err
    # a case lacking provenance is fine under verification, one lacking its expectation is not
    path = write_case_file("json-patch/inputs.yaml", NEW_FILE.replace("    expected: {a: 1, b: 3}\n", ""))
    _judges(monkeypatch, scripted, {"right": Actual(document={"a": 1, "b": 2})})
    assert main(["verify", "--cases", str(path), "--judges", "upstream"]) == 1
    out = capsys.readouterr().out
    assert ("LOAD ERROR cases/json-patch/inputs.yaml:11:5: cases/json-patch/inputs.yaml::wrong: needs one "
            "expectation") in out
    assert "CONFIRMED cases/json-patch/inputs.yaml::right by upstream 1.32.4" in out


def test_require_confirmation_fails_a_case_no_judge_could_run(write_case_file, scripted, capsys, monkeypatch):
    path = write_case_file("json-patch/new.yaml", NEW_FILE.replace("b: 3}", "b: 2}"))
    judge = scripted({}, family="upstream", version="1.32.4", patch_types=frozenset({"strategic"}))
    monkeypatch.setattr("patchconf.harness.cli.make_target", lambda spec, **options: judge)
    assert main(["verify", "--cases", str(path), "--judges", "upstream"]) == 0
    assert main(["verify", "--cases", str(path), "--judges", "upstream", "--require-confirmation"]) == 1
    assert ("UNCONFIRMED cases/json-patch/new.yaml::right: no judge reproduced its expectation "
            "(upstream 1.32.4: skipped: upstream does not run 'json-patch' cases)") in capsys.readouterr().out


def test_only_kubernetes_own_code_judges(write_case_file, scripted, capsys, monkeypatch):
    path = write_case_file("json-patch/new.yaml", NEW_FILE)
    judge = scripted({}, family="reference", version="0.1.0")
    monkeypatch.setattr("patchconf.harness.cli.make_target", lambda spec, **options: judge)
    assert main(["verify", "--cases", str(path), "--judges", "reference"]) == 2
    assert "'reference' is not Kubernetes' own code; not a judge" in capsys.readouterr().err
    path.write_text(NEW_FILE.replace("    expected: {a: 1, b: 3}\n", ""))
    assert main(["record", "--cases", str(path), "--judges", "reference"]) == 2
    assert "'reference' is not Kubernetes' own code; not a judge" in capsys.readouterr().err
