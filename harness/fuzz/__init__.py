"""``patchconf fuzz``: random inputs for every flow, Kubernetes' own code as the judge.

- :mod:`~harness.fuzz.choices`: decisions from a seeded random source (fast, recorded) or
  from Hypothesis (replaying a recording, then shrinking it);
- :mod:`~harness.fuzz.generators`: one generator per patch type, a function of those decisions;
- :mod:`~harness.fuzz.engine`: the differential loop, signatures, nondeterminism, shrinking;
- :mod:`~harness.fuzz.behaviours`: the behaviour ids a generated case exercises;
- :mod:`~harness.fuzz.casefile`: each distinct disagreement as a corpus case file;
- :mod:`~harness.fuzz.summary`: progress and the summary the command prints.
"""
