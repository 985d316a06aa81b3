"""What strategic merge patch does with lists, in both directions (applying and creating).

Go twin: the slice helpers of k8s.io/apimachinery/pkg/util/strategicpatch/patch.go:
``sliceElementType`` (:func:`elements_are_maps`), ``deduplicateScalars`` (:func:`deduplicate`),
``deleteMatchingEntries`` shifting a list in place (:func:`removal_sequence`, :func:`stale_tail`),
``mergeKeyValueEqual`` (:func:`same_merge_key`), ``index`` and ``findMapInSliceBasedOnKeyValue``
(:class:`Index`), and the ordering of a merged list: ``normalizeElementOrder``
(:func:`normalize`), ``normalizeSliceOrder`` (:func:`sort_by`), ``mergeSortedSlice``
(:func:`merge_sorted`), ``partitionMapsByPresentInList`` and its primitive twin
(:func:`partition_by_order`), ``validatePatchWithSetOrderList`` (:func:`validate_order`).
"""

from __future__ import annotations

import heapq
from typing import Any

from ..errors import InvalidDirective, ListOfLists, MergeKeyMissing, TypeMismatch
from ..govalue.decoded import (
    GO_MAP,
    GO_SLICE,
    Json,
    comparable_key,
    go_equal,
    go_type,
    uncomparable,
)
from ..govalue.fmt import go_v
from ..govalue.runtime import NIL_POINTER_DEREFERENCE
from ..govalue.sort import slice_stable
from ..jsonpointer import LinkedPath, from_linked
from .directives import DELETE, DIRECTIVE, SET_ELEMENT_ORDER
from .mergepatch import bad_arg_type, no_merge_key


def deduplicate(items: list, keys: list) -> tuple[list, int]:
    """Run upstream's ``deduplicateScalars`` on a copy of ``items``.

    It removes each later duplicate of ``s[i]`` by moving the current last item into its
    place. Returns the whole array as it is left (items past the new end keep whatever
    was last written there, as Go's backing array does) and the new length. Each value's
    positions are kept in a heap, so this is O(n log n) where upstream is quadratic.
    """
    values = list(items)
    keys = list(keys)
    positions: dict[Any, list[int]] = {}
    for position, key in enumerate(keys):
        positions.setdefault(key, []).append(position)  # ascending: already a heap
    last = len(values) - 1
    i = 0
    while i < last:
        key = keys[i]
        heap = positions[key]
        while True:
            while heap and (heap[0] <= i or heap[0] > last or keys[heap[0]] != key):
                heapq.heappop(heap)
            if not heap:
                break
            duplicate = heap[0]
            moved_key = keys[last]
            values[duplicate] = values[last]
            keys[duplicate] = moved_key
            last -= 1
            if duplicate > last:
                heapq.heappop(heap)
            elif moved_key != key:
                heapq.heappop(heap)
                heapq.heappush(positions[moved_key], duplicate)
        i += 1
    return values, last + 1



class Index:
    """First position of each merge-key value (or scalar) of a list.

    What upstream finds by scanning the list with Go's ``==``: maps and lists never
    match, and looking one up panics when the list holds one of the same kind.
    """

    __slots__ = ("first", "uncomparable")

    def __init__(self, values: list, positions: list[int] | None = None) -> None:
        self.uncomparable: set[type] = set()
        keys = _hash_keys(values, self.uncomparable)
        where = range(len(keys)) if positions is None else positions
        # Later duplicates first, so that the first position is the one kept.
        self.first: dict[Any, int] = dict(zip(reversed(keys), reversed(where), strict=True))

    def add(self, value: Json, position: int) -> None:
        key = _hash_keys([value], self.uncomparable)[0]
        self.first.setdefault(key, position)

    def find(self, value: Json) -> int:
        return self.ranks([value])[0]

    def ranks(self, values: list) -> list[int]:
        """The first position of each of ``values``, -1 where absent."""
        kinds: set[type] = set()
        keys = _hash_keys(values, kinds)
        clash = kinds & self.uncomparable
        if clash:
            raise uncomparable(clash.pop()())
        get = self.first.get
        return [get(key, -1) for key in keys]


def _hash_keys(values: list, uncomparable: set[type]) -> list:
    """:func:`comparable_key` of each value; a key matching nothing for maps and lists (noted in ``uncomparable``)."""

    def key(value: Json) -> Any:
        kind = type(value)
        if kind is dict or kind is list:
            uncomparable.add(kind)
            return object()
        return comparable_key(value)

    return [value if type(value) is str else key(value) for value in values]


