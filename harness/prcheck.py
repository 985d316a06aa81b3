"""The pull-request check (``.ci/pr-check``): only what a pull request changed, on every judge here.

``python -m patchconf.harness.prcheck [BASE_REF] [--kubeconfig PATH]`` in a git checkout:

1. finds the case files changed since the merge base with ``BASE_REF`` (default
   ``$PATCHCONF_BASE_REF``, else ``origin/main``, else ``main``), committed or not, new ones
   included, and the case files that use a changed named schema;
2. keeps the promise that case ids are stable: every id the base had is still a case's
   id or one of its ``aliases`` (``--allow-removed ID`` for a case removed on purpose);
3. ``patchconf validate`` on those files (the whole corpus when the case schema or
   BEHAVIOURS.md changed);
4. ``patchconf verify --require-confirmation`` on them, on every judge available: upstream
   (with Go), kubectl and kubectl apply (with kubectl), live (with ``--kubeconfig`` or
   ``$PATCHCONF_KUBECONFIG``). Each case must be confirmed by one of them and contradicted
   by none.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from .corpus.corpus_layout import BEHAVIOURS_FILE, CASE_SUFFIXES, SCHEMA_FILE, SCHEMAS_DIR
from .corpus.yamlio import load_text

CASES = "cases"


class CheckError(Exception):
    pass


def git(repo: Path, *args: str) -> str:
    completed = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if completed.returncode != 0:
        raise CheckError(f"git {' '.join(args)}: {completed.stderr.strip()}")
    return completed.stdout


def default_base(repo: Path) -> str:
    for candidate in (os.environ.get("PATCHCONF_BASE_REF"), "origin/main", "main"):
        if candidate and subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"],
                                        cwd=repo, capture_output=True).returncode == 0:
            return candidate
    raise CheckError("no base ref: give one (e.g. .ci/pr-check origin/main) or set PATCHCONF_BASE_REF")


def is_case_file(path: str) -> bool:
    parts = Path(path).parts
    return (len(parts) >= 2 and parts[0] == CASES and Path(path).suffix in CASE_SUFFIXES
            and parts[1] != SCHEMAS_DIR and Path(path).name != SCHEMA_FILE)


def changes(repo: Path, base: str) -> tuple[str, list[str], list[str]]:
    """The merge base, the paths under cases/ changed since it (now present), and those gone."""
    merge_base = git(repo, "merge-base", base, "HEAD").strip()
    present, gone = set(), set()
    status = git(repo, "diff", "--name-status", "--find-renames", merge_base, "--", CASES)
    for line in status.splitlines():
        fields = line.split("\t")
        kind = fields[0][0]
        if kind == "D":
            gone.add(fields[1])
        elif kind == "R":
            gone.add(fields[1])
            present.add(fields[2])
        else:
            present.add(fields[-1])
    present |= set(git(repo, "ls-files", "--others", "--exclude-standard", "--", CASES).split())
    return merge_base, sorted(present), sorted(gone)


def case_files_to_check(repo: Path, changed: Iterable[str]) -> list[str]:
    """Changed case files, and the case files using a changed named schema."""
    files = {path for path in changed if is_case_file(path)}
    schemas = {Path(path).stem for path in changed
               if Path(path).parts[:2] == (CASES, SCHEMAS_DIR) and Path(path).suffix in CASE_SUFFIXES}
    if schemas:
        pattern = re.compile(r"named:\s*['\"]?(" + "|".join(map(re.escape, schemas)) + r")['\"]?\s*[,}\n]")
        for path in sorted((repo / CASES).rglob("*")):
            relative = path.relative_to(repo).as_posix()
            if is_case_file(relative) and pattern.search(path.read_text(encoding="utf-8")):
                files.add(relative)
    return sorted(files)


def _ids(path: str, text: str) -> tuple[set[str], set[str]]:
    """The ids of a case file's cases, and their former ids (aliases); nothing for an unreadable file."""
    try:
        data = load_text(text, Path(path).suffix)
    except Exception:  # a broken file is validate's to report
        return set(), set()
    ids, former = set(), set()
    for case in data.get("cases", []) if isinstance(data, dict) else []:
        if isinstance(case, dict) and isinstance(case.get("name"), str):
            ids.add(f"{path}::{case['name']}")
            for alias in case.get("aliases") or ():
                if isinstance(alias, str):
                    former.add(alias if "::" in alias else f"{path}::{alias}")
    return ids, former


