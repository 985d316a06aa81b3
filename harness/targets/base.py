"""The target interface: anything that can run cases and say what it produced."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from ...reference_impl.patch_types import patch_type
from ..corpus.cases import ABSENT, Case, Outcome

KUBERNETES_PROFILE = "kubernetes"
RFC_PROFILE = "rfc"


KUBERNETES, TOOL, LIBRARY = "kubernetes", "tool", "library"
CATEGORIES = (KUBERNETES, TOOL, LIBRARY)
ANSWERS = frozenset({"document", "patch"})
# Modes a case may need beyond a flow's default (its options), each by the option that asks for it.
# A target runs a case needing one only if it declares the mode: a tool or library that lacks it is
# skipped, whatever its category, never charged (kubectl apply --overwrite=false reports conflicts; Helm,
# Argo CD and the Python clients always overwrite).
OVERWRITE_FALSE = "overwrite=false"
MODES = frozenset({OVERWRITE_FALSE})


def needed_modes(case: Case) -> tuple[str, ...]:
    """The modes ``case`` needs beyond its flow's default."""
    return (OVERWRITE_FALSE,) if case.options.get("overwrite", True) is False else ()


@dataclass(frozen=True)
class TargetInfo:
    """Who a target is and what it can run.

    ``family`` is the name cases use in ``divergences[].target``; ``profile`` says whose
    rules it is judged by (Kubernetes, or the RFCs); ``messages`` whether its error
    messages are Kubernetes' own, so message fragments are compared too.
    """

    family: str
    version: str
    patch_types: frozenset[str]
    schemas: frozenset[str] = frozenset({"builtin", "named", "none"})
    profile: str = KUBERNETES_PROFILE
    messages: bool = False
    description: str = ""
    # The Kubernetes release whose behaviour it has, when ``version`` is not one (the
    # reference's is patchconf's; a peer's its library's): divergences' ``versions`` are
    # matched against it.
    kubernetes_version: str = ""
    # What it is, for grouping in the compliance matrix: Kubernetes itself (its code, kubectl, a
    # server, and the reference judged by them), a tool users' objects pass through, or a library.
    category: str = LIBRARY
    # What its answers hold: a tool that only predicts the resulting object answers no created
    # patch, and is judged on the document alone.
    answers: frozenset[str] = ANSWERS
    # Whether it shows an expected document as its own normalization shows objects (protocol
    # "render"), so a tool judged by what it compares is not failed on what it normalizes away.
    renders: bool = False
    # The modes beyond a flow's default it honours (MODES); a case needing another is skipped.
    modes: frozenset[str] = frozenset()

    @property
    def release(self) -> str:
        """What divergences' ``versions`` are matched against: the Kubernetes release it behaves
        as, else its own version (upstream's, kubectl's and a live server's are Kubernetes releases)."""
        return self.kubernetes_version or self.version

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "version": self.version,
            **({"kubernetes_version": self.kubernetes_version} if self.kubernetes_version else {}),
            "patch_types": sorted(self.patch_types),
            "schemas": sorted(self.schemas),
            "profile": self.profile,
            "messages": self.messages,
            "description": self.description,
            **({"category": self.category} if self.category != LIBRARY else {}),
            **({"answers": sorted(self.answers)} if self.answers != ANSWERS else {}),
            **({"renders": True} if self.renders else {}),
            **({"modes": sorted(self.modes)} if self.modes else {}),
        }


@dataclass(frozen=True)
class ActualError:
    """A target's failure; ``status``/``reason`` are an API server's HTTP status and Status reason."""

    error_class: str
    message: str
    status: int | None = None
    reason: str | None = None
    # classes the answer cannot tell apart (an API server hides why a JSON patch did not apply)
    alternatives: tuple[str, ...] = ()

    def matches(self, error_class: str) -> bool:
        return error_class == self.error_class or error_class in self.alternatives

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"class": self.error_class, "message": self.message}
        if self.alternatives:
            data["alternatives"] = list(self.alternatives)
        if self.status is not None:
            data["status"] = self.status
        if self.reason is not None:
            data["reason"] = self.reason
        return data


@dataclass(frozen=True)
class Actual:
    """What a target produced for one case."""

    document: Any = ABSENT
    patch: Any = ABSENT
    error: ActualError | None = None
    notes: tuple[str, ...] = field(default=())
    # after an error: whether the object was left exactly as it was (None: the target cannot tell)
    unchanged: bool | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.document is not ABSENT:
            data["document"] = self.document
        if self.patch is not ABSENT:
            data["patch"] = self.patch
        if self.error is not None:
            data["error"] = self.error.to_json()
        if self.notes:
            data["notes"] = list(self.notes)
        if self.unchanged is not None:
            data["unchanged"] = self.unchanged
        return data


class TargetUnavailable(Exception):
    """The target cannot run at all here (binary missing, server unreachable)."""


class TargetCrash(Exception):
    """The target failed to produce an answer for a case (crash, hang, garbage)."""


class ProtocolError(TargetCrash):
    """An answer that breaks the protocol (harness/PROTOCOL.md): not UTF-8, not JSON, NaN or
    Infinity, a duplicate key, the wrong shape."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"protocol error: {problem}")


class TargetDeclined(Exception):
    """The target declined a case it had claimed it could run (reported as a skip)."""


class Target(ABC):
    """Runs cases. Implementations must never mutate a case's inputs."""

    name: str
    info: TargetInfo
    workers: int = 1
    # Whether its cases can run in forked copies of this process: it runs them in this process,
    # holding no thread, connection or child process a copy would share.
    forks: bool = False

    def skip_reason(self, case: Case) -> str | None:
        """Why this target cannot run ``case``, or None when it can."""
        if case.targets and self.info.family not in case.targets:
            return f"the case runs only on {', '.join(case.targets)} targets"
        if case.type not in self.info.patch_types:
            return f"{self.name} does not run {case.type!r} cases"
        schema = case.effective_schema()
        kind = "none" if schema is None else ("named" if schema.named else "builtin")
        if patch_type(case.type).rfc:  # schema-free: none is sent
            kind = "none"
        if kind not in self.info.schemas:
            label = schema.describe() if schema else "no schema"
            return f"{self.name} cannot run cases on {label}"
        lacking = [mode for mode in needed_modes(case) if mode not in self.info.modes]
        if lacking:
            return f"the case needs the {' and '.join(lacking)} mode, which the target lacks"
        if "patch" not in self.info.answers and case.outcome.error is None and case.outcome.document is ABSENT:
            return f"{self.name} answers resulting documents only, and the case expects only a created patch"
        return None

    def rendered(self, case: Case, outcome: Outcome) -> Outcome:
        """The outcome as this target can observe it (live: the expected object as the server stores it)."""
        return outcome

    def server_changes(self, case: Case, actual: Actual) -> tuple[dict[str, Any], ...]:
        """What the target's server did to the case's objects beyond the request and its defaults
        (admission, policy), asked once the case is judged: facts with ``change`` (added, removed,
        refused), ``pointer``, ``value`` and ``seen_in``. Only a live server has any."""
        return ()

    def compares_messages(self, case: Case) -> bool:
        """Whether the case's error message fragments are checked against this target's messages."""
        return self.info.messages

    @abstractmethod
    def run(self, case: Case) -> Actual:
        """Run one case; raise TargetCrash when no answer could be obtained."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release processes or files the target holds."""
