"""The local control plane: build recipe, start/stop through the CLI, the session fixture, TLS and token auth."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from patchconf.harness import SOURCE_ROOT
from patchconf.harness.controlplane import apiserver
from patchconf.harness.controlplane.pytest_apiserver import live_required

KUBERNETES_GO_MOD = """\
module k8s.io/kubernetes

go 1.24.0

godebug default=go1.24

require (
\tk8s.io/api v0.0.0
\tgithub.com/spf13/cobra v1.8.1
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/apiserver => ./staging/src/k8s.io/apiserver
)
"""


def _restore_ctrl_c() -> None:
    # A child of a background job (CI runners, `cmd &`) starts with SIGINT ignored, and Python
    # then never raises KeyboardInterrupt; restore the default so the test's Ctrl-C arrives.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_recipe_replaces_each_staging_module_with_its_published_release() -> None:
    go_mod = apiserver.render_go_mod("v1.33.13", KUBERNETES_GO_MOD)
    body = go_mod.split("\n", 2)[2]  # past the two comment lines
    assert body == (
        "module patchconf.dev/targets/apiserver\n\n"
        "go 1.24.0\n\n"
        "godebug default=go1.24\n\n"
        "tool (\n\tgo.etcd.io/etcd/server/v3\n\tk8s.io/kubernetes/cmd/kube-apiserver\n)\n\n"
        "require k8s.io/kubernetes v1.33.13\n\n"
        "replace (\n\tk8s.io/api => k8s.io/api v0.33.13\n\tk8s.io/apiserver => k8s.io/apiserver v0.33.13\n)\n"
    )


def test_recipe_refuses_a_go_mod_without_staging_modules() -> None:
    with pytest.raises(apiserver.ControlPlaneError, match="no staging replace directives"):
        apiserver.render_go_mod("v1.33.13", "module k8s.io/kubernetes\n\ngo 1.24.0\n")


def test_committed_recipe_is_what_the_generator_writes_for_the_pinned_release() -> None:
    version = apiserver.pinned_version()
    kubernetes_go_mod = Path(os.environ.get("GOMODCACHE", Path.home() / "go" / "pkg" / "mod")) / "cache" / \
        "download" / "k8s.io" / "kubernetes" / "@v" / f"{version}.mod"
    if not kubernetes_go_mod.is_file():
        pytest.skip(f"k8s.io/kubernetes {version}'s go.mod is not in the Go module cache")
    committed = (SOURCE_ROOT / "targets" / "apiserver" / "go.mod").read_text()
    rendered = apiserver.render_go_mod(version, kubernetes_go_mod.read_text())
    # `go mod tidy` added the require block; the header, tools and replacements are the generator's.
    assert committed.startswith(rendered.split("require ")[0])
    assert _block(committed, "replace") == _block(rendered, "replace")
    assert f"\t{apiserver.KUBERNETES_MODULE} {version} // indirect\n" in committed


def _block(go_mod: str, directive: str) -> str:
    return re.search(rf"^{directive} \((.*?)^\)", go_mod, re.MULTILINE | re.DOTALL).group(1)


@pytest.mark.parametrize(("requested", "resolved"), [
    (None, "PINNED"), ("1.33", "PINNED"), ("1.31.4", "v1.31.4"), ("v1.32.0", "v1.32.0"),
])
def test_version_resolution_without_the_network(requested: str | None, resolved: str) -> None:
    pinned = apiserver.pinned_version()
    assert pinned.startswith("v1.33.")
    assert apiserver.resolve_version(requested) == (pinned if resolved == "PINNED" else resolved)


@pytest.mark.parametrize("requested", ["latest", "1", "1.33.x", "2.0"])
def test_unusable_versions_are_refused(requested: str) -> None:
    with pytest.raises(apiserver.ControlPlaneError, match="give a Kubernetes release"):
        apiserver.resolve_version(requested)


def test_without_go_or_cached_binaries_start_says_go_is_needed(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no go here
    monkeypatch.setenv("PATCHCONF_JUDGES", "local")  # nor the patchconf-judges wheel's binaries
    with pytest.raises(apiserver.GoMissing, match="needs Go"):
        apiserver.start(tmp_path / "kubeconfig")
    assert not (tmp_path / "kubeconfig").exists()


def test_a_foreign_kubeconfig_is_never_overwritten(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\ncurrent-context: production\n")
    with pytest.raises(apiserver.ControlPlaneError, match="was not written by patchconf"):
        apiserver.start(kubeconfig)
    assert kubeconfig.read_text() == "apiVersion: v1\nkind: Config\ncurrent-context: production\n"


def test_stop_never_signals_a_process_that_reuses_a_recorded_pid(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        ticks = apiserver._start_ticks(bystander.pid)
        assert apiserver.is_running(apiserver.ProcessRecord("sleep", bystander.pid, ticks))
        # A record of an earlier process that had the same pid: same pid, other start time.
        stale = apiserver.ProcessRecord("kube-apiserver", bystander.pid, ticks - 1)
        data_dir = tmp_path / "data"
        data_dir.mkdir()
        plane = apiserver.ControlPlane(kubeconfig=tmp_path / "kubeconfig", data_dir=data_dir, server="https://x",
                                       version="v1.33.13", processes=[stale], etcd_url="http://x")
        apiserver.stop(plane)
        assert bystander.poll() is None
        assert not data_dir.exists()
    finally:
        bystander.kill()
        bystander.wait()


def test_a_control_plane_whose_processes_died_reads_stopped_and_stop_clears_it(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    gone = apiserver.ProcessRecord("kube-apiserver", 2**22 + 1, 1)  # above any pid_max: never a live process
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    kubeconfig = tmp_path / "kubeconfig"
    apiserver.write_kubeconfig(kubeconfig, "https://127.0.0.1:1", Path(__file__), "token")
    plane = apiserver.ControlPlane(kubeconfig=kubeconfig, data_dir=data_dir, server="https://127.0.0.1:1",
                                   version="v1.33.13", processes=[gone], etcd_url="http://127.0.0.1:2")
    plane.state_file.parent.mkdir(parents=True)
    plane.state_file.write_text(json.dumps(plane.to_json()))
    assert [p.server for p in apiserver.running_control_planes()] == ["https://127.0.0.1:1"]
    assert apiserver.status(plane) == "stopped"
    apiserver.stop(apiserver.find(kubeconfig))
    assert not data_dir.exists() and not kubeconfig.exists() and not plane.state_file.exists()
    assert apiserver.running_control_planes() == []


def _stand_in(tmp_path: Path, name: str, processes: list[str]) -> tuple[apiserver.ControlPlane, list]:
    """A recorded plane whose processes are `sleep`s (sessions of their own, as the daemons are), with a
    data directory holding its token and a kubeconfig written for it; not yet in a state file."""
    children = [subprocess.Popen(["sleep", "120"], start_new_session=True) for _ in processes]
    records = [apiserver.ProcessRecord(process_name, child.pid, apiserver._start_ticks(child.pid))
               for process_name, child in zip(processes, children, strict=True)]
    data_dir = tmp_path / f"data-{name}"
    (data_dir / "pki").mkdir(parents=True)
    (data_dir / "pki" / "admin.token").write_text(f"token-{name}\n")
    server = f"https://127.0.0.1:{len(name) + 1000}"
    kubeconfig = tmp_path / "kubeconfig"
    apiserver.write_kubeconfig(kubeconfig, server, Path(__file__), f"token-{name}")
    plane = apiserver.ControlPlane(kubeconfig=kubeconfig.resolve(), data_dir=data_dir, server=server,
                                   version="v1.33.13", processes=records, etcd_url="http://127.0.0.1:2")
    return plane, children


def _record(plane: apiserver.ControlPlane) -> None:
    plane.state_file.parent.mkdir(parents=True, exist_ok=True)
    plane.state_file.write_text(json.dumps(plane.to_json()))


def _ended(children: list[subprocess.Popen]) -> list[bool]:
    return [child.poll() is not None for child in children]


@pytest.fixture
def own_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Planes recorded in this test's own cache, so nothing here can see (or stop) another plane on the machine."""
    monkeypatch.setenv("PATCHCONF_CACHE", str(tmp_path / "cache"))
    assert apiserver.state_dir() == tmp_path / "cache" / "apiserver" / "running"
    children: list[subprocess.Popen] = []
    yield children
    for child in children:
        child.kill()
        child.wait()


