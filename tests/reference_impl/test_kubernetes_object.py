"""The read-back around the patch libraries; expectations as kubectl 1.32.4 printed them."""

import json

import pytest

from patchconf.reference_impl.errors import InvalidDocument
from patchconf.reference_impl.govalue import encoding_json
from patchconf.reference_impl.govalue.encoding_json import as_written
from patchconf.reference_impl.govalue.goyaml import through_yaml
from patchconf.reference_impl.govalue.utiljson import as_decoded, go_number, through_go_json
from patchconf.reference_impl.kubernetes_object import read_back


@pytest.mark.parametrize(("written", "read"), [
    (3, 3),
    (3.0, 3),
    (2500.0, 2500),
    (2.5, 2.5),
    (1e21, 1e21),
    (12345678901234567890, 12345678901234567000),
    (9223372036854775807, 9223372036854775807),
    (9223372036854775808, 9223372036854776000),
    (-9223372036854775809, -9223372036854776000),
    (True, True),
])
def test_numbers_come_back_as_go_writes_them(written, read):
    assert go_number(written) == read
    assert type(go_number(written)) is type(read)


def test_bare_documents_keep_their_number_types_as_the_library_decodes_them():
    # apimachinery's JSON decoding: int64 when the text is an integer that fits, else float64.
    written = {"parts": [{"id": 2500000.0}, {"id": 7}], "big": 9223372036854775808, "flag": True}
    decoded = as_decoded(written)
    assert decoded == {"parts": [{"id": 2500000.0}, {"id": 7}], "big": 9223372036854775808.0, "flag": True}
    assert [type(part["id"]) for part in decoded["parts"]] == [float, int]
    assert type(decoded["big"]) is float
    assert decoded["parts"] is not written["parts"]


def test_structures_are_copied_not_changed():
    original = {"spec": {"ports": [{"containerPort": 80.0}], "big": 12345678901234567890}}
    assert through_go_json(original) == {"spec": {"ports": [{"containerPort": 80}], "big": 12345678901234567000}}
    assert original["spec"]["ports"][0]["containerPort"] == 80.0
    assert isinstance(original["spec"]["ports"][0]["containerPort"], float)


def _items(value):
    """``value`` with its maps as lists of items, so that equality also compares key order."""
    if isinstance(value, dict):
        return [(key, type(item), _items(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [(type(item), _items(item)) for item in value]
    return value


def test_as_written_is_what_go_writes_and_reads_back():
    # kubectl diffs what it wrote as JSON; as_written stands for writing and reading back.
    decoded = through_go_json({
        "z": [{"b": 1.5, "a": 3.0}, 1e21, 1e-7, 12345678901234567890, "<&>\u2028", None, True],
        "\U0001F600": {"\uffff": "x", "é": 0.1, "a": -0.0, "Z": "", "a\u0000": [], "A": {}},
        "kind": "K",
    })
    written = as_written(decoded)
    # Go sorts keys by their UTF-8 bytes: Z < a < é < U+FFFF < U+1F600.
    assert list(written) == ["kind", "z", "\U0001F600"]
    assert list(written["\U0001F600"]) == ["A", "Z", "a", "a\u0000", "é", "\uffff"]
    assert _items(written) == _items(json.loads(encoding_json.encode(decoded)))
    assert written["z"] is not decoded["z"] and written["z"][0] is not decoded["z"][0]


@pytest.mark.parametrize("value", [{"a": [float("nan")]}, {"a": float("-inf")}, {"a": {1: "x"}}, {"a": {1}}])
def test_as_written_refuses_what_go_json_cannot_write(value):
    with pytest.raises((ValueError, TypeError)) as refused:
        encoding_json.encode(value)
    with pytest.raises(refused.type) as also_refused:
        as_written(value)
    assert str(also_refused.value) == str(refused.value)


def test_patch_read_through_yaml_keeps_integer_digits():
    assert through_yaml([{"value": 3.0}, {"value": 12345678901234567890}]) == [
        {"value": 3}, {"value": 12345678901234567890}]


def test_result_must_be_an_object_with_a_kind():
    with pytest.raises(InvalidDocument, match=r"cannot unmarshal array into Go value of type unstructured\.detector"):
        read_back([1, 2])
    with pytest.raises(InvalidDocument, match="Object 'Kind' is missing"):
        read_back({"apiVersion": "v1", "metadata": {"name": "x"}})
    with pytest.raises(InvalidDocument, match="Object 'Kind' is missing"):
        read_back({"apiVersion": "v1", "kind": ""})
    assert read_back({"kind": "ConfigMap", "data": {"n": 1.0}}) == {"kind": "ConfigMap", "data": {"n": 1}}
