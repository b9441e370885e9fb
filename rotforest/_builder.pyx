"""Presort and the presorted CART builder.

The lists
---------
``presort(X)`` sorts every feature once: row ``f`` holds the samples ``i`` (32 bits each)
in increasing order of ``X[i, f]``, ties by index, then a bitmap of the positions that
start a new value.  It is only read, so a forest can share it between its trees.  Each
tree copies the rows of its samples (non-zero weight) into working keys that carry the
dense rank of the value (counted from the bitmap), the class and, for integer weights,
the weight (see "Working keys" below): two neighbours in a list have equal values
exactly when their ranks are equal, and the scans read one sequential stream without
touching X.

A node is the same ``[start, end)`` slice of every list.  To split it, the builder marks
which side every sample goes to (a bitmap, walking the winning feature's slice) and
partitions every other feature's slice stably in place: the left keys are packed
forward, the right ones set aside in a scratch the size of one list and copied back
behind them, so a tree needs one copy of the lists.  Features found constant in a node
are remembered and neither scanned nor partitioned below it, and the side of a split
that is certain to become a leaf is not partitioned at all.

The build runs entirely without the GIL.  Depth-first growth (a stack, nodes numbered in
pre-order as scikit-learn does) and best-first growth (a heap keyed by impurity
improvement, for ``max_leaf_nodes``) share every function; only the frontier differs.

Where the processor has AVX-512, the two-class Gini scan with integer weights and the
stable partition run as vector kernels chosen at run time; they perform the same
operations in the same order as the portable kernels and so grow the same trees (the
test suite checks this).  ``ROTFOREST_NO_AVX512=1`` turns them off.

Files
-----
One compiled module, so that the scans and partitions inline into the growth loop; its
parts live in files included here, in this order:

``_simd.h``        the AVX-512 kernels (C, chosen at run time) and portable stand-ins
``_platform.h``    large allocations, the machine's memory, the random generator
``_presort.pxi``   ``presort``, ``dense_ranks``: the sorted lists shared by a forest
``_state.pxi``     the builder's parts (structs) and their allocations; working-key fields
``_scan_common.pxi`` what the scans share: impurity, proxies, missing-value runs, checks
``_scan_gini.pxi``  the Gini scans (two-class, multiclass, counting in sorting nodes)
``_scan_entropy.pxi`` the entropy and misclassification-error scans
``_scan_reference.pxi`` the reference scan: any criterion, missing values, constraints
``_scan_random.pxi`` random thresholds (``splitter="random"``)
``_scan_regression.pxi`` the squared-error, Friedman and Poisson scans
``_absolute.pxi``  the absolute-error criterion: running weighted medians (its kernel
                   in ``_absolute.h``)
``_node_sort.pxi`` sorting in the node: radix sort, the samples of sorting nodes
``_method.pxi``    the method choice: lists or sorting, per node (the cost model)
``_hist_nodes.pxi`` histogram nodes: sorting nodes that keep their counts, the larger
                   child's taken by subtraction (trees of every feature, few values)
``_categorical.pxi`` splits on sets of categories
``_split.pxi``     the best split of a node over its drawn features
``_grow.pxi``      frontier, nodes, partitions of the lists, the growth loop
``_rotations.pxi`` the rotation forest's sparse projections and each tree's rotation,
                   drawn in one call (its C code, PCA moments included, in
                   ``_rotations.h``)
``_builder.pyx``   settings, and ``build_tree``, which sets a builder up and runs it
"""
import os as _os

import numpy as np

from libc.stdlib cimport malloc, realloc, free, calloc, qsort
from libc.string cimport memcpy, memset
from libc.math cimport log, ceil, fabs, INFINITY, NAN, isfinite, isnan, sqrt
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from rotforest._tree cimport Node, SET_BITS, SET_LIST, set_size
from rotforest._tree import NODE_DTYPE

cdef extern from "_simd.h":
    double RF_SCREEN
    void rf_gini_binary_avx512(
            const uint64_t* L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1, int64_t lo2,
            int64_t hi2, int cs, int rs, int ws, uint64_t wm, double dt1, double dwt,
            double m1, double mw, double* best1_io, int64_t* pos1, double* best2_io,
            int64_t* pos2) noexcept nogil
    int rf_cpu_has_avx512() noexcept nogil
    void rf_entropy_binary_avx512(
            const uint64_t* L, int64_t s, int64_t hi, int64_t lo, int64_t hi1, int cs,
            int rs, int ws, uint64_t wm, double dt1, double dwt, const double* f,
            double* best_io, int64_t* pos_io) noexcept nogil
    void rf_gini_multi_avx512(
            const uint64_t* L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
            uint64_t cm, uint64_t wm, int64_t K, int64_t* cl, const int64_t* tot,
            int64_t t2, double dwt, int64_t sq0, int64_t st0, int64_t w0, double* best_io,
            int64_t* pos_io) noexcept nogil
    int64_t rf_missing_tail_avx512(const uint64_t* L, int64_t s, int64_t e,
                                   uint64_t nan_rank, int rs, int cs, int ws, uint64_t wm,
                                   int64_t* m1, int64_t* mw) noexcept nogil
    void rf_sqerr_avx512(const uint64_t* L, int64_t s, int64_t hi, int64_t lo, int rs,
                         int ws, uint64_t wm, uint64_t im, const double* yv,
                         const double* w, int mode, double st, double wtot, double minw,
                         double sc0, double wc0, double* best_io,
                         int64_t* pos_io) noexcept nogil
    void rf_partition_avx512(uint64_t* L, uint64_t* R, int64_t s, int64_t e,
                             int64_t p, const uint32_t* gl, uint64_t imask,
                             int mode) noexcept nogil


cdef extern from "_values.h":
    int64_t rf_gather_values(const double* xf, int64_t rs, const uint64_t* S, uint64_t im,
                             int64_t s, int64_t e, double* V, double* lo_out,
                             double* hi_out) noexcept nogil
    int64_t rf_gather_codes8(const uint8_t* cf, const uint64_t* S, uint64_t im, int64_t s,
                             int64_t e, int64_t missing, double* V, double* lo_out,
                             double* hi_out) noexcept nogil
    int64_t rf_gather_codes16(const uint16_t* cf, const uint64_t* S, uint64_t im, int64_t s,
                              int64_t e, int64_t missing, double* V, double* lo_out,
                              double* hi_out) noexcept nogil
    void rf_mark_other8(const uint8_t* c, int64_t n, uint8_t mode,
                        uint64_t* bits) noexcept nogil
    void rf_mark_other16(const uint16_t* c, int64_t n, uint16_t mode,
                         uint64_t* bits) noexcept nogil
    int64_t rf_gather_moded8(const uint8_t* cf, const uint64_t* bits, int64_t mode,
                             int64_t other, const uint64_t* S, uint64_t im, int64_t s,
                             int64_t e, int64_t missing, double* V, uint64_t* Q,
                             double* lo_out, double* hi_out) noexcept nogil
    int64_t rf_gather_moded16(const uint16_t* cf, const uint64_t* bits, int64_t mode,
                              int64_t other, const uint64_t* S, uint64_t im, int64_t s,
                              int64_t e, int64_t missing, double* V, uint64_t* Q,
                              double* lo_out, double* hi_out) noexcept nogil
    int64_t rf_gather_f32(const float* xf, int64_t rs, const uint64_t* S, uint64_t im,
                          int64_t s, int64_t e, double* V, double* lo_out,
                          double* hi_out) noexcept nogil
    int64_t rf_gather_f32_present(const float* xf, int64_t rs, const uint64_t* S,
                                  uint64_t im, int64_t s, int64_t e, double* V,
                                  double* lo_out, double* hi_out) noexcept nogil
    int64_t RF_PREFETCH_NODE
    void rf_prefetch_rows(const void* base, int64_t stride, const uint64_t* S, uint64_t im,
                          int64_t s, int64_t e) noexcept nogil
    int rf_any_equal(const double* V, int64_t s, int64_t e, double u) noexcept nogil
    int rf_any_equal_avx512(const double* V, int64_t s, int64_t e, double u) noexcept nogil
    int64_t rf_values_left_sq(const double* V, const double* Y, const uint64_t* S,
                              int64_t s, int64_t e, double t, int ml, int ws, uint64_t wm,
                              double* wl, double* out) noexcept nogil
    int64_t rf_values_left_sq_avx512(const double* V, const double* Y, const uint64_t* S,
                                     int64_t s, int64_t e, double t, int ml, int ws,
                                     uint64_t wm, double* wl, double* out) noexcept nogil
    int64_t rf_values_leftk(const double* V, const uint64_t* S, int64_t s, int64_t e,
                            double t, int ml, int cs, uint64_t cm, int ws, uint64_t wm,
                            const int64_t* P, int64_t n_p, int64_t* cli, int64_t* spare,
                            int64_t* wn) noexcept nogil
    int64_t rf_values_leftk_avx512(const double* V, const uint64_t* S, int64_t s, int64_t e,
                            double t, int ml, int cs, uint64_t cm, int ws, uint64_t wm,
                            const int64_t* P, int64_t n_p, int64_t* cli, int64_t* spare,
                            int64_t* wn) noexcept nogil
    int64_t rf_values_left2(const double* V, const uint64_t* S, int64_t s, int64_t e,
                            double t, int ml, int cs, int ws, uint64_t wm, int64_t* wn,
                            int64_t* w1) noexcept nogil
    int64_t rf_values_left2_avx512(const double* V, const uint64_t* S, int64_t s,
                                   int64_t e, double t, int ml, int cs, int ws, uint64_t wm,
                                   int64_t* wn, int64_t* w1) noexcept nogil


