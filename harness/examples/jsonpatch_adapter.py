"""A complete patchconf command-protocol program: Python's `jsonpatch` library.

Run it with: patchconf run --target "cmd:python harness/examples/jsonpatch_adapter.py" --type json-patch
"""

import json
import sys

import jsonpatch

ERROR_CLASSES = {
    "JsonPatchTestFailed": "test-failed",
    "JsonPatchConflict": "path-not-found",
    "InvalidJsonPatch": "invalid-patch",
    "JsonPointerException": "path-not-found",
}


def answer(request):
    if request["cmd"] == "start":
        return {"ready": True, "protocol": 1,
                "implementation": {"name": "python-jsonpatch", "version": jsonpatch.__version__,
                                   "language": "python"},
                "capabilities": {"patch_types": ["json-patch"], "schemas": ["none"],
                                 "profile": "rfc", "messages": False}}
    case = request["case"]
    try:
        document = jsonpatch.apply_patch(case["original"], case["patch"])
    except Exception as exc:  # the library's own failure is the answer
        error_class = ERROR_CLASSES.get(type(exc).__name__, "unclassified")
        return {"seq": request["seq"], "error": {"class": error_class, "message": str(exc)}}
    return {"seq": request["seq"], "result": {"document": document}}


for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "stop":
        break
    print(json.dumps(answer(request)), flush=True)
