from patchconf.harness.corpus.cases import load_file
from patchconf.harness.reporting.matrix import column_labels, matrix_markdown
from patchconf.harness.reporting.report import Run
from patchconf.harness.reporting.site import matrix_page
from patchconf.harness.running.runner import run_cases
from patchconf.harness.targets.base import Actual
from tests.harness.corpus_snippets import NEGATIVE, PLAIN, case_file

CASES = case_file(PLAIN + NEGATIVE + """\
  profiles:
    rfc: {expected_error: {class: invalid-index}, reason: RFC 6902 4.1}
""")


def test_matrix_shows_rates_per_behaviour_and_cells_per_case(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    good = scripted({"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})},
                    family="good")
    strict = scripted({"plain": Actual(document={"a": 1, "b": 2}),
                       "negative": Actual(document={"a": [1, 2]})}, family="strict", profile="rfc")
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in (good, strict)]
    text = matrix_markdown(runs)
    assert "| JP-ADD | 100% (1/1) | 100% (1/1) |" in text
    assert "| JP-K8S | 100% (1/1) | 0% (0/1) |" in text
    assert "m.yaml::negative` | ✓ | ✗ |" in text
    changed = text.split("## Changed between targets")[1].split("## Failures by target")[0]
    assert "1 case(s) got a different answer" in changed and "m.yaml::plain" not in changed
    failures = text.split("## Failures by target")[1].split("## Every case")[0]
    assert "### good: none" in failures
    assert "| `cases/json-patch/m.yaml::negative` | expected error 'invalid-index', got success" in failures
    assert ('<th>JP-K8S</th><td class="cell" style="background:hsl(120,62%,78%)" title="1 of 1 passed">100%<br>'
            '<small>1/1</small></td><td class="cell" style="background:hsl(0,62%,86%)" title="0 of 1 passed">0%<br>'
            "<small>0/1</small></td>") in matrix_page(runs)
    assert "fuzzed" not in text


def test_matrix_gives_fuzzed_agreement_beside_the_pass_rate(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    good = scripted({"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})},
                    family="good")
    other = scripted({"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})},
                     family="other")
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in (good, other)]
    fuzzed = {good.name: "99.5% (1990/2000)"}
    text = matrix_markdown(runs, fuzzed=fuzzed)
    assert "| column | target | implementation | profile | pass | fail | error | skip | fuzzed: agree with upstream |" \
        in text
    assert text.count(" | 2 | 0 | 0 | 0 | 99.5% (1990/2000) |") == 1
    assert text.count(" | 2 | 0 | 0 | 0 | – |") == 1
    assert "*fuzzed: agree with upstream*: the inputs `patchconf fuzz --seed 1` generates" in text
    assert "<th>fuzzed: agree with upstream</th>" in matrix_page(runs, fuzzed=fuzzed)
    assert "<td>99.5% (1990/2000)</td>" in matrix_page(runs, fuzzed=fuzzed)


def test_command_targets_are_labelled_by_their_implementation(scripted):
    first = scripted({}, family="python-jsonpatch")
    second = scripted({}, family="python-jsonpatch")
    runs = [Run("cmd:python a.py", first.info, []), Run("cmd:python a.py --strict", second.info, []),
            Run("upstream@1.27", first.info, [])]
    assert column_labels(runs) == ["python-jsonpatch #1", "python-jsonpatch #2", "upstream@1.27"]


def test_matrix_lists_the_cases_whose_answer_changed_between_targets(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    right = {"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})}
    wrong = {"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [2, 1]})}
    targets = [scripted(answers, family=f"upstream@1.{minor}")
               for minor, answers in ((27, wrong), (28, wrong), (29, right), (30, right))]
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in targets]
    text = matrix_markdown(runs, title="History", command="patchconf matrix --targets x")
    assert text.startswith("# History\n")
    assert "regenerate with `patchconf matrix --targets x`." in text
    assert "1 case(s) got a different answer" in text
    assert ("| `cases/json-patch/m.yaml::negative` | `upstream@1.27` … `upstream@1.28`: ✗ document /a/0: "
            "expected 1, got 2; document /a/1: expected 2, got 1<br>`upstream@1.29` … `upstream@1.30`: "
            "✓ as the case expects |") in text
    assert "m.yaml::plain` | `" not in text  # the same answer everywhere is no change
    assert "<h2>Changed between targets</h2>" in matrix_page(runs)


def test_notes_naming_each_servers_release_are_no_change(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    targets = [scripted({"plain": Actual(document={"a": 1, "b": 2}, notes=(f"kube-apiserver v1.{minor}.0",)),
                         "negative": Actual(document={"a": [1, 2]}, notes=(f"kube-apiserver v1.{minor}.0",))},
                        family="live", version=f"v1.{minor}.0") for minor in (32, 33)]
    runs = [Run(f"live@1.{minor}", t.info, run_cases(cases, t)) for minor, t in zip((32, 33), targets, strict=True)]
    assert "0 case(s) got a different answer" in matrix_markdown(runs)


def _steps(namespace: str, conflicts: list, entries: list, error_class: str = "conflict") -> Actual:
    return Actual(document={"steps": [
        {"document": {"a": 1}, "managed_fields": entries, "changed": True},
        {"error": {"class": error_class, "message": f"Apply failed ({namespace}/web)", "conflicts": conflicts},
         "unchanged": True}]})


def test_server_side_apply_steps_compare_as_the_runner_judges_them(write_case_file, scripted):
    from patchconf.harness.reporting.matrix import changes

    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    alice = {"field": ".spec.mode", "manager": "alice"}
    bob = {"field": ".spec.z", "manager": "bob"}
    gitops = {"manager": "gitops", "operation": "Apply", "time": None}
    main = {"manager": "main", "operation": "Update", "time": None}
    answers = {
        "first": _steps("patchconf-r1", [alice, bob], [gitops, main]),
        # another run's namespace, managers in another map order: the same answer
        "same": _steps("patchconf-r2", [bob, alice], [main, gitops]),
        "other-class": _steps("patchconf-r3", [alice, bob], [gitops, main], error_class="invalid-patch"),
        "other-owner": _steps("patchconf-r4", [alice], [gitops, main]),
    }
    runs = [Run(label, t.info, run_cases(cases[:1], t))
            for label, t in ((label, scripted({"plain": answer}, family="live")) for label, answer in answers.items())]
    [(case_id, segments)] = changes(runs)
    assert case_id == "cases/json-patch/m.yaml::plain"
    assert [(first, last) for first, last, _ in segments] == [
        ("first", "same"), ("other-class", "other-class"), ("other-owner", "other-owner")]


def test_two_answers_that_read_alike_say_where_they_differ(write_case_file):
    from patchconf.harness.reporting.matrix import change_texts
    from patchconf.harness.running.runner import PASS, Result

    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    case = cases[0]
    old = {"document": {"spec": {"template": {"metadata": {"creationTimestamp": None}}, "a/b": 1}, "list": [1, 2]}}
    new = {"document": {"spec": {"template": {"metadata": {}}, "a/b": 2}, "list": [1, 3]}}
    segments = [("live@1.33", "live@1.33", Result(case, PASS, actual={**old, "notes": ["kube-apiserver v1.33.13"]})),
                ("live@1.34", "live@1.34", Result(case, PASS, actual={**new, "notes": ["kube-apiserver v1.34.4"]})),
                ("live@1.35", "live@1.35", Result(case, PASS, judged_by="divergence: older releases", actual=old))]
    assert change_texts(segments) == [
        "✓ as the case expects",
        "✓ as the case expects; the answer differs at /document/list/1, /document/spec/a~1b, "
        "/document/spec/template/metadata/creationTimestamp",
        "✓ declared divergence: older releases",
    ]


def test_a_single_target_has_no_changes_section(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    target = scripted({"plain": Actual(document={"a": 1}), "negative": Actual(document={"a": [1, 2]})})
    text = matrix_markdown([Run(target.name, target.info, run_cases(cases, target))])
    assert "Changed between targets" not in text


DIVERGENT = """
    defaults:
      type: json-patch
      tags: [JP-ADD]
      provenance: [{implementation: upstream, version: "1.32.4"}]
    cases:
      - name: old-releases-differ
        description: older releases keep the member
        original: {a: 1}
        patch: [{op: remove, path: /a}]
        expected: {}
        divergences:
          - {target: upstream, versions: "<1.29", expected: {a: 1}, reason: fixed in 1.29}
"""


def test_a_change_the_case_declares_says_so(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/d.yaml", DIVERGENT))
    old = scripted({"old-releases-differ": Actual(document={"a": 1})}, family="upstream", version="1.28.8")
    new = scripted({"old-releases-differ": Actual(document={})}, family="upstream", version="1.29.1")
    runs = [Run(name, t.info, run_cases(cases, t)) for name, t in (("upstream@1.28", old), ("upstream@1.29", new))]
    assert ("| `cases/json-patch/d.yaml::old-releases-differ` | `upstream@1.28`: ✓ declared divergence: fixed in 1.29"
            "<br>`upstream@1.29`: ✓ as the case expects |") in matrix_markdown(runs)


def test_one_library_at_two_releases_is_labelled_by_its_version(scripted):
    from dataclasses import replace

    older = scripted({}, family="python-jsonpatch")
    newer_info = replace(older.info, version="1.47")
    runs = [Run("cmd:/old/python a.py", replace(older.info, version="1.33"), []),
            Run("cmd:/new/python a.py", newer_info, [])]
    assert column_labels(runs) == ["python-jsonpatch 1.33", "python-jsonpatch 1.47"]


def test_a_peer_release_must_be_a_module_version():
    import pytest

    from patchconf.harness.targets import TargetUnavailable
    from patchconf.harness.targets.peer import build

    with pytest.raises(TargetUnavailable, match=r"give a module version such as v1\.2\.3"):
        build("kustomize-kyaml", "latest; rm -rf /")


def test_history_says_per_library_which_cases_changed_between_its_releases(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    right = {"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})}
    older = {"plain": Actual(document={"a": 1, "b": 3}), "negative": Actual(document={"a": [2, 1]})}
    newer = {"plain": Actual(document={"a": 1, "b": 4}), "negative": Actual(document={"a": [1, 2]})}
    answers = [("lib-a", "1.0", older),
               ("lib-b", "3.0", right),
               ("lib-a", "2.0", newer),
               ("lib-b", "4.0", right),
               ("lib-c", "5.0", {"plain": Actual(document={}), "negative": Actual(document={})})]
    runs = [Run(f"cmd:{family} {version}", scripted(table, family=family, version=version).info,
                run_cases(cases, scripted(table, family=family, version=version)))
            for family, version, table in answers]
    notes = "## Not at two releases\n\n- lib-d: no older release <installable>"
    text = matrix_markdown(runs, history=True, notes=notes)
    assert "not counted in pass rates; `–`: the target ran none.\n\n" + notes + "\n\n| column |" in text
    assert "## Changed between targets" not in text  # libraries are not compared with each other
    section = text.split("## Changed between releases\n")[1].split("\n## Failures by target")[0]
    assert section == """
Per library, in column order: the cases whose status changed between its releases (`✗ → ✓`: failed at the older, \
passes at the newer), those whose exact answer changed with the same status, and each one's answers, the columns \
that answered alike together. Cases a release skipped are not compared.

### lib-a: 1.0 → 2.0

Status changed (1): `cases/json-patch/m.yaml::negative` ✗ → ✓.

Same status, another answer (1): `cases/json-patch/m.yaml::plain`.

| case | answers |
|---|---|
| `cases/json-patch/m.yaml::plain` | `lib-a 1.0`: ✗ document /b: expected 2, got 3\
<br>`lib-a 2.0`: ✗ document /b: expected 2, got 4 |
| `cases/json-patch/m.yaml::negative` | `lib-a 1.0`: ✗ document /a/0: expected 1, got 2; \
document /a/1: expected 2, got 1<br>`lib-a 2.0`: ✓ as the case expects |

### lib-b: 3.0 → 4.0

No case changed.
"""
    page = matrix_page(runs, history=True, notes=notes)
    assert ("<pre>## Not at two releases\n\n- lib-d: no older release &lt;installable&gt;</pre>"
            "<p>Pass rates") in page
    assert "<h2>Changed between targets</h2>" not in page
    assert ('<h3>lib-a: 1.0 → 2.0</h3><p class="count" data-count-for="changes-lib-a"></p>'
            '<table class="results" id="changes-lib-a" data-filterable>') in page
    lib_a = page.split("<h3>lib-a: 1.0 → 2.0</h3>")[1].split("<h3>")[0]
    assert [row.split("</code>")[0] for row in lib_a.split("<td><code>")[1:]] == [
        "cases/json-patch/m.yaml::plain", "cases/json-patch/m.yaml::negative"]
    assert "lib-a 1.0: ✗ document /b: expected 2, got 3<br>lib-a 2.0: ✗ document /b: expected 2, got 4" in lib_a
    assert "<h3>lib-b: 3.0 → 4.0</h3><p>No case changed.</p>" in page
    assert "lib-c" not in section and "<h3>lib-c: 5.0" not in page  # one release: no history


def _runs(cases, scripted, *columns):
    return [Run(name, t.info, run_cases(cases, t))
            for name, t in ((name, scripted(answers, family=family, version=version))
                            for name, family, version, answers in columns)]


RIGHT = {"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})}
WRONG = {"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [2, 1]})}


def test_the_summary_keeps_the_tables_and_says_where_the_per_case_detail_is(write_case_file, scripted):
    from patchconf.harness.reporting.matrix import matrix_summary_markdown

    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    runs = _runs(cases, scripted, ("good", "good", "1.0", RIGHT), ("poor", "poor", "2.0", WRONG))
    summary = matrix_summary_markdown(runs, "M", "patchconf matrix --summary m.md --out d/m.md --html d",
                                      detail_at=["d/m.md", "d/"], published="on the pages")
    full = matrix_markdown(runs, "M", "patchconf matrix --summary m.md --out d/m.md --html d")
    assert summary == """\
# M

Produced by `patchconf matrix`; regenerate with `patchconf matrix --summary m.md --out d/m.md --html d`. \
Skipped cases (a target declares what it can run) are not counted in pass rates; `–`: the target ran none.

The per-case detail (every failure with its reason, every case's status by target) is not on this page: \
the command above writes it to `d/m.md` and `d/`, published on the pages.

| column | target | implementation | profile | pass | fail | error | skip |
|---|---|---|---|---:|---:|---:|---:|
| good | `good` | good 1.0 | kubernetes | 2 | 0 | 0 | 0 |
| poor | `poor` | poor 2.0 | kubernetes | 1 | 1 | 0 | 0 |

## Departures by severity

Each failed case counted once, by its worst difference from Kubernetes' answer, decided from the difference \
itself: *security* (access widened or closed: NetworkPolicy rules, RBAC, a Service's exposure, pod security), \
*data loss* (an element or field someone owns removed), *drift* (what should go stays, what should change does \
not), *cosmetic* (order, the annotation's text, a default spelled out). Errors (no answer) are not departures.

| column | security | data loss | drift | cosmetic |
|---|---:|---:|---:|---:|
| good | 0 | 0 | 0 | 0 |
| poor | 0 | 0 | 0 | 1 |

## Pass rate by behaviour

| behaviour | good | poor |
|---|---|---|
| JP-ADD | 100% (1/1) | 100% (1/1) |
| JP-K8S | 100% (1/1) | 0% (0/1) |

## Changed between targets

1 case(s) got a different answer (status or exact result) from different targets: listed in the per-case detail.
"""
    # the summary is the whole page's beginning, less the line naming where the rest went
    head = summary.split("## Changed between targets")[0].replace(
        "The per-case detail (every failure with its reason, every case's status by target) is not on this page: "
        "the command above writes it to `d/m.md` and `d/`, published on the pages.\n\n", "")
    assert full.startswith(head)
    assert "m.yaml::negative" in full and "m.yaml::negative" not in summary


def test_a_summary_of_one_implementations_releases_lists_what_changed(write_case_file, scripted):
    from patchconf.harness.reporting.matrix import matrix_summary_markdown

    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    runs = _runs(cases, scripted, ("upstream@1.27", "upstream", "1.27.4", WRONG),
                 ("upstream@1.28", "upstream", "1.28.8", RIGHT))
    summary = matrix_summary_markdown(runs, "History")
    assert "is not on this page; `patchconf matrix --out FILE` or `--html DIR` writes it.\n" in summary
    assert summary.endswith("\n## Changed between targets\n\n1 case(s) got a different answer (status or exact "
                            "result) from different targets; each line gives the targets, in column order, that "
                            "answered alike.\n\n| case | answers |\n|---|---|\n"
                            "| `cases/json-patch/m.yaml::negative` | `upstream@1.27`: ✗ document /a/0: expected 1, "
                            "got 2; document /a/1: expected 2, got 1<br>`upstream@1.28`: ✓ as the case expects |\n")
    assert "## Failures by target" not in summary and "## Every case" not in summary
    history = matrix_summary_markdown(runs, "History", history=True)
    assert history.split("## Changed between releases")[1] == matrix_markdown(runs, "History", history=True).split(
        "## Changed between releases")[1].split("\n## Failures by target")[0].rstrip("\n") + "\n"


def test_matrix_summary_option_writes_the_summary_beside_the_detail_and_the_site(write_case_file, tmp_path, capsys,
                                                                                  monkeypatch):
    from patchconf.harness.cli import main

    monkeypatch.chdir(tmp_path)

    path = write_case_file("json-patch/m.yaml", CASES)
    summary, detail, site = tmp_path / "reports" / "m.md", tmp_path / "build" / "m.md", tmp_path / "build"
    assert main(["matrix", "--targets", "reference", "--cases", str(path), "--summary", str(summary),
                 "--out", str(detail), "--html", str(site)]) == 0
    assert capsys.readouterr().out.endswith(
        f"matrix: {detail}, {detail.with_suffix('.html')}, {site / 'index.html'}, {summary}\n")
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["m.md"]  # no .html twin of a summary
    text = summary.read_text()
    # named from the working directory, as in the regenerate command: no path of this machine's
    assert "the command above writes it to `build/m.md` and `build/`." in text
    assert str(tmp_path) not in text
    assert "## Every case" not in text and "## Every case" in detail.read_text()
    assert (site / "implementations" / "reference.html").is_file() and (site / "badges" / "reference.json").is_file()
    assert main(["matrix", "--targets", "reference", "--cases", str(path), "--summary", str(tmp_path / "s.md")]) == 0
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["m.md"]  # --summary alone: no whole matrix


def test_the_summary_groups_kubernetes_tools_and_libraries_and_links_each_tools_page(write_case_file, scripted):
    from dataclasses import replace

    from patchconf.harness.reporting.matrix import matrix_summary_markdown
    from patchconf.harness.targets.base import KUBERNETES, TOOL

    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    answers = {"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]})}
    kube, tool, library = (scripted(answers, family=family) for family in ("kube", "helmish", "libby"))
    kube.info, tool.info = replace(kube.info, category=KUBERNETES), replace(tool.info, category=TOOL)
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in (library, tool, kube)]
    text = matrix_summary_markdown(runs, tool_pages={"helmish": "tools/helmish.md"})
    kubernetes = text.index("### Kubernetes, and patchconf's reference judged by it")
    tools = text.index("### Tools users' objects pass through")
    libraries = text.index("### Libraries")
    assert kubernetes < text.index("| kube ", kubernetes) < tools < text.index("[helmish ", tools) < libraries
    assert f"[helmish {tool.info.version}](tools/helmish.md)" in text
    assert text.index("| libby ", libraries) > libraries
    one_group = matrix_summary_markdown(runs[:1])
    assert "### Libraries" not in one_group and "| libby " in one_group


def test_the_summary_names_targets_without_this_machines_directories(write_case_file, scripted, tmp_path,
                                                                    monkeypatch):
    """A tox environment's interpreter, a Go peer in the cache, a kubectl in the home directory: the
    committed page names each as it would be named on any machine."""
    from patchconf.harness.reporting.matrix import matrix_summary_markdown

    home = tmp_path / "home"
    checkout, cache = home / "patchconf", home / "caches" / "pc"
    checkout.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATCHCONF_CACHE", str(cache))
    monkeypatch.chdir(checkout)
    cases, _ = load_file(write_case_file("json-patch/m.yaml", CASES))
    tox_python = f"cmd:{checkout}/.tox/peer-history/bin/python adapters/python-openshift/adapter.py"
    cached = f"cmd:{cache}/peers/flux-ssa-0123/flux-ssa --strict"
    kubectl = f"kubectl:{home}/bin/kubectl"
    runs = _runs(cases, scripted, (tox_python, "python-openshift", "0.13.2", RIGHT),
                 (cached, "flux-ssa", "0.78.0", RIGHT), (kubectl, "kubectl", "1.33.4", RIGHT))
    command = f"patchconf matrix --summary {checkout}/reports/m.md --targets '{tox_python},{cached},{kubectl}'"
    summary = matrix_summary_markdown(runs, "M", command, detail_at=[f"{checkout}/build/m.md"])
    assert summary.split("\n## Pass rate by behaviour")[0] == """\
# M

Produced by `patchconf matrix`; regenerate with `patchconf matrix --summary reports/m.md --targets \
'cmd:.tox/peer-history/bin/python adapters/python-openshift/adapter.py,\
cmd:~/.cache/patchconf/peers/flux-ssa-0123/flux-ssa --strict,kubectl:~/bin/kubectl'`. \
Skipped cases (a target declares what it can run) are not counted in pass rates; `–`: the target ran none.

The per-case detail (every failure with its reason, every case's status by target) is not on this page: \
the command above writes it to `build/m.md`.

| column | target | implementation | profile | pass | fail | error | skip |
|---|---|---|---|---:|---:|---:|---:|
| python-openshift | `cmd:.tox/peer-history/bin/python adapters/python-openshift/adapter.py` | python-openshift 0.13.2 \
| kubernetes | 2 | 0 | 0 | 0 |
| flux-ssa | `cmd:~/.cache/patchconf/peers/flux-ssa-0123/flux-ssa --strict` | flux-ssa 0.78.0 | kubernetes \
| 2 | 0 | 0 | 0 |
| kubectl:~/bin/kubectl | `kubectl:~/bin/kubectl` | kubectl 1.33.4 | kubernetes | 2 | 0 | 0 | 0 |
"""
    assert "<td><code>cmd:.tox/peer-history/bin/python adapters/python-openshift/adapter.py</code></td>" \
        in matrix_page(runs, "M", command)
    assert str(tmp_path) not in matrix_page(runs, "M", command)


def test_only_whole_directories_are_rewritten(tmp_path, monkeypatch):
    from patchconf.harness.reporting.matrix import portable

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    assert portable(f"cmd:{tmp_path}x/python {tmp_path}/a.py --out={tmp_path} /usr/bin/{tmp_path.name}") == \
        f"cmd:{tmp_path}x/python a.py --out=. /usr/bin/{tmp_path.name}"
