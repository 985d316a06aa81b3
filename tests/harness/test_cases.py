import dataclasses
import json
import textwrap
from pathlib import Path

from patchconf.harness.corpus.cases import (
    ABSENT,
    Purpose,
    display_path,
    iter_case_files,
    load_corpus,
    load_file,
    version_matches,
)
from patchconf.harness.corpus.yamlio import load_text

REFERENCE_PATTERN = json.loads((Path(__file__).resolve().parents[2] / "cases" / "case.schema.json").read_text())[
    "$defs"]["references"]["items"]["pattern"]

GOOD = """
    defaults:
      type: json-patch
      tags: [JP-ADD]
      provenance: [{implementation: kubectl, version: "1.32.4"}]
    cases:
      - name: one
        description: adds a member
        original: {a: 1}
        patch: [{op: add, path: /b, value: 2}]
        expected: {a: 1, b: 2}
      - name: two
        description: an error
        original: {a: 1}
        patch: [{op: remove, path: /x}]
        expected_error: {class: path-not-found, message: nonexistent}
"""


def test_loads_cases_with_defaults_and_ids(write_case_file):
    path = write_case_file("json-patch/good.yaml", GOOD)
    cases, errors = load_file(path)
    assert errors == []
    assert [c.name for c in cases] == ["one", "two"]
    assert cases[0].id.endswith("cases/json-patch/good.yaml::one")
    assert cases[0].type == "json-patch"
    assert cases[0].tags == ("JP-ADD",)
    assert cases[0].outcome.document == {"a": 1, "b": 2}
    assert cases[0].outcome.patch is ABSENT
    assert cases[1].outcome.error.error_class == "path-not-found"
    assert cases[1].outcome.error.message == "nonexistent"


def test_case_missing_its_expectation_is_rejected_and_others_still_load(write_case_file):
    path = write_case_file("json-patch/mixed.yaml", GOOD.replace("        expected: {a: 1, b: 2}\n", ""))
    cases, errors = load_file(path)
    assert [c.name for c in cases] == ["two"]
    assert len(errors) == 1
    assert errors[0].case == "one"
    assert errors[0].pointer == "/cases/0"
    assert "needs one expectation" in errors[0].message


def test_error_combined_with_expected_is_rejected(write_case_file):
    text = GOOD.replace("expected_error: {class: path-not-found, message: nonexistent}",
                        "expected_error: {class: path-not-found}\n        expected: {}")
    _, errors = load_file(write_case_file("json-patch/both.yaml", text))
    assert [(e.case, e.pointer) for e in errors] == [("two", "/cases/1")]
    assert "cannot be combined" in errors[0].message


def test_bad_member_is_named_by_pointer(write_case_file):
    text = GOOD.replace("expected_error: {class: path-not-found", "expected_error: {class: no-such-class")
    _, errors = load_file(write_case_file("json-patch/badclass.yaml", text))
    assert len(errors) == 1
    assert errors[0].case == "two"
    assert errors[0].pointer == "/cases/1/expected_error/class"
    assert "no-such-class" in errors[0].message


def test_unparsable_file_is_reported_and_other_files_load(write_case_file):
    good = write_case_file("json-patch/good.yaml", GOOD)
    write_case_file("json-patch/broken.yaml", "cases: [ {name: x\n")
    corpus = load_corpus([good.parent])
    assert [c.name for c in corpus.cases] == ["one", "two"]
    assert len(corpus.errors) == 1
    assert corpus.errors[0].file.endswith("broken.yaml")
    assert "not valid YAML/JSON" in corpus.errors[0].message


def test_a_repeated_mapping_key_is_refused_with_both_lines(write_case_file):
    # PyYAML would keep the last one silently; a case would lose what the first one said.
    text = GOOD.replace("expected: {a: 1, b: 2}\n", "expected: {a: 1, b: 2}\n        expected: {a: 1}\n", 1)
    assert text != GOOD
    cases, errors = load_file(write_case_file("json-patch/repeated.yaml", text))
    assert cases == [] and len(errors) == 1
    assert "found duplicate key 'expected' (first at line" in errors[0].message


def test_duplicate_names_unknown_tags_and_missing_inputs(write_case_file):
    text = GOOD.replace("name: two", "name: one").replace("tags: [JP-ADD]", "tags: [JP-NOPE]")
    _, errors = load_file(write_case_file("json-patch/dup.yaml", text))
    messages = sorted(e.message for e in errors)
    assert any("duplicate case name 'one'" in m for m in messages)
    assert sum("unknown behaviour ids ['JP-NOPE']" in m for m in messages) == 2
    text = GOOD.replace("        patch: [{op: add, path: /b, value: 2}]\n", "")
    _, errors = load_file(write_case_file("json-patch/noinput.yaml", text))
    assert [(e.case, e.message) for e in errors] == [("one", '"patch" is a required property')]