def test_stop_leaves_the_kubeconfig_and_state_of_a_newer_plane_given_the_same_path(tmp_path: Path,
                                                                                   own_state) -> None:
    older, older_children = _stand_in(tmp_path / "a", "older", ["etcd", "kube-apiserver"])
    newer, newer_children = _stand_in(tmp_path / "a", "newer", ["etcd", "kube-apiserver"])  # rewrites the kubeconfig
    own_state += older_children + newer_children
    _record(newer)
    apiserver.stop(older)
    assert _ended(older_children) == [True, True] and _ended(newer_children) == [False, False]
    assert not older.data_dir.exists() and newer.data_dir.is_dir()
    assert "token: token-newer" in newer.kubeconfig.read_text()
    assert apiserver.find(newer.kubeconfig).data_dir == newer.data_dir
    apiserver.stop(newer)
    assert _ended(newer_children) == [True, True]
    assert not newer.kubeconfig.exists() and not newer.state_file.exists() and not newer.data_dir.exists()


def test_stop_given_an_older_reading_of_a_restarted_plane_stops_it_as_it_is_now(tmp_path: Path, own_state) -> None:
    # What a caller holds after kube-apiserver died: etcd lives, the recorded kube-apiserver does not.
    before, children = _stand_in(tmp_path, "plane", ["etcd", "kube-apiserver"])
    own_state += children
    children[1].kill()
    children[1].wait()
    restarted = subprocess.Popen(["sleep", "120"], start_new_session=True)
    own_state.append(restarted)
    now = apiserver.ControlPlane.from_json(before.to_json())
    now.processes = [before.processes[0],
                     apiserver.ProcessRecord("kube-apiserver", restarted.pid, apiserver._start_ticks(restarted.pid))]
    _record(now)
    apiserver.stop(before)
    assert _ended([children[0], restarted]) == [True, True]
    assert not before.kubeconfig.exists() and not before.state_file.exists() and not before.data_dir.exists()


