"""Applying strategic merge patches to built-in kinds, against what kubectl does.

Every expected document and error message in this module was recorded from real
kubectl (``kubectl patch --local -f original.json --type strategic -p PATCH -o json``,
kubectl v1.32.5, apimachinery's strategicpatch with the Go struct metadata); none was
computed by the reference. The error classes and pointers are ours.
"""

from __future__ import annotations

import copy
import json

import pytest

from patchconf.reference_impl.errors import (
    InvalidDirective,
    InvalidDocument,
    InvalidPatch,
    ListOfLists,
    MergeKeyMissing,
    NoStrategicSchema,
    PatchError,
    RetainKeysViolation,
    TypeMismatch,
)
from patchconf.reference_impl.strategic import apply, builtin_patch_meta, named_patch_meta


def deployment(pod_spec, **spec):
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {**spec, "template": {"spec": pod_spec}},
    }


def pod_patch(pod_spec):
    return {"spec": {"template": {"spec": pod_spec}}}


def configmap(metadata=None, **fields):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", **(metadata or {})}, **fields}


def c(name, **fields):
    return {"name": name, "image": name, **fields}


ENV = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
TWO = deployment({"containers": [c("a", env=ENV), c("b")]})


def run(original, patch):
    return apply(original, patch, builtin_patch_meta(original["apiVersion"], original["kind"]))


