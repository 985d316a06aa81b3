"""kubectl as a target: ``kubectl patch --local`` runs Kubernetes' own patch code offline.

Documents that are Kubernetes objects are patched as they are. A bare JSON document (an
RFC example, say) is carried in an envelope object — ``{"apiVersion": ..., "kind": ...,
"metadata": ..., "doc": <document>}`` — with JSON Patch paths prefixed by ``/doc`` and a
merge patch nested under ``doc``. That exercises the same library code below the root;
cases whose meaning depends on the root itself (a root ``path: ""``, a pointer without a
leading ``/``, a non-object document, a non-object merge patch) cannot be enveloped and
are skipped with that reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ...reference_impl.patch_types import PATCH_REQUEST_TYPES, patch_type
from ..corpus.cases import Case
from . import bounded
from .base import (
    KUBERNETES,
    Actual,
    ActualError,
    Target,
    TargetCrash,
    TargetInfo,
    TargetUnavailable,
)

ENVELOPE_API_VERSION = "patchconf.dev/v1"
ENVELOPE_KIND = "Envelope"
ENVELOPE_FIELD = "doc"
TIMEOUT_SECONDS = 30

# kubectl reports errors as text; these map its wording (from evanphx/json-patch and
# apimachinery's strategicpatch) onto patchconf's stable error classes. First match wins.
ERROR_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"not supported for .* locally|unable to find api field|unable to find schema", "no-strategic-schema"),
    (r"does not contain declared merge key|cannot merge lists without merge key", "merge-key-missing"),
    (r"list element types are not identical|expected a .* but received|data type is not struct", "type-mismatch"),
    (r"unable to decode \"|unstructured\.detector", "invalid-document"),
    # Before retainKeys: an unknown $patch's message quotes its map, and the $setElementOrder
    # mismatch its lists, either of which may hold "$retainKeys" (as upstream's classify.go).
    (r"unknown patch type: .* in map:|doesn't match \$setElementOrder", "invalid-directive"),
    (r"retainKeys", "retain-keys-violation"),
    (
        r"invalid patch format of|merging lists cannot yet be specified|doesn't match \$setElementOrder",
        "invalid-directive",
    ),
    (r"is not a map", "type-mismatch"),
    (r"lists of lists|list of lists", "list-of-lists"),
    (r"Unknown patch type|unknown patch type|\$patch|directive", "invalid-directive"),
    (r"Object 'Kind' is missing", "invalid-document"),
    (r"test failed", "test-failed"),
    (r"failed to decode|missing from field", "invalid-patch"),
    (r"invalid index referenced|proper array index|invalid syntax|out of range", "invalid-index"),
    (r"missing value|nonexistent key|doc is missing", "path-not-found"),
    (r"Invalid JSON Patch|Unexpected kind|cannot unmarshal|invalid JSON|unexpected end", "invalid-patch"),
    (r"invalid type|doesn't match|does not match|expected .* but got", "type-mismatch"),
)


def classify_error(message: str, patterns: tuple[tuple[str, str], ...] = ERROR_PATTERNS) -> str:
    for pattern, error_class in patterns:
        if re.search(pattern, message):
            return error_class
    return "unclassified"


def kubectl_version(binary: str) -> str:
    try:
        completed = bounded.run_bounded([binary, "version", "--client", "-o", "json"],
                                        limit=bounded.max_answer_bytes(), timeout=TIMEOUT_SECONDS)
        if completed.returncode != 0:
            raise subprocess.CalledProcessError(completed.returncode, completed.args, completed.stdout,
                                                completed.stderr)
        git_version = json.loads(completed.stdout)["clientVersion"]["gitVersion"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, bounded.AnswerTooLarge) as exc:
        raise TargetUnavailable(f"cannot run {binary!r} version: {exc}") from exc
    match = re.match(r"v?([0-9]+\.[0-9]+\.[0-9]+)", git_version)
    return match.group(1) if match else git_version


def find_kubectl(spec: str | None) -> str:
    """The kubectl binary: the one on PATH, or an explicit path (``kubectl:PATH``)."""
    if spec:
        path = Path(spec).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise TargetUnavailable(f"kubectl binary {spec!r} not found or not executable")
        return str(path)
    found = shutil.which("kubectl")
    if not found:
        raise TargetUnavailable("kubectl is not on PATH; install it or pass --target kubectl:PATH")
    return found


class KubectlTarget(Target):
    def __init__(self, binary: str | None = None, max_answer_bytes: int | None = None) -> None:
        self.binary = find_kubectl(binary)
        self.max_answer_bytes = bounded.max_answer_bytes(max_answer_bytes)
        self.name = f"kubectl:{binary}" if binary else "kubectl"
        self.info = TargetInfo(
            family="kubectl",
            category=KUBERNETES,
            version=kubectl_version(self.binary),
            patch_types=frozenset(PATCH_REQUEST_TYPES),
            schemas=frozenset({"builtin", "none"}),
            messages=True,
            description=f"kubectl patch --local ({self.binary})",
        )
        self.workers = os.cpu_count() or 1
        self._tmp = tempfile.TemporaryDirectory(prefix="patchconf-kubectl-")

    def skip_reason(self, case: Case) -> str | None:
        reason = super().skip_reason(case)
        if reason:
            return reason
        document = case.inputs.get("original")
        if _is_object(document):
            return None
        if case.type == "strategic":
            return "kubectl patches only Kubernetes objects (apiVersion, kind, metadata.name)"
        return _envelope_problem(case)

    def run(self, case: Case) -> Actual:
        document = case.input("original")
        patch = case.input("patch")
        enveloped = not _is_object(document)
        if enveloped:
            document, patch = _envelope(case.type, document, patch)
        workdir = Path(tempfile.mkdtemp(dir=self._tmp.name))
        (workdir / "object.json").write_text(json.dumps(document), encoding="utf-8")
        (workdir / "patch.json").write_text(json.dumps(patch), encoding="utf-8")
        command = [
            self.binary, "patch", "--local", "-f", str(workdir / "object.json"),
            "--type", patch_type(case.type).kubectl_patch, "--patch-file", str(workdir / "patch.json"),
            "-o", "json", "--show-managed-fields",  # -o json hides metadata.managedFields otherwise
        ]
        try:
            completed = bounded.run_bounded(command, limit=self.max_answer_bytes, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired as exc:
            raise TargetCrash(f"kubectl did not answer within {TIMEOUT_SECONDS}s") from exc
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        notes = ("enveloped",) if enveloped else ()
        if completed.returncode != 0:
            message = completed.stderr.strip().removeprefix("error: ")
            if enveloped:
                message = re.sub(rf"/{ENVELOPE_FIELD}(?=/)", "", message)
            if not message:
                raise TargetCrash(f"kubectl exited {completed.returncode} without a message")
            return Actual(error=ActualError(classify_error(message), message), notes=notes)
        try:
            result = json.loads(completed.stdout)
        except json.JSONDecodeError as exc:
            raise TargetCrash(f"kubectl printed something that is not JSON: {completed.stdout[:200]!r}") from exc
        if enveloped:
            result = result.get(ENVELOPE_FIELD)
        return Actual(document=result, notes=notes)

    def close(self) -> None:
        self._tmp.cleanup()


def _is_object(document: Any) -> bool:
    """A Kubernetes object kubectl can read: apiVersion, kind and metadata.name."""
    return (
        isinstance(document, dict)
        and isinstance(document.get("apiVersion"), str)
        and isinstance(document.get("kind"), str)
        and isinstance(document.get("metadata"), dict)
        and isinstance(document["metadata"].get("name"), str)
    )


def _envelope_problem(case: Case) -> str | None:
    document = case.inputs.get("original")
    patch = case.inputs.get("patch")
    if not isinstance(document, dict):
        return "kubectl --local patches objects; this case's document is not an object"
    if case.type == "merge-patch" and not isinstance(patch, dict):
        return "a non-object merge patch means something else inside an envelope"
    if case.type == "json-patch" and isinstance(patch, list):
        for op in patch:
            if isinstance(op, dict) and (op.get("path") == "" or op.get("from") == ""):
                return "an operation on the root pointer cannot be run inside an envelope"
            if isinstance(op, dict) and any(isinstance(op.get(key), str) and not op[key].startswith("/")
                                            for key in ("path", "from")):
                # the library reads "#/a" or "a" from the root's last token: not the enveloped doc's
                return "a pointer without a leading / cannot be prefixed inside an envelope"
    if case.type == "json-patch" and not isinstance(patch, list):
        return "a malformed (non-array) JSON patch cannot be enveloped"
    return None


def _envelope(patch_type: str, document: Any, patch: Any) -> tuple[dict, Any]:
    wrapped = {
        "apiVersion": ENVELOPE_API_VERSION,
        "kind": ENVELOPE_KIND,
        "metadata": {"name": "envelope"},
        ENVELOPE_FIELD: document,
    }
    if patch_type == "merge-patch":
        return wrapped, {ENVELOPE_FIELD: patch}
    return wrapped, [_prefixed(op) for op in patch]


def _prefixed(op: Any) -> Any:
    if not isinstance(op, dict):
        return op
    moved = dict(op)
    for key in ("path", "from"):
        if isinstance(moved.get(key), str) and moved[key].startswith("/"):
            moved[key] = f"/{ENVELOPE_FIELD}{moved[key]}"
    return moved