cdef extern from "_absolute.h":
    ctypedef struct rf_rec:
        double w
        double y
        int32_t p
        int32_t n
    ctypedef struct rf_abs_state:
        double W
        double S
        double wm
        double sm
        int64_t m
    void rf_abs_link(rf_rec* R, int64_t n) noexcept nogil
    double rf_abs_sad(const rf_rec* R, const rf_abs_state* st) noexcept nogil
    double rf_abs_median(const rf_rec* R, const rf_abs_state* st) noexcept nogil
    void rf_abs_small(const rf_rec* R, const int32_t* rk, const uint64_t* L, uint64_t im,
                      int64_t start, int64_t count, int64_t step, double* out, double* med,
                      int64_t base, int unit) noexcept nogil
    void rf_abs_pass(rf_rec* R, const int32_t* rk, const uint64_t* L, uint64_t im,
                     int64_t tail, rf_abs_state* st, int64_t start, int64_t stop,
                     int64_t step, double* out, double* med, int64_t base,
                     int unit) noexcept nogil


cdef extern from "_platform.h":
    uint64_t rf_rng_next(uint64_t* s) noexcept nogil
    void* rf_alloc_big(size_t size) noexcept nogil
    uint64_t rf_physical_memory() noexcept nogil
    ctypedef struct rf_vi:
        double v
        int64_t i
    int rf_cmp_vi(const void* a, const void* b) noexcept nogil
    int rf_popcount32(uint32_t x) noexcept nogil
    int rf_ctz32(uint32_t x) noexcept nogil
    int rf_ctz64(uint64_t x) noexcept nogil
    int rf_popcount64(uint64_t x) noexcept nogil
    bint rf_values_ok(double vl, double vr, int cst, double lower,
                      double upper) noexcept nogil


ctypedef uint64_t key_t

ctypedef fused rank_t:     # dense ranks, in the narrowest type that holds them
    uint8_t
    uint16_t
    uint32_t

cdef enum:
    CRIT_GINI = 0
    CRIT_ENTROPY = 1
    CRIT_ERROR = 2
    CRIT_SQUARED = 3       # regression criteria
    CRIT_FRIEDMAN = 4
    CRIT_POISSON = 5
    CRIT_ABSOLUTE = 6

cdef enum:
    METHOD_AUTO = 0        # each node's method from the cost model (_lists_pay)
    METHOD_PRESORT = 1     # partition the presorted lists at every node
    METHOD_SORT = 2        # sort the scanned features in every node, from the root
    RADIX_BITS = 11        # digits of the node sort: 2048 counts stay in the L1 cache

METHODS = {"auto": METHOD_AUTO, "presort": METHOD_PRESORT, "sort": METHOD_SORT}

CRITERIA = {"gini": CRIT_GINI, "entropy": CRIT_ENTROPY, "log_loss": CRIT_ENTROPY,
            "error": CRIT_ERROR}
REGRESSION_CRITERIA = {"squared_error": CRIT_SQUARED, "friedman_mse": CRIT_FRIEDMAN,
                       "poisson": CRIT_POISSON, "absolute_error": CRIT_ABSOLUTE}

cdef double EPSILON = 2.220446049250313e-16
cdef double LN2 = 0.6931471805599453
# Integer weights up to this total use a table of x*log(x) instead of calls to log().
cdef int64_t XLOGX_TABLE_MAX = 1 << 23
cdef uint64_t INACTIVE = 0xFFFFFFFFFFFFFFFF
cdef uint64_t NO_NAN = 0xFFFFFFFFFFFFFFFF     # nan_rank of a feature without missing values

MAX_SAMPLES = (1 << 31) - 1
cdef int64_t MAX_NODES = (1 << 31) - 1      # node ids are stored in 32 bits

# Set ROTFOREST_NO_AVX512=1 to use the portable kernels only (the results are identical).
cdef bint _USE_AVX512 = rf_cpu_has_avx512() != 0 and not _os.environ.get("ROTFOREST_NO_AVX512")


# How nodes find their splits; "presort" and "sort" force one method (for tests and
# benchmarks: every method grows the same trees).
cdef int _METHOD = METHODS.get(_os.environ.get("ROTFOREST_NODE_METHOD", "auto"), METHOD_AUTO)


# Histogram nodes (see _hist_nodes.pxi) where they apply; off: those trees partition
# the presorted lists as others do (the same trees; for tests and benchmarks).
cdef bint _HIST_NODES = not _os.environ.get("ROTFOREST_NO_HIST_NODES")


cdef int64_t _HIST_TREES = 0       # trees grown with histogram nodes (for tests)


def _hist_trees():
    """How many trees this process grew with histogram nodes (for tests: the path ran)."""
    return _HIST_TREES


def _set_hist_nodes(bint on):
    """Turn histogram nodes on or off (for tests and benchmarks: the same trees either
    way); returns the previous setting."""
    global _HIST_NODES
    previous = bool(_HIST_NODES)
    _HIST_NODES = on
    return previous


def _set_node_method(method):
    """Set how nodes find their splits ("auto", "presort" or "sort"; for tests and
    benchmarks); returns the previous setting."""
    global _METHOD
    previous = {v: k for k, v in METHODS.items()}[_METHOD]
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    _METHOD = METHODS[method]
    return previous


# Every numeric feature scanned by _scan_reference instead of its fast scan (tests: each
# fast scan is held to it; see _set_reference_scan).
cdef bint _REFERENCE = False


def _set_reference_scan(bint enabled):
    """Scan every numeric feature with the reference scan, ``_scan_reference``, instead
    of the fast scan of its criterion and case (for tests); returns the previous
    setting."""
    global _REFERENCE
    previous = _REFERENCE
    _REFERENCE = enabled
    return previous


# How a node with more than two classes and more than CAT_EXACT_MAX levels orders them
# (see _categorical.pxi): 0 by each class's share in turn, 1 along the first principal
# axis of the levels' class shares (the default: benchmarks/bench_category_orders.py),
# 2 both (for measurement; see _set_category_orders).
cdef int _CAT_ORDERS = 1


def _set_category_orders(int orders):
    """How more classes order many levels: 0 each class's share, 1 the principal
    axis of the class shares, 2 both (for measurement); returns the previous setting."""
    global _CAT_ORDERS
    if orders not in (0, 1, 2):
        raise ValueError("orders must be 0, 1 or 2")
    previous = _CAT_ORDERS
    _CAT_ORDERS = orders
    return previous


# How the searches of an order treat levels rarer than min_category_samples in a node:
# 0 pooled into one level, 1 each alone, its statistic shrunk towards the node's (for
# measurement; see _set_category_rare).
cdef int _CAT_RARE = 0


def category_settings():
    """``(orders, rare)``: the settings of _set_category_orders and _set_category_rare
    (the binned builder follows them too)."""
    return _CAT_ORDERS, _CAT_RARE


def _set_category_rare(int rare):
    """How rare levels enter the searches of an order: 0 pooled, 1 shrunk; returns the
    previous setting."""
    global _CAT_RARE
    if rare not in (0, 1):
        raise ValueError("rare must be 0 or 1")
    previous = _CAT_RARE
    _CAT_RARE = rare
    return previous


def _set_simd(bint enabled):
    """Switch the AVX-512 kernels on or off (for tests); returns the previous state."""
    global _USE_AVX512
    previous = _USE_AVX512
    _USE_AVX512 = enabled and rf_cpu_has_avx512() != 0
    return previous


include "_presort.pxi"
include "_state.pxi"
include "_sparse.pxi"
include "_scan_common.pxi"
include "_scan_gini.pxi"
include "_scan_entropy.pxi"
include "_scan_reference.pxi"
include "_scan_random.pxi"
include "_scan_regression.pxi"
include "_absolute.pxi"
include "_node_sort.pxi"
include "_method.pxi"
include "_hist_nodes.pxi"
include "_categorical.pxi"
include "_split.pxi"
include "_grow.pxi"
include "_rotations.pxi"

MAX_CATEGORY_CODE = CAT_MAX_CODE    # categorical features: codes 0 .. this



