"""patchconf.reference_impl.json_patch against what Kubernetes does.

Every expected value here was observed, not derived from our code: with kubectl 1.32
(``kubectl patch --local -f doc.json --type json -p PATCH -o json``; the RFC examples inside
an envelope object under ``/doc``), and where kubectl cannot show it (a non-object root, a
number kubectl's YAML reading of ``-p`` rewrites, a message kubectl rewrites, a crash) with
a Go program calling ``gopkg.in/evanphx/json-patch.v4`` v4.12.0 directly. Those are marked
"library".
"""

from __future__ import annotations

import copy
import json

import pytest

from patchconf.reference_impl import json_patch
from patchconf.reference_impl.errors import (
    InvalidDocument,
    InvalidIndex,
    InvalidPatch,
    PatchError,
    PathNotFound,
    TestFailed,
)

FOO = {"foo": ["bar", "baz"], "o": {"a": 1, "n": None}}


def assert_same_json(actual, expected):
    assert actual == expected
    # == alone takes 1 for 1.0 and for True; the JSON text does not.
    assert json.dumps(actual, sort_keys=True) == json.dumps(expected, sort_keys=True)


def applied(document, patch):
    """The result, checking that neither input was touched."""
    before = copy.deepcopy((document, patch))
    result = json_patch.apply(document, patch)
    assert_same_json((document, patch), before)
    return result


def assert_fails(document, patch, error_class, pointer, message):
    before = copy.deepcopy((document, patch))
    with pytest.raises(PatchError) as caught:
        json_patch.apply(document, patch)
    assert type(caught.value) is error_class
    assert caught.value.message == message
    assert caught.value.pointer == pointer
    assert_same_json((document, patch), before)


def with_foo(**members):
    return {**copy.deepcopy(FOO), **members}


def add(path, value):
    return {"op": "add", "path": path, "value": value}


# --- successes, as kubectl printed them ----------------------------------------------------

