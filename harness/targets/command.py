"""Any program speaking the JSON-lines protocol of harness/PROTOCOL.md, as a target.

The harness owns time and failure: each request has a deadline; a program that exits,
hangs or answers garbage fails that one case with the reason (and its last stderr lines),
is killed and restarted for the next case, and the run goes on.

Answers are read strictly and bounded: a line is at most the answer size limit
(:mod:`patchconf.harness.targets.bounded`), and must be UTF-8 JSON without NaN, Infinity or repeated keys,
of the shape the protocol gives; anything else is a protocol error of that case.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shlex
import subprocess
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from ...reference_impl.patch_types import patch_type
from ..corpus.cases import ABSENT, STEP_EXPECTATIONS, Case, Outcome, named_schema_path
from ..corpus.yamlio import load_path
from .base import (
    ANSWERS,
    LIBRARY,
    MODES,
    TOOL,
    Actual,
    ActualError,
    ProtocolError,
    Target,
    TargetCrash,
    TargetDeclined,
    TargetInfo,
    TargetUnavailable,
)
from .bounded import (
    AnswerTooLarge,
    Oversize,
    keep_tail,
    max_answer_bytes,
    read_lines,
    too_large,
)

PROTOCOL_VERSION = 1
T = TypeVar("T")
DEFAULT_TIMEOUT = 10.0
START_TIMEOUT = 60.0
STDERR_LINES_KEPT = 20
# A request this large may fill the pipe to a program that does not read: written under a deadline.
PIPE_SAFE_BYTES = 16 * 1024


class Program:
    """One running instance of the program, with line-oriented, deadline-bound, size-bound I/O."""

    def __init__(self, argv: list[str], cwd: str | None = None, max_answer: int | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.max_answer = max_answer_bytes(max_answer)
        try:
            self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, cwd=cwd, env=env)
        except OSError as exc:
            raise TargetUnavailable(f"cannot start {argv[0]!r}: {exc}") from exc
        # At most one answer waits here (and one in the reader's hands): a program printing
        # answers nobody asked for is held up by its full pipe, not buffered in patchconf.
        self.lines: queue.Queue[bytes | Oversize | None] = queue.Queue(maxsize=1)
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES_KEPT)
        self._stopped = threading.Event()
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=keep_tail, args=(self.process.stderr, self.stderr),
                         daemon=True).start()

    def _pump_stdout(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in read_lines(self.process.stdout, self.max_answer):
                if not self._hand_over(line):
                    return
        self._hand_over(None)

    def _hand_over(self, item: bytes | Oversize | None) -> bool:
        """Give the next line to request(); False once the program is stopped and nobody takes it."""
        while True:
            try:
                self.lines.put(item, timeout=0.2)
                return True
            except queue.Full:
                if self._stopped.is_set():
                    return False

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        watchdog = threading.Timer(timeout, self.kill) if len(data) > PIPE_SAFE_BYTES else None
        try:
            if watchdog:
                watchdog.start()
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise TargetCrash(self._why(f"could not write to the program ({exc})")) from exc
        finally:
            if watchdog:
                watchdog.cancel()
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TargetCrash(self._why(f"no answer within {timeout:g}s")) from None
        if line is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
            if self.process.returncode is None:
                raise TargetCrash(self._why("the program closed its output"))
            raise TargetCrash(self._why(f"the program exited (status {self.process.returncode})"))
        if isinstance(line, Oversize):
            raise AnswerTooLarge(self._why(too_large("an answer", self.max_answer) + "; the program was stopped"))
        return decode_answer(line)

    def _why(self, reason: str) -> str:
        tail = " | ".join(list(self.stderr)[-5:])
        return f"{reason}; stderr: {tail}" if tail else reason

    def kill(self) -> None:
        """End the program at once (it failed a request, or the run is over)."""
        self._stopped.set()
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)

    def stop(self) -> None:
        """Ask the program to stop (protocol section 4); kill it if it is still running a few seconds later."""
        if self.process.poll() is None:
            try:
                self.process.stdin.write(b'{"cmd": "stop"}\n')
                self.process.stdin.close()
                self.process.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                self.kill()
        self._stopped.set()


def decode_answer(line: bytes) -> dict[str, Any]:
    """One protocol line as a JSON object, or ProtocolError naming what is wrong with it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"the answer is not UTF-8 (byte 0x{line[exc.start]:02x} at offset {exc.start})") from None
    try:
        answer = json.loads(text, parse_constant=_not_json, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"the answer is not JSON ({exc.msg} at column {exc.colno}): {_head(text)}") from None
    except RecursionError:
        raise ProtocolError("the answer nests deeper than patchconf reads") from None
    except ProtocolError:
        raise
    except ValueError as exc:  # an integer longer than Python converts
        raise ProtocolError(f"the answer holds a number patchconf cannot read: {str(exc)[:200]}") from None
    if not isinstance(answer, dict):
        raise ProtocolError(f"the answer is not a JSON object: {_head(text)}")
    return answer


