"""Applying a strategic merge patch exactly as Kubernetes does.

This reproduces ``StrategicMergePatch`` of ``k8s.io/apimachinery`` v0.32.4
(``pkg/util/strategicpatch``), which ``kubectl patch --type strategic`` (1.32) runs, in
linear time. The algorithm is decomposed by the shape of the data:

- a **map** merges key by key (:meth:`_Merge.map`): ``null`` deletes, new keys are added
  without their ``null`` members and ``$patch`` maps, maps merge recursively unless the
  field's strategy is ``replace``, anything else (scalars, type changes) is replaced;
  ``$patch``, ``$retainKeys``, ``$setElementOrder/…`` and ``$deleteFromPrimitiveList/…``
  are directives on the map;
- a **list** (:meth:`_Merge.merge_list`) is replaced unless its strategy is ``merge``:
  then scalars are unioned, maps are matched by merge key (``$patch: delete|replace``
  elements first), and the result is ordered (:meth:`_Merge.normalize`);
- a **directive** has its own small method.

Where upstream's result depends on more than the JSON, we follow upstream anyway:

- Go slices share memory. ``mergeSlice`` deduplicates a primitive list in the backing
  array of the original list when it has room (``append``), and ``$patch: delete``
  shifts a list in place; the original order upstream uses afterwards is that
  overwritten array. We reproduce the overwritten array (with the capacities Go's JSON
  decoder gives a list of each length, as ``StrategicMergePatch`` decodes its input),
  so duplicate values and ``$setElementOrder`` with deletions order exactly as upstream.
- Go iterates maps in random order. Where that makes upstream's outcome random, we take
  patch keys in document order, except that ``$deleteFromPrimitiveList/…`` lists are
  applied after every other key of their map (so deleting a value that the same patch
  adds leaves it deleted).
- Where upstream panics (``null`` as the first element of a merged list, maps as merge
  key values or in the ``$setElementOrder`` list of a primitive list), we raise the
  error class that fits with Go's runtime message.

Numbers keep their Python type: integers stay exact, floats stay floats. Go sees an
integer and a float as different values (``80`` does not match ``80.0``) and an integer
beyond int64 as a float, and so do we.

The inputs are never mutated. The result is built copy-on-write: maps and lists on the
paths the patch touches are new, values taken from the patch are copies, and subtrees of
the document that the patch does not touch are shared with ``document`` (copying them
would cost more than the merge). Deep-copy the result before mutating it in place.

Errors carry the JSON pointer of the failing node: in the patch where the patch is at
fault (a list element by its index in the patch), in the document where the document is
(an element by its index there); errors about a field carry the field's pointer.
"""

from __future__ import annotations

import heapq
from typing import Any

from patchconf.reference_impl.errors import (
    InvalidDirective,
    InvalidDocument,
    InvalidPatch,
    ListOfLists,
    MergeKeyMissing,
    PatchError,
    RetainKeysViolation,
    TypeMismatch,
)
from patchconf.reference_impl.errors import NoStrategicSchema as NoStrategicSchema  # re-raised from lookups
from patchconf.reference_impl.govalue.decoded import (
    GO_MAP,
    GO_SLICE,
    comparable_key,
    go_equal,
    go_type,
    json_copy,
    uncomparable,
)
from patchconf.reference_impl.govalue.fmt import go_s, go_v
from patchconf.reference_impl.govalue.runtime import decoded_capacity
from patchconf.reference_impl.govalue.sort import slice_stable
from patchconf.reference_impl.jsonpointer import escape
from patchconf.reference_impl.strategic.patchmeta import FieldMeta, PatchMeta

Json = Any

DIRECTIVE = "$patch"
DELETE = "delete"
REPLACE = "replace"
MERGE = "merge"
RETAIN_KEYS = "$retainKeys"
RETAIN_KEYS_STRATEGY = "retainKeys"
SET_ELEMENT_ORDER = "$setElementOrder"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"

