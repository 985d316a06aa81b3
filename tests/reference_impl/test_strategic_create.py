"""Strategic merge patch creation (patchconf.reference_impl.strategic.create).

Every expected patch and error class below is what Kubernetes' own code returned for the
same inputs: apimachinery v0.32.4 ``strategicpatch.CreateTwoWayMergePatch`` (with kubectl's
apiVersion/kind/name preconditions) and ``CreateThreeWayMergePatch``, run through the
patchconf upstream program (targets/upstream) with the Deployment's Go struct or the named
schema's OpenAPI definitions as patch metadata. Patches are compared as upstream sends
them (JSON written by Go: ``2.0`` is ``2``).
"""

from __future__ import annotations

import copy

import pytest

from patchconf.harness.corpus.cases import named_schema_path
from patchconf.reference_impl.errors import PatchError
from patchconf.reference_impl.govalue.utiljson import through_go_json
from patchconf.reference_impl.strategic import builtin_patch_meta, named_patch_meta
from patchconf.reference_impl.strategic.create import (
    KUBECTL_PRECONDITIONS,
    DiffOptions,
    create_three_way,
    create_two_way,
    diff,
)


def dep(spec: dict | None = None, md: dict | None = None) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", **(md or {})},
        "spec": spec or {},
    }


def pods(containers: list, **podspec) -> dict:
    return {"template": {"spec": {"containers": containers, **podspec}}}


def widget(spec: dict) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def meta_for(schema: str | None):
    if schema:
        return named_patch_meta(named_schema_path(schema))
    return builtin_patch_meta("apps/v1", "Deployment")


def outcome(create, *args, **kwargs) -> tuple:
    try:
        return ("patch", through_go_json(create(*args, **kwargs)))
    except PatchError as error:
        return ("error", error.error_class)


