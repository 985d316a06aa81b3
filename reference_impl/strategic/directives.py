"""The vocabulary of a strategic merge patch: its directives and patch strategies.

Go twin: the constants of k8s.io/apimachinery/pkg/util/strategicpatch/patch.go, with the two
helpers both directions use: ``extractRetainKeysPatchStrategy`` (:func:`patch_strategy`) and
``removeDirectives`` after ``discardNullValuesFromPatch`` (:func:`without_directives`).
"""

from __future__ import annotations

from ..errors import NoStrategicSchema
from ..govalue.decoded import Json
from .patchmeta import FieldMeta

DIRECTIVE = "$patch"
DELETE = "delete"
REPLACE = "replace"
MERGE = "merge"
RETAIN_KEYS = "$retainKeys"
RETAIN_KEYS_STRATEGY = "retainKeys"
SET_ELEMENT_ORDER = "$setElementOrder"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"


def without_directives(value: Json, drop_nulls: bool) -> tuple[Json, bool]:
    """A copy of ``value`` without maps that carry ``$patch`` (and whether to keep it).

    With ``drop_nulls`` it first drops ``null`` members of maps, at any depth, as
    upstream does with patch values it adds where the document has nothing to merge
    with (``discardNullValuesFromPatch`` then ``removeDirectives``). ``null`` items of
    lists stay.
    """
    kind = type(value)
    if kind is dict:
        if DIRECTIVE in value and not (drop_nulls and value[DIRECTIVE] is None):
            return None, False
        result = {}
        for key, item in value.items():
            if item is None:
                if not drop_nulls:
                    result[key] = None
                continue
            cleaned, keep = without_directives(item, drop_nulls)
            if keep:
                result[key] = cleaned
        return result, True
    if kind is list:
        result_list = []
        for item in value:
            cleaned, keep = without_directives(item, drop_nulls)
            if keep:
                result_list.append(cleaned)
        return result_list, True
    return value, True



def patch_strategy(meta: FieldMeta) -> str:
    """The strategy besides ``retainKeys`` (upstream's ``extractRetainKeysPatchStrategy``)."""
    strategies = meta.strategies
    if not strategies:
        return ""
    if len(strategies) == 1:
        return "" if strategies[0] == RETAIN_KEYS_STRATEGY else strategies[0]
    if len(strategies) == 2:
        if strategies[0] == RETAIN_KEYS_STRATEGY:
            return strategies[1]
        if strategies[1] == RETAIN_KEYS_STRATEGY:
            return strategies[0]
    raise NoStrategicSchema(f"unexpected patch strategy: [{' '.join(strategies)}]")
