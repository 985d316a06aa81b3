"""patchconf record: expectations asked of (scripted) judges, cross-checked, written in place."""

import pytest

from patchconf.harness.cli import main
from patchconf.harness.corpus.cases import Purpose, load_file
from patchconf.harness.provenance.record import (
    DISAGREED,
    RECORDED,
    UNANSWERED,
    message_fragment,
    record_cases,
    write_recordings,
)
from patchconf.harness.targets.base import Actual, ActualError

INPUTS_ONLY = """\
description: A contributor's question, inputs only.
defaults:
  type: strategic
cases:
  # where does the new env var go?
  - name: new-env-var
    description: A patch adding an env var to a container.
    tags: [SMP-MERGE-LIST]
    original: {apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: app, image: x}]}}
    patch: {spec: {containers: [{name: app, env: [{name: B, value: "2"}]}]}}   # the patch

  - name: container-without-name
    description: A container without its merge key.
    tags: [SMP-MERGE-KEY-MISSING]
    original: {apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: app, image: x}]}}
    patch: {spec: {containers: [{image: "yes"}]}}
"""
MERGED = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
          "spec": {"containers": [{"env": [{"name": "B", "value": "2"}], "image": "x", "name": "app"}]}}
MISSING_KEY = ActualError("merge-key-missing", "map: map[image:yes] does not contain declared merge key: name")


@pytest.fixture
def judges(scripted):
    upstream = scripted({"new-env-var": Actual(document=MERGED), "container-without-name": Actual(error=MISSING_KEY)},
                        family="upstream", version="1.32.4")
    kubectl = scripted({"new-env-var": Actual(document=MERGED), "container-without-name": Actual(error=MISSING_KEY)},
                       family="kubectl", version="1.31.2")
    return upstream, kubectl


def test_record_writes_each_answer_with_who_confirmed_it(write_case_file, judges):
    path = write_case_file("strategic/question.yaml", INPUTS_ONLY)
    cases, errors = load_file(path, Purpose.RECORD)
    assert errors == [] and all(case.needs_expectation for case in cases)
    recordings = record_cases(cases, judges)
    assert [r.status for r in recordings] == [RECORDED, RECORDED]
    [change] = write_recordings(recordings)
    text = path.read_text()
    assert text.startswith(INPUTS_ONLY.split("  - name: container-without-name")[0].split("\n\n")[0])
    assert "  # where does the new env var go?\n" in text and "   # the patch\n" in text
    assert change.after == text and change.diff().startswith("--- a/cases/strategic/question.yaml\n")
    # every line that was there is still there, in order: the diff only adds
    assert not [line for line in change.diff().splitlines()[2:] if line.startswith("-")]
    # keys in the order of the case's own document, not Go's sorted order
    assert ("    expected:\n      apiVersion: v1\n      kind: Pod\n      metadata: {name: web}\n"
            '      spec: {containers: [{name: app, image: x, env: [{name: B, value: "2"}]}]}\n') in text
    assert ('    expected_error: {class: merge-key-missing, message: does not contain declared merge key}\n'
            "    provenance:\n"
            '      - {implementation: upstream, version: "1.32.4", via: "patchconf upstream target'
            " (Kubernetes' Go modules)\"}\n"
            '      - {implementation: kubectl, version: "1.31.2", via: "kubectl patch --local"}\n') in text
    # the committed corpus's rules hold now: expectation and provenance
    cases, errors = load_file(path)
    assert errors == []
    assert cases[0].outcome.document == MERGED
    assert [(p["implementation"], p["version"]) for p in cases[1].provenance] == [
        ("upstream", "1.32.4"), ("kubectl", "1.31.2")]


def test_where_the_judges_disagree_nothing_is_written_and_both_answers_show(write_case_file, judges, scripted,
                                                                             capsys, monkeypatch):
    upstream, _ = judges
    other = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
             "spec": {"containers": [{"env": [{"name": "B", "value": "2"}], "name": "app"}]}}
    kubectl = scripted({"new-env-var": Actual(document=other), "container-without-name": Actual(error=MISSING_KEY)},
                       family="kubectl", version="1.31.2")
    path = write_case_file("strategic/question.yaml", INPUTS_ONLY)
    targets = {"upstream": upstream, "kubectl": kubectl}
    monkeypatch.setattr("patchconf.harness.cli.make_target", lambda spec, **options: targets[spec])
    assert main(["record", "--cases", str(path), "--judges", "upstream,kubectl"]) == 1
    out = capsys.readouterr().out
    assert "DISAGREED cases/strategic/question.yaml::new-env-var: the judges disagree; nothing written for it" in out
    assert "  upstream 1.32.4 answered: " in out and "  kubectl 1.31.2 answered: " in out
    assert "    document /spec/containers/0/image: expected \"x\", got absent" in out
    assert "RECORDED cases/strategic/question.yaml::container-without-name" in out
    assert "recorded 1 of 2 cases in 1 file" in out
    cases, _ = load_file(path, Purpose.RECORD)
    assert [case.needs_expectation for case in cases] == [True, False]