TWO_WAY = [
    pytest.param(
        dep(pods([{"name": "a", "image": "a"}])),
        dep(pods([{"name": "a", "image": "a"}])),
        None,
        ("patch", {}),
        id="identical-documents",
    ),
    pytest.param(
        dep(pods([{"name": "a", "image": "a:1"}])),
        dep(pods([{"name": "a", "image": "a:2"}, {"name": "b", "image": "b"}])),
        None,
        (
            "patch",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
                            "containers": [{"image": "a:2", "name": "a"}, {"image": "b", "name": "b"}],
                        }
                    }
                }
            },
        ),
        id="changed-and-added-container",
    ),
    pytest.param(
        dep(pods([{"name": "a"}, {"name": "b"}])),
        dep(pods([{"name": "b"}])),
        None,
        (
            "patch",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "b"}],
                            "containers": [{"$patch": "delete", "name": "a"}],
                        }
                    }
                }
            },
        ),
        id="removed-container-is-a-delete-directive",
    ),
    pytest.param(
        dep({"replicas": 2, "paused": True}),
        dep({"replicas": 2}),
        None,
        ("patch", {"spec": {"paused": None}}),
        id="removed-field-is-null",
    ),
    pytest.param(
        dep(pods([{"name": "a"}, {"name": "b"}])),
        dep(pods([{"name": "b"}, {"name": "a"}])),
        None,
        ("patch", {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]}}}}),
        id="map-list-reordered-only",
    ),
    pytest.param(
        dep(md={"finalizers": ["x", "y", "z"]}),
        dep(md={"finalizers": ["z", "x"]}),
        None,
        (
            "patch",
            {"metadata": {"$deleteFromPrimitiveList/finalizers": ["y"], "$setElementOrder/finalizers": ["z", "x"]}},
        ),
        id="primitive-merge-list-removed-value",
    ),
    pytest.param(
        dep(md={"finalizers": ["y", "x"]}),
        dep(md={"finalizers": ["x", "y"]}),
        None,
        ("patch", {}),
        id="primitive-merge-list-reordered-only-is-no-change",
    ),
    pytest.param(
        dep(md={"finalizers": ["x"]}),
        dep(md={"finalizers": ["y", "x"]}),
        None,
        ("patch", {"metadata": {"$setElementOrder/finalizers": ["y", "x"], "finalizers": ["y"]}}),
        id="primitive-merge-list-added-value",
    ),
    pytest.param(
        dep(pods([{"name": "a", "args": ["-a", "-b"]}])),
        dep(pods([{"name": "a", "args": ["-b"]}])),
        None,
        (
            "patch",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "a"}],
                            "containers": [{"args": ["-b"], "name": "a"}],
                        }
                    }
                }
            },
        ),
        id="replace-list-sent-whole",
    ),
    pytest.param(
        dep(pods([{"name": "a"}], volumes=[{"name": "v", "emptyDir": {}}])),
        dep(pods([{"name": "a"}], volumes=[{"name": "v", "hostPath": {"path": "/d"}}])),
        None,
        (
            "patch",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/volumes": [{"name": "v"}],
                            "volumes": [
                                {
                                    "$retainKeys": ["hostPath", "name"],
                                    "emptyDir": None,
                                    "hostPath": {"path": "/d"},
                                    "name": "v",
                                }
                            ],
                        }
                    }
                }
            },
        ),
        id="retain-keys-on-union-change",
    ),
    pytest.param(
        dep({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}),
        dep({"strategy": {"type": "Recreate"}}),
        None,
        ("patch", {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": None, "type": "Recreate"}}}),
        id="retain-keys-on-strategy",
    ),
    pytest.param(
        dep({"replicas": 2}),
        dep({"replicas": 2.0}),
        None,
        ("patch", {"spec": {"replicas": 2}}),
        id="int-to-float-is-a-type-change",
    ),
    pytest.param(
        widget({"parts": [{"id": 1, "label": "x"}]}),
        widget({"parts": [{"id": "1", "label": "x"}]}),
        "widget",
        ("patch", {"spec": {"$setElementOrder/parts": [{"id": "1"}], "parts": [{"id": "1"}]}}),
        id="merge-keys-printing-alike-pair-up",
    ),
    pytest.param(
        # Go prints the float64 1000000 as "1e+06" and the int64 as "1000000": no pair.
        widget({"parts": [{"id": 1000000, "label": "x"}]}),
        widget({"parts": [{"id": 1000000.0, "label": "x"}]}),
        "widget",
        (
            "patch",
            {
                "spec": {
                    "$setElementOrder/parts": [{"id": 1000000}],
                    "parts": [{"id": 1000000, "label": "x"}, {"$patch": "delete", "id": 1000000}],
                }
            },
        ),
        id="large-float-key-prints-in-exponent-form",
    ),
    pytest.param(
        widget({"tags": ["a"]}),
        widget({"tags": ["a", 1]}),
        "widget",
        ("error", "type-mismatch"),
        id="list-element-types-differ",
    ),
    pytest.param(
        dep(pods([{"name": "a"}])),
        dep(pods([{"image": "a"}])),
        None,
        ("error", "merge-key-missing"),
        id="merge-key-missing-in-modified",
    ),
    pytest.param(
        dep({"bogus": {"a": 1}}),
        dep({"bogus": {"a": 2}}),
        None,
        ("error", "no-strategic-schema"),
        id="unknown-field-changed",
    ),
    pytest.param(
        dep({"bogus": {"a": 1}, "replicas": 1}),
        dep({"bogus": {"a": 1}, "replicas": 2}),
        None,
        ("patch", {"spec": {"replicas": 2}}),
        id="unknown-field-unchanged-needs-no-schema",
    ),
    pytest.param(
        dep(),
        {**dep(), "kind": "StatefulSet"},
        None,
        ("error", "precondition-failed"),
        id="kind-changed-fails-precondition",
    ),
    pytest.param(
        dep(), dep(md={"name": "other"}), None, ("error", "precondition-failed"), id="name-changed-fails-precondition"
    ),
    pytest.param(None, dep({"replicas": 1}), None, ("error", "precondition-failed"), id="null-original-reads-as-empty"),
]


@pytest.mark.parametrize(("original", "modified", "schema", "expected"), TWO_WAY)
def test_two_way_matches_upstream(original, modified, schema, expected) -> None:
    before = copy.deepcopy((original, modified))
    assert outcome(create_two_way, original, modified, meta_for(schema), KUBECTL_PRECONDITIONS) == expected
    assert (original, modified) == before, "inputs must not be mutated"


def test_two_way_without_preconditions_sends_identity_changes() -> None:
    # (the precondition-failed cases above, without kubectl's preconditions)
    patch = create_two_way(None, dep({"replicas": 1}), meta_for(None))
    assert patch == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 1},
    }


def test_precondition_message_prints_the_patch_as_go_does() -> None:
    with pytest.raises(PatchError) as raised:
        create_two_way(dep(), dep(md={"name": "other"}), meta_for(None), KUBECTL_PRECONDITIONS)
    assert raised.value.message == "precondition failed for: map[metadata:map[name:other]]"


