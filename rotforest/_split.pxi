# The best split of a node over its drawn features.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

cdef void _find_split(Builder* B, int64_t ei) noexcept nogil:
    """Best split of a frontier node; sets its has_split and split fields.

    Features are drawn as scikit-learn draws them: with max_features below n_features,
    uniformly without replacement among all features, every drawn feature counting
    towards max_features whether or not it is constant in the node, until max_features
    are drawn and at least one of them is not constant (or none is left).  Otherwise every
    feature is visited, in a random order (par.shuffle: forests) or in index order.
    Either way, of features whose cuts are exactly as good, the first visited wins."""
    cdef Entry* e = &B.front.ent[ei]
    cdef int64_t K = B.data.n_classes, F = B.data.n_features, s = e.start, end = e.end
    cdef double* counts = B.front.counts + ei * 3 * K
    cdef uint64_t* consts = B.front.constant + ei * B.front.n_words
    cdef const key_t* L
    cdef int64_t f, i, visited = 0, found = 0, pos = -1, best_f = -1, best_p = -1, t2
    cdef int64_t nm, ml = 0, best_nm = 0, best_ml = 0, m1i = 0, mwi = 0, levels = 0
    cdef double best = -INFINITY, proxy, thr = 0.0, perfect, best_thr = 0.0
    cdef bint draw = _draws_features(B)
    cdef bint presorted = e.presorted, multi_int
    cdef bint best_cat = False, best_counted = False, counted
    cdef CatSplit cat
    cdef int64_t* hb = NULL        # histogram nodes: the node's block of counts
    cdef bint fill = False, complete = True
    if B.hist.off != NULL and not presorted:
        if e.hist < 0 and end - s >= B.hist.min_rows:
            e.hist = <int32_t> _hist_acquire(B)
            fill = e.hist >= 0
        if e.hist >= 0:
            hb = B.hist.blocks + e.hist * B.hist.size
    perfect = _perfect_proxy(B, e, counts)
    multi_int = _prepare_node(B, s, end, counts, &t2)
    i = 0
    while i < F:
        if draw and visited >= B.par.max_features and found > 0:
            break
        f = _next_feature(B, i) if draw else i
        i += 1
        visited += 1
        if (consts[f >> 6] >> (f & 63)) & 1:
            continue
        if best >= perfect and best > -INFINITY:
            # no cut can beat the best so far (see perfect): the features left are
            # drawn (the same draws as if scanned), not scanned
            complete = False
            continue
        if B.cat.mask != NULL and B.cat.mask[f]:
            proxy = _categorical_proxy(B, e, f, counts, &levels)
            if levels < 2:
                consts[f >> 6] |= (<uint64_t> 1) << (f & 63)
                continue
            found += 1
            if proxy > best:
                best = proxy
                best_f = f
                best_cat = True
                best_counted = False
                _keep_categorical(B, &cat, counts)
            continue
        if B.par.values:
            # (the next draw's values prefetched while this one counts, unless this
            # is the last draw)
            proxy = _random_values(B, e, f, counts, &nm, &thr, &ml,
                                   i if i < F and (visited < B.par.max_features
                                                   or not draw) else -1)
            if nm < 0:
                consts[f >> 6] |= (<uint64_t> 1) << (f & 63)
                continue
            found += 1
            if proxy > best:
                best = proxy
                best_f = f
                best_thr = thr
                best_nm = nm
                best_ml = ml
                _keep_values(B, counts)
            continue
        if B.col.sparse and B.par.random_split and not B.par.absolute:
            # a random cut of a sparse column: from its entries in the node (see there)
            proxy = _sparse_random(B, e, f, counts, &nm, &thr, &ml, &levels)
            if levels < 2:
                consts[f >> 6] |= (<uint64_t> 1) << (f & 63)
                continue
            found += 1
            if proxy > best:
                best = proxy
                best_f = f
                best_cat = False
                best_p = -1          # (found by _finish_split in the sorted keys)
                best_thr = thr
                best_nm = nm
                best_ml = ml
                best_counted = True
            continue
        counted = hb != NULL and _hist_counted(B, f)
        if counted:
            proxy = _hist_proxy(B, e, f, hb + B.hist.off[f], fill, counts, best, &pos,
                                &levels)
        elif not presorted and _hist_counts_alone(B, e, f):
            counted = True
            proxy = _hist_proxy(B, e, f, B.hist.scratch, True, counts, best, &pos,
                                &levels)
        elif not presorted and (_counts_feature(B, f) or _sparse_scans(B, f)):
            counted = True
            proxy = _counted_proxy(B, e, f, counts, best, &pos, &levels)
        else:
            L = _sorted_keys(B, e, f)
        if (levels < 2) if counted else (L == NULL):
            consts[f >> 6] |= (<uint64_t> 1) << (f & 63)
            continue
        found += 1
        nm = ml = m1i = mwi = 0
        if B.data.any_missing and B.work.nan_rank[f] != NO_NAN:
            nm = _missing_tail(B, L, s, end, B.work.nan_rank[f], &m1i, &mwi)
        if not counted:          # (a counted feature has its proxy and pos already)
            proxy = _scan_numeric(B, e, L, f, nm, m1i, mwi, counts, best, multi_int, t2,
                                  &pos, &thr, &ml)
        if proxy > best:
            best = proxy
            best_f = f
            best_cat = False
            best_p = pos
            best_thr = thr
            best_nm = nm
            best_ml = ml
            best_counted = counted
            if not presorted and not counted:   # keep the best feature's sorted keys
                _keep_sorted_keys(B)
    if fill:
        e.hist_full = complete
    e.has_split = 0
    if best_f < 0:
        return
    if best_cat:
        _categorical_split(B, e, best_f, &cat)
        return
    if B.par.values:
        _finish_values_split(B, e, best_f, best_thr, best_nm, best_ml)
        return
    _finish_split(B, e, best_f, best_p, best_thr, best_nm, best_ml, best_counted)


