# Forks: a large tree grown as its top and the subtrees below it, the subtrees apart
# (in threads when the forest has more threads than trees left to grow).
#
# When the root holds at least ``fork_rows`` samples, the nodes at depth FORK_DEPTH that
# may split are left as leaves of the top (_grow, _add_fork) and each is grown afterwards
# from its entry by a builder of its own (_grow_fork): the samples' records are shared
# (a node's are a slice of the two buffers that no other subtree touches), every other
# buffer is the fork's.  A fork draws from a random stream of its own, seeded by the
# tree's seed and the fork's number (its place in the top's pre-order), so the tree is
# the same whichever thread grows which fork and in whichever order.  The subtrees are
# then put in place of their leaves (_stitch), the nodes numbered in pre-order as ever.
# A fork's root builds its own histograms (no sibling by subtraction across it).

DEF FORK_DEPTH = 3          # the forks' depth: up to 8 subtrees


cdef struct HFork:
    HEntry e                    # the fork's entry (its own histograms: none)
    int64_t node                # its leaf in the top
    HB sub                      # its builder, then its subtree
    char* pend                  # the builder's refinement buffers (see Workspace)
    size_t pend_size
    char* vals
    size_t vals_size


cdef int _add_fork(HB* B, const HEntry* e, int64_t node) noexcept nogil:
    """Records the entry of node ``node`` (its statistics in B.node_stats, its constant
    features in B.node_const) as a fork; 0, or -1 when memory ran out."""
    cdef void* q
    cdef HFork* fk
    cdef int64_t cap
    if B.n_forks == B.forks_cap:
        cap = 2 * B.forks_cap + 8
        q = realloc(B.forks, cap * sizeof(HFork))
        if q == NULL:
            return -1
        B.forks = <HFork*> q
        B.forks_cap = cap
    fk = &B.forks[B.n_forks]
    memset(fk, 0, sizeof(HFork))
    B.n_forks += 1
    fk.e = e[0]
    fk.e.hset = -1
    fk.node = node
    # the fork's builder: the top's settings and shared data, buffers of its own
    fk.sub = B[0]
    fk.sub.fork_depth = 0
    fk.sub.forks = NULL
    fk.sub.n_forks = fk.sub.forks_cap = 0
    fk.sub.pool_h = NULL
    fk.sub.pool_t = NULL
    fk.sub.pool_c = NULL
    fk.sub.pool_free = NULL
    fk.sub.pool_cap = fk.sub.pool_nfree = 0
    fk.sub.hc = NULL
    fk.sub.hc_n = fk.sub.hc_cap = 0
    fk.sub.count = fk.sub.depth = 0
    fk.sub.error = 0
    fk.sub.stack_n = 0
    if _alloc_work(&fk.sub, B.S) < 0:
        # (the fork's buffers are freed with the top's forks, NULL or not)
        return -1
    memcpy(fk.sub.node_stats, B.node_stats, B.NS * sizeof(double))
    memcpy(fk.sub.node_const, B.node_const, B.p)
    # a random stream of its own (see above)
    cdef uint64_t s = B.fork_seed + <uint64_t> B.n_forks * <uint64_t> 0xD1B54A32D192ED03
    fk.sub.rng = rf_rng_next(&s)
    return 0


cdef void _grow_fork(HB* B, int64_t k) noexcept nogil:
    """Grows fork k's subtree (its error, if any, in its builder's)."""
    cdef HFork* fk = &B.forks[k]
    cdef HB* F = &fk.sub
    cdef int64_t* bins = <int64_t*> malloc(NBINS * sizeof(int64_t))
    F.pend = &fk.pend
    F.pend_size = &fk.pend_size
    F.vals = &fk.vals
    F.vals_size = &fk.vals_size
    if bins == NULL or _push(F, fk.e.start, fk.e.end, fk.e.depth, -1, 0, fk.e.weight,
                             F.node_stats, -1, fk.e.lower, fk.e.upper) < 0:
        F.error = 1
    else:
        _grow(F, bins)
    free(bins)
    # what the subtree needs no more
    _free_work(F)
    free(fk.pend)
    free(fk.vals)
    fk.pend = fk.vals = NULL


