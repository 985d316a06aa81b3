"""harness/corpus/casecache.py: loaded case files reused only while nothing they depend on changed."""

from __future__ import annotations

import json
import marshal
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from patchconf.harness.corpus import casecache
from patchconf.harness.corpus.casecache import FORMAT, SUFFIX, CaseCache
from patchconf.harness.corpus.cases import Purpose, behaviour_ids, case_schema, display_path, load_corpus, load_file

CASE = """\
cases:
  - name: add-a-key
    description: A merge patch adds a key.
    type: merge-patch
    tags: [MP-NESTED]
    original: {a: 1}
    patch: {b: 2}
    expected: {a: 1, b: 2}
    provenance: [{implementation: kubectl, version: "1.32.4"}]
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "case-cache"
    monkeypatch.setenv(casecache.ENVIRONMENT_VARIABLE, str(directory))
    return directory


def check(payload: bytes) -> bytes:
    """An entry's check of its contents: CRC-32, big-endian."""
    return zlib.crc32(payload).to_bytes(4, "big")


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob(f"*{SUFFIX}")) if directory.is_dir() else []


def key_of(path: Path, purpose: Purpose = Purpose.CORPUS) -> str:
    root = path.parent
    return CaseCache(Path("unused")).key(path.read_bytes(), display_path(path), root, purpose.value,
                                         root / "BEHAVIOURS.md")


def test_a_file_loaded_again_comes_from_its_entry_and_equals_a_full_load(write_case_file, cache_dir):
    path = write_case_file("merge.yaml", CASE)
    first, first_errors = load_file(path)
    assert entries(cache_dir) == [cache_dir / f"{key_of(path)}{SUFFIX}"]
    second, second_errors = load_file(path)
    assert first_errors == second_errors == []
    assert second == first
    assert [case.raw for case in second] == [case.raw for case in first]
    assert second[0].path == path
    assert second[0].inputs == {"original": {"a": 1}, "patch": {"b": 2}}


def test_an_intact_entry_is_what_loads(write_case_file, cache_dir):
    # Proof that a second load reads the entry: a planted entry under the file's key wins.
    path = write_case_file("merge.yaml", CASE)
    (case,), _ = load_file(path)
    planted = {**case.raw, "description": "from the cache"}
    payload = marshal.dumps({"cases": [planted], "outcome_texts": ['{"expected": "from the cache"}']})
    (cache_dir / f"{key_of(path)}{SUFFIX}").write_bytes(
        FORMAT + check(payload) + payload)
    (again,), errors = load_file(path)
    assert errors == []
    assert again.description == "from the cache"
    assert again.outcome.json_text == '{"expected": "from the cache"}'


def test_a_cases_outcome_comes_with_its_json_text_which_a_full_load_works_out(write_case_file, cache_dir):
    path = write_case_file("merge.yaml", CASE.replace("{a: 1, b: 2}", '{a: 1, b: "ü\\u2028"}'))
    (full,), _ = load_file(path)  # worked out to be stored
    (cached,), _ = load_file(path)
    assert cached.outcome.__dict__["json_text"] == '{"expected": {"a": 1, "b": "ü\u2028"}}'  # as stored
    assert full.outcome.json_text == cached.outcome.json_text == json.dumps(full.outcome.to_json(), ensure_ascii=False)
    another = replace(cached.outcome, patch={"b": 2})  # its own text, worked out when asked for
    assert another.json_text == '{"expected": {"a": 1, "b": "ü\u2028"}, "expected_patch": {"b": 2}}'


def test_an_edited_file_is_loaded_again(write_case_file, cache_dir):
    path = write_case_file("merge.yaml", CASE)
    load_file(path)
    path.write_text(CASE.replace("{a: 1, b: 2}", "{a: 1, b: 3}"), encoding="utf-8")
    (case,), errors = load_file(path)
    assert errors == []
    assert case.outcome.document == {"a": 1, "b": 3}
    assert len(entries(cache_dir)) == 2


ENTRY_SHORT = {"cases": [{"name": "a"}], "outcome_texts": []}


