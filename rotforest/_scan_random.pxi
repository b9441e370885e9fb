# Random splits (splitter="random"): one threshold drawn per feature.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

cdef inline double _random_threshold(Builder* B, double lo, double hi, int64_t nm,
                                     int64_t* ml) noexcept nogil:
    """A random cut's threshold and in ml the side of its nm missing samples, drawn at
    random (0 with none), as every kind of random cut draws them: the threshold
    uniform between the node's least and largest present values lo < hi rounded to
    float32 (where they stay apart and finite there), the lower one when rounding
    reaches the upper one, and lo itself when the draw leaves no present value on a
    side (it fell between an extreme and its rounding).  Rounded extremes let a cut on
    the values read a float32 copy of X (see _random_values, which applies the last
    rule itself)."""
    cdef double a = <float> lo, b = <float> hi
    if not (a < b and isfinite(a) and isfinite(b)):
        a = lo
        b = hi
    cdef double t = a + _rand_uniform(&B.rng) * (b - a)
    if not isfinite(t):
        t = a / 2.0 + b / 2.0
    if t >= b:
        t = a
    if t < lo or t >= hi:
        t = lo
    ml[0] = <int64_t> _rand_below(&B.rng, 2) if nm > 0 else 0
    return t


cdef inline double _random_proxy(Builder* B, int64_t f, const double* tot, double wtot,
                                 double wl, double lower, double upper) noexcept nogil:
    """The proxy of a random cut of feature f whose left side's statistics are in
    work.cl (weight wl; the node's: tot, wtot): -inf when a side is too light or the
    feature's monotonic constraint forbids it (with the absolute error the caller
    measures the cut itself).  Where the node lists its classes (work.present: random
    cuts on the values of several classes), over those alone."""
    cdef int64_t c, g
    if wl < B.par.min_weight_leaf or wtot - wl < B.par.min_weight_leaf:
        return -INFINITY
    if (B.data.regression and B.data.n_outputs == 1 and B.par.criterion != CRIT_POISSON
            and (B.data.monotonic == NULL or B.data.monotonic[f] == 0)):
        # one numeric target, unconstrained: the proxy from the sums of w y alone
        # (_proxy_counts' value)
        return _reg_proxy(B.par.criterion, B.work.cl[0], wl, tot[0] - B.work.cl[0],
                          wtot - wl)
    if B.work.n_present >= 0:
        # (several classes: no monotonic constraints)
        for g in range(B.work.n_present):
            c = B.work.present[g]
            B.work.cr[c] = tot[c] - B.work.cl[c]
        return _proxy_classes(B, B.work.cl, B.work.cr, wl, wtot - wl, B.work.present,
                              B.work.n_present)
    for c in range(B.data.n_classes):
        B.work.cr[c] = tot[c] - B.work.cl[c]
    if (B.data.monotonic != NULL and B.data.monotonic[f] != 0
            and not _monotonic_ok(B.work.cl[0], wl, B.work.cr[0], wtot - wl,
                                  B.data.monotonic[f], lower, upper)):
        return -INFINITY
    return _proxy_counts(B, B.work.cl, B.work.cr, wl, wtot - wl)


