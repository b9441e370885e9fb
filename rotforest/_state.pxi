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
    CAT_MAX_CODE = 16777215  # the largest category code (2**24 - 1: exact in float32 too)
    CAT_EXACT_MAX = 10     # more classes: every partition up to this many levels
    ENTROPY_RESYNC = 128   # the entropy scan sums its running total afresh this often

cdef struct CatSplit:      # a categorical feature's best split in a node
    uint64_t* left               # ranks that go left (the missing rank too when they do):
                                 # CategoryState.rank_words words
    uint64_t* codes              # codes that go left, absent ones following the missing:
                                 # CategoryState.code_words words, right after `left`
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
                           # (a categorical split's sets of ranks and codes that go left
                           # are the entry's row of Frontier.sets: _entry_sets)

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
    int32_t hist           # histogram nodes (see _hist_nodes.pxi): the node's block of
    int32_t hist_full      # counts, or -1; hist_full: it holds the counts of every
                           # feature the node scans (filled by its parent)
    double impurity
    double weight
    double lower           # monotonic constraints: bounds on the node's class-0 fraction
    double upper
    double median          # absolute error: the node's weighted median, measured with
                           # its parent's split (the root's when the tree starts)
    SplitInfo split

# The builder is one struct of parts.  The first three are set once from the caller's
# arrays and settings (nothing to free); each of the others owns its memory, with one
# function that allocates it (in _builder.pyx) and one that frees it (_free_parts in
# _grow.pxi), so that a failed allocation anywhere is undone by build_tree's single
# clean-up.

cdef struct Problem:       # the data, borrowed from the caller's arrays
    const double* X        # X[i, f] is X[i * xrs + f * xcs] (any layout, never copied)
    int64_t xrs
    int64_t xcs
    const double* w
    int64_t n_total
    int64_t n_features
    int64_t n_classes      # the statistics a node keeps: classification, its classes
                           # (all outputs' together); regression, 3 per output (sums of
                           # w y, w y^2 and w y log y)
    int64_t n_values       # values a node stores: n_outputs x the most classes of an
                           # output, or n_outputs (the means)
    bint regression        # a numeric target: yv[i] (the class field of the keys is empty)
    const double* yv       # y[i, o] is yv[i * n_outputs + o]
    const double* ylogy    # y log y per sample and output (Poisson), else NULL
    int64_t n_outputs      # the targets; with more than one the keys carry no class, the
                           # scans read the targets from memory (the reference scan), and
    const int32_t* ycodes  # the class codes are ycodes[i * n_outputs + o]
    const int64_t* offs    # output o's statistics are [offs[o], offs[o + 1])
    int64_t max_classes    # the most classes of an output (classification)
    const int8_t* monotonic  # per feature: 1 / -1 when the class-0 fraction may only
                           # rise / fall from left to right child, 0 when free; NULL: none
    int64_t n_active       # samples with non-zero weight
    double total_weight
    bint any_missing

cdef struct Settings:      # how the tree grows
    int criterion
    bint absolute          # the absolute-error criterion (see _absolute.pxi)
    int random_split
    bint shuffle           # visit the features in random order even when all are
                           # drawn (forests: ties between features go to a random one)
    int64_t max_depth
    int64_t min_samples_split
    int64_t min_samples_leaf
    double min_weight_leaf
    int64_t max_features
    double min_impurity_decrease
    int method             # METHOD_AUTO, METHOD_PRESORT or METHOD_SORT
    bint values            # random cuts on the values themselves: no lists, no ranks;
                           # every node keeps its samples (see _scan_random.pxi)
    bint use_avx512        # the processor runs the AVX-512 scan
    bint reference         # every numeric cut by the reference scan (tests only)

cdef struct KeyLayout:     # the fields of the working keys (see above)
    int rshift
    int cshift
    int wshift
    uint64_t cmask
    uint64_t wmask
    uint64_t imask
    int rbits              # bits of the largest rank
    bint packed            # weights are read from the keys

