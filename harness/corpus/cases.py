"""The case model and the corpus loader.

A case file is validated against ``cases/case.schema.json``; each case, after the file's
``defaults`` are filled in, against the definition its :class:`Purpose` names: a corpus
case (``#/$defs/effectiveCase``) states its expectation and provenance, a case under
verification may lack provenance, a case to be recorded may lack both. A broken file or
case becomes a :class:`LoadError` naming file, case and JSON pointer; everything else loads.
"""

from __future__ import annotations

import enum
import errno
import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import yaml

from ...reference_impl import jsonpointer
from ...reference_impl.govalue.decoded import json_copy
from .. import BUNDLED_CASES_DIR
from .casecache import CaseCache
from .caseschema import CaseSchemaError, case_schema
from .corpus_layout import BEHAVIOURS_FILE, CASE_SUFFIXES, SCHEMA_FILE, SCHEMAS_DIR
from .yamlio import RefusedInput, decode_text, load_text, read_bytes, value_positions

if TYPE_CHECKING:
    from jsonschema_rs import ValidationError

INPUT_KEYS = ("original", "current", "modified", "patch", "steps")
EXPECTATION_KEYS = ("expected", "expected_patch", "expected_error")
STEP_EXPECTATIONS = ("expected", "expected_managed_fields", "expected_changed", "expected_warnings", "expected_error")


class Purpose(enum.Enum):
    """What cases are loaded for, and so what each must already state.

    The value is the case schema's definition a case is validated against.
    """

    CORPUS = "effectiveCase"  # a committed case: its expectation and who confirmed it
    VERIFY = "unconfirmedCase"  # under verification: its expectation; provenance may be missing
    RECORD = "draftCase"  # to be recorded: its inputs; expectation and provenance may be missing


class _Absent:
    """Marks an expectation member the case does not have (``None`` is JSON null)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False

    def __deepcopy__(self, memo: dict) -> _Absent:
        return self


ABSENT: Any = _Absent()


# The small values a case holds are named tuples: immutable and compared by value as frozen dataclasses
# are, and some four times quicker to make (each dataclass cost every command ~1 ms at import).
class ExpectedError(NamedTuple):
    """An expected failure; ``status``, ``reason`` and ``unchanged`` are checked where a target can tell."""

    error_class: str
    message: str | None = None
    status: int | None = None
    reason: str | None = None
    unchanged: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExpectedError:
        return cls(data["class"], data.get("message"), data.get("status"), data.get("reason"),
                   bool(data.get("unchanged", False)))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"class": self.error_class}
        if self.message is not None:
            data["message"] = self.message
        if self.status is not None:
            data["status"] = self.status
        if self.reason is not None:
            data["reason"] = self.reason
        if self.unchanged:
            data["unchanged"] = True
        return data


@dataclass(frozen=True)
class Outcome:
    """One acceptable outcome: a document and/or a created patch, or an error."""

    document: Any = ABSENT
    patch: Any = ABSENT
    error: ExpectedError | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        error = data.get("expected_error")
        return cls(
            document=data.get("expected", ABSENT),
            patch=data.get("expected_patch", ABSENT),
            error=ExpectedError.from_json(error) if error else None,
        )

    @cached_property
    def json_text(self) -> str:
        """:meth:`to_json` as the JSON text a result holds it in (``ensure_ascii=False``), encoded once;
        a case's own outcome comes with it from the case cache."""
        return result_json_text(self.to_json())

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.document is not ABSENT:
            data["expected"] = self.document
        if self.patch is not ABSENT:
            data["expected_patch"] = self.patch
        if self.error is not None:
            data["expected_error"] = self.error.to_json()
        return data


# The JSON text a result holds its values in (runner.Result.json_text), an outcome's too: one encoder, so
# that an outcome's text is the text a result would write. (json.dumps with an argument makes one per call.)
# Not watching for cycles, a fifth of the encoding: a value holding one is too deep to encode
# (RecursionError), and told so, as one nested too deeply is.
result_json_text = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


