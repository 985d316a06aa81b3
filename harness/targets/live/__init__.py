"""``live`` / ``live:CONTEXT``: cases against a real Kubernetes API server.

Each run works in its own namespace ``patchconf-<run id>`` (labelled ``patchconf.dev/run=<run
id>``, as are objects created outside it) and names each case's object; custom kinds get a CRD of the
run (group ``<group>.<run id>.patchconf.dev``). Everything is deleted when the target
closes: at the end of the run, on SIGINT/SIGTERM (the handlers stop new cases and raise
into the main thread, whose ``finally`` closes the target), and at interpreter exit.
With ``namespace`` (``--namespace``) the run works in that existing namespace instead
(``shared_namespace``): objects there are found by the run label, so every one carries it
(server-side apply objects too, without changing ownership), cases on metadata.labels skip,
and custom kinds skip when the account may not manage CRDs.

Per case the target creates ``original`` (``current`` for apply types) under its run name,
sends the real request with the patch type's Content-Type (``apply``: real ``kubectl apply``,
whose PATCH body is read from its request log), reads the object back and reports it in the
case's terms: name, namespace and apiVersion mapped back, the run label and server-owned
fields (uid, resourceVersion, …, status) dropped unless a case written for live states them.
The expectation is judged as the server renders it: a dry-run create of the expected
object gives it the server's defaults, admission and typed round trip, so what is compared
is what the patch did; values a case states stay as stated unless the server itself changes
them on creation. Errors carry HTTP status and Status reason.

A server-side apply case is a sequence of requests on one object: ``current`` is created and
given exactly the managedFields it states (or none), each step is sent as the real request
(apply, PUT, patch; on /status where asked) and the object read back after it, reported with
its managedFields (timed on the case's logical clock: ``ssa_flow.StepTimes``) and whether the
resourceVersion moved. Its custom kinds with a named schema get a CRD whose structural schema is
built from it (:func:`crd_schema`), so the server merges by the same list and map types.

Which cases run live (anything else is skipped with the reason):
- types json-patch, merge-patch, strategic, apply, server-side-apply, update;
- the document is a Kubernetes object (apiVersion, kind, metadata.name) of a namespaced
  kind the server serves, or of a custom kind (API group with a dot, outside *.k8s.io); or,
  for json-patch and merge-patch, a plain JSON object, held as the top-level fields of a
  custom resource of the run's schemaless CRD (placement.HOST_KIND) and read back without them;
- cases not written for live (no ``targets`` naming ``live``) are additionally skipped when
  the patch changes identity (apiVersion, kind, metadata.name/namespace), server-owned
  metadata or status, when the server rejects ``original`` at creation, or when the server
  cannot store the object the case expects (dry-run create fails: wrong Go types, unknown
  fields, invalid), or when an update rule (immutable field, Pod spec) refuses the change.

The package is split by concern: ``target`` (lifecycle, which cases run, dispatch), ``placement``
(run names and the mapping back), ``crds`` (the run's CRDs), one module per flow (``patch_flow``,
``apply_flow``, ``ssa_flow`` with ``kubectl_ssa``), ``rendering`` (the server's rendering of the
expectation), ``responses`` (error answers), ``corpus_fit`` (which corpus cases a server can judge).
"""

from __future__ import annotations

from .target import LiveTarget

__all__ = ["LiveTarget"]
