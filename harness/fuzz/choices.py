"""Where generators get their decisions: a seeded random source, or Hypothesis.

A generator is a function of a :class:`Choices` that builds one input from a sequence of
small decisions (integers in a range, yes/no). Exploring draws them from a seeded
``random.Random`` and records them (:class:`RandomChoices`): tens of microseconds an
input, where Hypothesis' engine spends milliseconds on the same draws. Shrinking hands the
recorded sequence to Hypothesis (:func:`shrink`): the same generator becomes a Hypothesis
strategy (:func:`as_strategy`), its first example replays the recording exactly, and
Hypothesis' shrinker then searches for the smallest sequence whose input still satisfies
the predicate. Decisions are written so that smaller is simpler (0 and ``False``: leave
out, the first and simplest option), which is the direction Hypothesis shrinks in.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
Generator = Callable[["Choices"], Any]


class Choices(Protocol):
    """The decisions a generator may ask for."""

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]; shrinks towards ``low``."""

    def chance(self, probability: float) -> bool:
        """True with ``probability`` while exploring; shrinks towards False."""


def pick(choices: Choices, options: Sequence[T]) -> T:
    """One of ``options``; shrinks towards the first."""
    return options[choices.integer(0, len(options) - 1)]


def some(choices: Choices, options: Sequence[T], probability: float = 0.5) -> list[T]:
    """The options each kept with ``probability``, in their order; shrinks towards none."""
    return [option for option in options if choices.chance(probability)]


def shuffled(choices: Choices, items: Sequence[T]) -> list[T]:
    """``items`` in an order of the choices' making (Fisher–Yates); shrinks towards the given order."""
    result = list(items)
    for index in range(len(result) - 1):
        swap = choices.integer(index, len(result) - 1)
        result[index], result[swap] = result[swap], result[index]
    return result


class RandomChoices:
    """Decisions from a seeded ``random.Random``, each written down for :func:`shrink` to replay."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed)
        self.recorded: list[int | bool] = []

    def integer(self, low: int, high: int) -> int:
        if low >= high:  # no decision to make (Hypothesis draws none either)
            return low
        value = self._random.randint(low, high)
        self.recorded.append(value)
        return value

    def chance(self, probability: float) -> bool:
        value = self._random.random() < probability
        self.recorded.append(value)
        return value


class _DrawnChoices:
    """Decisions drawn by Hypothesis: one integer or boolean choice each, as RandomChoices records them."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        from hypothesis import strategies

        self._draw = draw
        self._strategies = strategies

    def integer(self, low: int, high: int) -> int:
        if low >= high:
            return low
        return self._draw(self._strategies.integers(low, high))

    def chance(self, probability: float) -> bool:
        return self._draw(self._strategies.booleans())


def as_strategy(generator: Generator):
    """``generator`` as a Hypothesis strategy."""
    from hypothesis import strategies

    @strategies.composite
    def generated(draw):
        return generator(_DrawnChoices(draw))

    return generated()


def generate(generator: Generator, seed: int | str) -> tuple[Any, tuple[int | bool, ...]]:
    """The value ``generator`` makes from the seed, and the decisions that made it."""
    source = RandomChoices(seed)
    value = generator(source)
    return value, tuple(source.recorded)


class NotReproduced(Exception):
    """The recorded decisions no longer give a value satisfying the predicate."""


SHRINK_SEED = 0


def shrink(generator: Generator, recorded: Sequence[int | bool], predicate: Callable[[Any], bool],
           max_calls: int = 2000, shrinking: bool = True) -> Any:
    """The smallest value ``generator`` makes that satisfies ``predicate``, starting from the one
    ``recorded`` made (which must satisfy it). Hypothesis' shrinker searches; at most
    ``max_calls`` candidates are judged by ``predicate`` (the rest count as not satisfying it).
    Without ``shrinking``, the recorded value itself, replayed by Hypothesis."""
    from hypothesis import Phase, find, settings
    from hypothesis import core as hypothesis_core
    from hypothesis.database import InMemoryExampleDatabase, choices_to_bytes
    from hypothesis.errors import FlakyFailure, NoSuchExample

    database = InMemoryExampleDatabase()
    key = b"patchconf-fuzz-shrink"
    # As a "secondary" entry (an input that once failed, not yet minimal): Hypothesis does not
    # shrink again an entry of the primary corpus that replays exactly.
    database.save(key + b".secondary", choices_to_bytes(list(recorded)))
    # Each value judged once: Hypothesis asks again about the one it returns, and a predicate
    # that asks a process could answer otherwise (or be past its budget) the second time.
    answers: dict[str, bool] = {}

    def bounded(value: Any) -> bool:
        key = json.dumps(value, sort_keys=True, default=repr)
        if key not in answers:
            answers[key] = len(answers) < max_calls and predicate(value)
        return answers[key]

    # Replay the recording (reuse), then shrink; never generate: a value that no longer
    # satisfies the predicate is reported, not replaced by another. The shrinker's own random
    # choices get a fixed seed (what pytest's --hypothesis-seed sets), so the same recording
    # always shrinks to the same case; find()'s `random` argument would turn the database off.
    forced = hypothesis_core.global_force_seed
    hypothesis_core.global_force_seed = SHRINK_SEED
    try:
        return find(as_strategy(generator), bounded, database_key=key,
                    settings=settings(database=database, phases=[Phase.reuse, Phase.shrink][:2 if shrinking else 1],
                                      deadline=None,
                                      max_examples=max_calls))
    except NoSuchExample:
        raise NotReproduced("the recorded input no longer satisfies the predicate") from None
    except FlakyFailure as exc:
        raise NotReproduced(f"Hypothesis found the predicate flaky: {exc}") from None
    finally:
        hypothesis_core.global_force_seed = forced
