"""The pitfalls page: every public report a case answers (its ``references``), rendered from the cases
and, where given, the matrix's results.

One line per reported problem (an issue or pull request): the report, the problem in the words of its
minimal case, what Kubernetes does there (the case's expectation told as the change it makes to the
input, or the error; where a release answers otherwise, that release's answer from the case's
divergences), and which targets of the matrix get it wrong. Without results, "not measured".
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ...reference_impl import jsonpointer
from ...reference_impl.patch_types import patch_type
from ..corpus.cases import ABSENT, Case, IssueRef, Outcome
from ..running.runner import ERROR, FAIL, SKIP

if TYPE_CHECKING:
    from .report import Run

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# The judges whose answer is Kubernetes' own (a divergence of theirs is a release's answer, not a library's)
KUBERNETES_JUDGES = frozenset({"upstream", "kubectl", "kubectl-apply", "live"})
CHANGES_SHOWN = 3
VALUE_CHARS = 80
NOT_MEASURED = "not measured"


class Pitfall(NamedTuple):
    """A reported problem and the cases that answer it, in corpus order."""

    url: str
    issue: IssueRef
    cases: tuple[Case, ...]

    @property
    def label(self) -> str:
        return self.issue.short


def collect(cases: Iterable[Case]) -> list[Pitfall]:
    """Each issue or pull request the cases reference, with its cases; by repository, then number."""
    found: dict[tuple[str, str, int], tuple[str, IssueRef, list[Case]]] = {}
    for case in cases:
        for url in case.references:
            ref = IssueRef.parse(url)
            if ref is None:  # the loader refused it already; a case built otherwise is not listed
                continue
            found.setdefault(ref.key, (url, ref, []))[2].append(case)
    return [Pitfall(url, ref, tuple(listed)) for key, (url, ref, listed) in sorted(found.items())]


# ---- what Kubernetes does -----------------------------------------------------------------------

def _short_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _without_last_applied(document: Any) -> Any:
    """The object without kubectl's last-applied annotation (its text repeats the configuration)."""
    annotations = document.get("metadata", {}).get("annotations") if isinstance(document, dict) else None
    if not isinstance(annotations, dict) or LAST_APPLIED not in annotations:
        return document
    rest = {key: value for key, value in annotations.items() if key != LAST_APPLIED}
    metadata = {key: value for key, value in document["metadata"].items() if key != "annotations"}
    if rest:
        metadata["annotations"] = rest
    return {**document, "metadata": metadata}


def changes(before: Any, after: Any) -> list[str]:
    """What turns ``before`` into ``after``, a change a line: ``/spec/replicas: 3 → 1``, ``/a: removed``,
    ``/b: added 2``, in document order; a list whose length changed is told whole."""
    if before is ABSENT:
        return ["created"]
    found: list[str] = []

    def walk(old: Any, new: Any, pointer: str) -> None:
        if isinstance(old, dict) and isinstance(new, dict):
            for key in [*old, *(key for key in new if key not in old)]:
                below = jsonpointer.join(pointer, key)
                if key not in new:
                    found.append(f"{below}: removed")
                elif key not in old:
                    found.append(f"{below}: added {_short_json(new[key])}")
                else:
                    walk(old[key], new[key], below)
        elif isinstance(old, list) and isinstance(new, list) and _same_elements(old, new):
            for index, (a, b) in enumerate(zip(old, new, strict=True)):
                walk(a, b, jsonpointer.join(pointer, index))
        elif isinstance(old, list) and isinstance(new, list):
            found.extend(_list_changes(old, new, pointer or "/"))
        elif json.dumps(old, sort_keys=True) != json.dumps(new, sort_keys=True) or type(old) is not type(new):
            found.append(f"{pointer or '/'}: {_short_json(old)} → {_short_json(new)}")

    walk(before, after, "")
    return found


def _identity(item: Any) -> Any:
    """What an element is known by: a map's first member (a merge key comes first in what people write)."""
    return next(iter(item.items())) if isinstance(item, dict) and item else _text(item)


