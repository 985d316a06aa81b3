"""Who owns what after an apply or an update: conflicts, force, pruning.

Go twin: sigs.k8s.io/structured-merge-diff/v4/merge (update.go, conflict.go). Objects
have one version here (the apiserver converts every manager's set to the request's
version, which for one served version is the identity).
"""

from __future__ import annotations

from typing import NamedTuple

from .fieldpath import FieldSet, Path, VersionedSet, path_string
from .schema import ResolvedType, Schema
from .typed import TypedValue, values_equal

ManagedFields = dict[str, VersionedSet]  # manager identifier -> its fields


# A named tuple, not a frozen dataclass: as immutable and compared alike, and quicker to define at import.
class Conflict(NamedTuple):
    manager: str  # the owner's identifier
    path: Path

    def __str__(self) -> str:
        return f"conflict with {self.manager}: {path_string(self.path)}"


class Conflicts(Exception):
    """merge.Conflicts: the apply would change fields other managers own."""

    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts
        super().__init__("\n".join(str(c) for c in conflicts))


def conflicts_from_managers(sets: ManagedFields) -> list[Conflict]:
    return [Conflict(manager, path) for manager, versioned in sets.items() for path in versioned.set.paths()]


def _ensure_named_fields_are_members(fields: FieldSet, typed: TypedValue) -> FieldSet:
    """fieldpath.Set.EnsureNamedFieldsAreMembers: a struct field with children is a member too,
    so removing it removes the field itself."""
    return _ensure(fields, typed.schema, typed.resolved)


def _ensure(fields: FieldSet, schema: Schema, rtype: ResolvedType) -> FieldSet:
    if rtype.atom is None:
        schema.resolve(rtype.ref)  # raises, as Resolve failing does
    members = set(fields.members)
    children = {}
    for element, child in fields.children.items():
        child_type = None
        if element.kind == 0 and rtype.map is not None:  # a field
            if rtype.declares(element.payload):
                members.add(element)
            child_type = rtype.member(element.payload)
        elif element.kind == 1 and rtype.list is not None:  # a keyed item
            child_type = rtype.item()
        children[element] = _ensure(child, schema, child_type) if child_type is not None else _ensure_untyped(child)
    return FieldSet(members, children)


def _ensure_untyped(fields: FieldSet) -> FieldSet:
    # Go resolves an empty TypeRef to an empty atom: nothing below is a named field.
    return FieldSet(set(fields.members), {e: _ensure_untyped(c) for e, c in fields.children.items()})


# Kubernetes 1.29 took structured-merge-diff v4.4, whose Updater.Apply calls an apply a no-op only when
# the merged object equals the live one (value.Equals, order included); v4.2 compared field sets, so an
# apply that only reordered a list changed nothing.
ORDER_SENSITIVE_NOOP_SINCE = (1, 29)


class Updater:
    """merge.Updater with ``IgnoreFilter``: fields reset by the endpoint are nobody's."""

    def __init__(self, reset_fields: FieldSet | None = None, order_sensitive_noop: bool = True) -> None:
        self.reset_fields = reset_fields
        self.order_sensitive_noop = order_sensitive_noop

    def _filter(self, fields: FieldSet) -> FieldSet:
        return fields if self.reset_fields is None else fields.recursive_difference(self.reset_fields)

    def _update(self, old: TypedValue, new: TypedValue, managers: ManagedFields, workflow: str,
                force: bool) -> tuple[ManagedFields, object]:
        comparison = old.compare(new).filter(self.reset_fields)
        changed = comparison.modified.union(comparison.added)
        conflicts: ManagedFields = {}
        removed: ManagedFields = {}
        anything_removed = not comparison.removed.empty()
        for manager, versioned in managers.items():
            if manager == workflow:
                continue
            conflict_set = versioned.set.intersection(changed)
            if not conflict_set.empty():
                conflicts[manager] = VersionedSet(conflict_set, versioned.api_version, False)
            if anything_removed:
                removed[manager] = VersionedSet(comparison.removed, versioned.api_version, False)
        if not force and conflicts:
            raise Conflicts(conflicts_from_managers(conflicts))
        managers = dict(managers)
        for manager, taken in conflicts.items():
            current = managers[manager]
            managers[manager] = VersionedSet(current.set.difference(taken.set), current.api_version, current.applied)
        for manager, gone in removed.items():
            current = managers[manager]
            managers[manager] = VersionedSet(current.set.difference(gone.set), current.api_version, current.applied)
        return {m: v for m, v in managers.items() if not v.set.empty()}, comparison

    def update(self, live: TypedValue, new: TypedValue, version: str, managers: ManagedFields,
               manager: str) -> tuple[TypedValue, ManagedFields]:
        """An update never conflicts: it takes whatever it changed from the others."""
        managers, comparison = self._update(live, new, managers, manager, force=True)
        previous = managers.get(manager, VersionedSet(FieldSet(), version, False)).set
        owned = previous.difference(comparison.removed).union(comparison.modified).union(comparison.added)
        owned = self._filter(owned)
        managers = dict(managers)
        if owned.empty():
            managers.pop(manager, None)
        else:
            managers[manager] = VersionedSet(owned, version, False)
        return new, managers

    def apply(self, live: TypedValue, config: TypedValue, version: str, managers: ManagedFields,
              manager: str, force: bool) -> tuple[TypedValue | None, ManagedFields]:
        """The configuration merged over live; what the applier stopped applying is pruned unless
        someone else owns it. Returns no object when nothing changed."""
        merged = live.merge(config)
        last = managers.get(manager)
        managers = dict(managers)
        managers[manager] = VersionedSet(self._filter(config.to_field_set()), version, True)
        merged = self._prune(merged, managers, manager, last)
        managers, comparison = self._update(live, merged, managers, manager, force)
        if not comparison.is_same():
            unchanged = False  # a path compare records is one where the values differ, in order or not
        elif self.order_sensitive_noop:
            unchanged = values_equal(live.value, merged.value)
        else:
            unchanged = live.compare(merged).is_same()
        return (None if unchanged else merged), managers

    def _prune(self, merged: TypedValue, managers: ManagedFields, manager: str,
               last: VersionedSet | None) -> TypedValue:
        if last is None or last.set.empty():
            return merged
        last_set = _ensure_named_fields_are_members(last.set, merged)
        pruned = merged.remove_items(last_set)
        # Both add-backs read the merged object's set (Go computes it in each): computed once here.
        merged_set = merged.to_field_set(named_fields_are_members=True)
        pruned = self._add_back_owned_items(merged, merged_set, pruned, managers)
        return self._add_back_dangling_items(merged, merged_set, pruned, last_set)

    @staticmethod
    def _add_back_owned_items(merged: TypedValue, merged_set: FieldSet, pruned: TypedValue,
                              managers: ManagedFields) -> TypedValue:
        """Everything any manager (the applier's new set included) owns stays."""
        owned = FieldSet()
        for versioned in managers.values():
            owned = owned.union(versioned.set)
        pruned_set = pruned.to_field_set(named_fields_are_members=True)
        keep = pruned_set.union(_ensure_named_fields_are_members(owned, merged))
        return merged.remove_items(merged_set.difference(keep))

    @staticmethod
    def _add_back_dangling_items(merged: TypedValue, merged_set: FieldSet, pruned: TypedValue,
                                 last_set: FieldSet) -> TypedValue:
        """Only what the applier owned last time (``last_set``, named fields as members) may go:
        fields it never owned stay."""
        pruned_set = pruned.to_field_set(named_fields_are_members=True)
        return merged.remove_items(merged_set.difference(pruned_set).intersection(last_set))
