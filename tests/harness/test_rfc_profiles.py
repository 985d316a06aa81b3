"""patchconf verify --rfc: RFC claims put to libraries of two languages (here the fault target, tests/harness/
fault_target.py, under two names: its answer to an add of /b/c is a member named "b/c")."""

from __future__ import annotations

import textwrap
from pathlib import Path

from patchconf.harness.cli import main
from patchconf.harness.corpus.cases import load_file
from patchconf.harness.provenance.rfc_profiles import RfcLibrary, check_rfc_profiles
from tests.harness.corpus_snippets import case_file

FAULT_TARGET = Path(__file__).resolve().parent / "fault_target.py"
PYTHON = RfcLibrary("fault-python", "Python", ("json-patch",), "python", FAULT_TARGET.name)
SCRIPT = RfcLibrary("fault-script", "JavaScript", ("json-patch",), "python", FAULT_TARGET.name)
SAME_LANGUAGE = RfcLibrary("fault-python-again", "Python", ("json-patch",), "python", FAULT_TARGET.name)

CASES = case_file("""
      - name: fine.plain
        description: the libraries add x as Kubernetes does
        original: {a: 1}
        patch: [{op: add, path: /x, value: 1}]
        expected: {a: 1, x: 1}
      - name: fine.kubernetes-departs
        description: Kubernetes' answer is not the libraries', and no profile says what the RFC's is
        original: {b: {}}
        patch: [{op: add, path: /b/c, value: 2}]
        expected: {b: {c: 2}}
      - name: fine.profile-wrong
        description: the profile claims an error the libraries do not give
        original: {b: {}}
        patch: [{op: add, path: /b/c, value: 2}]
        expected: {b: {c: 2}}
        profiles:
          rfc: {expected_error: {class: path-not-found}, reason: made up}
      - name: fine.profile-right
        description: the profile states the libraries' answer
        original: {b: {}}
        patch: [{op: add, path: /b/c, value: 2}]
        expected: {b: {c: 2}}
        profiles:
          rfc: {expected: {b: {}, b/c: 2}, reason: as the libraries answer}
      - name: crash
        description: no library answers
        original: {a: 1}
        patch: [{op: add, path: /x, value: 1}]
        expected: {a: 1, x: 1}
""")


def _cases(write_case_file):
    cases, errors = load_file(write_case_file("json-patch/rfc.yaml", CASES))
    assert not errors
    return cases


def test_libraries_of_two_languages_agreeing_contradict_a_missing_or_wrong_profile(write_case_file):
    check = check_rfc_profiles(_cases(write_case_file), [PYTHON, SCRIPT], adapters=FAULT_TARGET.parent)
    assert [(d.case.name, d.claim) for d in check.departures] == [
        ("fine.kubernetes-departs", "the case (no profiles.rfc)"), ("fine.profile-wrong", "profiles.rfc")]
    assert (check.confirmed, [case.name for case in check.undecided], check.unchecked_types) == (2, ["crash"], [])
    assert not check.ok
    lines = check.report_lines()
    assert lines == [
        "RFC-PROFILE cases/json-patch/rfc.yaml::fine.kubernetes-departs: no profiles.rfc, though Kubernetes' answer "
        "(the document {\"b\": {\"c\": 2}}) is not the RFC libraries': fault-python 1.0 (Python) and fault-script 1.0 "
        "(JavaScript) agree on the document {\"b\": {}, \"b/c\": 2}",
        "RFC-PROFILE cases/json-patch/rfc.yaml::fine.profile-wrong: profiles.rfc says error path-not-found, but "
        "fault-python 1.0 (Python) and fault-script 1.0 (JavaScript) agree on the document {\"b\": {}, \"b/c\": 2}",
        "rfc: fault-python 1.0 (Python), fault-script 1.0 (JavaScript); 2 cases confirmed, 2 departures, "
        "1 undecided (no two libraries of different languages agreed)"]


def test_libraries_of_one_language_settle_nothing(write_case_file):
    check = check_rfc_profiles(_cases(write_case_file), [PYTHON, SAME_LANGUAGE], adapters=FAULT_TARGET.parent)
    assert (check.departures, check.confirmed, check.unchecked_types) == ([], 0, ["json-patch"])
    assert not check.ok
    assert "rfc: json-patch cases not checked: fewer than two languages of RFC libraries ran" in check.report_lines()


def test_an_unavailable_library_is_named_and_leaves_its_type_unchecked(write_case_file, tmp_path):
    missing = RfcLibrary("missing", "JavaScript", ("json-patch",), "python", "no-such-adapter.py")
    check = check_rfc_profiles(_cases(write_case_file), [PYTHON, missing], adapters=FAULT_TARGET.parent)
    assert len(check.unavailable) == 1 and check.unavailable[0].startswith("missing: ")
    assert "no-such-adapter.py" in check.unavailable[0]
    assert check.unchecked_types == ["json-patch"] and not check.ok


def test_verify_rfc_alone_passes_the_corpus_json_patch_files_it_is_given(tmp_path, capsys):
    # the committed profiles of the fuzzed cases the check found, on the real libraries where installed
    case_file = tmp_path / "cases" / "one.yaml"
    case_file.parent.mkdir()
    case_file.write_text(textwrap.dedent("""
        cases:
          - name: plain
            description: an add both libraries make as Kubernetes does
            type: json-patch
            tags: [JP-ADD]
            provenance: [{implementation: kubectl, version: "1.32.4"}]
            original: {a: 1}
            patch: [{op: add, path: /x, value: 1}]
            expected: {a: 1, x: 1}
        """), encoding="utf-8")
    code = main(["verify", "--rfc", "--judges", "", "--cases", str(case_file)])
    out = capsys.readouterr().out
    if "json-patch cases not checked" in out:  # jsonpatch or node not installed here: the check says so and fails
        assert code == 1
    else:
        assert code == 0 and "1 case confirmed, 0 departures, 0 undecided" in out


REFUSAL_CASES = case_file("""
      - name: refused
        description: Kubernetes refuses with path-not-found
        original: {a: 1}
        patch: [{op: test, path: /b/c, value: null}]
        expected_error: {class: path-not-found}
""", tags="JP-TEST")


def test_a_library_judged_by_the_rfcs_is_judged_on_refusing_alone(write_case_file, scripted):
    from patchconf.harness.running.runner import run_cases
    from patchconf.harness.targets.base import Actual, ActualError

    cases, errors = load_file(write_case_file("json-patch/refusal.yaml", REFUSAL_CASES))
    assert not errors
    answer = {"refused": Actual(error=ActualError("test-failed", "member 'b' not found"))}
    by_rfc = run_cases(cases, scripted(answer, profile="rfc"))[0]
    by_kubernetes = run_cases(cases, scripted(answer))[0]
    assert (by_rfc.status, by_rfc.judged_by) == ("pass", "case; a refusal whatever its class (the RFCs name none)")
    assert (by_kubernetes.status, by_kubernetes.reason) == (
        "fail", "expected error 'path-not-found', got 'test-failed': member 'b' not found")
