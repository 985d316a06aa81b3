"""Feature gates a defaulting rule depends on, with each gate's default by release.

Go twin: k8s.io/kubernetes/pkg/features/versioned_kube_features.go (``defaultVersionedKubernetesFeatureGates``):
each gate lists the release from which a default (and maturity) holds. A kube-apiserver started
without ``--feature-gates`` uses those defaults, so a defaulting rule behind a gate follows the
gate's default in the release asked for. Rows copied from Kubernetes 1.32.4 and 1.33.13 and checked
against pkg/features/kube_features.go of 1.27.16 to 1.31.14 (DefaultHostNetworkHostPortsInPodTemplates
from 1.28.15).
"""

from __future__ import annotations

Release = tuple[int, int]

# gate -> ((first release, enabled by default), ...), oldest first
GATE_DEFAULTS: dict[str, tuple[tuple[Release, bool], ...]] = {
    "DefaultHostNetworkHostPortsInPodTemplates": (((1, 28), False),),  # deprecated, gone in 1.31
    "ImageVolume": (((1, 31), False), ((1, 33), False)),
    "InPlacePodVerticalScaling": (((1, 27), False), ((1, 33), True)),
    "JobPodReplacementPolicy": (((1, 28), False), ((1, 29), True)),
    "LoadBalancerIPMode": (((1, 29), False), ((1, 30), True), ((1, 32), True)),
    "MaxUnavailableStatefulSet": (((1, 24), False),),
    "PodLevelResources": (((1, 32), False),),
    "SELinuxMountReadWriteOncePod": (((1, 25), False), ((1, 27), False), ((1, 28), True)),
    "StatefulSetAutoDeletePVC": (((1, 23), False), ((1, 27), True), ((1, 32), True)),
}


def enabled(gate: str, release: Release) -> bool:
    """Whether ``gate`` is on by default in ``release`` (off before the gate existed)."""
    state = False
    for since, default in GATE_DEFAULTS[gate]:
        if release >= since:
            state = default
    return state