NIL_PANIC = "runtime error: invalid memory address or nil pointer dereference"


def apply(document: Json, patch: Json, meta: PatchMeta) -> Json:
    """The result of applying strategic merge ``patch`` to ``document``.

    ``meta`` answers which fields merge and by which key (see
    :mod:`patchconf.reference_impl.strategic.patchmeta`). A ``null`` patch changes nothing and a
    ``null`` document is read as ``{}``, as upstream's decoding does; any other
    non-object is an error.
    """
    # Upstream decodes the document before the patch.
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise InvalidDocument("invalid JSON document")
    if patch is None:
        patch = {}
    if not isinstance(patch, dict):
        raise InvalidPatch("invalid JSON document")
    return _Merge().map(document, patch, meta, None, None)


# --------------------------------------------------------------------------------------
# Pointers: built only when an error needs one.
# --------------------------------------------------------------------------------------

# A path is None (the root) or a pair (parent path, token); cheap to extend per element.
Path = tuple | None


def _pointer(path: Path) -> str:
    tokens = []
    while path is not None:
        path, token = path
        tokens.append(escape(str(token)))
    return "".join("/" + token for token in reversed(tokens))


def _at(error: PatchError, path: Path) -> PatchError:
    if not error.pointer:
        error.pointer = _pointer(path)
    return error


# --------------------------------------------------------------------------------------
# Upstream's messages.
# --------------------------------------------------------------------------------------


def _go_type_s(value: Json) -> str:
    """``%s`` of ``reflect.TypeOf(value)``, as ``ErrBadArgType`` prints it."""
    type_name = go_type(value)
    return "%!s(<nil>)" if type_name is None else type_name


def _bad_arg_type(expected: str, value: Json) -> str:
    return f"expected a {expected}, but received a {_go_type_s(value)}"


def _no_merge_key(element: dict, merge_key: str) -> str:
    return f"map: {go_v(element)} does not contain declared merge key: {merge_key}"


# --------------------------------------------------------------------------------------
# What upstream does to slices in place; finding items as Go's == does.
# --------------------------------------------------------------------------------------


def _deduplicate(items: list, keys: list) -> tuple[list, int]:
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


class _Index:
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


def _merge_key_values(items: list, merge_key: str, path: Path) -> list:
    """The merge-key value of each item; every item must be a map carrying the key."""
    try:
        return [item[merge_key] for item in items]
    except (KeyError, TypeError, IndexError):
        for position, item in enumerate(items):
            _check_keyed(item, merge_key, None if path is None else (path, position))
        raise


def _element_kind(*lists: list) -> bool:
    """Whether the items of ``lists`` are maps (upstream's ``sliceElementType``).

    Every item must have the Go type of the first; lists of lists are refused.
    """
    first_type: Any = _element_kind  # no type seen yet
    python_type: Any = None
    for items in lists:
        for item in items:
            if type(item) is python_type and python_type is not int and python_type is not float:
                continue
            item_type = go_type(item)
            if first_type is _element_kind:
                if item is None:
                    raise TypeMismatch(NIL_PANIC)
                if item_type == GO_SLICE:
                    raise ListOfLists("lists of lists are not supported")
                first_type, python_type = item_type, type(item)
            elif item_type != first_type:
                raise TypeMismatch(f"list element types are not identical: {go_v(list(lists))}")
    if first_type is _element_kind:
        raise InvalidDirective("no elements in any of the given slices")
    return first_type == GO_MAP


# --------------------------------------------------------------------------------------
# Values taken from the patch.
# --------------------------------------------------------------------------------------


