"""``live@RELEASE`` specs and release resolution, without building or starting anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchconf.harness.controlplane import apiserver
from patchconf.harness.targets import TargetUnavailable, make_target
from patchconf.harness.targets.live_local import release_of

LISTING = ("k8s.io/kubernetes v1.29.6 v1.30.4 v1.30.14 v1.31.0 v1.31.14 v1.32.2 v1.32.13 v1.33.6 v1.33.13 "
           "v1.34.0 v1.34.2 v1.34.3 v1.34.4 v1.35.4 v1.36.1 v1.36.3 v1.37.2\n")


@pytest.mark.parametrize(("spec", "release"), [
    ("live@1.30", "1.30"), ("live@1.30.14", "1.30.14"), ("live@v1.37", "v1.37"),
])
def test_a_live_spec_names_a_release(spec: str, release: str) -> None:
    assert release_of(spec) == release


@pytest.mark.parametrize("spec", ["live@", "live@latest", "live@1", "live@1.30.x", "live@2.0", "live@1.30:ctx"])
def test_a_live_spec_without_a_release_is_refused_before_anything_is_built(spec: str) -> None:
    with pytest.raises(TargetUnavailable, match=r"give a Kubernetes release after live@, such as live@1\.30"):
        make_target(spec)


def test_a_context_spec_is_still_the_plain_live_target(monkeypatch: pytest.MonkeyPatch) -> None:
    import patchconf.harness.targets.live as live

    made = []
    monkeypatch.setattr(live, "LiveTarget", lambda *args, **kwargs: made.append((args, kwargs)) or "plain live")
    assert make_target("live:kind-kind", kubeconfig="/tmp/k") == "plain live"
    assert made == [(("kind-kind",), {"kubeconfig": "/tmp/k", "namespace": None})]


@pytest.mark.parametrize(("requested", "resolved"), [
    ("1.29", "v1.29.6"), ("1.30", "v1.30.14"), ("1.34", "v1.34.4"), ("v1.37", "v1.37.2"),
])
def test_a_minor_resolves_to_its_newest_published_patch_numerically(requested: str, resolved: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []

    def listing(arguments: list[str], cwd: Path, timeout: float = 0) -> str:
        asked.append(arguments)
        return LISTING

    monkeypatch.setattr(apiserver, "_run_go", listing)
    assert apiserver.resolve_version(requested) == resolved
    assert asked == [["list", "-m", "-versions", "k8s.io/kubernetes"]]


@pytest.mark.parametrize(("version", "tags"), [
    ("v1.29.6", ["providerless"]), ("1.29", ["providerless"]), ("v1.30.14", []), ("v1.33.13", []), ("1.37", []),
])
def test_only_releases_with_unserved_legacy_cloud_providers_build_providerless(version: str, tags: list) -> None:
    assert apiserver.build_tags(version) == tags


def test_a_minor_with_no_published_release_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(apiserver, "_run_go", lambda arguments, cwd, timeout=0: LISTING)
    with pytest.raises(apiserver.ControlPlaneError, match=r"^no published k8s.io/kubernetes release for "
                                                          r"Kubernetes 1\.38$"):
        apiserver.resolve_version("1.38")


def test_without_the_module_proxy_a_minor_resolves_to_its_newest_built_release(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path))

    def offline(arguments: list[str], cwd: Path, timeout: float = 0) -> str:
        raise apiserver.ControlPlaneError("go list -m -versions k8s.io/kubernetes failed: no network")

    monkeypatch.setattr(apiserver, "_run_go", offline)
    for version in ("v1.30.4", "v1.30.14", "v1.30.9"):
        binaries = apiserver.cached_binaries(version)
        binaries.kube_apiserver.parent.mkdir(parents=True)
        binaries.kube_apiserver.write_text("")
        binaries.etcd.write_text("")
    apiserver.cached_binaries("v1.30.14").etcd.unlink()  # a build that did not finish
    (tmp_path / "apiserver" / "v1.30.20-0000000000000000").mkdir()  # another recipe's leftovers
    assert apiserver.resolve_version("1.30") == "v1.30.9"
    with pytest.raises(apiserver.ControlPlaneError, match="no network"):
        apiserver.resolve_version("1.31")


def test_without_go_live_at_a_release_is_unavailable_and_leaves_no_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no go here
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr("tempfile.tempdir", None)  # re-read TMPDIR
    with pytest.raises(TargetUnavailable, match=r"^no local kube-apiserver 1\.30: the local control plane needs Go"):
        make_target("live@1.30")
    assert list((tmp_path / "tmp").iterdir()) == []


def test_from_1_37_the_endpoint_reconciler_is_off_and_the_rest_of_the_command_is_the_same(tmp_path: Path) -> None:
    def command(version: str) -> list[str]:
        return apiserver._apiserver_command(Path("/bin/kube-apiserver"), tmp_path, "http://127.0.0.1:2379", 6443,
                                            version)

    pinned = command("v1.33.13")
    assert "--endpoint-reconciler-type" not in pinned
    assert command("v1.29.6") == command("v1.36.3") == pinned
    newest = command("v1.37.2")
    assert newest[1:3] == ["--endpoint-reconciler-type", "none"]
    assert [newest[0], *newest[3:]] == pinned
