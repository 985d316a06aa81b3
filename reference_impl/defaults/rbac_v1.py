"""Defaulting of rbac.authorization.k8s.io/v1: bindings' roleRef and subjects' apiGroup.

Go twin: k8s.io/kubernetes/pkg/apis/rbac/v1/defaults.go. Role and ClusterRole have no defaults.
"""

from __future__ import annotations

from ..govalue.gotypes import GoStruct
from .core_v1 import Defaulter
from .features import Release

RBAC = "io.k8s.api.rbac.v1."
GROUP_NAME = "rbac.authorization.k8s.io"


def set_defaults_cluster_role_binding(binding: GoStruct, release: Release) -> None:
    """SetDefaults_ClusterRoleBinding: roleRef.apiGroup rbac.authorization.k8s.io."""
    if binding["roleRef"]["apiGroup"] == "":
        binding["roleRef"]["apiGroup"] = GROUP_NAME


def set_defaults_role_binding(binding: GoStruct, release: Release) -> None:
    """SetDefaults_RoleBinding: roleRef.apiGroup rbac.authorization.k8s.io."""
    if binding["roleRef"]["apiGroup"] == "":
        binding["roleRef"]["apiGroup"] = GROUP_NAME


def set_defaults_subject(subject: GoStruct, release: Release) -> None:
    """SetDefaults_Subject: apiGroup rbac.authorization.k8s.io for a User or Group ("" for a ServiceAccount)."""
    if subject["apiGroup"] == "" and subject["kind"] in ("User", "Group"):
        subject["apiGroup"] = GROUP_NAME


DEFAULTERS: dict[str, Defaulter] = {
    RBAC + "ClusterRoleBinding": set_defaults_cluster_role_binding,
    RBAC + "RoleBinding": set_defaults_role_binding,
    RBAC + "Subject": set_defaults_subject,
}
