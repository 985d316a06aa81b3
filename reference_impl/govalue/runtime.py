"""The capacities Go's runtime gives slices (malloc size classes and ``append``'s growth), and
the text of the runtime error a nil pointer raises.

Go twins: runtime/sizeclasses.go (``class_to_size``), runtime/msize.go (``roundupsize``) and
runtime/slice.go (``growslice``, ``nextslicecap``). Upstream's results can depend on a slice's
capacity: an ``append`` within it writes into an array another slice still shows.
"""

from __future__ import annotations

import bisect
import functools

# What a panic on a nil pointer says (runtime/panic.go, panicmem): some upstream code paths end there.
NIL_POINTER_DEREFERENCE = "runtime error: invalid memory address or nil pointer dereference"

# Go's malloc size classes (bytes) up to 32 KiB, and the constants growslice uses.
_SIZE_CLASSES = (
    0, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288,
    320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536,
    1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192,
    9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576,
    27264, 28672, 32768,
)
_INTERFACE_SIZE = 16
_MALLOC_HEADER = 8


def _round_up_size(size: int) -> int:
    if size <= 32768 - _MALLOC_HEADER:
        request = size + _MALLOC_HEADER if size > 512 else size
        return _SIZE_CLASSES[bisect.bisect_left(_SIZE_CLASSES, request)] - (request - size)
    return (size + 8191) & ~8191


def grown_capacity(capacity: int, needed: int) -> int:
    """The capacity ``append`` gives a ``[]interface{}`` of ``capacity`` that needs ``needed``."""
    doubled = capacity * 2
    if needed > doubled:
        new = needed
    elif capacity < 256:
        new = doubled
    else:
        new = capacity
        while new < needed:
            new += (new + 3 * 256) >> 2
    return _round_up_size(new * _INTERFACE_SIZE) // _INTERFACE_SIZE


@functools.cache
def decoded_capacity(length: int) -> int:
    """The capacity of a JSON array of ``length`` items as Go's decoder builds it.

    ``encoding/json`` (and ``sigs.k8s.io/json``) appends the items one by one to an
    empty ``[]interface{}``.
    """
    capacity = 0
    while capacity < length:
        capacity = grown_capacity(capacity, capacity + 1)
    return capacity