cdef double _random_split(Builder* B, const key_t* L, int64_t f, int64_t s, int64_t e,
                          int64_t nm, const double* tot, double wtot, int64_t* pos,
                          double* thr, int64_t* ml, double lower,
                          double upper) noexcept nogil:
    """Extremely randomised split: one uniform threshold between the node's extremes of
    the present values; missing samples, if any, go to a side drawn at random."""
    cdef int64_t enm = e - nm
    cdef double t = _random_threshold(B, _key_value(B, f, L[s]), _key_value(B, f, L[enm - 1]),
                                      nm, ml)
    cdef int64_t a, b, m, p, c, n_left
    cdef double wl = 0.0, wi
    cdef double st6[6]
    # first position whose value exceeds t
    a = s
    b = enm
    while a < b:
        m = (a + b) >> 1
        if _key_value(B, f, L[m]) > t:
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
    pos[0] = p
    thr[0] = t
    if not B.par.absolute:
        return _random_proxy(B, f, tot, wtot, wl, lower, upper)
    if wl < B.par.min_weight_leaf or wtot - wl < B.par.min_weight_leaf:
        return -INFINITY
    if B.ab_outputs != NULL:
        _absolute_children_outputs(B, L, s, p, enm, e, ml[0], False, st6, NULL, NULL)
    else:
        _absolute_children(B, L, s, p, enm, e, ml[0], False, st6)
    if (B.data.monotonic != NULL and B.data.monotonic[f] != 0
            and not _values_ok(st6[1], st6[4], B.data.monotonic[f], lower, upper)):
        return -INFINITY
    return -(st6[2] + st6[5])


# ----------------------------------------------------------------------------------------
# Random cuts on the values (Settings.values)
# ----------------------------------------------------------------------------------------
#
# A random cut needs no order: only the feature's extremes in the node and which samples
# fall at or below the drawn threshold.  A tree of random cuts without categorical
# features or the absolute error (whose scans read sorted lists) is grown without any
# presort: every node keeps its samples, in increasing index, in samples[start:end) (as a
# sorting node does), each drawn feature's values of them are gathered from X once
# (with their extremes), and the samples are partitioned by the winner's values as soon
# as the split is found.  The cuts are those of _random_split on the lists, drawn with
# the same random numbers: the same tree (the running sums add the samples in index
# order instead of value order, so a regression tree's sums may differ in the last bits).

cdef inline void _prefetch_next(Builder* B, const Entry* e, int64_t i) noexcept nogil:
    """Prefetches the values of the node's next drawn feature, the i-th draw, for a node
    small enough (RF_PREFETCH_NODE samples) that its gather would wait on them alone:
    the draw is read off a copy of the generator, which the next draw starts from."""
    cdef uint64_t rng = B.rng
    cdef int64_t f
    cdef const key_t* S = B.col.samples
    cdef uint64_t im = B.key.imask
    if e.end - e.start > RF_PREFETCH_NODE:
        return
    f = B.work.feats[_draw_slot(B, &rng, i)] if _draws_features(B) else i
    if B.col.coded != NULL and B.col.coded[f]:
        if B.col.bit_row != NULL and B.col.bit_row[f] >= 0:
            return          # (its bits are in cache; most of its codes are not read)
        rf_prefetch_rows((<const char*> B.col.codes)
                         + f * B.data.n_total * B.col.code_bytes, B.col.code_bytes, S, im,
                         e.start, e.end)
    elif B.col.x32 != NULL:
        rf_prefetch_rows(B.col.x32 + B.col.x32_col[f], sizeof(float) * B.col.x32_cols, S,
                         im, e.start, e.end)
    else:
        rf_prefetch_rows(B.data.X + f * B.data.xcs, sizeof(double) * B.data.xrs, S, im,
                         e.start, e.end)


