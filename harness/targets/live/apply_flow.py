"""Client-side apply cases: kubectl apply's three-way flow against the server, by the real kubectl."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import tempfile
from typing import Any

from ....reference_impl.govalue import encoding_json
from ...corpus.cases import Case
from .. import bounded
from ..base import Actual, ActualError, TargetDeclined
from ..kubectl import classify_error
from .conventions import CREATE_QUERY, LAST_APPLIED, SERVER_OWNED_METADATA
from .placement import Placement


class ClientSideApplyFlow:
    def _run_apply(self, case: Case, placement: Placement) -> Actual:
        """kubectl apply's three-way flow against the server (real kubectl, when present)."""
        custom = placement.api_version != placement.case_api_version
        configuration = case.inputs.get("modified")
        stated = configuration.get("metadata") if isinstance(configuration, dict) else None
        owned = [key for key in SERVER_OWNED_METADATA if key in stated] if isinstance(stated, dict) else []
        if owned:  # what kubectl would read is not what the case states: the case cannot be asked here
            raise TargetDeclined(f"the configuration states metadata.{owned[0]}, which the live target leaves out "
                                 "of the file it applies (the server owns it)")
        if not self.kubectl and not custom:
            raise TargetDeclined("kubectl is not on PATH, and the reference implementation has no strategic "
                                 "three-way merge: `apply` cases on built-in kinds need kubectl")
        before = None
        current = case.inputs.get("current")
        if current is not None:
            current = self._to_live(case.input("current"), placement)
            original = case.inputs.get("original")
            if original is not None:
                annotations = current["metadata"].setdefault("annotations", {})
                annotations[LAST_APPLIED] = self._last_applied(case.input("original"), placement)
            answer = self.cluster.request("POST", placement.collection, current,
                                          query=CREATE_QUERY)
            if not answer.ok:
                raise TargetDeclined(f"current rejected by the server: {answer.status} {answer.reason()}: "
                                     f"{answer.message()}")
            before = answer.body
        self._check_expected_object(case, placement)
        # The run label goes on objects apply creates; on an existing object it is already there,
        # and putting it into the configuration would change what kubectl's three-way merge sees.
        modified = self._to_live(case.input("modified"), placement, label=current is None)
        if not self.kubectl:
            return self._reference_apply(case, placement, modified, before)
        workdir = tempfile.mkdtemp(prefix="patchconf-live-")
        try:
            path = os.path.join(workdir, "modified.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(modified, handle)
            # -v=10 logs request bodies untruncated: the PATCH body is kubectl's three-way patch
            command = [self.kubectl, "apply", "-f", path, "-n", self.namespace, "--server-side=false",
                       f"--overwrite={'false' if case.options.get('overwrite') is False else 'true'}", "-v=10"]
            if self.kubeconfig:
                command += ["--kubeconfig", self.kubeconfig]
            if self.context:
                command += ["--context", self.context]
            completed = bounded.run_bounded(command, limit=bounded.max_answer_bytes(), timeout=60)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        notes = ("kubectl apply (real kubectl against the server)",)
        if completed.returncode != 0:
            message = kubectl_error(completed.stderr)
            if ("live" not in case.targets and self._live_outcome(case).error is None
                    and re.search(r"is invalid: .*(Forbidden|immutable|may not change)", message)):
                raise TargetDeclined(f"the server's update rules refuse the change: {message[:300]}")
            return Actual(error=ActualError(apply_error_class(message), message), notes=notes,
                          unchanged=self._unchanged(placement, before))
        read = self.cluster.request("GET", placement.path)
        document = self._present(case, placement, read.body)
        if current is None:
            return Actual(document=document, notes=(*notes, "created: no patch was sent"))
        patch = sent_patch(completed.stderr)
        if patch is None:
            return Actual(document=document, patch={}, notes=(*notes, "kubectl sent no patch"))
        return Actual(document=document, patch=self._patch_from_live(patch, placement), notes=notes)

    def _reference_apply(self, case: Case, placement: Placement, modified: dict, before: dict | None) -> Actual:
        """Without kubectl, for a custom kind: the reference's three-way JSON merge patch, sent as kubectl would."""
        from ....reference_impl import merge_patch
        from ....reference_impl.errors import PatchError

        notes = ("the reference implementation's three-way merge patch (kubectl is not on PATH)",)
        annotated = copy.deepcopy(modified)
        annotations = annotated["metadata"].setdefault("annotations", {})
        annotations[LAST_APPLIED] = self._last_applied(case.input("modified"), placement)
        if before is None:
            answer = self.cluster.request("POST", placement.collection, annotated, query=CREATE_QUERY)
            if not answer.ok:
                return Actual(error=self._error(case, answer), notes=notes)
            return Actual(document=self._present(case, placement, answer.body),
                          notes=(*notes, "created: no patch was sent"))
        recorded = (before.get("metadata", {}).get("annotations") or {}).get(LAST_APPLIED)
        last_applied = json.loads(recorded) if recorded else None
        try:
            patch = merge_patch.create_three_way(last_applied, annotated, before)
        except PatchError as exc:
            return Actual(error=ActualError(exc.error_class, exc.message), notes=notes, unchanged=True)
        if patch:
            answer = self.cluster.request("PATCH", placement.path, patch, "application/merge-patch+json",
                                          query={"fieldManager": "kubectl-client-side-apply"})
            if not answer.ok:
                return Actual(error=self._error(case, answer), notes=notes,
                              unchanged=self._unchanged(placement, before))
        read = self.cluster.request("GET", placement.path)
        return Actual(document=self._present(case, placement, read.body),
                      patch=self._patch_from_live(copy.deepcopy(patch), placement), notes=notes)

    def _patch_from_live(self, patch: Any, placement: Placement) -> Any:
        """kubectl's patch in the case's terms: its last-applied annotation mapped back like the object's."""
        annotations = ((patch.get("metadata") or {}).get("annotations") or {}) if isinstance(patch, dict) else {}
        if isinstance(annotations.get(LAST_APPLIED), str):
            annotations[LAST_APPLIED] = self._last_applied_back(annotations[LAST_APPLIED], placement)
        return patch

    def _last_applied(self, original: dict, placement: Placement) -> str:
        """The annotation kubectl wrote when it applied ``original`` (kubectl apply -n sets the namespace)."""
        recorded = self._to_live(original, placement, label=False)
        annotations = recorded["metadata"].get("annotations") or {}
        annotations.pop(LAST_APPLIED, None)
        recorded["metadata"]["annotations"] = annotations
        return encoding_json.encode(recorded) + "\n"


_REQUEST_BODY = re.compile(r'"Request Body" body=(".*")\s*$')
# kubectl before 1.32 (which a version-matching kubectl runs against an older server) logs it bare
_BARE_REQUEST_BODY = re.compile(r"\] Request Body: (.*?)\s*$")


def sent_patch(log: str) -> Any:
    """The body of the PATCH request in kubectl's -v=10 log (None: kubectl sent no patch)."""
    pending = None
    for line in log.splitlines():
        quoted, bare = _REQUEST_BODY.search(line), _BARE_REQUEST_BODY.search(line)
        if quoted or bare:
            try:
                text = json.loads(quoted.group(1)) if quoted else bare.group(1)
                pending = json.loads(text) if text else None
            except json.JSONDecodeError:
                pending = None
        elif "-XPATCH" in line and pending is not None:
            return pending
    return None


def kubectl_error(log: str) -> str:
    """kubectl's own error and warning lines, without its -v=10 request log."""
    lines = [line for line in log.splitlines() if line and not re.match(r"^[IEW]\d{4} |^\t|^\s", line)]
    return "\n".join(lines).strip().removeprefix("error: ")


def apply_error_class(message: str) -> str:
    if "the object has been modified" in message or "conflicts with" in message or "Conflict" in message:
        return "conflict"
    if "is invalid" in message or "Invalid value" in message:
        return "invalid"
    return classify_error(message)