CASES = [
    # maps
    (
        "map-merge-recursive",
        configmap({"labels": {"a": "1"}}, data={"x": "1"}),
        {"metadata": {"labels": {"b": "2"}}, "data": {"y": "2"}},
    ),
    (
        "map-null-deletes",
        configmap({"labels": {"a": "1", "b": "2"}}),
        {"metadata": {"labels": {"a": None, "zz": None}}},
    ),
    (
        "map-new-key-drops-nulls",
        configmap(),
        {"data": {"a": "1", "b": None}, "extra": {"x": {"y": None, "z": [None, {"n": None}]}}},
    ),
    ("map-null-field", configmap(data={"a": "1"}), {"data": None}),
    ("map-empty-patch", configmap(data={"a": "1"}), {}),
    ("map-null-patch", configmap(data={"a": "1"}), None),
    ("map-empty-map-value", configmap(data={"a": "1"}), {"data": {}, "binaryData": {}}),
    # replace lists
    (
        "list-without-strategy-replaced",
        deployment({"containers": [c("a", args=["x", "y"])]}),
        pod_patch({"containers": [{"name": "a", "args": ["z"]}]}),
    ),
    (
        "list-without-strategy-raw",
        deployment({"containers": [c("a")], "tolerations": [{"key": "a"}]}),
        pod_patch({"tolerations": [{"key": "b", "$patch": "delete", "value": None}]}),
    ),
    (
        "map-replace-strategy-raw",
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "pdb"},
            "spec": {
                "minAvailable": 1,
                "selector": {"matchLabels": {"a": "b"}, "matchExpressions": [{"key": "k", "operator": "Exists"}]},
            },
        },
        {"spec": {"selector": {"matchLabels": {"c": "d", "e": None}, "x": {"$patch": "delete"}}}},
    ),
    # merge lists of maps
    ("merge-update-in-place", TWO, pod_patch({"containers": [{"name": "b", "image": "b2"}]})),
    ("merge-append-new-goes-first", TWO, pod_patch({"containers": [c("c")]})),
    ("merge-new-and-existing", TWO, pod_patch({"containers": [c("c"), {"name": "a", "image": "a2"}]})),
    (
        "merge-patch-order-wins",
        deployment({"containers": [c("a"), c("b"), c("c")]}),
        pod_patch({"containers": [{"name": "c"}, {"name": "a"}]}),
    ),
    ("merge-empty-patch-list", TWO, pod_patch({"containers": []})),
    (
        "merge-null-list",
        deployment({"containers": [c("a")], "initContainers": [c("i")]}),
        pod_patch({"initContainers": None}),
    ),
    (
        "merge-key-port-number",
        deployment({"containers": [c("a", ports=[{"containerPort": 80, "name": "http"}, {"containerPort": 443}])]}),
        pod_patch(
            {"containers": [{"name": "a", "ports": [{"containerPort": 443, "name": "https"}, {"containerPort": 8080}]}]}
        ),
    ),
    (
        "merge-key-mount-path",
        deployment(
            {
                "containers": [
                    c("a", volumeMounts=[{"mountPath": "/a", "name": "v1"}, {"mountPath": "/b", "name": "v2"}])
                ]
            }
        ),
        pod_patch({"containers": [{"name": "a", "volumeMounts": [{"mountPath": "/b", "readOnly": True}]}]}),
    ),
    (
        "nested-merge-lists",
        deployment({"containers": [c("a", env=ENV, ports=[{"containerPort": 80, "name": "http"}])]}),
        pod_patch(
            {
                "containers": [
                    {
                        "name": "a",
                        "env": [
                            {"name": "B", "value": "X"},
                            {"name": "C", "value": "3"},
                            {"name": "A", "$patch": "delete"},
                        ],
                        "ports": [{"containerPort": 443}],
                    }
                ]
            }
        ),
    ),
    (
        "new-element-kept-as-sent",
        TWO,
        pod_patch(
            {
                "containers": [
                    c(
                        "c",
                        image=None,
                        env=[{"name": "X", "$patch": "delete"}, {"name": "Y", "value": None}],
                        resources={"limits": None},
                    )
                ]
            }
        ),
    ),
    (
        "new-nested-element-kept-as-sent",
        TWO,
        pod_patch(
            {"containers": [{"name": "a", "env": [{"name": "Z", "value": None, "valueFrom": {"$patch": "delete"}}]}]}
        ),
    ),
    # duplicates
    (
        "dup-key-original-first-wins",
        deployment({"containers": [c("a", image="1"), c("b"), c("a", image="2")]}),
        pod_patch({"containers": [{"name": "a", "image": "X"}]}),
    ),
    (
        "dup-key-original-delete-all",
        deployment({"containers": [c("a", image="1"), c("b"), c("a", image="2")]}),
        pod_patch({"containers": [{"name": "a", "$patch": "delete"}]}),
    ),
    (
        "dup-key-patch-merged-twice",
        TWO,
        pod_patch(
            {
                "containers": [
                    {"name": "b", "image": "1", "args": ["x"]},
                    {"name": "a", "image": "A"},
                    {"name": "b", "image": "2", "command": ["y"]},
                ]
            }
        ),
    ),
    (
        "dup-key-patch-new-element",
        TWO,
        pod_patch(
            {
                "containers": [
                    c("c", image="1", env=[{"name": "E", "value": "1"}]),
                    c("c", image="2", env=[{"name": "F", "value": "2"}]),
                ]
            }
        ),
    ),
    (
        "dup-env-original",
        deployment(
            {
                "containers": [
                    c("a", env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}, {"name": "A", "value": "3"}])
                ]
            }
        ),
        pod_patch({"containers": [{"name": "a", "env": [{"name": "C", "value": "4"}]}]}),
    ),
    # primitive merge lists
    ("primitive-union", configmap({"finalizers": ["a", "b", "c"]}), {"metadata": {"finalizers": ["d", "b"]}}),
    (
        "primitive-patch-order",
        configmap({"finalizers": ["a", "b", "c"]}),
        {"metadata": {"finalizers": ["c", "x", "a"]}},
    ),
    ("primitive-dups-in-patch", configmap({"finalizers": ["a"]}), {"metadata": {"finalizers": ["c", "c", "b", "c"]}}),
    (
        "primitive-dups-in-original-aliased",
        configmap({"finalizers": ["a", "a", "b"]}),
        {"metadata": {"finalizers": ["c"]}},
    ),
    (
        "primitive-dups-in-original-not-aliased",
        configmap({"finalizers": ["a", "a", "b"]}),
        {"metadata": {"finalizers": ["c", "d"]}},
    ),
    (
        "primitive-dups-capacity-8",
        configmap({"finalizers": ["e", "a", "e", "b", "c"]}),
        {"metadata": {"finalizers": ["d", "f", "c"]}},
    ),
    (
        "primitive-dups-capacity-8-full",
        configmap({"finalizers": ["e", "a", "e", "b", "c"]}),
        {"metadata": {"finalizers": ["d", "f", "c", "g"]}},
    ),
    (
        "primitive-capacity-71-aliased",
        configmap({"finalizers": ["a", "a"] + [f"f{i}" for i in range(31)]}),
        {"metadata": {"finalizers": [f"p{i}" for i in range(38)]}},
    ),
    (
        "primitive-capacity-71-full",
        configmap({"finalizers": ["a", "a"] + [f"f{i}" for i in range(31)]}),
        {"metadata": {"finalizers": [f"p{i}" for i in range(39)]}},
    ),
    ("primitive-empty-patch-dedups", configmap({"finalizers": ["e", "e", "d", "b"]}), {"metadata": {"finalizers": []}}),
    ("primitive-new-list-as-sent", configmap(), {"metadata": {"finalizers": ["x", "x"]}}),
    (
        "primitive-podcidrs",
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"podCIDRs": ["10.0.0.0/24"]}},
        {"spec": {"podCIDRs": ["10.0.1.0/24", "10.0.0.0/24"]}},
    ),
    # $patch directives
    ("directive-delete-element", TWO, pod_patch({"containers": [{"name": "a", "$patch": "delete"}]})),
    ("directive-delete-missing-element", TWO, pod_patch({"containers": [{"name": "zz", "$patch": "delete"}]})),
    (
        "directive-delete-on-absent-list",
        deployment({"containers": [c("a")]}),
        pod_patch({"initContainers": [{"name": "a", "$patch": "delete"}]}),
    ),
    ("directive-replace-list", TWO, pod_patch({"containers": [{"$patch": "replace"}, c("z")]})),
    ("directive-replace-list-empty", TWO, pod_patch({"containers": [{"$patch": "replace"}]})),
    (
        "directive-replace-list-groups-duplicates",
        TWO,
        pod_patch({"containers": [c("x", image="1"), {"$patch": "replace"}, c("y"), c("x", image="2")]}),
    ),
    (
        "directive-delete-map",
        deployment({"containers": [c("a")], "securityContext": {"runAsUser": 1}}),
        pod_patch({"securityContext": {"$patch": "delete"}}),
    ),
    (
        "directive-replace-map",
        deployment({"containers": [c("a")], "securityContext": {"runAsUser": 1, "runAsGroup": 2}}),
        pod_patch(
            {
                "securityContext": {
                    "$patch": "replace",
                    "runAsUser": 5,
                    "fsGroup": None,
                    "seLinuxOptions": {"$patch": "delete"},
                }
            }
        ),
    ),
    (
        "directive-map-new-key-dropped",
        deployment({"containers": [c("a")]}),
        pod_patch({"securityContext": {"$patch": "merge", "runAsGroup": 3}}),
    ),
    ("directive-null-in-new-map-dropped-first", configmap(), {"data": {"$patch": None, "a": "1"}}),
    (
        "directive-top-level-replace",
        configmap(data={"x": "1"}),
        {"$patch": "replace", "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}},
    ),
    ("directive-unknown-dollar-keys-kept", configmap(), {"$foo": 1, "data": {"$bar": {"x": None}}}),
    # retainKeys
    (
        "retainkeys-clears-others",
        deployment({"containers": [c("a")]}, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}),
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
    ),
    (
        "retainkeys-null-value-allowed",
        deployment({"containers": [c("a")]}, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}),
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": None}}},
    ),
    (
        "retainkeys-empty-clears-all",
        deployment({"containers": [c("a")]}, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}),
        {"spec": {"strategy": {"$retainKeys": []}}},
    ),
    (
        "retainkeys-any-map",
        deployment({"containers": [c("a")]}, replicas=1, paused=True, minReadySeconds=3),
        {"spec": {"$retainKeys": ["replicas", "template"], "replicas": 2}},
    ),
    (
        "retainkeys-new-map-kept-verbatim",
        deployment({"containers": [c("a")]}),
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
    ),
    (
        "retainkeys-volume-source-switch",
        deployment({"containers": [c("a")], "volumes": [{"name": "v", "emptyDir": {}, "configMap": {"name": "x"}}]}),
        pod_patch({"volumes": [{"name": "v", "$retainKeys": ["name", "secret"], "secret": {"secretName": "s"}}]}),
    ),
    (
        "retainkeys-with-directive-keys",
        deployment({"containers": [c("a")]}, **{})
        | {"metadata": {"name": "web", "finalizers": ["a", "b"], "labels": {"x": "y"}}},
        {"metadata": {"$retainKeys": ["finalizers", "name"], "$setElementOrder/finalizers": ["b", "a"]}},
    ),
    # $setElementOrder
    (
        "order-primitive-reorder",
        configmap({"finalizers": ["a", "b", "c"]}),
        {"metadata": {"$setElementOrder/finalizers": ["c", "a", "b"]}},
    ),
    (
        "order-primitive-partial",
        configmap({"finalizers": ["a", "b", "c", "d"]}),
        {"metadata": {"$setElementOrder/finalizers": ["d", "b"]}},
    ),
    (
        "order-primitive-with-patch",
        configmap({"finalizers": ["a", "b", "c"]}),
        {"metadata": {"$setElementOrder/finalizers": ["c", "x", "a"], "finalizers": ["x"]}},
    ),
    (
        "order-primitive-unknown-items",
        configmap({"finalizers": ["a", "b"]}),
        {"metadata": {"$setElementOrder/finalizers": ["z", "b", "y", "a"]}},
    ),
    ("order-primitive-absent-list", configmap(), {"metadata": {"$setElementOrder/finalizers": ["a"]}}),
    (
        "order-primitive-new-list",
        configmap(),
        {"metadata": {"$setElementOrder/finalizers": ["b", "a"], "finalizers": ["b", "a"]}},
    ),
    (
        "order-maps-reorder",
        deployment({"containers": [c("a"), c("b"), c("c"), c("e")]}),
        pod_patch({"$setElementOrder/containers": [{"name": "e"}, {"name": "a"}]}),
    ),
    (
        "order-maps-unknown-items",
        deployment({"containers": [c("a"), c("b"), c("c"), c("e")]}),
        pod_patch({"$setElementOrder/containers": [{"name": "zz"}, {"name": "e"}, {"name": "yy"}, {"name": "a"}]}),
    ),
    (
        "order-maps-with-patch",
        deployment({"containers": [c("a"), c("b"), c("c"), c("d")]}),
        pod_patch(
            {
                "$setElementOrder/containers": [{"name": "x"}, {"name": "c"}, {"name": "a"}],
                "containers": [c("x"), {"name": "a", "image": "A"}],
            }
        ),
    ),
    (
        "order-maps-with-delete",
        deployment({"containers": [c("a"), c("b"), c("c"), c("e")]}),
        pod_patch(
            {
                "$setElementOrder/containers": [{"name": "e"}, {"name": "a"}],
                "containers": [{"name": "c", "$patch": "delete"}],
            }
        ),
    ),
    (
        "order-maps-delete-and-add-aliased",
        deployment({"containers": [c("a"), c("b"), c("c")]}),
        pod_patch(
            {"$setElementOrder/containers": [{"name": "d"}], "containers": [{"name": "b", "$patch": "delete"}, c("d")]}
        ),
    ),
    (
        "order-maps-add-only",
        deployment({"containers": [c("a"), c("b"), c("c")]}),
        pod_patch({"$setElementOrder/containers": [{"name": "d"}], "containers": [c("d")]}),
    ),
    (
        "order-maps-extra-members-ignored",
        deployment({"containers": [c("a"), c("b")]}),
        pod_patch({"$setElementOrder/containers": [{"name": "b", "image": "zzz"}, {"name": "a"}]}),
    ),
    (
        "order-ports-by-number",
        deployment({"containers": [c("a", ports=[{"containerPort": 80, "name": "h"}, {"containerPort": 443}])]}),
        pod_patch(
            {
                "containers": [
                    {
                        "name": "a",
                        "$setElementOrder/ports": [
                            {"containerPort": 443},
                            {"containerPort": 8080},
                            {"containerPort": 80},
                        ],
                        "ports": [{"containerPort": 8080}],
                    }
                ]
            }
        ),
    ),
    (
        "order-replace-list",
        deployment({"containers": [c("a", args=["x", "y", "z"])]}),
        pod_patch({"containers": [{"name": "a", "$setElementOrder/args": ["z", "x"]}]}),
    ),
    # $deleteFromPrimitiveList
    (
        "deletefrom-present-and-absent",
        configmap({"finalizers": ["a", "b", "c", "b"]}),
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["b", "zz"]}},
    ),
    ("deletefrom-absent-list", configmap(), {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
    (
        "deletefrom-null-deletes-list",
        configmap({"finalizers": ["a", "b"]}),
        {"metadata": {"$deleteFromPrimitiveList/finalizers": None}},
    ),
    (
        "deletefrom-non-list-ignored",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}},
    ),
    (
        "deletefrom-list-without-strategy",
        deployment({"containers": [c("a", args=["x", "y", "x"])]}),
        pod_patch({"containers": [{"name": "a", "$deleteFromPrimitiveList/args": ["x"]}]}),
    ),
    (
        "deletefrom-list-of-maps-merges",
        deployment({"containers": [c("a"), c("b")]}),
        pod_patch({"$deleteFromPrimitiveList/containers": [{"name": "a", "image": "Z"}]}),
    ),
    (
        "deletefrom-map-merges",
        deployment({"containers": [c("a")], "nodeSelector": {"a": "b"}}),
        pod_patch({"$deleteFromPrimitiveList/nodeSelector": {"c": "d"}}),
    ),
    (
        "deletefrom-scalar-same-type-replaces",
        deployment({"containers": [c("a")], "hostname": "h"}),
        pod_patch({"$deleteFromPrimitiveList/hostname": "z"}),
    ),
    (
        "deletefrom-after-additions",
        configmap({"finalizers": ["a", "b"]}),
        {"metadata": {"finalizers": ["c"], "$deleteFromPrimitiveList/finalizers": ["zz"]}},
    ),
    (
        "deletefrom-after-setorder",
        configmap({"finalizers": ["a", "b", "c"]}),
        {"metadata": {"$setElementOrder/finalizers": ["c", "b", "a"], "$deleteFromPrimitiveList/finalizers": ["b"]}},
    ),
    # type changes
    ("type-map-to-scalar", configmap(data={"a": "1"}), {"data": "x"}),
    (
        "type-scalar-to-map-drops-nulls-and-directives",
        configmap(foo="x"),
        {"foo": {"a": 1, "b": None, "c": {"$patch": "delete"}}},
    ),
    ("type-list-to-map", configmap(foo=[1, 2]), {"foo": {"a": 1, "b": None}}),
    ("type-map-to-list", configmap(foo={"a": 1}), {"foo": [1, {"b": None, "c": [None]}, {"$patch": "delete"}]}),
    ("type-scalar-to-list", configmap(foo=1), {"foo": [{"a": None}]}),
    ("type-list-to-directive-map-removes", configmap(foo=[1]), {"foo": {"$patch": "replace", "a": 1}}),
    ("type-null-to-map", configmap(foo=None), {"foo": {"a": None, "b": 1}}),
    ("type-int-to-float", configmap(foo=1), {"foo": 1.5}),
    ("type-string-to-bool", configmap(foo="x"), {"foo": True}),
    # numbers
    (
        "numbers-int64-beyond-2-53",
        configmap(big=9007199254740993),
        {"bigger": 9007199254740995, "neg": -9007199254740993},
    ),
    (
        "numbers-float-key-does-not-match-int",
        deployment({"containers": [c("a", ports=[{"containerPort": 80, "name": "h"}])]}),
        pod_patch({"containers": [{"name": "a", "ports": [{"containerPort": 80.5, "name": "x"}]}]}),
    ),
    (
        "numbers-string-key-does-not-match-int",
        deployment({"containers": [c("a", ports=[{"containerPort": 80, "name": "h"}])]}),
        pod_patch({"containers": [{"name": "a", "ports": [{"containerPort": "80", "name": "x"}]}]}),
    ),
    # unknown fields
    ("unknown-field-new-value", configmap(), {"foo": {"b": {"c": None, "d": 1}}}),
    ("unknown-field-scalar-replaced", configmap(foo=1), {"foo": 2}),
    ("unknown-field-case-insensitive-match", configmap({"Labels": {"a": "1"}}), {"metadata": {"Labels": {"b": "2"}}}),
    ("list-of-lists-new-value", deployment({"containers": [c("a")]}), pod_patch({"initContainers": [[2]]})),
]