cdef inline bint _prepare_node(Builder* B, int64_t s, int64_t end, const double* counts,
                               int64_t* t2) noexcept nogil:
    """What every feature's scan of the node reads: the absolute error's node state, the
    multiclass kernel's integer class weights (returned: whether the node takes them;
    their sum of squares in t2) and, for random cuts on the values, the node's classes
    (work.present)."""
    cdef int64_t c, K = B.data.n_classes
    cdef bint multi_int
    if B.ab_outputs != NULL:
        _absolute_node_outputs(B, s, end)
    elif B.par.absolute:
        _absolute_node(B, s, end)
    multi_int = _multi_int_counts(B, counts, t2)
    B.work.n_present = -1
    if (B.par.values and K > 2 and B.key.packed and not B.data.regression
            and B.data.n_outputs == 1):
        # the node's classes: the counts and proxies of its random cuts skip the others
        B.work.n_present = 0
        for c in range(K):
            if counts[c] > 0.0:
                B.work.present[B.work.n_present] = c
                B.work.n_present += 1
    return multi_int


cdef inline void _keep_categorical(Builder* B, CatSplit* cat,
                                   double* counts) noexcept nogil:
    """A categorical feature's split became the best: the candidate's sets become the
    best's (cat), the spare ones the next candidate's; its sides' class weights are kept
    (in the node's cleft and cright, after its counts)."""
    cdef int64_t K = B.data.n_classes
    cat[0] = B.cat.cand
    B.cat.cand.left = B.cat.spare
    B.cat.cand.codes = B.cat.spare + B.cat.rank_words
    B.cat.spare = cat.left
    memcpy(counts + K, B.cat.cl, K * sizeof(double))
    memcpy(counts + 2 * K, B.cat.cr, K * sizeof(double))