class Divergence(NamedTuple):
    """A known departure of one target (in a version range) from the case's outcome."""

    targets: tuple[str, ...]
    outcome: Outcome
    reason: str
    versions: str | None = None
    issue: str | None = None
    alternatives: tuple[Outcome, ...] = ()

    def applies_to(self, target_name: str, target_version: str) -> bool:
        return target_name in self.targets and version_matches(target_version, self.versions)


class ProfileOutcome(NamedTuple):
    """The outcome under a named profile where it departs from Kubernetes (e.g. ``rfc``), and why."""

    outcome: Outcome
    reason: str


class SchemaRef(NamedTuple):
    """The schema a case's documents are patched under: a built-in kind (at a version) or a named schema."""

    api_version: str | None = None
    kind: str | None = None
    version: str | None = None
    named: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> SchemaRef | None:
        if data is None:
            return None
        return cls(data.get("apiVersion"), data.get("kind"), data.get("version"), data.get("named"))

    def describe(self) -> str:
        if self.named:
            return f"named schema {self.named!r}"
        at = f" at {self.version}" if self.version else ""
        return f"{self.api_version}/{self.kind}{at}"


@dataclass(frozen=True)
class Case:
    """One case of the corpus, shown as ``file`` (``cases/…``) and loaded from ``path``."""

    file: str
    name: str
    description: str
    type: str
    tags: tuple[str, ...]
    inputs: Mapping[str, Any]
    outcome: Outcome
    provenance: tuple[Mapping[str, str], ...]
    schema: SchemaRef | None = None
    alternatives: tuple[Outcome, ...] = ()
    nondeterministic: bool = False
    profiles: Mapping[str, ProfileOutcome] = field(default_factory=dict)
    divergences: tuple[Divergence, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    targets: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    aliases: tuple[str, ...] = ()
    references: tuple[str, ...] = ()  # the public issues and pull requests it answers
    path: Path | None = field(default=None, compare=False)  # the file it was loaded from

    @property
    def id(self) -> str:
        return f"{self.file}::{self.name}"

    @property
    def former_ids(self) -> tuple[str, ...]:
        """The ids it had before a rename or move (``aliases``), which still select it."""
        return tuple(alias if "::" in alias else f"{self.file}::{alias}" for alias in self.aliases)

    def answers_to(self, case_id: str) -> bool:
        return case_id == self.id or case_id in self.former_ids

    def with_members(self, members: Mapping[str, Any]) -> Case:
        """The case as it would load with ``members`` added or replaced (an expectation, say)."""
        return _build_case(self.file, {**self.raw, **members}, self.path)

    @property
    def needs_expectation(self) -> bool:
        """It states inputs but nothing they must produce (``patchconf record`` asks Kubernetes)."""
        if self.type == "server-side-apply":
            return not any(key in step for step in self.inputs.get("steps", ()) for key in STEP_EXPECTATIONS)
        return not any(key in self.raw for key in EXPECTATION_KEYS)

    def input(self, key: str) -> Any:
        """A deep copy of one input, so no target can change the corpus."""
        return json_copy(self.inputs[key])

    def has_input(self, key: str) -> bool:
        return key in self.inputs

    def effective_schema(self) -> SchemaRef | None:
        """The declared schema, or the built-in kind the original document names."""
        if self.schema is not None:
            return self.schema
        steps = self.inputs.get("steps") or ()
        documents = [self.inputs.get(key) for key in ("original", "current", "modified")]
        documents += [step.get("object") for step in steps if isinstance(step, dict)]
        for document in documents:
            if isinstance(document, dict) and "apiVersion" in document and "kind" in document:
                return SchemaRef(str(document["apiVersion"]), str(document["kind"]))
        return None


class LoadError(NamedTuple):
    """Why a file or one of its cases could not be loaded."""

    file: str
    message: str
    case: str | None = None
    pointer: str = ""
    line: int = 0  # 1-based, of the value the pointer names (0: not known)
    column: int = 0

    def __str__(self) -> str:
        """``file:line:column: file::case: message``, as editors and CI annotations read a place;
        with the JSON pointer instead where the place is not known."""
        where = f"{self.file}::{self.case}" if self.case else self.file
        if self.line:
            return f"{self.file}:{self.line}:{self.column}: " + (f"{where}: " if self.case else "") + self.message
        at = f" at {self.pointer}" if self.pointer else ""
        return f"{where}{at}: {self.message}"


@dataclass
class Corpus:
    """The cases loaded, and what could not be."""

    cases: list[Case] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)