def test_stop_and_status_act_on_every_plane_only_when_told_to(tmp_path: Path, own_state, capsys) -> None:
    from patchconf.harness.cli import main

    planes, children = [], []
    for name in ("first", "second", "third"):
        plane, its_children = _stand_in(tmp_path / name, name, ["etcd", "kube-apiserver"])
        _record(plane)
        planes.append(plane)
        children += its_children
    own_state += children
    for action in ("stop", "status"):
        with pytest.raises(SystemExit) as refused:
            main(["apiserver", action])
        assert refused.value.code == 2
        assert capsys.readouterr().err.endswith(
            f"patchconf apiserver {action}: error: one of the arguments --kubeconfig --all is required\n")
    assert _ended(children) == [False] * 6

    first = planes[0]
    assert main(["apiserver", "stop", "--kubeconfig", str(first.kubeconfig)]) == 0
    assert capsys.readouterr().out == (f"stopped {first.server} (pids {first.processes[0].pid}, "
                                       f"{first.processes[1].pid}); removed {first.data_dir}\n")
    assert _ended(children) == [True, True, False, False, False, False]

    rest = sorted(planes[1:], key=lambda plane: plane.state_file.name)  # as the state directory lists them
    pids = [f"{plane.processes[0].pid}, {plane.processes[1].pid}" for plane in rest]
    assert main(["apiserver", "stop", "--all"]) == 0
    assert capsys.readouterr().out == (
        "stopping every control plane patchconf started on this machine (2):\n"
        f"  {rest[0].server} v1.33.13: kubeconfig {rest[0].kubeconfig}, pids {pids[0]}\n"
        f"  {rest[1].server} v1.33.13: kubeconfig {rest[1].kubeconfig}, pids {pids[1]}\n"
        f"stopped {rest[0].server} (pids {pids[0]}); removed {rest[0].data_dir}\n"
        f"stopped {rest[1].server} (pids {pids[1]}); removed {rest[1].data_dir}\n")
    assert _ended(children) == [True] * 6
    assert not any(plane.kubeconfig.exists() or plane.state_file.exists() for plane in planes)
    assert main(["apiserver", "status", "--all"]) == 0
    assert capsys.readouterr().out == "no control plane started by patchconf\n"


