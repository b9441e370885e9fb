# Categorical features on bins: splits on sets of levels.
# Included by _hist.pyx (one compiled module).
#
# A categorical feature grows on bins only when each of its bins holds one level (the
# levels of every row, at most max_bins of them; _bins.binned_features): bin b is the
# feature's b-th smallest code, the missing values are bin 255.  A node's histogram of
# such a feature is then the exact builder's sums by level (class weights, or the weight
# and the sum of w y; the sample counts), and the search is the exact builder's
# (_categorical.pxi) on those sums, in the same order of levels (increasing code, the
# missing values last): levels of fewer than min_category_samples samples pooled into
# one, two classes and regression by the cuts of the levels' order by class-1 share
# (mean), more classes by every partition up to CAT_SET_EXACT levels, else the cuts of
# the principal axis of the class shares (or each class's share, by the exact
# builder's setting); several outputs as more classes, but by each class's share of
# every output (each output's mean) in turn, the last level on the right.  The
# winner is a bitmap of the bins that go left (the missing one included), the
# partition reads it as a table of 256 bytes (rf_hpart_set), and the tree's sets of
# codes are written once the tree is grown (_code_sets: codes absent from the node go
# where its missing values go, the shorter of the two forms, as _builder's
# _store_set).

cdef extern from "_categories.h":
    void rf_cat_axis_order(const double* stat, const double* w, const int64_t* sv,
                           int64_t m, int64_t K, double a, double* mean, double* axis,
                           rf_vi* ord) noexcept nogil


DEF CAT_SET_EXACT = 10      # more classes: every partition up to this many levels (the
                            # exact builder's CAT_EXACT_MAX)
DEF POOL = NBINS            # the slot of the pooled rare levels
DEF AXIS = -2               # (_cat_search: the best cut is of the principal axis' order)


cdef struct HCat:
    int64_t support                 # min_category_samples
    int rare, orders                # the exact builder's settings (_CAT_RARE, _CAT_ORDERS)
    double shrink                   # (rare == 1) the prior's weight in the orders
    const uint8_t* setf             # per feature: 1 when split on sets in this tree
    int64_t m_all                   # the node's levels, and the scanned ones:
    int64_t lv[NBINS]               # the levels present (bins, increasing)
    int64_t sv[NBINS + 1]           # the scanned levels (a pool last)
    int64_t grp[NBINS]              # each present level's scanned level
    rf_vi ord[NBINS + 1]
    uint8_t side[NBINS + 1]         # per scanned level: 1 left
    double* stat                    # (NBINS + 1) x S: each level's statistics
    double w[NBINS + 1]
    int64_t n[NBINS + 1]
    double* mean                    # S
    double* axis                    # 3 K + K K (the principal axis' work)
    double* cl                      # S: running left sums
    double* cr                      # S
    # the splits made, for their sets of codes: per split its node, and the bins that
    # go left and those present (4 words each)
    uint64_t* out
    int64_t out_n, out_cap


cdef int _cat_alloc(HCat* C, int64_t S, int64_t K) noexcept nogil:
    C.stat = <double*> malloc((NBINS + 1) * S * sizeof(double))
    C.mean = <double*> malloc(S * sizeof(double))
    C.axis = <double*> malloc((3 * K + K * K) * sizeof(double))
    C.cl = <double*> malloc(S * sizeof(double))
    C.cr = <double*> malloc(S * sizeof(double))
    C.out_cap = 16
    C.out = <uint64_t*> malloc(C.out_cap * 9 * sizeof(uint64_t))
    if (C.stat == NULL or C.mean == NULL or C.axis == NULL or C.cl == NULL
            or C.cr == NULL or C.out == NULL):
        return -1
    return 0


