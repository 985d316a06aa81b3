"""json-patch, merge-patch, strategic (PATCH) and update (PUT) cases: create ``original``, send the
request, read the object back."""

from __future__ import annotations

from typing import Any

from ....reference_impl.govalue import encoding_json
from ...controlplane.live_cluster import Response
from ...corpus.cases import Case
from ...corpus.compare import json_equal
from ..base import Actual, ActualError, TargetDeclined
from .conventions import CONTENT_TYPES, CREATE_QUERY, JSON_PATCH_APPLY_CLASSES
from .mutations import refusal
from .placement import Placement, is_object
from .responses import (
    bare_json_patch_rejection,
    classify_response,
    full_message,
    update_rule,
)


class CannotHoldAsKind(TargetDeclined):
    """The server refuses the case's object as its kind (not admission or policy: those answers are
    the cluster's and are judged); a JSON or merge patch case may run with it held whole instead."""


class PatchFlow:
    def _check_expected_object(self, case: Case, placement: Placement) -> None:
        """A corpus case whose expected object a server cannot store (wrong Go types, invalid) is skipped."""
        outcome = self._live_outcome(case)
        if "live" in case.targets or outcome.error is not None:
            return
        if not (is_object(outcome.document) or (placement.hosted and isinstance(outcome.document, dict))):
            return
        probe = self._dry_run(outcome.document, placement)
        self._note_rendering(case, probe, outcome.document)
        # A refusal by admission or policy is this cluster's answer, not a case it cannot hold: the case
        # runs and its result says what refused it.
        if not probe.ok and not refusal(probe.status, probe.reason(), probe.message()):
            raise CannotHoldAsKind(f"the expected object cannot be stored by a server: {probe.status} "
                                   f"{probe.reason()}: {full_message(probe)[:300]}")

    def _create(self, document: Any, placement: Placement, case: Case) -> dict:
        body = self._to_live(document, placement)
        answer = self.cluster.request("POST", placement.collection, body, query=CREATE_QUERY)
        if not answer.ok:
            declined = TargetDeclined if refusal(answer.status, answer.reason(), answer.message()) else CannotHoldAsKind
            raise declined(f"original rejected by the server: {answer.status} {answer.reason()}: {answer.message()}")
        self._note_created(case, answer.body, body)
        self._check_expected_object(case, placement)
        return answer.body

    def _run_patch(self, case: Case, placement: Placement) -> Actual:
        before = self._create(case.input("original"), placement, case)
        path = placement.path
        through_status = case.id in self._through_status and not placement.hosted
        if through_status:
            before = self._set_status(case, placement, before)
            path += "/status"
        patch = self._patch_to_live(case.input("patch"), placement)
        body = encoding_json.encode(patch, sort_keys=False, numbers_as_written=True).encode("utf-8")
        answer = self.cluster.request("PATCH", path, raw_body=body,
                                      content_type=CONTENT_TYPES[case.type],
                                      query={"fieldManager": "patchconf"})
        if through_status and answer.ok:
            self._render_status(case, placement)
        return self._outcome(case, placement, before, answer)

    def _set_status(self, case: Case, placement: Placement, created: dict) -> dict:
        """The original's status, which a create ignores, written through the status subresource."""
        status = (case.input("original") or {}).get("status")
        if status is None:
            return created
        answer = self.cluster.request("PUT", placement.path + "/status", {**created, "status": status},
                                      query={"fieldManager": CREATE_QUERY["fieldManager"]})
        if not answer.ok:
            raise TargetDeclined(f"the original's status rejected by the server: {answer.status} {answer.reason()}: "
                                 f"{answer.message()}")
        return answer.body

    def _run_update(self, case: Case, placement: Placement) -> Actual:
        before = self._create(case.input("original"), placement, case)
        body = self._to_live(case.input("modified"), placement, for_create=False)
        answer = self.cluster.request("PUT", placement.path, body, query={"fieldManager": "patchconf"})
        return self._outcome(case, placement, before, answer)

    def _outcome(self, case: Case, placement: Placement, before: dict | None, answer: Response) -> Actual:
        if answer.ok:
            read = self.cluster.request("GET", placement.path)
            if not read.ok:
                return Actual(error=self._error(case, read), notes=("the object could not be read back",))
            return Actual(document=self._present(case, placement, read.body), notes=self._notes)
        if "live" not in case.targets and self._live_outcome(case).error is None and update_rule(answer):
            raise CannotHoldAsKind(f"the server's update rules refuse the change: {answer.message()[:300]}")
        return Actual(error=self._error(case, answer), unchanged=self._unchanged(placement, before))

    def _unchanged(self, placement: Placement, before: dict | None) -> bool | None:
        if before is None:
            return None
        after = self.cluster.request("GET", placement.path)
        if not after.ok:
            return False
        return json_equal(before, after.body)

    def _error(self, case: Case, answer: Response) -> ActualError:
        alternatives = JSON_PATCH_APPLY_CLASSES if bare_json_patch_rejection(case.type, answer) else ()
        return ActualError(classify_response(case.type, answer), full_message(answer), answer.status,
                           answer.reason() or None, alternatives)
