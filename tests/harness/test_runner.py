import gc
import json
import os
import threading
import time
from dataclasses import replace

import pytest

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.running.runner import ERROR, FAIL, PASS, SKIP, Filters, run_case, run_cases
from patchconf.harness.targets.base import Actual, ActualError, TargetCrash, TargetDeclined
from tests.fixtures.interrupts import ctrl_c_to_a_worker_thread
from tests.harness.corpus_snippets import case_file

CASES = case_file("""
      - name: doc
        description: a document
        original: {spec: {replicas: 3}}
        patch: []
        expected: {spec: {replicas: 3}}
      - name: err
        description: an error
        original: {}
        patch: []
        expected_error: {class: path-not-found, message: nonexistent key}
      - name: negative
        description: negative index, RFC says error
        tags: [JP-K8S]
        original: {a: [1]}
        patch: []
        expected: {a: [1, 2]}
        profiles:
          rfc: {expected_error: {class: invalid-index}, reason: RFC 6902 4.1}
        divergences:
          - target: scripted
            versions: "<1.30"
            expected_error: {class: invalid-patch}
            reason: old releases refused it
      - name: flaky
        description: upstream nondeterministic
        type: strategic
        tags: [SMP-NONDETERMINISTIC]
        original: {a: 1}
        patch: {}
        nondeterministic: true
        expected: {a: 1}
        alternatives:
          - expected: {a: 2}
""")


def _cases(write_case_file):
    cases, errors = load_file(write_case_file("json-patch/runner.yaml", CASES))
    assert errors == []
    return {case.name: case for case in cases}


def test_pass_and_readable_diff(write_case_file, scripted):
    cases = _cases(write_case_file)
    ok = run_case(cases["doc"], scripted({"doc": Actual(document={"spec": {"replicas": 3}})}))
    assert (ok.status, ok.diff) == (PASS, ())
    bad = run_case(cases["doc"], scripted({"doc": Actual(document={"spec": {"replicas": 0, "paused": True}})}))
    assert bad.status == FAIL
    assert bad.diff == ("document /spec/paused: expected absent, got true",
                        "document /spec/replicas: expected 3, got 0")


def test_a_results_json_text_is_its_json_whatever_its_strings_hold(write_case_file, scripted):
    # The text is written around the encoded expected and actual values (runner._result): strings that
    # spell out the places they go in must not move them.
    spelled = '"expected": 0, "actual": 0'
    (case,), errors = load_file(write_case_file("spelled.yaml", f"""
    cases:
      - name: spelled-out
        description: 'says {spelled}, "expected": {{}}'
        type: json-patch
        tags: [JP-ADD]
        provenance: [{{implementation: kubectl, version: "1.32.4"}}]
        original: {{a: 'holds {spelled}'}}
        patch: []
        expected: {{a: 'holds {spelled}'}}
    """))
    assert errors == []
    for answer in ({"a": f"holds {spelled}"}, {"a": spelled, "b": 0}):
        result = run_case(case, scripted({case.name: Actual(document=answer)}))
        assert result.json_text == json.dumps(result.to_json(), ensure_ascii=False)
        assert json.loads(result.json_text)["actual"] == {"document": answer}


def test_an_answer_too_deep_to_judge_or_keep_fails_or_is_noted_alone(write_case_file, scripted):
    cases = _many_cases(write_case_file, 4)
    cyclic: dict = {"n": 0}
    cyclic["self"] = cyclic
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    answers = {"case-0": Actual(document=cyclic), "case-1": Actual(document={"n": 1}, notes=(cyclic,)),
               "case-2": Actual(document={"n": 2}, notes=(deep,)), "case-3": Actual(document={"n": 3})}
    results = run_cases(cases, scripted(answers), workers=1)
    assert [(r.status, r.reason) for r in results] == [
        (ERROR, "could not judge the answer: ValueError: Circular reference detected"),
        (PASS, ""), (PASS, ""), (PASS, "")]
    # what a result keeps of an answer it cannot encode (a cycle is as deep as it gets)
    assert [json.loads(r.json_text)["actual"].get("notes") for r in results] == [
        None, "<not stored by patchconf: RecursionError>", "<not stored by patchconf: RecursionError>", None]


