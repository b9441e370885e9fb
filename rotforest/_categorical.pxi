# Splits on categorical features: sets of levels instead of thresholds.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Categorical features
# ----------------------------------------------------------------------------------------

cdef extern from "_categories.h":
    void rf_cat_axis_order(const double* stat, const double* w, const int64_t* sv,
                           int64_t m, int64_t K, double a, double* mean, double* axis,
                           rf_vi* ord) noexcept nogil
#
# A categorical feature holds integer codes 0 .. CAT_MAX_CODE (NaN: missing).  Its dense
# ranks (from the presort) number its distinct codes in increasing order, the missing
# value last; the per-rank arrays are as long as the most ranks of a categorical
# feature, and a node touches only the levels it holds.  A node does not need the
# feature's samples in order: it sums the weight, count and statistics (class weights,
# or sums of w y ...) of each level present, the missing values being one more level,
# and searches partitions of those levels:
#
# - two classes, and numeric targets: the levels ordered by their share of class 1 (by
#   their mean target), every cut of that order scored.  For the Gini index, entropy and
#   the squared error the best partition is among these cuts (Breiman et al. 1984,
#   Fisher 1958); the same order serves misclassification and the Poisson deviance.
# - more classes: every partition while the node has at most CAT_EXACT_MAX levels
#   (a Gray code: one level changes side per step); beyond that the cuts of one order,
#   the levels' class shares projected on their first principal axis (Coppersmith, Hong
#   and Hosking 1999; _set_category_orders chooses the former K orders, by each class's
#   share in turn, or both, for measurement).  Several outputs take the K orders, their
#   classes (or mean targets) all in turn.
# - random splits: each level goes to a side drawn at random (both sides non-empty).
#
# The missing values are a level like the others, so they go to the side that scores
# best (exactly as the search over partitions places them).  The split is kept as the
# set of ranks that go left (for the partitions of this fit) and the set of codes that
# go left (stored for prediction, one row per categorical split), bitsets as wide as the
# most ranks and the largest code of the categorical features (the entry's row of
# Frontier.sets, see _entry_sets): a code absent from the node goes where the missing
# values go, or with the larger child when the node had none.  Setting and copying
# those sets costs a word per 64 levels of the feature; everything else a node does
# follows the levels it holds.

cdef inline void _cat_add(Builder* B, uint64_t r, key_t k, int64_t* m) noexcept nogil:
    """Adds sample k of rank r to its level's sums (a level first seen is listed)."""
    cdef int64_t K = B.data.n_classes
    cdef double wi = _wt(B, k)
    if B.cat.n[r] == 0:
        B.cat.lv[m[0]] = <int64_t> r
        m[0] += 1
        memset(B.cat.stat + r * K, 0, K * sizeof(double))
        B.cat.w[r] = 0.0
    B.cat.n[r] += 1
    B.cat.w[r] += wi
    _accumulate(B, k, wi, B.cat.stat + r * K)


cdef inline void _cat_gather(Builder* B, const rank_t* rk, int64_t s, int64_t e,
                             int64_t* m) noexcept nogil:
    cdef int64_t q
    cdef key_t k
    for q in range(s, e):
        k = B.col.samples[q]
        _cat_add(B, rk[k & B.key.imask], k, m)


cdef int64_t _cat_levels(Builder* B, int64_t f, int64_t s, int64_t e,
                         bint presorted) noexcept nogil:
    """Sums the node's samples of categorical feature f by level; returns the number of
    levels, listed in cat_lv in increasing rank.  Within a level the samples are added
    in increasing index with either method, so both give the same sums."""
    cdef int64_t m = 0, q, i, j, v
    cdef const key_t* L
    cdef const void* rk
    if presorted:
        L = B.col.lists + f * B.data.n_active
        for q in range(s, e):
            _cat_add(B, L[q] >> B.key.rshift, L[q], &m)     # ranks in increasing order
    else:
        rk = _rank_row(B, f, s, e)
        if B.col.rank_bytes == 1:
            _cat_gather(B, <const uint8_t*> rk, s, e, &m)
        elif B.col.rank_bytes == 2:
            _cat_gather(B, <const uint16_t*> rk, s, e, &m)
        else:
            _cat_gather(B, <const uint32_t*> rk, s, e, &m)
        if m > 32:
            qsort(B.cat.lv, m, sizeof(int64_t), _cmp_int64)
        else:
            for i in range(1, m):
                v = B.cat.lv[i]
                j = i
                while j > 0 and B.cat.lv[j - 1] > v:
                    B.cat.lv[j] = B.cat.lv[j - 1]
                    j -= 1
                B.cat.lv[j] = v
    return m


