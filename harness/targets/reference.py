"""The bundled pure-Python reference implementation as a target.

It runs the patch libraries' semantics (``patchconf.reference_impl.json_patch``, ``merge_patch``,
``strategic``) inside the pipeline Kubernetes puts around them
(:mod:`patchconf.reference_impl.kubernetes_object`): a Kubernetes object is read into Go's JSON
model before patching and read back as an object afterwards. Bare JSON documents are
patched as they are, except that numbers come out as Go writes them.

A case's inputs reach the implementation uncopied: it changes none of its arguments (its
promise to every caller, checked on every corpus case by tests/test_corpus.py); copying them
cost 1% of a corpus run.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

from ...reference_impl import json_patch, kubernetes_object, merge_patch
from ...reference_impl.errors import NoStrategicSchema, PatchError
from ...reference_impl.govalue import encoding_json, goyaml, utiljson
from ...reference_impl.object_meta import check_readable_metadata
from ...reference_impl.patch_types import patch_type
from ...reference_impl.releases import CORPUS_RELEASE, LIVE_RELEASE
from .. import patchconf_version
from ..corpus.cases import Case, Outcome, SchemaRef, named_schema_path
from .base import KUBERNETES, MODES, Actual, ActualError, Target, TargetInfo, TargetUnavailable

MAX_WORKERS = 4  # processes; more convert the same schemas again for little gain


class ReferenceTarget(Target):
    name = "reference"
    forks = True

    def __init__(self, kubernetes_version: str = CORPUS_RELEASE) -> None:
        if not re.fullmatch(r"1\.[0-9]+", kubernetes_version):
            raise TargetUnavailable(f"reference:{kubernetes_version}: give a Kubernetes minor release such as 1.34")
        self.kubernetes_version = kubernetes_version
        self.workers = min(os.cpu_count() or 1, MAX_WORKERS)
        # A case's schemas, found once per schema it names: finding them again resolved and stat-ed the
        # named schema files for every case (the schemas themselves are cached where they are read).
        self._metas: dict[Any, Any] = {}
        self._ssa_schemas: dict[Any, Any] = {}
        self._runner_by_type = self._runners()
        if kubernetes_version != CORPUS_RELEASE:
            self.name = f"reference:{kubernetes_version}"
        self.info = TargetInfo(
            family="reference",
            category=KUBERNETES,
            version=patchconf_version(),
            patch_types=frozenset(self._runner_by_type),
            messages=True,
            description=f"patchconf reference_impl (Kubernetes {kubernetes_version}: its strategic merge schemas and "
                        "server-side apply rules)",
            kubernetes_version=kubernetes_version,
            modes=MODES,
        )

    def _runners(self) -> dict:
        runners = {
            "json-patch": self._json_patch,
            "merge-patch": self._merge_patch,
            "merge-patch-2way": self._merge_patch_2way,
            "merge-patch-3way": self._merge_patch_3way,
        }
        try:
            from ...reference_impl import strategic  # noqa: F401
        except ImportError:
            return runners
        runners["strategic"] = self._strategic
        runners["strategic-2way"] = self._strategic_2way
        runners["strategic-3way"] = self._strategic_3way
        runners["apply"] = self._apply
        runners["server-side-apply"] = self._server_side_apply
        return runners

    def run(self, case: Case) -> Actual:
        if _written_for_a_server(case):
            return self._as_a_server_stores_it(case)
        original = case.inputs.get("original")
        try:
            # kubectl patch --local -f reads the object it patches from a file
            if patch_type(case.type).patch_request and kubernetes_object.is_object(original):
                check_readable_metadata(original)  # kubectl patch --local -f reads it with cli-runtime
            result = self._runner_by_type[case.type](case)
            if isinstance(result, Actual):
                return result
            if kubernetes_object.is_object(original):
                result = kubernetes_object.read_back(result)
            else:
                result = utiljson.through_go_json(result)
            return Actual(document=result)
        except PatchError as exc:
            return Actual(error=ActualError(exc.error_class, exc.message), notes=_pointer_note(exc))

    def _as_a_server_stores_it(self, case: Case) -> Actual:
        """The patch as an apiserver runs it: ``original`` stored (decoded into its Go type and
        defaulted), the patch applied to it, the result decoded and defaulted again and stored."""
        from ...reference_impl.ssa import apiserver

        original = case.inputs["original"]
        api_version, kind = str(original.get("apiVersion", "")), str(original.get("kind", ""))
        custom = kubernetes_object.is_custom_group(api_version.rpartition("/")[0])
        schema, patch_meta = self._ssa_schema(case, api_version, kind, custom)
        patch = case.inputs["patch"]
        if case.type == "json-patch":
            patch = goyaml.through_yaml(patch)
        step = {"op": "patch", "manager": apiserver.DEFAULT_MANAGER, "patch_type": case.type, "patch": patch}
        (answer,) = apiserver.run_case(schema, api_version, kind, original, [step], patch_meta=patch_meta,
                                       custom_resource=custom, kubernetes_version=self.kubernetes_version)
        if "error" in answer:
            return Actual(error=ActualError(answer["error"]["class"], answer["error"]["message"]))
        return Actual(document=answer["document"])  # without the metadata the server owns

    def rendered(self, case: Case, outcome: Outcome) -> Outcome:
        """A case written for a server states the values it asserts; the rest of the stored object
        is what storage makes of it: the expectation is judged decoded and defaulted, as the live
        target judges it rendered by a dry-run create."""
        if not _written_for_a_server(case) or not isinstance(outcome.document, dict):
            return outcome
        from ...reference_impl.ssa import apiserver, codec, request

        document = outcome.document
        api_version, kind = str(document.get("apiVersion", "")), str(document.get("kind", ""))
        stored = codec.decode(document, api_version, kind, apiserver.release_of(self.kubernetes_version))
        return Outcome(document=request.shown(stored), patch=outcome.patch, error=outcome.error)

    def _json_patch(self, case: Case):
        patch = goyaml.through_yaml(case.inputs["patch"])
        return json_patch.apply(self._original(case), patch)

    def _merge_patch(self, case: Case):
        return merge_patch.apply(self._original(case), case.inputs["patch"])

    def _strategic(self, case: Case):
        from ...reference_impl import strategic

        original = case.inputs["original"]
        # kubectl writes an object out again before patching it (30.0 becomes 30); a bare
        # document reaches the library as it is written.
        document = self._original(case) if kubernetes_object.is_object(original) else \
            utiljson.as_decoded(original)
        return strategic.apply(document, case.inputs["patch"], self._meta(case))

    def _merge_patch_2way(self, case: Case) -> Actual:
        # CreateMergePatch decodes both documents with encoding/json: every number a float64.
        patch = merge_patch.create(case.inputs["original"], case.inputs["modified"])
        return Actual(patch=encoding_json.through_float64(patch))

    def _merge_patch_3way(self, case: Case) -> Actual:
        inputs = case.inputs
        patch = merge_patch.create_three_way(inputs["original"], inputs["modified"], inputs["current"])
        return Actual(patch=encoding_json.through_float64(patch))

    def _strategic_2way(self, case: Case) -> Actual:
        from ...reference_impl.strategic import create

        meta = self._meta(case)
        original = case.inputs["original"]
        patch = create.create_two_way(original, case.inputs["modified"], meta, create.KUBECTL_PRECONDITIONS)
        return self._created(patch, original, meta)

    def _strategic_3way(self, case: Case) -> Actual:
        # CreateThreeWayMergePatch as kubectl apply calls it: no preconditions.
        from ...reference_impl.strategic import create

        meta = self._meta(case)
        current = case.inputs["current"]
        patch = create.create_three_way(
            case.inputs["original"], case.inputs["modified"], current, meta,
            overwrite=bool(case.options.get("overwrite", True)),
        )
        return self._created(patch, current, meta)

    @staticmethod
    def _created(patch, document, meta) -> Actual:
        """A created patch as sent (JSON written by Go), and ``document`` with it applied if that works."""
        from ...reference_impl import strategic

        patch = utiljson.through_go_json(patch)
        try:
            patched = utiljson.through_go_json(strategic.apply(document, patch, meta))
        except PatchError as exc:
            return Actual(patch=patch, notes=(f"applying the created patch failed: {exc}",))
        return Actual(patch=patch, document=patched)

    def _apply(self, case: Case) -> Actual:
        from ...reference_impl import kubectl_apply

        live = case.inputs["current"] if case.has_input("current") else None
        if live is not None and case.has_input("original"):
            live = kubectl_apply.set_last_applied(live, case.inputs["original"])
        try:
            meta = self._meta(case)
        except NoStrategicSchema:
            if case.schema is not None and case.schema.named:
                raise
            meta = None
        outcome = kubectl_apply.apply(
            case.inputs["modified"], live, meta, overwrite=bool(case.options.get("overwrite", True))
        )
        if outcome.patch is None:  # created: kubectl sends the object, not a patch
            return Actual(document=outcome.live)
        return Actual(patch=outcome.patch, document=outcome.live)

    def _server_side_apply(self, case: Case) -> Actual:
        from ...reference_impl.ssa import apiserver

        current = case.inputs.get("current")
        steps = case.inputs["steps"]
        first = current if isinstance(current, dict) else next(
            (s.get("object") for s in steps if isinstance(s.get("object"), dict)), {})
        api_version, kind = str(first.get("apiVersion", "")), str(first.get("kind", ""))
        custom = kubernetes_object.is_custom_group(api_version.rpartition("/")[0])
        schema, patch_meta = self._ssa_schema(case, api_version, kind, custom)
        root = schema.resolve(schema.root)
        has_status = root.map is not None and root.map.field("status") is not None
        scale = named_scale(case, api_version) if custom else None
        results = apiserver.run_case(schema, api_version, kind, current, steps,
                                     status_subresource=has_status, patch_meta=patch_meta, custom_resource=custom,
                                     kubernetes_version=self.kubernetes_version, scale=scale)
        return Actual(document={"steps": results})

    def _ssa_schema(self, case: Case, api_version: str, kind: str, custom: bool):
        """The field manager's types: a custom kind's CRD schema (the named schema, or none) with
        the real ObjectMeta, or the built-in kind's; and strategic patch metadata where there is some."""
        key = (case.effective_schema(), api_version, kind, custom)  # the declared schema, when there is one
        found = self._ssa_schemas.get(key)
        if found is None:
            found = self._ssa_schemas[key] = self._find_ssa_schema(case, api_version, kind, custom)
        return found

    def _find_ssa_schema(self, case: Case, api_version: str, kind: str, custom: bool):
        from ...reference_impl.ssa import schema as ssa_schema

        version = case.schema.version if case.schema is not None and case.schema.version else None
        version = version or LIVE_RELEASE
        if case.schema is not None and case.schema.named:
            path = named_schema_path(case.schema.named)
            if path is None:
                raise NoStrategicSchema(f"no named schema {case.schema.named!r} in cases/schemas")
            return ssa_schema.named_custom_resource(path, version), self._meta(case)
        if custom:
            return ssa_schema.custom_resource(version=version), None
        found = ssa_schema.builtin(api_version, kind, version)
        try:
            meta = self._meta(case)
        except NoStrategicSchema:
            meta = None
        return found, meta

    @staticmethod
    def _original(case: Case):
        return utiljson.through_go_json(case.inputs["original"])

    def _meta(self, case: Case):
        schema = case.effective_schema()
        found = self._metas.get(schema)
        if found is None:  # a schema without metadata raises every time it is asked for
            found = self._metas[schema] = self._find_meta(schema)
        return found

    def _find_meta(self, schema: SchemaRef | None):
        from ...reference_impl import strategic

        if schema is None:
            raise NoStrategicSchema("document has no apiVersion/kind and the case names no schema")
        if schema.named:
            path = named_schema_path(schema.named)
            if path is None:
                raise NoStrategicSchema(f"no named schema {schema.named!r} in cases/schemas")
            return strategic.named_patch_meta(path)
        return strategic.builtin_patch_meta(
            schema.api_version, schema.kind, schema.version or self.kubernetes_version
        )


def named_scale(case: Case, api_version: str):
    """The scale subresource a custom kind's named schema declares (``scale:``, as a CRD's
    ``subresources.scale``), or None."""
    if case.schema is None or not case.schema.named:
        return None
    path = named_schema_path(case.schema.named)
    declared = _named_schema_document(str(path)).get("scale") if path else None
    if declared is None:
        return None
    from ...reference_impl.ssa import scalehandler

    try:
        return scalehandler.custom(declared, api_version)
    except ValueError as exc:
        raise NoStrategicSchema(f"named schema {case.schema.named!r}: {exc}") from exc


@functools.cache
def _named_schema_document(path: str) -> dict[str, Any]:
    from pathlib import Path

    from ..corpus.yamlio import load_path

    document = load_path(Path(path))
    return document if isinstance(document, dict) else {}


def _written_for_a_server(case: Case) -> bool:
    """A json, merge or strategic patch case written for live describes what a server stores."""
    return "live" in case.targets and patch_type(case.type).patch_request


def _pointer_note(exc: PatchError) -> tuple[str, ...]:
    return (f"at {exc.pointer}",) if exc.pointer else ()
