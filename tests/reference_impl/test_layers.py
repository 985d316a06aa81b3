"""reference_impl's layering, read from its import statements (absolute or relative): each part
imports only parts below it, and no module imports another module's underscored names."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "reference_impl"
PACKAGE = "patchconf.reference_impl"

# Lowest first. A part may import its own modules and any part of a lower layer.
LAYERS = [
    {"errors", "releases", "models", "patch_types"},  # typed errors, releases, models as data, patch types
    {"jsonpointer"},
    {"govalue"},  # Go's values and runtime
    {"json_patch", "merge_patch", "strategic", "object_meta", "kubernetes_object", "defaults"},
    {"kubectl_apply"},
    {"ssa"},
]
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def _module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path) -> list[tuple[list[str], list[str], int]]:
    """(module imported, in reference_impl's terms; names taken from it; line) of each import."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and (node.module + ".").startswith(PACKAGE + "."):
                target = node.module.split(".")[2:]
            else:
                continue
            found.append((target, [alias.name for alias in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if (alias.name + ".").startswith(PACKAGE + "."):
                    found.append((alias.name.split(".")[2:], [], node.lineno))
    return found


def _part(module: list[str], names: list[str]) -> list[str]:
    """The parts an import reaches: ``from patchconf.reference_impl import models`` reaches models."""
    if module:
        return [module[0]]
    return names


def test_every_part_has_a_layer() -> None:
    parts = {path.stem if path.parent == ROOT else path.relative_to(ROOT).parts[0] for path in ROOT.rglob("*.py")}
    assert parts - {"__init__"} == set(RANK)


def test_each_part_imports_only_parts_below_it() -> None:
    upward = []
    for path in sorted(ROOT.rglob("*.py")):
        here = _module_name(path)
        if not here:
            continue
        for module, names, line in _imports(path):
            for part in _part(module, names):
                if part != here[0] and RANK[part] >= RANK[here[0]]:
                    upward.append(f"{path.relative_to(ROOT)}:{line} imports {part}")
    assert upward == []


def test_no_module_imports_another_modules_underscored_names() -> None:
    private = [
        f"{path.relative_to(ROOT)}:{line} takes {name} from {'.'.join(module)}"
        for path in sorted(ROOT.rglob("*.py"))
        for module, names, line in _imports(path)
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert private == []