def test_null_input_is_present_not_absent(write_case_file):
    text = GOOD.replace("patch: [{op: add, path: /b, value: 2}]", "patch: null")
    cases, _ = load_file(write_case_file("merge/null.yaml", text))
    assert cases[0].has_input("patch") and cases[0].inputs["patch"] is None


def test_yaml_is_read_as_yaml_1_2_core(write_case_file):
    text = GOOD.replace(
        "original: {a: 1}\n        patch: [{op: add", "original: {a: yes, d: 2024-01-01}\n        patch: [{op: add"
    )
    cases, errors = load_file(write_case_file("json-patch/yaml12.yaml", text))
    assert errors == []
    assert cases[0].inputs["original"] == {"a": "yes", "d": "2024-01-01"}


def test_inputs_are_handed_out_as_copies(write_case_file):
    cases, _ = load_file(write_case_file("json-patch/good.yaml", GOOD))
    copy = cases[0].input("original")
    copy["a"] = 99
    assert cases[0].inputs["original"] == {"a": 1}


def test_version_ranges():
    assert version_matches("1.29.3", "<1.30")
    assert not version_matches("1.30.0", "<1.30")
    assert version_matches("v1.32.4-dispatcher", ">=1.27 <1.33")
    assert not version_matches("1.26.9", ">=1.27 <1.33")
    assert version_matches("1.31.0", "==1.31")
    assert version_matches("anything", None)
    assert not version_matches("unknown", ">=1.0")


def test_bundled_corpus_loads_without_errors():
    corpus = load_corpus([Path(__file__).resolve().parents[2] / "cases"])
    assert [str(e) for e in corpus.errors] == []
    assert len(corpus.cases) > 0
    # The loader fills cases and outcomes in without their __init__: what it makes is what __init__ makes.
    outcomes = [outcome for case in corpus.cases
                for outcome in (case.outcome, *case.alternatives, *(p.outcome for p in case.profiles.values()))]
    for made in [*corpus.cases, *outcomes]:
        # but for an outcome's JSON text, which a cached_property keeps beside its fields
        fields = [(name, value) for name, value in vars(made).items() if name != "json_text"]
        assert list(vars(dataclasses.replace(made)).items()) == fields
    for outcome in outcomes:
        if "json_text" in vars(outcome):
            assert outcome.json_text == json.dumps(outcome.to_json(), ensure_ascii=False)


DRAFT = """
    defaults:
      type: json-patch
      tags: [JP-ADD]
    cases:
      - name: stated
        description: an expectation, nobody has confirmed it yet
        original: {a: 1}
        patch: [{op: add, path: /b, value: 2}]
        expected: {a: 1, b: 2}
      - name: inputs-only
        description: only inputs
        original: {a: 1}
        patch: [{op: add, path: /c, value: 3}]
"""


def test_what_a_case_must_state_depends_on_the_purpose(write_case_file):
    path = write_case_file("json-patch/draft.yaml", DRAFT)
    # The committed corpus: every case needs its expectation and who confirmed it.
    cases, errors = load_file(path)
    assert cases == []
    assert sorted((e.case, e.message.split(":")[0]) for e in errors) == [
        ("inputs-only", '"provenance" is a required property'),
        ("inputs-only", "needs one expectation"),
        ("stated", '"provenance" is a required property'),
    ]
    assert all(e.pointer.startswith("/cases/") for e in errors)
    # Under verification provenance may be missing; an expectation may not.
    cases, errors = load_file(path, Purpose.VERIFY)
    assert [c.name for c in cases] == ["stated"] and cases[0].provenance == ()
    assert [(e.case, e.pointer) for e in errors] == [("inputs-only", "/cases/1")]
    assert "patchconf record" in errors[0].message
    # To be recorded, inputs are enough.
    corpus = load_corpus([path], Purpose.RECORD)
    assert corpus.errors == []
    assert [(c.name, c.needs_expectation) for c in corpus.cases] == [("stated", False), ("inputs-only", True)]
    assert corpus.cases[1].outcome.document is ABSENT and corpus.cases[1].outcome.error is None
    assert corpus.cases[1].path == path


def test_any_purpose_still_needs_the_inputs_and_the_rest(write_case_file):
    text = DRAFT.replace("        patch: [{op: add, path: /c, value: 3}]\n", "")
    text = text.replace("tags: [JP-ADD]", "tags: [JP-NOPE]")
    _, errors = load_file(write_case_file("json-patch/draft-bad.yaml", text), Purpose.RECORD)
    messages = sorted((e.case, e.message) for e in errors)
    assert ("inputs-only", '"patch" is a required property') in messages
    assert sum("unknown behaviour ids" in m for _, m in messages) == 2