def vanished_ids(repo: Path, merge_base: str, touched: Iterable[str]) -> list[str]:
    """Ids the base had in the touched case files that no case has now, as its name or an alias."""
    before: set[str] = set()
    for path in touched:
        if is_case_file(path):
            try:
                before |= _ids(path, git(repo, "show", f"{merge_base}:{path}"))[0]
            except CheckError:  # a file new since the base
                continue
    now: set[str] = set()
    for file in (repo / CASES).rglob("*"):
        relative = file.relative_to(repo).as_posix()
        if file.is_file() and is_case_file(relative):
            ids, former = _ids(relative, file.read_text(encoding="utf-8"))
            now |= ids | former
    return sorted(before - now)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=".ci/pr-check", description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", help="base ref (default: $PATCHCONF_BASE_REF, origin/main, main)")
    parser.add_argument("--kubeconfig", default=os.environ.get("PATCHCONF_KUBECONFIG"),
                        help="kubeconfig of an API server, adding the live judge (default: $PATCHCONF_KUBECONFIG)")
    parser.add_argument("--allow-removed", action="append", default=[], metavar="ID",
                        help="a case id removed on purpose (repeatable)")
    args = parser.parse_args(argv)
    from .cli import main as patchconf

    if args.kubeconfig and not Path(args.kubeconfig).is_file():  # else the live judge is left out in silence
        print(f"pr-check: --kubeconfig {args.kubeconfig}: no such file", file=sys.stderr)
        return 2

    try:
        repo = Path(git(Path.cwd(), "rev-parse", "--show-toplevel").strip())
        base = args.base or default_base(repo)
        merge_base, present, gone = changes(repo, base)
    except CheckError as exc:
        print(f"pr-check: {exc}", file=sys.stderr)
        return 2
    files = case_files_to_check(repo, present)
    print(f"pr-check: against {base} ({merge_base[:12]}): {len(files)} case files to check"
          + "".join(f"\n  {file}" for file in files))
    failures = []
    vanished = [i for i in vanished_ids(repo, merge_base, [*present, *gone]) if i not in args.allow_removed]
    for case_id in vanished:
        print(f"ID GONE {case_id}: case ids are stable; a renamed or moved case keeps its old id in `aliases` "
              "(a case removed on purpose: --allow-removed ID)")
    if vanished:
        failures.append(f"{len(vanished)} case ids gone")
    os.chdir(repo)
    whole_corpus = any(path in (f"{CASES}/{SCHEMA_FILE}", f"{CASES}/{BEHAVIOURS_FILE}") for path in present)
    to_validate = [CASES] if whole_corpus else files
    if to_validate:
        print(f"pr-check: patchconf validate {' '.join(to_validate)}", flush=True)
        if patchconf(["validate", *to_validate]) != 0:
            failures.append("validate")
    if files:
        verify = ["verify", "--require-confirmation", *(f"--cases={file}" for file in files)]
        if args.kubeconfig:
            verify.append(f"--kubeconfig={args.kubeconfig}")
        print(f"pr-check: patchconf {' '.join(verify)}", flush=True)
        if patchconf(verify) != 0:
            failures.append("verify")
    if failures:
        print(f"pr-check: FAILED ({', '.join(failures)})")
        return 1
    print("pr-check: passed" if files or whole_corpus else "pr-check: no case file changed; nothing to check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
