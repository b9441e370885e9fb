# Frontier entries, nodes, partitions of the lists and the growth loop.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Frontier entries, nodes
# ----------------------------------------------------------------------------------------

cdef int64_t _ent_alloc(Builder* B) noexcept nogil:
    cdef int64_t cap
    cdef void* p
    if B.n_free > 0:
        B.n_free -= 1
        return B.free_list[B.n_free]
    if B.ent_used == B.ent_cap:
        cap = 2 * B.ent_cap
        p = realloc(B.ent, cap * sizeof(Entry))
        if p == NULL:
            B.error = 1
            return -1
        B.ent = <Entry*> p
        p = realloc(B.ent_counts, cap * 3 * B.n_classes * sizeof(double))
        if p == NULL:
            B.error = 1
            return -1
        B.ent_counts = <double*> p
        p = realloc(B.ent_const, cap * B.n_words * sizeof(uint64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.ent_const = <uint64_t*> p
        p = realloc(B.free_list, cap * sizeof(int64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.free_list = <int64_t*> p
        B.ent_cap = cap
    B.ent_used += 1
    return B.ent_used - 1


cdef inline void _ent_release(Builder* B, int64_t ei) noexcept nogil:
    B.free_list[B.n_free] = ei
    B.n_free += 1


cdef int _order_push(Builder* B, int64_t ei) noexcept nogil:
    cdef void* p
    if B.order_len == B.order_cap:
        p = realloc(B.order, 2 * B.order_cap * sizeof(int64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.order = <int64_t*> p
        B.order_cap *= 2
    B.order[B.order_len] = ei
    B.order_len += 1
    return 0


cdef inline bint _heap_above(const Builder* B, int64_t a, int64_t b) noexcept nogil:
    cdef double ia = B.ent[a].split.improvement, ib = B.ent[b].split.improvement
    return ia > ib or (ia == ib and B.ent[a].node_id < B.ent[b].node_id)


cdef int _heap_push(Builder* B, int64_t ei) noexcept nogil:
    cdef int64_t i, parent, tmp
    if _order_push(B, ei) < 0:
        return -1
    i = B.order_len - 1
    while i > 0:
        parent = (i - 1) >> 1
        if not _heap_above(B, B.order[i], B.order[parent]):
            break
        tmp = B.order[i]
        B.order[i] = B.order[parent]
        B.order[parent] = tmp
        i = parent
    return 0


cdef int64_t _heap_pop(Builder* B) noexcept nogil:
    cdef int64_t top = B.order[0], i = 0, l, r, m, tmp
    B.order_len -= 1
    B.order[0] = B.order[B.order_len]
    while True:
        l = 2 * i + 1
        r = l + 1
        m = i
        if l < B.order_len and _heap_above(B, B.order[l], B.order[m]):
            m = l
        if r < B.order_len and _heap_above(B, B.order[r], B.order[m]):
            m = r
        if m == i:
            break
        tmp = B.order[i]
        B.order[i] = B.order[m]
        B.order[m] = tmp
        i = m
    return top


cdef int _create_node(Builder* B, int64_t ei, bint can_split) noexcept nogil:
    """Append the entry's node to the tree (as a leaf) and, if it may split, find its split."""
    cdef Entry* e = &B.ent[ei]
    cdef int64_t K = B.n_classes, idx, c, cap
    cdef const double* counts = B.ent_counts + ei * 3 * K
    cdef void* p
    cdef Node* nd
    if B.node_count == MAX_NODES:
        B.error = 2              # node ids are 32-bit (see Node)
        return -1
    if B.node_count == B.node_cap:
        cap = min(2 * B.node_cap, MAX_NODES)
        p = realloc(B.nodes, cap * sizeof(Node))
        if p == NULL:
            B.error = 1
            return -1
        B.nodes = <Node*> p
        p = realloc(B.values, cap * B.n_values * sizeof(double))
        if p == NULL:
            B.error = 1
            return -1
        B.values = <double*> p
        if B.categorical != NULL:
            p = realloc(B.cat_bits, cap * CAT_WORDS * sizeof(uint64_t))
            if p == NULL:
                B.error = 1
                return -1
            B.cat_bits = <uint64_t*> p
        B.node_cap = cap
    idx = B.node_count
    B.node_count += 1
    nd = &B.nodes[idx]
    memset(nd, 0, sizeof(Node))
    nd.left_child = -1
    nd.right_child = -1
    nd.feature = -2
    nd.threshold = -2.0
    nd.impurity = e.impurity
    nd.n_node_samples = e.end - e.start
    nd.weighted_n_node_samples = e.weight
    if B.categorical != NULL:
        memset(B.cat_bits + idx * CAT_WORDS, 0, CAT_WORDS * sizeof(uint64_t))
    if B.regression:
        # the weighted mean (median), held within the bounds the constraints set
        if B.absolute:
            B.values[idx] = e.median
        else:
            B.values[idx] = counts[0] / e.weight
        if B.values[idx] < e.lower:
            B.values[idx] = e.lower
        elif B.values[idx] > e.upper:
            B.values[idx] = e.upper
    else:
        for c in range(K):
            B.values[idx * K + c] = counts[c] / e.weight
    if B.monotonic != NULL and K == 2 and not B.regression:
        # the class-0 fraction is held within the bounds the constraints set (two
        # classes), as scikit-learn does, and the other fraction is its complement
        if B.values[idx * K] < e.lower:
            B.values[idx * K] = e.lower
        elif B.values[idx * K] > e.upper:
            B.values[idx * K] = e.upper
        B.values[idx * K + 1] = 1.0 - B.values[idx * K]
    if e.parent >= 0:
        if e.is_left:
            B.nodes[e.parent].left_child = idx
        else:
            B.nodes[e.parent].right_child = idx
    if e.depth > B.depth_reached:
        B.depth_reached = e.depth
    e.node_id = idx
    e.has_split = 0
    if can_split and not _is_leaf(B, e.depth, e.end - e.start, e.weight, e.impurity):
        _find_split(B, ei)
    return 0


cdef inline void _partition_both(key_t* L, key_t* R, int64_t s, int64_t e, int64_t p,
                                 const uint32_t* gl, uint64_t im) noexcept nogil:
    # In place: left keys packed from L[s], right ones into the scratch R, then copied
    # back to L[p:e).  Branch-free: every key is written to both places and only the
    # cursor of its own side moves (a stray write to L[il] lands at or before q, on a key
    # already read; one to R[ir] lands inside R, which has room for e - s + 1 keys).
    cdef int64_t il = s, ir = 0, q, g
    cdef key_t k
    for q in range(s, e):
        k = L[q]
        g = _side(gl, k & im)
        L[il] = k
        R[ir] = k
        il += g
        ir += 1 - g
    memcpy(L + p, R, min(ir, e - p) * sizeof(key_t))


cdef inline int64_t _side(const uint32_t* gl, uint64_t i) noexcept nogil:
    """1 when sample i goes left (bit i of the bitmap gl)."""
    return <int64_t> ((gl[i >> 5] >> (i & 31)) & 1)


cdef void _mark_sides(uint32_t* gl, const key_t* L, int64_t s, int64_t cut, int64_t enm,
                      int64_t e, bint missing_left, uint64_t im) noexcept nogil:
    """Set the bitmap gl for a node's split on the feature whose slice is L[s:e): its
    samples in [s, cut) go left, those in [cut, e) right, except the missing ones
    [enm, e) when they go left."""
    cdef int64_t q
    cdef uint64_t ix
    for q in range(s, cut):
        ix = L[q] & im
        gl[ix >> 5] |= (<uint32_t> 1) << (ix & 31)
    for q in range(cut, e):
        ix = L[q] & im
        gl[ix >> 5] &= ~((<uint32_t> 1) << (ix & 31))
    if missing_left:
        for q in range(enm, e):
            ix = L[q] & im
            gl[ix >> 5] |= (<uint32_t> 1) << (ix & 31)


cdef inline void _partition_left(key_t* L, int64_t s, int64_t e, const uint32_t* gl,
                                 uint64_t im) noexcept nogil:
    # Only the left child is kept: pack its keys in place from L[s].
    cdef int64_t il = s, q
    cdef key_t k
    for q in range(s, e):
        k = L[q]
        L[il] = k
        il += _side(gl, k & im)


cdef inline void _partition_right(key_t* L, key_t* R, int64_t s, int64_t e, int64_t p,
                                  const uint32_t* gl, uint64_t im) noexcept nogil:
    # Only the right child is kept: its keys go to the scratch, then to L[p:e).
    cdef int64_t ir = 0, q
    cdef key_t k
    for q in range(s, e):
        k = L[q]
        R[ir] = k
        ir += 1 - _side(gl, k & im)
    memcpy(L + p, R, min(ir, e - p) * sizeof(key_t))


cdef int64_t _count_varied(const uint64_t* consts, int64_t F) noexcept nogil:
    """Features not marked constant in a node's bitmap."""
    cdef int64_t w, n = 0
    for w in range((F + 63) >> 6):
        n += rf_popcount64(consts[w])
    return F - n


cdef int _expand(Builder* B, int64_t ei, bint children_final, int64_t* out) noexcept nogil:
    """Split a node: mark sides, partition the lists, make the two child entries.

    Right after a feature's slice is partitioned, each child's first and last keys tell
    whether the feature is constant in that child; it is then marked so, and neither
    scanned nor partitioned below it (with max_features < n_features this keeps
    constant columns, such as blank pixels, from being moved at every node)."""
    cdef int64_t K = B.n_classes, F = B.n_features, n_act = B.n_active
    cdef int64_t le = _ent_alloc(B), re = _ent_alloc(B)
    if le < 0 or re < 0:
        return -1
    cdef Entry* e = &B.ent[ei]
    cdef int64_t s = e.start, end = e.end, f = e.split.feature, q, g
    cdef int64_t cut = e.split.pos, enm = e.end - e.split.n_missing, p
    cdef int64_t depth = e.depth, W = B.n_words, node_id = e.node_id
    cdef int rs = B.rshift
    cdef key_t* R = B.scratch
    cdef const key_t* Lf = B.lists + f * n_act
    cdef key_t* D
    cdef uint32_t* gl = B.goleft
    cdef uint64_t* consts = B.ent_const + ei * W
    cdef uint64_t* lconsts = B.ent_const + le * W
    cdef uint64_t* rconsts = B.ent_const + re * W
    cdef uint64_t bit
    cdef bint lleaf, rleaf, presorted = e.presorted, kids_presorted
    cdef SplitInfo sp = e.split
    cdef bint moved = sp.n_missing > 0 and sp.missing_left
    cdef double bounds[4]          # lower, upper of the left child, then of the right
    cdef double middle
    cdef int cst = B.monotonic[f] if B.monotonic != NULL else 0
    cdef bint cat = B.categorical != NULL and B.categorical[f]
    bounds[0] = bounds[2] = e.lower
    bounds[1] = bounds[3] = e.upper
    if cst != 0:
        # children of a constrained split meet at the mean of their class-0 fractions
        # (of their means, medians)
        if B.absolute:
            middle = (sp.value_left + sp.value_right) / 2.0
        else:
            middle = (B.ent_counts[ei * 3 * K + K] / (2.0 * sp.weight_left)
                      + B.ent_counts[ei * 3 * K + 2 * K] / (2.0 * sp.weight_right))
        if cst == 1:
            bounds[1] = middle
            bounds[2] = middle
        else:
            bounds[0] = middle
            bounds[3] = middle
    # the left child holds [s, cut) of the split feature's list, plus its missing samples
    # [enm, end) when they go left; p is where the right child starts in every list
    # (a categorical split's pos is already the right child's start: _categorical_split)
    p = cut if cat else cut + (sp.n_missing if moved else 0)
    if cat:
        memcpy(B.cat_bits + node_id * CAT_WORDS, sp.cat_codes, CAT_WORDS * sizeof(uint64_t))
    B.nodes[node_id].feature = f
    B.nodes[node_id].threshold = sp.threshold
    B.nodes[node_id].missing_go_to_left = <uint8_t> sp.missing_left
    lleaf = children_final or _is_leaf(B, depth + 1, p - s, sp.weight_left, sp.impurity_left)
    rleaf = children_final or _is_leaf(B, depth + 1, end - p, sp.weight_right,
                                       sp.impurity_right)
    memcpy(lconsts, consts, W * sizeof(uint64_t))
    memcpy(rconsts, consts, W * sizeof(uint64_t))
    kids_presorted = presorted
    if lleaf and rleaf:
        pass
    elif not presorted:
        _partition_samples(B, s, end, p, f, sp.cut_rank, moved,
                           sp.cat_left if cat else NULL)
    elif B.method == METHOD_AUTO and not _lists_pay(B.max_features, F, B.rbits,
                                                     _count_varied(consts, F)):
        if cat:
            _samples_from_list_cat(B, Lf, s, end, sp.cat_left, lleaf, rleaf)
        else:
            _samples_from_list(B, Lf, s, cut, enm, end, moved, lleaf, rleaf)
        kids_presorted = False
    else:
        if cat:
            _mark_sides_cat(gl, Lf, s, end, sp.cat_left, rs, B.imask)
        else:
            _mark_sides(gl, Lf, s, cut, enm, end, moved, B.imask)
        for g in range(F):
            bit = (<uint64_t> 1) << (g & 63)
            if consts[g >> 6] & bit:
                continue
            D = B.lists + g * n_act
            if g == f and not moved and not cat:
                pass                 # already in order: [s, p) left, [p, end) right
            elif B.use_avx512:
                rf_partition_avx512(D, R, s, end, p, gl, B.imask,
                                    2 if lleaf else (1 if rleaf else 0))
            elif lleaf:
                _partition_right(D, R, s, end, p, gl, B.imask)
            elif rleaf:
                _partition_left(D, s, end, gl, B.imask)
            else:
                _partition_both(D, R, s, end, p, gl, B.imask)
            if not lleaf and ((D[s] ^ D[p - 1]) >> rs) == 0:
                lconsts[g >> 6] |= bit
            if not rleaf and ((D[p] ^ D[end - 1]) >> rs) == 0:
                rconsts[g >> 6] |= bit
    for q in range(2):
        g = le if q == 0 else re
        e = &B.ent[g]
        e.start = s if q == 0 else p
        e.end = p if q == 0 else end
        e.depth = depth + 1
        e.parent = node_id
        e.node_id = -1
        e.is_left = 1 if q == 0 else 0
        e.has_split = 0
        e.presorted = kids_presorted
        e.impurity = sp.impurity_left if q == 0 else sp.impurity_right
        e.weight = sp.weight_left if q == 0 else sp.weight_right
        e.lower = bounds[2 * q]
        e.upper = bounds[2 * q + 1]
        if B.absolute:
            e.median = sp.value_left if q == 0 else sp.value_right
        memcpy(B.ent_counts + g * 3 * K, B.ent_counts + ei * 3 * K + (1 + q) * K,
               K * sizeof(double))
    out[0] = le
    out[1] = re
    return 0


cdef int _grow(Builder* B, int64_t root, int64_t max_leaf_nodes) noexcept nogil:
    cdef int64_t ei, splits_left, q
    cdef int64_t kids[2]
    if max_leaf_nodes > 0:
        # best-first: nodes are numbered when created; the frontier is a heap
        splits_left = max_leaf_nodes - 1
        if _create_node(B, root, splits_left > 0) < 0:
            return -1
        if B.ent[root].has_split:
            if _heap_push(B, root) < 0:
                return -1
        while B.order_len > 0 and splits_left > 0:
            ei = _heap_pop(B)
            splits_left -= 1
            if _expand(B, ei, splits_left == 0, kids) < 0:
                return -1
            _ent_release(B, ei)
            for q in range(2):
                if _create_node(B, kids[q], splits_left > 0) < 0:
                    return -1
                if B.ent[kids[q]].has_split:
                    if _heap_push(B, kids[q]) < 0:
                        return -1
                else:
                    _ent_release(B, kids[q])
    else:
        # depth-first: nodes are numbered when popped (pre-order); the frontier is a stack
        if _order_push(B, root) < 0:
            return -1
        while B.order_len > 0:
            B.order_len -= 1
            ei = B.order[B.order_len]
            if _create_node(B, ei, True) < 0:
                return -1
            if B.ent[ei].has_split:
                if _expand(B, ei, False, kids) < 0:
                    return -1
                if _order_push(B, kids[1]) < 0 or _order_push(B, kids[0]) < 0:
                    return -1
            _ent_release(B, ei)
    return 0


cdef void _free_builder(Builder* B) noexcept nogil:
    if not B.borrowed_lists:
        free(B.lists)
    free(B.samples)
    free(B.sorted_keys[0])
    free(B.sorted_keys[1])
    free(B.sort_tmp)
    free(B.hist)
    free(B.scratch)
    free(B.goleft)
    free(B.nan_rank)
    free(B.few)
    free(B.xlogx_table)
    free(B.ylist)
    free(B.ytmp)
    free(B.abs_rank)
    free(B.abs_rec)
    free(B.abs_cost)
    free(B.abs_med)
    free(B.cl)
    free(B.cr)
    free(B.fl)
    free(B.fr)
    free(B.cli)
    free(B.cri)
    free(B.feats)
    free(B.ent)
    free(B.ent_counts)
    free(B.ent_const)
    free(B.free_list)
    free(B.order)
    free(B.nodes)
    free(B.values)
    free(B.cat_bits)
    free(B.cat_stat)
    free(B.cat_w)
    free(B.cat_n)
    free(B.cat_lv)
    free(B.cat_sv)
    free(B.cat_grp)
    free(B.cat_ord)
    free(B.cat_side)
    free(B.cat_cl)
    free(B.cat_cr)


cdef int _bit_length(uint64_t v) noexcept nogil:
    cdef int b = 0
    while v:
        v >>= 1
        b += 1
    return b


cdef int _fill_list(const uint32_t* row, const uint64_t* payload, int64_t n, int64_t n_act,
                    int rshift, key_t* out) noexcept nogil:
    """One feature's working list: the samples of this tree (payload not INACTIVE) in
    presorted order, each key carrying its dense rank (counted from the bitmap of value
    starts that follows the order in ``row``).  -1 if ``row`` holds an index out of
    range or the wrong number of this tree's samples.  (Keys that are no permutation
    of the samples in other ways give a wrong tree, never a stray memory access: the
    partitions never write past their node's slice.)"""
    cdef const uint32_t* starts = row + n
    cdef uint64_t rank = <uint64_t> -1     # position 0 starts a value: rank 0
    cdef uint64_t kk
    cdef int64_t i, i0, q = 0
    cdef uint32_t ix, bits
    for i0 in range(0, n, 32):             # one word of the bitmap: 32 positions
        bits = starts[i0 >> 5]
        for i in range(i0, min(i0 + 32, n)):
            rank += bits & 1
            bits >>= 1
            ix = row[i]
            if ix >= n:
                return -1
            kk = payload[ix]
            if kk != INACTIVE:
                if q == n_act:
                    return -1
                out[q] = (rank << rshift) | kk
                q += 1
    return 0 if q == n_act else -1
