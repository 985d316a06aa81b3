"""A local control plane (etcd + kube-apiserver) that patchconf builds and starts itself, as envtest does.

Both binaries are built from Kubernetes' own Go modules: ``k8s.io/kubernetes`` at a release, with
its ``k8s.io/*`` staging modules replaced by their published ``v0.X.Y`` releases (the recipe in
``targets/apiserver/``), and etcd from ``go.etcd.io/etcd/server/v3`` at the version that release
requires. They are cached under ``$PATCHCONF_CACHE/apiserver/<version>-<digest>/`` (default
``~/.cache/patchconf``) and reused; when the patchconf-judges wheel holds both for that release and
recipe, its binaries serve and no Go is needed (judges.py).

``start`` runs both on 127.0.0.1 on free ports with a throwaway data directory, TLS from a CA made
for the run, token authentication (one random admin token in ``system:masters``, no anonymous
access) and RBAC, waits for ``/readyz`` and writes a kubeconfig. The processes are daemons in
sessions of their own, so they outlive the command that started them; a state file in the cache
records their ids, and ``stop`` ends exactly those processes and removes the data directory.
Each plane is known by its kubeconfig: its state file is keyed by that path, and ``stop`` removes a
kubeconfig or state file only while they still belong to the plane stopped (a newer server given
the same path keeps them).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import inspect
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from .. import SOURCE_ROOT, cache_root
from . import judges
from .gobuild import (
    BuildProgress,
    build_lock,
    platform_suffix,
    run_go,
    tail,
    write_manifest,
)

RECIPE_DIR = SOURCE_ROOT / "targets" / "apiserver"
KUBERNETES_MODULE = "k8s.io/kubernetes"
APISERVER_PACKAGE = "k8s.io/kubernetes/cmd/kube-apiserver"
ETCD_MODULE = "go.etcd.io/etcd/server/v3"
BUILD_TIMEOUT = 3600
DEFAULT_READY_TIMEOUT = 180.0
CONTEXT_NAME = "patchconf-apiserver"
SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24"
START_ATTEMPTS = 3  # free ports are picked before the servers bind them; another process may win the race


Log = Callable[[str], None]


class ControlPlaneError(RuntimeError):
    """The control plane could not be built, started or stopped; the message says why."""


class GoMissing(ControlPlaneError):
    """Go is needed to build the binaries and is not installed."""


# --- the build recipe ---------------------------------------------------------------------------


def pinned_version() -> str:
    """The Kubernetes release the committed recipe in targets/apiserver/ builds, e.g. 'v1.33.13'."""
    match = re.search(rf"^(?:require)?\s*{re.escape(KUBERNETES_MODULE)} (v[0-9.]+)\b",
                      (RECIPE_DIR / "go.mod").read_text(encoding="utf-8"), re.MULTILINE)
    if not match:
        raise ControlPlaneError(f"{RECIPE_DIR / 'go.mod'} does not require {KUBERNETES_MODULE}")
    return match.group(1)


def _go() -> str:
    go = shutil.which("go")
    if not go:
        raise GoMissing("the local control plane needs Go to build kube-apiserver and etcd from Kubernetes' "
                        "Go modules, and there is no `go` on PATH")
    return go


def _run_go(arguments: list[str], cwd: Path, timeout: float = BUILD_TIMEOUT,
            progress: BuildProgress | None = None, platform: str | None = None) -> str:
    return run_go([_go(), *arguments], cwd, timeout, ControlPlaneError, progress, platform)


def resolve_version(requested: str | None) -> str:
    """'1.33' -> the newest published v1.33.Z (the pinned one when it is of that minor); '1.33.4' -> 'v1.33.4'."""
    pinned = pinned_version()
    if not requested:
        return pinned
    spec = requested.removeprefix("v")
    if re.fullmatch(r"1\.[0-9]+\.[0-9]+", spec):
        return f"v{spec}"
    if not re.fullmatch(r"1\.[0-9]+", spec):
        raise ControlPlaneError(f"--version {requested!r}: give a Kubernetes release such as 1.33 or 1.33.4")
    if pinned.startswith(f"v{spec}."):
        return pinned
    try:
        listing = _run_go(["list", "-m", "-versions", KUBERNETES_MODULE], Path(tempfile.gettempdir()), timeout=120)
    except ControlPlaneError:
        # Without the module proxy, a release built before still serves.
        built = _built_patches(spec)
        if not built:
            raise
        return built[-1]
    patches = [v for v in listing.split()[1:] if re.fullmatch(rf"v{re.escape(spec)}\.[0-9]+", v)]
    if not patches:
        raise ControlPlaneError(f"no published {KUBERNETES_MODULE} release for Kubernetes {spec}")
    return max(patches, key=lambda v: int(v.rsplit(".", 1)[1]))


def _built_patches(minor: str) -> list[str]:
    """The releases of ``minor`` ('1.30') whose binaries are in the cache, oldest first."""
    directory = cache_root() / "apiserver"
    names = {path.name.split("-")[0] for path in directory.glob(f"v{minor}.*-*")} if directory.is_dir() else set()
    built = [version for version in names if re.fullmatch(rf"v{re.escape(minor)}\.[0-9]+", version)
             and cached_binaries(version).kube_apiserver.is_file() and cached_binaries(version).etcd.is_file()]
    return sorted(built, key=lambda v: int(v.rsplit(".", 1)[1]))


def render_go_mod(version: str, kubernetes_go_mod: str) -> str:
    """The recipe's go.mod for ``version``, given k8s.io/kubernetes' own go.mod at that release.

    k8s.io/kubernetes requires its staging modules as v0.0.0 and replaces them with directories
    that are not in its module zip; a module that imports it must replace each with the
    published v0.MINOR.PATCH. The list changes between releases, so it is read from that go.mod.
    """
    staging = re.findall(r"^\s*(k8s\.io/[\w.-]+) => \./staging/src/\1\s*$", kubernetes_go_mod, re.MULTILINE)
    if not staging:
        raise ControlPlaneError(f"{KUBERNETES_MODULE} {version}'s go.mod has no staging replace directives")
    go_line = re.search(r"^go [0-9.]+$", kubernetes_go_mod, re.MULTILINE)
    godebug = re.search(r"^godebug .+$", kubernetes_go_mod, re.MULTILINE)
    staging_version = "v0." + version.removeprefix("v1.")
    lines = [
        f"// Generated by `patchconf apiserver recipe --version {version.removeprefix('v')}`: kube-apiserver and etcd",
        f"// from {KUBERNETES_MODULE} {version}, its staging modules replaced by their published releases.",
        "module patchconf.dev/targets/apiserver",
        "",
        go_line.group(0) if go_line else "go 1.24.0",
        "",
        *([godebug.group(0), ""] if godebug else []),
        "tool (",
        *(f"\t{tool}" for tool in sorted((APISERVER_PACKAGE, ETCD_MODULE))),  # in `go mod tidy`'s order
        ")",
        "",
        f"require {KUBERNETES_MODULE} {version}",
        "",
        "replace (",
        *(f"\t{module} => {module} {staging_version}" for module in staging),
        ")",
        "",
    ]
    return "\n".join(lines)


def minor_of(version: str) -> int:
    """'v1.29.6' or '1.29' -> 29."""
    return int(version.removeprefix("v").split(".")[1])


def build_tags(version: str) -> list[str]:
    """Go build tags for a release.

    Kubernetes 1.29's in-tree cloud providers import k8s.io/legacy-cloud-providers, whose v0.29
    releases the module proxy does not serve (403); ``providerless``, Kubernetes' own build tag,
    leaves those providers out. The local control plane runs none, and 1.31 removed them.
    """
    return ["providerless"] if minor_of(version) <= 29 else []


def write_recipe(version: str, directory: Path, progress: BuildProgress | None = None) -> None:
    """Write go.mod and go.sum for ``version`` into ``directory`` (Go module proxy access needed)."""
    directory.mkdir(parents=True, exist_ok=True)
    download = json.loads(_run_go(["mod", "download", "-json", f"{KUBERNETES_MODULE}@{version}"], directory,
                                  progress=progress))
    if "Error" in download:
        raise ControlPlaneError(f"{KUBERNETES_MODULE}@{version}: {download['Error']}")
    kubernetes_go_mod = Path(download["GoMod"]).read_text(encoding="utf-8")
    (directory / "go.mod").write_text(render_go_mod(version, kubernetes_go_mod), encoding="utf-8")
    (directory / "go.sum").unlink(missing_ok=True)
    # tidy reads the packages of every build tag: with tags that leave modules out, it would still
    # fail on them (-e: it records what it can; the build then says if anything is missing)
    _run_go(["mod", "tidy", *(["-e"] if build_tags(version) else [])], directory, progress=progress)


def _ldflags(version: str) -> str:
    # What Kubernetes' own build stamps in, so /version reports the release rather than v0.0.0-master.
    major, minor = version.removeprefix("v").split(".")[:2]
    stamps = []
    for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        stamps += [f"-X {package}.gitVersion={version}", f"-X {package}.gitMajor={major}",
                   f"-X {package}.gitMinor={minor}", f"-X {package}.gitTreeState=clean"]
    return " ".join(["-s", "-w", *stamps])


@dataclass(frozen=True)
class Binaries:
    version: str
    kube_apiserver: Path
    etcd: Path


def recipe_digest(version: str) -> str:
    digest = hashlib.sha256(_ldflags(version).encode())
    if build_tags(version):  # only then, so the releases built before keep their cache
        digest.update(",".join(build_tags(version)).encode())
    if version == pinned_version():
        for name in ("go.mod", "go.sum"):
            digest.update((RECIPE_DIR / name).read_bytes())
    else:
        # A generated recipe changes only with its generator (go mod tidy's choices follow from it).
        digest.update(inspect.getsource(render_go_mod).encode())
    return digest.hexdigest()[:16]


def cached_binaries(version: str, platform: str | None = None) -> Binaries:
    build_dir = cache_root() / "apiserver" / f"{version}-{recipe_digest(version)}{platform_suffix(platform)}"
    return Binaries(version, build_dir / "kube-apiserver", build_dir / "etcd")


def _facts(name: str, version: str) -> dict:
    return {"name": name, "release": version, "digest": recipe_digest(version), "ldflags": _ldflags(version),
            "tags": build_tags(version)}


def _prebuilt(version: str) -> tuple[Binaries | None, str]:
    """Both binaries from the patchconf-judges wheel if it holds them for ``version`` and this recipe."""
    found = {}
    for name in ("kube-apiserver", "etcd"):
        found[name], note = judges.prebuilt(name, version, recipe_digest(version))
        if found[name] is None:
            return None, note
    return Binaries(version, judges.use(found["kube-apiserver"]), judges.use(found["etcd"])), ""


def build(version: str | None = None, log: Log | None = None, platform: str | None = None,
          prebuilt: bool = True) -> Binaries:
    """The binaries for ``version`` (default: the pinned release): the patchconf-judges wheel's when
    it holds this very build (``prebuilt``), else the cache's, building them if needed (saying so on
    stderr, step by step: see gobuild.BuildProgress). ``platform`` ('darwin/arm64') cross-compiles."""
    resolved = resolve_version(version)
    note = ""
    if prebuilt and platform is None:
        found, note = _prebuilt(resolved)
        if found is not None:
            return found
    binaries = cached_binaries(resolved, platform)
    if not (binaries.kube_apiserver.is_file() and binaries.etcd.is_file()):
        _build_into(binaries, resolved, platform)
    go = shutil.which("go")  # a manifest for binaries cached before manifests were written
    for binary in (binaries.kube_apiserver, binaries.etcd):
        judges.use(judges.local(binary.name, binary, _facts(binary.name, resolved), go, ControlPlaneError, note))
    return binaries


def judges_of(binaries: Binaries) -> list[dict]:
    """The judge records of ``binaries`` (as build recorded them), for a plane's state file."""
    paths = {str(binaries.kube_apiserver), str(binaries.etcd)}
    return [judge for judge in judges.used() if judge["path"] in paths]


