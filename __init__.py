"""patchconf: Kubernetes patch semantics as kubectl and kube-apiserver apply them, in pure Python.

The public library API of patchconf's reference implementation (the one the conformance corpus
judges against Kubernetes' own code): apply a patch of each type, create two- and three-way
patches as kubectl does, run kubectl's client-side apply, and run server-side apply requests on
an object as a kube-apiserver stores it. Everything here takes and returns plain JSON values
(dicts, lists, str, int, float, bool, None) and never changes its arguments.

>>> import patchconf
>>> patchconf.apply_strategic_merge_patch(
...     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
...      "spec": {"containers": [{"name": "a", "image": "a:1"}]}},
...     {"spec": {"containers": [{"name": "b", "image": "b:1"}]}})["spec"]["containers"]
[{'name': 'b', 'image': 'b:1'}, {'name': 'a', 'image': 'a:1'}]

Errors are :class:`PatchError` (``error_class`` names the corpus's error class, e.g.
``test-failed``, ``path-not-found``); a server-side request's refusal is :class:`RequestError`
(with the HTTP ``status`` and, for a conflict, the ``conflicts`` as (manager, field) pairs).

The command-line tool and conformance harness are ``patchconf.harness`` (``patchconf --help``);
the implementation behind this API is ``patchconf.reference_impl``, one module per Go twin.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .reference_impl.patch_types import PATCH_REQUEST_TYPES
from .reference_impl.releases import CORPUS_RELEASE

if TYPE_CHECKING:
    from .reference_impl.kubectl_apply import ApplyResult
    from .reference_impl.ssa.apiserver import Store

__all__ = [
    "KUBERNETES_VERSION",
    "PatchError",
    "RequestError",
    "ServerSideApply",
    "__version__",
    "apply_json_patch",
    "apply_merge_patch",
    "apply_strategic_merge_patch",
    "create_merge_patch",
    "create_strategic_merge_patch",
    "create_three_way_merge_patch",
    "create_three_way_strategic_merge_patch",
    "kubectl_apply",
]

# The one place the version is written (pyproject reads it): asking importlib.metadata each run cost ~35 ms.
__version__ = "0.1.0"

# The Kubernetes release whose schemas and rules apply unless a call names another.
KUBERNETES_VERSION = CORPUS_RELEASE

Json = Any
SchemaFile = str | os.PathLike


def __getattr__(name: str) -> Any:
    # The error types live with the implementation; importing it only when asked keeps
    # `import patchconf` (and the command line) quick.
    if name == "PatchError":
        from .reference_impl.errors import PatchError

        return PatchError
    if name == "RequestError":
        from .reference_impl.ssa.managedfields import RequestError

        return RequestError
    raise AttributeError(f"module 'patchconf' has no attribute {name!r}")


def apply_json_patch(document: Json, patch: list[dict[str, Any]]) -> Json:
    """``document`` with the JSON Patch (RFC 6902) ``patch`` applied, as Kubernetes applies one
    (evanphx/json-patch as the apiserver configures it)."""
    from .reference_impl import json_patch

    return json_patch.apply(document, patch)


def apply_merge_patch(document: Json, patch: Json) -> Json:
    """``document`` with the JSON Merge Patch (RFC 7396) ``patch`` applied."""
    from .reference_impl import merge_patch

    return merge_patch.apply(document, patch)


def apply_strategic_merge_patch(document: dict[str, Any], patch: dict[str, Any], *,
                                api_version: str | None = None, kind: str | None = None,
                                schema_file: SchemaFile | None = None,
                                kubernetes_version: str = KUBERNETES_VERSION) -> dict[str, Any]:
    """``document`` with the strategic merge ``patch`` applied, as the apiserver and
    ``kubectl patch`` apply it: merge keys, patch strategies, ``$patch``, ``$retainKeys``,
    ``$setElementOrder/…``, ``$deleteFromPrimitiveList/…`` and ``null`` deletions.

    The kind's patch metadata comes from Kubernetes ``kubernetes_version``'s built-in types
    (``api_version``/``kind``, by default the document's own), or from ``schema_file``, a named
    OpenAPI schema (``{root, definitions}`` in YAML or JSON, as in the corpus's ``cases/schemas``).
    """
    from .reference_impl import strategic

    return strategic.apply(document, patch, _patch_meta(document, api_version, kind, schema_file, kubernetes_version))


def create_merge_patch(original: Json, modified: Json) -> Json:
    """The JSON merge patch that turns ``original`` into ``modified`` (``jsonpatch.CreateMergePatch``)."""
    from .reference_impl import merge_patch

    return merge_patch.create(original, modified)


def create_three_way_merge_patch(original: Json, modified: Json, current: Json) -> Json:
    """kubectl's three-way JSON merge patch for a kind without strategic metadata (a custom
    resource): ``modified`` over ``current``, deleting what ``original`` had and ``modified`` drops
    (``jsonmergepatch.CreateThreeWayJSONMergePatch``)."""
    from .reference_impl import merge_patch

    return merge_patch.create_three_way(original, modified, current)


def create_strategic_merge_patch(original: dict[str, Any], modified: dict[str, Any], *,
                                 api_version: str | None = None, kind: str | None = None,
                                 schema_file: SchemaFile | None = None,
                                 kubernetes_version: str = KUBERNETES_VERSION) -> dict[str, Any]:
    """The two-way strategic merge patch from ``original`` to ``modified``
    (``strategicpatch.CreateTwoWayMergePatch`` with kubectl's preconditions: apiVersion, kind and
    name must not change). Schema arguments as in :func:`apply_strategic_merge_patch`."""
    from .reference_impl.strategic import create

    meta = _patch_meta(original, api_version, kind, schema_file, kubernetes_version)
    return create.create_two_way(original, modified, meta, create.KUBECTL_PRECONDITIONS)


def create_three_way_strategic_merge_patch(original: dict[str, Any], modified: dict[str, Any],
                                           current: dict[str, Any], *, overwrite: bool = True,
                                           api_version: str | None = None, kind: str | None = None,
                                           schema_file: SchemaFile | None = None,
                                           kubernetes_version: str = KUBERNETES_VERSION) -> dict[str, Any]:
    """The three-way strategic merge patch kubectl apply sends: from the last-applied
    ``original`` and the new ``modified`` configuration to the live ``current`` object
    (``strategicpatch.CreateThreeWayMergePatch``; ``overwrite=False`` refuses to change a value
    someone else changed, as ``kubectl apply --overwrite=false``)."""
    from .reference_impl.strategic import create

    meta = _patch_meta(current, api_version, kind, schema_file, kubernetes_version)
    return create.create_three_way(original, modified, current, meta, overwrite=overwrite)


def kubectl_apply(configuration: dict[str, Any], live: dict[str, Any] | None = None, *, overwrite: bool = True,
                  schema_file: SchemaFile | None = None,
                  kubernetes_version: str = KUBERNETES_VERSION) -> ApplyResult:
    """What ``kubectl apply`` (client-side) does with ``configuration`` against the ``live`` object
    (``None``: it does not exist): the result's ``patch_type`` is ``create``, ``strategic`` (built-in
    kinds) or ``merge`` (custom resources), ``patch`` what kubectl sends and ``live`` the object as
    the server stores it afterwards, with the last-applied-configuration annotation."""
    from .reference_impl import kubectl_apply as flow
    from .reference_impl.errors import NoStrategicSchema

    try:
        meta = _patch_meta(configuration, None, None, schema_file, kubernetes_version)
    except NoStrategicSchema:
        meta = None  # a custom resource: kubectl sends a JSON merge patch
    return flow.apply(configuration, live, meta, overwrite=overwrite)


class ServerSideApply:
    """One object as a kube-apiserver keeps it, and the requests that change it: server-side
    apply, update (PUT) and patches, each recorded in ``metadata.managedFields`` by its manager.

    A built-in kind (``apps/v1`` ``Deployment``…) is decoded into its Go type and defaulted as the
    server does before the field manager runs; any other ``api_version`` is a custom resource,
    typed by ``schema_file`` (its structural schema) or untyped. ``current`` is an object already
    stored (it may carry managedFields); ``None`` starts with none (an apply creates it).

    Each request is stamped in managedFields with an RFC 3339 ``time``, as a kube-apiserver stamps
    it, read from ``clock``: by default the wall clock; for reproducible output a callable giving a
    ``datetime`` or seconds since the epoch (``itertools.count(1).__next__`` stamps request *n*
    *n* seconds after the epoch, the corpus's logical clock).

    >>> import itertools
    >>> server = ServerSideApply("v1", "ConfigMap", clock=itertools.count(1).__next__)
    >>> stored = server.apply({"apiVersion": "v1", "kind": "ConfigMap",
    ...                        "metadata": {"name": "c"}, "data": {"a": "1"}}, manager="me")
    >>> [(entry["manager"], entry["operation"], entry["time"]) for entry in stored["metadata"]["managedFields"]]
    [('me', 'Apply', '1970-01-01T00:00:01Z')]

    Arguments the server could not be sent are ``ValueError``s naming the valid choices:

    >>> server.patch({"data": {"a": "2"}}, "merge", manager="me")
    Traceback (most recent call last):
    ValueError: patch_type 'merge': give one of 'json-patch', 'merge-patch', 'strategic'
    """

    def __init__(self, api_version: str, kind: str, *, current: dict[str, Any] | None = None,
                 schema_file: SchemaFile | None = None, kubernetes_version: str = KUBERNETES_VERSION,
                 clock: Callable[[], datetime.datetime | float] | None = None) -> None:
        from .reference_impl import kubernetes_object
        from .reference_impl.ssa import apiserver, schema
        from .reference_impl.ssa.typed import PARTIAL_KEYS_SINCE

        for name, value in (("api_version", api_version), ("kind", kind)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} {value!r}: give a non-empty string, such as 'apps/v1' and 'Deployment'")
        release = apiserver.release_of(kubernetes_version)
        custom = kubernetes_object.is_custom_group(api_version.rpartition("/")[0])
        # Types come from the bundled OpenAPI models (releases.LIVE_RELEASE's); kubernetes_version
        # picks the field manager's and the apiserver's rules of that release.
        if custom:
            types = (schema.named_custom_resource(schema_file) if schema_file is not None
                     else schema.custom_resource())
        else:
            try:
                types = schema.builtin(api_version, kind)
            except schema.UnknownKind as exc:
                raise ValueError(_unknown_kind(api_version, kind, schema.builtin_kinds())) from exc
        root = types.resolve(types.root)
        has_status = root.map is not None and root.map.field("status") is not None
        self._clock = clock or _wall_clock
        self._store: Store = apiserver.Store(types.with_partial_keys(release >= PARTIAL_KEYS_SINCE), api_version,
                                             kind, status_subresource=has_status, custom_resource=custom,
                                             release=release, now=self._now)
        self._store.start(None if current is None else _times_as_seconds(current))
        self.changed = False  # whether the last request changed the stored object
        self.warnings: list[str] = []  # what kubectl printed as warnings for the last kubectl_apply

    def _now(self) -> int:
        now = self._clock()
        if isinstance(now, datetime.datetime):
            if now.tzinfo is None:
                raise ValueError(f"clock gave {now!r}, a datetime without a time zone; give an aware one (UTC)")
            return int(now.timestamp())
        if isinstance(now, int | float) and not isinstance(now, bool):
            return int(now)
        raise ValueError(f"clock gave {now!r}; give a callable returning a datetime or seconds since the epoch")

    @property
    def object(self) -> dict[str, Any] | None:
        """The stored object (a copy), with its managedFields; ``None`` before it exists."""
        from .reference_impl.govalue.decoded import json_copy

        return None if self._store.live is None else _times_as_rfc3339(json_copy(self._store.live))

    def apply(self, configuration: dict[str, Any], manager: str, *, force: bool = False,
              subresource: str = "", dry_run: bool = False) -> dict[str, Any]:
        """A server-side apply (``PATCH`` of type ``application/apply-patch+yaml``) of
        ``configuration`` by ``manager``; raises :class:`RequestError` on a conflict unless ``force``.
        ``dry_run`` (``dryRun=All``, as every request here): the object that would be stored is
        answered and nothing is stored."""
        return self._run({"op": "apply", "manager": manager, "force": force, "subresource": subresource,
                          "object": configuration, "dry_run": dry_run})

    def update(self, obj: dict[str, Any], manager: str, *, subresource: str = "",
               dry_run: bool = False) -> dict[str, Any]:
        """An update (``PUT``) of the whole object by ``manager``."""
        return self._run({"op": "update", "manager": manager, "subresource": subresource, "object": obj,
                          "dry_run": dry_run})

    def patch(self, patch: Json, patch_type: str, manager: str, *, subresource: str = "",
              dry_run: bool = False) -> dict[str, Any]:
        """A ``PATCH`` of ``patch_type`` ``json-patch``, ``merge-patch`` or ``strategic`` by ``manager``."""
        return self._run({"op": "patch", "manager": manager, "subresource": subresource,
                          "patch_type": patch_type, "patch": patch, "dry_run": dry_run})

    def kubectl_apply(self, manifest: dict[str, Any], manager: str = "kubectl-client-side-apply") -> dict[str, Any]:
        """kubectl's client-side apply (``kubectl apply`` without ``--server-side``) of ``manifest``:
        the object created with its last-applied annotation, or kubectl's three-way patch sent by
        ``manager`` (kubectl's ``--field-manager``). What kubectl would print as warnings is in
        :attr:`warnings`; a refusal (e.g. annotations over 262,144 bytes) raises :class:`RequestError`."""
        return self._run({"op": "kubectl-apply", "manager": manager, "subresource": "", "object": manifest})

    def _run(self, step: dict[str, Any]) -> dict[str, Any]:
        from .reference_impl.ssa.request import Step

        manager = step["manager"]
        if manager is not None and not isinstance(manager, str):
            raise ValueError(f"manager {manager!r}: give the field manager's name, a string (or None, which a "
                             "server answers as a request without fieldManager)")
        if step["op"] == "patch" and step["patch_type"] not in PATCH_TYPES:
            raise ValueError(f"patch_type {step['patch_type']!r}: give one of {', '.join(map(repr, PATCH_TYPES))}")
        if not isinstance(step.get("dry_run", False), bool):
            raise ValueError(f"dry_run {step['dry_run']!r}: give True or False")
        if not isinstance(step["subresource"], str):
            raise ValueError(f"subresource {step['subresource']!r}: give '' (the object), 'status' or 'scale'")
        if isinstance(step.get("object"), dict):  # managedFields sent along (an object read back) are times too
            step = {**step, "object": _times_as_seconds(step["object"], "the object")}

        if step.get("op") == "patch" and step.get("patch_type") == "strategic" and self._store.patch_meta is None:
            from .reference_impl import strategic

            self._store.patch_meta = strategic.builtin_patch_meta(self._store.api_version, self._store.kind,
                                                                  ".".join(map(str, self._store.release)))
        result = self._store.run(Step.from_json(step))
        self.warnings = list(result.warnings or ())
        if result.error is not None:
            raise result.error
        self.changed = result.changed
        if step.get("dry_run"):  # what would be stored, which the store did not keep
            from .reference_impl.govalue.decoded import json_copy

            return _times_as_rfc3339(json_copy(result.answer))
        stored = self.object
        assert stored is not None  # a request that did not fail leaves an object
        return stored


PATCH_TYPES = PATCH_REQUEST_TYPES  # what ServerSideApply.patch sends, as the corpus names them


def _wall_clock() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _unknown_kind(api_version: str, kind: str, kinds: dict[str, list[str]]) -> str:
    if api_version in kinds:
        return f"{api_version} has no kind {kind!r}; its kinds: {', '.join(kinds[api_version])}"
    return (f"api_version {api_version!r} is no built-in group version (and has no dot, as a custom resource's "
            f"group has); built-in: {', '.join(kinds)}")


def _managed_fields(obj: dict[str, Any]) -> list[Any]:
    metadata = obj.get("metadata")
    entries = metadata.get("managedFields") if isinstance(metadata, dict) else None
    return entries if isinstance(entries, list) else []


def _times_as_rfc3339(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` (a copy, changed in place) with each managedFields time as metav1.Time writes it."""
    for entry in _managed_fields(obj):
        if isinstance(entry, dict) and isinstance(entry.get("time"), int | float):
            entry["time"] = datetime.datetime.fromtimestamp(entry["time"], datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return obj


def _times_as_seconds(obj: dict[str, Any], what: str = "current") -> dict[str, Any]:
    """A copy of ``obj`` whose managedFields times are seconds since the epoch, as the store keeps them."""
    import copy

    obj = copy.deepcopy(obj)
    for index, entry in enumerate(_managed_fields(obj)):
        if isinstance(entry, dict) and isinstance(entry.get("time"), str):
            try:
                entry["time"] = int(datetime.datetime.fromisoformat(entry["time"]).timestamp())
            except ValueError:
                raise ValueError(f"{what}: metadata.managedFields[{index}].time {entry['time']!r} is not an RFC 3339 "
                                 "time such as '2025-01-31T12:00:00Z'") from None
    return obj


def _patch_meta(document: Any, api_version: str | None, kind: str | None, schema_file: SchemaFile | None,
                kubernetes_version: str) -> Any:
    from .reference_impl import strategic
    from .reference_impl.errors import NoStrategicSchema

    if schema_file is not None:
        return strategic.named_patch_meta(os.fspath(schema_file))
    document = document if isinstance(document, dict) else {}
    api_version = api_version or str(document.get("apiVersion") or "")
    kind = kind or str(document.get("kind") or "")
    if not api_version or not kind:
        raise NoStrategicSchema("give api_version and kind (or schema_file): the document names no kind")
    return strategic.builtin_patch_meta(api_version, kind, kubernetes_version)
