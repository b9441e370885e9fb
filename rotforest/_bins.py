"""Binned features for the binned builder (``_hist.pyx``): when a forest grows on bins
(``max_bins``), the bins' thresholds, and every row's codes, made once per fit."""
import numbers
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.sparse import issparse

from rotforest import _hist

# "auto" grows on bins from this many rows on (benchmarks/bench_binned.py --crossover:
# neither kind of forest is slower there) for data of at most AUTO_FEATURES features
# (whose samples' records carry their codes); wider data, whose records carry their
# rows (the codes read from memory by row), from AUTO_ROWS * features / AUTO_FEATURES
# rows on (bench_binned.py --wide: at 200,000 rows binned fits took 0.80 of the exact
# ones at 100 features, 1.3 at 300, 1.9 at 1,000; at a million rows 0.60 at 100, 0.78
# at 300)
AUTO_ROWS = 200_000
AUTO_FEATURES = 64
# the rows sampled, at most, for each feature's thresholds (a fixed draw per size)
EDGE_SAMPLE = 200_000
# rows of codes per thread's share
_CHUNK = 65_536


def check_max_bins(max_bins):
    """max_bins as the forests take it: "auto", None, or an int from 2 to 255."""
    if max_bins is None or (isinstance(max_bins, str) and max_bins == "auto"):
        return
    if isinstance(max_bins, (bool, np.bool_)) or not isinstance(max_bins,
                                                                numbers.Integral):
        raise TypeError(f'max_bins must be "auto", None or an int; got {max_bins!r}')
    if not 2 <= max_bins <= 255:
        raise ValueError(f"max_bins must be from 2 to 255; got {max_bins}")


# resolve_max_bins' default categorical features: the estimator's is_categorical_
_FITTED = object()


def why_not_binned(forest, X, n_outputs, n_classes, max_bins=255, categorical=_FITTED):
    """Why the forest's trees cannot grow on bins (a sentence), or None when they can:
    the binned builder takes dense features (categorical ones of at most max_bins
    categories), the Gini, entropy, squared-error, Friedman and Poisson criteria,
    depth-first growth.  ``categorical``: the mask of the features the trees split on
    sets of (default: the estimator's is_categorical_)."""
    if issparse(X):
        return "X is sparse"
    if forest.criterion not in _hist.CRITERIA:
        return f"the criterion {forest.criterion!r} has no binned scan"
    if forest.max_leaf_nodes is not None:
        return "max_leaf_nodes grows best-first"
    if n_classes > 512:
        return "there are more than 512 classes (of all outputs together)"
    if n_outputs > 511:
        return "there are more than 511 outputs"
    mask = (getattr(forest, "is_categorical_", None) if categorical is _FITTED
            else categorical)
    for f in (() if mask is None else np.flatnonzero(mask)):
        if _levels(X[:, f]).size > max_bins:
            return (f"categorical feature {f} has more than {max_bins} categories (a bin "
                    "a category)")
    return None


def _levels(column):
    """A column's distinct values, NaN left out."""
    return np.unique(column[~np.isnan(column)])


def outputs_and_classes(target, n_values, regression):
    """The outputs of a fit's target and, for classification, their classes together
    (several outputs: their classes side by side in a bin's statistics; regression 1),
    as resolve_max_bins takes them."""
    n_outputs = 1 if target.ndim == 1 else target.shape[1]
    return n_outputs, 1 if regression else int(np.sum(n_values))


def resolve_max_bins(forest, X, n_outputs, n_classes, auto_rows=None,
                     categorical=_FITTED):
    """The bins the fit grows on (an int), or None for the exact builder; an explicit
    max_bins that cannot be honoured is refused.  ``auto_rows``: the rows from which
    "auto" bins (None: AUTO_ROWS, the forests'); ``categorical``: see
    why_not_binned."""
    max_bins = forest.max_bins
    if max_bins is None:
        return None
    if isinstance(max_bins, str):       # "auto"
        rows = AUTO_ROWS if auto_rows is None else auto_rows
        if X.shape[0] < rows * max(1.0, X.shape[1] / AUTO_FEATURES):
            return None
        return (255 if why_not_binned(forest, X, n_outputs, n_classes,
                                      categorical=categorical) is None else None)
    reason = why_not_binned(forest, X, n_outputs, n_classes, max_bins, categorical)
    if reason is not None:
        raise ValueError(f"max_bins={max_bins} cannot be honoured: {reason} (the binned "
                         "builder takes dense features, categorical ones of at most "
                         "max_bins categories, the gini, entropy, squared_error, "
                         "friedman_mse and poisson criteria and "
                         "max_leaf_nodes=None); use max_bins=None")
    return int(max_bins)


