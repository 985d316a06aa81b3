"""The differential loop: generated inputs, Kubernetes' answer as the expectation, the target judged.

Input *i* of a run with seed *S* is made by the generator of its patch type from the seed
``"S:TYPE:i"`` (the types taken in turn), so a seed names the same inputs on every machine.
The truth (``upstream``) answers each input; its answer becomes the case's expectation
exactly as ``patchconf record`` writes one (:func:`patchconf.harness.provenance.record.expectation_members`), and
the target's answer is judged against it exactly as ``patchconf run`` judges a case
(:func:`patchconf.harness.running.runner.judge`). An input the truth cannot answer with a recordable outcome
(a panic, an unclassified error) is not judged and is counted as such.

A target that works as kubectl does (the reference, kubectl) is judged on kubectl's terms:
the truth is given the object as kubectl hands it to the patch library
(:func:`as_kubectl_passes_it`), and its document is read back as kubectl reads it
(:func:`as_read_back`), as the corpus's upstream divergences record.

A disagreement is asked of the truth again: if the truth answers otherwise (its outcome
depends on Go's map order), the input is left out as nondeterministic. Disagreements are
grouped by signature — patch type and failure shape (what Kubernetes did, what the target
did, and how the results differ) — and the first input of each group is shrunk by
Hypothesis to the smallest input with the same signature.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any

from ...reference_impl.govalue.utiljson import through_go_json
from ...reference_impl.patch_types import patch_type
from ..corpus.cases import ABSENT, INPUT_KEYS, Case, Outcome, SchemaRef
from ..corpus.compare import json_equal
from ..provenance.record import Unrecordable, expectation_members
from ..running.runner import FAIL, PASS, SIGNAL_CHECK, Result, judge
from ..targets.base import Actual, ActualError, Target, TargetCrash, TargetDeclined
from . import choices, livetruth
from .behaviours import behaviour_ids
from .divergences import Divergence, covering
from .generators import GENERATORS

AGREE, DISAGREE, SKIP, UNJUDGED, NONDETERMINISTIC = "agree", "disagree", "skip", "unjudged", "nondeterministic"
# a live truth's validation refused a step, and the steps before it agree (harness/fuzz/livetruth.py)
REFUSED = "refused by validation"
# a disagreement every difference of which a named divergence explains (harness/fuzz/divergences.yaml)
DIVERGES = "known divergence"
# Times the truth is asked again about an input it disagrees on, to tell a Go map order effect
# (Go starts a small map's iteration at a random slot: one order can be far likelier than another;
# answers seen 1 time in 6 slip past 24 asks about 1 run in 80, past 64 about 1 in 100,000).
REASKS = 64
BATCH = 64
# Targets that, as kubectl does, read the result of a PATCH request's body on a Kubernetes
# object back as one.
OBJECT_READERS = frozenset({"reference", "kubectl"})
# Shrinking one disagreement: Hypothesis' candidates, then members removed one at a time.
# Shrinking is bounded by the candidates it judges, never by the clock: the same seed must give
# the same minimal cases on a busy machine as on an idle one.
SHRINK_CALLS = 300
PRUNE_CALLS = 300


@dataclass(frozen=True)
class Verdict:
    """How one input went: the target's result against the truth's answer as expectation."""

    status: str
    case: Case
    reason: str = ""
    expected: Case | None = None  # the case with the truth's answer as its expectation
    truth_answer: Actual | None = None
    result: Result | None = None
    signature: tuple[str, ...] = ()
    members: dict[str, Any] = field(default_factory=dict)  # the truth's answer as case members
    divergences: tuple[str, ...] = ()  # the named divergences that explain it (status DIVERGES)


@dataclass(frozen=True)
class Finding:
    """One distinct disagreement: its smallest input (shrunk), and how many inputs showed it."""

    signature: tuple[str, ...]
    verdict: Verdict  # on the smallest input
    first_index: int
    occurrences: int
    shrunk: bool
    tags: tuple[str, ...]


@dataclass
class FuzzRun:
    target: str
    truth: str
    truth_version: str
    seed: int
    types: tuple[str, ...]
    tried: Counter = field(default_factory=Counter)  # per type
    statuses: Counter = field(default_factory=Counter)  # per (type, status)
    findings: list[Finding] = field(default_factory=list)
    skip_reasons: Counter = field(default_factory=Counter)
    by_kind: Counter = field(default_factory=Counter)  # per (type, kind of object, status)
    divergences: Counter = field(default_factory=Counter)  # inputs each named divergence explained
    seconds: float = 0.0
    shrink_seconds: float = 0.0
    interrupted: str = ""

    def count(self, status: str, case_type: str | None = None) -> int:
        return sum(n for (t, s), n in self.statuses.items() if s == status and case_type in (None, t))

    @property
    def judged(self) -> int:
        return self.count(AGREE) + self.count(DISAGREE)

    @property
    def full_agreement(self) -> bool:
        return self.count(DISAGREE) == 0


# --- inputs ---------------------------------------------------------------------------------


def input_seed(seed: int, case_type: str, index: int) -> str:
    return f"{seed}:{case_type}:{index}"


def make_case(case_type: str, members: dict[str, Any], name: str) -> Case:
    """A case of the generated members, stating no expectation yet."""
    description = "an input generated by patchconf fuzz"
    raw = {"name": name, "description": description, "type": case_type, "tags": [], **members}
    return Case(file="fuzz", name=name, description=description, type=case_type, tags=(),
                inputs={key: members[key] for key in INPUT_KEYS if key in members}, outcome=Outcome(),
                provenance=(), schema=SchemaRef.from_json(members.get("schema")),
                options=dict(members.get("options", {})), raw=raw)


@dataclass(frozen=True)
class Input:
    index: int
    type: str
    case: Case
    recorded: tuple[int | bool, ...]


@dataclass(frozen=True)
class Plan:
    """How a run makes and judges its inputs: the generator of each flow (a flow is a patch type;
    a live truth's generators make request sequences for every flow), the named divergences,
    and how hard the truth is asked again and disagreements shrunk."""

    generators: Mapping[str, choices.Generator] = field(default_factory=lambda: GENERATORS)
    divergences: tuple[Divergence, ...] = ()
    case_type: str | None = None  # the type of every input's case (None: its flow's own)
    reasks: int = REASKS
    shrink_calls: int = SHRINK_CALLS
    prune_calls: int = PRUNE_CALLS


DEFAULT_PLAN = Plan()
# A live server answers a sequence in seconds, and deterministically up to its clock (which the
# live target paces): asked once more, shrunk within a few dozen candidates.
LIVE_REASKS = 1
LIVE_SHRINK_CALLS = 40


def plan_for(truth: Target) -> Plan:
    """The plan for ``truth``: a live server gets request sequences on valid built-in objects."""
    if truth.info.family != "live":
        return DEFAULT_PLAN
    from .divergences import load_divergences
    from .sequences import LIVE_GENERATORS

    return Plan(LIVE_GENERATORS, load_divergences(), "server-side-apply", LIVE_REASKS, LIVE_SHRINK_CALLS,
                LIVE_SHRINK_CALLS)


def case_type_of(flow: str, plan: Plan) -> str:
    """The case type a flow's inputs have (a live truth's are all request sequences)."""
    return plan.case_type or flow


def generated_input(seed: int, types: Sequence[str], index: int, plan: Plan = DEFAULT_PLAN) -> Input:
    flow = types[index % len(types)]
    members, recorded = choices.generate(plan.generators[flow], input_seed(seed, flow, index))
    return Input(index, flow, make_case(case_type_of(flow, plan), members, f"input-{index}"), recorded)


# --- judging ---------------------------------------------------------------------------------


def ask(target: Target, case: Case) -> Actual | Exception:
    """The target's answer, or the exception that stood for one."""
    try:
        return target.run(case)
    except (TargetDeclined, TargetCrash) as exc:
        return exc
    except Exception as exc:  # a target's bug is its answer on this input, never the end of the run
        return TargetCrash(f"target raised {type(exc).__name__}: {exc}")


