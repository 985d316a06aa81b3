"""Patch metadata for strategic merge patch: which fields merge, by which key.

apimachinery asks one question of a schema (``LookupPatchMeta``): "what is the patch
strategy and merge key of field *key*, and what is the schema of its value (or of the
items of its list)?". :class:`PatchMeta` asks the same two questions; the merge code
(:mod:`.apply`) never knows where the answers come from. Two providers answer them:

- :func:`builtin_patch_meta` for built-in kinds, from Kubernetes' own OpenAPI
  definitions (shipped by the ``kubernetes-validate`` package). It answers the way
  kubectl's ``PatchMetaFromStruct`` (Go struct tags) answers, errors included, because
  that is what ``kubectl patch`` and the apiserver use for built-in kinds.
- :func:`named_patch_meta` for the named schemas of ``cases/schemas/`` (OpenAPI v2
  definitions), answering the way ``PatchMetaFromOpenAPI`` answers for the same file,
  limitations included (it cannot descend into the values of a map of objects).

Lookups that fail raise :class:`~patchconf.reference_impl.errors.NoStrategicSchema` where the
schema has no such field, :class:`~patchconf.reference_impl.errors.TypeMismatch` where the field's
type cannot hold what is merged into it ("expected slice…", "not struct…") and
:class:`~patchconf.reference_impl.errors.ListOfLists`, with apimachinery's wording; the merge code
fills in the pointer of the field.
"""

from __future__ import annotations

import bisect
import functools
import importlib.util
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import ListOfLists, NoStrategicSchema, TypeMismatch
from ..govalue import gotypes, goyaml
from ..govalue.runtime import NIL_POINTER_DEREFERENCE
from ..govalue.strconv import quote
from ..releases import CORPUS_RELEASE
from .mergepatch import bad_arg_type

# libyaml when PyYAML has it: the same documents as its pure-Python SafeLoader, ten times sooner.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

SCHEMAS_DIR = Path(__file__).resolve().parents[2] / "cases" / "schemas"

# What Go reports when code calls a method on a nil interface: the OpenAPI provider hands
# out a nil schema below fields of arbitrary type, and using it crashes upstream.


@dataclass(frozen=True, slots=True)
class FieldMeta:
    """The answer for one field.

    ``strategies`` are the comma-separated parts of ``x-kubernetes-patch-strategy``
    (``()`` when the field has none), ``merge_key`` is ``x-kubernetes-patch-merge-key``
    (``""`` when none) and ``schema`` is the metadata of the field's value for a map
    lookup, or of the list's items for a list lookup.
    """

    strategies: tuple[str, ...]
    merge_key: str
    schema: PatchMeta


class PatchMeta(ABC):
    """The patch metadata of one node of a schema (apimachinery's ``LookupPatchMeta``)."""

    @abstractmethod
    def lookup_map(self, key: str) -> FieldMeta:
        """Metadata of field ``key`` whose value is being merged as a map.

        Mirrors ``LookupPatchMetadataForStruct``: ``schema`` of the answer describes the
        field's value.
        """

    @abstractmethod
    def lookup_list(self, key: str) -> FieldMeta:
        """Metadata of field ``key`` whose value is being merged as a list.

        Mirrors ``LookupPatchMetadataForSlice``: ``schema`` of the answer describes the
        list's items.
        """

    @property
    @abstractmethod
    def name(self) -> str:
        """What upstream's ``Name()`` says of this node (it appears in one error message)."""


class NilPatchMeta(PatchMeta):
    """Go's nil ``LookupPatchMeta``: every question crashes, as upstream panics."""

    def lookup_map(self, key: str) -> FieldMeta:
        raise NoStrategicSchema(NIL_POINTER_DEREFERENCE)

    def lookup_list(self, key: str) -> FieldMeta:
        raise NoStrategicSchema(NIL_POINTER_DEREFERENCE)

    @property
    def name(self) -> str:
        raise NoStrategicSchema(NIL_POINTER_DEREFERENCE)