def test_an_expectation_too_large_to_keep_whole_is_kept_as_a_note_text_and_all(write_case_file, scripted):
    big = "z" * 70_000
    (case,), errors = load_file(write_case_file("big.yaml", f"""
    cases:
      - name: big
        description: a large document
        type: json-patch
        tags: [JP-ADD]
        provenance: [{{implementation: kubectl, version: "1.32.4"}}]
        original: {{a: {big}}}
        patch: []
        expected: {{a: {big}}}
    """))
    assert errors == []
    result = run_case(case, scripted({"big": Actual(document={"a": big})}))
    assert result.status == PASS
    assert result.expected["expected"].startswith("<truncated by patchconf: 70,009 characters of JSON")
    assert result.actual["document"].startswith("<truncated by patchconf: 70,009 characters of JSON")
    assert result.json_text == json.dumps(result.to_json(), ensure_ascii=False)


def test_numbers_are_compared_with_their_type(write_case_file, scripted):
    cases = _cases(write_case_file)
    result = run_case(cases["doc"], scripted({"doc": Actual(document={"spec": {"replicas": 3.0}})}))
    assert result.status == FAIL
    assert result.diff == ("document /spec/replicas: expected 3, got 3.0 (int vs float)",)


def test_errors_compare_class_and_message_fragment(write_case_file, scripted):
    cases = _cases(write_case_file)
    right = Actual(error=ActualError("path-not-found", "Unable to remove NONEXISTENT KEY: x"))
    assert run_case(cases["err"], scripted({"err": right})).status == PASS
    wrong_message = Actual(error=ActualError("path-not-found", "missing"))
    result = run_case(cases["err"], scripted({"err": wrong_message}))
    assert result.status == FAIL and "lacks 'nonexistent key'" in result.reason
    # a target that does not report Kubernetes' messages is judged on the class only
    assert run_case(cases["err"], scripted({"err": wrong_message}, messages=False)).status == PASS
    wrong_class = Actual(error=ActualError("invalid-index", "nonexistent key"))
    assert "expected error 'path-not-found', got 'invalid-index'" in run_case(
        cases["err"], scripted({"err": wrong_class})).reason
    success = run_case(cases["err"], scripted({"err": Actual(document={})}))
    assert success.status == FAIL and success.reason.startswith("expected error 'path-not-found', got success")


def test_unclassified_error_is_judged_on_rejecting_alone(write_case_file, scripted):
    cases = _cases(write_case_file)
    unclassified = Actual(error=ActualError("unclassified", "JsonPointerException: member 'x' not found"))
    assert run_case(cases["err"], scripted({"err": unclassified}, messages=False)).status == PASS
    rejected = run_case(cases["doc"], scripted({"doc": unclassified}))
    assert rejected.status == FAIL
    assert rejected.reason == "expected success, got error 'unclassified': JsonPointerException: member 'x' not found"


def test_profile_and_divergence_choose_the_expectation(write_case_file, scripted):
    case = _cases(write_case_file)["negative"]
    kubernetes_answer = Actual(document={"a": [1, 2]})
    rfc_answer = Actual(error=ActualError("invalid-index", "bad index"))
    assert run_case(case, scripted({"negative": kubernetes_answer})).status == PASS
    rfc = run_case(case, scripted({"negative": rfc_answer}, family="strict", profile="rfc"))
    assert (rfc.status, rfc.judged_by) == (PASS, "profile rfc")
    assert run_case(case, scripted({"negative": kubernetes_answer}, family="strict", profile="rfc")).status == FAIL
    old = run_case(case, scripted({"negative": Actual(error=ActualError("invalid-patch", "x"))}, version="1.29.0"))
    assert (old.status, old.judged_by) == (PASS, "divergence: old releases refused it")
    new = run_case(case, scripted({"negative": Actual(error=ActualError("invalid-patch", "x"))}, version="1.30.0"))
    assert new.status == FAIL


def test_nondeterministic_case_accepts_every_listed_outcome(write_case_file, scripted):
    case = _cases(write_case_file)["flaky"]
    for value in (1, 2):
        assert run_case(case, scripted({"flaky": Actual(document={"a": value})})).status == PASS
    assert run_case(case, scripted({"flaky": Actual(document={"a": 3})})).status == FAIL


