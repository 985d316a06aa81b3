"""patchconf as an installed package: one top-level name, the corpus and the Go sources carried as
data beside the code, and runs from any directory on the corpus it carries."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from patchconf.harness import SOURCE_ROOT, checkout_cases_dir, corpus_version

PYPROJECT = tomllib.loads((SOURCE_ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
PACKAGE_DIRS = SETUPTOOLS["package-dir"]


def _installed_name(directory: Path) -> str:
    relative = directory.relative_to(SOURCE_ROOT).parts
    for name, root in sorted(PACKAGE_DIRS.items(), key=lambda item: -len(item[1])):
        if relative[: len(Path(root).parts)] == Path(root).parts:
            return ".".join([name, *relative[len(Path(root).parts):]])
    raise AssertionError(f"{directory} is under no package-dir root")


def test_every_python_package_of_the_checkout_is_installed_under_patchconf():
    packages = {
        _installed_name(init.parent)
        for top in ("harness", "reference_impl") for init in (SOURCE_ROOT / top).rglob("__init__.py")
    } | {_installed_name(SOURCE_ROOT)}
    assert packages <= set(SETUPTOOLS["packages"]), sorted(packages - set(SETUPTOOLS["packages"]))
    assert all(name == "patchconf" or name.startswith("patchconf.") for name in SETUPTOOLS["packages"])


def test_a_checkout_runs_its_own_corpus_from_any_directory_inside_it(tmp_path):
    assert checkout_cases_dir(SOURCE_ROOT / "tests" / "harness") == SOURCE_ROOT / "cases"
    assert checkout_cases_dir(tmp_path) is None
    assert corpus_version(SOURCE_ROOT / "cases").startswith(("git ", "patchconf "))


def _setuptools_for_the_build() -> None:
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed here: no wheel to build")
    import setuptools

    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} here; the build needs 77 or later")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    _setuptools_for_the_build()
    out = tmp_path_factory.mktemp("wheel")
    # This environment's setuptools, without isolation: no package index needed.
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(out), str(SOURCE_ROOT)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    (path,) = out.glob("patchconf-*.whl")
    return path


def test_the_wheel_carries_the_corpus_and_the_go_sources_under_one_top_level_name(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    top_levels = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_levels == {"patchconf"}
    tracked = subprocess.run(["git", "ls-files", "cases", "targets"], cwd=SOURCE_ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    wanted = {f"patchconf/{path}" for path in tracked if path.endswith((".yaml", ".json", ".md", ".go", "go.mod",
                                                                       "go.sum"))}
    assert wanted, "git ls-files found no corpus"
    assert wanted <= names, sorted(wanted - names)[:10]
    for required in ("patchconf/cases/case.schema.json", "patchconf/cases/BEHAVIOURS.md",
                     "patchconf/targets/upstream/go.mod", "patchconf/targets/apiserver/go.sum",
                     "patchconf/reference_impl/models/", "patchconf/harness/PROTOCOL.md"):
        assert any(name.startswith(required) for name in names), required


def test_the_unpacked_wheel_runs_its_bundled_corpus_from_an_empty_directory(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    work = tmp_path / "empty"
    work.mkdir()
    # Only the unpacked wheel on the path: not the checkout, whatever this interpreter has installed.
    environment = {**os.environ, "PYTHONPATH": str(site), "PATCHCONF_CASE_CACHE": "off"}
    command = [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); "
               "from patchconf.harness import cli; sys.exit(cli.console_main())"]
    version = subprocess.run([*command, "--version"], cwd=work, env=environment, capture_output=True, text=True,
                             check=False)
    assert version.returncode == 0, version.stderr
    assert version.stdout.splitlines()[1].startswith(f"corpus {site / 'patchconf' / 'cases'} (patchconf ")
    run = subprocess.run([*command, "run", "--type", "json-patch", "--quiet"], cwd=work, env=environment,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((work / "reports" / "reference" / "results.json").read_text())
    assert results["corpus"]["path"] == str(site / "patchconf" / "cases")
    assert results["summary"]["pass"] > 200 and set(results["summary"]) <= {"pass", "skip"}


def test_an_editable_install_leaves_every_module_compiled_even_where_bytecode_is_not_written(tmp_path):
    _setuptools_for_the_build()
    # A copy of the tracked tree without bytecode: the hook writes into the checkout it builds.
    checkout = tmp_path / "checkout"
    tracked = subprocess.run(["git", "ls-files"], cwd=SOURCE_ROOT, capture_output=True, text=True,
                             check=True).stdout.split("\n")
    for path in filter(None, tracked):
        target = checkout / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((SOURCE_ROOT / path).read_bytes())
    out = tmp_path / "wheel"
    out.mkdir()
    build = ("import sys; sys.path.insert(0, 'buildhooks'); import compiled_editable; "
             f"print(compiled_editable.build_editable({str(out)!r}))")
    built = subprocess.run([sys.executable, "-c", build], cwd=checkout, capture_output=True, text=True, check=False,
                           env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert built.returncode == 0, built.stderr
    assert (out / built.stdout.split()[-1]).is_file()
    (package_root,) = PACKAGE_DIRS.values()
    sources = [path for package in SETUPTOOLS["packages"]
               for path in (checkout / package_root / Path(*package.split(".")[1:])).glob("*.py")]
    assert len(sources) > 100
    uncompiled = [path for path in sources if not Path(importlib.util.cache_from_source(str(path))).is_file()]
    assert uncompiled == []


# --- the judges wheel (judges/judges_build.py) ----------------------------------------------------


def _judges_build():
    spec = importlib.util.spec_from_file_location("judges_build", SOURCE_ROOT / "judges" / "judges_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_judge(directory: Path, name: str, **manifest) -> Path:
    from patchconf.harness.controlplane.gobuild import file_sha256, manifest_path

    directory.mkdir(parents=True, exist_ok=True)
    binary = directory / name
    binary.write_bytes(f"binary {name}\n".encode())
    manifest_path(binary).write_text(json.dumps({"name": name, "sha256": file_sha256(binary), **manifest}))
    return binary


def test_the_judges_wheel_carries_each_binary_executable_with_its_manifest_and_records_every_file(tmp_path):
    import base64
    import hashlib

    from patchconf import __version__

    backend = _judges_build()
    binaries = [_fake_judge(tmp_path / "cache", name) for name in ("upstream", "kube-apiserver", "etcd")]
    name = backend.write_wheel(tmp_path / "dist", "linux/arm64", binaries)
    assert name == (f"patchconf_judges-{__version__}-py3-none-"
                    "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl")
    archive = zipfile.ZipFile(tmp_path / "dist" / name)
    dist_info = f"patchconf_judges-{__version__}.dist-info"
    assert archive.namelist() == [
        "patchconf_judges/__init__.py", "patchconf_judges/judges.json",
        "patchconf_judges/bin/upstream", "patchconf_judges/bin/upstream.manifest.json",
        "patchconf_judges/bin/kube-apiserver", "patchconf_judges/bin/kube-apiserver.manifest.json",
        "patchconf_judges/bin/etcd", "patchconf_judges/bin/etcd.manifest.json",
        f"{dist_info}/METADATA", f"{dist_info}/WHEEL", f"{dist_info}/RECORD"]
    executable = {info.filename for info in archive.infolist() if (info.external_attr >> 16) & 0o111}
    assert executable == {"patchconf_judges/bin/upstream", "patchconf_judges/bin/kube-apiserver",
                          "patchconf_judges/bin/etcd"}
    assert json.loads(archive.read("patchconf_judges/judges.json")) == {
        "distribution": "patchconf-judges", "version": __version__, "platform": "linux/arm64",
        "binaries": ["upstream", "kube-apiserver", "etcd"]}
    assert archive.read("patchconf_judges/bin/etcd") == b"binary etcd\n"
    assert archive.read(f"{dist_info}/WHEEL").decode().splitlines()[-3:] == [
        "Tag: py3-none-manylinux_2_17_aarch64", "Tag: py3-none-manylinux2014_aarch64",
        "Tag: py3-none-musllinux_1_1_aarch64"]
    metadata = archive.read(f"{dist_info}/METADATA").decode().splitlines()
    assert metadata[:3] == ["Metadata-Version: 2.1", "Name: patchconf-judges", f"Version: {__version__}"]
    record = [line.split(",") for line in archive.read(f"{dist_info}/RECORD").decode().splitlines()]
    assert [path for path, _, _ in record] == archive.namelist()
    for path, digest, size in record[:-1]:
        data = archive.read(path)
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert size == str(len(data))
    assert record[-1] == [f"{dist_info}/RECORD", "", ""]


def test_the_judges_platform_comes_from_the_config_setting_then_the_environment(monkeypatch):
    from patchconf.harness.controlplane.gobuild import host_platform

    backend = _judges_build()
    monkeypatch.delenv("PATCHCONF_JUDGES_PLATFORM", raising=False)
    assert backend.chosen_platform(None) == host_platform()
    monkeypatch.setenv("PATCHCONF_JUDGES_PLATFORM", "darwin/amd64")
    assert backend.chosen_platform({}) == "darwin/amd64"
    assert backend.chosen_platform({"platform": "darwin/arm64"}) == "darwin/arm64"
    with pytest.raises(ValueError, match=r"platform 'windows/amd64': give one of linux/amd64, linux/arm64, "
                                         r"darwin/amd64, darwin/arm64$"):
        backend.chosen_platform({"platform": "windows/amd64"})


def test_a_judge_built_with_cgo_or_for_another_platform_is_not_shipped(tmp_path, monkeypatch):
    from patchconf.harness.controlplane import apiserver
    from patchconf.harness.targets import upstream

    backend = _judges_build()
    good = {"platform": "linux/amd64", "ldflags": "-s -w", "settings": {"CGO_ENABLED": "0", "-trimpath": "true"}}
    plane = apiserver.Binaries("v1.33.13", _fake_judge(tmp_path, "kube-apiserver", **good),
                               _fake_judge(tmp_path, "etcd", **good))
    monkeypatch.setattr(apiserver, "build", lambda platform, prebuilt: plane)
    cgo = {**good, "settings": {"CGO_ENABLED": "1", "-trimpath": "true"}}
    monkeypatch.setattr(upstream, "build", lambda platform, prebuilt: _fake_judge(tmp_path, "upstream", **cgo))
    with pytest.raises(RuntimeError, match=r"upstream is not a judge to ship: built with \{'platform': "
                                           r"'linux/amd64', 'CGO_ENABLED': '1', '-trimpath': 'true'\}"):
        backend.build_judges("linux/amd64")
    monkeypatch.setattr(upstream, "build", lambda platform, prebuilt: _fake_judge(tmp_path, "upstream", **good))
    assert backend.build_judges("linux/amd64") == [tmp_path / "upstream", plane.kube_apiserver, plane.etcd]
    with pytest.raises(RuntimeError, match=r"upstream is not a judge to ship: built with \{'platform': "
                                           r"'linux/amd64'"):
        backend.build_judges("linux/arm64")


def test_the_judges_sdist_builds_from_the_same_sources_as_the_checkout(tmp_path):
    import tarfile

    from patchconf.harness.controlplane import apiserver
    from patchconf.harness.targets import upstream

    name = _judges_build().build_sdist(str(tmp_path / "sdist"))
    with tarfile.open(tmp_path / "sdist" / name) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (root,) = (tmp_path / "unpacked").iterdir()
    assert (root / "checkout" / "targets" / "upstream" / "go.mod").is_file()
    # The sdist's backend reads patchconf's build code from its own copy, not the installed patchconf.
    probe = ("import judges_build; judges_build._patchconf(); "
             "from patchconf.harness.targets import upstream; from patchconf.harness.controlplane import apiserver; "
             "import patchconf, patchconf.reference_impl; "
             "print(upstream.SOURCE_DIR, upstream.source_digest(), "
             "apiserver.recipe_digest(apiserver.pinned_version()), "
             "*(module.__file__ for module in (patchconf, upstream, patchconf.reference_impl)))")
    answer = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": str(root)})
    assert answer.returncode == 0, answer.stderr
    pinned = apiserver.pinned_version()
    checkout = root / "checkout"
    assert answer.stdout.split() == [str(checkout / "targets" / "upstream"), upstream.source_digest(),
                                     apiserver.recipe_digest(pinned), str(checkout / "__init__.py"),
                                     str(checkout / "harness" / "targets" / "upstream.py"),
                                     str(checkout / "reference_impl" / "__init__.py")]


def test_the_judges_extra_pins_the_judges_wheel_of_this_very_version():
    from patchconf import __version__

    judges_project = tomllib.loads((SOURCE_ROOT / "judges" / "pyproject.toml").read_text())["project"]
    assert PYPROJECT["project"]["optional-dependencies"]["judges"] == [f"{judges_project['name']}=={__version__}"]
    assert judges_project["dynamic"] == ["version"]  # patchconf's, read by judges_build.version()
    assert _judges_build().version() == __version__