# --- against real processes ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def binaries() -> apiserver.Binaries:
    try:
        return apiserver.build()
    except apiserver.GoMissing as exc:
        if live_required():
            pytest.fail(f"PATCHCONF_REQUIRE_LIVE is set, but {exc}", pytrace=False)
        pytest.skip(str(exc))


def _request(plane: apiserver.ControlPlane, path: str, token: str | None) -> int:
    request = urllib.request.Request(plane.server + path, headers={"Authorization": f"Bearer {token}"} if token else {})
    context = ssl.create_default_context(cafile=str(plane.ca_file()))
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_kubeconfig_reaches_the_server_and_it_keeps_what_is_written(live_api_client) -> None:
    import kubernetes

    core = kubernetes.client.CoreV1Api(live_api_client)
    body = kubernetes.client.V1ConfigMap(metadata=kubernetes.client.V1ObjectMeta(name="patchconf-fixture-probe"),
                                         data={"greeting": "hello"})
    created = core.create_namespaced_config_map("default", body)
    try:
        read = core.read_namespaced_config_map("patchconf-fixture-probe", "default")
        assert read.data == {"greeting": "hello"}
        assert read.metadata.uid == created.metadata.uid
    finally:
        core.delete_namespaced_config_map("patchconf-fixture-probe", "default")


def test_server_reports_the_release_it_was_built_from(live_apiserver, live_api_client) -> None:
    import kubernetes

    info = kubernetes.client.VersionApi(live_api_client).get_code()
    assert info.git_version == live_apiserver.version
    assert (info.major, info.minor) == tuple(live_apiserver.version.removeprefix("v").split(".")[:2])


def test_requests_without_a_valid_token_are_rejected(live_apiserver) -> None:
    assert _request(live_apiserver, "/api/v1/namespaces", None) == 401
    assert _request(live_apiserver, "/api/v1/namespaces", "not-the-token") == 401
    assert _request(live_apiserver, "/api/v1/namespaces", live_apiserver.token()) == 200


def test_server_certificate_is_checked_against_the_runs_own_ca(live_apiserver) -> None:
    context = ssl.create_default_context()  # the system trust store does not know the run's CA
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        urllib.request.urlopen(live_apiserver.server + "/readyz", context=context, timeout=10)


def _cli(*arguments: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "patchconf.harness.cli", "apiserver", *arguments], cwd=SOURCE_ROOT,
                          env={**os.environ, "PYTHONPATH": str(SOURCE_ROOT), **(env or {})},
                          capture_output=True, text=True, timeout=600, check=False)


