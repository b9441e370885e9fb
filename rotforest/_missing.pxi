# Scans with missing values and monotonic constraints, random splits.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Missing values.  A feature's missing samples share its highest rank, so they sit at the
# end of each of its slices: [s, e - nm) holds the present values in order, [e - nm, e) the
# missing ones.  Candidates are scored as scikit-learn scores them, in its order, ties
# going to the first: every cut between distinct present values with the missing samples
# on the right, then "all present left, all missing right", then every cut with the
# missing samples on the left.  The proxies are those of the kernels above, so features
# with and without missing values compare in one node.  (Two classes with Gini: the
# missing samples are handled by _scan_gini_binary itself; more classes with Gini and
# integer weights by two runs of the multiclass scan, _scan_gini_multi_missing below;
# entropy by two runs of its scan, _scan_entropy_missing; the squared error by two runs of
# its block scan, _scan_regression.)
# ----------------------------------------------------------------------------------------

cdef inline int64_t _count_missing(const Builder* B, const key_t* L, int64_t s, int64_t e,
                                   uint64_t nan_rank) noexcept nogil:
    cdef int64_t a = s, b = e, m
    cdef int rs = B.key.rshift
    while a < b:
        m = (a + b) >> 1
        if (L[m] >> rs) >= nan_rank:
            b = m
        else:
            a = m + 1
    return e - a


cdef inline int64_t _missing_tail(const Builder* B, const key_t* L, int64_t s, int64_t e,
                                  uint64_t nan_rank, int64_t* m1, int64_t* mw) noexcept nogil:
    """The number of missing samples at the end of L[s:e) and, with integer weights in the
    keys, their class-1 weight and weight (else 0)."""
    cdef int64_t nm, q, wi
    cdef key_t k
    if B.par.use_avx512 and B.key.packed:
        return rf_missing_tail_avx512(L, s, e, nan_rank, B.key.rshift, B.key.cshift,
                                      B.key.wshift, B.key.wmask, m1, mw)
    nm = _count_missing(B, L, s, e, nan_rank)
    m1[0] = 0
    mw[0] = 0
    if B.key.packed:
        for q in range(e - nm, e):
            k = L[q]
            wi = <int64_t> ((k >> B.key.wshift) & B.key.wmask)
            m1[0] += wi & -(<int64_t> ((k >> B.key.cshift) & 1))
            mw[0] += wi
    return nm


cdef inline void _gini2_score(double a1, double aw, double dt1, double dwt, double minw,
                              int64_t c, double* best, int64_t* pos) noexcept nogil:
    """Two-class Gini proxy of the cut c whose left child holds weight aw, a1 of it of
    class 1: (l1^2/wl + r1^2/wr) = num / den; the first of equals kept.  The quotient is
    only formed for cuts that pass the screen (see RF_SCREEN), as in the AVX-512 kernel."""
    cdef double rw = dwt - aw, r1, num, den, bound
    if aw >= minw and rw >= minw:
        r1 = dt1 - a1
        num = a1 * a1 * rw + r1 * r1 * aw
        den = aw * rw
        # the screen's bound assumes that its product does not underflow: below 1e-290
        # (tiny real weights) the quotient is always formed
        bound = best[0] * RF_SCREEN * den
        if (num > bound or bound < 1e-290) and num / den > best[0]:
            best[0] = num / den
            pos[0] = c