cdef int _stitch(HB* B) noexcept nogil:
    """The top with each fork's subtree in place of its leaf, numbered in pre-order
    (the top's nodes and each subtree's are: a subtree's nodes follow its root); 0, or
    -1 on an error (in B.error)."""
    cdef int64_t k, j, i, total = B.count, nv = B.nv, at, off
    cdef HB* F
    cdef Node* nd
    cdef Node* nodes
    cdef double* values
    cdef int64_t* where          # the top's nodes' new numbers
    for k in range(B.n_forks):
        F = &B.forks[k].sub
        if F.error or F.count == 0:
            B.error = F.error if F.error else 1
            return -1
        total += F.count - 1
    if total > MAX_NODES:
        B.error = 2
        return -1
    nodes = <Node*> malloc(total * sizeof(Node))
    values = <double*> malloc(total * nv * sizeof(double))
    where = <int64_t*> malloc(B.count * sizeof(int64_t))
    if nodes == NULL or values == NULL or where == NULL:
        free(nodes)
        free(values)
        free(where)
        B.error = 1
        return -1
    # the top's node i moves down by the nodes the subtrees before it add
    k = off = 0
    for i in range(B.count):
        where[i] = i + off
        if k < B.n_forks and B.forks[k].node == i:
            off += B.forks[k].sub.count - 1
            k += 1
    k = 0
    for i in range(B.count):
        at = where[i]
        if k < B.n_forks and B.forks[k].node == i:
            # the subtree, its root in the leaf's place
            F = &B.forks[k].sub
            memcpy(nodes + at, F.nodes, F.count * sizeof(Node))
            memcpy(values + at * nv, F.values, F.count * nv * sizeof(double))
            for j in range(F.count):
                nd = &nodes[at + j]
                if nd.left_child >= 0:
                    nd.left_child = <int32_t> (at + nd.left_child)
                    nd.right_child = <int32_t> (at + nd.right_child)
            if F.depth > B.depth:
                B.depth = F.depth
            k += 1
            continue
        nodes[at] = B.nodes[i]
        memcpy(values + at * nv, B.values + i * nv, nv * sizeof(double))
        nd = &nodes[at]
        if nd.left_child >= 0:
            nd.left_child = <int32_t> where[nd.left_child]
            nd.right_child = <int32_t> where[nd.right_child]
    free(where)
    free(B.nodes)
    free(B.values)
    B.nodes = nodes
    B.values = values
    B.count = B.cap = total
    return 0


cdef void _forks_free(HB* B) noexcept nogil:
    cdef int64_t k
    cdef HFork* fk
    for k in range(B.n_forks):
        fk = &B.forks[k]
        _free_work(&fk.sub)
        free(fk.sub.nodes)
        free(fk.sub.values)
        free(fk.pend)
        free(fk.vals)
    free(B.forks)
    B.forks = NULL
    B.n_forks = 0


cdef class _Forks:
    """Grows a tree's forks (see above) when called with a fork's number: the work of
    one thread's task."""
    cdef HB* B

    def __call__(self, int64_t k):
        with nogil:
            _grow_fork(self.B, k)


cdef int _grow_forks(HB* B, int64_t threads) except -2:
    """Grows the forks (in ``threads`` threads when more than one) and stitches them to
    the top; 0, or -1 on an error (in B.error)."""
    cdef int64_t k
    cdef _Forks task
    if threads > 1 and B.n_forks > 1:
        from concurrent.futures import ThreadPoolExecutor
        task = _Forks()
        task.B = B
        with ThreadPoolExecutor(min(threads, B.n_forks)) as pool:
            list(pool.map(task, range(B.n_forks)))
    else:
        with nogil:
            for k in range(B.n_forks):
                _grow_fork(B, k)
    with nogil:
        k = _stitch(B)
    return <int> k