def skip_reason(case: Case, target: Target, truth: Target) -> str | None:
    for who in (truth, target):
        reason = who.skip_reason(case)
        if reason:
            return reason
    return None


def verdict(case: Case, target: Target, truth: Target, truth_answer: Actual | Exception,
            answer: Actual | Exception, flow: str | None = None, plan: Plan = DEFAULT_PLAN) -> Verdict:
    """The target's ``answer`` judged against the truth's, as ``patchconf run`` would judge the case."""
    if truth.info.family == "live" and case.type == "server-side-apply":
        return _live_verdict(case, target, truth, truth_answer, answer, flow or case.type, plan)
    return _verdict(case, target, truth, truth_answer, answer)


def _live_verdict(case: Case, target: Target, truth: Target, truth_answer: Actual | Exception,
                  answer: Actual | Exception, flow: str, plan: Plan) -> Verdict:
    """A request sequence against a live server (harness/fuzz/livetruth.py): compared without times
    and allocated values; steps after one the server's validation refused are not judged."""
    truth_answer, answer = livetruth.comparable(truth_answer, case), livetruth.comparable(answer, case)
    refused = livetruth.first_refusal(truth_answer)
    judged_case, judged_truth, judged_answer = case, truth_answer, answer
    if refused == 0:
        return Verdict(REFUSED, case, "the server's validation refused step 1", truth_answer=truth_answer)
    if refused is not None:
        judged_case, judged_truth = livetruth.before_step(case, truth_answer, refused)
        _, judged_answer = livetruth.before_step(case, answer, refused)
    judged = _verdict(judged_case, target, truth, judged_truth, judged_answer)
    judged = replace(judged, case=case, truth_answer=truth_answer)
    if judged.status == AGREE and refused is not None:
        return replace(judged, status=REFUSED, reason=f"the server's validation refused step {refused + 1}")
    if judged.status != DISAGREE or judged.result is None:
        return judged
    kind = livetruth.subject_kind(case)
    judged = replace(judged, signature=livetruth.signature(flow, kind, judged.result.diff or (judged.reason,)))
    explained = covering(plan.divergences, target, flow, kind, judged.result.diff or (judged.reason,))
    if explained:
        return replace(judged, status=DIVERGES, divergences=explained)
    return judged


