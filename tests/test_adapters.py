"""The peer-library adapters in adapters/, each through the cmd: target, and their kits.

Each adapter is started once (all at the same time: some libraries take seconds to
import), its handshake is checked, and a few corpus cases are run with the exact status
each gets: the library's real answers, passes and divergences alike. A test skips when
its library (or its runtime: node and the adapter's node_modules, the Rust build, ruby and
Debian's ruby-hana) is not installed here.

The protocol kits (adapters/kit/) are each checked on one conversation with a stand-in
library: a garbage line, a library exception, a result JSON cannot carry and numbers that
must come back exactly (JavaScript: as JavaScript numbers).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import Case, Outcome
from patchconf.harness.running.runner import FAIL, PASS, run_case
from patchconf.harness.targets import make_target
from tests.fixtures.corpus import cases_by_id

REPO = Path(__file__).resolve().parent.parent
ADAPTERS = REPO / "adapters"
KITS = ADAPTERS / "kit"
RUST_BUILD = "cargo build --release --locked --manifest-path adapters/Cargo.toml"

JP_A1 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a1-adding-an-object-member"
JP_A7 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a7-moving-an-array-element"
JP_A9 = "cases/json-patch/rfc6902-appendix-a.yaml::rfc6902-a9-testing-a-value-error"
JP_K8S_REMOVE_KIND = "cases/json-patch/kubernetes.yaml::k8s-remove-kind-refused"
JP_K8S_BIG_INT = "cases/json-patch/kubernetes.yaml::k8s-integer-beyond-int64-loses-precision"
JP_NEGATIVE_INDEX = "cases/json-patch/add.yaml::add-array-negative-index-appends"
JP_REMOVE_MISSING = "cases/json-patch/remove.yaml::remove-missing-member"
JP_REMOVE_ROOT = "cases/json-patch/remove.yaml::remove-root-pointer"
JP_ADD_TO_ROOT = "cases/json-patch/add.yaml::add-to-root-pointer"
JP_TEST_MEMBER_ORDER = "cases/json-patch/test.yaml::test-object-member-order-irrelevant"
JP_COPY_IS_DEEP = "cases/json-patch/copy.yaml::copy-is-deep-source-modified-later"
JP_COPY_INTO_CHILD = "cases/json-patch/copy.yaml::copy-into-own-child"
MP_A1 = "cases/merge-patch/rfc7396-appendix-a.yaml::rfc7396-a-01-replace-member"
MP_K8S_NULL_PATCH = "cases/merge-patch/kubernetes.yaml::root-null-patch-rejected"
MP_BIG_INT = "cases/merge-patch/types.yaml::large-integer-preserved"
SMP_UPDATE_IMAGE = "cases/strategic/merge-lists.yaml::update-container-image-in-place"
SMP_ADD_CONTAINER = "cases/strategic/merge-lists.yaml::add-container-is-prepended"
SMP_CUSTOM_RESOURCE = "cases/strategic/no-schema.yaml::custom-resource-refused"
SMP_SERVICE_PORT = "cases/strategic/merge-lists.yaml::service-port-merge-by-port"
SMP_BIG_INT = "cases/strategic/numbers.yaml::int64-beyond-2-53-preserved"


@dataclass(frozen=True)
class Adapter:
    name: str
    command: list[str]
    runtime: str  # python, node, rust or ruby
    library: str  # the Python module, npm package, crate or Ruby library the adapter calls
    distribution: str  # for the installed version (Python)
    patch_types: frozenset[str]
    profile: str

    def missing(self) -> str | None:
        """Why this adapter cannot run here, or None."""
        if self.runtime == "node":
            if shutil.which("node") is None:
                return "node is not installed"
            if not self.package_json().is_file():
                return f"{self.library} is not installed: run npm ci in adapters/{self.name}"
            return None
        if self.runtime == "rust":
            if not Path(self.command[0]).is_file():
                return f"adapters/target/release/{self.name} is not built: run {RUST_BUILD}"
            return None
        if self.runtime == "ruby":
            if shutil.which("ruby") is None:
                return "ruby is not installed (apt-get install ruby ruby-hana)"
            if ruby_library_version(self.library) is None:
                return f"the Ruby library {self.library} is not installed (apt-get install ruby-{self.library})"
            return None
        if importlib.util.find_spec(self.library) is None:
            return f"{self.distribution} is not installed (pip install {self.distribution})"
        return None

    def package_json(self) -> Path:
        return ADAPTERS / self.name / "node_modules" / self.library / "package.json"

    def installed_version(self) -> str:
        if self.runtime == "node":
            return json.loads(self.package_json().read_text(encoding="utf-8"))["version"]
        if self.runtime == "rust":
            return locked_crate_version(self.library)
        if self.runtime == "ruby":
            return ruby_library_version(self.library)
        return importlib.metadata.version(self.distribution)

    def spec(self) -> str:
        return "cmd:" + shlex.join(self.command)


def locked_crate_version(crate: str) -> str:
    """The version of a crate the adapters depend on by its name, pinned with `=`, which
    adapters/Cargo.lock locks (beside an older release, renamed, that peer-history builds)."""
    lock = (ADAPTERS / "Cargo.lock").read_text(encoding="utf-8")
    locked = re.findall(rf'\[\[package\]\]\nname = "{re.escape(crate)}"\nversion = "([^"]+)"', lock)
    pin_line = rf'^{re.escape(crate)} = (?:\{{ version = )?"=([^"]+)"'
    pins = {pin for manifest in ADAPTERS.glob("rust-*/Cargo.toml")
            for pin in re.findall(pin_line, manifest.read_text(encoding="utf-8"), re.M)}
    assert len(pins) == 1, f"{crate}: adapters pin {sorted(pins)}"
    pin = pins.pop()
    assert pin in locked, f"{crate} {pin} is not in adapters/Cargo.lock ({locked})"
    return pin


def ruby_library_version(library: str) -> str | None:
    """``<Library>::VERSION`` as ruby loads it, or None when it cannot."""
    loaded = subprocess.run(["ruby", "-e", f"require {library!r}; print {library.capitalize()}::VERSION"],
                            capture_output=True, text=True, timeout=60, check=False)
    return loaded.stdout if loaded.returncode == 0 else None


def python_adapter(name, module, distribution, patch_types, profile):
    command = [sys.executable, str(ADAPTERS / name / "adapter.py")]
    return Adapter(name, command, "python", module, distribution, frozenset(patch_types), profile)


def node_adapter(name, package, patch_types):
    command = ["node", str(ADAPTERS / name / "adapter.js")]
    return Adapter(name, command, "node", package, package, frozenset(patch_types), "rfc")


def rust_adapter(name, crate, patch_types, profile):
    command = [str(ADAPTERS / "target" / "release" / name)]
    return Adapter(name, command, "rust", crate, crate, frozenset(patch_types), profile)


def ruby_adapter(name, library, patch_types):
    command = ["ruby", str(ADAPTERS / name / "adapter.rb")]
    return Adapter(name, command, "ruby", library, library, frozenset(patch_types), "rfc")


ALL = {
    adapter.name: adapter
    for adapter in (
        python_adapter("python-jsonpatch", "jsonpatch", "jsonpatch", ["json-patch"], "rfc"),
        python_adapter("python-json-merge-patch", "json_merge_patch", "json-merge-patch",
                       ["merge-patch", "merge-patch-2way"], "rfc"),
        python_adapter("python-oper8", "oper8", "oper8", ["strategic"], "kubernetes"),
        python_adapter("python-kubesdk", "kubesdk", "kubesdk", ["json-patch", "strategic-2way"], "rfc"),
        node_adapter("js-fast-json-patch", "fast-json-patch", ["json-patch"]),
        node_adapter("js-json-merge-patch", "json-merge-patch", ["merge-patch", "merge-patch-2way"]),
        node_adapter("js-rfc6902", "rfc6902", ["json-patch"]),
        node_adapter("js-immutable-json-patch", "immutable-json-patch", ["json-patch"]),
        node_adapter("js-json-joy", "json-joy", ["json-patch"]),
        node_adapter("js-tiny-merge-patch", "tiny-merge-patch", ["merge-patch"]),
        rust_adapter("rust-json-patch", "json-patch", ["json-patch", "merge-patch"], "rfc"),
        rust_adapter("rust-k8s-openapi", "k8s-openapi", ["strategic"], "kubernetes"),
        ruby_adapter("ruby-hana", "hana", ["json-patch"]),
    )
}

# The exact status each library gets on a few corpus cases.
EXPECTED_STATUS = {
    "python-jsonpatch": {
        JP_A1: PASS,
        JP_A9: PASS,  # JsonPatchTestFailed is test-failed
        JP_K8S_REMOVE_KIND: PASS,  # Kubernetes refuses it; RFC 6902 (this target's profile) does not
        JP_NEGATIVE_INDEX: PASS,  # refused as RFC wants (JsonPointerException: unclassified, judged on rejecting)
    },
    "python-kubesdk": {
        JP_A1: PASS,
        JP_A7: FAIL,  # moves the array element one place too far
        JP_K8S_REMOVE_KIND: PASS,
    },
    "js-fast-json-patch": {
        JP_A1: PASS,
        JP_A9: PASS,  # TEST_OPERATION_FAILED is test-failed
        JP_REMOVE_MISSING: FAIL,  # without validation (the default) removing nothing succeeds
        JP_K8S_BIG_INT: FAIL,  # JavaScript numbers: the integer loses precision
    },
    "python-json-merge-patch": {
        MP_A1: PASS,
        MP_K8S_NULL_PATCH: PASS,  # judged by RFC 7396: a null patch document gives null
        MP_BIG_INT: PASS,
    },
    "js-json-merge-patch": {
        MP_A1: PASS,
        MP_K8S_NULL_PATCH: PASS,
        MP_BIG_INT: FAIL,  # JavaScript numbers: the integer loses precision
    },
    "python-oper8": {
        SMP_UPDATE_IMAGE: PASS,
        SMP_ADD_CONTAINER: FAIL,  # appends the new container where Kubernetes prepends it
        SMP_CUSTOM_RESOURCE: FAIL,  # patches a kind with no strategic schema instead of refusing
    },
    "js-rfc6902": {
        JP_A1: PASS,
        JP_A9: PASS,  # TestError is test-failed
        JP_ADD_TO_ROOT: FAIL,  # it patches in place, so the root cannot be replaced (MissingError)
        JP_K8S_BIG_INT: FAIL,  # JavaScript numbers
    },
    "js-immutable-json-patch": {
        JP_A1: PASS,
        JP_A9: PASS,  # an unclassified error, judged on rejecting
        JP_REMOVE_MISSING: FAIL,  # removing nothing succeeds
        JP_TEST_MEMBER_ORDER: FAIL,  # equal objects with their members in another order "differ"
    },
    "js-json-joy": {
        JP_A1: PASS,
        JP_A9: PASS,  # TEST is test-failed
        JP_NEGATIVE_INDEX: PASS,
        JP_REMOVE_ROOT: FAIL,  # removing the root gives null
    },
    "js-tiny-merge-patch": {
        MP_A1: PASS,
        MP_K8S_NULL_PATCH: PASS,
        MP_BIG_INT: FAIL,  # JavaScript numbers
    },
    "rust-json-patch": {
        JP_A1: PASS,
        JP_A9: PASS,  # PatchErrorKind::TestFailed is test-failed
        JP_K8S_BIG_INT: PASS,  # the kit's exact numbers: RFC 6902 leaves the integer alone
        MP_A1: PASS,
        MP_BIG_INT: PASS,
    },
    "rust-k8s-openapi": {
        SMP_SERVICE_PORT: PASS,
        SMP_UPDATE_IMAGE: PASS,  # the Deployment states its selector, so the typed round trip keeps what it had
        SMP_BIG_INT: PASS,  # the kit's exact numbers reach the typed i64 field and back
        SMP_ADD_CONTAINER: FAIL,  # DeepMerge appends the new container where Kubernetes prepends it
        SMP_CUSTOM_RESOURCE: PASS,  # no k8s-openapi type: an unclassified error, judged on rejecting
    },
    "ruby-hana": {
        JP_A1: PASS,
        JP_A9: PASS,  # FailedTestException is test-failed
        JP_COPY_IS_DEEP: FAIL,  # copy shares the value: a later change shows through both
        JP_COPY_INTO_CHILD: FAIL,  # ... and copying into its own child makes a cycle
    },
}


@pytest.fixture(scope="module")
def started():
    """Every installed adapter started concurrently (and the corpus cases loaded meanwhile).

    Gives ``(targets, cases)``: adapter name -> target, skip reason or startup exception;
    case id -> case.
    """
    targets = {name: adapter.missing() for name, adapter in ALL.items() if adapter.missing()}
    runnable = [name for name in ALL if name not in targets]
    with ThreadPoolExecutor(max_workers=max(len(runnable), 1)) as pool:
        futures = {name: pool.submit(make_target, ALL[name].spec()) for name in runnable}
        try:
            cases = load_cases()
            for name, future in futures.items():
                try:
                    targets[name] = future.result()
                except Exception as exc:  # failed by the adapter's own tests, not here
                    targets[name] = exc
            yield targets, cases
        finally:
            for future in futures.values():
                future.cancel()
            running = [f.result() for f in futures.values() if not f.cancelled() and f.exception() is None]
            list(pool.map(lambda target: target.close(), running))


def load_cases() -> dict[str, Case]:
    return cases_by_id(case_id for statuses in EXPECTED_STATUS.values() for case_id in statuses)


@pytest.fixture(scope="module")
def targets(started):
    return started[0]


@pytest.fixture(scope="module")
def corpus_cases(started):
    return started[1]


def target_for(targets, name):
    target = targets[name]
    if isinstance(target, str):
        pytest.skip(target)
    if isinstance(target, Exception):
        raise target
    return target


@pytest.mark.parametrize("name", sorted(ALL))
def test_handshake(targets, name):
    adapter = ALL[name]
    info = target_for(targets, name).info
    assert info.family == name
    assert info.version == adapter.installed_version()
    assert info.patch_types == adapter.patch_types
    assert info.profile == adapter.profile
    assert info.messages is False


@pytest.mark.parametrize("name", sorted(ALL))
def test_corpus_cases_get_their_exact_status(targets, corpus_cases, name):
    target = target_for(targets, name)
    got = {}
    for case_id in EXPECTED_STATUS[name]:
        result = run_case(corpus_cases[case_id], target)
        got[case_id] = (result.status, result.reason)
        if case_id in (JP_K8S_REMOVE_KIND, MP_K8S_NULL_PATCH):
            assert result.judged_by == "profile rfc"
    assert {case_id: status for case_id, (status, _) in got.items()} == EXPECTED_STATUS[name], got


def adhoc_case(case_type: str, original, modified) -> Case:
    """A creation case with no expectation: only the library's answer is looked at."""
    return Case(file="adhoc", name=case_type, description="adapter check", type=case_type, tags=(),
                inputs={"original": original, "modified": modified}, outcome=Outcome(), provenance=())