def _build_into(binaries: Binaries, resolved: str, platform: str | None) -> None:
    build_dir = binaries.kube_apiserver.parent
    what = (f"the local control plane (kube-apiserver and etcd of Kubernetes {resolved}"
            f"{f', for {platform}' if platform else ''})")
    with build_lock(build_dir, what):
        if binaries.kube_apiserver.is_file() and binaries.etcd.is_file():
            return
        go = _go()
        progress = BuildProgress(what, build_dir)
        work = build_dir / "src"
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        if resolved == pinned_version():
            for name in ("go.mod", "go.sum"):
                shutil.copy(RECIPE_DIR / name, work / name)
        else:
            progress.say(f"generating the build recipe for Kubernetes {resolved}")
            write_recipe(resolved, work, progress)
        missing = [(binary, package) for binary, package in
                   ((binaries.kube_apiserver, APISERVER_PACKAGE), (binaries.etcd, ETCD_MODULE)) if not binary.is_file()]
        # One `go build` of both: Go schedules the two package graphs together, so etcd's packages
        # fill the cores while kube-apiserver's long chain compiles; -o DIR/ names each by its package.
        out = work / "bin"
        out.mkdir()
        progress.say(f"{progress.what}: {' and '.join(binary.name for binary, _ in missing)}")
        tags = ["-tags", ",".join(build_tags(resolved))] if build_tags(resolved) else []
        _run_go(["build", "-trimpath", *tags, "-ldflags", _ldflags(resolved), "-o", f"{out}{os.sep}",
                 *(package for _, package in missing)], work, progress=progress, platform=platform)
        for binary, package in missing:
            os.replace(out / executable_name(package), binary)
            write_manifest(binary, go, _facts(binary.name, resolved), ControlPlaneError)
        shutil.rmtree(work, ignore_errors=True)
        progress.done()