NIL = NilPatchMeta()


ABSENT = object()  # an extension the schema does not have, unlike one that is null


def _split_strategies(value: Any) -> tuple[str, ...]:
    """x-kubernetes-patch-strategy as parsePatchMetadata reads it: absent is none, anything but a
    string (null too) is ErrBadArgType, named by the Go type go-yaml decoded it into."""
    if value is ABSENT:
        return ()
    if not isinstance(value, str):
        raise TypeMismatch(bad_arg_type("string", value, goyaml.go_type))
    return tuple(value.split(","))


def _merge_key(value: Any) -> str:
    """x-kubernetes-patch-merge-key, read as _split_strategies reads the strategy."""
    if value is ABSENT:
        return ""
    if not isinstance(value, str):
        raise TypeMismatch(bad_arg_type("string", value, goyaml.go_type))
    return value


class _Memo(PatchMeta):
    """Answers each key once per node: lookups repeat for every merged list element."""

    def __init__(self) -> None:
        self._maps: dict[str, FieldMeta | Exception] = {}
        self._lists: dict[str, FieldMeta | Exception] = {}

    def lookup_map(self, key: str) -> FieldMeta:
        return self._memo(self._maps, self._find_map, key)

    def lookup_list(self, key: str) -> FieldMeta:
        return self._memo(self._lists, self._find_list, key)

    @staticmethod
    def _memo(memo: dict[str, FieldMeta | Exception], find: Any, key: str) -> FieldMeta:
        answer = memo.get(key)
        if answer is None:
            try:
                answer = find(key)
            except (NoStrategicSchema, ListOfLists, TypeMismatch) as error:
                # kept without its traceback: that holds this frame, which holds the memo holding the error
                answer = error.with_traceback(None)
            memo[key] = answer
        if isinstance(answer, Exception):
            # A fresh error each time: the merge code sets the pointer on it.
            raise type(answer)(answer.message)
        return answer

    @abstractmethod
    def _find_map(self, key: str) -> FieldMeta: ...

    @abstractmethod
    def _find_list(self, key: str) -> FieldMeta: ...


# --------------------------------------------------------------------------------------
# Built-in kinds: Kubernetes' OpenAPI definitions, read the way Go struct tags are read.
# --------------------------------------------------------------------------------------


def _types(schema: dict) -> list[str]:
    """The JSON types of a definition without ``null`` (kubernetes-validate adds it)."""
    declared = schema.get("type")
    if declared is None:
        return []
    if isinstance(declared, str):
        declared = [declared]
    return [name for name in declared if name != "null"]


def _ref_name(ref: str) -> str:
    # "#/$defs/io.k8s.api.core.v1.Container", "/api/_definitions.json#/$defs/…" alike.
    fragment = ref.partition("#")[2]
    return fragment.rsplit("/", 1)[-1]


GROUP_VERSION_KIND = "x-kubernetes-group-version-kind"


class _Definitions:
    """One Kubernetes version's definitions, with one metadata node per definition."""

    def __init__(self, version: str, definitions: Mapping[str, dict]) -> None:
        self.version = version
        self.definitions = definitions
        self._nodes: dict[str, BuiltinPatchMeta] = {}
        self._kinds: dict[tuple[str, str, str], str] = {}
        if isinstance(definitions, _DefinitionsText):
            kinds_by_name = definitions.group_version_kinds()
        else:
            kinds_by_name = ((name, definition.get(GROUP_VERSION_KIND, ())) for name, definition in definitions.items())
        for name, kinds in kinds_by_name:
            for gvk in kinds:
                self._kinds.setdefault((gvk.get("group", ""), gvk["version"], gvk["kind"]), name)

    def kind(self, group: str, version: str, kind: str) -> str | None:
        return self._kinds.get((group, version, kind))

    def kinds(self) -> Iterable[tuple[str, str, str]]:
        return self._kinds.keys()

    def node(self, schema: dict, name: str | None = None) -> BuiltinPatchMeta:
        """The node for an inline schema, following ``$ref`` to its (shared) definition."""
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = _ref_name(ref)
            schema = self.definitions[name]
        if name is None:
            return BuiltinPatchMeta(self, schema, None)
        node = self._nodes.get(name)
        if node is None:
            node = self._nodes[name] = BuiltinPatchMeta(self, schema, name)
        return node


