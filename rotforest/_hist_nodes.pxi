# Histogram nodes: sorting nodes that keep their features' counts, so that a child's
# counts are its parent's minus its sibling's.
# Included by _builder.pyx (one compiled module: the kernels inline across files).
#
# A tree that visits every feature at every node (max_features >= n_features, depth
# first), on features of at most HIST_MAX_BINS values (two-class or multiclass Gini,
# integer weights in the keys: the counting scans' conditions), counts the features of
# a node (_count_hist) instead of scanning presorted lists: the lists would be scanned and partitioned at
# every node, n_node x n_features keys twice over, where counting the smaller child of
# each split and subtracting its counts from its parent's gives the larger child's, so
# that a sample is counted only in the nodes where it is on the smaller side.  The
# tree sorts in its nodes from the root (METHOD_SORT); each node with a block holds
# every scanned feature's counts (HistPool.off: per rank of the feature its samples,
# then its class weights), scanned by _scan_counts2 / _scan_counts_multi as the
# counting sorting nodes scan them: exact integers, the same cuts, the same tree.  A
# feature with missing values is sorted in each node instead, as are all features in
# the nodes without a block.
#
# Blocks: a node acquires one when it is split with none (the root, or a node whose
# parent passed none) and fills it while it scans; when it splits, its smaller child's
# counts go into a new block and its own block, less those, becomes the larger
# child's.  A child that becomes a leaf, or has fewer than min_rows samples, takes no
# block (min_rows: the counts a feature has in a block, on average: a smaller node
# costs less to count or sort than to scan a block).  Depth first, the
# blocks held are those of the nodes waiting on the stack; past `limit` blocks a node
# counts its features on its own, as other sorting nodes do.

# ranks a feature may have (one byte) to be counted by histogram nodes
DEF HIST_MAX_BINS = MAX_COUNT_BINS
# ... and its features have at most this many values on average: the nodes without a
# block (below min_rows) sort the features of more than COUNT_BINS values, at a cost
# above the lists' (single trees of every feature on skin_segmentation, 3 features of
# about 200 values, took 1.5x the lists' time; on mnist_test10k 1.0x)
cdef int64_t HIST_MEAN_BINS = 32
# a tree grows with histogram nodes when its nodes of min_rows samples lie at least this
# many levels of halving below the root (min_rows x HIST_LEVELS <= the samples); the
# nodes without a block sort their features of many values, which costs more than the
# lists (see _method.pxi)
cdef int64_t HIST_LEVELS = 8
# a node without a block counts a feature of nb ranks from HIST_ALONE x nb samples on
# (else sorts it)
cdef int64_t HIST_ALONE = 1
# a node takes a block from min_rows samples: this share (percent) of the counts a
# feature has in a block, on average (relevance trees of rotation forests on the counts
# data of benchmarks/bench_few_valued.py, 3,000 columns: 100% 4.45 ms a tree, 50% 4.01,
# 25% 4.02, 12% 3.95; the lists 5.71; hiva and semeion alike within noise)
cdef int64_t HIST_ROWS_PCT = 25
# blocks of one tree take at most this many bytes
cdef int64_t HIST_BYTES = 64 << 20


def _tune_hist(levels=None, alone=None, rows_pct=None, max_bytes=None):
    """Set histogram nodes' thresholds (for tests and benchmarks: the trees are the same
    for any); returns the previous ``(levels, alone, rows_pct, max_bytes)``."""
    global HIST_LEVELS, HIST_ALONE, HIST_ROWS_PCT, HIST_BYTES
    previous = (HIST_LEVELS, HIST_ALONE, HIST_ROWS_PCT, HIST_BYTES)
    if levels is not None:
        HIST_LEVELS = levels
    if alone is not None:
        HIST_ALONE = alone
    if rows_pct is not None:
        HIST_ROWS_PCT = rows_pct
    if max_bytes is not None:
        HIST_BYTES = max_bytes
    return previous


cdef inline int64_t _hist_counts_a_rank(const Builder* B) noexcept nogil:
    """Counts a rank of a feature takes in a block: its samples, then its class-1 packed
    weights (two classes: see _count_bins) or its n_classes class weights."""
    return 2 if B.data.n_classes == 2 else 1 + B.data.n_classes