def _verdict(case: Case, target: Target, truth: Target, truth_answer: Actual | Exception,
             answer: Actual | Exception) -> Verdict:
    if isinstance(truth_answer, TargetDeclined):
        return Verdict(SKIP, case, f"{truth.name} declined: {truth_answer}")
    if isinstance(truth_answer, Exception):
        return Verdict(UNJUDGED, case, f"{truth.name} failed: {truth_answer}")
    try:
        members, step_members = expectation_members(case, truth_answer, truth)
    except Unrecordable as exc:
        return Verdict(UNJUDGED, case, f"{truth.name}'s answer is no expectation: {exc}", truth_answer=truth_answer)
    if step_members:
        steps = [{**step, **added} for step, added in zip(case.inputs["steps"], step_members, strict=True)]
        members = {"steps": steps}
    judged_members = as_read_back(case, target, members)
    if patch_type(case.type).creates_patch and isinstance(answer, Actual) and answer.error is None \
            and answer.document is ABSENT:
        judged_members.pop("expected", None)  # the patched document is optional where a patch is created
    expected = case.with_members(judged_members)
    if isinstance(answer, TargetDeclined):
        return Verdict(SKIP, case, f"{target.name} declined: {answer}", expected, truth_answer, members=members)
    if isinstance(answer, Exception):
        actual = Actual(error=ActualError("crash", str(answer)))
        result = Result(expected, FAIL, f"target failed: {answer}", (f"target failed: {answer}",),
                        expected.outcome.to_json(), {})
        return Verdict(DISAGREE, case, result.reason, expected, truth_answer, result,
                       signature(case.type, expected.outcome, actual, result), members)
    try:
        result = judge(expected, target, answer)
    except Exception as exc:  # an answer too odd to compare is a disagreement, never the end of the run
        result = Result(expected, FAIL, f"could not judge the answer: {type(exc).__name__}: {exc}")
    if result.status == PASS:
        return Verdict(AGREE, case, "", expected, truth_answer, result, members=members)
    return Verdict(DISAGREE, case, result.reason, expected, truth_answer, result,
                   signature(case.type, expected.outcome, answer, result), members)


