"""patchconf command-protocol adapter (harness/PROTOCOL.md) for the OpenShift Python client.

``openshift`` on PyPI (openshift-restclient-python). ``DynamicClient.apply(resource, body)``
calls ``openshift.dynamic.apply.apply(resource, definition)``, which GETs the live object,
computes its own three-way patch (``apply_object`` -> ``apply_patch`` ->
``merge(last_applied, desired, actual)``) and sends it as ``application/merge-patch+json``
(or creates the object). Ansible's kubernetes.core grew out of this module. This adapter
calls ``apply`` with a stand-in Resource (adapters/kit/python/apiserver_standin.py) that
serves the case's live object and records the write:

- ``apply``: ``apply(resource, modified)``; the answer is the patch it sent and the live
  object with that merge patch applied (RFC 7396, the server's part), or the object it
  created. The live object carries ``original`` as its last-applied annotation, written by
  the module's own ``annotate``.
- ``merge-patch-3way``: ``merge(original, modified, current)``, the module's three-way
  patch on its own (the JSON merge patch it would send, before it adds its annotation).

``ApplyException`` ("Expected key ... not found in position ...") is a list element without
the merge key the module's table names: ``merge-key-missing``. Everything else is
``unclassified``.

    patchconf run --target "cmd:python adapters/python-openshift/adapter.py"
"""

import copy
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import apiserver_standin as standin
import patchconf_adapter as kit

with kit.library("openshift"):
    from kubernetes.client.exceptions import ApiException
    from kubernetes.dynamic.resource import ResourceInstance
    from openshift.dynamic import apply as openshift_apply
    from openshift.dynamic.exceptions import ApplyException, NotFoundError


def not_found():
    return NotFoundError(ApiException(status=404, reason="Not Found"))


def declined(case):
    """Why the module cannot be asked this case, or None."""
    if case.get("options", {}).get("overwrite", True) is False:
        return kit.Skip("openshift's apply has no overwrite=false mode: it always overwrites")
    modified = case.get("modified")
    if not isinstance(modified, dict) or "kind" not in modified:
        return kit.Skip("openshift applies only Kubernetes objects (its merge starts at the object's kind)")
    return None


def apply(case):
    live = standin.live_object(case, openshift_apply.annotate)
    resource = standin.RecordingResource(live, lambda obj: ResourceInstance(None, obj), not_found)
    openshift_apply.apply(resource, copy.deepcopy(case["modified"]))
    return resource.apply_answer()


def three_way(case):
    if not isinstance(case.get("original"), dict):
        return kit.Skip("openshift computes a three-way patch only from a last-applied object")
    patch = openshift_apply.merge(copy.deepcopy(case["original"]), copy.deepcopy(case["modified"]),
                                  copy.deepcopy(case["current"]))
    return {"patch": json.loads(json.dumps(patch))}


def answer(case):
    return declined(case) or (apply(case) if case["type"] == "apply" else three_way(case))


def error_class(exc):
    return "merge-key-missing" if isinstance(exc, ApplyException) else "unclassified"


ADAPTER = kit.Adapter(
    name="python-openshift", distribution="openshift", category="tool",
    homepage="https://github.com/openshift/openshift-restclient-python",
    patch_types=["apply", "merge-patch-3way"], schemas=["builtin", "none"], profile="kubernetes",
    answer=answer, error_class=error_class)

if __name__ == "__main__":
    ADAPTER.main()
