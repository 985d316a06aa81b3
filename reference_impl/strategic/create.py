"""Creating strategic merge patches, as Kubernetes does.

This reproduces ``CreateTwoWayMergePatch`` and ``CreateThreeWayMergePatch`` of
``k8s.io/apimachinery`` v0.32.4 (``pkg/util/strategicpatch``): the first is what
``kubectl edit`` and controllers send, the second what ``kubectl apply`` sends.
Like :mod:`.apply`, the code is decomposed by the shape of the data:

- **diff two maps** (:meth:`_Diff.maps`): a key only ``modified`` has is added, one only
  ``original`` has is deleted with ``null``, a value whose Go type changed is replaced;
  maps are diffed recursively (or replaced whole under the ``replace`` strategy), lists
  by their strategy, and a field with the ``retainKeys`` strategy gets a ``$retainKeys``
  list of the keys ``modified`` sets;
- **diff two merge lists** (:meth:`_Diff.merge_lists`): maps are paired by merge key (a
  changed element becomes its own patch, a removed one ``{key: …, $patch: delete}``),
  scalars by value (a removed one goes to ``$deleteFromPrimitiveList/<list>``); a list
  whose content or order changed gets ``$setElementOrder/<list>``, the order ``modified``
  wants; a list under any other strategy is replaced whole when it changed.
- **three-way** (:func:`create_three_way`): changes and additions are diffed from
  ``current`` (the live object) to ``modified``, deletions from ``original`` (the
  last-applied configuration) to ``modified``, and the two patches are merged
  (:meth:`_Combine.maps`). Without ``overwrite`` the patch must not touch what changed
  from ``original`` to ``current`` (:class:`_Conflicts`).

Where upstream's output depends on more than the JSON, we follow upstream:

- Lists are paired up after sorting them by ``fmt.Sprintf("%v", …)`` of their values (or
  merge-key values) with Go's unstable ``sort.Sort`` (:mod:`~patchconf.reference_impl.govalue.sort`): values that print
  alike (``1`` and ``"1"``) pair up as if they were equal, and among duplicates Go's sort
  decides which is kept (where all print differently, any sort finds Go's order).
- Upstream sorts a primitive merge list of the *original* document in place before
  comparing it with ``modified``, so a change of order alone goes unnoticed; conflict
  detection likewise sorts (and deduplicates) a replaced primitive list of the patch in
  place, and that sorted list is what gets sent. Where such a change is read again, we
  make it to a copy of our own (:class:`_Diff`, :func:`create_three_way`); elsewhere the
  documents are only read, and a patch shares no value with them.
- When the second patch of a three-way merge deletes list elements of the first with
  ``$patch: delete``, Go removes them from the first list's backing array in place and
  appends new elements into the freed slots; the first list, read again to order the
  result, shows that array (as in :mod:`.apply`).
- Go iterates maps in random order; we take keys in document order (this only decides
  which of several errors is reported).

Numbers keep their Python type: integers within int64 are Go's ``int64``, other numbers
``float64``, and the two never compare equal. The inputs are never mutated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ..errors import (
    Conflict,
    InvalidDirective,
    InvalidDocument,
    MergeKeyMissing,
    PatchError,
    PreconditionFailed,
    RetainKeysViolation,
    TypeMismatch,
)
from ..govalue import goyaml
from ..govalue.decoded import (
    GO_MAP,
    GO_SLICE,
    comparable_key,
    deep_equal,
    go_equal,
    go_type,
    json_copy,
    json_copy_keeping_shared,
    same_go_type,
)
from ..govalue.fmt import go_s, go_v
from ..govalue.runtime import NIL_POINTER_DEREFERENCE
from ..govalue.sort import go_sort
from .directives import (
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    MERGE,
    REPLACE,
    RETAIN_KEYS,
    RETAIN_KEYS_STRATEGY,
    SET_ELEMENT_ORDER,
    patch_strategy,
    without_directives,
)
from .mergepatch import bad_arg_type, no_merge_key
from .patchmeta import FieldMeta, PatchMeta
from .slices import (
    deduplicate,
    elements_are_maps,
    normalize,
    partition_by_order,
    removal_sequence,
    same_merge_key,
    sort_by,
    stale_tail,
    validate_order,
)

Json = Any
Precondition = Callable[[dict], bool]


# --------------------------------------------------------------------------------------
# Options and preconditions.
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffOptions:
    """upstream's ``DiffOptions``: what a diff keeps.

    ``set_element_order`` emits ``$setElementOrder`` lists; ``ignore_changes_and_additions``
    keeps only deletions, ``ignore_deletions`` only changes and additions.
    """

    set_element_order: bool = True
    ignore_changes_and_additions: bool = False
    ignore_deletions: bool = False


def require_key_unchanged(key: str) -> Precondition:
    """Fails when the patch sets top-level ``key`` (``mergepatch.RequireKeyUnchanged``)."""
    return lambda patch: key not in patch


def require_metadata_key_unchanged(key: str) -> Precondition:
    """Fails when the patch sets ``metadata.<key>`` (``mergepatch.RequireMetadataKeyUnchanged``)."""

    def check(patch: dict) -> bool:
        metadata = patch.get("metadata")
        return not (type(metadata) is dict and key in metadata)

    return check


# What kubectl passes where it guards a patch (apply's JSON merge fallback, edit).
KUBECTL_PRECONDITIONS: tuple[Precondition, ...] = (
    require_key_unchanged("apiVersion"),
    require_key_unchanged("kind"),
    require_metadata_key_unchanged("name"),
)


# --------------------------------------------------------------------------------------
# Public functions.
# --------------------------------------------------------------------------------------


def create_two_way(
    original: Json, modified: Json, meta: PatchMeta, preconditions: Iterable[Precondition] = ()
) -> dict:
    """The strategic merge patch that turns ``original`` into ``modified``.

    Mirrors ``CreateTwoWayMergePatch``: a ``null`` document reads as ``{}``; a failed
    precondition raises :class:`PreconditionFailed`.
    """
    # One diff only reads its documents; the patch shares values with modified until copied.
    patch = json_copy(_Diff(DiffOptions()).maps(_document(original), _document(modified), meta))
    _check_preconditions(patch, preconditions)
    return patch


def diff(original: Json, modified: Json, meta: PatchMeta, options: DiffOptions = DiffOptions()) -> dict:
    """upstream's ``diffMaps`` with explicit options (the building block of both creations)."""
    return json_copy(_Diff(options).maps(_document(original), _document(modified), meta))


