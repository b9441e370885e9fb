# The presort: sorted lists of every feature, and their dense ranks.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Presort
# ----------------------------------------------------------------------------------------



cdef inline uint64_t _ordered_bits(double v) noexcept nogil:
    """An unsigned integer that orders as v does: NaN above everything, -0.0 as 0.0."""
    # without branches (the signs of a rotation's axes are a coin toss each): -0.0 and
    # 0.0 as +0.0's bits, a negative value's bits flipped, a positive one's sign bit set,
    # NaN all ones
    cdef uint64_t u, neg
    memcpy(&u, &v, sizeof(double))
    u &= -(<uint64_t> (v != 0.0))
    neg = <uint64_t> ((<int64_t> u) >> 63)
    return (u ^ (neg | ((<uint64_t> 1) << 63))) | -(<uint64_t> (v != v))


cdef void _block_keys(const double* X, int64_t rstride, int64_t cstride, int64_t n,
                      int64_t nb, int ib, uint64_t* keys, double* vals,
                      uint64_t* low) noexcept nogil:
    """Sort keys of nb neighbouring columns, read row by row (a row-major X is read once
    for the block, not once per column): key = the top 64 - ib bits of the value's ordered
    bits, then the sample index in the low ib bits.  low[j] gathers the dropped bits of
    column j's present values (0: equal keys mean equal values).  With vals, the
    columns are also copied there, contiguous."""
    cdef int64_t i, j
    cdef uint64_t imask = ((<uint64_t> 1) << ib) - 1, u
    cdef double v
    for j in range(nb):
        low[j] = 0
    for i in range(n):
        for j in range(nb):
            v = X[i * rstride + j * cstride]
            u = _ordered_bits(v)
            if v == v:
                low[j] |= u
            keys[j * n + i] = (u & ~imask) | <uint64_t> i
            if vals != NULL:
                vals[j * n + i] = v
    for j in range(nb):
        low[j] &= imask


cdef int _finish_column(const double* col, int64_t stride, uint64_t* keys, int64_t n,
                        int ib, int run_shift, bint exact, uint32_t* out) noexcept nogil:
    """Given one column's sorted keys, write the sample order to out[:n] and the bits of
    the positions that start a new value to the words out[n:].

    Keys with equal value bits from bit run_shift up (the bits sorted; run_shift >= ib)
    form a run, in index order.  A run almost always holds one value (ties); when the
    dropped or unsorted low bits of the values differ (values within about 2^-(52 - ib)
    of each other, or agreeing in the bits sorted), the run is sorted by (value, index)
    here.  With exact (no present value has dropped bits, as for integer-valued columns,
    and every bit sorted) runs are not checked.  Returns -1 when memory runs out."""
    cdef uint64_t imask = ((<uint64_t> 1) << ib) - 1, prev, cur
    cdef uint64_t pmask = ~(((<uint64_t> 1) << run_shift) - 1)
    cdef uint32_t* starts = out + n
    cdef int64_t p, q, r, m, w, base, end, nw = (n + 31) >> 5
    cdef uint32_t bits, cont
    cdef double v0, v
    cdef bint same
    cdef rf_vi* buf
    if n == 0:
        return 0
    # the order; then the start bits, a word of 32 positions at a time, without a branch
    # per key (runs of one key, the common case in continuous columns, made the loop
    # over runs mispredict: 12-18% of the presort's time), and a word that one run
    # fills at once (few-valued columns)
    for p in range(n):
        out[p] = <uint32_t> (keys[p] & imask)
    prev = ~keys[0]
    for w in range(nw):
        base = w << 5
        end = min(base + 32, n)
        if ((keys[base] ^ keys[end - 1]) & pmask) == 0:
            # one run across the word (sorted: its first and last keys agree)
            starts[w] = <uint32_t> (((keys[base] ^ prev) & pmask) != 0)
        else:
            bits = 0
            for p in range(base, end):
                cur = keys[p]
                bits |= (<uint32_t> (((cur ^ prev) & pmask) != 0)) << (p - base)
                prev = cur
            starts[w] = bits
        prev = keys[end - 1]
    if exact:
        return 0
    # runs (a 0 bit continues the run before it) whose values differ in the bits not
    # sorted are put in (value, index) order
    p = 1
    while p < n:
        w = p >> 5
        cont = ~starts[w] & ((<uint32_t> 0xFFFFFFFF) << (p & 31))
        if w == nw - 1 and (n & 31):
            cont &= ((<uint32_t> 1) << (n & 31)) - 1
        if cont == 0:
            p = (w + 1) << 5
            continue
        p = (w << 5) + rf_ctz32(cont)           # the first key that continues a run
        q = p + 1
        while q < n and not ((starts[q >> 5] >> (q & 31)) & 1):
            q += 1
        p -= 1                                  # the run is [p, q)
        m = q - p
        v0 = col[<int64_t> out[p] * stride]
        same = True
        for r in range(p + 1, q):
            v = col[<int64_t> out[r] * stride]
            if not (v == v0 or (v != v and v0 != v0)):     # -0.0 == 0.0; NaN: one value
                same = False
                break
        if not same:
            buf = <rf_vi*> malloc(m * sizeof(rf_vi))
            if buf == NULL:
                return -1
            for r in range(m):
                buf[r].i = <int64_t> out[p + r]
                buf[r].v = col[buf[r].i * stride]
            qsort(buf, m, sizeof(rf_vi), rf_cmp_vi)
            for r in range(m):
                out[p + r] = <uint32_t> buf[r].i
                if r > 0 and buf[r].v != buf[r - 1].v:
                    starts[(p + r) >> 5] |= (<uint32_t> 1) << ((p + r) & 31)
            free(buf)
        p = q + 1
    return 0