def _not_json(name: str) -> Any:
    raise ProtocolError(f"{name} is not a JSON value (in the answer)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ProtocolError(f"duplicate key {repeated!r} in the answer")
    return data


def _command_text(argv: list[str], limit: int = 200) -> str:
    """The command as given (`python adapter.py`, not the interpreter alone), at most ``limit`` characters."""
    text = shlex.join(argv)
    return f"`{text}`" if len(text) <= limit else f"`{text[:limit]}…`"


def _head(text: str, limit: int = 200) -> str:
    return repr(text[:limit]) + (f" …({len(text):,} characters)" if len(text) > limit else "")


class CommandTarget(Target):
    """``cmd:<command line>``: one program instance per worker, restarted after a failure."""

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT, workers: int = 1,
                 family: str | None = None, cwd: str | None = None, max_answer_bytes: int | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise TargetUnavailable("cmd: needs a command line, e.g. cmd:python adapter.py")
        self.name = f"cmd:{command}"
        self.timeout = timeout
        self.workers = workers
        self.cwd = cwd
        self.max_answer_bytes = max_answer_bytes
        self.env = env  # the programs' environment (None: patchconf's own)
        self._idle: queue.LifoQueue[Program] = queue.LifoQueue()
        self._running: set[Program] = set()  # every instance, so that close() ends busy ones too
        # A target dropped without close() (a script's) ends its programs when collected or at exit:
        # none outlives it, nor the thread reading its answers.
        weakref.finalize(self, _kill_all, self._running)
        self._seq = 0
        self._lock = threading.Lock()
        self._closed = False  # after close(): no instance starts or waits idle (a run ending under a worker)
        program, handshake = self._start()
        try:
            self.info = _info_from_handshake(handshake, family)
        except TargetUnavailable:
            self._end(program)  # a handshake it cannot run on: nothing may keep the program waiting
            raise
        self._idle.put(program)

    def _start(self) -> tuple[Program, dict[str, Any]]:
        program = Program(self.argv, self.cwd, self.max_answer_bytes, self.env)
        with self._lock:
            closed = self._closed
            if not closed:
                self._running.add(program)
        if closed:  # a worker between two cases when the run ended: it would wait on this instance
            program.kill()
            raise TargetCrash("the target was closed: the run is ending")
        try:
            answer = program.request({"cmd": "start", "protocol": PROTOCOL_VERSION}, START_TIMEOUT)
        except TargetCrash as exc:
            self._end(program)
            raise TargetUnavailable(f"{_command_text(self.argv)} failed the start handshake: {exc}") from exc
        if answer.get("ready") is not True:
            self._end(program)
            raise TargetUnavailable(f"{_command_text(self.argv)} did not say ready: {_head(json.dumps(answer))}")
        return program, answer

    def _end(self, program: Program, politely: bool = False) -> None:
        with self._lock:
            self._running.discard(program)
        if politely:
            program.stop()
        else:
            program.kill()

    def run(self, case: Case) -> Actual:
        return self._exchange(lambda seq: {"cmd": "run", "seq": seq, "case": request_case(case)},
                              _actual_from_answer)

    def rendered(self, case: Case, outcome: Outcome) -> Outcome:
        """The expected document as the program's own normalization shows it (protocol "render"),
        for a program that says it renders; any other outcome as it is."""
        if not self.info.renders or outcome.document is ABSENT:
            return outcome
        document = self._exchange(
            lambda seq: {"cmd": "render", "seq": seq, "case": request_case(case), "document": outcome.document},
            _rendered_from_answer)
        return replace(outcome, document=document)

    def _exchange(self, message: Callable[[int], dict[str, Any]], read: Callable[[dict[str, Any], int], T]) -> T:
        """One request on an idle instance (a new one if none is idle) and its answer, read by ``read``;
        an instance that failed or was interrupted mid-request is ended, never reused."""
        with self._lock:
            self._seq += 1
            seq = self._seq
        try:
            program = self._idle.get_nowait()
        except queue.Empty:
            program = self._start()[0]
        try:
            answer = read(program.request(message(seq), self.timeout), seq)
        except TargetDeclined:
            self._release(program)
            raise
        except TargetCrash as exc:
            if isinstance(exc, ProtocolError):  # what the program logged may say why it answered so
                exc.args = (program._why(str(exc)),)
            self._end(program)  # killed; the next case starts a fresh instance
            raise
        except BaseException:  # interrupted mid-request: the program's state is unknown
            self._end(program)
            raise
        self._release(program)
        return answer

    def _release(self, program: Program) -> None:
        """An instance done with its request waits idle for the next, unless the target was closed."""
        with self._lock:
            closed = self._closed
            if not closed:
                self._idle.put(program)
        if closed:
            self._end(program, politely=True)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        while not self._idle.empty():
            self._end(self._idle.get_nowait(), politely=True)
        with self._lock:
            busy = list(self._running)
        for program in busy:  # a run interrupted while cases were in flight
            self._end(program)


def _kill_all(programs: set[Program]) -> None:
    for program in list(programs):
        program.kill()


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
    if schema is not None and not patch_type(case.type).rfc:
        if schema.named:
            path = named_schema_path(schema.named)
            document = load_path(path) if path else {}
            data["schema"] = {"named": schema.named, **document}
        else:
            data["schema"] = {"apiVersion": schema.api_version, "kind": schema.kind}
            if schema.version:
                data["schema"]["version"] = schema.version
    return data


def _rendered_from_answer(answer: dict[str, Any], seq: int) -> Any:
    """The document of a render answer (protocol section 2a)."""
    if answer.get("seq") != seq or isinstance(answer.get("seq"), bool) or "document" not in answer:
        raise ProtocolError(f"a render answer has the request's seq and a 'document': {_head(json.dumps(answer))}")
    return answer["document"]


def _actual_from_answer(answer: dict[str, Any], seq: int) -> Actual:
    """What the program produced, from an answer of the shape protocol section 3 gives."""
    if answer.get("seq") != seq or isinstance(answer.get("seq"), bool):
        raise ProtocolError(f"answered seq {answer.get('seq')!r} to request {seq}")
    kinds = [kind for kind in ("result", "error", "skipped") if kind in answer]
    if len(kinds) != 1:
        have = f"has {' and '.join(kinds)}" if kinds else "has none"
        raise ProtocolError(f"an answer has exactly one of result, error and skipped; this one {have}")
    if "skipped" in answer:
        if not isinstance(answer["skipped"], str):
            raise ProtocolError(f"'skipped' is not a string: {_head(json.dumps(answer['skipped']))}")
        raise TargetDeclined(answer["skipped"])
    if "error" in answer:
        error = answer["error"]
        if not isinstance(error, dict) or not isinstance(error.get("class"), str):
            raise ProtocolError(f"'error' is not an object with a string 'class': {_head(json.dumps(error))}")
        if not isinstance(error.get("message", ""), str):
            raise ProtocolError(f"the error's 'message' is not a string: {_head(json.dumps(error['message']))}")
        return Actual(error=ActualError(error["class"], error.get("message", "")))
    result = answer["result"]
    if not isinstance(result, dict):
        raise ProtocolError(f"'result' is not an object: {_head(json.dumps(result))}")
    if "steps" in result:  # server-side apply: one result per step
        steps = result["steps"]
        if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
            raise ProtocolError(f"'steps' is not a list of objects: {_head(json.dumps(steps))}")
        return Actual(document={"steps": steps})
    if "document" not in result and "patch" not in result:
        raise ProtocolError(f"'result' has neither 'document' nor 'patch': {_head(json.dumps(result))}")
    return Actual(document=result.get("document", ABSENT), patch=result.get("patch", ABSENT))


def _info_from_handshake(answer: dict[str, Any], family: str | None) -> TargetInfo:
    implementation = answer.get("implementation") or {}
    capabilities = answer.get("capabilities") or {}
    if not isinstance(implementation, dict) or not isinstance(capabilities, dict):
        raise TargetUnavailable("protocol error in the handshake: 'implementation' and 'capabilities' are objects")
    for key in ("patch_types", "schemas", "modes"):
        value = capabilities.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise TargetUnavailable(f"protocol error in the handshake: capabilities.{key} is not a list of strings")
    name = str(implementation.get("name", "unknown"))
    return TargetInfo(
        family=family or name,
        version=str(implementation.get("version", "unknown")),
        patch_types=frozenset(capabilities.get("patch_types", [])),
        schemas=frozenset(capabilities.get("schemas", ["none"])),
        profile=str(capabilities.get("profile", "kubernetes")),
        messages=bool(capabilities.get("messages", False)),
        description=" ".join(part for part in (name, str(implementation.get("version") or ""),
                                               f"({implementation['language']})" if implementation.get("language")
                                               else "") if part),
        kubernetes_version=str(implementation.get("kubernetes") or ""),
        category=_category(implementation.get("category")),
        answers=_answers(capabilities.get("answers")),
        renders=capabilities.get("renders") is True,
        modes=_modes(capabilities.get("modes", [])),
    )


def _modes(value: list[str]) -> frozenset[str]:
    unknown = sorted(set(value) - MODES)
    if unknown:
        raise TargetUnavailable(f"protocol error in the handshake: capabilities.modes {unknown} are not among "
                                f"{sorted(MODES)}")
    return frozenset(value)


def _answers(value: Any) -> frozenset[str]:
    if value is None:
        return ANSWERS
    if not isinstance(value, list) or not value or not set(value) <= ANSWERS:
        raise TargetUnavailable(f"protocol error in the handshake: capabilities.answers {value!r} is not a "
                                "non-empty list of 'document' and 'patch'")
    return frozenset(value)


def _category(value: Any) -> str:
    """A program is a library unless it says it is a tool; it cannot claim to be Kubernetes."""
    if value in (None, LIBRARY, TOOL):
        return value or LIBRARY
    raise TargetUnavailable(f"protocol error in the handshake: implementation.category {value!r} is neither "
                            f"{LIBRARY!r} nor {TOOL!r}")


def default_workers() -> int:
    return os.cpu_count() or 1
