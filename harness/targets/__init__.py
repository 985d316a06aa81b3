"""Target registry: turns a ``--target`` spec into a Target."""

from __future__ import annotations

from collections.abc import Callable

from ...reference_impl.releases import CORPUS_RELEASE
from .base import Actual, ActualError, Target, TargetCrash, TargetInfo, TargetUnavailable

__all__ = [
    "TARGET_HELP",
    "Actual",
    "ActualError",
    "Target",
    "TargetCrash",
    "TargetInfo",
    "TargetUnavailable",
    "make_target",
]

TARGET_HELP = {
    "reference[:1.MINOR]": ("the bundled pure-Python reference implementation (:1.MINOR: with that Kubernetes "
                            "release's strategic merge schemas and server-side apply rules; "
                            f"default {CORPUS_RELEASE})"),
    "kubectl[:PATH]": "kubectl patch --local (the kubectl on PATH, or the binary at PATH)",
    "kubectl-apply[:PATH]": "kubectl apply (client-side) against patchconf's loopback recording endpoint",
    "cmd:COMMAND": "any program speaking harness/PROTOCOL.md over stdin/stdout",
    "upstream[@1.MINOR]": "Kubernetes' own Go code (targets/upstream), built from its modules; needs go",
    "peer:NAME[@VERSION]": ("another Go library from targets/peers/NAME (evanphx-json-patch-v5, kustomize-kyaml, "
                            "client-go-fake, controller-runtime-fake), @VERSION: built against that release "
                            "of its library; needs go"),
    "live[:CONTEXT]": "a real API server (kubeconfig: --kubeconfig, $KUBECONFIG, ~/.kube/config)",
    "live@1.MINOR[.PATCH]": ("live on a local etcd + kube-apiserver of that release (patchconf apiserver), "
                             "built if needed, started for the run and stopped after it; needs go"),
}


def _reference(argument: str | None, **options) -> Target:
    from .reference import ReferenceTarget

    return ReferenceTarget(argument) if argument else ReferenceTarget()


def _kubectl(argument: str | None, **options) -> Target:
    from .kubectl import KubectlTarget

    return KubectlTarget(argument, **options)


def _kubectl_apply(argument: str | None, **options) -> Target:
    from .kubectl_apply import KubectlApplyTarget

    return KubectlApplyTarget(argument, **options)


def _command(argument: str | None, **options) -> Target:
    from .command import CommandTarget

    return CommandTarget(argument or "", **options)


def _upstream(argument: str | None, **options) -> Target:
    from .upstream import UpstreamTarget

    return UpstreamTarget(argument, **options)


def _peer(argument: str | None, **options) -> Target:
    from .peer import PeerTarget

    return PeerTarget(argument or "", **options)


def _live(argument: str | None, **options) -> Target:
    from .live import LiveTarget

    return LiveTarget(argument, **options)


def _live_local(argument: str | None, **options) -> Target:
    from .live_local import LocalLiveTarget, release_of

    return LocalLiveTarget(release_of(f"live@{argument or ''}"), **options)


FACTORIES: dict[str, Callable[..., Target]] = {
    "upstream": _upstream,
    "reference": _reference,
    "kubectl": _kubectl,
    "kubectl-apply": _kubectl_apply,
    "cmd": _command,
    "peer": _peer,
    "live": _live,
    "live@": _live_local,
}


def make_target(spec: str, timeout: float | None = None, kubeconfig: str | None = None,
                workers: int | None = None, max_answer_bytes: int | None = None,
                namespace: str | None = None) -> Target:
    """``name`` or ``name:argument`` → a ready target (raises TargetUnavailable).

    ``namespace``: a live target runs in this existing namespace instead of creating its own.

    ``max_answer_bytes`` bounds what a program target may print per answer (None: the
    default, or $PATCHCONF_MAX_ANSWER_BYTES; see harness/targets/bounded.py).
    """
    if spec.startswith("live@"):  # a release, not a context: live_local starts that server
        name, argument = "live@", spec.removeprefix("live@")
    else:
        name, _, argument = spec.partition("@" if spec.startswith("upstream") else ":")
    factory = FACTORIES.get(name)
    if factory is None:
        known = ", ".join(TARGET_HELP)
        raise TargetUnavailable(f"unknown target {spec!r}; known targets: {known}")
    options = {"timeout": timeout} if (timeout and name in ("cmd", "upstream", "peer")) else {}
    if max_answer_bytes is not None and name in ("cmd", "upstream", "peer", "kubectl", "kubectl-apply"):
        options["max_answer_bytes"] = max_answer_bytes
    if name == "peer" and kubeconfig:  # the tools that run on a server (targets/peer.py SERVER_PEERS)
        options["kubeconfig"] = kubeconfig
    if name == "live":
        options = {"kubeconfig": kubeconfig, "namespace": namespace, **({"workers": workers} if workers else {})}
    if name == "live@":  # it writes its own kubeconfig
        options = {"workers": workers} if workers else {}
    return factory(argument or None, **options)
