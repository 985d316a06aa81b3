"""Running cases: the runner and its judging (runner, compare, stored_objects), bounded concurrency and
time (bounded), and the failures a target is known for (known_failures).
"""
