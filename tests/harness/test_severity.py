"""Each departure's severity, decided from the difference itself."""

from __future__ import annotations

import json

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.reporting.matrix import severity_markdown
from patchconf.harness.reporting.report import Run, markdown
from patchconf.harness.reporting.results import result_from_json
from patchconf.harness.reporting.severity import differences, severity, worst_departures_markdown
from patchconf.harness.running.runner import run_cases
from patchconf.harness.targets.base import Actual

POLICY = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "p"},
          "spec": {"podSelector": {}, "egress": [{}], "policyTypes": ["Egress"]}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "finalizers": ["a", "b"]},
       "spec": {"containers": [{"name": "app", "image": "v1"}, {"name": "side", "image": "s"}]}}


def _with(document, **changes):
    data = json.loads(json.dumps(document))
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value
    return data


UPDATED = _with(POD, spec__containers__0__image="v2")
CASES = f"""
    defaults:
      type: strategic
      tags: [SMP-MERGE-LIST]
      provenance: [{{implementation: kubectl, version: "1.32.4"}}]
    cases:
      - name: egress-emptied
        description: allow-all egress becomes deny-all
        original: {json.dumps(POLICY)}
        patch: {{metadata: {{labels: {{a: b}}}}}}
        expected: {json.dumps(_with(POLICY, metadata={"name": "p", "labels": {"a": "b"}}))}
      - name: finalizer-dropped
        description: another actor's finalizer is lost
        original: {json.dumps(POD)}
        patch: {{metadata: {{labels: {{a: b}}}}}}
        expected: {json.dumps(_with(POD, metadata__labels={"a": "b"}))}
      - name: image-not-updated
        description: the container keeps its old image
        original: {json.dumps(POD)}
        patch: {{spec: {{containers: [{{name: app, image: v2}}]}}}}
        expected: {json.dumps(UPDATED)}
      - name: reordered
        description: the containers come back in another order, and a default is spelled out
        original: {json.dumps(POD)}
        patch: {{spec: {{containers: [{{name: app, image: v2}}]}}}}
        expected: {json.dumps(UPDATED)}
      - name: refused-change-made
        description: Kubernetes refuses, the target changes the object
        original: {json.dumps(POD)}
        patch: {{spec: {{containers: [{{name: app, image: v2}}]}}}}
        expected_error: {{class: invalid}}
"""
REORDERED = _with(UPDATED, spec__containers=[{"name": "side", "image": "s"},
                                             {"name": "app", "image": "v2", "imagePullPolicy": "IfNotPresent"}])
ANSWERS = {
    "egress-emptied": Actual(document=_with(POLICY, metadata={"name": "p", "labels": {"a": "b"}}, spec__egress=[])),
    "finalizer-dropped": Actual(document=_with(POD, metadata={"name": "p", "labels": {"a": "b"},
                                                              "finalizers": ["a"]})),
    "image-not-updated": Actual(document=POD),
    "reordered": Actual(document=REORDERED),
    "refused-change-made": Actual(document=UPDATED),
}


def _run(write_case_file, scripted):
    cases, errors = load_file(write_case_file("strategic/severity.yaml", CASES))
    assert not errors
    target = scripted(ANSWERS)
    return Run(target.name, target.info, run_cases(cases, target))


def test_each_failure_gets_the_severity_of_its_worst_difference(write_case_file, scripted):
    run = _run(write_case_file, scripted)
    assert [(r.case.name, severity(r), differences(r)) for r in run.results] == [
        ("egress-emptied", "security", [("security", "/spec/egress: 1 element(s) removed")]),
        ("finalizer-dropped", "data loss", [("data loss", "/metadata/finalizers: 1 element(s) removed")]),
        ("image-not-updated", "drift",
         [("drift", "/spec/containers/name=app/image: unchanged, though it should change")]),
        ("reordered", "cosmetic",
         [("cosmetic", "/spec/containers/name=app/imagePullPolicy: added, though nobody stated it"),
          ("cosmetic", "/spec/containers: another order")]),
        ("refused-change-made", "drift",
         [("drift", "/spec/containers/name=app/image: another value (Kubernetes refuses the request)")]),
    ]
    # decided from results alone: read back, the same
    again = [result_from_json(json.loads(r.json_text)) for r in run.results]
    assert [severity(r) for r in again] == [severity(r) for r in run.results]


def test_reports_and_the_matrix_lead_with_the_worst(write_case_file, scripted):
    run = _run(write_case_file, scripted)
    table = worst_departures_markdown(run.results)
    assert table == [
        "| severity | cases | example | the difference |", "|---|---:|---|---|",
        "| security | 1 | `cases/strategic/severity.yaml::egress-emptied` | /spec/egress: 1 element(s) removed |",
        "| data loss | 1 | `cases/strategic/severity.yaml::finalizer-dropped` | /metadata/finalizers: 1 element(s) "
        "removed |",
        "| drift | 2 | `cases/strategic/severity.yaml::image-not-updated` | /spec/containers/name=app/image: "
        "unchanged, though it should change |",
        "| cosmetic | 1 | `cases/strategic/severity.yaml::reordered` | /spec/containers/name=app/imagePullPolicy: "
        "added, though nobody stated it |"]
    text = markdown(run)
    assert text.index("## Worst departures") < text.index("## By patch type")
    assert "\n".join(table) in text
    assert severity_markdown([run], ["scripted"])[-1] == "| scripted | 1 | 1 | 2 | 1 |"
