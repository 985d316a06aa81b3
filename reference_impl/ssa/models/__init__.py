"""Kubernetes' built-in models for server-side apply, one JSON file per minor version.

Each ``kubernetes-<minor>.json`` holds the OpenAPI v3 ``components.schemas`` of
k8s.io/kubernetes' ``api/openapi-spec/v3`` reduced to what schemaconv reads, and the kinds
they declare; :mod:`.regenerate` writes it. ``go-types.json`` holds what the models do not
say, the Go shape of the built-in kinds' fields (omitempty, pointer, struct...), which
:mod:`patchconf.reference_impl.ssa.gotypes` reads; ``regenerate --go-types`` writes it.
"""
