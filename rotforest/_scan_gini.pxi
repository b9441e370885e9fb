# The Gini scans: any number of classes on presorted lists, the two-class scan
# (missing values included; its vector kernel is in _simd.h), the multiclass scan with
# missing values, and the counting scans of sorting nodes for few-valued features.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

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
    return _gini_cuts(B, L, s, e - B.par.min_samples_leaf, s + B.par.min_samples_leaf,
                      tot, wtot, -INFINITY, pos, zero)


cdef inline void _gini2_score(double a1, double aw, double dt1, double dwt, double minw,
                              int64_t c, double* best, int64_t* pos) noexcept nogil:
    """Two-class Gini proxy of the cut c whose left child holds weight aw, a1 of it of
    class 1: (l1^2/wl + r1^2/wr) = num / den; the first of equals kept.  The quotient is
    only formed for cuts that pass the screen (see RF_SCREEN), as in the AVX-512 kernel."""
    cdef double rw = dwt - aw, r1, num, den, bound
    if aw >= minw and rw >= minw:
        r1 = dt1 - a1
        num = a1 * a1 * rw + r1 * r1 * aw
        den = aw * rw
        # the screen's bound assumes that its product does not underflow: below 1e-290
        # (tiny real weights) the quotient is always formed
        bound = best[0] * RF_SCREEN * den
        if (num > bound or bound < 1e-290) and num / den > best[0]:
            best[0] = num / den
            pos[0] = c


cdef double _scan_gini_binary(Builder* B, const key_t* L, int64_t s, int64_t e, int64_t nm,
                              const double* tot, double wtot, double floor, int64_t* pos,
                              int64_t* ml, acc_t zero, int64_t m1i, int64_t mwi) noexcept nogil:
    # For two classes, (l0^2 + l1^2)/wl + (r0^2 + r1^2)/wr equals a constant plus
    # 2 (l1^2/wl + r1^2/wr): the scan maximises the latter.  The last nm samples of the
    # slice are missing the feature; one pass over the present ones [s, enm) scores each
    # cut c with them right (c - s >= msl, e - c >= msl) and, when nm > 0, left
    # (c - s + nm >= msl, enm - c >= msl); then "present left, missing right".  The
    # counters are exact integers when the weights are.  Only cuts whose proxy exceeds
    # floor (the best proxy of the node's features scanned before) can win the node, so
    # the best cut is searched among those alone (-inf and pos -1 when there is none):
    # most cuts then fail the kernels' screens and are never divided.  With integer
    # weights the missing samples' class-1 weight and weight come in (m1i, mwi) (see
    # _missing_tail); otherwise they are summed here.
    cdef int64_t enm = e - nm, msl = B.par.min_samples_leaf, p, pos1 = -1, pos2 = -1
    cdef int64_t lo1 = s + msl, hi1 = min(enm - 1, e - msl), lo2 = s + msl - nm
    cdef int64_t hi2 = enm - msl if nm > 0 else lo2 - 1     # empty without missing samples
    cdef int64_t hi = max(hi1, hi2), start = s
    cdef int rs = B.key.rshift, cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask, im = B.key.imask
    cdef const double* w = B.data.w
    cdef acc_t wi, m1 = 0, mw = 0, l1 = 0, wl = 0
    cdef double minw = B.par.min_weight_leaf, dt1 = tot[1], dwt = wtot
    cdef double best1 = floor, best2 = floor
    cdef key_t k
    if acc_t is int64_t:
        m1 = m1i
        mw = mwi
        if B.par.use_avx512 and minw == 0.0 and hi > s:
            rf_gini_binary_avx512(L, s, hi, lo1, hi1, lo2, hi2, cs, rs, ws, wm, dt1, dwt,
                                  <double> m1, <double> mw, &best1, &pos1, &best2, &pos2)
            start = hi                 # every cut scanned
    else:
        for p in range(enm, e):
            wi = w[L[p] & im]
            m1 += wi * <double> ((L[p] >> cs) & 1)
            mw += wi
    for p in range(start, hi):
        k = L[p]
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
            l1 += wi & -(<int64_t> ((k >> cs) & 1))
        else:
            wi = w[k & im]
            l1 += wi * <double> ((k >> cs) & 1)
        wl += wi
        if ((L[p + 1] ^ k) >> rs) == 0:
            continue
        if lo1 <= p + 1 <= hi1:
            _gini2_score(<double> l1, <double> wl, dt1, dwt, minw, p + 1, &best1, &pos1)
        if lo2 <= p + 1 <= hi2:
            _gini2_score(<double> l1 + <double> m1, <double> wl + <double> mw, dt1, dwt,
                         minw, p + 1, &best2, &pos2)
    if nm >= msl and enm - s >= msl:         # all present values left, missing ones right
        _gini2_score(dt1 - <double> m1, dwt - <double> mw, dt1, dwt, minw, enm,
                     &best1, &pos1)
    if best2 > best1:
        pos[0] = pos2
        ml[0] = 1
        return best2
    pos[0] = pos1
    ml[0] = 0
    return best1 if pos1 >= 0 else -INFINITY


