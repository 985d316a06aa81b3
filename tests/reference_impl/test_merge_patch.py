"""patchconf.reference_impl.merge_patch against what Kubernetes does.

Expected values were observed, not derived from our code: with kubectl 1.32
(``kubectl patch --local -f doc.json --type merge -p PATCH -o json``; RFC examples inside an
envelope object under ``doc``), and, where kubectl cannot show it (a non-object document or
result, ``CreateMergePatch``), with a Go program calling ``gopkg.in/evanphx/json-patch.v4``
v4.12.0 (``MergePatch``, ``CreateMergePatch``) directly. Those are marked "library".
"""

from __future__ import annotations

import copy
import json

import pytest

from patchconf.reference_impl import merge_patch
from patchconf.reference_impl.errors import InvalidDocument, InvalidPatch, PatchError, TypeMismatch

DOC = {"foo": ["bar", "baz"], "o": {"a": 1, "n": None}, "arr": [1], "s": "str"}


def assert_same_json(actual, expected):
    assert actual == expected
    # == alone takes 1 for 1.0 and for True; the JSON text does not.
    assert json.dumps(actual, sort_keys=True) == json.dumps(expected, sort_keys=True)


def merged(document, patch):
    """The result, checking that neither input was touched."""
    before = copy.deepcopy((document, patch))
    result = merge_patch.apply(document, patch)
    assert_same_json((document, patch), before)
    return result


def with_doc(**members):
    return {**copy.deepcopy(DOC), **members}


def without(document, key):
    return {k: v for k, v in document.items() if k != key}


# --- RFC 7396 Appendix A --------------------------------------------------------------------

