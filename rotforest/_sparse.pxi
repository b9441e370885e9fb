# Sparse columns: what a node reads of a feature stored as a CSC column.
# Included by _builder.pyx (one compiled module: the kernels inline across files).
#
# A sparse X (see rotforest/_sparse.py) reaches the builder as its stored entries, column
# by column: their rows (increasing) and dense ranks (the ranks dense_ranks would give the
# dense form of X), the rank of 0.0 in each column (every entry not stored), and each
# column's values by rank.  Every node of such a tree sorts (no presorted lists: they
# would hold every row of every feature).  A node reads a feature in one of two ways:
#
# - its ranks, by sample index, in col.rowbuf (_rank_row): the node's samples set to the
#   rank of 0.0, then the stored entries written over them, so that the dense machinery
#   (sorting in the node, partitions, categorical sums) runs unchanged on them: the same
#   tree as the dense form of X, in time of the node's samples plus the entries;
# - its stored entries among the node's samples alone (_sparse_hits), when the node's
#   statistics of the implicit zeros follow from its totals: the split searches of
#   _sparse_scan (Gini with integer weights, scored as the counting scans score them;
#   the squared error) and _sparse_random (random cuts) then cost the entries, not the
#   samples.

cdef inline int64_t _gallop(const int32_t* R, int64_t t, int64_t b, int64_t i) noexcept nogil:
    """The first position in [t, b) of the increasing R whose row is at least i (b when
    none), searched from t by doubling steps, then halving."""
    cdef int64_t lo, hi, step = 1, m
    if t >= b or R[t] >= i:
        return t
    lo = t + 1
    hi = t + 1
    while hi < b and R[hi] < i:
        lo = hi + 1
        step <<= 1
        hi = t + step
    if hi > b:
        hi = b
    while lo < hi:
        m = (lo + hi) >> 1
        if R[m] < i:
            lo = m + 1
        else:
            hi = m
    return lo


cdef void _sparse_fill(Builder* B, int64_t f, int64_t s, int64_t e) noexcept nogil:
    """col.rowbuf[i] = the rank of sample i in column f, for the samples of the node
    [s, e): the rank of 0.0, then the column's entries among them (_sparse_hits, into
    col.sort_tmp, which no reader of the row buffer holds anything in)."""
    cdef uint32_t* rb = B.col.rowbuf
    cdef const key_t* S = B.col.samples
    cdef key_t* H = B.col.sort_tmp
    cdef uint64_t im = B.key.imask
    cdef int64_t q, m
    cdef uint32_t z = B.col.sp_zero[f]
    cdef int rs = B.key.rshift
    for q in range(s, e):
        rb[S[q] & im] = z
    m = _sparse_hits(B, f, s, e, H)
    for q in range(m):
        rb[H[q] & im] = <uint32_t> (H[q] >> rs)


cdef inline const void* _rank_row(Builder* B, int64_t f, int64_t s, int64_t e) noexcept nogil:
    """The ranks of feature f by sample index (rank_bytes each), valid for the samples of
    the sorting node [s, e): the dense ranks' row, or for a sparse column col.rowbuf
    filled for the node (its contents change with the next feature read)."""
    if B.col.sparse:
        _sparse_fill(B, f, s, e)
        return B.col.rowbuf
    return (<const uint8_t*> B.col.ranks) + f * B.data.n_total * B.col.rank_bytes


cdef inline double _key_value(const Builder* B, int64_t f, key_t k) noexcept nogil:
    """The value of feature f of the sample of key k (a key with its rank, from a list
    or a sorting node's sorted keys; never a missing value)."""
    if B.col.sparse:
        return B.col.sp_vals[B.col.sp_voff[f] + <int64_t> (k >> B.key.rshift)]
    return B.data.X[f * B.data.xcs + <int64_t> (k & B.key.imask) * B.data.xrs]


cdef inline void _sparse_positions(Builder* B, int64_t s, int64_t e) noexcept nogil:
    """col.spos of the samples[s:e) just partitioned."""
    cdef const key_t* S = B.col.samples
    cdef uint64_t im = B.key.imask
    cdef int64_t q
    for q in range(s, e):
        B.col.spos[S[q] & im] = q


