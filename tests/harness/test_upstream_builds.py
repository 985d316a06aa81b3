"""The upstream target's two builds (harness/targets/upstream.py): the patch build answers at once,
the full build comes only when a server-side-apply case needs it, and each run names both."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from patchconf.harness import default_cases_dir
from patchconf.harness.controlplane import judges
from patchconf.harness.corpus.cases import load_corpus
from patchconf.harness.targets import upstream
from patchconf.harness.targets.base import TargetCrash
from patchconf.harness.targets.upstream import UpstreamTarget
from tests.fixtures.fake_go import install_fake_go

# The program a fake `go build` writes: it serves the patch types of its build (the patch build,
# -tags patchconf_patch, leaves server-side-apply out) and answers each case with which build it is.
PROGRAM = """#!@PYTHON@
import json, sys
BUILD = "@BUILD@"
types = ["json-patch", "strategic"] + ([] if BUILD == "patch" else ["server-side-apply"])
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "stop":
        break
    if request["cmd"] == "start":
        answer = {"ready": True, "protocol": 1,
                  "implementation": {"name": "upstream", "version": "1.32.4", "language": "go"},
                  "capabilities": {"patch_types": types, "schemas": ["builtin", "named", "none"],
                                   "profile": "kubernetes", "messages": True}}
    else:
        answer = {"seq": request["seq"], "result": {"document": {"build": BUILD}}}
    print(json.dumps(answer), flush=True)
"""
FAKE_GO = """#!@PYTHON@
import json, os, sys
with open(os.environ["GO_CALLS"], "a") as calls:
    calls.write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[1] == "build":
    if "patchconf_patch" not in sys.argv and os.environ.get("FULL_BUILD_SLEEPS"):
        import time
        time.sleep(float(os.environ["FULL_BUILD_SLEEPS"]))
    if "patchconf_patch" not in sys.argv and os.environ.get("FULL_BUILD_FAILS"):
        print("k8s.io/kubernetes/pkg/apis/core: out of memory", file=sys.stderr)
        sys.exit(1)
    out = sys.argv[sys.argv.index("-o") + 1]
    open(out, "w").write(PROGRAM.replace("@BUILD@", "patch" if "patchconf_patch" in sys.argv else "full"))
    os.chmod(out, 0o755)
elif sys.argv[1:4] == ["version", "-m", "-json"]:
    print(json.dumps({"GoVersion": "go1.26.8", "Settings": [{"Key": "GOOS", "Value": "linux"}]}))
