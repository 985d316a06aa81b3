"""``upstream[@1.MINOR]``: Kubernetes' own Go patch code, built from its published modules.

The program in ``targets/upstream`` speaks harness/PROTOCOL.md. It is built on first use
into a cache outside the repository (``$PATCHCONF_CACHE``, default ``~/.cache/patchconf``)
and reused while its sources and the release are unchanged. ``upstream`` uses the release
pinned in its go.mod; ``upstream@1.27`` rebuilds the same source against the newest
1.27 patch release of the ``k8s.io`` modules and of ``k8s.io/kubernetes`` (the apiserver's
scheme, defaults and conversions), its staging modules replaced by their published releases.
When the patchconf-judges wheel holds ``upstream`` built from these very sources, that binary is
used and no Go is needed (harness/controlplane/judges.py).

The program has two builds (targets/upstream/README.md: Two builds). The full one answers every
case type; the patch build (``-tags patchconf_patch``) leaves out server-side apply, which needs
k8s.io/kubernetes' registry, and compiles in a third of the time. Where no full binary is ready,
the target starts on the patch build and builds the full one only when a server-side-apply case
comes, while the other cases go on being answered.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import threading
from dataclasses import replace
from pathlib import Path

from .. import SOURCE_ROOT, cache_root
from ..controlplane import judges
from ..controlplane.apiserver import KUBERNETES_MODULE, render_go_mod
from ..controlplane.gobuild import BuildProgress, build_lock, platform_suffix, run_go, stop_running, write_manifest
from .base import KUBERNETES, MODES, Actual, Target, TargetCrash, TargetUnavailable
from .command import CommandTarget

SOURCE_DIR = SOURCE_ROOT / "targets" / "upstream"
K8S_MODULES = ("k8s.io/apimachinery", "k8s.io/api", "k8s.io/client-go", "k8s.io/kubectl")
# The JSON Patch line Kubernetes uses; minimal version selection raises it where a release needs more.
JSON_PATCH_MODULE = "gopkg.in/evanphx/json-patch.v4@v4.12.0"
BUILD_TIMEOUT = 1800
LDFLAGS = "-s -w"  # stripped: no symbol table or DWARF, a third of the binary
FULL, PATCH = "full", "patch"  # the program's two builds
PATCH_TAG = "patchconf_patch"  # the patch build's tag: no server-side apply, no k8s.io/kubernetes


def go_executable() -> str:
    """The `go` on PATH; the upstream target and the Go peers are built with it."""
    go = shutil.which("go")
    if not go:
        raise TargetUnavailable("Go is not installed (no `go` on PATH); the upstream target is built from Go modules")
    return go


def tree_digest(source_dir: Path = SOURCE_DIR) -> str:
    """The digest of a Go source tree (its .go, go.mod and go.sum files), which its builds are keyed by."""
    digest = hashlib.sha256()
    for path in sorted(source_dir.rglob("*")):
        if path.is_file() and path.suffix in (".go", ".mod", ".sum"):
            digest.update(path.relative_to(source_dir).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def run_build_step(command: list[str], cwd: Path, progress: BuildProgress | None = None,
                   platform: str | None = None) -> str:
    """One `go` command of a build, failing as the target being unavailable."""
    return run_go(command, cwd, BUILD_TIMEOUT, TargetUnavailable, progress, platform)


def newest_patch_release(go: str, minor: str, cwd: Path) -> str:
    """The newest published k8s.io/apimachinery v0.<minor>.<patch>, e.g. '1.27' -> 'v0.27.16'."""
    listing = run_build_step([go, "list", "-m", "-versions", "k8s.io/apimachinery"], cwd)
    number = minor.split(".")[1] if minor.startswith("1.") else minor
    candidates = [v for v in listing.split()[1:] if re.fullmatch(rf"v0\.{number}\.[0-9]+", v)]
    if not candidates:
        raise TargetUnavailable(f"no published k8s.io/apimachinery release for Kubernetes {minor}")
    return max(candidates, key=lambda v: int(v.rsplit(".", 1)[1]))


def source_digest() -> str:
    """The digest of the upstream target's sources and build flags, which a build is keyed by."""
    digest = tree_digest()
    # Stripped builds are keyed apart from the unstripped ones of before (same behaviour, other bytes).
    return hashlib.sha256(f"{digest} {LDFLAGS}".encode()).hexdigest()[:16]


def available() -> bool:
    """Whether the pinned upstream target can be had here: Go to build it, or the judges wheel's."""
    return shutil.which("go") is not None or judges.prebuilt("upstream", "pinned", source_digest())[0] is not None


