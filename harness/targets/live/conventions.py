"""What the live target relies on about a server: the requests it makes, what the server owns."""

from __future__ import annotations

from ....reference_impl.patch_types import PATCH_TYPES, names_where

DEFAULT_WORKERS = 8
UNREACHABLE_LIMIT = 3
LIVE_TYPES = names_where(lambda patch_type: patch_type.on_a_server)
# types whose outcome depends on a schema, other than server-side apply (JSON patch and merge patch need none)
SCHEMA_TYPES = names_where(lambda patch_type: patch_type.on_a_server and not patch_type.rfc) - {"server-side-apply"}
CONTENT_TYPES = {name: patch_type.content_type for name, patch_type in PATCH_TYPES.items() if patch_type.content_type}
SETUP_MANAGER = "patchconf-setup"
SERVER_OWNED_METADATA = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
                         "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds")
IDENTITY_POINTERS = ("/apiVersion", "/kind", "/metadata/name", "/metadata/namespace", "/metadata")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# annotations the server (not the client) maintains, dropped in cases not written for live
SERVER_ANNOTATIONS = ("deprecated.daemonset.template.generation", "deployment.kubernetes.io/revision")
# Objects are created strictly: a server never stores unknown fields of a built-in kind, so a
# case whose original (or expected object) has them is not one a server can hold.
CREATE_QUERY = {"fieldManager": "patchconf-setup", "fieldValidation": "Strict"}
# Values the server allocates or derives from the object's uid or name: never equal between
# the live object and a dry-run of the expectation, so dropped unless the case states them.
ALLOCATED = {
    "Service": (("spec", "clusterIP"), ("spec", "clusterIPs"), ("spec", "healthCheckNodePort")),
    "Job": (("spec", "selector"),),
}
# Errors of jsonpatch's Patch.Apply: the server answers all of them with a bare 422.
JSON_PATCH_APPLY_CLASSES = ("path-not-found", "invalid-index", "test-failed", "invalid-patch", "type-mismatch")
GENERATED_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name")
# What admission plugins add to an object only when it is created (StorageObjectInUseProtection,
# TaintNodesByCondition): on a case's original they are the server's, not the patch's, and a dry-run
# create of the expectation adds them whatever the patch did; compared only where a case states them.
CREATED_BY_ADMISSION = {
    "PersistentVolumeClaim": (("metadata", "finalizers"), "kubernetes.io/pvc-protection"),
    "PersistentVolume": (("metadata", "finalizers"), "kubernetes.io/pv-protection"),
    "Node": (("spec", "taints"), {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}),
}
# the label a server keeps on every Namespace, naming it
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
