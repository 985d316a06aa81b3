"""HTML for people: a run's ``report.html``, the conformance site of ``patchconf matrix --html``
and the matrix page beside ``--out``'s Markdown (:func:`matrix_page`).

Rendered from results, never recomputed. Every page is one self-contained file (its style and
its small filter script inline, no external resource), so it opens offline from ``file://``.
Case text is untrusted input: everything a result holds is escaped, and no data is ever put
inside the script.

A run's page puts its summary first (counts by patch type and by behaviour, coloured), then
every result, failures first with their differences, the case file and line, expected, actual
and the case's inputs (which a failure's result records); filters by type, behaviour, status
and text narrow the list. The site
(:func:`write_site`) is an index (the matrix by flow and by behaviour, pass rates per
implementation), one such page per implementation, and a badge per implementation: a
shields.io endpoint JSON and a flat SVG.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..running.runner import ERROR, FAIL, FAILING, PASS, SKIP, Result
from .report import difference_lines, failure_inputs, server_changes_lines, shown_json
from .severity import worst_departures

if TYPE_CHECKING:
    from ..corpus.cases import Case
    from .matrix import Change
    from .pitfalls import Pitfall
    from .report import Run

STATUSES = (PASS, FAIL, ERROR, SKIP)
BADGE_LABEL = "patchconf"
ROW_SEPARATOR = "\n"  # a row a line: committed pages diff readably


def esc(text: str) -> str:
    """``html.escape(text)``, quotes too, without importing :mod:`html` (and its table of every entity,
    some 2 ms) into each run that writes a report."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#x27;"))


# ---- numbers and colours ------------------------------------------------------------------------

def pass_percent(passed: int, ran: int) -> int:
    """The pass rate rounded, except that only all passing reads 100 and only none passing reads 0."""
    percent = round(100 * passed / ran)
    if percent == 100 and passed < ran:
        return 99
    if percent == 0 and passed > 0:
        return 1
    return percent


def _ran(counter: Mapping[str, int]) -> int:
    return sum(counter.get(status, 0) for status in (PASS, FAIL, ERROR))


# shields.io's named colours, best first, with the rate from which each is given
BADGE_COLOURS = ((100, "brightgreen", "#4c1"), (95, "green", "#97ca00"), (80, "yellowgreen", "#a4a61d"),
                 (60, "yellow", "#dfb317"), (40, "orange", "#fe7d37"), (0, "red", "#e05d44"))
NO_CASES_COLOUR = ("lightgrey", "#9f9f9f")


def _badge_colour(counter: Mapping[str, int]) -> tuple[str, str]:
    ran = _ran(counter)
    if not ran:
        return NO_CASES_COLOUR
    percent = pass_percent(counter.get(PASS, 0), ran)
    return next((name, hex_) for floor, name, hex_ in BADGE_COLOURS if percent >= floor)


def _rate_style(counter: Mapping[str, int]) -> str:
    """A cell's background: red at 0 %, through yellow, to green at 100 %."""
    ran = _ran(counter)
    if not ran:
        return ""
    share = counter.get(PASS, 0) / ran
    lightness = 78 if share == 1 else 86
    return f' style="background:hsl({round(120 * share ** 3)},62%,{lightness}%)"'  # cubed: 90 % is not green yet


def _rate_text(counter: Mapping[str, int]) -> str:
    ran = _ran(counter)
    return f"{pass_percent(counter.get(PASS, 0), ran)}%" if ran else "–"


# ---- badges --------------------------------------------------------------------------------------

def badge(counter: Mapping[str, int]) -> dict[str, Any]:
    """A shields.io endpoint badge (https://shields.io/badges/endpoint-badge) for a run's counts."""
    ran = _ran(counter)
    passed = counter.get(PASS, 0)
    message = f"{pass_percent(passed, ran)}% ({passed}/{ran})" if ran else "no cases run"
    return {"schemaVersion": 1, "label": BADGE_LABEL, "message": message, "color": _badge_colour(counter)[0]}


# Rough Verdana 11px widths, in pixels, of badge text; textLength fits the drawn text to them.
_NARROW = dict.fromkeys("ijlI.,:;!|' ", 3.5) | dict.fromkeys("frt()[]/-", 4.7)
_WIDE = dict.fromkeys("mwMW%@", 11.0)
DEFAULT_CHAR_WIDTH = 7.0


def _text_width(text: str) -> float:
    return sum(_NARROW.get(char, _WIDE.get(char, DEFAULT_CHAR_WIDTH)) for char in text)