def test_diff_options_keep_only_deletions_or_only_changes() -> None:
    # CreateThreeWayMergePatch(o, m, current=m) is its deletions diff alone, and
    # CreateThreeWayMergePatch(m, m, current=o) its changes diff alone: the expected values
    # are upstream's three-way patches for those inputs.
    original = dep(
        {"replicas": 1, "paused": True, "template": {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}},
        md={"finalizers": ["a", "b"]},
    )
    modified = dep(
        {"replicas": 2, "template": {"spec": {"containers": [{"name": "b", "image": "x"}, {"name": "c"}]}}},
        md={"finalizers": ["b", "c"]},
    )
    meta = meta_for(None)
    assert diff(original, modified, meta, DiffOptions(ignore_changes_and_additions=True)) == {
        "metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "$setElementOrder/finalizers": ["b", "c"]},
        "spec": {
            "paused": None,
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "b"}, {"name": "c"}],
                    "containers": [{"$patch": "delete", "name": "a"}],
                }
            },
        },
    }
    assert diff(original, modified, meta, DiffOptions(ignore_deletions=True)) == {
        "metadata": {"$setElementOrder/finalizers": ["b", "c"], "finalizers": ["c"]},
        "spec": {
            "replicas": 2,
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "b"}, {"name": "c"}],
                    "containers": [{"image": "x", "name": "b"}, {"name": "c"}],
                }
            },
        },
    }


THREE_WAY = [
    pytest.param(
        dep({"replicas": 1}),
        dep({"replicas": 2}),
        {**dep({"replicas": 1, "paused": True}), "status": {"replicas": 1}},
        True,
        ("patch", {"spec": {"replicas": 2}}),
        id="keeps-what-others-added",
    ),
    pytest.param(
        dep({"replicas": 1, "paused": True}),
        dep({"replicas": 1}),
        dep({"replicas": 1, "paused": True, "minReadySeconds": 5}),
        True,
        ("patch", {"spec": {"paused": None}}),
        id="deletes-only-what-was-applied",
    ),
    pytest.param(
        dep(pods([{"name": "a"}, {"name": "b"}])),
        dep(pods([{"name": "b"}])),
        dep(pods([{"name": "a"}, {"name": "b"}, {"name": "sidecar"}])),
        True,
        (
            "patch",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "b"}],
                            "containers": [{"$patch": "delete", "name": "a"}],
                        }
                    }
                }
            },
        ),
        id="container-removed-from-configuration",
    ),
    pytest.param(
        dep({"replicas": 1}),
        dep({"replicas": 3}),
        dep({"replicas": 5}),
        True,
        ("patch", {"spec": {"replicas": 3}}),
        id="overwrites-a-change-made-by-others",
    ),
    pytest.param(
        dep({"replicas": 1}),
        dep({"replicas": 3}),
        dep({"replicas": 5}),
        False,
        ("error", "conflict"),
        id="conflict-without-overwrite",
    ),
    pytest.param(
        dep({"replicas": 1}),
        dep({"replicas": 3}),
        dep({"replicas": 3}),
        False,
        ("patch", {}),
        id="same-change-is-no-conflict",
    ),
    pytest.param(
        None,
        dep({"replicas": 2}),
        dep({"replicas": 1, "paused": True}),
        True,
        ("patch", {"spec": {"replicas": 2}}),
        id="no-last-applied-deletes-nothing",
    ),
    pytest.param(
        dep(md={"finalizers": ["a", "b"]}),
        dep(md={"finalizers": ["b"]}),
        dep(md={"finalizers": ["a", "b", "server"]}),
        True,
        ("patch", {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "$setElementOrder/finalizers": ["b"]}}),
        id="primitive-deletion-and-order",
    ),
    pytest.param(
        dep({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}),
        dep({"strategy": {"type": "Recreate"}}),
        dep({"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}),
        True,
        ("patch", {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": None, "type": "Recreate"}}}),
        id="retain-keys-from-both-patches",
    ),
    pytest.param(
        dep(pods([{"name": "a", "image": "1"}])),
        dep(pods([{"name": "a", "image": "2"}])),
        dep(pods([{"name": "a", "image": "3"}])),
        False,
        ("error", "conflict"),
        id="conflict-in-merge-list-element",
    ),
    pytest.param(
        # Upstream's conflict check sorts the patch's replaced list in place: modified says
        # ["z", "y"], the patch sent says ["y", "z"].
        dep(pods([{"name": "a", "args": ["x"]}])),
        dep(pods([{"name": "a", "args": ["z", "y"]}])),
        dep(pods([{"name": "a", "args": ["y", "z"]}])),
        False,
        (
            "patch",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "a"}],
                            "containers": [{"args": ["y", "z"], "name": "a"}],
                        }
                    }
                }
            },
        ),
        id="replaced-primitive-list-sorted-by-conflict-check",
    ),
    pytest.param(
        dep(),
        dep(md={"name": "other"}),
        dep(),
        True,
        ("error", "precondition-failed"),
        id="name-changed-fails-precondition",
    ),
    pytest.param(
        # The changes patch deletes "b" from the deletions patch's list in place and the
        # re-added "b" lands in the freed slot: Go's slice of the deletions list then reads
        # [a-delete, b], which orders the result.
        dep(pods([{"name": "a"}, {"name": "d"}, {"name": "b", "args": ["x"]}])),
        dep(pods([{"name": "d"}, {"name": "b"}, {"name": "b", "$patch": "delete"}])),
        dep(pods([{"name": "a"}, {"name": "d"}, {"name": "b", "args": ["x"]}])),
        True,
        (
            "patch",
            {
                "spec": {
                    "template": {
                        "spec": {
                            "$setElementOrder/containers": [{"name": "d"}, {"name": "b"}, {"name": "b"}],
                            "containers": [{"$patch": "delete", "name": "a"}, {"name": "b"}],
                        }
                    }
                }
            },
        ),
        id="deleted-and-re-added-element-reuses-the-slot",
    ),
    pytest.param(
        # An empty patch conflicts with a change that removed a top-level "$patch" key.
        {**dep(), "$patch": "delete"},
        {**dep(), "$patch": "delete"},
        dep(),
        False,
        ("error", "conflict"),
        id="directive-key-removed-by-others-conflicts",
    ),
]


