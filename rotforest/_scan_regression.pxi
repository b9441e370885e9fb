# The scan of the regression criteria: a numeric target on the same lists.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Regression.  A node keeps the sums of w y, w y^2 and (Poisson) w y log y of its samples
# in place of class weights (see _accumulate); the squared error's scan needs only the
# running sums of w and w y over a feature's slice, the target being read from yv by
# sample index; missing samples are carried into the left sums for the cuts that send
# them left.  Constrained features, and the Poisson criterion's features with missing
# values, use _scan_reference, which keeps the same sums, with the children's means in
# place of the class-0 fractions.
# ----------------------------------------------------------------------------------------

cdef double _scan_poisson(Builder* B, const key_t* L, int64_t s, int64_t e,
                          const double* tot, double wtot, int64_t* pos) noexcept nogil:
    """The Poisson criterion on a feature without missing values in the node and without
    a constraint: _reg_proxy at every cut between distinct values, running sums of w and
    w y.  A child whose targets are all zero is refused exactly: the left one by its sum
    (of terms >= 0, zero only when all are), the right one by ending the scan before
    the last positive w y (the node total less the left sum would round to a leftover
    above zero there).  The first of equal cuts wins."""
    cdef int64_t lo = s + B.par.min_samples_leaf, hi = e - B.par.min_samples_leaf, p, last
    cdef int rs = B.key.rshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask, im = B.key.imask
    cdef const double* w = B.data.w
    cdef const double* yv = B.data.yv
    cdef double sl = 0.0, wl = 0.0, wi, wr, st = tot[0], minw = B.par.min_weight_leaf
    cdef double best = -INFINITY, proxy
    cdef bint packed = B.key.packed
    cdef key_t k
    last = e - 1
    while last >= s and _wt(B, L[last]) * yv[L[last] & im] <= 0.0:
        last -= 1
    for p in range(s, min(hi, last)):
        k = L[p]
        if packed:
            wi = <double> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        sl += wi * yv[k & im]
        wl += wi
        if ((L[p + 1] ^ k) >> rs) != 0 and p + 1 >= lo:
            wr = wtot - wl
            if wl >= minw and wr >= minw:
                proxy = _reg_proxy(CRIT_POISSON, sl, wl, st - sl, wr)
                if proxy > best:
                    best = proxy
                    pos[0] = p + 1
    return best


cdef inline void _prefix8(double* v, double carry) noexcept nogil:
    """Inclusive prefix sum of v[0:8] plus carry, in the AVX-512 kernel's order
    (rf_prefix_sum8_pd): lane j adds lane j - 1, then j - 2, then j - 4 (the old values:
    lanes updated from the top), then the carry."""
    cdef int j
    for j in range(7, 0, -1):
        v[j] = v[j] + v[j - 1]
    for j in range(7, 1, -1):
        v[j] = v[j] + v[j - 2]
    for j in range(7, 3, -1):
        v[j] = v[j] + v[j - 4]
    for j in range(8):
        v[j] = v[j] + carry


