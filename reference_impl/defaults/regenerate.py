"""Write ``literal-defaults.json``: the ``+default=`` marker values of each release, as data.

    python -m patchconf.reference_impl.defaults.regenerate 1.32.4 1.33.13 1.34.4 1.35.4 1.36.3 1.37.2

Each release named is (re)written from its module; the releases already in the file and not
named keep their entries (1.27.16 to 1.31.14 were written the same way).

defaulter-gen turns a field's ``// +default=<json>`` marker into "if the field is zero, set it"
in zz_generated.defaults.go; openapi-gen writes the same marker as the property's ``default``
in the OpenAPI spec Kubernetes publishes (``api/openapi-spec/v3/*.json`` in k8s.io/kubernetes).
openapi-gen also writes a zero ``default`` for every required non-pointer field ({} for a
struct, metav1.Time or IntOrString included, "" or 0), which changes no Go value (defaulter-gen
writes nothing for it); those are dropped here. What is kept: a default on
a pointer field (AzureDisk readOnly false is a marker) or one that is not the field's zero value.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..govalue import gotypes
from ..models.regenerate import SPEC_DIR, module_dir

OUTPUT = Path(__file__).resolve().parent / "literal-defaults.json"
ZEROS = {"string": "", "int": 0, "float": 0, "bool": False}


def changes_a_go_value(default: Any, field: dict[str, Any]) -> bool:
    if field["shape"] == "pointer":
        return True
    if field["shape"] in ("struct", "opaque"):
        return default != {}  # a non-pointer struct's zero (metav1.Time and IntOrString are structs too)
    return default != ZEROS.get(field["shape"])


def property_defaults(spec_dir: Path) -> dict[str, dict[str, Any]]:
    """definition -> property -> ``default``, from every file of the spec. A definition repeated
    in several files may differ elsewhere (from 1.36 the group-version-kinds listed for
    meta/v1 DeleteOptions and WatchEvent depend on the file) but must agree on its defaults."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(spec_dir.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for name, schema in document.get("components", {}).get("schemas", {}).items():
            for prop, member in schema.get("properties", {}).items():
                if "default" not in member:
                    continue
                known = out.setdefault(name, {})
                if prop in known and known[prop] != member["default"]:
                    raise SystemExit(f"{name}.{prop} has another default in {path.name} than in an earlier file")
                known[prop] = member["default"]
    return out


def literal_defaults(defaults: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """definition -> field -> default, for the Go definitions go-types.json knows."""
    out: dict[str, dict[str, Any]] = {}
    for definition, fields in sorted(gotypes.struct_definitions().items()):
        known = defaults.get(definition, {})
        for field in fields:
            if field["name"] in known and changes_a_go_value(known[field["name"]], field):
                out.setdefault(definition, {})[field["name"]] = known[field["name"]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="+", metavar="VERSION", help="full releases, e.g. 1.32.4")
    args = parser.parse_args(argv)
    releases = json.loads(OUTPUT.read_text(encoding="utf-8"))["releases"] if OUTPUT.exists() else {}
    named = []
    for version in args.versions:
        version = version.removeprefix("v")
        minor = ".".join(version.split(".")[:2])
        defaults = literal_defaults(property_defaults(module_dir(version) / SPEC_DIR))
        named.append(minor)
        releases[minor] = {"source": f"k8s.io/kubernetes@v{version} {SPEC_DIR.as_posix()}/*.json", "defaults": defaults}
    text = json.dumps({"releases": releases}, indent=1, sort_keys=True) + "\n"
    OUTPUT.write_text(text, encoding="utf-8")
    counts = ", ".join(f"{minor}: {sum(map(len, releases[minor]['defaults'].values()))} defaults" for minor in named)
    print(f"{OUTPUT}: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
