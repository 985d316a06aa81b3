"""What a server did to an object beyond decoding and defaulting the request, and what it refused.

kube-apiserver decodes a request (its defaults included), then records in managedFields what the
request's field manager set, and only then runs mutating admission (webhooks, plugins) and the
registry's own preparation. So in an object the server answers with:

- a field no manager owns was added after the request was defaulted: by admission or the registry
  (``added``);
- a field the request's manager owns that the object lacks was taken out after it (``removed``);
- a value the request set that the server stores otherwise (``changed``: an image pointed at a
  mirror), beyond the forms the server writes values in (quantities, times) and the zero values
  its defaulting replaces, which it cannot tell from none. Only objects the request created are
  compared so, by their fields and the keys of their list elements.

The stock kube-apiserver does a few such things itself (:data:`STOCK`: its default admission
plugins, allocated addresses, a Job's generated labels); they are expected on every server and not
reported. What remains is the server's own doing on this cluster — a mutating webhook, a policy
engine, a feature it has turned off — and is reported beside a case's result, so that a difference
it causes is not read as a patch-semantics one. Refusals by admission or policy (a webhook's
denial, a 403) are reported the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from fractions import Fraction
from typing import Any

from ....reference_impl import jsonpointer
from .conventions import GENERATED_LABELS, SERVER_ANNOTATIONS, SERVER_OWNED_METADATA

ADDED, REMOVED, CHANGED, REFUSED = "added", "removed", "changed", "refused"
# Where a fact was seen, in the words a report uses.
CREATED = "original as created"
RENDERED = "expected object as the server renders it"
AFTER = "object after the request"
REQUEST = "the request"
STAGES = (CREATED, AFTER, RENDERED, REQUEST)
# Metadata every object has without a manager owning it.
UNMANAGED_METADATA = frozenset({"name", "namespace", "generateName", *SERVER_OWNED_METADATA})
SHOWN_VALUE_CHARS = 300
# Words of an error answer that come from admission or policy rather than the object's validation.
ADMISSION_REFUSAL = re.compile(r"admission webhook|denied the request|denied request|ValidatingAdmissionPolicy"
                               r"|exceeded quota|is forbidden", re.IGNORECASE)
# What the stock kube-apiserver adds or takes out after the field manager, on any cluster: Pods get
# the DefaultTolerationSeconds plugin's tolerations and the Priority plugin's priority; Services
# their allocated addresses and families, and lose the fields of a type they no longer have; Jobs
# get their generated selector and labels. ("*": any one token; a pointer covers what lies under it.)
NOT_READY_TOLERATIONS = frozenset({"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})
STOCK: dict[str, tuple[str, ...]] = {
    "Pod": ("/spec/priority", "/spec/preemptionPolicy"),
    "Service": ("/spec/clusterIP", "/spec/clusterIPs", "/spec/ipFamilies", "/spec/ipFamilyPolicy",
                "/spec/healthCheckNodePort", "/spec/ports/*/nodePort", "/spec/allocateLoadBalancerNodePorts",
                "/spec/loadBalancerClass", "/spec/externalTrafficPolicy"),
    "Job": ("/spec/selector", *(f"{labels}/{label.replace('/', '~1')}" for label in GENERATED_LABELS
                                for labels in ("/metadata/labels", "/spec/template/metadata/labels"))),
}
_DROPPED = object()

def object_changes(document: Any, manager: str | None = None, sent: Any = None) -> list[tuple[str, str, Any]]:
    """(``added``/``removed``/``changed``, JSON pointer, value) for what the server did to ``document``
    after its field manager ran: see the module's description. ``manager`` limits ``removed`` to what
    that manager owns (the request's); ``added`` looks at every manager's fields. ``sent``, the object
    the request created, gives ``changed``: a scalar the request set that the server stores otherwise,
    beyond its normal forms (quantities, times).

    An object without managedFields (a server that does not track them) gives no facts.
    """
    if not isinstance(document, dict):
        return []
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    entries = [entry for entry in metadata.get("managedFields") or []
               if isinstance(entry, dict) and entry.get("fieldsType") == "FieldsV1"
               and isinstance(entry.get("fieldsV1"), dict) and not entry.get("subresource")]
    if not entries:
        return []
    kind, observed = document.get("kind"), _observed(document)
    facts = []
    for path, value in _unowned(observed, _observed(_union([entry["fieldsV1"] for entry in entries]), "f:"), ()):
        shown_value = _reported(kind, jsonpointer.build(path), value)
        if shown_value is not _DROPPED:
            facts.append((ADDED, jsonpointer.build(path), shown_value))
    own = [entry["fieldsV1"] for entry in entries if manager is None or entry.get("manager") == manager]
    if own:
        owned = _observed(_union(own), "f:")
        facts += [(REMOVED, jsonpointer.build(path), None) for path in _missing(observed, owned, ())
                  if not _stock(kind, jsonpointer.build(path), None)]
        if isinstance(sent, dict):
            facts += [(CHANGED, jsonpointer.build(path), f"{shown(now)} (sent {shown(was)})")
                      for path, was, now in _rewritten(_observed(sent), observed, owned, ())
                      if not _stock(kind, jsonpointer.build(path), now)]
    return facts


def _observed(document: dict, prefix: str = "") -> dict:
    """The object (or, with ``prefix`` "f:", a field set) without what no manager ever owns: identity,
    server-owned metadata and annotations, status."""
    observed = {key: value for key, value in document.items()
                if key not in {prefix + name for name in ("apiVersion", "kind", "status")}}
    metadata = observed.get(prefix + "metadata")
    if isinstance(metadata, dict):
        metadata = {key: value for key, value in metadata.items()
                    if key not in {prefix + name for name in UNMANAGED_METADATA}}
        annotations = metadata.get(prefix + "annotations")
        if isinstance(annotations, dict):
            metadata[prefix + "annotations"] = {key: value for key, value in annotations.items()
                                                if key not in {prefix + name for name in SERVER_ANNOTATIONS}}
        observed[prefix + "metadata"] = metadata
    return observed


def _union(sets: list[dict]) -> dict:
    merged: dict = {}
    for fields in sets:
        for key, child in fields.items():
            if key in merged and isinstance(child, dict) and isinstance(merged[key], dict):
                merged[key] = _union([merged[key], child])
            elif key in merged and merged[key] == {}:
                continue  # an atomic owner covers the whole value already
            else:
                merged[key] = child if isinstance(child, dict) else {}
    return merged


def _element_set(fields: dict, index: int, item: Any) -> dict | None:
    """The field set of one list element: by its key fields (k:), its value (v:) or its index (i:)."""
    for key, child in fields.items():
        if key.startswith("k:") and isinstance(item, dict):
            try:
                keys = json.loads(key[2:])
            except ValueError:
                continue
            if isinstance(keys, dict) and all(item.get(name) == value for name, value in keys.items()):
                return child
        elif key.startswith("v:"):
            try:
                if json.loads(key[2:]) == item:
                    return child
            except ValueError:
                continue
        elif key == f"i:{index}":
            return child
    return None


def _unowned(node: Any, fields: dict | None, path: tuple) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of what no manager owns; ``fields`` None: nothing under ``node`` is owned. Maps
    are followed down to their members, so a fact names the label or field added; a list element
    is reported whole (a sidecar container)."""
    if fields == {}:  # owned whole (a leaf, or an atomic map or list)
        return
    if isinstance(node, dict):
        for key, value in node.items():
            child = None if fields is None else fields.get(f"f:{key}")
            if child is None and not isinstance(value, dict):
                if value is not None:  # a null is the typed round trip's, never a value set
                    yield (*path, key), value
            else:
                yield from _unowned(value, child, (*path, key))
    elif fields is None:
        yield path, node
    elif isinstance(node, list):
        for index, item in enumerate(node):
            element = _element_set(fields, index, item)
            if element is None:
                yield (*path, index), item
            else:
                yield from _unowned(item, element, (*path, index))


def _missing(node: Any, fields: dict, path: tuple) -> Iterator[tuple]:
    """Owned fields the object lacks (map members only: a list element's set names it by value)."""
    if not isinstance(node, dict):
        return
    for key, child in fields.items():
        if not key.startswith("f:"):
            continue
        name = key[2:]
        if name not in node:
            yield (*path, name)
        elif isinstance(child, dict) and child:
            value = node[name]
            if isinstance(value, dict):
                yield from _missing(value, child, (*path, name))
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    element = _element_set(child, index, item)
                    if element:
                        yield from _missing(item, element, (*path, name, index))


def _rewritten(sent: Any, stored: Any, fields: dict, path: tuple) -> Iterator[tuple[tuple, Any, Any]]:
    """(path, sent value, stored value) of the scalars the request set and the server stores otherwise.
    Keyed list elements are paired by their keys, so an element injected before them shifts nothing;
    lists of values or positions, and atomic lists and maps, are not compared."""
    if isinstance(sent, dict) and isinstance(stored, dict):
        for key, child in fields.items():
            name = key[2:]
            if key.startswith("f:") and name in sent and name in stored:
                yield from _rewritten(sent[name], stored[name], child, (*path, name))
    elif isinstance(sent, list) and isinstance(stored, list):
        for index, item in enumerate(stored):
            element = _element_set(fields, index, item)
            key = next((k for k, v in fields.items() if v is element and k.startswith("k:")), None)
            if element is None or key is None:
                continue
            keys = json.loads(key[2:])
            twin = next((candidate for candidate in sent if isinstance(candidate, dict)
                         and all(candidate.get(name) == value for name, value in keys.items())), None)
            if twin is not None:
                yield from _rewritten(twin, item, element, (*path, index))
    elif (not isinstance(sent, (dict, list)) and not isinstance(stored, (dict, list))
          and sent is not None and stored is not None and not _same_scalar(sent, stored)):
        yield path, sent, stored


_QUANTITY = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?")
_SUFFIXES = {"": 1, "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "k": 10**3,
             "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
             **{suffix: 1024 ** power for power, suffix in enumerate(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"), 1)}}


def _quantity(text: str) -> Fraction | None:
    match = _QUANTITY.fullmatch(text.strip())
    if not match:
        return None
    number, suffix = Fraction(match.group(1)), match.group(2) or ""
    if suffix[:1] in ("e", "E"):
        return number * Fraction(10) ** int(suffix[1:])
    return number * _SUFFIXES[suffix]


def _same_scalar(sent: Any, stored: Any) -> bool:
    """Equal, the same value in the server's normal form (a quantity: "0.5" is "500m"; a time), or a
    zero value the server's defaulting replaced (a targetPort of 0 becomes the port)."""
    if type(sent) is not type(stored) and not (isinstance(sent, (int, float)) and isinstance(stored, (int, float))):
        return isinstance(stored, str) and str(sent) == stored  # a number sent for a string field
    if sent == stored or sent in ("", 0, False):  # Go's defaulting cannot tell a zero value from none
        return True
    if isinstance(sent, str) and isinstance(stored, str):
        quantities = _quantity(sent), _quantity(stored)
        if None not in quantities:
            return quantities[0] == quantities[1]
        try:
            return datetime.fromisoformat(sent) == datetime.fromisoformat(stored)
        except ValueError:
            return False
    return False


def _stock(kind: Any, where: str, value: Any) -> bool:
    if kind == "Pod" and re.fullmatch(r"/spec/tolerations/\d+", where):
        return isinstance(value, dict) and value.get("key") in NOT_READY_TOLERATIONS
    # a pattern covers what lies under it too (a generated selector's labels)
    return any(re.fullmatch(re.escape(pattern).replace(r"\*", r"[^/]+") + "(/.*)?", where)
               for pattern in STOCK.get(kind, ()))


def _reported(kind: Any, where: str, value: Any) -> Any:
    """An added value as reported: without nulls and empty strings (the typed round trip's: a string
    field Go always writes, such as a StatefulSet's serviceName), empty maps and lists, and what the
    stock server adds; _DROPPED when nothing is left."""
    if value is None or value == "" or _stock(kind, where, value):
        return _DROPPED
    if isinstance(value, dict):
        kept = {key: reported for key, child in value.items()
                if (reported := _reported(kind, jsonpointer.join(where, key), child)) is not _DROPPED}
        return kept or _DROPPED
    if isinstance(value, list):
        items = [reported for index, child in enumerate(value)
                 if (reported := _reported(kind, f"{where}/{index}", child)) is not _DROPPED]
        return items or _DROPPED
    return value


def refusal(status: int, reason: str, message: str) -> str | None:
    """An error answer as an admission or policy refusal ("403 Forbidden: ..."), or None when it is not one."""
    if status == 403 or ADMISSION_REFUSAL.search(message or ""):
        shown = message if len(message) <= SHOWN_VALUE_CHARS else message[:SHOWN_VALUE_CHARS] + "…"
        return f"{status} {reason or 'refused'}: {shown}"
    return None


def shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    return text if len(text) <= SHOWN_VALUE_CHARS else text[:SHOWN_VALUE_CHARS] + "…"


class ServerChanges:
    """Facts per case, gathered while it runs and judged, handed to its result once."""

    def __init__(self) -> None:
        self._facts: dict[str, dict[tuple[str, str, str], list[str]]] = {}

    def note(self, case_id: str, stage: str, facts: list[tuple[str, str, Any]]) -> None:
        found = self._facts.setdefault(case_id, {})
        for change, where, value in facts:
            text = "" if change == REMOVED else value if change in (REFUSED, CHANGED) else shown(value)
            stages = found.setdefault((change, where, text), [])
            if stage not in stages:
                stages.append(stage)

    def take(self, case_id: str) -> tuple[dict[str, Any], ...]:
        """The case's facts, in a stable order (stage, then pointer), forgotten here."""
        found = self._facts.pop(case_id, {})
        facts = [{"change": change, "pointer": where, **({"value": text} if text else {}),
                  "seen_in": sorted(stages, key=STAGES.index)}
                 for (change, where, text), stages in found.items()]
        return tuple(sorted(facts, key=lambda f: (STAGES.index(f["seen_in"][0]), f["change"], f["pointer"])))

    def forget(self, case_id: str) -> None:
        self._facts.pop(case_id, None)