def create_three_way(
    original: Json,
    modified: Json,
    current: Json,
    meta: PatchMeta,
    overwrite: bool = True,
    preconditions: Iterable[Precondition] = (),
) -> dict:
    """The patch ``kubectl apply`` sends (``CreateThreeWayMergePatch``).

    ``original`` is the last-applied configuration (``None`` when there is none),
    ``modified`` the new configuration and ``current`` the live object. The patch sets what
    ``modified`` sets differently from ``current`` and deletes what ``original`` had and
    ``modified`` dropped. Without ``overwrite`` it raises :class:`Conflict` when the patch
    would change something that was changed from ``original`` to ``current``.
    """
    # The conflict check diffs original and current again as the first diffs left them
    # (primitive lists sorted in place): that needs our own copies of those two.
    sorts_in_place = not overwrite
    original_map = _document(original, copied=sorts_in_place)
    modified_map = _document(modified)
    current_map = _document(current, copied=sorts_in_place)
    delta = _Diff(DiffOptions(ignore_deletions=True), sorts_in_place).maps(current_map, modified_map, meta)
    deletions = _Diff(DiffOptions(ignore_changes_and_additions=True), sorts_in_place).maps(
        original_map, modified_map, meta
    )
    # The patches share values with modified, and with each other; merging them changes
    # some. Copying them together makes them our own and keeps what they share shared, as
    # if we had diffed a copy of modified.
    copies: dict[int, Json] = {}
    deletions, delta = json_copy_keeping_shared(deletions, copies), json_copy_keeping_shared(delta, copies)
    patch = _Combine().maps(deletions, delta, meta)
    _check_preconditions(patch, preconditions)
    if not overwrite:
        changed = _Diff(DiffOptions(set_element_order=False), sorts_in_place).maps(original_map, current_map, meta)
        if _Conflicts().field(patch, changed, meta, "", ""):
            raise Conflict(
                f"patch:\n{goyaml.dump(patch)}\nconflicts with changes made from original to current:\n"
                f"{goyaml.dump(changed)}\n"
            )
    return patch


