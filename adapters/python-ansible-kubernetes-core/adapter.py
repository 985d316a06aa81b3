"""patchconf command-protocol adapter (harness/PROTOCOL.md) for Ansible's ``kubernetes.core``.

The collection ships in the ``ansible`` package (12.3.0 holds kubernetes.core 6.2.0) and
imports as ``ansible_collections.kubernetes.core``. A ``k8s`` task with ``apply: true``
goes K8sService.apply -> K8SDynamicClient.apply -> ``module_utils.apply.k8s_apply(resource,
definition)``, which GETs the live object, computes its own three-way patch
(``apply_object`` -> ``apply_patch`` -> ``merge(last_applied, desired, actual)``) and
sends it as ``application/merge-patch+json`` (or creates the object). The kit's
client_side_apply.py asks ``k8s_apply`` (``apply`` cases) and ``merge`` (``merge-patch-3way``)
with a stand-in Resource that serves the case's live object, its last-applied annotation
written by the collection's own ``annotate``, and records the write; ``ApplyException`` is
``merge-key-missing``. Here: which module, what the collection declines and why, and its
version (the collection's, from its MANIFEST.json, not the ansible package's).

    patchconf run --target "cmd:python adapters/python-ansible-kubernetes-core/adapter.py"
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import client_side_apply
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


def kubernetes_core():
    return client_side_apply.Tool(
        apply=core_apply.k8s_apply, merge=core_apply.merge, annotate=core_apply.annotate,
        merge_key_missing=ApplyException, resource_instance=ResourceInstance,
        not_found_error=NotFoundError, api_exception=ApiException)


DECLINED = [
    (client_side_apply.overwrite_false,
     "kubernetes.core's apply has no overwrite=false mode: it always overwrites"),
    (client_side_apply.not_an_object,
     "kubernetes.core applies only Kubernetes objects (its merge starts at the object's kind)"),
    (client_side_apply.three_way_without_last_applied,
     "kubernetes.core computes a three-way patch only from a last-applied object"),
]

ADAPTER = client_side_apply.adapter(
    kubernetes_core, DECLINED, name="ansible-kubernetes-core", distribution="ansible",
    homepage="https://github.com/ansible-collections/kubernetes.core", version=collection_version)

if __name__ == "__main__":
    ADAPTER.main()
