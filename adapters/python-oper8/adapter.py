"""patchconf command-protocol adapter (harness/PROTOCOL.md) for PyPI ``oper8``.

``oper8.patch_strategic_merge.patch_strategic_merge(resource, patch)`` applies a
strategic merge patch. Its only schema knowledge is a built-in table of list merge keys
(``openshift.dynamic.apply.STRATEGIC_MERGE_PATCH_KEYS``, keyed by ``Kind.path``, any
apiVersion): it runs ``strategic`` cases on ``builtin`` kinds, judged by Kubernetes'
rules. The call is the library's default one (no ``merge_patch_keys`` argument). It
raises plain ``ValueError``s, so every exception is ``unclassified``. The protocol is the
Python kit's (adapters/kit/python).

    patchconf run --target "cmd:python adapters/python-oper8/adapter.py" --type strategic
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kit" / "python"))
import patchconf_adapter as kit

with kit.library("oper8"):
    from oper8.patch_strategic_merge import patch_strategic_merge


def answer(case):
    return {"document": patch_strategic_merge(case["original"], case["patch"])}


ADAPTER = kit.Adapter(
    name="python-oper8", distribution="oper8", homepage="https://github.com/IBM/oper8",
    patch_types=["strategic"], schemas=["builtin"], profile="kubernetes", answer=answer)

if __name__ == "__main__":
    ADAPTER.main()
