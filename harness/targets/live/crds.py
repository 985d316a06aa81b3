"""The run's CustomResourceDefinitions: custom kinds are served by a CRD of the run, schemaless or with
the structural schema built from a case's named schema."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ....reference_impl.kubernetes_object import is_custom_group
from ...controlplane.live_cluster import CRD_GROUP_SUFFIX, RUN_LABEL, Resource
from ...corpus.cases import named_schema_path
from ...corpus.yamlio import load_path
from .placement import HOST_GROUP, HOST_KIND, dns_label
from .responses import full_message

# cluster-scoped kinds whose objects change nothing on their own (a ClusterRole grants nothing unbound)
INERT_CLUSTER_KINDS = ("Namespace", "ClusterRole")
# ... and kinds controllers act on: created only where none run
CONTROLLED_CLUSTER_KINDS = ("Node", "PersistentVolume")
# what making and removing the run's CRDs takes (cleanup lists them by label, waits for each to go)
CRD_VERBS = ("create", "get", "list", "delete")


class RunCRDs:
    def _resource(self, api_version: str, kind: str, named: str | None = None) -> Resource | str:
        """Where the kind lives (creating the run's CRD for a custom kind), or why it cannot run.

        ``named``: the case's named schema, which the CRD then carries (server-side apply).
        """
        resource = self.cluster.resource_for(api_version, kind)
        if resource is not None:
            if not resource.namespaced:
                problem = self._cluster_scoped_problem(kind)
                if problem:
                    return problem
            if named:
                return f"the server's own {api_version} {kind} cannot take named schema {named!r}"
            return resource
        group, _, version = api_version.rpartition("/")
        if not is_custom_group(group):
            return f"{api_version} {kind} is not served by this server"
        return self._custom_resource(group, version, kind, named)

    def _cluster_scoped_problem(self, kind: str) -> str | None:
        """Why the run may not create a cluster-scoped object of this kind for a case (None: it may)."""
        if self.shared_namespace:
            return (f"{kind} is cluster-scoped, and a run in an existing namespace (--namespace) creates nothing "
                    "outside it")
        if kind in INERT_CLUSTER_KINDS:
            return None
        if kind in CONTROLLED_CLUSTER_KINDS:
            if self.own_control_plane:
                return None
            return (f"{kind} is cluster-scoped and a cluster's controllers act on it (a Node is scheduled to, a "
                    "PersistentVolume bound to claims); the live target creates one only on patchconf's own "
                    "control plane (patchconf apiserver), which runs no controllers")
        return (f"{kind} is cluster-scoped and changes what the server serves or admits; the live target creates "
                f"only namespaced objects, {', '.join(INERT_CLUSTER_KINDS)} (and its own CRDs)")

    def _custom_resource(self, group: str, version: str, kind: str, named: str | None) -> Resource | str:
        key = (group, version, kind, named)
        with self._lock:
            known = self._crds.get(key)
            if known is None:
                refusal = self._crd_permission()
                if refusal:
                    hosting = (group, kind) == (HOST_GROUP, HOST_KIND)
                    served = ("a plain JSON document is held in a custom resource" if hosting
                              else f"{group}/{version} {kind} is a custom kind")
                    return f"{served}, served by a CRD of the run: {refusal}"
                known = self._crds[key] = self._create_crd(group, version, kind, named)
        return known

    def _crd_permission(self) -> str | None:
        """Why this account may not make (and remove) the run's CRDs, asked once up front with
        SelfSubjectAccessReviews; None when it may, or when the server cannot say (a refused
        create then gives the reason)."""
        if not self._crd_permission_asked:
            denied = [verb for verb in CRD_VERBS
                      if self.cluster.may(verb, "apiextensions.k8s.io", "customresourcedefinitions") is False]
            if denied:
                self._crd_refusal = (f"this account may not {', '.join(denied)} customresourcedefinitions "
                                     "(cluster-scoped; the README's ClusterRole patchconf-live-crds grants it)")
            self._crd_permission_asked = True
        return self._crd_refusal

    def _create_crd(self, group: str, version: str, kind: str, named: str | None) -> Resource | str:
        """A CRD of the run serving the kind: schemaless, or with the structural schema built from
        ``named`` (and a status subresource when that schema has ``status``, a scale subresource
        when it declares ``scale``)."""
        label = dns_label(group.replace(".", "-"))
        if named:  # one CRD per schema: the same kind may also run schemaless
            label = f"{label}-{dns_label(named)}"[:63].rstrip("-")
        run_group = f"{label}.{self.run_id}.{CRD_GROUP_SUFFIX}"
        plural = kind.lower() + "s"
        served: dict[str, Any] = {"name": version, "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
        if named:
            path = named_schema_path(named)
            if path is None:
                return f"no named schema {named!r} in cases/schemas"
            document = load_path(path)
            try:
                served["schema"]["openAPIV3Schema"] = crd_schema(document)
            except ValueError as exc:
                return f"named schema {named!r} has no CRD form: {exc}"
            if "status" in served["schema"]["openAPIV3Schema"].get("properties", {}):
                served["subresources"] = {"status": {}}
            if isinstance(document.get("scale"), dict):  # the schema's scale subresource, as a CRD states it
                served.setdefault("subresources", {})["scale"] = dict(document["scale"])
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{run_group}", "labels": {RUN_LABEL: self.run_id}},
            "spec": {
                "group": run_group,
                "scope": "Namespaced",
                "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
                "versions": [served],
            },
        }
        answer = self.cluster.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd,
                                      query={"fieldValidation": "Strict"})
        if not answer.ok:
            schema = f" (named schema {named!r})" if named else ""
            return (f"cannot create a CRD for {group}/{version} {kind}{schema}: {answer.status} "
                    f"{full_message(answer)[:500]}")
        for _ in range(100):
            resource = self.cluster.resources(f"{run_group}/{version}", refresh=True).get(kind)
            if resource is not None:
                return resource
            self._stopping.wait(0.1)
        return f"the CRD for {group}/{version} {kind} did not become served"


# --- a CRD schema from a named schema -----------------------------------------------------------

# OpenAPI v2 keywords a CRD's structural schema takes as they are
CRD_KEYWORDS = ("type", "format", "enum", "default", "nullable", "required", "minimum", "maximum",
                "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "minItems",
                "maxItems", "minProperties", "maxProperties", "x-kubernetes-list-type",
                "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-preserve-unknown-fields",
                "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource")


def crd_schema(named: Mapping[str, Any]) -> dict[str, Any]:
    """A CRD's structural openAPIV3Schema for a named schema (OpenAPI v2 ``definitions`` + ``root``),
    typed for the server's field manager as Kubernetes types its own OpenAPI:

    - ``$ref``s are inlined (a recursive definition has no CRD form: ValueError);
    - ``x-kubernetes-list-type``/``-list-map-keys``/``-map-type`` are kept; a list with neither but
      ``x-kubernetes-patch-strategy: merge`` becomes ``map`` keyed by its merge key, or ``set``
      without one (kube-openapi's schemaconv reads patch strategies so); patch strategies go;
    - a list-map key neither required nor defaulted is made required (a CRD demands it);
    - a value of no type is any JSON value, an object without properties any object
      (``x-kubernetes-preserve-unknown-fields``);
    - ``metadata`` is the server's own ObjectMeta (a CRD may not describe it).
    """
    definitions = named.get("definitions") or {}
    root = definitions.get(named.get("root")) if isinstance(named.get("root"), str) else None
    if not isinstance(root, dict):
        raise ValueError(f"no root definition {named.get('root')!r}")
    schema = _structural(root, definitions, ())
    schema["type"] = "object"
    properties = schema.setdefault("properties", {})
    properties["metadata"] = {"type": "object"}
    return schema


def _structural(node: Mapping[str, Any], definitions: Mapping[str, Any], seen: tuple[str, ...]) -> dict[str, Any]:
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        if name in seen:
            raise ValueError(f"definition {name!r} contains itself; a CRD schema cannot recurse")
        target = definitions.get(name)
        if not isinstance(target, dict):
            raise ValueError(f"$ref to an unknown definition {name!r}")
        # extensions beside a $ref (a patch strategy) apply to the referenced schema
        merged = {**target, **{key: value for key, value in node.items() if key != "$ref"}}
        return _structural(merged, definitions, (*seen, name))
    schema: dict[str, Any] = {key: copy.deepcopy(node[key]) for key in CRD_KEYWORDS if key in node}
    if isinstance(node.get("properties"), dict):
        schema["properties"] = {key: _structural(value, definitions, seen) for key, value in node["properties"].items()}
    if isinstance(node.get("additionalProperties"), dict):
        schema["additionalProperties"] = _structural(node["additionalProperties"], definitions, seen)
    elif node.get("additionalProperties") is True:
        schema["x-kubernetes-preserve-unknown-fields"] = True
    if isinstance(node.get("items"), dict):
        schema["items"] = _structural(node["items"], definitions, seen)
    if "type" not in schema:
        if "properties" in schema or "additionalProperties" in schema:
            schema["type"] = "object"
        elif "items" in schema:
            schema["type"] = "array"
        elif not schema.get("x-kubernetes-int-or-string"):
            schema["x-kubernetes-preserve-unknown-fields"] = True
    if schema.get("type") == "object" and "properties" not in schema and "additionalProperties" not in schema:
        schema["x-kubernetes-preserve-unknown-fields"] = True
    if schema.get("type") == "array":
        _list_type_from_patch_strategy(node, schema)
    return schema


def _list_type_from_patch_strategy(node: Mapping[str, Any], schema: dict[str, Any]) -> None:
    if "x-kubernetes-list-type" not in schema:
        strategy, key = node.get("x-kubernetes-patch-strategy"), node.get("x-kubernetes-patch-merge-key")
        # metadata that is no string (a bent schema's) says nothing a CRD can hold: the list stays atomic
        strategy = strategy.split(",") if isinstance(strategy, str) and isinstance(key, (str, type(None))) else []
        if "merge" in strategy:
            schema["x-kubernetes-list-type"] = "map" if key else "set"
            if key:
                schema["x-kubernetes-list-map-keys"] = [key]
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(schema.get("items"), dict):
        return
    items = schema["items"]
    required = items.setdefault("required", [])
    for key in schema.get("x-kubernetes-list-map-keys") or ():
        declared = (items.get("properties") or {}).get(key) or {}
        if key not in required and "default" not in declared:
            required.append(key)
