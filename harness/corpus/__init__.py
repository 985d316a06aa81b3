"""The case corpus: loading and checking case files (cases, casecache, corpus_layout, fastschema), YAML
in and out (yamlio, caseedit), and what the corpus covers (coverage).
"""