def test_a_broken_file_names_every_problem_of_its_cases_too(write_case_file):
    text = "surprise: 1\n" + textwrap.dedent(GOOD).replace("description: adds a member", "description: 7")
    cases, errors = load_file(write_case_file("json-patch/many.yaml", text))
    assert cases == []
    assert [(e.case, e.pointer) for e in errors] == [(None, ""), ("one", "/cases/0/description")]
    assert "'surprise' was unexpected" in errors[0].message


def test_a_server_side_apply_case_needs_an_expectation_in_some_step(write_case_file):
    text = """
        cases:
          - name: two-appliers
            description: inputs only
            type: server-side-apply
            tags: [SSA-CONFLICT]
            provenance: [{implementation: upstream, version: "1.32.4"}]
            steps:
              - {op: apply, manager: a, object: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}}}
    """
    path = write_case_file("server-side-apply/draft.yaml", text)
    _, errors = load_file(path)
    assert len(errors) == 1 and "needs an expectation in at least one step" in errors[0].message
    cases, errors = load_file(path, Purpose.RECORD)
    assert errors == [] and cases[0].needs_expectation
    with_one = text.replace("metadata: {name: cm}}}", "metadata: {name: cm}}, expected_changed: true}")
    cases, errors = load_file(write_case_file("server-side-apply/one.yaml", with_one))
    assert errors == [] and not cases[0].needs_expectation


def test_aliases_keep_former_ids(write_case_file):
    text = GOOD.replace("      - name: two\n",
                        "      - name: two\n        aliases: [old-two, cases/json-patch/moved.yaml::gone]\n")
    path = write_case_file("json-patch/aliases.yaml", text)
    cases, errors = load_file(path)
    assert errors == []
    two = cases[1]
    assert two.former_ids == ("cases/json-patch/aliases.yaml::old-two", "cases/json-patch/moved.yaml::gone")
    assert two.answers_to("cases/json-patch/aliases.yaml::old-two") and two.answers_to(two.id)
    assert not cases[0].answers_to("cases/json-patch/aliases.yaml::old-two")
    clash = text.replace("aliases: [old-two,", "aliases: [one, old-two,")
    _, errors = load_file(write_case_file("json-patch/clash.yaml", clash))
    assert [(e.case, e.pointer, e.message) for e in errors] == [
        ("two", "/cases/1/aliases/0", "alias 'one' is the name of a case of this file")]


def test_references_name_public_issues_once(write_case_file):
    kubectl_221 = "https://github.com/kubernetes/kubectl/issues/221"
    text = GOOD.replace("      - name: two\n", f"      - name: two\n        references: [{kubectl_221}]\n")
    cases, errors = load_file(write_case_file("json-patch/refs.yaml", text))
    assert errors == []
    assert (cases[0].references, cases[1].references) == ((), (kubectl_221,))
    # a file's defaults give them to every case that states none of its own
    by_default = text.replace("  tags: [JP-ADD]\n",
                              "  tags: [JP-ADD]\n      references: [https://github.com/helm/helm/pull/7]\n", 1)
    cases, errors = load_file(write_case_file("json-patch/default-refs.yaml", by_default))
    assert errors == []
    assert [c.references for c in cases] == [("https://github.com/helm/helm/pull/7",), (kubectl_221,)]
    bad = text.replace(f"[{kubectl_221}]", "[https://github.com/Kubernetes/Kubectl/pull/221, "
                       f"{kubectl_221}, https://github.com/kubernetes/kubectl/issues/22#c, http://example.com/1]")
    _, errors = load_file(write_case_file("json-patch/bad-refs.yaml", bad))
    assert sorted((e.case, e.pointer, e.message) for e in errors) == [
        ("two", "/cases/1/references/1", f"reference '{kubectl_221}' names the issue of reference 0 "
                                         "('https://github.com/Kubernetes/Kubectl/pull/221') again"),
        ("two", "/cases/1/references/2", '"https://github.com/kubernetes/kubectl/issues/22#c" does not match '
                                         f'"{REFERENCE_PATTERN}"'),
        ("two", "/cases/1/references/3", f'"http://example.com/1" does not match "{REFERENCE_PATTERN}"'),
    ]
    twice = by_default.replace("helm/pull/7]", "helm/pull/7, https://github.com/helm/helm/issues/7]")
    cases, errors = load_file(write_case_file("json-patch/twice.yaml", twice))
    assert cases == []
    assert [(e.case, e.pointer, e.message) for e in errors] == [
        (None, "/defaults/references/1", "reference 'https://github.com/helm/helm/issues/7' names the issue of "
                                         "reference 0 ('https://github.com/helm/helm/pull/7') again")]