# A column of at most FEW_VALUES distinct values (binary and small-integer columns, and a
# rotation forest's axes that mix only such columns: half the axes of covertype) is
# presorted by counting: each value's code from a small hash table, then one stable
# scatter by the codes' ranks, with no sort of the keys and no check of their runs
# (presort only, in "auto" mode, from PRESORT_RADIX_MIN rows).  Such columns took 0.4 to
# 0.7 of the radix sort's time (1,000 to 50,000 rows), continuous ones the same; a 100-tree
# rotation forest on covertype 0.96 of its fit time, on kddcup99 0.95.
cdef enum:
    FEW_VALUES = 256
    FEW_SLOTS = 512               # the table's slots (a power of two, half empty at most)


cdef struct _FewValue:
    uint64_t key
    int64_t code


cdef int _cmp_few(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const _FewValue*> a).key, y = (<const _FewValue*> b).key
    return (x > y) - (x < y)


cdef int _few_values_column(const double* col, int64_t stride, int64_t n, uint8_t* codes,
                            int64_t* hist, uint32_t* out) noexcept nogil:
    """presort's output row for one column (the order in out[:n], the start bits in the
    words out[n:]) when it holds at most FEW_VALUES distinct values, and at most one per
    8 samples (fewer rows would spend their time sorting the values), counted exactly
    (-0.0 as 0.0, every NaN as one value above the others); returns 0, or 1 (out not
    written) when it holds more.  codes takes n bytes of scratch, hist 4 FEW_VALUES
    counts."""
    cdef uint64_t slot_key[FEW_SLOTS]
    cdef int16_t slot_code[FEW_SLOTS]
    cdef _FewValue values[FEW_VALUES]
    cdef _FewValue v
    cdef uint8_t rank[FEW_VALUES]
    cdef int64_t i, h, count = 0, a, b, pos, cap = min(<int64_t> FEW_VALUES, n >> 3)
    cdef uint64_t u
    memset(slot_code, 0xFF, sizeof(slot_code))          # -1: an empty slot
    for i in range(n):
        u = _ordered_bits(col[i * stride])
        h = <int64_t> ((u * <uint64_t> 0x9E3779B97F4A7C15) >> 55)   # 9 bits
        while slot_code[h] >= 0 and slot_key[h] != u:
            h = (h + 1) & (FEW_SLOTS - 1)
        if slot_code[h] < 0:
            if count == cap:
                return 1
            slot_key[h] = u
            slot_code[h] = <int16_t> count
            values[count].key = u
            values[count].code = count
            count += 1
        codes[i] = <uint8_t> slot_code[h]
    # the values in increasing order, each code's rank
    if count <= 32:
        for a in range(1, count):
            v = values[a]
            b = a
            while b > 0 and values[b - 1].key > v.key:
                values[b] = values[b - 1]
                b -= 1
            values[b] = v
    else:
        qsort(values, count, sizeof(_FewValue), _cmp_few)
    for a in range(count):
        rank[values[a].code] = <uint8_t> a
    # a stable scatter by rank: each rank's samples in index order.  The rows are dealt
    # in four quarters, each with its own counts and places (a rank's samples of quarter
    # k after those of quarters below k): four chains of increments, not one that waits
    # on the last sample's when neighbours share a value
    # (quarters of qn rows, the last of the rest: n >= 8 rows here, so it has some)
    cdef int64_t qn = (n + 3) >> 2, k, c, last = n - 3 * qn
    cdef int64_t* qc = hist       # FEW_VALUES counts of each quarter
    memset(qc, 0, 4 * FEW_VALUES * sizeof(int64_t))
    for i in range(n):
        codes[i] = rank[codes[i]]
    for i in range(qn):
        qc[codes[i]] += 1
        qc[FEW_VALUES + codes[qn + i]] += 1
        qc[2 * FEW_VALUES + codes[2 * qn + i]] += 1
        if i < last:
            qc[3 * FEW_VALUES + codes[3 * qn + i]] += 1
    # the places: rank by rank, quarter by quarter
    memset(out + n, 0, ((n + 31) >> 5) * sizeof(uint32_t))
    pos = 0
    for a in range(count):
        out[n + (pos >> 5)] |= (<uint32_t> 1) << (pos & 31)
        for k in range(4):
            c = qc[k * FEW_VALUES + a]
            qc[k * FEW_VALUES + a] = pos
            pos += c
    cdef int64_t* q0 = qc
    cdef int64_t* q1 = qc + FEW_VALUES
    cdef int64_t* q2 = qc + 2 * FEW_VALUES
    cdef int64_t* q3 = qc + 3 * FEW_VALUES
    for i in range(qn):
        out[q0[codes[i]]] = <uint32_t> i
        q0[codes[i]] += 1
        out[q1[codes[qn + i]]] = <uint32_t> (qn + i)
        q1[codes[qn + i]] += 1
        out[q2[codes[2 * qn + i]]] = <uint32_t> (2 * qn + i)
        q2[codes[2 * qn + i]] += 1
        if i < last:
            out[q3[codes[3 * qn + i]]] = <uint32_t> (3 * qn + i)
            q3[codes[3 * qn + i]] += 1
    return 0


