# The method choice: the cost model that decides, per node, between partitioning the
# presorted lists and sorting the scanned features in the node.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

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
