# The entropy scans (with and without missing values) and the misclassification-error
# scan.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

cdef double _entropy_cuts(Builder* B, const key_t* L, int64_t s, int64_t hi, int64_t lo,
                          const double* tot, double wtot, double floor, int64_t* pos,
                          acc_t zero) noexcept nogil:
    # The entropy scan of one run of cuts: the left side holds L[s:c) and the class
    # weights already in work.cli (integer weights; else work.cl): zero, or a feature's
    # missing samples carried in, the right one the rest of the node (class weights
    # tot); cuts c = p + 1 for p in [s, hi) between distinct values, scored when c is in
    # [lo, hi]; only cuts beating floor matter (the first of the best is returned, else
    # floor with pos untouched).  With more than two classes, the sum over classes of
    # xlogx(left) + xlogx(right) is kept up to date as each sample moves (two terms
    # change), so a cut costs O(1) instead of O(K); it is summed afresh every
    # ENTROPY_RESYNC samples (from the first one on), which bounds the rounding drift.
    cdef int64_t K = B.data.n_classes, p, c, j
    cdef int rs = B.key.rshift, cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask, im = B.key.imask, cm = B.key.cmask
    cdef const double* w = B.data.w
    cdef acc_t* cl
    cdef acc_t* cr
    cdef double* fl = B.work.fl
    cdef double* fr = B.work.fr
    cdef acc_t wl = 0, wi, a, wr, wt = <acc_t> wtot
    cdef double minw = B.par.min_weight_leaf, best = floor, proxy, acc = 0.0, nl, nr
    cdef bint running = K > 2
    cdef key_t k
    if acc_t is int64_t:
        cl = B.work.cli
        cr = B.work.cri
    else:
        cl = B.work.cl
        cr = B.work.cr
    for c in range(K):
        a = cl[c]
        fl[c] = _xlogx(B, <double> a)
        cr[c] = <acc_t> tot[c] - a
        fr[c] = _xlogx(B, <double> cr[c])
        wl += a
    for p in range(s, hi):
        k = L[p]
        c = <int64_t> ((k >> cs) & cm)
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        a = cl[c] + wi
        cl[c] = a
        nl = _xlogx(B, <double> a)
        a = cr[c] - wi
        cr[c] = a
        nr = _xlogx(B, <double> a)
        if running:
            acc += (nl - fl[c]) + (nr - fr[c])
        fl[c] = nl
        fr[c] = nr
        wl += wi
        if running and ((p - s) & (ENTROPY_RESYNC - 1)) == 0:
            acc = 0.0
            for j in range(K):
                acc += fl[j] + fr[j]
        if p + 1 >= lo and ((L[p + 1] ^ k) >> rs) != 0:
            wr = wt - wl
            if wl >= minw and wr >= minw:
                if not running:    # summed afresh (the AVX-512 kernel's order)
                    acc = 0.0
                    for j in range(K):
                        acc += fl[j] + fr[j]
                proxy = acc - _xlogx(B, <double> wl) - _xlogx(B, <double> wr)
                if proxy > best:
                    best = proxy
                    pos[0] = p + 1
    return best


cdef double _scan_entropy(Builder* B, const key_t* L, int64_t s, int64_t e,
                          const double* tot, double wtot, int64_t* pos,
                          acc_t zero) noexcept nogil:
    cdef int64_t c
    for c in range(B.data.n_classes):
        if acc_t is int64_t:
            B.work.cli[c] = 0
        else:
            B.work.cl[c] = 0.0
    return _entropy_cuts(B, L, s, e - B.par.min_samples_leaf, s + B.par.min_samples_leaf,
                         tot, wtot, -INFINITY, pos, zero)


cdef double _scan_entropy_missing(Builder* B, const key_t* L, int64_t s, int64_t e,
                                  int64_t nm, const double* tot, double wtot,
                                  double floor, int64_t* pos, int64_t* ml,
                                  acc_t zero) noexcept nogil:
    """Entropy on a feature with nm missing samples at the end of L[s:e) (without a
    constraint): the two runs of _missing_runs on _entropy_cuts, the missing samples'
    class weights carried in for the second, which must beat the first by more than
    rounding (_entropy_tie).  Only cuts beating floor (the node's best so far) matter,
    else -inf."""
    cdef int64_t K = B.data.n_classes, q, c, first = -1
    cdef int64_t runs[4]
    cdef double best
    cdef key_t k
    _missing_runs(B, s, e, nm, runs)
    for c in range(K):
        if acc_t is int64_t:
            B.work.cli[c] = 0
        else:
            B.work.cl[c] = 0.0
    # (best: floor when no cut beat it)
    best = _entropy_cuts(B, L, s, runs[0], runs[1], tot, wtot, floor, &first, zero)
    for c in range(K):
        if acc_t is int64_t:
            B.work.cli[c] = 0
        else:
            B.work.cl[c] = 0.0
    for q in range(e - nm, e):
        k = L[q]
        c = <int64_t> ((k >> B.key.cshift) & B.key.cmask)
        if acc_t is int64_t:
            B.work.cli[c] += <int64_t> ((k >> B.key.wshift) & B.key.wmask)
        else:
            B.work.cl[c] += B.data.w[k & B.key.imask]
    pos[0] = -1
    return _missing_pick(best, first,
                         _entropy_cuts(B, L, s, runs[2], runs[3], tot, wtot,
                                       _entropy_tie(B, best, wtot), pos, zero),
                         pos, ml)


cdef double _scan_error(Builder* B, const key_t* L, int64_t s, int64_t e,
                        const double* tot, double wtot, int64_t* pos,
                        acc_t zero) noexcept nogil:
    cdef int64_t K = B.data.n_classes
    cdef int64_t lo = s + B.par.min_samples_leaf, hi = e - B.par.min_samples_leaf
    cdef int64_t p, c, j, amr = 0
    cdef int rs = B.key.rshift, cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask, im = B.key.imask, cm = B.key.cmask
    cdef const double* w = B.data.w
    cdef acc_t* cl
    cdef acc_t* cr
    cdef acc_t wl = 0, wi, a, wr, maxl = 0, wt = <acc_t> wtot
    cdef double minw = B.par.min_weight_leaf, best = -INFINITY, proxy
    cdef key_t k
    if acc_t is int64_t:
        cl = B.work.cli
        cr = B.work.cri
    else:
        cl = B.work.cl
        cr = B.work.cr
    for c in range(K):
        cl[c] = 0
        cr[c] = <acc_t> tot[c]
        if cr[c] > cr[amr]:
            amr = c
    for p in range(s, hi):
        k = L[p]
        c = <int64_t> ((k >> cs) & cm)
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        a = cl[c] + wi
        cl[c] = a
        if a > maxl:
            maxl = a
        cr[c] -= wi
        if c == amr:
            for j in range(K):
                if cr[j] > cr[amr]:
                    amr = j
        wl += wi
        if p + 1 >= lo and ((L[p + 1] ^ k) >> rs) != 0:
            wr = wt - wl
            if wl >= minw and wr >= minw:
                proxy = <double> (maxl + cr[amr])
                if proxy > best:
                    best = proxy
                    pos[0] = p + 1
    return best
