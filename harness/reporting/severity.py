"""How bad a departure is, decided from the difference itself, never by hand.

A failed result's expected and actual objects are compared, with the object as it was before
(the live object of an apply or three-way merge, the original of a patch) to tell what should
have changed from what should have stayed. Each difference gets a severity, the result the worst:

- *security*: a change that widens or closes access: a NetworkPolicy's rules or selector, RBAC
  rules, subjects and role, a Service's exposure, a pod's security settings;
- *data loss*: an element or field the configuration or another actor owns is removed (a
  container, a finalizer, a port, a volume, a member);
- *drift*: a field that should go stays, a field that should change does not (or changes to
  something else), an error where Kubernetes succeeds or a success where it refuses;
- *cosmetic*: ordering, the last-applied annotation, a value nobody stated spelled out (a
  default), another error class for the same refusal.

Elements of a list of objects are matched by the key they carry (name, port, mountPath, ...), so a
container whose image did not change is drift, a container gone is data loss.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...reference_impl.patch_types import patch_type
from ..corpus.compare import json_equal
from ..running.apply_aspects import LAST_APPLIED, without_last_applied
from ..running.runner import FAIL, Result

SECURITY, DATA_LOSS, DRIFT, COSMETIC = "security", "data loss", "drift", "cosmetic"
SEVERITIES = (SECURITY, DATA_LOSS, DRIFT, COSMETIC)  # worst first

# Members that decide access, wherever they are (a pod template's too)
SECURITY_MEMBERS = frozenset({"securityContext", "hostNetwork", "hostPID", "hostIPC", "privileged",
                              "serviceAccountName", "automountServiceAccountToken", "capabilities"})
# A kind's members that decide access, by their path's first members
SECURITY_PATHS = {
    "NetworkPolicy": (("spec", "ingress"), ("spec", "egress"), ("spec", "policyTypes"), ("spec", "podSelector")),
    "Role": (("rules",),), "ClusterRole": (("rules",), ("aggregationRule",)),
    "RoleBinding": (("subjects",), ("roleRef",)), "ClusterRoleBinding": (("subjects",), ("roleRef",)),
    "Service": (("spec", "type"), ("spec", "externalIPs"), ("spec", "loadBalancerSourceRanges"),
                ("spec", "externalName"), ("spec", "externalTrafficPolicy")),
}
# The keys elements of a list of objects are told apart by (Kubernetes' merge keys, most common first)
ELEMENT_KEYS = ("name", "containerPort", "port", "mountPath", "devicePath", "ip", "topologyKey", "type")


def severity(result: Result) -> str | None:
    """The worst severity of a failed result's differences; None for any other result (an error is a
    target that did not answer, not a departure)."""
    if result.status != FAIL:
        return None
    found = [level for level, _ in differences(result)]
    return min(found, key=SEVERITIES.index) if found else DRIFT


def differences(result: Result) -> list[tuple[str, str]]:
    """Each difference of a failed result as (severity, where and what)."""
    expected, actual, case = result.expected, result.actual, result.case
    if "steps" in case.inputs:
        return list(_steps_differences(expected.get("expected"), actual.get("document"),
                                       case.inputs.get("current")))
    before = _before(case)
    want_error, got_error = "expected_error" in expected, "error" in actual
    if want_error and got_error:
        return [(COSMETIC, "another error for the same refusal")]
    want = before if want_error else expected.get("expected", expected.get("expected_patch"))
    got = before if got_error else actual.get("document", actual.get("patch"))
    if (want_error or got_error) and "expected" not in expected and "document" not in actual:
        return [(DRIFT, "the target refused the request" if got_error else "the target did not refuse the request")]
    found = list(_object_differences(want, got, before, _kind(want, got)))
    if want_error or got_error:
        # what the request asked went through where Kubernetes refuses it, or did not where it succeeds: the
        # object is not where it should be (drift), and where that decides access, a security matter
        said = "Kubernetes refuses the request" if want_error else "the target refused the request"
        found = [(SECURITY if level == SECURITY else DRIFT, f"{where} ({said})") for level, where in found
                 if level != COSMETIC or got_error] or [(DRIFT, said)]
    return found


def _before(case: Any) -> Any:
    inputs = case.inputs
    return inputs.get("current") if patch_type(case.type).three_way else inputs.get("original")


def _kind(*documents: Any) -> str:
    return next((document["kind"] for document in documents
                 if isinstance(document, dict) and isinstance(document.get("kind"), str)), "")


def _steps_differences(want: Any, got: Any, current: Any) -> Iterator[tuple[str, str]]:
    """A server-side apply's steps, each object against the one before it."""
    want_steps = want.get("steps") if isinstance(want, dict) else None
    got_steps = got.get("steps") if isinstance(got, dict) else None
    if not isinstance(want_steps, list) or not isinstance(got_steps, list) or len(want_steps) != len(got_steps):
        yield DRIFT, "the steps' results differ in number or shape"
        return
    before = current
    for number, (wanted, answered) in enumerate(zip(want_steps, got_steps, strict=True), start=1):
        if not isinstance(wanted, dict) or not isinstance(answered, dict):
            continue
        if ("expected_error" in wanted) != ("error" in answered):
            yield DRIFT, f"step {number}: " + ("refused" if "error" in answered else "not refused")
        elif "expected" in wanted and "document" in answered:
            for level, where in _object_differences(wanted["expected"], answered["document"], before,
                                                    _kind(wanted["expected"], answered["document"])):
                yield level, f"step {number}: {where}"
            before = wanted["expected"]
        if "expected_managed_fields" in wanted and not json_equal(wanted["expected_managed_fields"],
                                                                  answered.get("managed_fields")):
            yield DRIFT, f"step {number}: managedFields (who owns what, and so what a later apply removes)"


