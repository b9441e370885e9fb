# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The binned builder: split searches on histograms of binned features.

Large data is grown on bins instead of presorted lists.  Each feature's values are
mapped once per fit to at most 255 bins (``bin_edges``, ``bin_codes``): ``edges[f]``
holds increasing thresholds, and a value's code is the number of thresholds below it
(so ``x <= edges[f][k]`` exactly when its code is at most ``k``); a missing value's code
is 255.  The codes are stored a row at a time (row ``i``'s codes are ``p`` consecutive
bytes), so that the few features a node draws are read from one cache line per sample.

``build_tree`` grows one tree depth-first (nodes numbered in pre-order, as the exact
builder and scikit-learn number them).  A node is a slice ``[start, end)`` of the tree's
samples (those of non-zero weight), kept with their weights and targets side by side
(no gather of weights or targets in the hot loop).  To split a node, the drawn features'
histograms (per bin: the class weights, or the weight and the weighted target sum; the
sample counts only when ``min_samples_leaf`` > 1) are built in one pass over the slice,
and every cut between two non-empty bins is scored as the exact scans score a cut
(scikit-learn's proxies; with missing values, both sides for them and the cut that sends
only them right).  Features are drawn as the exact builder draws them (uniformly without
replacement, until ``max_features`` are drawn and one is not constant; features constant
in a node are not drawn below it).  The winner partitions the slice stably and the
children's statistics are summed exactly on the way.

A node of few samples does not clear or read 256 bins per feature: its histograms are
filled lazily behind a bitmap of the bins it touches, and only those are scanned.