cdef inline void _keep_values(Builder* B, double* counts) noexcept nogil:
    """A random cut on the values became the best: keeps its feature's values (and its
    left side's class weights, in the node's cleft after its counts)."""
    B.col.vals[0], B.col.vals[1] = B.col.vals[1], B.col.vals[0]
    if _values_counted(B):
        _keep_left(B, counts + B.data.n_classes)


cdef inline void _keep_sorted_keys(Builder* B) noexcept nogil:
    """A sorting node's feature became the best: its sorted keys are kept (the next
    feature sorts into the other buffer)."""
    cdef key_t* swap = B.col.sorted_keys[0]
    B.col.sorted_keys[0] = B.col.sorted_keys[1]
    B.col.sorted_keys[1] = swap


cdef inline double _counted_proxy(Builder* B, const Entry* e, int64_t f,
                                  const double* counts, double best, int64_t* pos,
                                  int64_t* levels) noexcept nogil:
    """The best cut of feature f of a sorting node that counts it instead of sorting it
    (few values, or a sparse column's entries: its keys are sorted only if it wins): its
    proxy, position and the levels the node holds."""
    if B.col.sparse:
        return _sparse_scan(B, e, f, counts, best, pos, levels)
    elif B.data.n_classes == 2:
        return _count_gini2(B, f, e.start, e.end, counts, e.weight, best, pos, levels)
    return _count_gini_multi(B, f, e.start, e.end, counts, e.weight, best, pos, levels)


cdef inline const key_t* _sorted_keys(Builder* B, const Entry* e, int64_t f) noexcept nogil:
    """Feature f's keys of the node in order: the presorted list's slice, or the node's
    keys sorted here (_node_keys); NULL where the feature is constant in the node."""
    cdef const key_t* L
    if e.presorted:
        L = B.col.lists + f * B.data.n_active
        if ((L[e.start] ^ L[e.end - 1]) >> B.key.rshift) == 0:
            return NULL
        return L
    return _node_keys(B, f, e.start, e.end)


cdef inline bint _values_counted(const Builder* B) noexcept nogil:
    """Whether random cuts on the values count a side's class weights as exact integers
    (one class output, integer weights): the best cut's are then kept as found."""
    return B.key.packed and not B.data.regression and B.data.n_outputs == 1


cdef inline void _keep_left(Builder* B, double* cleft) noexcept nogil:
    """Copies the class weights of the cut just counted (work.cl: the node's classes'
    only, where it lists them) to cleft, zeros for the other classes."""
    cdef int64_t g, c
    if B.work.n_present >= 0:
        memset(cleft, 0, B.data.n_classes * sizeof(double))
        for g in range(B.work.n_present):
            c = B.work.present[g]
            cleft[c] = B.work.cl[c]
    else:
        memcpy(cleft, B.work.cl, B.data.n_classes * sizeof(double))


cdef inline bint _counts_feature(const Builder* B, int64_t f) noexcept nogil:
    """A sorting node counts feature f instead of sorting it: few values (col.few),
    none missing, no monotonic constraint, no forced reference scan."""
    return (B.col.few != NULL and B.col.few[f] and B.work.nan_rank[f] == NO_NAN
            and (B.data.monotonic == NULL or B.data.monotonic[f] == 0)
            and not B.par.reference)


cdef inline bint _draws_features(const Builder* B) noexcept nogil:
    """Whether a node draws its features at random (else it visits them in order)."""
    return B.par.max_features < B.data.n_features or B.par.shuffle


cdef inline int64_t _draw_slot(const Builder* B, uint64_t* rng, int64_t i) noexcept nogil:
    """Where in work.feats the node's i-th draw lies, drawn from the generator rng."""
    return i + <int64_t> _rand_below(rng, B.data.n_features - i)


cdef inline int64_t _next_feature(Builder* B, int64_t i) noexcept nogil:
    """The node's i-th drawn feature: work.feats is a permutation of the features kept
    from node to node, whose first i are this node's draws so far (any arrangement of the
    rest is as good)."""
    cdef int64_t j = _draw_slot(B, &B.rng, i)
    cdef int64_t f = B.work.feats[j]
    B.work.feats[j] = B.work.feats[i]
    B.work.feats[i] = f
    return f