# kubectl's output for each case (recorded, then pasted here).
EXPECTED = {
    "map-merge-recursive": {
        "apiVersion": "v1",
        "data": {"x": "1", "y": "2"},
        "kind": "ConfigMap",
        "metadata": {"labels": {"a": "1", "b": "2"}, "name": "cfg"},
    },
    "map-null-deletes": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"labels": {"b": "2"}, "name": "cfg"}},
    "map-new-key-drops-nulls": {
        "apiVersion": "v1",
        "data": {"a": "1"},
        "extra": {"x": {"z": [None, {}]}},
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
    },
    "map-null-field": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "map-empty-patch": {"apiVersion": "v1", "data": {"a": "1"}, "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "map-null-patch": {"apiVersion": "v1", "data": {"a": "1"}, "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "map-empty-map-value": {
        "apiVersion": "v1",
        "binaryData": {},
        "data": {"a": "1"},
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
    },
    "list-without-strategy-replaced": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"args": ["z"], "image": "a", "name": "a"}]}}},
    },
    "list-without-strategy-raw": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"image": "a", "name": "a"}],
                    "tolerations": [{"$patch": "delete", "key": "b", "value": None}],
                }
            }
        },
    },
    "map-replace-strategy-raw": {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "pdb"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"c": "d", "e": None}, "x": {"$patch": "delete"}}},
    },
    "merge-update-in-place": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "a", "name": "a"},
                        {"image": "b2", "name": "b"},
                    ]
                }
            }
        },
    },
    "merge-append-new-goes-first": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "c", "name": "c"},
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "a", "name": "a"},
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "merge-new-and-existing": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "c", "name": "c"},
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "a2", "name": "a"},
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "merge-patch-order-wins": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "b", "name": "b"},
                        {"image": "c", "name": "c"},
                        {"image": "a", "name": "a"},
                    ]
                }
            }
        },
    },
    "merge-empty-patch-list": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "a", "name": "a"},
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "merge-null-list": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "a", "name": "a"}]}}},
    },
    "merge-key-port-number": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "image": "a",
                            "name": "a",
                            "ports": [
                                {"containerPort": 80, "name": "http"},
                                {"containerPort": 443, "name": "https"},
                                {"containerPort": 8080},
                            ],
                        }
                    ]
                }
            }
        },
    },
    "merge-key-mount-path": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "image": "a",
                            "name": "a",
                            "volumeMounts": [
                                {"mountPath": "/a", "name": "v1"},
                                {"mountPath": "/b", "name": "v2", "readOnly": True},
                            ],
                        }
                    ]
                }
            }
        },
    },
    "nested-merge-lists": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "env": [{"name": "B", "value": "X"}, {"name": "C", "value": "3"}],
                            "image": "a",
                            "name": "a",
                            "ports": [{"containerPort": 443}, {"containerPort": 80, "name": "http"}],
                        }
                    ]
                }
            }
        },
    },
    "new-element-kept-as-sent": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "env": [{"$patch": "delete", "name": "X"}, {"name": "Y", "value": None}],
                            "image": None,
                            "name": "c",
                            "resources": {"limits": None},
                        },
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "a", "name": "a"},
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "new-nested-element-kept-as-sent": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "env": [
                                {"name": "Z", "value": None, "valueFrom": {"$patch": "delete"}},
                                {"name": "A", "value": "1"},
                                {"name": "B", "value": "2"},
                            ],
                            "image": "a",
                            "name": "a",
                        },
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "dup-key-original-first-wins": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "X", "name": "a"},
                        {"image": "2", "name": "a"},
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "dup-key-original-delete-all": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "b", "name": "b"}]}}},
    },
    "dup-key-patch-merged-twice": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"args": ["x"], "command": ["y"], "image": "2", "name": "b"},
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "A", "name": "a"},
                    ]
                }
            }
        },
    },
    "dup-key-patch-new-element": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"env": [{"name": "F", "value": "2"}, {"name": "E", "value": "1"}], "image": "2", "name": "c"},
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "a", "name": "a"},
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "dup-env-original": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "env": [
                                {"name": "C", "value": "4"},
                                {"name": "A", "value": "1"},
                                {"name": "A", "value": "3"},
                                {"name": "B", "value": "2"},
                            ],
                            "image": "a",
                            "name": "a",
                        }
                    ]
                }
            }
        },
    },
    "primitive-union": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["d", "a", "b", "c"], "name": "cfg"},
    },
    "primitive-patch-order": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["b", "c", "x", "a"], "name": "cfg"},
    },
    "primitive-dups-in-patch": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["c", "b", "a"], "name": "cfg"},
    },
    "primitive-dups-in-original-aliased": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["a", "c", "b"], "name": "cfg"},
    },
    "primitive-dups-in-original-not-aliased": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["c", "d", "a", "b"], "name": "cfg"},
    },
    "primitive-dups-capacity-8": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["d", "e", "a", "b", "f", "c"], "name": "cfg"},
    },
    "primitive-dups-capacity-8-full": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["d", "f", "e", "a", "b", "c", "g"], "name": "cfg"},
    },
    "primitive-capacity-71-aliased": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "finalizers": [
                "p0",
                "p1",
                "p2",
                "p3",
                "p4",
                "p5",
                "p6",
                "p7",
                "p8",
                "p9",
                "p10",
                "p11",
                "p12",
                "p13",
                "p14",
                "p15",
                "p16",
                "p17",
                "p18",
                "p19",
                "p20",
                "p21",
                "p22",
                "p23",
                "p24",
                "p25",
                "p26",
                "p27",
                "p28",
                "p29",
                "p30",
                "p31",
                "p32",
                "p33",
                "p34",
                "p35",
                "p36",
                "a",
                "p37",
                "f0",
                "f1",
                "f2",
                "f3",
                "f4",
                "f5",
                "f6",
                "f7",
                "f8",
                "f9",
                "f10",
                "f11",
                "f12",
                "f13",
                "f14",
                "f15",
                "f16",
                "f17",
                "f18",
                "f19",
                "f20",
                "f21",
                "f22",
                "f23",
                "f24",
                "f25",
                "f26",
                "f27",
                "f28",
                "f29",
                "f30",
            ],
            "name": "cfg",
        },
    },
    "primitive-capacity-71-full": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "finalizers": [
                "p0",
                "p1",
                "p2",
                "p3",
                "p4",
                "p5",
                "p6",
                "p7",
                "p8",
                "p9",
                "p10",
                "p11",
                "p12",
                "p13",
                "p14",
                "p15",
                "p16",
                "p17",
                "p18",
                "p19",
                "p20",
                "p21",
                "p22",
                "p23",
                "p24",
                "p25",
                "p26",
                "p27",
                "p28",
                "p29",
                "p30",
                "p31",
                "p32",
                "p33",
                "p34",
                "p35",
                "p36",
                "p37",
                "p38",
                "a",
                "f0",
                "f1",
                "f2",
                "f3",
                "f4",
                "f5",
                "f6",
                "f7",
                "f8",
                "f9",
                "f10",
                "f11",
                "f12",
                "f13",
                "f14",
                "f15",
                "f16",
                "f17",
                "f18",
                "f19",
                "f20",
                "f21",
                "f22",
                "f23",
                "f24",
                "f25",
                "f26",
                "f27",
                "f28",
                "f29",
                "f30",
            ],
            "name": "cfg",
        },
    },
    "primitive-empty-patch-dedups": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["e", "b", "d"], "name": "cfg"},
    },
    "primitive-new-list-as-sent": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["x", "x"], "name": "cfg"},
    },
    "primitive-podcidrs": {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "spec": {"podCIDRs": ["10.0.1.0/24", "10.0.0.0/24"]},
    },
    "directive-delete-element": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "b", "name": "b"}]}}},
    },
    "directive-delete-missing-element": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], "image": "a", "name": "a"},
                        {"image": "b", "name": "b"},
                    ]
                }
            }
        },
    },
    "directive-delete-on-absent-list": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "a", "name": "a"}], "initContainers": []}}},
    },
    "directive-replace-list": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "z", "name": "z"}]}}},
    },
    "directive-replace-list-empty": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": []}}},
    },
    "directive-replace-list-groups-duplicates": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "1", "name": "x"},
                        {"image": "2", "name": "x"},
                        {"image": "y", "name": "y"},
                    ]
                }
            }
        },
    },
    "directive-delete-map": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "a", "name": "a"}], "securityContext": {}}}},
    },
    "directive-replace-map": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"image": "a", "name": "a"}],
                    "securityContext": {"fsGroup": None, "runAsUser": 5, "seLinuxOptions": {"$patch": "delete"}},
                }
            }
        },
    },
    "directive-map-new-key-dropped": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "a", "name": "a"}]}}},
    },
    "directive-null-in-new-map-dropped-first": {
        "apiVersion": "v1",
        "data": {"a": "1"},
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
    },
    "directive-top-level-replace": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}},
    "directive-unknown-dollar-keys-kept": {
        "$foo": 1,
        "apiVersion": "v1",
        "data": {"$bar": {}},
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
    },
    "retainkeys-clears-others": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"strategy": {"type": "Recreate"}, "template": {"spec": {"containers": [{"image": "a", "name": "a"}]}}},
    },
    "retainkeys-null-value-allowed": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"strategy": {"type": "Recreate"}, "template": {"spec": {"containers": [{"image": "a", "name": "a"}]}}},
    },
    "retainkeys-empty-clears-all": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"strategy": {}, "template": {"spec": {"containers": [{"image": "a", "name": "a"}]}}},
    },
    "retainkeys-any-map": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"image": "a", "name": "a"}]}}},
    },
    "retainkeys-new-map-kept-verbatim": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "strategy": {"$retainKeys": ["type"], "type": "Recreate"},
            "template": {"spec": {"containers": [{"image": "a", "name": "a"}]}},
        },
    },
    "retainkeys-volume-source-switch": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"image": "a", "name": "a"}],
                    "volumes": [{"name": "v", "secret": {"secretName": "s"}}],
                }
            }
        },
    },
    "retainkeys-with-directive-keys": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"finalizers": ["b", "a"], "name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "a", "name": "a"}]}}},
    },
    "order-primitive-reorder": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["c", "a", "b"], "name": "cfg"},
    },
    "order-primitive-partial": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["a", "c", "d", "b"], "name": "cfg"},
    },
    "order-primitive-with-patch": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["b", "c", "x", "a"], "name": "cfg"},
    },
    "order-primitive-unknown-items": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["b", "a"], "name": "cfg"},
    },
    "order-primitive-absent-list": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "order-primitive-new-list": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["b", "a"], "name": "cfg"},
    },
    "order-maps-reorder": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "b", "name": "b"},
                        {"image": "c", "name": "c"},
                        {"image": "e", "name": "e"},
                        {"image": "a", "name": "a"},
                    ]
                }
            }
        },
    },
    "order-maps-unknown-items": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "b", "name": "b"},
                        {"image": "c", "name": "c"},
                        {"image": "e", "name": "e"},
                        {"image": "a", "name": "a"},
                    ]
                }
            }
        },
    },
    "order-maps-with-patch": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "x", "name": "x"},
                        {"image": "b", "name": "b"},
                        {"image": "c", "name": "c"},
                        {"image": "A", "name": "a"},
                        {"image": "d", "name": "d"},
                    ]
                }
            }
        },
    },
    "order-maps-with-delete": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "b", "name": "b"},
                        {"image": "e", "name": "e"},
                        {"image": "a", "name": "a"},
                    ]
                }
            }
        },
    },
    "order-maps-delete-and-add-aliased": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "a", "name": "a"},
                        {"image": "c", "name": "c"},
                        {"image": "d", "name": "d"},
                    ]
                }
            }
        },
    },
    "order-maps-add-only": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"image": "d", "name": "d"},
                        {"image": "a", "name": "a"},
                        {"image": "b", "name": "b"},
                        {"image": "c", "name": "c"},
                    ]
                }
            }
        },
    },
    "order-maps-extra-members-ignored": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "b", "name": "b"}, {"image": "a", "name": "a"}]}}},
    },
    "order-ports-by-number": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "image": "a",
                            "name": "a",
                            "ports": [
                                {"containerPort": 443},
                                {"containerPort": 8080},
                                {"containerPort": 80, "name": "h"},
                            ],
                        }
                    ]
                }
            }
        },
    },
    "order-replace-list": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"args": ["y", "z", "x"], "image": "a", "name": "a"}]}}},
    },
    "deletefrom-present-and-absent": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["a", "c"], "name": "cfg"},
    },
    "deletefrom-absent-list": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "deletefrom-null-deletes-list": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "deletefrom-non-list-ignored": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["a"], "name": "cfg"},
    },
    "deletefrom-list-without-strategy": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"args": ["y"], "image": "a", "name": "a"}]}}},
    },
    "deletefrom-list-of-maps-merges": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "Z", "name": "a"}, {"image": "b", "name": "b"}]}}},
    },
    "deletefrom-map-merges": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {"spec": {"containers": [{"image": "a", "name": "a"}], "nodeSelector": {"a": "b", "c": "d"}}}
        },
    },
    "deletefrom-scalar-same-type-replaces": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "a", "name": "a"}], "hostname": "z"}}},
    },
    "deletefrom-after-additions": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["c", "a", "b"], "name": "cfg"},
    },
    "deletefrom-after-setorder": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"finalizers": ["c", "a"], "name": "cfg"},
    },
    "type-map-to-scalar": {"apiVersion": "v1", "data": "x", "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "type-scalar-to-map-drops-nulls-and-directives": {
        "apiVersion": "v1",
        "foo": {"a": 1},
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
    },
    "type-list-to-map": {"apiVersion": "v1", "foo": {"a": 1}, "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "type-map-to-list": {
        "apiVersion": "v1",
        "foo": [1, {"c": [None]}],
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
    },
    "type-scalar-to-list": {"apiVersion": "v1", "foo": [{}], "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "type-list-to-directive-map-removes": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "type-null-to-map": {"apiVersion": "v1", "foo": {"b": 1}, "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "type-int-to-float": {"apiVersion": "v1", "foo": 1.5, "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "type-string-to-bool": {"apiVersion": "v1", "foo": True, "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "numbers-int64-beyond-2-53": {
        "apiVersion": "v1",
        "big": 9007199254740993,
        "bigger": 9007199254740995,
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
        "neg": -9007199254740993,
    },
    "numbers-float-key-does-not-match-int": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "image": "a",
                            "name": "a",
                            "ports": [{"containerPort": 80.5, "name": "x"}, {"containerPort": 80, "name": "h"}],
                        }
                    ]
                }
            }
        },
    },
    "numbers-string-key-does-not-match-int": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "image": "a",
                            "name": "a",
                            "ports": [{"containerPort": "80", "name": "x"}, {"containerPort": 80, "name": "h"}],
                        }
                    ]
                }
            }
        },
    },
    "unknown-field-new-value": {
        "apiVersion": "v1",
        "foo": {"b": {"d": 1}},
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
    },
    "unknown-field-scalar-replaced": {"apiVersion": "v1", "foo": 2, "kind": "ConfigMap", "metadata": {"name": "cfg"}},
    "unknown-field-case-insensitive-match": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"Labels": {"a": "1", "b": "2"}, "name": "cfg"},
    },
    "list-of-lists-new-value": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"image": "a", "name": "a"}], "initContainers": [[2]]}}},
    },
}


