"""case.schema.json checked by jsonschema-rs: the corpus valid, and what a broken case is told."""

import json
import re
from pathlib import Path

import jsonschema_rs
import pytest

from patchconf.harness.corpus.cases import Purpose, iter_case_files, load_file
from patchconf.harness.corpus.caseschema import CaseSchema, CaseSchemaError, case_schema
from patchconf.harness.corpus.yamlio import load_path

REPO = Path(__file__).resolve().parents[2]
SCHEMA = (REPO / "cases" / "case.schema.json").resolve()
CASE = """\
cases:
  - name: c
    description: d
    type: json-patch
    tags: [JP-ADD]
    provenance: [{implementation: kubectl, version: "1.32.4"}]
    original: {}
    patch: []
    expected: {}
"""
SSA = """\
cases:
  - name: c
    description: d
    type: server-side-apply
    tags: [SSA-OWNERSHIP]
    provenance: [{implementation: apiserver, version: "1.33.13"}]
    steps:
      - {op: apply, manager: m, object: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}}, expected: {}}
"""


def problems(write_case_file, text, purpose=Purpose.CORPUS):
    cases, errors = load_file(write_case_file("json-patch/c.yaml", text), purpose)
    assert cases == []
    return [(e.pointer, e.line, e.message) for e in errors]


def test_the_schema_is_a_draft_2020_12_schema_and_the_corpus_is_valid():
    schema = case_schema(SCHEMA)
    assert jsonschema_rs.meta.is_valid(schema.schema)
    assert schema.schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    files = [load_path(path) for path in iter_case_files([REPO / "cases"])]
    cases = [{**data.get("defaults", {}), **case} for data in files for case in data["cases"]]
    assert len(files) > 100 and len(cases) > 1500
    assert [data for data in files if schema.file_errors(data)] == []
    assert [case["name"] for case in cases if schema.case_errors(case)] == []


def test_an_anyof_whose_branches_fail_alike_is_said_once_as_what_to_do(write_case_file):
    assert problems(write_case_file, CASE.replace("    expected: {}\n", "")) == [
        ("/cases/0", 2, "needs one expectation: 'expected', 'expected_patch' or 'expected_error' "
                        "(`patchconf record` asks Kubernetes for it)")]


def test_a_oneof_branch_failing_deeper_than_the_others_is_the_one_named(write_case_file):
    # schemaRef is {apiVersion, kind} or {named}: the first branch fails at apiVersion, deeper than the
    # second's missing 'named', so that is what the author is told, where apiVersion is
    text = CASE.replace("    original: {}\n", "    schema: {apiVersion: 1, kind: ConfigMap}\n    original: {}\n")
    assert problems(write_case_file, text) == [("/cases/0/schema/apiVersion", 7, '1 is not of type "string"')]


def test_every_missing_member_is_a_problem_of_its_own(write_case_file):
    text = CASE.replace("    provenance: [{implementation: kubectl, version: \"1.32.4\"}]\n", "")
    assert problems(write_case_file, text.replace("    patch: []\n", "")) == [
        ("/cases/0", 2, '"patch" is a required property'),
        ("/cases/0", 2, '"provenance" is a required property: which real Kubernetes code confirmed the '
                        "expectation (`patchconf record` or `patchconf verify --write` records it)"),
    ]


def test_a_value_outside_an_enum_is_told_every_allowed_value_in_the_files_notation(write_case_file):
    assert problems(write_case_file, CASE.replace("type: json-patch", "type: null")) == [
        ("/cases/0/type", 4, 'null is not one of "json-patch", "merge-patch", "merge-patch-2way", "merge-patch-3way", '
                             '"strategic", "strategic-2way", "strategic-3way", "apply", "server-side-apply", "update"')]


def test_members_a_case_must_not_have_are_named_with_the_rule_that_forbids_them(write_case_file):
    assert problems(write_case_file, SSA.replace("    steps:", "    modified: {}\n    patch: {}\n    steps:")) == [
        ("/cases/0", 2, "'modified', 'patch' are not allowed where type is 'server-side-apply'")]
    steps = CASE.replace("    expected: {}\n", "    expected: {}\n    steps: [{op: apply, manager: m, object: {}}]\n")
    assert problems(write_case_file, steps) == [("/cases/0", 2, "'steps' is not allowed unless type is "
                                                                "'server-side-apply'")]
    both = CASE.replace("    expected: {}\n", "    expected: {}\n    expected_error: {class: invalid}\n")
    assert problems(write_case_file, both) == [
        ("/cases/0", 2, "'expected_error' cannot be combined with 'expected'")]


def test_a_name_or_tags_of_the_wrong_type_is_a_problem_not_a_crash(write_case_file):
    assert problems(write_case_file, CASE.replace("name: c", "name: [c]")) == [
        ("/cases/0/name", 2, '["c"] is not of type "string"')]
    # beside a case of the same file that loads
    cases, errors = load_file(write_case_file("json-patch/two.yaml", CASE.replace("name: c", "name: {c: 1}")
                                              + CASE.split("cases:\n")[1]))
    assert [case.name for case in cases] == ["c"]
    assert [(e.pointer, e.line, e.message) for e in errors] == [("/cases/0/name", 2, '{"c":1} is not of type "string"')]
    assert problems(write_case_file, CASE.replace("tags: [JP-ADD]", "tags: 1.5")) == [
        ("/cases/0/tags", 5, '1.5 is not of type "array"')]


def test_a_broken_case_schema_is_a_load_error_of_each_file_naming_where(write_case_file):
    path = write_case_file("json-patch/c.yaml", CASE)
    schema_file = path.parents[1] / "case.schema.json"
    schema = json.loads(schema_file.read_text())
    schema["$defs"]["case"]["properties"]["name"]["minLength"] = -1
    schema_file.write_text(json.dumps(schema))
    assert [str(e) for e in load_file(path)[1]] == [
        f"cases/json-patch/c.yaml: {schema_file}: the case schema is no JSON Schema at "
        "/$defs/case/properties/name/minLength: -1 is less than the minimum of 0"]
    schema_file.write_text('{"$defs": ')
    assert [str(e) for e in load_file(path)[1]] == [
        f"cases/json-patch/c.yaml: {schema_file}:1:11: the case schema is not valid JSON: "
        "Expecting value: line 1 column 11 (char 10)"]


def test_a_reference_outside_the_case_schema_is_not_fetched(tmp_path):
    schema_file = tmp_path / "case.schema.json"
    schema_file.write_text('{"$defs": {"effectiveCase": {"$ref": "http://127.0.0.1:9/case.json"}}}')
    refusal = "http://127.0.0.1:9/case.json: a reference outside the case schema, which is not fetched"
    with pytest.raises(CaseSchemaError, match=re.escape(f"{schema_file}: the case schema is no JSON Schema: ")
                       + ".*" + re.escape(refusal)):
        CaseSchema(schema_file)
