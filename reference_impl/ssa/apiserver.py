"""What the apiserver does around the field manager, request by request.

Go twins: k8s.io/apiserver/pkg/endpoints/handlers (patch.go: apply creates a missing
object, every other patch runs an update of the patched object; update.go; fieldmanager's
``IgnoreManagedFieldsTimestampsTransformer``: a write that changes nothing but times is no
write) and the registry strategies' reset fields (the main resource cannot change
``status``, the ``status`` subresource nothing else). Time is a logical clock: request
*n* happens at time *n*, unless the store is given a clock of its own (``now``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import json_patch, merge_patch
from ..errors import PatchError
from ..govalue import gotypes
from ..govalue.decoded import json_copy
from ..govalue.gotypes import InvalidBytes
from ..kubernetes_object import resource_plural
from ..releases import CORPUS_RELEASE
from . import (
    codec,
    kubectl_client_apply,
    migration,
    scalehandler,
    strategies,
    structural,
)
from .conversion import ConversionError
from .fieldpath import FieldSet, make_path
from .managedfields import (
    DEFAULT_RELEASE,
    TOTAL_ANNOTATION_SIZE_LIMIT,
    FieldManager,
    RequestError,
    annotations_size,
)
from .request import Step, StepResult, with_fields_type
from .schema import Schema
from .typed import PARTIAL_KEYS_SINCE, resolve_or_none, values_equal

# handlers/create.go: a request naming no fieldManager is recorded under its User-Agent's
# first word, which for patchconf's own requests is this.
DEFAULT_MANAGER = "patchconf"
STATUS = make_path("status")


class _Time:
    """The time a store's field managers stamp on entries: the store's clock, as of its current step."""

    __slots__ = ("now",)

    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@dataclass
class Store:
    """One object as the apiserver keeps it, and the endpoints that change it."""

    schema: Schema
    api_version: str
    kind: str
    status_subresource: bool = False  # a custom kind's; a built-in kind's strategy says (strategies.py)
    custom_resource: bool = False
    live: dict[str, Any] | None = None
    clock: int = 0
    patch_meta: Any = None  # strategic merge patch metadata, for patch steps of that type
    managers: dict[str, FieldManager] = field(default_factory=dict)
    release: tuple[int, int] = DEFAULT_RELEASE  # the Kubernetes release whose field manager rules apply
    now: Callable[[], int] | None = None  # seconds since the epoch of each request; None: the logical clock
    # a custom kind's scale subresource (its CRD's); a built-in kind's registry says (scalehandler.py)
    scale: scalehandler.ScalePaths | None = None
    strategy: strategies.Strategy = field(init=False)

    def __post_init__(self) -> None:
        self.strategy = (strategies.custom(self.status_subresource) if self.custom_resource
                         else strategies.builtin(self.api_version, self.kind))
        has_status = self.strategy.status_subresource
        main_reset = FieldSet.of(STATUS) if has_status else None
        status_reset = FieldSet.of(*(make_path(*path) for path in self.strategy.status_keeps)) if has_status else None
        # The managers' clock, defaulter and creater do not hold this store: a store and its managers
        # referring to each other would be freed only by the cyclic collector (everything they hold too).
        self._time = _Time(self.clock)
        # storage holds a status its decoder defaults (strategies.STATUS_DEFAULTED_ON_READ) until an update
        self._status_undefaulted = False
        # a custom object as storage holds it (what a read decodes: _written_form), and as the
        # request under way hands it to storage
        self._written: dict[str, Any] | None = None
        self._writing: dict[str, Any] | None = None
        # a built-in object's entries as storage holds them: written by the field manager (False) or
        # by a write through /scale, whose ToParent re-encodes every FieldsV1 with its keys sorted as
        # text (scalehandler.orders_differ); a custom object's are always stored so
        self._entries_sorted = False
        # The scheme's defaulter for a built-in kind: an applied result is turned into the Go type and
        # defaulted before anything else sees it; a custom kind has none.
        defaulter = (None if self.custom_resource
                     else functools.partial(codec.decode, api_version=self.api_version, kind=self.kind,
                                            release=self.release))
        creater = _creater(self.api_version, self.kind)
        self.managers = {
            subresource: FieldManager(self.schema, self.api_version, self.kind, subresource, reset, self._time,
                                      self.release, object_defaulter=defaulter, object_creater=creater)
            for subresource, reset in (("", main_reset), ("status", status_reset))
        }
        if not self.custom_resource:
            self.scale = scalehandler.builtin(self.api_version, self.kind)
        if self.scale is not None:
            # the /scale handler's field manager: autoscaling/v1 Scale, nothing reset
            scale_defaulter = functools.partial(codec.decode, api_version=scalehandler.SCALE_API_VERSION,
                                                kind=scalehandler.SCALE_KIND, release=self.release)
            self.managers[scalehandler.SUBRESOURCE] = FieldManager(
                scale_schema(), scalehandler.SCALE_API_VERSION, scalehandler.SCALE_KIND,
                scalehandler.SUBRESOURCE, None, self._time, self.release, object_defaulter=scale_defaulter,
                object_creater=_creater(scalehandler.SCALE_API_VERSION, scalehandler.SCALE_KIND))

    def start(self, current: dict[str, Any] | None) -> None:
        if current is None:
            return
        # a stored object was decoded and defaulted when it was written (a custom one by its schema)
        live = self._stored(with_fields_type(json_copy(current)))
        live.setdefault("metadata", {})["uid"] = "patchconf-uid"
        self.live = live  # written since its creation: with its managedFields, as stated (so its status defaulted)
        self._written = self._written_form(live)

    def run(self, step: Step) -> StepResult:
        self.clock = self.clock + 1 if self.now is None else self.now()
        self._time.now = self.clock
        if step.op in migration.OPS:  # several requests in the one step
            return migration.run(self, step)
        if step.op == kubectl_client_apply.OP:
            return kubectl_client_apply.run(self, step, self._kubectl_patch_meta())
        return self.request(step)

    def request(self, step: Step) -> StepResult:
        """One request at the current time."""
        before = self.live  # never changed in place: each request makes a new object
        self._writing = None
        try:
            after = self._request(step)
            self._validate_object_meta(after)
        except RequestError as exc:
            # without its traceback, whose frames hold the result holding it: no cycle to collect
            return StepResult(error=exc.with_traceback(None))
        except PatchError as exc:
            return StepResult(error=RequestError(exc.error_class, exc.message, 422, "Invalid"))
        written = after
        after, changed = _ignore_timestamp_only_changes(before, after)
        sorts_entries = step.subresource == scalehandler.SUBRESOURCE
        if (before is not None and not self.custom_resource and sorts_entries != self._entries_sorted
                and scalehandler.orders_differ((written.get("metadata") or {}).get("managedFields"))):
            # the same entries in other bytes: not the timestamp transformer's equal, and a write
            after, changed = written, True
        if step.dry_run:  # dryrun.go: every step of the write runs, storage keeps nothing
            return StepResult.of(after, False)
        if self._status_undefaulted:  # the status is written defaulted: a change in storage
            changed = True
        if self._writing is not None and self._writing != self._written:
            changed = True  # storage compares what it is handed with what it holds, not their reads
        if changed:
            self._written = self._writing
            self._entries_sorted = sorts_entries
        self._status_undefaulted = before is None and self._stores_undefaulted_status()
        self.live = after
        return StepResult.of(after, changed)

    def _request(self, step: Step) -> dict[str, Any]:
        if step.op == "apply" and not step.manager:
            raise RequestError("invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
                               "is required for apply patch", 422, "Invalid")
        if step.subresource not in self.managers:
            raise RequestError("path-not-found", "the server could not find the requested resource", 404, "NotFound")
        if step.subresource == scalehandler.SUBRESOURCE:
            return self._scale(step)
        manager = self.managers[step.subresource]
        if step.op == "create":  # handlers/create.go: the field manager's update of the creater's new object
            if self.live is not None:
                raise RequestError("conflict", f'{self._resource()} "{self._name()}" already exists', 409,
                                   "AlreadyExists")
            return self._create(manager.update(self._new_object(), self._decoded_body(step.object, step),
                                               step.manager or DEFAULT_MANAGER))
        if self.live is None:
            if step.op == "apply" and not step.subresource:
                return self._create(manager.apply(_empty(self.api_version, self.kind), step.object,
                                                  step.manager, step.force))
            if step.op == "update" and not step.subresource and self.strategy.create_on_update:
                created = manager.update(self._new_object(), self._decoded_body(step.object, step),
                                         step.manager or DEFAULT_MANAGER)
                return self._create(created)
            raise RequestError("path-not-found", f"{self.kind.lower()} not found", 404, "NotFound")
        if step.op == "apply":
            result = manager.apply(self.live, step.object, step.manager, step.force)
        elif step.op == "update":
            self._check_uid_precondition(step.object)
            result = manager.update(self.live, self._decoded_body(step.object, step), step.manager or DEFAULT_MANAGER)
        else:
            result = manager.update(self.live, self._decoded_body(self._patched(step), step),
                                    step.manager or DEFAULT_MANAGER)
        kept = self._keep_what_the_endpoint_resets(result, step.subresource)
        self._writing = self._written_form(kept)
        return self._stored(kept)

    def _kubectl_patch_meta(self) -> Any:
        """The strategic patch metadata kubectl patches the kind with: the store's, else its built-in
        kind's at the store's release; None (a JSON merge patch) for a kind kubectl's scheme lacks."""
        if self.custom_resource:
            return None
        if self.patch_meta is None:
            from .. import strategic
            from ..errors import NoStrategicSchema

            try:
                self.patch_meta = strategic.builtin_patch_meta(self.api_version, self.kind,
                                                               ".".join(map(str, self.release)))
            except NoStrategicSchema:
                return None
        return self.patch_meta

    def _validate_object_meta(self, obj: dict[str, Any]) -> None:
        """The one part of the kind's validation (ValidateObjectMeta) the reference runs: apimachinery's
        ValidateAnnotations' total size, every key and value together at most 256 KiB. A larger
        last-applied annotation is why kubectl's client-side apply of a big manifest is refused."""
        metadata = obj.get("metadata") if isinstance(obj, dict) else None
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        if not isinstance(annotations, dict):
            return
        if annotations_size(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT:
            name = metadata.get("name", "")
            raise RequestError("invalid", f'{self._group_kind()} "{name}" is invalid: metadata.annotations: Too long: '
                               f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes", 422, "Invalid")

    def _group_kind(self) -> str:
        group = self.api_version.rpartition("/")[0]
        return f"{self.kind}.{group}" if group else self.kind

    def _resource(self) -> str:
        group = self.api_version.rpartition("/")[0]
        plural = resource_plural(self.kind)
        return f"{plural}.{group}" if group else plural

    def _name(self) -> str:
        return ((self.live or {}).get("metadata") or {}).get("name", "")
    def _scale(self, step: Step) -> dict[str, Any]:
        """ScaleREST.Update: the request runs on the object's Scale (scalehandler.py); the object
        takes its replicas and entries and is stored as an update of the main resource."""
        if self.live is None:  # ScaleREST never creates
            raise RequestError("path-not-found", f"{self.kind.lower()} not found", 404, "NotFound")
        paths = self.scale
        metadata = self.live.get("metadata") or {}
        handler = scalehandler.ScaleHandler(metadata.get("managedFields"), self.api_version, paths)
        # the Scale as the handler holds it: a Go value, whose zero replicas are omitted (omitempty)
        old = codec.decode(scalehandler.scale_of(self.live, paths), scalehandler.SCALE_API_VERSION,
                           scalehandler.SCALE_KIND, self.release)
        old["metadata"].pop("creationTimestamp", None)
        entries = handler.to_subresource()
        if entries is not None:
            old["metadata"]["managedFields"] = entries
        manager = self.managers[scalehandler.SUBRESOURCE]
        if step.op == "apply":
            if paths.custom:
                raise scalehandler.custom_apply_error(step.object, entries is not None)
            new = manager.apply(old, step.object, step.manager, step.force)
        else:
            body = step.object if step.op == "update" else self._patched(step, old)
            if not isinstance(body, dict):
                raise RequestError("invalid-patch", "the body is not a Scale object", 400, "BadRequest")
            decoded = codec.decode(body, scalehandler.SCALE_API_VERSION, scalehandler.SCALE_KIND, self.release)
            new = manager.update(old, decoded, step.manager or DEFAULT_MANAGER)
        parent = scalehandler.parent_of(self.live, new, paths, str(metadata.get("name", "")))
        parent_entries = handler.to_parent((new.get("metadata") or {}).get("managedFields"))
        parent["metadata"] = {key: value for key, value in parent["metadata"].items() if key != "managedFields"}
        if parent_entries is not None:
            parent["metadata"]["managedFields"] = parent_entries
        kept = self._keep_what_the_endpoint_resets(parent, "")
        self._writing = self._written_form(kept)
        return self._stored(kept)

    def _decoded_body(self, obj: dict[str, Any], step: Step) -> dict[str, Any]:
        """An update's body or a patch's result decoded; what the kind's Go type or internal version
        cannot hold is refused: a PUT's or POST's body by the decoder (400), a patch's result as an
        invalid ``patch`` (422)."""
        try:
            return self._decoded(obj)
        except (InvalidBytes, ConversionError) as exc:
            if step.op in ("update", "create"):
                version = self.api_version.rpartition("/")[2]
                raise RequestError("invalid-document", f'{self.kind} in version "{version}" cannot be handled as '
                                   f"a {self.kind}: {exc}", 400, "BadRequest") from exc
            raise RequestError("invalid-document", f'"" is invalid: patch: Invalid value: the patched object: {exc}',
                               422, "Invalid") from exc

    def _stores_undefaulted_status(self) -> bool:
        return (self.api_version, self.kind) in strategies.STATUS_DEFAULTED_ON_READ and not self.custom_resource

    def _decoded(self, obj: dict[str, Any]) -> dict[str, Any]:
        """An object as the server decodes a request body (or a patch's result) before the field
        manager sees it.

        A custom resource's metadata goes through the typed ObjectMeta (objectmeta.Coerce):
        empty and null members, all ``omitempty``, are dropped — ``managedFields: []`` with them;
        then its structural schema prunes the nulls it does not allow and defaults (:mod:`.structural`).
        A built-in object is decoded into its Go type and defaulted (:mod:`.codec`): ``labels: {}`` and nulls are gone,
        ``strategy`` and a container's ``imagePullPolicy`` are filled. A kind with neither a Go
        type nor a custom resource's schema keeps what a Go struct would keep of its nulls.
        The result may share ``obj``'s values: the endpoint changes no object in place.
        """
        if not isinstance(obj, dict):
            return obj
        if self.custom_resource:
            if isinstance(obj.get("metadata"), dict):
                metadata = {key: _string_map(value) if key in ("labels", "annotations") else value
                            for key, value in obj["metadata"].items() if value not in (None, [], {})}
                obj = {**obj, "metadata": metadata}
            return structural.decode(self.schema, obj)
        if codec.has_go_type(self.api_version, self.kind):
            decoded = codec.decode(obj, self.api_version, self.kind, self.release)
            if (obj.get("metadata") or {}).get("managedFields") == []:
                # The field manager reads managedFields from the Go value, where [] is a non-nil empty
                # slice (the reset marker); only its JSON encoding leaves it out.
                decoded["metadata"]["managedFields"] = []
            return decoded
        return _through_go_types(self.schema, self.schema.root, obj)

    def _new_object(self) -> dict[str, Any]:
        """``creater.New``: what a create is compared against (a built-in kind's zero Go value)."""
        return codec.empty(self.api_version, self.kind)  # a custom kind, without a Go type: {apiVersion, kind}

    def _stored(self, obj: dict[str, Any]) -> dict[str, Any]:
        """What storage keeps of the field manager's result and gives back: a built-in object
        through its Go type and defaulted again as storage decodes it (``data: {}`` dropped,
        ``strategy`` written)."""
        stored = self._decoded(obj)
        if self.custom_resource:
            return stored
        stored = gotypes.through_storage(stored, self.api_version, self.kind)
        metadata = stored.get("metadata")
        if isinstance(metadata, dict) and metadata.get("creationTimestamp", "") is None:
            # The zero metav1.Time the round trip writes as null is the server's to fill (rest.BeforeCreate,
            # kept by BeforeUpdate); the reference keeps no creation time, as before the round trip.
            del metadata["creationTimestamp"]
        return stored

    def _written_form(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """What storage is handed of a custom object (None for a built-in one): the field manager's
        result defaulted, its nulls not yet pruned nor its ObjectMeta coerced, which storage's
        decoder does on every read; without managedFields, whose times a write without another
        change keeps. A write whose object reads the same as the stored one, but is handed over
        otherwise (an applied null annotation, "" once read), is still a write."""
        if not self.custom_resource:
            return None
        written = structural.defaulted(self.schema, obj)
        metadata = {key: value for key, value in (written.get("metadata") or {}).items()
                    if key not in ("managedFields", "uid")}  # the uid: the server's, the same in every write
        return {**written, "metadata": metadata}

    def _create(self, obj: dict[str, Any]) -> dict[str, Any]:
        self._writing = self._written_form(obj)
        if self._writing is not None and self.strategy.status_subresource:  # PrepareForCreate drops it
            self._writing.pop("status", None)
        obj = self._stored(obj)  # may share the field manager's result: not changed in place
        obj = {**obj, "metadata": {**obj.get("metadata", {}), "uid": "patchconf-uid"}}
        cleared = strategies.KEEP_STATUS
        if self.strategy.status_subresource:  # PrepareForCreate: a built-in kind's status is its Go zero value
            if not self.custom_resource and codec.has_go_type(self.api_version, self.kind):
                cleared = codec.decoded_empty(self.api_version, self.kind, self.release).get("status")
            else:
                cleared = self._stored(_empty(self.api_version, self.kind)).get("status")
        return strategies.prepare_for_create(obj, self.api_version, self.kind, cleared)

    def _patched(self, step: Step, target: dict[str, Any] | None = None) -> dict[str, Any]:
        """The step's patch applied to ``target`` (default: the live object)."""
        live = json_copy(self.live if target is None else target)
        if step.patch_type == "json-patch":
            return json_patch.apply(live, step.patch)
        if step.patch_type == "merge-patch":
            return merge_patch.apply(live, step.patch)
        from .. import strategic

        if step.patch_type != "strategic":  # no content type of the apiserver's: never a strategic patch by default
            raise RequestError("invalid-patch", f"the server does not support the patch type {step.patch_type!r}",
                               415, "UnsupportedMediaType")
        if target is not None:  # the Scale's own Go type
            meta = strategic.builtin_patch_meta(scalehandler.SCALE_API_VERSION, scalehandler.SCALE_KIND)
            return strategic.apply(live, step.patch, meta)
        if self.patch_meta is None:
            raise RequestError("no-strategic-schema", "strategic merge patch is not supported for this kind",
                               415, "UnsupportedMediaType")
        return strategic.apply(live, step.patch, self.patch_meta)

    def _keep_what_the_endpoint_resets(self, obj: dict[str, Any], subresource: str) -> dict[str, Any]:
        """PrepareForUpdate: the main resource keeps the old status; ``status`` keeps what its
        strategy keeps (a custom resource's: everything but status); and what the kind's own adds."""
        if not subresource:
            self._refuse_another_uid(obj)
        kept = self._kept(obj, subresource)
        return strategies.prepare_for_update(kept, self.live, self.api_version, self.kind, subresource)

    def _check_uid_precondition(self, obj: Any) -> None:
        """A PUT's object is its own precondition (rest.DefaultUpdatedObjectInfo): a uid it states
        that is not the stored one fails in storage, a 409, before any validation."""
        uid = ((obj.get("metadata") if isinstance(obj, dict) else None) or {}).get("uid")
        stored = (self.live.get("metadata") or {}).get("uid", "patchconf-uid")
        if uid and uid != stored:
            resource = _resource(self.api_version, self.kind)
            name = (self.live.get("metadata") or {}).get("name", "")
            raise RequestError("conflict", f'Operation cannot be fulfilled on {resource} "{name}": StorageError: '
                                           f"invalid object, Code: 4, Key: /registry/{resource.partition('.')[0]}/"
                                           f"{name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
                                           f"UID in precondition: {uid}, UID in object meta: {stored}",
                               409, "Conflict")

    def _refuse_another_uid(self, obj: dict[str, Any]) -> None:
        """rest.BeforeUpdate keeps the stored uid only where the request states none; a uid it
        states is then checked by ValidateObjectMetaAccessorUpdate: another is immutable (422)."""
        uid = (obj.get("metadata") or {}).get("uid")
        stored = (self.live.get("metadata") or {}).get("uid", "patchconf-uid")
        if uid and uid != stored:
            group = self.api_version.rpartition("/")[0]
            kind = f"{self.kind}.{group}" if group else self.kind
            name = (self.live.get("metadata") or {}).get("name", "")
            raise RequestError("invalid", f'{kind} "{name}" is invalid: metadata.uid: Invalid value: '
                                          f'"{uid}": field is immutable', 422, "Invalid")

    def _kept(self, obj: dict[str, Any], subresource: str) -> dict[str, Any]:
        if not self.strategy.status_subresource:
            return _keep_identity(obj, self.live)
        if subresource == "status" and not self.strategy.custom:
            obj = _keep_identity(obj, self.live)
            for path in self.strategy.status_keeps:
                _keep_path(obj, self.live, path)
            return obj
        if subresource == "status":
            kept = json_copy(self.live)
            kept.pop("status", None)
            if "status" in obj:
                kept["status"] = obj["status"]
            kept.setdefault("metadata", {})["managedFields"] = (obj.get("metadata") or {}).get("managedFields")
            if kept["metadata"]["managedFields"] is None:
                del kept["metadata"]["managedFields"]
            return kept
        obj = _keep_identity(obj, self.live)
        obj.pop("status", None)
        if "status" in self.live:
            obj["status"] = json_copy(self.live["status"])
        return obj


def _string_map(value: Any) -> Any:
    """A map[string]string as JSON decodes it: a null member is "" (labels, annotations)."""
    if not isinstance(value, dict) or None not in value.values():
        return value
    return {key: "" if member is None else member for key, member in value.items()}


def _through_go_types(schema: Schema, type_ref: Any, value: Any) -> Any:
    """What a round trip through the kind's Go struct leaves of nulls."""
    atom = resolve_or_none(schema, type_ref)
    if atom is None:
        return value
    if atom.map is not None and isinstance(value, dict):
        out = {}
        for key, child in value.items():
            declared = atom.map.field(key)
            if declared is not None:
                if child is None:
                    continue  # a nil pointer, slice or map: omitted
                out[key] = _through_go_types(schema, declared.type, child)
                continue
            element = resolve_or_none(schema, atom.map.element_type) if atom.map.element_type is not None else None
            if child is None and element is not None and element.scalar == "string":
                out[key] = ""  # map[string]string holds no nil
            else:
                out[key] = _through_go_types(schema, atom.map.element_type, child) if element is not None else child
        return out
    if atom.list is not None and isinstance(value, list):
        return [_through_go_types(schema, atom.list.element_type, item) for item in value]
    return value


def _resource(api_version: str, kind: str) -> str:
    """The resource a message names, qualified by its group (``configmaps``, ``deployments.apps``):
    meta.UnsafeGuessKindToResource's plural, which every kind a case uses follows but Endpoints."""
    singular = kind.lower()
    if singular == "endpoints":
        plural = singular
    elif singular.endswith("s"):
        plural = singular + "es"
    elif singular.endswith("y"):
        plural = singular[:-1] + "ies"
    else:
        plural = singular + "s"
    group = api_version.rpartition("/")[0]
    return f"{plural}.{group}" if group else plural


def _keep_identity(obj: dict[str, Any], live: dict[str, Any]) -> dict[str, Any]:
    """rest.BeforeUpdate: uid and creation time are the server's, whatever the request says.

    A new object, its metadata a new dict; below them it shares ``obj``'s values, which the
    endpoint's steps after it replace rather than change in place (``_keep_path``, strategies)."""
    obj = dict(obj)
    metadata = obj["metadata"] = dict(obj.setdefault("metadata", {}))
    metadata["uid"] = (live.get("metadata") or {}).get("uid", "patchconf-uid")
    return obj

ABSENT = object()


def _keep_path(obj: dict[str, Any], old: dict[str, Any], path: tuple[str, ...]) -> None:
    """``obj`` gets ``old``'s value at ``path``, or none where ``old`` has none."""
    source: Any = old
    for key in path:
        source = source.get(key, ABSENT) if isinstance(source, dict) else ABSENT
    target = obj
    for key in path[:-1]:
        child = target.get(key)
        if isinstance(child, dict):
            child = dict(child)  # copied on write: obj shares its values below the top level
        elif source is ABSENT:
            return
        else:
            child = {}
        target[key] = child
        target = child
    if source is ABSENT:
        target.pop(path[-1], None)
    else:
        target[path[-1]] = json_copy(source)


@functools.cache
def scale_schema() -> Schema:
    """The types the /scale handler's field manager merges by: autoscaling/v1 Scale (alike in every release)."""
    from . import schema

    return schema.builtin(scalehandler.SCALE_API_VERSION, scalehandler.SCALE_KIND)


@functools.cache
def _creater(api_version: str, kind: str) -> Callable[[], dict[str, Any]]:
    """The scheme's creater of a kind: one for every store, so that the field manager knows the
    creations it has seen (managedfields._CREATIONS_OWNING_NOTHING)."""
    return functools.partial(codec.empty, api_version, kind)


def _empty(api_version: str, kind: str) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind}




def _ignore_timestamp_only_changes(before: dict[str, Any] | None,
                                   after: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """IgnoreManagedFieldsTimestampsTransformer: if only entry times moved, the old entries stay.
    The object to store, and whether it differs from ``before`` (value.Equals), found on the way."""
    if before is None:
        return after, not values_equal(before, after)

    def untimed(obj: dict[str, Any]) -> Any:
        entries = (obj.get("metadata") or {}).get("managedFields") or ()
        return [{k: v for k, v in e.items() if k != "time"} for e in entries]

    if untimed(before) != untimed(after):
        return after, True  # entries that differ (as Python compares JSON, values.Equals does too)
    old_entries = (before.get("metadata") or {}).get("managedFields")
    candidate = after
    if old_entries is not None:
        # Shared, not copied: stored objects are never changed in place, and the entries keep their
        # FieldsV1 objects, which the field manager's memo knows (decoded without parsing again).
        candidate = {**after, "metadata": {**(after.get("metadata") or {}), "managedFields": old_entries}}
    if values_equal(candidate, before):
        return candidate, False
    return after, True  # what differs is not the entries, which are all the candidate took from before


def run_case(schema: Schema, api_version: str, kind: str, current: dict[str, Any] | None,
             steps: list[dict[str, Any]], status_subresource: bool = False, patch_meta: Any = None,
             custom_resource: bool = False, kubernetes_version: str = CORPUS_RELEASE,
             scale: scalehandler.ScalePaths | None = None) -> list[dict]:
    """Every step's result as the protocol carries it, with the rules of Kubernetes ``kubernetes_version``
    (e.g. "1.34"): list-map items naming some of their keys, duplicates in live objects, what an
    update that cannot be tracked leaves in managedFields."""
    release = release_of(kubernetes_version)
    schema = schema.with_partial_keys(release >= PARTIAL_KEYS_SINCE)
    store = Store(schema, api_version, kind, status_subresource, custom_resource, patch_meta=patch_meta,
                  release=release, scale=scale)
    store.start(current)
    return [store.run(Step.from_json(step)).to_json() for step in steps]


def release_of(version: str) -> tuple[int, int]:
    """'1.34', 'v1.34.2' -> (1, 34)."""
    match = re.match(r"v?([0-9]+)\.([0-9]+)", version)
    if match is None:
        raise ValueError(f"not a Kubernetes release: {version!r} (give e.g. 1.34)")
    return int(match.group(1)), int(match.group(2))