SUCCESSES = [
    # add
    ("add-new-member", FOO, [add("/o/x", 2)], with_foo(o={"a": 1, "n": None, "x": 2})),
    ("add-existing-member-replaces", FOO, [add("/o/a", 2)], with_foo(o={"a": 2, "n": None})),
    ("add-empty-key", FOO, [add("/o/", "e")], with_foo(o={"": "e", "a": 1, "n": None})),
    ("add-index-0", FOO, [add("/foo/0", "X")], with_foo(foo=["X", "bar", "baz"])),
    ("add-index-len-appends", FOO, [add("/foo/2", "X")], with_foo(foo=["bar", "baz", "X"])),
    ("add-dash-appends", FOO, [add("/foo/-", "X")], with_foo(foo=["bar", "baz", "X"])),
    ("add-negative-1-appends", FOO, [add("/foo/-1", "X")], with_foo(foo=["bar", "baz", "X"])),
    ("add-negative-len+1-prepends", FOO, [add("/foo/-3", "X")], with_foo(foo=["X", "bar", "baz"])),
    ("add-leading-zero", FOO, [add("/foo/01", "X")], with_foo(foo=["bar", "X", "baz"])),
    ("add-plus-sign", FOO, [add("/foo/+1", "X")], with_foo(foo=["bar", "X", "baz"])),
    ("add-minus-zero", FOO, [add("/foo/-0", "X")], with_foo(foo=["X", "bar", "baz"])),
    (
        "add-without-value-to-array-adds-null",
        FOO,
        [{"op": "add", "path": "/foo/1"}],
        with_foo(foo=["bar", None, "baz"]),
    ),
    ("add-without-value-adds-null", FOO, [{"op": "add", "path": "/nv"}], with_foo(nv=None)),
    ("add-null-value", FOO, [add("/nv", None)], with_foo(nv=None)),
    ("add-first-token-ignored", FOO, [add("a/nv", 1)], with_foo(nv=1)),
    ("add-first-token-ignored-deep", FOO, [add("zzz/foo/0", "X")], with_foo(foo=["X", "bar", "baz"])),
    (
        "replace-and-test-through-negative-index",
        {"a": [{"k": 1}, {"k": 2}]},
        [
            {"op": "replace", "path": "/a/-1/k", "value": 9},
            {"op": "test", "path": "/a/-2/k", "value": 1},
        ],
        {"a": [{"k": 1}, {"k": 9}]},
    ),
    # remove
    ("remove-member", FOO, [{"op": "remove", "path": "/o/a"}], with_foo(o={"n": None})),
    ("remove-null-member", FOO, [{"op": "remove", "path": "/o/n"}], with_foo(o={"a": 1})),
    ("remove-negative-1", FOO, [{"op": "remove", "path": "/foo/-1"}], with_foo(foo=["bar"])),
    ("remove-negative-len", FOO, [{"op": "remove", "path": "/foo/-2"}], with_foo(foo=["baz"])),
    # replace
    (
        "replace-negative-index",
        FOO,
        [{"op": "replace", "path": "/foo/-1", "value": "R"}],
        with_foo(foo=["bar", "R"]),
    ),
    (
        "replace-missing-member-adds-it",
        FOO,
        [{"op": "replace", "path": "/nope", "value": "R"}],
        with_foo(nope="R"),
    ),
    (
        "replace-without-value-writes-null",
        FOO,
        [{"op": "replace", "path": "/o/a"}],
        with_foo(o={"a": None, "n": None}),
    ),
    ("replace-root-with-number-is-ignored", FOO, [{"op": "replace", "path": "", "value": 5}], FOO),
    ("replace-root-with-null-is-ignored", FOO, [{"op": "replace", "path": "", "value": None}], FOO),
    (
        "replace-root-with-object",
        FOO,
        [{"op": "replace", "path": "", "value": {"data": {}}}],
        {"data": {}},
    ),
    # library: kubectl then fails to read an array as a Kubernetes object
    ("replace-root-with-array", FOO, [{"op": "replace", "path": "", "value": [1]}], [1]),
    # move
    (
        "move-member",
        FOO,
        [{"op": "move", "from": "/o/a", "path": "/b"}],
        with_foo(b=1, o={"n": None}),
    ),
    (
        "move-null-member",
        FOO,
        [{"op": "move", "from": "/o/n", "path": "/b"}],
        with_foo(b=None, o={"a": 1}),
    ),
    (
        "move-negative-index",
        FOO,
        [{"op": "move", "from": "/foo/-1", "path": "/foo/0"}],
        with_foo(foo=["baz", "bar"]),
    ),
    ("move-to-same-location", FOO, [{"op": "move", "from": "/o", "path": "/o"}], FOO),
    # copy
    (
        "copy-object",
        FOO,
        [{"op": "copy", "from": "/o", "path": "/c"}],
        with_foo(c={"a": 1, "n": None}),
    ),
    (
        "copy-missing-member-copies-null",
        FOO,
        [{"op": "copy", "from": "/o/nope", "path": "/c"}],
        with_foo(c=None),
    ),
    (
        "copy-null-member",
        FOO,
        [{"op": "copy", "from": "/o/n", "path": "/c"}],
        with_foo(c=None),
    ),
    (
        "copy-is-deep",
        FOO,
        [{"op": "copy", "from": "/o", "path": "/c"}, add("/c/a", 2)],
        with_foo(c={"a": 2, "n": None}),
    ),
    # test
    ("test-number", FOO, [{"op": "test", "path": "/o/a", "value": 1}], FOO),
    (
        "test-object-member-order-irrelevant",
        {"o": {"a": 1, "n": None, "f": 1.5}},
        [{"op": "test", "path": "/o", "value": {"n": None, "f": 1.5, "a": 1}}],
        {"o": {"a": 1, "n": None, "f": 1.5}},
    ),
    ("test-missing-member-against-null", FOO, [{"op": "test", "path": "/nope", "value": None}], FOO),
    ("test-null-member-against-null", FOO, [{"op": "test", "path": "/o/n", "value": None}], FOO),
    ("test-array", FOO, [{"op": "test", "path": "/foo", "value": ["bar", "baz"]}], FOO),
    ("test-negative-index", FOO, [{"op": "test", "path": "/foo/-1", "value": "baz"}], FOO),
    # library (kubectl's YAML reading of -p turns 1.0 into 1 before the library sees it)
    ("test-float-equals-float", {"a": 1.0}, [{"op": "test", "path": "/a", "value": 1.0}], {"a": 1.0}),
    (
        "test-big-integer-exact",
        {"a": 12345678901234567890123},
        [{"op": "test", "path": "/a", "value": 12345678901234567890123}],
        {"a": 12345678901234567890123},
    ),
    ("test-root-array", [1, 2], [{"op": "test", "path": "", "value": [1, 2]}], [1, 2]),
    # library: an array document
    ("array-root-add", [1, 2], [add("/0", 0)], [0, 1, 2]),
    # patch shape
    ("empty-patch", FOO, [], FOO),
    ("null-patch-is-empty", FOO, None, FOO),
    (
        "ops-apply-in-order",
        FOO,
        [add("/x", 1), {"op": "test", "path": "/x", "value": 1}, {"op": "remove", "path": "/x"}],
        FOO,
    ),
    (
        "later-ops-see-earlier-results",
        FOO,
        [
            add("/foo/0", {"k": [1]}),
            add("/foo/0/k/-", 2),
            {"op": "move", "from": "/foo/0/k", "path": "/o/k"},
        ],
        with_foo(foo=[{}, "bar", "baz"], o={"a": 1, "k": [1, 2], "n": None}),
    ),
]


@pytest.mark.parametrize(
    ("document", "patch", "expected"),
    [case[1:] for case in SUCCESSES],
    ids=[case[0] for case in SUCCESSES],
)
def test_success(document, patch, expected):
    assert_same_json(applied(document, patch), expected)


# --- errors, with the library's wording -----------------------------------------------------

MISSING_PATH = "add operation does not apply: doc is missing path: "