def badge_svg(counter: Mapping[str, int]) -> str:
    """The same badge as a flat SVG, drawn here (no network): grey label, coloured message."""
    data = badge(counter)
    colour = _badge_colour(counter)[1]
    label, message = data["label"], data["message"]
    label_text, message_text = _text_width(label), _text_width(message)
    label_box, message_box = round(label_text + 10), round(message_text + 10)
    width = label_box + message_box
    title = esc(f"{label}: {message}")

    def text(content: str, middle: float, length: float) -> str:
        shadow = (f'<text x="{middle * 10:.0f}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" '
                  f'textLength="{length * 10:.0f}">{esc(content)}</text>')
        return shadow + (f'<text x="{middle * 10:.0f}" y="140" transform="scale(.1)" '
                         f'textLength="{length * 10:.0f}">{esc(content)}</text>')

    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
            f'aria-label="{title}"><title>{title}</title>'
            '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
            '<stop offset="1" stop-opacity=".1"/></linearGradient>'
            f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>'
            f'<g clip-path="url(#r)"><rect width="{label_box}" height="20" fill="#555"/>'
            f'<rect x="{label_box}" width="{message_box}" height="20" fill="{colour}"/>'
            f'<rect width="{width}" height="20" fill="url(#s)"/></g>'
            '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
            'text-rendering="geometricPrecision" font-size="110">'
            + text(label, label_box / 2, label_text) + text(message, label_box + message_box / 2, message_text)
            + "</g></svg>\n")


# ---- page frame ----------------------------------------------------------------------------------

STYLE = """
:root{--pass:#1a7f37;--fail:#cf222e;--error:#bc4c00;--skip:#6e7781;--line:#d0d7de;--soft:#f6f8fa}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;margin:0 auto;
 max-width:1500px;padding:.5em 1.5em 3em}
h1{font-size:1.55em;margin:.6em 0 .2em}h2{font-size:1.25em;margin:1.5em 0 .5em;border-bottom:1px solid var(--line)}
h4{margin:.5em 0 .1em;font-size:.95em}a{color:#0969da}nav{font-size:.9em;margin-top:.6em}
table{border-collapse:collapse;margin:.3em 0 1em}th,td{border:1px solid var(--line);padding:3px 7px;
 vertical-align:top;text-align:left;overflow-wrap:anywhere}th{background:var(--soft)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.25em 0;max-height:26em;overflow:auto;
 background:var(--soft);border:1px solid var(--line);border-radius:4px;padding:.35em .5em}
pre.diff{background:#fff8f8;border-color:#f5c2c7}
.chip{display:inline-block;border-radius:1em;padding:0 .55em;color:#fff;font-weight:600;font-size:12px}
.chip.pass{background:var(--pass)}.chip.fail{background:var(--fail)}.chip.error{background:var(--error)}
.chip.skip{background:var(--skip)}
.totals{display:flex;flex-wrap:wrap;gap:.4em 1.6em;align-items:baseline;margin:.6em 0}
.totals b{font-size:1.7em}.totals .pass b{color:var(--pass)}.totals .fail b{color:var(--fail)}
.totals .error b{color:var(--error)}.totals .skip b{color:var(--skip)}
.bar{display:flex;height:9px;min-width:8em;border-radius:5px;overflow:hidden;background:#eee}
.bar span{display:block}.bar .pass{background:var(--pass)}.bar .fail{background:var(--fail)}
.bar .error{background:var(--error)}
.note{background:#fff8c5;border:1px solid #d4a72c;padding:.4em .7em;border-radius:4px}
.tables{display:flex;flex-wrap:wrap;gap:0 2em;align-items:flex-start}
.filters{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);
 padding:.5em 0;display:flex;flex-wrap:wrap;gap:.4em 1.1em;align-items:center}
.filters input[type=search]{width:18em}.filters .count{color:#59636e}
table.results{table-layout:fixed;width:100%}
.results col.st{width:5.4em}.results col.case{width:27%}.results col.type{width:8.5em}.results col.tags{width:11em}
.desc{color:#59636e;font-size:.92em}
.expected-actual{display:grid;grid-template-columns:1fr 1fr;gap:.6em}
details>summary{cursor:pointer;color:#0969da}
table.matrix td.cell{text-align:center;min-width:3.4em;white-space:nowrap}
table.matrix td.cell a{color:inherit;text-decoration:none;display:block}
table.matrix td.none{color:#8c959f}
table.matrix thead th{vertical-align:bottom;width:7.5em;font-size:.9em;overflow-wrap:normal}
.scroll{max-height:32em;overflow:auto;display:inline-block;border-bottom:1px solid var(--line)}
.scroll table{margin:0}.notrun{color:#59636e;font-size:.92em;max-width:32em}
table.matrix small{color:#424a53}table.matrix tbody th{white-space:nowrap}
"""

SCRIPT = """
(function () {
  var form = document.getElementById('filters');
  if (!form) return;
  var rows = Array.prototype.slice.call(document.querySelectorAll('[data-filterable] .row'));
  var texts = new Map();
  function words(row, name) { return (row.getAttribute('data-' + name) || '').split(' '); }
  function textOf(row) {
    var text = texts.get(row);
    if (text === undefined) { text = row.textContent.toLowerCase(); texts.set(row, text); }
    return text;
  }
  function statusBoxes() { return Array.prototype.slice.call(form.querySelectorAll('input[name=status]')); }
  function apply() {
    var type = form.elements.type.value, tag = form.elements.tag.value;
    var text = form.elements.text.value.trim().toLowerCase();
    var statuses = statusBoxes().filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
    var shown = {}, total = {};
    rows.forEach(function (row) {
      var visible = (!type || words(row, 'type').indexOf(type) >= 0)
        && (!tag || words(row, 'tags').indexOf(tag) >= 0)
        && words(row, 'status').some(function (s) { return statuses.indexOf(s) >= 0; })
        && (!text || textOf(row).indexOf(text) >= 0);
      row.hidden = !visible;
      var list = row.closest('[data-filterable]').id;
      total[list] = (total[list] || 0) + 1;
      shown[list] = (shown[list] || 0) + (visible ? 1 : 0);
    });
    document.querySelectorAll('[data-count-for]').forEach(function (counter) {
      var list = counter.getAttribute('data-count-for');
      counter.textContent = (shown[list] || 0) + ' of ' + (total[list] || 0) + ' shown';
    });
  }
  function fromHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    form.elements.type.value = params.get('type') || '';
    form.elements.tag.value = params.get('tag') || '';
    form.elements.text.value = params.get('q') || '';
    var wanted = params.get('status');
    statusBoxes().forEach(function (b) {
      b.checked = wanted ? wanted.split(',').indexOf(b.value) >= 0 : b.defaultChecked;
    });
    apply();
  }
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('submit', function (event) { event.preventDefault(); });
  form.addEventListener('reset', function () { setTimeout(apply, 0); });
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
"""


