"""The quantile forests' leaves when they keep only some of their training rows
(``max_samples_leaf``, quantile-forest's parameter) and, with one row a leaf, the
monotonic constraints that every quantile then follows: each leaf's value is clipped to
bounds that order the leaves along every constrained feature, and the forest's
quantiles of the trees' values (one a tree) follow the constraints too, as order
statistics of monotone functions do."""
import math
from numbers import Integral, Real

import numpy as np

_SUBSAMPLE_STREAM = 0x51F7        # the leaves' subsamples' own generator stream


def resolve_max_samples_leaf(value, n_samples):
    """The most rows a leaf keeps (None: all): an int >= 1, or a float in (0, 1] times
    the training rows (rounded up), as quantile-forest reads it."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError("max_samples_leaf must be None, an int >= 1 or a float in "
                         f"(0, 1]; got {value!r}")
    if isinstance(value, Integral):
        if value < 1:
            raise ValueError(f"max_samples_leaf must be an int >= 1; got {value!r}")
        return int(value)
    if not 0 < value <= 1:
        raise ValueError(f"max_samples_leaf as a float must be in (0, 1]; got {value!r}")
    return max(1, math.ceil(value * n_samples))


def subsample_leaves(offsets, rows, counts, k, seed):
    """One tree's leaf lists (see _quantile.leaf_lists) keeping at most k copies in each
    leaf (a row of multiplicity c is c copies), drawn without replacement from the
    generator of ``seed``: the same lists (offsets, rows, counts) of what is kept."""
    sizes = np.diff(offsets)
    m = rows.size
    if m == 0 or sizes.max(initial=0) <= k and counts.max(initial=0) <= 1:
        return offsets, rows, counts
    node_of = np.repeat(np.arange(sizes.size), sizes)
    copy_of = np.repeat(np.arange(m), counts)                   # entry of every copy
    node = node_of[copy_of]
    rng = np.random.default_rng([int(seed), _SUBSAMPLE_STREAM])
    order = np.lexsort((rng.random(copy_of.size), node))
    sorted_node = node[order]
    position = np.arange(order.size) - np.searchsorted(sorted_node, sorted_node)
    kept = np.bincount(copy_of[order[position < k]], minlength=m)
    keep = kept > 0
    new_sizes = np.bincount(node_of[keep], minlength=sizes.size)
    new_offsets = np.concatenate([[0], np.cumsum(new_sizes)]).astype(np.int32)
    return new_offsets, rows[keep], kept[keep].astype(counts.dtype)


def monotone_bounds(tree, cst):
    """The interval of values each leaf of ``tree`` may take so that the tree's values
    follow ``cst`` (1 increasing, -1 decreasing, 0 free, per feature): at each split on
    a constrained feature the children's ranges meet at the mean of their means, held
    within the node's own range.  Returns (low, high), one per node."""
    t = tree.tree_
    value = t.value[:, 0, 0]
    low = np.full(t.node_count, -np.inf)
    high = np.full(t.node_count, np.inf)
    stack = [0]
    while stack:
        node = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:
            continue
        lo, hi = low[node], high[node]
        low[left], high[left], low[right], high[right] = lo, hi, lo, hi
        sign = cst[t.feature[node]]
        if sign != 0:
            mid = min(max((value[left] + value[right]) / 2, lo), hi)
            if sign > 0:
                high[left], low[right] = mid, mid
            else:
                low[left], high[right] = mid, mid
        stack.extend((left, right))
    return low, high


def clipped_values(lists, trees, cst):
    """With one row a leaf: every (tree, leaf) entry's target clipped to its leaf's
    bounds (see monotone_bounds), as arrays parallel to ``lists.rows``."""
    values = lists.ys[lists.rows]
    for t, tree in enumerate(trees):
        low, high = monotone_bounds(tree, cst)
        a, b = lists.row_base[t], lists.row_base[t + 1]
        base = lists.node_base[t]
        sizes = np.diff(lists.offsets[base:base + tree.tree_.node_count + 1])
        node = np.repeat(np.arange(sizes.size), sizes)
        values[a:b] = np.clip(values[a:b], low[node], high[node])
    return values