cdef struct Columns:       # what the nodes read their features from
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
    int64_t* hist          # the radix sort's counts (2^RADIX_BITS + 1, at least 4 x 256)
    double* vals[2]        # values: a drawn feature's values of the node's samples, at
                           # [start, end); the other buffer holds the best feature's
    const void* codes      # values: integer_codes' codes (code_bytes each, a row per
    int code_bytes         # feature), read for the features marked in coded (NULL:
    const uint8_t* coded   # every feature read from X)
    int64_t code_missing   # the code of NaN, or one beyond the dtype when none is NaN
    const uint64_t* bits   # values (code_bits): bits[bit_row[f] * bit_words + (i >> 6)]
    int64_t bit_words      # bit i & 63 set where feature f's code of sample i is not
    const int64_t* bit_row  # bit_mode[f] (bit_row[f] < 0: no row; NULL: none has);
    const int64_t* bit_mode  # bit_other[f] its only other code, or -1
    const int64_t* bit_other
    const float* x32       # values: the features not coded, rounded to float32
    int64_t x32_cols       # (float_copy): x32[i * x32_cols + x32_col[f]] (NULL: read
    const int64_t* x32_col  # from X); exact32[f]: every value of feature f is its
    const uint8_t* exact32  # float32; nan32[f]: some value of it is NaN
    const uint8_t* nan32
    double* ys             # values, one numeric target: the samples' targets in the
                           # order of samples (NULL otherwise)
    bint sparse            # the features are sparse columns (see _sparse.pxi): every
                           # node sorts, and a feature's ranks are read through rowbuf
    const int64_t* sp_ptr  # column f's stored entries are [sp_ptr[f], sp_ptr[f + 1]):
    const int32_t* sp_row  # their rows, in increasing order,
    const uint32_t* sp_rank  # and their dense ranks; every other entry is 0.0, whose
    const uint32_t* sp_zero  # rank is sp_zero[f]
    const double* sp_vals  # column f's values by rank: sp_vals[sp_voff[f] + rank]
    const int64_t* sp_voff
    uint32_t* rowbuf       # sparse: one column's ranks of a node's samples, by sample
                           # index (other samples' entries are stale)
    int64_t* spos          # sparse: every sample's position in samples (n_active for
                           # those of weight zero), kept by the partitions
    uint8_t* few           # few[f]: feature f has at most COUNT_BINS values in the tree,
                           # so a sorting node counts them (_count_gini2, or with more
                           # classes _count_gini_multi) instead of sorting them (NULL
                           # when no count scan applies)

cdef struct HistPool:      # histogram nodes (see _hist_nodes.pxi): blocks of counts
    int64_t* off           # feature f's counts are [off[f], off[f + 1]) of a block: its
    int64_t* nb            # nb[f] ranks' samples, then their class weights (NULL: no
                           # histogram nodes)
    int64_t size           # counts of a block: off[n_features]
    int64_t min_rows       # a node of fewer samples counts its features itself
    int64_t* blocks        # cap blocks of size counts each
    int64_t cap
    int64_t limit          # at most this many blocks
    int64_t* free_list
    int64_t n_free
    int64_t* scratch       # one feature's counts, for nodes without a block

cdef struct Work:          # per-split scratch
    key_t* scratch         # room for the right side of a partition (n_active + 1 keys)
    uint32_t* goleft       # bitmap: bit i set when sample i goes left at this split
    uint64_t* nan_rank     # per feature: the rank of its missing values, or NO_NAN
    int64_t* feats         # the features, in the order they are drawn
    double* cl             # a scan's running statistics of the left and right sides
    double* cr             # (n_classes each), and of the best split so far
    double* fl
    double* fr
    int64_t* cli           # the same as exact counts (integer weights)
    int64_t* cri
    int64_t* present       # values, several classes with integer weights: the classes
    int64_t n_present      # of the node being split, in increasing order (else -1)
    double* xlogx_table    # x log x for integer weights (entropy), or NULL

cdef struct Frontier:      # the nodes waiting to be split
    Entry* ent             # the entries, recycled through free_list
    double* counts         # 3 * n_classes per entry: own, left child, right child
    uint64_t* constant     # n_words per entry: features known to be constant
    int64_t n_words
    uint64_t* sets         # set_words per entry: its categorical split's sets (see
    int64_t set_words      # _entry_sets; 0 without categorical features)
    int64_t cap
    int64_t used
    int64_t* free_list
    int64_t n_free
    int64_t* order         # the stack or the heap of entry indices
    int64_t order_len
    int64_t order_cap