def _merge_key_values(items: list, merge_key: str, path: LinkedPath) -> list:
    """The merge-key value of each item; every item must be a map carrying the key."""
    try:
        return [item[merge_key] for item in items]
    except (KeyError, TypeError, IndexError):
        for position, item in enumerate(items):
            _check_keyed(item, merge_key, None if path is None else (path, position))
        raise


def elements_are_maps(*lists: list) -> bool:
    """Whether the items of ``lists`` are maps (upstream's ``sliceElementType``).

    Every item must have the Go type of the first; lists of lists are refused.
    """
    first_type: Any = elements_are_maps  # no type seen yet
    python_type: Any = None
    for items in lists:
        for item in items:
            if type(item) is python_type and python_type is not int and python_type is not float:
                continue
            item_type = go_type(item)
            if first_type is elements_are_maps:
                if item is None:
                    raise TypeMismatch(NIL_POINTER_DEREFERENCE)
                if item_type == GO_SLICE:
                    raise ListOfLists("lists of lists are not supported")
                first_type, python_type = item_type, type(item)
            elif item_type != first_type:
                raise TypeMismatch(f"list element types are not identical: {go_v(list(lists))}")
    if first_type is elements_are_maps:
        raise InvalidDirective("no elements in any of the given slices")
    return first_type == GO_MAP



def normalize(
    patch_items: list, server_only: list, patch_order: list, server_order: list,
    merge_key: str, is_map: bool, order_path: LinkedPath = None,
) -> list:
    """Order a merged list (``normalizeElementOrder``).

    Items the patch names follow the patch's order; the others follow the original's;
    the two runs are then interleaved by the original's order where both items are in
    it, with patch items first otherwise (``mergeSortedSlice``).
    """
    patch_items, _ = sort_by(patch_items, patch_order, merge_key, is_map, order_path)
    server_only, server_index = sort_by(server_only, server_order, merge_key, is_map, None)
    return merge_sorted(server_only, patch_items, server_index, merge_key, is_map)


def sort_by(
    items: list, order: list, merge_key: str, is_map: bool, order_path: LinkedPath
) -> tuple[list, Index | list]:
    """``items`` stably sorted by their first position in ``order`` (``normalizeSliceOrder``).

    For maps every item of both lists must carry the merge key, and ``$patch: delete``
    items go last. Also returns the index of ``order`` (or its values, unindexed).
    """
    deletions: list = []
    if is_map:
        item_values = _merge_key_values(items, merge_key, None)
        order_values = _merge_key_values(order, merge_key, order_path)
        if any(DIRECTIVE in element for element in items):
            deletions = [element for element in items if element.get(DIRECTIVE) == DELETE]
            if deletions:
                items = [element for element in items if element.get(DIRECTIVE) != DELETE]
                item_values = [element[merge_key] for element in items]
    else:
        item_values, order_values = items, order
    if len(items) < 2:
        return items + deletions, order_values
    index = Index(order_values)
    ranks = index.ranks(item_values)
    if min(ranks) >= 0:
        ordered = [items[i] for i in sorted(range(len(items)), key=ranks.__getitem__)]
    else:
        # An item missing from ``order`` makes upstream's comparator say "less" both
        # ways; only Go's own sort gives upstream's order then.
        pairs = list(zip(ranks, items, strict=True))
        slice_stable(pairs, lambda left, right: left[0] < right[0] if left[0] >= 0 and right[0] >= 0 else True)
        ordered = [item for _, item in pairs]
    return ordered + deletions, index


