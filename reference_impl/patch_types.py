"""The corpus's patch types (``case.schema.json``'s ``patchType``) and what each one is.

A module that treats some types alike asks this registry for the property it relies on rather
than listing names of its own; tests/reference_impl/test_patch_types.py holds the registry against
the schema's enum. It sits at the bottom of reference_impl, below everything that asks it: the
library API (the root's __init__.py), the harness and the reference alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class PatchType:
    name: str
    # An RFC's patch (JSON Patch, RFC 6902; JSON Merge Patch, RFC 7386, applied or created two-way):
    # it acts on any JSON document, no schema is sent, and RFC libraries can answer it.
    rfc: bool
    # ``kubectl patch --type``'s name for it when it is the body of a PATCH request: kubectl then
    # reads the original from a file and the result back as an object, and a server applies it.
    kubectl_patch: str | None
    # The media type a request to a server carries it in.
    content_type: str | None
    # Its job is creating a patch (two- or three-way); a target may leave out the patched document.
    creates_patch: bool
    # Its answer states a patch (``expected_patch``): the one created, or the one kubectl apply sends.
    states_patch: bool
    # The corpus's cases of it state only the patch (PROTOCOL.md: the document is optional).
    states_only_patch: bool
    # A server runs it (the live target's flows).
    on_a_server: bool
    # It reads the live object (``current``) beside the configuration last applied (``original``) and
    # the one applied now (``modified``).
    three_way: bool

    @property
    def patch_request(self) -> bool:
        return self.kubectl_patch is not None


def _type(name: str, *, rfc: bool = False, kubectl_patch: str | None = None, content_type: str | None = None,
          creates_patch: bool = False, states_patch: bool = False, states_only_patch: bool = False,
          three_way: bool = False) -> PatchType:
    return PatchType(name, rfc, kubectl_patch, content_type, creates_patch, states_patch or creates_patch,
                     states_only_patch, on_a_server=not creates_patch, three_way=three_way)


_REGISTRY = (
    _type("json-patch", rfc=True, kubectl_patch="json", content_type="application/json-patch+json"),
    _type("merge-patch", rfc=True, kubectl_patch="merge", content_type="application/merge-patch+json"),
    _type("merge-patch-2way", rfc=True, creates_patch=True, states_only_patch=True),
    _type("merge-patch-3way", creates_patch=True, states_only_patch=True, three_way=True),
    _type("strategic", kubectl_patch="strategic", content_type="application/strategic-merge-patch+json"),
    _type("strategic-2way", creates_patch=True),
    _type("strategic-3way", creates_patch=True, three_way=True),
    _type("apply", states_patch=True, three_way=True),
    _type("server-side-apply", content_type="application/apply-patch+yaml"),
    _type("update"),
)

# Every patch type by name, in the schema's order.
PATCH_TYPES: dict[str, PatchType] = {patch_type.name: patch_type for patch_type in _REGISTRY}
# The bodies of a PATCH request (kubectl patch, a server's patch verb), in the schema's order.
PATCH_REQUEST_TYPES = tuple(name for name, patch_type in PATCH_TYPES.items() if patch_type.patch_request)


def patch_type(name: str) -> PatchType:
    """The registered type ``name`` (a case's ``type``, valid by the schema)."""
    return PATCH_TYPES[name]


def names_where(test: Callable[[PatchType], bool]) -> frozenset[str]:
    """The names of the types ``test`` holds for."""
    return frozenset(name for name, patch_type in PATCH_TYPES.items() if test(patch_type))
