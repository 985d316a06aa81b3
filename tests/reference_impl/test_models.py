"""The bundled models files (patchconf.reference_impl.models): read lazily, laid out and reduced as
regenerate.py writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchconf.reference_impl import models
from patchconf.reference_impl.models import regenerate
from patchconf.reference_impl.ssa import schema as S


@pytest.mark.parametrize("file_name", ["go-types.json", *(f"kubernetes-{v}.json" for v in S.available_versions())])
def test_a_models_file_reads_as_json_reads_it(file_name):
    # models.read parses a definition when first asked for it, from the line regenerate.py wrote it on
    whole = json.loads((Path(models.__file__).parent / file_name).read_text(encoding="utf-8"))
    read = models.read(file_name)
    assert read.keys() == whole.keys()
    assert {key: value for key, value in read.items() if key != "definitions"} == \
        {key: value for key, value in whole.items() if key != "definitions"}
    definitions = read["definitions"]
    assert isinstance(definitions, models.Definitions)
    assert len(definitions) == len(whole["definitions"]) > 700
    assert list(definitions) == list(whole["definitions"])
    assert "io.k8s.api.apps.v1.Deployment" in definitions and "nope" not in definitions
    assert definitions.get("nope") is None
    for name, definition in whole["definitions"].items():
        assert definitions[name] == definition, name
        assert definitions[name] is definitions[name]  # parsed once


def test_a_models_file_laid_out_otherwise_is_refused():
    text = json.dumps({"kinds": {}, "definitions": {"A": {"type": "object"}}}, indent=1)
    with pytest.raises(ValueError, match=r"not laid out as regenerate\.py writes it"):
        models.parse(text, "indented.json")
    with pytest.raises(ValueError, match="B: more than one value on its line"):
        models.parse('{\n"kinds":{},\n"definitions":{\n"A":{},\n"B":{},"C":{}\n}\n}\n', "two.json")["definitions"]["B"]


def test_bundled_models_keep_only_what_schemaconv_reads():
    data = json.loads((Path(models.__file__).parent / "kubernetes-1.33.json").read_text())
    keys: set[str] = set()

    def visit(spec: dict) -> None:
        keys.update(spec)
        for member in spec.get("properties", {}).values():
            visit(member)
        for key in ("items", "additionalProperties"):
            if isinstance(spec.get(key), dict):
                visit(spec[key])
        for member in spec.get("allOf", []):
            visit(member)

    for definition in data["definitions"].values():
        visit(definition)
    assert keys <= regenerate.KEPT
    assert "description" not in keys


def test_regenerate_renders_reduced_definitions_and_kinds():
    schemas = {
        "io.k8s.api.apps.v1.Deployment": {
            "description": "dropped",
            "type": "object",
            "required": ["spec"],
            "properties": {
                "spec": {"allOf": [{"$ref": "#/components/schemas/Spec"}], "default": {}, "description": "x"},
                "replicas": {"type": "integer", "format": "int32"},
            },
            "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "Deployment", "version": "v1"}],
        },
        "Spec": {"type": "string", "format": "date-time", "enum": ["a"]},
        "io.k8s.api.core.v1.Pod": {
            "type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "Pod", "version": "v1"}]},
    }
    text = regenerate.render("1.33.13", schemas)
    data = json.loads(text)
    assert dict(models.parse(text, "rendered")["definitions"]) == data["definitions"]  # as models.read reads it
    assert data["kinds"] == {"apps/v1": {"Deployment": "io.k8s.api.apps.v1.Deployment"},
                             "v1": {"Pod": "io.k8s.api.core.v1.Pod"}}
    assert data["definitions"] == {
        "Spec": {"format": "date-time", "type": "string"},
        "io.k8s.api.apps.v1.Deployment": {"properties": {
            "replicas": {"type": "integer"},
            "spec": {"allOf": [{"$ref": "#/components/schemas/Spec"}], "default": {}},
        }, "type": "object"},
        "io.k8s.api.core.v1.Pod": {"type": "object"},
    }
