"""Defaulting of policy/v1: none. PodDisruptionBudget and Eviction have no defaulting functions.

Go twin: k8s.io/kubernetes/pkg/apis/policy/v1/zz_generated.defaults.go, whose RegisterDefaults
registers nothing (there is no defaults.go).
"""

from __future__ import annotations

from .core_v1 import Defaulter

DEFAULTERS: dict[str, Defaulter] = {}