RFC_EXAMPLES = [
    ("1", {"a": "b"}, {"a": "c"}, {"a": "c"}),
    ("2", {"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ("3", {"a": "b"}, {"a": None}, {}),
    ("4", {"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ("5", {"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ("6", {"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ("7", {"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ("8", {"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ("9", ["a", "b"], ["c", "d"], ["c", "d"]),  # library
    ("10", {"a": "b"}, ["c"], ["c"]),  # library
    ("13", {"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ("14", [1, 2], {"a": "b", "c": None}, {"a": "b"}),  # library
    ("15", {}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(
    ("document", "patch", "expected"),
    [case[1:] for case in RFC_EXAMPLES],
    ids=[f"A-{case[0]}" for case in RFC_EXAMPLES],
)
def test_rfc7396_appendix_a(document, patch, expected):
    assert_same_json(merged(document, patch), expected)


@pytest.mark.parametrize(
    "patch",
    [None, "bar"],
    ids=["A-11-null-patch", "A-12-string-patch"],
)
def test_rfc7396_appendix_a_scalar_patches_are_refused(patch):
    # RFC 7396: the result is the patch. kubectl and the library: "Invalid JSON Patch"
    # (nested under a member, the same patches delete or replace that member as the RFC says).
    with pytest.raises(InvalidPatch) as caught:
        merge_patch.apply({"a": "foo"}, patch)
    assert caught.value.message == "Invalid JSON Patch"


# --- Kubernetes' outcomes ---------------------------------------------------------------------

SUCCESSES = [
    # kubectl
    ("empty-patch-is-a-no-op", DOC, {}, DOC),
    ("null-deletes", DOC, {"foo": None}, without(DOC, "foo")),
    ("null-for-missing-member-is-a-no-op", DOC, {"nope": None}, DOC),
    (
        "nested-merge-and-null-in-new-object-dropped",
        DOC,
        {"o": {"a": None, "b": {"c": None, "d": 1}}},
        with_doc(o={"b": {"d": 1}, "n": None}),
    ),
    (
        "object-replacing-null-member-loses-its-nulls",
        DOC,
        {"o": {"n": {"x": None, "y": 2}}},
        with_doc(o={"a": 1, "n": {"y": 2}}),
    ),
    (
        "object-onto-scalar-member-loses-its-nulls",
        DOC,
        {"s": {"b": None, "c": 1}},
        with_doc(s={"c": 1}),
    ),
    (
        "array-onto-array-member-loses-nulls-of-its-objects",
        DOC,
        {"arr": [{"b": None, "c": 1}, None]},
        with_doc(arr=[{"c": 1}, None]),
    ),
    (
        "array-onto-object-member-keeps-nulls-of-its-objects",
        DOC,
        {"o": [{"b": None, "c": 1}, None]},
        with_doc(o=[{"b": None, "c": 1}, None]),
    ),
    ("new-nested-arrays-are-pruned-too", DOC, {"new": [[{"x": None}]]}, with_doc(new=[[{}]])),
    ("empty-object-value-kept", DOC, {"foo": {}}, with_doc(foo={})),
    ("empty-array-value-kept", DOC, {"foo": []}, with_doc(foo=[])),
    # library
    (
        "array-onto-null-member-loses-nulls-of-its-objects",
        {"a": None},
        {"a": [{"b": None, "c": 1}, None]},
        {"a": [{"c": 1}, None]},
    ),
    (
        "new-member-pruned-at-every-depth",
        {"a": {"x": 1}},
        {"a": {"b": None, "c": {"d": None, "e": [{"f": None}]}}},
        {"a": {"c": {"e": [{}]}, "x": 1}},
    ),
    (
        "array-patch-replaces-object-and-loses-nulls-of-its-objects",
        {"a": 1},
        [1, {"b": None, "c": 1}, None],
        [1, {"c": 1}, None],
    ),
    ("array-patch-onto-array", [1], [2], [2]),
    ("object-patch-onto-array", [1], {"a": {"b": None}, "c": None}, {"a": {}}),
    ("object-patch-onto-number", 5, {"a": {"b": None}, "c": None}, {"a": {}}),
    (
        "numbers-kept-exactly",
        {"a": 1},
        {"a": 1.0, "b": 12345678901234567890123},
        {"a": 1.0, "b": 12345678901234567890123},
    ),
]


@pytest.mark.parametrize(
    ("document", "patch", "expected"),
    [case[1:] for case in SUCCESSES],
    ids=[case[0] for case in SUCCESSES],
)
def test_apply(document, patch, expected):
    assert_same_json(merged(document, patch), expected)


ERRORS = [
    ("null-patch", DOC, None, InvalidPatch, "Invalid JSON Patch"),  # kubectl
    ("number-patch", DOC, 5, InvalidPatch, "Invalid JSON Patch"),  # kubectl
    ("string-patch", DOC, "s", InvalidPatch, "Invalid JSON Patch"),  # kubectl
    # library
    ("null-document", None, {"a": 1}, InvalidDocument, "Invalid JSON Document"),
    ("null-document-and-patch", None, None, InvalidDocument, "Invalid JSON Document"),
    ("null-patch-onto-array", [1], None, InvalidPatch, "Invalid JSON Patch"),
    ("number-patch-onto-number", 5, 6, InvalidPatch, "Invalid JSON Patch"),
]


@pytest.mark.parametrize(
    ("document", "patch", "error_class", "message"),
    [case[1:] for case in ERRORS],
    ids=[case[0] for case in ERRORS],
)
def test_apply_error(document, patch, error_class, message):
    before = copy.deepcopy((document, patch))
    with pytest.raises(PatchError) as caught:
        merge_patch.apply(document, patch)
    assert type(caught.value) is error_class
    assert caught.value.message == message
    assert (document, patch) == before


def test_result_shares_nothing_with_the_inputs():
    document = {"keep": {"deep": [1]}, "o": {"x": 1}}
    patch = {"new": {"inner": [1]}, "o": {"list": [1]}}
    result = merge_patch.apply(document, patch)
    result["keep"]["deep"].append(2)
    result["new"]["inner"].append(2)
    result["o"]["list"].append(2)
    assert document == {"keep": {"deep": [1]}, "o": {"x": 1}}
    assert patch == {"new": {"inner": [1]}, "o": {"list": [1]}}


# --- create (library: CreateMergePatch) -------------------------------------------------------

CREATED = [
    (
        "changes-additions-and-arrays-whole",
        {"a": 1, "b": {"c": 1, "d": 2}, "e": [1, 2]},
        {"a": 1, "b": {"c": 1, "d": 3}, "e": [1, 2, 3], "f": {"g": None}},
        {"b": {"d": 3}, "e": [1, 2, 3], "f": {"g": None}},
    ),
    ("identical", {"a": 1}, {"a": 1}, {}),
    ("int-equals-float", {"a": 1}, {"a": 1.0}, {}),
    ("numbers-compare-as-float64", {"a": 9007199254740993}, {"a": 9007199254740992}, {}),
    ("int-equals-float-in-arrays", {"a": [{"x": 1}]}, {"a": [{"x": 1.0}]}, {}),
    ("nested-set-to-null", {"a": {"b": 1}}, {"a": {"b": None}}, {"a": {"b": None}}),
    ("nested-deletion", {"a": {"b": 1}}, {"a": {}}, {"a": {"b": None}}),
    ("null-unchanged", {"a": None}, {"a": None}, {}),
    ("null-member-deleted", {"a": None}, {}, {"a": None}),
    ("member-set-to-null-is-deleted", {"a": 1}, {"a": None}, {"a": None}),
    ("type-change", {"a": 1}, {"a": "1"}, {"a": "1"}),
    ("bool-to-number", {"a": True}, {"a": 1}, {"a": 1}),
    ("new-null-member-in-nested-object", {"a": {"b": {}}}, {"a": {"b": {"c": None}}}, {"a": {"b": {"c": None}}}),
    ("null-original-reads-as-empty", None, {"a": 1}, {"a": 1}),
    ("null-modified-reads-as-empty", {"a": 1}, None, {"a": None}),
    ("arrays-of-objects", [{"a": 1}], [{"a": 2}], [{"a": 2}]),
    ("empty-arrays", [], [], []),
    ("null-element-reads-as-empty", [None], [{"a": 1}], [{"a": 1}]),
]


@pytest.mark.parametrize(
    ("original", "modified", "expected"),
    [case[1:] for case in CREATED],
    ids=[case[0] for case in CREATED],
)
def test_create(original, modified, expected):
    before = copy.deepcopy((original, modified))
    assert_same_json(merge_patch.create(original, modified), expected)
    assert_same_json((original, modified), before)


CREATE_ERRORS = [
    ("arrays-of-different-length", [{"a": 1}], [{"a": 2}, {}], InvalidDocument, "Invalid JSON Document"),
    ("arrays-of-scalars", [1], [2], InvalidDocument, "Invalid JSON Document"),
    ("array-and-object", [{"a": 1}], {"a": 2}, TypeMismatch, "Mismatched JSON Documents"),
    ("numbers", 5, 6, InvalidDocument, "Invalid JSON Document"),
    ("object-and-number", {"a": 1}, 5, InvalidDocument, "Invalid JSON Document"),
    ("strings", "s", "s", InvalidDocument, "Invalid JSON Document"),
]


@pytest.mark.parametrize(
    ("original", "modified", "error_class", "message"),
    [case[1:] for case in CREATE_ERRORS],
    ids=[case[0] for case in CREATE_ERRORS],
)
def test_create_error(original, modified, error_class, message):
    with pytest.raises(PatchError) as caught:
        merge_patch.create(original, modified)
    assert type(caught.value) is error_class
    assert caught.value.message == message


def test_create_emits_the_modified_numbers():
    # library: {"a":1.2345678901234568e+22,"b":1,"c":9007199254740992}, numbers printed
    # through float64; the same numbers, here kept as the modified document has them.
    patch = merge_patch.create({"a": "x"}, {"a": 12345678901234567890124, "b": 1.0, "c": 9007199254740993})
    assert patch.keys() == {"a", "b", "c"}
    assert float(patch["a"]) == 1.2345678901234568e22
    assert float(patch["b"]) == 1
    assert float(patch["c"]) == 9007199254740992


def test_create_shares_nothing_with_modified():
    modified = {"a": {"b": [1]}}
    patch = merge_patch.create({}, modified)
    patch["a"]["b"].append(2)
    assert modified == {"a": {"b": [1]}}


@pytest.mark.parametrize(
    ("original", "modified"),
    [
        ({"a": 1, "b": {"c": [1, {"d": 2}]}}, {"a": 2, "b": {"c": []}, "e": {"f": "g"}}),
        ({"a": {"b": {"c": 1}}}, {"a": {"b": {}}}),
        ({"keep": 1, "drop": {"x": 1}}, {"keep": 1}),
    ],
)
def test_create_then_apply_round_trips(original, modified):
    assert_same_json(merge_patch.apply(original, merge_patch.create(original, modified)), modified)
