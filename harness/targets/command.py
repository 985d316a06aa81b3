"""Any program speaking the JSON-lines protocol of harness/PROTOCOL.md, as a target.

The harness owns time and failure: each request has a deadline; a program that exits,
hangs or answers garbage fails that one case with the reason (and its last stderr lines),
is killed and restarted for the next case, and the run goes on.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shlex
import subprocess
import threading
from typing import Any

from harness.cases import ABSENT, STEP_EXPECTATIONS, Case, named_schema_path
from harness.targets.base import (
    Actual,
    ActualError,
    Target,
    TargetCrash,
    TargetDeclined,
    TargetInfo,
    TargetUnavailable,
)
from harness.yamlio import load_path

PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 10.0
START_TIMEOUT = 60.0
STDERR_LINES_KEPT = 20


class Program:
    """One running instance of the program, with line-oriented, deadline-bound I/O."""

    def __init__(self, argv: list[str], cwd: str | None = None) -> None:
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", bufsize=1, cwd=cwd,
            )
        except OSError as exc:
            raise TargetUnavailable(f"cannot start {argv[0]!r}: {exc}") from exc
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _pump_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr.append(line.rstrip("\n"))

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise TargetCrash(self._why(f"could not write to the program ({exc})")) from exc
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TargetCrash(self._why(f"no answer within {timeout:g}s")) from None
        if line is None:
            self.process.wait(timeout=5)
            raise TargetCrash(self._why(f"the program exited (status {self.process.returncode})"))
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise TargetCrash(self._why(f"answered with a line that is not JSON: {line[:200]!r}")) from None
        if not isinstance(answer, dict):
            raise TargetCrash(self._why(f"answered with JSON that is not an object: {line[:200]!r}"))
        return answer

    def _why(self, reason: str) -> str:
        tail = " | ".join(list(self.stderr)[-5:])
        return f"{reason}; stderr: {tail}" if tail else reason

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
                self.process.stdin.close()
                self.process.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                self.process.kill()
                self.process.wait()


class CommandTarget(Target):
    """``cmd:<command line>``: one program instance per worker, restarted after a failure."""

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT, workers: int = 1,
                 family: str | None = None, cwd: str | None = None) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise TargetUnavailable("cmd: needs a command line, e.g. cmd:python adapter.py")
        self.name = f"cmd:{command}"
        self.timeout = timeout
        self.workers = workers
        self.cwd = cwd
        self._idle: queue.LifoQueue[Program] = queue.LifoQueue()
        self._seq = 0
        self._lock = threading.Lock()
        program, handshake = self._start()
        self._idle.put(program)
        self.info = _info_from_handshake(handshake, family)

    def _start(self) -> tuple[Program, dict[str, Any]]:
        program = Program(self.argv, self.cwd)
        try:
            answer = program.request({"cmd": "start", "protocol": PROTOCOL_VERSION}, START_TIMEOUT)
        except TargetCrash as exc:
            program.stop()
            raise TargetUnavailable(f"{self.argv[0]} failed the start handshake: {exc}") from exc
        if answer.get("ready") is not True:
            program.stop()
            raise TargetUnavailable(f"{self.argv[0]} did not say ready: {answer}")
        return program, answer

    def run(self, case: Case) -> Actual:
        with self._lock:
            self._seq += 1
            seq = self._seq
        try:
            program = self._idle.get_nowait()
        except queue.Empty:
            program = self._start()[0]
        try:
            answer = program.request({"cmd": "run", "seq": seq, "case": request_case(case)}, self.timeout)
            actual = _actual_from_answer(answer, seq)
        except TargetDeclined:
            self._idle.put(program)
            raise
        except TargetCrash:
            program.stop()  # killed; the next case starts a fresh instance
            raise
        self._idle.put(program)
        return actual

    def close(self) -> None:
        while not self._idle.empty():
            self._idle.get_nowait().stop()


def request_case(case: Case) -> dict[str, Any]:
    data: dict[str, Any] = {"id": case.id, "type": case.type}
    for key in ("original", "patch", "modified", "current"):
        if case.has_input(key):
            data[key] = case.input(key)
    if case.has_input("steps"):  # server-side apply: the requests, without what each must produce
        data["steps"] = [{key: value for key, value in step.items() if key not in STEP_EXPECTATIONS}
                         for step in case.input("steps")]
    if case.options:
        data["options"] = dict(case.options)
    schema = case.effective_schema()
    if schema is not None and case.type not in ("json-patch", "merge-patch", "merge-patch-2way"):
        if schema.named:
            path = named_schema_path(schema.named)
            document = load_path(path) if path else {}
            data["schema"] = {"named": schema.named, **document}
        else:
            data["schema"] = {"apiVersion": schema.api_version, "kind": schema.kind}
            if schema.version:
                data["schema"]["version"] = schema.version
    return data


def _actual_from_answer(answer: dict[str, Any], seq: int) -> Actual:
    if answer.get("seq") != seq:
        raise TargetCrash(f"answered seq {answer.get('seq')!r} to request {seq}")
    if "skipped" in answer:
        raise TargetDeclined(str(answer["skipped"]))
    if isinstance(answer.get("error"), dict):
        error = answer["error"]
        return Actual(error=ActualError(str(error.get("class", "unclassified")), str(error.get("message", ""))))
    result = answer.get("result")
    if isinstance(result, dict) and isinstance(result.get("steps"), list):
        return Actual(document={"steps": result["steps"]})
    if isinstance(result, dict) and ("document" in result or "patch" in result):
        return Actual(document=result.get("document", ABSENT), patch=result.get("patch", ABSENT))
    raise TargetCrash(f"answer has neither result, error nor skipped: {json.dumps(answer)[:200]}")


def _info_from_handshake(answer: dict[str, Any], family: str | None) -> TargetInfo:
    implementation = answer.get("implementation") or {}
    capabilities = answer.get("capabilities") or {}
    name = str(implementation.get("name", "unknown"))
    return TargetInfo(
        family=family or name,
        version=str(implementation.get("version", "unknown")),
        patch_types=frozenset(capabilities.get("patch_types", [])),
        schemas=frozenset(capabilities.get("schemas", ["none"])),
        profile=str(capabilities.get("profile", "kubernetes")),
        messages=bool(capabilities.get("messages", False)),
        description=f"{name} {implementation.get('version', '')} ({implementation.get('language', '?')})".strip(),
    )


def default_workers() -> int:
    return os.cpu_count() or 1