def _document(document: Json, copied: bool = False) -> dict:
    """An input as upstream decodes it (``null`` is ``{}``), as our own copy if ``copied``."""
    if document is None:
        return {}
    if type(document) is not dict:
        raise InvalidDocument("invalid JSON document")
    return json_copy(document) if copied else document


def _check_preconditions(patch: dict, preconditions: Iterable[Precondition]) -> None:
    for precondition in preconditions:
        if not precondition(patch):
            raise PreconditionFailed(f"precondition failed for: {go_v(patch)}")


# --------------------------------------------------------------------------------------
# Lists sorted by printed value (sortScalars, sortMapsBasedOnField).
# --------------------------------------------------------------------------------------


# fmt.Sprintf("%v", value): how upstream compares and sorts list values.
_printed = go_v


def _sorted_by_printed(items: list) -> None:
    """Sort ``items`` in place as upstream's ``sortScalars`` does."""
    items[:] = [item for _, item in _in_printed_order(items, [_printed(item) for item in items])]


def _in_printed_order(items: list, texts: list[str]) -> list[tuple[str, Json]]:
    """(text, item) pairs in the order upstream's sort by printed text leaves the items
    (``sortScalars``, ``sortMapsBasedOnField``); ``texts`` are the items' printed texts."""
    keyed = list(zip(texts, items, strict=True))
    if len(set(texts)) == len(keyed):
        # Distinct texts: Go's `<=` is then a strict order, which only one order satisfies.
        keyed.sort(key=itemgetter(0))
    else:
        go_sort(keyed, lambda left, right: left[0] <= right[0])
    return keyed


def _field_strategy(field_meta: FieldMeta) -> tuple[bool, str]:
    """(has ``retainKeys``, the other strategy) (``extractRetainKeysPatchStrategy``)."""
    return RETAIN_KEYS_STRATEGY in field_meta.strategies, patch_strategy(field_meta)


def _extract_key(key: str, prefix: str) -> str:
    head, slash, rest = key.partition("/")
    if not slash or head != prefix:
        if prefix == SET_ELEMENT_ORDER:
            raise InvalidDirective("invalid patch format of setElementOrder list")
        raise InvalidDirective("invalid patch format of primitive list")
    return rest


# --------------------------------------------------------------------------------------
# Diffing (diffMaps, diffLists).
# --------------------------------------------------------------------------------------