def executable_name(package: str) -> str:
    """The file `go build -o DIR/` writes for a main package: its path's last element, a major
    version suffix left out ('go.etcd.io/etcd/server/v3' -> 'server')."""
    elements = package.split("/")
    if len(elements) > 1 and re.fullmatch(r"v([2-9]|[1-9][0-9]+)", elements[-1]):
        elements.pop()
    return elements[-1]


# --- processes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProcessRecord:
    """One daemon: its pid (= its process group, as a session leader) and kernel start time.

    The start time tells the daemon apart from a later process that reuses its pid, so ``stop``
    never signals anything it did not start.
    """

    name: str
    pid: int
    start_ticks: int


def _start_ticks(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):  # exited, not yet reaped
        return None
    return int(fields[19])


def is_running(record: ProcessRecord) -> bool:
    return _start_ticks(record.pid) == record.start_ticks


def _spawn(name: str, command: list[str], log_path: Path) -> tuple[subprocess.Popen, ProcessRecord]:
    with log_path.open("ab") as log:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True, close_fds=True)
    ticks = _start_ticks(process.pid)
    return process, ProcessRecord(name, process.pid, ticks if ticks is not None else -1)


def _terminate(records: list[ProcessRecord], grace: float = 15.0) -> list[ProcessRecord]:
    """End each recorded process group in turn (SIGTERM, SIGKILL after ``grace``); returns survivors.

    One at a time, in the order given: kube-apiserver shuts down in a fraction of a second while
    its etcd is up, but lingers for many seconds retrying an etcd that is going away.
    """
    for record in records:
        if not is_running(record):
            continue
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(record.pid, sig)
            deadline = time.monotonic() + wait
            while is_running(record) and time.monotonic() < deadline:
                _reap([record])
                time.sleep(0.05)
            if not is_running(record):
                break
    return [record for record in records if is_running(record)]


