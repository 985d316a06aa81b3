"""The cmd: target against real programs: the shipped example and deliberately broken ones."""

import sys
import textwrap
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.running.runner import ERROR, PASS, SKIP, run_case, run_cases
from patchconf.harness.targets import make_target
from patchconf.harness.targets.base import TargetUnavailable
from tests.harness.corpus_snippets import case_file

REPO = Path(__file__).resolve().parents[2]

CASES = case_file("""
      - name: first
        description: fine
        original: {a: 1}
        patch: [{op: add, path: /b, value: 2}]
        expected: {a: 1, b: 2}
      - name: crash
        description: the program dies on this one
        original: {a: 1}
        patch: [{op: add, path: /c, value: 3}]
        expected: {a: 1, c: 3}
      - name: hang
        description: the program hangs on this one
        original: {a: 1}
        patch: [{op: add, path: /d, value: 4}]
        expected: {a: 1, d: 4}
      - name: garbage
        description: the program prints garbage on this one
        original: {a: 1}
        patch: [{op: add, path: /e, value: 5}]
        expected: {a: 1, e: 5}
      - name: declined
        description: the program declines this one
        original: {a: 1}
        patch: [{op: add, path: /f, value: 6}]
        expected: {a: 1, f: 6}
      - name: last
        description: fine again, after the restarts
        original: {a: 1}
        patch: [{op: add, path: /g, value: 7}]
        expected: {a: 1, g: 7}
""")

BROKEN_ADAPTER = textwrap.dedent('''
    import json, sys, time
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            print(json.dumps({"ready": True, "protocol": 1,
                              "implementation": {"name": "broken", "version": "0.1"},
                              "capabilities": {"patch_types": ["json-patch"], "schemas": ["none"]}}), flush=True)
            continue
        if request["cmd"] == "stop":
            break
        name = request["case"]["id"].rsplit("::", 1)[1]
        if name == "crash":
            print("dying now", file=sys.stderr, flush=True)
            sys.exit(3)
        if name == "hang":
            time.sleep(60)
        if name == "garbage":
            print("this is not json", flush=True)
            continue
        if name == "declined":
            print(json.dumps({"seq": request["seq"], "skipped": "not today"}), flush=True)
            continue
        doc = dict(request["case"]["original"])
        op = request["case"]["patch"][0]
        doc[op["path"][1:]] = op["value"]
        print(json.dumps({"seq": request["seq"], "result": {"document": doc}}), flush=True)
''')


def test_broken_program_fails_only_its_cases_and_the_run_completes(write_case_file, tmp_path):
    adapter = tmp_path / "broken.py"
    adapter.write_text(BROKEN_ADAPTER)
    cases, _ = load_file(write_case_file("json-patch/cmd.yaml", CASES))
    # Only the hang meets a short timeout: every answer gets all the time a loaded machine needs.
    target = make_target(f"cmd:{sys.executable} {adapter}", timeout=600)
    hasty = make_target(f"cmd:{sys.executable} {adapter}", timeout=2)
    try:
        results = run_cases([case for case in cases if case.name != "hang"], target)
        timed = run_cases([case for case in cases if case.name in ("hang", "last")], hasty)
    finally:
        target.close()
        hasty.close()
    statuses = {r.case.name: (r.status, r.reason) for r in results}
    assert statuses["first"] == (PASS, "")
    assert statuses["last"] == (PASS, "")
    assert statuses["crash"][0] == ERROR
    assert "the program exited (status 3)" in statuses["crash"][1]
    assert "dying now" in statuses["crash"][1]
    assert [(r.case.name, r.status, r.reason) for r in timed] == [
        ("hang", ERROR, "target failed: no answer within 2s"), ("last", PASS, "")]
    assert statuses["garbage"][0] == ERROR and "not JSON" in statuses["garbage"][1]
    assert statuses["declined"] == (SKIP, "declined by the target: not today")
    assert target.info.family == "broken" and target.info.version == "0.1"



def test_a_closed_target_starts_no_instance_a_worker_would_wait_on(write_case_file, tmp_path):
    # A worker thread between two cases when the run ends (an interrupt): close() has ended every
    # instance; one started after it would be waited on by the exiting run, holding it open.
    adapter = tmp_path / "broken.py"
    adapter.write_text(BROKEN_ADAPTER)
    cases, _ = load_file(write_case_file("json-patch/cmd.yaml", CASES))
    target = make_target(f"cmd:{sys.executable} {adapter}", timeout=600)
    target.close()
    result = run_case(cases[0], target)
    assert (result.case.name, result.status, result.reason) == (
        "first", ERROR, "target failed: the target was closed: the run is ending")
    assert target._running == set() and target._idle.empty()

