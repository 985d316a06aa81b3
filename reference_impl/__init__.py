"""patchconf's pure-Python reference implementation of the patch types Kubernetes applies.

One module per standard: :mod:`~reference_impl.json_patch` (RFC 6902),
:mod:`~reference_impl.merge_patch` (RFC 7396), each reproducing the library Kubernetes
uses, with typed errors in :mod:`~reference_impl.errors` and JSON Pointer helpers in
:mod:`~reference_impl.jsonpointer`.
"""
