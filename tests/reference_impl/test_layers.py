"""reference_impl's layering, read from its import statements (tests/fixtures/imports.py): each part
imports only parts below it, and no module imports another module's underscored names."""

from __future__ import annotations

from tests.fixtures.imports import parts_without_a_layer, underscored_names_taken, upward_imports

# Lowest first. A part may import its own modules and any part of a lower layer.
LAYERS = [
    {"__init__", "errors", "releases", "models", "patch_types"},  # errors, releases, models as data, patch types
    {"jsonpointer"},
    {"govalue"},  # Go's values and runtime
    {"json_patch", "merge_patch", "strategic", "object_meta", "kubernetes_object", "defaults"},
    {"kubectl_apply"},
    {"ssa"},
]


def test_every_part_has_a_layer() -> None:
    assert parts_without_a_layer("reference_impl", LAYERS) == set()


def test_each_part_imports_only_parts_below_it() -> None:
    assert upward_imports("reference_impl", LAYERS) == []


def test_no_module_imports_another_modules_underscored_names() -> None:
    assert underscored_names_taken("reference_impl") == []