class BuiltinPatchMeta(_Memo):
    """A node of a built-in kind, answering as ``PatchMetaFromStruct`` does.

    The Go struct behind each definition is inferred from the definition: an object with
    ``properties`` is a struct; one with ``additionalProperties`` a map; any other object
    (``RawExtension``, ``FieldsV1``), a ``oneOf`` (``IntOrString``, ``Quantity``) or a
    ``date-time`` string (``Time``) a struct without JSON fields. Like Go's JSON
    decoder, a field name matches case-insensitively when no field matches exactly.
    """

    def __init__(self, definitions: _Definitions, schema: dict, name: str | None) -> None:
        super().__init__()
        self._definitions = definitions
        self._schema = schema
        self._definition = name or ""
        self._struct_name = self._definition.rsplit(".", 1)[-1]
        self._go_kind = self._kind_of(schema)
        self._properties: dict[str, dict] = schema.get("properties") or {}
        self._folded = {field.lower(): field for field in reversed(list(self._properties))}

    @staticmethod
    def _kind_of(schema: dict) -> str:
        types = _types(schema)
        if "oneOf" in schema or not types:
            return "struct"
        kind = types[0]
        if kind == "object":
            if "properties" not in schema and "additionalProperties" in schema:
                return "map"
            return "struct"
        if kind == "array":
            return "slice"
        if kind == "string":
            return {"date-time": "struct", "byte": "slice"}.get(schema.get("format", ""), "string")
        if kind == "integer":
            return {"int32": "int32", "int64": "int64"}.get(schema.get("format", ""), "int")
        if kind == "number":
            return "float32" if schema.get("format") == "float" else "float64"
        if kind == "boolean":
            return "bool"
        return kind

    @property
    def name(self) -> str:
        return self._go_kind

    def _field(self, key: str) -> tuple[str, dict]:
        if self._go_kind != "struct":
            raise TypeMismatch(f"merging an object in json but data type is not struct, instead is: {self._go_kind}")
        field = key if key in self._properties else self._folded.get(key.lower())
        if field is None:
            raise NoStrategicSchema(
                f"unable to find api field in struct {self._struct_name} for the json field {quote(key)}"
            )
        return field, self._properties[field]

    def _find_map(self, key: str) -> FieldMeta:
        _, schema = self._field(key)
        return FieldMeta(
            _split_strategies(schema.get("x-kubernetes-patch-strategy", ABSENT)),
            _merge_key(schema.get("x-kubernetes-patch-merge-key", ABSENT)),
            self._definitions.node(schema),
        )

    def _find_list(self, key: str) -> FieldMeta:
        field, schema = self._field(key)
        value = self._definitions.node(schema)
        if value._go_kind != "slice":
            if not gotypes.is_pointer_field(self._definition, field):
                raise TypeMismatch("expected slice or array type, but got: struct")
            # Go looks through a pointer to what it points to (*int32 -> int32) and takes that for
            # the list's element type, which the definitions cannot say (go-types.json does).
            return FieldMeta(
                _split_strategies(schema.get("x-kubernetes-patch-strategy", ABSENT)),
                _merge_key(schema.get("x-kubernetes-patch-merge-key", ABSENT)),
                value,
            )
        items_schema = value._schema.get("items")
        if items_schema is None:  # []byte: a base64 string on the wire
            items = BuiltinPatchMeta(self._definitions, {"type": "integer", "format": "uint8"}, None)
            items._go_kind = "uint8"
        else:
            items = self._definitions.node(items_schema)
            if items._go_kind == "slice":
                raise ListOfLists("unexpected slice of slice")
        return FieldMeta(
            _split_strategies(schema.get("x-kubernetes-patch-strategy", ABSENT)),
            _merge_key(schema.get("x-kubernetes-patch-merge-key", ABSENT)),
            items,
        )