cdef double _scan_gini_binary(Builder* B, const key_t* L, int64_t s, int64_t e, int64_t nm,
                              const double* tot, double wtot, double floor, int64_t* pos,
                              int64_t* ml, acc_t zero, int64_t m1i, int64_t mwi) noexcept nogil:
    # For two classes, (l0^2 + l1^2)/wl + (r0^2 + r1^2)/wr equals a constant plus
    # 2 (l1^2/wl + r1^2/wr): the scan maximises the latter.  The last nm samples of the
    # slice are missing the feature; one pass over the present ones [s, enm) scores each
    # cut c with them right (c - s >= msl, e - c >= msl) and, when nm > 0, left
    # (c - s + nm >= msl, enm - c >= msl); then "present left, missing right".  The
    # counters are exact integers when the weights are.  Only cuts whose proxy exceeds
    # floor (the best proxy of the node's features scanned before) can win the node, so
    # the best cut is searched among those alone (-inf and pos -1 when there is none):
    # most cuts then fail the kernels' screens and are never divided.  With integer
    # weights the missing samples' class-1 weight and weight come in (m1i, mwi) (see
    # _missing_tail); otherwise they are summed here.
    cdef int64_t enm = e - nm, msl = B.par.min_samples_leaf, p, pos1 = -1, pos2 = -1
    cdef int64_t lo1 = s + msl, hi1 = min(enm - 1, e - msl), lo2 = s + msl - nm
    cdef int64_t hi2 = enm - msl if nm > 0 else lo2 - 1     # empty without missing samples
    cdef int64_t hi = max(hi1, hi2), start = s
    cdef int rs = B.key.rshift, cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask, im = B.key.imask
    cdef const double* w = B.data.w
    cdef acc_t wi, m1 = 0, mw = 0, l1 = 0, wl = 0
    cdef double minw = B.par.min_weight_leaf, dt1 = tot[1], dwt = wtot
    cdef double best1 = floor, best2 = floor
    cdef key_t k
    if acc_t is int64_t:
        m1 = m1i
        mw = mwi
        if B.par.use_avx512 and minw == 0.0 and hi > s:
            rf_gini_binary_avx512(L, s, hi, lo1, hi1, lo2, hi2, cs, rs, ws, wm, dt1, dwt,
                                  <double> m1, <double> mw, &best1, &pos1, &best2, &pos2)
            start = hi                 # every cut scanned
    else:
        for p in range(enm, e):
            wi = w[L[p] & im]
            m1 += wi * <double> ((L[p] >> cs) & 1)
            mw += wi
    for p in range(start, hi):
        k = L[p]
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
            l1 += wi & -(<int64_t> ((k >> cs) & 1))
        else:
            wi = w[k & im]
            l1 += wi * <double> ((k >> cs) & 1)
        wl += wi
        if ((L[p + 1] ^ k) >> rs) == 0:
            continue
        if lo1 <= p + 1 <= hi1:
            _gini2_score(<double> l1, <double> wl, dt1, dwt, minw, p + 1, &best1, &pos1)
        if lo2 <= p + 1 <= hi2:
            _gini2_score(<double> l1 + <double> m1, <double> wl + <double> mw, dt1, dwt,
                         minw, p + 1, &best2, &pos2)
    if nm >= msl and enm - s >= msl:         # all present values left, missing ones right
        _gini2_score(dt1 - <double> m1, dwt - <double> mw, dt1, dwt, minw, enm,
                     &best1, &pos1)
    if best2 > best1:
        pos[0] = pos2
        ml[0] = 1
        return best2
    pos[0] = pos1
    ml[0] = 0
    return best1 if pos1 >= 0 else -INFINITY


cdef inline double _proxy_moved(Builder* B, const double* cl, const double* cm, double wl,
                                const double* tot, double wtot) noexcept nogil:
    """Proxy of the split whose left child holds the counts cl (plus cm when given).
    Two classes with Gini: the two-class kernel's proxy (l1^2/wl + r1^2/wr, see
    _gini2_score), so that its features and the others compare in one node."""
    cdef int64_t c
    cdef double* a = B.work.cr
    cdef double* b = B.work.fr
    cdef double wr, a1, r1
    if B.par.criterion == CRIT_GINI and B.data.n_classes == 2:
        a1 = cl[1] + (cm[1] if cm != NULL else 0.0)
        r1 = tot[1] - a1
        wr = wtot - wl
        return (a1 * a1 * wr + r1 * r1 * wl) / (wl * wr)
    if cm != NULL:
        for c in range(B.data.n_classes):
            a[c] = cl[c] + cm[c]
    else:
        for c in range(B.data.n_classes):
            a[c] = cl[c]
    for c in range(B.data.n_classes):
        b[c] = tot[c] - a[c]
    wr = wtot - wl
    return _proxy_counts(B, a, b, wl, wr)


cdef inline bint _values_ok(double vl, double vr, int cst, double lower,
                            double upper) noexcept nogil:
    """Whether children of values vl / vr (class-0 fractions, means or medians) keep the
    constraint cst and the node's bounds (the test scikit-learn applies)."""
    return (vl >= lower and vr >= lower and vl <= upper and vr <= upper
            and (vl - vr) * cst <= 0.0)


cdef inline bint _monotonic_ok(double l0, double wl, double r0, double wr, int cst,
                               double lower, double upper) noexcept nogil:
    """_values_ok for children whose class-0 weights (or sums of w y) are l0 / r0 and
    weights wl / wr (in scikit-learn's arithmetic)."""
    return _values_ok(l0 / wl, r0 / wr, cst, lower, upper)


