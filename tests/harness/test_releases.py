"""The two default releases say what the pinned sources say (reference_impl/releases.py)."""

from __future__ import annotations

import re
from pathlib import Path

from patchconf.harness.controlplane.apiserver import pinned_version
from patchconf.reference_impl.releases import CORPUS_RELEASE, LIVE_RELEASE
from patchconf.reference_impl.ssa import schema
from patchconf.reference_impl.strategic import patchmeta

ROOT = Path(__file__).resolve().parents[2]


def test_the_corpus_release_is_the_one_upstream_pins_its_modules_to():
    go_mod = (ROOT / "targets" / "upstream" / "go.mod").read_text(encoding="utf-8")
    (pinned,) = re.findall(r"^\s*k8s\.io/apimachinery v0\.([0-9]+)\.", go_mod, re.MULTILINE)
    assert f"1.{pinned}" == CORPUS_RELEASE
    assert CORPUS_RELEASE in patchmeta.available_versions()


def test_the_live_release_is_the_control_planes_and_its_models_are_bundled():
    assert pinned_version().startswith(f"v{LIVE_RELEASE}.")
    assert LIVE_RELEASE in schema.available_versions()