def _definitions_dir() -> Path:
    # Found, not imported: importing kubernetes_validate imports jsonschema (a third of a second).
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("kubernetes_validate is not installed (it carries Kubernetes' OpenAPI schemas)")
    return Path(os.path.dirname(spec.origin)) / "kubernetes-json-schema"


@functools.cache
def _load_definitions(version: str) -> _Definitions:
    path = _definitions_dir() / f"v{version}.0-local" / "_definitions.json"
    if not path.is_file():
        raise NoStrategicSchema(f"no Kubernetes OpenAPI definitions for version {version} (looked for {path})")
    text = path.read_bytes().decode("utf-8")  # (no newline translation: its lines are read as written)
    if text.startswith(_DEFINITIONS_LAYOUT):
        return _Definitions(version, _DefinitionsText(text))
    return _Definitions(version, json.loads(text)["$defs"])


# kubernetes_validate writes _definitions.json indented by two, "$defs" first: each definition
# then starts a line indented by four, and its members are indented by six.
_DEFINITIONS_LAYOUT = '{\n  "$defs": {\n'
_DEFINITION_LINE = '\n    "'
_KINDS_LINE = f'\n      "{GROUP_VERSION_KIND}": '
_JSON = json.JSONDecoder()


class _DefinitionsText(Mapping[str, dict]):
    """The ``$defs`` of a ``_definitions.json`` laid out as kubernetes_validate writes it, each
    definition decoded when first asked for: a process reads a few dozen of some 600, and
    decoding the 1.3 MB whole cost ~46 M instructions per version."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: dict[str, int] = {}  # where each definition's value starts
        at = text.find(_DEFINITION_LINE)
        while at >= 0:
            name, end = _JSON.raw_decode(text, at + len(_DEFINITION_LINE) - 1)
            self._starts[name] = end + 2  # after ": "
            at = text.find(_DEFINITION_LINE, end)
        self._decoded: dict[str, dict] = {}

    def __getitem__(self, name: str) -> dict:
        definition = self._decoded.get(name)
        if definition is None:
            definition = self._decoded[name] = _JSON.raw_decode(self._text, self._starts[name])[0]
        return definition

    def __iter__(self) -> Iterator[str]:
        return iter(self._starts)

    def __len__(self) -> int:
        return len(self._starts)

    def group_version_kinds(self) -> Iterator[tuple[str, list[dict]]]:
        """The name and the ``x-kubernetes-group-version-kind`` of each definition that has them."""
        text, names, starts = self._text, list(self._starts), list(self._starts.values())
        at = text.find(_KINDS_LINE)
        while at >= 0:
            kinds, end = _JSON.raw_decode(text, at + len(_KINDS_LINE))
            yield names[bisect.bisect(starts, at) - 1], kinds  # the definition it is in
            at = text.find(_KINDS_LINE, end)


def available_versions() -> list[str]:
    """The Kubernetes minor versions (``"1.32"``) whose definitions are installed."""
    names = (entry.name for entry in _definitions_dir().iterdir())
    versions = {name[1:].removesuffix(".0-local") for name in names if name.endswith(".0-local")}
    return sorted(versions, key=lambda text: tuple(int(part) for part in text.split(".")))


# Groups the apiserver serves (so they are in the definitions) that kubectl's scheme lacks:
# kubectl refuses to patch their kinds strategically, locally.
_NOT_IN_KUBECTL = frozenset({"apiextensions.k8s.io", "apiregistration.k8s.io"})

# Group versions no longer served (so missing from the definitions) whose Go types
# kubectl still has. Their kinds are read from the same kind in a served version: the
# struct tags did not change between versions.
_RETIRED_GROUP_VERSIONS = frozenset({
    "extensions/v1beta1", "apps/v1beta1", "apps/v1beta2", "batch/v1beta1", "policy/v1beta1",
    "autoscaling/v2beta1", "autoscaling/v2beta2", "networking.k8s.io/v1beta1",
    "discovery.k8s.io/v1beta1", "events.k8s.io/v1beta1", "storage.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1", "rbac.authorization.k8s.io/v1beta1",
    "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1beta1", "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1beta3",
    "certificates.k8s.io/v1beta1", "coordination.k8s.io/v1beta1",
    "admissionregistration.k8s.io/v1beta1",
})
# Where the kinds of the old "extensions" group live now.
_SUCCESSOR_GROUPS = {"extensions": ("apps", "networking.k8s.io", "policy")}


def _version_rank(version: str) -> tuple[int, int, int]:
    """Sort key preferring GA over beta over alpha, then the highest number."""
    for rank, stage in ((2, "alpha"), (1, "beta")):
        if stage in version:
            major, _, minor = version.removeprefix("v").partition(stage)
            return (rank, -int(major or 0), -int(minor or 0))
    return (0, -int(version.removeprefix("v") or 0), 0)


def _retired_kind(definitions: _Definitions, group: str, group_version: str, kind: str) -> str | None:
    if f"{group}/{group_version}" not in _RETIRED_GROUP_VERSIONS:
        return None
    for candidate_group in (group, *_SUCCESSOR_GROUPS.get(group, ())):
        versions = sorted(
            (version for (g, version, k) in definitions.kinds() if g == candidate_group and k == kind),
            key=_version_rank,
        )
        if versions:
            return definitions.kind(candidate_group, versions[0], kind)
    return None


def builtin_patch_meta(api_version: str, kind: str, version: str = CORPUS_RELEASE) -> PatchMeta:
    """The patch metadata of built-in ``kind`` of ``api_version`` at Kubernetes ``version``.

    The kinds are those kubectl can patch locally: the definitions' kinds, less
    CustomResourceDefinition and APIService (kubectl lacks their Go types), plus the
    kinds of retired beta versions kubectl still knows (``extensions/v1beta1``,
    ``batch/v1beta1``, …), read from the served version of the same kind. Raises
    :class:`NoStrategicSchema` with kubectl's message for any other kind (custom
    resources, misspelt kinds).
    """
    group, _, group_version = api_version.rpartition("/")
    definitions = _load_definitions(version)
    name = None
    if group not in _NOT_IN_KUBECTL:
        name = definitions.kind(group, group_version, kind) or _retired_kind(definitions, group, group_version, kind)
    if name is None:
        raise NoStrategicSchema(
            f"strategic merge patch is not supported for {group}/{group_version}, Kind={kind} locally, "
            "try --type merge"
        )
    return definitions.node({"$ref": f"#/$defs/{name}"})


# --------------------------------------------------------------------------------------
# Named schemas: OpenAPI v2 definitions, read the way kube-openapi's proto models are.
# --------------------------------------------------------------------------------------


class _Model:
    """One parsed schema, as kube-openapi's ``proto`` package classifies it."""

    __slots__ = ("extensions", "fields", "format", "kind", "path", "ref", "sub", "type")

    def __init__(self, kind: str, path: str, extensions: dict[str, Any]) -> None:
        self.kind = kind  # "kind" | "map" | "array" | "primitive" | "arbitrary" | "ref"
        self.path = path
        self.extensions = extensions
        self.fields: dict[str, _Model] = {}
        self.sub: _Model | None = None
        self.ref = ""
        self.type = ""
        self.format = ""