cdef double _random_values(Builder* B, const Entry* e, int64_t f, const double* tot,
                           int64_t* nm_out, double* thr, int64_t* ml,
                           int64_t next_draw) noexcept nogil:
    """The random cut of feature f of a node (the values of its samples gathered into
    vals[0]): as _random_split, one uniform threshold between the extremes of the
    present values, the missing samples to a side drawn at random.  Returns its proxy
    (-inf: no valid cut) and sets nm_out to the node's missing samples of f, or to -1
    when f is constant in the node."""
    cdef const double* xf = B.data.X + f * B.data.xcs
    cdef const key_t* S = B.col.samples
    cdef double* V = B.col.vals[0]
    cdef uint64_t im = B.key.imask
    cdef int64_t rs = B.data.xrs, s = e.start, end = e.end, nm = 0, n_left = 0
    cdef int64_t present_left
    cdef double lo = INFINITY, hi = -INFINITY, t, t32, wl = 0.0
    cdef bint rounded = False
    if B.col.coded != NULL and B.col.coded[f]:
        # (a feature of small integers: read from its codes, which hold the same values;
        # where most are one code, those of the other rows only)
        if B.col.bit_row != NULL and B.col.bit_row[f] >= 0:
            if B.col.code_bytes == 1:
                nm = rf_gather_moded8((<const uint8_t*> B.col.codes) + f * B.data.n_total,
                                      B.col.bits + B.col.bit_row[f] * B.col.bit_words,
                                      B.col.bit_mode[f], B.col.bit_other[f], S, im, s, end,
                                      B.col.code_missing, V, B.work.scratch, &lo, &hi)
            else:
                nm = rf_gather_moded16((<const uint16_t*> B.col.codes)
                                       + f * B.data.n_total,
                                       B.col.bits + B.col.bit_row[f] * B.col.bit_words,
                                       B.col.bit_mode[f], B.col.bit_other[f], S, im, s,
                                       end, B.col.code_missing, V, B.work.scratch, &lo,
                                       &hi)
        elif B.col.code_bytes == 1:
            nm = rf_gather_codes8((<const uint8_t*> B.col.codes) + f * B.data.n_total, S,
                                  im, s, end, B.col.code_missing, V, &lo, &hi)
        else:
            nm = rf_gather_codes16((<const uint16_t*> B.col.codes) + f * B.data.n_total,
                                   S, im, s, end, B.col.code_missing, V, &lo, &hi)
    elif B.col.x32 != NULL:
        # (its float32 copy: half the bytes of X; rounding is monotone, so the rounded
        # values order the samples as X does, except those rounded to the same float)
        if B.col.nan32[f]:
            nm = rf_gather_f32(B.col.x32 + B.col.x32_col[f], B.col.x32_cols, S, im, s, end,
                               V, &lo, &hi)
        else:       # (none missing: none counted)
            nm = rf_gather_f32_present(B.col.x32 + B.col.x32_col[f], B.col.x32_cols, S, im,
                                       s, end, V, &lo, &hi)
        rounded = not B.col.exact32[f]
        if rounded and nm < end - s and not (lo < hi and isfinite(lo) and isfinite(hi)):
            # one rounded value (constant, or values closer than float32 tells apart)
            # or beyond float32's range: the threshold is drawn from the extremes of X
            nm = rf_gather_values(xf, rs, S, im, s, end, V, &lo, &hi)
            rounded = False
    else:
        nm = rf_gather_values(xf, rs, S, im, s, end, V, &lo, &hi)
    if nm == end - s or (lo == hi and nm == 0):
        nm_out[0] = -1
        return -INFINITY
    nm_out[0] = nm
    t = _random_threshold(B, lo, hi, nm, ml)
    thr[0] = t
    if next_draw >= 0:
        _prefetch_next(B, e, next_draw)
    t32 = <float> t
    if rounded and (rf_any_equal_avx512(V, s, end, t32) if B.par.use_avx512
                    else rf_any_equal(V, s, end, t32)):
        # a value rounded as t is: which side it falls on takes X (rare: t is drawn
        # from a continuum); otherwise a rounded value is at most t exactly when the
        # value is
        rf_gather_values(xf, rs, S, im, s, end, V, &lo, &hi)
    n_left = _values_left(B, S, V, s, end, t, ml[0], &wl)
    present_left = n_left - (nm if ml[0] else 0)
    if rounded and (present_left == 0 or present_left == (end - s) - nm):
        # no present value on a side: t fell between an extreme and its rounding, and
        # the cut is at the least value (see _random_threshold), read from X
        rf_gather_values(xf, rs, S, im, s, end, V, &lo, &hi)
        t = lo
        thr[0] = t
        n_left = _values_left(B, S, V, s, end, t, ml[0], &wl)
    if n_left < B.par.min_samples_leaf or (end - s) - n_left < B.par.min_samples_leaf:
        return -INFINITY
    return _random_proxy(B, f, tot, e.weight, wl, e.lower, e.upper)