def test_a_server_side_apply_divergence_gives_one_outcome_per_step(write_case_file):
    text = """
        defaults:
          type: server-side-apply
          tags: [SSA-KEYS]
          provenance: [{implementation: upstream, version: "1.32.4"}]
        cases:
          - name: two-steps
            description: two steps
            steps:
              - {op: apply, manager: a, object: {apiVersion: v1, kind: ConfigMap}, expected_changed: true}
              - {op: apply, manager: a, object: {apiVersion: v1, kind: ConfigMap}, expected_changed: false}
            divergences:
              - {target: upstream, versions: ">=1.34", reason: one step only, steps: [{expected_changed: true}]}
              - {target: upstream, versions: "<1.29", reason: no steps, expected_error: {class: invalid-patch}}
              - target: upstream
                reason: a step with both an error and an object
                steps: [{expected_changed: true}, {expected_error: {class: conflict}, expected: {}}]
          - name: single
            description: a patch case
            type: merge-patch
            tags: [MP-NESTED]
            original: {}
            patch: {}
            expected: {}
            divergences:
              - {target: upstream, reason: steps on a patch case, expected: {}, steps: [{expected_changed: true}]}
    """
    cases, errors = load_file(write_case_file("server-side-apply/divergences.yaml", text))
    assert cases == []
    file = "cases/server-side-apply/divergences.yaml"
    assert sorted((error.line, str(error)) for error in errors) == [  # where each value is: file:line:column
        (13, f"{file}:13:78: {file}::two-steps: the divergence states 1 step expectations for the case's 2 steps"),
        (14, f"{file}:14:9: {file}::two-steps: a server-side-apply divergence states 'steps', one expectation per "
             "step of the case"),
        (17, f"{file}:17:43: {file}::two-steps: 'expected_error' cannot be combined with 'expected'"),
        (26, f"{file}:26:80: {file}::single: 'steps' in a divergence is for server-side-apply cases only"),
    ]


def test_a_directory_is_searched_as_pathlib_globs_it(write_case_file, tmp_path):
    # The loader walks directories itself (resolving each once); pathlib's sorted rglob is what it must match:
    # component order ("a" before "a-b"), hidden directories, no named schemas, symlinked files in,
    # symlinked directories not entered, broken links and loops passed over.
    for relative in ("a/one.yaml", "a-b/two.yaml", "a.b/three.yml", ".hidden/five.yaml",
                     "sub/schemas/named.yaml", "sub/deep/six.yaml", "dir.yaml/seven.yaml", ".yaml", "eight.yaml.bak"):
        write_case_file(relative, GOOD)
    write_case_file("A/four.json", json.dumps(load_text(textwrap.dedent(GOOD))))
    root = tmp_path / "cases"
    (root / "sub" / "linked.yaml").symlink_to(root / "a" / "one.yaml")
    (root / "sub" / "linked-dir").symlink_to(root / "a", target_is_directory=True)
    (root / "sub" / "broken.yaml").symlink_to(root / "nowhere.yaml")
    (root / "sub" / "loop.yaml").symlink_to(root / "sub" / "loop.yaml")

    def by_pathlib(path: Path) -> list[Path]:
        return [candidate for candidate in sorted(path.rglob("*"))
                if candidate.suffix in (".yaml", ".yml", ".json") and candidate.is_file()
                and "schemas" not in candidate.relative_to(path).parts[:-1] and candidate.name != "case.schema.json"]

    for top in (root, root / "sub", root / "sub" / "linked-dir"):
        found = list(iter_case_files([top]))
        assert found == by_pathlib(top)
    assert [p.relative_to(root).as_posix() for p in iter_case_files([root])] == [
        ".hidden/five.yaml", "A/four.json", "a/one.yaml", "a-b/two.yaml", "a.b/three.yml", "dir.yaml/seven.yaml",
        "sub/deep/six.yaml", "sub/linked.yaml"]
    corpus = load_corpus([root])
    assert corpus.errors == []
    # Shown as resolved: a symlinked file under the name of what it links to.
    assert [case.file for case in corpus.cases][::2] == [
        "cases/.hidden/five.yaml", "cases/A/four.json", "cases/a/one.yaml", "cases/a-b/two.yaml",
        "cases/a.b/three.yml", "cases/dir.yaml/seven.yaml", "cases/sub/deep/six.yaml", "cases/a/one.yaml"]
    assert [case.path for case in corpus.cases][::2] == list(iter_case_files([root]))
    assert [display_path(path) for path in iter_case_files([root])] == [case.file for case in corpus.cases][::2]