def as_read_back(case: Case, target: Target, members: dict[str, Any]) -> dict[str, Any]:
    """The truth's answer as a target that reads a patched object back (kubectl's way) must give it.

    kubectl decodes the result of patching a Kubernetes object as an object again, and refuses
    one without a kind (the corpus's upstream divergences, e.g.
    strategic/directive-delete.yaml::delete-root-leaves-no-object); ``upstream`` answers for the
    patch library alone, which returns the document as it is.
    """
    if target.info.family not in OBJECT_READERS or not patch_type(case.type).patch_request \
            or "expected" not in members or not _is_object(case.inputs.get("original")):
        return dict(members)
    document = members["expected"]
    if not isinstance(document, dict):
        message = "into Go value of type unstructured.detector"
    elif document.get("kind") in (None, ""):
        message = "Object 'Kind' is missing"
    else:
        return dict(members)
    judged = {key: value for key, value in members.items() if key != "expected"}
    return {**judged, "expected_error": {"class": "invalid-document", "message": message}}


def _is_object(document: Any) -> bool:
    return isinstance(document, dict) and "apiVersion" in document and "kind" in document


def as_kubectl_passes_it(case: Case, target: Target) -> Case:
    """``case`` with its original as kubectl hands it to the patch library, for a target that
    works as kubectl does: the object decoded into Go's JSON model and written again (``30.0``
    becomes ``30``; the corpus's upstream divergences, e.g.
    strategic/numbers.yaml::float-merge-key-in-original-matches-on-kubectl-only). The truth is
    then asked about the same bytes the library sees under kubectl."""
    original = case.inputs.get("original")
    if target.info.family not in OBJECT_READERS or not patch_type(case.type).patch_request or not _is_object(original):
        return case
    written = through_go_json(original)
    if json.dumps(written) == json.dumps(original):
        return case
    return case.with_members({"original": written})


def judge_case(case: Case, target: Target, truth: Target, flow: str | None = None,
               plan: Plan = DEFAULT_PLAN) -> Verdict:
    case = as_kubectl_passes_it(case, target)
    reason = skip_reason(case, target, truth)
    if reason:
        return Verdict(SKIP, case, reason)
    return verdict(case, target, truth, ask(truth, case), ask(target, case), flow, plan)


def deterministic(case: Case, truth: Target, first: Actual, times: int = REASKS) -> bool:
    """Whether the truth answers ``case`` as it did (``first``) each time it is asked again (a truth
    that remembers its answers is asked itself)."""
    asked = getattr(truth, "uncached", truth)
    for _ in range(times):
        again = livetruth.comparable(ask(asked, case), case)
        if isinstance(again, Exception) or not json_equal(again.to_json(),
                                                          livetruth.comparable(first, case).to_json()):
            return False
    return True


# --- signatures --------------------------------------------------------------------------------


def _outcome_kind(error: Any, document: Any, patch: Any) -> str:
    if error is not None:
        return f"error {error.error_class}"
    return "success"


def _difference_kinds(want: Any, got: Any, kinds: set[str]) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        if want.keys() - got.keys():
            kinds.add("member missing")
        if got.keys() - want.keys():
            kinds.add("member extra")
        for key in want.keys() & got.keys():
            _difference_kinds(want[key], got[key], kinds)
    elif isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            kinds.add("list length")
        elif sorted(map(repr, want)) == sorted(map(repr, got)) and want != got:
            kinds.add("list order")
        else:
            for a, b in zip(want, got, strict=True):
                _difference_kinds(a, b, kinds)
    elif type(want) is not type(got):
        kinds.add(f"{type(want).__name__} became {type(got).__name__}")
    elif want != got:
        kinds.add("value")


def signature(case_type: str, expected: Outcome, actual: Actual, result: Result) -> tuple[str, ...]:
    """Patch type and failure shape: what the truth did, what the target did, how they differ."""
    want = _outcome_kind(expected.error, expected.document, expected.patch)
    got = "crash" if actual.error is not None and actual.error.error_class == "crash" else _outcome_kind(
        actual.error, actual.document, actual.patch)
    kinds: set[str] = set()
    if case_type == "server-side-apply":
        for line in result.diff:
            # "step 2: managedFields /0/time: expected 1, got 2" -> "managedFields";
            # "step 1: expected error 'conflict', got success" -> "expected error 'conflict'"
            said = line.split(":", 1)[-1].strip()
            kinds.add(said.split(",")[0] if said.startswith("expected") else said.split(" ")[0])
    elif expected.error is None and actual.error is None:
        for label, a, b in (("document", expected.document, actual.document), ("patch", expected.patch, actual.patch)):
            if a is ABSENT:
                continue
            if b is ABSENT:
                kinds.add(f"{label} missing")
                continue
            found: set[str] = set()
            _difference_kinds(a, b, found)
            kinds.update(f"{label}: {kind}" for kind in found)
    elif expected.error is not None and actual.error is not None:
        kinds.add("error class" if actual.error.error_class != expected.error.error_class else "error message")
    return (case_type, want, got, *sorted(kinds))


