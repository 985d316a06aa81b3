"""The patch-type registry (reference_impl/patch_types.py) against the case schema and its users."""

from __future__ import annotations

import json

import patchconf
from patchconf.harness import BUNDLED_CASES_DIR
from patchconf.harness.corpus.corpus_layout import SCHEMA_FILE
from patchconf.harness.fuzz import sequences
from patchconf.harness.targets.kubectl_apply import PATCH_CONTENT_TYPES
from patchconf.harness.targets.live.conventions import CONTENT_TYPES, LIVE_TYPES, SCHEMA_TYPES
from patchconf.reference_impl.patch_types import PATCH_REQUEST_TYPES, PATCH_TYPES, names_where, patch_type


def test_the_registry_names_the_schemas_patch_types_in_its_order():
    schema = json.loads((BUNDLED_CASES_DIR / SCHEMA_FILE).read_text(encoding="utf-8"))
    assert list(PATCH_TYPES) == schema["$defs"]["patchType"]["enum"]


def test_each_property_holds_for_the_types_kubernetes_treats_so():
    assert PATCH_REQUEST_TYPES == ("json-patch", "merge-patch", "strategic")
    assert names_where(lambda t: t.rfc) == {"json-patch", "merge-patch", "merge-patch-2way"}
    assert names_where(lambda t: t.creates_patch) == {"merge-patch-2way", "merge-patch-3way", "strategic-2way",
                                                      "strategic-3way"}
    assert names_where(lambda t: t.states_patch) == {"merge-patch-2way", "merge-patch-3way", "strategic-2way",
                                                     "strategic-3way", "apply"}
    assert names_where(lambda t: t.states_only_patch) == {"merge-patch-2way", "merge-patch-3way"}
    assert names_where(lambda t: t.three_way) == {"merge-patch-3way", "strategic-3way", "apply"}
    assert [patch_type(name).kubectl_patch for name in PATCH_REQUEST_TYPES] == ["json", "merge", "strategic"]


def test_the_live_target_and_kubectl_apply_read_their_sets_from_it():
    assert {"json-patch", "merge-patch", "strategic", "apply", "server-side-apply", "update"} == LIVE_TYPES
    assert {"strategic", "apply", "update"} == SCHEMA_TYPES
    assert CONTENT_TYPES == {"json-patch": "application/json-patch+json",
                             "merge-patch": "application/merge-patch+json",
                             "strategic": "application/strategic-merge-patch+json",
                             "server-side-apply": "application/apply-patch+yaml"}
    assert PATCH_CONTENT_TYPES == {"application/json-patch+json": "json", "application/merge-patch+json": "merge",
                                   "application/strategic-merge-patch+json": "strategic"}


def test_the_fuzzers_and_the_librarys_patch_types_are_the_patch_requests():
    assert sorted(sequences.PATCH_TYPES) == sorted(PATCH_REQUEST_TYPES)
    assert patchconf.PATCH_TYPES == PATCH_REQUEST_TYPES