def test_cli_start_outlives_the_command_and_stop_leaves_nothing(binaries, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kube" / "config"
    started = _cli("start", "--kubeconfig", str(kubeconfig))
    assert started.returncode == 0, started.stderr
    plane = apiserver.find(kubeconfig)
    assert plane is not None
    try:
        assert [record.name for record in plane.processes] == ["etcd", "kube-apiserver"]
        assert all(apiserver.is_running(record) for record in plane.processes)  # the CLI has exited
        assert plane.data_dir.is_dir()
        assert oct(kubeconfig.stat().st_mode & 0o777) == "0o600"
        assert _request(plane, "/readyz", plane.token()) == 200
        assert "ready" in _cli("status", "--kubeconfig", str(kubeconfig)).stdout

        again = _cli("start", "--kubeconfig", str(kubeconfig))
        assert again.returncode == 2
        assert "already serves" in again.stderr
    finally:
        stopped = _cli("stop", "--kubeconfig", str(kubeconfig))
    assert stopped.returncode == 0, stopped.stderr
    assert not any(apiserver.is_running(record) for record in plane.processes)
    assert not plane.data_dir.exists()
    assert not kubeconfig.exists()
    assert not plane.state_file.exists()
    assert _cli("stop", "--kubeconfig", str(kubeconfig)).returncode == 1


def test_failed_start_shows_the_log_and_leaves_nothing(binaries, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    spawned: list[apiserver.ProcessRecord] = []
    data_dirs: list[Path] = []
    real_spawn = apiserver._spawn

    def recording_spawn(name: str, command: list[str], log_path: Path):
        process, record = real_spawn(name, [*command, "--no-such-flag"] if name == "kube-apiserver" else command,
                                     log_path)
        spawned.append(record)
        data_dirs.append(log_path.parent)
        return process, record

    monkeypatch.setattr(apiserver, "_spawn", recording_spawn)
    with pytest.raises(apiserver.ControlPlaneError) as failure:
        apiserver.start(tmp_path / "kubeconfig")
    assert "kube-apiserver exited with status 1 during start-up" in str(failure.value)
    assert "unknown flag: --no-such-flag" in str(failure.value)
    assert [record.name for record in spawned] == ["etcd", "kube-apiserver"]
    assert not any(apiserver.is_running(record) for record in spawned)
    assert not data_dirs[0].exists()
    assert not (tmp_path / "kubeconfig").exists()


def test_start_that_is_not_ready_in_time_says_what_it_waited_for_and_leaves_nothing(
        binaries, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spawned: list[apiserver.ProcessRecord] = []
    real_spawn = apiserver._spawn

    def recording_spawn(name: str, command: list[str], log_path: Path):
        process, record = real_spawn(name, command, log_path)
        spawned.append(record)
        return process, record

    monkeypatch.setattr(apiserver, "_spawn", recording_spawn)
    with pytest.raises(apiserver.ControlPlaneError) as failure:
        apiserver.start(tmp_path / "kubeconfig", ready_timeout=0)  # etcd cannot answer the instant it is spawned
    assert str(failure.value).startswith("timed out waiting for etcd at http://127.0.0.1:")
    assert "--- etcd.log (last lines) ---" in str(failure.value)
    assert [record.name for record in spawned] == ["etcd"]
    assert not apiserver.is_running(spawned[0])
    assert not (tmp_path / "kubeconfig").exists()


def test_a_port_taken_before_the_server_binds_it_is_retried(binaries, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        ports = iter([taken])
        real_free_port = apiserver._free_port
        monkeypatch.setattr(apiserver, "_free_port", lambda: next(ports, None) or real_free_port())
        plane = apiserver.start(tmp_path / "kubeconfig")
        try:
            assert plane.etcd_url != f"http://127.0.0.1:{taken}"
            assert _request(plane, "/readyz", plane.token()) == 200
        finally:
            apiserver.stop(plane)
    assert not plane.data_dir.exists()


LIVE_PROBE = """
    defaults:
      type: json-patch
      tags: [JP-ADD]
      provenance: [{implementation: upstream, version: "1.33.13"}]
    cases:
      - name: add-member
        description: a member added to a ConfigMap's data
        original: {apiVersion: v1, kind: ConfigMap, metadata: {name: probe}, data: {a: "1"}}
        patch: [{op: add, path: /data/b, value: "2"}]
        expected: {apiVersion: v1, kind: ConfigMap, metadata: {name: probe}, data: {a: "1", b: "2"}}
"""


def test_live_at_a_release_starts_its_own_server_runs_cases_on_it_and_stops_it(binaries, write_case_file) -> None:
    from patchconf.harness.corpus.cases import load_file
    from patchconf.harness.running.runner import PASS, run_cases
    from patchconf.harness.targets import make_target

    cases, _ = load_file(write_case_file("json-patch/probe.yaml", LIVE_PROBE))
    minor = ".".join(apiserver.pinned_version().removeprefix("v").split(".")[:2])
    target = make_target(f"live@{minor}")
    plane = target.control_plane
    try:
        assert target.name == f"live@{minor}"
        assert target.info.version == apiserver.pinned_version()
        assert [record.name for record in plane.processes] == ["etcd", "kube-apiserver"]
        assert [(result.case.name, result.status) for result in run_cases(cases, target)] == [("add-member", PASS)]
    finally:
        target.close()
    assert target.control_plane is None
    assert not any(apiserver.is_running(record) for record in plane.processes)
    assert not plane.data_dir.exists() and not plane.state_file.exists()
    assert not plane.kubeconfig.parent.exists()  # the kubeconfig's temporary directory too


TERMINATED_WHILE_STARTING = """
import json, os, sys, time
from pathlib import Path
from patchconf.harness.controlplane import apiserver
from patchconf.harness.targets import make_target

def hold(check, processes, deadline, what):  # etcd is up: say so, then wait to be terminated
    out = Path(os.environ["STARTED_OUT"])  # renamed into place: the test never reads it half written
    out.with_suffix(".partial").write_text(json.dumps([vars(r) for _, r, _ in processes]))
    out.with_suffix(".partial").rename(out)
    time.sleep(120)

apiserver._wait_until = hold
try:
    make_target(sys.argv[1])
except KeyboardInterrupt:
    sys.exit(143)
"""


def test_live_at_a_release_terminated_while_its_server_starts_leaves_nothing_running(binaries,
                                                                                     tmp_path: Path) -> None:
    out = tmp_path / "started.json"
    minor = ".".join(apiserver.pinned_version().removeprefix("v").split(".")[:2])
    child = subprocess.Popen([sys.executable, "-c", TERMINATED_WHILE_STARTING, f"live@{minor}"], cwd=SOURCE_ROOT,
                             env={**os.environ, "PYTHONPATH": str(SOURCE_ROOT), "STARTED_OUT": str(out)},
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not out.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        records = [apiserver.ProcessRecord(**record) for record in json.loads(out.read_text())]
        assert [record.name for record in records] == ["etcd"]
        assert apiserver.is_running(records[0])
        child.send_signal(signal.SIGTERM)
        output = child.communicate(timeout=60)[0]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 143, output
    assert not apiserver.is_running(records[0])


HOLDING_TEST = """
import json, os, time
from pathlib import Path

def test_hold(live_apiserver):
    out = Path(os.environ["PLANE_OUT"])  # renamed into place: the test never reads it half written
    out.with_suffix(".partial").write_text(json.dumps(live_apiserver.to_json()))
    out.with_suffix(".partial").rename(out)
    time.sleep(300)
"""


@pytest.mark.parametrize("interruption", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_session_still_stops_its_control_plane(binaries, tmp_path: Path,
                                                              interruption: signal.Signals) -> None:
    (tmp_path / "test_hold.py").write_text(HOLDING_TEST)
    out = tmp_path / "plane.json"
    session = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "patchconf.harness.controlplane.pytest_apiserver",
         "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(tmp_path / "test_hold.py")],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(SOURCE_ROOT), "PLANE_OUT": str(out)},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=_restore_ctrl_c)
    try:
        deadline = time.monotonic() + 300
        while not out.exists() and session.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert out.exists(), session.communicate(timeout=60)[0] if session.poll() is not None else "no start"
        plane = apiserver.ControlPlane.from_json(json.loads(out.read_text()))
        assert all(apiserver.is_running(record) for record in plane.processes)
        session.send_signal(interruption)
        output = session.communicate(timeout=120)[0]
    finally:
        if session.poll() is None:
            session.kill()
            session.wait()
            if out.exists():  # a session killed outright cannot stop its plane: do it, then fail
                leaked = apiserver.ControlPlane.from_json(json.loads(out.read_text()))
                if any(apiserver.is_running(record) for record in leaked.processes):
                    apiserver.stop(leaked)
    assert session.returncode != 0
    assert "KeyboardInterrupt" in output
    assert not any(apiserver.is_running(record) for record in plane.processes)
    assert not plane.data_dir.exists()
    assert not plane.state_file.exists()


def test_a_server_killed_mid_run_leaves_results_and_cleanup_removes_the_rest_once_it_is_back(
        binaries, tmp_path: Path) -> None:
    kubeconfig, report = tmp_path / "kubeconfig", tmp_path / "report"
    first = plane = apiserver.start(kubeconfig)
    try:
        run = subprocess.Popen([sys.executable, "-m", "patchconf.harness.cli", "run", "--target", "live",
                                "--kubeconfig", str(kubeconfig), "--type", "strategic", "--report", str(report)],
                               cwd=SOURCE_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        results = report / "results.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None and (
                not results.is_file() or results.read_text().count('"result"') < 20):
            time.sleep(0.1)
        [killed] = [record for record in plane.processes if record.name == "kube-apiserver"]
        os.killpg(killed.pid, signal.SIGKILL)
        _, stderr = run.communicate(timeout=300)

        assert run.returncode == 1
        lines = [json.loads(line) for line in results.read_text().splitlines()]
        run_id = re.search(r"run (r[0-9a-f]+)", lines[0]["run"]["target"]["description"]).group(1)
        statuses = [line["result"]["status"] for line in lines if "result" in line]
        assert len(statuses) == lines[0]["run"]["planned"]  # every case has its result on disk
        assert statuses.count("pass") >= 10 and "error" in statuses
        stopped = [line["result"]["reason"] for line in lines if "result" in line
                   and line["result"]["reason"].startswith("the API server stopped answering")]
        assert stopped, "the cases after the server died are skipped, saying why"
        assert (report / "report.md").is_file() and (report / "results.json").is_file()
        assert f"cleanup of run {run_id} failed" in stderr and "run `patchconf live cleanup`" in stderr

        plane = apiserver.start(kubeconfig)  # the same etcd: what the run created is still stored
        assert plane.server == first.server and plane.data_dir == first.data_dir
        cleanup = subprocess.run([sys.executable, "-m", "patchconf.harness.cli", "live", "cleanup", "--kubeconfig",
                                  str(kubeconfig)], cwd=SOURCE_ROOT, capture_output=True, text=True, timeout=120)
        assert cleanup.returncode == 0, cleanup.stderr
        assert f"patchconf-{run_id}" in cleanup.stdout + cleanup.stderr
        again = subprocess.run([sys.executable, "-m", "patchconf.harness.cli", "live", "cleanup", "--kubeconfig",
                                str(kubeconfig)], cwd=SOURCE_ROOT, capture_output=True, text=True, timeout=120)
        assert run_id not in again.stdout + again.stderr  # nothing of the run is left
    finally:
        apiserver.stop(first)  # the first reading: stop finds the kube-apiserver started since, whatever failed
    assert not any(apiserver.is_running(record) for record in first.processes + plane.processes)
    assert not kubeconfig.exists() and not first.data_dir.exists() and not first.state_file.exists()


def test_a_restart_whose_port_was_taken_meanwhile_serves_on_a_free_one(binaries, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    first = back = apiserver.start(kubeconfig)
    try:
        [killed] = [record for record in first.processes if record.name == "kube-apiserver"]
        os.killpg(killed.pid, signal.SIGKILL)
        os.waitpid(killed.pid, 0)  # started by this process: reap it
        port = int(first.server.rsplit(":", 1)[1])
        with socket.socket() as squatter:  # another process takes the port meanwhile
            squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            squatter.bind(("127.0.0.1", port))
            squatter.listen()
            back = apiserver.start(kubeconfig)
            assert back.server != f"https://127.0.0.1:{port}" and back.data_dir == first.data_dir
            assert f"server: {back.server}\n" in kubeconfig.read_text()
            assert apiserver.find(kubeconfig).server == back.server
            assert _request(back, "/readyz", back.token()) == 200
    finally:
        apiserver.stop(first)
    assert not any(apiserver.is_running(record) for record in first.processes + back.processes)
    assert not kubeconfig.exists() and not first.data_dir.exists()


SESSION_OF_ITS_OWN = """
import json, os, time
from pathlib import Path

import kubernetes

def test_its_own_plane(live_apiserver, live_api_client):
    core = kubernetes.client.CoreV1Api(live_api_client)
    mine, other = os.environ["SESSION_NAME"], os.environ["OTHER_NAME"]
    core.create_namespace(kubernetes.client.V1Namespace(metadata=kubernetes.client.V1ObjectMeta(name=mine)))
    out = Path(os.environ["PLANE_OUT"])  # renamed into place: never read half written
    out.with_suffix(".partial").write_text(json.dumps(live_apiserver.to_json()))
    out.with_suffix(".partial").rename(out)
    deadline = time.monotonic() + 400
    while not out.with_name(other + ".json").exists() and time.monotonic() < deadline:
        time.sleep(0.2)  # both sessions hold their planes at once
    assert out.with_name(other + ".json").exists()
    names = {namespace.metadata.name for namespace in core.list_namespace().items}
    assert mine in names and other not in names
"""


def test_two_test_sessions_and_a_hand_started_plane_never_touch_each_other(binaries, tmp_path: Path) -> None:
    by_hand = tmp_path / "by-hand" / "kubeconfig"
    assert _cli("start", "--kubeconfig", str(by_hand)).returncode == 0
    hand_started = apiserver.find(by_hand)
    sessions = {}
    try:
        (tmp_path / "test_its_own_plane.py").write_text(SESSION_OF_ITS_OWN)
        for name, other in (("session-a", "session-b"), ("session-b", "session-a")):
            sessions[name] = subprocess.Popen(
                [sys.executable, "-m", "pytest", "-q", "-p", "patchconf.harness.controlplane.pytest_apiserver",
                 "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path / "test_its_own_plane.py")],
                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                env={**os.environ, "PYTHONPATH": str(SOURCE_ROOT), "PLANE_OUT": str(tmp_path / f"{name}.json"),
                     "SESSION_NAME": name, "OTHER_NAME": other})
        outputs = {name: session.communicate(timeout=600)[0] for name, session in sessions.items()}
        assert [session.returncode for session in sessions.values()] == [0, 0], outputs
        planes = [apiserver.ControlPlane.from_json(json.loads((tmp_path / f"{name}.json").read_text()))
                  for name in sessions]
        assert len({plane.server for plane in [*planes, hand_started]}) == 3
        for plane in planes:  # each session stopped its own plane and removed what was its own
            assert not any(apiserver.is_running(record) for record in plane.processes)
            assert not plane.data_dir.exists() and not plane.state_file.exists() and not plane.kubeconfig.exists()
        assert _request(hand_started, "/readyz", hand_started.token()) == 200
        assert apiserver.find(by_hand) == hand_started and by_hand.is_file()
    finally:
        for name, session in sessions.items():
            if session.poll() is None:
                session.kill()
                session.communicate()
                out = tmp_path / f"{name}.json"
                if out.exists():  # killed outright, it could not stop its plane
                    apiserver.stop(apiserver.ControlPlane.from_json(json.loads(out.read_text())))
        assert _cli("stop", "--kubeconfig", str(by_hand)).returncode == 0
    assert not any(apiserver.is_running(record) for record in hand_started.processes)


@pytest.mark.parametrize(("package", "name"), [
    ("k8s.io/kubernetes/cmd/kube-apiserver", "kube-apiserver"),
    ("go.etcd.io/etcd/server/v3", "server"),  # as `go build -o DIR/ go.etcd.io/etcd/server/v3` names it
    ("example.org/tool/v10", "tool"),
    ("example.org/v2tool", "v2tool"),
    ("example.org/tool/v1", "v1"),  # v1 is no major version suffix
])
def test_a_joint_build_finds_each_binary_by_the_name_go_gives_it(package: str, name: str) -> None:
    assert apiserver.executable_name(package) == name
