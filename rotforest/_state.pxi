# The builder's state: split, frontier entry and builder structs, working-key accessors.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Builder state
# ----------------------------------------------------------------------------------------
#
# Working keys.  When a tree starts, every presorted key (rank << 32 | i) of a sample with
# non-zero weight is repacked as
#
#     rank << rshift | class << cshift | weight << wshift | i
#
# with field widths fitted to the problem, so that the scans read the class (and, when the
# weights are small integers, as for unweighted data or bootstrap counts, the weight)
# straight from the list instead of from memory all over the place.  With other weights
# the weight field is empty and weights are read from w[i].

cdef enum:
    COUNT_BINS = 16        # values of a feature that a sorting node counts, not sorts
    COUNT_CLASSES = 16     # ... with Gini and at most this many classes
    CAT_LEVELS = 256       # ranks of a categorical feature: its codes and the missing value
    CAT_WORDS = 4          # 64-bit words of a set of ranks or codes
    CAT_MAX_CODE = 254     # the largest code (255 codes and NaN: at most 256 ranks)
    CAT_EXACT_MAX = 10     # more classes: every partition up to this many levels
    CAT_POOL = 256         # the slot of the pooled rare levels in the per-rank sums
    ENTROPY_RESYNC = 128   # the entropy scan sums its running total afresh this often

cdef struct CatSplit:      # a categorical feature's best split in a node
    uint64_t left[CAT_WORDS]     # ranks that go left (the missing rank too when they do)
    uint64_t codes[CAT_WORDS]    # codes that go left, absent ones following the missing
    double wl
    double wr
    int64_t nl                   # samples of the left child
    int64_t nm                   # missing samples in the node
    int32_t ml                   # the missing values (and absent codes) go left


cdef struct SplitInfo:
    int64_t feature
    int64_t pos            # first position of the right child in the feature's list
    double threshold
    double improvement     # scikit-learn's weighted impurity decrease
    double impurity_left
    double impurity_right
    double weight_left
    double weight_right
    int64_t n_missing      # samples of the node missing the split feature (at the list's end)
    int64_t missing_left   # they go to the left child (when n_missing > 0); the stored
                           # direction for NaN at predict time in any case
    double value_left      # absolute error: the children's medians
    double value_right
    uint64_t cut_rank      # the rank of the first present value on the right (the
                           # feature's missing rank when every present value goes left):
                           # a sample goes left when its rank is below it
    uint64_t cat_left[CAT_WORDS]   # categorical features (see _categorical.pxi): the
    uint64_t cat_codes[CAT_WORDS]  # ranks, and the codes, that go left

cdef struct Entry:         # a node on the frontier
    int64_t start
    int64_t end
    int64_t depth
    int64_t parent
    int64_t node_id
    int32_t is_left
    int32_t has_split
    int32_t presorted      # 1: the node's slice of every list is kept in order (method
                           # "presort"); 0: its samples are in `samples` and each scanned
                           # feature is sorted in the node (method "sort")
    double impurity
    double weight
    double lower           # monotonic constraints: bounds on the node's class-0 fraction
    double upper
    double median          # absolute error: the node's weighted median, measured with
                           # its parent's split (the root's when the tree starts)
    SplitInfo split

