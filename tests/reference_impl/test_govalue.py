"""The value layer (patchconf.reference_impl.govalue): Go's view of decoded JSON.

The printed forms expected here are what Go 1.26's fmt and strconv print for the same values
(``fmt.Sprintf("%v"/"%#v", v)``, ``strconv.Quote``), run on this machine.
"""

from __future__ import annotations

import copy
from collections import OrderedDict

import pytest

from patchconf.reference_impl.govalue import encoding_json, goyaml
from patchconf.reference_impl.govalue.decoded import (
    deep_equal,
    float64_numbers,
    go_equal,
    go_type,
    json_copy,
    json_copy_keeping_shared,
)
from patchconf.reference_impl.govalue.fmt import go_s, go_sharp_v, go_v
from patchconf.reference_impl.govalue.runtime import decoded_capacity
from patchconf.reference_impl.govalue.sort import go_sort, slice_stable
from patchconf.reference_impl.govalue.strconv import NumError, parse_int, quote
from patchconf.reference_impl.govalue.time import rfc3339_error


def test_json_copy_makes_every_map_and_list_new_and_shares_scalars() -> None:
    value = {"a": [{"b": 1}, "text", None], "c": OrderedDict(d=2.5)}
    copied = json_copy(value)
    assert copied == value
    assert copied is not value and copied["a"] is not value["a"] and copied["a"][0] is not value["a"][0]
    assert type(copied["c"]) is dict, "a subclass of dict is copied as the plain map Go decodes"
    assert copied["a"][1] is value["a"][1]


def test_the_two_patches_are_copied_keeping_what_they_share_shared() -> None:
    # Both patches of a three-way diff hold values of modified (here: its list and an
    # element of it); merging them changes them in place as Go changes its shared values.
    order = [{"name": "a"}, {"name": "b"}]
    deletions = {"$setElementOrder/containers": order}
    delta = {"$setElementOrder/containers": order, "containers": [order[1]], "replicas": 1}
    copies: dict = {}
    copied = (json_copy_keeping_shared(deletions, copies), json_copy_keeping_shared(delta, copies))
    assert copied == copy.deepcopy((deletions, delta))
    new_order = copied[1]["$setElementOrder/containers"]
    assert copied[0]["$setElementOrder/containers"] is new_order
    assert copied[1]["containers"][0] is new_order[1]
    assert new_order is not order and new_order[1] is not order[1]


@pytest.mark.parametrize(("value", "expected"), [
    (1, "int64"), (2**63, "float64"), (1.0, "float64"), (True, "bool"), ("1", "string"),
    ({}, "map[string]interface {}"), ([], "[]interface {}"), (None, None),
])
def test_go_type_is_the_decoders(value, expected) -> None:
    assert go_type(value) == expected


def test_equality_is_gos() -> None:
    assert not go_equal(1, 1.0) and not go_equal(1, True) and go_equal(2**63, float(2**63))
    assert deep_equal({"a": [1, "x"]}, {"a": [1, "x"]}) and not deep_equal({"a": [1]}, {"a": [1.0]})
    with pytest.raises(Exception, match="comparing uncomparable type map"):
        go_equal({}, {})


@pytest.mark.parametrize(("value", "v", "sharp_v"), [
    (1.0, "1", "1"),
    (1e6, "1e+06", "1e+06"),
    (1.5, "1.5", "1.5"),
    (100.0, "100", "100"),
    (1e21, "1e+21", "1e+21"),
    (1e-5, "1e-05", "1e-05"),
    (float(1 << 62), "4.611686018427388e+18", "4.611686018427388e+18"),
    (1000000, "1000000", "1000000"),
    ({"é": 1.0, "b\x01": "x"}, "map[b\x01:x é:1]", 'map[string]interface {}{"b\\x01":"x", "é":1}'),
    ([1.0, "s", None, True], "[1 s <nil> true]", '[]interface {}{1, "s", interface {}(nil), true}'),
    ("a\x07\u00ad\x7fé", "a\x07\u00ad\x7fé", '"a\\a\\u00ad\\x7fé"'),
])
def test_v_and_sharp_v_print_as_fmt_does(value, v, sharp_v) -> None:
    assert go_v(value) == v
    assert go_sharp_v(value) == sharp_v


def test_s_marks_what_is_not_a_string() -> None:
    assert go_s("x") == "x"
    assert go_s(None) == "%!s(<nil>)"
    assert go_s(1) == "%!s(int64=1)"


def test_quote_is_strconv_quote() -> None:
    assert quote("a\x07\u00ad\x7fé\U0001F600\u2028") == '"a\\a\\u00ad\\x7fé\U0001F600\\u2028"'


def test_float64_numbers_is_what_encoding_json_decodes_into_interface() -> None:
    assert float64_numbers({"a": [1, True, "1"]}) == {"a": [1.0, True, "1"]}
    assert go_v(float64_numbers(1000000)) == "1e+06"


def test_decoded_capacity_follows_append() -> None:
    # encoding/json appends items one by one: capacities 1, 2, 4, 8, ... (16-byte interface values)
    assert [decoded_capacity(n) for n in (0, 1, 2, 3, 5, 9, 17)] == [0, 1, 2, 4, 8, 16, 32]


def test_sorts_sort_in_place() -> None:
    items = [3, 1, 2] * 10
    go_sort(items, lambda left, right: left < right)
    assert items == sorted(items)
    pairs = [(2, "a"), (1, "b"), (2, "c"), (1, "d")]
    slice_stable(pairs, lambda left, right: left[0] < right[0])
    assert pairs == [(1, "b"), (1, "d"), (2, "a"), (2, "c")]


