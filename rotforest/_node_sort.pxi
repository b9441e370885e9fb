# Sorting in the node: the radix sort on dense ranks, and the samples a sorting node
# keeps, partitioned for its children.
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
    cdef const void* rk = _rank_row(B, f, s, e)
    if B.col.rank_bytes == 1:
        _gather_keys(<const uint8_t*> rk, B.col.samples, out, s, e,
                     B.key.imask, B.key.rshift, &rmin, &rmax)
    elif B.col.rank_bytes == 2:
        _gather_keys(<const uint16_t*> rk, B.col.samples, out, s, e,
                     B.key.imask, B.key.rshift, &rmin, &rmax)
    else:
        _gather_keys(<const uint32_t*> rk, B.col.samples, out, s, e,
                     B.key.imask, B.key.rshift, &rmin, &rmax)
    if rmin == rmax:
        return NULL
    if _radix_sort(out + s, B.col.sort_tmp + s, e - s, B.key.rshift, <uint64_t> -1, rmin,
                   _bit_length(rmax - rmin), B.col.hist):
        t = B.col.sorted_keys[0]
        B.col.sorted_keys[0] = B.col.sort_tmp
        B.col.sort_tmp = t
    return B.col.sorted_keys[0]


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
    cdef int64_t ir
    cdef uint64_t nr = B.work.nan_rank[f]
    cdef const void* rk = _rank_row(B, f, s, e)
    if B.col.rank_bytes == 1:
        ir = _split_samples(<const uint8_t*> rk, B.col.samples,
                            B.work.scratch, s, e, B.key.imask, cut_rank, nr, moved, left)
    elif B.col.rank_bytes == 2:
        ir = _split_samples(<const uint16_t*> rk, B.col.samples,
                            B.work.scratch, s, e, B.key.imask, cut_rank, nr, moved, left)
    else:
        ir = _split_samples(<const uint32_t*> rk, B.col.samples,
                            B.work.scratch, s, e, B.key.imask, cut_rank, nr, moved, left)
    memcpy(B.col.samples + p, B.work.scratch, min(ir, e - p) * sizeof(key_t))
    if B.col.spos != NULL:
        _sparse_positions(B, s, e)