def test_crashes_declines_and_skips_never_stop_a_run(write_case_file, scripted):
    cases = _cases(write_case_file)
    target = scripted({
        "doc": TargetCrash("the program exited (status 3)"),
        "err": RuntimeError("bug in target"),
        "negative": TargetDeclined("no negative indices here"),
        "flaky": Actual(document={"a": 1}),
    })
    target.info = target.info.__class__(**{**target.info.__dict__, "patch_types": frozenset({"json-patch"})})
    results = run_cases(list(cases.values()), target, workers=2)
    assert [(r.case.name, r.status) for r in results] == [
        ("doc", ERROR), ("err", ERROR), ("negative", SKIP), ("flaky", SKIP)]
    assert results[0].reason == "target failed: the program exited (status 3)"
    assert results[1].reason == "target raised RuntimeError: bug in target"
    assert results[2].reason == "declined by the target: no negative indices here"
    assert results[3].reason == "scripted does not run 'strategic' cases"


def test_filters(write_case_file):
    cases = list(_cases(write_case_file).values())
    names = lambda f: [c.name for c in cases if f.accepts(c)]  # noqa: E731
    assert names(Filters(types=("strategic",))) == ["flaky"]
    assert names(Filters(tags=("JP-K8S",))) == ["negative"]
    assert names(Filters(tags=("SMP",))) == ["flaky"]
    assert names(Filters(names=("e",))) == ["err", "negative"]
    assert names(Filters(paths=("*/json-patch/runner.yaml",))) == ["doc", "err", "negative", "flaky"]
    assert names(Filters(paths=("cases/merge-patch",))) == []


def test_a_renamed_case_is_selected_by_its_former_name_and_id(write_case_file):
    text = """
        defaults: {type: json-patch, tags: [JP-ADD], provenance: [{implementation: kubectl, version: "1.32.4"}]}
        cases:
          - name: add-member-to-object
            aliases: [add-member, cases/json-patch/old-file.yaml::adds]
            description: renamed twice
            original: {}
            patch: [{op: add, path: /a, value: 1}]
            expected: {a: 1}
          - name: other
            description: another case
            original: {}
            patch: []
            expected: {}
    """
    cases, errors = load_file(write_case_file("json-patch/renamed.yaml", text))
    assert errors == []
    names = lambda f: [c.name for c in cases if f.accepts(c)]  # noqa: E731
    assert names(Filters(names=("add-member",))) == ["add-member-to-object"]
    assert names(Filters(ids=("cases/json-patch/renamed.yaml::add-member",))) == ["add-member-to-object"]
    assert names(Filters(ids=("cases/json-patch/old-file.yaml::adds",))) == ["add-member-to-object"]
    assert names(Filters(ids=("cases/json-patch/renamed.yaml::other",))) == ["other"]
    assert names(Filters(ids=("cases/json-patch/renamed.yaml::adds",))) == []


def _many_cases(write_case_file, count: int) -> list:
    body = "".join(f"""
      - name: case-{number}
        description: case {number}
        original: {{n: {number}}}
        patch: []
        expected: {{n: {number}}}""" for number in range(count))
    text = """
    defaults:
      type: json-patch
      tags: [JP-ADD]
      provenance: [{implementation: kubectl, version: "1.32.4"}]
    cases:""" + body + "\n"
    cases, errors = load_file(write_case_file("many.yaml", text))
    assert errors == []
    return cases


@pytest.fixture
def forking(scripted, monkeypatch):
    """A scripted target run in forked copies, with a copy from as few as two cases."""
    import patchconf.harness.running.runner

    monkeypatch.setattr(patchconf.harness.running.runner, "CASES_PER_PROCESS", 2)

    class ForkingTarget(scripted):
        forks = True

    return ForkingTarget


def _runs_seen(directory):
    """(process id, case name) of every run any process recorded with _record_run."""
    return [tuple(line.split(" ", 1)) for line in (directory / "runs").read_text().splitlines()] \
        if (directory / "runs").exists() else []


def _record_run(directory, name):
    with open(directory / "runs", "a") as stream:  # appends of one short line: whole, whichever process
        stream.write(f"{os.getpid()} {name}\n")