cdef int64_t _sparse_hits(const Builder* B, int64_t f, int64_t s, int64_t e,
                          key_t* out) noexcept nogil:
    """The node's samples (of samples[s:e)) that column f stores, as keys with their
    ranks (rank << rshift | sample key), into out[0:m), in increasing sample index;
    returns m.  A column of few entries for the node: each entry's position (col.spos);
    else each sample searched among the column's rows."""
    cdef const key_t* S = B.col.samples
    cdef const int32_t* R = B.col.sp_row
    cdef const uint32_t* rank = B.col.sp_rank
    cdef uint64_t im = B.key.imask
    cdef int rs = B.key.rshift
    cdef int64_t a = B.col.sp_ptr[f], b = B.col.sp_ptr[f + 1], q = s, t, m = 0
    cdef const int64_t* P = B.col.spos
    cdef uint64_t i, n = <uint64_t> (e - s)
    if b - a <= 2 * (e - s):
        # each entry's sample looked up by its position (written always, kept when in
        # the node: no branch to mispredict; S[n_active] is padding)
        for t in range(a, b):
            q = P[R[t]]
            out[m] = ((<key_t> rank[t]) << rs) | S[q]
            m += <int64_t> (<uint64_t> (q - s) < n)
    else:
        t = a
        for q in range(s, e):
            i = S[q] & im
            t = _gallop(R, t, b, <int64_t> i)
            if t >= b:
                break
            if <uint64_t> R[t] == i:
                out[m] = ((<key_t> rank[t]) << rs) | S[q]
                m += 1
    return m


cdef double _sparse_random(Builder* B, const Entry* e, int64_t f, const double* tot,
                           int64_t* nm_out, double* thr, int64_t* ml,
                           int64_t* levels) noexcept nogil:
    """The random cut of sparse feature f of a sorting node, from the column's entries
    among the node's samples and the node's totals: the extremes of the present values
    (0.0 among them when some sample is not stored), the threshold and the missing
    side drawn as _random_split draws them, the left side's statistics (the implicit
    zeros' from the node's totals less the entries').  Returns its proxy (-inf: no valid
    cut); levels 1 when f is constant in the node (else 2), nm_out the missing samples.
    Exact integer weights give _random_split's counts and cut; other sums may differ
    from it in their last bits.  The winner's keys are sorted by _finish_split."""
    cdef key_t* H = B.col.sort_tmp
    cdef int64_t s = e.start, end = e.end, n = end - s
    cdef int64_t m = _sparse_hits(B, f, s, end, H), q, c, nm = 0, n_left, zeros
    cdef int64_t K = B.data.n_classes, off = B.col.sp_voff[f]
    cdef uint64_t nr = B.work.nan_rank[f], r, rmin = <uint64_t> -1, rmax = 0
    cdef uint64_t zr = B.col.sp_zero[f]
    cdef int rs = B.key.rshift
    cdef const double* V = B.col.sp_vals
    cdef double t, wi, wl = 0.0, wh = 0.0
    cdef key_t k
    zeros = n - m
    for q in range(m):
        r = H[q] >> rs
        if r == nr:
            nm += 1
            continue
        rmin = r if r < rmin else rmin
        rmax = r if r > rmax else rmax
    if zeros > 0:
        rmin = zr if zr < rmin else rmin
        rmax = zr if zr > rmax else rmax
    nm_out[0] = nm
    levels[0] = 2
    if nm == n or (rmin == rmax and nm == 0):
        levels[0] = 1
        return -INFINITY
    t = _random_threshold(B, V[off + <int64_t> rmin], V[off + <int64_t> rmax], nm, ml)
    n_left = zeros if 0.0 <= t else 0
    for q in range(m):
        r = H[q] >> rs
        if r == nr:
            n_left += ml[0]
        elif V[off + <int64_t> r] <= t:
            n_left += 1
    if n_left < B.par.min_samples_leaf or n - n_left < B.par.min_samples_leaf:
        return -INFINITY
    for c in range(K):
        B.work.cl[c] = 0.0
        B.work.fl[c] = 0.0
    for q in range(m):
        k = H[q]
        r = k >> rs
        wi = _wt(B, k)
        if zeros > 0 and 0.0 <= t:
            _accumulate(B, k, wi, B.work.fl)       # every entry: the zeros' complement
            wh += wi
        if (ml[0] and r == nr) or (r != nr and V[off + <int64_t> r] <= t):
            _accumulate(B, k, wi, B.work.cl)
            wl += wi
    if zeros > 0 and 0.0 <= t:
        for c in range(K):
            B.work.cl[c] += tot[c] - B.work.fl[c]
        wl += e.weight - wh
    thr[0] = t
    return _random_proxy(B, f, tot, e.weight, wl, e.lower, e.upper)