cdef struct Output:        # the tree grown so far
    Node* nodes
    double* values         # n_values per node
    uint64_t* left_codes   # categorical features (NULL without): the sets of codes of
                           # the categorical splits in the order they are made, each a
                           # header and its words (see _tree.pxd; _store_set)
    int64_t* code_row      # per node: the start of its set there, or -1
    int64_t code_words     # the words of a split's set as the scans build it
    int64_t sets_used      # the words used,
    int64_t sets_cap       # and allocated
    int64_t count
    int64_t cap
    int64_t depth

cdef struct AbsoluteState:  # the absolute-error criterion (see _absolute.pxi): of one
                           # output (several: one state each, see Builder.ab_outputs)
    const double* y        # the output's target of every sample
    key_t* ylist           # the samples in increasing y, each node's [start, end)
    key_t* ytmp            # room to partition ylist
    int32_t* rank          # per sample index: its rank in the current node's y order
    rf_rec* rec            # per rank (1..n, sentinels 0 and n + 1): w, centred y,
                           # and the linked list of the ranks still present
    double* cost           # a feature's SAD of children, 4 x (n + 1) (see there)
    double* med            # and their medians, for constrained features
    rf_abs_state full      # the whole current node
    double centre          # the target value the records are centred on
    int64_t n              # the current node's samples
    bint unit              # its weights all 1 (the kernel's branch-free moves)

cdef struct CategoryState:  # splits on sets of categories (see _categorical.pxi)
    const uint8_t* mask    # per feature: 1 when it holds category codes (NULL: none)
    const int32_t* code    # code[off[f] + r]: the code of rank r of feature f (-1: NaN)
    const int64_t* off
    int64_t pool           # the slot of the pooled rare levels in the per-rank sums (the
                           # most ranks of a categorical feature: the per-rank arrays
                           # hold pool + 1)
    int64_t rank_words     # 64-bit words of a set of ranks,
    int64_t code_words     # and of a set of codes
    int orders             # more classes, many levels: 0 each class's share, 1 the
                           # principal axis of the shares, 2 both (_set_category_orders)
    double* axis           # that axis, scratch, and the shares' covariance (3 K + K^2)
    int rare               # 0: levels with fewer than `support` samples pooled; 1: every
                           # level alone in the searches of an order, its statistic
                           # shrunk (see _set_category_rare)
    double shrink          # this scan's shrinkage weight (0: none), and the node's
    double* mean           # statistics per unit weight shrunk towards (n_classes)
    uint64_t* spare        # rank_words + code_words: the sets of the best split so far
                           # swap with the candidate's (cand.left)
    double* stat           # per rank: the level's statistics (n_classes each),
    double* w              # weight
    int64_t* n             # and samples (all 0 between scans)
    int64_t* lv            # the node's levels (their ranks), in increasing rank
    int64_t* sv            # the levels scanned (ranks; pool: the pooled ones)
    int64_t* grp           # per level: its scanned level
    int64_t support        # the samples a level needs in a node to be scanned alone
    rf_vi* ord             # levels in the order a scan visits them
    uint8_t* side          # per level: 1 when it goes left
    double* cl             # the feature's best split: its children's sums,
    double* cr
    CatSplit cand          # its sides, weights and counts

cdef struct Builder:
    Problem data
    Settings par
    KeyLayout key
    Columns col
    Work work
    Frontier front
    Output out
    AbsoluteState ab       # the absolute error's state (several outputs: the current
    AbsoluteState* ab_outputs  # one's, each output's kept here between uses; NULL
    int64_t ab_output      # for one output; see _abs_use)
    double* ab_sum         # several outputs: the scans' costs summed over them
    CategoryState cat
    HistPool hist
    uint64_t rng           # the random generator's state
    int error              # set by the growth: 1 out of memory, 2 too many nodes,
                           # 3 keys that do not belong to X


ctypedef fused acc_t:      # class counts: exact integers, or doubles for real weights
    int64_t
    double


cdef inline uint64_t _rand_below(uint64_t* s, int64_t n) noexcept nogil:
    return rf_rng_next(s) % <uint64_t> n


cdef inline double _rand_uniform(uint64_t* s) noexcept nogil:
    return (rf_rng_next(s) >> 11) * (1.0 / 9007199254740992.0)


cdef inline int64_t _cls(const Builder* B, key_t k) noexcept nogil:
    return <int64_t> ((k >> B.key.cshift) & B.key.cmask)