def build_tree(const double[:, :] X, const uint32_t[:, ::1] keys, const int32_t[::1] y,
               const double[::1] sample_weight, int64_t n_classes, int criterion,
               bint random_split, int64_t max_depth, int64_t min_samples_split,
               int64_t min_samples_leaf, double min_weight_leaf, int64_t max_features,
               int64_t max_leaf_nodes, double min_impurity_decrease, uint64_t seed,
               const int8_t[::1] monotonic=None, ranks=None,
               const double[::1] target=None, bint shuffle_features=False,
               categories=None, int64_t min_category_samples=0,
               output_classes=None, codes=None, sparse=None, floats=None,
               bits=None, col_top=None):
    """Grow one tree on presorted lists.

    Parameters are already validated and resolved to plain numbers by the caller.
    ``keys`` is what :func:`presort` returns for ``X`` (it may be shared by many trees: it
    is only read), or None for random splits without categorical features or the
    absolute error (see ``needs_presort``), which are grown on the values alone; those
    read the features that ``codes`` (what :func:`integer_codes` returns for ``X``, or
    None) codes from the codes, a few bytes a value, and the others from ``floats``
    (what :func:`float_copy` returns for ``X``) or, when None, from X, and where
    ``bits`` (what :func:`code_bits` returns for ``codes``) marks a feature's rows whose
    code is not its commonest, only those rows' codes: the same tree.  Samples whose weight is zero take no part in this tree.
    ``max_leaf_nodes <= 0`` grows depth-first, otherwise best-first.
    ``monotonic`` (two classes only; None for none) holds per feature 1, -1 or 0: a split
    on a feature marked 1 (-1) must not lower (raise) the class-0 fraction from the left
    child to the right one, and every node's fraction stays within the bounds its
    ancestors' constrained splits set (scikit-learn's rule; the caller flips the signs
    of constraints stated on the positive class).
    ``target`` (float64, finite; non-negative for Poisson) makes it a regression tree
    with a criterion of ``REGRESSION_CRITERIA``: ``y`` is then ignored (None will do),
    ``n_classes`` must be 1, ``monotonic`` binds the children's means (a split on a
    feature marked 1 must not lower the mean from the left child to the right one) and
    the nodes' values are their weighted means.
    ``shuffle_features``: with every feature drawn (max_features >= n_features), visit
    them in a random order all the same, as scikit-learn does, so that exact ties
    between features go to a random one instead of the first (forests: more diverse
    trees); otherwise a lone tree takes the lowest-indexed of tied features.
    ``ranks`` is what :func:`dense_ranks` returns for ``keys`` (computed here when None
    and some node sorts: a forest computes it once for all its trees).
    ``col_top`` is what :func:`column_tops` returns for ``keys`` (computed here when
    None; a forest computes it once).
    ``categories`` is what :func:`category_codes` returns for the categorical features
    (None: none): their nodes split on sets of levels (see _categorical.pxi); not with
    monotonic constraints on them, nor the absolute error.  A level with fewer than
    ``min_category_samples`` samples in a node is not separated alone there: such
    levels are pooled and go to one side together.

    Each node either partitions the presorted lists for its children or, once that costs
    more than sorting the few features its children scan (max_features well below
    n_features; see ``_lists_pay``), leaves the lists and lets its subtree sort in the
    nodes; a tree whose root already prefers sorting never copies the lists.  Both
    methods grow the same tree.  ``_set_node_method`` forces one for tests.

    Several outputs (a target of shape (n, m), m >= 2): ``y`` (classification) or
    ``target`` (regression) holds them row by row, ``y[i * m + o]``, and
    ``output_classes`` the number of classes of each output (classification; its
    length is m) or m itself (regression; ``n_classes`` is then 1).  Every criterion
    takes them, not monotonic constraints.  The impurity is the mean of the outputs'
    (scikit-learn's), and the nodes' values per output (the absolute error: medians).

    ``sparse`` is what :func:`rotforest._sparse.sparse_columns` returns for a sparse X
    (then ``X`` only gives the shape: any array of it, such as a broadcast zero; ``keys``,
    ``ranks``, ``codes`` and ``categories`` None): every node sorts, reading the stored
    entries of the columns (see _sparse.pxi); the tree is the one the dense form of X
    grows.

    Returns ``(nodes, value, max_depth, left_codes)``: the node array (``NODE_DTYPE``),
    the class fractions (or the mean) of every node, shape ``(node_count, n_outputs,
    n_classes)`` (several outputs: the most classes of one, zeros after an output's
    own), the depth reached, and the sets of codes of the categorical splits (their
    threshold is NaN) as ``Tree.code_sets`` holds them (a 1-D uint64 array, one set per
    such node in increasing node id, each a bitset or a list of codes: see
    ``_tree.pxd``), or None when no node splits on a set.
    """
    cdef int64_t n = X.shape[0], F = X.shape[1]
    cdef bint regression = target is not None
    cdef Builder B
    offs, n_out, K, n_values = _output_shape(y, target, n, output_classes, n_classes,
                                             criterion, monotonic)
    n_act, tw, max_w, integral = _checked_arguments(X, keys, y, sample_weight,
                                                    n_classes if n_out == 1 else 1,
                                                    criterion, monotonic, target, n_out)
    values, col_top_arr, max_rank, categorical = _checked_sources(
        keys, ranks, codes, floats, bits, sparse, categories, monotonic, random_split,
        criterion, regression, n, F, col_top)
    memset(&B, 0, sizeof(Builder))
    _set_key_layout(&B, n, max_rank, K, regression or n_out > 1, integral, tw, max_w)
    _set_parameters(&B, X, sample_weight, target, monotonic, n_act, K, n_values, criterion,
                    random_split, shuffle_features, max_depth, min_samples_split,
                    min_samples_leaf, min_weight_leaf, max_features,
                    min_impurity_decrease, tw, seed)
    _set_outputs(&B, offs, y, n_out, n_values, regression)
    try:        # every part is freed here, whichever step fails
        if (keys is not None and sparse is None
                and _hist_wanted(&B, X, keys, col_top_arr, max_leaf_nodes,
                                 categorical is not None)):
            _hist_setup(&B, col_top_arr)
            global _HIST_TREES
            _HIST_TREES += 1
        # the objects whose memory B points into stay referenced until the tree is out
        ranks = _allocate_source(&B, keys, ranks, codes, floats, bits, sparse, col_top_arr,
                                 max_rank, values, n_act)
        if categorical is not None:
            _allocate_categorical(&B, categorical, categories, col_top_arr,
                                  min_category_samples)
        _allocate_growth(&B, n, n_act)
        y_order, y_columns = (_allocate_absolute(&B, target, monotonic is not None, n,
                                                 n_act)
                              if regression and criterion == CRIT_ABSOLUTE else (None, None))
        ylogy = _poisson_terms(&B, target) if regression and criterion == CRIT_POISSON \
            else None
        _allocate_tables(&B, integral, col_top_arr, categorical)
        payload = _fill_lists(&B, X, keys, y, col_top_arr, y_order,
                              None if sparse is None else sparse[7])
        _grow_from_root(&B, payload, col_top_arr, max_leaf_nodes)
        return _export(&B, categorical is not None)
    finally:
        _free_builder(&B)


cdef object _output_shape(y, target, int64_t n, output_classes, int64_t n_classes,
                          int criterion, monotonic):
    """build_tree's outputs: ``(offs, n_out, K, n_values)``, the offsets of the outputs'
    statistics (None for one output), the number of outputs, the statistics a node keeps
    and the values a node stores."""
    cdef bint regression = target is not None
    cdef int64_t K = 3 if regression else n_classes      # the statistics a node keeps
    cdef int64_t n_values = 1 if regression else n_classes
    cdef int64_t n_out = 1
    offs = None
    if output_classes is not None:
        offs, n_out = _checked_outputs(y, target, n, output_classes, n_classes, criterion,
                                       monotonic)
        K = int(offs[len(offs) - 1])     # (no negative index: wraparound is off)
        n_values = n_out * (1 if regression else int(np.max(np.diff(offs))))
    return offs, n_out, K, n_values


