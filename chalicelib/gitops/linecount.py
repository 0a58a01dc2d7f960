"""Added and deleted line counts of a file change, as ``git diff --numstat`` gives them.

git counts the lines outside a shortest edit script (Myers' algorithm, xdiff); Python's
``difflib`` finds a longer script on many inputs (it is not minimal, and junks popular
lines), so the counts would disagree with every git client.  This module computes the
edit distance with Myers' O((N+M)D) algorithm after git's own cheap reductions: the
common prefix and suffix, and lines that occur on one side only (they can never match),
are set aside first.  Only the length of the common part is needed, so no edit script
is kept and memory stays linear.  A change bigger than the edit budget is counted in
greedy steps, close to (not always equal to) git, which also stops being minimal there.
"""
from __future__ import annotations

# Edits searched for in one go: within this the count is exact.  A change needing more
# is counted in steps that each keep the furthest-reaching path found with STEP_BUDGET
# edits (git's xdiff also settles for the furthest-reaching path past its cost limit),
# which keeps a rewrite of a big file well under a second in Python.
EXACT_BUDGET = 512
STEP_BUDGET = 64


def split_lines(data: bytes) -> list[bytes]:
    """Lines as git sees them: split after each LF only (a CR is part of a line); a last
    line without LF is a line of its own, distinct from the same text with one."""
    lines = data.split(b"\n")
    tail = lines.pop()
    out = [line + b"\n" for line in lines]
    if tail:
        out.append(tail)
    return out


def _furthest_path(a: list[int], b: list[int], budget: int) -> tuple[int, int, int]:
    """Myers' forward search from the start: (edits, x, y) where it ends - at the end of
    both sequences with the fewest edits, or, when the budget runs out, at the point
    furthest along (largest x + y) reachable with ``budget`` edits."""
    n, m = len(a), len(b)
    offset = n + m + 1
    furthest = [0] * (2 * offset + 1)  # furthest x reached on each diagonal k = x - y
    best = (0, 0, 0)
    for d in range(min(n + m, budget) + 1):
        best = (d, 0, 0)
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and furthest[offset + k - 1] < furthest[offset + k + 1]):
                x = furthest[offset + k + 1]          # step down: an insertion
            else:
                x = furthest[offset + k - 1] + 1      # step right: a deletion
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            furthest[offset + k] = x
            if x >= n and y >= m:
                return d, x, y
            if x + y > best[1] + best[2]:
                best = (d, x, y)
    return best


def _common_length(a: list[int], b: list[int]) -> int:
    """The length of a longest common subsequence (exact within the edit budget)."""
    common, budget = 0, EXACT_BUDGET
    while a and b:
        edits, x, y = _furthest_path(a, b, budget)
        budget = STEP_BUDGET
        common += (x + y - edits) // 2
        a, b = a[x:], b[y:]
    return common


def count_changes(old: bytes, new: bytes) -> tuple[int, int]:
    """(added lines, deleted lines) from ``old`` to ``new``."""
    a, b = split_lines(old), split_lines(new)
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    a, b = a[start:end_a], b[start:end_b]
    if not a or not b:
        return len(b), len(a)
    # Lines of one side that the other never has are changes whatever the script is.
    numbers: dict[bytes, int] = {}
    in_a = {numbers.setdefault(line, len(numbers)) for line in a}
    in_b = {numbers.setdefault(line, len(numbers)) for line in b}
    kept_a = [numbers[line] for line in a if numbers[line] in in_b]
    kept_b = [numbers[line] for line in b if numbers[line] in in_a]
    common = _common_length(kept_a, kept_b)
    return len(b) - common, len(a) - common