@pytest.mark.parametrize(("original", "modified", "current", "overwrite", "expected"), THREE_WAY)
def test_three_way_matches_upstream(original, modified, current, overwrite, expected) -> None:
    before = copy.deepcopy((original, modified, current))
    got = outcome(
        create_three_way,
        original,
        modified,
        current,
        meta_for(None),
        overwrite=overwrite,
        preconditions=KUBECTL_PRECONDITIONS,
    )
    assert got == expected
    assert (original, modified, current) == before, "inputs must not be mutated"


def test_conflict_message_names_both_sides() -> None:
    with pytest.raises(PatchError) as raised:
        create_three_way(
            dep({"replicas": 1}), dep({"replicas": 3}), dep({"replicas": 5}), meta_for(None), overwrite=False
        )
    # Upstream's message, verbatim.
    assert raised.value.message == (
        "patch:\nspec:\n  replicas: 3\n\n"
        "conflicts with changes made from original to current:\nspec:\n  replicas: 5\n\n"
    )


@pytest.mark.parametrize(("original", "current", "modified", "message"), [
    (
        {"data": {"c.txt": "1"}}, {"data": {"": 0}},
        {"apiVersion": "v1", "kind": "ConfigMap", "data": {"c.txt": "1"}},
        'patch:\napiVersion: v1\ndata:\n  c.txt: "1"\nkind: ConfigMap\n\n'
        'conflicts with changes made from original to current:\ndata:\n  "": 0\n  c.txt: null\n\n',
    ),
    (
        {"data": {"a": "x"}}, {"data": {"a": "z", "m~n": "0x1F", "n": "y"}},
        {"apiVersion": "v1", "kind": "ConfigMap",
         "data": {"a": "y", "~1": "2001-12-14", "a10": "1e3", "a9": "ü", "b": "on"}},
        'patch:\napiVersion: v1\ndata:\n  ~1: "2001-12-14"\n  a: "y"\n  a9: ü\n  a10: "1e3"\n  b: "on"\n'
        "kind: ConfigMap\n\nconflicts with changes made from original to current:\n"
        'data:\n  a: z\n  m~n: "0x1F"\n  "n": "y"\n\n',
    ),
], ids=["empty-key", "go-yaml-quoting-and-key-order"])
def test_conflict_message_is_yaml_as_go_yaml_writes_it(original, current, modified, message) -> None:
    # go-yaml v2 (sigs.k8s.io/yaml): strings that would read back as another type double-quoted
    # ("", "1", "y", "on", "1e3", dates), an empty key inline, keys in its natural order
    # (non-letters first, digit runs by number), unicode as it is. Messages as upstream 1.32.4 wrote them.
    with pytest.raises(PatchError) as raised:
        create_three_way(original, modified, current, builtin_patch_meta("v1", "ConfigMap"), overwrite=False)
    assert raised.value.message == message


def test_an_unknown_field_is_named_as_strconv_quote_writes_it() -> None:
    # Confirmed on the upstream target (Kubernetes 1.32.4): "%q" escapes \a as \a and U+00AD as \u00ad.
    key = "ex\atension\u00ad"
    with pytest.raises(PatchError) as raised:
        create_two_way(dep(md={key: {"owner": "a"}}), dep(md={key: {"owner": "b"}}), meta_for(None))
    assert 'for the json field "ex\\atension\\u00ad"' in raised.value.message
