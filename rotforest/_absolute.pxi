# The absolute-error criterion: running weighted medians on the node's order of y.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Absolute error.  A node's impurity is sum w |y - median| / sum w, its value the weighted
# median (scikit-learn's: where the cumulative weight, in increasing y, first exceeds
# half the total; the mean of that value and the one before when the weight below it is
# exactly half).  The split minimises the children's summed absolute deviations (SAD).
#
# The tree keeps one more list, ``ylist``: its samples in increasing y (ties by index),
# each node owning the slice [start, end), partitioned stably when the node splits, so a
# node always has its own samples in y order.  At a node, each sample's position in that
# order is its local rank r (1..n), and the records R[r] hold its weight and centred
# target.  A feature's cuts are then scored by deleting samples from a doubly linked
# list of the ranks while a median pointer follows the deletions:
#
#   * from the whole node, deleting the feature's slice from its end backwards leaves
#     every prefix [s, p) in turn: the SAD of each left child;
#   * from the whole node again, deleting from the start leaves every suffix [p, e): the
#     SAD of each right child, added to the stored left one at each cut.
#
# A deletion unlinks one rank in O(1) and moves the median pointer by as much weight as
# it removed (one step for unit weights), so a feature costs O(n) instead of the
# O(n log n) of a sorted structure.  With the lower weighted median m of a set (the
# first rank whose cumulative weight reaches half the set's weight W), and Wm, Sm the
# weight and sum of w y up to m included, S the set's sum of w y:
#
#       SAD = y_m (2 Wm - W) - 2 Sm + S.
#
# Targets are centred on the middle value of the node's targets first, so that these sums
# stay small deep in the tree.  The runs of deletions are a C kernel (_absolute.h:
# rf_abs_pass).  Missing values take two more runs (see _scan_absolute).  The children of
# the split chosen are then measured exactly (_absolute_children), and those numbers, not
# the running ones, become their impurities and values.
# ----------------------------------------------------------------------------------------

cdef void _absolute_stats(const Builder* B, const key_t* Y, int64_t a, int64_t b,
                          double* weight, double* median, double* sad) noexcept nogil:
    """Weight, weighted median and SAD of the samples Y[a:b) (in increasing y)."""
    cdef int64_t q, qm = a
    cdef double W = 0.0, cum = 0.0, half, med, acc = 0.0, wi
    for q in range(a, b):
        W += _wt(B, Y[q])
    half = 0.5 * W
    for q in range(a, b):
        wi = _wt(B, Y[q])
        if cum + wi > half:
            qm = q
            break
        cum += wi
    med = B.ab.y[Y[qm] & B.key.imask]
    if cum == half and qm > a:
        med = 0.5 * (B.ab.y[Y[qm - 1] & B.key.imask] + med)
    for q in range(a, b):
        acc += _wt(B, Y[q]) * fabs(B.ab.y[Y[q] & B.key.imask] - med)
    weight[0] = W
    median[0] = med
    sad[0] = acc


