"""``peer:NAME``: another Go patch library, from ``targets/peers/NAME``, as a target.

Each peer is a small Go program around one library or tool: ``evanphx-json-patch-v5``,
``kustomize-kyaml`` (patch libraries), the two fakes controller authors test server-side apply
against, ``client-go-fake`` (``k8s.io/client-go/kubernetes/fake.NewClientset``) and
``controller-runtime-fake`` (``sigs.k8s.io/controller-runtime/pkg/client/fake``), and the tools
users' objects pass through (Helm, Argo CD's diff, Flux's resource manager: SERVER_PEERS run on
a kube-apiserver). Each
speaks harness/PROTOCOL.md through the kit in ``targets/peerkit``; what several peers share
lives beside it in modules of its own (``ssafake``, ``clusterkit``, ``helmupgrade``), copied
with it. A peer is built on first use into
``$PATCHCONF_CACHE/peers/<name>-<source digest>/`` (default ``~/.cache/patchconf``) with the
upstream target's build helpers, and reused while its and the kit's sources are unchanged.
Peers are compared, not trusted: their answers are judged against the corpus like any
target's.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import tempfile
import weakref
from pathlib import Path

from .. import SOURCE_ROOT, cache_root
from ..controlplane.gobuild import BuildProgress, build_lock
from .base import TargetUnavailable
from .command import CommandTarget
from .upstream import go_executable, run_build_step, tree_digest

PEERS_DIR = SOURCE_ROOT / "targets" / "peers"
# The protocol kit every peer imports (its go.mod replaces it with ../../peerkit).
KIT_DIR = SOURCE_ROOT / "targets" / "peerkit"

# The server-side apply fakes run each step of a case in a wall-clock second of its own
# (their field manager stamps time.Now() and orders entries by whole seconds), so a case
# takes about a second a step: a longer deadline, and more instances, which mostly sleep.
SSA_FAKES = ("client-go-fake", "controller-runtime-fake")
# The library each peer wraps: `peer:NAME@VERSION` builds the peer against that release of it.
LIBRARY_MODULES = {
    "evanphx-json-patch-v5": "github.com/evanphx/json-patch/v5",
    "kustomize-kyaml": "sigs.k8s.io/kustomize/kyaml",
    "client-go-fake": "k8s.io/client-go",
    "controller-runtime-fake": "sigs.k8s.io/controller-runtime",
    "argocd-gitops-engine": "github.com/argoproj/gitops-engine",
    "flux-ssa": "github.com/fluxcd/pkg/ssa",
    "helm-v3": "helm.sh/helm/v3",
    "helm-v4": "helm.sh/helm/v4",
}
# Modules released in step with the library, taken at the same version: an older client-go's fake
# clientset imports API packages a newer k8s.io/api dropped. (apimachinery stays at the one the
# kit's ssafake requires.)
COMPANION_MODULES = {"client-go-fake": ("k8s.io/api",)}
SSA_FAKE_TIMEOUT = 60.0
SSA_FAKE_WORKERS = 8
# Tools that run against a kube-apiserver (their own client on a real server), read from
# $PATCHCONF_KUBECONFIG: the target's --kubeconfig, or a local control plane it starts and stops.
# Their steps wait for the server's clock as the fakes' do.
SERVER_PEERS = ("flux-ssa", "helm-v4")


def available_peers() -> list[str]:
    """Names of the peers in targets/peers/ (each a folder with a go.mod)."""
    if not PEERS_DIR.is_dir():
        return []
    return sorted(p.name for p in PEERS_DIR.iterdir() if (p / "go.mod").is_file())


def build(name: str, library_version: str | None = None) -> Path:
    """Path of the peer's binary, building it if its sources changed since the last build.

    ``library_version`` (e.g. ``v5.6.0``) builds it against that release of its library
    instead of the one its go.mod pins (``go get`` then ``go mod tidy`` in the build copy).
    """
    if library_version is not None and not re.fullmatch(r"v[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*", library_version):
        raise TargetUnavailable(f"peer:{name}@{library_version}: give a module version such as v1.2.3")
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name or ""):
        raise TargetUnavailable(f"peer: give a peer name, one of: {', '.join(available_peers()) or 'none'}")
    source = PEERS_DIR / name
    if not (source / "go.mod").is_file():
        raise TargetUnavailable(f"no peer {name!r} in {PEERS_DIR}; known peers: {', '.join(available_peers())}")
    go = go_executable()
    digest = tree_digest(source) + tree_digest(KIT_DIR) + (library_version or "")
    build_dir = cache_root() / "peers" / f"{name}-{hashlib.sha256(digest.encode()).hexdigest()[:16]}"
    binary = build_dir / name
    if binary.is_file():
        return binary
    what = f"the Go peer {name}" + (f" with its library at {library_version}" if library_version else "")
    with build_lock(build_dir, what):
        if not binary.is_file():  # built meanwhile by the process it waited for
            _build_into(go, name, library_version, build_dir, binary, BuildProgress(what, build_dir))
    return binary


def _build_into(go: str, name: str, library_version: str | None, build_dir: Path, binary: Path,
                progress: BuildProgress) -> None:
    work = build_dir / "src"
    if work.exists():
        shutil.rmtree(work)
    # The peer and the kit keep their places relative to each other, as the replace says.
    skip = shutil.ignore_patterns("*_test.go", "README.md")
    shutil.copytree(PEERS_DIR / name, work / "peers" / name, ignore=skip)
    shutil.copytree(KIT_DIR, work / "peerkit", ignore=skip)
    if library_version is not None:
        if name not in LIBRARY_MODULES:
            raise TargetUnavailable(f"peer {name!r} names no library module to take another version of")
        modules = (LIBRARY_MODULES[name], *COMPANION_MODULES.get(name, ()))
        run_build_step([go, "get", *(f"{module}@{library_version}" for module in modules)], work / "peers" / name,
                       progress)
        run_build_step([go, "mod", "tidy"], work / "peers" / name, progress)
    run_build_step([go, "build", "-trimpath", "-o", str(binary) + ".tmp", "."], work / "peers" / name, progress)
    os.replace(str(binary) + ".tmp", binary)
    progress.done()


class PeerTarget(CommandTarget):
    def __init__(self, name: str, timeout: float | None = None, max_answer_bytes: int | None = None,
                 kubeconfig: str | None = None) -> None:
        name, _, library_version = name.partition("@")
        binary = build(name, library_version or None)
        fake, server = name in SSA_FAKES, name in SERVER_PEERS
        self._plane_stop: weakref.finalize | None = None  # stops the plane started here, once
        env = self._server_environment(kubeconfig) if server else None
        try:
            super().__init__(shlex.quote(str(binary)),
                             timeout=timeout or (SSA_FAKE_TIMEOUT if fake or server else 10.0),
                             workers=max(SSA_FAKE_WORKERS, os.cpu_count() or 1) if fake else os.cpu_count() or 1,
                             family=name, max_answer_bytes=max_answer_bytes, env=env)
        except BaseException:
            self._stop_plane()
            raise
        self.name = f"peer:{name}" + (f"@{library_version}" if library_version else "")

    def _server_environment(self, kubeconfig: str | None) -> dict[str, str]:
        """The programs' environment naming the server they run against: the one given, else a
        local control plane started for this target (stopped by close)."""
        kubeconfig = kubeconfig or os.environ.get("PATCHCONF_KUBECONFIG")
        if not kubeconfig:
            from ..controlplane import apiserver

            directory = Path(tempfile.mkdtemp(prefix="patchconf-peer-"))
            try:
                plane = apiserver.start(directory / "kubeconfig")
            except Exception as exc:
                raise TargetUnavailable(f"the local control plane this peer runs against did not start: {exc}") from exc
            # close() stops it; so do the target's collection and the interpreter's exit, for a
            # script that never closes the target: no control plane outlives what started it.
            self._plane_stop = weakref.finalize(self, _stop_started_plane, plane)
            kubeconfig = str(plane.kubeconfig)
        return {**os.environ, "PATCHCONF_KUBECONFIG": kubeconfig}

    def _stop_plane(self) -> None:
        if self._plane_stop is not None:
            self._plane_stop()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._stop_plane()


def _stop_started_plane(plane) -> None:
    """Stop a control plane a server peer started, and remove the directory made for it."""
    from ..controlplane import apiserver

    apiserver.stop(plane)
    shutil.rmtree(plane.kubeconfig.parent, ignore_errors=True)