def build(release: str | None = None, platform: str | None = None, prebuilt: bool = True,
          scope: str = FULL) -> Path:
    """Path of the upstream binary for ``release`` (None: the pinned one): the patchconf-judges
    wheel's when it holds this very build (``prebuilt``), else the cache's, building it if needed.
    ``platform`` ('darwin/arm64') cross-compiles for another machine (never from the wheel);
    ``scope`` PATCH is the patch build, which the wheel does not hold (its full build serves all)."""
    if not (SOURCE_DIR / "go.mod").is_file():
        raise TargetUnavailable(f"upstream target sources missing at {SOURCE_DIR}")
    digest = source_digest()
    found, note = _ready(release, platform, prebuilt, scope, digest)
    if found is not None:
        return found
    go = go_executable()
    build_dir, binary, facts = _build_place(release, platform, scope, digest)
    which = f"release {release}" if release else "pinned release"
    where = f"{which}{f', for {platform}' if platform else ''}"
    what = (f"the upstream target's patch build (JSON Patch, merge patch, strategic and client-side apply; {where})"
            if scope == PATCH else f"the upstream target (Kubernetes' Go patch code, {where})")
    with build_lock(build_dir, what):
        if not binary.is_file():  # built meanwhile by the process it waited for
            _build_into(go, release, build_dir, binary, BuildProgress(what, build_dir), platform, scope)
            write_manifest(binary, go, facts, TargetUnavailable)
    return judges.use(judges.local(facts["name"], binary, facts, go, TargetUnavailable, note))


def built(release: str | None = None, platform: str | None = None, prebuilt: bool = True,
          scope: str = FULL) -> Path | None:
    """The binary ``build`` would give if it needs no building (the wheel's, or the cache's), else None."""
    return _ready(release, platform, prebuilt, scope, source_digest())[0]


def _ready(release: str | None, platform: str | None, prebuilt: bool, scope: str,
           digest: str) -> tuple[Path | None, str]:
    """The binary if it needs no building (None else), and why an installed judges wheel did not
    serve (empty without one, or when not asked): the wheel holds the full build only."""
    note = ""
    if prebuilt and platform is None:
        found, note = judges.prebuilt("upstream", release or "pinned", digest)
        if found is not None and scope == FULL:
            return judges.use(found), ""
    _, binary, facts = _build_place(release, platform, scope, digest)
    if not binary.is_file():
        return None, note
    return judges.use(judges.local(facts["name"], binary, facts, shutil.which("go"), TargetUnavailable, note)), note


def _build_place(release: str | None, platform: str | None, scope: str, digest: str) -> tuple[Path, Path, dict]:
    """Where a build lives in the cache, its binary, and the facts its manifest starts from."""
    label = release or "pinned"
    part = "-patch" if scope == PATCH else ""
    build_dir = cache_root() / "upstream" / f"{label}-{digest}{part}{platform_suffix(platform)}"
    name = "upstream-patch" if scope == PATCH else "upstream"
    facts = {"name": name, "release": label, "digest": digest, "ldflags": LDFLAGS,
             "tags": build_tags(release, scope)}
    return build_dir, build_dir / "upstream", facts


def _build_into(go: str, release: str | None, build_dir: Path, binary: Path, progress: BuildProgress,
                platform: str | None = None, scope: str = FULL) -> None:
    work = build_dir / "src"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(SOURCE_DIR, work, ignore=shutil.ignore_patterns("*_test.go", "README.md"))
    if release:
        # Start from the direct requirements only, so that `go mod tidy` resolves every other
        # module (kube-openapi, structured-merge-diff, …) as that release requires it; editing
        # the pinned go.mod would keep its newer modules and make a mixed build.
        version = newest_patch_release(go, release, work)
        go_line = re.search(r"^go [0-9.]+$", (work / "go.mod").read_text(), re.MULTILINE)
        (work / "go.mod").write_text(f"module patchconf.dev/targets/upstream\n\n{go_line.group(0)}\n")
        (work / "go.sum").unlink(missing_ok=True)
        requires = [f"-require={module}@{version}" for module in K8S_MODULES]
        run_build_step([go, "mod", "edit", *requires, f"-require={JSON_PATCH_MODULE}"], work)
        require_kubernetes(go, "v1." + version.removeprefix("v0."), work)
        run_build_step([go, "mod", "tidy"], work, progress)
    tags = build_tags(release, scope)
    if "patchconf_pre131" in tags and scope == FULL:
        copy_client_go_schema(go, work)
    tag_flags = ["-tags", ",".join(tags)] if tags else []
    run_build_step([go, "build", "-trimpath", *tag_flags, "-ldflags", LDFLAGS, "-o", str(binary) + ".tmp", "."],
                   work, progress,
         platform)
    os.replace(str(binary) + ".tmp", binary)
    progress.done()