cdef inline int64_t _values_left(Builder* B, const key_t* S, const double* V, int64_t s,
                                 int64_t end, double t, bint ml,
                                 double* wl_out) noexcept nogil:
    """The statistics (in work.cl) and weight (wl_out) of the samples of S[s:end) whose
    value V[q] is at most t, or missing when ml; returns their count.  Without branches
    on the side (a random cut sends samples either way at random: a branch would be
    mispredicted half the time): the counts of the classes with integer weights in
    registers (two classes) or exact integers, anything else added times 0 or 1."""
    cdef int64_t K = B.data.n_classes, q, g, n_left = 0, c, w1 = 0, wn = 0, wi_int
    cdef double wl = 0.0, wi, v, wy, s0 = 0.0, s1 = 0.0
    cdef key_t k
    cdef int cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t cm = B.key.cmask, wm = B.key.wmask
    if B.key.packed and not B.data.regression and B.data.n_outputs == 1:
        if K == 2:
            if B.par.use_avx512:
                n_left = rf_values_left2_avx512(V, S, s, end, t, ml, cs, ws, wm, &wn, &w1)
            else:
                n_left = rf_values_left2(V, S, s, end, t, ml, cs, ws, wm, &wn, &w1)
            B.work.cl[0] = <double> (wn - w1)
            B.work.cl[1] = <double> w1
            wl_out[0] = <double> wn
            return n_left
        # (the node's classes only: see _find_split)
        if B.par.use_avx512:
            n_left = rf_values_leftk_avx512(V, S, s, end, t, ml, cs, cm, ws, wm,
                                            B.work.present, B.work.n_present, B.work.cli,
                                            B.work.cri, &wn)
        else:
            n_left = rf_values_leftk(V, S, s, end, t, ml, cs, cm, ws, wm, B.work.present,
                                     B.work.n_present, B.work.cli, B.work.cri, &wn)
        for g in range(B.work.n_present):
            c = B.work.present[g]
            B.work.cl[c] = <double> B.work.cli[c]
        wl_out[0] = <double> wn
        return n_left
    for c in range(K):
        B.work.cl[c] = 0.0
    if B.col.ys != NULL and B.key.packed:
        # one numeric target, read in the samples' order, integer weights: the sums in
        # eight lanes (see rf_values_left_sq)
        if B.par.use_avx512:
            return rf_values_left_sq_avx512(V, B.col.ys, S, s, end, t, ml, ws, wm, wl_out,
                                            B.work.cl)
        return rf_values_left_sq(V, B.col.ys, S, s, end, t, ml, ws, wm, wl_out, B.work.cl)
    if B.col.ys != NULL:
        # one numeric target, read in the samples' order: _accumulate's sums, in order
        for q in range(s, end):
            v = V[q]
            g = (v <= t) | (ml & isnan(v))
            wi = _wt(B, S[q]) * g
            wy = wi * B.col.ys[q]
            s0 += wy
            s1 += wy * B.col.ys[q]
            wl += wi
            n_left += g
        B.work.cl[0] = s0
        B.work.cl[1] = s1
        wl_out[0] = wl
        return n_left
    for q in range(s, end):
        v = V[q]
        k = S[q]
        g = (v <= t) | (ml & isnan(v))
        wi = _wt(B, k) * g
        _accumulate(B, k, wi, B.work.cl)
        wl += wi
        n_left += g
    wl_out[0] = wl
    return n_left