def _object_differences(want: Any, got: Any, before: Any, kind: str) -> Iterator[tuple[str, str]]:
    """Differences between two objects, the last-applied annotation's text apart (cosmetic, last)."""
    yield from _walk(without_last_applied(want), without_last_applied(got), before, (), kind)
    if _annotation(want) != _annotation(got):
        yield COSMETIC, f"/metadata/annotations/{LAST_APPLIED}: its text"


def _annotation(document: Any) -> Any:
    metadata = document.get("metadata") if isinstance(document, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return annotations.get(LAST_APPLIED) if isinstance(annotations, dict) else None


_ABSENT = object()


def _walk(want: Any, got: Any, before: Any, path: tuple, kind: str) -> Iterator[tuple[str, str]]:
    if json_equal(want, got):
        return
    where = "/" + "/".join(str(part) for part in path)
    security = _is_security(path, kind)
    if want is _ABSENT:  # present where Kubernetes leaves nothing
        if before is not _ABSENT:
            stays = "stays," if json_equal(before, got) else "stays, with another value,"
            yield (SECURITY if security else DRIFT), f"{where}: {stays} though it should go"
        else:
            yield (SECURITY if security else COSMETIC), f"{where}: added, though nobody stated it"
        return
    if got is _ABSENT:
        yield (SECURITY if security else DATA_LOSS), f"{where}: removed"
        return
    if isinstance(want, dict) and isinstance(got, dict):
        for key in [*want, *(key for key in got if key not in want)]:
            previous = before.get(key, _ABSENT) if isinstance(before, dict) else _ABSENT
            yield from _walk(want.get(key, _ABSENT), got.get(key, _ABSENT), previous, (*path, key), kind)
        return
    if isinstance(want, list) and isinstance(got, list):
        yield from _list_differences(want, got, before, path, kind, security)
        return
    if before is not _ABSENT and json_equal(before, got):
        yield (SECURITY if security else DRIFT), f"{where}: unchanged, though it should change"
    else:
        yield (SECURITY if security else DRIFT), f"{where}: another value"


def _list_differences(want: list, got: list, before: Any, path: tuple, kind: str,
                      security: bool) -> Iterator[tuple[str, str]]:
    where = "/" + "/".join(str(part) for part in path)
    key = _element_key(want, got)
    if key is None:  # elements as wholes: which are missing, which are extra, else only their order
        missing = [item for item in want if not any(json_equal(item, other) for other in got)]
        extra = [item for item in got if not any(json_equal(item, other) for other in want)]
        previous = before if isinstance(before, list) else []
        if missing:
            yield (SECURITY if security else DATA_LOSS), f"{where}: {len(missing)} element(s) removed"
        if extra:
            stayed = all(any(json_equal(item, old) for old in previous) for item in extra)
            level = SECURITY if security else (DRIFT if stayed else COSMETIC)
            yield level, f"{where}: {len(extra)} element(s) " + ("stay" if stayed else "added")
        if not missing and not extra:
            yield (SECURITY if security else COSMETIC), f"{where}: another order"
        return
    wanted = {_element_id(item, key): item for item in want}
    answered = {_element_id(item, key): item for item in got}
    previous: dict[str, list] = {}
    for item in before if isinstance(before, list) else ():
        if isinstance(item, dict):
            previous.setdefault(_element_id(item, key), []).append(item)
    for identity in [*wanted, *(identity for identity in answered if identity not in wanted)]:
        answer = answered.get(identity, _ABSENT)
        # the live list may hold several elements of one key (Kubernetes allows some): the one answered, if any
        candidates = previous.get(identity, [])
        old = next((item for item in candidates if json_equal(item, answer)), candidates[0] if candidates else _ABSENT)
        yield from _walk(wanted.get(identity, _ABSENT), answer, old, (*path, f"{key}={identity}"), kind)
    if [i for i in wanted if i in answered] != [i for i in answered if i in wanted]:
        yield (SECURITY if security else COSMETIC), f"{where}: another order"


def _element_key(want: list, got: list) -> str | None:
    """The key every element of both lists carries, all of them objects, values unique on each side."""
    items = [*want, *got]
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    for key in ELEMENT_KEYS:
        if all(key in item for item in items) and all(
                len({_element_id(item, key) for item in side}) == len(side) for side in (want, got)):
            return key
    return None


def _element_id(item: dict, key: str) -> str:
    return str(item.get(key))


def _is_security(path: tuple, kind: str) -> bool:
    if any(isinstance(part, str) and part.split("=", 1)[0] in SECURITY_MEMBERS for part in path):
        return True
    return any(path[:len(prefix)] == prefix for prefix in SECURITY_PATHS.get(kind, ()))


def worst_departures(results: Iterable[Result]) -> list[tuple[str, int, Result, str]]:
    """Per severity, worst first, of the failed results: how many, and one example (the first in case
    order) with its difference of that severity."""
    by_level: dict[str, list[tuple[Result, str]]] = {}
    for result in results:
        level = severity(result)
        if level is None:
            continue
        where = next((text for found, text in differences(result) if found == level), "")
        by_level.setdefault(level, []).append((result, where))
    return [(level, len(by_level[level]), *by_level[level][0]) for level in SEVERITIES if level in by_level]


def severity_counts(results: Iterable[Result]) -> dict[str, int]:
    """How many failed results are of each severity (their worst difference), worst first."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for result in results:
        level = severity(result)
        if level is not None:
            counts[level] += 1
    return counts


def worst_departures_markdown(results: Iterable[Result]) -> list[str]:
    """A page's lead: its departures by severity, worst first, one example each."""
    found = worst_departures(results)
    if not found:
        return ["No departures: every case that ran matched."]
    return ["| severity | cases | example | the difference |", "|---|---:|---|---|",
            *(f"| {level} | {count} | `{example.case.id}` | {_cell(where)} |"
              for level, count, example, where in found)]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