def describe(signature: tuple[str, ...]) -> str:
    if signature and signature[0] == livetruth.LIVE_SIGNATURE:
        return livetruth.describe(signature)
    case_type, want, got, *kinds = signature
    text = f"{case_type}: Kubernetes {want}, target {got}"
    return text + (f" ({', '.join(kinds)})" if kinds else "")


# --- the run -----------------------------------------------------------------------------------

Progress = Callable[["FuzzRun", int], None]


def fuzz(target: Target, truth: Target, types: Sequence[str], seed: int, count: int | None = None,
         budget: float | None = None, progress: Progress | None = None, shrink: bool = True,
         plan: Plan | None = None) -> FuzzRun:
    """Generate inputs of ``types`` until ``count`` are tried or ``budget`` seconds are spent
    (whichever is given; both: the first reached), judge each, shrink each distinct disagreement.
    ``plan``: how inputs are made and judged (default: :func:`plan_for` the truth)."""
    if count is None and budget is None:
        raise ValueError("give a count or a budget")
    plan = plan or plan_for(truth)
    run = FuzzRun(target.name, truth.name, truth.info.version, seed, tuple(types))
    started = time.perf_counter()
    first: dict[tuple[str, ...], tuple[Input, Verdict]] = {}
    occurrences: Counter = Counter()
    workers = max(1, truth.workers) + (max(1, target.workers) if target.workers > 1 else 0)
    index = 0
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        while (count is None or index < count) and (budget is None or time.perf_counter() - started < budget):
            size = BATCH if count is None else min(BATCH, count - index)
            batch = [generated_input(seed, types, index + offset, plan) for offset in range(size)]
            batch = [replace(item, case=as_kubectl_passes_it(item.case, target)) for item in batch]
            for item, judged in zip(batch, _judge_batch(batch, target, truth, pool, plan), strict=True):
                if judged.status == DISAGREE and not deterministic(item.case, truth, judged.truth_answer,
                                                                   plan.reasks):
                    judged = Verdict(NONDETERMINISTIC, item.case, "the truth answers otherwise when asked again")
                run.tried[item.type] += 1
                run.statuses[(item.type, judged.status)] += 1
                run.by_kind[(item.type, input_kind(item.case), judged.status)] += 1
                if judged.status == SKIP:
                    run.skip_reasons[judged.reason] += 1
                for divergence in judged.divergences:
                    run.divergences[divergence] += 1
                if judged.status == DISAGREE:
                    occurrences[judged.signature] += 1
                    first.setdefault(judged.signature, (item, judged))
            index += size
            if progress:
                progress(run, index)
    except KeyboardInterrupt:
        run.interrupted = "interrupted"
    finally:
        # Interrupted, not waiting for the questions in flight: they end when the caller closes the targets.
        pool.shutdown(wait=not run.interrupted, cancel_futures=bool(run.interrupted))
    run.seconds = time.perf_counter() - started
    shrink_started = time.perf_counter()
    for found_signature, (item, judged) in first.items():
        # An interrupted run reports what it found as found, at once.
        run.findings.append(_finding(item, judged, occurrences[found_signature], target, truth,
                                     shrink and not run.interrupted, plan))
    run.shrink_seconds = time.perf_counter() - shrink_started
    run.findings.sort(key=lambda finding: finding.first_index)
    return run


def input_kind(case: Case) -> str:
    """The kind of the object an input is about ("(document)" for a plain JSON document)."""
    return livetruth.subject_kind(case)


