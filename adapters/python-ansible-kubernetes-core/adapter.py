"""patchconf command-protocol adapter (harness/PROTOCOL.md) for Ansible's ``kubernetes.core``.

The collection ships in the ``ansible`` package (12.3.0 holds kubernetes.core 6.2.0) and
imports as ``ansible_collections.kubernetes.core``. A ``k8s`` task with ``apply: true``
goes K8sService.apply -> K8SDynamicClient.apply -> ``module_utils.apply.k8s_apply(resource,
definition)``, which GETs the live object, computes its own three-way patch
(``apply_object`` -> ``apply_patch`` -> ``merge(last_applied, desired, actual)``) and
sends it as ``application/merge-patch+json`` (or creates the object). This adapter calls
``k8s_apply`` with a stand-in Resource (adapters/kit/python/apiserver_standin.py) that
serves the case's live object and records the write:

- ``apply``: ``k8s_apply(resource, modified)``; the answer is the patch it sent and the
  live object with that merge patch applied (RFC 7396, the server's part), or the object it
  created. The live object carries ``original`` as its last-applied annotation, written by
  the collection's own ``annotate``.
- ``merge-patch-3way``: ``merge(original, modified, current)``, the collection's three-way
  patch on its own (the JSON merge patch it would send, before it adds its annotation).

``ApplyException`` ("Expected key ... not found in position ...") is a list element without
the merge key the collection's table names: ``merge-key-missing``. Everything else is
``unclassified``. The handshake reports the collection's version (its MANIFEST.json).

    patchconf run --target "cmd:python adapters/python-ansible-kubernetes-core/adapter.py"
"""

import copy
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import apiserver_standin as standin
import patchconf_adapter as kit

with kit.library("ansible"):
    from ansible_collections.kubernetes.core.plugins.module_utils import apply as core_apply
    from ansible_collections.kubernetes.core.plugins.module_utils.exceptions import ApplyException
    from kubernetes.client.exceptions import ApiException
    from kubernetes.dynamic.exceptions import NotFoundError
    from kubernetes.dynamic.resource import ResourceInstance


def collection_version():
    """kubernetes.core's own version, from the collection's MANIFEST.json."""
    manifest = Path(core_apply.__file__).resolve().parents[2] / "MANIFEST.json"
    return json.loads(manifest.read_text(encoding="utf-8"))["collection_info"]["version"]


def not_found():
    return NotFoundError(ApiException(status=404, reason="Not Found"))


def declined(case):
    """Why the collection cannot be asked this case, or None."""
    if case.get("options", {}).get("overwrite", True) is False:
        return kit.Skip("kubernetes.core's apply has no overwrite=false mode: it always overwrites")
    modified = case.get("modified")
    if not isinstance(modified, dict) or "kind" not in modified:
        return kit.Skip("kubernetes.core applies only Kubernetes objects (its merge starts at the object's kind)")
    return None


def apply(case):
    live = standin.live_object(case, core_apply.annotate)
    resource = standin.RecordingResource(live, lambda obj: ResourceInstance(None, obj), not_found)
    core_apply.k8s_apply(resource, copy.deepcopy(case["modified"]))
    return resource.apply_answer()


def three_way(case):
    if not isinstance(case.get("original"), dict):
        return kit.Skip("kubernetes.core computes a three-way patch only from a last-applied object")
    patch = core_apply.merge(copy.deepcopy(case["original"]), copy.deepcopy(case["modified"]),
                             copy.deepcopy(case["current"]))
    return {"patch": json.loads(json.dumps(patch))}


def answer(case):
    return declined(case) or (apply(case) if case["type"] == "apply" else three_way(case))


def error_class(exc):
    return "merge-key-missing" if isinstance(exc, ApplyException) else "unclassified"


class CollectionAdapter(kit.Adapter):
    """The kit's adapter, reporting the collection's version instead of the ansible package's."""

    def handshake(self):
        reply = super().handshake()
        if reply.get("ready"):
            reply["implementation"]["version"] = collection_version()
        return reply


ADAPTER = CollectionAdapter(
    name="ansible-kubernetes-core", distribution="ansible", category="tool",
    homepage="https://github.com/ansible-collections/kubernetes.core",
    patch_types=["apply", "merge-patch-3way"], schemas=["builtin", "none"], profile="kubernetes",
    answer=answer, error_class=error_class)

if __name__ == "__main__":
    ADAPTER.main()
