# Sorting in the node, and the cost model that chooses each node's method.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Sorting in the node
# ----------------------------------------------------------------------------------------
#
# Below the nodes where the presorted lists stop paying for themselves (_lists_pay), a
# node keeps only its samples, in ``samples[start:end)`` in increasing sample index, and
# sorts the features it scans: each sample's key takes the feature's dense rank (from
# ``ranks``) and the keys are sorted by rank, stably.  Stable on keys in index order, the
# result is exactly the slice the presorted list would hold (by rank, then index), so the
# scans, and the tree, are the same whichever method a node uses.

cdef bint _radix_sort(key_t* a, key_t* tmp, int64_t n, int shift, uint64_t fmask,
                      uint64_t lo, int bits, int64_t* hist,
                      int digit_bits=RADIX_BITS) noexcept nogil:
    """Stable sort of a[0:n) by the field ((k >> shift) & fmask) - lo, of at most `bits`
    bits, with tmp[0:n) as the other buffer (least significant digit first, digits of at
    most digit_bits <= RADIX_BITS bits).  True when the result is in tmp, False when in
    a."""
    cdef int passes, digit, d, pss
    cdef int64_t q, i, total, c
    cdef uint64_t mask, kf
    cdef key_t k
    cdef key_t* src = a
    cdef key_t* dst = tmp
    cdef key_t* t
    if n < 2 or bits <= 0:
        return False
    if n <= 24:
        for q in range(1, n):
            k = a[q]
            kf = ((k >> shift) & fmask) - lo
            i = q
            while i > 0 and (((a[i - 1] >> shift) & fmask) - lo) > kf:
                a[i] = a[i - 1]
                i -= 1
            a[i] = k
        return False
    if bits == 1:
        # two values: a stable partition, counted and placed with the cursors in
        # registers (a histogram of two counts stalls on its own stores)
        c = 0
        for q in range(n):
            c += <int64_t> ((((a[q] >> shift) & fmask) - lo) & 1)
        i = 0
        total = n - c
        for q in range(n):
            k = a[q]
            c = <int64_t> ((((k >> shift) & fmask) - lo) & 1)
            tmp[total if c else i] = k
            i += 1 - c
            total += c
        return True
    passes = (bits + digit_bits - 1) // digit_bits
    digit = (bits + passes - 1) // passes
    mask = ((<uint64_t> 1) << digit) - 1
    for pss in range(passes):
        d = pss * digit
        if digit <= 8:
            # few counts: four interleaved histograms, so that runs of one value do
            # not wait on each other's stores
            memset(hist, 0, 4 * (mask + 1) * sizeof(int64_t))
            q = 0
            while q + 4 <= n:
                hist[((((src[q] >> shift) & fmask) - lo) >> d) & mask] += 1
                hist[(mask + 1) + (((((src[q + 1] >> shift) & fmask) - lo) >> d) & mask)] += 1
                hist[2 * (mask + 1) + (((((src[q + 2] >> shift) & fmask) - lo) >> d) & mask)] += 1
                hist[3 * (mask + 1) + (((((src[q + 3] >> shift) & fmask) - lo) >> d) & mask)] += 1
                q += 4
            while q < n:
                hist[((((src[q] >> shift) & fmask) - lo) >> d) & mask] += 1
                q += 1
            for i in range(<int64_t> mask + 1):
                hist[i] += (hist[(mask + 1) + i] + hist[2 * (mask + 1) + i]
                            + hist[3 * (mask + 1) + i])
        else:
            memset(hist, 0, (mask + 1) * sizeof(int64_t))
            for q in range(n):
                hist[((((src[q] >> shift) & fmask) - lo) >> d) & mask] += 1
        total = 0
        for i in range(<int64_t> mask + 1):
            c = hist[i]
            hist[i] = total
            total += c
        for q in range(n):
            k = src[q]
            i = <int64_t> (((((k >> shift) & fmask) - lo) >> d) & mask)
            dst[hist[i]] = k
            hist[i] += 1
        t = src
        src = dst
        dst = t
    return src != a