# --- versions -----------------------------------------------------------------------------

_COMPARATOR = re.compile(r"(<=|>=|==|!=|<|>)\s*([0-9]+(?:\.[0-9]+){0,2})")


def parse_version(text: str) -> tuple[int, ...]:
    match = re.search(r"([0-9]+)\.([0-9]+)(?:\.([0-9]+))?", text)
    if not match:
        return ()
    return tuple(int(part) for part in match.groups() if part is not None)


def version_matches(version: str, spec: str | None) -> bool:
    """Whether ``version`` (e.g. 'v1.32.4') satisfies every comparator of ``spec``."""
    if not spec:
        return True
    actual = parse_version(version)
    if not actual:
        return False
    for op, bound_text in _COMPARATOR.findall(spec):
        bound = parse_version(bound_text)
        left = actual[: len(bound)]
        ok = {
            "<": left < bound,
            "<=": left <= bound,
            ">": left > bound,
            ">=": left >= bound,
            "==": left == bound,
            "!=": left != bound,
        }[op]
        if not ok:
            return False
    return True


# --- loading --------------------------------------------------------------------------------


def cases_root_for(path: Path) -> Path:
    """The directory holding case.schema.json above ``path``, else the bundled corpus."""
    for candidate in [path, *path.parents]:
        if (candidate / SCHEMA_FILE).is_file():
            return candidate
    return BUNDLED_CASES_DIR


@cache
def behaviour_ids(root: Path) -> frozenset[str]:
    """Behaviour ids declared in the corpus's BEHAVIOURS.md (``- ID: text`` lines)."""
    text = behaviours_path(root).read_text(encoding="utf-8")
    return frozenset(re.findall(r"^- ([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+):", text, flags=re.MULTILINE))


def behaviours_path(root: Path) -> Path:
    """The BEHAVIOURS.md a corpus's tags are checked against: its own, else the bundled one."""
    path = root / BEHAVIOURS_FILE
    return path if path.is_file() else BUNDLED_CASES_DIR / BEHAVIOURS_FILE


def iter_case_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Case files under each path (a file, or a directory searched recursively)."""
    for path, _ in _case_files(paths):
        yield path


# What a search of a directory passes over, as pathlib's glob does (a file gone meanwhile, a symlink loop).
_IGNORED_ERRNOS = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def _case_files(paths: Iterable[Path]) -> Iterator[tuple[Path, str | None]]:
    """Each case file with its resolved path when the search knows it without asking the file system.

    A directory is searched as ``sorted(path.rglob("*"))`` finds files: in the order of their path
    components, not into symlinked directories, a symlink to a file included. The directory is
    resolved once: below it, a file that is no symlink is its resolved directory plus the names.
    """
    for path in paths:
        if path.is_file():
            yield path, None
            continue
        top = os.fspath(path)
        if not os.path.isdir(top):
            continue
        resolved_top = os.path.realpath(top)
        for parts, is_link in sorted(_files_below(top, ())):
            if SCHEMAS_DIR in parts[:-1] or parts[-1] == SCHEMA_FILE:
                continue
            yield path.joinpath(*parts), None if is_link else os.path.join(resolved_top, *parts)


def _files_below(directory: str, parts: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], bool]]:
    """The relative path components of the files with a case suffix below ``directory``, and
    whether each is a symlink."""
    try:
        with os.scandir(directory) as scan:
            entries = list(scan)
    except PermissionError:
        return
    for entry in entries:
        name = entry.name
        try:
            if entry.is_dir() and not entry.is_symlink():
                yield from _files_below(entry.path, (*parts, name))
            elif _suffix(name) in CASE_SUFFIXES and entry.is_file():
                yield (*parts, name), entry.is_symlink()
        except OSError as exc:
            if exc.errno not in _IGNORED_ERRNOS:
                raise


def _suffix(name: str) -> str:
    """The name's suffix as :attr:`pathlib.PurePath.suffix` says it (none for ``.yaml`` alone)."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def display_path(path: Path) -> str:
    """Path shown in case ids: relative to the cases root's parent (``cases/…``)."""
    return _Places().place(path, str(path.resolve())).shown


