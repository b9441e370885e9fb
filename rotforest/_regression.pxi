# The scan of the regression criteria: a numeric target on the same lists.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Regression.  A node keeps the sums of w y, w y^2 and (Poisson) w y log y of its samples
# in place of class weights (see _accumulate); the squared error's scan needs only the
# running sums of w and w y over a feature's slice, the target being read from yv by
# sample index.  Features with missing values in the node, constrained features and the
# Poisson criterion use _scan_missing, which keeps the same sums, with the children's
# means in place of the class-0 fractions.
# ----------------------------------------------------------------------------------------

cdef double _scan_poisson(Builder* B, const key_t* L, int64_t s, int64_t e,
                          const double* tot, double wtot, int64_t* pos) noexcept nogil:
    """The Poisson criterion on a feature without missing values in the node and without
    a constraint: _reg_proxy at every cut between distinct values, running sums of w and
    w y.  The first of equal cuts wins."""
    cdef int64_t lo = s + B.min_samples_leaf, hi = e - B.min_samples_leaf, p
    cdef int rs = B.rshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask
    cdef const double* w = B.w
    cdef const double* yv = B.yv
    cdef double sl = 0.0, wl = 0.0, wi, wr, st = tot[0], minw = B.min_weight_leaf
    cdef double best = -INFINITY, proxy
    cdef bint packed = B.packed
    cdef key_t k
    for p in range(s, hi):
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


cdef double _scan_regression(Builder* B, const key_t* L, int64_t s, int64_t e,
                             const double* tot, double wtot, double floor,
                             int64_t* pos) noexcept nogil:
    """A feature without missing values in the node and without a constraint.  Squared
    error (and Friedman's, which orders the cuts alike): the proxy sl^2/wl + sr^2/wr =
    num / den over the cuts between distinct values, the quotient formed only for cuts
    that pass the screen (as in the Gini kernels, see RF_SCREEN).  Only cuts beating
    floor (the node's best so far) matter: the first of the best of those is returned,
    else -inf (pos -1).  The left sums of w and w y are prefix sums within blocks of 8
    keys from s, plus a carry (_prefix8), as in the AVX-512 kernel used where the
    processor has it (rf_sqerr_avx512): both choose the same cut.  Poisson:
    _scan_poisson."""
    cdef int64_t lo = s + B.min_samples_leaf, hi = e - B.min_samples_leaf, p, p0, j, nb
    cdef int rs = B.rshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask
    cdef const double* w = B.w
    cdef const double* yv = B.yv
    cdef double sc = 0.0, wc = 0.0, wi, wl, wr, sl, sr, st = tot[0]
    cdef double minw = B.min_weight_leaf, best = floor, num, den, bound
    cdef double vy[8]
    cdef double vw[8]
    cdef int mode = (0 if wm == 1 else 1) if B.packed else 2
    cdef key_t k
    if B.criterion == CRIT_POISSON:
        return _scan_poisson(B, L, s, e, tot, wtot, pos)
    pos[0] = -1
    if hi <= s:
        return -INFINITY
    if B.use_avx512:
        rf_sqerr_avx512(L, s, hi, lo, rs, ws, wm, im, yv, w, mode, st, wtot, minw,
                        &best, pos)
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