cdef object _checked_sources(keys, ranks, codes, floats, bits, sparse, categories,
                             monotonic, bint random_split, int criterion, bint regression,
                             int64_t n, int64_t F, col_top=None):
    """build_tree's checks of where the features are read from (the presorted keys and
    their ranks, sparse columns, or the values: X, its float copy, its integer codes and
    their bits) and of the categories; returns ``(values, col_top, max_rank,
    categorical)``: whether the tree grows on the values, every column's highest rank
    and the largest, and the mask of the categorical features (or None)."""
    values = keys is None and sparse is None
    if sparse is not None:
        if (keys is not None or ranks is not None or codes is not None
                or categories is not None):
            raise ValueError("sparse columns take no keys, ranks, codes or categories")
        col_top_arr, max_rank = _checked_sparse(sparse, n, F)
    elif values:
        # random cuts on the values: no presort (see _scan_random.pxi)
        if not needs_presort(random_split, categories is not None, criterion, regression):
            col_top_arr, max_rank = np.ones(F, dtype=np.uint64), 1
        else:
            raise ValueError("keys=None (no presort) takes random splits only, without "
                             "categorical features or the absolute error")
        if ranks is not None:
            raise ValueError("ranks without keys")
    elif col_top is not None:
        if (not isinstance(col_top, np.ndarray) or col_top.dtype != np.uint64
                or col_top.shape != (F,)):
            raise ValueError("col_top must be column_tops(keys, n)")
        col_top_arr = col_top
        max_rank = int(col_top.max()) if F > 0 else 0
    else:
        col_top_arr, max_rank = _checked_column_tops(keys, n)
    if col_top is not None and keys is None:
        raise ValueError("col_top without keys")
    if codes is not None:
        code_arr, coded_arr, code_missing = codes
        if (not values or code_arr.shape != (F, n) or not code_arr.flags.c_contiguous
                or code_arr.dtype not in (np.uint8, np.uint16)
                or coded_arr.shape != (F,) or coded_arr.dtype != np.uint8
                or code_missing not in (255, 256, 65535)):
            raise ValueError("codes must be integer_codes(X), and keys None")
    if floats is not None and not values:
        raise ValueError("floats (float_copy(X)) serve random cuts on the values only")
    if bits is not None and codes is None:
        raise ValueError("bits (code_bits(codes)) need the codes")
    categorical = _checked_categories(categories, col_top_arr, monotonic, regression,
                                      criterion)
    if ranks is not None and (ranks.shape != (F, n) or not ranks.flags.c_contiguous
                              or ranks.dtype not in (np.uint8, np.uint16, np.uint32)):
        raise ValueError("ranks must be dense_ranks(keys)")
    return values, col_top_arr, max_rank, categorical


cdef int _set_outputs(Builder* B, offs, const int32_t[::1] y, int64_t n_out,
                      int64_t n_values, bint regression) except -1:
    """Several outputs: the offsets of their statistics (``offs``, which the caller keeps
    alive) and, for classification, the class codes and the most classes of one."""
    cdef const int64_t[::1] offs_view
    B.data.n_outputs = n_out
    if n_out > 1:
        offs_view = offs
        B.data.offs = &offs_view[0]
        if not regression:
            B.data.ycodes = &y[0]
            B.data.max_classes = n_values // n_out
    return 0


cdef object _allocate_source(Builder* B, keys, ranks, codes, floats, bits, sparse,
                             col_top_arr, uint64_t max_rank, bint values, int64_t n_act):
    """What the nodes read the features from: the values (X, its float copy, its codes
    and their bits), sparse columns, or the presorted lists and the dense ranks (see
    _allocate_columns).  Returns the dense ranks that sorting nodes read, or None; the
    caller keeps them alive."""
    cdef int64_t n = B.data.n_total, F = B.data.n_features
    cdef bint regression = B.data.regression
    if values:
        B.par.method = METHOD_SORT
        B.par.values = True
        if _values_alloc(&B.col, n_act, regression and B.data.n_outputs == 1
                         and B.par.criterion in (CRIT_SQUARED, CRIT_FRIEDMAN)) < 0:
            _nomem()
        if codes is not None:
            code_arr, coded_arr, code_missing = codes
            _set_codes(B, code_arr, coded_arr, code_missing)
            if bits is not None:
                _set_bits(B, bits, coded_arr, n, F)
        if floats is not None:
            _set_floats(B, floats, codes, n, F)
    elif sparse is not None:
        _allocate_sparse(B, sparse, n_act)
    else:
        ranks = _allocate_columns(B, keys, ranks, col_top_arr, max_rank, n_act)
    return ranks


cdef const void* _buffer_of(arr) except NULL:
    """The data of a C-contiguous array of 1, 2 or 4 byte unsigned integers (checked by
    the caller to be one), which the caller keeps alive while the builder reads it."""
    cdef const uint8_t[::1] flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    if not arr.flags.c_contiguous or flat.shape[0] == 0:
        raise ValueError("an empty or non-contiguous array")
    return &flat[0]


cdef int _set_codes(Builder* B, code_arr, const uint8_t[::1] coded,
                    int64_t missing) except -1:
    """Point the builder at integer_codes' codes (kept alive by build_tree's caller)."""
    B.col.code_bytes = code_arr.dtype.itemsize
    B.col.codes = _buffer_of(code_arr)
    B.col.coded = &coded[0]
    B.col.code_missing = missing
    return 0


cdef int _set_bits(Builder* B, bits, coded, int64_t n, int64_t F) except -1:
    """Point the builder at code_bits' rows (kept alive by build_tree's caller)."""
    bit_arr, row_arr, mode_arr, other_arr = bits
    cdef const int64_t[::1] row = row_arr, mode = mode_arr, other = other_arr
    cdef int64_t W = (n + 63) >> 6
    cdef int64_t R = bit_arr.shape[0] if bit_arr.ndim == 2 else -1
    if (bit_arr.dtype != np.uint64 or not bit_arr.flags.c_contiguous
            or bit_arr.shape != (R, W) or row.shape[0] != F or mode.shape[0] != F
            or other.shape[0] != F or np.any(row_arr >= R)
            or np.any((row_arr >= 0) & (coded == 0))
            or np.any(np.bincount(row_arr[row_arr >= 0], minlength=R) != 1)):
        raise ValueError("bits must be code_bits(codes) with X's codes")
    B.col.bits = <const uint64_t*> _buffer_of(bit_arr)
    B.col.bit_words = W
    B.col.bit_row = &row[0]
    B.col.bit_mode = &mode[0]
    B.col.bit_other = &other[0]
    return 0


cdef int _set_floats(Builder* B, floats, codes, int64_t n, int64_t F) except -1:
    """Point the builder at float_copy's copy (kept alive by build_tree's caller); every
    feature it leaves out must be read from ``codes``."""
    x32, column, exact, missing = floats
    cdef const uint8_t[::1] ex = exact, miss = missing
    cdef const int64_t[::1] col = column
    cdef int64_t G = x32.shape[1] if x32.ndim == 2 else -1
    coded = np.zeros(F, dtype=bool) if codes is None else codes[1] != 0
    if (x32.dtype != np.float32 or not x32.flags.c_contiguous or x32.shape != (n, G)
            or ex.shape[0] != F or miss.shape[0] != F or col.shape[0] != F or n == 0
            or np.any((column < 0) & ~coded) or np.any(column >= G)
            or np.any(np.bincount(column[column >= 0], minlength=G) > 1)):
        raise ValueError("floats must be float_copy(X, coded) with X's codes")
    B.col.x32 = <const float*> _buffer_of(x32) if G > 0 else NULL
    B.col.x32_cols = G
    B.col.x32_col = &col[0]
    B.col.exact32 = &ex[0]
    B.col.nan32 = &miss[0]
    return 0


def float_copy(const double[:, :] X, const uint8_t[::1] coded=None):
    """The features of X not marked in ``coded`` (integer_codes' flags; None: every
    feature) rounded to float32 (round to nearest), which random cuts on the values read
    in place of X: half its bytes, and only the features read from it, so that more of a
    node's rows stay in the caches (see _scan_random.pxi).  Returns ``(x32, column,
    exact, missing)``: x32 of shape (n_samples, those features), C order; column (int64,
    one per feature) the feature's column in x32, or -1; exact (uint8) 1 where every value
    of the feature is its float32 (NaN included), so that its copy is read without
    checks; missing (uint8) 1 where a copied feature has a NaN (the others' gathers count
    none).  One pass over X."""
    cdef int64_t n = X.shape[0], F = X.shape[1], G = 0, i, f, c
    column_arr = np.full(F, -1, dtype=np.int64)
    cdef int64_t[::1] column = column_arr
    for f in range(F):
        if coded is None or not coded[f]:
            column[f] = G
            G += 1
    x32_arr = np.empty((n, G), dtype=np.float32)
    exact_arr = np.ones(F, dtype=np.uint8)
    missing_arr = np.zeros(F, dtype=np.uint8)
    cdef float[:, ::1] x32 = x32_arr
    cdef uint8_t[::1] exact = exact_arr, missing = missing_arr
    cdef double v
    cdef float r
    with nogil:
        for i in range(n):
            for f in range(F):
                c = column[f]
                if c < 0:
                    continue
                v = X[i, f]
                r = <float> v
                x32[i, c] = r
                exact[f] &= (<double> r == v) | (v != v)
                missing[f] |= v != v
    return x32_arr, column_arr, exact_arr, missing_arr


cdef inline bint _small_integer(double v) noexcept nogil:
    """Whether v is an integer from 0 to 65534 (the bound checked before the cast)."""
    return v >= 0.0 and v <= 65534.0 and v == <double> (<int64_t> v)