def _reap(records: list[ProcessRecord]) -> None:
    # Daemons started by this very process stay its (zombie) children until waited for; others are not ours to wait.
    for record in records:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(record.pid, os.WNOHANG)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _log_tail(path: Path, lines: int = 30) -> str:
    try:
        return tail(path.read_text(errors="replace"), lines)
    except OSError:
        return "(no log)"


# --- credentials --------------------------------------------------------------------------------


def _openssl(arguments: list[str], cwd: Path) -> None:
    openssl = shutil.which("openssl")
    if not openssl:
        raise ControlPlaneError("the local control plane needs the openssl command to make its certificates")
    completed = subprocess.run([openssl, *arguments], cwd=cwd, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise ControlPlaneError(f"openssl {shlex.join(arguments)} failed: {completed.stderr.strip()}")


def _write_credentials(pki: Path) -> None:
    """A CA, a serving certificate for 127.0.0.1/localhost signed by it, and a service-account key."""
    pki.mkdir(mode=0o700)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(["req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "7",
              "-subj", "/CN=patchconf-apiserver-ca",
              "-addext", "basicConstraints=critical,CA:TRUE",
              "-addext", "keyUsage=critical,keyCertSign,cRLSign"], pki)
    _openssl(["req", *ec, "-keyout", "serving.key", "-out", "serving.csr", "-subj", "/CN=kube-apiserver"], pki)
    (pki / "serving.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                     "extendedKeyUsage=serverAuth\n"
                                     "keyUsage=critical,digitalSignature,keyEncipherment\n")
    _openssl(["x509", "-req", "-in", "serving.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
              "-out", "serving.crt", "-days", "7", "-extfile", "serving.ext"], pki)
    _openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "service-account.key"],
             pki)
    # --service-account-key-file does not read PKCS#8 private keys; give it the public half.
    _openssl(["pkey", "-in", "service-account.key", "-pubout", "-out", "service-account.pub"], pki)