@pytest.mark.parametrize("damage", [
    pytest.param(lambda data: data[:-7], id="cut-short"),
    pytest.param(lambda data: data[:-1] + bytes([data[-1] ^ 1]), id="a-flipped-bit"),
    pytest.param(lambda data: b"", id="empty"),
    pytest.param(lambda data: b"not a cache entry at all", id="another-format"),
    pytest.param(lambda data: data[:len(FORMAT)] + check(b"\xff") + b"\xff",
                 id="intact-digest-of-bytes-marshal-cannot-read"),
    pytest.param(lambda data: data[:len(FORMAT)] + check(marshal.dumps({"a": 1}))
                 + marshal.dumps({"a": 1}), id="intact-digest-of-something-else"),
    pytest.param(lambda data: data[:len(FORMAT)] + check(marshal.dumps(ENTRY_SHORT))
                 + marshal.dumps(ENTRY_SHORT), id="intact-digest-of-cases-without-their-texts"),
])
def test_a_damaged_entry_is_ignored_and_replaced(write_case_file, cache_dir, damage):
    path = write_case_file("merge.yaml", CASE)
    expected, _ = load_file(path)
    (entry,) = entries(cache_dir)
    intact = entry.read_bytes()
    entry.write_bytes(damage(intact))
    cases, errors = load_file(path)
    assert errors == []
    assert cases == expected
    assert [case.raw for case in cases] == [case.raw for case in expected]
    assert entry.read_bytes() == intact


def test_an_entry_holds_each_string_once_and_shared_members_stay_shared(write_case_file, cache_dir):
    path = write_case_file("merge.yaml", "defaults:\n  provenance: [{implementation: kubectl, version: '1.32.4'}]\n"
                           + CASE.replace("    provenance: [{implementation: kubectl, version: \"1.32.4\"}]\n", "")
                           + CASE.split("cases:\n")[1].replace("add-a-key", "add-another").replace(
                               "    provenance: [{implementation: kubectl, version: \"1.32.4\"}]\n", ""))
    first, errors = load_file(path)
    assert errors == [] and len(first) == 2
    (entry,) = entries(cache_dir)
    payload = entry.read_bytes()[len(FORMAT) + 4:]
    assert payload.count(b"merge-patch") == payload.count(b"MP-NESTED") == 1
    assert marshal.loads(payload) == {"cases": [dict(case.raw) for case in first],
                                      "outcome_texts": [case.outcome.json_text for case in first]}
    second, _ = load_file(path)
    assert [case.raw for case in second] == [case.raw for case in first]
    assert second[0].raw["provenance"] is second[1].raw["provenance"]  # the file's defaults, as a full load has them
    assert first[0].raw["provenance"] is first[1].raw["provenance"]


def test_a_file_with_problems_is_never_stored_and_reported_every_time(write_case_file, cache_dir):
    path = write_case_file("merge.yaml", CASE + """\
  - name: no-expectation
    description: Lacks what it must produce.
    type: merge-patch
    tags: [MP-NESTED]
    original: {a: 1}
    patch: {b: 2}
""")
    for _ in range(2):
        cases, errors = load_file(path)
        assert [case.name for case in cases] == ["add-a-key"]
        assert [(error.case, error.pointer, error.message[:30]) for error in errors] == [
            ("no-expectation", "/cases/1", "needs one expectation: 'expect"),
            ("no-expectation", "/cases/1", '"provenance" is a required pro'),
        ]
        assert entries(cache_dir) == []


def test_a_changed_case_schema_is_another_key(write_case_file, cache_dir):
    path = write_case_file("merge.yaml", CASE)
    load_file(path)
    schema_file = path.parent / "case.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    schema["$defs"]["case"]["properties"]["description"]["maxLength"] = 5
    schema_file.write_text(json.dumps(schema), encoding="utf-8")
    case_schema.cache_clear()  # as a new process would read it
    try:
        cases, errors = load_file(path)
    finally:
        case_schema.cache_clear()
    assert cases == []
    assert [(error.case, error.pointer) for error in errors] == [("add-a-key", "/cases/0/description")]


