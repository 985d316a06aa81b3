"""patchconf command-protocol adapter (harness/PROTOCOL.md) for PyPI ``kubesdk``.

kubesdk has two patch modules (``kubesdk/_patch/``), both exported by the package:
- ``json-patch``: ``kubesdk.apply_patch(document, ops)`` (``json_patch.py``, documented as
  RFC 6902, so the ``rfc`` profile);
- ``strategic-2way``: kubesdk *creates* strategic merge patches (it has no code that
  applies one). ``update_k8s_resource(resource, built_from_latest=...)`` does
  ``json_patch_from_diff(latest.to_dict(), resource.to_dict())`` then
  ``jsonpatch_to_smp(latest, json_patch)`` on typed models from its ``kube-models``
  package; this adapter makes the same calls, building both models with the model class
  kube-models registers for the case's apiVersion/kind (``schemas: builtin``).
Only ``JsonPatchTestFailed`` names one patchconf class; every other exception is
``unclassified``.

    patchconf run --target "cmd:python adapters/python-kubesdk/adapter.py"
"""

import copy
import importlib
import importlib.metadata
import json
import pkgutil
import sys

LIBRARY = "kubesdk"
NAME = "python-kubesdk"
HOMEPAGE = "https://github.com/puzl-cloud/kubesdk"
PATCH_TYPES = ["json-patch", "strategic-2way"]

try:
    import kube_models
    import kubesdk
    from kubesdk._patch.json_patch import JsonPatchTestFailed
except ImportError as exc:  # still answer the handshake, so the harness can say why
    kubesdk = None
    IMPORT_ERROR = str(exc)


def model_for(api_version, kind):
    """The kube-models class for apiVersion/kind (its modules register on import)."""
    model = kube_models.get_k8s_resource_model(api_version, kind)
    if model is not None or not isinstance(api_version, str):
        return model
    group = "apis_" if "/" in api_version else "api_"
    package_name = "kube_models." + group + api_version.replace(".", "_").replace("-", "_").replace("/", "_")
    try:
        package = importlib.import_module(package_name)
    except ImportError:
        return None
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)
    return kube_models.get_k8s_resource_model(api_version, kind)


def strategic_two_way(case):
    schema = case.get("schema") or {}
    api_version, kind = schema.get("apiVersion"), schema.get("kind")
    model = model_for(api_version, kind)
    if model is None:
        raise LookupError(f"kube-models has no model for apiVersion {api_version!r}, kind {kind!r}")
    # as update_k8s_resource(resource, built_from_latest=latest) does
    latest = model.from_dict(copy.deepcopy(case["original"]))
    resource = model.from_dict(copy.deepcopy(case["modified"]))
    json_patch = kubesdk.json_patch_from_diff(latest.to_dict(), resource.to_dict())
    return {"patch": kubesdk.jsonpatch_to_smp(latest, json_patch)}


def handshake():
    return {
        "ready": True,
        "protocol": 1,
        "implementation": {"name": NAME, "version": importlib.metadata.version(LIBRARY),
                           "language": "python", "homepage": HOMEPAGE},
        "capabilities": {"patch_types": PATCH_TYPES, "schemas": ["none", "builtin"],
                         "profile": "rfc", "messages": False},
    }


def run(seq, case):
    kind = case.get("type")
    if kind not in PATCH_TYPES:
        return {"seq": seq, "skipped": f"{NAME} does not run {kind!r} cases"}
    try:
        if kind == "json-patch":
            result = {"document": kubesdk.apply_patch(case["original"], case["patch"])}
        else:
            result = strategic_two_way(case)
        return {"seq": seq, "result": result}
    except Exception as exc:  # the library's failure is its answer
        error_class = "test-failed" if isinstance(exc, JsonPatchTestFailed) else "unclassified"
        return {"seq": seq, "error": {"class": error_class, "message": f"{type(exc).__name__}: {exc}"}}


def answer(request):
    if request.get("cmd") == "start":
        if kubesdk is None:
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