@pytest.mark.parametrize("name", ["python-json-merge-patch", "js-json-merge-patch"])
def test_merge_patch_creation(targets, name):
    target = target_for(targets, name)
    actual = target.run(adhoc_case("merge-patch-2way", {"a": 1, "b": {"c": 2, "d": 3}, "e": [1, 2]},
                                   {"a": 1, "b": {"c": 5}, "e": [1], "f": "x"}))
    assert actual.error is None
    assert actual.patch == {"b": {"c": 5, "d": None}, "e": [1], "f": "x"}
    assert actual.document == {"a": 1, "b": {"c": 5}, "e": [1], "f": "x"}
    same = target.run(adhoc_case("merge-patch-2way", {"a": 1}, {"a": 1}))
    if name == "python-json-merge-patch":
        assert same.error is None and same.patch == {}
    else:  # generate() answers undefined for "no difference", which is no JSON patch
        assert same.error is not None and same.error.error_class == "unclassified"
        assert "undefined" in same.error.message


def test_kubesdk_strategic_patch_creation(targets):
    target = target_for(targets, "python-kubesdk")
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    actual = target.run(adhoc_case("strategic-2way", {**configmap, "data": {"a": "1", "b": "2"}},
                                   {**configmap, "data": {"a": "1", "c": "3"}}))
    assert actual.error is None
    assert actual.patch == {"data": {"b": None, "c": "3"}}
    custom = {"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "f"}}
    unknown = target.run(adhoc_case("strategic-2way", {**custom, "spec": {"a": 1}}, {**custom, "spec": {"a": 2}}))
    assert unknown.error is not None and unknown.error.error_class == "unclassified"
    assert "no model" in unknown.error.message


# --- the protocol kits, each on one conversation with a stand-in library ---------------

BIG = 123456789012345678901234567890
CONVERSATION = [
    {"cmd": "start", "protocol": 1},
    "this line is not JSON",
    {"cmd": "run", "seq": 1, "case": {"type": "merge-patch", "original": {"big": BIG, "one": 1.0}, "patch": {}}},
    {"cmd": "run", "seq": 2, "case": {"type": "merge-patch", "original": {}, "patch": "boom"}},
    {"cmd": "run", "seq": 3, "case": {"type": "merge-patch", "original": {}, "patch": "not-a-number"}},
    {"cmd": "run", "seq": 4, "case": {"type": "strategic", "original": {}, "patch": {}}},
    {"cmd": "stop"},
    {"cmd": "run", "seq": 5, "case": {"type": "merge-patch", "original": {}, "patch": {}}},
]

# Stand-in libraries: the document back as it came, an exception for the patch "boom", and a
# NaN (which JSON cannot carry) for "not-a-number".
PYTHON_ECHO = '''
import sys
sys.path.insert(0, {kit!r})
import patchconf_adapter as kit

def answer(case):
    if case["patch"] == "boom":
        raise ValueError("the library broke")
    if case["patch"] == "not-a-number":
        return {{"document": float("nan")}}
    return {{"document": case["original"]}}

kit.Adapter(name="python-echo", distribution="pytest", patch_types=["merge-patch"], answer=answer).main()
'''
JS_ECHO = '''
const kit = require({kit!r});
kit.serve({{
  name: 'js-echo', library: 'echo-lib', dir: __dirname, patchTypes: ['merge-patch'],
  load: (modules) => modules.require('echo-lib'),
  answer: (lib, c) => ({{ document: lib.echo(c.original, c.patch) }}),
}});
'''
JS_ECHO_LIBRARY = '''
exports.echo = (original, patch) => {
  if (patch === 'boom') throw new RangeError('the library broke');
  return patch === 'not-a-number' ? NaN : original;
};
'''
RUBY_ECHO = '''
require {kit!r}
PatchconfAdapter.new(name: 'ruby-echo', homepage: 'https://example.org', patch_types: ['merge-patch'],
                     load: -> {{ '1.0.0' }}) do |c|
  raise ArgumentError, 'the library broke' if c['patch'] == 'boom'
  {{ 'document' => c['patch'] == 'not-a-number' ? Float::NAN : c['original'] }}
end.main
'''


def converse(command: list[str], cwd: Path | None = None) -> list[object]:
    """The program's answer lines to CONVERSATION, numbers kept as their text; it must exit 0."""
    lines = [item if isinstance(item, str) else json.dumps(item) for item in CONVERSATION]
    done = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=60, cwd=cwd, check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line, parse_int=Number, parse_float=Number) for line in done.stdout.splitlines()]