def _page(title: str, body: str) -> str:
    return "".join(_page_parts(title, (body,)))


def _page_parts(title: str, body: Iterable[str]) -> Iterator[str]:
    yield (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
           f'<meta name="viewport" content="width=device-width, initial-scale=1">'
           f'<link rel="icon" href="data:,"><title>{esc(title)}</title><style>{STYLE}</style></head>\n<body>\n')
    yield from body
    yield f"\n<script>{SCRIPT}</script>\n</body></html>\n"


def _options(values: Iterable[str], everything: str) -> str:
    return f'<option value="">{esc(everything)}</option>' + "".join(
        f'<option value="{esc(value)}">{esc(value)}</option>' for value in values)


def _filter_bar(types: Iterable[str], tags: Iterable[str], counts: Mapping[str, int] | None = None,
                unchecked: Sequence[str] = (), count_for: Sequence[str] = ()) -> str:
    boxes = "".join(
        f'<label><input type="checkbox" name="status" value="{status}"{"" if status in unchecked else " checked"}>'
        f' <span class="chip {status}">{status}</span>{f" {counts.get(status, 0)}" if counts is not None else ""}'
        "</label>"
        for status in STATUSES)
    shown = "".join(f'<span class="count" data-count-for="{esc(name)}"></span>' for name in count_for)
    return (f'<form id="filters" class="filters" role="search">'
            f'<label>type <select name="type">{_options(types, "every type")}</select></label>'
            f'<label>behaviour <select name="tag">{_options(tags, "every behaviour")}</select></label>'
            f'<span>{boxes}</span>'
            f'<label>text <input type="search" name="text" placeholder="case, reason, value…"></label>'
            f'<button type="reset">show all</button>{shown}</form>')


def _attrs(types: Iterable[str], tags: Iterable[str], statuses: Iterable[str]) -> str:
    return (f' data-type="{esc(" ".join(types))}" data-tags="{esc(" ".join(tags))}"'
            f' data-status="{esc(" ".join(statuses))}"')


def _bar(counter: Mapping[str, int]) -> str:
    ran = _ran(counter)
    if not ran:
        return '<div class="bar" title="no case ran"></div>'
    parts = "".join(f'<span class="{status}" style="width:{100 * counter.get(status, 0) / ran:.2f}%"></span>'
                    for status in (PASS, FAIL, ERROR) if counter.get(status))
    title = ", ".join(f"{counter.get(status, 0)} {status}" for status in (PASS, FAIL, ERROR))
    return f'<div class="bar" title="{title}">{parts}</div>'


# ---- one run -------------------------------------------------------------------------------------

def _json_block(value: Any) -> str:
    return f"<pre>{esc(shown_json(value))}</pre>"


def _failure_detail(result: Result, with_inputs: bool) -> str:
    """A failure's differences, where its case is, and (folded) what was expected and what came with the
    case's inputs: the sections of report.failure_sections. ``with_inputs`` says a result without inputs
    was looked up in a corpus, and not found."""
    inputs = "".join(f"<h4>{esc(heading)}</h4><pre>{esc(text)}</pre>" for heading, text in failure_inputs(result))
    if not inputs and with_inputs:
        inputs = "<p>no such case in the corpus</p>"
    judged = f'<div class="desc">judged by: {esc(result.judged_by)}</div>' if result.judged_by != "case" else ""
    location = result.location
    source = f'<div class="desc">case file: <code>{esc(location)}</code></div>' if location else ""
    return (f'<pre class="diff">{esc(chr(10).join(difference_lines(result)))}</pre>{judged}{source}'
            f"<details><summary>expected, actual{' and inputs' if inputs else ''}</summary>"
            f'<div class="expected-actual"><div><h4>expected</h4>{_json_block(result.expected)}</div>'
            f"<div><h4>actual</h4>{_json_block(result.actual)}</div></div>"
            f"{inputs}</details>")


def _other_detail(result: Result) -> str:
    if result.status == SKIP:
        return esc(result.reason)
    if result.server_changes:  # a pass on an object the server changed: said, not shown as a failure
        return f"<pre>{esc(chr(10).join(server_changes_lines(result)))}</pre>"
    if result.judged_by != "case":
        return f'<span class="desc">{esc(result.judged_by)}</span>'
    return ""


