"""A fast yes/no check of data against a JSON Schema: the keywords the case schema uses, compiled.

jsonschema explains errors well but walks each instance through layers of objects (about
a millisecond per case here: most of loading the corpus once YAML parses in C). The corpus
is almost always valid, so the loader asks this compiled check first and calls jsonschema
only for data the check rejects, to say why. A schema using anything outside this subset
(another draft's ``items``, a remote ``$ref``, an unknown keyword, a keyword of the wrong
shape) compiles to ``None``, and jsonschema does all the work as before.

The check must accept exactly what jsonschema (draft 2020-12, formats not asserted)
accepts; tests/harness/test_fastschema.py holds it to jsonschema on the corpus and on
mutations of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import unquote

Check = Callable[[Any], bool]

# Keywords that never change whether an instance is valid (format is not asserted by default).
ANNOTATIONS = frozenset({
    "$schema", "$comment", "$defs", "definitions", "title", "description", "default", "examples",
    "deprecated", "readOnly", "writeOnly", "format", "contentMediaType", "contentEncoding",
})
TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": lambda x: isinstance(x, int | float) and not isinstance(x, bool),
    "integer": lambda x: (isinstance(x, int) and not isinstance(x, bool))
    or (isinstance(x, float) and x.is_integer()),
}


class Unsupported(Exception):
    """The schema uses something this compiler does not handle."""


def compile_schema(schema: Any) -> Check | None:
    """A function telling whether an instance is valid, or None when jsonschema must decide."""
    try:
        return _Compiler(schema).compile(schema, root=True)
    except (Unsupported, re.error, RecursionError):
        return None


def equal(one: Any, two: Any) -> bool:
    """JSON equality as jsonschema sees it for enum, const and uniqueItems: 1 == 1.0, true != 1."""
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(equal(one[key], two[key]) for key in one)
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return one == two


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]

    def check(x: Any) -> bool:
        for each in checks:  # noqa: SIM110 - a loop is faster than all() over a generator
            if not each(x):
                return False
        return True

    return check


def _need(condition: bool, keyword: str) -> None:
    if not condition:
        raise Unsupported(keyword)


def _count(value: Any, keyword: str) -> int:
    _need(isinstance(value, int) and not isinstance(value, bool) and value >= 0, keyword)
    return value


class _Compiler:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.refs: dict[str, list[Check]] = {}

    def compile(self, schema: Any, root: bool = False) -> Check:
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        _need(isinstance(schema, dict), "schema")
        # a nested $id would change what refs mean
        _need("$id" not in schema or root or schema is self.root, "$id")
        checks: list[Check] = []
        for keyword, value in schema.items():
            if keyword in ANNOTATIONS or keyword in ("$id", "then", "else", "minContains", "maxContains"):
                continue  # then/else and min/maxContains are read with if and contains
            build = self.KEYWORDS.get(keyword)
            _need(build is not None, keyword)
            checks.append(build(self, value, schema))
        return _all(checks)

    # --- any instance ---------------------------------------------------------------------

    def _type(self, value: Any, schema: dict) -> Check:
        names = value if isinstance(value, list) else [value]
        _need(bool(names) and all(name in TYPES for name in names), "type")
        tests = [TYPES[name] for name in names]
        return tests[0] if len(tests) == 1 else (lambda x: any(test(x) for test in tests))

    def _enum(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, list), "enum")
        if all(isinstance(each, str) for each in value):
            strings = frozenset(value)
            return lambda x: isinstance(x, str) and x in strings
        return lambda x: any(equal(each, x) for each in value)

    def _const(self, value: Any, schema: dict) -> Check:
        if isinstance(value, str):
            return lambda x: isinstance(x, str) and x == value
        return lambda x: equal(x, value)

    def _all_of(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, list) and bool(value), "allOf")
        return _all([self.compile(each) for each in value])

    def _any_of(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, list) and bool(value), "anyOf")
        checks = [self.compile(each) for each in value]
        return lambda x: any(check(x) for check in checks)

    def _one_of(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, list) and bool(value), "oneOf")
        checks = [self.compile(each) for each in value]
        return lambda x: sum(1 for check in checks if check(x)) == 1

    def _not(self, value: Any, schema: dict) -> Check:
        check = self.compile(value)
        return lambda x: not check(x)

    def _if(self, value: Any, schema: dict) -> Check:
        condition = self.compile(value)
        then = self.compile(schema.get("then", True))
        otherwise = self.compile(schema.get("else", True))
        return lambda x: then(x) if condition(x) else otherwise(x)

    def _ref(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, str) and value.startswith("#"), "$ref")
        if value not in self.refs:
            cell: list[Check] = []
            self.refs[value] = cell
            cell.append(self.compile(self._resolve(value)))
        cell = self.refs[value]
        return lambda x: cell[0](x)

    def _resolve(self, reference: str) -> Any:
        target = self.root
        pointer = unquote(reference[1:])
        _need(pointer == "" or pointer.startswith("/"), "$ref")
        for token in pointer.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(target, list) and token.isdigit() and int(token) < len(target):
                target = target[int(token)]
            else:
                _need(isinstance(target, dict) and token in target, "$ref")
                target = target[token]
        return target

    # --- objects ----------------------------------------------------------------------------

    def _required(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, list) and all(isinstance(name, str) for name in value), "required")
        names = tuple(value)
        return lambda x: not isinstance(x, dict) or all(name in x for name in names)

    def _properties(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, dict), "properties")
        checks = {name: self.compile(subschema) for name, subschema in value.items()}

        def check(x: Any) -> bool:
            if isinstance(x, dict):
                for name, member in x.items():
                    each = checks.get(name)
                    if each is not None and not each(member):
                        return False
            return True

        return check

    def _additional_properties(self, value: Any, schema: dict) -> Check:
        _need("patternProperties" not in schema, "patternProperties")
        known = frozenset(schema.get("properties", {}))
        if value is False:
            return lambda x: not isinstance(x, dict) or known.issuperset(x)
        each = self.compile(value)
        return lambda x: not isinstance(x, dict) or all(each(v) for k, v in x.items() if k not in known)

    def _property_names(self, value: Any, schema: dict) -> Check:
        each = self.compile(value)
        return lambda x: not isinstance(x, dict) or all(each(key) for key in x)

    # --- arrays -----------------------------------------------------------------------------

    def _items(self, value: Any, schema: dict) -> Check:
        _need("prefixItems" not in schema, "prefixItems")
        each = self.compile(value)  # a list here is draft 7's tuple form: refused by compile
        return lambda x: not isinstance(x, list) or all(each(item) for item in x)

    def _contains(self, value: Any, schema: dict) -> Check:
        each = self.compile(value)
        least = _count(schema.get("minContains", 1), "minContains")
        most = _count(schema["maxContains"], "maxContains") if "maxContains" in schema else None

        def check(x: Any) -> bool:
            if not isinstance(x, list):
                return True
            matches = sum(1 for item in x if each(item))
            return matches >= least and (most is None or matches <= most)

        return check

    def _min_items(self, value: Any, schema: dict) -> Check:
        least = _count(value, "minItems")
        return lambda x: not isinstance(x, list) or len(x) >= least

    def _max_items(self, value: Any, schema: dict) -> Check:
        most = _count(value, "maxItems")
        return lambda x: not isinstance(x, list) or len(x) <= most

    def _unique_items(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, bool), "uniqueItems")
        if not value:
            return lambda x: True

        def check(x: Any) -> bool:
            if not isinstance(x, list):
                return True
            if all(isinstance(item, str) for item in x):
                return len(set(x)) == len(x)
            return not any(equal(a, b) for i, a in enumerate(x) for b in x[i + 1:])

        return check

    # --- strings and numbers ----------------------------------------------------------------

    def _pattern(self, value: Any, schema: dict) -> Check:
        _need(isinstance(value, str), "pattern")
        search = re.compile(value).search
        return lambda x: not isinstance(x, str) or search(x) is not None

    def _min_length(self, value: Any, schema: dict) -> Check:
        least = _count(value, "minLength")
        return lambda x: not isinstance(x, str) or len(x) >= least

    def _max_length(self, value: Any, schema: dict) -> Check:
        most = _count(value, "maxLength")
        return lambda x: not isinstance(x, str) or len(x) <= most

    def _bound(self, value: Any, keyword: str, holds: Callable[[Any, Any], bool]) -> Check:
        _need(isinstance(value, int | float) and not isinstance(value, bool), keyword)
        number = TYPES["number"]
        return lambda x: not number(x) or holds(x, value)

    def _minimum(self, value: Any, schema: dict) -> Check:
        return self._bound(value, "minimum", lambda x, bound: x >= bound)

    def _maximum(self, value: Any, schema: dict) -> Check:
        return self._bound(value, "maximum", lambda x, bound: x <= bound)

    KEYWORDS: ClassVar[dict[str, Callable[[_Compiler, Any, dict], Check]]] = {
        "type": _type, "enum": _enum, "const": _const,
        "allOf": _all_of, "anyOf": _any_of, "oneOf": _one_of, "not": _not, "if": _if, "$ref": _ref,
        "required": _required, "properties": _properties, "additionalProperties": _additional_properties,
        "propertyNames": _property_names,
        "items": _items, "contains": _contains, "minItems": _min_items, "maxItems": _max_items,
        "uniqueItems": _unique_items,
        "pattern": _pattern, "minLength": _min_length, "maxLength": _max_length,
        "minimum": _minimum, "maximum": _maximum,
    }