ERRORS = [
    # add
    (
        "add-negative-beyond-start",
        FOO,
        [add("/foo/-4", "X")],
        InvalidIndex,
        "/foo/-4",
        "error in add for path: '/foo/-4': Unable to access invalid index: -4: invalid index referenced",
    ),
    (
        "add-index-beyond-len",
        FOO,
        [add("/foo/3", "X")],
        InvalidIndex,
        "/foo/3",
        "error in add for path: '/foo/3': Unable to access invalid index: 3: invalid index referenced",
    ),
    (
        "add-non-numeric-index",
        FOO,
        [add("/foo/x", "X")],
        InvalidIndex,
        "/foo/x",
        "error in add for path: '/foo/x': value was not a proper array index: 'x': "
        'strconv.Atoi: parsing "x": invalid syntax',
    ),
    (
        "add-empty-index",
        FOO,
        [add("/foo/", "X")],
        InvalidIndex,
        "/foo/",
        "error in add for path: '/foo/': value was not a proper array index: '': "
        'strconv.Atoi: parsing "": invalid syntax',
    ),
    (
        "add-index-out-of-int64",
        FOO,
        [add("/foo/99999999999999999999", "X")],
        InvalidIndex,
        "/foo/99999999999999999999",
        "error in add for path: '/foo/99999999999999999999': value was not a proper array index: "
        "'99999999999999999999': strconv.Atoi: parsing \"99999999999999999999\": value out of range",
    ),
    (
        "add-index-underscore",
        FOO,
        [add("/foo/1_0", 1)],
        InvalidIndex,
        "/foo/1_0",
        "error in add for path: '/foo/1_0': value was not a proper array index: '1_0': "
        'strconv.Atoi: parsing "1_0": invalid syntax',
    ),
    (
        "add-index-space",
        FOO,
        [add("/foo/ 1", 1)],
        InvalidIndex,
        "/foo/ 1",
        "error in add for path: '/foo/ 1': value was not a proper array index: ' 1': "
        'strconv.Atoi: parsing " 1": invalid syntax',
    ),
    # library: Go quotes the token in Atoi's message
    (
        "add-index-newline",
        FOO,
        [add("/foo/\n", 1)],
        InvalidIndex,
        "/foo/\n",
        "error in add for path: '/foo/\n': value was not a proper array index: '\n': "
        'strconv.Atoi: parsing "\\n": invalid syntax',
    ),
    (
        "add-index-unicode",
        FOO,
        [add("/foo/é", 1)],
        InvalidIndex,
        "/foo/é",
        "error in add for path: '/foo/é': value was not a proper array index: 'é': "
        'strconv.Atoi: parsing "é": invalid syntax',
    ),
    ("add-root", FOO, [add("", {})], PathNotFound, "", MISSING_PATH + '"": missing value'),
    ("add-missing-parent", FOO, [add("/a/b", 1)], PathNotFound, "/a/b", MISSING_PATH + '"/a/b": missing value'),
    ("add-no-slash", FOO, [add("nv", 1)], PathNotFound, "nv", MISSING_PATH + '"nv": missing value'),
    (
        "add-first-token-ignored-then-missing",
        FOO,
        [add("x/y/nv", 1)],
        PathNotFound,
        "x/y/nv",
        MISSING_PATH + '"x/y/nv": missing value',
    ),
    (
        "add-through-null",
        FOO,
        [add("/o/n/x", 1)],
        PathNotFound,
        "/o/n/x",
        MISSING_PATH + '"/o/n/x": missing value',
    ),
    (
        "add-through-string",
        {"a": {"b": "str"}},
        [add("/a/b/c", 1)],
        PathNotFound,
        "/a/b/c",
        MISSING_PATH + '"/a/b/c": missing value',
    ),
    (
        "add-through-dash",
        {"a": [1]},
        [add("/a/-/c", 1)],
        PathNotFound,
        "/a/-/c",
        MISSING_PATH + '"/a/-/c": missing value',
    ),
    (
        "add-through-scalar-element",
        {"a": [1, 2, 3]},
        [add("/a/-1/x", 1)],
        PathNotFound,
        "/a/-1/x",
        MISSING_PATH + '"/a/-1/x": missing value',
    ),
    (
        "add-without-path",
        FOO,
        [{"op": "add", "value": 1}],
        InvalidPatch,
        "",
        "add operation failed to decode path: missing value",
    ),
    # remove
    (
        "remove-negative-beyond-start",
        FOO,
        [{"op": "remove", "path": "/foo/-3"}],
        InvalidIndex,
        "/foo/-3",
        "error in remove for path: '/foo/-3': Unable to access invalid index: -3: invalid index referenced",
    ),
    (
        "remove-index-len",
        FOO,
        [{"op": "remove", "path": "/foo/2"}],
        InvalidIndex,
        "/foo/2",
        "error in remove for path: '/foo/2': Unable to access invalid index: 2: invalid index referenced",
    ),
    (
        "remove-dash",
        FOO,
        [{"op": "remove", "path": "/foo/-"}],
        InvalidIndex,
        "/foo/-",
        "error in remove for path: '/foo/-': strconv.Atoi: parsing \"-\": invalid syntax",
    ),
    (
        "remove-non-numeric-index",
        FOO,
        [{"op": "remove", "path": "/foo/x"}],
        InvalidIndex,
        "/foo/x",
        "error in remove for path: '/foo/x': strconv.Atoi: parsing \"x\": invalid syntax",
    ),
    (
        "remove-missing-member",
        FOO,
        [{"op": "remove", "path": "/nope"}],
        PathNotFound,
        "/nope",
        "error in remove for path: '/nope': Unable to remove nonexistent key: nope: missing value",
    ),
    (
        "remove-missing-nested-member",
        FOO,
        [{"op": "remove", "path": "/o/nope"}],
        PathNotFound,
        "/o/nope",
        "error in remove for path: '/o/nope': Unable to remove nonexistent key: nope: missing value",
    ),
    (
        "remove-through-null",
        FOO,
        [{"op": "remove", "path": "/o/n/x"}],
        PathNotFound,
        "/o/n/x",
        'remove operation does not apply: doc is missing path: "/o/n/x": missing value',
    ),
    (
        "remove-root",
        FOO,
        [{"op": "remove", "path": ""}],
        PathNotFound,
        "",
        'remove operation does not apply: doc is missing path: "": missing value',
    ),
    (
        "remove-without-path",
        FOO,
        [{"op": "remove"}],
        InvalidPatch,
        "",
        "remove operation failed to decode path: missing value",
    ),
    (
        "remove-number-path",
        FOO,
        [{"op": "remove", "path": 5}],
        InvalidPatch,
        "",
        "remove operation failed to decode path: missing value",
    ),
    (
        "remove-null-path",
        FOO,
        [{"op": "remove", "path": None}],
        InvalidPatch,
        "",
        "remove operation failed to decode path: missing value",
    ),
    # replace: kubectl rewrites "doc is missing key" messages into
    # "Object to be patched is missing field (/foo/2: missing value)"; the apiserver and the
    # library say what we say (library).
    (
        "replace-index-len",
        FOO,
        [{"op": "replace", "path": "/foo/2", "value": "R"}],
        PathNotFound,
        "/foo/2",
        "replace operation does not apply: doc is missing key: /foo/2: missing value",
    ),
    (
        "replace-negative-beyond-start",
        FOO,
        [{"op": "replace", "path": "/foo/-3", "value": "R"}],
        PathNotFound,
        "/foo/-3",
        "replace operation does not apply: doc is missing key: /foo/-3: missing value",
    ),
    (
        "replace-dash",
        FOO,
        [{"op": "replace", "path": "/foo/-", "value": "R"}],
        PathNotFound,
        "/foo/-",
        "replace operation does not apply: doc is missing key: /foo/-: missing value",
    ),
    (
        "replace-missing-parent",
        FOO,
        [{"op": "replace", "path": "/x/y", "value": "R"}],
        PathNotFound,
        "/x/y",
        "replace operation does not apply: doc is missing path: /x/y: missing value",
    ),
    (
        "replace-without-path",
        FOO,
        [{"op": "replace", "value": "R"}],
        InvalidPatch,
        "",
        "replace operation failed to decode path: operation missing path field: missing value",
    ),
    (
        "replace-number-path",
        FOO,
        [{"op": "replace", "path": 5, "value": "R"}],
        InvalidPatch,
        "",
        "replace operation failed to decode path: json: cannot unmarshal number into Go value of type string",
    ),
    # move
    (
        "move-missing-member",
        FOO,
        [{"op": "move", "from": "/o/nope", "path": "/b"}],
        PathNotFound,
        "/o/nope",
        "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value",
    ),
    (
        "move-index-out-of-range",
        FOO,
        [{"op": "move", "from": "/foo/5", "path": "/b"}],
        InvalidIndex,
        "/foo/5",
        "error in move for path: '5': Unable to access invalid index: 5: invalid index referenced",
    ),
    (
        "move-non-numeric-index",
        FOO,
        [{"op": "move", "from": "/foo/x", "path": "/b"}],
        InvalidIndex,
        "/foo/x",
        "error in move for path: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
    ),
    (
        "move-into-own-child",
        FOO,
        [{"op": "move", "from": "/o", "path": "/o/x"}],
        PathNotFound,
        "/o/x",
        "move operation does not apply: doc is missing destination path: /o/x: missing value",
    ),
    (
        "move-to-index-beyond-len",
        FOO,
        [{"op": "move", "from": "/foo/0", "path": "/foo/5"}],
        InvalidIndex,
        "/foo/5",
        "error in move for path: '/foo/5': Unable to access invalid index: 5: invalid index referenced",
    ),
    (
        "move-missing-from-parent",
        FOO,
        [{"op": "move", "from": "/x/y", "path": "/b"}],
        PathNotFound,
        "/x/y",
        "move operation does not apply: doc is missing from path: /x/y: missing value",
    ),
    (
        "move-from-root",
        FOO,
        [{"op": "move", "from": "", "path": "/b"}],
        PathNotFound,
        "",
        "move operation does not apply: doc is missing from path: : missing value",
    ),
    (
        "move-without-from",
        FOO,
        [{"op": "move", "path": "/b"}],
        InvalidPatch,
        "",
        "move operation failed to decode from: operation, missing from field: missing value",
    ),
    (
        "move-number-from",
        FOO,
        [{"op": "move", "from": 5, "path": "/b"}],
        InvalidPatch,
        "",
        "move operation failed to decode from: json: cannot unmarshal number into Go value of type string",
    ),
    (
        "move-without-path",
        FOO,
        [{"op": "move", "from": "/o/a"}],
        InvalidPatch,
        "",
        "move operation failed to decode path: operation missing path field: missing value",
    ),
    # copy
    (
        "copy-index-out-of-range",
        FOO,
        [{"op": "copy", "from": "/foo/5", "path": "/c"}],
        InvalidIndex,
        "/foo/5",
        "error in copy for from: '/foo/5': Unable to access invalid index: 5: invalid index referenced",
    ),
    (
        "copy-missing-from-parent",
        FOO,
        [{"op": "copy", "from": "/x/y", "path": "/c"}],
        PathNotFound,
        "/x/y",
        "copy operation does not apply: doc is missing from path: /x/y: missing value",
    ),
    (
        "copy-missing-destination-parent",
        FOO,
        [{"op": "copy", "from": "/o", "path": "/x/y"}],
        PathNotFound,
        "/x/y",
        "copy operation does not apply: doc is missing destination path: /x/y: missing value",
    ),
    (
        "copy-to-index-beyond-len",
        FOO,
        [{"op": "copy", "from": "/o", "path": "/foo/9"}],
        InvalidIndex,
        "/foo/9",
        "error while adding value during copy: Unable to access invalid index: 9: invalid index referenced",
    ),
    (
        "copy-without-path",
        FOO,
        [{"op": "copy", "from": "/o"}],
        InvalidPatch,
        "",
        "copy operation failed to decode path: missing value",
    ),
    (
        "copy-without-from",
        FOO,
        [{"op": "copy", "path": "/c"}],
        InvalidPatch,
        "",
        "copy operation failed to decode from: operation, missing from field: missing value",
    ),
    # test
    (
        "test-unequal-number",
        FOO,
        [{"op": "test", "path": "/o/a", "value": 2}],
        TestFailed,
        "/o/a",
        "testing value /o/a failed: test failed",
    ),
    (
        "test-string-vs-number",
        FOO,
        [{"op": "test", "path": "/o/a", "value": "1"}],
        TestFailed,
        "/o/a",
        "testing value /o/a failed: test failed",
    ),
    (
        "test-object-missing-member",
        {"o": {"a": 1, "n": None, "f": 1.5}},
        [{"op": "test", "path": "/o", "value": {"f": 1.5, "a": 1}}],
        TestFailed,
        "/o",
        "testing value /o failed: test failed",
    ),
    (
        "test-value-against-null",
        FOO,
        [{"op": "test", "path": "/o/a", "value": None}],
        TestFailed,
        "/o/a",
        "testing value /o/a failed: test failed",
    ),
    (
        "test-missing-member-against-value",
        FOO,
        [{"op": "test", "path": "/nope", "value": 1}],
        TestFailed,
        "/nope",
        "testing value /nope failed: test failed",
    ),
    (
        "test-without-value",
        FOO,
        [{"op": "test", "path": "/o/a"}],
        TestFailed,
        "/o/a",
        "testing value /o/a failed: test failed",
    ),
    (
        "test-array-order-matters",
        FOO,
        [{"op": "test", "path": "/foo", "value": ["baz", "bar"]}],
        TestFailed,
        "/foo",
        "testing value /foo failed: test failed",
    ),
    (
        "test-index-out-of-range",
        FOO,
        [{"op": "test", "path": "/foo/5", "value": "baz"}],
        InvalidIndex,
        "/foo/5",
        "error in test for path: '/foo/5': Unable to access invalid index: 5: invalid index referenced",
    ),
    (
        "test-missing-parent",
        FOO,
        [{"op": "test", "path": "/x/y", "value": "baz"}],
        PathNotFound,
        "/x/y",
        "test operation does not apply: is missing path: /x/y: missing value",
    ),
    (
        "test-root",
        FOO,
        [{"op": "test", "path": "", "value": {}}],
        TestFailed,
        "",
        "testing value  failed: test failed",
    ),
    (
        "test-without-path",
        FOO,
        [{"op": "test", "value": 1}],
        InvalidPatch,
        "",
        "test operation failed to decode path: operation missing path field: missing value",
    ),
    # library: scalars compare as JSON text, so an int is not a float (kubectl's YAML reading
    # of -p rewrites 1.0 as 1 and so passes), and a boolean is not a number
    (
        "test-int-vs-float",
        {"a": 1},
        [{"op": "test", "path": "/a", "value": 1.0}],
        TestFailed,
        "/a",
        "testing value /a failed: test failed",
    ),
    (
        "test-bool-vs-number",
        {"a": True},
        [{"op": "test", "path": "/a", "value": 1}],
        TestFailed,
        "/a",
        "testing value /a failed: test failed",
    ),
    (
        "test-array-vs-object",
        {"a": []},
        [{"op": "test", "path": "/a", "value": {}}],
        TestFailed,
        "/a",
        "testing value /a failed: test failed",
    ),
    (
        "test-object-vs-null",
        {"a": {}},
        [{"op": "test", "path": "/a", "value": None}],
        TestFailed,
        "/a",
        "testing value /a failed: test failed",
    ),
    (
        "test-null-vs-object",
        {"a": None},
        [{"op": "test", "path": "/a", "value": {}}],
        TestFailed,
        "/a",
        "testing value /a failed: test failed",
    ),
    # kinds and patch shape
    ("unknown-op", FOO, [{"op": "bogus", "path": "/a"}], InvalidPatch, "/a", "Unexpected kind: bogus"),
    ("missing-op", FOO, [{"path": "/a"}], InvalidPatch, "/a", "Unexpected kind: unknown"),
    ("number-op", FOO, [{"op": 5, "path": "/a"}], InvalidPatch, "/a", "Unexpected kind: unknown"),
    ("null-op-object", FOO, [None], InvalidPatch, "", "Unexpected kind: unknown"),
    (
        "op-not-an-object",
        FOO,
        [5],
        InvalidPatch,
        "",
        "json: cannot unmarshal number into Go value of type jsonpatch.Operation",
    ),
    (
        "patch-is-an-object",
        FOO,
        {"op": "add"},
        InvalidPatch,
        "",
        "json: cannot unmarshal object into Go value of type jsonpatch.Patch",
    ),
    (
        "patch-is-a-string",
        FOO,
        "x",
        InvalidPatch,
        "",
        "json: cannot unmarshal string into Go value of type jsonpatch.Patch",
    ),
    # library: non-container documents
    (
        "document-is-a-number",
        5,
        [add("/0", 0)],
        InvalidDocument,
        "",
        "json: cannot unmarshal number into Go value of type jsonpatch.partialDoc",
    ),
    (
        "document-is-a-string",
        "s",
        [],
        InvalidDocument,
        "",
        "json: cannot unmarshal string into Go value of type jsonpatch.partialDoc",
    ),
    # all or nothing: the first failing op ends the patch, earlier ops are dropped
    (
        "atomic-after-add",
        {"a": 1},
        [add("/b", 1), {"op": "test", "path": "/a", "value": 2}],
        TestFailed,
        "/a",
        "testing value /a failed: test failed",
    ),
    (
        "atomic-after-replace",
        FOO,
        [add("/o/a", "x"), {"op": "remove", "path": "/o/nope"}],
        PathNotFound,
        "/o/nope",
        "error in remove for path: '/o/nope': Unable to remove nonexistent key: nope: missing value",
    ),
    (
        "first-error-wins-test",
        FOO,
        [{"op": "test", "path": "/o/a", "value": 2}, {"op": "bogus"}],
        TestFailed,
        "/o/a",
        "testing value /o/a failed: test failed",
    ),
    (
        "first-error-wins-kind",
        FOO,
        [{"op": "bogus"}, {"op": "test", "path": "/o/a", "value": 2}],
        InvalidPatch,
        "",
        "Unexpected kind: bogus",
    ),
]


