"""patchconf harness: loads the case corpus, runs it against targets, reports divergences."""

from pathlib import Path

# Inputs (the corpus, schemas, targets/ sources) resolve from the checkout; outputs never do.
SOURCE_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CASES_DIR = SOURCE_ROOT / "cases"


def reports_directory() -> Path:
    """Where runs write when not told: ``./reports`` of the working directory, where the user is
    (not the installation, nor the checkout when run from elsewhere)."""
    return Path.cwd() / "reports"
