"""The Go toolchain as patchconf drives it for the programs it builds (the upstream target,
the Go peers, the local control plane): one cache outside the repository, one way to run `go`,
one lock per cached build, and one voice on stderr while a first-use build runs for minutes."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

# Module-mode builds without cgo: the same binaries wherever they are built.
GO_ENV = {"GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
PROGRESS_EVERY = 30.0  # seconds between "still in `go build`" lines

Say = Callable[[str], None]


def _to_stderr(message: str) -> None:
    print(f"patchconf: {message}", file=sys.stderr, flush=True)


_say: Say | None = _to_stderr


@contextlib.contextmanager
def progress_to(say: Say | None) -> Iterator[None]:
    """Build progress goes to ``say`` meanwhile (None: nowhere, for a ``--quiet`` run)."""
    global _say
    previous, _say = _say, say
    try:
        yield
    finally:
        _say = previous


def progress_on() -> bool:
    """Whether progress is said at all (not in a ``--quiet`` run)."""
    return _say is not None


def elapsed(seconds: float) -> str:
    """65.4 -> '1m05s', 9.2 -> '9s'."""
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes else f"{rest}s"


def step_name(command: list[str]) -> str:
    """The `go` step a command is: ['/usr/bin/go', 'mod', 'tidy', '-e'] -> 'go mod tidy'."""
    words = [word for word in command[1:] if not word.startswith("-")]
    return " ".join(["go", *words[:2 if words[:1] == ["mod"] else 1]])


class BuildProgress:
    """What one first-use build says on stderr: what it builds, each `go` step, elapsed time."""

    def __init__(self, what: str, where: Path) -> None:
        self.what = what
        self.began = time.monotonic()
        self.say(f"building {what} for first use (the first build takes minutes; cached in {where} afterwards)")

    def say(self, message: str) -> None:
        if _say is not None:
            _say(message)

    def still(self, step: str, step_began: float) -> None:
        now = time.monotonic()
        self.say(f"{self.what}: still in `{step}` after {elapsed(now - step_began)} "
                 f"({elapsed(now - self.began)} in all)")

    def done(self) -> None:
        self.say(f"built {self.what} in {elapsed(time.monotonic() - self.began)}")


@contextlib.contextmanager
def build_lock(build_dir: Path, what: str) -> Iterator[None]:
    """One build of ``build_dir`` at a time across processes (two test sessions, two checkouts and
    a user's shell share the cache): the others wait, saying for what, then find it built."""
    lock = build_dir.with_name(build_dir.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if _say is not None:
                _say(f"waiting for another process's build of {what} ({build_dir})")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def tail(text: str, lines: int = 30) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run_go(command: list[str], cwd: Path, timeout: float, error: type[Exception],
           progress: BuildProgress | None = None) -> str:
    """The output of ``command`` (`go` and its arguments); ``error`` naming the command otherwise.

    With ``progress``, the step is named as it starts and every PROGRESS_EVERY seconds it runs.
    """
    step = step_name(command)
    if progress is not None:
        progress.say(f"{progress.what}: {step}")
    began = time.monotonic()
    process = subprocess.Popen(command, cwd=cwd, env={**os.environ, **GO_ENV}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    with process:
        while True:
            left = began + timeout - time.monotonic()
            try:
                stdout, stderr = process.communicate(timeout=max(0.0, min(left, PROGRESS_EVERY)))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() - began >= timeout:
                    process.kill()
                    process.communicate()
                    raise error(f"{shlex.join(command)} took longer than {timeout:.0f}s") from None
                if progress is not None:
                    progress.still(step, began)
            except BaseException:
                process.kill()  # Ctrl-C: no go build outlives the command that started it
                raise
    if process.returncode != 0:
        raise error(f"{shlex.join(command)} failed in {cwd}:\n{tail(stderr, 40)}")
    return stdout
