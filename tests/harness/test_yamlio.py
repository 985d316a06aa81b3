"""Reading case files: the same JSON values as PyYAML's SafeLoader gave, and hostile files refused fast."""

import math
from pathlib import Path

import pytest
import yaml

from patchconf.harness.corpus import yamlio
from patchconf.harness.corpus.cases import iter_case_files, load_file
from tests.harness.corpus_snippets import case_file

REPO = Path(__file__).resolve().parents[2]

GOOD = case_file("""
      - name: one
        description: adds a member
        original: {a: 1}
        patch: [{op: add, path: /b, value: 2}]
        expected: {a: 1, b: 2}
""")


class ReferenceLoader(yaml.SafeLoader):
    """The loader before libyaml: PyYAML's pure-Python SafeLoader with the same YAML 1.2 core scalars."""


ReferenceLoader.yaml_implicit_resolvers = yamlio.CoreResolver.yaml_implicit_resolvers
ReferenceLoader.add_constructor(yamlio.INT_TAG, lambda loader, node: yamlio._int(loader.construct_scalar(node)))


def same_json(a, b) -> bool:
    """Equal with types and key order (1 != 1.0 != true); NaN equals NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def refused(text: str) -> str:
    with pytest.raises(yamlio.RefusedInput) as info:
        yamlio.load_text(text)
    return str(info.value)


def test_the_corpus_reads_as_pythons_safeloader_reads_it():
    # every file with anchors, and a quarter of the others (the pure-Python loader is slow)
    paths = [p for p in iter_case_files([REPO / "cases"]) if p.suffix == ".yaml"]
    texts = [(path, path.read_text(encoding="utf-8")) for path in paths]
    for index, (path, text) in enumerate(texts):
        if index % 4 == 0 or "&" in text:
            assert same_json(yamlio.load_text(text), yaml.load(text, Loader=ReferenceLoader)), path


def test_core_scalars_and_shared_aliases():
    data = yamlio.load_text("a: .inf\nb: -.Inf\nc: .NaN\nd: 0x1F\ne: 0o17\nf: 1e3\ng: +5\nh: ~\n"
                            "i: !!str 5\nj: !!float 1\nk: yes\nl: 2001-12-14\nm: &m [1]\nn: *m\n")
    assert data["a"] == math.inf and data["b"] == -math.inf and math.isnan(data["c"])
    assert [data[k] for k in "defghijkl"] == [31, 15, 1000.0, 5, None, "5", 1.0, "yes", "2001-12-14"]
    assert type(data["f"]) is float and type(data["g"]) is int
    assert data["m"] is data["n"]  # an alias is its anchor's value, as in PyYAML


@pytest.mark.parametrize(("text", "message"), [
    ("a: 1\nb: 2\na: 3\n", "found duplicate key 'a' (first at line 1)\n  in \"<unicode string>\", line 3, column 1:\n"
                           "    a: 3\n    ^"),
    ("{[1]: 2}", "found unhashable key"),
    ("a: !!binary aGVsbG8=", "tag 'tag:yaml.org,2002:binary' is not allowed: case files hold JSON values"),
    ("a: !!timestamp 2001-12-14", "tag 'tag:yaml.org,2002:timestamp' is not allowed"),
    ("a: !!set {x}", "tag 'tag:yaml.org,2002:set' is not allowed"),
    ("a: !!bool yes", "cannot read bool 'yes'"),
    ("a: " + "9" * 5000, "cannot read int '9999999999999999999999999999999999999999': Exceeds the limit"),
    ("---\na: 1\n---\nb: 2\n", "expected a single document in the stream"),
    ("a: &x 1\nb: &x 2\n", "found duplicate anchor 'x'; first occurrence"),
    ("a: *nope", "found undefined alias 'nope'"),
    ("a: [1, 2", "while parsing a flow sequence\n  in \"<unicode string>\", line 1, column 4:\n    a: [1, 2\n       ^"),
])
def test_what_json_cannot_hold_is_an_error_with_its_position(text, message):
    with pytest.raises(yaml.YAMLError) as info:
        yamlio.load_text(text)
    assert not isinstance(info.value, yamlio.RefusedInput)
    assert message in str(info.value)


def billion_laughs(levels: int = 9) -> str:
    lines = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels + 1):
        lines.append(f"lol{level}: &lol{level} [" + ", ".join([f"*lol{level - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def test_hostile_yaml_is_refused_before_it_is_expanded():
    cases = {
        "alias bomb": (billion_laughs(), "aliases expand this collection to more than 16,777,216 nodes and "
                                         "characters (an alias bomb?)\n  in \"<unicode string>\", line 7, column 7"),
        "deep flow": ("[" * 100_000 + "]" * 100_000, "nested deeper than 200 levels\n"
                                                     "  in \"<unicode string>\", line 1, column 201"),
        "deep block": ("".join("  " * i + "a:\n" for i in range(5000)) + "  " * 5000 + "b\n",
                       "nested deeper than 200 levels\n  in \"<unicode string>\", line 201, column 401"),
        "deep via aliases": ("a: &a " + "[" * 150 + "1" + "]" * 150 + "\nb: " + "[" * 100 + "*a" + "]" * 100,
                             "aliases nest this collection deeper than 200 levels"),
        "recursive alias": ("a: &a [1, *a]", "alias *a refers to the collection that defines it (a recursive alias)"),
        "huge scalar": ("x: " + "y" * (yamlio.MAX_SCALAR_CHARS + 1),
                        "a scalar of 1,048,577 characters, over the limit of 1,048,576"),
    }
    # Each message is the loader's count or limit refusing before anything is expanded (the alias
    # bomb's 10**9 nodes would take minutes and gigabytes): no wall clock, which load can stretch.
    for label, (text, message) in cases.items():
        assert message in refused(text), label


def test_hostile_json_is_refused():
    with pytest.raises(yamlio.RefusedInput, match="nested deeper than 200 levels"):
        yamlio.load_text("[" * 100_000 + "]" * 100_000, ".json")
    with pytest.raises(yamlio.RefusedInput, match="nested deeper than 200 levels"):
        yamlio.load_text("[" * 201 + "]" * 201, ".json")
    assert yamlio.load_text("[" * 200 + "]" * 200, ".json") is not None
    with pytest.raises(yamlio.RefusedInput, match="duplicate key 'a' in a JSON object"):
        yamlio.load_text('{"a": 1, "b": {"a": 2}, "a": 3}', ".json")
    with pytest.raises(yamlio.RefusedInput, match="Exceeds the limit"):
        yamlio.load_text("[" + "9" * 5000 + "]", ".json")


def test_hostile_files_are_load_errors_naming_the_file(write_case_file, tmp_path):
    checks = {
        "bomb.yaml": (billion_laughs(), "refused: aliases expand this collection"),
        "deep.yaml": ("cases: " + "[" * 100_000 + "]" * 100_000, "refused: nested deeper than 200 levels"),
        "huge.yaml": ("cases:\n  - name: " + "x" * (yamlio.MAX_FILE_BYTES + 1),
                      "refused: the file is over the limit of 8,388,608 bytes for a case file"),
        "deep.json": ("[" * 100_000 + "]" * 100_000, "refused: nested deeper than 200 levels"),
    }
    for name, (text, message) in checks.items():
        path = write_case_file(f"json-patch/{name}", text)
        cases, errors = load_file(path)
        assert cases == [] and len(errors) == 1, name
        assert errors[0].file == f"cases/json-patch/{name}" or errors[0].file.endswith(f"json-patch/{name}")
        assert errors[0].message.startswith(message), (name, errors[0].message[:200])
    latin1 = write_case_file("json-patch/latin1.yaml", GOOD)
    latin1.write_bytes(latin1.read_bytes().replace(b"adds a member", b"adds a caf\xe9 member"))
    cases, errors = load_file(latin1)
    assert cases == []
    assert [e.message for e in errors] == ["refused: not UTF-8: byte 0xe9 at line 7, column 28"]


def test_yaml11_differences_refuses_what_our_loader_refuses():
    # libyaml's own composer would crash the interpreter on this; ours refuses it first.
    with pytest.raises(yamlio.RefusedInput):
        yamlio.yaml11_differences("[" * 100_000 + "]" * 100_000)
    assert yamlio.yaml11_differences("a: on\nb: 'on'\n") == ["/a: 'on' reads as True under YAML 1.1; quote it"]