def test_example_adapter_speaks_the_protocol(write_case_file):
    pytest.importorskip("jsonpatch")
    cases, _ = load_file(write_case_file("json-patch/cmd.yaml", CASES))
    target = make_target(f"cmd:{sys.executable} {REPO / 'harness/examples/jsonpatch_adapter.py'}")
    try:
        results = run_cases(cases[:1], target)
    finally:
        target.close()
    assert target.info.profile == "rfc"
    assert [(r.case.name, r.status) for r in results] == [("first", PASS)]


def test_program_that_fails_the_handshake_is_unavailable(tmp_path):
    adapter = tmp_path / "mute.py"
    adapter.write_text("import sys\nsys.exit(0)\n")
    with pytest.raises(TargetUnavailable) as failed:
        make_target(f"cmd:{sys.executable} {adapter}")
    assert str(failed.value).startswith(f"`{sys.executable} {adapter}` failed the start handshake: ")  # the script
    with pytest.raises(TargetUnavailable, match="cannot start"):
        make_target("cmd:/nonexistent/program")


def test_server_side_apply_steps_travel_without_their_expectations():
    from patchconf.harness.corpus.cases import Case, Outcome
    from patchconf.harness.targets.command import _actual_from_answer, request_case

    step = {"op": "apply", "manager": "a", "object": {"apiVersion": "v1", "kind": "ConfigMap"},
            "expected": {"x": 1}, "expected_managed_fields": [], "expected_changed": True}
    case = Case(file="t.yaml", name="c", description="", type="server-side-apply", tags=(),
                inputs={"steps": [step, {"op": "apply", "manager": "b", "object": {}, "expected_error": {}}]},
                outcome=Outcome(document={"steps": [{}, {}]}), provenance=())
    sent = request_case(case)
    assert sent["steps"] == [{"op": "apply", "manager": "a", "object": {"apiVersion": "v1", "kind": "ConfigMap"}},
                             {"op": "apply", "manager": "b", "object": {}}]
    answer = {"seq": 3, "result": {"steps": [{"document": {}, "managed_fields": [], "changed": True},
                                             {"error": {"class": "conflict", "message": "m"}}]}}
    assert _actual_from_answer(answer, 3).document == {"steps": answer["result"]["steps"]}


def _greeting_program(tmp_path, implementation: str) -> str:
    adapter = tmp_path / "greeter.py"
    adapter.write_text(textwrap.dedent(f"""\
        import json, sys
        sys.stdin.readline()
        print(json.dumps({{"ready": True, "protocol": 1, "implementation": {implementation},
                          "capabilities": {{"patch_types": ["json-patch"], "schemas": ["none"]}}}}), flush=True)
        sys.stdin.readline()
    """))
    return f"cmd:{sys.executable} {adapter}"


def test_a_program_is_a_library_unless_its_handshake_says_it_is_a_tool(tmp_path):
    library = make_target(_greeting_program(tmp_path, '{"name": "lib", "version": "1"}'))
    library.close()
    tool = make_target(_greeting_program(tmp_path, '{"name": "helmish", "version": "3", "category": "tool"}'))
    tool.close()
    assert (library.info.category, tool.info.category) == ("library", "tool")
    assert tool.info.to_json()["category"] == "tool" and "category" not in library.info.to_json()
    with pytest.raises(TargetUnavailable, match=r"implementation\.category 'kubernetes' is neither"):
        make_target(_greeting_program(tmp_path, '{"name": "x", "version": "1", "category": "kubernetes"}'))


PREDICTING_CASES = """
    defaults:
      type: merge-patch-3way
      tags: [APPLY-OVERWRITE]
      provenance: [{implementation: upstream, version: "1.32.4"}]
    cases:
      - name: patch-and-document
        description: both stated
        original: {a: 1}
        modified: {a: 2}
        current: {a: 1, note: x}
        expected_patch: {a: 2}
        expected: {a: 2, note: x}
      - name: patch-only
        description: only the created patch stated
        original: {a: 1}
        modified: {a: 3}
        current: {a: 1}
        expected_patch: {a: 3}
"""


