# Criteria: node impurity, split proxies and the scans of the classification criteria.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

cdef inline double _impurity(const Builder* B, const double* c, double w) noexcept nogil:
    """Impurity of a node with weighted class counts c and total weight w (as scikit-learn
    computes it; entropy in bits)."""
    cdef int64_t k
    cdef double acc = 0.0, p
    if B.data.regression:
        # the weighted variance, or the mean Poisson deviance (0 for a node of zeros)
        p = c[0] / w
        if B.par.criterion == CRIT_POISSON:
            if p <= EPSILON:
                return 0.0
            return (c[2] - c[0] * log(p)) / w
        return c[1] / w - p * p
    if B.par.criterion == CRIT_GINI:
        for k in range(B.data.n_classes):
            acc += c[k] * c[k]
        return 1.0 - acc / (w * w)
    elif B.par.criterion == CRIT_ENTROPY:
        for k in range(B.data.n_classes):
            if c[k] > 0.0:
                p = c[k] / w
                acc -= p * (log(p) / LN2)
        return acc
    elif B.par.criterion == CRIT_ERROR:
        for k in range(B.data.n_classes):
            if c[k] > acc:
                acc = c[k]
        return 1.0 - acc / w
    return NAN      # no other criterion passes build_tree's checks


cdef inline double _reg_proxy(int criterion, double sl, double wl, double sr,
                             double wr) noexcept nogil:
    """The split proxy of the regression criteria (scikit-learn's), from the children's
    sums of w y (sl, sr) and weights (wl, wr): a larger one is a better split."""
    if criterion != CRIT_POISSON:
        # squared error; Friedman's score orders the cuts of a node the same way (it is
        # this proxy less a constant of the node, times the node's weight), so it only
        # reports another improvement (see _find_split)
        return (sl * sl * wr + sr * sr * wl) / (wl * wr)
    # Poisson: a child whose sum is (numerically) zero would predict 0: not a candidate
    if sl <= EPSILON or sr <= EPSILON:
        return -INFINITY
    return sl * log(sl / wl) + sr * log(sr / wr)


cdef inline double _proxy_counts(const Builder* B, const double* cl, const double* cr,
                                 double wl, double wr) noexcept nogil:
    """A quantity that orders the splits of one node as their impurity decrease does
    (the same one the scans compute)."""
    cdef int64_t k
    cdef double a = 0.0, b = 0.0
    if B.data.regression:
        if B.par.criterion == CRIT_POISSON and (cl[1] <= 0.0 or cr[1] <= 0.0):
            return -INFINITY      # a child of zero targets (counted: see _accumulate)
        return _reg_proxy(B.par.criterion, cl[0], wl, cr[0], wr)
    if B.par.criterion == CRIT_GINI:
        for k in range(B.data.n_classes):
            a += cl[k] * cl[k]
            b += cr[k] * cr[k]
        return a / wl + b / wr
    elif B.par.criterion == CRIT_ENTROPY:
        for k in range(B.data.n_classes):
            a += _xlogx(B, cl[k]) + _xlogx(B, cr[k])
        return a - _xlogx(B, wl) - _xlogx(B, wr)
    elif B.par.criterion == CRIT_ERROR:
        for k in range(B.data.n_classes):
            if cl[k] > a:
                a = cl[k]
            if cr[k] > b:
                b = cr[k]
        return a + b
    return -INFINITY    # no other criterion passes build_tree's checks


cdef inline bint _is_leaf(const Builder* B, int64_t depth, int64_t n, double w,
                          double impurity) noexcept nogil:
    return (depth >= B.par.max_depth or n < B.par.min_samples_split
            or n < 2 * B.par.min_samples_leaf or w < 2.0 * B.par.min_weight_leaf
            or impurity <= EPSILON)


# ----------------------------------------------------------------------------------------
# Scans: the best split of one feature's slice [s, e).  Each returns its proxy (-inf when
# no position is valid) and sets pos.  Candidates lie only between distinct values, and
# positions that break min_samples_leaf / min_weight_leaf are never scored.
# ----------------------------------------------------------------------------------------

cdef inline void _missing_runs(const Builder* B, int64_t s, int64_t e, int64_t nm,
                               int64_t* runs) noexcept nogil:
    """The two runs of cuts of a feature with nm missing samples at the end of L[s:e)
    (scikit-learn's candidates and order, those of _scan_reference), as (hi, lo) pairs of
    the scans' runs (cuts c = p + 1, p in [s, hi), scored when c is in [lo, hi]):
    runs[0:2] the cuts with the missing samples right, the last one at e - nm (all
    present values left); runs[2:4] the cuts with them left (carried in from the start),
    which must beat the first run's best."""
    cdef int64_t msl = B.par.min_samples_leaf
    runs[0] = min(e - nm, e - msl)
    runs[1] = s + msl
    runs[2] = e - nm - msl
    runs[3] = s + msl - nm


cdef inline double _missing_pick(double first, int64_t first_pos, double second,
                                 int64_t* pos, int64_t* ml) noexcept nogil:
    """The result of the two runs (see _missing_runs): the second one's cut when it found
    one (pos >= 0: it beat the first), else the first one's (-inf, pos -1 when none)."""
    if pos[0] >= 0:
        ml[0] = 1
        return second
    ml[0] = 0
    pos[0] = first_pos
    return first if first_pos >= 0 else -INFINITY