cdef struct Builder:
    const double* X        # X[i, f] is X[i * xrs + f * xcs] (any layout, never copied)
    int64_t xrs
    int64_t xcs
    const double* w
    int64_t n_total
    int64_t n_features
    int64_t n_classes      # classification: the classes; regression: 3, the statistics
                           # a node keeps (sums of w y, w y^2 and w y log y)
    int64_t n_values       # values a node stores: n_classes, or 1 (the mean)
    bint regression        # a numeric target: yv[i] (the class field of the keys is empty)
    const double* yv
    const double* ylogy    # y log y per sample (Poisson), else NULL
    bint absolute          # the absolute-error criterion (see _absolute.pxi):
    key_t* ylist           #   the samples in increasing y, each node's [start, end)
    key_t* ytmp            #   room to partition ylist
    int32_t* abs_rank      #   per sample index: its rank in the current node's y order
    rf_rec* abs_rec        #   per rank (1..n, sentinels 0 and n + 1): w, centred y,
                           #   and the linked list of the ranks still present
    double* abs_cost       #   a feature's SAD of children, 4 x (n + 1) (see there)
    double* abs_med        #   and their medians, for constrained features
    rf_abs_state abs_full  #   the whole current node
    double abs_centre      #   the target value the records are centred on
    int64_t abs_n          #   the current node's samples
    bint abs_unit          #   its weights all 1 (the kernel's branch-free moves)
    const uint8_t* categorical  # per feature: 1 when it holds category codes (NULL: none;
                           # see _categorical.pxi):
    const int16_t* cat_code  #   cat_code[f * CAT_LEVELS + r]: the code of rank r
    uint64_t* cat_bits     #   per node, CAT_WORDS words: the codes its split sends left
    double* cat_stat       #   per rank: the level's statistics (n_classes each),
    double* cat_w          #   weight
    int64_t* cat_n         #   and samples (all 0 between scans)
    int64_t* cat_lv        #   the node's levels (their ranks), in increasing rank
    int64_t* cat_sv        #   the levels scanned (ranks; CAT_POOL: the pooled ones)
    int64_t* cat_grp       #   per level: its scanned level
    int64_t cat_support    #   the samples a level needs in a node to be scanned alone
    rf_vi* cat_ord         #   levels in the order a scan visits them
    uint8_t* cat_side      #   per level: 1 when it goes left
    double* cat_cl         #   the feature's best split: its children's sums,
    double* cat_cr
    CatSplit cat_try       #   its sides, weights and counts
    int64_t n_active       # samples with non-zero weight
    int rshift
    int cshift
    int wshift
    uint64_t cmask
    uint64_t wmask
    uint64_t imask
    int rbits              # bits of the largest rank
    bint packed            # weights are read from the keys
    bint use_avx512        # the processor runs the AVX-512 scan
    bint borrowed_lists    # lists is the caller's keys array: not freed here
    key_t* lists           # per feature, the tree's samples in sorted order; each node
                           # owns the slice [start, end) of every feature's list (NULL
                           # when the tree sorts in its nodes from the root)
    const void* ranks      # ranks[f * n_total + i]: the dense rank of X[i, f], of
    int rank_bytes         # rank_bytes (1, 2 or 4) each (NULL when no node sorts)
    key_t* samples         # nodes that sort: their samples (working keys without the
                           # rank) in [start, end), in increasing sample index
    key_t* sorted_keys[2]  # a node's keys of one feature, sorted in the node, at
                           # [start, end); the other buffer holds the best feature's
    key_t* sort_tmp        # the radix sort's other buffer
    uint8_t* few           # few[f]: feature f has at most COUNT_BINS values in the tree,
                           # so a sorting node counts them (_count_gini2, or with more
                           # classes _count_gini_multi) instead of sorting them (NULL
                           # when no count scan applies)
    int64_t* hist          # the radix sort's counts (2^RADIX_BITS + 1, at least 4 x 256)
    int method             # METHOD_AUTO, METHOD_PRESORT or METHOD_SORT
    key_t* scratch         # room for the right side of a partition (n_active + 1 keys)
    uint32_t* goleft       # bitmap: bit i set when sample i goes left at this split
    uint64_t* nan_rank     # per feature: the rank of its missing values, or NO_NAN
    const int8_t* monotonic  # per feature: 1 / -1 when the class-0 fraction may only
                           # rise / fall from left to right child, 0 when free; NULL: none
    bint any_missing
    int criterion
    int random_split
    bint shuffle           # visit the features in random order even when all are
                           # drawn (forests: ties between features go to a random one)
    int64_t max_depth
    int64_t min_samples_split
    int64_t min_samples_leaf
    double min_weight_leaf
    int64_t max_features
    double min_impurity_decrease
    double total_weight
    uint64_t rng
    double* xlogx_table
    double* cl
    double* cr
    double* fl
    double* fr
    int64_t* cli
    int64_t* cri
    int64_t* feats
    Entry* ent
    double* ent_counts     # 3 * n_classes per entry: own, left child, right child
    uint64_t* ent_const    # n_words per entry: features known to be constant
    int64_t n_words
    int64_t ent_cap
    int64_t ent_used
    int64_t* free_list
    int64_t n_free
    int64_t* order         # the stack or the heap of entry indices
    int64_t order_len
    int64_t order_cap
    Node* nodes
    double* values
    int64_t node_count
    int64_t node_cap
    int64_t depth_reached
    int error


ctypedef fused acc_t:      # class counts: exact integers, or doubles for real weights
    int64_t
    double


cdef inline uint64_t _rand_below(uint64_t* s, int64_t n) noexcept nogil:
    return rf_rng_next(s) % <uint64_t> n


cdef inline double _rand_uniform(uint64_t* s) noexcept nogil:
    return (rf_rng_next(s) >> 11) * (1.0 / 9007199254740992.0)


cdef inline int64_t _cls(const Builder* B, key_t k) noexcept nogil:
    return <int64_t> ((k >> B.cshift) & B.cmask)


cdef inline double _wt(const Builder* B, key_t k) noexcept nogil:
    if B.packed:
        return <double> ((k >> B.wshift) & B.wmask)
    return B.w[k & B.imask]


cdef inline void _accumulate(const Builder* B, key_t k, double wi,
                             double* stats) noexcept nogil:
    """Adds sample k of weight wi to a node's statistics: its class weight, or with a
    numeric target the sums of w y and w y^2, or for Poisson the sum of w y, the number
    of samples whose w y is positive (exact: a child's sum of w y is zero exactly when
    it has none, which the sums' difference cannot tell once rounded) and the sum of
    w y log y."""
    cdef uint64_t i
    cdef double wy
    if not B.regression:
        stats[(k >> B.cshift) & B.cmask] += wi
        return
    i = k & B.imask
    wy = wi * B.yv[i]
    stats[0] += wy
    if B.ylogy != NULL:
        stats[1] += 1.0 if wy > 0.0 else 0.0
        stats[2] += wi * B.ylogy[i]
    else:
        stats[1] += wy * B.yv[i]


cdef inline bint _in_set(const uint64_t* bits, uint64_t r) noexcept nogil:
    """Bit r of a bitset of 64-bit words (a categorical split's set of ranks or codes)."""
    return (bits[r >> 6] >> (r & 63)) & 1


cdef inline double _xlogx(const Builder* B, double v) noexcept nogil:
    if v <= 0.0:
        return 0.0
    if B.xlogx_table != NULL:
        return B.xlogx_table[<int64_t> v]
    return v * log(v)