@pytest.mark.parametrize(
    ("document", "patch", "error_class", "pointer", "message"),
    [case[1:] for case in ERRORS],
    ids=[case[0] for case in ERRORS],
)
def test_error(document, patch, error_class, pointer, message):
    assert_fails(document, patch, error_class, pointer, message)


def test_kubectl_and_library_wordings_share_the_fragment_for_a_missing_key():
    # kubectl: "Object to be patched is missing field (/foo/2: missing value)"
    with pytest.raises(PathNotFound) as caught:
        json_patch.apply(FOO, [{"op": "replace", "path": "/foo/2", "value": "R"}])
    assert "/foo/2: missing value" in caught.value.message


# --- where upstream panics (kubectl prints a Go nil-pointer panic) --------------------------


@pytest.mark.parametrize(
    ("patch", "pointer"),
    [
        ([{"op": "test", "path": "/nope"}], "/nope"),
        ([{"op": "test", "path": "/o/n"}], "/o/n"),
        ([{"op": "test", "path": ""}], ""),
        ([{"op": "replace", "path": ""}], ""),
    ],
    ids=["test-missing-member-without-value", "test-null-without-value", "test-root", "replace-root"],
)
def test_missing_value_where_upstream_panics_is_an_invalid_patch(patch, pointer):
    with pytest.raises(InvalidPatch) as caught:
        json_patch.apply(FOO, patch)
    assert "upstream panics" in caught.value.message
    assert caught.value.pointer == pointer


