"""The compiled schema check agrees with jsonschema: on the corpus, on mutations of it, on edge cases."""

import copy
import json
import random
from pathlib import Path

import jsonschema
import pytest

from patchconf.harness.corpus.cases import case_schema, iter_case_files
from patchconf.harness.corpus.fastschema import compile_schema, equal
from patchconf.harness.corpus.yamlio import load_path

REPO = Path(__file__).resolve().parents[2]
VALUES = [1, 1.5, 2.0, True, False, None, "x", "", "JP-ADD", [], {}, ["x"], ["JP-ADD", "JP-ADD"], {"a": 1}, -1,
          "kubectl", "server-side-apply", {"class": "conflict"}, {"implementation": "kubectl", "version": "1"},
          {"op": "apply", "manager": "m"}]
KEYS = ["zzz", "expected", "expected_patch", "expected_error", "steps", "options", "type", "schema", "current",
        "alternatives", "nondeterministic", "divergences", "profiles", "targets"]


def corpus():
    files = [load_path(path) for path in iter_case_files([REPO / "cases"])]
    return files, [{**data.get("defaults", {}), **case} for data in files for case in data["cases"]]


def pointers(value, here=()):
    yield here
    if isinstance(value, dict):
        for key, member in value.items():
            yield from pointers(member, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from pointers(item, (*here, index))


def mutated(value, rng: random.Random):
    """One to three random edits anywhere in a copy: remove, replace, add a member or an item."""
    value = copy.deepcopy(value)
    places = [p for p in pointers(value) if p]
    for _ in range(rng.choice([1, 1, 2, 3])):
        where = rng.choice(places)
        parent = value
        for step in where[:-1]:
            parent = parent[step]
        key, roll = where[-1], rng.random()
        if roll < 0.3 and isinstance(parent, dict):
            parent.pop(key)
        elif roll < 0.45 and isinstance(parent, dict):
            parent[rng.choice(KEYS)] = copy.deepcopy(rng.choice(VALUES))
        elif roll < 0.55 and isinstance(parent, list):
            parent.append(copy.deepcopy(rng.choice([*VALUES, *parent])))
        else:
            parent[key] = copy.deepcopy(rng.choice(VALUES))
        places = [p for p in pointers(value) if p]
    return value


def test_the_case_schema_compiles_and_is_a_valid_schema():
    schema = case_schema((REPO / "cases" / "case.schema.json").resolve())
    assert schema._file_check is not None and schema._case_check is not None
    jsonschema.validators.validator_for(schema.schema).check_schema(schema.schema)


def test_the_corpus_is_valid_for_both():
    schema = case_schema((REPO / "cases" / "case.schema.json").resolve())
    file_validator, case_validator = schema.validators()
    files, cases = corpus()
    assert all(schema._file_check(data) and file_validator.is_valid(data) for data in files)
    assert all(schema._case_check(case) and case_validator.is_valid(case) for case in cases)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mutations_of_the_corpus_are_judged_as_jsonschema_judges_them(seed):
    schema = case_schema((REPO / "cases" / "case.schema.json").resolve())
    file_validator, case_validator = schema.validators()
    files, cases = corpus()
    rng = random.Random(seed)
    invalid = 0
    for _ in range(400):
        if rng.random() < 0.25:
            instance, fast, slow = mutated(rng.choice(files), rng), schema._file_check, file_validator
        else:
            instance, fast, slow = mutated(rng.choice(cases), rng), schema._case_check, case_validator
        expected = slow.is_valid(instance)
        invalid += not expected
        assert fast(instance) == expected, json.dumps(instance)[:2000]
    assert invalid > 80  # the mutations do reach invalid instances, often


@pytest.mark.parametrize(("schema", "instances"), [
    ({"type": "integer"}, [1, 1.0, 1.5, True, "1", None]),
    ({"type": "number"}, [1, 1.5, True, "1"]),
    ({"type": ["string", "null"]}, ["a", None, 0]),
    ({"enum": [1, "a", None]}, [1, 1.0, True, "a", None, False]),
    ({"const": False}, [False, 0, None]),
    ({"const": {"a": [1]}}, [{"a": [1.0]}, {"a": [True]}, {"a": [1], "b": 2}]),
    ({"uniqueItems": True}, [[1, True], [1, 1.0], [{"a": 1}, {"a": 1}], ["a", "b"], "aa"]),
    ({"minimum": 1, "maximum": 2}, [0, 1, 2, 3, True, "5"]),
    ({"pattern": "^a", "minLength": 2, "maxLength": 3}, ["ab", "a", "abcd", "ba", 5]),
    ({"required": ["a"], "properties": {"a": {"type": "string"}}, "additionalProperties": False},
     [{"a": "x"}, {"a": 1}, {}, {"a": "x", "b": 1}, [1]]),
    ({"additionalProperties": {"type": "integer"}, "propertyNames": {"pattern": "^[a-z]+$"}},
     [{"a": 1}, {"a": "x"}, {"A": 1}]),
    ({"items": {"type": "integer"}, "minItems": 1, "maxItems": 2}, [[], [1], [1, 2, 3], [1, "x"], {}]),
    ({"contains": {"required": ["a"]}}, [[], [{}], [{"a": 1}], [{}, {"a": 1}], {"a": 1}]),
    ({"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3}, [[1], [1, 2], [1, 2, 3, 4], ["x", 1, 2]]),
    ({"contains": {"type": "integer"}, "minContains": 0}, [[], ["x"]]),
    ({"minContains": 2}, [[], [1]]),
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, [1, -1, 1.5, "x"]),
    ({"anyOf": [{"type": "integer"}, {"type": "string"}], "not": {"const": 3}}, [3, 4, "x", None]),
    ({"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}, [1, -1, "x", None]),
    ({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"},
     [[], [[[]]], [[1]], 1]),
])
def test_edge_cases_agree_with_jsonschema(schema, instances):
    check = compile_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert check is not None
    assert [check(i) for i in instances] == [validator.is_valid(i) for i in instances]


@pytest.mark.parametrize("schema", [
    {"type": "strnig"}, {"minItems": "3"}, {"required": "a"}, {"items": [{"type": "integer"}]},
    {"$ref": "https://example.org/other.json"}, {"unevaluatedProperties": False},
    {"patternProperties": {"^a": {}}, "additionalProperties": False}, {"pattern": "["},
    {"properties": {"a": {"$id": "https://example.org/a"}}},
])
def test_what_it_does_not_handle_is_left_to_jsonschema(schema):
    assert compile_schema(schema) is None


def test_equality_is_jsonschemas():
    assert equal(1, 1.0) and not equal(1, True) and not equal(0, False) and equal([1, {"a": 2}], [1.0, {"a": 2.0}])
    assert not equal({"a": 1}, {"a": 1, "b": 2}) and not equal("1", 1)
