"""The messages of apimachinery's ``mergepatch`` errors that strategic merge patch raises.

Go twin: k8s.io/apimachinery/pkg/util/mergepatch/errors.go (``ErrBadArgType``, ``ErrNoMergeKey``).
"""

from __future__ import annotations

from ..govalue.decoded import Json, go_type
from ..govalue.fmt import go_v


def _go_type_s(value: Json) -> str:
    """``%s`` of ``reflect.TypeOf(value)``, as ``ErrBadArgType`` prints it."""
    type_name = go_type(value)
    return "%!s(<nil>)" if type_name is None else type_name


def bad_arg_type(expected: str, value: Json) -> str:
    """``ErrBadArgType``: ``value`` is not of the ``expected`` Go type."""
    return f"expected a {expected}, but received a {_go_type_s(value)}"


def no_merge_key(element: dict, merge_key: str) -> str:
    """``ErrNoMergeKey``: an item of a merge list lacks the merge key."""
    return f"map: {go_v(element)} does not contain declared merge key: {merge_key}"
