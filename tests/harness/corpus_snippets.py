"""Case-file text the harness tests share: the defaults most small corpora take, and their cases.

``case_file(cases)`` is a whole file for ``write_case_file``: JSON Patch cases confirmed by
kubectl 1.32.4 unless they say otherwise, then ``cases`` (YAML list items, at any indentation).
"""

from __future__ import annotations

import textwrap


def case_file(cases: str, tags: str = "JP-ADD", patch_type: str = "json-patch") -> str:
    """A case file: defaults (``patch_type``, the behaviour ids ``tags``, kubectl 1.32.4's provenance),
    then ``cases``. Its cases start on line 6."""
    items = textwrap.indent(textwrap.dedent(cases).strip("\n"), "  ")
    return (f"defaults:\n  type: {patch_type}\n  tags: [{tags}]\n"
            f'  provenance: [{{implementation: kubectl, version: "1.32.4"}}]\ncases:\n{items}\n')


# An add every target makes alike.
PLAIN = """\
- name: plain
  description: plain add
  original: {a: 1}
  patch: [{op: add, path: /b, value: 2}]
  expected: {a: 1, b: 2}
"""
# Kubernetes' jsonpatch takes index -1 as the last one; RFC 6902 refuses it.
NEGATIVE = """\
- name: negative
  description: negative index
  tags: [JP-K8S]
  original: {a: [1]}
  patch: [{op: add, path: /a/-1, value: 2}]
  expected: {a: [1, 2]}
"""