@pytest.mark.parametrize(("original", "patch"), [pytest.param(o, p, id=name) for name, o, p in CASES])
def test_apply_matches_kubectl(request, original, patch):
    name = request.node.callspec.id
    assert run(original, patch) == EXPECTED[name]


# (name, original, patch, error class, pointer, message): the messages are kubectl's,
# whole (a case file would assert a fragment of them; kubectl prints the trailing newline
# of the order messages too); panics are kubectl's panic text.
ERRORS = [
    (
        "merge-key-missing-in-patch",
        TWO,
        pod_patch({"containers": [{"image": "q"}]}),
        MergeKeyMissing,
        "/spec/template/spec/containers/0",
        "map: map[image:q] does not contain declared merge key: name",
    ),
    (
        "merge-key-missing-in-delete",
        TWO,
        pod_patch({"containers": [c("a"), {"$patch": "delete"}]}),
        MergeKeyMissing,
        "/spec/template/spec/containers/1",
        "map: map[$patch:delete] does not contain declared merge key: name",
    ),
    (
        "merge-key-missing-in-original",
        deployment({"containers": [c("a"), {"image": "x"}]}),
        pod_patch({"containers": []}),
        MergeKeyMissing,
        "/spec/template/spec/containers/1",
        "map: map[image:x] does not contain declared merge key: name",
    ),
    (
        "merge-key-missing-in-order",
        deployment({"containers": [c("a")]}),
        pod_patch({"$setElementOrder/containers": [{"image": "e"}]}),
        MergeKeyMissing,
        "/spec/template/spec/$setElementOrder~1containers/0",
        "map: map[image:e] does not contain declared merge key: name",
    ),
    (
        "merge-key-missing-from-schema",
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"podCIDRs": []}},
        {"spec": {"podCIDRs": [{"a": 1}]}},
        MergeKeyMissing,
        "/spec/podCIDRs",
        "cannot merge lists without merge key for string",
    ),
    (
        "directive-merge-in-list",
        TWO,
        pod_patch({"containers": [{"$patch": "merge"}, c("z")]}),
        InvalidDirective,
        "/spec/template/spec/containers/0/$patch",
        "merging lists cannot yet be specified in the patch",
    ),
    (
        "directive-unknown-in-list",
        TWO,
        pod_patch({"containers": [{"$patch": "bogus", "name": "a"}]}),
        InvalidDirective,
        "/spec/template/spec/containers/0/$patch",
        "unknown patch type: bogus in map: map[$patch:bogus name:a]",
    ),
    (
        "directive-merge-in-map",
        deployment({"containers": [c("a")], "securityContext": {"runAsUser": 1}}),
        pod_patch({"securityContext": {"$patch": "merge", "runAsGroup": 3}}),
        InvalidDirective,
        "/spec/template/spec/securityContext/$patch",
        "unknown patch type: merge in map: map[$patch:merge runAsGroup:3]",
    ),
    (
        "directive-null-in-map",
        configmap(data={"x": "1"}),
        {"data": {"$patch": None, "a": "1"}},
        InvalidDirective,
        "/data/$patch",
        "unknown patch type: %!s(<nil>) in map: map[$patch:<nil> a:1]",
    ),
    (
        "directive-number-in-map",
        configmap(data={"x": "1"}),
        {"data": {"$patch": 1.5, "z": {"q": [1, 2.5, None, True]}}},
        InvalidDirective,
        "/data/$patch",
        "unknown patch type: %!s(float64=1.5) in map: map[$patch:1.5 z:map[q:[1 2.5 <nil> true]]]",
    ),
    (
        "retainkeys-missing-key",
        deployment({"containers": [c("a")]}, strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}),
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": {"maxSurge": 2}}}},
        RetainKeysViolation,
        "/spec/strategy/rollingUpdate",
        "invalid patch format of retainKeys",
    ),
    (
        "retainkeys-not-a-list",
        deployment({"containers": [c("a")]}, strategy={"type": "RollingUpdate"}),
        {"spec": {"strategy": {"$retainKeys": "type", "type": "Recreate"}}},
        RetainKeysViolation,
        "/spec/strategy/$retainKeys",
        "invalid patch format of retainKeys",
    ),
    (
        "retainkeys-volume-without-merge-key",
        deployment({"containers": [c("a")], "volumes": [{"name": "v", "emptyDir": {}}]}),
        pod_patch({"volumes": [{"name": "v", "$retainKeys": ["secret"], "secret": {"secretName": "s"}}]}),
        RetainKeysViolation,
        "/spec/template/spec/volumes/0/name",
        "invalid patch format of retainKeys",
    ),
    (
        "list-of-lists",
        deployment({"containers": [[1]]}),
        pod_patch({"containers": [[2]]}),
        ListOfLists,
        "/spec/template/spec/containers",
        "lists of lists are not supported",
    ),
    (
        "element-types-differ",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"finalizers": [1]}},
        TypeMismatch,
        "/metadata/finalizers",
        "list element types are not identical: [[a] [1]]",
    ),
    (
        "element-null",
        deployment({"containers": [c("a")]}),
        pod_patch({"containers": [c("b"), None]}),
        TypeMismatch,
        "/spec/template/spec/containers",
        "list element types are not identical: [[map[image:a name:a]] [map[image:b name:b] <nil>]]",
    ),
    (
        "element-null-first-panics",
        deployment({"containers": [None, c("a")]}),
        pod_patch({"containers": [c("b")]}),
        TypeMismatch,
        "/spec/template/spec/containers",
        "runtime error: invalid memory address or nil pointer dereference",
    ),
    (
        "unknown-field-map",
        configmap(foo={"a": 1}),
        {"foo": {"b": 2}},
        NoStrategicSchema,
        "/foo",
        'unable to find api field in struct ConfigMap for the json field "foo"',
    ),
    (
        "unknown-field-list",
        configmap(foo=[1]),
        {"foo": [2]},
        NoStrategicSchema,
        "/foo",
        'unable to find api field in struct ConfigMap for the json field "foo"',
    ),
    (
        "unknown-field-nested",
        configmap({"foo": {"a": 1}}),
        {"metadata": {"foo": {"b": 2}}},
        NoStrategicSchema,
        "/metadata/foo",
        'unable to find api field in struct ObjectMeta for the json field "foo"',
    ),
    (
        "list-in-non-list-field",
        configmap(data=["a"]),
        {"data": ["b"]},
        TypeMismatch,
        "/data",
        "expected slice or array type, but got: struct",
    ),
    (
        "order-mismatch",
        configmap({"finalizers": ["a", "b"]}),
        {"metadata": {"$setElementOrder/finalizers": ["a", "b"], "finalizers": ["b", "a"]}},
        InvalidDirective,
        "/metadata/$setElementOrder~1finalizers",
        "The order in patch list:\n[b a]\n doesn't match $setElementOrder list:\n[a b]\n",
    ),
    (
        "order-missing-patch-item",
        configmap({"finalizers": ["a", "b"]}),
        {"metadata": {"$setElementOrder/finalizers": ["a"], "finalizers": ["b"]}},
        InvalidDirective,
        "/metadata/$setElementOrder~1finalizers",
        "The order in patch list:\n[b]\n doesn't match $setElementOrder list:\n[a]\n",
    ),
    (
        "order-of-empty-list",
        configmap({"finalizers": []}),
        {"metadata": {"$setElementOrder/finalizers": ["a"]}},
        InvalidDirective,
        "/metadata/$setElementOrder~1finalizers",
        "no elements in any of the given slices",
    ),
    (
        "order-not-a-list",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"$setElementOrder/finalizers": "a"}},
        TypeMismatch,
        "/metadata/$setElementOrder~1finalizers",
        "expected a []interface {}, but received a string",
    ),
    (
        "order-null",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"$setElementOrder/finalizers": None}},
        TypeMismatch,
        "/metadata/$setElementOrder~1finalizers",
        "expected a []interface {}, but received a %!s(<nil>)",
    ),
    (
        "order-list-null",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"$setElementOrder/finalizers": ["a"], "finalizers": None}},
        TypeMismatch,
        "/metadata/finalizers",
        "expected a []interface {}, but received a %!s(<nil>)",
    ),
    (
        "order-bad-key",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"$setElementOrderfinalizers": ["a"]}},
        InvalidDirective,
        "/metadata/$setElementOrderfinalizers",
        "invalid patch format of setElementOrder list",
    ),
    (
        "order-unknown-field",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"$setElementOrder/foo": ["a"]}},
        NoStrategicSchema,
        "/metadata/$setElementOrder~1foo",
        'unable to find api field in struct ObjectMeta for the json field "foo"',
    ),
    (
        "order-original-not-a-list",
        configmap({"labels": {"a": "b"}}),
        {"metadata": {"$setElementOrder/labels": ["a"]}},
        TypeMismatch,
        "/metadata/labels",
        "expected a []interface {}, but received a map[string]interface {}",
    ),
    (
        "order-strings-for-maps",
        deployment({"containers": [c("a"), c("e")]}),
        pod_patch({"$setElementOrder/containers": ["e", "a"]}),
        TypeMismatch,
        "/spec/template/spec/$setElementOrder~1containers/0",
        "value for key 0 is not a map",
    ),
    (
        "order-maps-for-primitives-panics",
        deployment({"containers": [c("a")], "tolerations": [{"key": "a"}]}),
        pod_patch({"$setElementOrder/tolerations": [{"key": "a"}]}),
        TypeMismatch,
        "/spec/template/spec/$setElementOrder~1tolerations",
        "runtime error: hash of unhashable type map[string]interface {}",
    ),
    (
        "deletefrom-bad-key",
        configmap({"finalizers": ["a"]}),
        {"metadata": {"$deleteFromPrimitiveList": ["a"]}},
        InvalidDirective,
        "/metadata/$deleteFromPrimitiveList",
        "invalid patch format of primitive list",
    ),
    ("patch-not-an-object", configmap(), [1], InvalidPatch, "", "invalid JSON document"),
    ("patch-a-string", configmap(), "a", InvalidPatch, "", "invalid JSON document"),
]


