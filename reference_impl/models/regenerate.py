"""Write ``kubernetes-<minor>.json`` from the OpenAPI v3 specs in Kubernetes' own module.

    python -m patchconf.reference_impl.models.regenerate --kubernetes 1.33.13
    python -m patchconf.reference_impl.models.regenerate --go-types


Downloads ``k8s.io/kubernetes@v<version>`` with ``go mod download`` (the module zip holds
``api/openapi-spec/v3/*.json``, the models the apiserver serves, with ``default`` values),
merges every file's ``components.schemas``, keeps only what schemaconv reads, and indexes
the kinds by ``x-kubernetes-group-version-kind`` as the type converter's ``indexModels``
does. The output has one definition per line, keys sorted, so regenerations diff well (and
:func:`patchconf.reference_impl.models.read` parses only the lines of the definitions asked for).

``--go-types`` writes ``go-types.json`` instead: what the models do not say, the Go shape of
every built-in kind's fields (JSON name, omitempty, struct, pointer, slice, map or a type with
its own encoding), which decides what a round trip through the Go type leaves of an object,
and the name of a named map or slice type (``named``: core/v1 ResourceList), which the
defaulting walk of reference_impl/defaults needs (defaulters are registered per Go type).
targets/gotypes walks kubectl's scheme by reflection, at the k8s.io/api of its go.mod.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MODULE = "k8s.io/kubernetes"
SPEC_DIR = Path("api") / "openapi-spec" / "v3"
OUTPUT_DIR = Path(__file__).resolve().parent
GO_TYPES_SOURCE = OUTPUT_DIR.parents[1] / "targets" / "gotypes"

# What kube-openapi schemaconv (openapi.go, smd.go) reads of a schema; all else is dropped
# (descriptions, required, enum, oneOf, x-kubernetes-unions, validations...).
KEPT = frozenset({
    "type", "format", "default", "$ref", "allOf", "properties", "items", "additionalProperties",
    "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key", "x-kubernetes-map-type", "x-kubernetes-preserve-unknown-fields",
})


def module_dir(version: str) -> Path:
    """Where ``go mod download`` put k8s.io/kubernetes@v<version>."""
    with tempfile.TemporaryDirectory() as empty:  # outside any go.mod
        completed = subprocess.run(
            ["go", "mod", "download", "-json", f"{MODULE}@v{version}"],
            cwd=empty, env={**os.environ, "GOFLAGS": "-mod=mod"},
            capture_output=True, text=True, check=False,
        )
    answer = json.loads(completed.stdout) if completed.stdout.strip() else {}
    if completed.returncode != 0 or "Dir" not in answer:
        raise SystemExit(f"go mod download {MODULE}@v{version} failed: {answer.get('Error') or completed.stderr}")
    return Path(answer["Dir"])


def merged_schemas(spec_dir: Path) -> dict[str, Any]:
    """Every file's ``components.schemas``; a name defined twice must be defined alike."""
    schemas: dict[str, Any] = {}
    for path in sorted(spec_dir.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for name, schema in document.get("components", {}).get("schemas", {}).items():
            if name in schemas and schemas[name] != schema:
                raise SystemExit(f"{name} is defined differently in {path.name} and an earlier file")
            schemas[name] = schema
    return schemas


def reduced(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with only what schemaconv reads, recursively (property names are kept whole)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in KEPT:
            continue
        if key == "format" and schema.get("type") != "string":
            continue  # only a string's format changes its scalar type
        if key == "properties":
            value = {name: reduced(member) for name, member in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            value = reduced(value)
        elif key == "allOf":
            value = [reduced(member) for member in value]
        out[key] = value
    return out


def kinds(schemas: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """apiVersion -> kind -> definition, from x-kubernetes-group-version-kind (indexModels)."""
    index: dict[str, dict[str, str]] = {}
    for name, schema in schemas.items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or []:
            group, version, kind = gvk.get("group"), gvk.get("version"), gvk.get("kind")
            if not all(isinstance(part, str) for part in (group, version, kind)) or not kind:
                continue
            api_version = f"{group}/{version}" if group else version
            claimed = index.setdefault(api_version, {}).setdefault(kind, name)
            if claimed != name:
                raise SystemExit(f"{api_version} {kind} is claimed by {claimed} and {name}")
    return {api_version: dict(sorted(index[api_version].items())) for api_version in sorted(index)}


def render(version: str, schemas: Mapping[str, Any]) -> str:
    def line(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    definitions = {name: reduced(schemas[name]) for name in sorted(schemas)}
    index = kinds(schemas)
    lines = [
        "{",
        f'"kubernetes":{line(version)},',
        f'"source":{line(f"{MODULE}@v{version} {SPEC_DIR.as_posix()}/*.json components.schemas")},',
        '"kinds":{',
        ",\n".join(f"{line(api_version)}:{line(by_kind)}" for api_version, by_kind in index.items()),
        "},",
        '"definitions":{',
        ",\n".join(f"{line(name)}:{line(definition)}" for name, definition in definitions.items()),
        "}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def go_types() -> dict[str, Any]:
    """The output of targets/gotypes: ``kinds`` (apiVersion/kind -> definition) and ``definitions``."""
    completed = subprocess.run(["go", "run", "."], cwd=GO_TYPES_SOURCE, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(f"go run in {GO_TYPES_SOURCE} failed: {completed.stderr}")
    return json.loads(completed.stdout)


def render_go_types(shapes: Mapping[str, Any]) -> str:
    def line(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    go_mod = (GO_TYPES_SOURCE / "go.mod").read_text(encoding="utf-8")
    api_version = next(row.split()[1] for row in go_mod.splitlines() if row.strip().startswith("k8s.io/api "))
    lines = [
        "{",
        f'"source":{line(f"targets/gotypes: kubectl scheme, k8s.io/api {api_version}")},',
        f'"kinds":{line(shapes["kinds"])},',
        '"definitions":{',
        ",\n".join(f"{line(name)}:{line(shapes['definitions'][name])}" for name in sorted(shapes["definitions"])),
        "}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubernetes", metavar="VERSION", help="a full release, e.g. 1.33.13")
    parser.add_argument("--go-types", action="store_true", help="write go-types.json from targets/gotypes")
    parser.add_argument("--output-dir", type=Path, default=OUTPUT_DIR)
    args = parser.parse_args(argv)
    if args.go_types:
        output = args.output_dir / "go-types.json"
        text = render_go_types(go_types())
        json.loads(text)
        output.write_text(text, encoding="utf-8")
        print(f"{output}: {len(text.encode()):,} bytes", file=sys.stderr)
        return 0
    if not args.kubernetes:
        parser.error("give --kubernetes VERSION or --go-types")
    version = args.kubernetes.removeprefix("v")
    if version.count(".") != 2:
        parser.error("--kubernetes takes a full release such as 1.33.13")
    schemas = merged_schemas(module_dir(version) / SPEC_DIR)
    if not schemas:
        raise SystemExit(f"no schemas in {MODULE}@v{version}/{SPEC_DIR}")
    minor = ".".join(version.split(".")[:2])
    output = args.output_dir / f"kubernetes-{minor}.json"
    text = render(version, schemas)
    json.loads(text)  # what we write must read back
    output.write_text(text, encoding="utf-8")
    print(f"{output}: {len(schemas)} definitions, {sum(map(len, kinds(schemas).values()))} kinds, "
          f"{len(text.encode()):,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
