"""Where a corpus keeps what: the names both its loader (cases.py) and the loader's cache
(casecache.py) go by, so that neither has to import the other for them."""

from __future__ import annotations

CASE_SUFFIXES = (".yaml", ".yml", ".json")
SCHEMA_FILE = "case.schema.json"  # the JSON Schema every case file is validated against
BEHAVIOURS_FILE = "BEHAVIOURS.md"  # the behaviour ids cases may be tagged with
SCHEMAS_DIR = "schemas"  # named schemas, which are no case files