cdef void _finish_values_split(Builder* B, Entry* e, int64_t f, double t, int64_t nm,
                               bint ml) noexcept nogil:
    """Completes a node's random cut on feature f at threshold t (its values of the
    node's samples in vals[1]; nm missing, which go left when ml): partitions the
    samples stably for the children (the left ones first), counts the children's
    statistics exactly (exact integer class weights: the left side's are already in
    cleft, kept by _find_split, and the right's are the node's less those), and sets the
    split as _finish_split does."""
    cdef int64_t K = B.data.n_classes, s = e.start, end = e.end, q, g, il, ir = 0, c
    cdef int64_t ei = e - B.front.ent
    cdef double* cleft = B.front.counts + ei * 3 * K + K
    cdef double* cright = cleft + K
    cdef key_t* S = B.col.samples
    cdef key_t* R = B.work.scratch
    cdef const double* V = B.col.vals[1]
    cdef double* Y = B.col.ys
    cdef double* YR = B.col.vals[0]        # (free once the split is found)
    cdef double wl = 0.0, wr = 0.0, wi, v, wy, yi
    cdef const double* node = cleft - K
    cdef int64_t n_left
    cdef key_t k
    cdef bint counted = _values_counted(B)
    for c in range(K):
        if not counted:
            cleft[c] = 0.0
        cright[c] = 0.0
    il = s
    if counted:
        for q in range(s, end):
            k = S[q]
            v = V[q]
            g = (v <= t) | (ml & isnan(v))
            S[il] = k
            R[ir] = k
            il += g
            ir += 1 - g
        for c in range(K):
            cright[c] = node[c] - cleft[c]
            wl += cleft[c]
            wr += cright[c]
    elif Y != NULL:
        # one numeric target in the samples' order (see _values_left), moved with them
        for q in range(s, end):
            k = S[q]
            v = V[q]
            yi = Y[q]
            g = (v <= t) | (ml & isnan(v))
            wi = _wt(B, k)
            wy = wi * g * yi
            cleft[0] += wy
            cleft[1] += wy * yi
            wy = wi * (1 - g) * yi
            cright[0] += wy
            cright[1] += wy * yi
            wl += wi * g
            wr += wi * (1 - g)
            S[il] = k
            R[ir] = k
            Y[il] = yi
            YR[ir] = yi
            il += g
            ir += 1 - g
        memcpy(Y + il, YR, ir * sizeof(double))
    elif not B.data.regression and B.data.n_outputs == 1:
        # one class output: its class weights (what _accumulate adds)
        for q in range(s, end):
            k = S[q]
            v = V[q]
            g = (v <= t) | (ml & isnan(v))
            wi = _wt(B, k)
            c = <int64_t> ((k >> B.key.cshift) & B.key.cmask)
            cleft[c] += wi * g
            cright[c] += wi * (1 - g)
            wl += wi * g
            wr += wi * (1 - g)
            S[il] = k
            R[ir] = k
            il += g
            ir += 1 - g
    for q in range(s, end if Y == NULL and (B.data.regression or B.data.n_outputs > 1)
                   else s):
        k = S[q]
        v = V[q]
        g = (v <= t) | (ml & isnan(v))
        wi = _wt(B, k)
        # both sides, times 0 or 1 (no branch: see _values_left)
        _accumulate(B, k, wi * g, cleft)
        _accumulate(B, k, wi * (1 - g), cright)
        wl += wi * g
        wr += wi * (1 - g)
        S[il] = k
        R[ir] = k
        il += g
        ir += 1 - g
    memcpy(S + il, R, ir * sizeof(key_t))
    n_left = il - s
    e.split.feature = f
    # (the left child is [s, pos) plus the missing samples when they go left: see _expand)
    e.split.pos = il - (nm if ml else 0)
    e.split.n_missing = nm
    e.split.missing_left = ml if nm > 0 else (n_left > (end - s) - n_left)
    e.split.cut_rank = 0
    e.split.weight_left = wl
    e.split.weight_right = wr
    e.split.impurity_left = _impurity(B, cleft, wl)
    e.split.impurity_right = _impurity(B, cright, wr)
    e.has_split = 0
    if not _improvement(B, e, cleft, cright):
        return
    e.split.threshold = t
    e.has_split = 1