Threshold of a cut between the node's non-empty bins ``a < b``: a middle one of the
``b - a`` edges between them, ``edges[f][(a + b) // 2]`` (the edge of ``a`` when they
are neighbours).  When every feature has at most 255 distinct values, the edges are the
midpoints between neighbouring values and the tree makes the exact builder's partitions;
on evenly spaced values (integers) its thresholds are the exact builder's too (the
midpoint of the node's two neighbouring values: an absent value halfway between them
goes left in both).
"""
import numpy as np

from libc.math cimport INFINITY, NAN, fabs, isnan, log
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcpy, memset

from ._tree cimport Node
from ._tree import NODE_DTYPE

cdef extern from "_hist.h":
    ctypedef struct rf_hrefine:
        int64_t lo, hi
        int pending
        uint8_t* U
        int64_t u
        const double* X
        int64_t xs0, xs1, rowoff
    void rf_hfill_packed(const uint8_t* src, int64_t stride, int64_t hdr,
                         const uint8_t* codes, int64_t p, int compact, int64_t s,
                         int64_t e, const int64_t* fs, int64_t m, uint64_t* ph,
                         uint64_t* ph2, int narrow) noexcept nogil
    ctypedef struct rf_xv:
        double x
        int64_t i
    void rf_sort_xv(rf_xv* v, int64_t n) noexcept nogil
    void rf_radix_xv(rf_xv* v, rf_xv* tmp, int64_t n) noexcept nogil
    uint64_t rf_pay(const uint8_t* rec, int64_t hdr, int narrow) noexcept nogil
    ctypedef struct rf_mt:
        uint32_t key[624]
        int64_t pos
    int rf_mt_counts(rf_mt* s, uint64_t n, int64_t n_draws, uint8_t* counts) noexcept nogil
    ctypedef struct rf_he:
        double x
        double w
        int32_t cls, code
    void rf_sort_he(rf_he* v, int64_t n) noexcept nogil
    void rf_hfetch(const uint8_t* src, int64_t stride, int64_t hdr, int64_t rowoff,
                   const uint8_t* codes, int64_t p, int compact, int packed,
                   const double* X, int64_t xs0, int64_t xs1, int64_t f,
                   const int64_t* idx, int64_t u, rf_he* out) noexcept nogil
    int64_t rf_hgather(const uint8_t* src, int64_t stride, const uint8_t* codes,
                       int64_t p, int64_t s, int64_t e, int compact, const int64_t* fs,
                       int64_t nf, const uint8_t* marked, int64_t* out) noexcept nogil
    int64_t rf_hgather_take(const int64_t* gathered, int64_t u, int64_t q,
                            int64_t* idx) noexcept nogil
    int64_t rf_hpart(const uint8_t* src, uint8_t* dst, int64_t stride, int64_t hdr,
                     const uint8_t* codes, int64_t p, int64_t s, int64_t e, int64_t f,
                     int64_t cut, int mleft, rf_hrefine* R, double* left,
                     double* right, double* wl, double* wr, int compact,
                     int mode, int place) noexcept nogil
    int64_t rf_hpart_multi(const uint8_t* src, uint8_t* dst, int64_t stride,
                           int64_t hdr, const uint8_t* codes, int64_t p, int64_t s,
                           int64_t e, int64_t f, int64_t cut, int mleft,
                           const uint8_t* table, double* left, double* right,
                           double* wl, double* wr, int compact, int place,
                           int64_t n_out, const int64_t* off, int regression,
                           int poisson) noexcept nogil
    int64_t rf_hpart_set(const uint8_t* src, uint8_t* dst, int64_t stride, int64_t hdr,
                         const uint8_t* codes, int64_t p, int64_t s, int64_t e,
                         int64_t f, const uint8_t* table, rf_hrefine* R, double* left,
                         double* right, double* wl, double* wr, int compact, int mode,
                         int place) noexcept nogil

cdef extern from "_platform.h":
    uint64_t rf_rng_next(uint64_t* s) noexcept nogil
    int rf_ctz64(uint64_t x) noexcept nogil
    bint rf_values_ok(double vl, double vr, int cst, double lower,
                      double upper) noexcept nogil
    ctypedef struct rf_vi:
        double v
        int64_t i
    int rf_cmp_vi(const void* a, const void* b) noexcept nogil

cdef double EPSILON = 2.220446049250313e-16
cdef double LN2 = 0.6931471805599453
DEF MISSING = 255           # the code of a missing value
DEF NBINS = 256             # bins per feature's histogram (the missing one included)
DEF MAX_BOUND_K = 4         # classes up to which cuts inside bins are searched exactly
DEF SMALL = 96              # nodes of fewer samples fill their histograms lazily
DEF SUB_MIN = 512           # a child of this many samples may take its histograms by
                            # subtraction (see _children_sets)
cdef int64_t MAX_NODES = 2147483647
cdef uint64_t LOW32 = 4294967295
# the widest data whose samples' codes are carried side by side (partitioned with them)
COMPACT = 64
# two classes with integer weights below 2^16 take narrow records (4-byte payloads, see
# _hist.h) where a tree's two buffers of full records would take this many bytes: they
# save an eighth of the memory at 17 to 20 features (100 MB at 10M rows and two
# threads) but partition about a sixth slower (their stores straddle cache lines),
# which matters less than memory at that size
NARROW_FROM = 256 << 20

# the criteria the binned builder takes (the exact builder's numbers, see _builder)
cdef enum:
    CRIT_GINI_B = 0
    CRIT_ENTROPY_B = 1
    CRIT_SQUARED_B = 2
    CRIT_FRIEDMAN_B = 3         # the squared error's cuts, Friedman's improvement
    CRIT_POISSON_B = 4          # the Poisson deviance (its second sums: w y log y)

# cuts inside bins (classification) are searched where one might gain more than the
# best binned cut's gain times 1 + INSIDE_TOL and plus INSIDE_ABS of the root's
# impurity (see _cand_floor; both 0: exactly the exact search's cuts; chosen by
# bench_binned.py --inside)
INSIDE_TOL = 0.5
INSIDE_ABS = 1e-4

# trees of at least this many samples grow their subtrees apart (see _hist_forks.pxi)
FORK_ROWS = 1 << 18

CRITERIA = {"gini": CRIT_GINI_B, "entropy": CRIT_ENTROPY_B, "log_loss": CRIT_ENTROPY_B,
            "squared_error": CRIT_SQUARED_B, "friedman_mse": CRIT_FRIEDMAN_B,
            "poisson": CRIT_POISSON_B}


# ----------------------------------------------------------------------------------------
# Binning
# ----------------------------------------------------------------------------------------

def bin_edges(const double[:] column, int64_t max_bins, bint levels=False):
    """The increasing thresholds of one feature's bins from (a sample of) its values:
    with at most ``max_bins`` distinct values, the midpoints of neighbouring ones (never
    rounded onto the upper one); otherwise the edges that cut the sorted values into
    ``max_bins`` runs of nearly equal size, each between two distinct values.
    ``levels``: also the distinct values (sorted, NaN left out), as ``(edges,
    values)``.  One sort (numpy's, without the GIL): the runs of equal values are read
    off the sorted array."""
    values = np.asarray(column)
    values = np.sort(values[~np.isnan(values)])
    if values.size == 0:
        return (np.empty(0), values) if levels else np.empty(0)
    new = np.empty(values.size, dtype=bool)
    new[0] = True
    np.not_equal(values[1:], values[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    distinct = values[starts]
    if distinct.size <= max_bins:
        cuts = np.arange(distinct.size - 1)
    else:
        ends = np.append(starts[1:], values.size)      # the runs' cumulative counts
        targets = values.size * np.arange(1, max_bins) / max_bins
        cuts = np.unique(np.searchsorted(ends, targets, side="left"))
        cuts = cuts[cuts < distinct.size - 1]
    lo, hi = distinct[cuts], distinct[cuts + 1]
    mid = lo / 2.0 + hi / 2.0
    bad = (mid >= hi) | ~np.isfinite(mid)
    mid[bad] = lo[bad]
    edges = np.ascontiguousarray(mid)
    return (edges, distinct) if levels else edges


def bin_codes(const double[:, :] X, const double[::1] edges, const int64_t[::1] offsets,
              uint8_t[:, ::1] out, int64_t row_start, int64_t row_end):
    """Codes of rows [row_start, row_end) of X into ``out`` (row by row): feature f's
    edges are ``edges[offsets[f]:offsets[f + 1]]`` (at most 255 of them); a value's
    code is the number of its edges below it, a missing value's 255.  Runs without the
    GIL."""
    cdef int64_t i, j, k
    cdef int64_t p = X.shape[1]
    cdef bint by_rows = X.strides[1] == sizeof(double)
    for j in range(p):
        if offsets[j + 1] - offsets[j] > 255:
            raise ValueError(f"feature {j} has more than 255 edges")
    # each feature's edges padded to 256 with infinity: every search takes the same
    # eight steps, so the searches of a row's features overlap (see _code256)
    cdef double[:, ::1] tab = np.full((max(p, 1), 256), np.inf)
    for j in range(p):
        for k in range(offsets[j], offsets[j + 1]):
            tab[j, k - offsets[j]] = edges[k]
    with nogil:
        if by_rows:             # C order: a row at a time
            for i in range(row_start, row_end):
                for j in range(p):
                    out[i, j] = _code256(X[i, j], &tab[j, 0])
        else:
            for j in range(p):
                for i in range(row_start, row_end):
                    out[i, j] = _code256(X[i, j], &tab[j, 0])


cdef inline uint8_t _code256(double x, const double* t) noexcept nogil:
    """x's code among 256 sorted edges (the last ones infinite), at most 255 below
    it: eight steps without branches; 255 for NaN."""
    cdef int64_t pos = 0
    if isnan(x):
        return MISSING
    pos += 128 * (t[pos + 127] < x)
    pos += 64 * (t[pos + 63] < x)
    pos += 32 * (t[pos + 31] < x)
    pos += 16 * (t[pos + 15] < x)
    pos += 8 * (t[pos + 7] < x)
    pos += 4 * (t[pos + 3] < x)
    pos += 2 * (t[pos + 1] < x)
    pos += t[pos] < x
    return <uint8_t> pos


def draw_counts(const int64_t[::1] drawn, int64_t n, out=None):
    """How many times each of n rows was drawn, as float64 (``np.bincount(drawn,
    minlength=n)`` as weights, without its int64 copy), without the GIL; every draw
    must be in [0, n).  ``out``: counts so far to add to (float64, or uint8, which
    build_tree takes as weights: a draw made in chunks), returned; None when they are
    uint8 and a row would pass 255."""
    cdef int64_t i, k
    cdef uint8_t[::1] few
    cdef double[::1] counts
    if out is None:
        out = np.zeros(n, dtype=np.float64)
    if out.dtype == np.uint8:
        few = out
        with nogil:
            for i in range(drawn.shape[0]):
                k = drawn[i]
                if k < 0 or k >= n:
                    with gil:
                        raise ValueError(f"draw {k} is not a row of {n}")
                if few[k] == 255:
                    with gil:
                        return None
                few[k] += 1
        return out
    counts = out
    with nogil:
        for i in range(drawn.shape[0]):
            k = drawn[i]
            if k < 0 or k >= n:
                with gil:
                    raise ValueError(f"draw {k} is not a row of {n}")
            counts[k] += 1.0
    return out


BAG_ROWS = 1 << 32          # bag_counts draws from at most this many rows


def bag_counts(state, int64_t n, int64_t n_draws):
    """What ``draw_counts(state.randint(0, n, n_draws), n, out=<uint8 zeros>)`` returns
    (each row's draws, uint8; None when a row is drawn more than 255 times), drawn in C
    from the RandomState's MT19937 words (``state`` is left as it was), without an array
    of the draws; None also when n is outside [1, 2**32] (the caller draws in Python)."""
    if n < 1 or n > BAG_ROWS or n_draws < 0:
        return None
    name, key, pos = state.get_state()[:3]
    if name != "MT19937":
        return None
    cdef rf_mt mt
    cdef const uint32_t[::1] words = np.ascontiguousarray(key, dtype=np.uint32)
    cdef int r
    memcpy(mt.key, &words[0], 624 * sizeof(uint32_t))
    mt.pos = pos
    counts = np.zeros(n, dtype=np.uint8)
    cdef uint8_t[::1] c = counts
    with nogil:
        r = rf_mt_counts(&mt, <uint64_t> n, n_draws, &c[0])
    return None if r < 0 else counts


# ----------------------------------------------------------------------------------------
# The builder's state
# ----------------------------------------------------------------------------------------

cdef struct HEntry:
    int64_t start, end, depth, parent
    int is_left
    double weight, impurity
    double lower, upper           # monotonic constraints: bounds on its value (the
                                  # class-0 fraction, or the mean; see _grow)
    int64_t hset                  # its histograms (a set of the pool), or -1


cdef struct HSplit:
    int64_t feature, cut          # left: codes <= cut (and the missing ones if mleft)
    int mleft, found, missing     # missing: the node holds missing values of it
    int64_t lo, hi                # the node's non-empty bins on each side of the cut
    double proxy
    int lo_pure, hi_pure          # classes: its bin lo (hi) holds one class (no cut
                                  # inside it can beat the binned ones, see _partition)
    int refined                   # the cut refined on X (see _refine): codes below lo
    double thr                    # left, above hi right, in [lo, hi] by x <= thr
    int is_set                    # a categorical split (see _hist_sets.pxi): the bins
    uint64_t set_left[4]          # that go left (the missing one included), and those
    uint64_t set_present[4]       # present in the node


cdef struct HCand:
    # a bin whose inside might hold a cut better than the binned ones (see _bounds):
    # the bound, the left side's statistics before the bin (class weights, weight,
    # samples), and the binned cut whose refinement covers the bin (as HSplit's)
    double bound
    double left[MAX_BOUND_K]
    double wl
    int64_t nl, feature, b, cut, lo, hi
    int mleft, missing, lo_pure, hi_pure


cdef struct HSet:
    # histograms, by slot: slot j's bins at h[j * NBINS * S], its bitmap of non-empty
    # bins at touched[4 * j], its sample counts at cnt[j * NBINS]
    double* h
    uint64_t* touched
    int32_t* cnt


cdef struct HCat
cdef struct HFork


cdef struct HB:
    # data (borrowed)
    const uint8_t* codes
    int64_t p, K, S               # features, classes (1: regression), stats a bin
    const double* edges
    const int64_t* offsets
    bint regression, need_counts, shuffle
    bint packed                   # two classes, integer weights: one integer add a bin
    bint narrow                   # ... and every weight below 2^16: 4-byte payloads (the
                                  # records 4 bytes shorter, see _hist.h)
    bint skip_last
    int criterion
    # the values, for refining cuts (NULL: none), and their strides in doubles
    const double* X
    int64_t xs0, xs1
    const uint8_t* exact          # per feature: its bins hold one value each
    const int8_t* mono            # per feature: 1 / -1 when the value (class-0 fraction,
                                  # mean) may only rise / fall left to right; NULL: none
    double lower, upper           # the bounds of the node being split
    # _refine_split's buffers, the workspace's (kept between trees): the records the
    # partition sets aside and their values, with their sizes in bytes
    char** pend
    size_t* pend_size
    char** vals
    size_t* vals_size
    # settings
    int64_t max_depth, min_split, min_leaf, max_features
    double min_weight_leaf, min_decrease, total_weight
    uint64_t rng
    # the tree's samples as records (see _hist.h): a node's in buf[its depth & 1]
    uint8_t* buf[2]
    uint8_t* cur                  # the buffer of the node being split
    int64_t stride, hdr           # bytes a record, bytes before its weight
    bint compact                  # the records hold the samples' codes
    int64_t n_rows                # rows of the codes
    # histograms by subtraction (see _grow): a pool of sets, one slot a feature
    bint subtract, int_weights
    double* pool_h
    uint64_t* pool_t
    int32_t* pool_c
    int64_t* pool_free
    int64_t pool_cap, pool_nfree
    # histograms of a batch of features
    HSet batch_set                # B.hist, B.touched, B.cnt: slot q for batch feature q
    int64_t* ident                # 0, 1, 2, ...: the batch's slots
    int64_t* base                 # per batch feature, its slot's first bin
    uint64_t* packed_hist         # _fill_packed's integer histograms
    double* hist
    int32_t* cnt
    uint64_t* touched             # a bitmap of each feature's touched bins (small nodes)
    int64_t hist_cap
    # cuts inside bins (classification with X, see _bounds): this node's candidates
    bint bounds
    double inside_tol, inside_abs # (see _cand_floor)
    double root_most              # the root's largest gain, in the proxies' units
    double lip_skip               # bins of at most this weight cannot be candidates
                                  # (see _set_lip; 0: every bin's bound is taken)
    HCand* hc
    int64_t hc_n, hc_cap
    int64_t* batch
    int64_t* cand
    uint8_t* isconst               # per feature, of the batch: constant in the node
    # the frontier: entries with their statistics and constant features
    HEntry* stack
    double* stack_stats
    uint8_t* stack_const
    int64_t stack_cap, stack_n
    double* node_stats            # the node being split (copy)
    uint8_t* node_const
    double* left_stats
    double* right_stats
    # categorical features split on sets of their bins (see _hist_sets.pxi; NULL: none)
    HCat* cat
    # the output
    Node* nodes
    double* values
    int64_t count, cap, depth
    int error
    # several outputs (n_out > 1, see _hist_multi.pxi): a bin's statistics are each
    # output's class weights (output o's at out_off[o]; K = S their total) or the
    # weight and each output's sum of w*y; NS the nodes' statistics (the class
    # weights, or each output's sums of w*y, then of w*y*y), nv the values a node
    # (n_out x max_k).  (At the end: ahead of the builder's hot fields, they slowed a
    # two-class tree by 4%.)
    int64_t n_out, NS, nv, max_k
    int64_t* out_off
    # forks (see _hist_forks.pxi): the nodes at depth fork_depth (0: none) that may
    # split are left as leaves, to be grown apart
    int64_t fork_depth
    HFork* forks
    int64_t n_forks, forks_cap
    uint64_t fork_seed            # the tree's seed (the forks' streams derive from it)


cdef inline double _impurity(const HB* B, const double* s, double w) noexcept nogil:
    """scikit-learn's impurity of a node whose statistics are s (class weights, or the
    sums of w*y and w*y*y, or for Poisson w*y and w*y*log(y)) and weight w."""
    cdef int64_t k
    cdef double acc = 0.0, q
    if B.n_out > 1:
        return _impurity_multi(B, s, w)
    if B.regression:
        q = s[0] / w
        if B.criterion == CRIT_POISSON_B:
            # the mean Poisson deviance (0 for a node of zeros), as the exact builder's
            if q <= EPSILON:
                return 0.0
            return (s[1] - s[0] * log(q)) / w
        return s[1] / w - q * q
    if B.criterion == CRIT_GINI_B:
        for k in range(B.K):
            acc += s[k] * s[k]
        return 1.0 - acc / (w * w)
    for k in range(B.K):
        if s[k] > 0.0:
            q = s[k] / w
            acc -= q * (log(q) / LN2)
    return acc


cdef inline double _side_proxy(const HB* B, const double* s, double w) noexcept nogil:
    """A side's share of the split proxy (larger is better): the Gini criterion's
    sum of squared class weights over w, the entropy's sum of k log k minus w log w, the
    squared error's squared target sum over w, the Poisson deviance's s log(s / w)
    (-inf for a side whose sum is numerically zero: it would predict 0); with several
    outputs (see _hist_multi.pxi), the sum of theirs (the same sums: a bin's class
    weights of every output side by side, or its sums of w y after its weight)."""
    cdef int64_t k
    cdef double acc = 0.0
    if B.regression:
        if B.n_out > 1 and B.criterion == CRIT_FRIEDMAN_B:
            # Friedman's score of several outputs: the squared error's of their sum
            for k in range(1, B.S):
                acc += s[k]
            return acc * acc / w
        for k in range(1, B.S):
            if B.criterion == CRIT_POISSON_B:
                if s[k] <= EPSILON:
                    return -INFINITY
                acc += s[k] * log(s[k] / w)
            else:
                acc += s[k] * s[k] / w
        return acc
    if B.criterion == CRIT_GINI_B:
        for k in range(B.K):
            acc += s[k] * s[k]
        return acc / w
    for k in range(B.K):
        if s[k] > 0.0:
            acc += s[k] * log(s[k])
    return acc - <double> B.n_out * (w * log(w))


# ----------------------------------------------------------------------------------------
# Histograms and their scans
# ----------------------------------------------------------------------------------------

cdef inline const uint8_t* _row(const HB* B, int64_t t) noexcept nogil:
    """The codes of the node's t-th sample: in its record, or its row of the codes."""
    cdef const uint8_t* rec = B.cur + t * B.stride
    if B.compact:
        return rec
    return B.codes + (<const int64_t*> rec)[0] * B.p


cdef inline double _w(const HB* B, int64_t t) noexcept nogil:
    """The weight of the node's t-th sample."""
    if B.packed:
        return <double> (_packed(B, t) & LOW32)
    return (<const double*> (B.cur + t * B.stride + B.hdr))[0]


cdef inline int64_t _cls(const HB* B, int64_t t) noexcept nogil:
    """The class of the node's t-th sample."""
    if B.packed:
        return (_packed(B, t) >> 32) != 0
    return (<const int64_t*> (B.cur + t * B.stride + B.hdr + 8))[0]


cdef inline uint64_t _packed(const HB* B, int64_t t) noexcept nogil:
    """The packed payload of the node's t-th sample, w + (w * class << 32)."""
    return rf_pay(B.cur + t * B.stride, B.hdr, B.narrow)


cdef inline double _y(const HB* B, int64_t t) noexcept nogil:
    return (<const double*> (B.cur + t * B.stride + B.hdr + 8))[0]


cdef void _fill_dense(HB* B, int64_t start, int64_t end, int64_t m, HSet hs,
                      const int64_t* slot) noexcept nogil:
    """The histograms of the batch's m features (B.batch) over the slice into the
    set's slots ``slot[q]``, their bins cleared first; then each slot's bitmap of its
    non-empty bins."""
    cdef int64_t S = B.S, K = B.K, t, q, b, k, at
    cdef const uint8_t* row
    cdef double wt, wy, acc
    cdef double* h = hs.h
    cdef const int64_t* fs = B.batch
    cdef int64_t* base = B.base
    if B.packed:
        _fill_packed(B, start, end, m, hs, slot)
        return
    for q in range(m):
        base[q] = slot[q] * NBINS
        memset(h + base[q] * S, 0, NBINS * S * sizeof(double))
    if B.n_out > 1:
        _fill_multi(B, start, end, m, h)
    elif B.regression:
        for t in range(start, end):
            row = _row(B, t)
            wt = _w(B, t)
            wy = wt * _y(B, t)
            for q in range(m):
                b = (base[q] + row[fs[q]]) * 2
                h[b] += wt
                h[b + 1] += wy
    else:
        for t in range(start, end):
            row = _row(B, t)
            wt = _w(B, t)
            k = _cls(B, t)
            for q in range(m):
                h[(base[q] + row[fs[q]]) * K + k] += wt
    _fill_counts(B, start, end, m, hs)
    for q in range(m):
        memset(hs.touched + 4 * slot[q], 0, 4 * sizeof(uint64_t))
        for b in range(NBINS):
            at = base[q] + b
            acc = 0.0
            for k in range(S if not B.regression else 1):
                acc += h[at * S + k]
            if acc > 0.0:
                hs.touched[4 * slot[q] + (b >> 6)] |= (<uint64_t> 1) << (b & 63)


cdef void _fill_counts(HB* B, int64_t start, int64_t end, int64_t m,
                       HSet hs) noexcept nogil:
    """The batch's per-bin sample counts (only with min_samples_leaf > 1), into the
    slots whose offsets are in B.base."""
    cdef int64_t t, q
    cdef const uint8_t* row
    if not B.need_counts:
        return
    for q in range(m):
        memset(hs.cnt + B.base[q], 0, NBINS * sizeof(int32_t))
    for t in range(start, end):
        row = _row(B, t)
        for q in range(m):
            hs.cnt[B.base[q] + row[B.batch[q]]] += 1


cdef void _fill_packed(HB* B, int64_t start, int64_t end, int64_t m, HSet hs,
                       const int64_t* slot) noexcept nogil:
    """_fill_dense for two classes and integer weights: a bin's sample weight (low 32
    bits) and class-1 weight (high 32 bits) summed in one integer (two histograms,
    alternate samples, so that runs of one bin do not chain their adds), then unpacked
    into the class weights (the sums in C, rf_hfill_packed)."""
    cdef int64_t q, b, at
    cdef uint64_t v, lo, hi
    cdef uint64_t* ph = B.packed_hist
    cdef uint64_t* ph2 = ph + m * NBINS
    cdef const int64_t* fs = B.batch
    cdef double* h = hs.h
    memset(ph, 0, 2 * m * NBINS * sizeof(uint64_t))
    rf_hfill_packed(B.cur, B.stride, B.hdr, B.codes, B.p, B.compact, start, end, fs, m,
                    ph, ph2, B.narrow)
    for q in range(m):
        B.base[q] = slot[q] * NBINS
    _fill_counts(B, start, end, m, hs)
    for q in range(m):
        memset(hs.touched + 4 * slot[q], 0, 4 * sizeof(uint64_t))
        for b in range(NBINS):
            v = ph[q * NBINS + b] + ph2[q * NBINS + b]
            lo = v & LOW32
            hi = v >> 32
            at = B.base[q] + b
            h[2 * at] = <double> (lo - hi)
            h[2 * at + 1] = <double> hi
            if lo:
                hs.touched[4 * slot[q] + (b >> 6)] |= (<uint64_t> 1) << (b & 63)


cdef void _fill_lazy(HB* B, int64_t start, int64_t end, int64_t m) noexcept nogil:
    """The batch's histograms for a node of few samples (into B.batch_set, slot q for
    batch feature q): a bin is cleared when first touched, and only touched bins are
    read afterwards.  (The builder's state read into locals first: the bitmaps' stores
    could alias it, and the compiler would read it again at every sample.)"""
    cdef int64_t S = B.S, t, q, b, k, at, stride = B.stride, hdr = B.hdr, p = B.p
    cdef int64_t cls = 0
    cdef const uint8_t* cur = B.cur
    cdef const uint8_t* codes = B.codes
    cdef const int64_t* batch = B.batch
    cdef bint compact = B.compact, packed = B.packed, regression = B.regression
    cdef bint narrow = B.narrow
    cdef bint counts = B.need_counts
    cdef const uint8_t* rec
    cdef const uint8_t* row
    cdef double wt, yv = 0.0
    cdef uint64_t bit, word
    cdef double* h
    cdef HSet hs = B.batch_set
    cdef uint64_t* touched = hs.touched
    cdef double* hist = hs.h
    cdef int32_t* cnt = hs.cnt
    memset(touched, 0, m * 4 * sizeof(uint64_t))
    for t in range(start, end):
        rec = cur + t * stride
        row = rec if compact else codes + (<const int64_t*> rec)[0] * p
        if packed:
            word = rf_pay(rec, hdr, narrow)
            wt = <double> (word & LOW32)
            cls = (word >> 32) != 0
        else:
            wt = (<const double*> (rec + hdr))[0]
            if regression:
                yv = (<const double*> (rec + hdr + 8))[0]
            else:
                cls = (<const int64_t*> (rec + hdr + 8))[0]
        for q in range(m):
            b = row[batch[q]]
            at = q * NBINS + b
            h = hist + at * S
            bit = (<uint64_t> 1) << (b & 63)
            if not (touched[q * 4 + (b >> 6)] & bit):
                touched[q * 4 + (b >> 6)] |= bit
                for k in range(S):
                    h[k] = 0.0
                if counts:
                    cnt[at] = 0
            if regression:
                h[0] += wt
                h[1] += wt * yv
            else:
                h[cls] += wt
            if counts:
                cnt[at] += 1


cdef inline int64_t _bins_of(const uint64_t* bits, int64_t* out) noexcept nogil:
    """The non-empty present bins (codes below 255), in increasing order."""
    cdef int64_t n = 0, word
    cdef uint64_t x
    for word in range(4):
        x = bits[word]
        if word == 3:
            x &= ~((<uint64_t> 1) << 63)
        while x:
            out[n] = word * 64 + rf_ctz64(x)
            n += 1
            x &= x - 1
    return n


cdef inline void _add_bin(const HB* B, double* acc, double* wacc, const double* h) noexcept nogil:
    """Adds a bin's statistics (and its weight) to a running side."""
    cdef int64_t k
    if B.regression:
        wacc[0] += h[0]
        acc[1] += h[1]
        return
    for k in range(B.K):
        acc[k] += h[k]
        wacc[0] += h[k]


cdef inline bint _one_class(const HB* B, const double* h) noexcept nogil:
    """Whether a bin's samples are of one class."""
    cdef int64_t k, n = 0
    for k in range(B.K):
        n += h[k] > 0.0
    return n <= 1


cdef inline bint _keeps(const HB* B, int cst, double vl, double vr) noexcept nogil:
    """Whether children of values vl / vr (class-0 fractions, or means) keep a split's
    monotonic constraint cst and the node's bounds (the exact builder's test)."""
    return rf_values_ok(vl, vr, cst, B.lower, B.upper)


cdef inline int _cst(const HB* B, int64_t f) noexcept nogil:
    """Feature f's monotonic constraint (0: none)."""
    return B.mono[f] if B.mono != NULL else 0


cdef inline int64_t _run_start(const HB* B, HSet hs, int64_t q, const double* h,
                               double* left, double* wl, bint mleft) noexcept nogil:
    """A run's left side before its first bin (slot q's histograms h): empty, or the
    missing values' bin when they go left; its sample count (when counted)."""
    cdef int64_t k
    for k in range(B.S):
        left[k] = 0.0
    wl[0] = 0.0
    if not mleft:
        return 0
    if B.n_out > 1:
        _add_bin_multi(B, left, wl, h + MISSING * B.S)
    else:
        _add_bin(B, left, wl, h + MISSING * B.S)
    return hs.cnt[q * NBINS + MISSING] if B.need_counts else 0


cdef void _run(HB* B, HSet hs, int64_t q, int64_t f, const int64_t* bins, int64_t nb,
               const double* tot, double W, int64_t N, bint mleft, bint with_all,
               HSplit* best) noexcept nogil:
    """One run of cuts of slot q of the set (feature f): between its present bins, the
    missing ones left (carried in from the start) or right; with ``with_all`` also the
    cut that sends every present bin left and the missing ones right."""
    cdef int64_t S = B.S, K = B.K, i, k, nl = 0, b
    cdef double left[512]
    cdef double right[512]
    cdef double wl = 0.0, wr, proxy, top = best.proxy
    cdef int64_t at = -1
    cdef const double* h = hs.h + q * NBINS * S
    cdef int64_t last = nb - 1 if not with_all else nb
    cdef int cst = _cst(B, f)
    nl = _run_start(B, hs, q, h, left, &wl, mleft)
    for i in range(last):
        b = bins[i]
        if B.n_out > 1:
            _add_bin_multi(B, left, &wl, h + b * S)
        else:
            _add_bin(B, left, &wl, h + b * S)
        if B.need_counts:
            nl += hs.cnt[q * NBINS + b]
            if nl < B.min_leaf:
                continue
            if N - nl < B.min_leaf:
                break
        wr = W - wl
        if wl < B.min_weight_leaf or wr < B.min_weight_leaf or wr <= 0.0:
            continue
        for k in range(S):
            right[k] = tot[k] - left[k]
        if B.regression:
            left[0] = wl
            right[0] = wr
        if cst != 0 and not (
                _keeps(B, cst, left[1] / wl, right[1] / wr) if B.regression
                else _keeps(B, cst, left[0] / wl, right[0] / wr)):
            continue
        proxy = _side_proxy(B, left, wl) + _side_proxy(B, right, wr)
        if proxy > top:
            top = proxy
            at = i
    _set_best(B, best, h, f, bins, nb, at, top, mleft, with_all)


cdef void _set_best(const HB* B, HSplit* best, const double* h, int64_t f,
                    const int64_t* bins, int64_t nb, int64_t at, double proxy,
                    bint mleft, bint with_all) noexcept nogil:
    """A run's best cut (after present bin ``at``; -1: none beat ``best``) into
    ``best``, with whether its two bins hold one class each."""
    if at < 0:
        return
    best.proxy = proxy
    best.feature = f
    best.mleft = mleft
    best.missing = mleft or with_all
    best.found = 1
    best.is_set = 0
    if at == nb - 1:            # every present bin left, the missing ones right
        best.cut = MISSING - 1
        best.lo = MISSING
        best.hi = MISSING
    else:
        best.cut = bins[at]
        best.lo = bins[at]
        best.hi = bins[at + 1]
        best.lo_pure = not B.regression and _one_class(B, h + best.lo * B.S)
        best.hi_pure = not B.regression and _one_class(B, h + best.hi * B.S)


cdef void _run2(HB* B, HSet hs, int64_t q, int64_t f, const int64_t* bins, int64_t nb,
                const double* tot, double W, int64_t N, bint mleft, bint with_all,
                HSplit* best) noexcept nogil:
    """_run for two statistics a bin, the squared error's or the two-class Gini's
    (the same sums and proxies, without the loops over the statistics)."""
    cdef const double* h = hs.h + q * NBINS * 2
    cdef double a0 = 0.0, a1 = 0.0, wl = 0.0, wr, r0, r1, proxy, top = best.proxy
    cdef bint reg = B.regression, counts = B.need_counts
    cdef int64_t last = nb - 1 if not with_all else nb, i, b, nl = 0, at = -1
    cdef double mwl = B.min_weight_leaf
    cdef int cst = _cst(B, f)
    if mleft:
        a0 = h[2 * MISSING]
        a1 = h[2 * MISSING + 1]
        wl = a0 if reg else a0 + a1
        if counts:
            nl = hs.cnt[q * NBINS + MISSING]
    for i in range(last):
        b = bins[i]
        a0 += h[2 * b]
        a1 += h[2 * b + 1]
        wl += h[2 * b]
        if not reg:
            wl += h[2 * b + 1]
        if counts:
            nl += hs.cnt[q * NBINS + b]
            if nl < B.min_leaf:
                continue
            if N - nl < B.min_leaf:
                break
        wr = W - wl
        if wl < mwl or wr < mwl or wr <= 0.0:
            continue
        r1 = tot[1] - a1
        r0 = tot[0] - a0
        if cst != 0 and not (_keeps(B, cst, a1 / wl, r1 / wr) if reg
                             else _keeps(B, cst, a0 / wl, r0 / wr)):
            continue
        if reg:
            proxy = a1 * a1 / wl + r1 * r1 / wr
        else:
            proxy = (a0 * a0 + a1 * a1) / wl + (r0 * r0 + r1 * r1) / wr
        if proxy > top:
            top = proxy
            at = i
    _set_best(B, best, h, f, bins, nb, at, top, mleft, with_all)


include "_hist_sets.pxi"
include "_hist_multi.pxi"
include "_hist_forks.pxi"


cdef bint _scan_feature(HB* B, HSet hs, int64_t q, int64_t f, const double* tot,
                        double W, int64_t N, int64_t* bins, HSplit* best) noexcept nogil:
    """The best cut of slot q of the set (feature f) into ``best`` when it beats it;
    whether the feature is constant in the node."""
    cdef int64_t nb = _bins_of(hs.touched + q * 4, bins)
    cdef bint missing = (hs.touched[q * 4 + 3] >> 63) & 1
    if nb + missing <= 1:
        # one bin: constant, unless its values may differ and cuts inside bins are
        # searched (see _bounds)
        return nb == 0 or not B.bounds or B.exact[f] or _cst(B, f) != 0
    if B.cat != NULL and B.cat.setf[f]:
        _scan_set(B, hs, q, f, tot, W, N, bins, nb, missing, best)
        return False
    if B.S == 2 and B.n_out == 1 and ((B.regression and B.criterion != CRIT_POISSON_B)
                                      or B.criterion == CRIT_GINI_B):
        _run2(B, hs, q, f, bins, nb, tot, W, N, False, missing, best)
        if missing and nb > 1:
            _run2(B, hs, q, f, bins, nb, tot, W, N, True, False, best)
        return False
    _run(B, hs, q, f, bins, nb, tot, W, N, False, missing, best)
    if missing and nb > 1:
        _run(B, hs, q, f, bins, nb, tot, W, N, True, False, best)
    return False


# ----------------------------------------------------------------------------------------
# Cuts inside bins (classification)
# ----------------------------------------------------------------------------------------
#
# A cut between two values of one bin moves some of the bin's samples left: the left
# side's class weights are the prefix before the bin plus a point x of the box
# 0 <= x <= (the bin's class weights).  Both criteria's proxies are convex in x (the
# Gini's sum of squares over the sum is quadratic over linear; the entropy's is minus
# a concave function), so none of those cuts beats the best corner of the box: the
# bin's ends, or some classes of the bin moved left whole.  _bounds takes that corner
# per mixed bin of every drawn feature; bins whose bound beats the binned best are
# searched exactly (_eval_cand: the bin's samples sorted by value, as _refine_split
# does), the highest bound first, until the best found beats every bound left.  So a
# binned tree of a classifier cuts where the exact search would, up to ties, for up
# to MAX_BOUND_K classes.

cdef double _corners(const HB* B, const double* left, double wl, const double* hb,
                     const double* tot, double W, bint ends) noexcept nogil:
    """The largest proxy at the corners of a bin's box (see above): the left side's
    statistics ``left`` (weight ``wl``) plus each subset of the bin's classes ``hb``;
    without ``ends``, not the empty and the full subsets (the bin's ends: cuts scored
    already, when no constraint could have made them invalid)."""
    cdef int64_t K = B.K, k, mask
    cdef double L[MAX_BOUND_K]
    cdef double R[MAX_BOUND_K]
    cdef double wL, wR, v, top = -INFINITY
    for mask in range(0 if ends else 1, (1 << K) if ends else (1 << K) - 1):
        wL = 0.0
        for k in range(K):
            L[k] = left[k] + (hb[k] if (mask >> k) & 1 else 0.0)
            wL += L[k]
            R[k] = tot[k] - L[k]
        wR = W - wL
        if wL <= 0.0 or wR <= 0.0:
            continue
        v = _side_proxy(B, L, wL) + _side_proxy(B, R, wR)
        if v > top:
            top = v
    return top


cdef inline double _cand_floor(const HB* B, const double* tot, double W,
                               double top) noexcept nogil:
    """What a bin's bound must beat to be searched: the best cut's proxy ``top`` plus
    the larger of B.inside_tol of its gain over the node's and B.inside_abs of the
    root's largest gain (a split into pure sides), and a rounding margin.  So the cut
    taken gains at least 1 / (1 + inside_tol) of the best one's, or the best one's
    less inside_abs of the tree's impurity (as min_impurity_decrease weighs it)."""
    cdef double parent
    if top == -INFINITY:
        return top
    parent = _side_proxy(B, tot, W)
    return top + max(B.inside_tol * (top - parent if top > parent else 0.0),
                     B.inside_abs * B.root_most) + 1e-12 * fabs(top)


cdef inline void _set_lip(HB* B, const double* tot, double W, double best) noexcept nogil:
    """B.lip_skip for a node whose best cut's proxy is ``best``: the Gini proxy of a
    side changes by at most the weight moved across (its derivatives along a class lie
    in [-1, 1]), so a cut inside a bin of weight w scores at most its lower end (a cut
    scored already, or no split) plus 2w, and a bin with 2w below the floor's margin
    over ``best`` needs no bound.  Only without constraints (every end a valid cut)."""
    B.lip_skip = 0.0
    if (B.criterion == CRIT_GINI_B and not B.need_counts and B.min_weight_leaf <= 0.0
            and best > -INFINITY):
        B.lip_skip = (_cand_floor(B, tot, W, best) - best) / 2.0


cdef int _bound_run(HB* B, HSet hs, int64_t q, int64_t f, const int64_t* bins,
                    int64_t nb, const double* tot, double W, bint mleft, bint with_all,
                    double top) noexcept nogil:
    """The bins of one run of slot q (feature f; see _run) whose bound beats ``top``
    (a _cand_floor), appended to B.hc; 0, or -1 when memory ran out."""
    cdef int64_t S = B.S, K = B.K, i, k, b, nl = 0
    cdef const double* h = hs.h + q * NBINS * S
    cdef const double* hb
    cdef double left[MAX_BOUND_K]
    cdef double wl = 0.0, bound
    cdef HCand* c
    cdef void* grown
    nl = _run_start(B, hs, q, h, left, &wl, mleft)
    for i in range(nb):
        b = bins[i]
        hb = h + b * S
        if not _one_class(B, hb) and not _bin_w(hb, K) <= B.lip_skip:
            bound = _corners(B, left, wl, hb, tot, W,
                             B.need_counts or B.min_weight_leaf > 0.0)
            if bound > top:
                if B.hc_n == B.hc_cap:
                    grown = realloc(B.hc, (2 * B.hc_cap + 64) * sizeof(HCand))
                    if grown == NULL:
                        return -1
                    B.hc = <HCand*> grown
                    B.hc_cap = 2 * B.hc_cap + 64
                c = &B.hc[B.hc_n]
                B.hc_n += 1
                c.bound = bound
                for k in range(K):
                    c.left[k] = left[k]
                c.wl = wl
                c.nl = nl
                c.feature = f
                c.b = b
                c.mleft = mleft
                c.missing = mleft or with_all
                # the binned cut whose two bins hold this one
                if nb == 1:
                    c.lo = c.hi = b
                elif i < nb - 1:
                    c.lo = b
                    c.hi = bins[i + 1]
                else:
                    c.lo = bins[i - 1]
                    c.hi = b
                c.cut = c.lo
                c.lo_pure = _one_class(B, h + c.lo * S)
                c.hi_pure = _one_class(B, h + c.hi * S)
        _add_bin(B, left, &wl, hb)
        if B.need_counts:
            nl += hs.cnt[q * NBINS + b]
    return 0


cdef int _bounds(HB* B, HSet hs, int64_t q, int64_t f, const double* tot, double W,
                 int64_t* bins, double top) noexcept nogil:
    """_bound_run over both runs of slot q (feature f; see _scan_feature)."""
    cdef int64_t nb
    cdef bint missing
    if B.exact[f] or B.node_const[f] or _cst(B, f) != 0:
        return 0                # (a constrained feature: refined in its cut's bins)
    nb = _bins_of(hs.touched + q * 4, bins)
    missing = (hs.touched[q * 4 + 3] >> 63) & 1
    if nb == 0:
        return 0
    if _bound_run(B, hs, q, f, bins, nb, tot, W, False, missing, top) < 0:
        return -1
    if missing:
        return _bound_run(B, hs, q, f, bins, nb, tot, W, True, False, top)
    return 0


cdef int _by_bound(const void* a, const void* b) noexcept nogil:
    """qsort's order of candidates: the highest bound first (ties: by feature, bin)."""
    cdef const HCand* x = <const HCand*> a
    cdef const HCand* y = <const HCand*> b
    if x.bound != y.bound:
        return -1 if x.bound > y.bound else 1
    if x.feature != y.feature:
        return -1 if x.feature < y.feature else 1
    if x.b != y.b:
        return -1 if x.b < y.b else 1
    return x.mleft - y.mleft


DEF SUBS = 64                # sub-buckets of a bin searched inside (see _eval_bin)
DEF SORT_ONLY = 48           # fewer samples: sorted at once


cdef inline void _take(const HB* B, double* left, double* wl, int64_t* nl,
                       const rf_he* v) noexcept nogil:
    left[v.cls] += v.w
    wl[0] += v.w
    nl[0] += 1


cdef inline bint _valid(const HB* B, int64_t nl, int64_t N, double wl,
                        double W) noexcept nogil:
    """Whether a cut leaving nl samples (weight wl) of the node's N (W) left is allowed."""
    if B.need_counts and (nl < B.min_leaf or N - nl < B.min_leaf):
        return False
    return not (wl < B.min_weight_leaf or W - wl < B.min_weight_leaf or W - wl <= 0.0)


cdef inline double _cut_proxy(const HB* B, const double* left, double wl,
                              const double* tot, double W) noexcept nogil:
    cdef double right[MAX_BOUND_K]
    cdef int64_t k
    for k in range(B.K):
        right[k] = tot[k] - left[k]
    return _side_proxy(B, left, wl) + _side_proxy(B, right, W - wl)


cdef double _scan_sorted(const HB* B, const rf_he* v, int64_t n, double* left,
                         double* wl, int64_t* nl, int64_t N, const double* tot,
                         double W, double top) noexcept nogil:
    """The samples v[0:n) (sorted by value) moved left one by one onto the side
    ``left`` (weight wl, nl samples), every cut between two of their distinct values
    scored; the best proxy above ``top`` (else ``top``)."""
    cdef int64_t k
    cdef double proxy
    for k in range(n):
        _take(B, left, wl, nl, v + k)
        if k < n - 1 and v[k].x < v[k + 1].x and _valid(B, nl[0], N, wl[0], W):
            proxy = _cut_proxy(B, left, wl[0], tot, W)
            if proxy > top:
                top = proxy
    return top


cdef double _eval_bin(HB* B, const HEntry* e, const HCand* c, const double* tot,
                      rf_he* v, int64_t n, rf_he* tmp, double top) noexcept nogil:
    """The best proxy above ``top`` (else ``top``) of the cuts between two values
    inside candidate c's bin, whose n samples are v (reordered; tmp: room for n).
    Few samples are sorted and every cut scored; more are spread over SUBS equal
    sub-ranges of their values: the cuts between sub-ranges are scored from their
    sums, and only a sub-range whose corner bound (see _bounds) beats the floor of
    the best so far is sorted and searched.  As exact as sorting them all."""
    cdef int64_t N = e.end - e.start, K = B.K, k, j, nl = c.nl, at, last = -1
    cdef double W = e.weight, lo, hi, scale, wl = c.wl, proxy
    cdef double left[MAX_BOUND_K]
    cdef double sums[SUBS * MAX_BOUND_K]
    cdef int64_t cnt[SUBS]
    cdef int64_t start[SUBS + 1]
    cdef double floor, seen
    for k in range(K):
        left[k] = c.left[k]
    if n <= SORT_ONLY:
        rf_sort_he(v, n)
        return _scan_sorted(B, v, n, left, &wl, &nl, N, tot, W, top)
    lo = hi = v[0].x
    for j in range(1, n):
        if v[j].x < lo:
            lo = v[j].x
        if v[j].x > hi:
            hi = v[j].x
    if not hi > lo:
        return top                  # (one value: no cut inside)
    scale = SUBS / (hi - lo)
    if not scale < INFINITY:        # (values too close to spread: sorted at once)
        rf_sort_he(v, n)
        return _scan_sorted(B, v, n, left, &wl, &nl, N, tot, W, top)
    memset(cnt, 0, sizeof(cnt))
    memset(sums, 0, sizeof(sums))
    for j in range(n):
        at = <int64_t> ((v[j].x - lo) * scale)
        if at >= SUBS:
            at = SUBS - 1
        v[j].code = <int32_t> at    # (the bin is known: the field holds the sub-range)
        cnt[at] += 1
        sums[at * K + v[j].cls] += v[j].w
        if at > last:
            last = at
    start[0] = 0
    for j in range(SUBS):
        start[j + 1] = start[j] + cnt[j]
    for j in range(n):              # tmp: the samples by sub-range
        at = v[j].code
        tmp[start[at]] = v[j]
        start[at] += 1
    for j in range(SUBS):
        start[j] -= cnt[j]
    floor = _cand_floor(B, tot, W, top)
    for j in range(SUBS):
        if cnt[j] == 0:
            continue
        seen = top
        if (not _one_class(B, sums + j * K)
                and _corners(B, left, wl, sums + j * K, tot, W, True) > floor):
            rf_sort_he(tmp + start[j], cnt[j])
            top = _scan_sorted(B, tmp + start[j], cnt[j], left, &wl, &nl, N, tot, W,
                               top)
        else:
            _add_bin(B, left, &wl, sums + j * K)
            nl += cnt[j]
        if j == last:
            break
        if _valid(B, nl, N, wl, W):            # the cut between sub-ranges
            proxy = _cut_proxy(B, left, wl, tot, W)
            if proxy > top:
                top = proxy
        if top != seen:
            floor = _cand_floor(B, tot, W, top)
    return top


cdef inline double _bin_w(const double* hb, int64_t K) noexcept nogil:
    cdef double acc = 0.0
    cdef int64_t k
    for k in range(K):
        acc += hb[k]
    return acc


DEF GATHER_MAX = 8          # features gathered in one pass over a node (_resolve)


cdef int64_t _gather(HB* B, const HEntry* e, const int64_t* fs, int64_t nf,
                     const uint8_t* marked) noexcept nogil:
    """One pass over the node's samples for the marked bins of features fs[0:nf) (nf
    tables of NBINS): the places of those in any, with the features marking them, at
    B.pend (see rf_hgather), room for as many places after them; their count, or -1
    when memory ran out."""
    cdef int64_t N = e.end - e.start
    cdef int64_t* out = <int64_t*> _room(B.pend, B.pend_size, 2 * (N + 1) * sizeof(int64_t))
    if out == NULL:
        return -1
    return rf_hgather(B.cur, B.stride, B.codes, B.p, e.start, e.end, B.compact, fs, nf,
                      marked, out)


cdef int64_t _fetch(HB* B, int64_t f, int64_t q, int64_t u) noexcept nogil:
    """Feature f's samples of the gather at B.pend (u places; f its feature q) as rf_he
    (value, weight, class, bin) at B.vals, with room for as many after them; their
    count, or -1 when memory ran out."""
    cdef int64_t* gathered = <int64_t*> B.pend[0]
    cdef int64_t* idx = gathered + u
    cdef int64_t k = rf_hgather_take(gathered, u, q, idx)
    cdef rf_he* v = <rf_he*> _room(B.vals, B.vals_size, 2 * k * sizeof(rf_he) + 1)
    if v == NULL:
        return -1
    rf_hfetch(B.cur, B.stride, B.hdr, B.hdr - 4 if B.compact else -1, B.codes, B.p,
              B.compact, 2 if B.narrow else B.packed, B.X, B.xs0, B.xs1, f, idx, k, v)
    return k


cdef int _resolve(HB* B, const HEntry* e, HSplit* best) noexcept nogil:
    """The candidates of the node (B.hc) searched, the highest bound first, while a
    bound beats the best cut (by _cand_floor); one that beats it becomes ``best`` (as
    the binned cut whose refinement finds it, see _partition).  A feature's candidates
    above the floor are searched together: its bins' samples, spread by bin (a
    counting sort), each bin searched by _eval_bin.  The samples come from one pass over
    the node that gathers those of the next GATHER_MAX features with candidates above
    the floor (their values read from X only when searched: a feature may fall below
    the floor first).  0, or -1 when memory ran out."""
    cdef double tot[MAX_BOUND_K]
    cdef double top = best.proxy, v, floor
    cdef int64_t j, i, f, u, b, q, nf = 0, n_gathered = 0
    cdef int64_t fs[GATHER_MAX]
    cdef uint8_t marked[GATHER_MAX * NBINS]
    cdef int64_t at[NBINS]
    cdef int64_t cnt[NBINS]
    cdef rf_he* g
    cdef rf_he* by_bin
    cdef HCand* c
    if B.hc_n == 0:
        return 0
    B.cur = B.buf[e.depth & 1]
    _totals(B, e, tot)
    if B.hc_n > 1:
        qsort(B.hc, B.hc_n, sizeof(HCand), _by_bound)
    floor = _cand_floor(B, tot, e.weight, top)
    for j in range(B.hc_n):
        if not B.hc[j].bound > floor:
            break
        f = B.hc[j].feature
        if f < 0:               # (searched with an earlier one of its feature)
            continue
        q = 0
        while q < nf and fs[q] != f:
            q += 1
        if q == nf:
            # a pass for f and the next features with candidates above the floor
            nf = 0
            memset(marked, 0, sizeof(marked))
            for i in range(j, B.hc_n):
                c = &B.hc[i]
                if not c.bound > floor:
                    break
                if c.feature < 0:
                    continue
                q = 0
                while q < nf and fs[q] != c.feature:
                    q += 1
                if q == nf:
                    if nf == GATHER_MAX:
                        continue
                    fs[nf] = c.feature
                    nf += 1
                marked[q * NBINS + c.b] = 1
            n_gathered = _gather(B, e, fs, nf, marked)
            if n_gathered < 0:
                return -1
            q = 0
        u = _fetch(B, f, q, n_gathered)
        if u < 0:
            return -1
        g = <rf_he*> B.vals[0]
        by_bin = g + u
        memset(cnt, 0, sizeof(cnt))
        for i in range(u):
            cnt[g[i].code] += 1
        at[0] = 0
        for b in range(1, NBINS):
            at[b] = at[b - 1] + cnt[b - 1]
        for i in range(u):
            by_bin[at[g[i].code]] = g[i]
            at[g[i].code] += 1
        for i in range(j, B.hc_n):
            c = &B.hc[i]
            if c.feature != f or not c.bound > floor:
                continue
            b = c.b
            v = _eval_bin(B, e, c, tot, by_bin + at[b] - cnt[b], cnt[b], g, top)
            if v > top:
                top = v
                floor = _cand_floor(B, tot, e.weight, top)
                best.proxy = v
                best.feature = c.feature
                best.cut = c.cut
                best.lo = c.lo
                best.hi = c.hi
                best.mleft = c.mleft
                best.missing = c.missing
                best.lo_pure = c.lo_pure
                best.hi_pure = c.hi_pure
                best.found = 1
                best.is_set = 0
        for i in range(j, B.hc_n):
            if B.hc[i].feature == f:
                B.hc[i].feature = -1
    B.hc_n = 0
    return 0


cdef int64_t _draw(HB* B, int64_t i, int64_t n_cand, bint random) noexcept nogil:
    """The next drawn feature: cand[i] after swapping in a uniform pick of cand[i:]."""
    cdef int64_t j, f
    if random and n_cand - i > 1:
        j = i + <int64_t> (rf_rng_next(&B.rng) % <uint64_t> (n_cand - i))
        f = B.cand[j]
        B.cand[j] = B.cand[i]
        B.cand[i] = f
    return B.cand[i]


cdef inline void _totals(const HB* B, const HEntry* e, double* tot) noexcept nogil:
    """The node's statistics in the histograms' units (class weights, or the weight
    and the sum of w*y)."""
    cdef int64_t k
    if B.regression:
        tot[0] = e.weight
        for k in range(B.n_out):
            tot[1 + k] = B.node_stats[k]
    else:
        for k in range(B.K):
            tot[k] = B.node_stats[k]


cdef inline HSet _set(const HB* B, int64_t j) noexcept nogil:
    """Set j of the pool (a slot per feature)."""
    cdef HSet hs
    hs.h = B.pool_h + j * B.p * NBINS * B.S
    hs.touched = B.pool_t + j * B.p * 4
    hs.cnt = B.pool_c + j * B.p * NBINS if B.pool_c != NULL else NULL
    return hs


cdef int64_t _acquire(HB* B) noexcept nogil:
    """A free set of the pool (grown when none is free), or -1 when memory ran out."""
    cdef int64_t cap, j
    cdef void* q
    if B.pool_nfree == 0:
        cap = 2 * B.pool_cap if B.pool_cap else 8
        q = realloc(B.pool_h, cap * B.p * NBINS * B.S * sizeof(double))
        if q == NULL:
            return -1
        B.pool_h = <double*> q
        q = realloc(B.pool_t, cap * B.p * 4 * sizeof(uint64_t))
        if q == NULL:
            return -1
        B.pool_t = <uint64_t*> q
        if B.need_counts:
            q = realloc(B.pool_c, cap * B.p * NBINS * sizeof(int32_t))
            if q == NULL:
                return -1
            B.pool_c = <int32_t*> q
        q = realloc(B.pool_free, cap * sizeof(int64_t))
        if q == NULL:
            return -1
        B.pool_free = <int64_t*> q
        for j in range(B.pool_cap, cap):
            B.pool_free[B.pool_nfree] = j
            B.pool_nfree += 1
        B.pool_cap = cap
    B.pool_nfree -= 1
    return B.pool_free[B.pool_nfree]


cdef inline void _release(HB* B, int64_t j) noexcept nogil:
    if j >= 0:
        B.pool_free[B.pool_nfree] = j
        B.pool_nfree += 1


cdef int64_t _fill_set(HB* B, int64_t start, int64_t end, int64_t j) noexcept nogil:
    """Every feature not constant in the node (node_const) histogrammed over the
    slice of B.cur into set j (slot = feature); the number of features."""
    cdef int64_t f, m = 0
    for f in range(B.p):
        if not B.node_const[f]:
            B.batch[m] = f
            m += 1
    _fill_dense(B, start, end, m, _set(B, j), B.batch)
    return m


cdef void _find_split_set(HB* B, const HEntry* e, HSplit* best,
                          int64_t* bins) noexcept nogil:
    """_find_split of a node that draws all its features and holds their histograms
    (set e.hset): the same draws, each feature scanned from its slot."""
    cdef int64_t f, i, n_cand = 0
    cdef double tot[512]
    cdef HSet hs = _set(B, e.hset)
    for f in range(B.p):
        if not B.node_const[f]:
            B.cand[n_cand] = f
            n_cand += 1
    _totals(B, e, tot)
    best.found = 0
    best.is_set = 0
    best.proxy = -INFINITY
    for i in range(n_cand):
        f = _draw(B, i, n_cand, B.shuffle)
        if _scan_feature(B, hs, f, f, tot, e.weight, e.end - e.start, bins, best):
            B.node_const[f] = 1
    if B.bounds:
        _set_lip(B, tot, e.weight, best.proxy)
        for i in range(n_cand):
            if _bounds(B, hs, B.cand[i], B.cand[i], tot, e.weight, bins,
                       _cand_floor(B, tot, e.weight, best.proxy)) < 0:
                B.error = 1
                return
        if _resolve(B, e, best) < 0:
            B.error = 1


cdef void _subtract(HB* B, int64_t big, int64_t small) noexcept nogil:
    """Set ``big`` minus set ``small``, slot by slot, for the features not constant in
    the node (exact: the weights are integers, so are the weights' sums), and big's
    bitmaps of non-empty bins."""
    cdef HSet a = _set(B, big)
    cdef HSet b = _set(B, small)
    cdef int64_t f, k, at, S = B.S, K = 1 if B.regression else B.S
    cdef double acc
    for f in range(B.p):
        if B.node_const[f]:
            continue
        for k in range(f * NBINS * S, (f + 1) * NBINS * S):
            a.h[k] -= b.h[k]
        if B.need_counts:
            for k in range(f * NBINS, (f + 1) * NBINS):
                a.cnt[k] -= b.cnt[k]
        memset(a.touched + 4 * f, 0, 4 * sizeof(uint64_t))
        for at in range(NBINS):
            acc = 0.0
            for k in range(K):
                acc += a.h[(f * NBINS + at) * S + k]
            if acc > 0.0:
                a.touched[4 * f + (at >> 6)] |= (<uint64_t> 1) << (at & 63)


cdef void _find_split(HB* B, const HEntry* e, HSplit* best, int64_t* bins) noexcept nogil:
    """The node's best cut over its drawn features (see the module's docstring); marks
    the features found constant in node_const."""
    cdef int64_t p = B.p, f, i = 0, m, q, n_cand = 0, visited = 0
    cdef int64_t N = e.end - e.start
    cdef bint random, nonconst = False
    cdef double tot[512]
    cdef int64_t k
    for f in range(p):
        if not B.node_const[f]:
            B.cand[n_cand] = f
            n_cand += 1
    random = B.shuffle or B.max_features < n_cand
    B.cur = B.buf[e.depth & 1]
    _totals(B, e, tot)
    best.found = 0
    best.is_set = 0
    best.proxy = -INFINITY
    while i < n_cand and (visited < B.max_features or not nonconst):
        m = B.max_features - visited if visited < B.max_features else 1
        if m > n_cand - i:
            m = n_cand - i
        if m > B.hist_cap:
            m = B.hist_cap
        for q in range(m):
            B.batch[q] = _draw(B, i, n_cand, random)
            i += 1
        if N < SMALL and B.n_out == 1:
            _fill_lazy(B, e.start, e.end, m)
        else:
            _fill_dense(B, e.start, e.end, m, B.batch_set, B.ident)
        for q in range(m):
            if _scan_feature(B, B.batch_set, q, B.batch[q], tot, e.weight, N, bins,
                             best):
                B.node_const[B.batch[q]] = 1
            else:
                nonconst = True
        if B.bounds:
            _set_lip(B, tot, e.weight, best.proxy)
            for q in range(m):
                if _bounds(B, B.batch_set, q, B.batch[q], tot, e.weight, bins,
                           _cand_floor(B, tot, e.weight, best.proxy)) < 0:
                    B.error = 1
                    return
        visited += m
    if B.bounds and _resolve(B, e, best) < 0:
        B.error = 1


cdef int64_t _partition(HB* B, const HEntry* e, HSplit* sp, double* wl_out,
                        double* wr_out) noexcept nogil:
    """Partitions the node's records into the other buffer (see _hist.h), summing each
    side's statistics into left_stats / right_stats (only the statistics when the
    children are at the greatest depth, leaves whose samples are not read); a cut on a
    feature whose bins hold several values is refined on X on the way (see
    _refine_split).  Returns the left side's size, or -1 when memory ran out."""
    cdef int mode = ((3 if B.criterion == CRIT_POISSON_B else 1) if B.regression
                     else ((4 if B.narrow else 2) if B.packed else 0))
    cdef int place = e.depth + 1 < B.max_depth or not B.skip_last
    cdef int64_t k, nl, N = e.end - e.start
    cdef rf_hrefine R
    R.u = 0
    R.X = B.X
    R.xs0 = B.xs0
    R.xs1 = B.xs1
    R.rowoff = B.hdr - 4 if B.compact else -1
    sp.refined = 0
    if B.n_out > 1:
        return _partition_multi(B, e, sp, wl_out, wr_out, place)
    if sp.is_set:
        for k in range(B.S):
            B.left_stats[k] = 0.0
            B.right_stats[k] = 0.0
        return _set_partition(B, e, sp, &R, wl_out, wr_out, mode, place)
    # the records of the cut's two bins are set aside, but not those of a bin of one
    # class: a cut inside it moves samples of one class across, along which the
    # proxy is convex, so none beats the bin's ends, which the binned scan weighed
    R.pending = (B.X != NULL and sp.lo != MISSING and not B.exact[sp.feature]
                 and not (sp.lo_pure and sp.hi_pure))
    R.lo = sp.hi if sp.lo_pure else sp.lo
    R.hi = sp.lo if sp.hi_pure else sp.hi
    sp.refined = 0
    if R.pending:
        R.U = <uint8_t*> _room(B.pend, B.pend_size, N * B.stride)
        if R.U == NULL:
            return -1
    for k in range(B.S):
        B.left_stats[k] = 0.0
        B.right_stats[k] = 0.0
    nl = rf_hpart(B.buf[e.depth & 1], B.buf[(e.depth + 1) & 1], B.stride, B.hdr,
                  B.codes, B.p, e.start, e.end, sp.feature, sp.cut, sp.mleft, &R,
                  B.left_stats, B.right_stats, wl_out, wr_out, B.compact, mode, place)
    if R.pending and R.u:
        return _refine_split(B, e, sp, R.U, R.u, nl, wl_out, wr_out,
                             -1 if sp.lo_pure else (R.u - 1 if sp.hi_pure else -2), place)
    return nl


cdef inline const uint8_t* _pend(const HB* B, const uint8_t* U, int64_t i) noexcept nogil:
    return U + i * B.stride


cdef inline double _rec_w(const HB* B, const uint8_t* rec) noexcept nogil:
    """A record's weight (see _w)."""
    if B.packed:
        return <double> (rf_pay(rec, B.hdr, B.narrow) & LOW32)
    return (<const double*> (rec + B.hdr))[0]


cdef inline double _rec_t(const HB* B, const uint8_t* rec) noexcept nogil:
    """A record's class (as a double) or target."""
    if B.packed:
        return <double> ((rf_pay(rec, B.hdr, B.narrow) >> 32) != 0)
    if B.regression:
        return (<const double*> (rec + B.hdr + 8))[0]
    return <double> (<const int64_t*> (rec + B.hdr + 8))[0]


cdef inline double _rec_x(const HB* B, const uint8_t* rec, int64_t f) noexcept nogil:
    """A record's value of feature f, read from X at its row."""
    cdef int64_t row
    if B.compact:
        row = (<const int32_t*> (rec + B.hdr - 4))[0]
    else:
        row = (<const int64_t*> rec)[0]
    return B.X[row * B.xs0 + f * B.xs1]


cdef int64_t _refine_split(HB* B, const HEntry* e, HSplit* sp, const uint8_t* U,
                           int64_t u, int64_t nl, double* wl, double* wr,
                           int64_t binned_k, bint place) noexcept nogil:
    """The refinement of a binned cut between bins lo and hi: the u records of those
    two bins, set aside by the partition (U, in order), sorted by their values, and
    every cut between two of their distinct values scored as the exact search scores
    it (the records placed left, below lo and the missing ones that go left, on the
    left); the best becomes the node's cut, at the midpoint of its two values, and the
    records are placed by it.  So a boundary inside a bin is found where the exact
    builder finds it.  Where one of the bins was not set aside (a bin of one class),
    the binned cut is the one with none (``binned_k`` -1) or all (``u - 1``) of the
    set-aside records on the left, and a candidate too (-2: it is inside).  Returns
    the left side's size, or -1 when memory ran out."""
    cdef int64_t f = sp.feature, i, k, best_k = -2, S = B.S, c, n_left
    cdef int cst = _cst(B, f)
    cdef int64_t N = e.end - e.start, l = e.start + nl, r = e.start + nl + u
    cdef double left[512]
    cdef double right[512]
    cdef double tot[512]
    cdef double wsum = wl[0], wt, tv, proxy, top = -INFINITY, a, b, thr = 0.0
    cdef const uint8_t* rec
    cdef uint8_t* dst = B.buf[(e.depth + 1) & 1]
    cdef rf_xv* gath = <rf_xv*> _room(B.vals, B.vals_size, u * (2 * sizeof(rf_xv) + 1))
    cdef uint8_t* goes
    if gath == NULL:
        return -1
    goes = <uint8_t*> (gath + 2 * u)    # per set-aside record: it goes left
    for i in range(u):
        gath[i].x = _rec_x(B, _pend(B, U, i), f)
        gath[i].i = i
    rf_radix_xv(gath, gath + u, u)
    # the left side so far, in the histograms' units
    _totals(B, e, tot)
    for c in range(S):
        left[c] = B.left_stats[c]
    if B.regression:
        left[0] = wsum
        left[1] = B.left_stats[0]
    n_left = nl
    for k in range(-1, u):
        if k >= 0:
            rec = _pend(B, U, gath[k].i)
            wt = _rec_w(B, rec)
            wsum += wt
            n_left += 1
            if B.regression:
                left[1] += wt * _rec_t(B, rec)
            else:
                left[<int64_t> _rec_t(B, rec)] += wt
        if k != binned_k and not (0 <= k < u - 1 and gath[k].x < gath[k + 1].x):
            continue
        if n_left < B.min_leaf or N - n_left < B.min_leaf:
            continue
        if wsum < B.min_weight_leaf or e.weight - wsum < B.min_weight_leaf:
            continue
        for c in range(S):
            right[c] = tot[c] - left[c]
        if cst != 0 and not (
                _keeps(B, cst, left[1] / wsum, right[1] / (e.weight - wsum))
                if B.regression
                else _keeps(B, cst, left[0] / wsum, right[0] / (e.weight - wsum))):
            continue
        proxy = _side_proxy(B, left, wsum) + _side_proxy(B, right, e.weight - wsum)
        if proxy > top:
            top = proxy
            best_k = k
    if best_k == -2 and binned_k != -2:     # (none valid by these sums: as binned)
        best_k = binned_k
    sp.refined = not (best_k == binned_k and binned_k != -2)
    if not sp.refined:                       # the binned cut: a middle edge
        for k in range(u):
            goes[gath[k].i] = k <= best_k
    elif best_k >= 0:
        a = gath[best_k].x
        b = gath[best_k + 1].x
        thr = a / 2.0 + b / 2.0
        if thr >= b or thr != thr or thr == INFINITY or thr == -INFINITY:
            thr = a
        for k in range(u):
            goes[gath[k].i] = k <= best_k
    else:           # (no valid cut inside: the bins' boundary, as binned)
        thr = -INFINITY
        for k in range(u):
            goes[gath[k].i] = _row_code(B, _pend(B, U, gath[k].i), f) == sp.lo
            if goes[gath[k].i]:
                thr = gath[k].x
    # the set-aside records placed by the cut, in their order
    for i in range(u):
        rec = _pend(B, U, i)
        wt = _rec_w(B, rec)
        tv = _rec_t(B, rec)
        if goes[i]:
            if place:
                memcpy(dst + l * B.stride, rec, B.stride)
            l += 1
            wl[0] += wt
            _add_node_stats(B, B.left_stats, wt, tv)
        else:
            r -= 1
            if place:
                memcpy(dst + r * B.stride, rec, B.stride)
            wr[0] += wt
            _add_node_stats(B, B.right_stats, wt, tv)
    sp.thr = thr
    return l - e.start


cdef inline uint8_t _row_code(const HB* B, const uint8_t* rec, int64_t f) noexcept nogil:
    """A record's code of feature f."""
    if B.compact:
        return rec[f]
    return B.codes[(<const int64_t*> rec)[0] * B.p + f]


cdef inline double _second(const HB* B, double y) noexcept nogil:
    """What a target adds to the nodes' second sums (times its weight): y*y, or for
    Poisson y*log(y) (0 at y = 0), as _hist.h's partition sums them."""
    if B.criterion == CRIT_POISSON_B:
        return y * log(y) if y > 0.0 else 0.0
    return y * y


cdef inline void _add_node_stats(const HB* B, double* stats, double wt,
                                 double tv) noexcept nogil:
    """A sample added to a side's statistics in the nodes' units (class weights, or
    the sums of w*y and w*y*y, or w*y*log(y))."""
    if B.regression:
        stats[0] += wt * tv
        stats[1] += wt * _second(B, tv)
    else:
        stats[<int64_t> tv] += wt


cdef int _add_node(HB* B, const HEntry* e, const double* stats) noexcept nogil:
    """Appends the entry's node (a leaf until split) with its values; its id, or -1."""
    cdef int64_t idx, k, cap, nv = B.nv
    cdef void* q
    cdef Node* nd
    if B.count == MAX_NODES:
        B.error = 2
        return -1
    if B.count == B.cap:
        cap = min(2 * B.cap, MAX_NODES)
        q = realloc(B.nodes, cap * sizeof(Node))
        if q == NULL:
            B.error = 1
            return -1
        B.nodes = <Node*> q
        q = realloc(B.values, cap * nv * sizeof(double))
        if q == NULL:
            B.error = 1
            return -1
        B.values = <double*> q
        B.cap = cap
    idx = B.count
    B.count += 1
    nd = &B.nodes[idx]
    memset(nd, 0, sizeof(Node))
    nd.left_child = -1
    nd.right_child = -1
    nd.feature = -2
    nd.threshold = -2.0
    nd.impurity = e.impurity
    nd.n_node_samples = <int32_t> (e.end - e.start)
    nd.weighted_n_node_samples = e.weight
    if B.n_out > 1:
        _values_multi(B, B.values + idx * nv, stats, e.weight)
    elif B.regression:
        B.values[idx] = stats[0] / e.weight
    else:
        for k in range(nv):
            B.values[idx * nv + k] = stats[k] / e.weight
    if B.mono != NULL and (B.regression or nv == 2):
        # the value (the mean, or the class-0 fraction and its complement) held within
        # the bounds that the constrained splits above set, as scikit-learn does
        if B.values[idx * nv] < e.lower:
            B.values[idx * nv] = e.lower
        elif B.values[idx * nv] > e.upper:
            B.values[idx * nv] = e.upper
        if not B.regression:
            B.values[idx * nv + 1] = 1.0 - B.values[idx * nv]
    if e.parent >= 0:
        if e.is_left:
            B.nodes[e.parent].left_child = <int32_t> idx
        else:
            B.nodes[e.parent].right_child = <int32_t> idx
    if e.depth > B.depth:
        B.depth = e.depth
    return <int> idx


cdef int _push(HB* B, int64_t start, int64_t end, int64_t depth, int64_t parent,
               int is_left, double weight, const double* stats,
               int64_t hset, double lower, double upper) noexcept nogil:
    """Pushes a child entry with its statistics, its bounds (monotonic constraints) and
    the node's constant features."""
    cdef int64_t cap, S = B.NS, k
    cdef void* q
    cdef HEntry* e
    if B.stack_n == B.stack_cap:
        cap = 2 * B.stack_cap
        q = realloc(B.stack, cap * sizeof(HEntry))
        if q == NULL:
            return -1
        B.stack = <HEntry*> q
        q = realloc(B.stack_stats, cap * S * sizeof(double))
        if q == NULL:
            return -1
        B.stack_stats = <double*> q
        q = realloc(B.stack_const, cap * B.p)
        if q == NULL:
            return -1
        B.stack_const = <uint8_t*> q
        B.stack_cap = cap
    e = &B.stack[B.stack_n]
    e.start = start
    e.end = end
    e.depth = depth
    e.parent = parent
    e.is_left = is_left
    e.weight = weight
    e.impurity = _impurity(B, stats, weight)
    e.hset = hset
    e.lower = lower
    e.upper = upper
    for k in range(S):
        B.stack_stats[B.stack_n * S + k] = stats[k]
    memcpy(B.stack_const + B.stack_n * B.p, B.node_const, B.p)
    B.stack_n += 1
    return 0


cdef bint _is_leaf(const HB* B, const HEntry* e) noexcept nogil:
    cdef int64_t n = e.end - e.start
    return (e.depth >= B.max_depth or n < B.min_split or n < 2 * B.min_leaf
            or e.weight < 2.0 * B.min_weight_leaf or e.impurity <= EPSILON)


cdef double _threshold(const HB* B, const HSplit* sp) noexcept nogil:
    """The node's threshold: infinity for the cut that sends only the missing values
    right; a refined cut's (see _refine); else the middle edge between the two sides'
    nearest non-empty bins."""
    if sp.is_set:
        return NAN                # (a split on a set of codes, see _hist_sets.pxi)
    if sp.refined:
        return sp.thr
    if sp.lo == MISSING:
        return INFINITY
    return B.edges[B.offsets[sp.feature] + (sp.lo + sp.hi) // 2]


cdef void _grow(HB* B, int64_t* bins) noexcept nogil:
    """Depth-first growth from the root entry on the stack."""
    cdef HEntry e
    cdef HSplit sp
    cdef int64_t S = B.NS, node, nl, n, k
    cdef int64_t sets[2]
    cdef double wl, wr, improvement, middle
    cdef double bounds[4]          # lower, upper of the left child, then of the right
    cdef int cst
    cdef Node* nd
    while B.stack_n > 0:
        B.stack_n -= 1
        e = B.stack[B.stack_n]
        memcpy(B.node_stats, B.stack_stats + B.stack_n * S, S * sizeof(double))
        memcpy(B.node_const, B.stack_const + B.stack_n * B.p, B.p)
        node = _add_node(B, &e, B.node_stats)
        if node < 0:
            return
        if _is_leaf(B, &e):
            _release(B, e.hset)
            continue
        if e.depth == B.fork_depth and B.fork_depth > 0:
            _release(B, e.hset)
            if _add_fork(B, &e, node) < 0:
                B.error = 1
                return
            continue
        B.lower = e.lower
        B.upper = e.upper
        if B.subtract and e.hset < 0 and e.end - e.start >= SUB_MIN:
            # a node that will give its histograms to its children (see _children_sets)
            e.hset = _acquire(B)
            if e.hset < 0:
                B.error = 1
                return
            B.cur = B.buf[e.depth & 1]
            _fill_set(B, e.start, e.end, e.hset)
        if e.hset >= 0:
            _find_split_set(B, &e, &sp, bins)
        else:
            _find_split(B, &e, &sp, bins)
        if B.error:
            return
        if not sp.found:
            _release(B, e.hset)
            continue
        B.cur = B.buf[e.depth & 1]
        nl = _partition(B, &e, &sp, &wl, &wr)
        if nl < 0:
            B.error = 1
            return
        n = e.end - e.start
        if nl == 0 or nl == n:      # (no valid cut after all: a leaf)
            _release(B, e.hset)
            continue
        if B.criterion == CRIT_FRIEDMAN_B:
            # Friedman's improvement (the exact builder's and scikit-learn's: not
            # scaled by the node's weight share; several outputs: of their mean
            # target); its cuts are the squared error's (the two proxies differ by
            # a constant factor in a node; several outputs: of the outputs' sum)
            improvement = 0.0
            for k in range(B.n_out):
                improvement += wr * B.left_stats[k] - wl * B.right_stats[k]
            improvement /= B.n_out
            improvement = improvement * improvement / (wl * wr * e.weight)
        else:
            improvement = (e.weight / B.total_weight) * (
                e.impurity - (wr / e.weight) * _impurity(B, B.right_stats, wr)
                - (wl / e.weight) * _impurity(B, B.left_stats, wl))
        if improvement + EPSILON < B.min_decrease:
            _release(B, e.hset)
            continue
        nd = &B.nodes[node]
        nd.feature = <int32_t> sp.feature
        nd.threshold = _threshold(B, &sp)
        nd.missing_go_to_left = <uint8_t> (sp.mleft if sp.missing else nl > n - nl)
        if sp.is_set and _cat_record(B, node, &sp) < 0:
            B.error = 1
            return
        if _children_sets(B, &e, nl, wl, wr, sets) < 0:
            B.error = 1
            return
        # a constrained split's children meet at the mean of their values (class-0
        # fractions, or means), as in scikit-learn
        bounds[0] = bounds[2] = e.lower
        bounds[1] = bounds[3] = e.upper
        cst = _cst(B, sp.feature)
        if cst != 0:
            middle = B.left_stats[0] / (2.0 * wl) + B.right_stats[0] / (2.0 * wr)
            if cst == 1:
                bounds[1] = bounds[2] = middle
            else:
                bounds[0] = bounds[3] = middle
        # right pushed first: the left child is numbered next (pre-order)
        if (_push(B, e.start + nl, e.end, e.depth + 1, node, 0, wr, B.right_stats,
                  sets[1], bounds[2], bounds[3]) < 0
                or _push(B, e.start, e.start + nl, e.depth + 1, node, 1, wl,
                         B.left_stats, sets[0], bounds[0], bounds[1]) < 0):
            B.error = 1
            return


cdef bint _may_split(const HB* B, int64_t depth, int64_t n, double w,
                     const double* stats) noexcept nogil:
    """Whether a child could split (the leaf tests that its statistics settle)."""
    cdef HEntry c
    c.start = 0
    c.end = n
    c.depth = depth
    c.weight = w
    c.impurity = _impurity(B, stats, w)
    return not _is_leaf(B, &c)


cdef int _children_sets(HB* B, const HEntry* e, int64_t nl, double wl, double wr,
                        int64_t* sets) noexcept nogil:
    """The children's histogram sets (left, right; -1: none), once the node's samples
    are partitioned: where the node holds its histograms and the larger child is large
    and may split, the smaller child's are built over its samples and the larger's are
    the node's minus them (the sibling by subtraction); else the node's are released.
    0, or -1 when memory ran out."""
    cdef int64_t n = e.end - e.start, small, big
    cdef bint left_small = nl <= n - nl
    sets[0] = sets[1] = -1
    if e.hset < 0:
        return 0
    if (n - min(nl, n - nl) < SUB_MIN
            or not (_may_split(B, e.depth + 1, n - nl, wr, B.right_stats) if left_small
                    else _may_split(B, e.depth + 1, nl, wl, B.left_stats))):
        _release(B, e.hset)
        return 0
    small = _acquire(B)
    if small < 0:
        return -1
    B.cur = B.buf[(e.depth + 1) & 1]
    if left_small:
        _fill_set(B, e.start, e.start + nl, small)
    else:
        _fill_set(B, e.start + nl, e.end, small)
    big = e.hset
    _subtract(B, big, small)
    if not (_may_split(B, e.depth + 1, nl, wl, B.left_stats) if left_small
            else _may_split(B, e.depth + 1, n - nl, wr, B.right_stats)):
        _release(B, small)
        small = -1
    sets[0] = small if left_small else big
    sets[1] = big if left_small else small
    return 0


cdef char* _room(char** buf, size_t* size, size_t need) noexcept nogil:
    """A buffer of at least ``need`` bytes at ``*buf`` (grown by half again when it is
    too small), or NULL when memory ran out."""
    if need > size[0]:
        free(buf[0])
        buf[0] = <char*> malloc(need + need // 2)
        size[0] = need + need // 2 if buf[0] != NULL else 0
    return buf[0]


cdef class Workspace:
    """The per-sample buffers of the binned builder, kept between the trees that one
    thread grows (allocated once, as large as the largest tree's samples, instead of
    once per tree)."""
    cdef char* buf
    cdef size_t size
    cdef char* pend                 # the refinements' buffers (see _refine_split)
    cdef size_t pend_size
    cdef char* vals
    cdef size_t vals_size

    def __dealloc__(self):
        free(self.buf)
        free(self.pend)
        free(self.vals)

    cdef char* reserve(self, size_t size) noexcept nogil:
        """At least ``size`` bytes (NULL when memory ran out)."""
        if size > self.size:
            free(self.buf)
            self.buf = <char*> malloc(size)
            self.size = size if self.buf != NULL else 0
        return self.buf


cdef int64_t _stride(int64_t p, bint compact, bint packed, int64_t n_out,
                     bint narrow) noexcept nogil:
    """The bytes of a sample's record (see _hist.h): the codes and the row (int32,
    the header's last 4 bytes), or the row alone (int64); the payload (narrow: 4
    bytes, after a header of whole 4-byte words)."""
    if narrow:
        return ((p + 4 + 3) & ~3) + 4
    return (((p + 4 + 7) & ~7) if compact else 8) + (8 if packed else 8 + 8 * n_out)


cdef inline void _fill_record(const HB* B, uint8_t* rec, int64_t i, double w,
                              double target) noexcept nogil:
    """Sample i's record: its codes (or its row), weight and class or target."""
    cdef int64_t j, words = B.hdr >> 3
    cdef uint64_t word
    if B.compact:
        if i * B.p + 8 * words <= B.n_rows * B.p and 8 * words <= B.p + 4:
            # whole words (the tail of the last one is the next row's start: padding)
            for j in range(words):
                memcpy(&word, B.codes + i * B.p + 8 * j, 8)
                memcpy(rec + 8 * j, &word, 8)       # (narrow records: 4-byte aligned)
        else:
            memcpy(rec, B.codes + i * B.p, B.p)
        (<int32_t*> (rec + B.hdr - 4))[0] = <int32_t> i
    else:
        (<int64_t*> rec)[0] = i
    cdef uint64_t wi
    cdef uint32_t narrow
    if B.narrow:
        narrow = <uint32_t> w
        narrow = narrow + ((narrow * <uint32_t> target) << 16)
        memcpy(rec + B.hdr, &narrow, 4)
        return
    if B.packed:
        wi = <uint64_t> w
        (<uint64_t*> (rec + B.hdr))[0] = wi + ((wi * <uint64_t> target) << 32)
        return
    (<double*> (rec + B.hdr))[0] = w
    if B.regression:
        (<double*> (rec + B.hdr + 8))[0] = target
    else:
        (<int64_t*> (rec + B.hdr + 8))[0] = <int64_t> target


cdef inline void _load_one(HB* B, int64_t m, int64_t i, double wi, const int32_t* y,
                           const double* target) noexcept nogil:
    """Sample i (weight wi, one output) as record m, added to the root's statistics."""
    _fill_record(B, B.buf[0] + m * B.stride, i, wi,
                 target[i] if B.regression else <double> y[i])
    if B.regression:
        B.node_stats[0] += wi * target[i]
        B.node_stats[1] += wi * _second(B, target[i])
    else:
        B.node_stats[y[i]] += wi


cdef int64_t _load(HB* B, int64_t n, const uint8_t* counts, const double* sw,
                   const int32_t* y, const double* target) noexcept nogil:
    """The records of the samples of non-zero weight (``counts``, or ``sw`` when it is
    NULL) in B.buf[0], the root's statistics in B.node_stats and its weight in
    B.total_weight; their number."""
    cdef int64_t i, k, m = 0
    cdef double wi, tw = 0.0
    for k in range(B.NS):
        B.node_stats[k] = 0.0
    if counts != NULL and B.n_out == 1:
        # a bag's counts: every row's record written, kept (m advanced) when drawn,
        # without a branch on the draw (a third of the rows are not drawn, at random);
        # buf[0] has room for one record more than are drawn
        for i in range(n):
            wi = <double> counts[i]
            _load_one(B, m, i, wi, y, target)
            tw += wi
            m += counts[i] != 0
        B.total_weight = tw
        return m
    for i in range(n):
        wi = <double> counts[i] if counts != NULL else sw[i]
        if wi <= 0.0:
            continue
        if B.n_out > 1:
            _record_multi(B, B.buf[0] + m * B.stride, i, wi, y, target)
            _add_root_multi(B, B.node_stats, wi, i, y, target)
        else:
            _load_one(B, m, i, wi, y, target)
        tw += wi
        m += 1
    B.total_weight = tw
    return m


cdef void _layout(HB* B, bint compact, int64_t active, double total, double largest,
                  int64_t narrow_from) noexcept nogil:
    """Whether the records are packed (two classes, integer weights whose sum fits 32
    bits) and narrow (compact, each weight below 2^16, the two buffers of packed
    records at least narrow_from bytes; see NARROW_FROM)."""
    B.packed = B.packed and B.int_weights and total < 4294967295.0
    B.narrow = (B.packed and compact and largest < 65536.0 and narrow_from >= 0
                and 2 * _stride(B.p, compact, True, 1, False) * (active + 1)
                >= narrow_from)


cdef int64_t _weights(const uint8_t* counts, const double* sw, int64_t n, double* total,
                      bint* int_weights, double* largest) noexcept nogil:
    """The samples of positive weight (``counts``, or ``sw`` when it is NULL): their
    number, their total and largest weight, and whether every weight is an integer
    (else int_weights is set False)."""
    cdef int64_t i, active = 0, whole = 0
    cdef double wi
    total[0] = 0.0
    largest[0] = 255.0 if counts != NULL else 0.0
    if counts != NULL:
        for i in range(n):          # (no branch: a third of a bag's counts are 0)
            active += counts[i] != 0
            whole += counts[i]
        total[0] = <double> whole
        return active
    for i in range(n):
        wi = sw[i]
        if wi > 0.0:
            active += 1
            total[0] += wi
            if wi > largest[0]:
                largest[0] = wi
            if wi != <double> (<int64_t> wi):
                int_weights[0] = False
    return active


cdef int _alloc(HB* B, int64_t n, int64_t S, bint compact, char* base) noexcept nogil:
    """The builder's buffers for n samples (the records' two buffers carved from
    ``base``, 2 * _stride(p, compact, packed) * (n + 1) bytes); 0, or -1 when memory ran out."""
    if base == NULL:
        return -1
    B.compact = compact
    B.stride = _stride(B.p, compact, B.packed, B.n_out, B.narrow)
    B.hdr = B.stride - (4 if B.narrow else 8 if B.packed else 8 + 8 * B.n_out)
    B.buf[0] = <uint8_t*> base
    B.buf[1] = B.buf[0] + (n + 1) * B.stride
    B.cur = B.buf[0]
    return _alloc_work(B, S)


cdef int _alloc_work(HB* B, int64_t S) noexcept nogil:
    """The builder's buffers but the records'; 0, or -1 when memory ran out."""
    cdef int64_t chunk = B.hist_cap
    cdef int64_t wide = max(chunk, B.p), j
    B.hist = <double*> malloc(chunk * NBINS * S * sizeof(double))
    B.cnt = <int32_t*> malloc(chunk * NBINS * sizeof(int32_t))
    B.touched = <uint64_t*> malloc(chunk * 4 * sizeof(uint64_t))
    B.batch_set.h = B.hist
    B.batch_set.cnt = B.cnt
    B.batch_set.touched = B.touched
    B.batch = <int64_t*> malloc(wide * sizeof(int64_t))
    B.base = <int64_t*> malloc(wide * sizeof(int64_t))
    B.ident = <int64_t*> malloc(wide * sizeof(int64_t))
    B.packed_hist = <uint64_t*> malloc(2 * wide * NBINS * sizeof(uint64_t))
    B.cand = <int64_t*> malloc(B.p * sizeof(int64_t))
    if B.ident != NULL:
        for j in range(wide):
            B.ident[j] = j
    B.stack_cap = 64
    B.stack = <HEntry*> malloc(B.stack_cap * sizeof(HEntry))
    B.stack_stats = <double*> malloc(B.stack_cap * B.NS * sizeof(double))
    B.stack_const = <uint8_t*> malloc(B.stack_cap * B.p)
    B.node_stats = <double*> malloc(max(S, B.NS) * sizeof(double))
    B.left_stats = <double*> malloc(max(S, B.NS) * sizeof(double))
    B.right_stats = <double*> malloc(max(S, B.NS) * sizeof(double))
    B.node_const = <uint8_t*> malloc(B.p)
    B.cap = 256
    B.nodes = <Node*> malloc(B.cap * sizeof(Node))
    B.values = <double*> malloc(B.cap * B.nv * sizeof(double))
    if (B.base == NULL or B.ident == NULL or B.packed_hist == NULL
            or B.hist == NULL or B.cnt == NULL or B.touched == NULL or B.batch == NULL
            or B.cand == NULL or B.stack == NULL or B.stack_stats == NULL
            or B.stack_const == NULL or B.node_stats == NULL or B.left_stats == NULL
            or B.right_stats == NULL or B.node_const == NULL or B.nodes == NULL
            or B.values == NULL):
        return -1
    return 0


cdef void _free(HB* B) noexcept nogil:
    _free_work(B)
    free(B.nodes)
    free(B.values)
    free(B.out_off)
    _forks_free(B)


cdef void _free_work(HB* B) noexcept nogil:
    """Frees _alloc_work's buffers (and the pool's, the candidates')."""
    free(B.hist)
    B.hist = NULL
    free(B.base)
    B.base = NULL
    free(B.ident)
    B.ident = NULL
    free(B.packed_hist)
    B.packed_hist = NULL
    free(B.pool_h)
    B.pool_h = NULL
    free(B.pool_t)
    B.pool_t = NULL
    free(B.pool_c)
    B.pool_c = NULL
    free(B.pool_free)
    B.pool_free = NULL
    free(B.cnt)
    B.cnt = NULL
    free(B.touched)
    B.touched = NULL
    free(B.batch)
    B.batch = NULL
    free(B.cand)
    B.cand = NULL
    free(B.hc)
    B.hc = NULL
    free(B.stack)
    B.stack = NULL
    free(B.stack_stats)
    B.stack_stats = NULL
    free(B.stack_const)
    B.stack_const = NULL
    free(B.node_stats)
    B.node_stats = NULL
    free(B.left_stats)
    B.left_stats = NULL
    free(B.right_stats)
    B.right_stats = NULL
    free(B.node_const)
    B.node_const = NULL


def _checked_inputs(int64_t n, int64_t p, sample_weight, X, exact, monotonic,
                    bint many_classes):
    """build_tree's arrays checked against the codes' n rows and p features; ``exact``
    (all 0 when None)."""
    if np.asarray(sample_weight).shape[0] != n:
        raise ValueError(f"{n} rows of codes, but sample_weight has another length")
    if X is not None and n > 0 and p > 0 and (X.shape[0] != n or X.shape[1] != p):
        raise ValueError(f"X is {X.shape[0]} x {X.shape[1]}, the codes {n} x {p}")
    if exact is None:
        exact = np.zeros(p, dtype=np.uint8)
    if exact.shape[0] != p:
        raise ValueError(f"exact has {exact.shape[0]} flags for {p} features")
    if monotonic is not None:
        if monotonic.shape[0] != p:
            raise ValueError(f"monotonic has {monotonic.shape[0]} entries for {p} features")
        if many_classes:
            raise ValueError("monotonic constraints take two classes")
        if not np.all(np.isin(np.asarray(monotonic), (-1, 0, 1))):
            raise ValueError("monotonic entries must be -1, 0 or 1")
    return exact


cdef tuple _tree_arrays(const HB* B):
    """The grown tree's nodes and values as arrays (or the error that stopped it)."""
    if B.error == 1:
        raise MemoryError("not enough memory to grow the tree")
    if B.error == 2:
        raise ValueError("the tree would have more than 2**31 - 1 nodes")
    nodes = np.empty(B.count, dtype=NODE_DTYPE)
    value = np.empty((B.count, B.n_out, B.nv // B.n_out), dtype=np.float64)
    if B.count:
        memcpy(<void*> <size_t> nodes.ctypes.data, B.nodes, B.count * sizeof(Node))
        memcpy(<void*> <size_t> value.ctypes.data, B.values,
               B.count * B.nv * sizeof(double))
    return nodes, value


def _checked_categories(categories, int64_t p, edges, offsets, exact):
    """build_tree's ``categories`` as contiguous arrays, or None when no feature splits
    on sets; ValueError unless each such feature's bins hold one value and have codes
    in increasing order."""
    if categories is None:
        return None
    mask, cat_offsets, cat_codes = categories
    mask = np.ascontiguousarray(mask, dtype=np.uint8)
    cat_offsets = np.ascontiguousarray(cat_offsets, dtype=np.int64)
    cat_codes = np.ascontiguousarray(cat_codes, dtype=np.int32)
    if mask.shape != (p,) or cat_offsets.shape != (p + 1,):
        raise ValueError(f"categories do not describe {p} features")
    if not mask.any():
        return None
    edges_at = np.asarray(offsets)
    for f in np.flatnonzero(mask):
        own = cat_codes[cat_offsets[f]:cat_offsets[f + 1]]
        if (not exact[f] or own.size != edges_at[f + 1] - edges_at[f] + 1
                or np.any(own < 0) or np.any(np.diff(own) <= 0)):
            raise ValueError(f"categorical feature {f} needs one bin a level, its "
                             "codes in increasing order")
    return mask, cat_offsets, cat_codes


cdef void _stopping(HB* B, int64_t max_depth, int64_t min_split, int64_t min_leaf,
                    double min_weight_leaf, int64_t max_features,
                    double min_decrease) noexcept:
    """The settings that say which nodes split, and over how many features."""
    B.max_depth = max_depth
    B.min_split = min_split
    B.min_leaf = min_leaf
    B.need_counts = min_leaf > 1
    B.max_features = max_features
    B.min_weight_leaf = min_weight_leaf
    B.min_decrease = min_decrease


def build_tree(const uint8_t[:, ::1] codes, const double[::1] edges,
               const int64_t[::1] offsets, const int32_t[::1] y, const double[::1] target,
               sample_weight, int64_t n_classes, int criterion,
               int64_t max_depth, int64_t min_samples_split, int64_t min_samples_leaf,
               double min_weight_leaf, int64_t max_features,
               double min_impurity_decrease, uint64_t seed, bint shuffle_features=False,
               Workspace workspace=None, int64_t compact_features=COMPACT,
               bint subtract=True, const double[:, :] X=None,
               const uint8_t[::1] exact=None, double inside_tol=-1.0,
               double inside_abs=-1.0, bint skip_last=True,
               const int8_t[::1] monotonic=None, categories=None,
               int64_t min_category_samples=10, int category_orders=1,
               int category_rare=0, int64_t n_outputs=1, output_classes=None,
               int64_t threads=1, int64_t fork_rows=FORK_ROWS,
               int64_t narrow_from=NARROW_FROM):
    """Grow one tree on binned features (see the module's docstring).

    ``codes``: what ``bin_codes`` wrote (n x p, row by row); ``edges``/``offsets``: the
    features' thresholds; ``y``: class codes 0 .. n_classes - 1 (classification, with
    ``target`` None) or ``target`` (regression, ``y`` None, ``n_classes`` 1);
    ``criterion``: CRIT_GINI_B, CRIT_ENTROPY_B (classification), CRIT_SQUARED_B or
    CRIT_FRIEDMAN_B (regression).  Samples of weight zero take no part;
    ``sample_weight`` is float64, or uint8 counts (see draw_counts).  ``workspace``: a
    Workspace to reuse (a thread's trees share one).  ``subtract=False`` builds every
    node's histograms (the tests compare).  ``monotonic``: None, or per feature 1 / -1 / 0 as the exact
    builder takes them (the class-0 fraction of two classes, or the mean, may only rise
    / fall from the left child to the right one; the nodes' values held within the
    bounds the constrained splits above set); cuts on a constrained feature are refined
    in their two bins only.  ``X``: the values the codes were made from (None: cuts are
    not refined, see _refine_split), and ``exact``: per feature, 1 when each of its bins
    holds one value (its cuts need no refinement; None: all 0).  ``categories``: None,
    or _bins.category_table's: the features to split on sets of their bins (see
    _hist_sets.pxi), with the exact builder's three settings of categorical splits.
    ``n_outputs`` > 1: y or target holds them row by row (n x n_outputs), with
    ``output_classes`` each output's classes (see _hist_multi.pxi).  A tree of at least
    ``fork_rows`` samples (0: none) grows its subtrees below depth 3 apart, in ``threads``
    threads (see _hist_forks.pxi; the same tree for any number).  Two classes with
    integer weights below 2^16 take records 4 bytes shorter (the same tree) where the
    two buffers of full records would take at least ``narrow_from`` bytes (0: always;
    -1: never).  Returns ``(nodes, value, max_depth, left_codes)`` as _builder.build_tree does."""
    cdef HB B
    cdef int64_t n = codes.shape[0], p = codes.shape[1], m = 0, S
    cdef const double[::1] sw_f
    cdef const uint8_t[::1] sw_c
    cdef bint by_counts = np.asarray(sample_weight).dtype == np.uint8
    if by_counts:
        sw_c = sample_weight
    else:
        sw_f = sample_weight
    exact = _checked_inputs(n, p, sample_weight, X, exact, monotonic,
                            target is None and n_classes > 2)
    cdef HCat cat
    memset(&cat, 0, sizeof(HCat))
    categories = _checked_categories(categories, p, edges, offsets, exact)
    cdef double tw = 0.0
    cdef bint regression = target is not None
    cdef int64_t* bins = NULL
    cdef bint compact = p <= compact_features
    memset(&B, 0, sizeof(HB))
    B.codes = &codes[0, 0] if n > 0 and p > 0 else NULL
    B.n_rows = n
    if X is not None and n > 0 and p > 0:
        B.X = &X[0, 0]
        B.xs0 = X.strides[0] // sizeof(double)
        B.xs1 = X.strides[1] // sizeof(double)
    B.exact = &exact[0] if p > 0 else NULL
    if monotonic is not None and p > 0:
        B.mono = &monotonic[0]
    B.p = p
    B.K = 1 if regression else n_classes
    S = 2 if regression else n_classes
    B.S = B.NS = S
    B.nv = B.K
    B.regression = regression
    if n_outputs > 1 and monotonic is not None:
        raise ValueError("several outputs take no monotonic constraints")
    _multi_setup(&B, n_outputs, output_classes)
    S = B.S
    B.edges = &edges[0] if edges.shape[0] > 0 else NULL
    B.offsets = &offsets[0]
    B.criterion = criterion
    _stopping(&B, max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
              max_features, min_impurity_decrease)
    if categories is not None:
        B.cat = &cat
        _cat_setup(&B, categories, min_category_samples, category_orders, category_rare,
                   n_classes if not regression else 1)
    B.shuffle = shuffle_features
    B.skip_last = skip_last
    B.rng = seed
    B.hist_cap = max(1, min(64, (1 << 20) // (NBINS * S)))
    B.bounds = (not regression and n_classes <= MAX_BOUND_K and B.X != NULL
                and n_outputs == 1)
    B.inside_tol = INSIDE_TOL if inside_tol < 0.0 else inside_tol
    B.inside_abs = INSIDE_ABS if inside_abs < 0.0 else inside_abs
    cdef char* base
    if workspace is None:
        workspace = Workspace()
    B.pend = &workspace.pend
    B.pend_size = &workspace.pend_size
    B.vals = &workspace.vals
    B.vals_size = &workspace.vals_size
    cdef int64_t active = 0
    cdef double total = 0.0, largest = 0.0
    B.packed = not regression and n_classes == 2 and n_outputs == 1
    B.int_weights = True
    with nogil:
        active = _weights(&sw_c[0] if by_counts else NULL, NULL if by_counts else &sw_f[0],
                          n, &total, &B.int_weights, &largest)
        _layout(&B, compact, active, total, largest, narrow_from)
        base = workspace.reserve(2 * _stride(p, compact, B.packed, B.n_out, B.narrow)
                                 * (active + 1))
    try:
        with nogil:
            if _alloc(&B, active, S, compact, base) < 0:
                B.error = 1
            else:
                m = _load(&B, n, &sw_c[0] if by_counts else NULL,
                          NULL if by_counts else &sw_f[0],
                          NULL if regression else &y[0],
                          &target[0] if regression else NULL)
                tw = B.total_weight
                if B.bounds and tw > 0.0:
                    B.root_most = ((tw if B.criterion == CRIT_GINI_B else 0.0)
                                   - _side_proxy(&B, B.node_stats, tw))
                # the sibling by subtraction: every feature drawn at every node, the
                # codes in the records, integer weights (exact sums), a set of
                # histograms of at most 512 kB
                B.subtract = (subtract and max_features >= p and B.compact
                              and B.int_weights and p * S <= 256)
                memset(B.node_const, 0, p)
                if B.cat == NULL and 0 < fork_rows <= m:
                    B.fork_depth = FORK_DEPTH
                    B.fork_seed = seed
                bins = <int64_t*> malloc(NBINS * sizeof(int64_t))
                if bins == NULL or _push(&B, 0, m, 0, -1, 0, tw, B.node_stats, -1,
                                         -INFINITY, INFINITY) < 0:
                    B.error = 1
                else:
                    _grow(&B, bins)
        if B.n_forks and not B.error:
            _grow_forks(&B, threads)
        nodes, value = _tree_arrays(&B)
        return nodes, value, B.depth, _cat_sets(&cat, nodes, categories)
    finally:
        free(bins)
        _free(&B)
        _cat_free(&cat)
