"""Kubernetes' built-in models for server-side apply, one JSON file per minor version.

Each ``kubernetes-<minor>.json`` holds the OpenAPI v3 ``components.schemas`` of
k8s.io/kubernetes' ``api/openapi-spec/v3`` reduced to what schemaconv reads, and the kinds
they declare; :mod:`.regenerate` writes it.
"""
