"""A run's results on disk, both ways: ``results.jsonl`` as the run goes, ``results.json`` after it.

results.json (:func:`results_json_parts`) is the run's :meth:`Run.summary_json` with every result;
:func:`read_run` reads either file (or a report directory holding them) back into a :class:`Run`,
which every report renders from.

results.jsonl: every result written down as its case finishes, so that nothing done is lost.
One JSON object a line, each flushed as it is written:

- first ``{"patchconf_results_log": 1, "run": {...}}``: the target, when the run started,
  its arguments, how many cases it selected, the files that could not be loaded;
- then ``{"result": {...}}`` per case, in the order the cases finished, with ``index``, the
  case's place in the selection;
- last ``{"end": {"seconds": ..., "interrupted": null}}``; ``interrupted`` says why a run
  stopped early (``SIGINT``, ``SIGTERM``, ``harness error: ...``).

A run killed outright (SIGKILL, out of memory, power) leaves no end line, and may leave its
last line cut short: :func:`read_log` takes every whole line and says the run did not
finish. ``patchconf report DIR`` renders the reports from it (reports are rendered from
results, never recomputed).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..corpus.cases import Case, LoadError, Outcome, SchemaRef
from ..running.runner import Result
from ..targets.base import ANSWERS, LIBRARY, TargetInfo
from .report import Run

LOG_NAME = "results.jsonl"
RESULTS_NAME = "results.json"
FORMAT_VERSION = 1
NOT_FINISHED = "no end line in results.jsonl: the run was killed or crashed"


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait meanwhile."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class ResultsLog:
    """Writes results.jsonl for one run: a header, a line per result, an end line."""

    def __init__(self, path: Path, run: Run, planned: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)  # open for the run's length
        header = {
            "target": {"name": run.target_name, **run.target.to_json()},
            "started": run.started.isoformat(),
            "arguments": run.arguments,
            "patchconf": run.patchconf,
            "corpus": run.corpus,
            "judges": run.judges,
            "planned": planned,
            "load_errors": [_load_error_json(e) for e in run.load_errors],
        }
        self._write({"patchconf_results_log": FORMAT_VERSION, "run": header})

    def write(self, index: int, result: Result) -> None:
        # {"result": {"index": index, **result.to_json()}}, reusing the result's JSON text
        self._write_line(f'{{"result": {{"index": {index}, {result.json_text[1:]}}}\n')

    def end(self, seconds: float, interrupted: str | None, judges: list[dict] | None = None) -> None:
        """The end line; ``judges`` when the run took up judges after its header was written."""
        self._write({"end": {"seconds": round(seconds, 3), "interrupted": interrupted,
                             **({"judges": judges} if judges else {})}})
        os.close(self._fd)

    def _write(self, record: dict[str, Any]) -> None:
        self._write_line(json.dumps(record, ensure_ascii=False) + "\n")

    def _write_line(self, line: str) -> None:
        """The line on disk at once, and whole: by one os.write, which an interrupt cannot cut in two (Python
        runs signal handlers between bytecodes), and which writes all of it to a file but on a full disk or
        at a file size limit: only then is the rest written, with SIGINT and SIGTERM held."""
        data = line.encode("utf-8")
        written = os.write(self._fd, data)
        if written < len(data):
            with _signals_held():
                rest = memoryview(data)[written:]
                while rest:
                    rest = rest[os.write(self._fd, rest):]


def _load_error_json(error: LoadError) -> dict[str, Any]:
    return {"file": error.file, "case": error.case, "pointer": error.pointer, "line": error.line,
            "column": error.column, "message": error.message}


def read_log(path: Path) -> Run:
    """The run a results.jsonl records, its results in case order; raises ValueError if it is not one."""
    header: dict[str, Any] | None = None
    indexed: list[tuple[int, Result]] = []
    end: dict[str, Any] | None = None
    with open(path, encoding="utf-8", errors="replace") as stream:
        for number, line in enumerate(stream, start=1):
            try:
                record = json.loads(line)
            except ValueError:
                if line.endswith("\n"):
                    raise ValueError(f"{path}:{number}: not a JSON line") from None
                break  # the last line, cut short by a kill
            if number == 1:
                if not isinstance(record, dict) or record.get("patchconf_results_log") != FORMAT_VERSION:
                    raise ValueError(f"{path} is not a patchconf results log (version {FORMAT_VERSION})")
                header = record["run"]
            elif "result" in record:
                data = record["result"]
                indexed.append((data.get("index", len(indexed)), result_from_json(data)))
            elif "end" in record:
                end = record["end"]
    if header is None:
        raise ValueError(f"{path} is empty")
    target = header["target"]
    info = target_info_from_json(target)
    started = datetime.fromisoformat(header["started"])
    run = Run(
        target["name"], info, [result for _, result in sorted(indexed, key=lambda pair: pair[0])],
        [_load_error(e) for e in header["load_errors"]],
        started=started,
        # killed before its end line: as long as it ran until its last line was written
        seconds=end["seconds"] if end else max(0.0, path.stat().st_mtime - started.timestamp()),
        arguments=header.get("arguments", {}),
        planned=header.get("planned"),
        interrupted=end["interrupted"] if end else NOT_FINISHED,
        corpus=header.get("corpus") or {},
        patchconf=header.get("patchconf", ""),
        judges=(end or {}).get("judges") or header.get("judges") or [],
    )
    return run


def _load_error(data: dict[str, Any]) -> LoadError:
    return LoadError(data["file"], data["message"], data.get("case"), data.get("pointer", ""), data.get("line", 0),
                     data.get("column", 0))


def target_info_from_json(target: dict[str, Any]) -> TargetInfo:
    """A target's info as results.json / results.jsonl hold it (TargetInfo.to_json's inverse)."""
    return TargetInfo(
        family=target["family"], version=target["version"], patch_types=frozenset(target["patch_types"]),
        schemas=frozenset(target["schemas"]), profile=target["profile"], messages=target["messages"],
        description=target.get("description", ""), kubernetes_version=target.get("kubernetes_version", ""),
        category=target.get("category", LIBRARY),
        answers=frozenset(target.get("answers", ANSWERS)), renders=bool(target.get("renders", False)),
        modes=frozenset(target.get("modes", ())),
    )


def result_from_json(data: dict[str, Any]) -> Result:
    """A result as results.json / results.jsonl hold it, with a case carrying what reports show (a failure's
    inputs, options and schema too, as the result recorded them)."""
    case = Case(file=data["file"], name=data["name"], description=data.get("description", ""), type=data["type"],
                tags=tuple(data["tags"]), inputs=data.get("inputs") or {}, outcome=Outcome(), provenance=(),
                schema=SchemaRef.from_json(data.get("schema")), options=data.get("options") or {},
                aliases=tuple(data.get("former_ids", ())))
    return Result(case, data["status"], data.get("reason", ""), tuple(data.get("diff", ())),
                  data.get("expected", {}), data.get("actual", {}), data.get("judged_by", "case"),
                  data.get("seconds", 0.0), tuple(data.get("server_changes", ())), data.get("source", ""),
                  data.get("aspects") or {})


def results_json_parts(run: Run) -> Iterator[str]:
    """results.json: the run indented, each result on one line (Python's indenting encoder is ten
    times slower than its compact one, and a result per line reads and diffs well). In pieces, to be
    written one after another: joined, a corpus run's results are megabytes of fresh memory (two bytes
    a character once one result holds a character beyond Latin-1) filled only to be copied out again."""
    head = json.dumps(run.summary_json(), indent=2, ensure_ascii=False)
    if not run.results:
        yield f'{head[:-2]},\n  "results": []\n}}\n'
        return
    yield f'{head[:-2]},\n  "results": [\n    '
    separator = ""
    for result in run.results:
        yield separator
        yield result.json_text
        separator = ",\n    "
    yield "\n  ]\n}\n"


def read_run(path: Path) -> Run:
    """A run from a report directory, its results.jsonl, or a results.json; ValueError if none."""
    if path.is_dir():
        log = path / LOG_NAME
        path = log if log.is_file() else path / RESULTS_NAME
    if path.suffix == ".jsonl":
        return read_log(path)
    return read_results_json(path)


def read_results_json(path: Path) -> Run:
    """The run a results.json holds (:func:`results_json_parts`' inverse); ValueError if it holds none."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("patchconf_results") != 1:
        raise ValueError(f"{path} is not a patchconf results.json")
    target = data["target"]
    return Run(target["name"], target_info_from_json(target), [result_from_json(r) for r in data["results"]],
               [_load_error(e) for e in data.get("load_errors", ())],
               started=datetime.fromisoformat(data["started"]), seconds=data.get("seconds", 0.0),
               arguments=data.get("arguments", {}), planned=data.get("planned"),
               interrupted=data.get("interrupted"), corpus=data.get("corpus") or {},
               patchconf=data.get("patchconf", ""), judges=data.get("judges") or [])
