"""A protocol program (harness/PROTOCOL.md) that misbehaves on purpose, for patchconf's own tests.

    python tests/harness/fault_target.py [--huge BYTES] [--big BYTES] [--slow SECONDS] [--handshake FAULT]

It answers JSON Patch cases whose patch adds members (``{"op": "add", "path": "/x", ...}``).
What it does with a case is named by the case's name, up to a first ``.``:

- ``fine``: the right answer;
- ``huge-line``: a line of ``--huge`` bytes (default 2 GiB), streamed, then the answer;
- ``endless``: output without a newline, forever;
- ``big-document``: a right answer plus a member of ``--big`` bytes (default 40 MiB), in one valid line;
- ``nan``, ``infinity``: the answer with NaN / -Infinity as a member's value;
- ``duplicate-key``: ``{"seq": …, "result": {"document": …, "document": …}}``;
- ``invalid-utf8``: the answer with a Latin-1 byte in a string;
- ``result-not-object``, ``steps-not-list``, ``no-outcome``, ``two-outcomes``, ``error-without-class``,
  ``not-an-object``, ``wrong-seq``: answers of the wrong shape;
- ``crash``: says why on stderr and exits 3;
- ``hang``: never answers;
- ``slow``: the right answer after ``--slow`` seconds (default 0.5).

``--handshake FAULT`` (nan, duplicate-key, invalid-utf8, not-ready, bad-capabilities) breaks the
start handshake instead. Output is written in chunks: the program's own memory stays small
whatever it prints.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

CHUNK = 1024 * 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--huge", type=int, default=2 * 1024**3)
    parser.add_argument("--big", type=int, default=40 * 1024**2)
    parser.add_argument("--slow", type=float, default=0.5)
    parser.add_argument("--handshake")
    options = parser.parse_args()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if request["cmd"] == "stop":
            return 0
        if request["cmd"] == "start":
            out.write(handshake(options.handshake))
            out.flush()
            continue
        seq, case = request["seq"], request["case"]
        fault = case["id"].rsplit("::", 1)[1].split(".")[0]
        answer = {"seq": seq, "result": {"document": patched(case)}}
        if fault == "huge-line":
            stream(out, options.huge, b"x")
            out.write(b"\n")
        elif fault == "endless":
            while True:
                out.write(b"y" * CHUNK)
        elif fault == "big-document":
            head = json.dumps({"seq": seq, "result": {"document": {**patched(case), "big": ""}}}).encode()
            cut = head.rindex(b'""') + 1
            out.write(head[:cut])
            stream(out, options.big, b"z")
            out.write(head[cut:] + b"\n")
            out.flush()
            continue
        elif fault == "crash":
            print("fault target: crashing on purpose", file=sys.stderr, flush=True)
            return 3
        elif fault == "hang":
            time.sleep(3600)
        elif fault == "slow":
            time.sleep(options.slow)
        out.write(faulty(fault, answer) + b"\n")
        out.flush()
    return 0


def handshake(fault: str | None) -> bytes:
    capabilities = {"patch_types": ["json-patch"], "schemas": ["none"], "profile": "rfc"}
    answer = {"ready": True, "protocol": 1, "capabilities": capabilities,
              "implementation": {"name": "fault-target", "version": "1.0", "language": "python"}}
    if fault == "not-ready":
        answer["ready"] = False
    if fault == "bad-capabilities":
        capabilities["patch_types"] = "json-patch"
    text = json.dumps(answer)
    if fault == "nan":
        text = text.replace('"protocol": 1', '"protocol": NaN')
    if fault == "duplicate-key":
        text = text.replace('"protocol": 1', '"protocol": 1, "protocol": 1')
    data = text.encode() + b"\n"
    if fault == "invalid-utf8":
        data = data.replace(b"fault-target", b"fault-target\xff")
    return data


def patched(case: dict) -> dict:
    document = dict(case["original"])
    for op in case["patch"]:
        document[op["path"][1:]] = op["value"]
    return document


def faulty(fault: str, answer: dict) -> bytes:
    seq, document = answer["seq"], answer["result"]["document"]
    shapes = {
        "nan": {"seq": seq, "result": {"document": {**document, "n": "<NaN>"}}},
        "infinity": {"seq": seq, "result": {"document": {**document, "n": "<-Infinity>"}}},
        "result-not-object": {"seq": seq, "result": [document]},
        "steps-not-list": {"seq": seq, "result": {"steps": {"1": document}}},
        "no-outcome": {"seq": seq, "result": {"documents": [document]}},
        "two-outcomes": {"seq": seq, "result": {"document": document}, "error": {"class": "invalid-patch"}},
        "error-without-class": {"seq": seq, "error": {"message": "no class"}},
        "not-an-object": [seq, document],
        "wrong-seq": {"seq": seq + 100, "result": {"document": document}},
    }
    text = json.dumps(shapes.get(fault, answer))
    text = text.replace('"<NaN>"', "NaN").replace('"<-Infinity>"', "-Infinity")
    if fault == "duplicate-key":
        body = json.dumps(document)
        text = json.dumps({"seq": seq})[:-1] + f', "result": {{"document": {body}, "document": {body}}}}}'
    data = text.encode()
    if fault == "invalid-utf8":
        data = data.replace(b'"a": 1', b'"a": "caf\xe9"')
    return data


def stream(out, size: int, byte: bytes) -> None:
    block = byte * CHUNK
    while size > 0:
        out.write(block[: min(size, CHUNK)])
        size -= CHUNK


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the harness stopped reading and killed us: expected
        sys.exit(1)