NIL_MAP_WRITE = "cannot write into a null document (upstream panics: assignment to entry in nil map)"
NULL_TEST_A = {"op": "test", "path": "/a", "value": None}


def test_null_document_refuses_writes():
    # library: a null document is a nil Go map; the first write panics ("assignment to entry
    # in nil map"), which we refuse.
    with pytest.raises(InvalidDocument) as caught:
        json_patch.apply(None, [NULL_TEST_A, add("/a", 0)])
    assert caught.value.message == "error in add for path: '/a': " + NIL_MAP_WRITE
    assert caught.value.pointer == "/a"


NO_KEY_A = "Unable to remove nonexistent key: a: missing value"


@pytest.mark.parametrize(
    ("patch", "error", "message"),
    [
        # library: a null document reads as an empty object until something writes
        ([{"op": "remove", "path": ""}], PathNotFound,
         'remove operation does not apply: doc is missing path: "": missing value'),
        ([{"op": "remove", "path": "/a"}], PathNotFound, "error in remove for path: '/a': " + NO_KEY_A),
        ([{"op": "test", "path": "", "value": None}], TestFailed, "testing value  failed: test failed"),
        ([{"op": "test", "path": "", "value": []}], TestFailed, "testing value  failed: test failed"),
        ([{"op": "test", "path": "/a", "value": 1}], TestFailed, "testing value /a failed: test failed"),
        ([{}], InvalidPatch, "Unexpected kind: unknown"),
        ([{"op": "move", "from": "/a", "path": "/b"}], PathNotFound, "error in move for path: 'a': " + NO_KEY_A),
    ],
)
def test_null_document_reads_as_an_empty_object(patch, error, message):
    with pytest.raises(error) as caught:
        json_patch.apply(None, patch)
    assert caught.value.message == message


