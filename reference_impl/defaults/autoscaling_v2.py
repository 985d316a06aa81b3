"""Defaulting of autoscaling/v2: HorizontalPodAutoscaler (minReplicas, metrics, behavior).

Go twin: k8s.io/kubernetes/pkg/apis/autoscaling/v2/defaults.go.
"""

from __future__ import annotations

from ..govalue.gotypes import GoStruct, is_empty, zero_struct
from .core_v1 import Defaulter
from .features import Release

AUTOSCALING = "io.k8s.api.autoscaling.v2."
DEFAULT_CPU_UTILIZATION = 80  # pkg/apis/autoscaling DefaultCPUUtilization


def _policy(kind: str, value: int, period_seconds: int) -> GoStruct:
    return {"type": kind, "value": value, "periodSeconds": period_seconds}


def _scale_up_rules() -> GoStruct:
    """defaultHPAScaleUpRules: no stabilization, the larger of 4 pods or 100% per 15s."""
    return {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
            "policies": [_policy("Pods", 4, 15), _policy("Percent", 100, 15)]}


def _scale_down_rules() -> GoStruct:
    """defaultHPAScaleDownRules: 100% per 15s; the window is left nil (a controller flag sets it)."""
    return {"stabilizationWindowSeconds": None, "selectPolicy": "Max", "policies": [_policy("Percent", 100, 15)]}


def _copy_scaling_rules(given: GoStruct | None, defaults: GoStruct, release: Release) -> GoStruct:
    """copyHPAScalingRules: the defaults with every non-nil field of ``given`` (from 1.33 tolerance too)."""
    rules = {**zero_struct(AUTOSCALING + "HPAScalingRules"), **defaults}
    if given is None:
        return rules
    for name in ("selectPolicy", "stabilizationWindowSeconds", "policies"):
        if given[name] is not None:
            rules[name] = given[name]
    if release >= (1, 33) and given.get("tolerance") is not None:
        rules["tolerance"] = given["tolerance"]
    return rules


def set_defaults_horizontal_pod_autoscaler_behavior(hpa: GoStruct, release: Release) -> None:
    """SetDefaults_HorizontalPodAutoscalerBehavior: a given behavior gets both rules filled in."""
    behavior = hpa["spec"]["behavior"]
    if behavior is not None:
        behavior["scaleUp"] = _copy_scaling_rules(behavior["scaleUp"], _scale_up_rules(), release)
        behavior["scaleDown"] = _copy_scaling_rules(behavior["scaleDown"], _scale_down_rules(), release)


def set_defaults_horizontal_pod_autoscaler(hpa: GoStruct, release: Release) -> None:
    """SetDefaults_HorizontalPodAutoscaler: minReplicas 1, a CPU utilization metric at 80% when no
    metric is given, then the behavior."""
    spec = hpa["spec"]
    if spec["minReplicas"] is None:
        spec["minReplicas"] = 1
    if is_empty(spec["metrics"]):
        metric = zero_struct(AUTOSCALING + "MetricSpec")
        metric["type"] = "Resource"
        metric["resource"] = zero_struct(AUTOSCALING + "ResourceMetricSource")
        metric["resource"]["name"] = "cpu"
        metric["resource"]["target"]["type"] = "Utilization"
        metric["resource"]["target"]["averageUtilization"] = DEFAULT_CPU_UTILIZATION
        spec["metrics"] = [metric]
    set_defaults_horizontal_pod_autoscaler_behavior(hpa, release)


DEFAULTERS: dict[str, Defaulter] = {
    AUTOSCALING + "HorizontalPodAutoscaler": set_defaults_horizontal_pod_autoscaler,
}
