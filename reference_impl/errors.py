"""Typed patch errors.

Every error carries a stable, language-neutral ``error_class`` (the value case files
put in ``expected_error.class``) and the JSON pointer of the node where it happened.
Messages follow the wording of Kubernetes' own libraries where one exists, so a case's
message fragment can be matched against kubectl, upstream and the reference alike.
"""

from __future__ import annotations

from typing import ClassVar


class PatchError(Exception):
    """Base of every error raised while applying or creating a patch."""

    error_class: ClassVar[str] = "patch-error"

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer

    def __str__(self) -> str:
        where = f" (at {self.pointer!r})" if self.pointer else ""
        return f"{self.message}{where}"


class InvalidPatch(PatchError):
    """The patch document itself is malformed (wrong shape, unknown op, bad member)."""

    error_class = "invalid-patch"


class InvalidDocument(PatchError):
    """The document being patched cannot be patched this way."""

    error_class = "invalid-document"


class PathNotFound(PatchError):
    """A JSON Pointer names a location that does not exist."""

    error_class = "path-not-found"


class InvalidIndex(PatchError):
    """An array index is out of range or not a number."""

    error_class = "invalid-index"


class TestFailed(PatchError):
    """A JSON Patch ``test`` operation did not match."""

    __test__ = False  # not a pytest test class
    error_class = "test-failed"


class MergeKeyMissing(PatchError):
    """A strategic merge patch list element lacks its list's merge key."""

    error_class = "merge-key-missing"


class InvalidDirective(PatchError):
    """An unknown ``$patch`` value, or a directive where none is allowed."""

    error_class = "invalid-directive"


class RetainKeysViolation(PatchError):
    """A ``$retainKeys`` list is malformed or omits a key the patch sets."""

    error_class = "retain-keys-violation"


class ListOfLists(PatchError):
    """Strategic merge patch does not support lists of lists."""

    error_class = "list-of-lists"


class TypeMismatch(PatchError):
    """Patch and document disagree on a node's type where upstream refuses that."""

    error_class = "type-mismatch"


class NoStrategicSchema(PatchError):
    """No strategic merge patch schema: for the kind (custom resources), or for a field the
    merge has to descend into (a map or list under a key the kind's schema lacks)."""

    error_class = "no-strategic-schema"


class PreconditionFailed(PatchError):
    """A created patch would change apiVersion, kind or metadata.name."""

    error_class = "precondition-failed"


class Conflict(PatchError):
    """A three-way merge without overwrite found changes made by someone else."""

    error_class = "conflict"


ERROR_CLASSES: dict[str, type[PatchError]] = {
    cls.error_class: cls
    for cls in (
        InvalidPatch,
        InvalidDocument,
        PathNotFound,
        InvalidIndex,
        TestFailed,
        MergeKeyMissing,
        InvalidDirective,
        RetainKeysViolation,
        ListOfLists,
        TypeMismatch,
        NoStrategicSchema,
        PreconditionFailed,
        Conflict,
    )
}
