"""The case corpus: loading and checking case files (cases, caseschema, casecache, corpus_layout), YAML
in and out (yamlio, caseedit), what the corpus covers (coverage), and what its values mean when an
answer is compared with them (compare: JSON equality as Go reads it; stored_objects: what a case
states of an object a server stores).
"""
