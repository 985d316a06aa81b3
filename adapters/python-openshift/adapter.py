"""patchconf command-protocol adapter (harness/PROTOCOL.md) for the OpenShift Python client.

``openshift`` on PyPI (openshift-restclient-python). ``DynamicClient.apply(resource, body)``
calls ``openshift.dynamic.apply.apply(resource, definition)``, which GETs the live object,
computes its own three-way patch (``apply_object`` -> ``apply_patch`` ->
``merge(last_applied, desired, actual)``) and sends it as ``application/merge-patch+json``
(or creates the object). Ansible's kubernetes.core grew out of this module, and its adapter
shares the kit's client_side_apply.py, which asks ``apply`` (``apply`` cases) and ``merge``
(``merge-patch-3way``) with a stand-in Resource that serves the case's live object, its
last-applied annotation written by the module's own ``annotate``, and records the write;
``ApplyException`` is ``merge-key-missing``. Here: which module, and what it declines and
why. The handshake reports the openshift distribution's version.

    patchconf run --target "cmd:python adapters/python-openshift/adapter.py"
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import client_side_apply
import patchconf_adapter as kit

with kit.library("openshift"):
    from kubernetes.client.exceptions import ApiException
    from kubernetes.dynamic.resource import ResourceInstance
    from openshift.dynamic import apply as openshift_apply
    from openshift.dynamic.exceptions import ApplyException, NotFoundError

DECLINED = [
    (client_side_apply.overwrite_false,
     "openshift's apply has no overwrite=false mode: it always overwrites"),
    (client_side_apply.not_an_object,
     "openshift applies only Kubernetes objects (its merge starts at the object's kind)"),
    (client_side_apply.three_way_without_last_applied,
     "openshift computes a three-way patch only from a last-applied object"),
]


def openshift():
    return client_side_apply.Tool(
        apply=openshift_apply.apply, merge=openshift_apply.merge, annotate=openshift_apply.annotate,
        merge_key_missing=ApplyException, resource_instance=ResourceInstance,
        not_found_error=NotFoundError, api_exception=ApiException)


ADAPTER = client_side_apply.adapter(
    openshift, DECLINED, name="python-openshift", distribution="openshift",
    homepage="https://github.com/openshift/openshift-restclient-python")

if __name__ == "__main__":
    ADAPTER.main()