def test_an_error_without_a_class_is_not_recorded(write_case_file, scripted):
    path = write_case_file("strategic/question.yaml", INPUTS_ONLY)
    cases, _ = load_file(path, Purpose.RECORD)
    judge = scripted({"new-env-var": Actual(document=MERGED),
                      "container-without-name": Actual(error=ActualError("unclassified", "something odd"))},
                     family="upstream", version="1.32.4")
    recordings = record_cases(cases, [judge])
    assert [r.status for r in recordings] == [RECORDED, UNANSWERED]
    assert "rejected without an error class (something odd)" in "\n".join(recordings[1].lines())


def test_no_judge_that_can_run_it_means_nothing_written(write_case_file, scripted):
    path = write_case_file("strategic/question.yaml", INPUTS_ONLY)
    cases, _ = load_file(path, Purpose.RECORD)
    judge = scripted({}, family="upstream", version="1.32.4", patch_types=frozenset({"json-patch"}))
    recordings = record_cases(cases, [judge])
    assert {r.status for r in recordings} == {UNANSWERED}
    assert recordings[0].lines() == [
        "UNANSWERED cases/strategic/question.yaml::new-env-var: nothing written for it",
        "  upstream 1.32.4 skipped it: upstream does not run 'strategic' cases",
        "  no judge could run it"]
    assert write_recordings(recordings) == []


def test_the_second_judge_answers_what_the_first_cannot_run(write_case_file, scripted):
    path = write_case_file("strategic/question.yaml", INPUTS_ONLY)
    cases, _ = load_file(path, Purpose.RECORD)
    upstream = scripted({}, family="upstream", version="1.32.4", patch_types=frozenset({"json-patch"}))
    kubectl = scripted({"new-env-var": Actual(document=MERGED), "container-without-name": Actual(error=MISSING_KEY)},
                       family="kubectl", version="1.31.2")
    recordings = record_cases(cases, [upstream, kubectl])
    assert [(r.status, r.answered_by, r.provenance[0]["implementation"]) for r in recordings] == [
        (RECORDED, "kubectl 1.31.2", "kubectl"), (RECORDED, "kubectl 1.31.2", "kubectl")]


CREATION = """\
cases:
  - name: two-way
    description: created patch
    type: strategic-2way
    tags: [SMP2-BASIC]
    original: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo}, data: {a: "1", b: "2"}}
    modified: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo}, data: {a: "1", b: "3"}}
  - name: first-apply
    description: kubectl apply creating the object
    type: apply
    tags: [APPLY-CREATE]
    original: null
    modified: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo, namespace: default}}
    current: null
"""


def test_creation_types_get_their_created_patch(write_case_file, scripted):
    path = write_case_file("strategic-2way/question.yaml", CREATION)
    cases, errors = load_file(path, Purpose.RECORD)
    assert errors == []
    created = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "demo", "namespace": "default"}}
    judge = scripted({"two-way": Actual(patch={"data": {"b": "3"}}, document={
                          "apiVersion": "v1", "data": {"a": "1", "b": "3"}, "kind": "ConfigMap",
                          "metadata": {"name": "demo"}}),
                      "first-apply": Actual(document=created)},
                     family="upstream", version="1.32.4", patch_types=frozenset({"strategic-2way", "apply"}))
    recordings = record_cases(cases, [judge])
    assert [r.members for r in recordings] == [
        {"expected_patch": {"data": {"b": "3"}},
         "expected": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "demo"},
                      "data": {"a": "1", "b": "3"}}},
        {"expected": created}]
    write_recordings(recordings)
    assert load_file(path)[1] == []


SSA = """\
cases:
  - name: autoscaler-then-applier
    description: An Update manager takes replicas over; the applier's next apply conflicts.
    type: server-side-apply
    tags: [SSA-UPDATE, SSA-CONFLICT]
    current:
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: cm
        managedFields:
          - {manager: gitops, operation: Apply, apiVersion: v1, time: 0, fieldsV1: {f:data: {f:a: {}}}}
      data: {a: "1"}
    steps:
      - op: update   # the autoscaler
        manager: hpa
        object: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: "2"}}
      - {op: apply, manager: gitops, object: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: "1"}}}
"""
SSA_ANSWER = Actual(document={"steps": [
    {"document": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "2"}},
     "changed": True,
     "managed_fields": [{"manager": "hpa", "operation": "Update", "apiVersion": "v1", "time": 1,
                         "fieldsV1": {"f:data": {"f:a": {}}}}]},
    {"error": {"class": "conflict",
               "message": 'Apply failed with 1 conflict: conflict with "hpa" using v1: .data.a',
               "conflicts": [{"manager": "hpa", "field": ".data.a"}]}},
]})


