"""Defaulting of apps/v1: Deployment, DaemonSet, StatefulSet, ReplicaSet.

Go twin: k8s.io/kubernetes/pkg/apis/apps/v1/defaults.go. The pod template inside each is
defaulted by core/v1's PodSpec, Container... defaulters, reached by the walk (generated.py) as
apps/v1 zz_generated.defaults.go reaches them; a template gets no SetDefaults_Pod.
"""

from __future__ import annotations

from ..govalue.gotypes import GoStruct, is_empty, zero_struct
from .core_v1 import Defaulter
from .features import Release, enabled

APPS = "io.k8s.api.apps.v1."
DEFAULT_REVISION_HISTORY_LIMIT = 10


def set_defaults_deployment(deployment: GoStruct, release: Release) -> None:
    """SetDefaults_Deployment: replicas 1, strategy RollingUpdate with maxUnavailable and maxSurge
    25%, revisionHistoryLimit 10, progressDeadlineSeconds 600."""
    spec = deployment["spec"]
    if spec["replicas"] is None:
        spec["replicas"] = 1
    strategy = spec["strategy"]
    if strategy["type"] == "":
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        if strategy["rollingUpdate"] is None:
            strategy["rollingUpdate"] = zero_struct(APPS + "RollingUpdateDeployment")
        for name in ("maxUnavailable", "maxSurge"):
            if strategy["rollingUpdate"][name] is None:
                strategy["rollingUpdate"][name] = "25%"
    if spec["revisionHistoryLimit"] is None:
        spec["revisionHistoryLimit"] = DEFAULT_REVISION_HISTORY_LIMIT
    if spec["progressDeadlineSeconds"] is None:
        spec["progressDeadlineSeconds"] = 600


def set_defaults_daemon_set(daemon_set: GoStruct, release: Release) -> None:
    """SetDefaults_DaemonSet: updateStrategy RollingUpdate with maxUnavailable 1 and maxSurge 0,
    revisionHistoryLimit 10."""
    spec = daemon_set["spec"]
    strategy = spec["updateStrategy"]
    if strategy["type"] == "":
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        if strategy["rollingUpdate"] is None:
            strategy["rollingUpdate"] = zero_struct(APPS + "RollingUpdateDaemonSet")
        if strategy["rollingUpdate"]["maxUnavailable"] is None:
            strategy["rollingUpdate"]["maxUnavailable"] = 1
        if strategy["rollingUpdate"]["maxSurge"] is None:
            strategy["rollingUpdate"]["maxSurge"] = 0
    if spec["revisionHistoryLimit"] is None:
        spec["revisionHistoryLimit"] = DEFAULT_REVISION_HISTORY_LIMIT


def set_defaults_stateful_set(stateful_set: GoStruct, release: Release) -> None:
    """SetDefaults_StatefulSet: podManagementPolicy OrderedReady, updateStrategy RollingUpdate with
    partition 0 and maxUnavailable 1 (behind MaxUnavailableStatefulSet: on by default from 1.37),
    the PVC retention policy Retain/Retain (behind StatefulSetAutoDeletePVC until 1.34, ungated
    from 1.35), replicas 1, revisionHistoryLimit 10."""
    spec = stateful_set["spec"]
    if is_empty(spec["podManagementPolicy"]):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec["updateStrategy"]
    if strategy["type"] == "":
        strategy["type"] = "RollingUpdate"
        if strategy["rollingUpdate"] is None:
            strategy["rollingUpdate"] = zero_struct(APPS + "RollingUpdateStatefulSetStrategy")
    if strategy["type"] == "RollingUpdate" and strategy["rollingUpdate"] is not None:
        if strategy["rollingUpdate"]["partition"] is None:
            strategy["rollingUpdate"]["partition"] = 0
        if enabled("MaxUnavailableStatefulSet", release) and strategy["rollingUpdate"]["maxUnavailable"] is None:
            strategy["rollingUpdate"]["maxUnavailable"] = 1
    if release >= (1, 35) or enabled("StatefulSetAutoDeletePVC", release):
        if spec["persistentVolumeClaimRetentionPolicy"] is None:
            spec["persistentVolumeClaimRetentionPolicy"] = zero_struct(
                APPS + "StatefulSetPersistentVolumeClaimRetentionPolicy")
        policy = spec["persistentVolumeClaimRetentionPolicy"]
        for name in ("whenDeleted", "whenScaled"):
            if is_empty(policy[name]):
                policy[name] = "Retain"
    if spec["replicas"] is None:
        spec["replicas"] = 1
    if spec["revisionHistoryLimit"] is None:
        spec["revisionHistoryLimit"] = DEFAULT_REVISION_HISTORY_LIMIT


def set_defaults_replica_set(replica_set: GoStruct, release: Release) -> None:
    """SetDefaults_ReplicaSet: replicas 1."""
    if replica_set["spec"]["replicas"] is None:
        replica_set["spec"]["replicas"] = 1


DEFAULTERS: dict[str, Defaulter] = {
    APPS + "Deployment": set_defaults_deployment,
    APPS + "DaemonSet": set_defaults_daemon_set,
    APPS + "StatefulSet": set_defaults_stateful_set,
    APPS + "ReplicaSet": set_defaults_replica_set,
}