# presort's column sort: numpy's sort below PRESORT_RADIX_MIN samples, our radix sort
# from there, and at any size for columns whose values differ in at most RADIX_BITS bits
# (binary, small integers: one pass).  Since the radix sort orders only the top bits of
# a column's span (PRESORT_EXTRA_BITS), numpy's sort wins only below about 650 rows (AMD
# EPYC, 30 Gaussian columns, ns a cell numpy / radix: 500 rows 12.0 / 14.0, 600 13.4 /
# 13.8, 700 14.2 / 13.4, 1,000 16.5 / 13.2; 1,500 rows 18.1 / 12.5; the threshold was
# 1,536 before).  _set_presort_method forces either, for tests.
cdef int64_t PRESORT_RADIX_MIN = 640
cdef int64_t PRESORT_BATCH_CELLS = 1 << 16   # cells of a batch of short columns
cdef int PRESORT_EXTRA_BITS = 20            # bits of a column's span sorted beyond ib
cdef int _PRESORT = {"numpy": 0, "radix": 1}.get(_os.environ.get("ROTFOREST_PRESORT", ""), 2)


def _set_presort_method(method):
    """"numpy", "radix" or "auto" (the default: by the number of samples and the bits a
    column's values differ in)."""
    global _PRESORT
    _PRESORT = {"numpy": 0, "radix": 1, "auto": 2}[method]