def test_null_document_stays_null_when_only_read():
    assert json_patch.apply(None, []) is None
    assert json_patch.apply(None, [{"op": "test", "path": "", "value": {}}, NULL_TEST_A]) is None


def test_null_document_replaced_at_the_root_takes_writes():
    patch = [{"op": "replace", "path": "", "value": {"a": 1}}, add("/b", 2)]
    assert json_patch.apply(None, patch) == {"a": 1, "b": 2}


# --- pointers -------------------------------------------------------------------------------

POINTER_DOC = {"a/b": 1, "m~n": 2, "": 3, "é": {"ü": 4}, "~2": 5, "~": 6}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("/a~1b", 1),
        ("/m~0n", 2),
        ("/", 3),
        ("/é/ü", 4),
        ("/~2", 5),  # not an escape: kept as it is (RFC 6901 would refuse it)
        ("/~", 6),  # a lone "~" too
    ],
)
def test_pointer_tokens_are_unescaped_like_kubernetes(path, value):
    assert applied(POINTER_DOC, [{"op": "test", "path": path, "value": value}]) == POINTER_DOC


def test_pointer_escapes_when_writing():
    # kubectl, under /doc: add /~01 then remove / gives these members
    patch = [add("/~01", 6), {"op": "remove", "path": "/"}]
    document = {"a/b": 1, "m~n": 2, "": 3, "é": {"ü": 4}, "~2": 5}
    expected = {"a/b": 1, "m~n": 2, "~1": 6, "~2": 5, "é": {"ü": 4}}
    assert_same_json(applied(document, patch), expected)