cdef bint _hist_wanted(const Builder* B, const double[:, :] X, const uint32_t[:, ::1] keys,
                       const uint64_t[::1] col_top, int64_t max_leaf_nodes,
                       bint categorical) noexcept:
    """Whether the tree grows with histogram nodes: depth first, every feature visited at
    every node, the counting scans' conditions (one output, classification with Gini,
    integer weights in the keys, cuts found, not the reference scan, no monotonic
    constraint), no missing value (a feature with some is sorted in every node: slower
    than the lists), every feature of at most HIST_MAX_BINS values and HIST_MEAN_BINS
    on average, and blocks small enough for the nodes (see HIST_LEVELS)."""
    cdef int64_t f, size = 0, F = B.data.n_features, n = X.shape[0]
    if not (_HIST_NODES and _METHOD == METHOD_AUTO and max_leaf_nodes <= 0 and F > 0
            and B.par.max_features >= F and not categorical and n > 0
            and not B.data.regression and B.data.n_outputs == 1
            and B.data.n_classes <= COUNT_CLASSES and B.par.criterion == CRIT_GINI
            and B.key.packed and not B.par.random_split and not B.par.reference
            and B.data.monotonic == NULL):
        return False
    for f in range(F):
        if col_top[f] >= HIST_MAX_BINS or isnan(X[keys[f, n - 1], f]):   # (NaN last)
            return False
        size += <int64_t> col_top[f] + 1
    if size > HIST_MEAN_BINS * F:
        return False
    size *= _hist_counts_a_rank(B)
    return (size + F - 1) // F * HIST_LEVELS <= B.data.n_active


