"""The files a run writes into its report directory, each rendered by the module that owns its format:
results.json, junit.xml and report.md by :mod:`patchconf.harness.reporting.report`, report.html by
:mod:`patchconf.harness.reporting.site` (which renders matrices too, and so sits above the report module,
not beside it)."""

from __future__ import annotations

from pathlib import Path

from patchconf.harness.reporting.report import Run, junit_xml, markdown, results_json
from patchconf.harness.reporting.site import run_page


def html_report(run: Run) -> str:
    """report.html: summary first, then every result, failures first with their differences."""
    return run_page(run)


def write_reports(run: Run, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, render in (
        ("results.json", lambda: results_json(run)),
        ("junit.xml", lambda: junit_xml(run)),
        ("report.md", lambda: markdown(run)),
        ("report.html", lambda: html_report(run)),
    ):
        path = directory / name
        path.write_text(render(), encoding="utf-8")
        written.append(path)
    return written