# --- the control plane --------------------------------------------------------------------------


@dataclass
class ControlPlane:
    """A running etcd + kube-apiserver pair, as recorded in its state file."""

    kubeconfig: Path
    data_dir: Path
    server: str
    version: str
    processes: list[ProcessRecord]
    etcd_url: str
    started_at: float = field(default_factory=time.time)
    judges: list[dict] = field(default_factory=list)  # its binaries, their source and modules (judges.py)

    @property
    def state_file(self) -> Path:
        return state_file_for(self.kubeconfig)

    def token(self) -> str:
        return (self.data_dir / "pki" / "admin.token").read_text().strip()

    def ca_file(self) -> Path:
        return self.data_dir / "pki" / "ca.crt"

    def to_json(self) -> dict:
        data = asdict(self)
        data["kubeconfig"] = str(self.kubeconfig)
        data["data_dir"] = str(self.data_dir)
        return data

    @classmethod
    def from_json(cls, data: dict) -> ControlPlane:
        return cls(kubeconfig=Path(data["kubeconfig"]), data_dir=Path(data["data_dir"]), server=data["server"],
                   version=data["version"], processes=[ProcessRecord(**p) for p in data["processes"]],
                   etcd_url=data["etcd_url"], started_at=data["started_at"], judges=data.get("judges", []))


def state_dir() -> Path:
    return cache_root() / "apiserver" / "running"


def state_file_for(kubeconfig: Path) -> Path:
    key = hashlib.sha256(str(kubeconfig.resolve()).encode()).hexdigest()[:16]
    return state_dir() / f"{key}.json"