cdef inline double _wt(const Builder* B, key_t k) noexcept nogil:
    if B.key.packed:
        return <double> ((k >> B.key.wshift) & B.key.wmask)
    return B.data.w[k & B.key.imask]


cdef inline void _accumulate(const Builder* B, key_t k, double wi,
                             double* stats) noexcept nogil:
    """Adds sample k of weight wi to a node's statistics: its class weight, or with a
    numeric target the sums of w y and w y^2, or for Poisson the sum of w y, the number
    of samples whose w y is positive (exact: a child's sum of w y is zero exactly when
    it has none, which the sums' difference cannot tell once rounded) and the sum of
    w y log y.  Several outputs: the same for each, in its block of the statistics."""
    cdef uint64_t i
    cdef double wy
    if B.data.n_outputs > 1:
        _accumulate_outputs(B, k, wi, stats)
        return
    if not B.data.regression:
        stats[(k >> B.key.cshift) & B.key.cmask] += wi
        return
    i = k & B.key.imask
    wy = wi * B.data.yv[i]
    stats[0] += wy
    if B.data.ylogy != NULL:
        stats[1] += 1.0 if wy > 0.0 else 0.0
        stats[2] += wi * B.data.ylogy[i]
    else:
        stats[1] += wy * B.data.yv[i]


cdef void _accumulate_outputs(const Builder* B, key_t k, double wi,
                              double* stats) noexcept nogil:
    """_accumulate for several outputs: the targets read from memory."""
    cdef int64_t m = B.data.n_outputs, o
    cdef int64_t i = <int64_t> (k & B.key.imask) * m
    cdef double wy, y
    cdef double* st
    if not B.data.regression:
        for o in range(m):
            stats[B.data.offs[o] + B.data.ycodes[i + o]] += wi
        return
    for o in range(m):
        st = stats + 3 * o
        y = B.data.yv[i + o]
        wy = wi * y
        st[0] += wy
        if B.data.ylogy != NULL:
            st[1] += 1.0 if wy > 0.0 else 0.0
            st[2] += wi * B.data.ylogy[i + o]
        else:
            st[1] += wy * y


cdef inline uint64_t* _entry_sets(const Builder* B, int64_t ei) noexcept nogil:
    """Entry ei's categorical split: its set of ranks (CategoryState.rank_words words)
    followed by its set of codes (code_words)."""
    return B.front.sets + ei * B.front.set_words


cdef inline bint _in_set(const uint64_t* bits, uint64_t r) noexcept nogil:
    """Bit r of a bitset of 64-bit words (a categorical split's set of ranks or codes)."""
    return (bits[r >> 6] >> (r & 63)) & 1


cdef inline double _xlogx(const Builder* B, double v) noexcept nogil:
    if v <= 0.0:
        return 0.0
    if B.work.xlogx_table != NULL:
        return B.work.xlogx_table[<int64_t> v]
    return v * log(v)


# ----------------------------------------------------------------------------------------
# The parts' memory: one allocation and one release per part
# ----------------------------------------------------------------------------------------
#
# Each *_alloc returns 0, or -1 when some block did not fit; either way what it got is
# recorded in the part, and the part's *_free (through _free_builder) releases it.

cdef inline void* _get(size_t size, bint* ok) noexcept nogil:
    cdef void* p = malloc(size)
    if p == NULL:
        ok[0] = False
    return p


cdef inline void* _get_zeroed(size_t count, size_t size, bint* ok) noexcept nogil:
    cdef void* p = calloc(count, size)
    if p == NULL:
        ok[0] = False
    return p


cdef int _columns_alloc(Columns* C, int64_t n_act) noexcept nogil:
    """The buffers of the nodes that sort (the lists are allocated apart: they may fail
    without failing the tree, see _allocate_columns)."""
    cdef bint ok = True
    C.samples = <key_t*> _get((n_act + 9) * sizeof(key_t), &ok)
    C.sorted_keys[0] = <key_t*> _get_zeroed(n_act + 9, sizeof(key_t), &ok)
    C.sorted_keys[1] = <key_t*> _get_zeroed(n_act + 9, sizeof(key_t), &ok)
    C.sort_tmp = <key_t*> _get_zeroed(n_act + 9, sizeof(key_t), &ok)
    C.hist = <int64_t*> _get(max((1 << RADIX_BITS) + 1, 4 * 256) * sizeof(int64_t), &ok)
    return 0 if ok else -1


