"""Strategic merge patch, as Kubernetes applies and creates it.

:func:`apply` merges a patch into a document (:mod:`.apply`: ``StrategicMergePatch``);
:func:`create_two_way` and :func:`create_three_way` (:mod:`.create`: ``CreateTwoWayMergePatch``,
``CreateThreeWayMergePatch``) make one from two documents, or from kubectl apply's three. Both
directions share the patch's vocabulary (:mod:`.directives`), what upstream does with lists
(:mod:`.slices`) and apimachinery's ``mergepatch`` messages (:mod:`.mergepatch`), all of them
halves of apimachinery's strategicpatch/patch.go. :mod:`.patchmeta` says which fields merge
and by which key, for built-in kinds (:func:`builtin_patch_meta`) and for the named
schemas of ``cases/schemas/`` (:func:`named_patch_meta`).
"""

from .apply import apply
from .create import create_three_way, create_two_way
from .patchmeta import (
    FieldMeta,
    PatchMeta,
    available_versions,
    builtin_patch_meta,
    named_patch_meta,
)

__all__ = [
    "FieldMeta",
    "PatchMeta",
    "apply",
    "available_versions",
    "builtin_patch_meta",
    "create_three_way",
    "create_two_way",
    "named_patch_meta",
]