cdef inline void _gather_keys(const rank_t* rk, const key_t* S, key_t* out, int64_t s,
                              int64_t e, uint64_t im, int rs, uint64_t* lo,
                              uint64_t* hi) noexcept nogil:
    """out[q] = S[q] with its rank in feature row rk, for q in [s, e); the least and
    largest rank."""
    cdef uint64_t r, rmin = <uint64_t> -1, rmax = 0
    cdef int64_t q
    cdef key_t k
    for q in range(s, e):
        k = S[q]
        r = rk[k & im]
        rmin = r if r < rmin else rmin
        rmax = r if r > rmax else rmax
        out[q] = (r << rs) | k
    lo[0] = rmin
    hi[0] = rmax


cdef const key_t* _node_keys(Builder* B, int64_t f, int64_t s, int64_t e) noexcept nogil:
    """The keys of feature f of a sorting node's samples, in the order of the presorted
    list, at [s, e) of the returned buffer (sorted_keys[0]); NULL when f is constant in
    the node."""
    cdef key_t* out = B.col.sorted_keys[0]
    cdef key_t* t
    cdef uint64_t rmin, rmax
    cdef int64_t row = f * B.data.n_total
    if B.col.rank_bytes == 1:
        _gather_keys((<const uint8_t*> B.col.ranks) + row, B.col.samples, out, s, e,
                     B.key.imask, B.key.rshift, &rmin, &rmax)
    elif B.col.rank_bytes == 2:
        _gather_keys((<const uint16_t*> B.col.ranks) + row, B.col.samples, out, s, e,
                     B.key.imask, B.key.rshift, &rmin, &rmax)
    else:
        _gather_keys((<const uint32_t*> B.col.ranks) + row, B.col.samples, out, s, e,
                     B.key.imask, B.key.rshift, &rmin, &rmax)
    if rmin == rmax:
        return NULL
    if _radix_sort(out + s, B.col.sort_tmp + s, e - s, B.key.rshift, <uint64_t> -1, rmin,
                   _bit_length(rmax - rmin), B.col.hist):
        t = B.col.sorted_keys[0]
        B.col.sorted_keys[0] = B.col.sort_tmp
        B.col.sort_tmp = t
    return B.col.sorted_keys[0]


cdef inline void _count_bins(const rank_t* rk, const key_t* S, int64_t s, int64_t e,
                             uint64_t im, int ws, uint64_t wm, int cs, int64_t* cnt,
                             int64_t* wt) noexcept nogil:
    """For q in [s, e): cnt[r] += 1 and wt[r] += w + (w of class 1 << 32) for the rank r
    of the sample S[q] in feature row rk (integer weights w in the keys, of total below
    2^31)."""
    cdef int64_t q, wi, j
    cdef uint64_t r
    cdef key_t k
    # four copies of the counts, sample q adding to copy q mod 4: an increment then
    # waits on the one four samples back, not on the last one (few values, often one
    # dominant: consecutive samples hit the same count); integers, added up exactly
    cdef int64_t c4[4 * COUNT_BINS]
    cdef int64_t w4[4 * COUNT_BINS]
    q = s
    if e - s >= 64:
        memset(c4, 0, sizeof(c4))
        memset(w4, 0, sizeof(w4))
        while q + 4 <= e:
            for j in range(4):
                k = S[q + j]
                r = (rk[k & im] & (COUNT_BINS - 1)) + j * COUNT_BINS
                wi = <int64_t> ((k >> ws) & wm)
                c4[r] += 1
                w4[r] += wi + ((wi & -(<int64_t> ((k >> cs) & 1))) << 32)
            q += 4
        for j in range(COUNT_BINS):
            cnt[j] += c4[j] + c4[COUNT_BINS + j] + c4[2 * COUNT_BINS + j] \
                + c4[3 * COUNT_BINS + j]
            wt[j] += w4[j] + w4[COUNT_BINS + j] + w4[2 * COUNT_BINS + j] \
                + w4[3 * COUNT_BINS + j]
    for q in range(q, e):
        k = S[q]
        r = rk[k & im] & (COUNT_BINS - 1)     # (< COUNT_BINS for dense ranks: memory-safe)
        wi = <int64_t> ((k >> ws) & wm)
        cnt[r] += 1
        wt[r] += wi + ((wi & -(<int64_t> ((k >> cs) & 1))) << 32)