cdef int _cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*> a)[0], y = (<const int64_t*> b)[0]
    return (x > y) - (x < y)


cdef int64_t _cat_pool(Builder* B, int64_t m) noexcept nogil:
    """The levels a node's split search scans (cat_sv, in increasing rank; cat_grp: the
    scanned level of each of the m levels): each level with at least cat_support
    samples, and one level (rank cat.pool, last) pooling the others, if any."""
    cdef int64_t K = B.data.n_classes, j, c, r, q = 0, P = B.cat.pool
    cdef bint pooled = False
    for j in range(m):
        r = B.cat.lv[j]
        if B.cat.n[r] >= B.cat.support:
            B.cat.grp[j] = q
            B.cat.sv[q] = r
            q += 1
            continue
        if not pooled:
            pooled = True
            memset(B.cat.stat + P * K, 0, K * sizeof(double))
            B.cat.w[P] = 0.0
            B.cat.n[P] = 0
        for c in range(K):
            B.cat.stat[P * K + c] += B.cat.stat[r * K + c]
        B.cat.w[P] += B.cat.w[r]
        B.cat.n[P] += B.cat.n[r]
        B.cat.grp[j] = -1
    if pooled:
        for j in range(m):
            if B.cat.grp[j] < 0:
                B.cat.grp[j] = q
        B.cat.sv[q] = P
        q += 1
    return q


cdef inline bint _cat_valid(const Builder* B, int64_t nl, int64_t n, double wl,
                            double wr) noexcept nogil:
    return (nl >= B.par.min_samples_leaf and n - nl >= B.par.min_samples_leaf
            and wl >= B.par.min_weight_leaf and wr >= B.par.min_weight_leaf)


cdef inline void _cat_move(Builder* B, int64_t r, double sign, double* wl,
                           int64_t* nl) noexcept nogil:
    """Level of rank r joins (sign 1) or leaves (sign -1) the left sums B.work.cl."""
    cdef int64_t K = B.data.n_classes, c
    cdef const double* st = B.cat.stat + r * K
    for c in range(K):
        B.work.cl[c] += sign * st[c]
    wl[0] += sign * B.cat.w[r]
    nl[0] += <int64_t> sign * B.cat.n[r]


cdef inline double _cat_score(Builder* B, const double* tot, double wtot, double wl,
                              int64_t nl, int64_t n) noexcept nogil:
    """The proxy of the split whose left sums are B.work.cl (-inf when it breaks the leaf
    limits), in the units of the numeric scans of the node (_proxy_moved: two classes
    with Gini take the two-class kernel's), so that the best of either kind wins."""
    cdef double wr = wtot - wl
    if not _cat_valid(B, nl, n, wl, wr):
        return -INFINITY
    return _proxy_moved(B, B.work.cl, NULL, wl, tot, wtot)


cdef void _cat_order(Builder* B, int64_t m, int64_t stat) noexcept nogil:
    """cat_ord: the scanned levels (indices into cat_sv) by increasing statistic `stat`
    per unit weight (a class's share, the mean target), ties in increasing rank."""
    cdef int64_t j, r, K = B.data.n_classes
    cdef double a = B.cat.shrink, prior = 0.0
    if a > 0.0:
        prior = a * B.cat.mean[stat]
    for j in range(m):
        r = B.cat.sv[j]
        B.cat.ord[j].v = (B.cat.stat[r * K + stat] + prior) / (B.cat.w[r] + a)
        B.cat.ord[j].i = j
    qsort(B.cat.ord, m, sizeof(rf_vi), rf_cmp_vi)