class Number(str):
    """A JSON number as the text it was written as: 1.0 and 1 differ."""


def check_conversation(answers: list[object], name: str, *, big: str, one: str, exception: str) -> None:
    handshake, garbage, exact, raised, nan, undeclared = answers  # nothing after stop
    assert handshake["ready"] is True and handshake["implementation"]["name"] == name
    assert garbage["seq"] is None and garbage["error"]["class"] == "unclassified"
    assert garbage["error"]["message"].startswith("unreadable request: ")
    assert exact == {"seq": "1", "result": {"document": {"big": big, "one": one}}}
    assert raised == {"seq": "2", "error": {"class": "unclassified", "message": exception}}
    assert nan["seq"] == "3" and nan["error"]["class"] == "unclassified"
    assert nan["error"]["message"].startswith("the library's output is not JSON: ")
    assert undeclared == {"seq": "4", "skipped": f'{name} does not run "strategic" cases'}


def test_python_kit(tmp_path):
    adapter = tmp_path / "adapter.py"
    adapter.write_text(PYTHON_ECHO.format(kit=str(KITS / "python")), encoding="utf-8")
    answers = converse([sys.executable, str(adapter)])
    check_conversation(answers, "python-echo", big=str(BIG), one="1.0", exception="ValueError: the library broke")


