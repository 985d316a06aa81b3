"""A Pod's quality-of-service class, as the apiserver writes it into a created Pod's status.

Go twin: k8s.io/kubernetes pkg/apis/core/helper/qos/qos.go (``GetPodQOS``, ``ComputePodQOS``),
without pod-level resources (the PodLevelResources feature is off by default in 1.32 and 1.33).
Containers and init containers count; ephemeral containers cannot state resources.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..defaults.quantity import QuantityError, parse

QOS_RESOURCES = ("cpu", "memory")


def pod_qos_class(pod: dict[str, Any]) -> str:
    """GetPodQOS: the class the Pod's status states, else the one its containers' resources give."""
    stated = (pod.get("status") or {}).get("qosClass")
    return stated if isinstance(stated, str) and stated else compute_pod_qos(pod)


def compute_pod_qos(pod: dict[str, Any]) -> str:
    spec = pod.get("spec") or {}
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for container in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]:
        resources = (container or {}).get("resources") or {}
        _add_positive(requests, resources.get("requests"))
        found = _add_positive(limits, resources.get("limits"))
        if not set(QOS_RESOURCES) <= found:
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(name) == value for name, value in requests.items()) \
            and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def _add_positive(totals: dict[str, Fraction], resources: Any) -> set[str]:
    """processResourceList: adds each positive cpu or memory quantity; the names it added."""
    added = set()
    for name, text in (resources or {}).items():
        if name not in QOS_RESOURCES:
            continue
        try:
            value = parse(text).value
        except QuantityError:
            continue  # the decoder refuses such a Pod before this is asked
        if value > 0:
            totals[name] = totals.get(name, Fraction(0)) + value
            added.add(name)
    return added
