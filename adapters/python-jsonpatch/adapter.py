"""patchconf command-protocol adapter (harness/PROTOCOL.md) for PyPI ``jsonpatch``.

jsonpatch is an RFC 6902 library: it runs ``json-patch`` cases under the ``rfc`` profile.
Each case is answered by ``jsonpatch.apply_patch(original, patch)``, exactly as its users
call it; whatever it returns or raises is the answer.

    patchconf run --target "cmd:python adapters/python-jsonpatch/adapter.py" --type json-patch
"""

import importlib.metadata
import json
import sys

LIBRARY = "jsonpatch"
NAME = "python-jsonpatch"
HOMEPAGE = "https://github.com/stefankoegl/python-json-patch"

try:
    import jsonpatch
except ImportError as exc:  # still answer the handshake, so the harness can say why
    jsonpatch = None
    IMPORT_ERROR = str(exc)

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


def handshake():
    return {
        "ready": True,
        "protocol": 1,
        "implementation": {"name": NAME, "version": importlib.metadata.version(LIBRARY),
                           "language": "python", "homepage": HOMEPAGE},
        "capabilities": {"patch_types": ["json-patch"], "schemas": ["none"],
                         "profile": "rfc", "messages": False},
    }


def run(seq, case):
    if case.get("type") != "json-patch":
        return {"seq": seq, "skipped": f"{NAME} does not run {case.get('type')!r} cases"}
    try:
        document = jsonpatch.apply_patch(case["original"], case["patch"])
        return {"seq": seq, "result": {"document": document}}
    except Exception as exc:  # the library's failure is its answer
        return {"seq": seq, "error": {"class": error_class(exc), "message": f"{type(exc).__name__}: {exc}"}}


def answer(request):
    if request.get("cmd") == "start":
        if jsonpatch is None:
            return {"ready": False, "error": f"cannot import {LIBRARY}: {IMPORT_ERROR}"}
        return handshake()
    if request.get("cmd") == "run":
        return run(request.get("seq"), request.get("case") or {})
    return {"seq": request.get("seq"), "error": {"class": "unclassified",
                                                 "message": f"unknown command {request.get('cmd')!r}"}}


def send(message, seq):
    try:
        line = json.dumps(message)
    except (TypeError, ValueError) as exc:  # the library returned something JSON cannot carry
        line = json.dumps({"seq": seq, "error": {"class": "unclassified",
                                                 "message": f"result is not JSON: {exc}"}})
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    sys.stdin.reconfigure(encoding="utf-8")  # the protocol is UTF-8 whatever the locale
    sys.stdout.reconfigure(encoding="utf-8")
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            send({"error": {"class": "unclassified", "message": f"request is not JSON: {exc}"}}, None)
            continue
        if request.get("cmd") == "stop":
            return
        send(answer(request), request.get("seq"))


if __name__ == "__main__":
    main()