cdef void _cat_setup(HB* B, categories, int64_t support, int orders, int rare,
                    int64_t K) except *:
    """B.cat (allocated by the caller) set for build_tree's checked ``categories``."""
    cdef const uint8_t[::1] mask = categories[0]
    cdef HCat* C = B.cat
    C.setf = &mask[0]           # (the caller holds the array)
    C.support = max(support, 1)
    C.orders = orders
    C.rare = rare
    B.need_counts = B.need_counts or C.support > 1
    if _cat_alloc(C, B.S, K) < 0:
        _cat_free(C)
        B.cat = NULL
        raise MemoryError("not enough memory to grow the tree")


cdef object _cat_sets(const HCat* C, nodes, categories):
    """The tree's sets of codes (see _code_sets), or None."""
    if C.out_n == 0:
        return None
    made = np.empty((C.out_n, 9), dtype=np.uint64)
    memcpy(<void*> <size_t> made.ctypes.data, C.out, C.out_n * 9 * sizeof(uint64_t))
    return _code_sets(made, nodes, categories[2], categories[1])


cdef void _cat_free(HCat* C) noexcept nogil:
    free(C.stat)
    free(C.mean)
    free(C.axis)
    free(C.cl)
    free(C.cr)
    free(C.out)


cdef inline double _set_proxy(const HB* B, const double* cl, const double* cr,
                              double wl, double wr) noexcept nogil:
    """The proxy of a split whose sides' statistics are cl, cr (the histograms' units)."""
    return _side_proxy(B, cl, wl) + _side_proxy(B, cr, wr)


cdef inline void _cat_move(HB* B, HCat* C, int64_t r, double sign, double* wl,
                           int64_t* nl) noexcept nogil:
    """Level (slot) r joins (sign 1) or leaves (sign -1) the left sums C.cl."""
    cdef int64_t k
    cdef const double* st = C.stat + r * B.S
    for k in range(B.S):
        C.cl[k] += sign * st[k]
    wl[0] += sign * C.w[r]
    nl[0] += <int64_t> sign * C.n[r]


cdef inline double _cat_score(HB* B, HCat* C, const double* tot, double W, double wl,
                              int64_t nl, int64_t N) noexcept nogil:
    """The proxy of the split whose left sums are C.cl (-inf when it breaks the leaf
    limits)."""
    cdef int64_t k
    cdef double wr = W - wl
    if (nl < B.min_leaf or N - nl < B.min_leaf or wl < B.min_weight_leaf
            or wr < B.min_weight_leaf or wl <= 0.0 or wr <= 0.0):
        return -INFINITY
    for k in range(B.S):
        C.cr[k] = tot[k] - C.cl[k]
    return _set_proxy(B, C.cl, C.cr, wl, wr)


cdef void _cat_order(HB* B, HCat* C, int64_t m, int64_t stat) noexcept nogil:
    """C.ord: the scanned levels by increasing statistic ``stat`` per unit weight (a
    class's share, the mean), ties in increasing level."""
    cdef int64_t j, r
    cdef double a = C.shrink, prior = 0.0
    if a > 0.0:
        prior = a * C.mean[stat]
    for j in range(m):
        r = C.sv[j]
        C.ord[j].v = (C.stat[r * B.S + stat] + prior) / (C.w[r] + a)
        C.ord[j].i = j
    qsort(C.ord, m, sizeof(rf_vi), rf_cmp_vi)


cdef void _cat_axis_order(HB* B, HCat* C, int64_t m) noexcept nogil:
    """C.ord: the scanned levels by their class shares projected on the first principal
    axis of those shares (_categories.h: the exact builder's order)."""
    rf_cat_axis_order(C.stat, C.w, C.sv, m, B.K, C.shrink, C.cl, C.axis, C.ord)


