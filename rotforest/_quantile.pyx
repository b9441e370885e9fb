# Kernels of the quantile regression forests (quantile.py): each tree's leaves' training
# rows as compact lists, and the weighted quantiles of Meinshausen (2006) computed from
# them without the GIL.
#
# Training rows are named by their target's rank (0 .. n-1, ties by row order), so that
# a leaf's list, sorted, is in target order and a row's target is ys[rank].  A tree's
# lists: ``rows[row_base[t] + offsets[node_base[t] + node] : ... + node + 1]``, the
# ranks of the rows that the tree was grown with (positive weight) in that leaf, sorted;
# ``counts`` (the same positions) their multiplicities (bootstrap counts), or nothing
# when all are 1.
from libc.math cimport floor, ceil, rint, NAN, INFINITY
from libc.stdlib cimport malloc, calloc, free, qsort
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t

import numpy as np

ctypedef fused count_t:
    uint8_t
    uint16_t
    uint32_t

# interpolation methods, numpy's names
METHODS = {"linear": 0, "lower": 1, "higher": 2, "midpoint": 3, "nearest": 4}

# a copy boundary within this share of a copy of an integer is on it (the cumulative
# copies of a leaf of c rows add c shares of 1/c: 1/3 + 1/3 + 1/3 may not be 1.0)
cdef double TOL = 1e-9


def leaf_lists(const int64_t[::1] leaf, const double[::1] weight,
               const int64_t[::1] count, Py_ssize_t node_count):
    """One tree's lists: ``leaf[r]`` the leaf (node id) of the training row of rank r,
    ``weight[r]`` its weight in the tree (0: not grown with), ``count[r]`` its
    multiplicity.  Returns (offsets int32 of node_count + 1, rows int32, counts int64):
    the ranks of weighted rows grouped by leaf, ascending within a leaf (a counting
    sort)."""
    cdef Py_ssize_t n = leaf.shape[0], r, m = 0, k
    offsets_a = np.zeros(node_count + 1, dtype=np.int32)
    cdef int32_t[::1] offsets = offsets_a
    with nogil:
        for r in range(n):
            if weight[r] > 0:
                offsets[leaf[r] + 1] += 1
                m += 1
        for k in range(node_count):
            offsets[k + 1] += offsets[k]
    rows_a = np.empty(m, dtype=np.int32)
    counts_a = np.empty(m, dtype=np.int64)
    fill_a = np.array(offsets_a[:node_count], dtype=np.int64)
    cdef int32_t[::1] rows = rows_a
    cdef int64_t[::1] counts = counts_a
    cdef int64_t[::1] fill = fill_a
    with nogil:
        for r in range(n):
            if weight[r] > 0:
                k = fill[leaf[r]]
                rows[k] = <int32_t>r
                counts[k] = count[r]
                fill[leaf[r]] += 1
    return offsets_a, rows_a, counts_a


cdef int _cmp_int32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef inline double _lerp(double a, double b, double t) noexcept nogil:
    """numpy's _lerp, operation for operation."""
    cdef double d = b - a
    if t >= 0.5:
        return b - d * (1.0 - t)
    return a + d * t


cdef inline Py_ssize_t _item(const double* cum, Py_ssize_t m, double j,
                             double tol) noexcept nogil:
    """The item that holds copy j (an integer): the first whose cumulative copies
    exceed j (the last one when none do)."""
    cdef Py_ssize_t lo = 0, hi = m - 1, mid
    cdef double bound = j + tol
    if cum[hi] <= bound:
        return hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if cum[mid] > bound:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef double _quantile(const double* vals, const double* cum, Py_ssize_t m, double N,
                      double q, int method) noexcept nogil:
    """The quantile q of m sorted values holding cum[k] - cum[k-1] copies each (N in
    all), by numpy's rule for ``method`` on the sequence of copies."""
    cdef double h = (N - 1.0) * q, lo, hi, g, vi
    cdef double tol = TOL * (N if N > 1.0 else 1.0)
    if method == 0:             # linear
        if h >= N - 1.0:
            return vals[m - 1]
        lo = floor(h)
        g = h - lo
        return _lerp(vals[_item(cum, m, lo, tol)], vals[_item(cum, m, lo + 1.0, tol)], g)
    if method == 1:             # lower
        return vals[_item(cum, m, floor(h), tol)]
    if method == 2:             # higher
        return vals[_item(cum, m, ceil(h), tol)]
    if method == 3:             # midpoint
        vi = 0.5 * (floor(h) + ceil(h))
        g = 0.0 if vi == floor(vi) else 0.5
        if vi >= N - 1.0:
            return _lerp(vals[m - 1], vals[m - 1], g)
        lo = floor(vi)
        return _lerp(vals[_item(cum, m, lo, tol)], vals[_item(cum, m, lo + 1.0, tol)], g)
    if method == 4:
        return vals[_item(cum, m, rint(h), tol)]      # nearest (half to even)
    # 5: the weighted mean
    cdef double total = 0.0, prev = 0.0
    cdef Py_ssize_t k
    for k in range(m):
        total += vals[k] * (cum[k] - prev)
        prev = cum[k]
    return total / cum[m - 1]


