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
        for top in ("patchconf", "harness", "reference_impl") for init in (SOURCE_ROOT / top).rglob("__init__.py")
    }
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
                     "patchconf/reference_impl/ssa/models/", "patchconf/harness/PROTOCOL.md"):
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
    sources = [path for top in set(PACKAGE_DIRS.values()) for path in (checkout / top).rglob("*.py")]
    assert len(sources) > 100
    uncompiled = [path for path in sources if not Path(importlib.util.cache_from_source(str(path))).is_file()]
    assert uncompiled == []