class _Diff:
    """One diff of two documents; it never changes ``modified``.

    Upstream sorts each primitive merge list of ``original`` in place before comparing it;
    with ``sorts_in_place`` so do we (on a copy of our own), for a later diff reading the
    same document; otherwise the sorted list is a copy and ``original`` is only read.
    """

    def __init__(self, options: DiffOptions, sorts_in_place: bool = False) -> None:
        self.options = options
        self.sorts_in_place = sorts_in_place

    # ---- maps -------------------------------------------------------------------------

    def maps(self, original: dict, modified: dict, meta: PatchMeta, retain_keys: bool = False) -> dict:
        """The patch from ``original`` to ``modified`` (``diffMaps``)."""
        options = self.options
        patch: dict = {}
        retained = []
        for key, after in modified.items():
            if retain_keys and after is not None:
                retained.append(key)
            if key not in original:
                if not options.ignore_changes_and_additions:
                    patch[key] = after
                continue
            before = original[key]
            if key == DIRECTIVE:
                self.directive(before, after, patch)
                continue
            if not same_go_type(before, after):
                if not options.ignore_changes_and_additions:
                    patch[key] = after
                continue
            kind = type(before)
            if kind is dict:
                self.map_field(key, before, after, patch, meta)
            elif kind is list:
                self.list_field(key, before, after, patch, meta)
            elif not options.ignore_changes_and_additions and not deep_equal(before, after):
                patch[key] = after
        if not options.ignore_deletions:
            for key in original:
                if key not in modified:
                    patch[key] = None
        if retained and (patch or _has_additional_field(original, modified)):
            _sorted_by_printed(retained)
            patch[RETAIN_KEYS] = retained
        return patch

    @staticmethod
    def directive(before: Json, after: Json, patch: dict) -> None:
        """Both documents carry ``$patch`` (``handleDirectiveMarker``)."""
        if type(before) is not str or type(after) is not str:
            raise InvalidDirective(f"invalid value for special key: {DIRECTIVE}")
        if before != after:
            patch[DIRECTIVE] = after

    def replace_if_changed(self, key: str, before: Json, after: Json, patch: dict) -> None:
        if not self.options.ignore_changes_and_additions and not deep_equal(before, after):
            patch[key] = after

    def map_field(self, key: str, before: dict, after: dict, patch: dict, meta: PatchMeta) -> None:
        """A map-valued field (``handleMapDiff``)."""
        try:
            field_meta = meta.lookup_map(key)
        except PatchError:
            # Without a schema for the field, identical values still need no patch.
            if deep_equal(before, after):
                return
            raise
        retain_keys, strategy = _field_strategy(field_meta)
        if strategy == REPLACE:
            if not self.options.ignore_changes_and_additions:
                patch[key] = after
            return
        nested = self.maps(before, after, field_meta.schema, retain_keys)
        if nested:
            patch[key] = nested

    def list_field(self, key: str, before: list, after: list, patch: dict, meta: PatchMeta) -> None:
        """A list-valued field (``handleSliceDiff``)."""
        try:
            field_meta = meta.lookup_list(key)
        except PatchError:
            if deep_equal(before, after):
                return
            raise
        retain_keys, strategy = _field_strategy(field_meta)
        if strategy != MERGE:
            self.replace_if_changed(key, before, after, patch)
            return
        changes, deletions, order = self.merge_lists(before, after, field_meta, retain_keys)
        if changes:
            patch[key] = changes
        if deletions:
            patch[f"{DELETE_FROM_PRIMITIVE_LIST}/{key}"] = deletions
        if order:
            patch[f"{SET_ELEMENT_ORDER}/{key}"] = order

    # ---- merge lists ------------------------------------------------------------------

    def merge_lists(
        self, original: list, modified: list, field_meta: FieldMeta, retain_keys: bool
    ) -> tuple[list, list, list]:
        """(patch list, primitive deletions, ``$setElementOrder`` list) (``diffLists``)."""
        options = self.options
        if not original:
            if not modified or options.ignore_changes_and_additions:
                return [], [], []
            return modified, [], []
        if elements_are_maps(original, modified):
            return self.lists_of_maps(original, modified, field_meta, retain_keys)
        return self.lists_of_scalars(original, modified)

    def lists_of_maps(
        self, original: list, modified: list, field_meta: FieldMeta, retain_keys: bool
    ) -> tuple[list, list, list]:
        options = self.options
        merge_key = field_meta.merge_key
        changes, deletions = self.paired_maps(original, modified, field_meta, retain_keys)
        changes, _ = sort_by(changes, modified, merge_key, True, None)
        order_same = _order_same(original, modified, merge_key)
        changes += deletions
        order: list = []
        wants_order = (not options.ignore_changes_and_additions and (changes or not order_same)) or (
            not options.ignore_deletions and changes
        )
        if options.set_element_order and wants_order:
            order = [{merge_key: element.get(merge_key)} for element in modified]
        return changes, [], order

    def paired_maps(
        self, original: list, modified: list, field_meta: FieldMeta, retain_keys: bool
    ) -> tuple[list, list]:
        """Walk both lists sorted by merge key (``diffListsOfMaps``): changes and deletions.

        Items whose merge keys print alike are diffed, an item only ``modified`` has is
        added, one only ``original`` has is deleted. Each item is checked as the walk meets it.
        """
        merge_key = field_meta.merge_key
        originals = _in_printed_order(original, _merge_key_texts(original, merge_key))
        modifieds = _in_printed_order(modified, _merge_key_texts(modified, merge_key))
        changes: list = []
        deletions: list = []

        def added(item: dict) -> None:
            _merge_key_value(item, merge_key)
            if not self.options.ignore_changes_and_additions:
                changes.append(item)

        def deleted(item: dict) -> None:
            value = _merge_key_value(item, merge_key)
            if not self.options.ignore_deletions:
                deletions.append({merge_key: value, DIRECTIVE: DELETE})

        i = j = 0
        while i < len(originals) and j < len(modifieds):
            before_text, before = originals[i]
            after_text, after = modifieds[j]
            _merge_key_value(before, merge_key)
            after_value = _merge_key_value(after, merge_key)
            if before_text == after_text:
                nested = self.maps(before, after, field_meta.schema, retain_keys)
                if nested:
                    nested[merge_key] = after_value
                    changes.append(nested)
                i, j = i + 1, j + 1
            elif before_text > after_text:
                added(after)
                j += 1
            else:
                deleted(before)
                i += 1
        for _, before in originals[i:]:
            deleted(before)
        for _, after in modifieds[j:]:
            added(after)
        return changes, deletions

    def lists_of_scalars(self, original: list, modified: list) -> tuple[list, list, list]:
        """Walk both lists sorted by printed value (``diffListsOfScalars``)."""
        options = self.options
        # Upstream sorts the original list in place; the setElementOrder check below sees it sorted.
        if not self.sorts_in_place:
            original = list(original)
        _sorted_by_printed(original)
        modifieds = list(modified)
        _sorted_by_printed(modifieds)
        additions: list = []
        deletions: list = []
        i = j = 0
        while i < len(original) or j < len(modifieds):
            both = i < len(original) and j < len(modifieds)
            before_text = _printed(original[i]) if i < len(original) else ""
            after_text = _printed(modifieds[j]) if j < len(modifieds) else ""
            if both and before_text == after_text:
                i, j = i + 1, j + 1
            elif i >= len(original) or (both and before_text > after_text):
                if not options.ignore_changes_and_additions:
                    additions.append(modifieds[j])
                j += 1
            else:
                if not options.ignore_deletions:
                    deletions.append(original[i])
                i += 1
        if deletions:
            array, length = deduplicate(deletions, [comparable_key(value) for value in deletions])
            deletions = array[:length]
        additions, _ = sort_by(additions, modified, "", False, None)
        order: list = []
        wants_order = (not options.ignore_deletions and deletions) or (
            not options.ignore_changes_and_additions and not deep_equal(original, modified)
        )
        if options.set_element_order and wants_order:
            order = modified
        return additions, deletions, order