cdef double _scan_reference(Builder* B, const key_t* L, int64_t s, int64_t e, int64_t nm,
                          const double* tot, double wtot, int64_t* pos,
                          int64_t* ml, int cst=0, double lower=0.0,
                          double upper=0.0) noexcept nogil:
    """The reference scan, for every criterion, with or without missing values (nm of
    them at the end of L[s:e)): counts in doubles, the proxy of _proxy_counts at every
    cut, O(classes) per cut; with a numeric target, the sums of _accumulate in place of
    the counts.  A criterion without a scan of its own takes this one.  (The fast scans
    compute the same proxies in other arithmetic: among cuts of equal gain, rounding can
    make them choose another than this scan does.)  With ``cst``
    (a monotonic constraint: two classes, or a numeric target) only cuts that keep it and
    the node's bounds are candidates; it then serves features without missing values
    too.  The Poisson criterion's features with missing values go through here too
    (see _scan_regression)."""
    cdef int64_t K = B.data.n_classes, enm = e - nm, msl = B.par.min_samples_leaf, q, p, c
    cdef int64_t pos1 = -1, pos2 = -1
    cdef int rs = B.key.rshift
    cdef double* cl = B.work.cl
    cdef double* cm = B.work.fl
    cdef double minw = B.par.min_weight_leaf, wl = 0.0, wm = 0.0, wi, proxy
    cdef double best1 = -INFINITY, best2 = -INFINITY
    cdef key_t k
    for c in range(K):
        cl[c] = 0.0
        cm[c] = 0.0
    for q in range(enm, e):
        wi = _wt(B, L[q])
        _accumulate(B, L[q], wi, cm)
        wm += wi
    for q in range(s, enm):
        k = L[q]
        wi = _wt(B, k)
        _accumulate(B, k, wi, cl)
        wl += wi
        if q + 1 == enm or ((L[q + 1] ^ k) >> rs) == 0:
            continue
        p = q + 1
        if (p - s >= msl and e - p >= msl and wl >= minw and wtot - wl >= minw
                and (cst == 0 or _monotonic_ok(cl[0], wl, tot[0] - cl[0], wtot - wl, cst,
                                               lower, upper))):
            proxy = _proxy_moved(B, cl, NULL, wl, tot, wtot)
            if proxy > best1:
                best1 = proxy
                pos1 = p
        if (nm > 0 and p - s + nm >= msl and enm - p >= msl and wl + wm >= minw
                and wtot - wl - wm >= minw
                and (cst == 0 or _monotonic_ok(cl[0] + cm[0], wl + wm,
                                               tot[0] - cl[0] - cm[0], wtot - wl - wm,
                                               cst, lower, upper))):
            proxy = _proxy_moved(B, cl, cm, wl + wm, tot, wtot)
            if proxy > best2:
                best2 = proxy
                pos2 = p
    if (enm - s >= msl and nm >= msl and wl >= minw and wtot - wl >= minw
            and (cst == 0 or _monotonic_ok(cl[0], wl, tot[0] - cl[0], wtot - wl, cst,
                                           lower, upper))):
        proxy = _proxy_moved(B, cl, NULL, wl, tot, wtot)
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


cdef double _random_split(Builder* B, const key_t* L, int64_t f, int64_t s, int64_t e,
                          int64_t nm, const double* tot, double wtot, int64_t* pos,
                          double* thr, int64_t* ml, double lower,
                          double upper) noexcept nogil:
    """Extremely randomised split: one uniform threshold between the node's extremes of
    the present values; missing samples, if any, go to a side drawn at random."""
    cdef const double* xf = B.data.X + f * B.data.xcs
    cdef uint64_t im = B.key.imask
    cdef int64_t enm = e - nm, rs = B.data.xrs
    cdef double lo_v = xf[<int64_t> (L[s] & im) * rs], hi_v = xf[<int64_t> (L[enm - 1] & im) * rs]
    cdef double t = lo_v + _rand_uniform(&B.rng) * (hi_v - lo_v)
    cdef int64_t a, b, m, p, c, n_left
    cdef double wl = 0.0, wi
    cdef double st6[6]
    if not isfinite(t):
        t = lo_v / 2.0 + hi_v / 2.0
    if t >= hi_v:
        t = lo_v
    ml[0] = <int64_t> _rand_below(&B.rng, 2) if nm > 0 else 0
    # first position whose value exceeds t
    a = s
    b = enm
    while a < b:
        m = (a + b) >> 1
        if xf[<int64_t> (L[m] & im) * rs] > t:
            b = m
        else:
            a = m + 1
    p = a
    n_left = p - s + (nm if ml[0] else 0)
    if n_left < B.par.min_samples_leaf or (e - s) - n_left < B.par.min_samples_leaf:
        return -INFINITY
    for c in range(B.data.n_classes):
        B.work.cl[c] = 0.0
    for m in range(s, p):
        wi = _wt(B, L[m])
        _accumulate(B, L[m], wi, B.work.cl)
        wl += wi
    if ml[0]:
        for m in range(enm, e):
            wi = _wt(B, L[m])
            _accumulate(B, L[m], wi, B.work.cl)
            wl += wi
    if wl < B.par.min_weight_leaf or wtot - wl < B.par.min_weight_leaf:
        return -INFINITY
    if B.par.absolute:
        _absolute_children(B, L, s, p, enm, e, ml[0], False, st6)
        if (B.data.monotonic != NULL and B.data.monotonic[f] != 0
                and not _values_ok(st6[1], st6[4], B.data.monotonic[f], lower, upper)):
            return -INFINITY
        pos[0] = p
        thr[0] = t
        return -(st6[2] + st6[5])
    for c in range(B.data.n_classes):
        B.work.cr[c] = tot[c] - B.work.cl[c]
    if (B.data.monotonic != NULL and B.data.monotonic[f] != 0
        and not _monotonic_ok(B.work.cl[0], wl, B.work.cr[0], wtot - wl,
                              B.data.monotonic[f], lower, upper)):
        return -INFINITY
    pos[0] = p
    thr[0] = t
    return _proxy_counts(B, B.work.cl, B.work.cr, wl, wtot - wl)


