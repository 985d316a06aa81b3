"""harness/targets/upstream.py: what an ``upstream@1.MINOR`` build adds to its go.mod."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

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