cdef double _cat_cuts(HB* B, HCat* C, int64_t m, int64_t N, const double* tot,
                      double W, int64_t* best_k) noexcept nogil:
    """The best cut of the order C.ord: its proxy, and in best_k the number of levels
    that go left (unchanged when no cut is valid)."""
    cdef int64_t k, nl = 0
    cdef double wl = 0.0, proxy, best = -INFINITY
    for k in range(B.S):
        C.cl[k] = 0.0
    for k in range(m - 1):
        _cat_move(B, C, C.sv[C.ord[k].i], 1.0, &wl, &nl)
        proxy = _cat_score(B, C, tot, W, wl, nl, N)
        if proxy > best:
            best = proxy
            best_k[0] = k + 1
    return best


cdef int64_t _cat_levels(HB* B, HCat* C, HSet hs, int64_t q, const int64_t* bins,
                         int64_t nb, bint missing) noexcept nogil:
    """The node's levels of slot q (its non-empty bins, the missing one last) with their
    statistics, weights and counts (1 each when not counted: every limit on counts is
    then 1); the scanned ones (C.sv, C.grp): those of at least min_category_samples
    samples, and one pooling the others (slot POOL, last), if any.  Returns the number
    scanned."""
    cdef int64_t S = B.S, j, k, r, m = 0, mq = 0
    cdef const double* h
    cdef bint pooled = False
    for j in range(nb):
        C.lv[m] = bins[j]
        m += 1
    if missing:
        C.lv[m] = MISSING
        m += 1
    C.m_all = m
    for j in range(m):
        r = C.lv[j]
        h = hs.h + (q * NBINS + r) * S
        memcpy(C.stat + r * S, h, S * sizeof(double))
        if B.regression:
            C.w[r] = h[0]
        else:
            # (several outputs: each one's class weights sum to the weight)
            C.w[r] = 0.0
            for k in range(B.out_off[1] if B.n_out > 1 else S):
                C.w[r] += h[k]
        C.n[r] = hs.cnt[q * NBINS + r] if B.need_counts else 1
    for j in range(m):
        r = C.lv[j]
        if C.n[r] >= C.support:
            C.grp[j] = mq
            C.sv[mq] = r
            mq += 1
            continue
        if not pooled:
            pooled = True
            memset(C.stat + POOL * S, 0, S * sizeof(double))
            C.w[POOL] = 0.0
            C.n[POOL] = 0
        for k in range(S):
            C.stat[POOL * S + k] += C.stat[r * S + k]
        C.w[POOL] += C.w[r]
        C.n[POOL] += C.n[r]
        C.grp[j] = -1
    if pooled:
        for j in range(m):
            if C.grp[j] < 0:
                C.grp[j] = mq
        C.sv[mq] = POOL
        mq += 1
    return mq


