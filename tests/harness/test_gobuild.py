"""Go builds (harness/controlplane/gobuild.py): what a first-use build says while it runs, one build at a time."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from patchconf.harness.cli import main
from patchconf.harness.controlplane import gobuild
from patchconf.harness.targets import peer, upstream
from tests.fixtures.fake_go import install_fake_go

# Stands in for `go`: notes each call, and a `build` takes a moment, then writes its -o file.
FAKE_GO = """#!{python}
import os, sys, time
with open(os.environ["GO_CALLS"], "a") as calls:
    calls.write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[1] == "build":
    time.sleep(0.35)
    out = sys.argv[sys.argv.index("-o") + 1]
    with open(out, "w") as binary:
        binary.write("#!/bin/sh\\nexit 3\\n")
    os.chmod(out, 0o755)
if sys.argv[1:4] == ["version", "-m", "-json"]:  # what the manifest written beside a build reads
    print('{{"GoVersion": "go1.26.8", "Settings": [{{"Key": "GOOS", "Value": "linux"}}]}}')
"""


@pytest.fixture
def fake_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    calls = install_fake_go(FAKE_GO.format(python=sys.executable), tmp_path, monkeypatch)
    monkeypatch.setattr(gobuild, "PROGRESS_EVERY", 0.1)
    return calls


def test_a_first_use_build_says_what_it_builds_its_go_step_and_time(fake_go: Path, capsys) -> None:
    binary = upstream.build()
    what = "the upstream target (Kubernetes' Go patch code, pinned release)"
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == [
        f"patchconf: building {what} for first use (the first build takes minutes; cached in {binary.parent} "
        "afterwards)",
        f"patchconf: {what}: go build"]
    assert lines[-1] == f"patchconf: built {what} in 0s"
    stills = lines[2:-1]
    assert stills and set(stills) == {f"patchconf: {what}: still in `go build` after 0s (0s in all)"}
    assert binary.is_file()
    assert upstream.build() == binary  # cached: nothing more to say
    assert capsys.readouterr().err == ""


def test_a_peer_build_says_so_too(fake_go: Path, capsys) -> None:
    binary = peer.build("kustomize-kyaml")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == ("patchconf: building the Go peer kustomize-kyaml for first use (the first build takes "
                        f"minutes; cached in {binary.parent} afterwards)")
    assert lines[1] == "patchconf: the Go peer kustomize-kyaml: go build"
    assert lines[-1] == "patchconf: built the Go peer kustomize-kyaml in 0s"


def test_two_builds_of_one_binary_at_once_build_it_once(fake_go: Path, capsys) -> None:
    built: list[Path] = []
    threads = [threading.Thread(target=lambda: built.append(upstream.build())) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(built) == 2 and built[0] == built[1]
    assert fake_go.read_text().count("build -trimpath") == 1
    err = capsys.readouterr().err
    assert err.count("patchconf: waiting for another process's build of the upstream target") == 1


def test_a_quiet_run_says_nothing_of_its_build(fake_go: Path, tmp_path: Path, capsys) -> None:
    code = main(["run", "--target", "upstream", "--quiet", "--report", str(tmp_path / "report")])
    err = capsys.readouterr().err
    assert fake_go.read_text().count("build -trimpath") == 1  # it was built, in silence
    assert "patchconf: building" not in err and "still in" not in err and "patchconf: built" not in err
    assert code == 2


@pytest.mark.parametrize(("command", "step"), [
    (["/usr/local/go/bin/go", "build", "-trimpath", "-o", "x", "."], "go build"),
    (["go", "mod", "tidy", "-e"], "go mod tidy"),
    (["go", "mod", "download", "-json", "k8s.io/kubernetes@v1.33.13"], "go mod download"),
    (["go", "get", "sigs.k8s.io/kustomize/kyaml@v0.18.1"], "go get"),
])
def test_a_step_is_named_as_go_names_it(command: list[str], step: str) -> None:
    assert gobuild.step_name(command) == step


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0s"), (59.9, "59s"), (60, "1m00s"), (295.2, "4m55s")])
def test_elapsed_time_reads_as_minutes_and_seconds(seconds: float, text: str) -> None:
    assert gobuild.elapsed(seconds) == text


def test_a_quiet_run_hears_nothing_of_its_local_control_plane_but_its_failures(capsys) -> None:
    from patchconf.harness.targets import live_local

    live_local._say("kube-apiserver v1.33.13 ready at https://127.0.0.1:1 after 9s")
    assert capsys.readouterr().err == "patchconf live@: kube-apiserver v1.33.13 ready at https://127.0.0.1:1 after 9s\n"
    with gobuild.progress_to(None):
        live_local._say("kube-apiserver v1.33.13 ready at https://127.0.0.1:1 after 9s")
        live_local._say("could not stop etcd (pid 7)", always=True)
    assert capsys.readouterr().err == "patchconf live@: could not stop etcd (pid 7)\n"
