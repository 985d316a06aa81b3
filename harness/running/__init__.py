"""Running cases: the runner, which runs each case on a target (in forked copies for in-process
targets) and judges its answer against the case's expectations (runner).
"""
