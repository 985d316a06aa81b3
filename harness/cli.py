"""The ``patchconf`` command."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from . import (
    corpus_description,
    counted,
    default_cases_dir,
    describe_corpus_soon,
    patchconf_version,
    reports_directory,
    target_directory_name,
)
from .corpus.case_paths import case_path_problems
from .corpus.cases import Case, Corpus, cases_root_for, load_corpus
from .corpus.yamlio import unquoted_versions, yaml11_differences
from .reporting.report import Run, judge_lines, summary_text
from .reporting.run_reports import write_reports
from .reporting.summary import FORMATS, run_ok, summary_json, summary_markdown
from .running.runner import Filters, Result, run_cases, terminal_progress
from .targets import TARGET_HELP, TargetUnavailable, make_target
from .targets.bounded import MAX_ANSWER_BYTES_ENV, kill_running, parse_size

if TYPE_CHECKING:
    from .reporting.known_failures import KnownFailures, Verdict

DEFAULT_JUDGES = "upstream,kubectl,kubectl-apply"
EXIT_SIGINT, EXIT_SIGTERM = 128 + signal.SIGINT, 128 + signal.SIGTERM


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", action="append", type=Path, metavar="PATH",
                        help="case file or directory (repeatable; default: cases/)")
    parser.add_argument("--type", action="append", default=[], dest="types", metavar="TYPE",
                        help="only this patch type (repeatable)")
    parser.add_argument("--tag", action="append", default=[], dest="tags", metavar="ID",
                        help="only cases tagged with this behaviour id or prefix, e.g. JP-ADD or SMP")
    parser.add_argument("--path", action="append", default=[], dest="paths", metavar="GLOB",
                        help="only case files under this path or matching this glob")
    parser.add_argument("-k", "--name", action="append", default=[], dest="names", metavar="TEXT",
                        help="only cases whose name (or a former name, in aliases) contains TEXT")
    parser.add_argument("--id", action="append", default=[], dest="ids", metavar="FILE::NAME",
                        help="only the case with this id, e.g. cases/json-patch/add.yaml::add-member "
                             "(a renamed case answers to its former ids)")
    parser.add_argument("--referenced", action="store_true",
                        help="only cases that answer a public issue or pull request (their references)")
    parser.add_argument("--allow-empty", action="store_true",
                        help="a selection that matches no case is no error (exit 0); without it, exit 2")


def _selection_text(args: argparse.Namespace) -> str:
    """The selection as it was given, e.g. '--type strategic -k scale'."""
    given = [*(("--cases", str(path)) for path in args.cases or []), *(("--type", kind) for kind in args.types),
             *(("--tag", tag) for tag in args.tags), *(("--path", glob) for glob in args.paths),
             *(("-k", name) for name in args.names), *(("--id", case_id) for case_id in args.ids)]
    text = " ".join(f"{flag} {value}" for flag, value in given)
    if args.referenced:
        text = f"{text} --referenced".strip()
    return text or "every case"


def _nothing_selected(command: str, args: argparse.Namespace) -> int:
    """What a command says and exits with when its selection matched no case."""
    if args.allow_empty:
        print(f"patchconf {command}: no case matched the selection ({_selection_text(args)}); "
              "--allow-empty: no error", file=sys.stderr)
        return 0
    print(f"patchconf {command}: no case matched the selection ({_selection_text(args)}); "
          "give --allow-empty where that is no error", file=sys.stderr)
    return 2


def _add_answer_limit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-answer-bytes", type=_size, metavar="SIZE",
                        help="the most a target may print for one answer, e.g. 67108864 or 64MiB; beyond, the case "
                             f"fails and the target is restarted (default 64MiB, or ${MAX_ANSWER_BYTES_ENV})")


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_ci_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="the summary printed: text (default), json or markdown (for a CI job summary)")
    parser.add_argument("--expect-failures", type=Path, metavar="FILE",
                        help="known failures, a case id per line: fail only on new failures and on "
                             "listed cases that now pass")


def _read_known_failures(args: argparse.Namespace) -> KnownFailures | None:
    """The known failures of --expect-failures, or None; raises KnownFailuresError.

    Their module is imported only by a command given some: making its classes cost every other run ~2 ms.
    """
    if not args.expect_failures:
        return None
    from .reporting.known_failures import KnownFailures

    return KnownFailures.read(args.expect_failures)


def _verdict(run: Run, known: KnownFailures | None, cases: list[Case] | None = None) -> Verdict | None:
    """The run measured against its known failures, or None without them."""
    if known is None:
        return None
    from .reporting.known_failures import check

    return check(run, known, cases)


def _print_summary(run: Run, args: argparse.Namespace, verdict: Verdict | None, written: list[Path]) -> None:
    """The summary in the chosen format on stdout; in json and markdown, report paths go to stderr."""
    if args.format == "json":
        print(summary_json(run, verdict))
    elif args.format == "markdown":
        print(summary_markdown(run, verdict), end="")
    else:
        print(summary_text(run, verbose_failures=True) if not args.quiet else _quiet_summary(run))
        if verdict is not None and args.expect_failures:
            print(verdict.text(args.expect_failures))
    print(f"reports: {', '.join(str(p) for p in written)}", file=sys.stdout if args.format == "text" else sys.stderr)


class _PrintVersion(argparse.Action):
    """--version, worked out only when asked for: finding the corpus's version may run git."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .controlplane import apiserver, judges
        from .targets import upstream

        corpus = corpus_description([default_cases_dir()])
        print(f"patchconf {patchconf_version()}\ncorpus {corpus['path']} ({corpus['version']})")
        live = apiserver.pinned_version()
        print("\n".join(judges.version_lines({
            "upstream": ("pinned", upstream.source_digest()),
            **{name: (live, apiserver.recipe_digest(live)) for name in ("kube-apiserver", "etcd")}})))
        parser.exit()


def _filters(args: argparse.Namespace) -> Filters:
    return Filters(tuple(args.types), tuple(args.tags), tuple(args.paths), tuple(args.names), tuple(args.ids),
                   args.referenced)


NAMESPACE_HELP = ("live: run in this existing namespace instead of creating one (for accounts that may not "
                  "create namespaces; README: Least privilege)")