@pytest.mark.parametrize(
    ("original", "patch", "error", "pointer", "message"),
    [pytest.param(*case[1:], id=case[0]) for case in ERRORS],
)
def test_errors_match_kubectl(original, patch, error, pointer, message):
    with pytest.raises(error) as raised:
        run(original, patch)
    assert raised.value.pointer == pointer
    assert raised.value.message == message


@pytest.mark.parametrize(
    ("api_version", "kind", "message"),
    [
        (
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
            "strategic merge patch is not supported for apiextensions.k8s.io/v1, Kind=CustomResourceDefinition "
            "locally, try --type merge",
        ),
        (
            "extensions/v1beta1",
            "PodSecurityPolicy",
            "strategic merge patch is not supported for extensions/v1beta1, Kind=PodSecurityPolicy locally, "
            "try --type merge",
        ),
        ("v1", "Foo", "strategic merge patch is not supported for /v1, Kind=Foo locally, try --type merge"),
        (
            "example.com/v1",
            "Foo",
            "strategic merge patch is not supported for example.com/v1, Kind=Foo locally, try --type merge",
        ),
    ],
)
def test_kind_without_schema(api_version, kind, message):
    with pytest.raises(NoStrategicSchema) as raised:
        builtin_patch_meta(api_version, kind)
    assert raised.value.message == message


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("extensions/v1beta1", "Deployment"),
        ("extensions/v1beta1", "Ingress"),
        ("policy/v1beta1", "PodDisruptionBudget"),
        ("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
        ("apps/v1beta2", "DaemonSet"),
        ("discovery.k8s.io/v1beta1", "EndpointSlice"),
    ],
)
def test_retired_versions_kubectl_still_patches(api_version, kind):
    # kubectl 1.32 patches these locally (its scheme keeps their Go types): recorded
    # result {"metadata": {"labels": {"a": "b"}, "name": "x"}, ...}.
    original = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    assert run(original, {"metadata": {"labels": {"a": "b"}}}) == {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "x", "labels": {"a": "b"}},
    }


