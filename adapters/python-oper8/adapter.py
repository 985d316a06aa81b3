"""patchconf command-protocol adapter (harness/PROTOCOL.md) for PyPI ``oper8``.

``oper8.patch_strategic_merge.patch_strategic_merge(resource, patch)`` applies a
strategic merge patch. Its only schema knowledge is a built-in table of list merge keys
(``openshift.dynamic.apply.STRATEGIC_MERGE_PATCH_KEYS``, keyed by ``Kind.path``, any
apiVersion): it runs ``strategic`` cases on ``builtin`` kinds, judged by Kubernetes'
rules. The call is the library's default one (no ``merge_patch_keys`` argument). It
raises plain ``ValueError``s, so every exception is ``unclassified``.

    patchconf run --target "cmd:python adapters/python-oper8/adapter.py" --type strategic
"""

import importlib.metadata
import json
import sys

LIBRARY = "oper8"
NAME = "python-oper8"
HOMEPAGE = "https://github.com/IBM/oper8"

try:
    from oper8.patch_strategic_merge import patch_strategic_merge
except ImportError as exc:  # still answer the handshake, so the harness can say why
    patch_strategic_merge = None
    IMPORT_ERROR = str(exc)


def handshake():
    return {
        "ready": True,
        "protocol": 1,
        "implementation": {"name": NAME, "version": importlib.metadata.version(LIBRARY),
                           "language": "python", "homepage": HOMEPAGE},
        "capabilities": {"patch_types": ["strategic"], "schemas": ["builtin"],
                         "profile": "kubernetes", "messages": False},
    }


def run(seq, case):
    if case.get("type") != "strategic":
        return {"seq": seq, "skipped": f"{NAME} does not run {case.get('type')!r} cases"}
    try:
        document = patch_strategic_merge(case["original"], case["patch"])
        return {"seq": seq, "result": {"document": document}}
    except Exception as exc:  # the library's failure is its answer
        return {"seq": seq, "error": {"class": "unclassified", "message": f"{type(exc).__name__}: {exc}"}}


def answer(request):
    if request.get("cmd") == "start":
        if patch_strategic_merge is None:
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