def _judge_batch(batch: Sequence[Input], target: Target, truth: Target, pool: ThreadPoolExecutor,
                 plan: Plan = DEFAULT_PLAN) -> list[Verdict]:
    """Each input judged; the truth's answers asked in parallel with the target's."""
    reasons = [skip_reason(item.case, target, truth) for item in batch]
    runnable = [item for item, reason in zip(batch, reasons, strict=True) if not reason]
    truth_asked = [pool.submit(ask, truth, item.case) for item in runnable]
    if target.workers > 1:
        answers = _results([pool.submit(ask, target, item.case) for item in runnable])
    else:
        answers = [ask(target, item.case) for item in runnable]
    truth_answers = _results(truth_asked)
    judged = iter(verdict(item.case, target, truth, truth_answer, answer, item.type, plan)
                  for item, truth_answer, answer in zip(runnable, truth_answers, answers, strict=True))
    return [Verdict(SKIP, item.case, reason) if reason else next(judged)
            for item, reason in zip(batch, reasons, strict=True)]


def _results(futures: list[Future]) -> list[Any]:
    """Each future's result. Waited for SIGNAL_CHECK seconds at a time: a SIGINT or SIGTERM the
    kernel gives to one of the pool's threads is only handled in this one, between two waits."""
    pending = set(futures)
    while pending:
        _, pending = wait(pending, timeout=SIGNAL_CHECK)
    return [future.result() for future in futures]


def _finding(item: Input, judged: Verdict, occurrences: int, target: Target, truth: Target,
             shrink: bool, plan: Plan = DEFAULT_PLAN) -> Finding:
    smallest, shrunk = judged, False
    if shrink:
        smallest_case = _shrunk(item, judged.signature, target, truth, plan)
        smallest_case = _pruned(smallest_case or item.case, judged.signature, target, truth, item.type, plan)
        if smallest_case is not None:
            again = judge_case(smallest_case, target, truth, item.type, plan)
            if again.signature == judged.signature and deterministic(smallest_case, truth, again.truth_answer,
                                                                     plan.reasks):
                smallest, shrunk = again, True
    tags = behaviour_ids(smallest.case)
    return Finding(judged.signature, smallest, item.index, occurrences, shrunk, tags)


def _shrunk(item: Input, wanted: tuple[str, ...], target: Target, truth: Target,
            plan: Plan = DEFAULT_PLAN) -> Case | None:
    """The smallest generated case with the same signature as ``item``'s, or None if it does not reproduce."""
    case_type = item.case.type

    def same_disagreement(members: dict[str, Any]) -> bool:
        judged = judge_case(make_case(case_type, members, item.case.name), target, truth, item.type, plan)
        return judged.status == DISAGREE and judged.signature == wanted

    try:
        members = choices.shrink(plan.generators[item.type], item.recorded, same_disagreement, plan.shrink_calls)
    except choices.NotReproduced:
        return None
    return make_case(case_type, members, item.case.name)


def _members(case: Case) -> dict[str, Any]:
    return {key: case.raw[key] for key in (*INPUT_KEYS, "schema", "options") if key in case.raw}


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of every member and item below ``value``, shallowest first."""
    found: list[tuple] = []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found.append((*path, key))
        found += _paths(child, (*path, key))
    return sorted(found, key=len)


def _without(value: Any, path: tuple) -> Any:
    """A copy of ``value`` without the member or item at ``path``."""
    head, *rest = path
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k != head} if not rest else \
            {k: (_without(v, tuple(rest)) if k == head else v) for k, v in value.items()}
    if not rest:
        return [v for i, v in enumerate(value) if i != head]
    return [_without(v, tuple(rest)) if i == head else v for i, v in enumerate(value)]


def _pruned(case: Case, wanted: tuple[str, ...], target: Target, truth: Target, flow: str | None = None,
            plan: Plan = DEFAULT_PLAN) -> Case | None:
    """``case`` with every input member and list item removed, one at a time, whose removal keeps
    the disagreement (Hypothesis shrinks the decisions; this removes what they still carry along)."""
    members, calls, changed = _members(case), 0, False
    progress = True
    while progress and calls < plan.prune_calls:
        progress = False
        for key in INPUT_KEYS:
            if key not in members or key == "steps":
                continue
            for path in _paths(members[key]):
                if calls >= plan.prune_calls:
                    break
                candidate = {**members, key: _without(members[key], path)}
                calls += 1
                judged = judge_case(make_case(case.type, candidate, case.name), target, truth, flow, plan)
                if judged.status == DISAGREE and judged.signature == wanted:
                    members, progress, changed = candidate, True, True
                    break
            if progress:
                break
    return make_case(case.type, members, case.name) if changed else case
