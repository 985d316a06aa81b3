"""Nothing a target does takes a run down: each fault of tests/harness/fault_target.py fails its
case with a named reason, the run goes on and writes its reports, patchconf's memory stays bounded,
and a run interrupted or killed keeps every result it had."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.running.runner import ERROR, FAIL, PASS, STORED_CHARS, run_case, stored, stored_lines
from patchconf.harness.targets.base import ProtocolError
from patchconf.harness.targets.bounded import (
    AnswerTooLarge,
    Oversize,
    parse_size,
    read_lines,
    run_bounded,
    wait_for_exit,
)
from patchconf.harness.targets.command import decode_answer
from patchconf.harness.targets.kubectl import KubectlTarget

REPO = Path(__file__).resolve().parents[2]
FAULT_TARGET = Path(__file__).resolve().parent / "fault_target.py"
TARGET = f"cmd:{sys.executable} {FAULT_TARGET}"
LIMIT_REASON = "an answer larger than 64 MiB (the answer size limit, --max-answer-bytes); the program was stopped"
# Run the harness as a user does, in its own process, reporting its own peak memory when it ends.
# Ctrl-C as a terminal's shell gives it: a child of a background job (CI runners, `cmd &`) starts
# with SIGINT ignored, and Python then never raises KeyboardInterrupt.
HARNESS = textwrap.dedent("""
    import json, resource, signal, sys
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from patchconf.harness.cli import main
    code = main(sys.argv[1:])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({"peak_rss_mb": peak // 1024}), file=sys.stderr)
    sys.exit(code)
""")

# case name -> (status, reason): every fault, with a good case after each kind to show the restart
EXPECTED = {
    "fine.1": (PASS, ""),
    "huge-line": (ERROR, f"target failed: {LIMIT_REASON}"),
    "fine.2": (PASS, ""),
    "endless": (ERROR, f"target failed: {LIMIT_REASON}"),
    "fine.3": (PASS, ""),
    "big-document": (FAIL, 'document (root): expected {"a": 1, "b": 2}, got {"a": 1, "b": 2, "big": "'
                           + "z" * 92 + '... (41,943,067 characters of JSON against 16: too large to compare '
                           "member by member)"),
    "nan": (ERROR, "target failed: protocol error: NaN is not a JSON value (in the answer)"),
    "infinity": (ERROR, "target failed: protocol error: -Infinity is not a JSON value (in the answer)"),
    "duplicate-key": (ERROR, "target failed: protocol error: duplicate key 'document' in the answer"),
    "invalid-utf8": (ERROR, "target failed: protocol error: the answer is not UTF-8 (byte 0xe9 at offset 45)"),
    "result-not-object": (ERROR, "target failed: protocol error: 'result' is not an object: "
                                 "'[{\"a\": 1, \"b\": 2}]'"),
    "steps-not-list": (ERROR, "target failed: protocol error: 'steps' is not a list of objects: "
                              "'{\"1\": {\"a\": 1, \"b\": 2}}'"),
    "no-outcome": (ERROR, "target failed: protocol error: 'result' has neither 'document' nor 'patch': "
                          "'{\"documents\": [{\"a\": 1, \"b\": 2}]}'"),
    "two-outcomes": (ERROR, "target failed: protocol error: an answer has exactly one of result, error and "
                            "skipped; this one has result and error"),
    "error-without-class": (ERROR, "target failed: protocol error: 'error' is not an object with a string "
                                   "'class': '{\"message\": \"no class\"}'"),
    "not-an-object": (ERROR, "target failed: protocol error: the answer is not a JSON object: "
                             "'[16, {\"a\": 1, \"b\": 2}]'"),
    "wrong-seq": (ERROR, "target failed: protocol error: answered seq 117 to request 17"),
    "fine.4": (PASS, ""),
    "crash": (ERROR, "target failed: the program exited (status 3); stderr: fault target: crashing on purpose"),
    "fine.5": (PASS, ""),
    "hang": (ERROR, "target failed: no answer within 3s"),
    "fine.6": (PASS, ""),
}


def case_file(names, directory: Path) -> Path:
    """A corpus of add-a-member JSON Patch cases, one per name (the fault target reads the name)."""
    root = directory / "cases"
    root.mkdir(parents=True, exist_ok=True)
    for name in ("case.schema.json", "BEHAVIOURS.md"):
        (root / name).write_bytes((REPO / "cases" / name).read_bytes())
    lines = ["defaults:", "  type: json-patch", "  tags: [JP-ADD]",
             '  provenance: [{implementation: kubectl, version: "1.32.4"}]', "cases:"]
    for name in names:
        lines += [f"  - name: {name}", f"    description: the fault target's {name.split('.')[0]}",
                  "    original: {a: 1}", "    patch: [{op: add, path: /b, value: 2}]", "    expected: {a: 1, b: 2}"]
    path = root / "faults.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def harness(*arguments: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    environment = {key: value for key, value in os.environ.items() if key != "PATCHCONF_MAX_ANSWER_BYTES"}
    environment.update({"PYTHONPATH": str(REPO), **(env or {})})
    return subprocess.Popen([sys.executable, "-c", HARNESS, *arguments], cwd=REPO, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def results(directory: Path) -> dict:
    return json.loads((directory / "results.json").read_text(encoding="utf-8"))


# The one fault a clock decides, run apart with a short timeout: every other answer (40 MiB among
# them, slow on a loaded machine) gets all the time it needs, so no load turns it into a timeout.
TIMED = ("hang", "fine.6")


def test_every_fault_fails_its_case_by_name_and_memory_stays_bounded(tmp_path):
    answered = [name for name in EXPECTED if name not in TIMED]
    cases = case_file(answered, tmp_path)
    process = harness("run", "--cases", str(cases), "--target", TARGET, "--timeout", "600",
                      "--report", str(tmp_path / "out"))
    out, err = process.communicate(timeout=900)
    assert process.returncode == 1, err
    data = results(tmp_path / "out")
    assert {r["name"]: (r["status"], r["reason"]) for r in data["results"]} == {
        name: EXPECTED[name] for name in answered}
    assert data["interrupted"] is None and data["planned"] == len(answered)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "junit.xml", "report.html", "report.md", "results.json", "results.jsonl"]
    # The target tried to print 2 GiB on one line and endlessly on another, and 40 MiB in a valid answer:
    # patchconf read at most 64 MiB of each and kept 64 KiB of the last in its results.
    peak = json.loads(err.strip().splitlines()[-1])["peak_rss_mb"]
    assert peak < 500, f"the harness grew to {peak} MB"
    big = next(r for r in data["results"] if r["name"] == "big-document")
    assert big["actual"]["document"].startswith(
        f"<truncated by patchconf: 41,943,067 characters of JSON, over the {STORED_CHARS:,} a result keeps; "
        'they begin: {"a": 1, "b": 2, "big": "zzz')
    assert (tmp_path / "out" / "results.json").stat().st_size < 100_000
    assert "ERROR cases/faults.yaml::duplicate-key\n    target failed: protocol error: duplicate key 'document'" in out


def test_a_program_that_does_not_answer_fails_its_case_when_the_timeout_ends_and_is_replaced(tmp_path):
    cases = case_file(TIMED, tmp_path)  # hang sleeps an hour: only the timeout can end its case
    process = harness("run", "--cases", str(cases), "--target", TARGET, "--timeout", "3",
                      "--report", str(tmp_path / "out"))
    _, err = process.communicate(timeout=600)
    assert process.returncode == 1, err
    assert {r["name"]: (r["status"], r["reason"]) for r in results(tmp_path / "out")["results"]} == {
        name: EXPECTED[name] for name in TIMED}


def test_the_answer_limit_is_settable_by_option_and_environment(tmp_path):
    cases = case_file(["big-document", "fine.1"], tmp_path)
    reason = ("target failed: an answer larger than 1 MiB (the answer size limit, --max-answer-bytes); "
              "the program was stopped")
    for label, arguments, env in (("option", ["--max-answer-bytes", "1MiB"], None),
                                  ("environment", [], {"PATCHCONF_MAX_ANSWER_BYTES": "1048576"})):
        out = tmp_path / label
        process = harness("run", "--cases", str(cases), "--target", f"{TARGET} --big 2000000", "--quiet",
                          "--report", str(out), *arguments, env=env)
        _, err = process.communicate(timeout=300)
        assert process.returncode == 1, err
        assert [(r["name"], r["status"], r["reason"]) for r in results(out)["results"]] == [
            ("big-document", ERROR, reason), ("fine.1", PASS, "")]
    process = harness("run", "--max-answer-bytes", "lots")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "not a size in bytes: 'lots' (e.g. 67108864, 64MiB, 500k)" in err


@pytest.mark.parametrize(("fault", "reason"), [
    ("nan", "protocol error: NaN is not a JSON value (in the answer)"),
    ("duplicate-key", "protocol error: duplicate key 'protocol' in the answer"),
    ("invalid-utf8", "protocol error: the answer is not UTF-8 (byte 0xff at offset 159)"),
    ("bad-capabilities", "protocol error in the handshake: capabilities.patch_types is not a list of strings"),
])
def test_a_broken_handshake_makes_the_target_unavailable(tmp_path, fault, reason):
    cases = case_file(["fine.1"], tmp_path)
    process = harness("run", "--cases", str(cases), "--target", f"{TARGET} --handshake {fault}",
                      "--report", str(tmp_path / "out"))
    _, err = process.communicate(timeout=120)
    assert process.returncode == 2
    assert f"patchconf: target '{TARGET} --handshake {fault}' unavailable: " in err
    assert reason in err


def wait_for_results(log: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if log.is_file() and log.read_text(encoding="utf-8").count('{"result":') >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{log} did not get {count} results in time")


def answered_then_held(tmp_path: Path) -> Path:
    """Three cases the target answers, then 37 it holds until the run is stopped: what a run has
    done when the signal comes is a state the target makes, not a race with the clock."""
    return case_file([f"fine.{i}" for i in range(3)] + [f"hang.{i}" for i in range(3, 40)], tmp_path)


@pytest.mark.parametrize(("how", "code", "said"), [
    (signal.SIGINT, 130, "SIGINT"),
    (signal.SIGTERM, 143, "SIGTERM"),
])
def test_an_interrupted_run_writes_its_reports_from_what_it_did_and_says_so(tmp_path, how, code, said):
    cases = answered_then_held(tmp_path)
    out = tmp_path / "out"
    process = harness("run", "--cases", str(cases), "--target", TARGET, "--jobs", "2", "--timeout", "3600",
                      "--report", str(out))
    wait_for_results(out / "results.jsonl", 3, process)
    process.send_signal(how)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    data = results(out)
    done = len(data["results"])
    assert done == 3 and data["planned"] == 40 and data["interrupted"] == said
    assert [(r["name"], r["status"]) for r in data["results"]] == [(f"fine.{i}", PASS) for i in range(3)]
    log = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(log) == done + 2 and json.loads(log[-1])["end"]["interrupted"] == said
    message = f"INTERRUPTED ({said}) after {done} of 40 cases: these results are those of the cases that finished"
    assert message in stdout and f"patchconf: {message}; reports written from them" in stderr
    assert message in (out / "report.md").read_text(encoding="utf-8")
    assert '<error message="interrupted">' in (out / "junit.xml").read_text(encoding="utf-8")


def test_a_killed_run_keeps_its_results_and_report_renders_them(tmp_path):
    cases = answered_then_held(tmp_path)
    out = tmp_path / "out"
    process = harness("run", "--cases", str(cases), "--target", TARGET, "--timeout", "3600", "--report", str(out))
    wait_for_results(out / "results.jsonl", 3, process)
    process.kill()
    process.communicate(timeout=60)
    assert not (out / "results.json").exists()
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    done = sum(1 for line in lines if line.startswith('{"result":'))
    report = harness("report", str(out))
    stdout, stderr = report.communicate(timeout=60)
    assert report.returncode == 1, stderr
    data = results(out)
    assert len(data["results"]) == done == 3
    assert [r["name"] for r in data["results"]] == [f"fine.{i}" for i in range(3)]
    assert data["interrupted"] == "no end line in results.jsonl: the run was killed or crashed"
    assert f"INTERRUPTED (no end line in results.jsonl: the run was killed or crashed) after {done} of 40" in stdout


def test_a_harness_error_mid_run_keeps_what_was_done(tmp_path, monkeypatch, capsys):
    from patchconf.harness import cli

    def failing_progress():
        def progress(done, total, result):
            if done == 3:
                raise RuntimeError("a bug in patchconf")
        return progress

    monkeypatch.setattr(cli, "terminal_progress", failing_progress)
    cases = case_file([f"fine.{i}" for i in range(6)], tmp_path)
    assert cli.main(["run", "--cases", str(cases), "--target", TARGET, "--report", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert "RuntimeError: a bug in patchconf" in captured.err
    data = results(tmp_path / "out")
    assert data["interrupted"] == "harness error: RuntimeError: a bug in patchconf"
    assert [r["name"] for r in data["results"]] == ["fine.0", "fine.1", "fine.2"]
    assert ("INTERRUPTED (harness error: RuntimeError: a bug in patchconf) after 3 of 6 cases"
            in captured.out)


def test_report_renders_what_run_wrote(tmp_path):
    cases = case_file(["fine.1", "nan", "fine.2"], tmp_path)
    out = tmp_path / "out"
    process = harness("run", "--cases", str(cases), "--target", TARGET, "--report", str(out))
    process.communicate(timeout=120)
    first = results(out)
    report = harness("report", str(out / "results.jsonl"), "--out", str(tmp_path / "again"))
    report.communicate(timeout=60)
    assert report.returncode == 1
    assert results(tmp_path / "again") == first
    for name in ("junit.xml", "report.md", "report.html"):
        assert (tmp_path / "again" / name).read_text() == (out / name).read_text()


# --- the pieces ------------------------------------------------------------------------------


class Chunks:
    """A binary stream handing out given chunks, as a pipe does."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = list(chunks)

    def read1(self, size: int) -> bytes:
        return self.chunks.pop(0) if self.chunks else b""


def test_read_lines_holds_at_most_the_limit():
    assert list(read_lines(Chunks(b"ab\ncd", b"e\n\nf"), 10)) == [b"ab", b"cde", b"", b"f"]
    assert list(read_lines(Chunks(b"12345\n", b"123456"), 5)) == [b"12345", Oversize(6)]
    assert list(read_lines(Chunks(b"123", b"456\nx"), 5)) == [Oversize(6)]
    assert list(read_lines(Chunks(b"1234567890\n"), 5)) == [Oversize(10)]


@pytest.mark.parametrize(("line", "problem"), [
    (b'{"seq": 1, "result": {"document": NaN}}', "NaN is not a JSON value (in the answer)"),
    (b'{"seq": 1, "result": {"document": Infinity}}', "Infinity is not a JSON value (in the answer)"),
    (b'{"seq": 1, "seq": 1}', "duplicate key 'seq' in the answer"),
    (b'{"seq": 1, "result": {"document": {"a": {"b": 1, "b": 2}}}}', "duplicate key 'b' in the answer"),
    (b'{"seq": 1, "error": {"message": "caf\xe9"}}', "the answer is not UTF-8 (byte 0xe9 at offset 36)"),
    (b'{"seq": 1,', "the answer is not JSON (Expecting property name enclosed in double quotes at column 11): "
                 "'{\"seq\": 1,'"),
    (b'"seq"', "the answer is not a JSON object: '\"seq\"'"),
    (b"[" * 100_000, "the answer nests deeper than patchconf reads"),
])
def test_answers_that_break_the_protocol_are_named(line, problem):
    with pytest.raises(ProtocolError) as info:
        decode_answer(line)
    assert str(info.value) == f"protocol error: {problem}"


def test_big_integers_and_unicode_are_fine():
    assert decode_answer('{"seq": 1, "n": 123456789012345678901234567890, "s": "é"}'.encode()) == {
        "seq": 1, "n": 123456789012345678901234567890, "s": "é"}


def test_run_bounded_kills_a_program_printing_too_much():
    script = "import sys\nwhile True: sys.stdout.write('x' * 65536)"
    started = time.monotonic()
    with pytest.raises(AnswerTooLarge) as info:
        run_bounded([sys.executable, "-c", script], limit=1024 * 1024, timeout=60)
    assert str(info.value) == (f"{Path(sys.executable).name}'s stdout larger than 1 MiB (the answer size limit, "
                               "--max-answer-bytes)")
    assert time.monotonic() - started < 30
    with pytest.raises(subprocess.TimeoutExpired):
        run_bounded([sys.executable, "-c", "import time; time.sleep(60)"], limit=100, timeout=0.5,
                    new_session=True)
    done = run_bounded([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"],
                       limit=100, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "out\n", "err\n")


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polling"])
def test_waiting_for_a_program_gives_its_exit_status_or_times_out(pidfd, monkeypatch):
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    exited = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    while Path(f"/proc/{exited.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
        time.sleep(0.01)  # until it has exited (not yet reaped)
    assert wait_for_exit(exited, timeout=60) == 3
    sleeping = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            wait_for_exit(sleeping, timeout=0.2)
        assert sleeping.returncode is None
        sleeping.kill()
        assert wait_for_exit(sleeping, timeout=60) == -signal.SIGKILL
    finally:
        sleeping.kill()
        sleeping.wait()


def test_kubectl_printing_too_much_fails_its_case(tmp_path, write_case_file):
    fake = tmp_path / "kubectl"
    fake.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import json, sys
        if sys.argv[1] == "version":
            print(json.dumps({{"clientVersion": {{"gitVersion": "v1.32.4"}}}}))
        else:
            while True:
                sys.stdout.write("{{" * 65536)
        """))
    fake.chmod(0o755)
    target = KubectlTarget(str(fake), max_answer_bytes=parse_size("2MiB"))
    try:
        path = write_case_file("json-patch/one.yaml", """
            cases:
              - name: one
                description: kubectl answers without end
                type: json-patch
                tags: [JP-ADD]
                provenance: [{implementation: kubectl, version: "1.32.4"}]
                original: {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}
                patch: [{op: add, path: /data, value: {}}]
                expected: {apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {}}
            """)
        cases, errors = load_file(path)
        assert errors == []
        result = run_case(cases[0], target)
    finally:
        target.close()
    assert (result.status, result.reason) == (
        ERROR, "target failed: kubectl's stdout larger than 2 MiB (the answer size limit, --max-answer-bytes)")


def test_results_keep_a_bounded_copy_of_answers():
    small = {"document": {"a": 1}, "notes": ["x"]}
    assert stored(small) == small
    kept = stored({"document": {"big": "z" * 100_000}, "error": {"class": "conflict", "message": "m" * 100_000}})
    assert kept["document"].startswith('<truncated by patchconf: 100,011 characters of JSON, over the 65,536 a result '
                                       'keeps; they begin: {"big": "zzz')
    assert len(kept["document"]) < 2200
    assert kept["error"]["class"] == "conflict"
    assert kept["error"]["message"] == "m" * 2000 + " …(98,000 more characters)"
    lines = stored_lines([f"/a/{i}: expected 1, got 2" for i in range(250)] + ["x" * 5000])
    assert len(lines) == 101 and lines[-1] == "…and 151 more differences"


WRONG_ANSWER_CASES = """\
cases:
  - name: fine.nested
    description: the fault target adds a member named b/c instead of c inside b
    type: json-patch
    tags: [JP-ADD]
    provenance: [{implementation: kubectl, version: "1.32.4"}]
    original: {b: {}}
    patch: [{op: add, path: /b/c, value: 2}]
    expected: {b: {c: 2}}
  - name: crash
    description: the fault target crashes
    type: json-patch
    tags: [JP-ADD]
    provenance: [{implementation: kubectl, version: "1.32.4"}]
    original: {a: 1}
    patch: [{op: add, path: /x, value: 1}]
    expected: {a: 1, x: 1}
"""


def test_a_failing_run_writes_reports_showing_each_failures_inputs_expected_actual_and_diff(tmp_path, capsys):
    from xml.etree import ElementTree as ET

    from patchconf.harness import cli

    cases = tmp_path / "cases" / "wrong.yaml"
    cases.parent.mkdir()
    cases.write_text(WRONG_ANSWER_CASES, encoding="utf-8")
    out = tmp_path / "out"
    assert cli.main(["run", "--cases", str(cases), "--target", TARGET, "--report", str(out)]) == 1
    capsys.readouterr()
    nested = [f"{cases}:2", '"b": {}', '"path": "/b/c"', '"expected": {\n    "b": {\n      "c": 2',
              '"document": {\n    "b": {},\n    "b/c": 2', "document /b/c: expected 2, got absent"]
    crashed = [f"{cases}:10", '"path": "/x"', '"expected": {\n    "a": 1,\n    "x": 1',
               "target failed: the program exited (status 3)"]

    def shown(text: str) -> list[list[bool]]:
        return [[part in text for part in parts] for parts in (nested, crashed)]

    everywhere = [[True] * len(nested), [True] * len(crashed)]
    markdown = (out / "report.md").read_text()
    assert shown(markdown) == everywhere
    suites = ET.parse(out / "junit.xml").getroot()
    failure, error = suites.find(".//failure"), suites.find(".//error")
    assert shown(failure.text) == [[True] * len(nested), [False, False, False, False]]
    assert shown(error.text)[1] == [True] * len(crashed)
    html = (out / "report.html").read_text()
    assert shown(html.replace("&quot;", '"')) == everywhere
    # rendered again from results.jsonl alone, the case file gone, every report says the same
    cases.unlink()
    assert cli.main(["report", str(out), "--out", str(tmp_path / "again")]) == 1
    for name in ("report.md", "junit.xml", "report.html"):
        assert (tmp_path / "again" / name).read_text() == (out / name).read_text()
