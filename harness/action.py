"""The steps of patchconf's GitHub Action (``action.yml`` at the repository's root).

``action.yml`` installs patchconf, then the prebuilt judges (``python -m patchconf.harness.action judges``:
the patchconf-judges wheel of this patchconf for the runner, so that a target such as ``upstream`` or
``live@1.MINOR`` needs no Go build), and runs ``python -m patchconf.harness.action`` with the action's inputs
in ``PATCHCONF_ACTION_*`` variables (passed through the environment, never pasted into a shell
line). This runs ``patchconf run`` on them, prints the summary in the chosen format to the job's
log and keeps it beside the reports, appends the markdown summary to ``$GITHUB_STEP_SUMMARY``,
writes the step's outputs to ``$GITHUB_OUTPUT`` and exits as the run did (0: every case passed,
or with known failures nothing is news).

Known failures are a file of case ids, not a number: a count lets a new failure hide behind one
that was fixed, a list names each and says when one starts passing.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from . import patchconf_version, reports_directory, target_directory_name
from .corpus.case_paths import case_path_problems
from .reporting.summary import FORMATS

PREFIX = "PATCHCONF_ACTION_"
SUMMARY_FILES = {"text": "summary.txt", "json": "summary.json", "markdown": "summary.md"}
EXIT_BAD_INPUT = 2
JUDGES_DISTRIBUTION = "patchconf-judges"
JUDGES_CHOICES = ("wheel", "build")  # input 'judges': install the prebuilt wheel, or build with Go on first use


class BadInput(ValueError):
    """An input the action cannot run with; the message names it."""


@dataclass(frozen=True)
class Inputs:
    target: str
    types: tuple[str, ...]
    expect_failures: Path | None
    format: str
    cases: tuple[Path, ...]
    report_dir: Path


def read_inputs(environ: Mapping[str, str]) -> Inputs:
    """The action's inputs from ``PATCHCONF_ACTION_*``; relative paths are the workspace's (the working directory)."""
    def value(name: str) -> str:
        return environ.get(PREFIX + name, "").strip()

    target = value("TARGET")
    if not target:
        raise BadInput("input 'target' is required, e.g. 'cmd:python adapter.py'")
    fmt = value("FORMAT") or "text"
    if fmt not in FORMATS:
        raise BadInput(f"input 'format' is {fmt!r}; it takes one of {', '.join(FORMATS)}")
    known = value("EXPECT_FAILURES")
    if known and not Path(known).is_file():
        raise BadInput(f"input 'expect-failures' names {known!r}, which is not a file (a case id per line)")
    cases = tuple(Path(word) for word in _words(value("CASES")))
    problems = case_path_problems(cases)
    if problems:  # a typo would drop cases from the check in silence
        raise BadInput(f"input 'cases': {'; '.join(problems)}")
    report = value("REPORT_DIR")
    return Inputs(target=target, types=tuple(_words(value("TYPES"))),
                  expect_failures=Path(known) if known else None, format=fmt,
                  cases=cases,
                  report_dir=Path(report) if report else reports_directory() / target_directory_name(target))


def _words(text: str) -> list[str]:
    """Comma- or whitespace-separated values (an input may be one line or several)."""
    return [word for word in re.split(r"[\s,]+", text) if word]




def run_arguments(inputs: Inputs) -> list[str]:
    """The ``patchconf`` command line the inputs make."""
    arguments = ["run", "--target", inputs.target, "--report", str(inputs.report_dir), "--format", inputs.format]
    for kind in inputs.types:
        arguments += ["--type", kind]
    for path in inputs.cases:
        arguments += ["--cases", str(path)]
    if inputs.expect_failures:
        arguments += ["--expect-failures", str(inputs.expect_failures)]
    return arguments


def markdown_summary(inputs: Inputs) -> str | None:
    """The markdown summary of the run in the report directory (as ``--format markdown`` prints it),
    or None when the run recorded nothing (it stopped before its first case)."""
    from .reporting.known_failures import KnownFailures, check
    from .reporting.results import LOG_NAME, read_log
    from .reporting.summary import summary_markdown

    log = inputs.report_dir / LOG_NAME
    if not log.is_file():
        return None
    run = read_log(log)
    verdict = check(run, KnownFailures.read(inputs.expect_failures)) if inputs.expect_failures else None
    return summary_markdown(run, verdict)


def main(environ: Mapping[str, str] = os.environ) -> int:
    from .cli import main as patchconf

    try:
        inputs = read_inputs(environ)
    except BadInput as exc:
        print(f"::error title=patchconf::{exc}")
        return EXIT_BAD_INPUT
    arguments = run_arguments(inputs)
    print(f"patchconf {' '.join(arguments)}", file=sys.stderr, flush=True)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = patchconf(arguments)
    summary = printed.getvalue()
    print(summary, end="", flush=True)
    markdown = summary if inputs.format == "markdown" else markdown_summary(inputs)
    if markdown is None:
        markdown = (f"### ❌ patchconf on `{inputs.target}`\n\n`patchconf run` exited with {code} before any case "
                    "ran; the job's log says why.\n")
    summary_file = None
    if inputs.report_dir.is_dir():
        summary_file = inputs.report_dir / SUMMARY_FILES[inputs.format]
        summary_file.write_text(summary, encoding="utf-8")
    junit = inputs.report_dir / "junit.xml"
    _append(environ.get("GITHUB_STEP_SUMMARY"), markdown)
    _append(environ.get("GITHUB_OUTPUT"), "".join(f"{name}={value}\n" for name, value in (
        ("junit", junit if junit.is_file() else ""),
        ("report-dir", inputs.report_dir if inputs.report_dir.is_dir() else ""),
        ("summary", summary_file or ""),
        ("exit-code", code))))
    return code


def judges_install_command(environ: Mapping[str, str], python: str) -> list[str] | None:
    """The pip command that installs the patchconf-judges wheel of this very patchconf (input 'judges':
    wheel, the default), from PyPI or the 'judges-find-links' places; None for 'build'."""
    choice = environ.get(PREFIX + "JUDGES", "").strip() or "wheel"
    if choice not in JUDGES_CHOICES:
        raise BadInput(f"input 'judges' is {choice!r}; it takes one of {', '.join(JUDGES_CHOICES)}")
    if choice == "build":
        return None
    links = _words(environ.get(PREFIX + "JUDGES_FIND_LINKS", ""))
    return [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--only-binary=:all:",
            *(f"--find-links={place}" for place in links), f"{JUDGES_DISTRIBUTION}=={patchconf_version()}"]


def install_judges(environ: Mapping[str, str] = os.environ, run=subprocess.run) -> int:
    """The action's judges step: the prebuilt wheel where one is published for this runner; where none
    is, a notice says that a target needing Kubernetes' binaries builds them with Go, and the step passes."""
    try:
        command = judges_install_command(environ, sys.executable)
    except BadInput as exc:
        print(f"::error title=patchconf::{exc}")
        return EXIT_BAD_INPUT
    if command is None:
        print("patchconf: input 'judges' is build: a target needing Kubernetes' own binaries (upstream, "
              "live@1.MINOR) builds them with Go on first use")
        return 0
    done = run(command, capture_output=True, text=True, check=False)
    wheel = f"{JUDGES_DISTRIBUTION} {patchconf_version()}"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["pip found none"])[-1]
        print(f"::notice title=patchconf::no {wheel} wheel for this runner ({why}): a target needing Kubernetes' "
              "own binaries (upstream, live@1.MINOR) builds them with Go on first use")
        return 0
    print(f"patchconf: installed {wheel}: upstream, kube-apiserver and etcd prebuilt, no Go build needed")
    return 0


def _append(path: str | None, text: str) -> None:
    """Append to one of the files GitHub hands a step (step summary, outputs); outside Actions there is none."""
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(text)


if __name__ == "__main__":
    sys.exit(install_judges() if sys.argv[1:] == ["judges"] else main())
