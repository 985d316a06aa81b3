"""Which judge binaries (upstream, kube-apiserver, etcd) this process uses, and where they came from.

A judge is prebuilt when the ``patchconf-judges`` wheel is installed, was built for this machine
and holds the binary for the release asked for, built from the same sources (the digest the local
build's cache is keyed by): then no Go toolchain is needed. Otherwise it is built locally from Go
modules into the cache, as it always was. Each binary carries a manifest beside it (its SHA-256,
the Go version and the modules it was built from: gobuild.write_manifest), and every judge used is
recorded here so that a run's header and results.json name its source and module versions.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .gobuild import file_sha256, host_platform, read_manifest, write_manifest

DISTRIBUTION = "patchconf-judges"
PACKAGE = "patchconf_judges"
INDEX = "judges.json"  # the wheel's own description: its version, platform and binaries
PREBUILT = "prebuilt wheel"
LOCAL = "local build"
CHOICE = "PATCHCONF_JUDGES"  # 'local': build locally even where the wheel holds the binary
# The modules a header names of each judge (results.json keeps them all).
HEADLINE_MODULES = ("k8s.io/kubernetes", "go.etcd.io/etcd/server/v3", "k8s.io/apimachinery", "k8s.io/kubectl",
                    "sigs.k8s.io/structured-merge-diff/v4", "sigs.k8s.io/structured-merge-diff/v6")


@dataclass(frozen=True)
class Installed:
    """The patchconf-judges wheel installed here: where, which version, for which platform."""

    directory: Path
    version: str
    platform: str
    binaries: tuple[str, ...]

    def binary(self, name: str) -> Path:
        return self.directory / "bin" / name


@dataclass(frozen=True)
class Judge:
    """One binary a run uses: its name, path, source (PREBUILT or LOCAL) and manifest."""

    name: str
    path: Path
    source: str
    manifest: dict = field(default_factory=dict, compare=False)
    distribution: str = ""  # 'patchconf-judges 0.1.0' for a prebuilt one
    note: str = ""  # why an installed wheel's binary was not used

    def modules(self) -> dict[str, str]:
        """Module path -> version: the main module and every dependency `go version -m` listed."""
        main = self.manifest.get("main") or {}
        listed = {module["Path"]: module.get("Version", "") for module in self.manifest.get("modules", [])}
        return {main["Path"]: main.get("Version", ""), **listed} if main.get("Path") else listed

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "source": self.source,
            **({"distribution": self.distribution} if self.distribution else {}),
            "path": str(self.path),
            "release": self.manifest.get("release"),
            "sha256": self.manifest.get("sha256"),
            "go": self.manifest.get("go"),
            "platform": self.manifest.get("platform"),
            "modules": self.modules(),
            **({"note": self.note} if self.note else {}),
        }


def describe(judge: dict) -> str:
    """One line of a run header for a judge as to_json gives it:
    'upstream: prebuilt wheel patchconf-judges 0.1.0 (go1.26.8; k8s.io/apimachinery v0.33.4, ...)'."""
    modules = judge.get("modules") or {}
    named = [f"{path} {modules[path]}" for path in HEADLINE_MODULES if path in modules]
    source = judge.get("source", "")
    if judge.get("distribution"):
        source += " " + judge["distribution"]
    details = "; ".join(part for part in (judge.get("go") or "", ", ".join(named)) if part)
    note = f" [{judge['note']}]" if judge.get("note") else ""
    return f"{judge.get('name')}: {source}" + (f" ({details})" if details else "") + note


_installed: list[Installed | None] = []  # found once per process
_used: list[Judge] = []  # every use, in order; a judge used twice is listed twice


def installed() -> Installed | None:
    """The patchconf-judges wheel importable here, or None."""
    if not _installed:
        _installed.append(_find_installed())
    return _installed[0]


def _find_installed() -> Installed | None:
    import importlib.util

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    directory = Path(next(iter(spec.submodule_search_locations)))
    try:
        index = json.loads((directory / INDEX).read_text(encoding="utf-8"))
        return Installed(directory, index["version"], index["platform"], tuple(index["binaries"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a package of that name that is no judges wheel: nothing prebuilt


def prebuilt(name: str, release: str, digest: str) -> tuple[Judge | None, str]:
    """The installed wheel's ``name`` if it was built for this machine from ``release`` at
    ``digest``, and intact; else (None, why not: '' when no wheel is installed)."""
    wheel = installed()
    if wheel is None:
        return None, ""
    holder = f"{DISTRIBUTION} {wheel.version}"
    if os.environ.get(CHOICE) == "local":
        return None, f"{holder} not used: {CHOICE}=local"
    if wheel.platform != host_platform():
        return None, f"{holder} is built for {wheel.platform}, this machine is {host_platform()}"
    binary = wheel.binary(name)
    manifest = read_manifest(binary) if name in wheel.binaries else None
    if manifest is None or not binary.is_file():
        return None, f"{holder} holds no {name}"
    if (manifest.get("release"), manifest.get("digest")) != (release, digest):
        return None, (f"{holder} holds {name} {manifest.get('release')} of sources {manifest.get('digest')}, "
                      f"not {release} of sources {digest}")
    if not _intact(binary, manifest.get("sha256")):
        return None, f"{holder}'s {name} does not match the SHA-256 of its manifest"
    return Judge(name, binary, PREBUILT, manifest, holder), ""


def version_lines(wanted: dict[str, tuple[str, str]]) -> list[str]:
    """What `patchconf --version` says of the judges: the wheel installed, if any, and for each of
    ``wanted`` (name -> (release, source digest) this patchconf builds) whether its binary serves."""
    wheel = installed()
    if wheel is None:
        return [f"judges: built locally from Go modules on first use (no {DISTRIBUTION} installed; "
                f"pip install 'patchconf[judges]' for prebuilt ones)"]
    lines = [f"judges: {DISTRIBUTION} {wheel.version} ({wheel.platform}) at {wheel.directory}"]
    for name, (release, digest) in wanted.items():
        found, why = prebuilt(name, release, digest)
        if found is None:
            lines.append(f"  {name} {release}: built locally ({why})")
        else:
            lines.append("  " + describe({**found.to_json(), "name": f"{name} {release}"}))
    return lines


_checked: dict[tuple[Path, int, int], str] = {}  # (path, size, mtime) -> SHA-256, hashed once per process


def _intact(binary: Path, sha256: str | None) -> bool:
    status = binary.stat()
    key = (binary, status.st_size, status.st_mtime_ns)
    if key not in _checked:
        _checked[key] = file_sha256(binary)
    return _checked[key] == sha256


def local(name: str, binary: Path, facts: dict, go: str | None, error: type[Exception], note: str = "") -> Judge:
    """A locally built judge, its manifest written now if the build predates manifests (needs ``go``)."""
    manifest = read_manifest(binary)
    if manifest is None and go is not None:
        manifest = write_manifest(binary, go, facts, error)
    return Judge(name, binary, LOCAL, manifest or dict(facts), note=note)


def use(judge: Judge) -> Path:
    """Record that this process uses ``judge``; its path."""
    _used.append(judge)
    return judge.path


def mark() -> int:
    """Where the record of uses stands now: ``used(since=mark())`` lists the uses after it."""
    return len(_used)


def used(since: int = 0) -> list[dict]:
    """The judges this process used (after ``since``), each once, as results.json holds them."""
    seen: dict[Path, Judge] = {}
    for judge in _used[since:]:
        seen.setdefault(judge.path, judge)
    return [judge.to_json() for judge in seen.values()]


def forget() -> None:
    """Start over (tests; a new wheel installed in a running process)."""
    _installed.clear()
    _used.clear()
    _checked.clear()
