"""CONTRIBUTING.md, followed as written: its case file and its commands, on Kubernetes' own code.

The case file and the commands are read from the page itself, so the page cannot drift
from what works. Needs Go (the upstream judge is built from Kubernetes' modules); without
it the test skips, or fails under PATCHCONF_REQUIRE_LIVE=1 as CI sets it.
"""

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from patchconf.harness.controlplane.pytest_apiserver import live_required
from patchconf.harness.corpus.cases import Purpose, load_file
from patchconf.harness.targets.upstream import available as upstream_available

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "CONTRIBUTING.md"
EXAMPLE = "cases/strategic/env-vars.yaml"


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _case_file(page: str) -> str:
    return re.search(r"<!-- the case file -->\n```yaml\n(.*?)```", page, re.DOTALL).group(1)


def _commands(page: str) -> list[list[str]]:
    """Every `patchconf` command of the page's sh blocks that works on the example file, in order."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", page, re.DOTALL):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] == ["patchconf"] and EXAMPLE in words:
                commands.append(words)
    return commands


def test_the_page_states_the_three_commands_and_the_checks(tmp_path):
    page = _page()
    assert [words[1] for words in _commands(page)] == ["record", "verify", "validate"]
    assert re.search(r"^tox\b", page, re.MULTILINE)
    assert "cases/BEHAVIOURS.md" in page and "divergences" in page and "aliases" in page and ".ci/pr-check" in page
    assert "`references`" in page
    path = _corpus(tmp_path) / EXAMPLE
    path.parent.mkdir(parents=True)
    path.write_text(_case_file(page), encoding="utf-8")
    cases, errors = load_file(path, Purpose.RECORD)
    assert errors == [] and len(cases) == 2 and all(case.needs_expectation for case in cases)


def _corpus(root: Path) -> Path:
    (root / "cases").mkdir(parents=True, exist_ok=True)
    for name in ("case.schema.json", "BEHAVIOURS.md"):
        shutil.copy(REPO / "cases" / name, root / "cases" / name)
    return root


def _patchconf(words: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``patchconf ARGS`` as the page says, run from this checkout (the installed one may be another)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "patchconf.harness.cli", *words[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=3600)


def test_contributing_a_case_end_to_end(tmp_path):
    if not upstream_available():
        if live_required():
            pytest.fail("PATCHCONF_REQUIRE_LIVE is set, but neither Go nor the judges wheel is installed: "
                        "no upstream judge", pytrace=False)
        pytest.skip("neither Go nor the judges wheel: the upstream judge is built from Kubernetes' Go modules")
    page = _page()
    root = _corpus(tmp_path)
    # 1. write the question
    path = root / EXAMPLE
    path.parent.mkdir(parents=True)
    path.write_text(_case_file(page), encoding="utf-8")
    written = path.read_text()
    # 2. the page's commands, as written: record, then verify and validate
    outputs = {}
    for words in _commands(page):
        completed = _patchconf(words, root)
        outputs[words[1]] = completed.stdout
        assert completed.returncode == 0, f"{shlex.join(words)}:\n{completed.stdout}\n{completed.stderr}"

    # record filled both expectations from upstream, kept every line, and said what it wrote
    assert f"+++ b/{EXAMPLE}" in outputs["record"]
    assert "recorded 2 of 2 cases" in outputs["record"]
    text = path.read_text()
    matcher = difflib.SequenceMatcher(None, written.splitlines(), text.splitlines(), autojunk=False)
    assert {tag for tag, *_ in matcher.get_opcodes()} == {"equal", "insert"}  # lines added, none changed
    cases, errors = load_file(path)
    assert errors == []
    for case in cases:
        assert not case.needs_expectation
        assert any(p["implementation"] == "upstream" and p["version"] for p in case.provenance), case.provenance
    merged = cases[0].outcome.document["spec"]["containers"][0]["env"]
    assert sorted(var["name"] for var in merged) == ["LOG_LEVEL", "TZ"]
    assert cases[1].outcome.error.error_class == "merge-key-missing"
    # verify confirmed both, naming upstream and its version; validate passed
    assert re.search(rf"CONFIRMED {EXAMPLE}::add-env-var-to-container by upstream \d+\.\d+\.\d+", outputs["verify"])
    assert "2 of 2 cases confirmed, 0 contradictions" in outputs["verify"]
    assert "2 cases valid, 0 problems" in outputs["validate"]

    # A wrong expectation: verify fails and names the judge that contradicts it.
    inputs, expectation = text.split("    expected:\n", 1)
    path.write_text(inputs + "    expected:\n" + expectation.replace("value: UTC", "value: Europe/Paris", 1))
    completed = _patchconf(["patchconf", "verify", "--cases", EXAMPLE], root)
    assert completed.returncode == 1
    assert re.search(rf"CONTRADICTED {EXAMPLE}::add-env-var-to-container by upstream \d+\.\d+\.\d+: document ",
                     completed.stdout), completed.stdout