cdef inline void _add_counts2(const Builder* B, const key_t* L, int64_t a, int64_t b,
                              double* counts, double* weight) noexcept nogil:
    """Adds the class weights of L[a:b) to counts (two classes, weights in the keys)."""
    cdef int64_t q, c1 = 0, tw = 0, wi
    cdef int cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask
    cdef key_t k
    for q in range(a, b):
        k = L[q]
        wi = <int64_t> ((k >> ws) & wm)
        c1 += wi & -(<int64_t> ((k >> cs) & 1))
        tw += wi
    counts[0] += <double> (tw - c1)
    counts[1] += <double> c1
    weight[0] += <double> tw


cdef double _gini_multi_cuts(Builder* B, const key_t* L, int64_t s, int64_t hi, int64_t lo,
                             const double* tot, int64_t t2, double wtot, double floor,
                             int64_t* pos) noexcept nogil:
    """The Gini scan with more than two classes over one run of cuts (integer weights in
    the keys, no min_weight_leaf): _gini_cuts (the class weights carried in, in B.work.cli),
    on the AVX-512 kernel where the processor has it (rf_gini_multi_avx512; t2, the sum
    of the squared node class weights, and B.work.cri, those weights, set by _find_split),
    which chooses the same cut.  Only cuts beating floor matter: the first of the best
    of those is returned, else -inf (pos -1).  B.work.cli (and, portable,
                                                           B.work.cri) are left
    changed."""
    cdef int64_t K = B.data.n_classes, sq0 = 0, st0 = 0, w0 = 0, c
    cdef double best = floor
    pos[0] = -1
    if hi <= s or lo > hi:
        return -INFINITY
    if B.par.use_avx512:
        for c in range(K):
            sq0 += B.work.cli[c] * B.work.cli[c]
            st0 += B.work.cli[c] * B.work.cri[c]
            w0 += B.work.cli[c]
        rf_gini_multi_avx512(L, s, hi, lo, B.key.cshift, B.key.rshift, B.key.wshift,
                             B.key.cmask, B.key.wmask, K, B.work.cli, B.work.cri, t2, wtot,
                             sq0, st0, w0, &best, pos)
    else:
        best = _gini_cuts(B, L, s, hi, lo, tot, wtot, floor, pos, <int64_t> 0)
    return best if pos[0] >= 0 else -INFINITY


cdef double _scan_gini_multi_missing(Builder* B, const key_t* L, int64_t s, int64_t e,
                                     int64_t nm, const double* tot, int64_t t2,
                                     double wtot, double floor, int64_t* pos,
                                     int64_t* ml) noexcept nogil:
    """Gini with more than two classes (integer weights, no min_weight_leaf) on a feature
    with nm missing samples at the end of L[s:e): the two runs of _missing_runs on
    _gini_multi_cuts, the missing samples' class weights carried in for the second.
    Only cuts beating floor (the node's best so far) matter, else -inf."""
    cdef int64_t K = B.data.n_classes, q, first
    cdef int64_t runs[4]
    cdef double best
    cdef key_t k
    _missing_runs(B, s, e, nm, runs)
    memset(B.work.cli, 0, K * sizeof(int64_t))
    best = _gini_multi_cuts(B, L, s, runs[0], runs[1], tot, t2, wtot, floor, pos)
    first = pos[0]
    memset(B.work.cli, 0, K * sizeof(int64_t))
    for q in range(e - nm, e):
        k = L[q]
        B.work.cli[(k >> B.key.cshift) & B.key.cmask] += \
            <int64_t> ((k >> B.key.wshift) & B.key.wmask)
    return _missing_pick(best, first,
                         _gini_multi_cuts(B, L, s, runs[2], runs[3], tot, t2, wtot,
                                          max(floor, best), pos),
                         pos, ml)