def _write_state(plane: ControlPlane) -> None:
    # Renamed into place: a concurrent reader (status, another session's stop) never sees half a file.
    plane.state_file.parent.mkdir(parents=True, exist_ok=True)
    temporary = plane.state_file.with_name(f"{plane.state_file.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(plane.to_json(), indent=2) + "\n")
    os.replace(temporary, plane.state_file)


def running_control_planes() -> list[ControlPlane]:
    planes = []
    for path in sorted(state_dir().glob("*.json")) if state_dir().is_dir() else []:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            planes.append(ControlPlane.from_json(json.loads(path.read_text())))
    return planes


def _etcd_command(binary: Path, data_dir: Path, client_port: int, peer_port: int) -> list[str]:
    client, peer = f"http://127.0.0.1:{client_port}", f"http://127.0.0.1:{peer_port}"
    return [str(binary), "--name", "patchconf", "--data-dir", str(data_dir / "etcd"),
            "--listen-client-urls", client, "--advertise-client-urls", client,
            "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
            "--initial-cluster", f"patchconf={peer}", "--initial-cluster-state", "new",
            # A throwaway store: durability buys nothing and fsync is slow on a shared disk.
            "--unsafe-no-fsync", "--log-level", "warn"]


def _apiserver_command(binary: Path, data_dir: Path, etcd_url: str, port: int, version: str) -> list[str]:
    pki = data_dir / "pki"
    by_release = []
    if minor_of(version) >= 37:
        # 1.37 refuses a loopback advertise address while the endpoint reconciler (which keeps the
        # `kubernetes` Service's endpoints) runs; nothing here uses that Service.
        by_release += ["--endpoint-reconciler-type", "none"]
    return [str(binary), *by_release,
            "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", str(port),
            "--tls-cert-file", str(pki / "serving.crt"), "--tls-private-key-file", str(pki / "serving.key"),
            "--cert-dir", str(pki),
            "--etcd-servers", etcd_url,
            "--anonymous-auth=false", "--token-auth-file", str(pki / "tokens.csv"),
            "--authorization-mode", "RBAC",
            "--service-account-issuer", f"https://127.0.0.1:{port}",
            "--service-account-key-file", str(pki / "service-account.pub"),
            "--service-account-signing-key-file", str(pki / "service-account.key"),
            "--service-cluster-ip-range", SERVICE_CLUSTER_IP_RANGE,
            # No controller manager runs, so nothing would create the default service account.
            "--disable-admission-plugins", "ServiceAccount",
            "--allow-privileged=true", "--profiling=false"]


def _ssl_context(ca_file: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(ca_file))


def _get(url: str, token: str | None, context: ssl.SSLContext | None, timeout: float = 5.0) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def _wait_until(check, processes: list[tuple[subprocess.Popen, ProcessRecord, Path]], deadline: float,
                what: str) -> None:
    last = ""
    while True:
        for process, record, log in processes:
            if process.poll() is not None:
                raise _Exited(record.name, process.returncode, log)
        try:
            ready, last = check()
        except (OSError, ssl.SSLError) as error:
            ready, last = False, str(error)
        if ready:
            return
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {log.name} (last lines) ---\n{_log_tail(log)}" for _, _, log in processes)
            raise ControlPlaneError(f"timed out waiting for {what} (last answer: {last[:300]})\n{logs}")
        time.sleep(0.25)


class _Exited(ControlPlaneError):
    def __init__(self, name: str, code: int, log: Path) -> None:
        self.port_in_use = "address already in use" in _log_tail(log, 200)
        super().__init__(f"{name} exited with status {code} during start-up"
                         + (" (a port it was given is in use)" if self.port_in_use else "")
                         + f"\n--- {log.name} (last lines) ---\n{_log_tail(log)}")


def write_kubeconfig(path: Path, server: str, ca_file: Path, token: str) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT_NAME, "cluster": {
            "server": server,
            "certificate-authority-data": base64.b64encode(ca_file.read_bytes()).decode()}}],
        "users": [{"name": "patchconf-admin", "user": {"token": token}}],
        "contexts": [{"name": CONTEXT_NAME, "context": {"cluster": CONTEXT_NAME, "user": "patchconf-admin"}}],
        "current-context": CONTEXT_NAME,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
        yaml.safe_dump(config, handle, sort_keys=False)
    os.replace(temporary, path)


def _check_kubeconfig_path(kubeconfig: Path) -> None:
    if not kubeconfig.exists():
        return
    try:
        existing = yaml.safe_load(kubeconfig.read_text()) or {}
    except (OSError, yaml.YAMLError):
        existing = None
    if not isinstance(existing, dict) or existing.get("current-context") != CONTEXT_NAME:
        raise ControlPlaneError(f"{kubeconfig} exists and was not written by patchconf apiserver; "
                                "give a new path so no other kubeconfig is overwritten")


def start(kubeconfig: Path, version: str | None = None, ready_timeout: float = DEFAULT_READY_TIMEOUT,
          log: Log | None = None) -> ControlPlane:
    """Build (if needed) and start etcd + kube-apiserver, wait until ready, write ``kubeconfig``."""
    kubeconfig = kubeconfig.resolve()
    state = state_file_for(kubeconfig)
    if state.is_file():
        previous = ControlPlane.from_json(json.loads(state.read_text()))
        if _only_apiserver_died(previous) and version in (None, previous.version.removeprefix("v"), previous.version):
            return restart_apiserver(previous, ready_timeout, log)
        if any(is_running(record) for record in previous.processes):
            raise ControlPlaneError(f"a control plane started by patchconf already serves {kubeconfig} "
                                    f"({previous.server}); stop it first: patchconf apiserver stop "
                                    f"--kubeconfig {kubeconfig}")
        _remove(previous, owns_state=True)
    _check_kubeconfig_path(kubeconfig)
    binaries = build(version, log=log)
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            return _start_once(binaries, kubeconfig, ready_timeout, log)
        except _Exited as exited:
            if not exited.port_in_use or attempt == START_ATTEMPTS:
                raise
            if log:
                log(f"a port was taken before the server bound it; retrying ({attempt}/{START_ATTEMPTS})")
    raise AssertionError("unreachable")