def _same_elements(old: list, new: list) -> bool:
    """Two lists of the same elements, each perhaps changed within: told element by element."""
    return len(old) == len(new) and all(_identity(a) == _identity(b) for a, b in zip(old, new, strict=True))


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _list_changes(old: list, new: list, pointer: str) -> list[str]:
    """A list's elements removed and added (as multisets), and whether those kept changed order."""
    remaining = Counter(map(_text, new))
    removed = []
    for item in old:
        if remaining[_text(item)]:
            remaining[_text(item)] -= 1
        else:
            removed.append(item)
    left = Counter(map(_text, old))
    added = []
    for item in new:
        if left[_text(item)]:
            left[_text(item)] -= 1
        else:
            added.append(item)
    told = [f"{pointer}: removed {_short_json(item)}" for item in removed]
    told += [f"{pointer}: added {_short_json(item)}" for item in added]
    kept_old = [_text(item) for item in old if item not in removed]
    kept_new = [_text(item) for item in new if item not in added]
    if kept_old != kept_new or (not told and old != new):
        told.append(f"{pointer}: now {_short_json(new)}")
    return told


def _input_document(case: Case) -> Any:
    """The object a case's answer is told against: the live object for apply and three-way cases and
    for server-side apply (the file, for an apply that creates), else the document the patch applies to."""
    key = "current" if patch_type(case.type).three_way or case.type == "server-side-apply" else "original"
    if case.type == "apply" and case.inputs.get("current") is None:  # a create: what kubectl sends of the file
        key = "modified"
    return case.inputs.get(key, ABSENT) if key in case.inputs else ABSENT


def answer_text(case: Case, outcome: Outcome | None = None) -> str:
    """An outcome of the case (its own by default) in a line: the error, or what changes."""
    outcome = case.outcome if outcome is None else outcome
    if outcome.error is not None:
        message = f" ({outcome.error.message})" if outcome.error.message else ""
        return f"refused: {outcome.error.error_class}{message}"
    document = outcome.document
    if isinstance(document, dict) and isinstance(document.get("steps"), list):
        return _steps_text(case, document["steps"])
    if document is ABSENT:
        return f"the patch is {_short_json(outcome.patch)}" if outcome.patch is not ABSENT else "no expectation"
    return _changes_text(_without_last_applied(_input_document(case)), _without_last_applied(document),
                         _touched(case))


def _touched(case: Case) -> list[str]:
    """Where the case's request writes: a JSON patch's paths, a merge patch's members, the members an
    apply or three-way merge's new configuration changes. A server's answer adds its defaults elsewhere."""
    patch, modified = case.inputs.get("patch"), case.inputs.get("modified")
    if isinstance(patch, list):
        return [op["path"] for op in patch if isinstance(op, dict) and isinstance(op.get("path"), str)]
    if isinstance(patch, dict):
        return _member_pointers(patch, "")
    if isinstance(modified, dict):
        before = case.inputs.get("current") or case.inputs.get("original") or {}
        return [line.split(": ", 1)[0] for line in changes(before, modified) if line != "created"]
    return []


def _member_pointers(value: Any, pointer: str) -> list[str]:
    if not isinstance(value, dict) or not value:
        return [pointer]
    return [found for key, member in value.items()
            for found in _member_pointers(member, jsonpointer.join(pointer, key.split("/", 1)[-1]))]


def _related(pointer: str, touched: Iterable[str]) -> bool:
    return any(pointer == other or pointer.startswith(other + "/") or other.startswith(pointer + "/")
               for other in touched)


def _changes_text(before: Any, after: Any, touched: Sequence[str] = ()) -> str:
    found = changes(before, after)
    # changes and removals before additions (a server's defaults are additions), what the request wrote
    # before the rest, each in document order
    found.sort(key=lambda line: (": added " in line, not _related(line.split(": ", 1)[0], touched)))
    if not found:
        return "nothing changes"
    more = len(found) - CHANGES_SHOWN
    return "; ".join(found[:CHANGES_SHOWN]) + (f"; and {more} more" if more > 0 else "")


def _steps_text(case: Case, steps: Sequence[Mapping[str, Any]]) -> str:
    """A step sequence, a step a clause: its error, or what it changes in the object."""
    before = case.inputs.get("current", ABSENT)
    told = []
    for number, step in enumerate(steps, 1):
        error = step.get("expected_error")
        if isinstance(error, Mapping):
            conflicts = error.get("conflicts") or ()
            on = f" on {', '.join(c.get('field', '') for c in conflicts)}" if conflicts else ""
            told.append(f"step {number} refused: {error.get('class')}{on}")
        elif "expected" in step:
            told.append(f"step {number}: {_changes_text(before, step['expected'])}")
            before = step["expected"]
        elif step.get("expected_changed") is False:
            told.append(f"step {number}: nothing changes")
    return "; ".join(told) if told else "see the case's managedFields"