# The commands in the order the command line lists them.
COMMANDS = ("run", "report", "diff", "validate", "coverage", "matrix", "verify", "record", "fuzz", "targets",
            "apiserver", "live")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command``, only that command's parser.

    argparse reads only the chosen command's parser; the others are for the list of commands that
    help shows, and its usage line names them all by COMMANDS as argparse would. Making every
    command's parser (each looks for argparse's translations on disk) and adding its arguments took
    some 10 ms of every run.
    """
    parser = argparse.ArgumentParser(prog="patchconf", description="Conformance suite for Kubernetes patch semantics.")
    parser.add_argument("--version", action=_PrintVersion, nargs=0,
                        help="patchconf's version, the corpus a run reads from here (path and version) "
                             "and the judges it uses (prebuilt or built locally)")
    commands = parser.add_subparsers(dest="command",
                                     metavar=None if command is None else "{" + ",".join(COMMANDS) + "}")

    def wanted(name: str) -> bool:
        return command is None or command == name

    if wanted("run"):
        run = commands.add_parser("run", help="run cases against a target and report")
        run.add_argument("--target", default="reference",
                         help="; ".join(f"{k}: {v}" for k, v in TARGET_HELP.items()) + " (default: reference)")
        _add_selection(run)
        run.add_argument("--report", type=Path, metavar="DIR",
                         help="directory for results.json, junit.xml, report.md, report.html "
                              "(default: ./reports/<target>/ of the working directory)")
        run.add_argument("--jobs", "--workers", type=int, dest="jobs",
                         help="parallel workers (default: the target's own; live: 8)")
        run.add_argument("--kubeconfig", metavar="PATH", help="kubeconfig for the live target (default: $KUBECONFIG)")
        run.add_argument("--namespace", metavar="NS", help=NAMESPACE_HELP)
        run.add_argument("--timeout", type=float, help="seconds a cmd: target gets per case (default 10)")
        run.add_argument("--quiet", action="store_true", help="print only totals and failures' ids")
        _add_answer_limit(run)
        _add_ci_options(run)

    if wanted("report"):
        report = commands.add_parser("report", help="render the reports of a run from its results.jsonl "
                                                    "(one that was interrupted or killed, too)")
        report.add_argument("directory", type=Path, metavar="DIR",
                            help="a run's report directory (holding results.jsonl), or a results.jsonl file")
        report.add_argument("--out", type=Path, metavar="DIR", help="where to write the reports (default: beside it)")
        report.add_argument("--quiet", action="store_true", help="print only totals and failures' ids")
        _add_ci_options(report)

    if wanted("diff"):
        diff = commands.add_parser("diff",
                                   help="what started or stopped passing between two runs (exit 1 on regressions)")
        diff.add_argument("old", type=Path, metavar="OLD",
                          help="a run's report directory, results.jsonl or results.json")
        diff.add_argument("new", type=Path, metavar="NEW", help="the same, of the later run")
        diff.add_argument("--format", choices=FORMATS, default="text", help="text (default), json or markdown")

    if wanted("validate"):
        validate = commands.add_parser("validate", help="check case files without running them")
        validate.add_argument("paths", nargs="*", type=Path)

    if wanted("coverage"):
        cov = commands.add_parser("coverage", help="cases per behaviour id")
        cov.add_argument("--cases", action="append", type=Path, metavar="PATH")
        cov.add_argument("--prefix", action="append", default=[], metavar="PREFIX",
                         help="only ids starting with PREFIX (e.g. SMP-); exit 1 if any is below the minimum")

    if wanted("matrix"):
        matrix = commands.add_parser("matrix", help="run several targets (or read their results) and write a "
                                                    "compliance matrix, and with --html a conformance site")
        sources = matrix.add_mutually_exclusive_group(required=True)
        sources.add_argument("--targets", help="comma-separated target specs to run")
        sources.add_argument("--from", nargs="+", type=Path, dest="from_runs", metavar="RUN",
                             help="render from runs already made instead: report directories, results.jsonl or "
                                  "results.json files, in column order (nothing is re-run)")
        _add_selection(matrix)
        matrix.add_argument("--out", type=Path, metavar="FILE",
                            help="Markdown file to write, an .html twin beside it (default: ./reports/compliance.md, "
                                 "or none when --html or --summary is given)")
        matrix.add_argument("--summary", type=Path, metavar="FILE",
                            help="also write the summary tables alone here (targets, pass rate by behaviour; what "
                                 "changed in a history): a page to keep in git, naming where --out and --html put "
                                 "the per-case detail")
        matrix.add_argument("--pitfalls", type=Path, metavar="FILE",
                            help="write the reported pitfalls here: every public issue the cases' references name, "
                                 "what Kubernetes does, and which targets of the matrix get it wrong (Markdown; "
                                 "with --html the site gets pitfalls.html, the detail)")
        matrix.add_argument("--published", metavar="WHERE",
                            help="where the per-case detail is published, said on the --summary page after 'published' "
                                 "(Markdown: 'at https://…', 'on GitHub Pages')")
        matrix.add_argument("--html", type=Path, metavar="DIR",
                            help="write the conformance site here: index.html (the matrix by patch type and "
                                 "behaviour), a page per implementation with every failure, badges/")
        matrix.add_argument("--results", type=Path, metavar="DIR",
                            help="keep each target's results and reports in DIR/<target>/ (for a later --from)")
        matrix.add_argument("--timeout", type=float)
        matrix.add_argument("--title", default="Compliance matrix", help="the report's heading")
        matrix.add_argument("--notes", type=Path, metavar="FILE",
                            help="Markdown put on the page after its introduction "
                                 "(say what a history leaves out and why)")
        matrix.add_argument("--history", action="store_true",
                            help="the targets are releases of libraries: say per library which cases changed between "
                                 "its releases, instead of between all targets")
        matrix.add_argument("--kubeconfig", metavar="PATH", help="kubeconfig for live targets (default: $KUBECONFIG)")
        matrix.add_argument("--namespace", metavar="NS", help=NAMESPACE_HELP)
        matrix.add_argument("--fuzz", type=int, metavar="COUNT",
                            help="also fuzz each target (not upstream itself) with COUNT inputs against upstream "
                                 "(patchconf fuzz --seed 1) and give its agreement beside its pass rate")
        _add_answer_limit(matrix)

    if wanted("verify"):
        verify = commands.add_parser("verify",
                                     help="confirm cases against upstream (and kubectl) and record provenance")
        verify.add_argument("--judges", default=DEFAULT_JUDGES,
                            help=f"comma-separated targets that confirm cases (default: {DEFAULT_JUDGES}; "
                                 "and live when --kubeconfig is given)")
        _add_selection(verify)
        verify.add_argument("--write", action="store_true", help="record missing confirmations in the case files")
        verify.add_argument("--require-confirmation", action="store_true",
                            help="fail when a selected case is confirmed by no judge (as the pull-request check does)")
        verify.add_argument("--kubeconfig", metavar="PATH",
                            help="kubeconfig of an API server: adds live to the judges "
                                 "(live named in --judges without it uses $KUBECONFIG)")
        verify.add_argument("--namespace", metavar="NS", help=NAMESPACE_HELP)
        verify.add_argument("--rfc", action="store_true",
                            help="also check every JSON Patch, merge patch and merge patch creation case's RFC "
                                 "answer (profiles.rfc, else Kubernetes' own) against RFC libraries of two "
                                 "languages (the adapters: python jsonpatch and json-merge-patch, npm "
                                 "fast-json-patch, rfc6902 and json-merge-patch); fails where they agree on "
                                 "another answer, or where fewer than two languages ran. --judges '' checks only "
                                 "that")
        _add_answer_limit(verify)

    if wanted("record"):
        rec = commands.add_parser(
            "record", help="ask Kubernetes what cases that state only inputs produce, and write it into them")
        rec.add_argument("--judges", default=DEFAULT_JUDGES,
                         help=f"comma-separated targets, the first that can run a case answers, all cross-check "
                              f"(default: {DEFAULT_JUDGES}; and live when --kubeconfig is given)")
        _add_selection(rec)
        rec.add_argument("--kubeconfig", metavar="PATH",
                         help="kubeconfig of an API server: adds live to the judges")
        rec.add_argument("--namespace", metavar="NS", help=NAMESPACE_HELP)
        rec.add_argument("--dry-run", action="store_true", help="show what would be written, write nothing")
        _add_answer_limit(rec)

    if wanted("fuzz"):
        fuzz = commands.add_parser(
            "fuzz", help="random inputs for every flow, judged against Kubernetes' own code; "
                         "each distinct disagreement shrunk and written as a case file")
        fuzz.add_argument("--target", required=True, action="append", dest="fuzz_targets", metavar="TARGET",
                          help="the target to judge (as for run); repeat it to judge several against the same "
                               "answers of the truth")
        fuzz.add_argument("--type", action="append", default=[], dest="types", metavar="TYPE",
                          help="only this patch type (repeatable; default: every type both sides run)")
        fuzz.add_argument("--seed", type=int, default=0,
                          help="names the inputs: the same seed, the same inputs (default 0)")
        amount = fuzz.add_mutually_exclusive_group()
        amount.add_argument("--count", type=int, help="inputs to try (default 1000 unless --budget)")
        amount.add_argument("--budget", type=float, metavar="SECONDS", help="try inputs for this long instead")
        fuzz.add_argument("--out", type=Path, metavar="DIR",
                          help="where the minimal case files go (default: ./reports/fuzz/<target>/)")
        fuzz.add_argument("--truth", default="upstream", metavar="TARGET",
                          help="Kubernetes' code that answers each input (default: upstream; e.g. upstream@1.27); "
                               "live (a server: --kubeconfig, else $KUBECONFIG) or live@1.33 (patchconf's local "
                               "control plane, started for the run) sends request sequences on valid objects of "
                               "built-in kinds for server-side-apply, json-patch, merge-patch and strategic")
        fuzz.add_argument("--kubeconfig", metavar="PATH", help="kubeconfig for a live truth (default: $KUBECONFIG)")
        fuzz.add_argument("--namespace", metavar="NS", help=NAMESPACE_HELP)
        fuzz.add_argument("--jobs", type=int, metavar="N", help="requests a live truth runs at once (default 8)")
        fuzz.add_argument("--no-shrink", action="store_true", help="write each disagreement as first found")
        fuzz.add_argument("--timeout", type=float, help="seconds a cmd: target gets per input (default 10)")
        _add_answer_limit(fuzz)

    if wanted("targets"):
        commands.add_parser("targets", help="list the known targets")

    if wanted("apiserver"):
        apiserver = commands.add_parser("apiserver",
                                        help="a local etcd + kube-apiserver built from Kubernetes' Go modules")
        actions = apiserver.add_subparsers(dest="action", required=True)
        start = actions.add_parser("start", help="build if needed, start, wait until ready, write a kubeconfig")
        start.add_argument("--kubeconfig", type=Path, required=True, metavar="PATH", help="kubeconfig to write")
        start.add_argument("--version", help="Kubernetes release, 1.MINOR or 1.MINOR.PATCH (default: the pinned one)")
        start.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for readiness (default 180)")
        for name, text in (("stop", "stop the control plane and remove its data"), ("status", "say what is running")):
            action = actions.add_parser(name, help=text)
            # Never every plane by default: another shell's, checkout's or test session's may be in use.
            which = action.add_mutually_exclusive_group(required=True)
            which.add_argument("--kubeconfig", type=Path, metavar="PATH", help="the one serving this kubeconfig")
            which.add_argument("--all", action="store_true",
                               help="every control plane patchconf started on this machine, whoever started it "
                                    "(each is listed)")
        build = actions.add_parser("build",
                                   help="only build (or find cached) kube-apiserver and etcd; print their paths")
        build.add_argument("--version")
        recipe = actions.add_parser("recipe", help="write the go.mod/go.sum that build a release (targets/apiserver/)")
        recipe.add_argument("--version", required=True)
        recipe.add_argument("directory", type=Path)

    if wanted("live"):
        live = commands.add_parser("live", help="live-target housekeeping")
        live_commands = live.add_subparsers(dest="live_command", required=True)
        live_cleanup = live_commands.add_parser(
            "cleanup", help="delete what interrupted live runs left (namespaces and CRDs labelled patchconf.dev/run)")
        live_cleanup.add_argument("--kubeconfig", metavar="PATH", help="kubeconfig (default: $KUBECONFIG)")
        live_cleanup.add_argument("--context", help="kubeconfig context (default: the current one)")
        live_cleanup.add_argument("--namespace", metavar="NS",
                                  help="only the objects labelled patchconf.dev/run inside this existing namespace "
                                       "(what runs with --namespace NS left); no namespace or CRD is touched")
    return parser


# Where each command that reads cases keeps the paths it was given (checked before anything runs).
CASE_PATHS = {"run": "cases", "validate": "paths", "coverage": "cases", "matrix": "cases", "verify": "cases",
              "record": "cases"}


def main(argv: list[str] | None = None) -> int:
    handler = {"run": cmd_run, "report": cmd_report, "diff": cmd_diff, "validate": cmd_validate,
               "coverage": cmd_coverage, "targets": cmd_targets, "matrix": cmd_matrix, "verify": cmd_verify,
               "record": cmd_record, "apiserver": cmd_apiserver, "fuzz": cmd_fuzz, "live": cmd_live}
    arguments = list(sys.argv[1:] if argv is None else argv)
    first = arguments[0] if arguments else "run"  # no arguments: run
    parser = build_parser(first if first in handler else None)  # anything else (--help, a typo): every command
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run", *(argv or [])])
    args.argv = arguments
    given = getattr(args, CASE_PATHS[args.command], None) if args.command in CASE_PATHS else None
    problems = case_path_problems(given or [])
    for problem in problems:
        print(f"patchconf {args.command}: {problem}", file=sys.stderr)
    if problems:
        return 2
    if getattr(args, "quiet", False):  # and Go builds say nothing either
        from .controlplane.gobuild import progress_to

        with progress_to(None):
            return handler[args.command](args)
    return handler[args.command](args)


def console_main() -> int:
    """The ``patchconf`` command: :func:`main` in a process that ends when it returns.

    A process that ends need not take apart what it made: freeing a run's corpus and results
    object by object, then the interpreter's teardown, took some 25 ms of every run. So what the
    command leaves for the exit (:func:`_leave_for_exit`) stays, and the process ends at once
    (:func:`_end_process`). Where it cannot, the exit is the interpreter's, whose garbage
    collections would walk every object still alive (some 0.1 s) to find nothing to free: frozen,
    they are not walked. Only here: a process that goes on (tests calling :func:`main`) frees them.
    """
    global _left_for_exit
    _left_for_exit = []
    code = main()
    _end_process(code)
    gc.freeze()
    return code


# What the command leaves for its process's end to drop at once, instead of freeing it piece by piece
# when it is done with it (a run's corpus and results); None where the process goes on after main().
_left_for_exit: list[object] | None = None


def _leave_for_exit(*made: object) -> None:
    if _left_for_exit is not None:
        _left_for_exit.extend(made)


def _end_process(code: int) -> None:
    """End the process with ``code`` as the interpreter's exit would, without its teardown: atexit
    callbacks run and stdout and stderr are flushed (the command's files are closed by now). Returns
    where that exit has more to do or to say: threads still running, a callback or a flush failing."""
    threading = sys.modules.get("threading")
    if not isinstance(code, int) or (threading is not None and threading.active_count() > 1):
        return
    import atexit
    import os

    try:
        atexit._run_exitfuncs()  # the interpreter's exit calls them once: they are not run again
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        return
    os._exit(code)


class Interrupted(KeyboardInterrupt):
    """SIGTERM, raised where the run is, as Ctrl-C raises KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave SIGTERM as it is
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    finally:
        gc.unfreeze()  # what _load_frozen froze: a process that goes on (tests) collects it again


def _load_frozen(paths: list[Path]) -> Corpus:
    """The corpus, loaded without garbage collection and then frozen (kept out of collections).

    Loading makes some 100,000 objects that live as long as the run and form no cycles: a
    collection meanwhile, or later walking them all, frees nothing and took 0.05-0.1 s a run.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        corpus = load_corpus(paths)
        gc.freeze()  # before collecting again: else the first collection walks all of it once
    finally:
        if collecting:
            gc.enable()
    return corpus


def _run(args: argparse.Namespace) -> int:
    from .reporting.results import LOG_NAME, ResultsLog

    known = None
    if args.expect_failures:
        from .reporting.known_failures import KnownFailuresError

        try:
            known = _read_known_failures(args)
        except KnownFailuresError as exc:
            print(f"patchconf: {exc}", file=sys.stderr)
            return 2
    if args.namespace and args.target.partition(":")[0] != "live":
        print(f"patchconf: --namespace is for the live target, not {args.target!r}", file=sys.stderr)
        return 2
    with _sigterm_interrupts():
        describe_corpus_soon(args.cases or [default_cases_dir()])  # git runs while the target starts, cases load
        judges_before = _judges_mark()
        try:
            target = make_target(args.target, timeout=args.timeout, kubeconfig=args.kubeconfig, workers=args.jobs,
                                 max_answer_bytes=args.max_answer_bytes, namespace=args.namespace)
        except TargetUnavailable as exc:
            print(f"patchconf: target {args.target!r} unavailable: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as exc:
            print(f"patchconf: interrupted ({_signal_name(exc)}) while starting the target", file=sys.stderr)
            return _interrupted_exit(exc)
        try:
            corpus = _load_frozen(args.cases or [default_cases_dir()])
        except KeyboardInterrupt as exc:
            target.close()
            print(f"patchconf: interrupted ({_signal_name(exc)}) while loading the cases", file=sys.stderr)
            return _interrupted_exit(exc)
        filters = _filters(args)  # once, not once per case
        selected = [case for case in corpus.cases if filters.accepts(case)]
        directory = args.report or (reports_directory() / target_directory_name(args.target))
        run = Run(args.target, target.info, [], corpus.errors, planned=len(selected),
                  arguments={"cases": [str(p) for p in args.cases or []], "types": args.types,
                             "tags": args.tags, "paths": args.paths, "names": args.names},
                  corpus=corpus_description(args.cases or [default_cases_dir()]), patchconf=patchconf_version(),
                  judges=_judges_used(since=judges_before) or _plane_judges(args.target, args.kubeconfig))
        log = ResultsLog(directory / LOG_NAME, run, len(selected))
        finished: dict[int, Result] = {}

        def record(index: int, result: Result) -> None:
            log.write(index, result)  # on disk before the next case is counted: a kill loses nothing done
            finished[index] = result

        started = time.perf_counter()
        stop: BaseException | None = None
        try:
            run_cases(selected, target, workers=args.jobs, progress=None if args.quiet else terminal_progress(),
                      on_result=record)
        except KeyboardInterrupt as exc:
            stop = exc
            run.interrupted = _signal_name(exc)
        except Exception as exc:  # a harness bug: keep what was done, then show it
            stop = exc
            run.interrupted = f"harness error: {type(exc).__name__}: {exc}"
        finally:
            try:
                target.close()
            finally:
                kill_running()
        run.seconds = time.perf_counter() - started
        run.results = [finished[index] for index in sorted(finished)]
        # A target may take up a judge mid-run (upstream's full build, on its first server-side apply).
        judges_at_start, run.judges = run.judges, _judges_used(since=judges_before) or run.judges
        log.end(run.seconds, run.interrupted, run.judges if run.judges != judges_at_start else None)
        if run.interrupted and sys.stderr.isatty():
            print(file=sys.stderr)  # end the progress line
        verdict = _verdict(run, known, corpus.cases)
        written = write_reports(run, directory)
        _print_summary(run, args, verdict, [log.path, *written])
        _leave_for_exit(corpus, run)
    if isinstance(stop, KeyboardInterrupt):
        print(f"patchconf: {run.stopped_early()}; reports written from them", file=sys.stderr)
        return _interrupted_exit(stop)
    if stop is not None:
        import traceback  # only for a harness bug

        traceback.print_exception(stop)
        return 2
    if not selected and not corpus.errors:
        return _nothing_selected("run", args)
    return 0 if run_ok(run, verdict) else 1


def _signal_name(interrupt: KeyboardInterrupt) -> str:
    return "SIGTERM" if isinstance(interrupt, Interrupted) else "SIGINT"


def _interrupted_exit(interrupt: KeyboardInterrupt) -> int:
    return EXIT_SIGTERM if isinstance(interrupt, Interrupted) else EXIT_SIGINT


def cmd_report(args: argparse.Namespace) -> int:
    from .reporting.known_failures import KnownFailuresError
    from .reporting.results import LOG_NAME, read_log

    path = args.directory / LOG_NAME if args.directory.is_dir() else args.directory
    try:
        known = _read_known_failures(args)
        run = read_log(path)
    except KnownFailuresError as exc:
        print(f"patchconf report: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"patchconf report: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    verdict = _verdict(run, known)
    written = write_reports(run, args.out or path.parent)
    _print_summary(run, args, verdict, written)
    return 0 if run_ok(run, verdict) else 1


def cmd_diff(args: argparse.Namespace) -> int:
    from .reporting.results import read_run
    from .reporting.rundiff import diff_markdown, diff_runs, diff_text

    runs = []
    for path in (args.old, args.new):
        try:
            runs.append(read_run(path))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"patchconf diff: cannot read {path}: {exc}", file=sys.stderr)
            return 2
    diff = diff_runs(*runs)
    if args.format == "json":
        print(json.dumps(diff.to_json(), indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print(diff_markdown(diff), end="")
    else:
        print(diff_text(diff))
    return 1 if diff.regressions else 0


def _quiet_summary(run: Run) -> str:
    lines = [f"corpus: {run.corpus.get('path')} ({run.corpus.get('version')}); patchconf {run.patchconf}"]
    lines += judge_lines(run.judges)
    lines += [f"{r.status.upper()} {r.case.id}" for r in run.results if r.status in ("fail", "error")]
    lines += [f"LOAD ERROR {e}" for e in run.load_errors]
    lines += [run.stopped_early()] if run.interrupted else []
    counts = run.counts()
    lines.append(", ".join(f"{counts.get(s, 0)} {s}" for s in ("pass", "fail", "error", "skip")))
    return "\n".join(lines)


def _judges_mark() -> int:
    """judges.mark(), without importing the module in a process that used no judge binary."""
    judges = sys.modules.get("patchconf.harness.controlplane.judges")
    return judges.mark() if judges else 0


def _plane_judges(spec: str, kubeconfig: str | None) -> list[dict]:
    """For ``live`` on a control plane `patchconf apiserver start` runs, the binaries it runs (its state file)."""
    if spec.partition(":")[0] != "live":
        return []
    import os

    from .controlplane import apiserver

    path = Path(kubeconfig or os.environ.get("KUBECONFIG") or Path.home() / ".kube" / "config")
    plane = None
    if os.pathsep not in str(path):  # one kubeconfig, not a list of them
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            plane = apiserver.find(path)
    return plane.judges if plane and all(apiserver.is_running(record) for record in plane.processes) else []


def _judges_used(since: int = 0) -> list[dict]:
    """The judge binaries (upstream, kube-apiserver, etcd) this process used, for a run's header."""
    judges = sys.modules.get("patchconf.harness.controlplane.judges")
    return judges.used(since) if judges else []


def cmd_validate(args: argparse.Namespace) -> int:
    paths = args.paths or [default_cases_dir()]
    corpus = load_corpus(paths)
    problems = [str(e) for e in corpus.errors]
    from .corpus.cases import iter_case_files

    for file in iter_case_files(paths):
        if file.suffix in (".yaml", ".yml"):
            # unparsable files are already reported as load errors
            with contextlib.suppress(Exception):
                text = file.read_text(encoding="utf-8")
                problems += [f"{file}:{line}:{column}: {trap}" for line, column, trap in unquoted_versions(text)]
                problems += [f"{file}: {d}" for d in yaml11_differences(text)]
    for problem in problems:
        print(problem)
    print(f"{counted(len(corpus.cases), 'case')} valid, {counted(len(problems), 'problem')}")
    return 1 if problems else 0


def cmd_coverage(args: argparse.Namespace) -> int:
    from .corpus.coverage import coverage, coverage_text

    paths = args.cases or [default_cases_dir()]
    corpus = load_corpus(paths)
    table = coverage(corpus.cases, cases_root_for(Path(paths[0]).resolve()))
    text, short = coverage_text(table, tuple(args.prefix))
    print(text)
    if short:
        print(f"{len(short)} behaviour ids have fewer cases than their minimum: {' '.join(short)}")
    return 1 if (short and args.prefix) or corpus.errors else 0


def cmd_matrix(args: argparse.Namespace) -> int:
    import os
    import shlex

    from .reporting.matrix import (
        column_labels,
        matrix_markdown,
        matrix_summary_markdown,
        portable,
    )
    from .reporting.pitfalls import collect as collect_pitfalls
    from .reporting.pitfalls import summary_markdown as pitfalls_markdown
    from .reporting.site import matrix_page, slug, write_site

    corpus = load_corpus(args.cases or [default_cases_dir()])
    filters = _filters(args)
    if not corpus.errors and not any(filters.accepts(case) for case in corpus.cases):
        return _nothing_selected("matrix", args)
    runs = _matrix_runs_read(args, corpus.cases) if args.from_runs else _matrix_runs_made(args, corpus)
    if not runs:
        return 2
    command = shlex.join(["patchconf", *args.argv])
    try:
        notes = args.notes.read_text(encoding="utf-8").strip() if args.notes else ""
    except OSError as exc:
        print(f"patchconf matrix: cannot read --notes {args.notes}: {exc}", file=sys.stderr)
        return 2
    fuzzed = _fuzzed_agreement(runs, args) if args.fuzz else None
    written: list[Path] = []
    out = args.out or (None if args.html or args.summary or args.pitfalls else reports_directory() / "compliance.md")
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(matrix_markdown(runs, args.title, command, fuzzed, args.history, notes), encoding="utf-8")
        out.with_suffix(".html").write_text(matrix_page(runs, args.title, command, fuzzed, args.history, notes),
                                            encoding="utf-8")
        written += [out, out.with_suffix(".html")]
    if args.results:
        for label, run in zip(column_labels(runs), runs, strict=True):
            write_reports(run, args.results / slug(label))
            written.append(args.results / slug(label))
    pitfalls = collect_pitfalls(corpus.cases)
    if args.html:
        write_site(runs, args.html, args.title, command, pitfalls)
        written.append(args.html / "index.html")
    if args.pitfalls:
        args.pitfalls.parent.mkdir(parents=True, exist_ok=True)
        detail = f"`{portable(str(args.html))}/pitfalls.html`" if args.html else ""
        root = cases_root_for(Path((args.cases or [default_cases_dir()])[0]).resolve())
        case_link = os.path.relpath(root.parent, args.pitfalls.resolve().parent) + "/"
        args.pitfalls.write_text(pitfalls_markdown(pitfalls, runs, column_labels(runs), portable(command), detail,
                                                   case_link), encoding="utf-8")
        written.append(args.pitfalls)
    if args.summary:
        detail_at = ([str(out)] if out else []) + ([f"{args.html}/"] if args.html else [])
        args.summary.parent.mkdir(parents=True, exist_ok=True)
        tool_pages = {run.target.family: f"tools/{run.target.family}.md" for run in runs
                      if (args.summary.parent / "tools" / f"{run.target.family}.md").is_file()}
        args.summary.write_text(matrix_summary_markdown(runs, args.title, command, fuzzed, args.history, notes,
                                                        detail_at, args.published or "", tool_pages), encoding="utf-8")
        written.append(args.summary)
    print(f"matrix: {', '.join(str(p) for p in written)}")
    return 0


def _matrix_runs_made(args: argparse.Namespace, corpus: Corpus) -> list[Run]:
    selected = [case for case in corpus.cases if _filters(args).accepts(case)]
    runs = []
    for spec in [s.strip() for s in args.targets.split(",") if s.strip()]:
        began = time.perf_counter()  # with the target's own start and stop (live@ builds and starts a server)
        judges_before = _judges_mark()
        try:
            target = make_target(spec, timeout=args.timeout, kubeconfig=args.kubeconfig,
                                 max_answer_bytes=args.max_answer_bytes, namespace=args.namespace)
        except TargetUnavailable as exc:
            print(f"patchconf: target {spec!r} unavailable, left out: {exc}", file=sys.stderr)
            continue
        started = time.perf_counter()
        try:
            results = run_cases(selected, target, progress=terminal_progress())
        finally:
            target.close()
        run = Run(spec, target.info, results, corpus.errors, seconds=time.perf_counter() - started,
                  corpus=corpus_description(args.cases or [default_cases_dir()]), patchconf=patchconf_version(),
                  judges=_judges_used(since=judges_before))
        print(_quiet_summary(run).splitlines()[-1] + f"  {spec} ({time.perf_counter() - began:.0f}s)")
        runs.append(run)
    return runs


def _matrix_runs_read(args: argparse.Namespace, cases: list[Case]) -> list[Run]:
    """The runs --from names, narrowed by the selection; inputs (results do not record them) from the corpus."""
    from dataclasses import replace

    from .reporting.results import read_run
    from .reporting.site import with_inputs

    # results do not record references: a referenced case is known by its id in the corpus
    referenced = {case_id for case in cases if case.references for case_id in (case.id, *case.former_ids)}
    filters = _filters(args)
    runs = []
    for path in args.from_runs:
        try:
            run = read_run(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"patchconf matrix: cannot read {path}: {exc}", file=sys.stderr)
            return []
        run.results = [r for r in run.results if replace(filters, referenced=False).accepts(r.case)
                       and (not filters.referenced or r.case.id in referenced)]
        print(_quiet_summary(run).splitlines()[-1] + f"  {run.target_name} (from {path})")
        runs.append(run)
    return with_inputs(runs, cases)


FUZZ_SEED = 1


def _fuzzed_agreement(runs: list, args: argparse.Namespace) -> dict[str, str]:
    """Per target: its agreement with upstream on ``--fuzz`` inputs of the types both run (no shrinking)."""
    from .fuzz.engine import fuzz
    from .fuzz.generators import GENERATORS

    try:
        truth = make_target("upstream", max_answer_bytes=args.max_answer_bytes)
    except TargetUnavailable as exc:
        print(f"patchconf: no fuzzing, upstream unavailable: {exc}", file=sys.stderr)
        return {}
    cells: dict[str, str] = {}
    try:
        for run in runs:
            if run.target.family == "upstream" or run.target_name.startswith("live"):
                continue
            types = [t for t in GENERATORS if t in truth.info.patch_types and t in run.target.patch_types]
            if not types:
                continue
            target = make_target(run.target_name, timeout=args.timeout, max_answer_bytes=args.max_answer_bytes)
            try:
                fuzzed = fuzz(target, truth, types, FUZZ_SEED, count=args.fuzz, shrink=False)
            finally:
                target.close()
            share = f"{100 * fuzzed.count('agree') / fuzzed.judged:.1f}%" if fuzzed.judged else "–"
            cells[run.target_name] = f"{share} ({fuzzed.count('agree')}/{fuzzed.judged})"
            print(f"fuzzed {run.target_name}: {cells[run.target_name]}")
    finally:
        truth.close()
    return cells


def _judges(args: argparse.Namespace) -> list:
    """The available judges of ``--judges`` (each unavailable one said), live with ``--kubeconfig``."""
    specs = [s.strip() for s in args.judges.split(",") if s.strip()]
    if args.kubeconfig and not any(spec.split(":")[0] == "live" for spec in specs):
        specs.append("live")
    from .provenance.verify import KUBERNETES_IMPLEMENTATIONS, implementation_of

    judges = []
    for spec in specs:
        try:
            judge = make_target(spec, kubeconfig=args.kubeconfig, max_answer_bytes=args.max_answer_bytes,
                                namespace=args.namespace)
        except TargetUnavailable as exc:
            print(f"patchconf: judge {spec!r} unavailable, not used: {exc}", file=sys.stderr)
            continue
        if implementation_of(judge) not in KUBERNETES_IMPLEMENTATIONS:
            # provenance names real Kubernetes code only, never the reference implementation or a peer
            print(f"patchconf: {spec!r} is not Kubernetes' own code; not a judge", file=sys.stderr)
            judge.close()
            continue
        judges.append(judge)
    return judges


def cmd_verify(args: argparse.Namespace) -> int:
    from .corpus.cases import Purpose
    from .provenance.verify import missing_provenance, verify

    # Cases under verification may lack provenance: --write is what records it.
    corpus = load_corpus(args.cases or [default_cases_dir()], Purpose.VERIFY)
    for error in corpus.errors:
        print(f"LOAD ERROR {error}")
    selected = [case for case in corpus.cases if _filters(args).accepts(case)]
    if not selected and not corpus.errors:
        return _nothing_selected("verify", args)
    if not selected:
        print("patchconf: no case to verify (see the load errors above)", file=sys.stderr)
        return 1
    rfc_ok = True
    if args.rfc:
        from .provenance.rfc_profiles import check_rfc_profiles

        check = check_rfc_profiles(selected)
        for line in check.report_lines():
            print(line)
        rfc_ok = check.ok
        if not args.judges.strip():  # the RFC check alone
            return 1 if corpus.errors or not rfc_ok else 0
    judges_before = _judges_mark()
    judges = _judges(args)
    if not judges:
        print("patchconf: no judge available; nothing can be verified", file=sys.stderr)
        return 2
    try:
        verification = verify(selected, judges)
    finally:
        for judge in judges:
            judge.close()
    for line in verification.report_lines(selected):
        print(line)
    for line in judge_lines(_judges_used(since=judges_before)):
        print(line)
    missing = missing_provenance(verification)
    unconfirmed = verification.unconfirmed(selected)
    confirmed = len(selected) - len(unconfirmed)
    print(f"judges: {', '.join(verification.judges)}; {confirmed} of {counted(len(selected), 'case')} confirmed, "
          f"{counted(len(verification.contradictions), 'contradiction')}, "
          f"{counted(len(missing), 'confirmation')} not yet recorded"
          + (f", {counted(len(corpus.errors), 'load error')}" if corpus.errors else ""))
    if args.write and missing:
        from .provenance.record import write_confirmations

        changes = write_confirmations(missing)
        failed = {change.path: change.error for change in changes if change.error}
        for path, error in failed.items():
            print(f"NOT WRITTEN: {path}: {error}")
        written = [c for c in missing if c.case.path not in failed]
        print(f"recorded {len(written)} confirmations in {len(changes) - len(failed)} files")
    failed = corpus.errors or not verification.ok or (args.require_confirmation and unconfirmed) or not rfc_ok
    return 1 if failed else 0


def cmd_record(args: argparse.Namespace) -> int:
    from .corpus.cases import Purpose
    from .provenance.record import RECORDED, record_cases, write_recordings

    if not args.cases:
        print("patchconf record: name the case file: --cases FILE", file=sys.stderr)
        return 2
    corpus = load_corpus(args.cases, Purpose.RECORD)
    for error in corpus.errors:
        print(f"LOAD ERROR {error}")
    selected = [case for case in corpus.cases if _filters(args).accepts(case)]
    todo = [case for case in selected if case.needs_expectation]
    for case in selected:
        if not case.needs_expectation:
            print(f"LEFT {case.id}: it states its expectation already (`patchconf verify` checks it)")
    if not selected and not corpus.errors:
        return _nothing_selected("record", args)
    if not todo:
        print("patchconf record: no case without an expectation" + ("" if selected else " (see the load errors above)"),
              file=sys.stderr)
        return 1 if corpus.errors else 0
    judges_before = _judges_mark()
    judges = _judges(args)
    if not judges:
        print("patchconf: no judge available; nothing can be recorded", file=sys.stderr)
        return 2
    try:
        recordings = record_cases(todo, judges)
    finally:
        for judge in judges:
            judge.close()
    changes = write_recordings(recordings, dry_run=args.dry_run)
    failed = {change.path: change.error for change in changes if change.error}
    for change in changes:
        print(change.diff(), end="")
    for recording in recordings:
        print("\n".join(recording.lines()))
        if recording.case.path in failed and recording.status == RECORDED:
            print(f"  NOT WRITTEN: {recording.case.file}: {failed[recording.case.path]}")
    recorded = sum(r.status == RECORDED and r.case.path not in failed for r in recordings)
    files = sum(not change.error for change in changes)
    verb = "would record" if args.dry_run else "recorded"
    for line in judge_lines(_judges_used(since=judges_before)):
        print(line)
    print(f"judges: {', '.join(f'{j.name} {j.info.version}' for j in judges)}; {verb} {recorded} of "
          f"{counted(len(todo), 'case')} in {counted(files, 'file')}"
          + (f"; {counted(len(corpus.errors), 'load error')}" if corpus.errors else ""))
    return 0 if recorded == len(todo) and not corpus.errors else 1


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .fuzz.casefile import NotWritable, write_findings
    from .fuzz.engine import fuzz, plan_for
    from .fuzz.livetruth import RememberingTruth
    from .fuzz.summary import progress_printer, summary_text
    from .provenance.verify import implementation_of

    targets = []
    try:
        for spec in (args.truth, *args.fuzz_targets):
            targets.append(make_target(spec, timeout=args.timeout, max_answer_bytes=args.max_answer_bytes,
                                       kubeconfig=args.kubeconfig, namespace=args.namespace, workers=args.jobs))
    except TargetUnavailable as exc:
        print(f"patchconf fuzz: target {spec!r} unavailable: {exc}", file=sys.stderr)
        for target in targets:
            target.close()
        return 2
    truth, judged = targets[0], targets[1:]
    if len(judged) > 1:
        truth = RememberingTruth(truth)  # one answer of the truth per input, for every target
    plan = plan_for(truth)
    unknown = [t for t in args.types if t not in plan.generators]
    if unknown:
        print(f"patchconf fuzz: no generator for {', '.join(unknown)} against {truth.name}; "
              f"types: {', '.join(plan.generators)}", file=sys.stderr)
        for each in targets:
            each.close()
        return 2
    runs = []
    try:
        for target in judged:
            run = _fuzz_one(args, plan, truth, target, fuzz, progress_printer)
            if run is None:
                return 2
            runs.append((target, run))
            if run.interrupted:
                break
    finally:
        for each in targets:
            each.close()
    failed = False
    for target, run in runs:
        spec = args.fuzz_targets[judged.index(target)]
        out = args.out or (reports_directory() / "fuzz" / target_directory_name(spec))
        if len(runs) > 1 and args.out:
            out = out / target_directory_name(spec)
        written = []
        if run.findings:
            try:
                written = write_findings(run, out, implementation_of(truth))
            except NotWritable as exc:
                print(f"patchconf fuzz: no case files written: {exc}", file=sys.stderr)
        print(summary_text(run, written, shrunk=not args.no_shrink))
        failed = failed or not run.full_agreement
        if run.interrupted:
            return EXIT_SIGINT
    return 1 if failed else 0


def _fuzz_one(args: argparse.Namespace, plan, truth, target, fuzz, progress_printer):
    """One target fuzzed against the truth; None when no patch type is run by both."""
    from .fuzz.engine import case_type_of

    wanted = args.types or list(plan.generators)
    # a live truth's flows are all request sequences (server-side-apply cases)
    types = [t for t in wanted if case_type_of(t, plan) in truth.info.patch_types
             and case_type_of(t, plan) in target.info.patch_types]
    for left in (t for t in wanted if t not in types):
        who = truth.name if case_type_of(left, plan) not in truth.info.patch_types else target.name
        print(f"patchconf fuzz: {left} left out: {who} does not run it", file=sys.stderr)
    if not types:
        print("patchconf fuzz: no patch type both sides run", file=sys.stderr)
        return None
    count = args.count if args.count is not None or args.budget is not None else 1000
    with _sigterm_interrupts():
        return fuzz(target, truth, types, args.seed, count=count, budget=args.budget,
                    progress=progress_printer(count, args.budget), shrink=not args.no_shrink, plan=plan)


def cmd_live(args: argparse.Namespace) -> int:
    from .controlplane.live_cluster import Cluster, ClusterUnreachable, cleanup

    try:
        cluster = Cluster(args.kubeconfig, args.context)
        cluster.server_version()
        report = cleanup(cluster, namespace=args.namespace)
    except ClusterUnreachable as exc:
        print(f"patchconf live cleanup: {exc}", file=sys.stderr)
        return 2
    print(f"patchconf live cleanup: {report}")
    return 0


def cmd_targets(args: argparse.Namespace) -> int:
    for spec, text in TARGET_HELP.items():
        print(f"{spec:<16} {text}")
    return 0


def cmd_apiserver(args: argparse.Namespace) -> int:
    from .controlplane import apiserver

    def log(message: str) -> None:
        print(f"patchconf apiserver: {message}", file=sys.stderr, flush=True)

    judges_before = _judges_mark()
    try:
        if args.action == "start":
            began = time.monotonic()
            plane = apiserver.start(args.kubeconfig, args.version, ready_timeout=args.timeout, log=log)
            print(f"kube-apiserver {plane.version} ready at {plane.server} after {time.monotonic() - began:.1f}s; "
                  f"kubeconfig {plane.kubeconfig}; stop with: patchconf apiserver stop --kubeconfig {plane.kubeconfig}")
            for line in judge_lines(_judges_used(since=judges_before)):
                print(line)
            return 0
        if args.action == "build":
            binaries = apiserver.build(args.version, log=log)
            print(f"kube-apiserver {binaries.kube_apiserver}\netcd {binaries.etcd}")
            for line in judge_lines(_judges_used(since=judges_before)):
                print(line)
            return 0
        if args.action == "recipe":
            version = apiserver.resolve_version(args.version)
            apiserver.write_recipe(version, args.directory)
            print(f"wrote {args.directory / 'go.mod'} and go.sum for {version}")
            return 0
        planes = _selected_control_planes(apiserver, args.kubeconfig)
        if not planes:
            where = f" for {args.kubeconfig}" if args.kubeconfig else ""
            print(f"no control plane started by patchconf{where}")
            return 0 if args.all else 1
        if args.action == "stop" and args.all:
            print(f"stopping every control plane patchconf started on this machine ({len(planes)}):")
            for plane in planes:
                print(f"  {plane.server} {plane.version}: kubeconfig {plane.kubeconfig}, "
                      f"pids {', '.join(str(p.pid) for p in plane.processes)}")
        for plane in planes:
            if args.action == "stop":
                apiserver.stop(plane)
                print(f"stopped {plane.server} (pids {', '.join(str(p.pid) for p in plane.processes)}); "
                      f"removed {plane.data_dir}")
            else:
                print(f"{plane.server} {plane.version} {apiserver.status(plane)}: kubeconfig {plane.kubeconfig}, "
                      f"data {plane.data_dir}")
        return 0
    except apiserver.ControlPlaneError as exc:
        print(f"patchconf apiserver {args.action}: {exc}", file=sys.stderr)
        return 2


def _selected_control_planes(apiserver, kubeconfig: Path | None) -> list:
    if kubeconfig is None:
        return apiserver.running_control_planes()
    plane = apiserver.find(kubeconfig)
    return [plane] if plane else []


if __name__ == "__main__":
    sys.exit(console_main())