def test_pointer_empty_keys_and_slash_keys():
    document = {"a": {"": {"": 7}}}
    patch = [{"op": "copy", "from": "/a//", "path": "/x~1y"}]
    assert_same_json(applied(document, patch), {"a": {"": {"": 7}}, "x/y": 7})


# --- RFC 6902 Appendix A, with Kubernetes' outcome ------------------------------------------

RFC_EXAMPLES = [
    ("A.1", {"foo": "bar"}, [add("/baz", "qux")], {"baz": "qux", "foo": "bar"}),
    ("A.2", {"foo": ["bar", "baz"]}, [add("/foo/1", "qux")], {"foo": ["bar", "qux", "baz"]}),
    ("A.3", {"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    (
        "A.4",
        {"foo": ["bar", "qux", "baz"]},
        [{"op": "remove", "path": "/foo/1"}],
        {"foo": ["bar", "baz"]},
    ),
    (
        "A.5",
        {"baz": "qux", "foo": "bar"},
        [{"op": "replace", "path": "/baz", "value": "boo"}],
        {"baz": "boo", "foo": "bar"},
    ),
    (
        "A.6",
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        "A.7",
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        "A.8",
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
        {"baz": "qux", "foo": ["a", 2, "c"]},
    ),
    (
        "A.10",
        {"foo": "bar"},
        [add("/child", {"grandchild": {}})],
        {"foo": "bar", "child": {"grandchild": {}}},
    ),
    (
        "A.11",
        {"foo": "bar"},
        [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
        {"foo": "bar", "baz": "qux"},
    ),
    # A.13: {"op": "add", ..., "op": "remove"}: the RFC calls it invalid; Kubernetes, like
    # Python's json module, keeps the last "op" and removes /baz.
    (
        "A.13",
        {"foo": "bar", "baz": 1},
        json.loads('[{"op": "add", "path": "/baz", "value": "qux", "op": "remove"}]'),
        {"foo": "bar"},
    ),
    ("A.14", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10}),
    ("A.16", {"foo": ["bar"]}, [add("/foo/-", ["abc", "def"])], {"foo": ["bar", ["abc", "def"]]}),
]


@pytest.mark.parametrize(
    ("document", "patch", "expected"),
    [case[1:] for case in RFC_EXAMPLES],
    ids=[case[0] for case in RFC_EXAMPLES],
)
def test_rfc6902_appendix_a(document, patch, expected):
    assert_same_json(applied(document, patch), expected)


def test_rfc6902_a9_test_error():
    assert_fails(
        {"baz": "qux"},
        [{"op": "test", "path": "/baz", "value": "bar"}],
        TestFailed,
        "/baz",
        "testing value /baz failed: test failed",
    )


def test_rfc6902_a12_adding_to_nonexistent_target():
    assert_fails(
        {"foo": "bar"},
        [add("/baz/bat", "qux")],
        PathNotFound,
        "/baz/bat",
        'add operation does not apply: doc is missing path: "/baz/bat": missing value',
    )


def test_rfc6902_a15_strings_and_numbers():
    assert_fails(
        {"/": 9, "~1": 10},
        [{"op": "test", "path": "/~01", "value": "10"}],
        TestFailed,
        "/~01",
        "testing value /~01 failed: test failed",
    )


# --- inputs stay untouched and unshared -----------------------------------------------------


def test_result_shares_nothing_with_the_inputs():
    document = {"keep": {"deep": [1]}}
    value = {"inner": [1]}
    result = json_patch.apply(document, [add("/new", value)])
    result["keep"]["deep"].append(2)
    result["new"]["inner"].append(2)
    assert document == {"keep": {"deep": [1]}}
    assert value == {"inner": [1]}


def test_later_ops_do_not_write_into_the_patch():
    value = {"inner": {}}
    patch = [add("/new", value), add("/new/inner/x", 1)]
    assert json_patch.apply({}, patch) == {"new": {"inner": {"x": 1}}}
    assert value == {"inner": {}}


def test_copy_then_change_source_does_not_leak():
    result = json_patch.apply(
        {"src": {"a": [1]}},
        [{"op": "copy", "from": "/src", "path": "/dst"}, add("/src/a/-", 2)],
    )
    assert result == {"src": {"a": [1, 2]}, "dst": {"a": [1]}}


# A null written by add/replace with "value": null is a node without text in the library; a copy
# of it is the text null. Outcomes as the upstream target (library, v4.12.0) gave them.
_ADD_A_NULL = {"op": "add", "path": "/a", "value": None}
_COPY_A_TO_C = {"op": "copy", "from": "/a", "path": "/c"}


@pytest.mark.parametrize(("document", "patch", "outcome"), [
    ({}, [_ADD_A_NULL, {"op": "test", "path": "", "value": {"a": None}}], TestFailed),
    ({}, [{"op": "add", "path": "/a"}, {"op": "test", "path": "", "value": {"a": None}}], {"a": None}),
    ({}, [_ADD_A_NULL, {"op": "test", "path": "/a", "value": None}], {"a": None}),
    ({}, [_ADD_A_NULL, {"op": "test", "path": "/a", "value": {}}], TestFailed),
    ({}, [_ADD_A_NULL, {"op": "test", "path": "/a"}], TestFailed),
    ({"o": {}}, [{"op": "add", "path": "/o/b", "value": None}, {"op": "test", "path": "/o", "value": {"b": None}}],
     TestFailed),
    ({"a": 1}, [{"op": "replace", "path": "/a", "value": None}, {"op": "test", "path": "", "value": {"a": None}}],
     TestFailed),
    ({}, [_ADD_A_NULL, {"op": "move", "from": "/a", "path": "/m"}, {"op": "test", "path": "", "value": {"m": None}}],
     TestFailed),
    ({}, [_ADD_A_NULL, _COPY_A_TO_C, {"op": "test", "path": "/c", "value": None}], TestFailed),
    ({}, [_ADD_A_NULL, _COPY_A_TO_C, {"op": "test", "path": "/c", "value": {}}], {"a": None, "c": None}),
    ({}, [_ADD_A_NULL, _COPY_A_TO_C, {"op": "remove", "path": "/a"}, {"op": "test", "path": "", "value": {"c": {}}}],
     {"c": None}),
    ({}, [_ADD_A_NULL, _COPY_A_TO_C, {"op": "copy", "from": "/c", "path": "/d"},
          {"op": "test", "path": "/d", "value": {}}], {"a": None, "c": None, "d": None}),
    ({"a": None}, [_COPY_A_TO_C, {"op": "test", "path": "/c", "value": None}], {"a": None, "c": None}),
    ({"o": {}}, [{"op": "add", "path": "/o/b", "value": None}, {"op": "copy", "from": "/o", "path": "/p"},
                 {"op": "test", "path": "/p", "value": {"b": None}}], {"o": {"b": None}, "p": {"b": None}}),
])
def test_a_null_an_operation_writes_is_not_a_parsed_null(document, patch, outcome):
    if outcome is TestFailed:
        with pytest.raises(TestFailed):
            json_patch.apply(document, patch)
    else:
        result = json_patch.apply(document, patch)
        assert result == outcome
        assert json.dumps(result)  # only plain JSON comes out