cdef int _column_bits(const uint64_t* keys, int64_t n, int ib, uint64_t* lo,
                      int* low_zeros) noexcept nogil:
    """The bits a radix sort of one column's keys must order: the span of their value
    bits (above the ib index bits), less the low bits that every key shares (integer
    and few-valued columns share many: 0.0 and 1.0 differ in 10 bits, not 52).  lo gets
    the least value bits, shifted right by low_zeros."""
    cdef uint64_t v0 = keys[0] >> ib, v, least = v0, most = v0, varying = 0
    cdef int64_t i
    cdef int l = 0
    for i in range(1, n):
        v = keys[i] >> ib
        varying |= v ^ v0
        if v < least:
            least = v
        if v > most:
            most = v
    if varying == 0:
        low_zeros[0] = 0
        lo[0] = least
        return 0
    while ((varying >> l) & 1) == 0:
        l += 1
    low_zeros[0] = l
    lo[0] = least >> l
    return _bit_length((most >> l) - (least >> l))


cdef int _radix_column(uint64_t* keys, uint64_t* tmp, int64_t n, int ib, uint64_t lo,
                       int low_zeros, int bits, int64_t* hist) noexcept nogil:
    """Sorts one column's keys (made in sample order) by their value bits, stably: the
    order of the whole keys, as the index bits below are already increasing (lo,
    low_zeros and bits from _column_bits).  Only the top ib + PRESORT_EXTRA_BITS bits of
    the column's span are sorted (fewer passes: 3 in place of 5 for a column of 6,000
    real values); returns the lowest key bit sorted, for _finish_column, which orders
    the few runs of keys equal in those bits by their values (ib when every bit was
    sorted)."""
    cdef int shift = ib + low_zeros, keep = ib + PRESORT_EXTRA_BITS, t
    if bits > keep:
        t = bits - keep + 1            # (the span shifted by t has at most keep bits)
        shift += t
        lo >>= t
        bits = keep
    if n > 1 and bits > 0:
        if _radix_sort(keys, tmp, n, shift, ~(<uint64_t> 0) >> shift, lo, bits, hist,
                       10 if n < 4096 else RADIX_BITS):
            memcpy(keys, tmp, n * sizeof(uint64_t))
    return shift if shift > ib + low_zeros else ib


cdef int64_t _element_stride(Py_ssize_t stride) except? -1:
    if stride % <Py_ssize_t> sizeof(double) != 0:
        raise ValueError("X must be a float64 array with strides that are multiples of 8 bytes")
    return stride // <Py_ssize_t> sizeof(double)


def keys_width(Py_ssize_t n):
    """Length of one row of :func:`presort`'s output for ``n`` samples."""
    return n + (n + 31) // 32


