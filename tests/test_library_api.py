"""The public library API (``import patchconf``) judged by the corpus: every case of a flow the API
offers, answered through the API and judged as ``patchconf run`` judges the reference target, so
its expectations are Kubernetes' own (each case says which judge confirmed it)."""

from __future__ import annotations

import ast
import datetime
import doctest
import itertools
import re
from typing import Any

import pytest

import patchconf
from patchconf.harness import BUNDLED_CASES_DIR, SOURCE_ROOT
from patchconf.harness.corpus.cases import Case, load_corpus
from patchconf.harness.running.runner import PASS, judge
from patchconf.harness.targets.base import Actual, ActualError
from patchconf.harness.targets.reference import ReferenceTarget
from patchconf.reference_impl import kubernetes_object
from patchconf.reference_impl.govalue import encoding_json, goyaml, utiljson
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
        document = patchconf.apply_json_patch(utiljson.through_go_json(original),
                                              goyaml.through_yaml(inputs["patch"]))
    elif case.type == "merge-patch":
        document = patchconf.apply_merge_patch(utiljson.through_go_json(original), inputs["patch"])
    elif case.type == "strategic":
        document = patchconf.apply_strategic_merge_patch(
            utiljson.through_go_json(original) if kubernetes_object.is_object(original)
            else utiljson.as_decoded(original), inputs["patch"], **kind)
    elif case.type == "merge-patch-2way":
        patch = patchconf.create_merge_patch(original, inputs["modified"])
        return Actual(patch=encoding_json.through_float64(patch))
    elif case.type == "merge-patch-3way":
        patch = patchconf.create_three_way_merge_patch(original, inputs["modified"], inputs["current"])
        return Actual(patch=encoding_json.through_float64(patch))
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
    return Actual(document=utiljson.through_go_json(document))


def _created(patch: Any, document: Any, kind: dict[str, str]) -> Actual:
    patch = utiljson.through_go_json(patch)
    try:
        patched = patchconf.apply_strategic_merge_patch(document, patch, **kind)
    except patchconf.PatchError:
        return Actual(patch=patch)
    return Actual(patch=patch, document=utiljson.through_go_json(patched))


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
    # The corpus's logical clock: request n at n seconds after the epoch, read back as n.
    server = patchconf.ServerSideApply(first["apiVersion"], first["kind"], current=current,
                                       clock=itertools.count(1).__next__)
    answers = []
    for step in steps:
        options = {"subresource": step.get("subresource") or ""}
        if step.get("dry_run"):
            options["dry_run"] = True
        try:
            if step["op"] == "apply":
                stored = server.apply(step["object"], step.get("manager"), force=bool(step.get("force")), **options)
            elif step["op"] == "update":
                stored = server.update(step["object"], step.get("manager"), **options)
            elif step["op"] == "kubectl-apply":
                stored = server.kubectl_apply(step["object"], step["manager"])
            else:
                stored = server.patch(step["patch"], step["patch_type"], step.get("manager"), **options)
        except patchconf.RequestError as exc:
            error = {"class": exc.error_class, "message": exc.message, "status": exc.status, "reason": exc.reason}
            if exc.conflicts:
                error["conflicts"] = [{"manager": m, "field": f} for m, f in exc.conflicts]
            answers.append({"error": error, **_warnings(step, server)})
            continue
        stored = _logical_times(stored)
        answers.append({"document": shown(stored), "managed_fields": entries_of(stored), "changed": server.changed,
                        **_warnings(step, server)})
    return Actual(document={"steps": answers})


def _warnings(step: dict[str, Any], server: patchconf.ServerSideApply) -> dict[str, Any]:
    return {"warnings": server.warnings} if step["op"] == "kubectl-apply" else {}


def _logical_times(stored: dict[str, Any]) -> dict[str, Any]:
    for entry in stored["metadata"].get("managedFields") or []:
        if "time" in entry:
            entry["time"] = int(datetime.datetime.fromisoformat(entry["time"]).timestamp())
    return stored


def _offered(case: Case) -> bool:
    """Server-side apply through the API: sequences of plain requests and kubectl's client-side
    apply (no migration steps) on a built-in kind, from their first object; every other flow: every
    case."""
    if case.type != "server-side-apply":
        return True
    steps = case.input("steps")
    first = case.input("current") if case.has_input("current") else next(
        (s.get("object") for s in steps if isinstance(s.get("object"), dict)), None)
    return (isinstance(first, dict)
            and not kubernetes_object.is_custom_group(str(first.get("apiVersion", "")).rpartition("/")[0])
            and all(step.get("op") in ("apply", "update", "patch", "kubectl-apply") for step in steps))


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


