"""Sparse X for the builder: the stored entries of each column with their dense ranks.

A scipy sparse matrix (or array) reaches the builder column by column
(``sparse_columns``): the rows of its stored entries, their dense ranks (those
``_builder.dense_ranks`` gives the dense form of X: the number of distinct values of the
column below the entry's, missing values last as one value), the rank of 0.0 (every entry
not stored), each column's values by rank (the thresholds are read there) and which
columns hold a stored NaN.  Memory and time follow the stored entries, not the cells.
"""

import numpy as np
import scipy.sparse as sp

__all__ = ["canonical_csc", "canonical_csr", "sparse_columns"]


def canonical_csc(X):
    """X (a scipy sparse matrix or array of float64, already validated) as a CSC matrix
    of its own, without duplicates (summed, as scipy reads them) or stored zeros, rows
    increasing within each column.  The caller's matrix is not changed."""
    X = sp.csc_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    X.eliminate_zeros()
    return X      # (its index arrays of one dtype, as scipy keeps them: sparse_columns
                  # converts)


def few_entries(X, per_column, share=0.0):
    """Whether a dense X stores few values, as a sparse matrix would (those other than
    0.0, NaN among them): at most ``per_column`` a column on average, or at most
    ``share`` of its cells."""
    if X.size == 0:
        return False
    stored = np.count_nonzero(X)
    return stored <= per_column * X.shape[1] or stored <= share * X.size


class SparseColumns(tuple):
    """sparse_columns' result: its eight arrays, as a tuple.  ``checked``: the
    (n_samples, n_features) for which the builder has checked every entry, kept only
    while all the arrays are read-only (a forest's, shared by its trees: checked once)."""


def canonical_csr(X):
    """X (a scipy sparse matrix or array) as a CSR matrix of float64 without duplicates,
    its indices sorted (the form the trees walk), copied only when it is not one."""
    X = sp.csr_matrix(X)
    if X.dtype != np.float64:
        X = X.astype(np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def sparse_columns(X):
    """The builder's view of a sparse X (``canonical_csc``'s output): a tuple of
    ``indptr`` (int64, n_features + 1), ``rows`` (int32, increasing within a column),
    ``ranks`` (uint32, one per stored entry), ``zero_rank`` (uint32 per column), the values by
    rank ``values`` (float64) from ``offsets`` (int64, n_features + 1), the highest rank
    ``top`` (uint64 per column) and ``has_nan`` (uint8 per column)."""
    n, F = X.shape
    counts = np.diff(X.indptr)
    nnz = X.indices.shape[0]
    column = np.repeat(np.arange(F, dtype=np.int64), counts)
    data = X.data
    order = np.lexsort((data, column))        # by column, then value (NaN last)
    value = data[order]
    nan = np.isnan(value)
    new = np.ones(nnz, dtype=bool)            # the first entry of each distinct value
    if nnz > 1:
        same = (value[1:] == value[:-1]) | (nan[1:] & nan[:-1])
        new[1:] = ~same | (column[1:] != column[:-1])
    distinct = np.cumsum(new) - 1             # over all columns
    first = np.zeros(F, dtype=np.int64)       # each column's first distinct index
    starts = X.indptr[:-1][counts > 0]
    first[counts > 0] = distinct[starts]
    local = distinct - first[column]          # among the column's non-zero values
    has_zero = counts < n
    negative = value < 0.0
    # (a column without zeros, all negative, would put 0.0 beyond its highest rank:
    # clamped, no sample reads it)
    zero_rank = np.bincount(column[new & negative], minlength=F)
    rank_sorted = local + (has_zero[column] & ~negative)
    ranks = np.empty(nnz, dtype=np.uint32)
    ranks[order] = rank_sorted
    n_values = np.bincount(column[new], minlength=F) + has_zero
    top = (np.maximum(n_values, 1) - 1).astype(np.uint64)
    zero_rank = np.minimum(zero_rank, top).astype(np.uint32)
    offsets = np.zeros(F + 1, dtype=np.int64)
    np.cumsum(top.astype(np.int64) + 1, out=offsets[1:])
    values = np.zeros(offsets[F], dtype=np.float64)   # 0.0 at each zero rank
    values[offsets[column[new]] + rank_sorted[new]] = value[new]
    has_nan = (np.bincount(column[nan], minlength=F) > 0).astype(np.uint8)
    return SparseColumns((np.ascontiguousarray(X.indptr, dtype=np.int64),
                          np.ascontiguousarray(X.indices, dtype=np.int32), ranks,
                          zero_rank, values, offsets, top, has_nan))
