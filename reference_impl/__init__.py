"""patchconf's pure-Python reference implementation of the patch types Kubernetes applies.

One module per standard: :mod:`~patchconf.reference_impl.json_patch` (RFC 6902),
:mod:`~patchconf.reference_impl.merge_patch` (RFC 7396), :mod:`~patchconf.reference_impl.strategic` (strategic
merge patch: applying, and creating two- and three-way patches in ``strategic.create``),
each reproducing the library Kubernetes uses; :mod:`~patchconf.reference_impl.kubectl_apply` is
kubectl's client-side apply flow around them. Typed errors are in
:mod:`~patchconf.reference_impl.errors`, JSON Pointer helpers in :mod:`~patchconf.reference_impl.jsonpointer`,
and everything that stands in for Go's values and runtime (JSON copy and equality, ``%v``,
``strconv.Quote``, ``encoding/json``, sort, YAML, slice growth) in :mod:`~patchconf.reference_impl.govalue`.
"""
