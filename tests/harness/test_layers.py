"""The harness's layering, read from its import statements (tests/fixtures/imports.py), as
ARCHITECTURE.md draws it: each part imports only parts below it, and no module imports another
module's underscored names."""

from __future__ import annotations

from tests.fixtures.imports import parts_without_a_layer, underscored_names_taken, upward_imports

# Lowest first. A part may import its own modules and any part of a lower layer.
LAYERS = [
    {"__init__"},  # the checkout, the caches, the version
    {"corpus"},  # case files
    {"controlplane"},  # Go builds, the local kube-apiserver
    {"targets"},
    {"running"},  # running a case, judging its answer
    {"reporting", "provenance"},
    {"fuzz"},
    {"cli", "pytest_plugin"},
    {"action", "prcheck"},  # the GitHub Action's steps, the pull-request check: built on the command line
]


def test_every_part_has_a_layer() -> None:
    assert parts_without_a_layer("harness", LAYERS) == set()


def test_each_part_imports_only_parts_below_it() -> None:
    assert upward_imports("harness", LAYERS) == []


def test_no_module_imports_another_modules_underscored_names() -> None:
    assert underscored_names_taken("harness") == []
