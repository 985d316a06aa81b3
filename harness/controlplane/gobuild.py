"""The Go toolchain as patchconf drives it for the programs it builds (the upstream target,
the Go peers, the local control plane): one cache outside the repository, one way to run `go`."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

# Module-mode builds without cgo: the same binaries wherever they are built.
GO_ENV = {"GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}


def tail(text: str, lines: int = 30) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run_go(command: list[str], cwd: Path, timeout: float, error: type[Exception]) -> str:
    """The output of ``command`` (`go` and its arguments); ``error`` naming the command otherwise."""
    try:
        completed = subprocess.run(command, cwd=cwd, env={**os.environ, **GO_ENV}, capture_output=True,
                                   text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise error(f"{shlex.join(command)} took longer than {timeout:.0f}s") from exc
    if completed.returncode != 0:
        raise error(f"{shlex.join(command)} failed in {cwd}:\n{tail(completed.stderr, 40)}")
    return completed.stdout