def _result_rows(results: Iterable[Result], with_inputs: bool) -> list[str]:
    """A row per result (status, case, type, behaviours and detail), each but the last followed by the
    separator. The markup around a row's case depends only on its status, type and behaviours, which most
    rows share: it is escaped once per combination."""
    before_case: dict[tuple[str, str, tuple[str, ...]], str] = {}
    after_case: dict[tuple[str, tuple[str, ...]], str] = {}
    rows = []
    for result in results:
        case, status = result.case, result.status
        kind, tags = case.type, case.tags
        head = before_case.get((status, kind, tags))
        if head is None:
            head = before_case[status, kind, tags] = (
                f'<tr class="row"{_attrs((kind,), tags, (status,))}>'
                f'<td><span class="chip {esc(status)}">{esc(status)}</span></td><td><code>')
        tail = after_case.get((kind, tags))
        if tail is None:
            tail = after_case[kind, tags] = f"</div></td><td>{esc(kind)}</td><td>{esc(' '.join(tags))}</td><td>"
        detail = _failure_detail(result, with_inputs) if status in FAILING else _other_detail(result)
        rows.append(f'{head}{esc(case.id)}</code><div class="desc">{esc(case.description)}{tail}{detail}</td></tr>')
        rows.append(ROW_SEPARATOR)
    return rows[:-1]


def _counts_table(key: str, rows: Mapping[str, Counter]) -> str:
    """Counts per type or behaviour that ran, worst pass rate first (links filter the results); then
    what only skipped."""
    ran = {value: counter for value, counter in rows.items() if _ran(counter)}
    worst_first = sorted(ran, key=lambda value: (ran[value][PASS] / _ran(ran[value]), value))
    head = "".join(f'<th class="num">{status}</th>' for status in STATUSES)
    body = "".join(
        f'<tr><td><a href="#{key}={quote(value, safe="")}">{esc(value)}</a></td>'
        + "".join(f'<td class="num">{ran[value].get(status, 0)}</td>' for status in STATUSES)
        + f'<td class="num"{_rate_style(ran[value])}>{_rate_text(ran[value])}</td></tr>'
        for value in worst_first)
    label = "type" if key == "type" else "behaviour"
    skipped = [f"{esc(value)} ({counter.get(SKIP, 0)})" for value, counter in rows.items() if value not in ran]
    table = (f'<div class="scroll"><table><thead><tr><th>{label}</th>{head}<th class="num">rate</th></tr></thead>'
             f"<tbody>{body}</tbody></table></div>") if ran else f"<p>No {label} ran.</p>"
    not_run = f'<p class="notrun">Only skipped: {", ".join(skipped)}</p>' if skipped else ""
    return f"<div>{table}{not_run}</div>"


def _totals(counter: Mapping[str, int]) -> str:
    numbers = "".join(f'<span class="{status}"><b>{counter.get(status, 0)}</b> {status}</span>'
                      for status in STATUSES)
    ran = _ran(counter)
    rate = f"<span><b>{_rate_text(counter)}</b> of {ran} run passed</span>" if ran else ""
    return f'<div class="totals">{rate}{numbers}</div>{_bar(counter)}'


def run_body(run: Run, heading: str, nav: str = "", badge_src: str = "", with_inputs: bool = False) -> str:
    """A run's page content: summary, then every result (failures first) under the filters.

    Each failure shows its inputs, which its result records; ``with_inputs`` says that results
    recorded without them (older ones) were matched with a corpus (:func:`with_inputs`).
    """
    return "".join(_run_body_parts(run, heading, nav, badge_src, with_inputs))


def _run_body_parts(run: Run, heading: str, nav: str, badge_src: str, with_inputs: bool) -> list[str]:
    """:func:`run_body` in pieces, a row a piece: a file is written from them without joining them first."""
    tally = run.tally()
    counts, by_type, by_tag = tally.counts, tally.by_type, tally.by_tag
    notes = ""
    if run.interrupted:
        notes += f'<p class="note"><strong>{esc(run.stopped_early())}</strong></p>'
    if run.load_errors:
        notes += ('<p class="note">Files that could not be loaded:</p><ul>'
                  + "".join(f"<li><code>{esc(str(e))}</code></li>" for e in run.load_errors) + "</ul>")
    skipped = Counter(r.reason for r in run.results if r.status == SKIP)
    skips = ""
    if skipped:
        skips = ("<details><summary>why cases were skipped</summary><table><tr><th class='num'>cases</th>"
                 "<th>reason</th></tr>" + "".join(f'<tr><td class="num">{n}</td><td>{esc(reason)}</td></tr>'
                                                 for reason, n in skipped.most_common()) + "</table></details>")
    ordered = sorted(run.results, key=lambda r: r.status not in FAILING)  # stable: case order within each
    badge_img = f' <img src="{esc(badge_src)}" alt="badge" style="vertical-align:middle">' if badge_src else ""
    target = run.target
    implementation = f"{target.family} {target.version}"
    if target.description and not target.description.startswith(implementation):
        implementation += f", {target.description}"
    started = run.started.isoformat(timespec="seconds")
    summary = (f"{nav}<h1>{esc(heading)}{badge_img}</h1>"
              f"<p><code>{esc(run.target_name)}</code>: {esc(implementation)}; judged by the "
              f"<strong>{esc(target.profile)}</strong> profile. Started {esc(started)}"
              f", {run.seconds:.1f}s.</p>{notes}{_totals(counts)}{_worst_departures(run)}"
              f'<h2>Summary</h2><div class="tables">{_counts_table("type", by_type)}'
              f'{_counts_table("tag", by_tag)}</div>{skips}'
              "<h2>Results: failures first</h2>"
              + ("" if counts.get(FAIL) or counts.get(ERROR) else "<p>No failures: every case that ran matched.</p>")
              + _filter_bar(by_type, by_tag, counts, unchecked=(SKIP,) if counts.get(SKIP) else (),
                            count_for=("results",))
              + '<table class="results" id="results" data-filterable><colgroup><col class="st"><col class="case">'
              '<col class="type"><col class="tags"><col></colgroup>'
              "<thead><tr><th>status</th><th>case</th><th>type</th><th>behaviours</th><th>detail</th></tr></thead>"
              "<tbody>")
    return [summary, *_result_rows(ordered, with_inputs), "</tbody></table>"]


