"""Reading what a target prints, bounded: patchconf's memory does not depend on a target's output.

A target's answer — a protocol line of a ``cmd:`` program (and the upstream and peer
programs), kubectl's output — may be at most ``max_answer_bytes`` (default 64 MiB;
``--max-answer-bytes`` or ``$PATCHCONF_MAX_ANSWER_BYTES``). Output is read in chunks of
:data:`CHUNK` bytes and never buffered beyond the limit: a longer line, or endless output
without a newline, ends the reading at the limit and fails the case (:class:`AnswerTooLarge`);
the program is killed.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import select
import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from .base import TargetCrash

DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024
MAX_ANSWER_BYTES_ENV = "PATCHCONF_MAX_ANSWER_BYTES"
CHUNK = 64 * 1024
STDERR_LINE_CHARS = 2000  # of each stderr line kept for reasons

_UNITS = {"": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "ki": 1024, "mi": 1024**2, "gi": 1024**3}


# Programs run_bounded is waiting for, so that an interrupted run can end them (kill_running).
_RUNNING: set[tuple[subprocess.Popen, bool]] = set()
_RUNNING_LOCK = threading.Lock()


class AnswerTooLarge(TargetCrash):
    """A target printed more than the answer size limit."""


def parse_size(text: str) -> int:
    """Bytes from ``67108864``, ``64MiB``, ``64Mi``, ``500k`` or ``1G`` (k, M, G: powers of 1000)."""
    match = re.fullmatch(r"\s*([0-9]+)\s*([kKmMgG]i?)?[bB]?\s*", text)
    if not match or int(match.group(1)) <= 0:
        raise ValueError(f"not a size in bytes: {text!r} (e.g. 67108864, 64MiB, 500k)")
    return int(match.group(1)) * _UNITS[(match.group(2) or "").lower()]


def max_answer_bytes(value: int | None = None) -> int:
    """The answer size limit: ``value`` when given, else $PATCHCONF_MAX_ANSWER_BYTES, else 64 MiB."""
    if value is not None:
        return value
    configured = os.environ.get(MAX_ANSWER_BYTES_ENV)
    return parse_size(configured) if configured else DEFAULT_MAX_ANSWER_BYTES


def describe_size(size: int) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size:,} bytes"


def too_large(what: str, limit: int) -> str:
    return f"{what} larger than {describe_size(limit)} (the answer size limit, --max-answer-bytes)"


@dataclass(frozen=True)
class Oversize:
    """A line that did not end within the limit; reading stopped there."""

    bytes_read: int


def read_lines(stream: IO[bytes], limit: int) -> Iterator[bytes | Oversize]:
    """The lines of a binary stream without their newline, each at most ``limit`` bytes.

    A longer line yields :class:`Oversize` and ends the reading, so no more than ``limit``
    bytes are ever held; a last line without a newline is yielded at the end of the stream.
    """
    pending = bytearray()
    while True:
        data = stream.read1(CHUNK)
        if not data:
            if pending:
                yield bytes(pending)
            return
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            if len(pending) + newline - start > limit:
                yield Oversize(len(pending) + newline - start)
                return
            if pending:
                pending += data[start:newline]
                yield bytes(pending)
                pending.clear()
            else:
                yield data[start:newline]
            start = newline + 1
        if len(pending) + len(data) - start > limit:
            yield Oversize(len(pending) + len(data) - start)
            return
        pending += data[start:]


def keep_tail(stream: IO[bytes], lines: collections.deque[str]) -> None:
    """Keep the last lines of a stream in ``lines`` (a bounded deque), each cut short, reading to the end."""
    cut = STDERR_LINE_CHARS * 4  # bytes: room for the characters kept, however they are encoded
    pending = bytearray()
    while data := stream.read1(CHUNK):
        *complete, rest = data.split(b"\n")
        for piece in complete:
            pending += piece[: max(0, cut - len(pending))]
            lines.append(_stderr_line(pending))
            pending.clear()
        pending += rest[: max(0, cut - len(pending))]
    if pending:
        lines.append(_stderr_line(pending))


def _stderr_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").rstrip("\r")
    return text if len(text) <= STDERR_LINE_CHARS else text[:STDERR_LINE_CHARS] + " …(cut)"


def run_bounded(command: list[str], *, limit: int, timeout: float, env: dict[str, str] | None = None,
                cwd: str | None = None, new_session: bool = False) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command, capture_output=True, text=True, timeout=timeout)`` with stdout and
    stderr each bounded by ``limit`` bytes: beyond it the program is killed and AnswerTooLarge raised.

    With ``new_session`` the program runs in its own process group, and a timeout or an
    oversized answer kills the whole group (what a dispatcher like kubectl started, too).
    """
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, cwd=cwd, start_new_session=new_session)
    entry = (process, new_session)
    with _RUNNING_LOCK:
        _RUNNING.add(entry)
    captured: dict[str, bytes] = {}
    over: list[str] = []

    def kill() -> None:
        _kill(process, new_session)

    def pump(name: str, stream: IO[bytes]) -> None:
        data = bytearray()
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(CHUNK):
                if len(data) + len(chunk) > limit:
                    over.append(name)
                    kill()
                    break
                data += chunk
        captured[name] = bytes(data)

    readers = [threading.Thread(target=pump, args=(name, stream), daemon=True)
               for name, stream in (("stdout", process.stdout), ("stderr", process.stderr))]
    for reader in readers:
        reader.start()
    try:
        wait_for_exit(process, timeout)
    except subprocess.TimeoutExpired:
        kill()
        process.wait()
        raise
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(entry)
        for reader in readers:
            reader.join(timeout=5)  # a grandchild may hold the pipes open; its output is not waited for
    if over:
        raise AnswerTooLarge(too_large(f"{os.path.basename(command[0])}'s {over[0]}", limit))
    stdout, stderr = (captured.get(name, b"").decode("utf-8", "replace") for name in ("stdout", "stderr"))
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def wait_for_exit(process: subprocess.Popen, timeout: float) -> int:
    """``process.wait(timeout)``, woken by the exit itself where Linux offers a pidfd.

    With a timeout Popen.wait polls, sleeping up to 50 ms between looks: a target that runs a
    short program per case (kubectl) would wait that long again and again.
    """
    if process.returncode is not None:  # reaped: its pid may be another process's by now
        return process.returncode
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # not Linux (5.3+): Popen's polling
        return process.wait(timeout=timeout)
    try:
        exited, _, _ = select.select([pidfd], [], [], timeout)
    finally:
        os.close(pidfd)
    if not exited:
        raise subprocess.TimeoutExpired(process.args, timeout)
    return process.wait()


def _kill(process: subprocess.Popen, group: bool) -> None:
    if process.returncode is not None:  # reaped: its pid may be another process's by now
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()


def kill_running() -> None:
    """Kill every program run_bounded is waiting for (an interrupted run's cases in flight)."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process, group in running:
        _kill(process, group)
