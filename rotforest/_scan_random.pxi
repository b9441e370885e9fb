# Random splits (splitter="random"): one threshold drawn per feature.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

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
        if B.ab_outputs != NULL:
            _absolute_children_outputs(B, L, s, p, enm, e, ml[0], False, st6, NULL, NULL)
        else:
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