def test_python_kit_import_failure_is_the_handshake_answer(tmp_path):
    adapter = tmp_path / "adapter.py"
    adapter.write_text(PYTHON_ECHO.format(kit=str(KITS / "python")).replace(
        "import patchconf_adapter as kit\n",
        "import patchconf_adapter as kit\nwith kit.library('no-such-distribution'):\n    import no_such_module\n"),
        encoding="utf-8")
    done = subprocess.run([sys.executable, str(adapter)], input='{"cmd": "start", "protocol": 1}\n',
                          capture_output=True, text=True, timeout=60, check=False)
    assert json.loads(done.stdout) == {
        "ready": False,
        "error": "cannot import no-such-distribution: No module named 'no_such_module'"
                 " (pip install no-such-distribution)"}


def test_javascript_kit(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    library = tmp_path / "node_modules" / "echo-lib"
    library.mkdir(parents=True)
    (library / "package.json").write_text('{"name": "echo-lib", "version": "1.2.3", "main": "index.js"}')
    (library / "index.js").write_text(JS_ECHO_LIBRARY, encoding="utf-8")
    (tmp_path / "adapter.js").write_text(JS_ECHO.format(kit=str(KITS / "js" / "patchconf-adapter.js")),
                                         encoding="utf-8")
    answers = converse(["node", str(tmp_path / "adapter.js")])
    assert answers[0]["implementation"]["version"] == "1.2.3"
    # JavaScript numbers, as the libraries' users have them: the kit adds no loss of its own
    check_conversation(answers, "js-echo", big="1.2345678901234568e+29", one="1",
                       exception="RangeError: the library broke")


def _js_release(root: Path, library: str, version: str, *, es_module: bool) -> None:
    """A stand-in release of ``library`` under ``root/node_modules`` whose ``release()`` names its version."""
    package = root / "node_modules" / library
    package.mkdir(parents=True)
    manifest = {"name": library, "version": version, "main": "index.js"}
    if es_module:  # import-only, as ES module packages declare it
        manifest.update(type="module", exports={".": {"import": "./esm/index.js"}})
        (package / "esm").mkdir()
        (package / "esm" / "index.js").write_text(f"export const release = () => 'esm {version}';\n")
    else:
        (package / "index.js").write_text(f"exports.release = () => 'cjs {version}';\n")
    (package / "package.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("load", ["require", "import"])
def test_javascript_kit_loads_another_release_with_modules(tmp_path, load):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    es_module = load == "import"
    for root, version in ((tmp_path / "adapter", "2.0.0"), (tmp_path / "previous", "1.0.0")):
        _js_release(root, "release-lib", version, es_module=es_module)
    (tmp_path / "adapter" / "adapter.js").write_text(f"""
const kit = require({str(KITS / "js" / "patchconf-adapter.js")!r});
kit.serve({{
  name: 'js-release', library: 'release-lib', dir: __dirname, patchTypes: ['merge-patch'],
  load: (modules) => modules.{load}('release-lib'),
  answer: (lib, c) => ({{ document: lib.release() }}),
}});
""", encoding="utf-8")
    conversation = '{"cmd": "start"}\n{"cmd": "run", "seq": 1, "case": {"type": "merge-patch"}}\n{"cmd": "stop"}\n'
    kind = "esm" if es_module else "cjs"
    for arguments, version in (([], "2.0.0"), (["--modules", "previous"], "1.0.0")):
        done = subprocess.run(["node", "adapter/adapter.js", *arguments], input=conversation, cwd=tmp_path,
                              capture_output=True, text=True, timeout=60, check=False)
        handshake, answer = [json.loads(line) for line in done.stdout.splitlines()]
        assert handshake["implementation"]["version"] == version
        assert answer == {"seq": 1, "result": {"document": f"{kind} {version}"}}


def test_ruby_kit(tmp_path):
    if shutil.which("ruby") is None:
        pytest.skip("ruby is not installed (apt-get install ruby)")
    adapter = tmp_path / "adapter.rb"
    adapter.write_text(RUBY_ECHO.format(kit=str(KITS / "ruby" / "patchconf_adapter.rb")), encoding="utf-8")
    answers = converse(["ruby", str(adapter)])
    check_conversation(answers, "ruby-echo", big=str(BIG), one="1.0", exception="ArgumentError: the library broke")


def test_rust_kit_through_rust_json_patch():
    """The Rust kit's own conversation tests (panics included) are `cargo test -p patchconf-adapter`;
    here its exact numbers and garbage handling, through a real adapter binary."""
    adapter = ALL["rust-json-patch"]
    if adapter.missing():
        pytest.skip(adapter.missing())
    handshake, garbage, exact, _boom, _nan, undeclared = converse(adapter.command)
    assert handshake["implementation"]["version"] == locked_crate_version("json-patch")
    assert garbage["seq"] is None and garbage["error"]["message"].startswith("unreadable request: ")
    assert exact == {"seq": "1", "result": {"document": {"big": str(BIG), "one": "1.0"}}}
    assert undeclared == {"seq": "4", "skipped": 'rust-json-patch does not run "strategic" cases'}


def test_rust_kit_conversation_tests():
    """The Rust kit's conversation tests (exact numbers, a panic as the case's answer, garbage)."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    if not (ADAPTERS / "target" / "release").is_dir():
        pytest.skip(f"the Rust adapters are not built: run {RUST_BUILD}")
    done = subprocess.run(["nice", "cargo", "test", "--release", "--locked", "--offline", "--quiet",
                           "--manifest-path", str(ADAPTERS / "Cargo.toml"), "-p", "patchconf-adapter", "--lib"],
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test result: ok. 3 passed; 0 failed" in done.stdout
