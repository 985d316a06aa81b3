"""Members added to cases keep every line of the file that was there."""

import difflib
import json

import pytest

from patchconf.harness.corpus.caseedit import CaseAddition, EditError, add_to_cases, flow
from patchconf.harness.corpus.yamlio import load_text, yaml11_differences

FILE = """\
description: demo   # a comment on the first line
defaults:
  type: strategic
  tags: [SMP-MAP]
cases:
  - name: block-scalar
    description: |
      Two lines
      of text.

    original:
      apiVersion: v1
      kind: ConfigMap
      data:
        x: "1"

    # a comment before the patch
    patch: {data: {y: "2"}}   # a trailing comment
    notes: after the inputs
  - {name: flow-case, description: all on a line, original: {a: 1},
     patch: {a: null}}   # a flow case
  - name: no-newline-at-end
    description: last
    original: {}
    patch: {}"""


def test_members_go_after_the_inputs_and_nothing_else_moves():
    edited = add_to_cases(FILE, [
        CaseAddition("block-scalar", {"expected": {"data": {"x": "1", "y": "2"}}, "provenance": [{"a": "b"}]}),
        CaseAddition("no-newline-at-end", {"expected": {}}),
    ])
    old, new = FILE.splitlines(), edited.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    assert {tag for tag, *_ in matcher.get_opcodes()} == {"equal", "insert"}  # lines added, none changed
    assert edited.endswith("    patch: {}\n    expected: {}\n")
    position = new.index("    patch: {data: {y: \"2\"}}   # a trailing comment")
    assert new[position + 1:position + 5] == [
        '    expected: {data: {x: "1", y: "2"}}', "    provenance:", "      - {a: b}", "    notes: after the inputs"]


def test_a_flow_case_is_rewritten_in_block_style_keeping_its_comment():
    edited = add_to_cases(FILE, [CaseAddition("flow-case", {"expected": {}})])
    assert ("  - name: flow-case  # a flow case\n    description: all on a line\n    original: {a: 1}\n"
            "    patch: {a: null}\n    expected: {}\n  - name: no-newline-at-end\n") in edited


def test_a_member_too_long_for_a_line_is_laid_out_in_blocks():
    document = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
                "spec": {"template": {"spec": {"containers": [
                    {"name": "app", "image": "registry.example.com/team/app:1.2.3", "args": ["--port", "8080"]},
                    {"name": "sidecar", "image": "registry.example.com/team/sidecar:4.5.6"}]}}}}
    edited = add_to_cases(FILE, [CaseAddition("no-newline-at-end", {"expected": document})])
    assert edited.endswith(
        "    expected:\n"
        "      apiVersion: apps/v1\n"
        "      kind: Deployment\n"
        "      metadata: {name: web, labels: {app: web}}\n"
        "      spec:\n"
        "        template:\n"
        "          spec:\n"
        "            containers:\n"
        '              - {name: app, image: "registry.example.com/team/app:1.2.3", args: [--port, "8080"]}\n'
        '              - {name: sidecar, image: "registry.example.com/team/sidecar:4.5.6"}\n')


@pytest.mark.parametrize("text", ["yes", "on", "No", "2024-01-01", "010", "0o17", "1e3", "0x1F", "1_000", "12:30",
                                  "null", "~", "true", "1.32.4", "", " lead", "a: b", "- x", "#x", "é", "\t"])
def test_strings_are_quoted_wherever_a_reader_could_take_them_for_something_else(text):
    document = {text: [text, {"k": text}]}
    edited = add_to_cases(FILE, [CaseAddition("no-newline-at-end", {"expected": document})])
    assert load_text(edited)["cases"][2]["expected"] == document
    assert yaml11_differences(edited) == []


def test_numbers_and_nulls_keep_their_types():
    document = {"i": 1, "f": 1.0, "big": 2**64 + 1, "e": 1e-7, "t": True, "n": None, "s": "1"}
    edited = add_to_cases(FILE, [CaseAddition("no-newline-at-end", {"expected": document})])
    assert json.dumps(load_text(edited)["cases"][2]["expected"]) == json.dumps(document)
    assert flow(document) == '{i: 1, f: 1.0, big: 18446744073709551617, e: 1.0e-07, t: true, n: null, s: "1"}'


def test_a_member_the_case_already_has_is_refused():
    with pytest.raises(EditError, match="already has notes"):
        add_to_cases(FILE, [CaseAddition("block-scalar", {"notes": "again"})])
    with pytest.raises(EditError, match="case 'nope' not found"):
        add_to_cases(FILE, [CaseAddition("nope", {"expected": {}})])


