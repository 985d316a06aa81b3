"""case.schema.json as the loader checks it, by jsonschema-rs (draft 2020-12, compiled in Rust).

A file is checked against the whole schema; each case, after its file's defaults are filled
in, against the definition a :class:`~patchconf.harness.corpus.cases.Purpose` names. Where
one place fails several ways, :func:`most_specific` keeps one error per place as jsonschema's
``best_match`` chooses it (every missing member stays a problem of its own), and
:func:`message` words it: the schema's rules that a newcomer meets most (an expectation,
provenance) get a sentence saying what to do, every other rule jsonschema-rs's message, in
JSON's notation as the file has it, with every allowed value of an enum listed.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema_rs import ValidationError, Validator

# Keywords whose failure says least when another one fails at the same place (as jsonschema ranks them).
WEAK_KEYWORDS = frozenset({"anyOf", "oneOf"})
JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,), "null": (type(None),),
    "number": (int, float), "integer": (int,),
}


class CaseSchemaError(ValueError):
    """The case schema cannot be read or is no JSON Schema: no case file under it can be checked."""


class CaseSchema:
    """The schema at a path, its validators for a whole file and for one case."""

    def __init__(self, path: Path, definition: str = "effectiveCase") -> None:
        import jsonschema_rs  # here, not at the top: a run whose files all come from the case cache needs none

        try:
            self.schema = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CaseSchemaError(f"{path}: cannot read the case schema: {exc}") from exc
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            where = f":{exc.lineno}:{exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
            raise CaseSchemaError(f"{path}{where}: the case schema is not valid JSON: {exc}") from exc
        definitions = self.schema.get("$defs", {}) if isinstance(self.schema, dict) else {}
        if definition not in definitions:  # an older schema knows only effectiveCase
            definition = "effectiveCase"
        self.case_schema = {"$ref": f"#/$defs/{definition}", "$defs": definitions}
        try:  # jsonschema-rs refuses what its metaschema does not allow, and a reference to nothing
            validator = jsonschema_rs.validator_cls_for(self.schema)
            self.file_validator: Validator = validator(self.schema, retriever=_no_retrieval)
            self.case_validator: Validator = validator(self.case_schema, retriever=_no_retrieval)
        except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
            where = "/".join(["", *map(str, getattr(exc, "instance_path", []))])
            at = f" at {where}" if where else ""
            message = getattr(exc, "message", None) or str(exc).splitlines()[0]
            raise CaseSchemaError(f"{path}: the case schema is no JSON Schema{at}: {message}") from exc

    def file_errors(self, data: Any) -> list[ValidationError]:
        return _errors(self.file_validator, data)

    def case_errors(self, case: Any) -> list[ValidationError]:
        return _errors(self.case_validator, case)

    def most_specific(self, errors: list[ValidationError]) -> list[ValidationError]:
        """One readable error per failing place instead of every branch of an anyOf; but every
        missing member, each of which is a problem of its own."""
        chosen: dict[tuple, ValidationError] = {}
        for error in errors:
            best = self._best_match(error)
            key = tuple(best.instance_path)
            if best.kind.name == "required":
                key += (best.message,)
            chosen.setdefault(key, best)
        return list(chosen.values())

    def message(self, error: ValidationError) -> str:
        """What is wrong, said for the case file's author."""
        keyword = error.kind.name
        schema = json.dumps(self.keyword_schema(error))
        if keyword == "anyOf" and "expected" in schema:
            return ("needs one expectation: 'expected', 'expected_patch' or 'expected_error' "
                    "(`patchconf record` asks Kubernetes for it)")
        if keyword == "contains" and "expected" in schema:
            return ("needs an expectation in at least one step: 'expected', 'expected_managed_fields', "
                    "'expected_changed' or 'expected_error' (`patchconf record` asks Kubernetes for them)")
        if keyword == "not":
            return self._forbidden_members(error) or error.message
        if keyword == "required" and error.message.startswith('"provenance"'):
            return (f"{error.message}: which real Kubernetes code confirmed the expectation "
                    "(`patchconf record` or `patchconf verify --write` records it)")
        if keyword == "enum":  # jsonschema-rs names only the first few of the allowed values
            allowed = [_json(option) for option in error.kind.options]
            return f"{_json(error.instance)} is not one of {', '.join(allowed)}"
        return error.message

    def _forbidden_members(self, error: ValidationError) -> str | None:
        """A ``not`` over members (``required``, or an anyOf of them) said as the members the object
        has that it must not: both libraries would print the whole object and the schema instead."""
        forbidden = self.keyword_schema(error)["not"]
        sets = [each.get("required") for each in forbidden.get("anyOf", [forbidden])] \
            if isinstance(forbidden, dict) else []
        instance = error.instance
        present = [names for names in sets if isinstance(names, list) and all(name in instance for name in names)]
        if not present or not isinstance(instance, dict):
            return None
        if any(len(names) > 1 for names in present):  # members that exclude each other
            first = present[0][0]
            others = [name for names in present for name in names if name != first]
            return f"{_quoted([first])} cannot be combined with {_quoted(others, ' or ')}"
        members = [names[0] for names in present]
        verb = "is" if len(members) == 1 else "are"
        return f"{_quoted(members)} {verb} not allowed{self._condition(error)}"

    def _condition(self, error: ValidationError) -> str:
        """Where the nearest then or else around the failed keyword applies, if its if says it by
        constants (``where op is 'csa-upgrade'``, ``unless type is 'server-side-apply'``); else nothing."""
        path = error.schema_path
        for branch in range(len(path) - 2, 0, -1):
            if path[branch] not in ("then", "else"):
                continue
            here: Any = self.schema
            for part in path[:branch]:
                here = here[part]
            if not isinstance(here, dict) or not isinstance(here.get("if"), dict):
                continue
            properties = here["if"].get("properties", {})
            said = [f"{name} is {_quoted([rule['const']])}" for name, rule in properties.items() if "const" in rule]
            if not said or len(said) != len(properties):
                return ""
            return (" where " if path[branch] == "then" else " unless ") + " and ".join(said)
        return ""

    def keyword_schema(self, error: ValidationError) -> Any:
        """The schema object holding the keyword that failed. The error's schema path leads there with
        references resolved: from the file schema's root or, for a case, through the ``$defs`` both share."""
        here: Any = self.schema
        for part in error.schema_path[:-1]:
            here = here[part]
        return here

    def _best_match(self, error: ValidationError) -> ValidationError:
        """jsonschema's ``best_match`` for one error: into an anyOf's or oneOf's branches while one
        of their errors is more relevant than every other."""
        best = error
        while context := [each for branch in getattr(best.kind, "context", None) or () for each in branch]:
            ranked = sorted(context, key=self._relevance)
            if len(ranked) > 1 and self._relevance(ranked[0]) == self._relevance(ranked[1]):
                return best
            best = ranked[0]
        return best

    def _relevance(self, error: ValidationError) -> tuple:
        """jsonschema's ``relevance`` of an error, as best_match ranks a branch's errors (the smallest
        first): deeper in the instance, earlier among siblings, an anyOf or oneOf of its own, a
        schema whose type the instance has."""
        path = error.instance_path
        expected = self.keyword_schema(error).get("type") if error.kind.name != "falseSchema" else None
        names = [expected] if isinstance(expected, str) else expected or []
        matches_type = any(_is_type(error.instance, name) for name in names)
        return -len(path), tuple(path), error.kind.name not in WEAK_KEYWORDS, not matches_type


@cache
def case_schema(schema_path: Path, definition: str = "effectiveCase") -> CaseSchema:
    """The schema at ``schema_path``, cases checked against ``#/$defs/<definition>``; built once."""
    return CaseSchema(schema_path, definition)


def _no_retrieval(uri: str) -> Any:
    """Refuse a reference outside the schema: loading a corpus fetches nothing (jsonschema-rs would)."""
    raise ValueError(f"{uri}: a reference outside the case schema, which is not fetched")


def _errors(validator: Validator, instance: Any) -> list[ValidationError]:
    if validator.is_valid(instance):  # nearly always: no error is built
        return []
    return list(validator.iter_errors(instance))


def _is_type(instance: Any, name: str) -> bool:
    if isinstance(instance, bool):
        return name == "boolean"
    if name == "integer" and isinstance(instance, float):
        return instance.is_integer()
    return isinstance(instance, JSON_TYPES.get(name, ()))


def _quoted(names: list[Any], last: str = ", ") -> str:
    """Members named as the other messages of the loader name them: 'a', 'b' (or 'a' or 'b')."""
    quoted = [f"'{name}'" for name in names]
    return ", ".join(quoted[:-1]) + last + quoted[-1] if len(quoted) > 1 else quoted[0]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