def _worst_departures(run: Run) -> str:
    """The page's lead: its failures by severity, worst first, one example each (linked to its row)."""
    found = worst_departures(run.results)
    if not found:
        return ""
    rows = "".join(
        f'<tr><td>{esc(level)}</td><td class="num">{count}</td>'
        f'<td><a href="#q={quote(example.case.id, safe="")}"><code>{esc(example.case.id)}</code></a></td>'
        f"<td>{esc(where)}</td></tr>" for level, count, example, where in found)
    return ("<h2>Worst departures</h2><p>Each failure's severity is its worst difference from Kubernetes' "
            "answer: security, data loss, drift, cosmetic.</p><table><tr><th>severity</th>"
            f'<th class="num">cases</th><th>example</th><th>the difference</th></tr>{rows}</table>')


def run_page(run: Run) -> str:
    """A run's report.html."""
    return "".join(run_page_parts(run))


def run_page_parts(run: Run) -> Iterator[str]:
    """:func:`run_page` in pieces, to be written one after another."""
    body = _run_body_parts(run, f"patchconf report: {run.target_name}", "", "", False)
    return _page_parts(f"patchconf: {run.target_name}", body)


# ---- the site ------------------------------------------------------------------------------------

def slug(label: str) -> str:
    """A file name for a column label: peer:kustomize-kyaml -> peer-kustomize-kyaml."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-.") or "target"


def with_inputs(runs: Sequence[Run], cases: Iterable[Case]) -> list[Run]:
    """Runs read back from results (which do not record inputs) with each case's inputs from the corpus,
    matched by id or a former id; everything else stays as the results recorded it."""
    by_id: dict[str, Case] = {}
    for case in cases:
        for case_id in (case.id, *case.former_ids):
            by_id.setdefault(case_id, case)
    filled = []
    for run in runs:
        results = []
        for result in run.results:
            source = by_id.get(result.case.id)
            if source is not None and not result.case.inputs:
                # nondeterministic too: the matrix compares such a case's runs by status alone
                result = replace(result, case=replace(result.case, inputs=source.inputs,
                                                      nondeterministic=source.nondeterministic))
            results.append(result)
        filled.append(replace(run, results=results))
    return filled


def _matrix_table(list_id: str, key: str, labels: Sequence[str], pages: Sequence[str] | None,
                  tables: Sequence[Mapping[str, Counter]], row_types: Mapping[str, Iterable[str]]) -> str:
    """Pass rates, a row per value of ``key`` and a column per run; with ``pages``, each header and
    cell links to its implementation's page (its failures for that value)."""
    values = sorted({value for table in tables for value in table})
    if pages is None:
        head = "".join(f"<th>{esc(label).replace(':', ':<wbr>')}</th>" for label in labels)
    else:
        head = "".join(f'<th><a href="{esc(page)}">{esc(label).replace(":", ":<wbr>")}</a></th>'
                       for label, page in zip(labels, pages, strict=True))
    body = []
    for value in values:
        statuses = sorted({s for table in tables for s, n in table.get(value, Counter()).items() if n})
        tags = (value,) if key == "tag" else ()
        cells = []
        for index, table in enumerate(tables):
            counter = table.get(value, Counter())
            ran = _ran(counter)
            if not ran:
                cells.append('<td class="cell none">–</td>')
                continue
            rate = f"{_rate_text(counter)}<br><small>{counter.get(PASS, 0)}/{ran}</small>"
            if pages is not None:
                failing = counter.get(FAIL, 0) + counter.get(ERROR, 0)
                fragment = f"#{key}={quote(value, safe='')}" + ("&status=fail,error" if failing else "")
                rate = f'<a href="{esc(pages[index] + fragment)}">{rate}</a>'
            cells.append(f'<td class="cell"{_rate_style(counter)} title="{counter.get(PASS, 0)} of {ran} passed">'
                         f"{rate}</td>")
        body.append(f'<tr class="row"{_attrs(row_types.get(value, ()), tags, statuses)}><th>{esc(value)}</th>'
                    + "".join(cells) + "</tr>")
    name = "patch type" if key == "type" else "behaviour"
    return (f'<p class="count" data-count-for="{list_id}"></p>'
            f'<table class="matrix" id="{list_id}" data-filterable><thead><tr><th>{name}</th>{head}</tr></thead>'
            f"<tbody>{ROW_SEPARATOR.join(body)}</tbody></table>")