def integer_codes(const double[:, :] X):
    """The features of X whose values are all small non-negative integers (counts,
    pixels, 0/1 columns; NaN allowed), as codes that random cuts on the values read in
    place of X (see _scan_random.pxi): ``(codes, coded, missing)``, codes of shape
    (n_features,
    n_samples), uint8 when every such feature's values are at most 254, else uint16 (at
    most 65534), each value's code the value itself and NaN the dtype's largest value
    (where no such feature has a missing value, uint8 takes values up to 255);
    ``coded[f]`` 1 for those features (their rows of codes; the others' rows are
    zeros); ``missing`` the code of NaN (256, beyond uint8, when no value needs it).  None when no feature is such.  A feature's codes take 1 or 2 bytes a value
    against X's 8, in one row: a node reads them from cache where it would read X from
    memory."""
    cdef int64_t n = X.shape[0], F = X.shape[1], i, f
    cdef double v, top = 0.0
    cdef bint any_nan = False
    coded_arr = np.ones(F, dtype=np.uint8)
    cdef uint8_t[::1] coded = coded_arr
    cdef bint by_rows = X.strides[0] >= X.strides[1]
    if n == 0:
        return None
    with nogil:
        if by_rows:
            for i in range(n):
                for f in range(F):
                    v = X[i, f]
                    if coded[f] and isnan(v):
                        any_nan = True
                    elif coded[f]:
                        if _small_integer(v):
                            top = v if v > top else top
                        else:
                            coded[f] = 0
        else:
            for f in range(F):
                for i in range(n):
                    v = X[i, f]
                    if isnan(v):
                        any_nan = True
                    elif _small_integer(v):
                        top = v if v > top else top
                    else:
                        coded[f] = 0
                        break
    if not coded_arr.any():
        return None
    # (top and any_nan may come from a feature that failed later: at worst uint16 where
    # uint8 would do)
    one = top <= (254.0 if any_nan else 255.0)
    return (_fill_codes(X, coded_arr, np.uint8 if one else np.uint16), coded_arr,
            (255 if any_nan else 256) if one else 65535)


def _fill_codes(const double[:, :] X, const uint8_t[::1] coded, dtype):
    cdef int64_t n = X.shape[0], F = X.shape[1], i, f
    cdef double v
    codes = np.zeros((F, n), dtype=dtype)
    cdef uint8_t[:, ::1] c1
    cdef uint16_t[:, ::1] c2
    cdef bint one = dtype == np.uint8
    # (NaN as the dtype's largest value, which no value takes when any is missing)
    if one:
        c1 = codes
    else:
        c2 = codes
    cdef int64_t i0, f0, i1, f1
    # (in tiles of 64 rows and 64 features: X read by rows, when it is kept so, and
    # the codes written by features, each from cache)
    with nogil:
        for i0 in range(0, n, 64):
            i1 = min(i0 + 64, n)
            for f0 in range(0, F, 64):
                f1 = min(f0 + 64, F)
                for f in range(f0, f1):
                    if not coded[f]:
                        continue
                    for i in range(i0, i1):
                        v = X[i, f]
                        if one:
                            c1[f, i] = 255 if isnan(v) else <uint8_t> v
                        else:
                            c2[f, i] = 65535 if isnan(v) else <uint16_t> v
    return codes


def code_bits(codes, double share=0.8):
    """Where a coded feature's codes are mostly one code, or take two values only, which
    of its rows hold another: a random cut then reads the codes of those rows alone, and
    of a feature of two values none (see rf_gather_moded in _values.h; blank pixels,
    one-hot columns).  ``codes`` is what integer_codes returns.  Returns ``(bits, row,
    mode, other)``: per feature (int64 each) ``row[f]`` its row of ``bits`` (uint64, a
    bit per sample, set where the code is not the mode; -1 for a feature without),
    ``mode[f]`` its commonest code (the least of tied ones) and ``other[f]`` its other
    code when it takes two, else -1.  A feature gets a row when it takes at most two
    codes or its mode is at least ``share`` of its codes; None when none does.  Two
    passes over the codes."""
    code_arr, coded_arr, missing = codes
    cdef const uint8_t[::1] coded = coded_arr
    cdef int64_t F = code_arr.shape[0], n = code_arr.shape[1], W = (n + 63) >> 6
    cdef int64_t f, top, R = 0
    cdef bint one = code_arr.dtype == np.uint8
    cdef const uint8_t[:, ::1] c1
    cdef const uint16_t[:, ::1] c2
    if one:
        c1 = code_arr
    else:
        c2 = code_arr
    counts_arr = np.zeros(4 * 256 if one else 65536, dtype=np.int64)
    seen_arr = np.empty(min(n, 65536), dtype=np.int64)
    cdef int64_t[::1] counts = counts_arr, seen = seen_arr
    row_arr = np.full(F, -1, dtype=np.int64)
    mode_arr = np.zeros(F, dtype=np.int64)
    other_arr = np.full(F, -1, dtype=np.int64)
    cdef int64_t[::1] row = row_arr, mode = mode_arr, other = other_arr
    with nogil:
        for f in range(F):
            if coded[f] and n > 0:
                if one:
                    top = _mode8(&c1[f, 0], n, &counts[0], &mode[f], &other[f])
                else:
                    top = _mode16(&c2[f, 0], n, &counts[0], &mode[f], &other[f], &seen[0])
                if other[f] >= -1 or top >= share * n:
                    row[f] = R
                    R += 1
                other[f] = max(other[f], -1)
    if R == 0:
        return None
    bits_arr = np.zeros((R, W), dtype=np.uint64)
    cdef uint64_t[:, ::1] bits = bits_arr
    with nogil:
        for f in range(F):
            if row[f] >= 0:
                if one:
                    rf_mark_other8(&c1[f, 0], n, <uint8_t> mode[f], &bits[row[f], 0])
                else:
                    rf_mark_other16(&c2[f, 0], n, <uint16_t> mode[f], &bits[row[f], 0])
    return bits_arr, row_arr, mode_arr, other_arr


cdef int64_t _commonest(const int64_t* counts, const int64_t* codes, int64_t k,
                        int64_t* mode, int64_t* other) noexcept nogil:
    """Of the codes codes[0..k) (NULL: 0..k-1) with a positive count: the commonest (the
    least of tied ones) in mode and, in other, the other code where there are two (-1
    for one code, -2 for more).  Returns the mode's count."""
    cdef int64_t i, c, best = -1, top = 0, distinct = 0, first = -1, second = -1
    for i in range(k):
        c = codes[i] if codes != NULL else i
        if counts[c] == 0:
            continue
        distinct += 1
        if first < 0:
            first = c
        elif second < 0:
            second = c
        if counts[c] > top or (counts[c] == top and c < best):
            top = counts[c]
            best = c
    mode[0] = best
    other[0] = -1 if distinct == 1 else (-2 if distinct > 2 else
                                         (second if best == first else first))
    return top


cdef int64_t _mode8(const uint8_t* c, int64_t n, int64_t* counts, int64_t* mode,
                    int64_t* other) noexcept nogil:
    """_commonest of one-byte codes c[0..n), counted in four tables (against chains of
    stores to one count) then merged."""
    cdef int64_t i, v
    memset(counts, 0, 4 * 256 * sizeof(int64_t))
    i = 0
    while i + 4 <= n:
        counts[c[i]] += 1
        counts[256 + c[i + 1]] += 1
        counts[512 + c[i + 2]] += 1
        counts[768 + c[i + 3]] += 1
        i += 4
    while i < n:
        counts[c[i]] += 1
        i += 1
    for v in range(256):
        counts[v] += counts[256 + v] + counts[512 + v] + counts[768 + v]
    return _commonest(counts, NULL, 256, mode, other)


cdef int64_t _mode16(const uint16_t* c, int64_t n, int64_t* counts, int64_t* mode,
                     int64_t* other, int64_t* seen) noexcept nogil:
    """_commonest of two-byte codes c[0..n): one table (zero on entry and on return),
    the codes seen listed in seen."""
    cdef int64_t i, v, k = 0, top
    for i in range(n):
        v = c[i]
        if counts[v] == 0:
            seen[k] = v
            k += 1
        counts[v] += 1
    top = _commonest(counts, seen, k, mode, other)
    for i in range(k):
        counts[seen[i]] = 0
    return top


def needs_presort(bint random_split, bint categorical, int criterion, bint regression):
    """Whether build_tree needs the presorted keys: only random cuts without categorical
    features or the absolute error grow on the values alone (keys=None)."""
    return not random_split or categorical or (regression and criterion == CRIT_ABSOLUTE)