def _predicting_program(tmp_path, renders: bool) -> str:
    """A tool that answers the resulting document only, without the `note` it never shows, and
    (when it renders) shows an expected document without it too."""
    adapter = tmp_path / f"predictor_{renders}.py"
    adapter.write_text(textwrap.dedent(f"""\
        import json, sys
        for line in sys.stdin:
            request = json.loads(line)
            if request["cmd"] == "start":
                answer = {{"ready": True, "protocol": 1, "implementation": {{"name": "predictor", "version": "1"}},
                          "capabilities": {{"patch_types": ["merge-patch-3way"], "schemas": ["none"],
                                           "answers": ["document"], "renders": {renders!r}}}}}
            elif request["cmd"] == "render":
                shown = {{k: v for k, v in request["document"].items() if k != "note"}}
                answer = {{"seq": request["seq"], "document": shown}}
            elif request["cmd"] == "run":
                answer = {{"seq": request["seq"], "result": {{"document": request["case"]["modified"]}}}}
            else:
                break
            print(json.dumps(answer), flush=True)
    """))
    return f"cmd:{sys.executable} {adapter}"


def test_a_tool_answering_documents_only_is_judged_on_them_as_its_render_shows_them(tmp_path, write_case_file):
    cases, _ = load_file(write_case_file("merge-patch-3way/p.yaml", PREDICTING_CASES))
    rendering = make_target(_predicting_program(tmp_path, renders=True))
    plain = make_target(_predicting_program(tmp_path, renders=False))
    try:
        rendered_results, plain_results = run_cases(cases, rendering), run_cases(cases, plain)
    finally:
        rendering.close()
        plain.close()
    assert rendering.info.answers == frozenset({"document"}) and rendering.info.renders
    assert [(r.case.name, r.status) for r in rendered_results] == [("patch-and-document", PASS), ("patch-only", SKIP)]
    assert "without the created patch" in rendered_results[0].judged_by
    assert "answers resulting documents only" in rendered_results[1].reason
    # Without rendering, the note the tool never shows is a difference
    assert [(r.case.name, r.status) for r in plain_results] == [("patch-and-document", "fail"), ("patch-only", SKIP)]


MODE_CASES = """
    defaults:
      type: strategic-3way
      tags: [APPLY-OVERWRITE]
      provenance: [{implementation: upstream, version: "1.32.4"}]
    cases:
      - name: conflict
        description: a change made by another actor is refused without overwrite
        original: {a: 1}
        modified: {a: 2}
        current: {a: 3}
        options: {overwrite: false}
        expected_error: {class: conflict}
      - name: overwritten
        description: the default mode overwrites
        original: {a: 1}
        modified: {a: 2}
        current: {a: 3}
        expected_patch: {a: 2}
"""


def _mode_program(tmp_path, category: str, modes: list[str] | None) -> str:
    """A program that answers every case {a: 2}, overwriting whatever the case asks."""
    adapter = tmp_path / f"moded_{category}_{modes is not None}.py"
    capabilities = {"patch_types": ["strategic-3way"], "schemas": ["none"]}
    if modes is not None:
        capabilities["modes"] = modes
    adapter.write_text(textwrap.dedent(f"""\
        import json, sys
        for line in sys.stdin:
            request = json.loads(line)
            if request["cmd"] == "start":
                print(json.dumps({{"ready": True, "protocol": 1, "capabilities": {capabilities!r},
                                  "implementation": {{"name": "moded", "version": "1", "category": "{category}"}}}}),
                      flush=True)
            elif request["cmd"] == "run":
                print(json.dumps({{"seq": request["seq"], "result": {{"patch": {{"a": 2}}}}}}), flush=True)
            else:
                break
    """).replace("'", '"'))
    return f"cmd:{sys.executable} {adapter}"


def test_a_case_needing_a_mode_a_target_lacks_is_skipped_alike_whatever_its_category(tmp_path, write_case_file):
    cases, errors = load_file(write_case_file("strategic-3way/modes.yaml", MODE_CASES))
    assert not errors
    statuses = {}
    for category, modes in (("tool", None), ("library", []), ("tool", ["overwrite=false"])):
        target = make_target(_mode_program(tmp_path, category, modes))
        try:
            statuses[category, tuple(modes or ())] = [(r.status, r.reason) for r in run_cases(cases, target)]
        finally:
            target.close()
    lacking = ("skip", "the case needs the overwrite=false mode, which the target lacks")
    assert statuses == {
        ("tool", ()): [lacking, ("pass", "")],
        ("library", ()): [lacking, ("pass", "")],
        # a program declaring the mode is sent the case, and charged for overwriting
        ("tool", ("overwrite=false",)): [("fail", "expected error 'conflict', got success: {\"a\": 2}"),
                                         ("pass", "")],
    }
    with pytest.raises(TargetUnavailable, match=r"capabilities\.modes \['overwrite=maybe'\] are not among"):
        make_target(_mode_program(tmp_path, "library", ["overwrite=maybe"]))
