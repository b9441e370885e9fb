# The reference scan: every criterion, missing values and monotonic constraints, one
# cut at a time from the node's statistics.  The fast scans are held to it; a criterion
# without a scan of its own takes it.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

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
    if best2 > (_entropy_tie(B, best1, wtot) if B.par.criterion == CRIT_ENTROPY
                 else best1):
        pos[0] = pos2
        ml[0] = 1
        return best2
    pos[0] = pos1
    ml[0] = 0
    return best1


cdef double _scan_outputs(Builder* B, const key_t* L, int64_t s, int64_t e,
                          const double* tot, double wtot, int64_t* pos) noexcept nogil:
    """_scan_reference for several outputs where it is the common case: no missing
    values, no constraint, the Gini index, the squared error or Friedman's score.  The
    same sums, cuts, proxies (each output's, summed in order, as _proxy_outputs sums
    them) and ties, without the reference's copies and dispatch at every cut, and
    without the sums of w y^2 that only the impurity needs: the same trees, bit for
    bit (_set_reference_scan turns it off)."""
    cdef int64_t m = B.data.n_outputs, K = B.data.n_classes, msl = B.par.min_samples_leaf
    cdef int64_t q, p, o, c, i, lo, hi
    cdef int rs = B.key.rshift
    cdef uint64_t im = B.key.imask
    cdef double* cl = B.work.cl
    cdef const double* yv = B.data.yv
    cdef const int32_t* yc = B.data.ycodes
    cdef const int64_t* offs = B.data.offs
    cdef double minw = B.par.min_weight_leaf, wl = 0.0, wr, wi, proxy, part
    cdef double best = -INFINITY, x, y, u, v
    cdef bint regression = B.data.regression
    cdef bint friedman = B.par.criterion == CRIT_FRIEDMAN
    cdef key_t k
    pos[0] = -1
    for c in range(K):
        cl[c] = 0.0
    for q in range(s, e - 1):
        k = L[q]
        wi = _wt(B, k)
        i = <int64_t> (k & im) * m
        if regression:
            for o in range(m):
                cl[3 * o] += wi * yv[i + o]
        else:
            for o in range(m):
                cl[offs[o] + yc[i + o]] += wi
        wl += wi
        if ((L[q + 1] ^ k) >> rs) == 0:
            continue
        p = q + 1
        if not (p - s >= msl and e - p >= msl and wl >= minw and wtot - wl >= minw):
            continue
        wr = wtot - wl
        proxy = 0.0
        if friedman:
            u = 0.0
            v = 0.0
            for o in range(m):
                x = cl[3 * o]
                u += x
                v += tot[3 * o] - x
            proxy = (u * u * wr + v * v * wl) / (wl * wr)
        elif regression:
            for o in range(m):
                x = cl[3 * o]
                y = tot[3 * o] - x
                proxy += (x * x * wr + y * y * wl) / (wl * wr)
        else:
            for o in range(m):
                u = 0.0
                v = 0.0
                lo = offs[o]
                hi = offs[o + 1]
                for c in range(lo, hi):
                    x = cl[c]
                    y = tot[c] - x
                    u += x * x
                    v += y * y
                part = u / wl + v / wr
                proxy += part
        if proxy > best:
            best = proxy
            pos[0] = p
    return best
