"""Prebuilt judges (harness/controlplane/judges.py): a patchconf-judges wheel's binary serves when it was
built for this machine from the sources and release asked for, else the binary is built locally, and
every run names which it used. The wheels here are fakes laid out as judges/judges_build.py lays one out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from patchconf.harness.cli import main
from patchconf.harness.controlplane import apiserver, judges
from patchconf.harness.controlplane.gobuild import file_sha256, host_platform, manifest_path
from patchconf.harness.reporting.results import read_run
from patchconf.harness.targets import upstream

# An `upstream` that speaks harness/PROTOCOL.md with the reference's JSON Patch: a binary a run can use.
PROTOCOL_PROGRAM = """#!{python}
import json, sys
import patchconf
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "stop":
        break
    if request["cmd"] == "start":
        answer = {{"ready": True, "protocol": 1,
                  "implementation": {{"name": "{name}", "version": "1.0", "language": "go"}},
                  "capabilities": {{"patch_types": ["json-patch"], "schemas": ["none"], "profile": "kubernetes",
                                   "messages": False}}}}
    else:
        case = request["case"]
        try:
            answer = {{"seq": request["seq"],
                      "result": {{"document": patchconf.apply_json_patch(case["original"], case["patch"])}}}}
        except patchconf.PatchError as error:
            answer = {{"seq": request["seq"], "error": {{"class": error.error_class, "message": str(error)}}}}
    print(json.dumps(answer), flush=True)
"""
CASES = """\
defaults:
  type: json-patch
  tags: [JP-ADD]
  provenance: [{implementation: kubectl, version: "1.32.4", via: kubectl patch --local}]
cases:
  - name: add-a-key
    description: An added key is there.
    original: {a: 1}
    patch: [{op: add, path: /b, value: 2}]
    expected: {a: 1, b: 2}
  - name: test-that-fails
    description: A failed test is an error.
    tags: [JP-TEST]
    original: {a: 1}
    patch: [{op: test, path: /a, value: 2}]
    expected_error: {class: test-failed}
"""
MODULES = [{"Path": "k8s.io/apimachinery", "Version": "v0.33.4", "Sum": "h1:x="},
           {"Path": "golang.org/x/net", "Version": "v0.38.0", "Sum": "h1:y="}]


def make_wheel(root: Path, binaries: dict[str, tuple[str, str]], platform: str | None = None) -> Path:
    """A patchconf_judges package under ``root``: for each name, a protocol program and a manifest
    naming (release, digest)."""
    package = root / "patchconf_judges"
    (package / "bin").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name, (release, digest) in binaries.items():
        binary = package / "bin" / name
        binary.write_text(PROTOCOL_PROGRAM.format(python=sys.executable, name=f"prebuilt-{name}"))
        binary.chmod(0o755)
        manifest = {"name": name, "release": release, "digest": digest, "ldflags": "-s -w", "tags": [],
                    "sha256": file_sha256(binary), "platform": platform or host_platform(), "go": "go1.26.8",
                    "main": {"Path": "patchconf.dev/targets/upstream", "Version": "(devel)"}, "modules": MODULES}
        manifest_path(binary).write_text(json.dumps(manifest))
    (package / "judges.json").write_text(json.dumps({
        "distribution": "patchconf-judges", "version": "9.9.9", "platform": platform or host_platform(),
        "binaries": list(binaries)}))
    return package


@pytest.fixture(autouse=True)
def no_judges_recorded(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("PATCHCONF_JUDGES", raising=False)
    judges.forget()
    yield
    judges.forget()


@pytest.fixture
def wheel_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where a fake wheel goes: first on sys.path, ahead of any patchconf-judges installed here."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    return root


@pytest.fixture
def fake_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `go` whose build writes the protocol program (as 'local-upstream') and answers `go version -m`."""
    bin_dir = tmp_path / "gobin"
    bin_dir.mkdir()
    program = PROTOCOL_PROGRAM.format(python=sys.executable, name="local-upstream")
    (bin_dir / "go").write_text(f"""#!{sys.executable}
import json, os, sys
if sys.argv[1] == "build":
    out = sys.argv[sys.argv.index("-o") + 1]
    open(out, "w").write({program!r})
    os.chmod(out, 0o755)
elif sys.argv[1:4] == ["version", "-m", "-json"]:
    print(json.dumps({{"GoVersion": "go1.26.8", "Main": {{"Path": "patchconf.dev/targets/upstream"}},
                      "Settings": [{{"Key": "GOOS", "Value": "linux"}}, {{"Key": "GOARCH", "Value": "amd64"}}],
                      "Deps": [{{"Path": "k8s.io/apimachinery", "Version": "v0.32.4"}}]}}))
""")
    (bin_dir / "go").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return bin_dir