def test_retired_deployment_merges_containers():
    original = deployment({"containers": [c("a")]}) | {"apiVersion": "extensions/v1beta1"}
    result = run(original, pod_patch({"containers": [c("b")]}))
    assert result["spec"]["template"]["spec"]["containers"] == [c("b"), c("a")]


# ---- behaviour kubectl cannot show, or shows only by chance --------------------------


def test_document_must_be_an_object():
    # upstream's StrategicMergePatch refuses to decode anything but an object
    with pytest.raises(InvalidDocument, match="invalid JSON document"):
        apply([1], {}, builtin_patch_meta("v1", "ConfigMap"))


def test_null_document_is_empty_object():
    # json.Unmarshal of `null` into a map leaves an empty map
    assert apply(None, {"data": {"a": "1"}}, builtin_patch_meta("v1", "ConfigMap")) == {"data": {"a": "1"}}


def test_deletion_list_applies_after_the_same_list_is_merged():
    # Upstream iterates the patch map in random order, so kubectl answers either
    # [c, a, b] or [a, b] here (BEHAVIOURS.md, SMP-NONDETERMINISTIC). The reference
    # always applies $deleteFromPrimitiveList/… after the map's other keys.
    original = configmap({"finalizers": ["a", "b"]})
    patch = {"metadata": {"$deleteFromPrimitiveList/finalizers": ["c"], "finalizers": ["c"]}}
    assert run(original, patch)["metadata"]["finalizers"] == ["a", "b"]


