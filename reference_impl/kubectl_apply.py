"""kubectl's client-side apply (``kubectl apply``, v1.32), offline.

kubectl keeps what it last applied in the object's
``kubectl.kubernetes.io/last-applied-configuration`` annotation, and each apply sends a
three-way patch built from that configuration (``original``), the new configuration
(``modified``) and the live object (``current``). This module follows
``k8s.io/kubectl/pkg/cmd/apply`` (``Patcher.patchSimple``) and ``pkg/util/apply.go``:

- The configuration is read as an ``Unstructured`` object (a ``kind`` is required) whose
  metadata decodes into ``ObjectMeta`` (cli-runtime's file reader:
  :mod:`patchconf.reference_impl.object_meta`), and annotated
  (``GetModifiedConfiguration``): the annotation holds the JSON of the configuration
  *without* the annotation, as Go's ``encoding/json`` writes it (keys sorted, HTML-safe
  escapes, a final newline), and that configuration carries an empty
  ``metadata.annotations: {}`` when it had no annotations.
- No live object: kubectl creates the configuration with the annotation set (and, since
  1.31, without its null members; the annotation keeps them).
- A live object without the annotation: ``original`` is empty (kubectl warns and patches
  anyway), so nothing the configuration lacks is deleted.
- Kinds with a strategic schema get ``CreateThreeWayMergePatch`` (overwrite by default,
  no preconditions); other kinds (custom resources) a three-way JSON merge patch with
  the apiVersion/kind/name preconditions. (kubectl means to reword their failure as "At
  least one of apiVersion, kind and name was changed", but jsonmergepatch reports it as a
  plain error that ``mergepatch.IsPreconditionFailed`` does not recognise, so the
  "precondition failed for: …" message reaches the user.)
- An empty patch (``{}``) is not sent; otherwise the live result is the patch applied to
  the live object as the apiserver applies that patch type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import kubernetes_object, merge_patch
from .errors import InvalidDocument
from .govalue import encoding_json, utiljson
from .object_meta import check_readable_metadata
from .strategic.apply import apply as strategic_apply
from .strategic.create import create_three_way
from .strategic.patchmeta import PatchMeta

Json = Any

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
STRATEGIC, MERGE, CREATE = "strategic", "merge", "create"


@dataclass(frozen=True)
class ApplyResult:
    """What one ``kubectl apply`` of one object does.

    ``patch_type`` is ``create`` (no live object: ``patch`` is ``None``), ``strategic``
    or ``merge``; ``live`` is the object as the apiserver stores it afterwards.
    """

    patch_type: str
    patch: dict | None
    live: dict


def apply(configuration: Json, live: Json, meta: PatchMeta | None, overwrite: bool = True) -> ApplyResult:
    """Apply ``configuration`` over ``live`` (``None``: the object does not exist yet).

    ``meta`` is the strategic patch metadata of the kind, or ``None`` for a kind without
    a strategic schema (kubectl then sends a JSON merge patch).
    """
    config = decode_object(configuration)
    # kubectl reads the file with cli-runtime's builder, which also wants its metadata to
    # decode into ObjectMeta (as written: 2.0 is no int64).
    check_readable_metadata(configuration)
    if live is None:
        text = modified_configuration(config, annotate=False)
        created = _with_annotations(config, {**_annotations(config), LAST_APPLIED: text})
        # kubectl (1.31+) drops null members from what it creates, after writing the
        # annotation, so a create stores what an update apply of the same file would.
        return ApplyResult(CREATE, None, _without_null_members(created))
    # kubectl diffs the JSON it writes of both (read back: the same values, keys sorted).
    modified = encoding_json.as_written(_annotated(config))
    current_object = decode_object(live)
    current = encoding_json.as_written(current_object)
    original_text = _annotations(current_object).get(LAST_APPLIED)
    original = _decode_last_applied(original_text)
    if meta is not None:
        patch = create_three_way(original, modified, current, meta, overwrite=overwrite)
        patch = utiljson.through_go_json(patch)  # sent as JSON, as Go writes it
        patch_type = STRATEGIC
    else:
        patch = merge_patch.create_three_way(original, modified, current)
        # jsonmergepatch decodes every number as a float64.
        patch = encoding_json.through_float64(patch)
        patch_type = MERGE
    if patch == {}:
        return ApplyResult(patch_type, patch, current)
    result = strategic_apply(current, patch, meta) if patch_type == STRATEGIC else merge_patch.apply(current, patch)
    return ApplyResult(patch_type, patch, utiljson.through_go_json(result))


def last_applied_configuration(configuration: Json) -> str:
    """The annotation value kubectl writes for ``configuration`` (``GetModifiedConfiguration(obj, false)``)."""
    return modified_configuration(decode_object(configuration), annotate=False)


def modified_configuration(config: dict, annotate: bool) -> str:
    """The JSON of ``config`` as kubectl sends it (``GetModifiedConfiguration``).

    The configuration is encoded without its last-applied annotation; with ``annotate``
    that text is put into the annotation and the configuration encoded again.
    """
    return encoding_json.encode(_annotated(config) if annotate else _without_last_applied(config)) + "\n"


def _annotated(config: dict) -> dict:
    """``config`` as kubectl sends it: annotated with ``modified_configuration(config, annotate=False)``."""
    annotations = _annotations(config)
    annotations.pop(LAST_APPLIED, None)
    annotations[LAST_APPLIED] = modified_configuration(config, annotate=False)
    return _with_annotations(config, annotations)


def _without_last_applied(config: dict) -> dict:
    annotations = _annotations(config)
    annotations.pop(LAST_APPLIED, None)
    return _with_annotations(config, annotations)


def set_last_applied(live: Json, configuration: Json) -> dict:
    """``live`` as kubectl left it after applying ``configuration`` (``None``: never applied).

    The annotation holds ``last_applied_configuration(configuration)``; a configuration
    that is not an object kubectl could read is stored as its JSON text.
    """
    live_object = decode_object(live)
    annotations = _annotations(live_object)
    if configuration is None:
        if LAST_APPLIED not in annotations:
            return live_object
        del annotations[LAST_APPLIED]
        return _with_annotations(live_object, annotations or None)
    try:
        text = last_applied_configuration(configuration)
    except InvalidDocument:
        text = encoding_json.encode(configuration) + "\n"
    return _with_annotations(live_object, {**annotations, LAST_APPLIED: text})


def decode_object(document: Json) -> dict:
    """``document`` read as kubectl reads an object (``Unstructured``: numbers as int64/float64)."""
    return kubernetes_object.read_back(document)  # a new structure: the document stays as it was


def _without_null_members(value: Json) -> Json:
    """``value`` without null map members at any depth (kubectl's ``pruneNullsFromMap``)."""
    if isinstance(value, dict):
        return {key: _without_null_members(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_null_members(item) for item in value]
    return value


def _decode_last_applied(text: str | None) -> Json:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise InvalidDocument("invalid JSON document") from None


def _annotations(obj: dict) -> dict[str, str]:
    """A copy of the object's annotations, or ``{}`` where Go's ``GetAnnotations`` finds none.

    (Annotations that are not all strings read as none, as ``NestedStringMap`` fails.)
    """
    metadata = obj.get("metadata")
    if type(metadata) is not dict:
        return {}
    annotations = metadata.get("annotations")
    if type(annotations) is not dict or any(type(value) is not str for value in annotations.values()):
        return {}
    return dict(annotations)


def _with_annotations(obj: dict, annotations: dict[str, str] | None) -> dict:
    """A copy of ``obj`` with ``metadata.annotations`` set (``None`` removes them), as
    ``Unstructured.SetAnnotations`` does: a missing ``metadata`` is created, a
    ``metadata`` that is not a map is left alone."""
    result = dict(obj)
    metadata = result.get("metadata")
    if "metadata" in result and type(metadata) is not dict:
        return result
    metadata = dict(metadata or {})
    if annotations is None:
        metadata.pop("annotations", None)
    else:
        metadata["annotations"] = dict(annotations)
    result["metadata"] = metadata
    return result