"""
@pytest.fixture
def go_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    program = PROGRAM.replace("@PYTHON@", sys.executable)
    calls = install_fake_go(FAKE_GO.replace("@PYTHON@", sys.executable).replace(
        "import json, os, sys\n", f"import json, os, sys\nPROGRAM = {program!r}\n", 1), tmp_path, monkeypatch)
    judges.forget()
    yield calls
    judges.forget()


@pytest.fixture(scope="module")
def cases() -> dict:
    """A strategic and a server-side-apply case of the corpus (the fake programs answer any case)."""
    chosen = {}
    for case in load_corpus([default_cases_dir()]).cases:
        if case.type in ("strategic", "server-side-apply") and not case.targets:
            chosen.setdefault(case.type, case)
    return chosen


def builds(calls: Path) -> list[str]:
    """Which builds `go build` made, in order."""
    return ["patch" if "patchconf_patch" in line else "full"
            for line in calls.read_text().splitlines() if line.startswith("build ")]


def test_the_patch_build_answers_first_and_the_full_build_comes_with_the_first_server_side_apply(
        go_calls: Path, cases: dict, capsys) -> None:
    target = UpstreamTarget()
    try:
        assert builds(go_calls) == ["patch"]
        assert target.info.patch_types == frozenset({"json-patch", "strategic", "server-side-apply"})
        assert target.skip_reason(cases["server-side-apply"]) is None
        assert target.run(cases["strategic"]).document == {"build": "patch"}
        assert builds(go_calls) == ["patch"]
        assert target.run(cases["server-side-apply"]).document == {"build": "full"}
        assert target.run(cases["server-side-apply"]).document == {"build": "full"}
        assert target.run(cases["strategic"]).document == {"build": "patch"}
        assert builds(go_calls) == ["patch", "full"]
    finally:
        target.close()
    assert [(judge["name"], judge["source"]) for judge in judges.used()] == [
        ("upstream-patch", "local build"), ("upstream", "local build")]
    err = capsys.readouterr().err
    assert ("patchconf: building the upstream target's patch build (JSON Patch, merge patch, strategic and "
            "client-side apply; pinned release) for first use") in err
    assert "patchconf: building the upstream target (Kubernetes' Go patch code, pinned release) for first use" in err


def test_a_full_build_in_the_cache_serves_everything_and_nothing_is_built(go_calls: Path, cases: dict) -> None:
    upstream.build()
    assert builds(go_calls) == ["full"]
    judges.forget()
    target = UpstreamTarget()
    try:
        assert target.run(cases["strategic"]).document == {"build": "full"}
        assert target.run(cases["server-side-apply"]).document == {"build": "full"}
    finally:
        target.close()
    assert builds(go_calls) == ["full"]
    assert [judge["name"] for judge in judges.used()] == ["upstream"]


def test_a_full_build_that_fails_fails_its_cases_and_not_the_others(
        go_calls: Path, cases: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FULL_BUILD_FAILS", "1")
    target = UpstreamTarget()
    try:
        for _ in range(2):  # built once: the failure is kept, not tried again per case
            with pytest.raises(TargetCrash, match=r"(?s)the full upstream build, which server-side apply needs, is "
                                                  r"unavailable: .*go build .*k8s.io/kubernetes/pkg/apis/core: out"):
                target.run(cases["server-side-apply"])
        assert target.run(cases["strategic"]).document == {"build": "patch"}
    finally:
        target.close()
    assert builds(go_calls) == ["patch", "full"]


def test_closing_the_target_stops_a_full_build_a_worker_waits_for(
        go_calls: Path, cases: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FULL_BUILD_SLEEPS", "60")
    target = UpstreamTarget()
    outcome: list[BaseException] = []

    def worker() -> None:
        try:
            target.run(cases["server-side-apply"])
        except BaseException as exc:  # what the worker got is the test's to check
            outcome.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    deadline = time.monotonic() + 20
    while builds(go_calls) != ["patch", "full"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert builds(go_calls) == ["patch", "full"]  # the full build runs in the worker
    began = time.monotonic()
    target.close()
    thread.join(timeout=20)
    assert not thread.is_alive() and time.monotonic() - began < 10  # not the build's 60 s
    assert len(outcome) == 1 and isinstance(outcome[0], TargetCrash)
    assert str(outcome[0]) == "the target was closed: the run is ending"


def test_the_patch_build_is_built_with_its_tag_apart_from_the_full_one(go_calls: Path) -> None:
    patch, full = upstream.build(scope=upstream.PATCH), upstream.build()
    assert patch.parent.name == f"pinned-{upstream.source_digest()}-patch"
    assert full.parent.name == f"pinned-{upstream.source_digest()}"
    assert [line.split(" -o ")[0] for line in go_calls.read_text().splitlines() if line.startswith("build ")] == [
        "build -trimpath -tags patchconf_patch -ldflags -s -w", "build -trimpath -ldflags -s -w"]
    manifest = json.loads((patch.parent / "upstream.manifest.json").read_text())
    assert (manifest["name"], manifest["tags"]) == ("upstream-patch", ["patchconf_patch"])
    assert upstream.build_tags("1.28", upstream.PATCH) == [
        "patchconf_patch", "patchconf_pre131", "patchconf_pre130", "patchconf_pre129"]
