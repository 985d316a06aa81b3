"""pytest fixtures for a local control plane (harness/controlplane/apiserver.py), started once per test session.

Import the fixtures into a conftest (``from patchconf.harness.controlplane.pytest_apiserver import *``) or load this
module with ``-p patchconf.harness.controlplane.pytest_apiserver``. Where Go is missing (and no binaries are cached)
the tests that use them skip with that reason; with ``PATCHCONF_REQUIRE_LIVE=1`` (as CI sets
it) they fail instead. ``PATCHCONF_APISERVER_VERSION`` picks the release (default: pinned).
"""

from __future__ import annotations

import atexit
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import apiserver

__all__ = ["live_api_client", "live_apiserver", "live_kubeconfig"]


def live_required() -> bool:
    return os.environ.get("PATCHCONF_REQUIRE_LIVE", "") not in ("", "0")


def _raise_interrupt(signum: int, frame: object) -> None:
    # pytest tears fixtures down on KeyboardInterrupt but dies outright on SIGTERM.
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def live_apiserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[apiserver.ControlPlane]:
    """A ready etcd + kube-apiserver for the whole session, stopped (and its data removed) at the end."""
    kubeconfig = tmp_path_factory.mktemp("apiserver") / "kubeconfig"
    # Installed before start: a SIGTERM while the processes come up must reach start's own
    # cleanup, or they outlive the session.
    previous_handler = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        try:
            plane = apiserver.start(kubeconfig, os.environ.get("PATCHCONF_APISERVER_VERSION") or None)
        except apiserver.GoMissing as exc:
            if live_required():
                pytest.fail(f"PATCHCONF_REQUIRE_LIVE is set, but {exc}", pytrace=False)
            pytest.skip(str(exc))
        atexit.register(apiserver.stop, plane)  # last resort if teardown never runs; stop is idempotent
        try:
            yield plane
        finally:
            apiserver.stop(plane)
            atexit.unregister(apiserver.stop)
    finally:
        signal.signal(signal.SIGTERM, previous_handler)


@pytest.fixture(scope="session")
def live_kubeconfig(live_apiserver: apiserver.ControlPlane) -> Path:
    return live_apiserver.kubeconfig


@pytest.fixture(scope="session")
def live_api_client(live_apiserver: apiserver.ControlPlane):
    """A ``kubernetes.client.ApiClient`` for the session's control plane (the kubernetes package is needed)."""
    if live_required():
        import kubernetes
    else:
        kubernetes = pytest.importorskip("kubernetes", reason="the kubernetes Python client is not installed")
    client = kubernetes.config.new_client_from_config(config_file=str(live_apiserver.kubeconfig))
    yield client
    client.close()