def test_integers_beyond_int64_stay_exact():
    # kubectl turns such numbers in -p into floats on the way (YAML to JSON); the
    # library keeps whatever it is given, and so do we.
    original = configmap(n=2**64 + 1)
    assert run(original, {"m": -(2**70) - 1})["m"] == -(2**70) - 1
    assert run(original, {"x": 1})["n"] == 2**64 + 1


def test_integer_and_float_keys_are_different_values():
    # Go's decoder makes 80 an int64 and 80.0 a float64; they never match.
    original = deployment({"containers": [c("a", ports=[{"containerPort": 80, "name": "h"}])]})
    result = run(
        original,
        json.loads('{"spec":{"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80.0}]}]}}}}'),
    )
    ports = result["spec"]["template"]["spec"]["containers"][0]["ports"]
    assert ports == [{"containerPort": 80.0}, {"containerPort": 80, "name": "h"}]
    assert type(ports[0]["containerPort"]) is float


def test_inputs_are_not_mutated():
    for _, original, patch in CASES:
        before = copy.deepcopy((original, patch))
        run(original, patch)
        assert (original, patch) == before


def test_result_shares_nothing_with_the_patch():
    patch = pod_patch({"containers": [c("new", env=[{"name": "X", "value": "1"}])], "tolerations": [{"key": "t"}]})
    before = copy.deepcopy(patch)
    result = run(TWO, patch)
    spec = result["spec"]["template"]["spec"]
    spec["containers"][0]["env"][0]["value"] = "changed"
    spec["tolerations"][0]["key"] = "changed"
    assert patch == before


def test_errors_are_patch_errors_with_a_class():
    with pytest.raises(PatchError) as raised:
        run(TWO, pod_patch({"containers": [{"image": "q"}]}))
    assert raised.value.error_class == "merge-key-missing"


# ---- named schemas ---------------------------------------------------------------------
#
# kubectl cannot run these (no built-in kind has these shapes). Each expectation below
# was derived by reading apimachinery v0.32.4 (strategicpatch/patch.go and meta.go, with
# kube-openapi's proto models behind PatchMetaFromOpenAPI), as the comment beside it
# explains; they are to be confirmed by the Go `upstream` target.