def _wait_until(condition, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the other processes never got there"
        time.sleep(0.01)


def test_forked_copies_give_the_results_in_case_order_each_run_once_and_handed_on_once(
        write_case_file, scripted, forking, tmp_path):
    cases = _many_cases(write_case_file, 9)
    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    answers["case-4"] = Actual(document={"n": "four"})
    answers["case-7"] = RuntimeError("bug in target")
    handed_on: list[int] = []
    parent = str(os.getpid())

    class Recording(forking):
        def run(self, case):
            _record_run(tmp_path, case.name)
            if str(os.getpid()) == parent:  # copies take tickets while this process is busy
                _wait_until(lambda: any(pid != parent for pid, _ in _runs_seen(tmp_path)))
            return super().run(case)

    results = run_cases(cases, Recording(answers), workers=3, on_result=lambda index, result: handed_on.append(index))
    runs = _runs_seen(tmp_path)
    assert sorted(name for _, name in runs) == sorted(case.name for case in cases)  # each case once
    assert {pid for pid, _ in runs} - {parent}  # and copies ran some
    assert [(r.case.name, r.status) for r in results] == [
        (f"case-{n}", {4: FAIL, 7: ERROR}.get(n, PASS)) for n in range(9)]
    assert results[7].reason == "target raised RuntimeError: bug in target"
    assert results[4].diff == ('document /n: expected 4, got "four" (int vs str)',)
    assert sorted(handed_on) == list(range(9))
    assert [r.json_text for r in results] == [json.dumps(r.to_json(), ensure_ascii=False) for r in results]
    # A copy's results came as their JSON text (expected and actual read from it when asked for):
    # the same results as this process alone gives, field by field.
    alone = run_cases(cases, scripted(answers), workers=1)
    assert [replace(r, seconds=0.0) for r in results] == [replace(r, seconds=0.0) for r in alone]
    assert [r.expected for r in results] == [r.expected for r in alone]


def test_the_cases_are_dealt_to_whichever_process_is_free(write_case_file, forking, tmp_path):
    cases = _many_cases(write_case_file, 8)
    parent = str(os.getpid())

    class OneSlowCase(forking):
        def run(self, case):
            _record_run(tmp_path, case.name)
            if case.name == "case-0":  # busy until every other case is done elsewhere
                _wait_until(lambda: len(_runs_seen(tmp_path)) == len(cases))
            return super().run(case)

    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    results = run_cases(cases, OneSlowCase(answers), workers=2)
    assert [r.status for r in results] == [PASS] * 8
    runs = dict((name, pid) for pid, name in _runs_seen(tmp_path))
    # Whoever took case-0 ran nothing else (a fixed share would have given it every other case).
    assert [name for name, pid in runs.items() if pid == runs["case-0"]] == ["case-0"]
    assert len(set(runs.values()) | {parent}) == 2


def test_each_process_takes_its_own_stretch_of_the_cases_first(write_case_file, forking, tmp_path):
    cases = _many_cases(write_case_file, 8)
    parent = str(os.getpid())

    class WaitingForTheCopy(forking):
        def run(self, case):
            _record_run(tmp_path, case.name)
            if case.name == "case-0":  # this process's first case: the copy starts meanwhile
                _wait_until(lambda: any(pid != parent for pid, _ in _runs_seen(tmp_path)))
            return super().run(case)

    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    results = run_cases(cases, WaitingForTheCopy(answers), workers=2)
    assert [r.status for r in results] == [PASS] * 8
    runs = _runs_seen(tmp_path)
    assert next(name for pid, name in runs if pid == parent) == "case-0"
    assert next(name for pid, name in runs if pid != parent) == "case-4"  # the second half's first


def test_a_forked_run_freezes_the_heap_while_copies_run_and_leaves_nothing_frozen(
        write_case_file, forking, tmp_path):
    cases = _many_cases(write_case_file, 4)
    frozen_while_running = []
    parent = str(os.getpid())

    class Recording(forking):
        def run(self, case):
            _record_run(tmp_path, case.name)
            if str(os.getpid()) == parent:
                frozen_while_running.append(gc.get_freeze_count() > 0)
            else:  # a copy waits for this process to run one: both take part
                _wait_until(lambda: any(pid == parent for pid, _ in _runs_seen(tmp_path)))
            return super().run(case)

    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    results = run_cases(cases, Recording(answers), workers=2)
    assert [r.status for r in results] == [PASS] * 4
    assert frozen_while_running and all(frozen_while_running)
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a caller's (patchconf run's): the run leaves it to that caller to unfreeze
    try:
        run_cases(cases, Recording(answers), workers=2)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_cases_of_a_copy_that_dies_run_in_this_process(write_case_file, forking):
    cases = _many_cases(write_case_file, 6)
    parent = os.getpid()

    class DiesInCopies(forking):
        def run(self, case):
            if case.name == "case-3" and os.getpid() != parent:
                os._exit(3)
            return super().run(case)

    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    results = run_cases(cases, DiesInCopies(answers), workers=2)
    assert [(r.case.name, r.status) for r in results] == [(f"case-{n}", PASS) for n in range(6)]