cdef void _cat_axis_order(Builder* B, int64_t m) noexcept nogil:
    """cat_ord: the scanned levels by their class shares projected on the first
    principal axis of those shares (_categories.h, which the binned builder shares)."""
    rf_cat_axis_order(B.cat.stat, B.cat.w, B.cat.sv, m, B.data.n_classes, B.cat.shrink,
                      B.work.cl, B.cat.axis, B.cat.ord)


cdef double _cat_cuts(Builder* B, int64_t m, int64_t n, const double* tot, double wtot,
                      int64_t* best_k) noexcept nogil:
    """The best cut of the order cat_ord: its proxy, and in best_k the number of levels
    that go left (unchanged when no cut is valid)."""
    cdef int64_t k, c, nl = 0
    cdef double wl = 0.0, proxy, best = -INFINITY
    for c in range(B.data.n_classes):
        B.work.cl[c] = 0.0
    for k in range(m - 1):
        _cat_move(B, B.cat.sv[B.cat.ord[k].i], 1.0, &wl, &nl)
        proxy = _cat_score(B, tot, wtot, wl, nl, n)
        if proxy > best:
            best = proxy
            best_k[0] = k + 1
    return best


cdef double _scan_categorical(Builder* B, int64_t f, int64_t s, int64_t e, bint presorted,
                              const double* tot, double wtot,
                              int64_t* n_levels) noexcept nogil:
    """The best split of a node [s, e) on categorical feature f: its proxy (-inf when no
    partition is valid); the split in B.cat.cand, its children's sums in B.cat.cl and
    B.cat.cr.  n_levels: the levels present (the feature is constant below two)."""
    cdef int64_t K = B.data.n_classes, n = e - s, m, j, r, c, k, best_k = 0, best_c = -1, nl
    cdef int64_t ml, m_all
    cdef uint64_t g, mask = 0, best_mask = 0, nr = B.work.nan_rank[f], code
    cdef double best = -INFINITY, proxy, wl
    cdef uint8_t* side = B.cat.side
    cdef CatSplit* cs = &B.cat.cand
    cdef int b
    m_all = _cat_levels(B, f, s, e, presorted)
    n_levels[0] = m_all
    # the levels scanned: those with at least cat_support samples in the node, and the
    # others pooled into one (rank cat.pool), which goes to one side as a whole
    m = _cat_pool(B, m_all)
    B.cat.shrink = 0.0
    if (B.cat.rare == 1 and B.cat.support > 1 and m_all >= 2 and not B.par.random_split
            and ((B.data.regression or K <= 2) and B.data.n_outputs == 1
                 or m_all > CAT_EXACT_MAX)):
        # searches of an order: every level scanned alone, placed in the order by its
        # statistic shrunk towards the node's, as if it had cat_support more samples
        # of the node's mean (instead of the rare ones pooled)
        for j in range(m_all):
            B.cat.sv[j] = B.cat.lv[j]
            B.cat.grp[j] = j
        m = m_all
        B.cat.shrink = B.cat.support * wtot / n
        for c in range(K):
            B.cat.mean[c] = tot[c] / wtot
    if m >= 2:
        if B.par.random_split:
            # each level to a random side, both sides non-empty
            r = 0
            for j in range(m):
                side[j] = <uint8_t> _rand_below(&B.rng, 2)
                r += side[j]
            if r == 0 or r == m:
                j = <int64_t> _rand_below(&B.rng, m)
                side[j] = 1 - side[j]
        elif (B.data.regression or K <= 2) and B.data.n_outputs == 1:
            _cat_order(B, m, 1 if K == 2 and not B.data.regression else 0)
            best = _cat_cuts(B, m, n, tot, wtot, &best_k)
            best_c = 0
        elif m <= CAT_EXACT_MAX:
            # every partition with the last level on the right, in Gray code order
            for c in range(K):
                B.work.cl[c] = 0.0
            wl = 0.0
            nl = 0
            for g in range(1, (<uint64_t> 1) << (m - 1)):
                b = 0
                while not ((g >> b) & 1):
                    b += 1
                _cat_move(B, B.cat.sv[b], -1.0 if (mask >> b) & 1 else 1.0, &wl, &nl)
                mask ^= (<uint64_t> 1) << b
                proxy = _cat_score(B, tot, wtot, wl, nl, n)
                if proxy > best:
                    best = proxy
                    best_mask = mask
            for j in range(m):
                side[j] = <uint8_t> ((best_mask >> j) & 1)
        else:
            # the cuts of the order by each class's share (several numeric outputs:
            # by each one's mean), and/or of the principal axis of the shares (best_c K)
            if B.cat.orders != 0 and B.data.n_outputs == 1:
                _cat_axis_order(B, m)
                k = best_k
                proxy = _cat_cuts(B, m, n, tot, wtot, &k)
                if proxy > best:
                    best = proxy
                    best_k = k
                    best_c = K
            for c in range(K):
                if B.cat.orders == 1 and B.data.n_outputs == 1:
                    break
                if (tot[c] <= 0.0) if not B.data.regression else (c % 3 != 0):
                    continue
                _cat_order(B, m, c)
                k = best_k
                proxy = _cat_cuts(B, m, n, tot, wtot, &k)
                if proxy > best:
                    best = proxy
                    best_k = k
                    best_c = c
        if best_c >= 0:
            # a cut of an order: its first best_k levels go left
            if best_c == K:
                if B.cat.orders != 1:       # (with the axis alone, ord still holds it)
                    _cat_axis_order(B, m)
            elif (K > 2 and not B.data.regression) or B.data.n_outputs > 1:
                _cat_order(B, m, best_c)
            memset(side, 0, m)
            for k in range(best_k):
                side[B.cat.ord[k].i] = 1
            if B.data.n_outputs > 1 and side[m - 1]:
                # the last level on the right, as in the search of every partition:
                # two orders (outputs) may find one partition the other way round,
                # with proxies equal but for rounding
                for j in range(m):
                    side[j] = 1 - side[j]
        # the chosen split, summed level by level in increasing rank (exact, and the same
        # whichever order found it)
        for c in range(K):
            B.cat.cl[c] = 0.0
            B.cat.cr[c] = 0.0
        cs.wl = cs.wr = 0.0
        cs.nl = cs.nm = 0
        cs.ml = 0
        memset(cs.left, 0, B.cat.rank_words * sizeof(uint64_t))
        for j in range(m_all):
            r = B.cat.lv[j]
            if side[B.cat.grp[j]]:
                for c in range(K):
                    B.cat.cl[c] += B.cat.stat[r * K + c]
                cs.wl += B.cat.w[r]
                cs.nl += B.cat.n[r]
                cs.left[r >> 6] |= (<uint64_t> 1) << (r & 63)
            else:
                for c in range(K):
                    B.cat.cr[c] += B.cat.stat[r * K + c]
                cs.wr += B.cat.w[r]
            if <uint64_t> r == nr:
                cs.nm = B.cat.n[r]
                cs.ml = side[B.cat.grp[j]]
        if cs.nm == 0:
            cs.ml = cs.nl > n - cs.nl
        if B.par.random_split:
            if _cat_valid(B, cs.nl, n, cs.wl, cs.wr):
                best = _proxy_counts(B, B.cat.cl, B.cat.cr, cs.wl, cs.wr)
        # codes absent from the node go where the missing values go
        memset(cs.codes, 0xFF if cs.ml else 0, B.cat.code_words * sizeof(uint64_t))
        for j in range(m_all):
            r = B.cat.lv[j]
            if <uint64_t> r != nr:
                code = <uint64_t> B.cat.code[B.cat.off[f] + r]
                if side[B.cat.grp[j]]:
                    cs.codes[code >> 6] |= (<uint64_t> 1) << (code & 63)
                else:
                    cs.codes[code >> 6] &= ~((<uint64_t> 1) << (code & 63))
    for j in range(m_all):
        B.cat.n[B.cat.lv[j]] = 0
    B.cat.n[B.cat.pool] = 0
    return best