cdef double _cat_search(HB* B, HCat* C, int64_t m, const double* tot, double W,
                        int64_t N) noexcept nogil:
    """The best partition of the m scanned levels: its proxy (-inf when none is valid),
    its sides in C.side."""
    cdef int64_t K = B.K, j, k, c, o, best_k = 0, best_c = -1, nl = 0
    cdef bint two = (B.regression or K <= 2) and B.n_out == 1
    cdef uint64_t g, mask = 0, best_mask = 0
    cdef double best = -INFINITY, proxy, wl = 0.0
    cdef int b
    if two:
        _cat_order(B, C, m, 1 if B.S >= 2 else 0)
        best = _cat_cuts(B, C, m, N, tot, W, &best_k)
        best_c = 0
    elif m <= CAT_SET_EXACT:
        # every partition with the last level on the right, in Gray code order
        for c in range(B.S):
            C.cl[c] = 0.0
        for g in range(1, (<uint64_t> 1) << (m - 1)):
            b = 0
            while not ((g >> b) & 1):
                b += 1
            _cat_move(B, C, C.sv[b], -1.0 if (mask >> b) & 1 else 1.0, &wl, &nl)
            mask ^= (<uint64_t> 1) << b
            proxy = _cat_score(B, C, tot, W, wl, nl, N)
            if proxy > best:
                best = proxy
                best_mask = mask
        for j in range(m):
            C.side[j] = <uint8_t> ((best_mask >> j) & 1)
        return best
    else:
        # the principal axis (one output), and/or the order by each class's share
        # (several outputs: every output's classes, or each output's mean, in turn)
        if C.orders != 0 and B.n_out == 1:
            _cat_axis_order(B, C, m)
            k = best_k
            proxy = _cat_cuts(B, C, m, N, tot, W, &k)
            if proxy > best:
                best = proxy
                best_k = k
                best_c = AXIS
        for o in range(B.n_out if B.regression else K):
            if C.orders == 1 and B.n_out == 1:
                break
            c = 1 + o if B.regression else o
            if not B.regression and tot[c] <= 0.0:
                continue
            _cat_order(B, C, m, c)
            k = best_k
            proxy = _cat_cuts(B, C, m, N, tot, W, &k)
            if proxy > best:
                best = proxy
                best_k = k
                best_c = c
    if best_c == -1:
        return best
    if not two:
        if best_c == AXIS:
            if C.orders != 1:
                _cat_axis_order(B, C, m)
        else:
            _cat_order(B, C, m, best_c)
    memset(C.side, 0, m)
    for k in range(best_k):
        C.side[C.ord[k].i] = 1
    if B.n_out > 1 and C.side[m - 1]:
        # the last level on the right (the exact builder's orientation with several
        # outputs, whose orders may find one partition either way round)
        for j in range(m):
            C.side[j] = 1 - C.side[j]
    return best


cdef void _scan_set(HB* B, HSet hs, int64_t q, int64_t f, const double* tot, double W,
                    int64_t N, const int64_t* bins, int64_t nb, bint missing,
                    HSplit* best) noexcept nogil:
    """The best split of slot q (categorical feature f) on sets of its levels into
    ``best`` when it beats it."""
    cdef HCat* C = B.cat
    cdef int64_t m, j, r, k, nm = 0
    cdef int ml = 0
    cdef double proxy
    m = _cat_levels(B, C, hs, q, bins, nb, missing)
    C.shrink = 0.0
    if C.rare == 1 and C.support > 1 and C.m_all >= 2 and (
            (B.regression or B.K <= 2) and B.n_out == 1 or C.m_all > CAT_SET_EXACT):
        # the exact builder's measurement setting: every level scanned alone, its
        # statistic shrunk towards the node's in the orders
        for j in range(C.m_all):
            C.sv[j] = C.lv[j]
            C.grp[j] = j
        m = C.m_all
        C.shrink = C.support * W / N
        for k in range(B.S):
            C.mean[k] = tot[k] / W
    if m < 2:
        return
    proxy = _cat_search(B, C, m, tot, W, N)
    if not proxy > best.proxy:
        return
    best.proxy = proxy
    best.feature = f
    best.found = 1
    best.is_set = 1
    best.cut = -1
    best.lo = best.hi = MISSING
    best.lo_pure = best.hi_pure = 0
    memset(best.set_left, 0, sizeof(best.set_left))
    memset(best.set_present, 0, sizeof(best.set_present))
    for j in range(C.m_all):
        r = C.lv[j]
        best.set_present[r >> 6] |= (<uint64_t> 1) << (r & 63)
        if C.side[C.grp[j]]:
            best.set_left[r >> 6] |= (<uint64_t> 1) << (r & 63)
        if r == MISSING:
            nm = 1
            ml = C.side[C.grp[j]]
    best.missing = nm
    best.mleft = ml