def _readme_library_example() -> str:
    readme = (SOURCE_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## The reference as a library"):]
    return section[section.index("```python\n") + len("```python\n"):section.index("```\n", section.index("```python"))]


def test_the_readme_library_example_runs_as_written_and_gives_what_it_says():
    source = _readme_library_example()
    lines = source.splitlines()
    namespace: dict[str, Any] = {}
    checked = []
    for statement in ast.parse(source).body:
        if not isinstance(statement, ast.Expr):
            exec(compile(ast.Module([statement], []), "README.md", "exec"), namespace)
            continue
        value = eval(compile(ast.Expression(statement.value), "README.md", "eval"), namespace)
        said = lines[statement.end_lineno - 1].partition("# -> ")[2]
        if not said and statement.end_lineno < len(lines) and lines[statement.end_lineno].startswith("# -> "):
            said = lines[statement.end_lineno].removeprefix("# -> ")
        if said:
            assert value == ast.literal_eval(said), ast.unparse(statement)
            checked.append(said)
    assert len(checked) == 10
    times = [entry["time"] for entry in namespace["stored"]["metadata"]["managedFields"]]
    assert all(re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", time) for time in times)


def test_server_side_apply_stamps_the_wall_clocks_rfc_3339_time_by_default():
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    stored = patchconf.ServerSideApply("v1", "ConfigMap").apply(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}, manager="me")
    after = datetime.datetime.now(datetime.UTC)
    [entry] = stored["metadata"]["managedFields"]
    assert re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", entry["time"])
    assert before <= datetime.datetime.fromisoformat(entry["time"]) <= after


def test_a_stored_objects_rfc_3339_times_are_kept_and_ordered_as_times():
    current = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": [
        {"manager": "old", "operation": "Update", "apiVersion": "v1", "time": "2020-05-01T10:00:00Z",
         "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]}, "data": {"a": "1"}}
    server = patchconf.ServerSideApply("v1", "ConfigMap", current=current,
                                       clock=lambda: datetime.datetime(2021, 1, 2, 3, 4, 5, tzinfo=datetime.UTC))
    stored = server.update({**current, "data": {"a": "1", "b": "2"}}, manager="new")
    assert [(entry["manager"], entry["time"]) for entry in stored["metadata"]["managedFields"]] == [
        ("old", "2020-05-01T10:00:00Z"), ("new", "2021-01-02T03:04:05Z")]  # by time, as Go sorts them
    assert current["metadata"]["managedFields"][0]["time"] == "2020-05-01T10:00:00Z"  # the input is not changed
    with pytest.raises(ValueError, match=re.escape("current: metadata.managedFields[0].time 'yesterday' is not "
                                                   "an RFC 3339 time such as '2025-01-31T12:00:00Z'")):
        patchconf.ServerSideApply("v1", "ConfigMap", current={**current, "metadata": {
            "name": "c", "managedFields": [{**current["metadata"]["managedFields"][0], "time": "yesterday"}]}})


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 1}}


@pytest.mark.parametrize(("call", "message"), [
    (lambda server: server.patch({"spec": {"replicas": 2}}, "merge", manager="me"),
     "patch_type 'merge': give one of 'json-patch', 'merge-patch', 'strategic'"),
    (lambda server: server.patch({"spec": {"replicas": 2}}, "application/merge-patch+json", manager="me"),
     "patch_type 'application/merge-patch+json': give one of 'json-patch', 'merge-patch', 'strategic'"),
    (lambda server: server.apply(DEPLOYMENT, manager=7),
     "manager 7: give the field manager's name, a string (or None, which a server answers as a request without "
     "fieldManager)"),
    (lambda server: server.update(DEPLOYMENT, manager="me", subresource=None),
     "subresource None: give '' (the object), 'status' or 'scale'"),
])
def test_an_argument_no_server_could_be_sent_is_a_value_error_naming_the_choices(call, message):
    server = patchconf.ServerSideApply("apps/v1", "Deployment")
    server.apply(DEPLOYMENT, manager="me")
    server.patch({"spec": {"replicas": 3}}, "strategic", manager="me")  # once a strategic patch ran, too
    before = server.object
    with pytest.raises(ValueError) as raised:
        call(server)
    assert str(raised.value) == message
    assert server.object == before


@pytest.mark.parametrize(("api_version", "kind", "message"), [
    ("apps/v1", "Deploymnet", "apps/v1 has no kind 'Deploymnet'; its kinds: ControllerRevision, "
                              "ControllerRevisionList, DaemonSet, DaemonSetList, DeleteOptions, Deployment, "
                              "DeploymentList, ReplicaSet, ReplicaSetList, StatefulSet, StatefulSetList, WatchEvent"),
    ("", "Deployment", "api_version '': give a non-empty string, such as 'apps/v1' and 'Deployment'"),
])
def test_an_unknown_kind_is_a_value_error_naming_the_kinds(api_version, kind, message):
    with pytest.raises(ValueError) as raised:
        patchconf.ServerSideApply(api_version, kind)
    assert str(raised.value) == message


def test_an_unknown_group_version_names_the_built_in_ones():
    with pytest.raises(ValueError) as raised:
        patchconf.ServerSideApply("app/v1", "Deployment")
    assert str(raised.value).startswith("api_version 'app/v1' is no built-in group version (and has no dot, as a "
                                        "custom resource's group has); built-in: admission.k8s.io/v1, ")
    assert ", apps/v1, " in str(raised.value)


def test_a_dry_run_answers_what_would_be_stored_and_stores_nothing():
    server = patchconf.ServerSideApply("v1", "ConfigMap", clock=itertools.count(1).__next__)
    created = server.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}},
                           "gitops")
    answered = server.patch({"data": {"b": "2"}}, "merge-patch", "hpa", dry_run=True)
    assert answered["data"] == {"a": "1", "b": "2"}
    assert [(e["manager"], e["fieldsV1"]) for e in answered["metadata"]["managedFields"]] == [
        ("gitops", {"f:data": {"f:a": {}}}), ("hpa", {"f:data": {"f:b": {}}})]
    assert server.changed is False
    assert server.object == created
    with pytest.raises(ValueError, match="dry_run 'yes': give True or False"):
        server.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}, "gitops", dry_run="yes")
