"""What a custom resource's structural schema does to every object the apiextensions apiserver
decodes (a request body, a patch's result, what storage gives back), after pruning: nulls of
fields that are neither nullable nor defaulted are dropped, then defaults fill the fields that
are absent or null without being nullable (a default's own members defaulted in turn).

Go twins: k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/prunenulls.go
(PruneNonNullableNullsWithoutDefaults) and algorithm.go (Default), called by the CRD handler's
unstructuredSchemaCoercer and unstructuredDefaulter. ``metadata`` is not the schema's: the
handler coerces ObjectMeta apart (schemaobjectmeta).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .schema import Schema

Node = Mapping[str, Any]


class _Walk:
    """The schema's nodes, each ``$ref`` followed (the extensions beside a reference apply to it)."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema

    def node(self, node: Any) -> Node | None:
        while isinstance(node, Mapping):
            ref = node.get("$ref")
            all_of = node.get("allOf")
            if not ref and isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
                ref = all_of[0].get("$ref")
            if not isinstance(ref, str):
                return node
            target = self.schema.definition(ref.rsplit("/", 1)[-1])
            if target is None:
                return None
            node = {**target, **{key: value for key, value in node.items() if key not in ("$ref", "allOf")}}
        return None

    def member(self, node: Node, key: str) -> Node | None:
        """getSchemaForField: the property's schema, or additionalProperties'."""
        properties = node.get("properties")
        if isinstance(properties, Mapping) and key in properties:
            return self.node(properties[key])
        return self.additional(node)

    def additional(self, node: Node) -> Node | None:
        additional = node.get("additionalProperties")
        return self.node(additional) if isinstance(additional, Mapping) else None

    def items(self, node: Node) -> Node | None:
        return self.node(node.get("items"))


def _nullable(node: Node) -> bool:
    return node.get("nullable") is True


def _default(node: Node | None) -> Any:
    return None if node is None else node.get("default")  # Go cannot tell a null default from none


def decode(schema: Schema, obj: Any) -> Any:
    """``obj`` as the server decodes it: non-nullable nulls without a default pruned, then defaulted.
    A new object where anything below the root's own members may change; ``metadata`` is ``obj``'s."""
    walk = _Walk(schema)
    root = walk.node({"$ref": schema.root.named}) if schema.root.named else None
    if root is None or not isinstance(obj, dict):
        return obj
    root = _without_metadata(root)
    return _defaulted(walk, _pruned(walk, obj, root), root)  # metadata: no schema, kept as it is


def defaulted(schema: Schema, obj: Any) -> Any:
    """``obj`` as the CRD handler's defaulter leaves it (the field manager's result of an apply, as
    storage is handed it): defaulted, nulls not pruned; ``metadata`` is ``obj``'s."""
    walk = _Walk(schema)
    root = walk.node({"$ref": schema.root.named}) if schema.root.named else None
    if root is None or not isinstance(obj, dict):
        return obj
    return _defaulted(walk, obj, _without_metadata(root))


def _without_metadata(root: Node) -> Node:
    properties = root.get("properties") if isinstance(root.get("properties"), Mapping) else {}
    return {**root, "properties": {key: value for key, value in properties.items() if key != "metadata"}}


def _pruned(walk: _Walk, value: Any, node: Node | None) -> Any:
    """PruneNonNullableNullsWithoutDefaults."""
    if node is None:
        return value
    if isinstance(value, dict):
        out = {}
        for key, child in value.items():
            child_node = walk.member(node, key)
            if child is None and child_node is not None and not _nullable(child_node) \
                    and _default(child_node) is None:
                continue
            out[key] = _pruned(walk, child, child_node)
        return out
    if isinstance(value, list):
        items = walk.items(node)
        return [_pruned(walk, item, items) for item in value]
    return value


def _defaulted(walk: _Walk, value: Any, node: Node | None) -> Any:
    """Default: absent and non-nullable null properties get their default, then every member is
    defaulted by its own schema (a default just given too)."""
    if node is None:
        return value
    if isinstance(value, dict):
        out = dict(value)
        properties = node.get("properties") if isinstance(node.get("properties"), Mapping) else {}
        for key, declared in properties.items():
            declared = walk.node(declared)
            default = _default(declared)
            if default is None:
                continue
            if key not in out or (out[key] is None and not _nullable(declared)):
                out[key] = copy.deepcopy(default)
        additional = walk.additional(node)
        for key, child in out.items():
            if key in properties:
                out[key] = _defaulted(walk, child, walk.node(properties[key]))
            elif additional is not None:
                if child is None and not _nullable(additional):
                    child = copy.deepcopy(_default(additional))
                out[key] = _defaulted(walk, child, additional)
        return out
    if isinstance(value, list):
        items = walk.items(node)
        if items is None:
            return value
        return [_defaulted(walk, copy.deepcopy(_default(items)) if item is None and not _nullable(items) else item,
                          items) for item in value]
    return value