cdef void _absolute_node(Builder* B, int64_t s, int64_t e) noexcept nogil:
    """Before a node's features are scanned: each sample's local rank, the records, and
    the whole node's state (B.ab.full)."""
    cdef int64_t n = e - s, q, r
    cdef rf_rec* R = B.ab.rec
    cdef rf_abs_state st
    cdef double c, wi, half
    cdef key_t k
    cdef bint unit = True
    c = B.ab.y[B.ab.ylist[s + n // 2] & B.key.imask]
    R[0].w = 0.0
    R[0].y = 0.0
    R[n + 1].w = 0.0
    R[n + 1].y = 0.0
    st.W = 0.0
    st.S = 0.0
    for q in range(s, e):
        k = B.ab.ylist[q]
        r = q - s + 1
        B.ab.rank[k & B.key.imask] = <int32_t> r
        wi = _wt(B, k)
        R[r].w = wi
        R[r].y = B.ab.y[k & B.key.imask] - c
        st.W += wi
        st.S += wi * R[r].y
        unit &= wi == 1.0
    half = 0.5 * st.W
    st.wm = 0.0
    st.sm = 0.0
    st.m = 0
    while st.wm < half and st.m < n:
        st.m += 1
        st.wm += R[st.m].w
        st.sm += R[st.m].w * R[st.m].y
    B.ab.full = st
    B.ab.centre = c
    B.ab.n = n
    B.ab.unit = unit


cdef inline void _abs_pick(const Builder* B, const key_t* L, int64_t s, int64_t lo,
                           int64_t hi, double wl, double wtot, const double* A,
                           const double* R, const double* MA, const double* MR, int cst,
                           double lower, double upper, double* best,
                           int64_t* pos) noexcept nogil:
    """The cuts p in [lo, hi] between distinct values of L, scored A[p - s] + R[p - s]
    (the first of equals kept in best, pos); the left child weighs wl plus L[s:p) (only
    summed with min_weight_leaf), and with MA (the constraint cst) the children's medians
    MA[p - s] and MR[p - s] must keep it and the bounds."""
    cdef int64_t p
    cdef int rs = B.key.rshift
    cdef double minw = B.par.min_weight_leaf, c
    cdef bint weighed = minw > 0.0
    for p in range(s + 1, hi + 1):
        if weighed:
            wl += _wt(B, L[p - 1])
        if p < lo or ((L[p] ^ L[p - 1]) >> rs) == 0:
            continue
        if weighed and (wl < minw or wtot - wl < minw):
            continue
        if MA != NULL and not _values_ok(MA[p - s], MR[p - s], cst, lower, upper):
            continue
        c = A[p - s] + R[p - s]
        if c < best[0]:
            best[0] = c
            pos[0] = p


cdef inline void _abs_run(Builder* B, const key_t* L, int64_t pre_a, int64_t pre_b,
                          int64_t a, int64_t b, int64_t step, double* out, double* med,
                          int64_t base) noexcept nogil:
    """From the whole node less L[pre_a:pre_b) (whose SAD, and median, are recorded first
    at out[a - step - base] when that range is not empty), deletes L[q] for q from a
    towards b (exclusive) by step, recording the SAD (and median) of what is left at
    out[q - base]."""
    cdef rf_abs_state st = B.ab.full
    cdef int64_t tail = B.ab.n + 1
    rf_abs_link(B.ab.rec, B.ab.n)
    if pre_b > pre_a:
        rf_abs_pass(B.ab.rec, B.ab.rank, L, B.key.imask, tail, &st, pre_a, pre_b, 1, NULL,
                    NULL, 0, B.ab.unit)
        out[a - step - base] = rf_abs_sad(B.ab.rec, &st)
        if med != NULL:
            med[a - step - base] = rf_abs_median(B.ab.rec, &st)
    rf_abs_pass(B.ab.rec, B.ab.rank, L, B.key.imask, tail, &st, a, b, step, out, med, base,
                B.ab.unit)


cdef double _scan_absolute(Builder* B, const key_t* L, int64_t s, int64_t e, int64_t nm,
                           double wtot, double best, int64_t* pos, int64_t* ml, int cst,
                           double lower, double upper) noexcept nogil:
    """Best cut of one feature for the absolute error: the proxy -(SAD left + SAD
    right), larger being better, with the candidates and their order those of
    _scan_reference (every cut with the missing samples right, then all present values
    left and the missing ones right, then every cut with them left; the first of
    equals wins).  Without missing values: one backward pass for the left children's
    SAD (A[p - s] for the cut at p), one forward pass for the right ones' (Rc).  With
    them, two more: left children with the missing samples (A2), right ones without
    (R2).  best is the proxy of the features before: a large node without missing
    values scores its right children first, and since a child's SAD cannot grow as
    samples leave it (nor be negative: the kernels hold it at 0 or above), the cuts
    whose right child alone reaches -best cannot win, constrained or not; the backward
    pass stops short of them (the cuts it records are scored exactly as without the
    bound)."""
    cdef int64_t n = B.ab.n, enm = e - nm, msl = B.par.min_samples_leaf, p, lo, hi
    cdef int64_t pos1 = -1, pos2 = -1
    cdef double* A = B.ab.cost
    cdef double* Rc = B.ab.cost + (n + 1)
    cdef double* A2 = B.ab.cost + 2 * (n + 1)
    cdef double* R2 = B.ab.cost + 3 * (n + 1)
    cdef double* MA = NULL
    cdef double* MR = NULL
    cdef double* MA2 = NULL
    cdef double* MR2 = NULL
    cdef double minw = B.par.min_weight_leaf
    cdef double best1 = INFINITY, best2 = INFINITY, c, wl = 0.0
    cdef double wm = 0.0, lc = lower - B.ab.centre, uc = upper - B.ab.centre
    cdef bint weighed = minw > 0.0, constrained = cst != 0
    if constrained:
        MA = B.ab.med
        MR = B.ab.med + (n + 1)
        MA2 = B.ab.med + 2 * (n + 1)
        MR2 = B.ab.med + 3 * (n + 1)
    # the cuts p in [lo, hi] with the missing samples right, [lo2, hi2] with them left
    lo = max(s + msl, s + 1)
    hi = min(enm - 1, e - msl)
    # left children without the missing samples, A[p - s] for p in [lo, enm]; right
    # children with them, Rc[p - s] for p in [s + 1, hi] (and, with missing samples,
    # Rc[enm - s]: the missing samples alone)
    if nm == 0 and n <= 64:
        # a small node: the sets grow from empty as words of bits (rf_abs_small): the
        # prefixes L[s:q + 1) recorded at A[q + 1 - s], the suffixes L[q:e) at Rc[q - s]
        rf_abs_small(B.ab.rec, B.ab.rank, L, B.key.imask, s, hi - s, 1, A, MA, s - 1,
                     B.ab.unit)
        rf_abs_small(B.ab.rec, B.ab.rank, L, B.key.imask, e - 1, e - lo, -1, Rc, MR, s,
                     B.ab.unit)
    elif nm == 0:
        # the right children first; the cuts whose right child alone reaches -best
        # (the features before) cannot win, and the backward pass stops short of them
        _abs_run(B, L, 0, 0, s, hi, 1, Rc, MR, s - 1)
        while lo <= hi and not (Rc[lo - s] < -best):
            lo += 1
        if lo > hi:
            pos[0] = -1
            ml[0] = 0
            return -INFINITY
        _abs_run(B, L, e, e, e - 1, lo - 1, -1, A, MA, s)
    else:
        _abs_run(B, L, enm, e, enm - 1, lo - 1, -1, A, MA, s)
        _abs_run(B, L, 0, 0, s, enm, 1, Rc, MR, s - 1)
    if weighed:
        for p in range(enm, e):
            wm += _wt(B, L[p])
    _abs_pick(B, L, s, lo, hi, 0.0, wtot, A, Rc, MA, MR, cst, lc, uc, &best1, &pos1)
    if nm > 0:
        # all present values left, the missing ones right
        wl = wtot - wm
        if (enm - s >= msl and nm >= msl and (not weighed or (wl >= minw
                                                               and wm >= minw))
                and (not constrained or _values_ok(MA[enm - s], MR[enm - s], cst, lc,
                                                   uc))):
            c = A[enm - s] + Rc[enm - s]
            if c < best1:
                best1 = c
                pos1 = enm
        # left children with the missing samples, A2[p - s] for p in [lo2, enm - 1];
        # right ones without, R2[p - s] for p in [s + 1, enm - msl]
        lo = max(s + msl - nm, s + 1)
        hi = enm - msl
        if hi >= lo:
            _abs_run(B, L, 0, 0, enm - 1, lo - 1, -1, A2, MA2, s)
            _abs_run(B, L, enm, e, s, hi, 1, R2, MR2, s - 1)
            _abs_pick(B, L, s, lo, hi, wm, wtot, A2, R2, MA2, MR2, cst, lc, uc, &best2,
                      &pos2)
    if best2 < best1:
        pos[0] = pos2
        ml[0] = 1
        return -best2
    pos[0] = pos1
    ml[0] = 0
    return -best1 if pos1 >= 0 else -INFINITY


cdef void _absolute_children(Builder* B, const key_t* L, int64_t s, int64_t p,
                             int64_t enm, int64_t e, bint missing_left, bint commit,
                             double* stats) noexcept nogil:
    """Exact weight, median and SAD of the two children of a cut (left: L[s:p), plus the
    missing L[enm:e) when missing_left), into stats[0:3] and stats[3:6]; with commit the
    node's slice of ylist is partitioned for them (left first, both in y order)."""
    cdef key_t* Y = B.ab.ylist
    cdef key_t* T = B.ab.ytmp
    cdef uint64_t im = B.key.imask
    cdef int64_t q, il, ir
    cdef int64_t middle = p + (e - enm if missing_left else 0)
    _mark_sides(B.work.goleft, L, s, p, enm, e, missing_left, im)
    # left keys to T[s:middle), right ones to T[middle:e), each in y order
    il = s
    ir = middle
    for q in range(s, e):
        if _side(B.work.goleft, Y[q] & im):
            T[il] = Y[q]
            il += 1
        else:
            T[ir] = Y[q]
            ir += 1
    _absolute_stats(B, T, s, middle, &stats[0], &stats[1], &stats[2])
    _absolute_stats(B, T, middle, e, &stats[3], &stats[4], &stats[5])
    if commit:
        memcpy(Y + s, T + s, (e - s) * sizeof(key_t))


# ----------------------------------------------------------------------------------------
# Several outputs.  The criterion is the mean over the outputs of each one's absolute
# error (scikit-learn's): each output keeps its own state (its ylist in its own order of
# y, ranks, records), held in B.ab_outputs and swapped into B.ab while it is used
# (_abs_use), and a feature's cuts are scored by the sums over the outputs of their
# children's SADs.  Not with monotonic constraints (one output only).
# ----------------------------------------------------------------------------------------

cdef inline void _abs_use(Builder* B, int64_t o) noexcept nogil:
    """Make output o's state the current one (B.ab)."""
    if o != B.ab_output:
        B.ab_outputs[B.ab_output] = B.ab
        B.ab = B.ab_outputs[o]
        B.ab_output = o


cdef void _absolute_node_outputs(Builder* B, int64_t s, int64_t e) noexcept nogil:
    """_absolute_node for every output."""
    cdef int64_t o
    for o in range(B.data.n_outputs):
        _abs_use(B, o)
        _absolute_node(B, s, e)


cdef double _scan_absolute_outputs(Builder* B, const key_t* L, int64_t s, int64_t e,
                                   int64_t nm, double wtot, int64_t* pos,
                                   int64_t* ml) noexcept nogil:
    """_scan_absolute with several outputs: each output's runs (every cut, with and
    without the missing samples, no bound from the features before), their costs summed
    in B.ab_sum, then the same candidates, order and ties as _scan_absolute."""
    cdef int64_t n = e - s, enm = e - nm, msl = B.par.min_samples_leaf, o, i, lo, hi
    cdef int64_t lo2 = max(s + msl - nm, s + 1), hi2 = enm - msl, pos1 = -1, pos2 = -1
    cdef double* S = B.ab_sum
    cdef double* A
    cdef double minw = B.par.min_weight_leaf, best1 = INFINITY, best2 = INFINITY, c
    cdef double wm = 0.0, wl
    cdef bint weighed = minw > 0.0
    lo = max(s + msl, s + 1)
    hi = min(enm - 1, e - msl)
    memset(S, 0, 4 * (n + 1) * sizeof(double))
    for o in range(B.data.n_outputs):
        _abs_use(B, o)
        A = B.ab.cost
        _abs_run(B, L, enm, e, enm - 1, lo - 1, -1, A, NULL, s)
        _abs_run(B, L, 0, 0, s, enm, 1, A + (n + 1), NULL, s - 1)
        if nm > 0 and hi2 >= lo2:
            _abs_run(B, L, 0, 0, enm - 1, lo2 - 1, -1, A + 2 * (n + 1), NULL, s)
            _abs_run(B, L, enm, e, s, hi2, 1, A + 3 * (n + 1), NULL, s - 1)
        for i in range(4 * (n + 1)):
            S[i] += A[i]
    # (entries a run did not write hold stale sums; _abs_pick reads only written ones)
    if weighed:
        for i in range(enm, e):
            wm += _wt(B, L[i])
    _abs_pick(B, L, s, lo, hi, 0.0, wtot, S, S + (n + 1), NULL, NULL, 0, 0.0, 0.0,
              &best1, &pos1)
    if nm > 0:
        wl = wtot - wm
        if (enm - s >= msl and nm >= msl
                and (not weighed or (wl >= minw and wm >= minw))):
            c = S[enm - s] + S[(n + 1) + enm - s]
            if c < best1:
                best1 = c
                pos1 = enm
        if hi2 >= lo2:
            _abs_pick(B, L, s, lo2, hi2, wm, wtot, S + 2 * (n + 1), S + 3 * (n + 1),
                      NULL, NULL, 0, 0.0, 0.0, &best2, &pos2)
    if best2 < best1:
        pos[0] = pos2
        ml[0] = 1
        return -best2
    pos[0] = pos1
    ml[0] = 0
    return -best1 if pos1 >= 0 else -INFINITY


cdef void _absolute_children_outputs(Builder* B, const key_t* L, int64_t s, int64_t p,
                                     int64_t enm, int64_t e, bint missing_left,
                                     bint commit, double* stats, double* cleft,
                                     double* cright) noexcept nogil:
    """_absolute_children with several outputs: stats as there, with the children's SADs
    summed over the outputs and their medians (stats[1], stats[4]) 0; each output's
    medians into cleft[3 o] and cright[3 o] (the values of the children's nodes, see
    _output_values) when these are not NULL."""
    cdef int64_t o
    cdef double st6[6]
    stats[1] = stats[2] = stats[4] = stats[5] = 0.0
    for o in range(B.data.n_outputs):
        _abs_use(B, o)
        _absolute_children(B, L, s, p, enm, e, missing_left, commit, st6)
        stats[0] = st6[0]
        stats[3] = st6[3]
        stats[2] += st6[2]
        stats[5] += st6[5]
        if cleft != NULL:
            cleft[3 * o] = st6[1]
            cright[3 * o] = st6[4]


cdef void _absolute_root_outputs(Builder* B, int64_t n_act, double* counts,
                                 double* impurity) noexcept nogil:
    """The root's medians (into counts[3 o]) and impurity (the mean over the outputs)."""
    cdef int64_t o
    cdef double w, med, sad, acc = 0.0
    for o in range(B.data.n_outputs):
        _abs_use(B, o)
        _absolute_stats(B, B.ab.ylist, 0, n_act, &w, &med, &sad)
        counts[3 * o] = med
        acc += sad / w
    impurity[0] = acc / B.data.n_outputs