def presort(const double[:, :] X, out=None, Py_ssize_t start=0, stop=None):
    """Sort every column of X once.

    X may have any memory layout (row- or column-major, or a strided view) whose strides
    are whole float64 cells; it is not copied.  Returns a C-contiguous ``uint32`` array of shape
    ``(n_features, keys_width(n_samples))``.  In row ``f``, the first ``n_samples``
    entries list the samples in increasing order of ``X[i, f]``, ties broken by sample
    index; the remaining ``ceil(n_samples / 32)`` entries are a bitmap (bit ``p`` of word
    ``p // 32``) of the positions that start a new value, so that the dense rank of the
    sample at position ``p`` is the number of bits set up to ``p``, minus one.  Missing
    values (NaN) come last and count as one value, the highest of their column (a column
    must not hold both NaN and +inf).  4 bytes and one bit a cell: the forest keeps this
    array for its whole fit.  Each column is ordered by sorting 64-bit integer keys, the
    value's leading bits above the sample index (our radix sort on the value bits that
    differ, from PRESORT_RADIX_MIN samples or when one pass does; numpy's sort otherwise;
    both without the GIL, and several times faster than an argsort of the values); the
    rare neighbours whose values differ only in the dropped bits are then put in order.
    A column of at most 256 distinct values (and at most one per 8 rows) from
    PRESORT_RADIX_MIN rows is counted instead (_few_values_column).

    With ``out`` (such an array, already allocated) only the rows ``start:stop`` are
    computed, into ``out``: threads can share the work.
    """
    cdef int64_t n = X.shape[0], F = X.shape[1], f
    if n > MAX_SAMPLES:
        raise ValueError(f"at most {MAX_SAMPLES} samples are supported, got {n}")
    cdef int64_t width = keys_width(n)
    if out is None:
        out = np.empty((F, width), dtype=np.uint32)
    if out.shape != (F, width) or out.dtype != np.uint32:
        raise ValueError("out must be a uint32 array of shape (n_features, "
                         "keys_width(n_samples))")
    stop = F if stop is None else min(stop, F)
    if start < 0 or stop < 0:
        raise ValueError(f"start and stop must be non-negative, got {start} and {stop}")
    if n == 0 or start >= stop:
        return out
    cdef uint32_t[:, ::1] o = out
    cdef int ib = 1
    while ((<int64_t> 1) << ib) < n:
        ib += 1
    cdef int64_t rstride = _element_stride(X.strides[0]), cstride = _element_stride(X.strides[1])
    # columns are handled in batches of at most PRESORT_BATCH_CELLS cells (4 columns at
    # least), copied to contiguous rows (numpy's transposing copy: a row-major X is read
    # once for the batch, and runs of equal keys read their values nearby) unless they
    # are contiguous already; the numpy sorts of a batch are one call (short columns:
    # not one Python call, holding the GIL, each)
    cdef bint strided = rstride != 1
    cdef int64_t first = start, last = stop, j, g0, gm
    cdef int64_t nbatch = max(4 if strided else 1, min(last - first, PRESORT_BATCH_CELLS // n))
    Xnp = np.asarray(X) if strided else None
    keys_arr = np.empty((nbatch, n), dtype=np.uint64)
    cdef uint64_t[:, ::1] keys = keys_arr
    vals_arr = np.empty((nbatch if strided else 1, n if strided else 1), dtype=np.float64)
    cdef double[:, ::1] vals = vals_arr
    low_arr = np.empty(nbatch, dtype=np.uint64)
    cdef uint64_t[::1] low = low_arr
    unsorted_arr = np.empty(nbatch, dtype=np.uint8)
    cdef uint8_t[::1] unsorted = unsorted_arr
    run_arr = np.empty(nbatch, dtype=np.int32)
    cdef int32_t[::1] run_shift = run_arr
    done_arr = np.empty(nbatch, dtype=np.uint8)      # columns presorted by counting
    cdef uint8_t[::1] done = done_arr
    cdef const double* base = &X[0, 0]
    cdef const double* col
    cdef int64_t cs, n_unsorted
    cdef int err = 0
    cdef bint radix
    cdef uint64_t lo
    cdef int low_zeros, bits
    tmp_arr = np.empty(n if _PRESORT != 0 else 1, dtype=np.uint64)
    cdef uint64_t[::1] tmp = tmp_arr
    hist_arr = np.empty(max((1 << RADIX_BITS) + 1, 4 * 256), dtype=np.int64)
    cdef int64_t[::1] hist = hist_arr
    for g0 in range(first, last, nbatch):
        gm = min(nbatch, last - g0)
        n_unsorted = 0
        if strided:
            vals_arr[:gm] = Xnp[:, g0:g0 + gm].T     # numpy's transposing copy
        with nogil:
            for j in range(gm):
                # few distinct values: counted, straight into the output row (no keys)
                done[j] = (_PRESORT == 2 and n >= PRESORT_RADIX_MIN and _few_values_column(
                    &vals[j, 0] if strided else base + (g0 + j) * cstride,
                    1 if strided else rstride, n, <uint8_t*> &tmp[0], &hist[0],
                    &o[g0 + j, 0]) == 0)
                if done[j]:
                    continue
                if strided:
                    _block_keys(&vals[j, 0], 1, 0, n, 1, ib, &keys[j, 0], NULL, &low[j])
                else:
                    _block_keys(base + (g0 + j) * cstride, rstride, cstride, n, 1, ib,
                                &keys[j, 0], NULL, &low[j])
            for j in range(gm):
                radix = False
                run_shift[j] = ib
                if done[j]:
                    unsorted[j] = False
                    continue
                if _PRESORT != 0:
                    bits = _column_bits(&keys[j, 0], n, ib, &lo, &low_zeros)
                    # (auto: many samples, or a column sorted in one pass)
                    radix = _PRESORT == 1 or n >= PRESORT_RADIX_MIN or bits <= RADIX_BITS
                    if radix:
                        run_shift[j] = _radix_column(&keys[j, 0], &tmp[0], n, ib, lo,
                                                     low_zeros, bits, &hist[0])
                unsorted[j] = not radix
                n_unsorted += not radix
        if n_unsorted == gm:
            keys_arr[:gm].sort(axis=1)       # numpy's sort, without the GIL
        elif n_unsorted > 0:
            for j in range(gm):
                if unsorted[j]:
                    keys_arr[j].sort()
        with nogil:
            for j in range(gm):
                if done[j]:
                    continue
                col = &vals[j, 0] if strided else base + (g0 + j) * cstride
                cs = 1 if strided else rstride
                err = _finish_column(col, cs, &keys[j, 0], n, ib, run_shift[j],
                                     low[j] == 0 and run_shift[j] == ib, &o[g0 + j, 0])
                if err:
                    break
        if err:
            raise MemoryError()
    return out


cdef uint64_t _column_tops(const uint32_t[:, ::1] keys, int64_t n,
                           uint64_t* col_top) noexcept nogil:
    """The highest dense rank of every column of presort's output (its count of values,
    minus one) into col_top; returns the largest."""
    cdef int64_t f, i
    cdef uint64_t c, top = 0
    for f in range(keys.shape[0]):
        c = 0
        for i in range((n + 31) >> 5):
            c += rf_popcount32(keys[f, n + i])
        col_top[f] = c - 1 if c > 0 else 0
        top = col_top[f] if col_top[f] > top else top
    return top


cdef object _dtype_for(uint64_t top):
    return np.dtype(np.uint8 if top < 256 else np.uint16 if top < 65536 else np.uint32)


def column_tops(const uint32_t[:, ::1] keys, Py_ssize_t n):
    """Every column's highest dense rank (its count of values, minus one) in
    :func:`presort`'s output ``keys`` for ``n`` samples, as uint64: what build_tree
    reads of the keys before growing (``col_top``; a forest computes it once: on wide
    data, reading every column's bitmap again costs a tree several per cent of its
    time)."""
    if keys.shape[1] != keys_width(n):
        raise ValueError("keys must be presort's output for n samples")
    tops = np.zeros(keys.shape[0], dtype=np.uint64)
    cdef uint64_t[::1] t = tops
    if keys.shape[0] > 0 and n > 0:
        with nogil:
            _column_tops(keys, n, &t[0])
    tops.setflags(write=False)
    return tops


def rank_dtype(const uint32_t[:, ::1] keys, Py_ssize_t n, col_top=None):
    """The narrowest unsigned integer type that holds every dense rank of
    :func:`presort`'s output ``keys`` for ``n`` samples (``col_top``: their
    :func:`column_tops`, when the caller has them)."""
    if col_top is None:
        col_top = column_tops(keys, n)
    return _dtype_for(int(col_top.max()) if col_top.shape[0] > 0 else 0)


def needs_ranks(const uint32_t[:, ::1] keys, Py_ssize_t n, int64_t max_features,
                col_top=None):
    """Whether trees grown on :func:`presort`'s output ``keys`` (``n`` samples) with
    ``max_features`` may sort in their nodes, and so read :func:`dense_ranks` (the
    plan of :func:`build_tree`'s root, the same for every tree of a forest; a tree that
    needs ranks it was not given computes them).  ``col_top``: the keys'
    :func:`column_tops`, when the caller has them."""
    cdef int64_t F = keys.shape[0]
    if F == 0 or n == 0:
        return False
    if col_top is None:
        col_top = column_tops(keys, n)
    cdef const uint64_t[::1] t = col_top
    cdef uint64_t top = int(col_top.max())
    return _tree_method(max(1, min(max_features, F)), F, max(1, _bit_length(top)),
                        &t[0], n) != METHOD_PRESORT


cdef int _rank_rows(const uint32_t[:, ::1] keys, rank_t* o, int64_t n, int64_t a,
                    int64_t b) noexcept nogil:
    """Rows a:b of the ranks; -1 when a row of keys is not an order of all n samples
    (an index out of range, or one twice), -3 when its ranks do not fit in rank_t."""
    cdef int64_t f, i, i0
    cdef uint32_t rank, bits, ix
    cdef uint64_t* seen = <uint64_t*> malloc(((n + 63) >> 6) * sizeof(uint64_t))
    if seen == NULL:
        return -2
    for f in range(a, b):
        memset(seen, 0, ((n + 63) >> 6) * sizeof(uint64_t))
        rank = <uint32_t> -1
        for i0 in range(0, n, 32):
            bits = keys[f, n + (i0 >> 5)]
            for i in range(i0, min(i0 + 32, n)):
                rank += bits & 1
                bits >>= 1
                ix = keys[f, i]
                if ix >= <uint32_t> n or (seen[ix >> 6] >> (ix & 63)) & 1:
                    free(seen)
                    return -1
                seen[ix >> 6] |= (<uint64_t> 1) << (ix & 63)
                o[f * n + ix] = <rank_t> rank
        if rank != <uint32_t> <rank_t> rank:
            free(seen)
            return -3
    free(seen)
    return 0


def dense_ranks(const uint32_t[:, ::1] keys, out=None, Py_ssize_t start=0, stop=None):
    """The dense rank of every cell from :func:`presort`'s output: ``out[f, i]`` is the
    number of distinct values of column ``f`` below ``X[i, f]`` (missing values last, as
    one value).  An array of shape ``(n_features, n_samples)`` of the narrowest unsigned
    type that holds the ranks (:func:`rank_dtype`; 1 byte a cell for columns of at most
    256 values, such as pixels); nodes that sort their samples read it.  With ``out``
    only the rows ``start:stop`` are computed, into ``out``, so threads can share the
    work."""
    cdef int64_t F = keys.shape[0], width = keys.shape[1], n
    n = (32 * width) // 33
    while keys_width(n) < width:
        n += 1
    if keys_width(n) != width:
        raise ValueError("keys is not presort's output")
    if out is None:
        out = np.empty((F, n), dtype=rank_dtype(keys, n))
    if (out.shape != (F, n) or out.dtype not in (np.uint8, np.uint16, np.uint32)
            or not out.flags.c_contiguous):
        raise ValueError("out must be a C-contiguous array of shape (n_features, n_samples) "
                         "and of a type that holds the ranks (rank_dtype)")
    stop = F if stop is None else min(stop, F)
    cdef int64_t a = max(0, start), b = stop
    cdef uint8_t[:, ::1] o1
    cdef uint16_t[:, ::1] o2
    cdef uint32_t[:, ::1] o4
    if n == 0 or a >= b:
        return out
    cdef int err
    if out.dtype == np.uint8:
        o1 = out
        with nogil:
            err = _rank_rows(keys, &o1[0, 0], n, a, b)
    elif out.dtype == np.uint16:
        o2 = out
        with nogil:
            err = _rank_rows(keys, &o2[0, 0], n, a, b)
    else:
        o4 = out
        with nogil:
            err = _rank_rows(keys, &o4[0, 0], n, a, b)
    if err == -2:
        raise MemoryError()
    if err == -3:
        raise ValueError("out must be a C-contiguous array of shape (n_features, n_samples) "
                         "and of a type that holds the ranks (rank_dtype)")
    if err:
        raise ValueError("keys do not belong to X: a row does not order every sample once")
    return out
