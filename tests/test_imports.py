"""The tree reads as it runs (ARCHITECTURE.md): inside harness/ and reference_impl/ every import of
patchconf is relative, so an editor or a static analyser resolves it from the checkout's root as
the installed package does; the root's library API stands on reference_impl alone."""

from __future__ import annotations

from tests.fixtures.imports import SOURCE_ROOT, imports, package_files


def test_the_packages_import_each_other_relatively() -> None:
    absolute = [f"{path.relative_to(SOURCE_ROOT)}:{found.line} imports patchconf.{'.'.join(found.target)}"
                for top in ("harness", "reference_impl") for path in package_files(top)
                for found in imports(path) if not found.relative]
    assert absolute == []


def test_every_relative_import_names_a_module_or_package_of_the_tree() -> None:
    missing = []
    for top in ("harness", "reference_impl"):
        for path in package_files(top):
            for found in imports(path):
                where = SOURCE_ROOT.joinpath(*found.target)
                if not (where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()):
                    missing.append(f"{path.relative_to(SOURCE_ROOT)}:{found.line}: {'.'.join(found.target)}")
    assert missing == []


def test_the_library_api_imports_only_reference_impl() -> None:
    reached = {found.target[0] for found in imports(SOURCE_ROOT / "__init__.py")}
    assert reached == {"reference_impl"}