def test_a_changed_behaviours_list_is_another_key(write_case_file, cache_dir):
    path = write_case_file("merge.yaml", CASE)
    load_file(path)
    behaviours = path.parent / "BEHAVIOURS.md"
    behaviours.write_text(behaviours.read_text(encoding="utf-8").replace("- MP-NESTED:", "- MP-NESTING:"),
                          encoding="utf-8")
    behaviour_ids.cache_clear()
    try:
        cases, errors = load_file(path)
    finally:
        behaviour_ids.cache_clear()
    assert cases == []
    assert [error.message for error in errors] == ["unknown behaviour ids ['MP-NESTED'] (see BEHAVIOURS.md)"]


def test_a_removed_named_schema_is_another_key(write_case_file, cache_dir):
    schema = write_case_file("schemas/thing.yaml", "root: Thing\ndefinitions:\n  Thing: {type: object}\n")
    path = write_case_file("merge.yaml", CASE.replace("    original:", "    schema: {named: thing}\n    original:"))
    assert load_file(path)[1] == []
    schema.unlink()
    cases, errors = load_file(path)
    assert cases == []
    assert [error.message for error in errors] == ["named schema 'thing' not found in schemas/"]


def test_another_purpose_or_loader_is_another_key(write_case_file, cache_dir, monkeypatch):
    path = write_case_file("merge.yaml", CASE)
    keys = {key_of(path, Purpose.CORPUS), key_of(path, Purpose.VERIFY)}
    monkeypatch.setattr(casecache, "_LOADER_DIGEST", b"another version of the loader")
    keys.add(key_of(path))
    assert len(keys) == 3


def test_another_jsonschema_rs_is_another_loader_digest(tmp_path, monkeypatch):
    import importlib.machinery
    import importlib.util

    package = tmp_path / "jsonschema_rs"
    package.mkdir()
    (package / "jsonschema_rs.abi3.so").write_bytes(b"version one")
    found = importlib.machinery.ModuleSpec("jsonschema_rs", None, is_package=True)
    found.submodule_search_locations = [str(package)]
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: found if name == "jsonschema_rs" else None)
    identities = [casecache._validator_identity()]
    (package / "jsonschema_rs.abi3.so").write_bytes(b"version two, a longer build")
    identities.append(casecache._validator_identity())
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    identities.append(casecache._validator_identity())
    assert len(set(identities)) == 3
    assert identities[2] == b"jsonschema_rs: none\0"


def test_the_corpus_loads_the_same_from_the_cache(cache_dir):
    full = load_corpus([Path(__file__).resolve().parents[2] / "cases"])
    cached = load_corpus([Path(__file__).resolve().parents[2] / "cases"])
    assert full.errors == cached.errors == []
    assert cached.cases == full.cases
    assert [case.raw for case in cached.cases] == [case.raw for case in full.cases]
    assert ([case.outcome.__dict__["json_text"] for case in cached.cases]
            == [json.dumps(case.outcome.to_json(), ensure_ascii=False) for case in full.cases])


@pytest.mark.parametrize("setting", ["off", "0", "OFF"])
def test_the_cache_can_be_turned_off(write_case_file, monkeypatch, tmp_path, setting):
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "patchconf-cache"))
    monkeypatch.setenv(casecache.ENVIRONMENT_VARIABLE, setting)
    path = write_case_file("merge.yaml", CASE)
    assert len(load_file(path)[0]) == 1
    assert not (tmp_path / "patchconf-cache").exists()


def test_by_default_the_cache_lives_under_patchconfs_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path))
    monkeypatch.delenv(casecache.ENVIRONMENT_VARIABLE, raising=False)
    assert casecache.cache_directory() == tmp_path / "cases"


def test_an_unwritable_cache_still_loads(write_case_file, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv(casecache.ENVIRONMENT_VARIABLE, str(blocker / "cache"))
    path = write_case_file("merge.yaml", CASE)
    for _ in range(2):
        cases, errors = load_file(path)
        assert [case.name for case in cases] == ["add-a-key"] and errors == []