def _merge_key_texts(items: list, merge_key: str) -> list[str]:
    """``%v`` of the merge-key value of each map of a merge list (a string prints as itself)."""
    values = [item.get(merge_key) for item in items]
    return [value if type(value) is str else _printed(value) for value in values]


def _merge_key_value(element: Json, merge_key: str) -> Json:
    """The merge-key value of a map of a merge list (``getMapAndMergeKeyValueByIndex``)."""
    if type(element) is not dict:
        raise TypeMismatch(bad_arg_type(GO_MAP, element))
    if merge_key not in element:
        raise MergeKeyMissing(no_merge_key(element, merge_key))
    return element[merge_key]


def _order_same(original: list, modified: list, merge_key: str) -> bool:
    """Whether both lists name the same merge keys in the same order (``isOrderSame``).

    Every item is a map with the merge key (:meth:`_Diff.paired_maps` checked).
    """
    if len(original) != len(modified):
        return False
    return all(map(go_equal, [item[merge_key] for item in original], [item[merge_key] for item in modified]))


def _has_additional_field(original: dict, modified: dict) -> bool:
    """Whether ``original`` has a non-null key ``modified`` lacks (``hasAdditionalNewField``)."""
    return any(value is not None and key not in modified for key, value in original.items())


# --------------------------------------------------------------------------------------
# Merging the deletions patch with the changes patch (mergeMap, MergeOptions{}).
# --------------------------------------------------------------------------------------