cdef inline void _add_counts2(const Builder* B, const key_t* L, int64_t a, int64_t b,
                              double* counts, double* weight) noexcept nogil:
    """Adds the class weights of L[a:b) to counts (two classes, weights in the keys)."""
    cdef int64_t q, c1 = 0, tw = 0, wi
    cdef int cs = B.key.cshift, ws = B.key.wshift
    cdef uint64_t wm = B.key.wmask
    cdef key_t k
    for q in range(a, b):
        k = L[q]
        wi = <int64_t> ((k >> ws) & wm)
        c1 += wi & -(<int64_t> ((k >> cs) & 1))
        tw += wi
    counts[0] += <double> (tw - c1)
    counts[1] += <double> c1
    weight[0] += <double> tw


cdef double _gini_multi_cuts(Builder* B, const key_t* L, int64_t s, int64_t hi, int64_t lo,
                             const double* tot, int64_t t2, double wtot, double floor,
                             int64_t* pos) noexcept nogil:
    """The Gini scan with more than two classes over one run of cuts (integer weights in
    the keys, no min_weight_leaf): _gini_cuts (the class weights carried in, in B.work.cli),
    on the AVX-512 kernel where the processor has it (rf_gini_multi_avx512; t2, the sum
    of the squared node class weights, and B.work.cri, those weights, set by _find_split),
    which chooses the same cut.  Only cuts beating floor matter: the first of the best
    of those is returned, else -inf (pos -1).  work.cli (and, portable,
    work.cri) are left changed."""
    cdef int64_t K = B.data.n_classes, sq0 = 0, st0 = 0, w0 = 0, c
    cdef double best = floor
    pos[0] = -1
    if hi <= s or lo > hi:
        return -INFINITY
    if B.par.use_avx512:
        for c in range(K):
            sq0 += B.work.cli[c] * B.work.cli[c]
            st0 += B.work.cli[c] * B.work.cri[c]
            w0 += B.work.cli[c]
        rf_gini_multi_avx512(L, s, hi, lo, B.key.cshift, B.key.rshift, B.key.wshift,
                             B.key.cmask, B.key.wmask, K, B.work.cli, B.work.cri, t2, wtot,
                             sq0, st0, w0, &best, pos)
    else:
        best = _gini_cuts(B, L, s, hi, lo, tot, wtot, floor, pos, <int64_t> 0)
    return best if pos[0] >= 0 else -INFINITY


cdef double _scan_gini_multi_missing(Builder* B, const key_t* L, int64_t s, int64_t e,
                                     int64_t nm, const double* tot, int64_t t2,
                                     double wtot, double floor, int64_t* pos,
                                     int64_t* ml) noexcept nogil:
    """Gini with more than two classes (integer weights, no min_weight_leaf) on a feature
    with nm missing samples at the end of L[s:e): the two runs of _missing_runs on
    _gini_multi_cuts, the missing samples' class weights carried in for the second.
    Only cuts beating floor (the node's best so far) matter, else -inf."""
    cdef int64_t K = B.data.n_classes, q, first
    cdef int64_t runs[4]
    cdef double best
    cdef key_t k
    _missing_runs(B, s, e, nm, runs)
    memset(B.work.cli, 0, K * sizeof(int64_t))
    best = _gini_multi_cuts(B, L, s, runs[0], runs[1], tot, t2, wtot, floor, pos)
    first = pos[0]
    memset(B.work.cli, 0, K * sizeof(int64_t))
    for q in range(e - nm, e):
        k = L[q]
        B.work.cli[(k >> B.key.cshift) & B.key.cmask] += \
            <int64_t> ((k >> B.key.wshift) & B.key.wmask)
    return _missing_pick(best, first,
                         _gini_multi_cuts(B, L, s, runs[2], runs[3], tot, t2, wtot,
                                          max(floor, best), pos),
                         pos, ml)