def test_server_side_apply_steps_get_their_expectations(write_case_file, scripted):
    path = write_case_file("server-side-apply/question.yaml", SSA)
    cases, errors = load_file(path, Purpose.RECORD)
    assert errors == [] and cases[0].needs_expectation
    judge = scripted({"autoscaler-then-applier": SSA_ANSWER}, family="upstream", version="1.33.1",
                     patch_types=frozenset({"server-side-apply"}))
    [recording] = record_cases(cases, [judge])
    assert recording.status == RECORDED
    assert recording.step_members == (
        {"expected": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "2"}},
         "expected_managed_fields": [{"manager": "hpa", "operation": "Update", "apiVersion": "v1", "time": 1,
                                      "fieldsV1": {"f:data": {"f:a": {}}}}],
         "expected_changed": True},
        {"expected_error": {"class": "conflict", "message": 'conflict with "hpa"',
                            "conflicts": [{"manager": "hpa", "field": ".data.a"}]}})
    [change] = write_recordings([recording])
    assert "      - op: update   # the autoscaler\n" in change.after
    # a flow-style step is rewritten in block style, the only lines that change
    assert ("      - op: apply\n        manager: gitops\n"
            "        object: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: \"1\"}}\n"
            '        expected_error: {class: conflict, message: conflict with "hpa", '
            "conflicts: [{manager: hpa, field: .data.a}]}\n    provenance:\n") in change.after
    cases, errors = load_file(path)
    assert errors == []
    assert cases[0].inputs["steps"][1]["expected_error"]["conflicts"] == [{"manager": "hpa", "field": ".data.a"}]
    assert cases[0].provenance == ({"implementation": "upstream", "version": "1.33.1",
                                    "via": "patchconf upstream target (Kubernetes' Go modules)"},)


def test_a_server_side_apply_disagreement_names_the_step(write_case_file, scripted):
    path = write_case_file("server-side-apply/question.yaml", SSA)
    cases, _ = load_file(path, Purpose.RECORD)
    upstream = scripted({"autoscaler-then-applier": SSA_ANSWER}, family="upstream", version="1.33.1",
                        patch_types=frozenset({"server-side-apply"}))
    steps = [dict(step) for step in SSA_ANSWER.document["steps"]]
    steps[0] = {**steps[0], "changed": False}
    live = scripted({"autoscaler-then-applier": Actual(document={"steps": steps})}, family="live",
                    version="1.33.1", patch_types=frozenset({"server-side-apply"}))
    [recording] = record_cases(cases, [upstream, live])
    assert recording.status == DISAGREED
    assert "    step 1: expected changed=True, got changed=False" in recording.lines()


@pytest.mark.parametrize(("message", "fragment"), [
    ("map: map[image:b] does not contain declared merge key: name", "does not contain declared merge key"),
    ("replace operation does not apply: doc is missing path: /metadata/labels/x", "replace operation does not apply"),
    ("precondition failed for: map[metadata:map[name:x]]", "precondition failed"),
    ("Object 'Kind' is missing in '{\"a\":1}'", "Object 'Kind' is missing"),
    ("invalid value for special key: $patch", "invalid value for special key"),
    ("/foo/3: missing value", "missing value"),
    # kubectl 1.32.4's rewording of a JSON patch's "doc is missing key" (its message as printed)
    ("Object to be patched is missing field (/b/-: missing value)", "missing value"),
    ("json: cannot unmarshal array into Go value of type map[string]interface {}",
     "cannot unmarshal array into Go value of type"),
])
def test_a_message_fragment_is_wording_not_data(message, fragment):
    assert message_fragment(message) == fragment


def test_record_needs_the_file_and_leaves_stated_expectations_alone(write_case_file, judges, capsys, monkeypatch):
    assert main(["record"]) == 2
    path = write_case_file("strategic/question.yaml", INPUTS_ONLY)
    upstream = judges[0]
    monkeypatch.setattr("patchconf.harness.cli.make_target", lambda spec, **options: upstream)
    assert main(["record", "--cases", str(path), "--judges", "upstream", "-k", "new-env"]) == 0
    before = path.read_text()
    assert main(["record", "--cases", str(path), "--judges", "upstream", "-k", "new-env"]) == 0
    out = capsys.readouterr().out
    assert "LEFT cases/strategic/question.yaml::new-env-var: it states its expectation already" in out
    assert path.read_text() == before
    assert main(["record", "--cases", str(path), "--judges", "upstream", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "+    expected_error: {class: merge-key-missing" in out and "would record 1 of 1 case in 1 file" in out
    assert path.read_text() == before