cdef double _count_gini2(Builder* B, int64_t f, int64_t s, int64_t e, const double* tot,
                         double wtot, double floor, int64_t* pos,
                         int64_t* levels) noexcept nogil:
    """The two-class Gini scan of a sorting node's feature f of few values (B.col.few[f]),
    without missing values, from counts: the samples' class-1 weight and weight per rank
    in one pass, then the cuts between the ranks present, in increasing order, scored as
    _scan_gini_binary scores them (_gini2_score from the same integers: the same cut).
    Sorting the keys (_node_keys) would cost two more passes.  Only cuts beating floor
    matter (-inf, pos -1 when none); levels: the number of ranks present."""
    cdef int64_t cnt[COUNT_BINS]
    cdef int64_t wt[COUNT_BINS]
    cdef int64_t r, last = -1, nlev = 0, cum = 0, l1 = 0, wl = 0, p
    cdef int64_t lo = s + B.par.min_samples_leaf, hi = min(e - 1,
                                                           e - B.par.min_samples_leaf)
    cdef int64_t row = f * B.data.n_total
    cdef double best = floor
    memset(cnt, 0, sizeof(cnt))
    memset(wt, 0, sizeof(wt))
    if B.col.rank_bytes == 1:
        _count_bins((<const uint8_t*> B.col.ranks) + row, B.col.samples, s, e, B.key.imask,
                    B.key.wshift, B.key.wmask, B.key.cshift, cnt, wt)
    elif B.col.rank_bytes == 2:
        _count_bins((<const uint16_t*> B.col.ranks) + row, B.col.samples, s, e, B.key.imask,
                    B.key.wshift, B.key.wmask, B.key.cshift, cnt, wt)
    else:
        _count_bins((<const uint32_t*> B.col.ranks) + row, B.col.samples, s, e, B.key.imask,
                    B.key.wshift, B.key.wmask, B.key.cshift, cnt, wt)
    for r in range(COUNT_BINS):
        if cnt[r] > 0:
            last = r
            nlev += 1
    levels[0] = nlev
    pos[0] = -1
    for r in range(last):
        if cnt[r] == 0:
            continue
        cum += cnt[r]
        wl += wt[r] & <int64_t> 0xFFFFFFFF
        l1 += wt[r] >> 32
        p = s + cum
        if lo <= p <= hi:
            _gini2_score(<double> l1, <double> wl, tot[1], wtot, B.par.min_weight_leaf, p,
                         &best, pos)
    return best if pos[0] >= 0 else -INFINITY


cdef inline void _count_classes(const rank_t* rk, const key_t* S, int64_t s, int64_t e,
                                uint64_t im, int ws, uint64_t wm, int cs, uint64_t cm,
                                int64_t K, int64_t* cnt, int64_t* tab) noexcept nogil:
    """For q in [s, e): cnt[r] += 1 and tab[r K + c] += w for the rank r and class c of
    the sample S[q] in feature row rk (integer weights w in the keys)."""
    cdef int64_t q, r
    cdef key_t k
    for q in range(s, e):
        k = S[q]
        r = rk[k & im] & (COUNT_BINS - 1)     # (< COUNT_BINS for dense ranks: memory-safe)
        cnt[r] += 1
        tab[r * K + <int64_t> ((k >> cs) & cm)] += <int64_t> ((k >> ws) & wm)


