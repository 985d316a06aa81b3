"""The files a run writes into its report directory, each rendered by the module that owns its format:
results.json, junit.xml and report.md by :mod:`patchconf.harness.reporting.report`, report.html by
:mod:`patchconf.harness.reporting.site` (which renders matrices too, and so sits above the report module,
not beside it)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .report import Run, junit_xml, markdown
from .results import results_json_parts
from .site import run_page, run_page_parts

WRITE_BUFFER = 1 << 20


def html_report(run: Run) -> str:
    """report.html: summary first, then every result, failures first with their differences."""
    return run_page(run)


def write_reports(run: Run, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, render in (
        ("results.json", lambda: results_json_parts(run)),
        ("junit.xml", lambda: (junit_xml(run),)),
        ("report.md", lambda: (markdown(run),)),
        ("report.html", lambda: run_page_parts(run)),
    ):
        path = directory / name
        _write(path, render())
        written.append(path)
    return written


def _write(path: Path, parts: Iterable[str]) -> None:
    """The text ``parts`` make, as Path.write_text would write it joined, in a few large writes.

    A file already there is written over in place and then cut to its new length, not emptied first:
    emptying a file of megabytes costs more than writing it (ext4 frees its blocks, and writes the new
    ones out at close so that a crash cannot leave the file empty).
    """
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
    with open(descriptor, "w", encoding="utf-8", buffering=WRITE_BUFFER) as file:
        try:
            file.writelines(parts)
        finally:  # stopped part way (an interrupt), it holds what was written, as an emptied file would
            if stat.S_ISREG(os.fstat(descriptor).st_mode):  # a device or a pipe has no length to cut
                file.truncate()
