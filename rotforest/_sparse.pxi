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
#   statistics of the implicit zeros follow from its totals: the counting scans of
#   few-valued features (_count_gini2, _count_gini_multi) then cost the entries, not
#   the samples, and count the same integers.

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
    [s, e) (entries of other samples may be written too: nothing reads them)."""
    cdef uint32_t* rb = B.col.rowbuf
    cdef const key_t* S = B.col.samples
    cdef const int32_t* R = B.col.sp_row
    cdef const uint32_t* rank = B.col.sp_rank
    cdef uint64_t im = B.key.imask
    cdef int64_t a = B.col.sp_ptr[f], b = B.col.sp_ptr[f + 1], q, t
    cdef uint32_t z = B.col.sp_zero[f]
    cdef uint64_t i
    for q in range(s, e):
        rb[S[q] & im] = z
    if b - a <= 2 * (e - s):
        # few entries for the node: all of them written
        for t in range(a, b):
            rb[R[t]] = rank[t]
    else:
        # a small node of a full column: each sample's entry searched
        t = a
        for q in range(s, e):
            i = S[q] & im
            t = _gallop(R, t, b, <int64_t> i)
            if t >= b:
                break
            if <uint64_t> R[t] == i:
                rb[i] = rank[t]


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