def _checked_outputs(y, target, int64_t n, output_classes, int64_t n_classes,
                     int criterion, monotonic):
    """build_tree's checks of several outputs; returns the offsets of the outputs'
    statistics (int64, m + 1) and m."""
    regression = target is not None
    if regression:
        m = int(output_classes)
        if m < 1 or n_classes != 1 or np.asarray(target).shape[0] != n * m:
            raise ValueError("several numeric outputs: output_classes=m, n_classes=1 and "
                             "a target of n * m values")
        offs = np.arange(0, 3 * m + 1, 3, dtype=np.int64)
    else:
        counts = np.asarray(output_classes, dtype=np.int64).reshape(-1)
        m = counts.shape[0]
        if (m < 1 or np.any(counts < 1) or y is None or np.asarray(y).shape[0] != n * m
                or criterion not in CRITERIA.values()):
            raise ValueError("several class outputs: output_classes per output and class "
                             "codes y of n * m values")
        codes = np.asarray(y).reshape(n, m)
        if n and (np.any(codes < 0) or np.any(codes >= counts)):
            raise ValueError("class codes must lie in [0, output_classes[o])")
        offs = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    if m > 1 and monotonic is not None:
        raise ValueError("monotonic constraints take one output")
    return offs, m


cdef object _checked_arguments(const double[:, :] X, const uint32_t[:, ::1] keys,
                               const int32_t[::1] y, const double[::1] sample_weight,
                               int64_t K, int criterion, const int8_t[::1] monotonic,
                               const double[::1] target, int64_t n_out):
    """build_tree's checks of the data and weights; returns ``(n_act, tw, max_w,
    integral)``: the samples of positive weight, their total and largest weight, and
    whether every weight is an integer."""
    cdef int64_t n = X.shape[0], F = X.shape[1], i, f, n_act = 0
    cdef bint regression = target is not None, integral = True
    cdef double yi, wi, tw = 0.0, max_w = 0.0
    if regression:
        if K != 1 or criterion not in REGRESSION_CRITERIA.values():
            raise ValueError("a regression tree takes n_classes=1 and a regression criterion")
        if target.shape[0] != n * n_out:
            raise ValueError("X and target do not agree in shape")
        for i in range(n * n_out):
            yi = target[i]
            if not isfinite(yi) or (criterion == CRIT_POISSON and yi < 0.0):
                raise ValueError("targets must be finite (and non-negative for Poisson)")
        K = 3                  # the statistics a node keeps (see _accumulate)
    elif (y is None or y.shape[0] != n * n_out or criterion not in CRITERIA.values()):
        raise ValueError("a classification tree takes class codes y and a classification "
                         "criterion")
    if ((keys is not None and (keys.shape[0] != F or keys.shape[1] != keys_width(n)))
            or sample_weight.shape[0] != n):
        raise ValueError("X, keys, y and sample_weight do not agree in shape")
    if K < 1 or F < 1 or n < 1 or n > MAX_SAMPLES:
        raise ValueError("empty or oversized problem")
    if monotonic is not None:
        if monotonic.shape[0] != F or (K > 2 and not regression):
            raise ValueError("monotonic needs one entry per feature and two classes")
        for f in range(F):
            if monotonic[f] < -1 or monotonic[f] > 1:
                raise ValueError("monotonic entries must be -1, 0 or 1")
    for i in range(n):
        wi = sample_weight[i]
        if wi < 0.0 or not isfinite(wi):
            raise ValueError("sample weights must be finite and non-negative")
        if wi > 0.0:
            n_act += 1
            tw += wi
            if wi > max_w:
                max_w = wi
            if wi != <double> (<int64_t> wi):
                integral = False
        if not regression and n_out == 1 and (y[i] < 0 or y[i] >= K):
            raise ValueError("class codes must lie in [0, n_classes)")
    if n_act == 0:
        raise ValueError("the sample weights sum to zero")
    return n_act, tw, max_w, integral


cdef object _checked_column_tops(const uint32_t[:, ::1] keys, int64_t n):
    """The highest dense rank of every column (its count of values, minus one) and the
    largest of them; checks that the keys are a presort of n samples."""
    cdef int64_t F = keys.shape[0], f
    cdef uint64_t max_rank, bad = 0
    col_top_arr = np.empty(F, dtype=np.uint64)
    cdef uint64_t[::1] col_top = col_top_arr
    with nogil:
        max_rank = _column_tops(keys, n, &col_top[0])
        for f in range(F):
            if keys[f, n - 1] >= <uint64_t> n or (keys[f, n] & 1) == 0:
                bad = 1
    if bad:
        raise ValueError("keys do not belong to X")
    return col_top_arr, max_rank


cdef object _checked_categories(categories, const uint64_t[::1] col_top,
                                const int8_t[::1] monotonic, bint regression,
                                int criterion):
    """The mask (uint8) of the categorical features, or None; checks ``categories``
    (category_codes' ``(mask, offsets, codes)``)."""
    cdef int64_t F = col_top.shape[0], f
    if categories is None:
        return None
    bad = ValueError("categories must be category_codes(X, keys, categorical)")
    try:
        mask, offsets, codes = categories
    except (TypeError, ValueError):
        raise bad from None
    if (not isinstance(mask, np.ndarray) or mask.dtype != np.uint8 or mask.shape != (F,)
            or not isinstance(offsets, np.ndarray) or offsets.dtype != np.int64
            or offsets.shape != (F + 1,) or not isinstance(codes, np.ndarray)
            or codes.dtype != np.int32 or codes.ndim != 1 or offsets[0] != 0
            or codes.shape[0] < offsets[F] or np.any(np.diff(offsets) < 0)):
        raise bad
    categorical = np.ascontiguousarray(mask != 0, dtype=np.uint8)
    for f in range(F):
        if not categorical[f]:
            continue
        if <uint64_t> (offsets[f + 1] - offsets[f]) != col_top[f] + 1:
            raise bad
        if np.any(codes[offsets[f]:offsets[f + 1]] > CAT_MAX_CODE):
            raise bad
        if monotonic is not None and monotonic[f] != 0:
            raise ValueError(f"categorical feature {f} cannot take a monotonic "
                             "constraint")
    if not categorical.any():
        return None
    if regression and criterion == CRIT_ABSOLUTE:
        raise ValueError("the absolute error does not split categorical features")
    return categorical


cdef int _set_key_layout(Builder* B, int64_t n, uint64_t max_rank, int64_t K,
                         bint regression, bint integral, double tw,
                         double max_w) except -1:
    """The layout of the working keys: from the low bits, the sample index, its weight
    (integer weights that fit), its class, its rank in the feature (no class field with
    ``regression``: a numeric target, or several outputs)."""
    cdef int ibits, rbits, cbits, wbits, spare
    ibits = max(1, _bit_length(<uint64_t> (n - 1)))
    rbits = max(1, _bit_length(max_rank))
    cbits = 0 if regression else _bit_length(<uint64_t> (K - 1))
    spare = 64 - ibits - rbits - cbits
    if spare < 0:
        raise ValueError(f"too many classes ({K}) for {n} samples")
    B.key.packed = integral and tw < 2.0 ** 31 and _bit_length(<uint64_t> max_w) <= spare
    wbits = _bit_length(<uint64_t> max_w) if B.key.packed else 0
    B.key.imask = ((<uint64_t> 1) << ibits) - 1
    B.key.wshift = ibits
    B.key.wmask = ((<uint64_t> 1) << wbits) - 1
    B.key.cshift = ibits + wbits
    B.key.cmask = ((<uint64_t> 1) << cbits) - 1
    B.key.rshift = ibits + wbits + cbits
    B.key.rbits = rbits
    return 0


cdef int _set_parameters(Builder* B, const double[:, :] X, const double[::1] sample_weight,
                         const double[::1] target, const int8_t[::1] monotonic,
                         int64_t n_act, int64_t K, int64_t n_values, int criterion,
                         bint random_split, bint shuffle_features, int64_t max_depth,
                         int64_t min_samples_split, int64_t min_samples_leaf,
                         double min_weight_leaf, int64_t max_features,
                         double min_impurity_decrease, double tw,
                         uint64_t seed) except -1:
    """The data (pointers into the caller's arrays) and the settings of the growth."""
    cdef int64_t F = X.shape[1]
    B.data.X = &X[0, 0]
    B.data.xrs = _element_stride(X.strides[0])
    B.data.xcs = _element_stride(X.strides[1])
    B.data.w = &sample_weight[0]
    B.data.n_total = X.shape[0]
    B.data.n_features = F
    B.data.n_classes = K
    B.data.n_values = n_values
    B.data.regression = target is not None
    if B.data.regression:
        B.data.yv = &target[0]
    B.data.n_active = n_act
    B.par.criterion = criterion
    B.par.random_split = random_split
    B.par.shuffle = shuffle_features
    B.par.max_depth = max_depth
    B.par.min_samples_split = min_samples_split
    B.par.min_samples_leaf = max(min_samples_leaf, 1)
    B.par.min_weight_leaf = min_weight_leaf
    B.par.max_features = max(1, min(max_features, F))
    B.par.min_impurity_decrease = min_impurity_decrease
    B.data.total_weight = tw
    B.rng = seed
    B.data.monotonic = &monotonic[0] if monotonic is not None else NULL
    B.par.use_avx512 = _USE_AVX512
    B.par.reference = _REFERENCE
    return 0