def require_kubernetes(go: str, kubernetes_version: str, work: Path) -> None:
    """Add ``k8s.io/kubernetes`` at ``kubernetes_version`` to work/go.mod with the replace
    directives of that release (its staging modules -> their published v0.MINOR.PATCH), as
    patchconf.harness.controlplane.apiserver.render_go_mod writes them for the control plane's recipe."""
    download = json.loads(run_build_step([go, "mod", "download", "-json", f"{KUBERNETES_MODULE}@{kubernetes_version}"],
                                         work))
    if "Error" in download:
        raise TargetUnavailable(f"{KUBERNETES_MODULE}@{kubernetes_version}: {download['Error']}")
    recipe = render_go_mod(kubernetes_version, Path(download["GoMod"]).read_text(encoding="utf-8"))
    replaces = re.findall(r"^\t(\S+) => (\S+) (\S+)$", recipe, re.MULTILINE)
    run_build_step([go, "mod", "edit", f"-require={KUBERNETES_MODULE}@{kubernetes_version}",
          *(f"-replace={module}={target}@{release}" for module, target, release in replaces)], work)


def build_tags(release: str | None, scope: str = FULL) -> list[str]:
    """Build tags for a release and build: before 1.31 client-go hands out no schema of the built-in
    kinds (ssa_builtin_pre131.go), before 1.30 csaupgrade has no Subresource option
    (csaupgrade_pre130.go), and before 1.29 the type converter takes no validation options; the
    patch build has PATCH_TAG."""
    minor = int(release.split(".")[1]) if release else None
    tags = [PATCH_TAG] if scope == PATCH else []
    if minor is None:
        return tags
    return tags + [tag for tag, before in (("patchconf_pre131", 31), ("patchconf_pre130", 30),
                                           ("patchconf_pre129", 29)) if minor < before]


CLIENT_GO_SCHEMA = re.compile(r"var schemaYAML = typed\.YAMLObject\(`(.*?)`\)", re.DOTALL)


def copy_client_go_schema(go: str, work: Path) -> None:
    """Copy the built-in kinds' structured-merge-diff schema out of the release's client-go
    (applyconfigurations/internal/internal.go, an internal package) into clientgo-schema.yaml."""
    module_dir = Path(run_build_step([go, "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go"], work).strip())
    source = module_dir / "applyconfigurations" / "internal" / "internal.go"
    found = CLIENT_GO_SCHEMA.search(source.read_text(encoding="utf-8")) if source.is_file() else None
    if found is None:
        raise TargetUnavailable(f"no schemaYAML in {source}: cannot type built-in kinds for server-side apply")
    (work / "clientgo-schema.yaml").write_text(found.group(1), encoding="utf-8")


class UpstreamTarget(Target):
    """Kubernetes' Go patch code: the full build where one is ready, else the patch build at once
    and the full build on the first server-side-apply case (built then, in the worker that needs it)."""

    def __init__(self, release: str | None = None, timeout: float | None = None,
                 max_answer_bytes: int | None = None) -> None:
        if release and not re.fullmatch(r"1\.[0-9]+", release):
            raise TargetUnavailable(f"upstream@{release}: give a Kubernetes minor release such as 1.27")
        self.release = release
        self.name = f"upstream@{release}" if release else "upstream"
        self.workers = os.cpu_count() or 1
        self._options = {"timeout": timeout or 30.0, "max_answer_bytes": max_answer_bytes}
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()  # held while the full build is made (or looked for)
        self._closed = False
        self._full_failure: str | None = None
        full = built(release)
        self._full: CommandTarget | None = self._program(full) if full is not None else None
        self._patch: CommandTarget | None = None if full is not None else self._program(build(release, scope=PATCH))
        first = self._full or self._patch
        # Kubernetes' own code, whatever its handshake says; its apply passes options.overwrite to
        # CreateThreeWayMergePatch as kubectl apply does (targets/upstream/apply.go). A patch build
        # claims what its full build adds, which is built when first asked for.
        self.info = replace(first.info, category=KUBERNETES, modes=MODES,
                            patch_types=first.info.patch_types | {"server-side-apply"})

    def _program(self, binary: Path) -> CommandTarget:
        return CommandTarget(shlex.quote(str(binary)), workers=self.workers, family="upstream", **self._options)

    def run(self, case) -> Actual:
        if self._patch is not None and case.type in self._patch.info.patch_types:
            return self._patch.run(case)
        return self._full_program().run(case)

    def _full_program(self) -> CommandTarget:
        """The full build's program, built on first need; a failed build fails each case that needed it."""
        with self._build_lock:  # one build: the other workers with a server-side-apply case wait here
            if self._full is None and self._full_failure is None and not self._closed:
                try:
                    full = self._program(build(self.release))
                except TargetUnavailable as exc:
                    self._full_failure = str(exc)
                else:
                    with self._lock:
                        closing, self._full = self._closed, None if self._closed else full
                    if closing:
                        full.close()
        if self._closed:
            raise TargetCrash("the target was closed: the run is ending")
        if self._full is None:
            raise TargetCrash(f"the full upstream build, which server-side apply needs, is unavailable: "
                              f"{self._full_failure}")
        return self._full

    def close(self) -> None:
        """Ends the programs; a full build a worker is waiting for is stopped, so that an interrupted
        run does not wait minutes for it."""
        with self._lock:
            self._closed = True
            programs = [self._patch, self._full]
        if self._build_lock.locked():
            stop_running()
        for program in programs:
            if program is not None:
                program.close()