class _Combine:
    """Merge two patches into one, keeping ``null``s and parallel lists.

    This is upstream's ``mergeMap`` with ``MergeParallelList`` and ``IgnoreUnmatchedNulls``
    off, as ``CreateThreeWayMergePatch`` calls it: ``$deleteFromPrimitiveList`` lists are
    carried over, ``$setElementOrder`` and ``$retainKeys`` must agree where both patches
    have them, and the lists they order are merged and ordered by them. ``original`` (the
    deletions patch, our own copy) is updated in place.
    """

    def maps(self, original: dict | None, patch: dict, meta: PatchMeta) -> dict:
        if DIRECTIVE in patch:
            return _map_directive(patch)
        if original is None:
            original = {}
        if RETAIN_KEYS in patch:
            self.retain_keys(original, patch)
        for key in [key for key in patch if key.startswith(SET_ELEMENT_ORDER)]:
            self.set_element_order(original, patch, key, meta)
        for key, value in list(patch.items()):
            if key.startswith(DELETE_FROM_PRIMITIVE_LIST):
                original[key] = value
            elif key not in original or value is None or go_type(original[key]) != go_type(value):
                cleaned, keep = without_directives(value, drop_nulls=False)
                if keep:
                    original[key] = cleaned
                else:
                    original.pop(key, None)
            elif type(value) is dict:
                field_meta = meta.lookup_map(key)
                _, strategy = _field_strategy(field_meta)
                original[key] = value if strategy == REPLACE else self.maps(original[key], value, field_meta.schema)
            elif type(value) is list:
                field_meta = meta.lookup_list(key)
                original[key] = self.list_field(original[key], value, field_meta)[0]
            else:
                original[key] = value
        return original

    @staticmethod
    def retain_keys(original: dict, patch: dict) -> None:
        retained = patch.pop(RETAIN_KEYS)
        if RETAIN_KEYS not in original:
            original[RETAIN_KEYS] = retained
        elif not deep_equal(original[RETAIN_KEYS], retained):
            raise RetainKeysViolation(
                f"{go_v(original[RETAIN_KEYS])} and {go_v(retained)} are not deep equal: "
                "this may happen when calculating the 3-way diff patch"
            )

    def set_element_order(self, original: dict, patch: dict, key: str, meta: PatchMeta) -> None:
        """One ``$setElementOrder/<list>`` of the second patch (``mergePatchIntoOriginal``)."""
        order = patch.pop(key)
        if key not in original:
            original[key] = order
        elif not deep_equal(original[key], order):
            raise InvalidDirective("invalid patch format of setElementOrder list")
        if type(order) is not list:
            raise TypeMismatch(bad_arg_type(GO_SLICE, order))
        list_key = _extract_key(key, SET_ELEMENT_ORDER)
        found_original, found_patch = list_key in original, list_key in patch
        before = original.get(list_key)
        after = patch.get(list_key)
        if found_original and type(before) is not list:
            raise TypeMismatch(bad_arg_type(GO_SLICE, before))
        if found_patch and type(after) is not list:
            raise TypeMismatch(bad_arg_type(GO_SLICE, after))
        field_meta = meta.lookup_list(list_key)
        _field_strategy(field_meta)  # upstream validates the strategies here too
        merge_key = field_meta.merge_key
        validate_order(after if found_patch else [], order, merge_key)
        view = before or []
        if found_original and not found_patch:
            merged = before
        elif found_patch and not found_original:
            merged = without_directives(after, drop_nulls=False)[0]
        elif found_original:
            merged, view = self.list_field(before, after, field_meta)
        else:
            return
        patch_items, server_only = partition_by_order(merged, order, merge_key, None)
        is_map = elements_are_maps(view, after or [])
        original[list_key] = normalize(patch_items, server_only, order, view, merge_key, is_map)
        patch.pop(list_key, None)

    def list_field(self, before: list, after: list, field_meta: FieldMeta) -> tuple[list, list]:
        """``mergeSliceHandler``: merge lists merge, others take the second patch's list.

        Also returns ``before`` as Go's slice of it reads afterwards: ``$patch: delete``
        elements of the second list remove items from its backing array in place and the
        elements appended next land in the slots that freed (see :mod:`.apply`).
        """
        if patch_strategy(field_meta) != MERGE:
            return after, before
        if not before and not after:
            return before, before
        merge_key = field_meta.merge_key
        if not elements_are_maps(before, after):
            # (The first patch never holds a primitive list under its own key: deletions of
            # primitives travel in $deleteFromPrimitiveList, so no backing array is shared.)
            both = before + after
            array, length = deduplicate(both, [comparable_key(value) for value in both])
            merged = array[:length]
            patch_items, server_only = partition_by_order(merged, after, "", None)
            return normalize(patch_items, server_only, after, before, "", False), before
        if not merge_key:
            raise MergeKeyMissing(f"cannot merge lists without merge key for {field_meta.schema.name}")
        rest, replace, deletions = _list_directives(after, merge_key)
        removed = removal_sequence(before, deletions, merge_key)
        gone = set(removed)
        kept = [item for position, item in enumerate(before) if position not in gone]
        tail = stale_tail(before, removed)
        if replace:
            merged, server_order = list(rest), rest
            view = kept + tail
        else:
            merged = list(kept)
            for element in rest:
                if merge_key not in element:
                    raise MergeKeyMissing(no_merge_key(element, merge_key))
                value = element[merge_key]
                position = next(
                    (at for at, item in enumerate(merged) if merge_key in item and _same_value(item[merge_key], value)),
                    -1,
                )
                if position >= 0:
                    merged[position] = self.maps(merged[position], element, field_meta.schema)
                else:
                    merged.append(element)
            server_order = merged[: len(kept)]
            overwritten = min(len(tail), len(merged) - len(kept))
            view = merged[: len(kept) + overwritten] + tail[overwritten:]
        patch_items, server_only = partition_by_order(merged, rest, merge_key, None)
        return normalize(patch_items, server_only, rest, server_order, merge_key, True), view


