"""setuptools' build backend, plus bytecode for an editable install's sources.

pip compiles every module of a wheel it installs, but an editable install leaves the modules in
the checkout, compiled when first imported. Where PYTHONDONTWRITEBYTECODE is set (as in many
containers and CI images) that bytecode is never written, so each `patchconf` command compiled
its ~100 modules again: a third of a `patchconf run`. Compiling them here, at install, gives an
editable install what a regular one has; a module edited afterwards is compiled at import as
before (its bytecode no longer matches its source).
"""

from __future__ import annotations

import compileall
import tomllib
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    wheel = build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
    root = Path(__file__).resolve().parent.parent
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    (package_root,) = setuptools["package-dir"].values()
    for package in setuptools["packages"]:
        # each package alone (maxlevels=0): the root is a package too, and its tests/, .tox/ and
        # virtual environments are none of the installation's business
        folder = root / package_root / Path(*package.split(".")[1:])
        # quiet: a module that does not compile is reported when imported, as without this step
        compileall.compile_dir(folder, maxlevels=0, quiet=2)
    return wheel
