"""The files a run writes into its report directory, each rendered by the module that owns its format:
results.json, junit.xml and report.md by :mod:`patchconf.harness.reporting.report`, report.html by
:mod:`patchconf.harness.reporting.site` (which renders matrices too, and so sits above the report module,
not beside it)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from patchconf.harness.reporting.report import Run, junit_xml, markdown, results_json_parts
from patchconf.harness.reporting.site import run_page, run_page_parts

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
    """The text ``parts`` make, written as one file, as Path.write_text would write it joined. The buffer
    is large so that megabytes go to the file in a few writes, not a write per 8 KiB."""
    with open(path, "w", encoding="utf-8", buffering=WRITE_BUFFER) as file:
        file.writelines(parts)
