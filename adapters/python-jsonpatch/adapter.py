"""patchconf command-protocol adapter (harness/PROTOCOL.md) for PyPI ``jsonpatch``.

jsonpatch is an RFC 6902 library: it runs ``json-patch`` cases under the ``rfc`` profile.
Each case is answered by ``jsonpatch.apply_patch(original, patch)``, exactly as its users
call it; whatever it returns or raises is the answer. The protocol is the Python kit's
(adapters/kit/python).

    patchconf run --target "cmd:python adapters/python-jsonpatch/adapter.py" --type json-patch
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import patchconf_adapter as kit

with kit.library("jsonpatch"):
    import jsonpatch

# Only exception types whose meaning is one patchconf class. JsonPatchConflict (missing
# member, index out of range, move into a child...) and jsonpointer's JsonPointerException
# (bad syntax, missing member, bad index...) each cover several classes: unclassified.
ERROR_CLASSES = {
    "JsonPatchTestFailed": "test-failed",
    "InvalidJsonPatch": "invalid-patch",
}


def error_class(exc):
    for cls in type(exc).__mro__:
        if cls.__name__ in ERROR_CLASSES and cls.__module__ == "jsonpatch":
            return ERROR_CLASSES[cls.__name__]
    return "unclassified"


def answer(case):
    return {"document": jsonpatch.apply_patch(case["original"], case["patch"])}


ADAPTER = kit.Adapter(
    name="python-jsonpatch", distribution="jsonpatch", homepage="https://github.com/stefankoegl/python-json-patch",
    patch_types=["json-patch"], schemas=["none"], profile="rfc", answer=answer, error_class=error_class)

if __name__ == "__main__":
    ADAPTER.main()