def _map_directive(patch: dict) -> dict:
    """A patch map carrying ``$patch`` (``handleDirectiveInMergeMap``)."""
    directive = patch[DIRECTIVE]
    if directive == REPLACE:
        return {key: value for key, value in patch.items() if key != DIRECTIVE}
    if directive == DELETE:
        return {}
    raise InvalidDirective(f"unknown patch type: {go_s(directive)} in map: {go_v(patch)}")


def _list_directives(patch: list, merge_key: str) -> tuple[list, bool, list]:
    """``mergeSliceWithSpecialElements``: the second list's ``$patch`` elements.

    Returns the other elements, whether the list is replaced, and the merge-key values
    whose items are deleted, in the order upstream deletes them.
    """
    rest = []
    replace = False
    deletions = []
    for element in patch:
        if DIRECTIVE not in element:
            rest.append(element)
            continue
        directive = element[DIRECTIVE]
        if directive == DELETE:
            if merge_key not in element:
                raise MergeKeyMissing(no_merge_key(element, merge_key))
            deletions.append(element[merge_key])
        elif directive == REPLACE:
            replace = True
        elif directive == MERGE:
            raise InvalidDirective("merging lists cannot yet be specified in the patch")
        else:
            raise InvalidDirective(f"unknown patch type: {go_s(directive)} in map: {go_v(element)}")
    return rest, replace, deletions