def widget(**spec):
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def gadget(**spec):
    return {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": spec}


def run_named(schema, original, patch):
    return apply(original, patch, named_patch_meta(schema))


NAMED_CASES = [
    # mergeSlice on scalars: union [a b c]; patch items [a c] sorted by the patch -> [c a];
    # server-only [b]; mergeSortedSlice puts c (not in the original) first, then a (index 0)
    # before b (index 1).
    ("widget", "tags-union", widget(tags=["a", "b"]), {"spec": {"tags": ["c", "a"]}}, widget(tags=["c", "a", "b"])),
    # integers merge like strings; the new value goes first.
    ("widget", "ports-union", widget(ports=[80, 443]), {"spec": {"ports": [8080]}}, widget(ports=[8080, 80, 443])),
    # merge key `id` is an integer: 2 is updated in place, 3 is new; server-only 1 sorts
    # before patch item 2 because both are in the original (0 < 1).
    (
        "widget",
        "parts-by-integer-id",
        widget(parts=[{"id": 1, "label": "x"}, {"id": 2}]),
        {"spec": {"parts": [{"id": 2, "label": "y"}, {"id": 3}]}},
        widget(parts=[{"id": 1, "label": "x"}, {"id": 2, "label": "y"}, {"id": 3}]),
    ),
    # "2" (a string) is not 2 (an int64) under Go's ==: appended, and placed first since
    # it is not in the original.
    (
        "widget",
        "parts-string-id-is-new",
        widget(parts=[{"id": 1}, {"id": 2}]),
        {"spec": {"parts": [{"id": "2", "label": "z"}]}},
        widget(parts=[{"id": "2", "label": "z"}, {"id": 1}, {"id": 2}]),
    ),
    # a primitive merge list inside a keyed element.
    (
        "widget",
        "parts-nested-primitive-list",
        widget(parts=[{"id": 1, "aliases": ["p"]}]),
        {"spec": {"parts": [{"id": 1, "aliases": ["q"]}]}},
        widget(parts=[{"id": 1, "aliases": ["q", "p"]}]),
    ),
    # two levels of merge lists: members of group g merge by uid (u1 deleted, u2
    # updated), scopes of u2 merge as strings.
    (
        "widget",
        "groups-members-nested",
        widget(groups=[{"name": "g", "members": [{"uid": "u1", "role": "r"}, {"uid": "u2", "scopes": ["s1"]}]}]),
        {
            "spec": {
                "groups": [
                    {
                        "name": "g",
                        "members": [{"uid": "u2", "role": "x", "scopes": ["s2"]}, {"uid": "u1", "$patch": "delete"}],
                    }
                ]
            }
        },
        widget(groups=[{"name": "g", "members": [{"uid": "u2", "scopes": ["s2", "s1"], "role": "x"}]}]),
    ),
    # a new group is appended as sent, directives and nulls included
    # (mergeSliceWithoutSpecialElements appends the patch element itself).
    (
        "widget",
        "groups-new-element-as-sent",
        widget(groups=[{"name": "g"}]),
        {"spec": {"groups": [{"name": "h", "owner": None, "members": [{"uid": "u9", "$patch": "delete"}]}]}},
        widget(groups=[{"name": "h", "owner": None, "members": [{"uid": "u9", "$patch": "delete"}]}, {"name": "g"}]),
    ),
    # a list of lists without the merge strategy is replaced (mergeSliceHandler never
    # looks at the items).
    ("widget", "grid-replaced", widget(grid=[[1], [2]]), {"spec": {"grid": [[3]]}}, widget(grid=[[3]])),
    # a list of lists the document lacks is added as sent.
    ("widget", "matrix-added", widget(), {"spec": {"matrix": [[1, 2]]}}, widget(matrix=[[1, 2]])),
    # a merge list without merge key the document lacks is added as sent.
    ("widget", "steps-added", widget(), {"spec": {"steps": [{"run": "a"}]}}, widget(steps=[{"run": "a"}])),
    # $setElementOrder on a list keyed by integers.
    (
        "widget",
        "parts-set-order",
        widget(parts=[{"id": 1}, {"id": 2}, {"id": 3}]),
        {"spec": {"$setElementOrder/parts": [{"id": 3}, {"id": 1}, {"id": 2}]}},
        widget(parts=[{"id": 3}, {"id": 1}, {"id": 2}]),
    ),
    # deleteFromSlice on a primitive merge list other than finalizers.
    (
        "widget",
        "tags-delete-from-list",
        widget(tags=["a", "b", "c"]),
        {"spec": {"$deleteFromPrimitiveList/tags": ["b"]}},
        widget(tags=["a", "c"]),
    ),
    # retainKeys on a map field: applyRetainKeysDirective drops `fast`.
    (
        "gadget",
        "mode-retain-keys",
        gadget(mode={"type": "fast", "fast": {"threads": 2}}),
        {"spec": {"mode": {"$retainKeys": ["type", "safe"], "type": "safe", "safe": {"retries": 1}}}},
        gadget(mode={"type": "safe", "safe": {"retries": 1}}),
    ),
    # strategy replace on a map: mergeMapHandler returns the patch value untouched.
    (
        "gadget",
        "settings-replaced-as-sent",
        gadget(settings={"color": "r", "size": 1}),
        {"spec": {"settings": {"color": "b", "extras": None}}},
        gadget(settings={"color": "b", "extras": None}),
    ),
    # map of objects: a new entry is added without its nulls, null deletes an entry;
    # neither needs the metadata of the values.
    (
        "gadget",
        "slots-add-and-delete",
        gadget(slots={"s1": {"kind": "a"}}),
        {"spec": {"slots": {"s1": None, "s2": {"kind": "b", "capacity": None}}}},
        gadget(slots={"s2": {"kind": "b"}}),
    ),
    # an entry whose type changes is replaced without asking the metadata.
    (
        "gadget",
        "slots-type-change",
        gadget(slots={"s1": "legacy"}),
        {"spec": {"slots": {"s1": {"kind": "a"}}}},
        gadget(slots={"s1": {"kind": "a"}}),
    ),
    # a map of strings merges key by key.
    (
        "gadget",
        "env-map-of-strings",
        gadget(env={"A": "1", "B": "2"}),
        {"spec": {"env": {"A": None, "C": "3"}}},
        gadget(env={"B": "2", "C": "3"}),
    ),
    # below a field of arbitrary type: the lookup for `a` returns a nil schema, the one for
    # `b` a nil LookupPatchMeta; no lookup is made below `b`, so this merges.
    (
        "gadget",
        "blob-two-levels",
        gadget(blob={"a": {"b": {"c": 1}}}),
        {"spec": {"blob": {"a": {"b": {"d": 2}}}}},
        gadget(blob={"a": {"b": {"c": 1, "d": 2}}}),
    ),
    # lists below an arbitrary field have no strategy: replaced.
    (
        "gadget",
        "blob-list-replaced",
        gadget(blob={"l": [1, 2], "a": {"l": [3]}}),
        {"spec": {"blob": {"l": [9], "a": {"l": [8]}}}},
        gadget(blob={"l": [9], "a": {"l": [8]}}),
    ),
]


@pytest.mark.parametrize(
    ("schema", "original", "patch", "expected"),
    [pytest.param(schema, o, p, e, id=f"{schema}-{name}") for schema, name, o, p, e in NAMED_CASES],
)
def test_named_schema_apply(schema, original, patch, expected):
    before = copy.deepcopy((original, patch))
    assert run_named(schema, original, patch) == expected
    assert (original, patch) == before


NAMED_ERRORS = [
    # sliceElementType: int64 80 and float64 80.0 are different types.
    (
        "widget",
        "ports-int-and-float",
        widget(ports=[80, 443]),
        json.loads('{"spec": {"ports": [80.0]}}'),
        TypeMismatch,
        "/spec/ports",
        "list element types are not identical: [[80 443] [80]]",
    ),
    # sliceElementType: the first item is a list.
    (
        "widget",
        "matrix-list-of-lists",
        widget(matrix=[[1]]),
        {"spec": {"matrix": [[2]]}},
        ListOfLists,
        "/spec/matrix",
        "lists of lists are not supported",
    ),
    # mergeSlice: maps but no merge key; the name is the items' schema name.
    (
        "widget",
        "steps-without-merge-key",
        widget(steps=[{"run": "a"}]),
        {"spec": {"steps": [{"run": "b"}]}},
        MergeKeyMissing,
        "/spec/steps",
        "cannot merge lists without merge key for ",
    ),
    (
        "widget",
        "parts-missing-id",
        widget(parts=[{"id": 1}]),
        {"spec": {"parts": [{"label": "x"}]}},
        MergeKeyMissing,
        "/spec/parts/0",
        "map: map[label:x] does not contain declared merge key: id",
    ),
    (
        "widget",
        "members-missing-uid",
        widget(groups=[{"name": "g", "members": [{"uid": "u1"}]}]),
        {"spec": {"groups": [{"name": "g", "members": [{"role": "x"}]}]}},
        MergeKeyMissing,
        "/spec/groups/0/members/0",
        "map: map[role:x] does not contain declared merge key: uid",
    ),
    (
        "gadget",
        "mode-retain-keys-missing",
        gadget(mode={"type": "fast"}),
        {"spec": {"mode": {"$retainKeys": ["type"], "type": "safe", "safe": {"retries": 1}}}},
        RetainKeysViolation,
        "/spec/mode/safe",
        "invalid patch format of retainKeys",
    ),
    # PatchMetaFromOpenAPI: the schema of `slots` is a Map, and kindItem refuses to look
    # a key up in a Map, so two objects under one slot cannot be merged.
    (
        "gadget",
        "slots-merge-entry",
        gadget(slots={"s1": {"kind": "a"}}),
        {"spec": {"slots": {"s1": {"capacity": 2}}}},
        TypeMismatch,
        "/spec/slots/s1",
        "expected kind, but got map",
    ),
    # kindItem on a Kind without the field: FieldNotFoundError with the definition's path.
    (
        "gadget",
        "unknown-field",
        gadget(foo={"a": 1}),
        {"spec": {"foo": {"b": 2}}},
        NoStrategicSchema,
        "/spec/foo",
        'unable to find api field "foo" in GadgetSpec',
    ),
    # sliceItem on a Map field.
    (
        "gadget",
        "list-in-map-field",
        gadget(env=["a"]),
        {"spec": {"env": ["b"]}},
        TypeMismatch,
        "/spec/env",
        "expected slice, but got map",
    ),
    # sliceItem on a primitive field.
    (
        "gadget",
        "list-in-string-field",
        {"metadata": {"name": ["a"]}},
        {"metadata": {"name": ["b"]}},
        TypeMismatch,
        "/metadata/name",
        "expected slice, but got primitive",
    ),
    # kindItem on a primitive: maps nested under a string field.
    (
        "gadget",
        "map-in-string-field",
        {"metadata": {"name": {"a": {"x": 1}}}},
        {"metadata": {"name": {"a": {"y": 2}}}},
        TypeMismatch,
        "/metadata/name/a",
        "expected kind, but got primitive",
    ),
    # three levels below an arbitrary field: upstream calls a method on a nil
    # LookupPatchMeta and panics.
    (
        "gadget",
        "blob-three-levels-panics",
        gadget(blob={"a": {"b": {"c": {"x": 1}}}}),
        {"spec": {"blob": {"a": {"b": {"c": {"y": 2}}}}}},
        NoStrategicSchema,
        "/spec/blob/a/b/c",
        "runtime error: invalid memory address or nil pointer dereference",
    ),
]


@pytest.mark.parametrize(
    ("schema", "original", "patch", "error", "pointer", "message"),
    [pytest.param(*case[:1], *case[2:], id=f"{case[0]}-{case[1]}") for case in NAMED_ERRORS],
)
def test_named_schema_errors(schema, original, patch, error, pointer, message):
    with pytest.raises(error) as raised:
        run_named(schema, original, patch)
    assert raised.value.pointer == pointer
    assert raised.value.message.startswith(message)
