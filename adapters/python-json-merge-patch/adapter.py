"""patchconf command-protocol adapter (harness/PROTOCOL.md) for PyPI ``json-merge-patch``.

An RFC 7396 library (``rfc`` profile):
- ``merge-patch``: ``json_merge_patch.merge(original, patch)``;
- ``merge-patch-2way``: ``json_merge_patch.create_patch(original, modified)``, and the
  document the library's own ``merge`` makes of the original with that patch.
It raises no typed errors, so every exception is ``unclassified``.

    patchconf run --target "cmd:python adapters/python-json-merge-patch/adapter.py"
"""

import copy
import importlib.metadata
import json
import sys

LIBRARY = "json-merge-patch"
NAME = "python-json-merge-patch"
HOMEPAGE = "https://github.com/open-contracting/json-merge-patch"
PATCH_TYPES = ["merge-patch", "merge-patch-2way"]

try:
    import json_merge_patch
except ImportError as exc:  # still answer the handshake, so the harness can say why
    json_merge_patch = None
    IMPORT_ERROR = str(exc)


def handshake():
    return {
        "ready": True,
        "protocol": 1,
        "implementation": {"name": NAME, "version": importlib.metadata.version(LIBRARY),
                           "language": "python", "homepage": HOMEPAGE},
        "capabilities": {"patch_types": PATCH_TYPES, "schemas": ["none"],
                         "profile": "rfc", "messages": False},
    }


def run(seq, case):
    kind = case.get("type")
    if kind not in PATCH_TYPES:
        return {"seq": seq, "skipped": f"{NAME} does not run {kind!r} cases"}
    try:
        if kind == "merge-patch":
            result = {"document": json_merge_patch.merge(case["original"], case["patch"])}
        else:
            original = case["original"]
            patch = json_merge_patch.create_patch(original, case["modified"])
            # the library's merge works in place: give it copies so the patch stays as created
            document = json_merge_patch.merge(copy.deepcopy(original), copy.deepcopy(patch))
            result = {"patch": patch, "document": document}
        return {"seq": seq, "result": result}
    except Exception as exc:  # the library's failure is its answer
        return {"seq": seq, "error": {"class": "unclassified", "message": f"{type(exc).__name__}: {exc}"}}


def answer(request):
    if request.get("cmd") == "start":
        if json_merge_patch is None:
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