cdef double _count_gini_multi(Builder* B, int64_t f, int64_t s, int64_t e,
                              const double* tot, double wtot, double floor, int64_t* pos,
                              int64_t* levels) noexcept nogil:
    """_count_gini2 with more than two classes (at most COUNT_CLASSES, integer weights):
    the class weights per rank in one pass, then the cuts between the ranks present, in
    increasing order, scored from the exact integer sums of squared class weights left
    and right as the multiclass kernels score them ((sql wr + sqr wl) / (wl wr), screened
    by RF_SCREEN, the first of equals kept): the same cut.  Only cuts beating floor
    matter (-inf, pos -1 when none); levels: the number of ranks present."""
    cdef int64_t K = B.data.n_classes, r, c, last = -1, nlev = 0, cum = 0, wl = 0, p, a
    cdef int64_t lo = s + B.par.min_samples_leaf, hi = min(e - 1,
                                                           e - B.par.min_samples_leaf)
    cdef int64_t row = f * B.data.n_total, wt = <int64_t> wtot, wr, sql, sqr
    cdef int64_t minw = <int64_t> ceil(B.par.min_weight_leaf)
    cdef int64_t cnt[COUNT_BINS]
    cdef int64_t tab[COUNT_BINS * COUNT_CLASSES]
    cdef int64_t* cl = B.work.cli
    cdef double best = floor, num, den, q
    memset(cnt, 0, sizeof(cnt))
    memset(tab, 0, COUNT_BINS * K * sizeof(int64_t))
    if B.col.rank_bytes == 1:
        _count_classes((<const uint8_t*> B.col.ranks) + row, B.col.samples, s, e,
                       B.key.imask, B.key.wshift, B.key.wmask, B.key.cshift, B.key.cmask, K,
                       cnt, tab)
    elif B.col.rank_bytes == 2:
        _count_classes((<const uint16_t*> B.col.ranks) + row, B.col.samples, s, e,
                       B.key.imask, B.key.wshift, B.key.wmask, B.key.cshift, B.key.cmask, K,
                       cnt, tab)
    else:
        _count_classes((<const uint32_t*> B.col.ranks) + row, B.col.samples, s, e,
                       B.key.imask, B.key.wshift, B.key.wmask, B.key.cshift, B.key.cmask, K,
                       cnt, tab)
    for r in range(COUNT_BINS):
        if cnt[r] > 0:
            last = r
            nlev += 1
    levels[0] = nlev
    pos[0] = -1
    memset(cl, 0, K * sizeof(int64_t))
    for r in range(last):
        if cnt[r] == 0:
            continue
        cum += cnt[r]
        sql = 0
        sqr = 0
        for c in range(K):
            a = tab[r * K + c]
            cl[c] += a
            wl += a
            sql += cl[c] * cl[c]
            a = <int64_t> tot[c] - cl[c]
            sqr += a * a
        p = s + cum
        if lo <= p <= hi:
            wr = wt - wl
            if wl >= minw and wr >= minw:
                num = <double> sql * <double> wr + <double> sqr * <double> wl
                den = <double> wl * <double> wr
                if num > best * RF_SCREEN * den:
                    q = num / den
                    if q > best:
                        best = q
                        pos[0] = p
    return best if pos[0] >= 0 else -INFINITY


cdef void _samples_by_index(Builder* B, int64_t s, int64_t e) noexcept nogil:
    """Sort samples[s:e) by sample index."""
    if _radix_sort(B.col.samples + s, B.col.sort_tmp + s, e - s, 0, B.key.imask, 0,
                   _bit_length(B.key.imask), B.col.hist):
        memcpy(B.col.samples + s, B.col.sort_tmp + s, (e - s) * sizeof(key_t))


cdef void _samples_from_list(Builder* B, const key_t* Lf, int64_t s, int64_t cut,
                             int64_t enm, int64_t e, bint moved, bint lleaf,
                             bint rleaf) noexcept nogil:
    """A presorted node whose children sort: their samples from the split feature's list
    (left: [s, cut), and the missing [enm, e) when they move left), each child's in index
    order."""
    cdef key_t pm = ((<key_t> 1) << B.key.rshift) - 1
    cdef key_t* S = B.col.samples
    cdef int64_t q, o = s, p
    for q in range(s, cut):
        S[o] = Lf[q] & pm
        o += 1
    if moved:
        for q in range(enm, e):
            S[o] = Lf[q] & pm
            o += 1
    p = o
    for q in range(cut, enm):
        S[o] = Lf[q] & pm
        o += 1
    if not moved:
        for q in range(enm, e):
            S[o] = Lf[q] & pm
            o += 1
    if not lleaf:
        _samples_by_index(B, s, p)
    if not rleaf:
        _samples_by_index(B, p, e)


cdef inline int64_t _split_samples(const rank_t* rk, key_t* S, key_t* R, int64_t s,
                                   int64_t e, uint64_t im, uint64_t cut_rank,
                                   uint64_t nr, bint moved,
                                   const uint64_t* left) noexcept nogil:
    """Left keys of S[s:e) packed from S[s], right ones into R; returns their count."""
    cdef int64_t il = s, ir = 0, q, g
    cdef uint64_t r
    cdef key_t k
    for q in range(s, e):
        k = S[q]
        r = rk[k & im]
        if left != NULL:
            g = <int64_t> _in_set(left, r)
        else:
            g = <int64_t> ((r < cut_rank) | (moved & (r == nr)))
        S[il] = k
        R[ir] = k
        il += g
        ir += 1 - g
    return ir


