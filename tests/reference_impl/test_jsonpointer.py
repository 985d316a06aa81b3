"""patchconf.reference_impl.jsonpointer: RFC 6901 escaping, as Kubernetes' JSON Patch library decodes it.

The decoding of "~2" and a lone "~" (kept as they are) was observed with kubectl 1.32
(``test`` ops on members named "~2" and "~" pass); see test_json_patch.py.
"""

from __future__ import annotations

import pytest

from patchconf.reference_impl import jsonpointer
from patchconf.reference_impl.errors import InvalidPatch


@pytest.mark.parametrize(
    ("token", "escaped"),
    [
        ("a", "a"),
        ("", ""),
        ("a/b", "a~1b"),
        ("m~n", "m~0n"),
        ("~1", "~01"),  # "~" first, or this would come out as "~1" and read back as "/"
        ("/~", "~1~0"),
        ("é/ü", "é~1ü"),
    ],
)
def test_escape_and_unescape(token, escaped):
    assert jsonpointer.escape(token) == escaped
    assert jsonpointer.unescape(escaped) == token


@pytest.mark.parametrize(
    ("escaped", "token"),
    [
        ("~01", "~1"),  # RFC 6901 section 4: one pass, not "/" via "~1"
        ("~10", "/0"),
        ("~2", "~2"),  # not an escape: kept, as Kubernetes keeps it (the RFC would refuse it)
        ("~", "~"),
        ("a~", "a~"),
        ("~~01", "~~1"),
    ],
)
def test_unescape_reads_like_kubernetes(escaped, token):
    assert jsonpointer.unescape(escaped) == token


@pytest.mark.parametrize(
    ("pointer", "token", "joined"),
    [
        ("", "a", "/a"),
        ("", "", "/"),
        ("/x", 0, "/x/0"),
        ("/x", "", "/x/"),
        ("/x", "a/b", "/x/a~1b"),
        ("/x", "~", "/x/~0"),
    ],
)
def test_join(pointer, token, joined):
    assert jsonpointer.join(pointer, token) == joined


@pytest.mark.parametrize(
    ("pointer", "tokens"),
    [
        ("", []),
        ("/", [""]),
        ("//", ["", ""]),
        ("/a~1b/m~0n", ["a/b", "m~n"]),
        ("/~01", ["~1"]),
        ("/foo/0", ["foo", "0"]),
        ("/é/ü", ["é", "ü"]),
    ],
)
def test_parse_and_build(pointer, tokens):
    assert jsonpointer.parse(pointer) == tokens
    assert jsonpointer.build(tokens) == pointer


@pytest.mark.parametrize("pointer", ["a", "a/b", " /a", "~1"])
def test_parse_refuses_a_pointer_without_leading_slash(pointer):
    with pytest.raises(InvalidPatch) as caught:
        jsonpointer.parse(pointer)
    assert caught.value.pointer == pointer


def test_build_accepts_indices():
    assert jsonpointer.build(["spec", "containers", 0, "name"]) == "/spec/containers/0/name"