cdef inline int64_t _first_above(const Builder* B, int64_t f, const key_t* L, int64_t s,
                                 int64_t enm, double t) noexcept nogil:
    """The first position of the sorted keys L[s:enm) (present values) whose value
    exceeds t."""
    cdef int64_t a = s, b = enm, m
    while a < b:
        m = (a + b) >> 1
        if _key_value(B, f, L[m]) > t:
            b = m
        else:
            a = m + 1
    return a


cdef inline bint _sparse_scans(const Builder* B, int64_t f) noexcept nogil:
    """Whether a sorting node scans sparse feature f from its entries alone
    (_sparse_scan): one output, not the absolute error, no missing value in the
    feature, no constraint on it."""
    return (B.col.sparse and not B.par.random_split
            and not B.par.absolute and B.data.n_outputs == 1
            and B.work.nan_rank[f] == NO_NAN
            and (B.data.monotonic == NULL or B.data.monotonic[f] == 0))


cdef double _sparse_scan(Builder* B, const Entry* e, int64_t f, const double* tot,
                         double floor, int64_t* pos, int64_t* levels) noexcept nogil:
    """The best cut of sparse feature f of a sorting node from the column's entries
    among the node's samples, sorted, with the implicit zeros as one block at the rank
    of 0.0 whose statistics are the node's totals less the entries': the cuts between
    distinct values in increasing order, at the positions the sorted keys would give
    them, scored as the counting scans score them (Gini with integer weights:
    _count_gini2 and _count_gini_multi, exact integers: the same cut as the dense
    form's scans), with _reg_proxy (the squared error and Friedman's), or as the
    reference scan scores them (_proxy_moved: any other criterion or weights, and every
    cut when the reference scan is forced); the last two sum in another order than the
    dense scans, equal up to rounding.  Only cuts beating floor matter (-inf, pos -1
    when none); levels 1 when f is constant in the node (else 2).  The winner's keys
    are sorted by _finish_split."""
    cdef key_t* H = B.col.sort_tmp
    cdef int64_t s = e.start, end = e.end, n = end - s
    cdef int64_t m = _sparse_hits(B, f, s, end, H), q, c, p, nl = 0, zeros = n - m
    cdef int64_t K = B.data.n_classes
    cdef int64_t lo = s + B.par.min_samples_leaf
    cdef int64_t hi = min(end - 1, end - B.par.min_samples_leaf)
    cdef int rs = B.key.rshift, ws = B.key.wshift, cs = B.key.cshift
    cdef uint64_t wm = B.key.wmask, cm = B.key.cmask, im = B.key.imask
    cdef uint64_t zr = B.col.sp_zero[f], r, rmin = <uint64_t> -1, rmax = 0
    cdef bint reg = B.data.regression, zero_done = zeros == 0
    cdef bint exact = (not reg and B.par.criterion == CRIT_GINI and B.key.packed
                       and not B.par.reference)
    cdef bint gen = not exact and not (reg and not B.par.reference
                                       and (B.par.criterion == CRIT_SQUARED
                                            or B.par.criterion == CRIT_FRIEDMAN))
    cdef double* cl = B.work.cl
    cdef double* zg = B.work.fl     # generic: the entries' statistics, then the zeros'
    cdef int64_t* li = B.work.cli
    cdef double* zc = B.work.fr     # (not work.cri: the multiclass kernel's node counts,
                                    # which later features of the node read)
    cdef int64_t wli = 0, zwi, wti = <int64_t> e.weight, wi
    cdef int64_t minwi = <int64_t> ceil(B.par.min_weight_leaf)
    cdef double sl = 0.0, wl = 0.0, hs = 0.0, hw = 0.0, zs, zw, wd, best = floor
    cdef double qt, wr, minw = B.par.min_weight_leaf
    cdef const double* yv = B.data.yv
    cdef key_t k
    pos[0] = -1
    levels[0] = 2
    if gen:
        memset(zg, 0, K * sizeof(double))
        memset(cl, 0, K * sizeof(double))
    elif not reg:
        memset(zc, 0, K * sizeof(double))
        memset(li, 0, K * sizeof(int64_t))
    for q in range(m):
        k = H[q]
        r = k >> rs
        rmin = r if r < rmin else rmin
        rmax = r if r > rmax else rmax
        if gen:
            wd = _wt(B, k)
            _accumulate(B, k, wd, zg)
            hw += wd
        elif reg:
            wd = _wt(B, k)
            hs += wd * yv[k & im]
            hw += wd
        else:
            zc[(k >> cs) & cm] += <double> ((k >> ws) & wm)
    if m == 0 or (zeros == 0 and rmin == rmax):
        levels[0] = 1
        return -INFINITY
    if m > 1 and _radix_sort(H, B.col.sorted_keys[0], m, rs, <uint64_t> -1, rmin,
                             _bit_length(rmax - rmin), B.col.hist):
        H = B.col.sorted_keys[0]
    # the implicit zeros: the node's totals less the entries'
    if gen:
        for c in range(K):
            zg[c] = tot[c] - zg[c]
        zw = e.weight - hw
    elif reg:
        zs = tot[0] - hs
        zw = e.weight - hw
    else:
        zwi = 0
        for c in range(K):
            zc[c] = tot[c] - zc[c]
            zwi += <int64_t> zc[c]
    q = 0
    while True:
        # the next value's samples join the left side: the zeros' block, or a run of
        # entries of one rank
        if not zero_done and (q >= m or (H[q] >> rs) > zr):
            zero_done = True
            nl += zeros
            if gen:
                for c in range(K):
                    cl[c] += zg[c]
                wl += zw
            elif reg:
                sl += zs
                wl += zw
            else:
                for c in range(K):
                    li[c] += <int64_t> zc[c]
                wli += zwi
        elif q < m:
            r = H[q] >> rs
            while q < m and (H[q] >> rs) == r:
                k = H[q]
                if gen:
                    wd = _wt(B, k)
                    _accumulate(B, k, wd, cl)
                    wl += wd
                elif reg:
                    wd = _wt(B, k)
                    sl += wd * yv[k & im]
                    wl += wd
                else:
                    wi = <int64_t> ((k >> ws) & wm)
                    li[(k >> cs) & cm] += wi
                    wli += wi
                q += 1
                nl += 1
        else:
            break
        if nl >= n:
            break
        p = s + nl
        if p < lo or p > hi:
            continue
        if gen or reg:
            wr = e.weight - wl
            if wl >= minw and wr >= minw:
                # (two classes with Gini: the two-class scans' proxy, which the node's
                # other features report)
                qt = (_proxy_moved(B, cl, NULL, wl, tot, e.weight) if gen
                      else _reg_proxy(CRIT_SQUARED, sl, wl, tot[0] - sl, wr))
                if qt > best:
                    best = qt
                    pos[0] = p
        elif K == 2:
            _gini2_score(<double> li[1], <double> wli, tot[1], e.weight, minw, p, &best,
                         pos)
        else:
            _multi_int_score(li, wli, wti, tot, K, minwi, p, &best, pos)
    return best if pos[0] >= 0 else -INFINITY


cdef inline void _multi_int_score(const int64_t* li, int64_t wli, int64_t wti,
                                  const double* tot, int64_t K, int64_t minwi, int64_t p,
                                  double* best, int64_t* pos) noexcept nogil:
    """Multiclass Gini proxy of the cut p whose left child holds the integer class
    weights li (wli in all; the node's: tot, wti), from the exact sums of squared class
    weights left and right as _count_gini_multi scores them ((sql wr + sqr wl) / (wl wr),
    screened by RF_SCREEN); the first of equals kept."""
    cdef int64_t wri = wti - wli, sql = 0, sqr = 0, a, c
    cdef double num, den, qt
    if wli >= minwi and wri >= minwi:
        for c in range(K):
            sql += li[c] * li[c]
            a = <int64_t> tot[c] - li[c]
            sqr += a * a
        num = <double> sql * <double> wri + <double> sqr * <double> wli
        den = <double> wli * <double> wri
        if num > best[0] * RF_SCREEN * den:
            qt = num / den
            if qt > best[0]:
                best[0] = qt
                pos[0] = p