# ----------------------------------------------------------------------------------------
# The sides of a categorical split
# ----------------------------------------------------------------------------------------

cdef void _mark_sides_cat(uint32_t* gl, const key_t* L, int64_t s, int64_t e,
                          const uint64_t* left, int rs, uint64_t im) noexcept nogil:
    """Set the bitmap gl for a categorical split of the node L[s:e) (the split
    feature's slice: its keys carry the ranks): a sample goes left when its rank is in
    the set `left`."""
    cdef int64_t q
    cdef uint64_t ix
    for q in range(s, e):
        ix = L[q] & im
        if _in_set(left, L[q] >> rs):
            gl[ix >> 5] |= (<uint32_t> 1) << (ix & 31)
        else:
            gl[ix >> 5] &= ~((<uint32_t> 1) << (ix & 31))


cdef void _samples_from_list_cat(Builder* B, const key_t* Lf, int64_t s, int64_t e,
                                 const uint64_t* left, bint lleaf,
                                 bint rleaf) noexcept nogil:
    """_samples_from_list for a categorical split: the children's samples from the split
    feature's list, each child's in index order."""
    cdef key_t pm = ((<key_t> 1) << B.key.rshift) - 1
    cdef int64_t q, o = s, p
    for q in range(s, e):
        if _in_set(left, Lf[q] >> B.key.rshift):
            B.col.samples[o] = Lf[q] & pm
            o += 1
    p = o
    for q in range(s, e):
        if not _in_set(left, Lf[q] >> B.key.rshift):
            B.col.samples[o] = Lf[q] & pm
            o += 1
    if not lleaf:
        _samples_by_index(B, s, p)
    if not rleaf:
        _samples_by_index(B, p, e)