cdef inline bint _multi_int_counts(Builder* B, const double* counts,
                                   int64_t* t2) noexcept nogil:
    """Whether the node's features take the multiclass Gini kernel, which reads the
    node's class weights as integers (in cri) and the sum of their squares (t2), the
    same for every feature (with the kernels on, no other scan at such a node writes
    cri: _scan_reference and the categorical scans keep doubles, and _gini_multi_cuts
    writes it only on the portable path)."""
    cdef int64_t c
    if not (B.par.criterion == CRIT_GINI and B.data.n_classes > 2 and B.key.packed
            and B.par.min_weight_leaf == 0.0 and not B.par.random_split
            and B.data.n_outputs == 1):
        return False
    t2[0] = 0
    for c in range(B.data.n_classes):
        B.work.cri[c] = <int64_t> counts[c]
        t2[0] += B.work.cri[c] * B.work.cri[c]
    return True


cdef inline double _categorical_proxy(Builder* B, const Entry* e, int64_t f,
                                      const double* counts, int64_t* levels) noexcept nogil:
    """The best split of categorical feature f on sets of its levels (see
    _categorical.pxi), and how many levels the node holds (1 from the presorted list
    when it is constant there)."""
    cdef const key_t* L
    if e.presorted:
        L = B.col.lists + f * B.data.n_active
        if ((L[e.start] ^ L[e.end - 1]) >> B.key.rshift) == 0:
            levels[0] = 1
            return -INFINITY
    return _scan_categorical(B, f, e.start, e.end, e.presorted, counts, e.weight, levels)


cdef inline double _perfect_proxy(const Builder* B, const Entry* e,
                                  const double* counts) noexcept nogil:
    """A best proxy from which no cut of the node can be strictly better (INFINITY: none
    known), so that the features left are drawn but not scanned.  With two samples, any
    cut (every cut is the same partition); the absolute error's 0 (the kernels hold
    every sum of absolute deviations at 0 or above); with integer weights, Gini's and
    the misclassification rate's node weight, reached exactly by a cut into pure
    children and by no other (another falls short by about 1 or more, the sums being
    exact integers), and entropy's 0, which a cut into pure children reaches up to
    rounding and no other comes near (every such cut is the same partition, the two
    classes of the node on either side); two classes with Gini are scored on the
    two-class scans' scale (l1^2/wl + r1^2/wr, see _proxy_moved), whose pure children
    reach the node's class-1 weight ``counts[1]`` exactly.  Not with random cuts: each
    feature draws its threshold."""
    cdef double perfect = INFINITY
    if B.par.random_split:
        pass
    elif e.end - e.start == 2:
        perfect = -INFINITY
    elif B.par.absolute:
        perfect = 0.0
    elif B.key.packed and not B.data.regression and B.data.n_outputs == 1:
        if B.par.criterion == CRIT_ENTROPY:
            perfect = 0.0
        elif B.par.criterion == CRIT_GINI and B.data.n_classes == 2:
            perfect = counts[1]
        else:
            perfect = e.weight
    return perfect