cdef double _pit_distance(const double* vals, const double* cum, Py_ssize_t m, double N,
                          double y, int method, double unit0) noexcept nogil:
    """How far from 1/2 the levels lie whose quantile is y: max(t_lo - 1/2, 1/2 - t_hi,
    0) with t_lo the least level whose quantile reaches y and t_hi the greatest whose
    quantile does not pass it (by bisection: quantiles rise with the level).  Beyond the
    quantiles' range [q0, q1]: 1/2 plus the distance out in units of q1 - q0 + unit0.
    The interval of levels 1/2 -+ d (d <= 1/2), or [q0, q1] widened by (d - 1/2) units
    on both sides, then holds y exactly when d is at least this."""
    cdef double a, b, mid
    cdef int it
    cdef double q0 = _quantile(vals, cum, m, N, 0.0, method)
    cdef double q1 = _quantile(vals, cum, m, N, 1.0, method)
    if y < q0:
        return 0.5 + (q0 - y) / (q1 - q0 + unit0)
    if y > q1:
        return 0.5 + (y - q1) / (q1 - q0 + unit0)
    # t_lo: least level with quantile >= y
    a = 0.0
    b = 1.0
    if _quantile(vals, cum, m, N, 0.0, method) >= y:
        b = 0.0
    else:
        for it in range(60):
            mid = 0.5 * (a + b)
            if _quantile(vals, cum, m, N, mid, method) >= y:
                b = mid
            else:
                a = mid
    cdef double t_lo = b
    a = 0.0
    b = 1.0
    if _quantile(vals, cum, m, N, 1.0, method) <= y:
        a = 1.0
    else:
        for it in range(60):
            mid = 0.5 * (a + b)
            if _quantile(vals, cum, m, N, mid, method) <= y:
                a = mid
            else:
                b = mid
    cdef double t_hi = a
    if t_lo > 0.5:
        return t_lo - 0.5
    if t_hi < 0.5:
        return 0.5 - t_hi
    return 0.0


cdef void _rows_kernel(const int64_t[:, ::1] leaves, const int64_t[::1] node_base,
                       const int64_t[::1] row_base, const int32_t[::1] offsets,
                       const int32_t[::1] rows, const count_t[::1] counts, bint has_counts,
                       const double[::1] ys, const double[::1] sw, bint has_sw,
                       const int32_t[::1] oob_rank, bint oob,
                       const double[::1] quantiles, int method,
                       const double[::1] ytrue, bint pit, double unit0, bint normalise,
                       double[:, ::1] out, double* acc, int32_t* touched, double* vals,
                       double* cum) noexcept nogil:
    cdef Py_ssize_t n_rows = leaves.shape[0], n_trees = leaves.shape[1]
    cdef Py_ssize_t i, t, j, a, b, lo, hi, mid, m, k, n_q = quantiles.shape[0]
    cdef int32_t r, own
    cdef double S, cnt, inv, s, Nsum, N, scale, run, total
    cdef int64_t used
    cdef bint skip
    for i in range(n_rows):
        m = 0
        Nsum = 0.0
        total = 0.0
        used = 0
        own = oob_rank[i] if oob else -1
        for t in range(n_trees):
            a = row_base[t] + offsets[node_base[t] + leaves[i, t]]
            b = row_base[t] + offsets[node_base[t] + leaves[i, t] + 1]
            if b <= a:
                continue
            if oob:             # is the row in this leaf's list (in bag)?  bisection
                lo = a
                hi = b
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if rows[mid] < own:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < b and rows[lo] == own:
                    continue
            S = 0.0
            cnt = 0.0
            for j in range(a, b):
                s = counts[j] if has_counts else 1.0
                cnt += s
                if has_sw:
                    s *= sw[rows[j]]
                S += s
            if not S > 0:
                continue
            # normalised: each tree adds its leaf's weights scaled to 1 (Meinshausen);
            # else the copies pooled, each weighing its sample weight
            inv = 1.0 / S if normalise else 1.0
            total += 1.0 if normalise else S
            for j in range(a, b):
                r = rows[j]
                s = counts[j] if has_counts else 1.0
                if has_sw:
                    s *= sw[r]
                if acc[r] == 0.0:
                    touched[m] = r
                    m += 1
                acc[r] += s * inv
            Nsum += cnt
            used += 1
        if used == 0:
            for k in range(out.shape[1]):
                out[i, k] = NAN
            continue
        qsort(touched, m, sizeof(int32_t), _cmp_int32)
        N = Nsum                        # the copies: all the leaves' counts, pooled
        scale = N / total               # copies per unit of acc
        run = 0.0
        for j in range(m):
            r = touched[j]
            run += acc[r]
            cum[j] = run * scale
            vals[j] = ys[r]
            acc[r] = 0.0
        if pit:
            out[i, 0] = _pit_distance(vals, cum, m, N, ytrue[i], method, unit0)
        else:
            for k in range(n_q):
                out[i, k] = _quantile(vals, cum, m, N, quantiles[k], method)