cdef int _nomem() except -1:
    raise MemoryError("not enough memory to grow the tree")


cdef object _allocate_columns(Builder* B, const uint32_t[:, ::1] keys, ranks,
                              const uint64_t[::1] col_top, uint64_t max_rank,
                              int64_t n_act):
    """How the root (and so the tree) starts: with the lists, unless sorting in the nodes
    already costs less there, or the lists would not fit in memory; allocates what the
    method needs.  Returns the dense ranks that sorting nodes read (computed here when
    the caller has none), or None."""
    cdef int64_t F = B.data.n_features
    if B.hist.off != NULL:
        B.par.method = METHOD_SORT       # histogram nodes (see _hist_nodes.pxi)
    else:
        B.par.method = _tree_method(B.par.max_features, F, B.key.rbits, &col_top[0],
                                    n_act)
    if B.par.method != METHOD_SORT:
        # 8 keys of padding: the two-class Gini kernel reads a whole last block of 8 (+1)
        B.col.lists = <key_t*> rf_alloc_big((F * n_act + 9) * sizeof(key_t))
        if B.col.lists == NULL:
            # no room for the lists: every node sorts (needs 4 bytes a cell of ranks)
            B.par.method = METHOD_SORT
        else:
            memset(B.col.lists + F * n_act, 0, 9 * sizeof(key_t))
    if B.par.method == METHOD_PRESORT:
        return ranks
    if ranks is None:
        ranks = dense_ranks(keys)
    B.col.rank_bytes = ranks.dtype.itemsize
    if B.col.rank_bytes < _dtype_for(max_rank).itemsize:
        raise ValueError("ranks must be dense_ranks(keys)")
    B.col.ranks = _buffer_of(ranks)
    if _columns_alloc(&B.col, n_act) < 0:
        _nomem()
    return ranks


cdef object _checked_sparse(sparse, int64_t n, int64_t F):
    """The highest rank of every sparse column and the largest of them; checks that
    ``sparse`` is sparse_columns' output for n samples and F features (the builder
    indexes memory with its rows and ranks)."""
    if not isinstance(sparse, tuple) or len(sparse) != 8:
        raise ValueError("sparse must be sparse_columns(X)")
    ptr, rows, rank, zero, vals, voff, top, nan = sparse
    kinds = ((ptr, np.int64, F + 1), (rows, np.int32, None), (rank, np.uint32, None),
             (zero, np.uint32, F), (vals, np.float64, None), (voff, np.int64, F + 1),
             (top, np.uint64, F), (nan, np.uint8, F))
    for arr, dtype, size in kinds:
        if (not isinstance(arr, np.ndarray) or arr.dtype != dtype or arr.ndim != 1
                or not arr.flags.c_contiguous or (size is not None and arr.shape[0] != size)):
            raise ValueError("sparse must be sparse_columns(X)")
    frozen = not any(arr.flags.writeable for arr, _, _ in kinds)
    if frozen and getattr(sparse, "checked", None) == (n, F):
        return top, (int(top.max()) if F else 0)     # (checked for an earlier tree)
    nnz = rows.shape[0]
    counts = np.diff(ptr)
    per = np.repeat(np.arange(F), counts) if nnz else np.zeros(0, dtype=np.int64)
    if (ptr[0] != 0 or ptr[F] != nnz or rank.shape[0] != nnz or np.any(counts < 0)
            or np.any(counts > n) or voff[0] != 0 or voff[F] != vals.shape[0]
            or np.any(np.diff(voff) != top.astype(np.int64) + 1)
            or np.any(zero.astype(np.uint64) > top)
            or (nnz and (rows.min() < 0 or rows.max() >= n
                         or np.any(rank.astype(np.uint64) > top[per])
                         or np.any((np.diff(rows) <= 0) & (per[1:] == per[:-1]))))):
        raise ValueError("sparse must be sparse_columns(X)")
    if frozen and hasattr(sparse, "__dict__"):
        sparse.checked = (n, F)
    return top, (int(top.max()) if F else 0)


cdef int _allocate_sparse(Builder* B, sparse, int64_t n_act) except -1:
    """Sparse columns (see _sparse.pxi): every node sorts; the buffers of sorting nodes
    and the row of one column's ranks."""
    cdef const int64_t[::1] ptr = sparse[0]
    cdef const int32_t[::1] rows = sparse[1]
    cdef const uint32_t[::1] rank = sparse[2]
    cdef const uint32_t[::1] zero = sparse[3]
    cdef const double[::1] vals = sparse[4]
    cdef const int64_t[::1] voff = sparse[5]
    B.par.method = METHOD_SORT
    B.col.sparse = True
    B.col.rank_bytes = 4
    B.col.sp_ptr = &ptr[0]
    B.col.sp_row = &rows[0] if rows.shape[0] else NULL
    B.col.sp_rank = &rank[0] if rank.shape[0] else NULL
    B.col.sp_zero = &zero[0]
    B.col.sp_vals = &vals[0]
    B.col.sp_voff = &voff[0]
    B.col.rowbuf = <uint32_t*> malloc((B.data.n_total + 1) * sizeof(uint32_t))
    B.col.spos = <int64_t*> malloc((B.data.n_total + 1) * sizeof(int64_t))
    if (B.col.rowbuf == NULL or B.col.spos == NULL
            or _columns_alloc(&B.col, n_act) < 0):
        _nomem()
    # (_sparse_hits reads the padding after the samples for entries of weight zero)
    memset(B.col.samples + n_act, 0, 9 * sizeof(key_t))
    return 0


cdef int _allocate_growth(Builder* B, int64_t n, int64_t n_act) except -1:
    """The per-split scratch, the frontier of entries and the output nodes (after
    _allocate_categorical, whose sets they keep)."""
    if (_work_alloc(&B.work, n, n_act, B.data.n_classes, B.data.n_features) < 0
        or _frontier_alloc(&B.front, B.data.n_classes, (B.data.n_features + 63) // 64,
                           B.cat.rank_words + B.cat.code_words) < 0
        or _output_alloc(&B.out, B.data.n_values, B.cat.code_words) < 0):
        _nomem()
    return 0