class _Place:
    """Where a case file's cases are shown (``shown``), and checked: its corpus's ``root``
    and the BEHAVIOURS.md its tags go by (``behaviours``)."""

    __slots__ = ("behaviours", "root", "shown")

    def __init__(self, shown: str, root: Path, behaviours: Path) -> None:
        self.shown, self.root, self.behaviours = shown, root, behaviours


class _Places:
    """Each case file's place, looked up once per directory: the case schema above it, the
    behaviours beside that (a corpus's files share them; 110 files, some 20 directories)."""

    def __init__(self) -> None:
        self._roots: dict[str, tuple[Path, str, Path]] = {}

    def place(self, path: Path, resolved: str | None = None) -> _Place:
        """``path``'s place; ``resolved`` is its resolved path when already known."""
        if resolved is None:
            resolved = os.path.realpath(path)
        directory = os.path.dirname(resolved)
        known = self._roots.get(directory)
        if known is None:
            root = cases_root_for(Path(directory))
            known = self._roots[directory] = (root, os.path.join(str(root.parent), ""), behaviours_path(root))
        root, prefix, behaviours = known
        if resolved.startswith(prefix):
            shown = resolved[len(prefix):]
        else:
            try:
                shown = Path(resolved).relative_to(root.parent).as_posix()
            except ValueError:
                shown = path.as_posix()
        return _Place(shown, root, behaviours)


def load_corpus(paths: Iterable[Path | str], purpose: Purpose = Purpose.CORPUS) -> Corpus:
    corpus = Corpus()
    case_cache = CaseCache.from_environment()
    places = _Places()
    for file, resolved in _case_files(Path(p) for p in paths):
        cases, errors = _load_file(file, purpose, case_cache, places.place(file, resolved))
        corpus.cases.extend(cases)
        corpus.errors.extend(errors)
    return corpus


def load_file(path: Path, purpose: Purpose = Purpose.CORPUS) -> tuple[list[Case], list[LoadError]]:
    """The file's valid cases, and a LoadError for every problem of the file and its cases.

    ``purpose`` says what a case must already state (see :class:`Purpose`); everything
    else is checked the same whatever the purpose. A file loaded before without a problem
    comes from the cache of loaded files (:mod:`patchconf.harness.corpus.casecache`) when nothing it depends on
    has changed.
    """
    return _load_file(path, purpose, CaseCache.from_environment(), _Places().place(path, str(path.resolve())))