cdef int _values_alloc(Columns* C, int64_t n_act, bint with_targets) noexcept nogil:
    """The buffers of a tree that cuts on the values (Settings.values): its samples, two
    buffers of one feature's values and, ``with_targets``, their targets."""
    cdef bint ok = True
    C.samples = <key_t*> _get((n_act + 9) * sizeof(key_t), &ok)
    C.vals[0] = <double*> _get((n_act + 1) * sizeof(double), &ok)
    C.vals[1] = <double*> _get((n_act + 1) * sizeof(double), &ok)
    if with_targets:
        C.ys = <double*> _get((n_act + 1) * sizeof(double), &ok)
    return 0 if ok else -1


cdef void _columns_free(Columns* C) noexcept nogil:
    free(C.lists)
    free(C.samples)
    free(C.sorted_keys[0])
    free(C.sorted_keys[1])
    free(C.sort_tmp)
    free(C.hist)
    free(C.vals[0])
    free(C.vals[1])
    free(C.ys)
    free(C.few)
    free(C.rowbuf)
    free(C.spos)


cdef int _work_alloc(Work* W, int64_t n, int64_t n_act, int64_t K,
                     int64_t F) noexcept nogil:
    cdef bint ok = True
    W.scratch = <key_t*> _get((n_act + 1) * sizeof(key_t), &ok)
    W.goleft = <uint32_t*> _get_zeroed((n >> 5) + 2, sizeof(uint32_t), &ok)
    W.nan_rank = <uint64_t*> _get(F * sizeof(uint64_t), &ok)
    W.feats = <int64_t*> _get(F * sizeof(int64_t), &ok)
    W.cl = <double*> _get(K * sizeof(double), &ok)
    W.cr = <double*> _get(K * sizeof(double), &ok)
    W.fl = <double*> _get(K * sizeof(double), &ok)
    W.fr = <double*> _get(K * sizeof(double), &ok)
    W.cli = <int64_t*> _get(K * sizeof(int64_t), &ok)
    W.cri = <int64_t*> _get(K * sizeof(int64_t), &ok)
    W.present = <int64_t*> _get(K * sizeof(int64_t), &ok)
    W.n_present = -1
    return 0 if ok else -1


cdef void _work_free(Work* W) noexcept nogil:
    free(W.scratch)
    free(W.goleft)
    free(W.nan_rank)
    free(W.feats)
    free(W.cl)
    free(W.cr)
    free(W.fl)
    free(W.fr)
    free(W.cli)
    free(W.cri)
    free(W.present)
    free(W.xlogx_table)


cdef int _frontier_alloc(Frontier* Q, int64_t K, int64_t n_words,
                         int64_t set_words) noexcept nogil:
    """Room for 64 entries to start with (_ent_alloc doubles it as needed)."""
    cdef bint ok = True
    Q.n_words = n_words
    Q.set_words = set_words
    Q.cap = 64
    Q.order_cap = 64
    Q.ent = <Entry*> _get(Q.cap * sizeof(Entry), &ok)
    Q.counts = <double*> _get(Q.cap * 3 * K * sizeof(double), &ok)
    Q.constant = <uint64_t*> _get(Q.cap * n_words * sizeof(uint64_t), &ok)
    Q.free_list = <int64_t*> _get(Q.cap * sizeof(int64_t), &ok)
    Q.order = <int64_t*> _get(Q.order_cap * sizeof(int64_t), &ok)
    if set_words:
        Q.sets = <uint64_t*> _get(Q.cap * set_words * sizeof(uint64_t), &ok)
    return 0 if ok else -1


cdef void _frontier_free(Frontier* Q) noexcept nogil:
    free(Q.ent)
    free(Q.counts)
    free(Q.constant)
    free(Q.free_list)
    free(Q.order)
    free(Q.sets)


cdef int _output_alloc(Output* O, int64_t n_values, int64_t code_words) noexcept nogil:
    """Room for 256 nodes and 64 categorical splits' sets (none without categorical
    features) to start with (_create_node and _store_set double it as needed)."""
    cdef bint ok = True
    O.cap = 256
    O.nodes = <Node*> _get(O.cap * sizeof(Node), &ok)
    O.values = <double*> _get(O.cap * n_values * sizeof(double), &ok)
    O.code_words = code_words
    if code_words:
        O.sets_cap = 64 * (code_words + 1)
        O.code_row = <int64_t*> _get(O.cap * sizeof(int64_t), &ok)
        O.left_codes = <uint64_t*> _get(O.sets_cap * sizeof(uint64_t), &ok)
    return 0 if ok else -1


