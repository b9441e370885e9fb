# What every scan shares: node impurity, split proxies, the leaf test, the runs of
# cuts around missing values, and the checks of monotonic constraints.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

cdef inline double _impurity(const Builder* B, const double* c, double w) noexcept nogil:
    """Impurity of a node with weighted class counts c and total weight w (as scikit-learn
    computes it; entropy in bits); with several outputs, the mean of theirs."""
    cdef int64_t o
    cdef double acc = 0.0
    if B.data.n_outputs == 1:
        return _impurity_one(B, c, w, B.data.n_classes)
    for o in range(B.data.n_outputs):
        acc += _impurity_one(B, c + B.data.offs[o], w,
                             B.data.offs[o + 1] - B.data.offs[o])
    return acc / B.data.n_outputs


cdef inline double _impurity_one(const Builder* B, const double* c, double w,
                                 int64_t K) noexcept nogil:
    """_impurity of one output, whose statistics are c[:K]."""
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
        for k in range(K):
            acc += c[k] * c[k]
        return 1.0 - acc / (w * w)
    elif B.par.criterion == CRIT_ENTROPY:
        for k in range(K):
            if c[k] > 0.0:
                p = c[k] / w
                acc -= p * (log(p) / LN2)
        return acc
    elif B.par.criterion == CRIT_ERROR:
        for k in range(K):
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
    (the same one the scans compute); with several outputs, the sum of theirs."""
    if B.data.n_outputs > 1:
        return _proxy_outputs(B, cl, cr, wl, wr)
    return _proxy_one(B, cl, cr, wl, wr, B.data.n_classes)


cdef inline double _proxy_one(const Builder* B, const double* cl, const double* cr,
                              double wl, double wr, int64_t K) noexcept nogil:
    """_proxy_counts of one output, whose statistics are cl[:K] and cr[:K]."""
    return _proxy_classes(B, cl, cr, wl, wr, NULL, K)


cdef inline double _proxy_classes(const Builder* B, const double* cl, const double* cr,
                                  double wl, double wr, const int64_t* P,
                                  int64_t K) noexcept nogil:
    """_proxy_one over the classes P[0..K) (NULL: 0..K), in that order: classes left out
    whose counts are zero on both sides change none of the sums."""
    cdef int64_t g, k
    cdef double a = 0.0, b = 0.0
    if B.data.regression:
        if B.par.criterion == CRIT_POISSON and (cl[1] <= 0.0 or cr[1] <= 0.0):
            return -INFINITY      # a child of zero targets (counted: see _accumulate)
        return _reg_proxy(B.par.criterion, cl[0], wl, cr[0], wr)
    if B.par.criterion == CRIT_GINI:
        for g in range(K):
            k = g if P == NULL else P[g]
            a += cl[k] * cl[k]
            b += cr[k] * cr[k]
        return a / wl + b / wr
    elif B.par.criterion == CRIT_ENTROPY:
        for g in range(K):
            k = g if P == NULL else P[g]
            a += _xlogx(B, cl[k]) + _xlogx(B, cr[k])
        return a - _xlogx(B, wl) - _xlogx(B, wr)
    elif B.par.criterion == CRIT_ERROR:
        for g in range(K):
            k = g if P == NULL else P[g]
            if cl[k] > a:
                a = cl[k]
            if cr[k] > b:
                b = cr[k]
        return a + b
    return -INFINITY    # no other criterion passes build_tree's checks


cdef double _proxy_outputs(const Builder* B, const double* cl, const double* cr,
                           double wl, double wr) noexcept nogil:
    """_proxy_counts of several outputs: the sum of each output's proxy (its impurity
    decrease is the mean of theirs), except for Friedman's score, which takes the
    outputs' sums of w y together (scikit-learn's until 1.9: its proxy is then the
    squared error's of the summed target)."""
    cdef int64_t o, a, b
    cdef double acc = 0.0, sl = 0.0, sr = 0.0, p
    if B.par.criterion == CRIT_FRIEDMAN:
        for o in range(B.data.n_outputs):
            sl += cl[3 * o]
            sr += cr[3 * o]
        return _reg_proxy(CRIT_SQUARED, sl, wl, sr, wr)
    for o in range(B.data.n_outputs):
        a = B.data.offs[o]
        b = B.data.offs[o + 1]
        p = _proxy_one(B, cl + a, cr + a, wl, wr, b - a)
        if p == -INFINITY:
            return p
        acc += p
    return acc


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


cdef inline double _entropy_tie(const Builder* B, double best, double wtot) noexcept nogil:
    """What the cuts with the missing samples left must beat, for entropy: the best with
    them right (``best``) by more than rounding.  The entropy proxy sums x log x terms in
    an order that depends on the side and the class, so the same score reached both
    ways (a mirrored partition, or classes swapped) differs in its last bits; without
    this margin missing values would go left at such a tie, against scikit-learn's rule
    (right).  The margin, 1e-12 of the node's largest term, is far below any real
    difference between cuts and far above the sums' rounding."""
    return best + 1e-12 * B.data.n_outputs * (fabs(_xlogx(B, wtot)) + wtot)


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


# ----------------------------------------------------------------------------------------
# Missing values.  A feature's missing samples share its highest rank, so they sit at the
# end of each of its slices: [s, e - nm) holds the present values in order, [e - nm, e) the
# missing ones.  Candidates are scored as scikit-learn scores them, in its order, ties
# going to the first: every cut between distinct present values with the missing samples
# on the right, then "all present left, all missing right", then every cut with the
# missing samples on the left.  The proxies are those of the scans without them, so
# features with and without missing values compare in one node.  (Two classes with Gini: the
# missing samples are handled by _scan_gini_binary itself; more classes with Gini and
# integer weights by two runs of the multiclass scan, _scan_gini_multi_missing;
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


cdef inline double _proxy_moved(Builder* B, const double* cl, const double* cm, double wl,
                                const double* tot, double wtot) noexcept nogil:
    """Proxy of the split whose left child holds the counts cl (plus cm when given).
    Two classes with Gini: the two-class kernel's proxy (l1^2/wl + r1^2/wr, see
    _gini2_score), so that its features and the others compare in one node."""
    cdef int64_t c
    cdef double* a = B.work.cr
    cdef double* b = B.work.fr
    cdef double wr, a1, r1
    if B.par.criterion == CRIT_GINI and B.data.n_classes == 2 and B.data.n_outputs == 1:
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
    constraint cst and the node's bounds (the test scikit-learn applies: _platform.h's,
    which the binned builder shares)."""
    return rf_values_ok(vl, vr, cst, lower, upper)


cdef inline bint _monotonic_ok(double l0, double wl, double r0, double wr, int cst,
                               double lower, double upper) noexcept nogil:
    """_values_ok for children whose class-0 weights (or sums of w y) are l0 / r0 and
    weights wl / wr (in scikit-learn's arithmetic)."""
    return _values_ok(l0 / wl, r0 / wr, cst, lower, upper)