def _load_file(path: Path, purpose: Purpose, case_cache: CaseCache | None,
               place: _Place) -> tuple[list[Case], list[LoadError]]:
    shown, root = place.shown, place.root
    key = None
    try:
        content = read_bytes(path)
        if case_cache is not None:
            key = case_cache.key(content, shown, root, purpose.value, place.behaviours)
            cached = case_cache.get(key)
            if cached is not None:
                return [_build_case(shown, effective, path, outcome_text) for effective, outcome_text in cached], []
        text = decode_text(content)
        data = load_text(text, path.suffix)
    except RefusedInput as exc:
        return [], [LoadError(shown, f"refused: {exc}", *_marked(exc))]
    except yaml.YAMLError as exc:
        return [], [LoadError(shown, f"not valid YAML/JSON: {exc}", *_marked(exc))]
    except json.JSONDecodeError as exc:
        return [], [LoadError(shown, f"not valid YAML/JSON: {exc}", None, "", exc.lineno, exc.colno)]
    except OSError as exc:
        return [], [LoadError(shown, f"cannot read: {exc}")]
    try:
        schema = case_schema(root / SCHEMA_FILE, purpose.value)
    except CaseSchemaError as exc:
        return [], [LoadError(shown, str(exc))]

    file_errors: list[LoadError] = []
    bad_cases: dict[int, list[ValidationError]] = {}
    for error in schema.file_errors(data):
        path_parts = list(error.instance_path)
        if len(path_parts) >= 2 and path_parts[0] == "cases" and isinstance(path_parts[1], int):
            bad_cases.setdefault(path_parts[1], []).append(error)
        else:
            file_errors.append(LoadError(shown, schema.message(error), pointer=_pointer(path_parts)))
    defaults = data.get("defaults", {}) if isinstance(data, dict) and isinstance(data.get("defaults"), dict) else {}
    file_errors += [LoadError(shown, message, pointer=_pointer(["defaults", *where]))
                    for message, where in _reference_problems(defaults)]
    # Broken defaults would be reported again in every case; otherwise each case is still
    # checked, so that one run names every problem of the file.
    if file_errors and (not _has_case_list(data) or any(e.pointer.startswith("/defaults") for e in file_errors)):
        return [], _placed(file_errors, text)

    cases: list[Case] = []
    errors: list[LoadError] = list(file_errors)
    seen: set[str] = set()
    known_tags = behaviour_ids(root)
    names = {c["name"] for c in data["cases"] if isinstance(c, dict) and isinstance(c.get("name"), str)}
    aliases_seen: dict[str, str] = {}
    for index, raw_case in enumerate(data["cases"]):
        name = raw_case.get("name") if isinstance(raw_case, dict) else None
        label = name if isinstance(name, str) else f"#{index}"
        prefix = ["cases", index]
        problems = [
            LoadError(shown, schema.message(e), label, _pointer(list(e.instance_path)))
            for e in schema.most_specific(bad_cases.get(index, []))
        ]
        if not isinstance(raw_case, dict):
            errors.extend(problems)
            continue
        effective = {**defaults, **raw_case}
        problems += [
            LoadError(shown, schema.message(e), label, _pointer(prefix + list(e.instance_path)))
            for e in schema.most_specific(schema.case_errors(effective))
        ]

        def problem(message: str, *where: str | int, label=label, prefix=prefix) -> LoadError:
            return LoadError(shown, message, label, _pointer([*prefix, *where]))

        if isinstance(name, str) and name in seen:  # a name of another type is a schema error already
            problems.append(problem(f"duplicate case name {name!r}", "name"))
        tags = effective.get("tags") if isinstance(effective.get("tags"), list) else []
        unknown = [tag for tag in tags if isinstance(tag, str) and tag not in known_tags]
        if unknown:
            problems.append(problem(f"unknown behaviour ids {unknown} (see {BEHAVIOURS_FILE})", "tags"))
        problems.extend(_non_json_values(effective, shown, label, prefix))
        problems.extend(problem(message, *where) for message, where in _divergence_problems(effective))
        problems.extend(problem(message, *where) for message, where in _reference_problems(raw_case))
        schema_ref = effective.get("schema")
        named = schema_ref.get("named") if isinstance(schema_ref, dict) else None
        if isinstance(named, str) and not _named_schema_path(root, named):
            problems.append(problem(f"named schema {named!r} not found in {SCHEMAS_DIR}/", "schema", "named"))
        aliases = raw_case.get("aliases")
        for position, alias in enumerate(aliases if isinstance(aliases, list) else []):
            if not isinstance(alias, str):
                continue
            local = alias.removeprefix(f"{shown}::")
            if local in names:
                problems.append(problem(f"alias {alias!r} is the name of a case of this file", "aliases", position))
            elif alias in aliases_seen:
                problems.append(problem(f"alias {alias!r} is also an alias of {aliases_seen[alias]!r}",
                                        "aliases", position))
            aliases_seen.setdefault(alias, label)
        if isinstance(name, str):
            seen.add(name)
        problems = list(dict.fromkeys(problems))  # the file's and the case's schema may say the same
        if problems:
            errors.extend(problems)
            continue
        if not file_errors:
            cases.append(_build_case(shown, effective, path))
    if key is not None and not errors:
        case_cache.put(key, [(case.raw, case.outcome.json_text) for case in cases])
    return cases, _placed(errors, text)