def test_parse_int_is_strconv_parse_int() -> None:
    assert [parse_int(text) for text in ("0", "-12", "+4", "9223372036854775807")] == [0, -12, 4, 2 ** 63 - 1]
    for text in ("", "+", "1.0", " 1", "١"):
        with pytest.raises(NumError, match=r"invalid syntax$"):
            parse_int(text)
    with pytest.raises(NumError, match=r'^strconv\.Atoi: parsing "9223372036854775808": value out of range$'):
        parse_int("9223372036854775808", "Atoi")


def test_go_sort_reverses_runs_of_equal_items_like_insertion_sort() -> None:
    # Go's sort.Sort with Less = "<=" (as strategicpatch sorts) swaps equal neighbours.
    # Go 1.26 sort.Sort on the same items printed [{0 first} {1 string} {1 int}].
    items = [("1", "int"), ("1", "string"), ("0", "first")]
    go_sort(items, lambda left, right: left[0] <= right[0])
    assert items == [("0", "first"), ("1", "string"), ("1", "int")]


def test_go_sort_orders_equal_items_as_pdqsort_does() -> None:
    # 60 items, 5 distinct keys: pdqsort's partitions (not insertion sort) decide the order
    # of equal items. Expected: Go 1.26 sort.Sort on the same (key, position) items.
    items = [((index * 37) % 5, index) for index in range(60)]
    go_sort(items, lambda left, right: left[0] <= right[0])
    assert [position for _, position in items] == [
        40,
        50,
        35,
        55,
        0,
        5,
        15,
        25,
        20,
        45,
        30,
        10,
        33,
        43,
        58,
        3,
        18,
        48,
        28,
        38,
        53,
        13,
        23,
        8,
        36,
        1,
        56,
        6,
        11,
        51,
        16,
        41,
        26,
        46,
        21,
        31,
        59,
        49,
        44,
        14,
        9,
        19,
        29,
        39,
        54,
        4,
        34,
        24,
        57,
        37,
        7,
        32,
        12,
        52,
        22,
        27,
        2,
        42,
        47,
        17,
    ]


def test_encoding_json_matches_json_marshal() -> None:
    # Go 1.26 json.Marshal of the same map printed exactly this text.
    value = {"b": [1, 2.0, 2.5, 1e21, 1.5e-7, 1e-10, 123456789012345678901, 0.000001, 1e20], "a": "<x>&\u2028\n\x01"}
    assert encoding_json.encode(value) == (
        '{"a":"\\u003cx\\u003e\\u0026\\u2028\\n\\u0001",'
        '"b":[1,2,2.5,1e+21,1.5e-7,1e-10,123456789012345680000,0.000001,100000000000000000000]}'
    )


def test_encoding_json_sorts_keys_by_their_utf8_bytes() -> None:
    # Go sorts map keys as byte strings; UTF-16 order would put U+1F600 before U+FFFF.
    value = {"\U0001F600": [], "\uffff": {}, "é": 3, "a": {"b": None, "B": True}, "Z": False, "": "<"}
    assert encoding_json.encode(value) == (
        '{"":"\\u003c","Z":false,"a":{"B":true,"b":null},"é":3,"\uffff":{},"\U0001F600":[]}')
    assert list(value) == ["\U0001F600", "\uffff", "é", "a", "Z", ""], "the value keeps its own order"


@pytest.mark.parametrize(("text", "message"), [
    ("2020-02-29T23:59:59.123+01:00", None),
    ("2021-02-29T00:00:00Z", 'parsing time "2021-02-29T00:00:00Z": day out of range'),
    ("2020-01-01T00:00:00+25:00", 'parsing time "2020-01-01T00:00:00+25:00": time zone offset hour out of range'),
    ("2020-01-01T00:00:00+25:61", 'parsing time "2020-01-01T00:00:00+25:61": time zone offset minute out of range'),
    ("2020-01-01T00:00:00.Z",
     'parsing time "2020-01-01T00:00:00.Z" as "2006-01-02T15:04:05Z07:00": cannot parse ".Z" as "Z07:00"'),
    ("2020-01-01T00:00:00ZZ", 'parsing time "2020-01-01T00:00:00ZZ": extra text: "Z"'),
    ("ü2020", 'parsing time "\\xc3\\xbc2020" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xbc2020" as "2006"'),
    ("2020-1-01T00:00:00Z",
     'parsing time "2020-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"'),
])
def test_times_parse_as_go_parses_rfc3339(text, message):
    # Go's time.Parse(time.RFC3339, text), as go1.26 printed it
    assert rfc3339_error(text) == message


@pytest.mark.parametrize(("value", "name"), [
    (None, None), (True, "bool"), ("merge", "string"), (1, "int"), (2**63 - 1, "int"), (-(2**63), "int"),
    (2**63, "uint64"), (2**64 - 1, "uint64"), (2**64, "float64"), (-(2**63) - 1, "float64"), (1.0, "float64"),
    ([1], "[]interface {}"), ({"a": 1}, "map[interface {}]interface {}"),
])
def test_go_yaml_names_the_go_type_of_a_decoded_value_as_go_yaml_v2_resolves_it(value, name) -> None:
    # resolve() tries ParseInt (an int when it fits), then ParseUint, then ParseFloat
    assert goyaml.go_type(value) == name
