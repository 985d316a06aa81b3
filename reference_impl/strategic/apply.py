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
  elements first), and the result is ordered (:func:`.slices.normalize`);
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

from typing import Any

from ..errors import (
    InvalidDirective,
    InvalidDocument,
    InvalidPatch,
    MergeKeyMissing,
    PatchError,
    RetainKeysViolation,
    TypeMismatch,
)
from ..govalue.decoded import GO_MAP, GO_SLICE, comparable_key, go_type, json_copy
from ..govalue.fmt import go_s, go_v
from ..govalue.runtime import decoded_capacity
from ..jsonpointer import LinkedPath, from_linked
from .directives import (
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    MERGE,
    REPLACE,
    RETAIN_KEYS,
    SET_ELEMENT_ORDER,
    patch_strategy,
    without_directives,
)
from .mergepatch import bad_arg_type, no_merge_key
from .patchmeta import FieldMeta, PatchMeta
from .slices import (
    Index,
    deduplicate,
    elements_are_maps,
    normalize,
    partition_by_order,
    removal_sequence,
    stale_tail,
    validate_order,
)

Json = Any


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


def _at(error: PatchError, path: LinkedPath) -> PatchError:
    """``error``, pointing at ``path`` unless it already points somewhere deeper."""
    if not error.pointer:
        error.pointer = from_linked(path)
    return error


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

    def map(self, original: dict, patch: dict, meta: PatchMeta, ppath: LinkedPath, dpath: LinkedPath) -> dict:
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
                raise InvalidDirective("invalid patch format of primitive list", from_linked((ppath, key)))
            self.field(result, key, target or key, value, meta, ppath, dpath, True)
        return result

    def map_directive(self, patch: dict, ppath: LinkedPath) -> dict:
        """A map carrying ``$patch`` (``handleDirectiveInMergeMap``)."""
        directive = patch[DIRECTIVE]
        if directive == REPLACE:
            # The patch as sent, nulls and nested directives included.
            return {key: json_copy(value) for key, value in patch.items() if key != DIRECTIVE}
        if directive == DELETE:
            return {}
        raise InvalidDirective(
            f"unknown patch type: {go_s(directive)} in map: {go_v(patch)}", from_linked((ppath, DIRECTIVE))
        )

    def retain_keys(self, result: dict, patch: dict, ppath: LinkedPath) -> dict:
        """Apply ``$retainKeys`` (``applyRetainKeysDirective``), whatever the field's strategy."""
        retain = patch[RETAIN_KEYS]
        if type(retain) is not list:
            raise RetainKeysViolation("invalid patch format of retainKeys", from_linked((ppath, RETAIN_KEYS)))
        for value in retain:
            if type(value) is dict or type(value) is list:
                raise RetainKeysViolation(
                    f"runtime error: hash of unhashable type {go_type(value)}", from_linked((ppath, RETAIN_KEYS))
                )
        allowed = {value for value in retain if type(value) is str}
        for key, value in patch.items():
            if key == RETAIN_KEYS or value is None:
                continue
            if key.startswith(DELETE_FROM_PRIMITIVE_LIST) or key.startswith(SET_ELEMENT_ORDER):
                continue
            if key not in allowed:
                raise RetainKeysViolation("invalid patch format of retainKeys", from_linked((ppath, key)))
        return {key: value for key, value in result.items() if key in allowed}

    def field(
        self, result: dict, patch_key: str, key: str, value: Json, meta: PatchMeta,
        ppath: LinkedPath, dpath: LinkedPath, deletion_list: bool,
    ) -> None:
        """Merge patch member ``patch_key`` into ``result[key]`` (one turn of ``mergeMap``'s loop)."""
        try:
            if value is None:
                result.pop(key, None)
                return
            if key not in result:
                if not deletion_list:
                    cleaned, keep = without_directives(value, drop_nulls=True)
                    if keep:
                        result[key] = cleaned
                return
            current = result[key]
            current_kind, patch_kind = type(current), type(value)
            if current_kind is dict and patch_kind is dict:
                field_meta = meta.lookup_map(key)
                if patch_strategy(field_meta) == REPLACE:
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
                    cleaned, keep = without_directives(value, drop_nulls=True)
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
        self, current: list, value: list, field_meta: FieldMeta, deletion_list: bool,
        ppath: LinkedPath, dpath: LinkedPath,
    ) -> tuple[list, list]:
        """A list field merged or replaced (``mergeSliceHandler``); also the original's final view."""
        if patch_strategy(field_meta) == MERGE or deletion_list:
            return self.merge_list(current, value, field_meta, deletion_list, ppath, dpath)
        return json_copy(value), current

    def merge_list(
        self, original: list, patch: list, field_meta: FieldMeta, deletion_list: bool,
        ppath: LinkedPath, dpath: LinkedPath,
    ) -> tuple[list, list]:
        """A merge list (``mergeSlice``).

        Returns the merged list and the original list as upstream's backing array holds it
        afterwards (it may have been written to; see the module docstring).
        """
        if not original and not patch:
            return original, original
        if elements_are_maps(original, patch):
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
            array, length = deduplicate(both, keys)
            merged = array[:length]
            # append() wrote into the original's backing array when it had room.
            if not patch or len(both) <= self._capacity(original):
                view = array[: len(original)]
        if merge_key:
            raise TypeMismatch(bad_arg_type(GO_MAP, merged[0]))
        in_patch = {comparable_key(value) for value in patch}
        patch_items = [value for value in merged if comparable_key(value) in in_patch]
        server_only = [value for value in merged if comparable_key(value) not in in_patch]
        return self.normalize(patch_items, server_only, patch, view, "", False), view

    def merge_map_list(
        self, original: list, patch: list, field_meta: FieldMeta, ppath: LinkedPath, dpath: LinkedPath
    ) -> tuple[list, list]:
        """Merge two lists of maps by merge key."""
        merge_key = field_meta.merge_key
        if not merge_key:
            raise MergeKeyMissing(f"cannot merge lists without merge key for {field_meta.schema.name}")
        rest, replace, deletions = self.list_directives(patch, merge_key, ppath)
        removed = removal_sequence(original, deletions, merge_key)
        kept_positions: list[int] | None = None
        kept = original
        if removed:
            deleted = set(removed)
            kept_positions = [position for position in range(len(original)) if position not in deleted]
            kept = [original[position] for position in kept_positions]
        tail = stale_tail(original, removed)

        if replace:
            merged = [json_copy(element) for _, element in rest]
            server_order = merged
            sources = [index for index, _ in rest]
            rest = []
            view = kept + tail

            def path_of(position: int) -> LinkedPath:
                return (ppath, sources[position])
        else:
            merged, appended = self.merge_elements(kept, kept_positions, rest, field_meta, ppath, dpath)
            server_order = kept
            # The first appended elements land where deletion left stale items.
            overwritten = min(len(tail), len(appended))
            view = kept + [element for _, element in appended[:overwritten]] + tail[overwritten:]

            def path_of(position: int) -> LinkedPath:
                if position >= len(kept):
                    return (ppath, appended[position - len(kept)][0])
                return (dpath, position if kept_positions is None else kept_positions[position])

        try:
            merged_values = [element[merge_key] for element in merged]
        except KeyError:
            for position, element in enumerate(merged):
                if merge_key not in element:
                    raise MergeKeyMissing(no_merge_key(element, merge_key), from_linked(path_of(position))) from None
            raise
        in_patch = Index([element[merge_key] for _, element in rest]).ranks(merged_values)
        patch_items = [element for element, rank in zip(merged, in_patch, strict=True) if rank >= 0]
        server_only = [element for element, rank in zip(merged, in_patch, strict=True) if rank < 0]
        order = [element for _, element in rest]
        return self.normalize(patch_items, server_only, order, server_order, merge_key, True), view

    def list_directives(self, patch: list, merge_key: str, ppath: LinkedPath) -> tuple[list, bool, list]:
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
                    raise MergeKeyMissing(no_merge_key(element, merge_key), from_linked((ppath, index)))
                deletions.append(element[merge_key])
            elif directive == REPLACE:
                replace = True  # the other directives are still checked
            elif directive == MERGE:
                raise InvalidDirective(
                    "merging lists cannot yet be specified in the patch", from_linked(((ppath, index), DIRECTIVE))
                )
            else:
                raise InvalidDirective(
                    f"unknown patch type: {go_s(directive)} in map: {go_v(element)}",
                    from_linked(((ppath, index), DIRECTIVE)),
                )
        return rest, replace, deletions

    def merge_elements(
        self, kept: list, kept_positions: list[int] | None, rest: list, field_meta: FieldMeta,
        ppath: LinkedPath, dpath: LinkedPath,
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
            index = Index([element[merge_key] for element in kept])
        else:
            index = Index([kept[position][merge_key] for position in keyed], keyed)
        for patch_index, element in rest:
            if merge_key not in element:
                raise MergeKeyMissing(no_merge_key(element, merge_key), from_linked((ppath, patch_index)))
            value = element[merge_key]
            position = index.find(value)
            if position < 0:
                added = json_copy(element)  # as sent: nulls and nested directives stay
                index.add(value, len(merged))
                merged.append(added)
                appended.append((patch_index, added))
                continue
            if position < len(kept):
                where: LinkedPath = (dpath, position if kept_positions is None else kept_positions[position])
            else:
                where = (ppath, appended[position - len(kept)][0])
            merged[position] = self.map(merged[position], element, field_meta.schema, (ppath, patch_index), where)
        return merged, appended

    # ---- order ------------------------------------------------------------------------

    def normalize(
        self, patch_items: list, server_only: list, patch_order: list, server_order: list,
        merge_key: str, is_map: bool, order_path: LinkedPath = None,
    ) -> list:
        """:func:`.slices.normalize`, remembering the list made (its capacity is its length)."""
        return self._made(normalize(patch_items, server_only, patch_order, server_order, merge_key, is_map, order_path))

    # ---- $setElementOrder -------------------------------------------------------------

    def set_element_order(
        self, result: dict, patch: dict, key: str, meta: PatchMeta, ppath: LinkedPath, dpath: LinkedPath
    ) -> str:
        """Apply ``$setElementOrder/<list>`` together with ``<list>`` (``mergePatchIntoOriginal``).

        Returns the name of the list, which the rest of the map merge then skips.
        """
        order = patch[key]
        order_path = (ppath, key)
        try:
            if type(order) is not list:
                raise TypeMismatch(bad_arg_type(GO_SLICE, order))
            prefix, slash, list_key = key.partition("/")
            if not slash or prefix != SET_ELEMENT_ORDER:
                raise InvalidDirective("invalid patch format of setElementOrder list")
            found_original, found_patch = list_key in result, list_key in patch
            current, value = result.get(list_key), patch.get(list_key)
            if found_original and type(current) is not list:
                raise TypeMismatch(bad_arg_type(GO_SLICE, current), from_linked((dpath, list_key)))
            if found_patch and type(value) is not list:
                raise TypeMismatch(bad_arg_type(GO_SLICE, value), from_linked((ppath, list_key)))
            field_meta = meta.lookup_list(list_key)
            patch_strategy(field_meta)
            merge_key = field_meta.merge_key
            patch_list = value if found_patch else []
            validate_order(patch_list, order, merge_key)
            if found_original and not found_patch:
                merged, view = current, current
            elif found_patch and not found_original:
                merged, view = without_directives(value, drop_nulls=False)[0], []
            elif found_original:
                try:
                    merged, view = self.list_field(
                        current, value, field_meta, False, (ppath, list_key), (dpath, list_key)
                    )
                except PatchError as error:
                    raise _at(error, (ppath, list_key)) from None
            else:
                return list_key
            patch_items, server_only = partition_by_order(merged, order, merge_key, order_path)
            is_map = elements_are_maps(view, patch_list)
            result[list_key] = self.normalize(patch_items, server_only, order, view, merge_key, is_map, order_path)
            return list_key
        except PatchError as error:
            raise _at(error, order_path) from None

