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
``unclassified``. The protocol is the Python kit's (adapters/kit/python).

    patchconf run --target "cmd:python adapters/python-kubesdk/adapter.py"
"""

import copy
import importlib
import pkgutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import patchconf_adapter as kit

with kit.library("kubesdk"):
    import kube_models
    import kubesdk
    from kubesdk._patch.json_patch import JsonPatchTestFailed


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


def answer(case):
    if case["type"] == "json-patch":
        return {"document": kubesdk.apply_patch(case["original"], case["patch"])}
    return strategic_two_way(case)


def error_class(exc):
    return "test-failed" if isinstance(exc, JsonPatchTestFailed) else "unclassified"


ADAPTER = kit.Adapter(
    name="python-kubesdk", distribution="kubesdk", homepage="https://github.com/puzl-cloud/kubesdk",
    patch_types=["json-patch", "strategic-2way"], schemas=["none", "builtin"], profile="rfc",
    answer=answer, error_class=error_class)

if __name__ == "__main__":
    ADAPTER.main()
