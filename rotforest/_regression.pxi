# The scan of the regression criteria: a numeric target on the same lists.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Regression.  A node keeps the sums of w y, w y^2 and (Poisson) w y log y of its samples
# in place of class weights (see _accumulate); a scan needs only the running sums of w and
# w y over a feature's slice, the target being read from yv by sample index.  Missing
# values and monotonic constraints follow the rules of _scan_missing, with the children's
# means in place of the class-0 fractions.
# ----------------------------------------------------------------------------------------

cdef double _scan_squared(Builder* B, const key_t* L, int64_t s, int64_t e,
                          const double* tot, double wtot, int64_t* pos) noexcept nogil:
    """Squared error without missing values or constraints: the proxy
    sl^2/wl + sr^2/wr = num / den, the quotient formed only for cuts that pass the screen
    (as in the Gini kernels, see RF_SCREEN): the first of equal cuts wins."""
    cdef int64_t lo = s + B.min_samples_leaf, hi = e - B.min_samples_leaf, p
    cdef int rs = B.rshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask
    cdef const double* w = B.w
    cdef const double* yv = B.yv
    cdef double sl = 0.0, wl = 0.0, wi, wr, sr, st = tot[0], minw = B.min_weight_leaf
    cdef double best = -INFINITY, num, den, bound
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
                sr = st - sl
                num = sl * sl * wr + sr * sr * wl
                den = wl * wr
                bound = best * RF_SCREEN * den
                if (num > bound or bound < 1e-290) and num / den > best:
                    best = num / den
                    pos[0] = p + 1
    return best


cdef double _scan_reg(Builder* B, const key_t* L, int64_t s, int64_t e, int64_t nm,
                      const double* tot, double wtot, int64_t* pos, int64_t* ml,
                      int cst, double lower, double upper) noexcept nogil:
    """Every regression criterion, with the node's nm missing samples at the end of the
    slice and a monotonic constraint cst (0: none) on the children's means: candidates
    in scikit-learn's order, as in _scan_missing."""
    cdef int64_t enm = e - nm, msl = B.min_samples_leaf, q, p, pos1 = -1, pos2 = -1
    cdef int rs = B.rshift, crit = B.criterion
    cdef uint64_t im = B.imask
    cdef const double* yv = B.yv
    cdef double minw = B.min_weight_leaf, st = tot[0], sl = 0.0, wl = 0.0, sm = 0.0
    cdef double wm = 0.0, wi, proxy, best1 = -INFINITY, best2 = -INFINITY
    cdef key_t k
    if nm == 0 and cst == 0 and crit == CRIT_SQUARED:
        ml[0] = 0
        return _scan_squared(B, L, s, e, tot, wtot, pos)
    for q in range(enm, e):
        wi = _wt(B, L[q])
        sm += wi * yv[L[q] & im]
        wm += wi
    for q in range(s, enm):
        k = L[q]
        wi = _wt(B, k)
        sl += wi * yv[k & im]
        wl += wi
        if q + 1 == enm or ((L[q + 1] ^ k) >> rs) == 0:
            continue
        p = q + 1
        if (p - s >= msl and e - p >= msl and wl >= minw and wtot - wl >= minw
                and (cst == 0 or _monotonic_ok(sl, wl, st - sl, wtot - wl, cst,
                                               lower, upper))):
            proxy = _reg_proxy(crit, sl, wl, st - sl, wtot - wl)
            if proxy > best1:
                best1 = proxy
                pos1 = p
        if (nm > 0 and p - s + nm >= msl and enm - p >= msl and wl + wm >= minw
                and wtot - wl - wm >= minw
                and (cst == 0 or _monotonic_ok(sl + sm, wl + wm, st - sl - sm,
                                               wtot - wl - wm, cst, lower, upper))):
            proxy = _reg_proxy(crit, sl + sm, wl + wm, st - sl - sm, wtot - wl - wm)
            if proxy > best2:
                best2 = proxy
                pos2 = p
    if (enm - s >= msl and nm >= msl and wl >= minw and wtot - wl >= minw
            and (cst == 0 or _monotonic_ok(sl, wl, st - sl, wtot - wl, cst,
                                           lower, upper))):
        proxy = _reg_proxy(crit, sl, wl, st - sl, wtot - wl)
        if proxy > best1:
            best1 = proxy
            pos1 = enm
    if best2 > best1:
        pos[0] = pos2
        ml[0] = 1
        return best2
    pos[0] = pos1
    ml[0] = 0
    return best1
