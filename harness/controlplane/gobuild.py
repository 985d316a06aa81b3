"""The Go toolchain as patchconf drives it for the programs it builds (the upstream target,
the Go peers, the local control plane): one cache outside the repository, one way to run `go`,
one lock per cached build, and one voice on stderr while a first-use build runs for minutes."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

# Module-mode builds without cgo: the same binaries wherever they are built.
GO_ENV = {"GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
# The platforms judges are built for, as GOOS/GOARCH; others than the machine's are cross-compiled.
PLATFORMS = ("linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64")
_MACHINES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
MANIFEST_SUFFIX = ".manifest.json"
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


_RUNNING: set[subprocess.Popen] = set()  # the `go` commands run_go waits for, in any thread
_RUNNING_LOCK = threading.Lock()


def stop_running() -> int:
    """Kill every `go` command run_go is waiting for, in any thread (a run ending while a worker
    builds): each then fails as its caller's error. How many there were."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        process.kill()
    return len(running)


def tail(text: str, lines: int = 30) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run_go(command: list[str], cwd: Path, timeout: float, error: type[Exception],
           progress: BuildProgress | None = None, platform: str | None = None) -> str:
    """The output of ``command`` (`go` and its arguments); ``error`` naming the command otherwise.

    With ``progress``, the step is named as it starts and every PROGRESS_EVERY seconds it runs;
    with ``platform`` ('darwin/arm64'), it builds for that GOOS/GOARCH.
    """
    step = step_name(command)
    if progress is not None:
        progress.say(f"{progress.what}: {step}")
    began = time.monotonic()
    env = {**os.environ, **GO_ENV, **(platform_env(platform) if platform else {})}
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    with _RUNNING_LOCK:
        _RUNNING.add(process)
    with process, _forgotten_when_done(process):
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


@contextlib.contextmanager
def _forgotten_when_done(process: subprocess.Popen) -> Iterator[None]:
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(process)


# --- platforms and manifests --------------------------------------------------------------------


def host_platform() -> str:
    """This machine as GOOS/GOARCH, e.g. 'linux/amd64' (os.uname: no `platform` import, no `go`)."""
    uname = os.uname()
    return f"{uname.sysname.lower()}/{_MACHINES.get(uname.machine.lower(), uname.machine.lower())}"


def platform_env(platform: str) -> dict[str, str]:
    """'darwin/arm64' -> {'GOOS': 'darwin', 'GOARCH': 'arm64'}; ValueError for a platform not in PLATFORMS."""
    if platform not in PLATFORMS:
        raise ValueError(f"platform {platform!r}: give one of {', '.join(PLATFORMS)}")
    goos, goarch = platform.split("/")
    return {"GOOS": goos, "GOARCH": goarch}


def platform_suffix(platform: str | None) -> str:
    """What a cache directory adds for a cross-compiled build: '' for this machine, '-darwin-arm64' else."""
    return "" if platform in (None, host_platform()) else "-" + platform.replace("/", "-")


def file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def manifest_path(binary: Path) -> Path:
    return binary.with_name(binary.name + MANIFEST_SUFFIX)


def write_manifest(binary: Path, go: str, facts: dict, error: type[Exception]) -> dict:
    """Write, beside ``binary``, what it is: ``facts`` (its name, release, source digest, build
    flags), its SHA-256, and the Go version and modules it was built from (`go version -m`)."""
    built = json.loads(run_go([go, "version", "-m", "-json", str(binary)], binary.parent, 120, error))
    settings = {item["Key"]: item["Value"] for item in built.get("Settings", [])}
    manifest = {
        **facts,
        "sha256": file_sha256(binary),
        "size": binary.stat().st_size,
        "platform": f"{settings.get('GOOS')}/{settings.get('GOARCH')}",
        "go": built["GoVersion"],
        "main": built.get("Main", {}),
        "settings": settings,
        "modules": [{key: module[key] for key in ("Path", "Version", "Sum") if key in module}
                    | ({"Replace": module["Replace"]} if "Replace" in module else {})
                    for module in built.get("Deps", [])],
    }
    temporary = manifest_path(binary).with_suffix(".tmp")
    temporary.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, manifest_path(binary))
    return manifest


def read_manifest(binary: Path) -> dict | None:
    """The manifest beside ``binary``, or None when there is none (or it cannot be read)."""
    try:
        manifest = json.loads(manifest_path(binary).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None