cdef int _allocate_categorical(Builder* B, const uint8_t[::1] categorical, categories,
                               const uint64_t[::1] col_top,
                               int64_t min_category_samples) except -1:
    """The state of the splits on sets of categories (see _categorical.pxi): per-rank
    arrays as long as the most ranks of a categorical feature, sets as wide as those
    ranks and the largest code.  ``categories`` stays referenced by the caller."""
    cdef const int64_t[::1] off = categories[1]
    cdef const int32_t[::1] code = categories[2]
    cdef int64_t f, ranks = 0, top = 0
    for f in range(categorical.shape[0]):
        if categorical[f]:
            ranks = max(ranks, <int64_t> col_top[f] + 1)
            if off[f + 1] > off[f]:
                top = max(top, int(np.max(categories[2][off[f]:off[f + 1]])))
    B.cat.mask = &categorical[0]
    B.cat.off = &off[0]
    B.cat.code = &code[0] if code.shape[0] else NULL
    B.cat.support = min_category_samples
    B.cat.orders = _CAT_ORDERS
    B.cat.rare = _CAT_RARE
    B.cat.pool = ranks
    B.cat.rank_words = (ranks + 63) // 64
    B.cat.code_words = max(1, (top + 1 + 63) // 64)
    if _categories_alloc(&B.cat, B.data.n_classes) < 0:
        _nomem()
    return 0


cdef object _allocate_absolute(Builder* B, const double[::1] target, bint monotonic,
                               int64_t n, int64_t n_act):
    """The state of the absolute error (see _absolute.pxi), one per output; returns the
    samples in order of each output's targets (one output after the other) and the
    targets one output after the other (which the states point into)."""
    cdef int64_t m = B.data.n_outputs, o
    cdef const double[:, ::1] cols
    B.par.absolute = True
    columns = np.ascontiguousarray(np.asarray(target).reshape(n, m).T)
    cols = columns
    order = np.argsort(columns, axis=1, kind="stable").astype(np.int64).reshape(-1)
    if m == 1:
        if _absolute_alloc(&B.ab, n, n_act, monotonic) < 0:
            _nomem()
        B.ab.y = &cols[0, 0]
        return order, columns
    B.ab_outputs = <AbsoluteState*> calloc(m, sizeof(AbsoluteState))
    B.ab_sum = <double*> malloc(4 * (n_act + 1) * sizeof(double))
    if B.ab_outputs == NULL or B.ab_sum == NULL:
        _nomem()
    for o in range(m):
        if _absolute_alloc(&B.ab_outputs[o], n, n_act, False) < 0:
            _nomem()
        B.ab_outputs[o].y = &cols[o, 0]
    B.ab = B.ab_outputs[0]
    B.ab_output = 0
    return order, columns


cdef object _poisson_terms(Builder* B, const double[::1] target):
    """y log y of every target (0 log 0 = 0), which the Poisson deviance sums."""
    ylogy = np.asarray(target).copy()
    positive = ylogy > 0.0
    ylogy[positive] *= np.log(ylogy[positive])
    cdef double[::1] view = ylogy
    B.data.ylogy = &view[0]
    return ylogy


cdef int _allocate_tables(Builder* B, bint integral, const uint64_t[::1] col_top,
                          const uint8_t[::1] categorical) except -1:
    """The table of x log x for integer weights (entropy), and which features have so
    few values that nodes count them instead of sorting (two-class Gini)."""
    cdef int64_t tmax, i, f, F = B.data.n_features
    if (integral and B.par.criterion == CRIT_ENTROPY
            and B.data.total_weight <= XLOGX_TABLE_MAX):
        tmax = <int64_t> B.data.total_weight + 1
        B.work.xlogx_table = <double*> malloc(tmax * sizeof(double))
        if B.work.xlogx_table != NULL:
            B.work.xlogx_table[0] = 0.0
            for i in range(1, tmax):
                B.work.xlogx_table[i] = i * log(<double> i)
    if ((B.col.ranks != NULL or B.col.sparse) and not B.data.regression
        and B.data.n_outputs == 1
        and B.data.n_classes <= COUNT_CLASSES
        and B.par.criterion == CRIT_GINI and B.key.packed and not B.par.random_split):
        B.col.few = <uint8_t*> calloc(F, sizeof(uint8_t))
        if B.col.few == NULL:
            _nomem()
        for f in range(F):
            B.col.few[f] = col_top[f] < COUNT_BINS and not (categorical is not None
                                                            and categorical[f])
    return 0


cdef object _fill_lists(Builder* B, const double[:, :] X, const uint32_t[:, ::1] keys,
                        const int32_t[::1] y, const uint64_t[::1] col_top,
                        const int64_t[::1] y_order, const uint8_t[::1] sparse_nan):
    """Each feature's rank of missing values, the working lists (or, for a tree that
    sorts in its nodes, the samples), and for the absolute error the samples in order of
    their targets.  Returns every sample's packed payload (INACTIVE: weight zero)."""
    cdef int64_t n = X.shape[0], F = X.shape[1], n_act = B.data.n_active, i, f, q
    cdef uint64_t ix
    cdef bint root_presorted = B.par.method != METHOD_SORT
    payload_arr = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] payload = payload_arr
    for f in range(F):
        B.work.feats[f] = f
    with nogil:
        # missing values sort last, with their feature's highest rank (values: found by
        # the nodes)
        for f in range(F):
            if B.par.values:
                B.work.nan_rank[f] = NO_NAN
                continue
            if B.col.sparse:
                # (a stored NaN: the column's highest rank)
                B.work.nan_rank[f] = col_top[f] if sparse_nan[f] else NO_NAN
                B.data.any_missing = B.data.any_missing or sparse_nan[f]
                continue
            ix = keys[f, n - 1]
            if isnan(X[ix, f]):
                B.work.nan_rank[f] = col_top[f]
                B.data.any_missing = True
            else:
                B.work.nan_rank[f] = NO_NAN
        # the working lists hold the samples of this tree only, in presorted order; each
        # sample's class, weight and index are packed once, so the copy reads one array
        for i in range(n):
            if B.data.w[i] > 0.0:
                payload[i] = <uint64_t> i
                if not B.data.regression and B.data.n_outputs == 1:
                    payload[i] |= (<uint64_t> y[i]) << B.key.cshift
                if B.key.packed:
                    payload[i] |= (<uint64_t> B.data.w[i]) << B.key.wshift
            else:
                payload[i] = INACTIVE
        if root_presorted:
            for f in range(F):
                if _fill_list(&keys[f, 0], &payload[0], n, n_act, B.key.rshift,
                              B.col.lists + f * n_act) < 0:
                    B.error = 3
                    break
        else:
            q = 0
            for i in range(n):
                if B.col.spos != NULL:
                    B.col.spos[i] = q if payload[i] != INACTIVE else n_act
                if payload[i] != INACTIVE:
                    B.col.samples[q] = payload[i]
                    if B.col.ys != NULL:
                        B.col.ys[q] = B.data.yv[i]
                    q += 1
            # (dense_ranks checked that every row of keys orders all the samples)
        if B.par.absolute:
            for f in range(B.data.n_outputs):     # (each output's list, in its y order)
                if B.ab_outputs != NULL:
                    _abs_use(B, f)
                q = 0
                for i in range(f * n, (f + 1) * n):
                    if payload[y_order[i]] != INACTIVE:
                        B.ab.ylist[q] = payload[y_order[i]]
                        q += 1
    if B.error == 3:
        raise ValueError("keys do not belong to X")
    return payload_arr


cdef int _grow_from_root(Builder* B, const uint64_t[::1] payload,
                         const uint64_t[::1] col_top, int64_t max_leaf_nodes) except -1:
    """The root's entry (its class counts or statistics, impurity, the columns constant
    over the tree's samples), then the growth; clear errors for a failed growth."""
    cdef int64_t n = payload.shape[0], n_act = B.data.n_active
    cdef int64_t K = B.data.n_classes, F = B.data.n_features
    cdef int64_t root, i, f
    cdef double wi, tw = B.data.total_weight
    cdef bint root_presorted = B.par.method != METHOD_SORT
    cdef key_t* out
    with nogil:
        root = _ent_alloc(B)
        B.front.ent[root].start = 0
        B.front.ent[root].end = n_act
        B.front.ent[root].depth = 0
        B.front.ent[root].parent = -1
        B.front.ent[root].node_id = -1
        B.front.ent[root].is_left = 0
        B.front.ent[root].presorted = root_presorted
        B.front.ent[root].hist = -1
        B.front.ent[root].hist_full = 0
        B.front.ent[root].weight = tw
        B.front.ent[root].lower = -INFINITY
        B.front.ent[root].upper = INFINITY
        memset(B.front.counts + root * 3 * K, 0, 3 * K * sizeof(double))
        memset(B.front.constant + root * B.front.n_words, 0,
               B.front.n_words * sizeof(uint64_t))
        for i in range(n):
            if B.data.w[i] > 0.0:
                _accumulate(B, payload[i], B.data.w[i], B.front.counts + root * 3 * K)
        if B.ab_outputs != NULL:
            _absolute_root_outputs(B, n_act, B.front.counts + root * 3 * K,
                                   &B.front.ent[root].impurity)
        elif B.par.absolute:
            _absolute_stats(B, B.ab.ylist, 0, n_act, &wi, &B.front.ent[root].median,
                            &B.front.ent[root].impurity)
            B.front.ent[root].impurity /= wi
        else:
            B.front.ent[root].impurity = _impurity(B, B.front.counts + root * 3 * K, tw)
        for f in range(F):      # columns constant over this tree's samples
            if root_presorted:
                out = B.col.lists + f * n_act
                if ((out[0] ^ out[n_act - 1]) >> B.key.rshift) != 0:
                    continue
            elif col_top[f] > 0:
                continue        # (sorting nodes find the others when they draw them)
            B.front.constant[root * B.front.n_words + (f >> 6)] |= \
                (<uint64_t> 1) << (f & 63)
        _grow(B, root, max_leaf_nodes)
    if B.error:
        if B.error == 2:
            raise ValueError(f"the tree would have more than {MAX_NODES} nodes; limit its "
                             "size (max_depth, max_leaf_nodes, min_samples_leaf)")
        _nomem()
    return 0


cdef object _export(Builder* B, bint categorical):
    """``(nodes, value, max_depth, left_codes)`` copied out of the builder."""
    nodes = np.empty(B.out.count, dtype=NODE_DTYPE)
    cdef uint8_t[::1] raw = nodes.view(np.uint8).reshape(-1)
    memcpy(&raw[0], B.out.nodes, B.out.count * sizeof(Node))
    value = np.empty((B.out.count, B.data.n_outputs, B.data.n_values // B.data.n_outputs),
                     dtype=np.float64)
    cdef double[:, :, ::1] vv = value
    memcpy(&vv[0, 0, 0], B.out.values, B.out.count * B.data.n_values * sizeof(double))
    depth = B.out.depth
    left_codes = None
    cdef uint64_t[::1] lcv
    cdef int64_t i, k = 0, total = 0, size, at
    cdef uint64_t head
    if categorical:
        # the sets of the categorical splits in increasing node id (see _tree.pxd)
        for i in range(B.out.count):
            if B.out.code_row[i] >= 0:
                total += set_size(B.out.left_codes + B.out.code_row[i])
        left_codes = np.empty(total, dtype=np.uint64)
        if total:
            lcv = left_codes
            for i in range(B.out.count):
                at = B.out.code_row[i]
                if at >= 0:
                    size = set_size(B.out.left_codes + at)
                    memcpy(&lcv[k], B.out.left_codes + at, size * sizeof(uint64_t))
                    k += size
        else:
            left_codes = None
    return nodes, value, depth, left_codes