class _NamedSchema:
    """A named schema file parsed into models, one per definition."""

    def __init__(self, name: str, document: dict) -> None:
        definitions = document.get("definitions")
        root = document.get("root")
        if not isinstance(definitions, dict) or not isinstance(root, str):
            raise ValueError(f"named schema {name!r} needs 'root' and 'definitions'")
        if root not in definitions:
            raise ValueError(f"named schema {name!r}: root {root!r} is not a definition")
        self.name = name
        self._raw = definitions
        self.models = {key: self._parse(value, key) for key, value in definitions.items()}
        self.root = self.models[root]

    def _parse(self, schema: Any, path: str) -> _Model:
        if not isinstance(schema, dict):
            raise ValueError(f"named schema {self.name!r}: {path} is not a schema")
        extensions = {key: value for key, value in schema.items() if key.startswith("x-")}
        ref = schema.get("$ref")
        if ref is not None:
            if "type" in schema:
                raise ValueError(f"named schema {self.name!r}: {path}: definition reference can't have a type")
            if not isinstance(ref, str) or not ref.startswith("#/definitions/"):
                raise ValueError(f"named schema {self.name!r}: {path}: unallowed reference to non-definition {ref!r}")
            model = _Model("ref", path, extensions)
            model.ref = ref.removeprefix("#/definitions/")
            if model.ref not in self._raw:
                raise ValueError(f"named schema {self.name!r}: {path}: unknown model in reference: {model.ref!r}")
            return model
        declared = schema.get("type", [])
        types = [declared] if isinstance(declared, str) else list(declared)
        if len(types) > 1:
            raise ValueError(f"named schema {self.name!r}: {path}: definitions with multiple types aren't supported")
        kind = types[0] if types else None
        if kind is None and "properties" not in schema:
            return _Model("arbitrary", path, extensions)
        if kind in (None, "object") and "properties" in schema:
            model = _Model("kind", path, extensions)
            for field, value in (schema["properties"] or {}).items():
                model.fields[field] = self._parse(value, f"{path}.{field}")
            return model
        if kind == "object":
            model = _Model("map", path, extensions)
            additional = schema.get("additionalProperties")
            if isinstance(additional, dict):
                model.sub = self._parse(additional, path)
            else:
                model.sub = _Model("arbitrary", path, {})
            return model
        if kind == "array":
            items = schema.get("items")
            if not isinstance(items, dict):
                raise ValueError(f"named schema {self.name!r}: {path}: array should have exactly one sub-item")
            model = _Model("array", path, extensions)
            model.sub = self._parse(items, path)
            return model
        if kind not in ("string", "number", "integer", "boolean"):
            raise ValueError(f"named schema {self.name!r}: {path}: Unknown primitive type: {kind!r}")
        model = _Model("primitive", path, extensions)
        model.type = kind
        model.format = schema.get("format", "")
        return model

    def resolve(self, model: _Model) -> _Model:
        return self.models[model.ref]