# the most ranks a counted feature has (the histogram nodes' one-byte ranks; sorting
# nodes count features of COUNT_BINS)
DEF MAX_COUNT_BINS = 256


cdef inline void _count_bins(const rank_t* rk, const key_t* S, int64_t s, int64_t e,
                             uint64_t im, int ws, uint64_t wm, int cs, int64_t nb,
                             int64_t* cnt, int64_t* wt) noexcept nogil:
    """For q in [s, e): cnt[r] += 1 and wt[r] += w + (w of class 1 << 32) for the rank r
    (below nb, at most MAX_COUNT_BINS) of the sample S[q] in feature row rk (integer
    weights w in the keys, of total below 2^31)."""
    cdef int64_t q, wi, j, r
    cdef key_t k
    # four copies of the counts, sample q adding to copy q mod 4: an increment then
    # waits on the one four samples back, not on the last one (few values, often one
    # dominant: consecutive samples hit the same count); integers, added up exactly
    cdef int64_t c4[4 * MAX_COUNT_BINS]
    cdef int64_t w4[4 * MAX_COUNT_BINS]
    q = s
    if e - s >= 4 * max(nb, 16):
        memset(c4, 0, 4 * nb * sizeof(int64_t))
        memset(w4, 0, 4 * nb * sizeof(int64_t))
        while q + 4 <= e:
            for j in range(4):
                k = S[q + j]
                # (dense ranks are below nb: min() keeps memory safe all the same)
                r = min(<int64_t> rk[k & im], nb - 1) + j * nb
                wi = <int64_t> ((k >> ws) & wm)
                c4[r] += 1
                w4[r] += wi + ((wi & -(<int64_t> ((k >> cs) & 1))) << 32)
            q += 4
        for j in range(nb):
            cnt[j] += c4[j] + c4[nb + j] + c4[2 * nb + j] + c4[3 * nb + j]
            wt[j] += w4[j] + w4[nb + j] + w4[2 * nb + j] + w4[3 * nb + j]
    for q in range(q, e):
        k = S[q]
        r = min(<int64_t> rk[k & im], nb - 1)
        wi = <int64_t> ((k >> ws) & wm)
        cnt[r] += 1
        wt[r] += wi + ((wi & -(<int64_t> ((k >> cs) & 1))) << 32)


cdef inline void _count_feature(Builder* B, int64_t f, int64_t s, int64_t e, int64_t nb,
                                int64_t* cnt, int64_t* tab) noexcept nogil:
    """Adds the samples of the sorting node [s, e) to feature f's counts of its nb
    ranks: cnt[r] samples and, with two classes, tab[r] += w + (w of class 1 << 32)
    (_count_bins), or with more, tab[r K + c] += w (_count_classes)."""
    cdef const void* rk = _rank_row(B, f, s, e)
    if B.data.n_classes == 2:
        if B.col.rank_bytes == 1:
            _count_bins(<const uint8_t*> rk, B.col.samples, s, e, B.key.imask,
                        B.key.wshift, B.key.wmask, B.key.cshift, nb, cnt, tab)
        elif B.col.rank_bytes == 2:
            _count_bins(<const uint16_t*> rk, B.col.samples, s, e, B.key.imask,
                        B.key.wshift, B.key.wmask, B.key.cshift, nb, cnt, tab)
        else:
            _count_bins(<const uint32_t*> rk, B.col.samples, s, e, B.key.imask,
                        B.key.wshift, B.key.wmask, B.key.cshift, nb, cnt, tab)
    elif B.col.rank_bytes == 1:
        _count_classes(<const uint8_t*> rk, B.col.samples, s, e, B.key.imask,
                       B.key.wshift, B.key.wmask, B.key.cshift, B.key.cmask,
                       B.data.n_classes, nb, cnt, tab)
    elif B.col.rank_bytes == 2:
        _count_classes(<const uint16_t*> rk, B.col.samples, s, e, B.key.imask,
                       B.key.wshift, B.key.wmask, B.key.cshift, B.key.cmask,
                       B.data.n_classes, nb, cnt, tab)
    else:
        _count_classes(<const uint32_t*> rk, B.col.samples, s, e, B.key.imask,
                       B.key.wshift, B.key.wmask, B.key.cshift, B.key.cmask,
                       B.data.n_classes, nb, cnt, tab)


