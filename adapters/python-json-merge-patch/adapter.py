"""patchconf command-protocol adapter (harness/PROTOCOL.md) for PyPI ``json-merge-patch``.

An RFC 7396 library (``rfc`` profile):
- ``merge-patch``: ``json_merge_patch.merge(original, patch)``;
- ``merge-patch-2way``: ``json_merge_patch.create_patch(original, modified)``, and the
  document the library's own ``merge`` makes of the original with that patch.
It raises no typed errors, so every exception is ``unclassified``. The protocol is the
Python kit's (adapters/kit/python).

    patchconf run --target "cmd:python adapters/python-json-merge-patch/adapter.py"
"""

import copy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import patchconf_adapter as kit

with kit.library("json-merge-patch"):
    import json_merge_patch


def answer(case):
    if case["type"] == "merge-patch":
        return {"document": json_merge_patch.merge(case["original"], case["patch"])}
    original = case["original"]
    patch = json_merge_patch.create_patch(original, case["modified"])
    # the library's merge works in place: give it copies so the patch stays as created
    document = json_merge_patch.merge(copy.deepcopy(original), copy.deepcopy(patch))
    return {"patch": patch, "document": document}


ADAPTER = kit.Adapter(
    name="python-json-merge-patch", distribution="json-merge-patch",
    homepage="https://github.com/open-contracting/json-merge-patch",
    patch_types=["merge-patch", "merge-patch-2way"], schemas=["none"], profile="rfc", answer=answer)

if __name__ == "__main__":
    ADAPTER.main()