def _changes_table(changed: Sequence[Change], page_of: Mapping[str, str] | None, list_id: str = "changes") -> str:
    """The changed cases, each with its runs of equal answers (linked to the pages in ``page_of``)."""
    from .matrix import describe

    rows = []
    for case_id, segments in changed:
        case = segments[0][2].case
        statuses = sorted({result.status for _, _, result in segments})
        answers = "<br>".join(
            (esc(first) if page_of is None else
             f'<a href="{esc(page_of[first] + "#q=" + quote(case_id, safe=""))}">{esc(first)}</a>')
            + ("" if first == last else f" … {esc(last)}") + f": {esc(describe(result))}"
            for first, last, result in segments)
        rows.append(f'<tr class="row"{_attrs((case.type,), case.tags, statuses)}><td><code>{esc(case_id)}</code>'
                    f'<div class="desc">{esc(case.description)}</div></td><td>{answers}</td></tr>')
    return (f'<table class="results" id="{list_id}" data-filterable><colgroup><col style="width:35%"><col></colgroup>'
            "<thead><tr><th>case</th><th>answers, in column order</th></tr></thead>"
            f"<tbody>{ROW_SEPARATOR.join(rows)}</tbody></table>")


def index_page(runs: Sequence[Run], title: str, command: str = "", pitfall_count: int = 0) -> str:
    """The site's front page; ``pitfall_count``: the reports pitfalls.html lists (0: no such page)."""
    # imported here: a run's own report (run_page) needs nothing of the matrix, nor its imports
    from .matrix import column_labels

    pages = [f"implementations/{slug(label)}.html" for label in column_labels(runs)]
    return _page(title, _matrix_body(runs, title, command, pages, pitfall_count=pitfall_count))


def matrix_page(runs: Sequence[Run], title: str = "Compliance matrix", command: str = "",
                fuzzed: Mapping[str, str] | None = None, history: bool = False, notes: str = "") -> str:
    """The matrix on one page of its own (``patchconf matrix --out``'s .html twin): the site's front
    page without the pages it links to, with ``notes``, the fuzzing column (``fuzzed``: agreement
    by target name), for a ``history`` the changes per library, and every failure's reason."""
    from .matrix import portable

    return _page(title, _matrix_body(runs, title, portable(command), None, fuzzed=fuzzed, history=history,
                                     notes=notes))


def _matrix_body(runs: Sequence[Run], title: str, command: str, pages: Sequence[str] | None,
                 pitfall_count: int = 0, fuzzed: Mapping[str, str] | None = None, history: bool = False,
                 notes: str = "") -> str:
    """The matrix: with ``pages`` (the site's) linked to them; without, a page that stands alone, which
    names no directory of this machine and lists the failures itself."""
    from .matrix import FUZZ_COLUMN, GROUP_TITLES, column_labels, matrix_groups, portable

    labels = column_labels(runs)
    page_of = dict(zip(labels, pages, strict=True)) if pages is not None else None

    def summary_row(label: str, run: Run) -> str:
        if page_of is None:
            name = f"<td>{esc(label)}</td><td><code>{esc(portable(run.target_name))}</code></td>"
        else:
            name = (f'<td><a href="{esc(page_of[label])}">{esc(label)}</a></td><td><img '
                    f'src="badges/{esc(slug(label))}.svg" alt="{esc(badge(run.counts())["message"])}"></td>'
                    f"<td><code>{esc(run.target_name)}</code></td>")
        return (f"<tr>{name}<td>{esc(run.target.family)} {esc(run.target.version)}</td>"
                f"<td>{esc(run.target.profile)}</td>"
                + "".join(f'<td class="num">{run.counts().get(status, 0)}</td>' for status in STATUSES)
                + f"<td>{_bar(run.counts())}</td>"
                + (f"<td>{esc(fuzzed.get(run.target_name, '–'))}</td>" if fuzzed else "") + "</tr>")

    groups = matrix_groups(labels, runs)
    head = ("<table><tr><th>implementation</th>" + ("" if page_of is None else "<th>badge</th>")
            + "<th>target</th><th>version</th><th>profile</th>"
            + "".join(f'<th class="num">{s}</th>' for s in STATUSES) + "<th>rate</th>"
            + (f"<th>{esc(FUZZ_COLUMN)}</th>" if fuzzed else "") + "</tr>")
    implementations = "".join(
        (f"<h3>{esc(GROUP_TITLES[category])}</h3>" if len(groups) > 1 else "") + head
        + "".join(summary_row(label, run) for label, run in members) + "</table>"
        for category, members in groups)
    by_type = [run.counts_by("type") for run in runs]
    by_tag = [run.counts_by("tag") for run in runs]
    tag_types: dict[str, set[str]] = {}
    for run in runs:
        for result in run.results:
            for tag in result.case.tags:
                tag_types.setdefault(tag, set()).add(result.case.type)
    types = sorted({t for table in by_type for t in table})
    tags = sorted(tag_types)
    produced = (f"<details><summary>Produced by <code>patchconf matrix</code> from the runs' results; "
                f"the command</summary><pre>{esc(command)}</pre></details>" if command else
                "<p>Produced by <code>patchconf matrix</code> from the runs' results.</p>")
    body = (f"<h1>{esc(title)}</h1>{produced}" + (f"<pre>{esc(notes)}</pre>" if notes else "")
            + "<p>Pass rates count the cases a target ran; a target skips what it declares it cannot do "
            "(<code>–</code>: it ran none)." + (" Each cell links to that implementation's failures." if pages else "")
            + "</p>"
            + (f'<p><a href="pitfalls.html">Reported pitfalls</a>: the {pitfall_count} public reports the cases '
               "answer, what Kubernetes does, and which columns get them wrong.</p>" if pitfall_count else "")
            + "<h2>Implementations</h2>" + implementations + _departures_tables(runs, labels, page_of)
            + _filter_bar(types, tags)
            + "<h2>By flow (patch type)</h2>"
            + _matrix_table("by-type", "type", labels, pages, by_type, {t: (t,) for t in types})
            + "<h2>By behaviour</h2>"
            + _matrix_table("by-tag", "tag", labels, pages, by_tag, {t: sorted(v) for t, v in tag_types.items()})
            + (_release_changes(runs) if history else _target_changes(runs, labels, page_of)))
    if page_of is None:
        body += _failures_by_target(runs, labels)
    return body