cdef void _finish_split(Builder* B, Entry* e, int64_t best_f, int64_t best_p,
                        double best_thr, int64_t best_nm, bint best_ml,
                        bint best_counted) noexcept nogil:
    """Completes a node's split on numeric feature best_f at position best_p of its keys
    (best_nm of them missing, which go left when best_ml): the children's exact class
    counts (or target sums) and weights, their impurities, the improvement, the
    threshold; has_split stays 0 when the improvement falls short."""
    cdef int64_t K = B.data.n_classes, s = e.start, end = e.end, enm, n_left, c, q
    cdef int64_t ei = e - B.front.ent
    cdef double* cleft = B.front.counts + ei * 3 * K + K
    cdef double* cright = cleft + K
    cdef const key_t* L
    cdef key_t* swap
    cdef double wl, wr, wi, a, b, thr
    cdef double st6[6]
    if best_counted:
        # the counted winner's keys, sorted now (not constant: it has a cut)
        _node_keys(B, best_f, s, end)
        swap = B.col.sorted_keys[0]
        B.col.sorted_keys[0] = B.col.sorted_keys[1]
        B.col.sorted_keys[1] = swap
    # exact class counts (or target sums) of both children
    L = B.col.lists + best_f * B.data.n_active if e.presorted else B.col.sorted_keys[1]
    enm = end - best_nm
    if best_p < 0:
        # a random cut of a sparse column (_sparse_random): its position
        best_p = _first_above(B, best_f, L, s, enm, best_thr)
    e.split.cut_rank = (L[best_p] >> B.key.rshift) if best_p < enm \
        else B.work.nan_rank[best_f]
    for c in range(K):
        cleft[c] = 0.0
        cright[c] = 0.0
    wl = 0.0
    wr = 0.0
    if B.par.absolute:
        # the children measured exactly (not from the scan's running sums): weights,
        # medians, summed absolute deviations; the node's slice of ylist partitioned for
        # them (their sums of w y are not needed)
        if B.ab_outputs != NULL:
            _absolute_children_outputs(B, L, s, best_p, enm, end, best_ml, True, st6,
                                       cleft, cright)
        else:
            _absolute_children(B, L, s, best_p, enm, end, best_ml, True, st6)
        wl = st6[0]
        wr = st6[3]
    elif B.key.packed and K == 2 and not B.data.regression and B.data.n_outputs == 1:
        # integer sums in registers (the loop below carries a dependency through memory
        # whenever neighbours share a class); the same exact values
        _add_counts2(B, L, s, best_p, cleft, &wl)
        _add_counts2(B, L, best_p, enm, cright, &wr)
        if best_ml:
            _add_counts2(B, L, enm, end, cleft, &wl)
        else:
            _add_counts2(B, L, enm, end, cright, &wr)
    else:
        for q in range(s, best_p):
            wi = _wt(B, L[q])
            _accumulate(B, L[q], wi, cleft)
            wl += wi
        for q in range(best_p, enm):
            wi = _wt(B, L[q])
            _accumulate(B, L[q], wi, cright)
            wr += wi
        for q in range(enm, end):
            wi = _wt(B, L[q])
            if best_ml:
                _accumulate(B, L[q], wi, cleft)
                wl += wi
            else:
                _accumulate(B, L[q], wi, cright)
                wr += wi
    n_left = best_p - s + (best_nm if best_ml else 0)
    e.split.feature = best_f
    e.split.pos = best_p
    e.split.n_missing = best_nm
    # with no missing sample here, NaN at predict time follows the larger child
    e.split.missing_left = best_ml if best_nm > 0 else (n_left > (end - s) - n_left)
    e.split.weight_left = wl
    e.split.weight_right = wr
    if B.par.absolute:
        e.split.impurity_left = st6[2] / wl / B.data.n_outputs
        e.split.impurity_right = st6[5] / wr / B.data.n_outputs
        e.split.value_left = st6[1]
        e.split.value_right = st6[4]
    else:
        e.split.impurity_left = _impurity(B, cleft, wl)
        e.split.impurity_right = _impurity(B, cright, wr)
    if not _improvement(B, e, cleft, cright):
        return
    if B.par.random_split:
        e.split.threshold = best_thr
    elif best_p == enm:
        # all present values left, the missing ones right: NaN <= inf is false
        e.split.threshold = INFINITY
    else:
        # midpoint of the two neighbours, never rounded up onto the right one
        a = _key_value(B, best_f, L[best_p - 1])
        b = _key_value(B, best_f, L[best_p])
        thr = a / 2.0 + b / 2.0
        if thr >= b or not isfinite(thr):
            thr = a
        e.split.threshold = thr
    e.has_split = 1


