"""``patchconf fuzz``: random inputs for every flow, Kubernetes' own code as the judge.

- :mod:`~patchconf.harness.fuzz.choices`: decisions from a seeded random source (fast, recorded) or
  from Hypothesis (replaying a recording, then shrinking it);
- :mod:`~patchconf.harness.fuzz.generators`: one generator per patch type, a function of those decisions;
- :mod:`~patchconf.harness.fuzz.engine`: the differential loop, signatures, nondeterminism, shrinking;
- :mod:`~patchconf.harness.fuzz.behaviours`: the behaviour ids a generated case exercises;
- :mod:`~patchconf.harness.fuzz.casefile`: each distinct disagreement as a corpus case file;
- :mod:`~patchconf.harness.fuzz.summary`: progress and the summary the command prints.
"""
