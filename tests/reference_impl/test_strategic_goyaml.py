"""The YAML of conflict messages (patchconf.reference_impl.strategic.goyaml).

What go-yaml writes is checked in test_strategic_create (upstream's conflict messages); here
the dumper's quicker paths are held to PyYAML's own analysis and writers, which they replace.
"""

from __future__ import annotations

import io
import random

import pytest
import yaml

from patchconf.reference_impl.strategic import goyaml

ASCII = [*"ab:#-?,[]{}&*!|>'\"%@`$/._09 \t\r\n\0\x7f"]
ALPHABET = [
    *ASCII,
    "\x85", "\xa0", "\u2028", "\u2029", "\ufeff", "\ufffe", "\ud7ff", "\ue000", "é", "\U0001F600", "\U0010ffff",
]


def random_text(rng: random.Random) -> str:
    length = rng.choice([0, 1, 2, 3, 5, 8, 20, 90, 200])
    characters = rng.choice([ASCII, ALPHABET])  # (the quicker paths take ASCII text)
    text = "".join(rng.choice(characters) for _ in range(length))
    if rng.random() < 0.3:  # long lines with and without spaces to fold at
        text = rng.choice(["", " ", "x"]) + "word" * rng.randint(0, 30) + rng.choice(["", "\n", "\n\n", " end"])
    if rng.random() < 0.2:
        text = rng.choice(["---", "...", "- ", "-", "? ", ":", "#", "a:", "a #b", "a:b", "$x/y.z"]) + text
    return text


def random_value(rng: random.Random, depth: int = 0):
    draw = rng.random()
    if depth < 3 and draw < 0.3:
        return {random_text(rng): random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if depth < 3 and draw < 0.45:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if draw < 0.55:
        return rng.choice([None, True, False, 0, 7, -12345678901234567890])
    return random_text(rng)


class _AsPyYamlWritesIt(goyaml._GoYamlDumper):
    """The dumper with PyYAML's own analysis and writers instead of the quicker paths."""

    analyze_scalar = yaml.emitter.Emitter.analyze_scalar
    write_plain = yaml.emitter.Emitter.write_plain
    write_single_quoted = goyaml._GoYamlDumper.write_single_quoted_in_lines


def test_the_scalar_analysis_is_pyyaml_s() -> None:
    rng = random.Random(27)
    dumper = goyaml._GoYamlDumper(io.StringIO(), allow_unicode=True)
    texts = [random_text(rng) for _ in range(20000)] + ["nginx:1.26", "a:", ":", "-", "- a", "? a", "a #b", "a#b"]
    for text in texts:
        ours, pyyaml = dumper.analyze_scalar(text), yaml.emitter.Emitter.analyze_scalar(dumper, text)
        assert vars(ours) == vars(pyyaml), text


@pytest.mark.parametrize("seed", range(2))
def test_dumps_are_what_pyyaml_s_writers_write(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        value = {random_text(rng): random_value(rng) for _ in range(rng.randint(0, 4))}
        expected = yaml.dump(goyaml._go_yaml_ordered(value), Dumper=_AsPyYamlWritesIt, default_flow_style=False,
                             sort_keys=False, allow_unicode=True)
        assert goyaml.dump(value) == expected, value


def test_a_last_applied_configuration_is_one_quoted_line_and_its_breaks() -> None:
    text = '{"apiVersion":"v1","data":{"a":"it\'s"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c"}}\n'
    assert goyaml.dump({"metadata": {"annotations": {"last-applied": text}}}) == (
        "metadata:\n  annotations:\n    last-applied: '"
        + text.replace("'", "''").rstrip("\n") + "\n\n'\n"
    )