def _start_once(binaries: Binaries, kubeconfig: Path, ready_timeout: float, log: Log | None) -> ControlPlane:
    data_dir = Path(tempfile.mkdtemp(prefix="patchconf-apiserver-"))
    started: list[tuple[subprocess.Popen, ProcessRecord, Path]] = []
    try:
        pki = data_dir / "pki"
        _write_credentials(pki)
        token = secrets.token_urlsafe(32)
        (pki / "admin.token").write_text(token + "\n")
        (pki / "tokens.csv").write_text(f'{token},patchconf-admin,patchconf-admin,"system:masters"\n')
        deadline = time.monotonic() + ready_timeout

        client_port, peer_port, secure_port = _free_port(), _free_port(), _free_port()
        etcd_url = f"http://127.0.0.1:{client_port}"
        etcd_log = data_dir / "etcd.log"
        process, record = _spawn("etcd", _etcd_command(binaries.etcd, data_dir, client_port, peer_port), etcd_log)
        started.append((process, record, etcd_log))

        def etcd_healthy() -> tuple[bool, str]:
            status, body = _get(f"{etcd_url}/health", None, None, timeout=2)
            return status == 200 and '"health":"true"' in body, body

        _wait_until(etcd_healthy, started, deadline, f"etcd at {etcd_url}")

        server = f"https://127.0.0.1:{secure_port}"
        apiserver_log = data_dir / "kube-apiserver.log"
        process, record = _spawn("kube-apiserver",
                                 _apiserver_command(binaries.kube_apiserver, data_dir, etcd_url, secure_port,
                                                    binaries.version),
                                 apiserver_log)
        started.append((process, record, apiserver_log))
        context = _ssl_context(pki / "ca.crt")

        def apiserver_ready() -> tuple[bool, str]:
            status, body = _get(f"{server}/readyz", token, context, timeout=5)
            return status == 200, f"{status} {body}"

        _wait_until(apiserver_ready, started, deadline, f"kube-apiserver {server}/readyz")
        plane = ControlPlane(kubeconfig=kubeconfig, data_dir=data_dir, server=server, version=binaries.version,
                             processes=[record for _, record, _ in started], etcd_url=etcd_url,
                             judges=judges_of(binaries))
        write_kubeconfig(kubeconfig, server, pki / "ca.crt", token)
        _write_state(plane)
        return plane
    except BaseException:
        # Also on Ctrl-C: nothing half-started outlives a failed start.
        _terminate([record for _, record, _ in reversed(started)])
        for process, _, _ in started:
            with contextlib.suppress(Exception):
                process.wait(timeout=1)
        shutil.rmtree(data_dir, ignore_errors=True)
        raise


def _only_apiserver_died(plane: ControlPlane) -> bool:
    return [record.name for record in plane.processes if not is_running(record)] == ["kube-apiserver"]


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As Go's listeners do, so a port held only by closed connections (TIME_WAIT) counts as free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def restart_apiserver(plane: ControlPlane, ready_timeout: float = DEFAULT_READY_TIMEOUT,
                      log: Log | None = None) -> ControlPlane:
    """Bring back a kube-apiserver that died while its etcd lives on: same data and credentials, so
    what was stored before (a killed run's objects) is there to clean up. It listens on its old port
    while that is free, else on a free one, and the kubeconfig is rewritten to name it."""
    binaries = build(plane.version, log=log)
    port = int(plane.server.rsplit(":", 1)[1])
    deadline = time.monotonic() + ready_timeout
    for attempt in range(1, START_ATTEMPTS + 1):
        if not _port_is_free(port):
            taken, port = port, _free_port()
            if log:
                log(f"port {taken} of {plane.server} is taken now; restarting kube-apiserver on port {port}")
        try:
            record = _start_apiserver_on(plane, binaries, port, deadline)
            break
        except _Exited as exited:
            if not exited.port_in_use or attempt == START_ATTEMPTS:
                raise
    server = f"https://127.0.0.1:{port}"
    if server != plane.server:
        plane.server = server
        write_kubeconfig(plane.kubeconfig, server, plane.ca_file(), plane.token())
    plane.processes = [record if old.name == "kube-apiserver" else old for old in plane.processes]
    plane.judges = judges_of(binaries)
    _write_state(plane)
    return plane