def _same_value(left: Json, right: Json) -> bool:
    return same_merge_key(left, right, "")


# --------------------------------------------------------------------------------------
# Conflicts (MergingMapsHaveConflicts).
# --------------------------------------------------------------------------------------


class _Conflicts:
    """Whether two patches set one location differently, with strategic list semantics."""

    def field(self, left: Json, right: Json, meta: PatchMeta | None, strategy: str, merge_key: str) -> bool:
        if type(left) is dict:
            if type(right) is not dict:
                return True
            if DIRECTIVE in left or DIRECTIVE in right:
                if (DIRECTIVE in left) != (DIRECTIVE in right):
                    return True
                if not deep_equal(left[DIRECTIVE], right[DIRECTIVE]):
                    return True
            if strategy == REPLACE:
                return False
            return self.maps(left, right, meta)
        if type(left) is list:
            if type(right) is not list:
                return True
            return self.lists(left, right, meta, strategy, merge_key)
        return not deep_equal(left, right)

    def maps(self, left: dict, right: dict, meta: PatchMeta | None) -> bool:
        for key, value in left.items():
            if key in (DIRECTIVE, RETAIN_KEYS) or key not in right:
                continue
            field_meta: FieldMeta | None = None
            if type(value) is list:
                field_meta = _require(meta).lookup_list(key)
            elif type(value) is dict:
                field_meta = _require(meta).lookup_map(key)
            if field_meta is None:
                conflict = self.field(value, right[key], None, "", "")
            else:
                _, strategy = _field_strategy(field_meta)
                conflict = self.field(value, right[key], field_meta.schema, strategy, field_meta.merge_key)
            if conflict:
                return True
        return False

    def lists(self, left: list, right: list, meta: PatchMeta | None, strategy: str, merge_key: str) -> bool:
        is_map = elements_are_maps(left, right)
        if strategy == MERGE:
            if not is_map:
                return False
            left_by_key = _by_merge_key(left, merge_key)
            right_by_key = _by_merge_key(right, merge_key)
            return any(
                self.field(value, right_by_key[key], meta, "", "")
                for key, value in left_by_key.items()
                if key in right_by_key
            )
        if len(left) != len(right):
            return True
        if not is_map:
            # Upstream deduplicates and sorts both lists in place: the patch it sends shows it.
            _deduplicate_and_sort(left)
            _deduplicate_and_sort(right)
        return any(self.field(a, b, meta, "", "") for a, b in zip(left, right, strict=True))


def _require(meta: PatchMeta | None) -> PatchMeta:
    if meta is None:
        # Upstream calls a method on a nil schema here and crashes.
        raise TypeMismatch(NIL_POINTER_DEREFERENCE)
    return meta


def _by_merge_key(items: list, merge_key: str) -> dict[str, dict]:
    """``sliceOfMapsToMapOfMaps``: elements by ``%s`` of their merge-key value."""
    result: dict[str, dict] = {}
    for element in items:
        if type(element) is not dict:
            raise TypeMismatch(f"invalid element type in merging list:{go_v(items)}")
        if merge_key not in element:
            raise MergeKeyMissing(f"cannot find merge key `{merge_key}` in merging list element:{go_v(element)}")
        result[go_s(element[merge_key])] = element
    return result


def _deduplicate_and_sort(items: list) -> None:
    """``deduplicateAndSortScalars`` on a list we own, leaving it as Go's backing array is left."""
    array, length = deduplicate(items, [comparable_key(value) for value in items])
    head = array[:length]
    _sorted_by_printed(head)
    items[:] = head + array[length:]
