"""Go's ``sort.Sort`` (pattern-defeating quicksort) and ``sort.SliceStable``, step for step.

strategicpatch sorts lists with comparators that are not strict orders: ``sort.Sort`` with
``Less(i, j)`` = ``%v(i) <= %v(j)``, so items that print alike (``1``, ``"1"``, ``1.0``) end up
in whatever order Go's unstable sort leaves them, and that order decides which of them a
created patch adds or deletes; ``sort.SliceStable`` with a comparator that says "less" both
ways for an item it cannot place. Only Go's own algorithms reproduce those orders.
Go twins: ``pdqsort`` of sort/zsortinterface.go and ``stable_func`` of sort/zsortfunc.go
(Go 1.19 and later), each over a list and a ``less(x, y)`` on its items, sorting in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Less = Callable[[Any, Any], bool]

_MAX_INSERTION = 12
_SHORTEST_NINTHER = 50
_MAX_SWAPS = 4 * 3
_SHORTEST_SHIFTING = 50
_MAX_STEPS = 5
_UINT64 = (1 << 64) - 1

_INCREASING, _DECREASING, _UNKNOWN = "increasing", "decreasing", "unknown"


def go_sort(items: list, less: Less) -> None:
    """Sort ``items`` in place exactly as Go's ``sort.Sort`` would."""
    n = len(items)
    if n > 1:
        _Sorter(items, less).pdqsort(0, n, n.bit_length())


def slice_stable(items: list, less: Less) -> None:
    """Sort ``items`` in place exactly as Go's ``sort.SliceStable`` would."""

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    def insertion_sort(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and less(items[j], items[j - 1]):
                swap(j, j - 1)
                j -= 1

    def swap_range(a: int, b: int, n: int) -> None:
        for i in range(n):
            swap(a + i, b + i)

    def rotate(a: int, m: int, b: int) -> None:
        i, j = m - a, b - m
        while i != j:
            if i > j:
                swap_range(m - i, m, j)
                i -= j
            else:
                swap_range(m - i, m + j - i, i)
                j -= i
        swap_range(m - i, m, i)

    def sym_merge(a: int, m: int, b: int) -> None:
        if m - a == 1:
            i, j = m, b
            while i < j:
                h = (i + j) >> 1
                if less(items[h], items[a]):
                    i = h + 1
                else:
                    j = h
            for k in range(a, i - 1):
                swap(k, k + 1)
            return
        if b - m == 1:
            i, j = a, m
            while i < j:
                h = (i + j) >> 1
                if not less(items[m], items[h]):
                    i = h + 1
                else:
                    j = h
            for k in range(m, i, -1):
                swap(k, k - 1)
            return
        mid = (a + b) >> 1
        n = mid + m
        if m > mid:
            start, r = n - b, mid
        else:
            start, r = a, m
        p = n - 1
        while start < r:
            c = (start + r) >> 1
            if not less(items[p - c], items[c]):
                start = c + 1
            else:
                r = c
        end = n - start
        if start < m < end:
            rotate(start, m, end)
        if a < start < mid:
            sym_merge(a, start, mid)
        if mid < end < b:
            sym_merge(mid, end, b)

    n = len(items)
    block = 20
    a, b = 0, block
    while b <= n:
        insertion_sort(a, b)
        a, b = b, b + block
    insertion_sort(a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            sym_merge(a, a + block, b)
            a, b = b, b + 2 * block
        if a + block < n:
            sym_merge(a, a + block, n)
        block *= 2


class _Sorter:
    def __init__(self, items: list, less: Less) -> None:
        self.items = items
        self._less = less

    def less(self, i: int, j: int) -> bool:
        return self._less(self.items[i], self.items[j])

    def swap(self, i: int, j: int) -> None:
        items = self.items
        items[i], items[j] = items[j], items[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, lo, hi = a, 0, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(lo, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if was_balanced and was_partitioned and hint == _INCREASING and self.partial_insertion_sort(a, b):
                return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left_len, right_len = mid - a, b - mid
            balance_threshold = length // 8
            if left_len < right_len:
                was_balanced = left_len >= balance_threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right_len >= balance_threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(_MAX_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHORTEST_SHIFTING:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        random = length
        modulus = 1 << length.bit_length()
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            random ^= (random << 13) & _UINT64
            random ^= random >> 7
            random ^= (random << 17) & _UINT64
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, str]:
        length = b - a
        swaps = [0]
        i, j, k = a + length // 4 * 1, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= _SHORTEST_NINTHER:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == _MAX_SWAPS:
            return j, _DECREASING
        return j, _UNKNOWN

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1