cdef double _gini_cuts(Builder* B, const key_t* L, int64_t s, int64_t hi, int64_t lo,
                       const double* tot, double wtot, double floor, int64_t* pos,
                       acc_t zero) noexcept nogil:
    # The Gini scan of one run of cuts: the left side holds L[s:c) and the class weights
    # already in work.cli (integer weights; else work.cl): zero, or a feature's missing
    # samples carried in, the right one the rest of the node (class weights tot); cuts
    # c = p + 1 for p in [s, hi) between distinct values, scored when c is in [lo, hi];
    # only cuts beating floor matter (the first of the best is returned, else floor with
    # pos untouched).  The proxy (sql wr + sqr wl) / (wl wr), sql and sqr the sums of
    # the squared class weights left and right, as in the vector kernels.
    cdef int64_t p
    cdef int rs = B.key.rshift, cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask, im = B.key.imask, cm = B.key.cmask, c
    cdef const double* w = B.data.w
    cdef acc_t* cl
    cdef acc_t* cr
    cdef acc_t sql = 0, sqr = 0, wl = 0, wi, a, wr, wt = <acc_t> wtot, minw
    cdef double best = floor, num, den, q, small = 0.0
    cdef uint64_t d
    cdef key_t k
    if acc_t is int64_t:
        cl = B.work.cli
        cr = B.work.cri
        minw = <int64_t> ceil(B.par.min_weight_leaf)
    else:
        cl = B.work.cl
        cr = B.work.cr
        minw = B.par.min_weight_leaf
    for c in range(<uint64_t> B.data.n_classes):
        a = cl[c]
        sql += a * a
        wl += a
        cr[c] = <acc_t> tot[c] - a
        sqr += cr[c] * cr[c]
    if acc_t is double:
        # float weights: sqr, taken down from about wtot^2, carries that size's rounding;
        # once it is this small a part of it, it is summed anew from the right side's
        # class weights, or the tail's cuts would be scored on rounding
        small = sqr * 1e-4
    for p in range(s, hi):
        k = L[p]
        c = (k >> cs) & cm
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        a = cl[c]
        cl[c] = a + wi
        sql += wi * (2 * a + wi)
        a = cr[c]
        cr[c] = a - wi
        sqr -= wi * (2 * a - wi)
        wl += wi
        if ((L[p + 1] ^ k) >> rs) != 0 and p + 1 >= lo:
            wr = wt - wl
            if wl >= minw and wr >= minw:
                if acc_t is double:
                    if sqr < small:
                        sqr = 0.0
                        for d in range(<uint64_t> B.data.n_classes):
                            sqr += cr[d] * cr[d]
                num = <double> sql * <double> wr + <double> sqr * <double> wl
                den = <double> wl * <double> wr
                # the rounded quotients are compared, as in the vector kernels (the
                # product only screens: a cut failing it cannot be better)
                if num > best * RF_SCREEN * den:
                    q = num / den
                    if q > best:
                        best = q
                        pos[0] = p + 1
    return best


cdef double _scan_gini(Builder* B, const key_t* L, int64_t s, int64_t e,
                       const double* tot, double wtot, int64_t* pos,
                       acc_t zero) noexcept nogil:
    cdef int64_t c
    for c in range(B.data.n_classes):
        if acc_t is int64_t:
            B.work.cli[c] = 0
        else:
            B.work.cl[c] = 0.0
    return _gini_cuts(B, L, s, e - B.par.min_samples_leaf, s + B.par.min_samples_leaf, tot,
                      wtot,
                      -INFINITY, pos, zero)


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
                         tot,
                         wtot, -INFINITY, pos, zero)


cdef double _scan_entropy_missing(Builder* B, const key_t* L, int64_t s, int64_t e,
                                  int64_t nm, const double* tot, double wtot,
                                  double floor, int64_t* pos, int64_t* ml,
                                  acc_t zero) noexcept nogil:
    """Entropy on a feature with nm missing samples at the end of L[s:e) (without a
    constraint): the two runs of _missing_runs on _entropy_cuts, the missing samples'
    class weights carried in for the second.  Only cuts beating floor (the node's best
    so far) matter, else -inf."""
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
                         _entropy_cuts(B, L, s, runs[2], runs[3], tot, wtot, best, pos,
                                       zero),
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


cdef inline double _scan(Builder* B, const key_t* L, int64_t s, int64_t e,
                         const double* tot, double wtot, int64_t* pos,
                         acc_t zero) noexcept nogil:
    # (a numeric target: _scan_regression, called by _scan_numeric itself)
    cdef int64_t ml = 0
    if B.par.criterion == CRIT_GINI:
        return _scan_gini(B, L, s, e, tot, wtot, pos, zero)
    elif B.par.criterion == CRIT_ENTROPY:
        return _scan_entropy(B, L, s, e, tot, wtot, pos, zero)
    elif B.par.criterion == CRIT_ERROR:
        return _scan_error(B, L, s, e, tot, wtot, pos, zero)
    # a criterion without a scan of its own: the reference scan (never another's)
    return _scan_reference(B, L, s, e, 0, tot, wtot, pos, &ml)
