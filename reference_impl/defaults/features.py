"""Feature gates a defaulting rule depends on, with each gate's default by release.

Go twin: k8s.io/kubernetes/pkg/features/kube_features.go (``defaultVersionedKubernetesFeatureGates``):
each gate lists the release from which a default (and maturity) holds. A kube-apiserver started
without ``--feature-gates`` uses those defaults, so a defaulting rule behind a gate follows the
gate's default in the release asked for. Rows copied from Kubernetes 1.32.4, 1.33.13, 1.34.4,
1.35.4, 1.36.3 and 1.37.2 and checked against pkg/features/kube_features.go of 1.27.16 to 1.31.14
(DefaultHostNetworkHostPortsInPodTemplates from 1.28.15). A gate removed from Kubernetes (GA and
locked on before) is removed from the rule too: the group modules drop the gate from that
release on, so the rows here stop at the last release that has the gate.
"""

from __future__ import annotations

Release = tuple[int, int]

# gate -> ((first release, enabled by default), ...), oldest first
GATE_DEFAULTS: dict[str, tuple[tuple[Release, bool], ...]] = {
    "DefaultHostNetworkHostPortsInPodTemplates": (((1, 28), False),),  # deprecated, gone in 1.31
    "H2CContainerProbe": (((1, 37), False),),
    "ImageVolume": (((1, 31), False), ((1, 33), False), ((1, 35), True), ((1, 36), True)),  # GA, locked, in 1.36
    "InPlacePodVerticalScaling": (((1, 27), False), ((1, 33), True), ((1, 35), True)),  # GA, locked, in 1.35
    "JobPodReplacementPolicy": (((1, 28), False), ((1, 29), True), ((1, 34), True)),  # GA 1.34, gone in 1.37
    "LoadBalancerIPMode": (((1, 29), False), ((1, 30), True), ((1, 32), True)),  # GA 1.32, gone in 1.35
    "MaxUnavailableStatefulSet": (((1, 24), False), ((1, 35), False), ((1, 37), True)),  # beta, on in 1.37
    "PodLevelResources": (((1, 32), False), ((1, 34), True)),
    "PodLevelResourcesFixDefaulting": (((1, 37), True),),
    "SELinuxMountReadWriteOncePod": (((1, 25), False), ((1, 27), False), ((1, 28), True), ((1, 36), True)),
    "StatefulSetAutoDeletePVC": (((1, 23), False), ((1, 27), True), ((1, 32), True)),  # GA 1.32, gone in 1.35
    "VolumeLimitScaling": (((1, 35), False), ((1, 37), True)),
}


def enabled(gate: str, release: Release) -> bool:
    """Whether ``gate`` is on by default in ``release`` (off before the gate existed)."""
    state = False
    for since, default in GATE_DEFAULTS[gate]:
        if release >= since:
            state = default
    return state
