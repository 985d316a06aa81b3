"""The messages of apimachinery's ``mergepatch`` errors that strategic merge patch raises.

Go twin: k8s.io/apimachinery/pkg/util/mergepatch/errors.go (``ErrBadArgType``, ``ErrNoMergeKey``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..govalue.decoded import Json, go_type
from ..govalue.fmt import go_v


def bad_arg_type(expected: str, value: Json, typed_by: Callable[[Json], str | None] = go_type) -> str:
    """``ErrBadArgType``: ``value`` is not of the ``expected`` Go type. ``typed_by`` names the Go type
    its decoder gave it (``%s`` of ``reflect.TypeOf``): encoding/json's by default."""
    type_name = typed_by(value)
    return f"expected a {expected}, but received a {'%!s(<nil>)' if type_name is None else type_name}"


def no_merge_key(element: dict, merge_key: str) -> str:
    """``ErrNoMergeKey``: an item of a merge list lacks the merge key."""
    return f"map: {go_v(element)} does not contain declared merge key: {merge_key}"
