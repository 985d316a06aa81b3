"""A cache of loaded case files, so that a run does not parse and check an unchanged corpus again.

Like Python's ``.pyc`` files: an entry holds what :func:`patchconf.harness.corpus.cases.load_file` made of one
file (each case's data after the file's defaults, and its outcome's JSON text, which every run's results
hold: encoding them took some 30 ms a run), under a key that digests everything that
result depends on: the file's bytes and the name cases are shown under, what the cases are
loaded for (:class:`~patchconf.harness.corpus.cases.Purpose`), the case schema, ``BEHAVIOURS.md`` and the
named schemas there are, the loader's own code, and the Python, PyYAML and jsonschema-rs that ran it. A
change to any of them is another key, so an entry is never stale.

- Only a file that loaded without a problem is stored: a file with problems is loaded, and
  its problems reported, every time.
- An entry carries a check of its contents (CRC-32, as zip files do); one that does not match,
  cannot be read or does not decode is ignored and the file loaded in full (and stored again).
- An entry is written to a temporary file renamed into place, so a concurrent run reads a
  whole entry or none; a cache that cannot be written is simply not written.
- Entries not rewritten for :data:`MAX_AGE_DAYS` are removed when a run stores new ones.

Where: ``$PATCHCONF_CASE_CACHE``, else ``cases/`` under patchconf's cache
(``$PATCHCONF_CACHE``, default ``~/.cache/patchconf``); ``PATCHCONF_CASE_CACHE=off`` (or
``0``, ``no``, ``false``) turns it off.

Entries are ``marshal`` data (JSON values only, the fastest form Python reads back; each string
written once); marshal's format belongs to the Python version, which is part of the key. Keys are
BLAKE2b digests; an entry's check is CRC-32, a quarter of BLAKE2b's time over a corpus's 2 MB of
entries (damage is what it looks for, and anyone who could forge an entry could forge either).
"""

from __future__ import annotations

import binascii
import marshal
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from .corpus_layout import SCHEMA_FILE, SCHEMAS_DIR

try:  # Python's own BLAKE2: importing hashlib loads OpenSSL first, some 5 ms of every start
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without the module
    from hashlib import blake2b

ENVIRONMENT_VARIABLE = "PATCHCONF_CASE_CACHE"
OFF = ("off", "0", "no", "false")
FORMAT = b"patchconf case cache 3\n"
DIGEST_BYTES = 32
CHECK_BYTES = 4
SUFFIX = ".marshal"
MAX_AGE_DAYS = 30
# The modules whose code decides what a case file loads as.
LOADER_MODULES = ("harness/__init__.py", "harness/corpus/cases.py", "harness/corpus/casecache.py",
                  "harness/corpus/caseschema.py", "harness/corpus/yamlio.py")


def cache_directory() -> Path | None:
    """Where entries live, or None when the cache is turned off."""
    setting = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if setting.strip().lower() in OFF:
        return None
    if setting:
        return Path(setting)
    from .. import cache_root

    return cache_root() / "cases"


