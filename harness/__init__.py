"""patchconf harness: loads the case corpus, runs it against targets, reports divergences."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CASES_DIR = REPO_ROOT / "cases"
