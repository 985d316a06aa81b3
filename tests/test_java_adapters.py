"""The Java adapters (adapters/java/, one jar, one library per process) through the cmd: target.

The jar is built by `tox -e compliance` (`mvn -q -f adapters/java/pom.xml package`); these
tests skip where it is not built or java is missing. Each library is started once and a
few corpus cases are run with the exact status each gets: the library's real answers,
passes and divergences alike, as tests/test_adapters.py does for the other languages.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from patchconf.harness.running.runner import FAIL, PASS, SKIP, run_case
from patchconf.harness.targets import make_target
from tests.fixtures.corpus import cases_by_id

REPO = Path(__file__).resolve().parent.parent
JAR = REPO / "adapters" / "java" / "target" / "patchconf-java-adapters.jar"

pytestmark = [
    pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed"),
    pytest.mark.skipif(not JAR.is_file(), reason=f"{JAR.relative_to(REPO)} is not built "
                                                 "(mvn -q -f adapters/java/pom.xml package)"),
]

JP_A1 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a1-adding-an-object-member"
JP_A14 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a14-escape-ordering"
JP_REMOVE_MISSING = "cases/json-patch/remove.yaml::remove-missing-member"
JP_REMOVE_ROOT = "cases/json-patch/remove.yaml::remove-root-pointer"
JP_ADD_MEMBER = "cases/json-patch/add.yaml::add-object-member"
JP_ADD_MISSING_PARENT = "cases/json-patch/add.yaml::add-missing-parent"
MP_A1 = "cases/merge-patch/rfc7396-appendix-a.yaml::rfc7396-a-01-replace-member"
MP_BIG_INT = "cases/merge-patch/types.yaml::large-integer-preserved"
MP_CONTAINERS = "cases/merge-patch/arrays.yaml::containers-replaced-whole"
MP2_ARRAY_AND_OBJECT = "cases/merge-patch-2way/create.yaml::create-array-and-object-rejected"
SMP_UPDATE_IMAGE = "cases/strategic/merge-lists.yaml::update-container-image-in-place"

# library -> (name in the handshake, patch types, profile, {case id: status})
LIBRARIES = {
    "fabric8-zjsonpatch": ("java-fabric8-zjsonpatch", ["json-patch"], "rfc", {
        JP_A1: PASS,
        JP_A14: FAIL,  # "~01" decoded as "/" then "1": test compares against the wrong member
        JP_REMOVE_MISSING: FAIL,  # removing an absent member succeeds
    }),
    "flipkart-zjsonpatch": ("java-flipkart-zjsonpatch", ["json-patch"], "rfc", {
        JP_A1: PASS, JP_A14: FAIL, JP_REMOVE_MISSING: FAIL,
    }),
    "java-json-tools": ("java-json-tools-json-patch", ["json-patch", "merge-patch"], "rfc", {
        JP_A1: PASS,
        JP_REMOVE_ROOT: FAIL,  # removing the whole document gives null instead of an error
        MP_A1: PASS,
        MP_BIG_INT: PASS,  # beyond 2^64, exact through the kit
    }),
    "parsson": ("java-parsson", ["json-patch", "merge-patch", "merge-patch-2way"], "rfc", {
        JP_A1: PASS,
        MP_A1: PASS,
        # createMergeDiff of an array and an object gives the object whole, as RFC 7396's rule makes
        # it (the case's rfc profile); Kubernetes refuses the pair
        MP2_ARRAY_AND_OBJECT: PASS,
    }),
    "fabric8-mock": ("java-fabric8-mock", ["json-patch", "merge-patch", "strategic"], "kubernetes", {
        JP_A1: SKIP,  # not a Kubernetes object: a server cannot store it
        JP_ADD_MEMBER: PASS,
        JP_ADD_MISSING_PARENT: FAIL,  # the mock creates missing parents before a JSON Patch
        MP_CONTAINERS: FAIL,  # Jackson's readerForUpdating appends to arrays
        SMP_UPDATE_IMAGE: FAIL,  # 415: the mock has no strategic merge patch
    }),
}


def _command(library: str) -> str:
    return f"cmd:java -jar {JAR} {library}"


@pytest.fixture(scope="module")
def corpus_cases():
    return cases_by_id(case_id for _, _, _, statuses in LIBRARIES.values() for case_id in statuses)


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_each_library_declares_itself_and_gets_its_exact_statuses(library, corpus_cases):
    name, patch_types, profile, statuses = LIBRARIES[library]
    target = make_target(_command(library), timeout=60)
    try:
        assert target.info.family == name
        assert sorted(target.info.patch_types) == sorted(patch_types)
        assert target.info.profile == profile
        assert target.info.version not in ("", "unknown")
        got = {case_id: run_case(corpus_cases[case_id], target) for case_id in statuses}
    finally:
        target.close()
    assert {case_id: result.status for case_id, result in got.items()} == statuses, \
        {case_id: result.reason for case_id, result in got.items()}


def test_the_kit_answers_bad_lines_and_exits_on_stop():
    lines = "\n".join([
        '{"cmd": "start", "protocol": 1}',
        "not json",
        '{"cmd": "dance", "seq": 2}',
        '{"cmd": "run", "seq": 3, "case": {"type": "merge-patch", "original": {"n": 1},'
        ' "patch": {"big": 123456789012345678901234567890, "f": 1.0, "e": 1E+400}}}',
        '{"cmd": "run", "seq": 4, "case": {"type": "json-patch", "original": {}, "patch": [{"op": "jump"}]}}',
        '{"cmd": "stop"}',
    ]) + "\n"
    done = subprocess.run(["java", "-jar", str(JAR), "parsson"], input=lines, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    handshake, garbage, unknown, exact, refused = (json.loads(line) for line in done.stdout.splitlines())
    assert handshake["ready"] is True and handshake["implementation"]["language"] == "java"
    assert garbage["seq"] is None and garbage["error"]["class"] == "unclassified"
    assert garbage["error"]["message"].startswith("unreadable request: ")
    assert unknown == {"seq": 2, "error": {"class": "unclassified", "message": 'unknown command "dance"'}}
    # numbers cross the kit as they came (Parsson reads and writes them as text): the big
    # integer exact, 1.0 a decimal, 1E+400 kept
    assert done.stdout.splitlines()[3] == ('{"seq":3,"result":{"document":{"n":1,"big":123456789012345678901234567890,'
                                           '"f":1.0,"e":1E+400}}}')
    assert exact["result"]["document"]["big"] == 123456789012345678901234567890
    assert refused["seq"] == 4 and refused["error"]["class"] == "invalid-patch"