def _run_upstream(target: str, tmp_path: Path) -> tuple[int, dict, str]:
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES)
    report = tmp_path / "report"
    code = main(["run", "--target", target, "--cases", str(cases), "--report", str(report), "--quiet"])
    return code, json.loads((report / "results.json").read_text()), (report / "results.jsonl").read_text()


def test_a_wheel_holding_the_requested_release_serves_it_without_go_and_the_run_says_so(
        wheel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    package = make_wheel(wheel_dir, {"upstream": ("pinned", upstream.source_digest())})
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no go
    code, results, log = _run_upstream("upstream", tmp_path)
    assert code == 0
    assert results["summary"] == {"pass": 2}
    binary = package / "bin" / "upstream"
    assert results["judges"] == [{
        "name": "upstream", "source": "prebuilt wheel", "distribution": "patchconf-judges 9.9.9",
        "path": str(binary), "release": "pinned", "sha256": file_sha256(binary), "go": "go1.26.8",
        "platform": host_platform(),
        "modules": {"patchconf.dev/targets/upstream": "(devel)", "k8s.io/apimachinery": "v0.33.4",
                    "golang.org/x/net": "v0.38.0"}}]
    assert json.loads(log.splitlines()[0])["run"]["judges"] == results["judges"]
    report = tmp_path / "report"
    assert read_run(report / "results.json").judges == read_run(report / "results.jsonl").judges == results["judges"]
    assert ("judge upstream: prebuilt wheel patchconf-judges 9.9.9 (go1.26.8; k8s.io/apimachinery v0.33.4)"
            in capsys.readouterr().out.splitlines())
    assert not (tmp_path / "cache" / "upstream").exists()  # nothing built
    code, results, _ = _run_upstream("reference", tmp_path)  # a later run in the process used no judge binary
    assert (code, results["judges"]) == (0, [])


def test_a_wheel_of_other_sources_is_passed_over_for_a_local_build_and_the_run_says_why(
        wheel_dir: Path, tmp_path: Path, fake_go: Path, capsys) -> None:
    make_wheel(wheel_dir, {"upstream": ("pinned", "0123456789abcdef")})
    code, results, _ = _run_upstream("upstream", tmp_path)
    assert code == 0
    digest = upstream.source_digest()
    built = tmp_path / "cache" / "upstream" / f"pinned-{digest}-patch" / "upstream"  # JSON Patch: the patch build
    assert results["judges"] == [{
        "name": "upstream-patch", "source": "local build", "path": str(built), "release": "pinned",
        "sha256": file_sha256(built), "go": "go1.26.8", "platform": "linux/amd64",
        "modules": {"patchconf.dev/targets/upstream": "", "k8s.io/apimachinery": "v0.32.4"},
        "note": f"patchconf-judges 9.9.9 holds upstream pinned of sources 0123456789abcdef, "
                f"not pinned of sources {digest}"}]
    assert results["target"]["description"] == "local-upstream 1.0 (go)"  # the binary built here answered
    assert (f"judge upstream-patch: local build (go1.26.8; k8s.io/apimachinery v0.32.4) [patchconf-judges 9.9.9 holds "
            f"upstream pinned of sources 0123456789abcdef, not pinned of sources {digest}]"
            in capsys.readouterr().out.splitlines())


def test_a_release_the_wheel_does_not_hold_is_built_locally(wheel_dir: Path, fake_go: Path) -> None:
    make_wheel(wheel_dir, {"upstream": ("pinned", upstream.source_digest())})
    assert judges.prebuilt("upstream", "1.27", upstream.source_digest()) == (
        None, f"patchconf-judges 9.9.9 holds upstream pinned of sources {upstream.source_digest()}, "
              f"not 1.27 of sources {upstream.source_digest()}")


@pytest.mark.parametrize(("change", "why"), [
    ("platform", "patchconf-judges 9.9.9 is built for darwin/arm64, this machine is {host}"),
    ("bytes", "patchconf-judges 9.9.9's upstream does not match the SHA-256 of its manifest"),
    ("choice", "patchconf-judges 9.9.9 not used: PATCHCONF_JUDGES=local"),
    ("missing", "patchconf-judges 9.9.9 holds no upstream"),
])
def test_a_wheel_binary_is_not_used_for_another_machine_changed_bytes_or_when_told_not_to(
        wheel_dir: Path, monkeypatch: pytest.MonkeyPatch, change: str, why: str) -> None:
    digest = upstream.source_digest()
    package = make_wheel(wheel_dir, {"upstream": ("pinned", digest)},
                         platform="darwin/arm64" if change == "platform" else None)
    if change == "bytes":
        with (package / "bin" / "upstream").open("a") as binary:
            binary.write("# changed\n")
    if change == "choice":
        monkeypatch.setenv("PATCHCONF_JUDGES", "local")
    if change == "missing":
        (package / "bin" / "upstream").unlink()
    assert judges.prebuilt("upstream", "pinned", digest) == (None, why.format(host=host_platform()))


def test_without_a_wheel_nothing_is_prebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judges, "_installed", [None])
    assert judges.prebuilt("upstream", "pinned", upstream.source_digest()) == (None, "")