def releases_text(case: Case) -> str:
    """The releases the case's answer comes from (its provenance), and where a Kubernetes judge answers
    otherwise (its divergences: a range of releases, or a judge such as the API server, whose validation
    refuses what the patch library returns)."""
    versions = sorted({entry.get("version", "") for entry in case.provenance if entry.get("version")},
                      key=_version_key)
    text = ", ".join(versions)
    for divergence in case.divergences:
        judges = [target for target in divergence.targets if target in KUBERNETES_JUDGES]
        if not judges:
            continue
        where = f"{divergence.versions.strip()} ({', '.join(judges)})" if divergence.versions else ", ".join(judges)
        text += f"; {where}: {answer_text(case, divergence.outcome)} — {' '.join(divergence.reason.split())}"
    return text


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.lstrip("v").split(".") if part.isdigit())


# ---- who gets it wrong -------------------------------------------------------------------------

def wrong_targets(case: Case, runs: Sequence[Run] | None, labels: Sequence[str] = ()) -> str:
    """The columns whose result for the case failed or erred, with the case's id or a former id;
    ``not measured`` without runs, ``not run`` when every column skipped it, ``none of N`` otherwise."""
    if not runs:
        return NOT_MEASURED
    ids = {case.id, *case.former_ids}
    wrong, ran = [], 0
    for label, run in zip(labels, runs, strict=True):
        result = next((r for r in run.results if r.case.id in ids), None)
        if result is None or result.status == SKIP:
            continue
        ran += 1
        if result.status in (FAIL, ERROR):
            wrong.append(label)
    if not ran:
        return "not run"
    return ", ".join(wrong) if wrong else f"none of {ran}"


# ---- the summary -------------------------------------------------------------------------------

def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def summary_markdown(pitfalls: Sequence[Pitfall], runs: Sequence[Run] | None = None,
                     labels: Sequence[str] = (), command: str = "", detail_at: str = "",
                     case_link: str = "../") -> str:
    """reports/pitfalls.md: a row per reported problem. ``case_link``: where the case files are, from
    the page (a case links to its file)."""
    case_count = len({case.id for pitfall in pitfalls for case in pitfall.cases})
    produced = f"Produced by `patchconf matrix`; regenerate with `{command}`." if command else \
        "Produced by `patchconf matrix --pitfalls`."
    measured = (f"*wrong in the matrix*: the columns ({', '.join(f'`{label}`' for label in labels)}) whose answer "
                "the case fails" if runs else
                f"*wrong in the matrix*: {NOT_MEASURED} (the page was made without the matrix's results)")
    out = ["# Reported pitfalls", "",
           f"{produced} Every public issue or pull request a case answers (its `references`): "
           f"{len(pitfalls)} reports, {case_count} cases. *What Kubernetes does*: the case's expectation, told as "
           "what it changes in the object the case starts from (or the error), at the releases in its provenance; "
           "where another release answers otherwise, that release's answer and why. " + measured + ".", ""]
    if detail_at:
        out += [f"Each report's cases, inputs and answers in full: {detail_at}.", ""]
    out += ["| report | the problem | minimal case | what Kubernetes does | wrong in the matrix |",
            "|---|---|---|---|---|"]
    for pitfall in pitfalls:
        first = pitfall.cases[0]
        cases = "<br>".join(f"[`{case.id}`]({case_link}{case.file})" for case in pitfall.cases)
        does = "<br>".join(
            (f"`{case.name}`: " if len(pitfall.cases) > 1 else "") + answer_text(case)
            + f" (Kubernetes {releases_text(case)})" for case in pitfall.cases)
        wrong = "<br>".join((f"`{case.name}`: " if len(pitfall.cases) > 1 else "") + wrong_targets(case, runs, labels)
                            for case in pitfall.cases)
        out.append(f"| [{pitfall.label}]({pitfall.url}) | {_cell(first.description)} | {cases} | {_cell(does)} | "
                   f"{_cell(wrong)} |")
    return "\n".join(out) + "\n"