def category_codes(const double[:, :] X, const uint32_t[:, ::1] keys,
                   const uint8_t[::1] categorical):
    """The code of every dense rank of the categorical columns, as ``(mask, offsets,
    codes)``: ``mask`` (uint8, n_features) 1 for the categorical columns, ``codes``
    (int32) the code of rank r of column f at ``codes[offsets[f] + r]`` (-1 for the rank
    of NaN; a column that is not categorical has no ranks there), ``offsets`` (int64,
    n_features + 1).  ValueError unless every categorical column holds NaN or integer
    codes 0 .. CAT_MAX_CODE."""
    cdef int64_t n = X.shape[0], F = X.shape[1], f, i, r, o
    cdef const uint32_t* row
    cdef uint32_t bits
    cdef double v
    if categorical.shape[0] != F or keys.shape[0] != F or keys.shape[1] != keys_width(n):
        raise ValueError("X, keys and categorical do not agree in shape")
    sizes = np.zeros(F + 1, dtype=np.int64)
    cdef int64_t[::1] sz = sizes
    for f in range(F):
        if categorical[f]:
            # the ranks of the column: its distinct values (the missing one included)
            row = &keys[f, 0]
            for i in range(n):
                sz[f + 1] += (row[n + (i >> 5)] >> (i & 31)) & 1
    offsets = np.cumsum(sizes)
    table = np.full(int(offsets[F]), -1, dtype=np.int32)
    cdef int32_t[::1] t = table
    cdef const int64_t[::1] off = offsets
    for f in range(F):
        if not categorical[f]:
            continue
        row = &keys[f, 0]
        r = -1
        o = off[f]
        for i in range(n):
            bits = row[n + (i >> 5)]
            if not ((bits >> (i & 31)) & 1):
                continue
            r += 1
            if row[i] >= n:
                raise ValueError("keys do not belong to X")
            v = X[row[i], f]
            if isnan(v):
                break                     # the missing value: the last rank
            if not (v >= 0.0 and v <= CAT_MAX_CODE and v == <double> (<int64_t> v)):
                raise ValueError(
                    f"categorical feature {f} holds the value {v}: categories must be "
                    f"integer codes from 0 to {CAT_MAX_CODE} (NaN for missing)")
            t[o + r] = <int32_t> v
    mask = np.ascontiguousarray(categorical, dtype=np.uint8).copy()
    return mask, offsets, table