def test_a_json_case_file_is_rewritten_with_the_members_after_the_inputs():
    text = json.dumps({"cases": [{"name": "a", "description": "d", "original": {}, "patch": {}, "notes": "n"}]})
    edited = add_to_cases(text, [CaseAddition("a", {"expected": {}})], ".json")
    assert list(json.loads(edited)["cases"][0]) == ["name", "description", "original", "patch", "expected", "notes"]


def test_a_value_given_by_an_alias_ends_on_its_own_line():
    text = ("cases:\n  - name: a\n    description: d\n    original: &doc {a: 1}\n    patch: {}\n"
            "  - name: b\n    description: d\n    patch: {}\n    original: *doc\n    notes: n\n")
    edited = add_to_cases(text, [CaseAddition("b", {"expected": {"a": 1}})])
    assert edited.endswith("    original: *doc\n    expected: {a: 1}\n    notes: n\n")


def test_every_case_of_the_corpus_takes_new_members_without_a_changed_line():
    from pathlib import Path

    from patchconf.harness.corpus.cases import iter_case_files

    cases = Path(__file__).resolve().parents[2] / "cases"
    for path in iter_case_files([cases]):
        text = path.read_text(encoding="utf-8")
        additions = [CaseAddition(case["name"], {"expected_x": {"a": [1, "on", {"b": None}]}},
                                  tuple({"expected_y": True} for _ in case.get("steps", ())))
                     for case in load_text(text, path.suffix)["cases"]]
        edited = add_to_cases(text, additions, path.suffix)  # checks that it loads back as meant
        matcher = difflib.SequenceMatcher(None, text.splitlines(), edited.splitlines(), autojunk=False)
        assert {tag for tag, *_ in matcher.get_opcodes()} == {"equal", "insert"}, path


PROVENANCE = """\
defaults:
  type: json-patch
  provenance:
    - {implementation: kubectl, version: "1.32.4"}
cases:
  - name: own
    description: d
    original: {}
    patch: []
    expected: {}
    provenance:   # its own
      - {implementation: kubectl, version: "1.31.0"}
    notes: n
  - name: flow
    description: d
    original: {}
    patch: []
    expected: {}
    provenance: [{implementation: kubectl, version: "1.31.0"}]  # in flow style
"""


def test_items_are_appended_to_the_lists_of_a_case_and_of_the_defaults():
    entry = {"implementation": "upstream", "version": "1.32.4"}
    edited = add_to_cases(PROVENANCE, [CaseAddition("own", appended={"provenance": [entry]})],
                          defaults_appended={"provenance": [entry]})
    assert edited == PROVENANCE.replace(
        '    - {implementation: kubectl, version: "1.32.4"}\n',
        '    - {implementation: kubectl, version: "1.32.4"}\n    - {implementation: upstream, version: "1.32.4"}\n'
    ).replace(
        '      - {implementation: kubectl, version: "1.31.0"}\n    notes: n\n',
        '      - {implementation: kubectl, version: "1.31.0"}\n      - {implementation: upstream, version: "1.32.4"}\n'
        '    notes: n\n')


def test_a_list_in_flow_style_is_rewritten_whole_keeping_its_comment():
    edited = add_to_cases(PROVENANCE, [CaseAddition("flow", appended={"provenance": [{"implementation": "upstream"}]})])
    assert edited.endswith('    provenance:  # in flow style\n      - {implementation: kubectl, version: "1.31.0"}\n'
                           "      - {implementation: upstream}\n")


def test_items_for_a_list_that_is_not_there_are_refused():
    with pytest.raises(EditError, match="case 'own' has no list 'steps' to add to"):
        add_to_cases(PROVENANCE, [CaseAddition("own", appended={"steps": [{}]})])
    with pytest.raises(EditError, match="the file's defaults has no list 'tags' to add to"):
        add_to_cases(PROVENANCE, [], defaults_appended={"tags": ["JP-ADD"]})


def test_every_provenance_list_of_the_corpus_takes_an_entry_without_a_changed_line():
    from pathlib import Path

    from patchconf.harness.corpus.cases import iter_case_files

    entry = {"implementation": "upstream", "version": "1.32.4", "via": "a judge"}
    cases = Path(__file__).resolve().parents[2] / "cases"
    for path in iter_case_files([cases]):
        text = path.read_text(encoding="utf-8")
        data = load_text(text, path.suffix)
        additions = [CaseAddition(case["name"], appended={"provenance": [entry]})
                     for case in data["cases"] if "provenance" in case]
        defaults = {"provenance": [entry]} if "provenance" in (data.get("defaults") or {}) else None
        edited = add_to_cases(text, additions, path.suffix, defaults_appended=defaults)
        matcher = difflib.SequenceMatcher(None, text.splitlines(), edited.splitlines(), autojunk=False)
        assert {tag for tag, *_ in matcher.get_opcodes()} <= {"equal", "insert"}, path