def test_few_cases_run_in_this_process(write_case_file, scripted):
    cases = _many_cases(write_case_file, 3)
    ran_here = []  # a forked copy's runs would not show here

    class Forking(scripted):
        forks = True

        def run(self, case):
            ran_here.append(case.name)
            return super().run(case)

    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    results = run_cases(cases, Forking(answers), workers=2)
    assert [r.status for r in results] == [PASS] * 3
    assert ran_here == ["case-0", "case-1", "case-2"]


def test_a_process_with_other_threads_runs_its_cases_itself(write_case_file, forking):
    import threading

    cases = _many_cases(write_case_file, 6)
    ran_here = []  # a forked copy's runs would not show here

    class Recording(forking):
        def run(self, case):
            ran_here.append(case.name)
            return super().run(case)

    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        results = run_cases(cases, Recording(answers), workers=2)
    finally:
        release.set()
        other.join()
    assert [r.status for r in results] == [PASS] * 6
    assert ran_here == [case.name for case in cases]


SSA_CASES = """
    defaults:
      type: server-side-apply
      tags: [SSA-KEYS]
      provenance: [{implementation: upstream, version: "1.32.4"}]
    cases:
      - name: partial-key
        description: refused before 1.34, keyed by the key it has from 1.34
        steps:
          - op: apply
            manager: alice
            object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {replicas: 1}}
            expected_changed: true
          - op: apply
            manager: alice
            object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {ports: [{protocol: UDP}]}}
            expected_error: {class: invalid-patch, message: omits key field "port"}
        divergences:
          - target: [scripted, reference]
            versions: ">=1.34"
            reason: structured-merge-diff v6.3 keys an item by the keys it has
            steps:
              - expected_changed: true
              - expected_changed: true
                expected_managed_fields:
                  - {manager: alice, operation: Apply, apiVersion: example.com/v1, time: 2,
                     fieldsV1: {"f:spec": {"f:ports": {'k:{"protocol":"UDP"}': {".": {}, "f:protocol": {}}}}}}
"""

REFUSED = {"steps": [{"document": {}, "managed_fields": [], "changed": True},
                     {"error": {"class": "invalid-patch", "message": 'element 0: omits key field "port"'}}]}
KEYED = {"steps": [{"document": {}, "managed_fields": [], "changed": True},
                   {"document": {}, "changed": True, "managed_fields": [
                       {"manager": "alice", "operation": "Apply", "apiVersion": "example.com/v1", "time": 2,
                        "fieldsV1": {"f:spec": {"f:ports": {'k:{"protocol":"UDP"}': {".": {}, "f:protocol": {}}}}}}]}]}


def test_a_server_side_apply_divergence_states_each_steps_outcome(write_case_file, scripted):
    (case,), errors = load_file(write_case_file("server-side-apply/versions.yaml", SSA_CASES))
    assert errors == []
    ssa = frozenset({"server-side-apply"})

    def target(answer: dict, version: str, kubernetes_version: str = "") -> object:
        return scripted({"partial-key": Actual(document=answer)}, version=version, patch_types=ssa,
                        kubernetes_version=kubernetes_version)

    assert run_case(case, target(REFUSED, "1.33.0")).status == PASS
    new = run_case(case, target(KEYED, "1.34.1"))
    assert (new.status, new.judged_by) == (
        PASS, "divergence: structured-merge-diff v6.3 keys an item by the keys it has")
    refused_on_new = run_case(case, target(REFUSED, "1.34.1"))
    assert refused_on_new.status == FAIL
    assert refused_on_new.reason == (
        "step 2: expected success, got error 'invalid-patch': element 0: omits key field \"port\"")
    # a target whose own version is not a Kubernetes release is matched by the release it behaves as
    assert run_case(case, target(KEYED, "0.9.0", kubernetes_version="1.34")).status == PASS
    assert run_case(case, target(KEYED, "2.0.0", kubernetes_version="1.33")).status == FAIL


STORED_CASES = """
description: server-set fields of stored objects
defaults:
  type: server-side-apply
  tags: [SSA-OWNERSHIP]
  provenance: [{implementation: upstream, version: "1.32.4", via: test}]
cases:
  - name: unstated
    description: a case not about status states neither status nor the template's null time
    steps:
      - op: apply
        manager: a
        object: &dep {apiVersion: apps/v1, kind: Deployment, metadata: {name: d},
                      spec: {template: {metadata: {labels: {app: d}}, spec: {}}}}
        expected: *dep
  - name: stated
    description: a case stating status is judged by it
    steps:
      - op: apply
        manager: a
        object: *dep
        expected: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d},
                   spec: {template: {metadata: {labels: {app: d}}, spec: {}}}, status: {replicas: 1}}
"""