def _marked(error: yaml.YAMLError) -> tuple[None, str, int, int]:
    """A YAML error's place as LoadError's case, pointer, line and column."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    return (None, "", mark.line + 1, mark.column + 1) if mark is not None else (None, "", 0, 0)


def _placed(errors: list[LoadError], text: str) -> list[LoadError]:
    """Each error with the line and column of the value its JSON pointer names."""
    if not errors:
        return errors
    position = value_positions(text)
    placed = []
    for error in errors:
        parts = [int(part) if part.isdigit() else part for part in jsonpointer.parse(error.pointer)]
        found = position(parts) if error.pointer else None
        placed.append(error._replace(line=found[0], column=found[1]) if found else error)
    return placed


def _has_case_list(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("cases"), list)


def _named_schema_path(root: Path, name: str) -> Path | None:
    for suffix in CASE_SUFFIXES:
        candidate = root / SCHEMAS_DIR / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def named_schema_path(name: str, root: Path = BUNDLED_CASES_DIR) -> Path | None:
    return _named_schema_path(root, name)


def _build_case(file: str, data: dict[str, Any], path: Path | None = None, outcome_text: str | None = None) -> Case:
    """The case ``data`` states (a case's members after its file's defaults), which it keeps as ``raw``;
    ``outcome_text``, where known, is its outcome's :attr:`Outcome.json_text`."""
    get = data.get
    schema, alternatives = get("schema"), get("alternatives")
    profiles, divergences, options = get("profiles"), get("divergences"), get("options")
    outcome = _steps_outcome(data["steps"]) if "steps" in data else _outcome(data)
    if outcome_text is not None:
        outcome.__dict__["json_text"] = outcome_text  # as the cached_property keeps what it worked out
    return _built(Case, {
        "file": file,
        "name": data["name"],
        "description": data["description"],
        "type": data["type"],
        "tags": tuple(data["tags"]),
        "inputs": {key: data[key] for key in INPUT_KEYS if key in data},
        "outcome": outcome,
        "provenance": tuple(get("provenance", ())),
        "schema": SchemaRef.from_json(schema) if schema is not None else None,
        "alternatives": tuple(_outcome(alt) for alt in alternatives) if alternatives else (),
        "nondeterministic": bool(get("nondeterministic", False)),
        "profiles": {name: ProfileOutcome(_outcome(entry), entry["reason"])
                     for name, entry in profiles.items()} if profiles else {},
        "divergences": tuple(_divergence(entry) for entry in divergences) if divergences else (),
        "options": dict(options) if options else {},
        "targets": tuple(get("targets", ())),
        "raw": data,
        "aliases": tuple(get("aliases", ())),
        "references": tuple(get("references", ())),
        "path": path,
    })


def _built(cls: type, fields: dict[str, Any]) -> Any:
    """A frozen dataclass instance holding ``fields`` (every one of them), as its ``__init__`` would
    make it, without the ``object.__setattr__`` call per field that a frozen ``__init__`` makes:
    a third of building the corpus's cases (tests/harness/test_cases.py checks it is the same)."""
    instance = object.__new__(cls)
    instance.__dict__.update(fields)
    return instance


def _outcome(data: Mapping[str, Any]) -> Outcome:
    """:meth:`Outcome.from_json`, made as :func:`_built` makes a case (there are as many)."""
    error = data.get("expected_error")
    return _built(Outcome, {"document": data.get("expected", ABSENT), "patch": data.get("expected_patch", ABSENT),
                            "error": ExpectedError.from_json(error) if error else None})


def _divergence(entry: Mapping[str, Any]) -> Divergence:
    target, alternatives = entry["target"], entry.get("alternatives")
    return Divergence(
        targets=(target,) if isinstance(target, str) else tuple(target),
        outcome=_divergent_outcome(entry),
        reason=entry["reason"],
        versions=entry.get("versions"),
        issue=entry.get("issue"),
        alternatives=tuple(_divergent_outcome(alt) for alt in alternatives) if alternatives else (),
    )


def _divergent_outcome(entry: Mapping[str, Any]) -> Outcome:
    """A divergence's outcome: a step sequence's (``steps``) or a single one."""
    return _steps_outcome(entry["steps"]) if "steps" in entry else _outcome(entry)