def predict_rows(const int64_t[:, ::1] leaves, const int64_t[::1] node_base,
                 const int64_t[::1] row_base, const int32_t[::1] offsets,
                 const int32_t[::1] rows, counts, const double[::1] ys, sw,
                 oob_rank, const double[::1] quantiles, int method, ytrue=None,
                 double unit0=1.0, bint normalise=True):
    """The weighted quantiles (rows x quantiles), or with ``ytrue`` the distance of each
    target's levels from 1/2 (see _pit_distance; one column), of the rows whose leaves
    are ``leaves`` (rows x trees).  ``counts`` None: every multiplicity is 1; ``sw``
    None: no weights beyond the counts; ``oob_rank`` (the rows' own ranks, training
    rows): each row is predicted by the trees that did not grow with it; ``unit0``: see
    _pit_distance; ``normalise`` False: the leaves' copies pooled, not each tree's
    weights scaled to 1."""
    cdef Py_ssize_t n_train = ys.shape[0], n_rows = leaves.shape[0]
    cdef Py_ssize_t width = 1 if ytrue is not None else quantiles.shape[0]
    out_a = np.empty((n_rows, width))
    cdef double[:, ::1] out = out_a
    cdef const double[::1] sw_v = sw if sw is not None else ys
    cdef const int32_t[::1] oob_v = (oob_rank if oob_rank is not None
                                    else np.zeros(1, dtype=np.int32))
    cdef const double[::1] y_v = ytrue if ytrue is not None else ys
    cdef bint has_counts = counts is not None, has_sw = sw is not None
    cdef bint oob = oob_rank is not None, pit = ytrue is not None
    cdef double* acc = <double*>calloc(n_train + 1, sizeof(double))
    cdef int32_t* touched = <int32_t*>malloc((n_train + 1) * sizeof(int32_t))
    cdef double* vals = <double*>malloc((n_train + 1) * sizeof(double))
    cdef double* cum = <double*>malloc((n_train + 1) * sizeof(double))
    cdef const uint8_t[::1] c8
    cdef const uint16_t[::1] c16
    cdef const uint32_t[::1] c32
    if acc == NULL or touched == NULL or vals == NULL or cum == NULL:
        free(acc); free(touched); free(vals); free(cum)
        raise MemoryError()
    try:
        if counts is None or counts.dtype == np.uint8:
            c8 = counts if counts is not None else np.zeros(1, dtype=np.uint8)
            with nogil:
                _rows_kernel(leaves, node_base, row_base, offsets, rows, c8, has_counts,
                             ys, sw_v, has_sw, oob_v, oob, quantiles, method, y_v, pit, unit0,
                             normalise, out, acc, touched, vals, cum)
        elif counts.dtype == np.uint16:
            c16 = counts
            with nogil:
                _rows_kernel(leaves, node_base, row_base, offsets, rows, c16, has_counts,
                             ys, sw_v, has_sw, oob_v, oob, quantiles, method, y_v, pit, unit0,
                             normalise, out, acc, touched, vals, cum)
        else:
            c32 = counts
            with nogil:
                _rows_kernel(leaves, node_base, row_base, offsets, rows, c32, has_counts,
                             ys, sw_v, has_sw, oob_v, oob, quantiles, method, y_v, pit, unit0,
                             normalise, out, acc, touched, vals, cum)
    finally:
        free(acc); free(touched); free(vals); free(cum)
    return out_a