cdef int _hist_setup(Builder* B, const uint64_t[::1] col_top) except -1:
    """The block layout of a tree with histogram nodes."""
    cdef int64_t f, F = B.data.n_features, per = _hist_counts_a_rank(B)
    B.hist.off = <int64_t*> malloc((F + 1) * sizeof(int64_t))
    B.hist.nb = <int64_t*> malloc(F * sizeof(int64_t))
    if B.hist.off == NULL or B.hist.nb == NULL:
        _nomem()
    B.hist.off[0] = 0
    for f in range(F):
        B.hist.nb[f] = <int64_t> col_top[f] + 1
        B.hist.off[f + 1] = B.hist.off[f] + B.hist.nb[f] * per
    B.hist.size = B.hist.off[F]
    B.hist.min_rows = max(1, (B.hist.size + F - 1) // F * HIST_ROWS_PCT // 100)
    B.hist.scratch = <int64_t*> malloc(HIST_MAX_BINS * per * sizeof(int64_t))
    if B.hist.scratch == NULL:
        _nomem()
    B.hist.limit = max(2, HIST_BYTES // (B.hist.size * <int64_t> sizeof(int64_t)))
    return 0


cdef inline void _count_hist(Builder* B, int64_t f, int64_t s, int64_t e,
                             int64_t* cnt) noexcept nogil:
    """Feature f's counts of the samples of the sorting node [s, e) into ``cnt`` (its
    part of a block, or scratch as large; cleared first): _count_feature's, of the
    feature's nb[f] ranks."""
    cdef int64_t nb = B.hist.nb[f]
    memset(cnt, 0, (B.hist.off[f + 1] - B.hist.off[f]) * sizeof(int64_t))
    _count_feature(B, f, s, e, nb, cnt, cnt + nb)


cdef inline bint _hist_counted(const Builder* B, int64_t f) noexcept nogil:
    """Whether histogram nodes count feature f (one without missing values)."""
    return B.work.nan_rank[f] == NO_NAN


cdef inline bint _hist_counts_alone(const Builder* B, const Entry* e,
                                    int64_t f) noexcept nogil:
    """Whether a node of a histogram tree without a block counts feature f (into
    scratch) rather than sort it: at least HIST_ALONE samples a rank."""
    return (B.hist.off != NULL and _hist_counted(B, f)
            and e.end - e.start >= HIST_ALONE * B.hist.nb[f])


cdef int64_t _hist_acquire(Builder* B) noexcept nogil:
    """A free block (its counts stale), or -1 when `limit` are held or memory is short
    (the node then sorts on its own: not an error).  Blocks may move: pointers into
    them are taken after acquiring."""
    cdef int64_t cap, j
    cdef void* p
    if B.hist.n_free > 0:
        B.hist.n_free -= 1
        return B.hist.free_list[B.hist.n_free]
    if B.hist.cap >= B.hist.limit:
        return -1
    cap = min(B.hist.limit, max(4, 2 * B.hist.cap))
    p = realloc(B.hist.free_list, cap * sizeof(int64_t))
    if p == NULL:
        return -1
    B.hist.free_list = <int64_t*> p
    p = realloc(B.hist.blocks, cap * B.hist.size * sizeof(int64_t))
    if p == NULL:
        return -1
    B.hist.blocks = <int64_t*> p
    for j in range(cap - 1, B.hist.cap, -1):
        B.hist.free_list[B.hist.n_free] = j
        B.hist.n_free += 1
    j = B.hist.cap
    B.hist.cap = cap
    return j


cdef inline void _hist_release(Builder* B, Entry* e) noexcept nogil:
    """Gives the entry's block back, if it holds one."""
    if e.hist >= 0:
        B.hist.free_list[B.hist.n_free] = e.hist
        B.hist.n_free += 1
    e.hist = -1
    e.hist_full = 0


cdef inline double _hist_proxy(Builder* B, const Entry* e, int64_t f, int64_t* cnt,
                               bint fill, const double* counts, double best,
                               int64_t* pos, int64_t* levels) noexcept nogil:
    """The best cut of feature f of a histogram node from its counts ``cnt`` (its part
    of the node's block, or scratch; counted here first when ``fill``): the cut the
    counting or sorting scans find."""
    cdef int64_t nb = B.hist.nb[f]
    if fill:
        _count_hist(B, f, e.start, e.end, cnt)
    if B.data.n_classes == 2:
        return _scan_counts2(B, cnt, cnt + nb, nb, e.start, e.end, counts, e.weight,
                             best, pos, levels)
    return _scan_counts_multi(B, cnt, cnt + nb, nb, e.start, e.end, counts, e.weight,
                              best, pos, levels)


cdef void _hist_children(Builder* B, int64_t ei, int64_t le, int64_t re, bint lleaf,
                         bint rleaf) noexcept nogil:
    """After a histogram node's split (its samples partitioned, the children's entries
    made): the smaller child's counts into a new block, the node's block less them
    handed to the larger child; or the node's block released when that does not pay."""
    cdef Entry* pe = &B.front.ent[ei]
    cdef Entry* small = &B.front.ent[le]
    cdef Entry* big = &B.front.ent[re]
    cdef Entry* swap
    cdef bint small_leaf = lleaf, big_leaf = rleaf
    cdef const uint64_t* consts = B.front.constant + ei * B.front.n_words
    cdef int64_t t, f, j
    cdef int64_t* pb
    cdef int64_t* sb
    small.hist = big.hist = -1
    small.hist_full = big.hist_full = 0
    if small.end - small.start > big.end - big.start:
        swap = small
        small = big
        big = swap
        small_leaf = rleaf
        big_leaf = lleaf
    if (pe.hist < 0 or not pe.hist_full or big_leaf
            or big.end - big.start < B.hist.min_rows):
        _hist_release(B, pe)
        return
    t = _hist_acquire(B)
    if t < 0:
        _hist_release(B, pe)
        return
    pb = B.hist.blocks + pe.hist * B.hist.size
    sb = B.hist.blocks + t * B.hist.size
    for f in range(B.data.n_features):
        if (consts[f >> 6] >> (f & 63)) & 1 or not _hist_counted(B, f):
            continue
        _count_hist(B, f, small.start, small.end, sb + B.hist.off[f])
        for j in range(B.hist.off[f], B.hist.off[f + 1]):
            pb[j] -= sb[j]
    big.hist = pe.hist
    big.hist_full = 1
    pe.hist = -1
    pe.hist_full = 0
    small.hist = <int32_t> t
    small.hist_full = 1
    if small_leaf or small.end - small.start < B.hist.min_rows:
        _hist_release(B, small)