cdef void _partition_samples(Builder* B, int64_t s, int64_t e, int64_t p, int64_t f,
                             uint64_t cut_rank, bint moved,
                             const uint64_t* left) noexcept nogil:
    """Stable partition of a sorting node's samples[s:e) by its split on feature f: a
    sample goes left when its rank is below cut_rank, or when it is missing and the
    missing samples move left; for a categorical split (`left` not NULL), when its rank
    is in the set `left`."""
    cdef int64_t row = f * B.data.n_total, ir
    cdef uint64_t nr = B.work.nan_rank[f]
    if B.col.rank_bytes == 1:
        ir = _split_samples((<const uint8_t*> B.col.ranks) + row, B.col.samples,
                            B.work.scratch, s, e, B.key.imask, cut_rank, nr, moved, left)
    elif B.col.rank_bytes == 2:
        ir = _split_samples((<const uint16_t*> B.col.ranks) + row, B.col.samples,
                            B.work.scratch, s, e, B.key.imask, cut_rank, nr, moved, left)
    else:
        ir = _split_samples((<const uint32_t*> B.col.ranks) + row, B.col.samples,
                            B.work.scratch, s, e, B.key.imask, cut_rank, nr, moved, left)
    memcpy(B.col.samples + p, B.work.scratch, min(ir, e - p) * sizeof(key_t))


# Costs of the two methods per key, relative to partitioning one presorted list: sorting
# a feature in a node reads each sample's rank and writes its key (GATHER_COST), then
# moves the key once per digit of the radix sort (DIGIT_COST).  Fitted to forced-method
# fits on this project's benchmark machine (AVX-512, the partition storing whole blocks;
# benchmarks/bench_methods.py): with every feature scanned the lists win
# at one digit too (sorting 1.2x to 1.6x their time: a tree, random forests of all
# features, rotation forests); with half of covertype's 54 drawn, two digits, the two
# are level (sorting 0.96x); with the square root drawn sorting takes 0.2x (MNIST) to
# 0.8x (20 features of many values).
cdef double GATHER_COST = 0.7
cdef double DIGIT_COST = 0.6


cdef bint _lists_pay(int64_t max_features, int64_t F, int rbits, int64_t d) noexcept nogil:
    """Whether a node with d features not constant should partition its presorted lists
    for its children rather than let them (and their subtrees) sort the features they
    scan (max_features of F drawn; ranks of rbits bits)."""
    cdef double m
    # features the children scan: each draws max_features of the n_features, of which a
    # share d / n_features is not constant (and at least one is)
    m = <double> max_features * d / F
    if m < 1.0:
        m = 1.0
    if m > d:
        m = d
    return d < m * (GATHER_COST + DIGIT_COST * ceil(<double> rbits / RADIX_BITS))


cdef int _plan(int method, int64_t max_features, int64_t F, int rbits,
               int64_t n_varied) noexcept nogil:
    """How a tree starts: METHOD_SORT (its root sorts already), METHOD_PRESORT (its root
    keeps the lists, and no node with fewer varied features would switch) or
    METHOD_AUTO (the root keeps the lists and each node decides)."""
    cdef int64_t d
    if method != METHOD_AUTO:
        return method
    if not _lists_pay(max_features, F, rbits, n_varied):
        return METHOD_SORT
    for d in range(1, n_varied):
        if not _lists_pay(max_features, F, rbits, d):
            return METHOD_AUTO
    return METHOD_PRESORT


cdef int _tree_method(int64_t max_features, int64_t F, int rbits, const uint64_t* col_top,
                      int64_t n) noexcept nogil:
    """_plan for a tree of n samples whose columns have the highest ranks col_top (those
    constant over all samples do not count), and METHOD_SORT when its lists would take
    over a quarter of the machine's memory (a forest holds one copy per thread: nodes
    then sort from ranks of 1 to 4 bytes a cell)."""
    cdef int64_t f, n_varied = 0
    cdef int method
    for f in range(F):
        n_varied += col_top[f] > 0
    method = _plan(_METHOD, max_features, F, rbits, n_varied)
    if method != METHOD_SORT and (F * n + 9) * sizeof(key_t) > rf_physical_memory() // 4:
        return METHOD_SORT
    return method