def merge_sorted(
    left: list, right: list, server_index: Index | list, merge_key: str, is_map: bool
) -> list:
    """Interleave server-only ``left`` into patch-ordered ``right`` (``mergeSortedSlice``)."""
    if not left or not right:
        return left + right
    index = server_index if isinstance(server_index, Index) else Index(server_index)
    left_ranks = index.ranks([element[merge_key] for element in left] if is_map else left)
    right_ranks = index.ranks([element[merge_key] for element in right] if is_map else right)
    merged = []
    i = j = 0
    while i < len(left) and j < len(right):
        if 0 <= left_ranks[i] < right_ranks[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


def validate_order(patch_list: list, order: list, merge_key: str) -> None:
    """The patch's items must appear in ``order`` in the same relative order.

    (``validatePatchWithSetOrderList``; ``$patch: delete`` items and other directive
    items of the patch are not checked.)
    """
    if not order or not patch_list:
        return
    candidates = patch_list
    if merge_key:
        for element in patch_list:
            if type(element) is not dict:
                raise TypeMismatch(bad_arg_type(GO_MAP, element))
        candidates = [element for element in patch_list if element.get(DIRECTIVE) != DELETE]
    i = j = 0
    while i < len(candidates) and j < len(order):
        item = candidates[i]
        if type(item) is dict and DIRECTIVE in item:
            i += 1
            continue
        if same_merge_key(item, order[j], merge_key):
            i += 1
        j += 1
    if i < len(candidates) and j >= len(order):
        raise InvalidDirective(
            f"The order in patch list:\n{go_v(patch_list)}\n doesn't match {SET_ELEMENT_ORDER} list:\n"
            f"{go_v(order)}\n"
        )


def partition_by_order(merged: list, order: list, merge_key: str, order_path: LinkedPath) -> tuple[list, list]:
    """Split ``merged`` into the items ``order`` names and the others, keeping their order."""
    named: list = []
    others: list = []
    if not merge_key:
        in_order = {comparable_key(value) for value in order}
        for value in merged:
            (named if comparable_key(value) in in_order else others).append(value)
        return named, others
    first_non_map = next((position for position, item in enumerate(order) if type(item) is not dict), None)
    keyed = [position for position, item in enumerate(order) if type(item) is dict and merge_key in item]
    index = Index([order[position][merge_key] for position in keyed], keyed)
    for element in merged:
        if type(element) is not dict:
            raise TypeMismatch(bad_arg_type(GO_MAP, element))
        if merge_key not in element:
            raise MergeKeyMissing(no_merge_key(element, merge_key))
        position = index.find(element[merge_key])
        # upstream scans the order list and fails on a non-map before finding a match
        if first_non_map is not None and (position < 0 or first_non_map < position):
            raise TypeMismatch(f"value for key {first_non_map} is not a map", from_linked((order_path, first_non_map)))
        (named if position >= 0 else others).append(element)
    return named, others



def _check_keyed(element: Json, merge_key: str, path: LinkedPath) -> None:
    """Upstream's ``validateMergeKeyInLists`` for one item."""
    if type(element) is not dict:
        raise TypeMismatch(bad_arg_type(GO_MAP, element), from_linked(path) if path is not None else "")
    if merge_key not in element:
        raise MergeKeyMissing(no_merge_key(element, merge_key), from_linked(path) if path is not None else "")


def same_merge_key(left: Json, right: Json, merge_key: str) -> bool:
    """Upstream's ``mergeKeyValueEqual``: the items themselves when there is no merge key."""
    if merge_key:
        for item in (left, right):
            if type(item) is not dict:
                raise TypeMismatch(bad_arg_type(GO_MAP, item))
        for item in (left, right):
            if merge_key not in item:
                raise MergeKeyMissing(no_merge_key(item, merge_key))
        left, right = left[merge_key], right[merge_key]
    return go_equal(left, right)


def removal_sequence(original: list, deletions: list, merge_key: str) -> list[int]:
    """Positions of ``original`` that ``$patch: delete`` elements remove, in removal order."""
    if not deletions:
        return []
    positions: dict[Any, list[int]] = {}
    uncomparable: set[type] = set()
    for position, element in enumerate(original):
        if merge_key not in element:
            continue
        value = element[merge_key]
        if type(value) is dict or type(value) is list:
            uncomparable.add(type(value))
            continue
        positions.setdefault(comparable_key(value), []).append(position)
    sequence: list[int] = []
    for value in deletions:
        if type(value) is dict or type(value) is list:
            if type(value) in uncomparable:
                raise uncomparable(value)
            continue
        sequence.extend(positions.pop(comparable_key(value), ()))
    return sequence


def stale_tail(original: list, removed: list[int]) -> list:
    """The items left past the end of ``original`` once ``removed`` are deleted in place.

    Each ``append(s[:i], s[i+1:]...)`` shifts the rest left and leaves the old last item
    in the last slot, where the original list (still of the old length) shows it.
    """
    if not removed:
        return []
    tail: list = [None] * len(removed)
    gone: set[int] = set()
    last = len(original) - 1
    for step, position in enumerate(removed, start=1):
        while last in gone:
            last -= 1
        tail[len(removed) - step] = original[last]
        gone.add(position)
    return tail