def _divergence_problems(case: Mapping[str, Any]) -> Iterator[tuple[str, tuple[str | int, ...]]]:
    """What the schema cannot say of divergences: a step sequence's give one expectation per
    step of the case, under ``steps``; no other case's may have ``steps``."""
    steps = case.get("steps")
    step_count = len(steps) if isinstance(steps, list) else None
    for index, entry in enumerate(case.get("divergences") or ()):
        if not isinstance(entry, dict):
            continue
        for where, outcome in [((index,), entry)] + [
                ((index, "alternatives", position), alt)
                for position, alt in enumerate(entry.get("alternatives") or ()) if isinstance(alt, dict)]:
            at = ("divergences", *where)
            stated = outcome.get("steps")
            if step_count is None:
                if stated is not None:
                    yield "'steps' in a divergence is for server-side-apply cases only", (*at, "steps")
            elif stated is None:
                yield "a server-side-apply divergence states 'steps', one expectation per step of the case", at
            elif isinstance(stated, list) and len(stated) != step_count:
                yield (f"the divergence states {len(stated)} step expectations for the case's {step_count} steps",
                       (*at, "steps"))


class IssueRef(NamedTuple):
    """The GitHub issue or pull request a ``references`` URL names (a repository numbers both alike)."""

    owner: str
    repo: str
    number: int
    kind: str  # "issues" or "pull"

    @classmethod
    def parse(cls, url: str) -> IssueRef | None:
        match = _ISSUE_URL.fullmatch(url)
        if match is None:
            return None
        owner, repo, kind, number = match.groups()
        return cls(owner, repo, int(number), kind)

    @property
    def key(self) -> tuple[str, str, int]:
        """What makes two references the same: GitHub compares owner and repository without case."""
        return self.owner.lower(), self.repo.lower(), self.number

    @property
    def short(self) -> str:
        """``owner/repo#N``, as GitHub writes a cross-repository reference."""
        return f"{self.owner}/{self.repo}#{self.number}"


_ISSUE_URL = re.compile(r"https://github\.com/([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})/(issues|pull)/([1-9][0-9]{0,9})")


def _reference_problems(case: Mapping[str, Any]) -> Iterator[tuple[str, tuple[str | int, ...]]]:
    """``references`` naming one issue twice (the schema checks each URL's shape; a repository's issues and
    pull requests share their numbers, so ``/issues/5`` and ``/pull/5`` are one)."""
    references = case.get("references")
    first: dict[tuple[str, str, int], int] = {}
    for position, url in enumerate(references if isinstance(references, list) else ()):
        ref = IssueRef.parse(url) if isinstance(url, str) else None
        if ref is None:
            continue
        if ref.key in first:
            yield (f"reference {url!r} names the issue of reference {first[ref.key]} "
                   f"({references[first[ref.key]]!r}) again", ("references", position))
        first.setdefault(ref.key, position)


def _steps_outcome(steps: list[Mapping[str, Any]]) -> Outcome:
    """A step sequence's expectations as one outcome: ``{"steps": [{expected…}, …]}``."""
    return Outcome(document={"steps": [
        {key: step[key] for key in STEP_EXPECTATIONS if key in step} for step in steps
    ]})


def _pointer(parts: list[Any]) -> str:
    return jsonpointer.build(parts)


def _has_non_json_values(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is dict:
            for key in node:
                if key.__class__ is not str:
                    return True
            stack.extend(node.values())
        elif cls is list:
            stack.extend(node)
        elif cls is float and not math.isfinite(node):
            return True
    return False


def _non_json_values(value: Any, file: str, case: str, prefix: list[Any]) -> list[LoadError]:
    """Values JSON cannot carry (NaN, infinities, non-string keys)."""
    if not _has_non_json_values(value):  # the usual answer, found without building a pointer per node
        return []
    problems: list[LoadError] = []
    stack: list[tuple[Any, list[Any]]] = [(value, prefix)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            problems.append(LoadError(file, f"{node!r} is not a JSON number", case, _pointer(where)))
        elif isinstance(node, dict):
            for key, child in node.items():
                if not isinstance(key, str):
                    problems.append(LoadError(file, f"key {key!r} is not a string; quote it", case, _pointer(where)))
                stack.append((child, [*where, key]))
        elif isinstance(node, list):
            stack.extend((child, [*where, i]) for i, child in enumerate(node))
    return problems