def _target_changes(runs: Sequence[Run], labels: Sequence[str], page_of: Mapping[str, str] | None) -> str:
    from .matrix import changes

    if len(runs) < 2:
        return ""
    return ("<h2>Changed between targets</h2><p>Cases whose answer (status, or exact result) differs between "
            "the targets that ran them; each line names the targets, in column order, that answered alike. "
            '<span class="count" data-count-for="changes"></span></p>'
            + _changes_table(changes(runs, labels), page_of))


def _release_changes(runs: Sequence[Run]) -> str:
    from .matrix import release_changes

    out = ("<h2>Changed between releases</h2><p>Per library, in column order: the cases whose answer (status, or "
           "exact result) differs between its releases; each line names the releases that answered alike.</p>")
    for family, releases, changed in release_changes(runs):
        list_id = f"changes-{slug(family)}"
        out += (f"<h3>{esc(family)}: {esc(' → '.join(run.target.version for run in releases))}</h3>"
                + (f'<p class="count" data-count-for="{list_id}"></p>' + _changes_table(changed, None, list_id)
                   if changed else "<p>No case changed.</p>"))
    return out


def _failures_by_target(runs: Sequence[Run], labels: Sequence[str]) -> str:
    out = ""
    for label, run in zip(labels, runs, strict=True):
        failures = [result for result in run.results if result.status in FAILING]
        if failures:
            out += (f"<h3>{esc(label)}: {len(failures)}</h3><table>"
                    + "".join(f"<tr><td><code>{esc(r.case.id)}</code></td><td>{esc(_shorten(r.reason, 200))}</td></tr>"
                              for r in failures) + "</table>")
    return f"<h2>Failures by target</h2>{out}" if out else ""


def _departures_tables(runs: Sequence[Run], labels: Sequence[str], page_of: Mapping[str, str] | None) -> str:
    """The matrix's severity counts and its apply aspects (matrix.severity_markdown, apply_aspects_markdown)."""
    from ..running.apply_aspects import ANNOTATION, ANNOTATION_TEXT, OBJECT, REQUEST
    from .matrix import APPLY_ASPECTS_NOTE, aspect_cell, next_apply
    from .severity import SEVERITIES, severity_counts

    def link(label: str) -> str:
        return esc(label) if page_of is None else f'<a href="{esc(page_of[label])}">{esc(label)}</a>'

    severity_rows, aspect_rows, departing = [], [], False
    for label, run in zip(labels, runs, strict=True):
        counts = severity_counts(run.results)
        departing = departing or any(counts.values())
        severity_rows.append(f"<tr><td>{link(label)}</td>"
                             + "".join(f'<td class="num">{counts[level]}</td>' for level in SEVERITIES) + "</tr>")
        judged = [result.aspects for result in run.results if result.case.type == "apply" and result.aspects]
        if judged:
            aspect_rows.append(f'<tr><td>{link(label)}</td><td class="num">{len(judged)}</td>'
                               + "".join(f'<td class="num">{aspect_cell(judged, aspect)}</td>'
                                         for aspect in (OBJECT, REQUEST, ANNOTATION, ANNOTATION_TEXT))
                               + f"<td>{esc(next_apply(judged))}</td></tr>")
    out = ""
    if departing:
        out += ("<h2>Departures by severity</h2><p>Each failed case once, by its worst difference from Kubernetes' "
                "answer, decided from the difference itself.</p><table><tr><th>implementation</th>"
                + "".join(f'<th class="num">{esc(level)}</th>' for level in SEVERITIES) + "</tr>"
                + "".join(severity_rows) + "</table>")
    if aspect_rows:
        note = APPLY_ASPECTS_NOTE.replace("*", "").replace("`", "")
        out += (f"<h2>Client-side apply, judged apart</h2><p>{esc(note)}</p>"
                '<table><tr><th>implementation</th><th class="num">apply answers</th><th class="num">object</th>'
                '<th class="num">request</th><th class="num">annotation content</th>'
                '<th class="num">annotation text</th><th>next kubectl apply</th></tr>'
                + "".join(aspect_rows) + "</table>")
    return out