def test_a_package_of_that_name_that_is_no_judges_wheel_is_not_one(wheel_dir: Path) -> None:
    (wheel_dir / "patchconf_judges").mkdir()
    (wheel_dir / "patchconf_judges" / "__init__.py").write_text("")
    assert judges.installed() is None


def test_the_control_plane_comes_from_the_wheel_of_its_release_and_not_for_another(
        wheel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    version = apiserver.pinned_version()
    package = make_wheel(wheel_dir, {name: (version, apiserver.recipe_digest(version))
                                     for name in ("kube-apiserver", "etcd")})
    monkeypatch.setenv("PATH", str(tmp_path))  # no go
    binaries = apiserver.build()
    assert binaries == apiserver.Binaries(version, package / "bin" / "kube-apiserver", package / "bin" / "etcd")
    assert [(j["name"], j["source"]) for j in judges.used()] == [("kube-apiserver", "prebuilt wheel"),
                                                                 ("etcd", "prebuilt wheel")]
    with pytest.raises(apiserver.GoMissing):
        apiserver.build("1.29.1")  # not the wheel's release: built locally, which needs go


def test_version_names_the_wheel_and_whether_each_binary_serves(
        wheel_dir: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    version = apiserver.pinned_version()
    package = make_wheel(wheel_dir, {"upstream": ("pinned", "0123456789abcdef"),
                                     "kube-apiserver": (version, apiserver.recipe_digest(version))})
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.splitlines()[2:] == [
        f"judges: patchconf-judges 9.9.9 ({host_platform()}) at {package}",
        f"  upstream pinned: built locally (patchconf-judges 9.9.9 holds upstream pinned of sources "
        f"0123456789abcdef, not pinned of sources {upstream.source_digest()})",
        f"  kube-apiserver {version}: prebuilt wheel patchconf-judges 9.9.9 (go1.26.8; k8s.io/apimachinery v0.33.4)",
        f"  etcd {version}: built locally (patchconf-judges 9.9.9 holds no etcd)",
    ]
    monkeypatch.setattr(judges, "_installed", [None])
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.splitlines()[2:] == [
        "judges: built locally from Go modules on first use (no patchconf-judges installed; "
        "pip install 'patchconf[judges]' for prebuilt ones)"]


def test_upstream_is_available_with_go_or_the_wheel_of_its_sources(
        wheel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_go: Path) -> None:
    assert upstream.available()  # go on PATH
    monkeypatch.setenv("PATH", str(tmp_path))  # no go
    monkeypatch.setattr(judges, "_installed", [None])
    assert not upstream.available()
    make_wheel(wheel_dir, {"upstream": ("pinned", upstream.source_digest())})
    judges.forget()
    assert upstream.available()


def test_a_live_run_on_a_plane_patchconf_started_names_the_binaries_its_state_file_records(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from patchconf.harness import cli

    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    kubeconfig = tmp_path / "kubeconfig"
    running = apiserver.ProcessRecord("etcd", os.getpid(), apiserver._start_ticks(os.getpid()))
    recorded = [{"name": "etcd", "source": "prebuilt wheel", "path": "/x/etcd", "modules": {"go.etcd.io/etcd": "v3"}}]
    plane = apiserver.ControlPlane(kubeconfig, tmp_path / "data", "https://127.0.0.1:1", "v1.33.13", [running],
                                   "http://127.0.0.1:2", judges=recorded)
    apiserver._write_state(plane)
    assert apiserver.find(kubeconfig).judges == recorded
    assert cli._plane_judges("live", str(kubeconfig)) == recorded
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    assert cli._plane_judges("live:patchconf-apiserver", None) == recorded
    assert cli._plane_judges("live@1.33", str(kubeconfig)) == []  # it starts its own, recorded as it builds
    assert cli._plane_judges("live", str(tmp_path / "other")) == []
    apiserver._write_state(apiserver.ControlPlane(kubeconfig, tmp_path / "data", "https://127.0.0.1:1", "v1.33.13",
                                                  [apiserver.ProcessRecord("etcd", os.getpid(), -5)],
                                                  "http://127.0.0.1:2", judges=recorded))
    assert cli._plane_judges("live", str(kubeconfig)) == []  # that plane is gone


def test_verify_names_the_judge_binaries_it_used(wheel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys) -> None:
    make_wheel(wheel_dir, {"upstream": ("pinned", upstream.source_digest())})
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no go
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES)
    assert main(["verify", "--cases", str(cases), "--judges", "upstream"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        "judge upstream: prebuilt wheel patchconf-judges 9.9.9 (go1.26.8; k8s.io/apimachinery v0.33.4)",
        "judges: upstream 1.0; 2 of 2 cases confirmed, 0 contradictions, 2 confirmations not yet recorded"]