cdef int _cat_record(HB* B, int64_t node, const HSplit* sp) noexcept nogil:
    """Keeps a set split's bins (for _code_sets); 0, or -1 when memory ran out."""
    cdef HCat* C = B.cat
    cdef void* q
    cdef uint64_t* o
    if C.out_n == C.out_cap:
        q = realloc(C.out, 2 * C.out_cap * 9 * sizeof(uint64_t))
        if q == NULL:
            return -1
        C.out = <uint64_t*> q
        C.out_cap *= 2
    o = C.out + C.out_n * 9
    o[0] = <uint64_t> node
    memcpy(o + 1, sp.set_left, 4 * sizeof(uint64_t))
    memcpy(o + 5, sp.set_present, 4 * sizeof(uint64_t))
    C.out_n += 1
    return 0


cdef int64_t _set_partition(HB* B, const HEntry* e, const HSplit* sp, rf_hrefine* R,
                            double* wl_out, double* wr_out, int mode,
                            int place) noexcept nogil:
    """_partition of a set split: each record by its bin's side."""
    cdef uint8_t table[NBINS]
    cdef int64_t b
    for b in range(NBINS):
        table[b] = (sp.set_left[b >> 6] >> (b & 63)) & 1
    R.pending = 0
    return rf_hpart_set(B.buf[e.depth & 1], B.buf[(e.depth + 1) & 1], B.stride, B.hdr,
                        B.codes, B.p, e.start, e.end, sp.feature, table, R,
                        B.left_stats, B.right_stats, wl_out, wr_out, B.compact, mode,
                        place)


def _code_sets(const uint64_t[:, ::1] out, nodes, const int32_t[::1] codes,
               const int64_t[::1] offsets):
    """The sets of codes of a tree's set splits (``out``: a row per split, its node and
    the bins that go left and those present, see _cat_record) as ``Tree.code_sets``
    holds them: the codes of the present bins that go the other way than the node's
    missing values (every other code goes with them), as the shorter of a bitset and a
    list (_builder's _store_set); None when there is none."""
    cdef int64_t n = out.shape[0], s, j, b, f, k, last, at = 0, total = 0
    cdef uint64_t fill
    cdef bint ml
    cdef const Node* nd = <const Node*> <size_t> nodes.ctypes.data
    cdef uint32_t* lst
    if n == 0:
        return None
    away = np.empty((n, NBINS), dtype=np.uint32)
    info = np.zeros((n, 4), dtype=np.int64)       # count, last word, listed, ml
    cdef uint32_t[:, ::1] aw = away
    cdef int64_t[:, ::1] inf = info
    for s in range(n):
        f = nd[out[s, 0]].feature
        ml = nd[out[s, 0]].missing_go_to_left != 0
        k = 0
        for b in range(MISSING):
            if ((out[s, 5 + (b >> 6)] >> (b & 63)) & 1
                    and ((out[s, 1 + (b >> 6)] >> (b & 63)) & 1) != ml):
                aw[s, k] = <uint32_t> codes[offsets[f] + b]
                k += 1
        last = (<int64_t> aw[s, k - 1]) >> 6 if k else 0
        inf[s, 0] = k
        inf[s, 1] = last
        inf[s, 2] = k > 0 and (k + 1) >> 1 < last + 1
        inf[s, 3] = ml
        total += 1 + ((k + 1) >> 1 if inf[s, 2] else last + 1)
    sets = np.zeros(total, dtype=np.uint64)
    cdef uint64_t[::1] st = sets
    for s in range(n):
        k = inf[s, 0]
        last = inf[s, 1]
        if inf[s, 2]:
            st[at] = ((<uint64_t> k) << 2) | 1         # SET_LIST
            lst = <uint32_t*> &st[at + 1]
            for j in range(k):
                lst[j] = aw[s, j]
            at += 1 + ((k + 1) >> 1)
        else:
            st[at] = (<uint64_t> (last + 1)) << 2      # SET_BITS
            fill = <uint64_t> -1 if inf[s, 3] else 0
            for j in range(last + 1):
                st[at + 1 + j] = fill
            for j in range(k):
                b = aw[s, j]
                st[at + 1 + (b >> 6)] ^= (<uint64_t> 1) << (b & 63)
            at += 2 + last
    return sets