cdef double _sqerr_cuts(Builder* B, const key_t* L, int64_t s, int64_t hi, int64_t lo,
                        double st, double wtot, double sc0, double wc0, double floor,
                        int64_t* pos) noexcept nogil:
    """The squared-error scan of one run of cuts: the left child holds L[s:c) and the
    sums sc0 (of w y) and wc0 (of w) carried in (the missing samples when they go left),
    the right one the rest of the node (sums st, wtot); the cuts c = p + 1 for p in
    [s, hi) between distinct values, scored when c is in [lo, hi].  Squared error (and
    Friedman's, which orders the cuts alike): the proxy sl^2/wl + sr^2/wr = num / den,
    the quotient formed only for cuts that pass the screen (as in the Gini kernels, see
    RF_SCREEN).  Only cuts beating floor (the node's best so far) matter: the first of
    the best of those is returned, else -inf (pos -1).  The left sums of w and w y are
    prefix sums within blocks of 8 keys from s, plus a carry (_prefix8), as in the
    AVX-512 kernel used where the processor has it (rf_sqerr_avx512): both choose the
    same cut."""
    cdef int64_t p, p0, j, nb
    cdef int rs = B.key.rshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask, im = B.key.imask
    cdef const double* w = B.data.w
    cdef const double* yv = B.data.yv
    cdef double sc = sc0, wc = wc0, wi, wl, wr, sl, sr
    cdef double minw = B.par.min_weight_leaf, best = floor, num, den, bound
    cdef double vy[8]
    cdef double vw[8]
    cdef int mode = (0 if wm == 1 else 1) if B.key.packed else 2
    cdef key_t k
    pos[0] = -1
    if hi <= s or lo > hi:
        return -INFINITY
    if B.par.use_avx512:
        rf_sqerr_avx512(L, s, hi, lo, rs, ws, wm, im, yv, w, mode, st, wtot, minw,
                        sc0, wc0, &best, pos)
        return best if pos[0] >= 0 else -INFINITY
    for p0 in range(s, hi, 8):
        nb = min(8, hi - p0)
        for j in range(8):
            if j < nb:
                k = L[p0 + j]
                if mode == 2:
                    wi = w[k & im]
                else:
                    wi = <double> ((k >> ws) & wm)
                vy[j] = wi * yv[k & im]
                vw[j] = wi
            else:
                vy[j] = 0.0
                vw[j] = 0.0
        _prefix8(vy, sc)
        sc = vy[7]
        if mode == 2:
            _prefix8(vw, wc)
            wc = vw[7]
        for j in range(nb):
            p = p0 + j
            if mode != 2:
                wc += vw[j]               # exact integers: any order
            if ((L[p + 1] ^ L[p]) >> rs) == 0 or p + 1 < lo:
                continue
            wl = vw[j] if mode == 2 else wc
            wr = wtot - wl
            # (wr > 0: real weights of very different sizes can round the right side's
            # weight to zero or below, a cut that is no cut)
            if wl >= minw and wr >= minw and wr > 0.0:
                sl = vy[j]
                sr = st - sl
                num = sl * sl * wr + sr * sr * wl
                den = wl * wr
                bound = best * RF_SCREEN * den
                if (num > bound or bound < 1e-290) and num / den > best:
                    best = num / den
                    pos[0] = p + 1
    return best if pos[0] >= 0 else -INFINITY


cdef double _scan_regression(Builder* B, const key_t* L, int64_t s, int64_t e,
                             int64_t nm, const double* tot, double wtot, double floor,
                             int64_t* pos, int64_t* ml) noexcept nogil:
    """A feature without a constraint, nm of its samples missing in the node (at the
    end of L[s:e)).  Squared error and Friedman's: the cuts of _sqerr_cuts beating floor
    (the node's best so far), else -inf; with missing samples, the two runs of
    _missing_runs, their sums of w and w y carried in for the second.  Poisson:
    _scan_poisson, or _scan_reference with missing samples."""
    cdef int64_t q, first
    cdef int64_t runs[4]
    cdef double best, sm = 0.0, wmiss = 0.0, wi
    ml[0] = 0
    if B.par.criterion == CRIT_POISSON:
        if nm > 0:
            return _scan_reference(B, L, s, e, nm, tot, wtot, pos, ml)
        return _scan_poisson(B, L, s, e, tot, wtot, pos)
    _missing_runs(B, s, e, nm, runs)
    best = _sqerr_cuts(B, L, s, runs[0], runs[1], tot[0], wtot, 0.0, 0.0, floor, pos)
    if nm == 0:
        return best
    first = pos[0]
    for q in range(e - nm, e):
        wi = _wt(B, L[q])
        sm += wi * B.data.yv[L[q] & B.key.imask]
        wmiss += wi
    return _missing_pick(best, first,
                         _sqerr_cuts(B, L, s, runs[2], runs[3], tot[0], wtot, sm, wmiss,
                                     max(floor, best), pos),
                         pos, ml)