cdef double _count_gini2(Builder* B, int64_t f, int64_t s, int64_t e, const double* tot,
                         double wtot, double floor, int64_t* pos,
                         int64_t* levels) noexcept nogil:
    """The two-class Gini scan of a sorting node's feature f of few values (B.col.few[f]),
    without missing values, from counts: the samples' class-1 weight and weight per rank
    in one pass (_count_feature), then _scan_counts2.  Sorting the keys (_node_keys)
    would cost two more passes."""
    cdef int64_t cnt[COUNT_BINS]
    cdef int64_t wt[COUNT_BINS]
    memset(cnt, 0, sizeof(cnt))
    memset(wt, 0, sizeof(wt))
    _count_feature(B, f, s, e, COUNT_BINS, cnt, wt)
    return _scan_counts2(B, cnt, wt, COUNT_BINS, s, e, tot, wtot, floor, pos, levels)


cdef double _scan_counts2(Builder* B, const int64_t* cnt, const int64_t* wt, int64_t nb,
                          int64_t s, int64_t e, const double* tot, double wtot,
                          double floor, int64_t* pos, int64_t* levels) noexcept nogil:
    """The cuts between the ranks present in a feature's two-class counts of the sorting
    node [s, e) (nb ranks: see _count_feature), in increasing order, scored as _scan_gini_binary
    scores them (_gini2_score from the same integers: the same cut).  Only cuts beating
    floor matter (-inf, pos -1 when none); levels: the number of ranks present."""
    cdef int64_t r, last = -1, nlev = 0, cum = 0, l1 = 0, wl = 0, p
    cdef int64_t lo = s + B.par.min_samples_leaf
    cdef int64_t hi = min(e - 1, e - B.par.min_samples_leaf)
    cdef double best = floor
    for r in range(nb):
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
                                int64_t K, int64_t nb, int64_t* cnt,
                                int64_t* tab) noexcept nogil:
    """For q in [s, e): cnt[r] += 1 and tab[r K + c] += w for the rank r (below nb) and
    class c of the sample S[q] in feature row rk (integer weights w in the keys)."""
    cdef int64_t q, r
    cdef key_t k
    for q in range(s, e):
        k = S[q]
        r = min(<int64_t> rk[k & im], nb - 1)     # (dense ranks: below nb)
        cnt[r] += 1
        tab[r * K + <int64_t> ((k >> cs) & cm)] += <int64_t> ((k >> ws) & wm)


cdef double _count_gini_multi(Builder* B, int64_t f, int64_t s, int64_t e,
                              const double* tot, double wtot, double floor, int64_t* pos,
                              int64_t* levels) noexcept nogil:
    """_count_gini2 with more than two classes (at most COUNT_CLASSES, integer weights):
    the class weights per rank in one pass (_count_feature), then _scan_counts_multi."""
    cdef int64_t cnt[COUNT_BINS]
    cdef int64_t tab[COUNT_BINS * COUNT_CLASSES]
    memset(cnt, 0, sizeof(cnt))
    memset(tab, 0, COUNT_BINS * B.data.n_classes * sizeof(int64_t))
    _count_feature(B, f, s, e, COUNT_BINS, cnt, tab)
    return _scan_counts_multi(B, cnt, tab, COUNT_BINS, s, e, tot, wtot, floor, pos, levels)


cdef double _scan_counts_multi(Builder* B, const int64_t* cnt, const int64_t* tab,
                               int64_t nb, int64_t s, int64_t e, const double* tot,
                               double wtot, double floor, int64_t* pos,
                               int64_t* levels) noexcept nogil:
    """_scan_counts2 with more than two classes: the cuts between the ranks present, in
    increasing order, scored from the exact integer sums of squared class weights left
    and right as the multiclass kernels score them ((sql wr + sqr wl) / (wl wr),
    screened by RF_SCREEN, the first of equals kept): the same cut."""
    cdef int64_t K = B.data.n_classes, r, c, last = -1, nlev = 0, cum = 0, wl = 0, p, a
    cdef int64_t lo = s + B.par.min_samples_leaf
    cdef int64_t hi = min(e - 1, e - B.par.min_samples_leaf)
    cdef int64_t wt = <int64_t> wtot, wr, sql, sqr
    cdef int64_t minw = <int64_t> ceil(B.par.min_weight_leaf)
    cdef int64_t* cl = B.work.cli
    cdef double best = floor, num, den, q
    for r in range(nb):
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
