"""``live@1.MINOR[.PATCH]``: the live target on a local control plane of that Kubernetes release.

The target starts its own etcd + kube-apiserver (harness/controlplane/apiserver.py: built from Kubernetes' Go
modules if not cached, on free loopback ports, its kubeconfig in a temporary directory), runs
the cases exactly as ``live`` does, and stops the control plane when it closes. So
``patchconf matrix --targets live@1.30,live@1.31`` compares server releases with one server up
at a time, and never touches a server it did not start.
"""

from __future__ import annotations

import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..controlplane import apiserver
from ..controlplane.gobuild import progress_on
from .base import TargetUnavailable
from .live import LiveTarget
from .live.conventions import DEFAULT_WORKERS

SPEC_PREFIX = "live@"
RELEASE = re.compile(r"v?1\.[0-9]+(\.[0-9]+)?")


def release_of(spec: str) -> str:
    """``live@1.30`` -> ``1.30``: the release part of a spec, checked for form only (no network)."""
    if not spec.startswith(SPEC_PREFIX):
        raise TargetUnavailable(f"{spec!r} is not a local live target; write live@1.MINOR or live@1.MINOR.PATCH")
    release = spec.removeprefix(SPEC_PREFIX)
    if not RELEASE.fullmatch(release):
        raise TargetUnavailable(f"{spec!r}: give a Kubernetes release after live@, such as live@1.30 or "
                                "live@1.30.14")
    return release


def _say(message: str, always: bool = False) -> None:
    """Progress on stderr, which a --quiet run does not show; what went wrong (``always``) it does."""
    if always or progress_on():
        print(f"patchconf live@: {message}", file=sys.stderr, flush=True)


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt meanwhile, so a half-started control plane is stopped
    (apiserver.start cleans up on any exception) instead of outliving a killed run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class LocalLiveTarget(LiveTarget):
    """A :class:`LiveTarget` whose server it starts itself, and stops on :meth:`close`."""

    def __init__(self, release: str, workers: int = DEFAULT_WORKERS, ready_timeout: float | None = None) -> None:
        if not RELEASE.fullmatch(release):
            raise TargetUnavailable(f"live@{release}: give a Kubernetes release such as 1.30 or 1.30.14")
        self._plane: apiserver.ControlPlane | None = None
        self._directory = Path(tempfile.mkdtemp(prefix="patchconf-live-local-"))
        began = time.monotonic()
        try:
            with _sigterm_interrupts():
                self._plane = apiserver.start(self._directory / "kubeconfig", release, log=_say,
                                              ready_timeout=ready_timeout or apiserver.DEFAULT_READY_TIMEOUT)
        except apiserver.ControlPlaneError as exc:
            shutil.rmtree(self._directory, ignore_errors=True)
            raise TargetUnavailable(f"no local kube-apiserver {release}: {exc}") from exc
        except BaseException:
            shutil.rmtree(self._directory, ignore_errors=True)
            raise
        _say(f"kube-apiserver {self._plane.version} ready at {self._plane.server} after "
             f"{time.monotonic() - began:.0f}s")
        try:
            super().__init__(kubeconfig=str(self._plane.kubeconfig), workers=workers)
        except BaseException:
            # LiveTarget may have closed itself already (its namespace failed); the server is still ours to stop.
            self._stop_control_plane()
            raise
        self.name = f"{SPEC_PREFIX}{release}"

    @property
    def control_plane(self) -> apiserver.ControlPlane | None:
        """The server it started (None once stopped)."""
        return self._plane

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._stop_control_plane()

    def _stop_control_plane(self) -> None:
        plane, self._plane = self._plane, None
        if plane is None:
            return
        try:
            apiserver.stop(plane)
        except apiserver.ControlPlaneError as exc:
            _say(f"{exc}; stop it with: patchconf apiserver stop --kubeconfig {plane.kubeconfig}", always=True)
            return
        _say(f"stopped kube-apiserver {plane.version} at {plane.server}")
        shutil.rmtree(self._directory, ignore_errors=True)
