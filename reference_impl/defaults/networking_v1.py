"""Defaulting of networking/v1: NetworkPolicy and IngressClass (Ingress has no defaults).

Go twin: k8s.io/kubernetes/pkg/apis/networking/v1/defaults.go.
"""

from __future__ import annotations

from ..govalue.gotypes import GoStruct, is_empty
from .core_v1 import Defaulter
from .features import Release

NETWORKING = "io.k8s.api.networking.v1."


def set_defaults_network_policy_port(port: GoStruct, release: Release) -> None:
    """SetDefaults_NetworkPolicyPort: protocol TCP."""
    if port["protocol"] is None:
        port["protocol"] = "TCP"


def set_defaults_network_policy(policy: GoStruct, release: Release) -> None:
    """SetDefaults_NetworkPolicy: policyTypes [Ingress], and Egress too when egress rules are given."""
    spec = policy["spec"]
    if is_empty(spec["policyTypes"]):
        spec["policyTypes"] = ["Ingress"] + (["Egress"] if not is_empty(spec["egress"]) else [])


def set_defaults_ingress_class(ingress_class: GoStruct, release: Release) -> None:
    """SetDefaults_IngressClass: a parameters reference's scope Cluster."""
    parameters = ingress_class["spec"]["parameters"]
    if parameters is not None and parameters["scope"] is None:
        parameters["scope"] = "Cluster"


DEFAULTERS: dict[str, Defaulter] = {
    NETWORKING + "NetworkPolicyPort": set_defaults_network_policy_port,
    NETWORKING + "NetworkPolicy": set_defaults_network_policy,
    NETWORKING + "IngressClass": set_defaults_ingress_class,
}