def _edge_rows(n):
    """The rows whose values set the thresholds: all, or a fixed draw of EDGE_SAMPLE."""
    if n <= EDGE_SAMPLE:
        return None
    return np.sort(np.random.RandomState(0).choice(n, EDGE_SAMPLE, replace=False))


def binned_features(X, max_bins, n_threads, categorical=None):
    """``(codes, edges, offsets, exact)``: each row's codes (uint8, n x p, row by row;
    255 a missing value), the features' thresholds (feature f's are
    ``edges[offsets[f]:offsets[f + 1]]``) and, per feature, whether each of its bins
    holds one value (uint8; its cuts need no refinement on X), read only.  The
    ``categorical`` features (a mask, or None) take their thresholds from every row,
    so that each category has a bin of its own (at most max_bins of them)."""
    n, p = X.shape
    rows = _edge_rows(n)
    sample = X if rows is None else X[rows]
    every = np.zeros(p, dtype=bool) if categorical is None else np.asarray(categorical,
                                                                          dtype=bool)

    def edges_of(j):
        edges, values = _hist.bin_edges(
            np.ascontiguousarray((X if every[j] else sample)[:, j]), max_bins, True)
        # (the distinct values are kept only where bins may hold one each)
        return edges, (values if values.size <= max_bins else None)

    # features in threads: numpy's sort, most of the work, runs without the GIL
    with ThreadPoolExecutor(max(1, min(n_threads, p))) as pool:
        found = list(pool.map(edges_of, range(p)) if n_threads > 1 and p > 1
                     else map(edges_of, range(p)))
        edges = [e for e, _ in found]
        offsets = np.zeros(p + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([e.size for e in edges])
        flat = np.concatenate(edges) if offsets[-1] else np.zeros(0)
        codes = np.empty((n, p), dtype=np.uint8)
        bounds = list(range(0, n, _CHUNK)) + [n]
        parts = list(zip(bounds[:-1], bounds[1:]))
        if n_threads > 1 and len(parts) > 1:
            list(pool.map(lambda ab: _hist.bin_codes(X, flat, offsets, codes, *ab), parts))
        else:
            for a, b in parts:
                _hist.bin_codes(X, flat, offsets, codes, a, b)
        exact = np.array([_one_value_bins(X[:, j], found[j][1], codes[:, j], max_bins)
                          for j in range(p)], dtype=np.uint8)
    for part in (codes, flat, offsets, exact):
        part.setflags(write=False)
    return codes, flat, offsets, exact


def _one_value_bins(column, values, codes, max_bins):
    """Whether every bin of a feature holds one value: at most max_bins distinct values
    in the sample (``values``, sorted: the edges are their midpoints; None: more than
    max_bins), and every row's value the one of its bin."""
    if values is None or values.size > max_bins:
        return False
    if values.size == 0:
        return bool(np.all(np.isnan(column)))
    present = codes != 255
    return bool(np.array_equal(values[codes[present]], column[present]))


def category_table(X, categorical, binned):
    """The binned builder's ``categories`` (see _hist.build_tree): ``(mask, offsets,
    codes)``, the code of bin b of categorical feature f at ``codes[offsets[f] + b]``
    (each of its bins holds one category: binned_features with ``categorical``)."""
    codes, edges, offsets, exact = binned[:4]
    mask = np.asarray(categorical, dtype=np.uint8)
    sizes = np.where(mask != 0, np.diff(offsets) + 1, 0)
    at = np.zeros(mask.size + 1, dtype=np.int64)
    at[1:] = np.cumsum(sizes)
    table = np.zeros(int(at[-1]), dtype=np.int32)
    for f in np.flatnonzero(mask):
        if not exact[f]:
            raise ValueError(f"categorical feature {f} has more categories than bins")
        levels = _levels(X[:, f])
        table[at[f]:at[f] + levels.size] = levels.astype(np.int32)
    for part in (mask, at, table):
        part.setflags(write=False)
    return mask, at, table