# ---- the pitfalls page --------------------------------------------------------------------------

def pitfalls_page(pitfalls: Sequence[Pitfall], runs: Sequence[Run], title: str, case_base: str = "") -> str:
    """pitfalls.html: per reported problem, each case answering it with its inputs, what Kubernetes does
    (and at which releases otherwise), and each column's status for it, a failure with its reason.
    ``case_base``: a URL prefix for case files (none: the case is named, not linked)."""
    from .matrix import column_labels
    from .pitfalls import answer_text, releases_text, wrong_targets

    labels = column_labels(runs) if runs else []
    pages = {label: f"implementations/{slug(label)}.html" for label in labels}
    sections = []
    for pitfall in pitfalls:
        parts = [f'<section class="pitfall" id="{esc(slug(pitfall.label))}"><h2><a href="{esc(pitfall.url)}">'
                 f"{esc(pitfall.label)}</a></h2>"]
        for case in pitfall.cases:
            name = (f'<a href="{esc(case_base + case.file)}"><code>{esc(case.id)}</code></a>' if case_base
                    else f"<code>{esc(case.id)}</code>")
            expected = case.outcome.to_json()
            parts.append(
                f"<h3>{name}</h3><p>{esc(case.description)}</p>"
                f"<p><b>What Kubernetes does</b>: {esc(answer_text(case))}</p>"
                f"<p><b>Releases</b>: {esc(releases_text(case))}</p>"
                f"<p><b>Wrong in the matrix</b>: {esc(wrong_targets(case, runs, labels))}</p>"
                f"<details><summary>inputs and expectation, from the case file</summary>"
                f'<div class="expected-actual"><div><h4>inputs</h4>{_json_block(dict(case.inputs))}</div>'
                f"<div><h4>expected</h4>{_json_block(expected)}</div></div></details>"
                + _pitfall_results(case, runs, labels, pages))
        parts.append("</section>")
        sections.append("".join(parts))
    count = len({case.id for pitfall in pitfalls for case in pitfall.cases})
    body = (f'<nav><a href="index.html">← {esc(title)}</a></nav><h1>Reported pitfalls</h1>'
            f"<p>Every public issue or pull request a case answers: {len(pitfalls)} reports, {count} cases. "
            "What Kubernetes does is the case's expectation, at the releases its provenance names; a release "
            "that answers otherwise is given with its answer and why.</p>" + ROW_SEPARATOR.join(sections))
    return _page(f"Reported pitfalls: {title}", body)


def _pitfall_results(case: Case, runs: Sequence[Run], labels: Sequence[str], pages: Mapping[str, str]) -> str:
    ids = {case.id, *case.former_ids}
    rows = []
    for label, run in zip(labels, runs, strict=True):
        result = next((r for r in run.results if r.case.id in ids), None)
        if result is None:
            continue
        why = esc(_shorten(result.reason)) if result.status != PASS else ""
        rows.append(f'<tr><td><a href="{esc(pages[label] + "#q=" + quote(case.id, safe=""))}">{esc(label)}</a></td>'
                    f'<td><span class="chip {esc(result.status)}">{esc(result.status)}</span></td><td>{why}</td></tr>')
    if not rows:
        return ""
    return "<table><tr><th>column</th><th>status</th><th>why</th></tr>" + "".join(rows) + "</table>"


def _shorten(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_site(runs: Sequence[Run], directory: Path, title: str = "Compliance matrix",
               command: str = "", pitfalls: Sequence[Pitfall] = (), case_base: str = "") -> list[Path]:
    """index.html, implementations/<label>.html and badges/<label>.json|.svg under ``directory``; with
    ``pitfalls``, pitfalls.html too, linked from the index."""
    from .matrix import column_labels

    labels = column_labels(runs)
    (directory / "implementations").mkdir(parents=True, exist_ok=True)
    (directory / "badges").mkdir(exist_ok=True)
    written = []

    def write(relative: str, text: str) -> None:
        path = directory / relative
        path.write_text(text, encoding="utf-8")
        written.append(path)

    write("index.html", index_page(runs, title, command, len(pitfalls)))
    if pitfalls:
        write("pitfalls.html", pitfalls_page(pitfalls, runs, title, case_base))
    for label, run in zip(labels, runs, strict=True):
        name = slug(label)
        nav = f'<nav><a href="../index.html">← {esc(title)}</a></nav>'
        write(f"implementations/{name}.html",
              _page(f"{label}: {title}", run_body(run, label, nav, f"../badges/{name}.svg", with_inputs=True)))
        write(f"badges/{name}.json", json.dumps(badge(run.counts()), indent=2) + "\n")
        write(f"badges/{name}.svg", badge_svg(run.counts()))
    return written
