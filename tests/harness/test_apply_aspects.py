"""An apply answer judged apart on its object, request and last-applied annotation (content and text)."""

from __future__ import annotations

import json
from dataclasses import replace

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.reporting.matrix import apply_aspects_markdown
from patchconf.harness.reporting.report import Run
from patchconf.harness.reporting.results import result_from_json
from patchconf.harness.running.runner import FAIL, PASS, run_cases
from patchconf.harness.targets.base import KUBERNETES, TOOL, Actual

CONFIG = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
          "data": {"a": "1"}}
KUBECTL_TEXT = ('{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{},'
                '"name":"c","namespace":"default"}}\n')
OTHER_TEXT = json.dumps(CONFIG, indent=1)  # the same configuration, another encoding
LAST = "kubectl.kubernetes.io/last-applied-configuration"


def _annotated(text, data=None):
    return {**CONFIG, "data": data or CONFIG["data"],
            "metadata": {**CONFIG["metadata"], "annotations": {LAST: text}}}


CASES = f"""
    defaults:
      type: apply
      tags: [APPLY-CREATE]
      provenance: [{{implementation: kubectl, version: "1.32.4"}}]
    cases:
      - name: other-text
        description: the same object, the annotation in another text
        original: null
        modified: {json.dumps(CONFIG)}
        current: {json.dumps(CONFIG)}
        expected_patch: {json.dumps({"metadata": {"annotations": {LAST: KUBECTL_TEXT}}})}
        expected: {json.dumps(_annotated(KUBECTL_TEXT))}
      - name: no-annotation
        description: the same object, no annotation written
        original: null
        modified: {json.dumps(CONFIG)}
        current: {json.dumps(CONFIG)}
        expected: {json.dumps(_annotated(KUBECTL_TEXT))}
      - name: object-differs
        description: the object differs
        original: null
        modified: {json.dumps(CONFIG)}
        current: {json.dumps(CONFIG)}
        expected: {json.dumps(_annotated(KUBECTL_TEXT))}
"""

ANSWERS = {
    "other-text": Actual(document=_annotated(OTHER_TEXT), patch={"metadata": {"annotations": {LAST: OTHER_TEXT}}}),
    "no-annotation": Actual(document=CONFIG),
    "object-differs": Actual(document=_annotated(KUBECTL_TEXT, {"a": "2"})),
}


def _run(write_case_file, scripted, category):
    cases, errors = load_file(write_case_file("apply/aspects.yaml", CASES))
    assert not errors
    target = scripted(ANSWERS, family="applier", patch_types=frozenset({"apply"}))
    target.info = replace(target.info, category=category)
    return Run(target.name, target.info, run_cases(cases, target))


def test_a_tool_passes_or_fails_on_the_object_and_each_aspect_is_kept(write_case_file, scripted):
    run = _run(write_case_file, scripted, TOOL)
    verdicts = [(r.case.name, r.status, r.diff, r.aspects) for r in run.results]
    assert verdicts == [
        ("other-text", PASS, (), {"object": "same", "request": "same", "annotation": "same",
                                  "annotation_text": "different",
                                  "notes": ["last-applied annotation text differs (same content)"]}),
        ("no-annotation", PASS, (), {"object": "same", "annotation": "missing", "annotation_text": "missing",
                                     "notes": ["last-applied annotation: none written"]}),
        ("object-differs", FAIL, ('document /data/a: expected "1", got "2"',),
         {"object": "different", "annotation": "same", "annotation_text": "same"}),
    ]
    # written to results and read back alike
    again = [result_from_json(json.loads(r.json_text)) for r in run.results]
    assert [r.aspects for r in again] == [r.aspects for r in run.results]
    assert apply_aspects_markdown([run], ["applier"])[-1] == (
        "| applier | 3 | 2/3 | 1/1 | 2/3 | 1/3 | nothing deleted the first time (1 of 3: no annotation written); "
        "a one-time rewrite (1 of 3: the same configuration, another text) |")


def test_kubernetes_own_targets_are_still_judged_whole(write_case_file, scripted):
    run = _run(write_case_file, scripted, KUBERNETES)
    assert [(r.case.name, r.status) for r in run.results] == [
        ("other-text", FAIL), ("no-annotation", FAIL), ("object-differs", FAIL)]
    assert run.results[0].aspects["annotation_text"] == "different"


def test_the_site_index_shows_the_aspects_table(write_case_file, scripted, tmp_path):
    from patchconf.harness.reporting.site import write_site

    write_site([_run(write_case_file, scripted, TOOL)], tmp_path / "site")
    index = (tmp_path / "site/index.html").read_text()
    assert ('<tr><td><a href="implementations/applier.html">applier</a></td><td class="num">3</td>'
            '<td class="num">2/3</td><td class="num">1/1</td><td class="num">2/3</td><td class="num">1/3</td>'
            "<td>nothing deleted the first time (1 of 3: no annotation written); a one-time rewrite (1 of 3: the "
            "same configuration, another text)</td></tr>") in index