class NamedPatchMeta(_Memo):
    """A node of a named schema, answering as ``PatchMetaFromOpenAPI`` does.

    ``model`` is ``None`` where upstream holds a nil schema (below a field of arbitrary
    type): such a node answers every question with empty metadata and a
    :data:`NIL` child, whose own questions crash as upstream does.
    """

    def __init__(self, schema: _NamedSchema, model: _Model | None) -> None:
        super().__init__()
        self._schema = schema
        self._model = model

    @property
    def name(self) -> str:
        if self._model is None:
            raise NoStrategicSchema(NIL_POINTER_DEREFERENCE)
        return self._name_of(self._model)

    def _name_of(self, model: _Model) -> str:
        if model.kind == "primitive":
            return f"{model.type} ({model.format})" if model.format else model.type
        if model.kind == "array":
            return f"Array of {self._name_of(model.sub)}"
        if model.kind == "map":
            return f"Map of {self._name_of(model.sub)}"
        if model.kind == "kind":
            return f"Kind([{' '.join(sorted(model.fields))}])"
        if model.kind == "ref":
            return f"Reference to {model.ref!r}".replace("'", '"')
        return "Arbitrary value (primitive, object or array)"

    def _child(self, model: _Model | None) -> NamedPatchMeta:
        return NamedPatchMeta(self._schema, model)

    def _kind(self, model: _Model) -> _Model | None:
        """Follow references; None for an arbitrary value; raise for anything else."""
        while model.kind == "ref":
            model = self._schema.resolve(model)
        if model.kind == "kind":
            return model
        if model.kind == "arbitrary":
            return None
        got = {"primitive": "primitive", "array": "slice", "map": "map"}[model.kind]
        raise TypeMismatch(f"expected kind, but got {got}")

    def _field(self, kind: _Model, key: str) -> _Model:
        field = kind.fields.get(key)
        if field is None:
            raise NoStrategicSchema(f"unable to find api field {quote(key)} in {kind.path}")
        return field

    def _find_map(self, key: str) -> FieldMeta:
        if self._model is None:
            return FieldMeta((), "", NIL)
        kind = self._kind(self._model)
        if kind is None:
            return FieldMeta((), "", self._child(None))
        field = self._field(kind, key)
        return FieldMeta(
            _split_strategies(field.extensions.get("x-kubernetes-patch-strategy", ABSENT)),
            _merge_key(field.extensions.get("x-kubernetes-patch-merge-key", ABSENT)),
            self._child(field),
        )

    def _find_list(self, key: str) -> FieldMeta:
        if self._model is None:
            return FieldMeta((), "", NIL)
        model = self._model
        while model.kind == "ref":
            model = self._schema.resolve(model)
        if model.kind == "arbitrary":
            return FieldMeta((), "", self._child(None))
        if model.kind != "kind":
            if model.kind == "array":
                raise TypeMismatch("expected visit kind first, then visit array")
            raise TypeMismatch(f"expected slice, but got {model.kind}")
        # upstream's sliceItem: find the field, take its metadata, then visit its schema;
        # an inline object there is searched for the same key again.
        while True:
            field = self._field(model, key)
            meta = (
                _split_strategies(field.extensions.get("x-kubernetes-patch-strategy", ABSENT)),
                _merge_key(field.extensions.get("x-kubernetes-patch-merge-key", ABSENT)),
            )
            if field.kind == "kind":
                model = field
                continue
            if field.kind == "array":
                return FieldMeta(*meta, self._child(field.sub))
            if field.kind == "ref":
                return FieldMeta(*meta, self._child(self._schema.resolve(field)))
            if field.kind == "arbitrary":
                return FieldMeta(*meta, self._child(None))
            raise TypeMismatch(f"expected slice, but got {field.kind}")


def _schema_path(path_or_name: str | os.PathLike, schemas_dir: str | os.PathLike | None) -> Path:
    candidate = Path(path_or_name)
    if candidate.suffix in (".yaml", ".yml", ".json") or candidate.is_file():
        return candidate
    return Path(schemas_dir or SCHEMAS_DIR) / f"{path_or_name}.yaml"


@functools.cache
def _load_named(path: Path) -> _NamedSchema:
    with path.open(encoding="utf-8") as file:
        document = yaml.load(file, Loader=_SAFE_LOADER)
    if not isinstance(document, dict):
        raise ValueError(f"named schema {path} is not a mapping")
    return _NamedSchema(path.stem, document)


def named_patch_meta(path_or_name: str | os.PathLike, schemas_dir: str | os.PathLike | None = None) -> PatchMeta:
    """The patch metadata of the root of a named schema.

    ``path_or_name`` is a file path or a name looked up as ``<schemas_dir>/<name>.yaml``
    (``cases/schemas`` by default). Malformed schema files raise :class:`ValueError`.
    """
    schema = _load_named(_schema_path(path_or_name, schemas_dir).resolve())
    return NamedPatchMeta(schema, schema.root)
