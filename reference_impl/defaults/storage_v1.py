"""Defaulting of storage.k8s.io/v1: StorageClass and CSIDriver.

Go twin: k8s.io/kubernetes/pkg/apis/storage/v1/defaults.go.
"""

from __future__ import annotations

from ..govalue.gotypes import GoStruct, is_empty
from .core_v1 import Defaulter
from .features import Release, enabled

STORAGE = "io.k8s.api.storage.v1."


def set_defaults_storage_class(storage_class: GoStruct, release: Release) -> None:
    """SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate."""
    if storage_class["reclaimPolicy"] is None:
        storage_class["reclaimPolicy"] = "Delete"
    if storage_class["volumeBindingMode"] is None:
        storage_class["volumeBindingMode"] = "Immediate"


def set_defaults_csi_driver(driver: GoStruct, release: Release) -> None:
    """SetDefaults_CSIDriver: attachRequired true, podInfoOnMount, storageCapacity and
    requiresRepublish false, fsGroupPolicy ReadWriteOnceWithFSType, volumeLifecycleModes
    [Persistent], seLinuxMount false (behind SELinuxMountReadWriteOncePod), from 1.36
    preventPodSchedulingIfMissing false (behind VolumeLimitScaling, on by default from 1.37).

    The Go model (go-types.json, k8s.io/api 0.32) has no preventPodSchedulingIfMissing: until it
    is regenerated from k8s.io/api 0.36 or later, decoding drops the field and that rule has
    nothing to default."""
    spec = driver["spec"]
    for name, default in (("attachRequired", True), ("podInfoOnMount", False), ("storageCapacity", False),
                          ("fsGroupPolicy", "ReadWriteOnceWithFSType")):
        if spec[name] is None:
            spec[name] = default
    if is_empty(spec["volumeLifecycleModes"]):
        spec["volumeLifecycleModes"] = [*(spec["volumeLifecycleModes"] or []), "Persistent"]
    if spec["requiresRepublish"] is None:
        spec["requiresRepublish"] = False
    if spec["seLinuxMount"] is None and enabled("SELinuxMountReadWriteOncePod", release):
        spec["seLinuxMount"] = False
    prevent = "preventPodSchedulingIfMissing"
    if prevent in spec and spec[prevent] is None and release >= (1, 36) and enabled("VolumeLimitScaling", release):
        spec[prevent] = False


DEFAULTERS: dict[str, Defaulter] = {
    STORAGE + "StorageClass": set_defaults_storage_class,
    STORAGE + "CSIDriver": set_defaults_csi_driver,
}
