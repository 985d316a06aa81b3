"""The public library API (``import patchconf``) judged by the corpus: every case of a flow the API
offers, answered through the API and judged as ``patchconf run`` judges the reference target, so
its expectations are Kubernetes' own (each case says which judge confirmed it)."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

import patchconf
from patchconf.harness import BUNDLED_CASES_DIR
from patchconf.harness.corpus.cases import Case, load_corpus
from patchconf.harness.running.runner import PASS, judge
from patchconf.harness.targets.base import Actual, ActualError
from patchconf.harness.targets.reference import ReferenceTarget
from patchconf.reference_impl import kubernetes_object
from patchconf.reference_impl.object_meta import check_readable_metadata
from patchconf.reference_impl.ssa.request import entries_of, shown

REFERENCE = ReferenceTarget()
FLOWS = ("json-patch", "merge-patch", "merge-patch-2way", "merge-patch-3way", "strategic", "strategic-2way",
         "strategic-3way", "apply", "server-side-apply")


def _cases(flow: str) -> list[Case]:
    """The flow's cases the reference target runs (the API is its library face), on built-in kinds or
    none, with no option but kubectl's --overwrite, and none written for a server's storage (those
    the target runs through a whole apiserver request, not a library call)."""
    corpus = load_corpus([BUNDLED_CASES_DIR / flow])
    return [case for case in corpus.cases
            if case.type == flow and (case.schema is None or not case.schema.named)
            and (not case.targets or ("reference" in case.targets and "live" not in case.targets))
            and case.options.keys() <= {"overwrite"} and _offered(case)]


def _answer(case: Case) -> Actual:
    """The case through the public API, written out as the reference target writes its answers."""
    try:
        return _through_api(case)
    except patchconf.PatchError as exc:
        return Actual(error=ActualError(exc.error_class, exc.message))


def _through_api(case: Case) -> Actual:
    inputs = {key: case.input(key) for key in case.inputs}
    original = inputs.get("original")
    schema = case.effective_schema()
    kind = {"api_version": schema.api_version, "kind": schema.kind} if schema is not None else {}
    if schema is not None and schema.version:
        kind["kubernetes_version"] = schema.version
    if case.type in ("json-patch", "merge-patch", "strategic") and kubernetes_object.is_object(original):
        check_readable_metadata(original)  # kubectl reads the object from a file first, as the target models
    if case.type == "json-patch":
        document = patchconf.apply_json_patch(kubernetes_object.through_go_json(original),
                                              kubernetes_object.through_yaml(inputs["patch"]))
    elif case.type == "merge-patch":
        document = patchconf.apply_merge_patch(kubernetes_object.through_go_json(original), inputs["patch"])
    elif case.type == "strategic":
        document = patchconf.apply_strategic_merge_patch(
            kubernetes_object.through_go_json(original) if kubernetes_object.is_object(original)
            else kubernetes_object.as_decoded(original), inputs["patch"], **kind)
    elif case.type == "merge-patch-2way":
        patch = patchconf.create_merge_patch(original, inputs["modified"])
        return Actual(patch=kubernetes_object.through_float64(patch))
    elif case.type == "merge-patch-3way":
        patch = patchconf.create_three_way_merge_patch(original, inputs["modified"], inputs["current"])
        return Actual(patch=kubernetes_object.through_float64(patch))
    elif case.type == "strategic-2way":
        patch = patchconf.create_strategic_merge_patch(original, inputs["modified"], **kind)
        return _created(patch, original, kind)
    elif case.type == "strategic-3way":
        patch = patchconf.create_three_way_strategic_merge_patch(
            original, inputs["modified"], inputs["current"], overwrite=bool(case.options.get("overwrite", True)),
            **kind)
        return _created(patch, inputs["current"], kind)
    elif case.type == "apply":
        return _kubectl_apply(case, inputs)
    else:
        return _server_side_apply(inputs)
    if kubernetes_object.is_object(original):
        return Actual(document=kubernetes_object.read_back(document))
    return Actual(document=kubernetes_object.through_go_json(document))


def _created(patch: Any, document: Any, kind: dict[str, str]) -> Actual:
    patch = kubernetes_object.through_go_json(patch)
    try:
        patched = patchconf.apply_strategic_merge_patch(document, patch, **kind)
    except patchconf.PatchError:
        return Actual(patch=patch)
    return Actual(patch=patch, document=kubernetes_object.through_go_json(patched))


def _kubectl_apply(case: Case, inputs: dict[str, Any]) -> Actual:
    from patchconf.reference_impl.kubectl_apply import set_last_applied

    live = inputs.get("current")
    if live is not None and "original" in inputs:
        live = set_last_applied(live, inputs["original"])
    outcome = patchconf.kubectl_apply(inputs["modified"], live, overwrite=bool(case.options.get("overwrite", True)))
    return Actual(document=outcome.live) if outcome.patch is None else Actual(patch=outcome.patch,
                                                                              document=outcome.live)


def _server_side_apply(inputs: dict[str, Any]) -> Actual:
    current, steps = inputs.get("current"), inputs["steps"]
    first = current if isinstance(current, dict) else next(s["object"] for s in steps if "object" in s)
    server = patchconf.ServerSideApply(first["apiVersion"], first["kind"], current=current)
    answers = []
    for step in steps:
        options = {"subresource": step.get("subresource") or ""}
        try:
            if step["op"] == "apply":
                stored = server.apply(step["object"], step.get("manager"), force=bool(step.get("force")), **options)
            elif step["op"] == "update":
                stored = server.update(step["object"], step.get("manager"), **options)
            else:
                stored = server.patch(step["patch"], step["patch_type"], step.get("manager"), **options)
        except patchconf.RequestError as exc:
            error = {"class": exc.error_class, "message": exc.message, "status": exc.status, "reason": exc.reason}
            if exc.conflicts:
                error["conflicts"] = [{"manager": m, "field": f} for m, f in exc.conflicts]
            answers.append({"error": error})
            continue
        answers.append({"document": shown(stored), "managed_fields": entries_of(stored), "changed": server.changed})
    return Actual(document={"steps": answers})


def _offered(case: Case) -> bool:
    """Server-side apply through the API: sequences of plain requests (no migration steps) on a
    built-in kind, from their first object; every other flow: every case."""
    if case.type != "server-side-apply":
        return True
    steps = case.input("steps")
    first = case.input("current") if case.has_input("current") else next(
        (s.get("object") for s in steps if isinstance(s.get("object"), dict)), None)
    return (isinstance(first, dict)
            and not kubernetes_object.is_custom_group(str(first.get("apiVersion", "")).rpartition("/")[0])
            and all(step.get("op") in ("apply", "update", "patch") for step in steps))


@pytest.mark.parametrize("flow", FLOWS)
def test_the_api_answers_every_case_of_the_flow_as_kubernetes_does(flow):
    cases = _cases(flow)
    assert len(cases) >= 10, f"only {len(cases)} {flow} cases to judge the API by"
    failed = []
    for case in cases:
        result = judge(case, REFERENCE, _answer(case))
        if result.status != PASS:
            failed.append(f"{case.id}: {result.reason} {list(result.diff)[:3]}")
    assert not failed, "\n".join(failed[:20])


def test_the_documented_examples_hold():
    outcome = doctest.testmod(patchconf)
    assert outcome.attempted >= 2 and outcome.failed == 0