def _start_apiserver_on(plane: ControlPlane, binaries: Binaries, port: int, deadline: float) -> ProcessRecord:
    server = f"https://127.0.0.1:{port}"
    apiserver_log = plane.data_dir / "kube-apiserver.log"
    process, record = _spawn("kube-apiserver",
                             _apiserver_command(binaries.kube_apiserver, plane.data_dir, plane.etcd_url, port,
                                                binaries.version),
                             apiserver_log)
    context = _ssl_context(plane.ca_file())

    def apiserver_ready() -> tuple[bool, str]:
        status, body = _get(f"{server}/readyz", plane.token(), context, timeout=5)
        return status == 200, f"{status} {body}"

    try:
        _wait_until(apiserver_ready, [(process, record, apiserver_log)], deadline, f"kube-apiserver {server}/readyz")
    except BaseException:
        _terminate([record])
        with contextlib.suppress(Exception):
            process.wait(timeout=1)
        raise
    return record


def stop(plane: ControlPlane) -> None:
    """End the processes of ``plane`` and remove its data directory, and its kubeconfig and state
    file while they are still its own.

    ``plane`` may be an older reading of a plane restarted since (a new kube-apiserver on the same
    data): its state file then records the processes running now, and those are stopped too. When
    the state file records another plane (a newer server given the same kubeconfig), that plane's
    state file and kubeconfig are left alone.
    """
    current = _recorded(plane.kubeconfig)
    owns_state = current is not None and current.data_dir == plane.data_dir
    records = list(plane.processes)
    if owns_state:
        records += [record for record in current.processes if record not in records]
    # kube-apiserver first, so it does not spend its shutdown retrying a vanished etcd.
    survivors = _terminate(sorted(records, key=lambda record: record.name == "etcd"))
    if survivors:
        raise ControlPlaneError("could not stop " + ", ".join(f"{r.name} (pid {r.pid})" for r in survivors))
    _remove(current if owns_state else plane, owns_state)


def _recorded(kubeconfig: Path) -> ControlPlane | None:
    """The plane the state file of ``kubeconfig`` records now, if one can be read."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        return ControlPlane.from_json(json.loads(state_file_for(kubeconfig).read_text()))
    return None


def _kubeconfig_names(kubeconfig: Path, server: str, token: str | None) -> bool:
    """Whether ``kubeconfig`` is one patchconf wrote for this server (and this token, when known)."""
    try:
        config = yaml.safe_load(kubeconfig.read_text()) or {}
        if config.get("current-context") != CONTEXT_NAME:
            return False
        written_server = config["clusters"][0]["cluster"]["server"]
        written_token = config["users"][0]["user"]["token"]
    except (OSError, yaml.YAMLError, AttributeError, LookupError, TypeError):
        return False
    return written_server == server and (token is None or written_token == token)


def _remove(plane: ControlPlane, owns_state: bool) -> None:
    try:
        token = plane.token()
    except OSError:
        token = None  # its data directory is gone: the server it served identifies the kubeconfig
    if (owns_state or token is not None) and _kubeconfig_names(plane.kubeconfig, plane.server, token):
        plane.kubeconfig.unlink(missing_ok=True)
    shutil.rmtree(plane.data_dir, ignore_errors=True)
    if owns_state:
        plane.state_file.unlink(missing_ok=True)


def find(kubeconfig: Path) -> ControlPlane | None:
    state = state_file_for(kubeconfig)
    if not state.is_file():
        return None
    return ControlPlane.from_json(json.loads(state.read_text()))


def status(plane: ControlPlane) -> str:
    """'ready', 'not ready (...)' or 'stopped' for a recorded control plane."""
    if not all(is_running(record) for record in plane.processes):
        return "stopped"
    try:
        code, body = _get(f"{plane.server}/readyz", plane.token(), _ssl_context(plane.ca_file()), timeout=5)
    except (OSError, ssl.SSLError) as error:
        return f"not ready ({error})"
    return "ready" if code == 200 else f"not ready ({code} {body[:200]})"