cdef void _output_free(Output* O) noexcept nogil:
    free(O.nodes)
    free(O.values)
    free(O.left_codes)
    free(O.code_row)


cdef int _absolute_alloc(AbsoluteState* A, int64_t n, int64_t n_act,
                         bint monotonic) noexcept nogil:
    cdef bint ok = True
    A.ylist = <key_t*> _get((n_act + 1) * sizeof(key_t), &ok)
    A.ytmp = <key_t*> _get((n_act + 1) * sizeof(key_t), &ok)
    A.rank = <int32_t*> _get(n * sizeof(int32_t), &ok)
    A.rec = <rf_rec*> _get((n_act + 2) * sizeof(rf_rec), &ok)
    A.cost = <double*> _get(4 * (n_act + 1) * sizeof(double), &ok)
    if monotonic:       # (the children's medians, for the constraints)
        A.med = <double*> _get(4 * (n_act + 1) * sizeof(double), &ok)
    return 0 if ok else -1


cdef void _absolute_free(AbsoluteState* A) noexcept nogil:
    free(A.ylist)
    free(A.ytmp)
    free(A.rank)
    free(A.rec)
    free(A.cost)
    free(A.med)


cdef int _categories_alloc(CategoryState* S, int64_t K) noexcept nogil:
    """The per-rank arrays (S.pool + 1 slots: the most ranks of a categorical feature
    and the pooled levels) and the two pairs of sets (S.rank_words + S.code_words)."""
    cdef bint ok = True
    cdef int64_t L = S.pool + 1, words = S.rank_words + S.code_words
    S.stat = <double*> _get(L * K * sizeof(double), &ok)
    S.w = <double*> _get(L * sizeof(double), &ok)
    S.n = <int64_t*> _get_zeroed(L, sizeof(int64_t), &ok)
    S.lv = <int64_t*> _get(L * sizeof(int64_t), &ok)
    S.sv = <int64_t*> _get(L * sizeof(int64_t), &ok)
    S.grp = <int64_t*> _get(L * sizeof(int64_t), &ok)
    S.ord = <rf_vi*> _get(L * sizeof(rf_vi), &ok)
    S.side = <uint8_t*> _get(L * sizeof(uint8_t), &ok)
    S.cl = <double*> _get(K * sizeof(double), &ok)
    S.cr = <double*> _get(K * sizeof(double), &ok)
    S.axis = <double*> _get((3 * K + K * K) * sizeof(double), &ok)
    S.mean = <double*> _get(K * sizeof(double), &ok)
    S.cand.left = <uint64_t*> _get(words * sizeof(uint64_t), &ok)
    S.spare = <uint64_t*> _get(words * sizeof(uint64_t), &ok)
    if ok:
        S.cand.codes = S.cand.left + S.rank_words
    return 0 if ok else -1


cdef void _categories_free(CategoryState* S) noexcept nogil:
    free(S.stat)
    free(S.w)
    free(S.n)
    free(S.lv)
    free(S.sv)
    free(S.grp)
    free(S.ord)
    free(S.side)
    free(S.cl)
    free(S.cr)
    free(S.axis)
    free(S.mean)
    free(S.cand.left)
    free(S.spare)


cdef void _free_builder(Builder* B) noexcept nogil:
    """Releases every part (each pointer is NULL or its own block: safe to call once on
    a builder zeroed before its allocations)."""
    cdef int64_t o
    if B.ab_outputs != NULL:
        # B.ab is a copy of the current output's state: freed there, once
        B.ab_outputs[B.ab_output] = B.ab
        memset(&B.ab, 0, sizeof(AbsoluteState))
        for o in range(B.data.n_outputs):
            _absolute_free(&B.ab_outputs[o])
        free(B.ab_outputs)
    free(B.ab_sum)
    _columns_free(&B.col)
    _work_free(&B.work)
    _frontier_free(&B.front)
    _output_free(&B.out)
    _absolute_free(&B.ab)
    _categories_free(&B.cat)
    free(B.hist.blocks)
    free(B.hist.free_list)
    free(B.hist.off)
    free(B.hist.nb)
    free(B.hist.scratch)