def _stored(status: dict, created: str | None) -> Actual:
    document = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "status": status,
                "spec": {"template": {"metadata": {"creationTimestamp": created, "labels": {"app": "d"}}, "spec": {}}}}
    return Actual(document={"steps": [{"document": document, "managed_fields": [], "changed": True}]})


def test_a_step_object_is_judged_without_the_server_set_fields_the_case_does_not_state(write_case_file, scripted):
    (unstated, stated), errors = load_file(write_case_file("server-side-apply/stored.yaml", STORED_CASES))
    assert errors == []
    ssa = frozenset({"server-side-apply"})
    server_set = _stored({}, None)
    assert run_case(unstated, scripted({"unstated": server_set}, patch_types=ssa)).status == PASS
    # a non-null time is no serialization of the zero time: it is judged
    dated = run_case(unstated, scripted({"unstated": _stored({}, "2026-01-01T00:00:00Z")}, patch_types=ssa))
    assert (dated.status, dated.reason) == (
        FAIL, 'step 1: object /spec/template/metadata/creationTimestamp: expected absent, got "2026-01-01T00:00:00Z"')
    wrong = run_case(stated, scripted({"stated": server_set}, patch_types=ssa))
    assert (wrong.status, wrong.reason) == (FAIL, "step 1: object /status/replicas: expected 1, got absent")


def test_a_step_object_is_compared_as_stated_without_the_judged_copy():
    from patchconf.harness.corpus.stored_objects import stated_equal

    def template(created):
        return {"template": {"metadata": {"creationTimestamp": created, "labels": {"app": "d"}}}}

    stated = {"kind": "Deployment", "metadata": {"name": "d"},
              "spec": {"template": {"metadata": {"labels": {"app": "d"}}}}}
    document = {**stated, "status": {}, "spec": template(None)}
    assert stated_equal(stated, document, drop_status=True)
    assert not stated_equal(stated, document, drop_status=False)  # a case about status states it
    assert not stated_equal(stated, {**document, "spec": template("2026-01-01T00:00:00Z")}, drop_status=True)
    # the object's own null creationTimestamp is not an embedded one: judged
    assert not stated_equal(stated, {**document, "metadata": {"name": "d", "creationTimestamp": None}}, True)
    assert stated_equal({**stated, "spec": template(None)}, document, drop_status=True)  # stated: judged as stated
    assert not stated_equal({**stated, "spec": template("t")}, document, drop_status=True)
    # numbers and booleans as JSON tells them apart
    assert not stated_equal({"spec": {"replicas": 1}}, {"spec": {"replicas": 1.0}}, drop_status=True)
    assert not stated_equal({"spec": {"replicas": [1]}}, {"spec": {"replicas": [True]}}, drop_status=True)


def test_terminal_progress_draws_at_most_a_line_per_interval_and_always_the_last(write_case_file, monkeypatch):
    import io

    from patchconf.harness.running import runner

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    clock = [100.0]
    monkeypatch.setattr(runner.time, "monotonic", lambda: clock[0])
    terminal = Terminal()
    progress = runner.terminal_progress(terminal)
    cases = _many_cases(write_case_file, 5)
    for done, case in enumerate(cases, start=1):
        progress(done, 5, runner.Result(case, PASS))
        clock[0] += runner.PROGRESS_INTERVAL * 0.6  # a line every other case
    lines = terminal.getvalue().split("\r")[1:]
    assert [line.split("]")[0] for line in lines] == ["[1/5", "[3/5", "[5/5"]
    assert lines[-1].endswith("\n")


def test_an_interrupt_the_kernel_gives_a_worker_thread_stops_a_threaded_run(write_case_file, scripted):
    cases = _many_cases(write_case_file, 4)
    release, running = threading.Event(), []

    class Held(scripted):
        def run(self, case):
            running.append(threading.get_ident())
            release.wait(60)  # cases in flight end only when the test lets them
            return super().run(case)

    answers = {case.name: Actual(document={"n": int(case.name.split("-")[1])}) for case in cases}
    started = time.monotonic()
    try:
        with ctrl_c_to_a_worker_thread(running), pytest.raises(KeyboardInterrupt):
            run_cases(cases, Held(answers), workers=2)
        assert time.monotonic() - started < 30  # not when the held cases end (60 s)
    finally:
        release.set()
