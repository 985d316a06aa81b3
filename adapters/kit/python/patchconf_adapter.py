"""The protocol half of a patchconf Python adapter (harness/PROTOCOL.md).

The handshake, the request loop, the library's exceptions turned into that case's error,
and answers written as exact JSON are here, the same for every adapter. An adapter says
who it is, what it runs and how one case is answered::

    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
    import patchconf_adapter as kit

    with kit.library("jsonpatch"):  # a failed import becomes the handshake's "not ready: why"
        import jsonpatch

    def answer(case):
        return {"document": jsonpatch.apply_patch(case["original"], case["patch"])}

    kit.Adapter(name="python-jsonpatch", distribution="jsonpatch", patch_types=["json-patch"],
                profile="rfc", answer=answer).main()

It is a single file with no dependency beyond the standard library, loaded by path, so an
adapter runs as ``python adapter.py`` wherever its library is installed.

Numbers: requests are read with :mod:`json`, so integers are Python ints, exact at any
size (the interpreter's digit limit for int/str conversion is lifted), and ``1.0`` stays a
float and is written back as ``1.0``. A result holding NaN or an infinity, or anything else
JSON cannot carry, becomes that case's ``unclassified`` error instead of a broken line.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

PROTOCOL_VERSION = 1
PATCH_TYPES = ("json-patch", "merge-patch", "merge-patch-2way", "merge-patch-3way", "strategic",
               "strategic-2way", "strategic-3way", "apply", "server-side-apply")

_import_errors: list[str] = []  # the libraries ``library()`` could not import, with why


@contextlib.contextmanager
def library(distribution: str) -> Iterator[None]:
    """Import a library inside this block; if it fails, the adapter answers the handshake
    "not ready" with the reason instead of dying before it can say anything."""
    try:
        yield
    except ImportError as exc:
        _import_errors.append(f"cannot import {distribution}: {exc} (pip install {distribution})")


@dataclass(frozen=True)
class Fail:
    """A case's error answer: one of patchconf's classes (PROTOCOL.md section 3) and the message."""

    error_class: str
    message: str


@dataclass(frozen=True)
class Skip:
    """A case the adapter declines after all, with the reason."""

    reason: str


def describe(exc: BaseException) -> str:
    """An exception as a message: its type, then its text."""
    return f"{type(exc).__name__}: {exc}"


def unclassified(exc: BaseException) -> str:
    """The default error class: the exception does not say which patchconf class it is."""
    return "unclassified"


@dataclass(frozen=True)
class Adapter:
    """One library behind the protocol.

    ``answer(case)`` gets the request's ``case`` object and returns the ``result`` object
    (``{"document": …}`` and/or ``{"patch": …}``, or ``{"steps": […]}``), a :class:`Fail`
    or a :class:`Skip`. Whatever it raises is the case's error: ``error_class(exc)`` names
    the class (``unclassified`` unless the adapter knows better), :func:`describe` the message.
    """

    name: str
    distribution: str  # the installed distribution whose version the handshake reports
    patch_types: list[str]
    answer: Callable[[dict[str, Any]], dict[str, Any] | Fail | Skip]
    schemas: list[str] = field(default_factory=lambda: ["none"])
    profile: str = "kubernetes"
    messages: bool = False
    homepage: str | None = None
    category: str = "library"  # "tool": a program users' objects pass through (Helm, Ansible…), grouped apart
    error_class: Callable[[BaseException], str] = unclassified

    def handshake(self) -> dict[str, Any]:
        if _import_errors:
            return {"ready": False, "error": "; ".join(_import_errors)}
        try:
            version = importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return {"ready": False, "error": f"{self.distribution} is not installed (pip install {self.distribution})"}
        implementation = {"name": self.name, "version": version, "language": "python"}
        if self.homepage:
            implementation["homepage"] = self.homepage
        if self.category != "library":
            implementation["category"] = self.category
        return {"ready": True, "protocol": PROTOCOL_VERSION, "implementation": implementation,
                "capabilities": {"patch_types": list(self.patch_types), "schemas": list(self.schemas),
                                 "profile": self.profile, "messages": self.messages}}

    def run(self, seq: Any, case: Any) -> dict[str, Any]:
        """The answer to one ``run`` request; the library's failure is the case's answer."""
        if not isinstance(case, dict):
            return error_answer(seq, "unclassified", f"the request's case is not an object: {case!r:.200}")
        if case.get("type") not in self.patch_types:
            return {"seq": seq, "skipped": f"{self.name} does not run {json.dumps(case.get('type'))} cases"}
        try:
            answer = self.answer(case)
        except Exception as exc:
            try:
                error_class = self.error_class(exc)
            except Exception as broken:  # a broken classifier must not end the program either
                return error_answer(seq, "unclassified", f"{describe(exc)} (classifying it failed: {describe(broken)})")
            return error_answer(seq, error_class, describe(exc))
        if isinstance(answer, Skip):
            return {"seq": seq, "skipped": answer.reason}
        if isinstance(answer, Fail):
            return error_answer(seq, answer.error_class, answer.message)
        if not isinstance(answer, dict):
            return error_answer(seq, "unclassified", f"the adapter's answer is not a result object: {answer!r:.200}")
        return {"seq": seq, "result": answer}

    def respond(self, line: str) -> dict[str, Any] | None:
        """The answer to one request line, or None for ``stop``."""
        try:
            request = json.loads(line)
        except ValueError as exc:  # no seq to echo: the harness names the broken exchange
            return error_answer(None, "unclassified", f"unreadable request: {exc}")
        if not isinstance(request, dict):
            return error_answer(None, "unclassified", f"the request is not a JSON object: {line[:200]!r}")
        command = request.get("cmd")
        if command == "start":
            return self.handshake()
        if command == "stop":
            return None
        if command == "run":
            return self.run(request.get("seq"), request.get("case"))
        return error_answer(request.get("seq"), "unclassified", f"unknown command {command!r}")

    def serve(self, stdin: IO[str], stdout: IO[str]) -> None:
        """Answer request lines from stdin on stdout, one line each, until ``stop`` or end of input."""
        for line in stdin:
            if not line.strip():
                continue
            answer = self.respond(line)
            if answer is None:
                return
            stdout.write(encode(answer) + "\n")
            stdout.flush()

    def main(self) -> None:
        """Serve the process's stdin and stdout (UTF-8 whatever the locale), then exit 0."""
        sys.set_int_max_str_digits(0)  # integers of any length are carried exactly
        sys.stdin.reconfigure(encoding="utf-8")
        sys.stdout.reconfigure(encoding="utf-8")
        self.serve(sys.stdin, sys.stdout)


def error_answer(seq: Any, error_class: str, message: str) -> dict[str, Any]:
    return {"seq": seq, "error": {"class": error_class, "message": message}}


def encode(answer: dict[str, Any]) -> str:
    """One answer line; a result JSON cannot carry becomes an error of the same case."""
    try:
        return json.dumps(answer, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        fallback = error_answer(answer.get("seq"), "unclassified", f"the library's output is not JSON: {exc}")
        return json.dumps(fallback, ensure_ascii=False)
