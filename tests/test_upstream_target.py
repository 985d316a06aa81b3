"""harness/targets/upstream.py: what an ``upstream@1.MINOR`` build adds to its go.mod; the program's own Go tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from patchconf.harness.controlplane.gobuild import GO_ENV
from patchconf.harness.targets import upstream
from patchconf.harness.targets.base import TargetUnavailable

KUBERNETES_GO_MOD = """\
module k8s.io/kubernetes

go 1.22.0

require k8s.io/api v0.0.0

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/apimachinery => ./staging/src/k8s.io/apimachinery
)
"""


def test_a_release_build_requires_kubernetes_with_its_staging_modules_replaced(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    downloaded = tmp_path / "kubernetes.mod"
    downloaded.write_text(KUBERNETES_GO_MOD)
    commands: list[list[str]] = []

    def fake_run(command: list[str], cwd: Path) -> str:
        commands.append(command)
        return json.dumps({"GoMod": str(downloaded)}) if command[1:3] == ["mod", "download"] else ""

    monkeypatch.setattr(upstream, "run_build_step", fake_run)
    upstream.require_kubernetes("go", "v1.29.6", tmp_path)
    assert commands == [
        ["go", "mod", "download", "-json", "k8s.io/kubernetes@v1.29.6"],
        ["go", "mod", "edit", "-require=k8s.io/kubernetes@v1.29.6",
         "-replace=k8s.io/api=k8s.io/api@v0.29.6", "-replace=k8s.io/apimachinery=k8s.io/apimachinery@v0.29.6"],
    ]


def test_a_release_the_proxy_cannot_give_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upstream, "run_build_step", lambda command, cwd: json.dumps({"Error": "not found"}))
    with pytest.raises(TargetUnavailable, match=re.escape("k8s.io/kubernetes@v1.99.0: not found")):
        upstream.require_kubernetes("go", "v1.99.0", tmp_path)


@pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed: the upstream target tests itself in Go")
@pytest.mark.parametrize("build", ["full", "patch"])
def test_the_upstream_targets_go_tests_pass_in_both_builds(build: str) -> None:
    """targets/upstream's `go test`, with the flags its builds use (so the packages a build compiled
    are reused): every exchange answered exactly, SSA and decode in the full build, their absence in
    the patch build."""
    tags = ["-tags", upstream.PATCH_TAG] if build == "patch" else []
    done = subprocess.run(["go", "test", "-count=1", "-trimpath", *tags, "."], cwd=upstream.SOURCE_DIR,
                          env={**os.environ, **GO_ENV}, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert done.stdout.startswith("ok  \tpatchconf.dev/targets/upstream")