cdef inline double _scan(Builder* B, const key_t* L, int64_t s, int64_t e,
                         const double* tot, double wtot, int64_t* pos,
                         acc_t zero) noexcept nogil:
    """One feature's scan for the criterion, without missing values or constraints
    (_scan_numeric routes those, and numeric targets, itself); a criterion without a
    scan of its own takes the reference scan, never another criterion's."""
    cdef int64_t ml = 0
    if B.par.criterion == CRIT_GINI:
        return _scan_gini(B, L, s, e, tot, wtot, pos, zero)
    elif B.par.criterion == CRIT_ENTROPY:
        return _scan_entropy(B, L, s, e, tot, wtot, pos, zero)
    elif B.par.criterion == CRIT_ERROR:
        return _scan_error(B, L, s, e, tot, wtot, pos, zero)
    # a criterion without a scan of its own: the reference scan (never another's)
    return _scan_reference(B, L, s, e, 0, tot, wtot, pos, &ml)


cdef inline double _scan_numeric(Builder* B, Entry* e, const key_t* L, int64_t f,
                                 int64_t nm, int64_t m1i, int64_t mwi, const double* counts,
                                 double best, bint multi_int, int64_t t2, int64_t* pos,
                                 double* thr, int64_t* ml) noexcept nogil:
    """The best cut of one numeric feature of a node (its keys ``L``, nm of them missing
    at the end of ``L[start:end)``): the scan for the criterion and the case at hand,
    each named; ``best`` is the node's best proxy so far, which some scans only need to
    beat.  Returns the cut's proxy (-inf: none) and sets pos, thr (random cuts) and ml
    (missing values left)."""
    cdef int64_t s = e.start, end = e.end, K = B.data.n_classes
    cdef double proxy
    if B.par.random_split:
        proxy = _random_split(B, L, f, s, end, nm, counts, e.weight, pos, thr, ml,
                              e.lower, e.upper)
    elif B.ab_outputs != NULL:
        proxy = _scan_absolute_outputs(B, L, s, end, nm, e.weight, pos, ml)
    elif B.par.absolute:
        proxy = _scan_absolute(B, L, s, end, nm, e.weight, best, pos, ml,
                               B.data.monotonic[f] if B.data.monotonic != NULL else 0,
                               e.lower, e.upper)
    elif (B.data.n_outputs > 1 and nm == 0 and not B.par.reference
            and B.par.criterion in (CRIT_GINI, CRIT_SQUARED, CRIT_FRIEDMAN)):
        # several outputs, the common case: the reference scan's cuts, faster
        ml[0] = 0
        proxy = _scan_outputs(B, L, s, end, counts, e.weight, pos)
    elif (B.par.reference or B.data.n_outputs > 1
            or (B.data.monotonic != NULL and B.data.monotonic[f] != 0)):
        # a constrained feature: the reference scan, checking every cut; several
        # outputs: the reference scan, which reads their targets from memory
        proxy = _scan_reference(B, L, s, end, nm, counts, e.weight, pos, ml,
                                B.data.monotonic[f] if B.data.monotonic != NULL else 0,
                                e.lower, e.upper)
    elif B.par.criterion == CRIT_GINI and K == 2:
        if B.key.packed:
            proxy = _scan_gini_binary(B, L, s, end, nm, counts, e.weight, best, pos,
                                      ml, <int64_t> 0, m1i, mwi)
        else:
            proxy = _scan_gini_binary(B, L, s, end, nm, counts, e.weight, best, pos,
                                      ml, <double> 0.0, 0, 0)
    elif B.data.regression:
        # the cuts beating the features before (see there)
        proxy = _scan_regression(B, L, s, end, nm, counts, e.weight, best, pos, ml)
    elif nm > 0 and multi_int:
        # more than two classes with missing values: the runs of cuts with them right
        # and left (see there), on the AVX-512 kernel where present
        proxy = _scan_gini_multi_missing(B, L, s, end, nm, counts, t2, e.weight, best,
                                         pos, ml)
    elif nm > 0 and B.par.criterion == CRIT_ENTROPY:
        # the same two runs on the entropy scan
        if B.key.packed:
            proxy = _scan_entropy_missing(B, L, s, end, nm, counts, e.weight, best,
                                          pos, ml, <int64_t> 0)
        else:
            proxy = _scan_entropy_missing(B, L, s, end, nm, counts, e.weight, best,
                                          pos, ml, <double> 0.0)
    elif nm > 0:
        proxy = _scan_reference(B, L, s, end, nm, counts, e.weight, pos, ml)
    elif (B.par.criterion == CRIT_ENTROPY and K == 2 and B.key.packed
            and B.par.use_avx512 and B.work.xlogx_table != NULL
            and B.par.min_weight_leaf == 0.0):
        # the cuts of the AVX-512 kernel that beat the features before (see there)
        pos[0] = -1
        proxy = best
        rf_entropy_binary_avx512(L, s, end - B.par.min_samples_leaf,
                                 s + B.par.min_samples_leaf, end - B.par.min_samples_leaf,
                                 B.key.cshift, B.key.rshift, B.key.wshift, B.key.wmask,
                                 counts[1], e.weight, B.work.xlogx_table, &proxy, pos)
        if pos[0] < 0:
            proxy = -INFINITY
    elif multi_int:
        # more than two classes: the cuts that beat the features before, on the
        # AVX-512 kernel where present (see there)
        memset(B.work.cli, 0, K * sizeof(int64_t))
        proxy = _gini_multi_cuts(B, L, s, end - B.par.min_samples_leaf,
                                 s + B.par.min_samples_leaf, counts, t2, e.weight, best,
                                 pos)
    elif B.key.packed:
        proxy = _scan(B, L, s, end, counts, e.weight, pos, <int64_t> 0)
    else:
        proxy = _scan(B, L, s, end, counts, e.weight, pos, <double> 0.0)
    return proxy


