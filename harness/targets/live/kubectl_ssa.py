"""``kubectl apply`` run by the real kubectl, for the live target's ``kubectl-apply-server-side``
and ``kubectl-apply`` (client-side) steps.

A client-side apply reads the object and creates it or sends a three-way patch; kubectl prints
a warning when the object has no last-applied annotation, and the server's warnings too, each on
a line of its own starting ``Warning: ``.

kubectl makes up to four requests (the apply; the last-applied annotation applied alone by
``kubectl-last-applied``; the JSON patch migrating client-side managers' managedFields; the
apply again) and reports only the first apply's failure as its own: later failures are
warnings. Its -v=8 log shows each response's body, from which a failure's Status (code,
reason, conflict causes) is read.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

from .. import bounded

TIMEOUT_SECONDS = 60
_RESPONSE_BODY = '"Response Body" body='
# kubectl before 1.32 (which a version-matching kubectl runs against an older server) logs it bare
_BARE_RESPONSE_BODY = "] Response Body: "


@dataclass(frozen=True)
class KubectlAnswer:
    ok: bool
    message: str = ""
    status: dict[str, Any] | None = None  # the failed request's Status, if the log shows it
    warnings: tuple[str, ...] = ()  # what kubectl printed as warnings, without "Warning: "
    printed: Any = None  # with --dry-run=server: the object kubectl prints (-o json), managedFields shown


def apply_server_side(kubectl: str, connection: list[str], manifest: dict[str, Any], namespace: str,
                      manager: str, force: bool, dry_run: bool = False) -> KubectlAnswer:
    """``kubectl apply --server-side --field-manager <manager> [--force-conflicts] [--dry-run=server]
    -f <manifest>``."""
    workdir = tempfile.mkdtemp(prefix="patchconf-live-")
    try:
        path = os.path.join(workdir, "manifest.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(manifest, handle)
        command = [kubectl, "apply", "--server-side", "-f", path, "-n", namespace, f"--field-manager={manager}",
                   f"--force-conflicts={'true' if force else 'false'}", "-v=8", *connection]
        if dry_run:
            command += ["--dry-run=server", "-o", "json", "--show-managed-fields"]
        completed = bounded.run_bounded(command, limit=bounded.max_answer_bytes(), timeout=TIMEOUT_SECONDS)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if completed.returncode == 0:
        if not dry_run:
            return KubectlAnswer(ok=True)
        try:
            return KubectlAnswer(ok=True, printed=json.loads(completed.stdout))
        except ValueError:
            return KubectlAnswer(ok=False, message=f"kubectl printed no object: {completed.stdout[:300]!r}")
    return KubectlAnswer(ok=False, message=own_lines(completed.stderr), status=last_failure_status(completed.stderr))


def apply_client_side(kubectl: str, connection: list[str], manifest: dict[str, Any], namespace: str,
                      manager: str) -> KubectlAnswer:
    """``kubectl apply --field-manager <manager> -f <manifest>`` (client-side)."""
    workdir = tempfile.mkdtemp(prefix="patchconf-live-")
    try:
        path = os.path.join(workdir, "manifest.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(manifest, handle)
        command = [kubectl, "apply", "-f", path, "-n", namespace, f"--field-manager={manager}", "-v=8", *connection]
        completed = bounded.run_bounded(command, limit=bounded.max_answer_bytes(), timeout=TIMEOUT_SECONDS)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    warnings = printed_warnings(completed.stderr)
    if completed.returncode == 0:
        return KubectlAnswer(ok=True, warnings=warnings)
    status = last_failure_status(completed.stderr)
    # The Status's message when the log shows it: kubectl's own error quotes the whole patch.
    message = status.get("message") if status and status.get("message") else own_lines(completed.stderr)
    return KubectlAnswer(ok=False, message=message, status=status, warnings=warnings)


def printed_warnings(log: str) -> tuple[str, ...]:
    """The warnings kubectl printed (its own and the server's), in order, without ``Warning: ``."""
    return tuple(line.removeprefix("Warning: ").rstrip() for line in log.splitlines() if line.startswith("Warning: "))


@functools.cache
def client_version(kubectl: str) -> str:
    """kubectl's own version (``1.32.4``), or ``unknown``."""
    try:
        completed = subprocess.run([kubectl, "version", "--client", "-o", "json"], capture_output=True, text=True,
                                   timeout=TIMEOUT_SECONDS, check=False)
        version = json.loads(completed.stdout)["clientVersion"]["gitVersion"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return "unknown"
    return str(version).removeprefix("v")


def own_lines(log: str) -> str:
    """kubectl's own error lines, without its request log and without the advice it appends."""
    lines = []
    for line in log.splitlines():
        if not line or line[0] in " \t>" or (len(line) > 5 and line[0] in "IEW" and line[1:5].isdigit()):
            continue
        if line.startswith("Please review the fields above"):
            break
        lines.append(line)
    return "\n".join(lines).strip().removeprefix("error: ")


def last_failure_status(log: str) -> dict[str, Any] | None:
    """The last Status with ``status: Failure`` among the response bodies of a -v=8 log.

    klog writes a body either on the line (``body="…"``, a quoted string) or, when it spans
    lines, as ``body=<`` followed by the tab-indented text and `` >``; kubectl before 1.32
    writes it bare after ``Response Body:``.
    """
    found = None
    lines = log.splitlines()
    for index, line in enumerate(lines):
        at = line.find(_RESPONSE_BODY)
        if at < 0:
            bare = line.find(_BARE_RESPONSE_BODY)
            with contextlib.suppress(json.JSONDecodeError):
                body = json.loads(line[bare + len(_BARE_RESPONSE_BODY):]) if bare >= 0 else None
                if isinstance(body, dict) and body.get("kind") == "Status" and body.get("status") == "Failure":
                    found = body
            continue
        rest = line[at + len(_RESPONSE_BODY):].strip()
        spans_lines = rest == "<" and index + 1 < len(lines)
        try:
            body = json.loads(lines[index + 1].strip() if spans_lines else json.loads(rest))
        except (json.JSONDecodeError, TypeError):
            continue
        if isinstance(body, dict) and body.get("kind") == "Status" and body.get("status") == "Failure":
            found = body
    return found