class CaseCache:
    """Entries in one directory; what the key shares across files is digested once per context."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._contexts: dict[tuple[Path, str], bytes] = {}
        self._stored = False

    @classmethod
    def from_environment(cls) -> CaseCache | None:
        directory = cache_directory()
        return cls(directory) if directory is not None else None

    def key(self, content: bytes, shown: str, root: Path, purpose: str, behaviours: Path) -> str:
        """The entry name of a file's ``content`` shown as ``shown``, loaded under ``root`` for ``purpose``."""
        context = self._contexts.get((root, purpose))
        if context is None:
            context = self._contexts[(root, purpose)] = _context_digest(root, purpose, behaviours)
        digest = blake2b(context, digest_size=DIGEST_BYTES)
        digest.update(shown.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(content)
        return digest.hexdigest()

    def get(self, key: str) -> list[tuple[dict[str, Any], str]] | None:
        """The stored cases of an entry, each with its outcome's JSON text, or None if there is none or it
        is not whole and intact."""
        try:
            with open(self.directory / f"{key}{SUFFIX}", "rb") as stream:
                data = stream.read()
        except OSError:
            return None
        header = len(FORMAT) + CHECK_BYTES
        if not data.startswith(FORMAT) or len(data) < header:
            return None
        payload = data[header:]
        if _check(payload) != data[len(FORMAT):header]:
            return None
        try:
            entry = marshal.loads(payload)
            cases, texts = entry["cases"], entry["outcome_texts"]
        except (EOFError, ValueError, TypeError, KeyError):
            return None
        if (not isinstance(cases, list) or not isinstance(texts, list) or len(cases) != len(texts)
                or not all(isinstance(case, dict) for case in cases) or not all(isinstance(t, str) for t in texts)):
            return None
        return list(zip(cases, texts, strict=True))

    def put(self, key: str, cases: Sequence[tuple[Mapping[str, Any], str]]) -> None:
        """Store an entry of cases, each with its outcome's JSON text, atomically; a cache that cannot be
        written is left alone."""
        entry = {"cases": [dict(case) for case, _ in cases], "outcome_texts": [text for _, text in cases]}
        try:
            payload = marshal.dumps(_with_shared_strings(entry))
        except ValueError:  # not JSON data: nothing to store
            return
        data = FORMAT + _check(payload) + payload
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            if not self._stored:
                self._stored = True
                self._remove_old_entries()
            import tempfile  # only when storing: most runs find every entry

            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".entry-", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(data)
                os.replace(temporary, self.directory / f"{key}{SUFFIX}")
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            return

    def _remove_old_entries(self) -> None:
        oldest = time.time() - MAX_AGE_DAYS * 24 * 3600
        for entry in os.scandir(self.directory):
            try:
                if entry.name.endswith((SUFFIX, ".tmp")) and entry.stat().st_mtime < oldest:
                    os.unlink(entry.path)
            except OSError:
                continue  # removed by a concurrent run


def _check(payload: bytes) -> bytes:
    return binascii.crc32(payload).to_bytes(CHECK_BYTES, "big")


def _with_shared_strings(value: Any) -> Any:
    """A copy of JSON data in which equal strings are one object, which marshal writes once and
    reads back as one: a corpus's entries are a third smaller and read 8 ms sooner. A list or
    object the data holds in more than one place (a file's defaults) is still one object."""
    strings: dict[str, str] = {}
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [value]
    while stack:  # containers held more than once (marshal marks only those as shared)
        node = stack.pop()
        if node.__class__ is dict or node.__class__ is list:
            if id(node) in seen:
                shared.add(id(node))
                continue
            seen.add(id(node))
            stack.extend(node.values() if node.__class__ is dict else node)
    copies: dict[int, Any] = {}

    def copy(node: Any) -> Any:
        cls = node.__class__
        if cls is str:
            return strings.setdefault(node, node)
        if cls is not dict and cls is not list:
            return node
        if id(node) in copies:
            return copies[id(node)]
        if cls is dict:
            duplicate: Any = {strings.setdefault(key, key) if key.__class__ is str else key: copy(member)
                              for key, member in node.items()}
        else:
            duplicate = [copy(item) for item in node]
        if id(node) in shared:
            copies[id(node)] = duplicate
        return duplicate

    return copy(value)


def _context_digest(root: Path, purpose: str, behaviours: Path) -> bytes:
    """What every file's key under ``root`` shares: the loader, the schema, the behaviours, the named schemas."""
    digest = blake2b(FORMAT, digest_size=DIGEST_BYTES)
    digest.update(_loader_digest())
    digest.update(purpose.encode() + b"\0")
    for path in (root / SCHEMA_FILE, behaviours):
        digest.update(_file_digest(path))
    try:
        named = sorted(os.listdir(root / SCHEMAS_DIR))
    except OSError:
        named = []
    digest.update("\0".join(named).encode("utf-8", "surrogatepass") + b"\0")
    return digest.digest()


def _file_digest(path: Path) -> bytes:
    try:
        return blake2b(path.read_bytes(), digest_size=DIGEST_BYTES).digest()
    except OSError as exc:
        return f"unreadable: {exc}".encode()


_LOADER_DIGEST: bytes | None = None


def _loader_digest() -> bytes:
    """The loader's code and what runs it (read once: code does not change under a running process)."""
    global _LOADER_DIGEST
    if _LOADER_DIGEST is None:
        package = Path(__file__).resolve().parents[2]  # the root holding harness/
        digest = blake2b(f"{sys.version}\0{marshal.version}\0{yaml.__version__}\0{yaml.__with_libyaml__}\0".encode(),
                         digest_size=DIGEST_BYTES)
        for module in LOADER_MODULES:
            digest.update(_file_digest(package / module))
        digest.update(_validator_identity())
        _LOADER_DIGEST = digest.digest()
    return _LOADER_DIGEST


def _validator_identity() -> bytes:
    """Which jsonschema-rs decides what files load (only those without a problem are stored), found
    without importing it: the names, sizes and times of its package's files, which any other build
    or version changes."""
    import importlib.util

    spec = importlib.util.find_spec("jsonschema_rs")
    if spec is None or not spec.submodule_search_locations:
        return b"jsonschema_rs: none\0"
    directory = Path(next(iter(spec.submodule_search_locations)))
    try:
        files = sorted((entry.name, entry.stat().st_size, entry.stat().st_mtime_ns)
                       for entry in os.scandir(directory) if entry.is_file())
    except OSError as exc:
        return f"jsonschema_rs: unreadable {exc}\0".encode()
    return f"jsonschema_rs: {directory}\0{files}\0".encode("utf-8", "surrogatepass")
