# Several outputs on bins.  Included by _hist.pyx (one compiled module).
#
# A record's payload is its weight and each output's class (int64) or target (double).
# A bin's statistics are each output's class weights side by side (output o's at
# out_off[o], S their total), or the weight and each output's sum of w*y (S = 1 +
# n_out); a node's are the class weights, or each output's sums of w*y and then of
# w*y*y (w*y*log y for Poisson).  Scores are the sums of the outputs' (the exact
# builder's), impurities their mean, the leaves' values per output.  Cuts are not
# refined inside bins, nor searched inside other bins, with several outputs: their
# thresholds are the bins' edges (the midpoints of neighbouring values where a
# feature's bins hold one value each).


cdef double _impurity_multi(const HB* B, const double* s, double w) noexcept nogil:
    """The mean of the outputs' impurities of a node whose statistics are s."""
    cdef int64_t o, k, m = B.n_out
    cdef double total = 0.0, acc, q
    for o in range(m):
        acc = 0.0
        if B.regression:
            q = s[o] / w
            if B.criterion == CRIT_POISSON_B:
                total += 0.0 if q <= EPSILON else (s[m + o] - s[o] * log(q)) / w
            else:
                total += s[m + o] / w - q * q
            continue
        for k in range(B.out_off[o], B.out_off[o + 1]):
            if B.criterion == CRIT_GINI_B:
                acc += s[k] * s[k]
            elif s[k] > 0.0:
                q = s[k] / w
                acc -= q * (log(q) / LN2)
        total += 1.0 - acc / (w * w) if B.criterion == CRIT_GINI_B else acc
    return total / m


cdef void _add_bin_multi(const HB* B, double* acc, double* wacc,
                         const double* h) noexcept nogil:
    """_add_bin for several outputs: a bin's statistics, and its weight (the weight of
    the first output's classes, or the first statistic)."""
    cdef int64_t k
    for k in range(1 if B.regression else 0, B.S):
        acc[k] += h[k]
    if B.regression:
        wacc[0] += h[0]
        return
    for k in range(B.out_off[1]):
        wacc[0] += h[k]


cdef void _fill_multi(HB* B, int64_t start, int64_t end, int64_t m,
                      double* h) noexcept nogil:
    """_fill_dense's sums for several outputs (the batch's slots at B.base, cleared)."""
    cdef int64_t t, q, o, S = B.S, n_out = B.n_out
    cdef const uint8_t* row
    cdef const uint8_t* pay
    cdef double* hb
    cdef double wt
    for t in range(start, end):
        row = _row(B, t)
        wt = _w(B, t)
        pay = B.cur + t * B.stride + B.hdr + 8
        for q in range(m):
            hb = h + (B.base[q] + row[B.batch[q]]) * S
            if B.regression:
                hb[0] += wt
                for o in range(n_out):
                    hb[1 + o] += wt * (<const double*> pay)[o]
            else:
                for o in range(n_out):
                    hb[B.out_off[o] + (<const int64_t*> pay)[o]] += wt


cdef int64_t _partition_multi(HB* B, const HEntry* e, const HSplit* sp, double* wl_out,
                              double* wr_out, int place) noexcept nogil:
    """_partition for several outputs (the binned cut, or a set's sides: no
    refinement)."""
    cdef uint8_t table[NBINS]
    cdef int64_t b
    for b in range(B.NS):
        B.left_stats[b] = 0.0
        B.right_stats[b] = 0.0
    if sp.is_set:
        for b in range(NBINS):
            table[b] = (sp.set_left[b >> 6] >> (b & 63)) & 1
    return rf_hpart_multi(B.buf[e.depth & 1], B.buf[(e.depth + 1) & 1], B.stride, B.hdr,
                          B.codes, B.p, e.start, e.end, sp.feature, sp.cut, sp.mleft,
                          table if sp.is_set else NULL, B.left_stats, B.right_stats,
                          wl_out, wr_out, B.compact, place, B.n_out, B.out_off,
                          B.regression, B.criterion == CRIT_POISSON_B)


cdef void _values_multi(const HB* B, double* out, const double* stats,
                        double w) noexcept nogil:
    """A node's values: per output its class fractions (zeros after its own classes)
    or its mean."""
    cdef int64_t o, k
    for o in range(B.n_out):
        if B.regression:
            out[o] = stats[o] / w
            continue
        for k in range(B.max_k):
            out[o * B.max_k + k] = (
                stats[B.out_off[o] + k] / w if k < B.out_off[o + 1] - B.out_off[o]
                else 0.0)


cdef void _record_multi(const HB* B, uint8_t* rec, int64_t i, double w, const int32_t* y,
                        const double* target) noexcept nogil:
    """Sample i's record with its outputs (row i of y or target, n_out entries)."""
    cdef int64_t o, k
    _fill_record(B, rec, i, w, 0.0)
    for o in range(B.n_out):
        if B.regression:
            (<double*> (rec + B.hdr + 8))[o] = target[i * B.n_out + o]
        else:
            (<int64_t*> (rec + B.hdr + 8))[o] = y[i * B.n_out + o]


cdef void _add_root_multi(const HB* B, double* stats, double w, int64_t i,
                          const int32_t* y, const double* target) noexcept nogil:
    """Sample i added to the root's statistics (in the nodes' units)."""
    cdef int64_t o, m = B.n_out
    cdef double v
    for o in range(m):
        if B.regression:
            v = target[i * m + o]
            stats[o] += w * v
            stats[m + o] += w * _second(B, v)
        else:
            stats[B.out_off[o] + y[i * m + o]] += w


cdef int _multi_setup(HB* B, int64_t n_out, output_classes) except -1:
    """B's several outputs (n_out of them; their classes, or None for regression)."""
    cdef int64_t o, k
    B.n_out = n_out
    B.max_k = 1
    if n_out == 1:
        return 0
    B.out_off = <int64_t*> malloc((n_out + 1) * sizeof(int64_t))
    if B.out_off == NULL:
        raise MemoryError("not enough memory to grow the tree")
    B.out_off[0] = 0
    for o in range(n_out):
        k = 1 if B.regression else int(output_classes[o])
        B.out_off[o + 1] = B.out_off[o] + k
        B.max_k = max(B.max_k, k)
    if B.regression:
        B.S = 1 + n_out
        B.NS = 2 * n_out
        B.nv = n_out
    else:
        B.S = B.K = B.NS = B.out_off[n_out]
        B.nv = n_out * B.max_k
    return 0