def _without_directives(value: Json, drop_nulls: bool) -> tuple[Json, bool]:
    """A copy of ``value`` without maps that carry ``$patch`` (and whether to keep it).

    With ``drop_nulls`` it first drops ``null`` members of maps, at any depth, as
    upstream does with patch values it adds where the document has nothing to merge
    with (``discardNullValuesFromPatch`` then ``removeDirectives``). ``null`` items of
    lists stay.
    """
    kind = type(value)
    if kind is dict:
        if DIRECTIVE in value and not (drop_nulls and value[DIRECTIVE] is None):
            return None, False
        result = {}
        for key, item in value.items():
            if item is None:
                if not drop_nulls:
                    result[key] = None
                continue
            cleaned, keep = _without_directives(item, drop_nulls)
            if keep:
                result[key] = cleaned
        return result, True
    if kind is list:
        result_list = []
        for item in value:
            cleaned, keep = _without_directives(item, drop_nulls)
            if keep:
                result_list.append(cleaned)
        return result_list, True
    return value, True


def _strategy(meta: FieldMeta) -> str:
    """The strategy besides ``retainKeys`` (upstream's ``extractRetainKeysPatchStrategy``)."""
    strategies = meta.strategies
    if not strategies:
        return ""
    if len(strategies) == 1:
        return "" if strategies[0] == RETAIN_KEYS_STRATEGY else strategies[0]
    if len(strategies) == 2:
        if strategies[0] == RETAIN_KEYS_STRATEGY:
            return strategies[1]
        if strategies[1] == RETAIN_KEYS_STRATEGY:
            return strategies[0]
    raise NoStrategicSchema(f"unexpected patch strategy: [{' '.join(strategies)}]")


# --------------------------------------------------------------------------------------
# The merge.
# --------------------------------------------------------------------------------------