cdef bint _improvement(const Builder* B, Entry* e, const double* cleft,
                       const double* cright) noexcept nogil:
    """Sets the split's improvement (scikit-learn's weighted impurity decrease); whether
    it reaches min_impurity_decrease."""
    cdef double wl = e.split.weight_left, wr = e.split.weight_right, a = 0.0
    cdef int64_t o
    if B.par.criterion == CRIT_FRIEDMAN:
        # Friedman's improvement (scikit-learn's: not scaled by the node's weight share;
        # several outputs: of their mean target)
        for o in range(B.data.n_outputs):
            a += wr * cleft[3 * o] - wl * cright[3 * o]
        a /= B.data.n_outputs
        e.split.improvement = a * a / (wl * wr * e.weight)
    else:
        e.split.improvement = (e.weight / B.data.total_weight) * (
            e.impurity - (wr / e.weight) * e.split.impurity_right
            - (wl / e.weight) * e.split.impurity_left)
    return e.split.improvement + EPSILON >= B.par.min_impurity_decrease


cdef void _categorical_split(const Builder* B, Entry* e, int64_t f,
                             const CatSplit* cat) noexcept nogil:
    """Completes a node's split on categorical feature f, its children's sums already
    in the entry's counts: the left child will hold [start, pos) of every list."""
    cdef int64_t K = B.data.n_classes
    cdef const double* cleft = B.front.counts + (e - B.front.ent) * 3 * K + K
    e.split.feature = f
    e.split.pos = e.start + cat.nl
    e.split.n_missing = cat.nm
    e.split.missing_left = cat.ml
    e.split.weight_left = cat.wl
    e.split.weight_right = cat.wr
    e.split.impurity_left = _impurity(B, cleft, cat.wl)
    e.split.impurity_right = _impurity(B, cleft + K, cat.wr)
    e.split.threshold = NAN
    e.split.cut_rank = 0
    memcpy(_entry_sets(B, e - B.front.ent), cat.left, B.front.set_words * sizeof(uint64_t))
    if _improvement(B, e, cleft, cleft + K):
        e.has_split = 1