class _Merge:
    """One application of a patch: it remembers the capacity of the lists it makes."""

    def __init__(self) -> None:
        # Lists this merge built whose Go capacity is not the decoder's, by id (the list
        # is kept too, so the id stays its own).
        self._capacities: dict[int, tuple[list, int]] = {}

    def _made(self, items: list, capacity: int | None = None) -> list:
        self._capacities[id(items)] = (items, len(items) if capacity is None else capacity)
        return items

    def _capacity(self, items: list) -> int:
        known = self._capacities.get(id(items))
        if known is not None and known[0] is items:
            return known[1]
        return decoded_capacity(len(items))

    # ---- maps -------------------------------------------------------------------------

    def map(self, original: dict, patch: dict, meta: PatchMeta, ppath: Path, dpath: Path) -> dict:
        """``original`` merged with ``patch`` (upstream's ``mergeMap``)."""
        if DIRECTIVE in patch:
            return self.map_directive(patch, ppath)
        result = dict(original)
        if not any(key[:1] == "$" for key in patch):
            for key, value in patch.items():
                self.field(result, key, key, value, meta, ppath, dpath, False)
            return result

        if RETAIN_KEYS in patch:
            result = self.retain_keys(result, patch, ppath)
        consumed = {RETAIN_KEYS}
        for key in patch:
            if key.startswith(SET_ELEMENT_ORDER):
                consumed.add(key)
                consumed.add(self.set_element_order(result, patch, key, meta, ppath, dpath))
        deletion_lists = []
        for key, value in patch.items():
            if key in consumed:
                continue
            if key.startswith(DELETE_FROM_PRIMITIVE_LIST):
                deletion_lists.append((key, value))
                continue
            self.field(result, key, key, value, meta, ppath, dpath, False)
        for key, value in deletion_lists:
            prefix, slash, target = key.partition("/")
            if not slash or prefix != DELETE_FROM_PRIMITIVE_LIST:
                raise InvalidDirective("invalid patch format of primitive list", _pointer((ppath, key)))
            self.field(result, key, target or key, value, meta, ppath, dpath, True)
        return result

    def map_directive(self, patch: dict, ppath: Path) -> dict:
        """A map carrying ``$patch`` (``handleDirectiveInMergeMap``)."""
        directive = patch[DIRECTIVE]
        if directive == REPLACE:
            # The patch as sent, nulls and nested directives included.
            return {key: json_copy(value) for key, value in patch.items() if key != DIRECTIVE}
        if directive == DELETE:
            return {}
        raise InvalidDirective(
            f"unknown patch type: {go_s(directive)} in map: {go_v(patch)}", _pointer((ppath, DIRECTIVE))
        )

    def retain_keys(self, result: dict, patch: dict, ppath: Path) -> dict:
        """Apply ``$retainKeys`` (``applyRetainKeysDirective``), whatever the field's strategy."""
        retain = patch[RETAIN_KEYS]
        if type(retain) is not list:
            raise RetainKeysViolation("invalid patch format of retainKeys", _pointer((ppath, RETAIN_KEYS)))
        for value in retain:
            if type(value) is dict or type(value) is list:
                raise RetainKeysViolation(
                    f"runtime error: hash of unhashable type {go_type(value)}", _pointer((ppath, RETAIN_KEYS))
                )
        allowed = {value for value in retain if type(value) is str}
        for key, value in patch.items():
            if key == RETAIN_KEYS or value is None:
                continue
            if key.startswith(DELETE_FROM_PRIMITIVE_LIST) or key.startswith(SET_ELEMENT_ORDER):
                continue
            if key not in allowed:
                raise RetainKeysViolation("invalid patch format of retainKeys", _pointer((ppath, key)))
        return {key: value for key, value in result.items() if key in allowed}

    def field(
        self, result: dict, patch_key: str, key: str, value: Json, meta: PatchMeta,
        ppath: Path, dpath: Path, deletion_list: bool,
    ) -> None:
        """Merge patch member ``patch_key`` into ``result[key]`` (one turn of ``mergeMap``'s loop)."""
        try:
            if value is None:
                result.pop(key, None)
                return
            if key not in result:
                if not deletion_list:
                    cleaned, keep = _without_directives(value, drop_nulls=True)
                    if keep:
                        result[key] = cleaned
                return
            current = result[key]
            current_kind, patch_kind = type(current), type(value)
            if current_kind is dict and patch_kind is dict:
                field_meta = meta.lookup_map(key)
                if _strategy(field_meta) == REPLACE:
                    result[key] = json_copy(value)
                else:
                    result[key] = self.map(
                        current, value, field_meta.schema, (ppath, patch_key), (dpath, key)
                    )
            elif current_kind is list and patch_kind is list:
                field_meta = meta.lookup_list(key)
                result[key] = self.list_field(
                    current, value, field_meta, deletion_list, (ppath, patch_key), (dpath, key)
                )[0]
            elif go_type(current) != go_type(value) or current_kind in (dict, list) or patch_kind in (dict, list):
                if not deletion_list:
                    cleaned, keep = _without_directives(value, drop_nulls=True)
                    if keep:
                        result[key] = cleaned
                    else:
                        del result[key]
            else:
                result[key] = value
        except PatchError as error:
            raise _at(error, (ppath, patch_key)) from None

    # ---- lists ------------------------------------------------------------------------

    def list_field(
        self, current: list, value: list, field_meta: FieldMeta, deletion_list: bool, ppath: Path, dpath: Path
    ) -> tuple[list, list]:
        """A list field merged or replaced (``mergeSliceHandler``); also the original's final view."""
        if _strategy(field_meta) == MERGE or deletion_list:
            return self.merge_list(current, value, field_meta, deletion_list, ppath, dpath)
        return json_copy(value), current

    def merge_list(
        self, original: list, patch: list, field_meta: FieldMeta, deletion_list: bool, ppath: Path, dpath: Path
    ) -> tuple[list, list]:
        """A merge list (``mergeSlice``).

        Returns the merged list and the original list as upstream's backing array holds it
        afterwards (it may have been written to; see the module docstring).
        """
        if not original and not patch:
            return original, original
        if _element_kind(original, patch):
            return self.merge_map_list(original, patch, field_meta, ppath, dpath)
        if deletion_list:
            drop = {comparable_key(value) for value in patch}
            kept = [value for value in original if comparable_key(value) not in drop]
            return self._made(kept, len(original)), original
        return self.merge_scalar_list(original, patch, field_meta.merge_key)

    def merge_scalar_list(self, original: list, patch: list, merge_key: str) -> tuple[list, list]:
        """Union of two lists of scalars, without duplicates, then ordered."""
        both = original + patch
        keys = [comparable_key(value) for value in both]
        view = original
        if len(set(keys)) == len(keys):
            merged = both
        else:
            array, length = _deduplicate(both, keys)
            merged = array[:length]
            # append() wrote into the original's backing array when it had room.
            if not patch or len(both) <= self._capacity(original):
                view = array[: len(original)]
        if merge_key:
            raise TypeMismatch(_bad_arg_type(GO_MAP, merged[0]))
        in_patch = {comparable_key(value) for value in patch}
        patch_items = [value for value in merged if comparable_key(value) in in_patch]
        server_only = [value for value in merged if comparable_key(value) not in in_patch]
        return self.normalize(patch_items, server_only, patch, view, "", False), view

    def merge_map_list(
        self, original: list, patch: list, field_meta: FieldMeta, ppath: Path, dpath: Path
    ) -> tuple[list, list]:
        """Merge two lists of maps by merge key."""
        merge_key = field_meta.merge_key
        if not merge_key:
            raise MergeKeyMissing(f"cannot merge lists without merge key for {field_meta.schema.name}")
        rest, replace, deletions = self.list_directives(patch, merge_key, ppath)
        removed = _removal_sequence(original, deletions, merge_key)
        kept_positions: list[int] | None = None
        kept = original
        if removed:
            deleted = set(removed)
            kept_positions = [position for position in range(len(original)) if position not in deleted]
            kept = [original[position] for position in kept_positions]
        tail = _stale_tail(original, removed)

        if replace:
            merged = [json_copy(element) for _, element in rest]
            server_order = merged
            sources = [index for index, _ in rest]
            rest = []
            view = kept + tail

            def path_of(position: int) -> Path:
                return (ppath, sources[position])
        else:
            merged, appended = self.merge_elements(kept, kept_positions, rest, field_meta, ppath, dpath)
            server_order = kept
            # The first appended elements land where deletion left stale items.
            overwritten = min(len(tail), len(appended))
            view = kept + [element for _, element in appended[:overwritten]] + tail[overwritten:]

            def path_of(position: int) -> Path:
                if position >= len(kept):
                    return (ppath, appended[position - len(kept)][0])
                return (dpath, position if kept_positions is None else kept_positions[position])

        try:
            merged_values = [element[merge_key] for element in merged]
        except KeyError:
            for position, element in enumerate(merged):
                if merge_key not in element:
                    raise MergeKeyMissing(_no_merge_key(element, merge_key), _pointer(path_of(position))) from None
            raise
        in_patch = _Index([element[merge_key] for _, element in rest]).ranks(merged_values)
        patch_items = [element for element, rank in zip(merged, in_patch, strict=True) if rank >= 0]
        server_only = [element for element, rank in zip(merged, in_patch, strict=True) if rank < 0]
        order = [element for _, element in rest]
        return self.normalize(patch_items, server_only, order, server_order, merge_key, True), view

    def list_directives(self, patch: list, merge_key: str, ppath: Path) -> tuple[list, bool, list]:
        """Split the ``$patch`` elements off a list patch (``mergeSliceWithSpecialElements``).

        Returns the other elements as (index in the patch, element), whether the list is
        replaced, and the merge-key values to delete, in the order upstream deletes them.
        """
        rest = []
        replace = False
        deletions = []
        for index, element in enumerate(patch):
            if DIRECTIVE not in element:
                rest.append((index, element))
                continue
            directive = element[DIRECTIVE]
            if directive == DELETE:
                if merge_key not in element:
                    raise MergeKeyMissing(_no_merge_key(element, merge_key), _pointer((ppath, index)))
                deletions.append(element[merge_key])
            elif directive == REPLACE:
                replace = True  # the other directives are still checked
            elif directive == MERGE:
                raise InvalidDirective(
                    "merging lists cannot yet be specified in the patch", _pointer(((ppath, index), DIRECTIVE))
                )
            else:
                raise InvalidDirective(
                    f"unknown patch type: {go_s(directive)} in map: {go_v(element)}",
                    _pointer(((ppath, index), DIRECTIVE)),
                )
        return rest, replace, deletions

    def merge_elements(
        self, kept: list, kept_positions: list[int] | None, rest: list, field_meta: FieldMeta,
        ppath: Path, dpath: Path,
    ) -> tuple[list, list]:
        """Merge each patch element into the first element with its merge key, or append it.

        (``mergeSliceWithoutSpecialElements``.) Appended elements are found by later
        patch elements with the same key. Returns the merged list and the appended
        elements as (index in the patch, element).
        """
        merge_key = field_meta.merge_key
        merged = list(kept)
        appended: list[tuple[int, dict]] = []
        keyed = [position for position, element in enumerate(kept) if merge_key in element]
        if len(keyed) == len(kept):
            index = _Index([element[merge_key] for element in kept])
        else:
            index = _Index([kept[position][merge_key] for position in keyed], keyed)
        for patch_index, element in rest:
            if merge_key not in element:
                raise MergeKeyMissing(_no_merge_key(element, merge_key), _pointer((ppath, patch_index)))
            value = element[merge_key]
            position = index.find(value)
            if position < 0:
                added = json_copy(element)  # as sent: nulls and nested directives stay
                index.add(value, len(merged))
                merged.append(added)
                appended.append((patch_index, added))
                continue
            if position < len(kept):
                where: Path = (dpath, position if kept_positions is None else kept_positions[position])
            else:
                where = (ppath, appended[position - len(kept)][0])
            merged[position] = self.map(merged[position], element, field_meta.schema, (ppath, patch_index), where)
        return merged, appended

    # ---- order ------------------------------------------------------------------------

    def normalize(
        self, patch_items: list, server_only: list, patch_order: list, server_order: list,
        merge_key: str, is_map: bool, order_path: Path = None,
    ) -> list:
        """Order a merged list (``normalizeElementOrder``).

        Items the patch names follow the patch's order; the others follow the original's;
        the two runs are then interleaved by the original's order where both items are in
        it, with patch items first otherwise (``mergeSortedSlice``).
        """
        patch_items, _ = self.sort_by(patch_items, patch_order, merge_key, is_map, order_path)
        server_only, server_index = self.sort_by(server_only, server_order, merge_key, is_map, None)
        return self._made(self.merge_sorted(server_only, patch_items, server_index, merge_key, is_map))

    def sort_by(
        self, items: list, order: list, merge_key: str, is_map: bool, order_path: Path
    ) -> tuple[list, _Index | list]:
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
        index = _Index(order_values)
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
        self, left: list, right: list, server_index: _Index | list, merge_key: str, is_map: bool
    ) -> list:
        """Interleave server-only ``left`` into patch-ordered ``right`` (``mergeSortedSlice``)."""
        if not left or not right:
            return left + right
        index = server_index if isinstance(server_index, _Index) else _Index(server_index)
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

    # ---- $setElementOrder -------------------------------------------------------------

    def set_element_order(
        self, result: dict, patch: dict, key: str, meta: PatchMeta, ppath: Path, dpath: Path
    ) -> str:
        """Apply ``$setElementOrder/<list>`` together with ``<list>`` (``mergePatchIntoOriginal``).

        Returns the name of the list, which the rest of the map merge then skips.
        """
        order = patch[key]
        order_path = (ppath, key)
        try:
            if type(order) is not list:
                raise TypeMismatch(_bad_arg_type(GO_SLICE, order))
            prefix, slash, list_key = key.partition("/")
            if not slash or prefix != SET_ELEMENT_ORDER:
                raise InvalidDirective("invalid patch format of setElementOrder list")
            found_original, found_patch = list_key in result, list_key in patch
            current, value = result.get(list_key), patch.get(list_key)
            if found_original and type(current) is not list:
                raise TypeMismatch(_bad_arg_type(GO_SLICE, current), _pointer((dpath, list_key)))
            if found_patch and type(value) is not list:
                raise TypeMismatch(_bad_arg_type(GO_SLICE, value), _pointer((ppath, list_key)))
            field_meta = meta.lookup_list(list_key)
            _strategy(field_meta)
            merge_key = field_meta.merge_key
            patch_list = value if found_patch else []
            self.validate_order(patch_list, order, merge_key)
            if found_original and not found_patch:
                merged, view = current, current
            elif found_patch and not found_original:
                merged, view = _without_directives(value, drop_nulls=False)[0], []
            elif found_original:
                try:
                    merged, view = self.list_field(
                        current, value, field_meta, False, (ppath, list_key), (dpath, list_key)
                    )
                except PatchError as error:
                    raise _at(error, (ppath, list_key)) from None
            else:
                return list_key
            patch_items, server_only = self.partition_by_order(merged, order, merge_key, order_path)
            is_map = _element_kind(view, patch_list)
            result[list_key] = self.normalize(patch_items, server_only, order, view, merge_key, is_map, order_path)
            return list_key
        except PatchError as error:
            raise _at(error, order_path) from None

    def validate_order(self, patch_list: list, order: list, merge_key: str) -> None:
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
                    raise TypeMismatch(_bad_arg_type(GO_MAP, element))
            candidates = [element for element in patch_list if element.get(DIRECTIVE) != DELETE]
        i = j = 0
        while i < len(candidates) and j < len(order):
            item = candidates[i]
            if type(item) is dict and DIRECTIVE in item:
                i += 1
                continue
            if _same_merge_key(item, order[j], merge_key):
                i += 1
            j += 1
        if i < len(candidates) and j >= len(order):
            raise InvalidDirective(
                f"The order in patch list:\n{go_v(patch_list)}\n doesn't match {SET_ELEMENT_ORDER} list:\n"
                f"{go_v(order)}\n"
            )

    def partition_by_order(self, merged: list, order: list, merge_key: str, order_path: Path) -> tuple[list, list]:
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
        index = _Index([order[position][merge_key] for position in keyed], keyed)
        for element in merged:
            if type(element) is not dict:
                raise TypeMismatch(_bad_arg_type(GO_MAP, element))
            if merge_key not in element:
                raise MergeKeyMissing(_no_merge_key(element, merge_key))
            position = index.find(element[merge_key])
            # upstream scans the order list and fails on a non-map before finding a match
            if first_non_map is not None and (position < 0 or first_non_map < position):
                raise TypeMismatch(f"value for key {first_non_map} is not a map", _pointer((order_path, first_non_map)))
            (named if position >= 0 else others).append(element)
        return named, others


def _check_keyed(element: Json, merge_key: str, path: Path) -> None:
    """Upstream's ``validateMergeKeyInLists`` for one item."""
    if type(element) is not dict:
        raise TypeMismatch(_bad_arg_type(GO_MAP, element), _pointer(path) if path is not None else "")
    if merge_key not in element:
        raise MergeKeyMissing(_no_merge_key(element, merge_key), _pointer(path) if path is not None else "")


def _same_merge_key(left: Json, right: Json, merge_key: str) -> bool:
    """Upstream's ``mergeKeyValueEqual``: the items themselves when there is no merge key."""
    if merge_key:
        for item in (left, right):
            if type(item) is not dict:
                raise TypeMismatch(_bad_arg_type(GO_MAP, item))
        for item in (left, right):
            if merge_key not in item:
                raise MergeKeyMissing(_no_merge_key(item, merge_key))
        left, right = left[merge_key], right[merge_key]
    return go_equal(left, right)


def _removal_sequence(original: list, deletions: list, merge_key: str) -> list[int]:
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


def _stale_tail(original: list, removed: list[int]) -> list:
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
