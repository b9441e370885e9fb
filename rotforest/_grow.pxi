# Frontier entries, nodes, partitions of the lists and the growth loop.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Frontier entries, nodes
# ----------------------------------------------------------------------------------------

cdef int64_t _ent_alloc(Builder* B) noexcept nogil:
    cdef int64_t cap
    cdef void* p
    if B.front.n_free > 0:
        B.front.n_free -= 1
        return B.front.free_list[B.front.n_free]
    if B.front.used == B.front.cap:
        cap = 2 * B.front.cap
        p = realloc(B.front.ent, cap * sizeof(Entry))
        if p == NULL:
            B.error = 1
            return -1
        B.front.ent = <Entry*> p
        p = realloc(B.front.counts, cap * 3 * B.data.n_classes * sizeof(double))
        if p == NULL:
            B.error = 1
            return -1
        B.front.counts = <double*> p
        p = realloc(B.front.constant, cap * B.front.n_words * sizeof(uint64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.front.constant = <uint64_t*> p
        p = realloc(B.front.free_list, cap * sizeof(int64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.front.free_list = <int64_t*> p
        if B.front.set_words:
            p = realloc(B.front.sets, cap * B.front.set_words * sizeof(uint64_t))
            if p == NULL:
                B.error = 1
                return -1
            B.front.sets = <uint64_t*> p
        B.front.cap = cap
    B.front.used += 1
    return B.front.used - 1


cdef inline void _ent_release(Builder* B, int64_t ei) noexcept nogil:
    B.front.free_list[B.front.n_free] = ei
    B.front.n_free += 1


cdef int _order_push(Builder* B, int64_t ei) noexcept nogil:
    cdef void* p
    if B.front.order_len == B.front.order_cap:
        p = realloc(B.front.order, 2 * B.front.order_cap * sizeof(int64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.front.order = <int64_t*> p
        B.front.order_cap *= 2
    B.front.order[B.front.order_len] = ei
    B.front.order_len += 1
    return 0


cdef inline bint _heap_above(const Builder* B, int64_t a, int64_t b) noexcept nogil:
    cdef double ia = B.front.ent[a].split.improvement, ib = B.front.ent[b].split.improvement
    return ia > ib or (ia == ib and B.front.ent[a].node_id < B.front.ent[b].node_id)


cdef int _heap_push(Builder* B, int64_t ei) noexcept nogil:
    cdef int64_t i, parent, tmp
    if _order_push(B, ei) < 0:
        return -1
    i = B.front.order_len - 1
    while i > 0:
        parent = (i - 1) >> 1
        if not _heap_above(B, B.front.order[i], B.front.order[parent]):
            break
        tmp = B.front.order[i]
        B.front.order[i] = B.front.order[parent]
        B.front.order[parent] = tmp
        i = parent
    return 0


cdef int64_t _heap_pop(Builder* B) noexcept nogil:
    cdef int64_t top = B.front.order[0], i = 0, l, r, m, tmp
    B.front.order_len -= 1
    B.front.order[0] = B.front.order[B.front.order_len]
    while True:
        l = 2 * i + 1
        r = l + 1
        m = i
        if l < B.front.order_len and _heap_above(B, B.front.order[l], B.front.order[m]):
            m = l
        if r < B.front.order_len and _heap_above(B, B.front.order[r], B.front.order[m]):
            m = r
        if m == i:
            break
        tmp = B.front.order[i]
        B.front.order[i] = B.front.order[m]
        B.front.order[m] = tmp
        i = m
    return top


cdef void _output_values(const Builder* B, const double* counts, double w,
                         double* out) noexcept nogil:
    """A node's values with several outputs: per output its class fractions (padded
    with zeros to the most classes of an output), or its mean target."""
    cdef int64_t o, c, a, b, m = B.data.max_classes
    for o in range(B.data.n_outputs):
        if B.par.absolute:      # (its medians, see _absolute_children_outputs)
            out[o] = counts[3 * o]
            continue
        if B.data.regression:
            out[o] = counts[3 * o] / w
            continue
        a = B.data.offs[o]
        b = B.data.offs[o + 1]
        for c in range(m):
            out[o * m + c] = counts[a + c] / w if c < b - a else 0.0


cdef int _create_node(Builder* B, int64_t ei, bint can_split) noexcept nogil:
    """Append the entry's node to the tree (as a leaf) and, if it may split, find its split."""
    cdef Entry* e = &B.front.ent[ei]
    cdef int64_t K = B.data.n_classes, idx, c, cap
    cdef const double* counts = B.front.counts + ei * 3 * K
    cdef void* p
    cdef Node* nd
    if B.out.count == MAX_NODES:
        B.error = 2              # node ids are 32-bit (see Node)
        return -1
    if B.out.count == B.out.cap:
        cap = min(2 * B.out.cap, MAX_NODES)
        p = realloc(B.out.nodes, cap * sizeof(Node))
        if p == NULL:
            B.error = 1
            return -1
        B.out.nodes = <Node*> p
        p = realloc(B.out.values, cap * B.data.n_values * sizeof(double))
        if p == NULL:
            B.error = 1
            return -1
        B.out.values = <double*> p
        if B.out.code_words:
            p = realloc(B.out.code_row, cap * sizeof(int64_t))
            if p == NULL:
                B.error = 1
                return -1
            B.out.code_row = <int64_t*> p
        B.out.cap = cap
    idx = B.out.count
    B.out.count += 1
    nd = &B.out.nodes[idx]
    memset(nd, 0, sizeof(Node))
    nd.left_child = -1
    nd.right_child = -1
    nd.feature = -2
    nd.threshold = -2.0
    nd.impurity = e.impurity
    nd.n_node_samples = e.end - e.start
    nd.weighted_n_node_samples = e.weight
    if B.out.code_words:
        B.out.code_row[idx] = -1
    if B.data.n_outputs > 1:
        _output_values(B, counts, e.weight, B.out.values + idx * B.data.n_values)
    elif B.data.regression:
        # the weighted mean (median), held within the bounds the constraints set
        if B.par.absolute:
            B.out.values[idx] = e.median
        else:
            B.out.values[idx] = counts[0] / e.weight
        if B.out.values[idx] < e.lower:
            B.out.values[idx] = e.lower
        elif B.out.values[idx] > e.upper:
            B.out.values[idx] = e.upper
    else:
        for c in range(K):
            B.out.values[idx * K + c] = counts[c] / e.weight
    if B.data.monotonic != NULL and K == 2 and not B.data.regression:
        # the class-0 fraction is held within the bounds the constraints set (two
        # classes), as scikit-learn does, and the other fraction is its complement
        if B.out.values[idx * K] < e.lower:
            B.out.values[idx * K] = e.lower
        elif B.out.values[idx * K] > e.upper:
            B.out.values[idx * K] = e.upper
        B.out.values[idx * K + 1] = 1.0 - B.out.values[idx * K]
    if e.parent >= 0:
        if e.is_left:
            B.out.nodes[e.parent].left_child = idx
        else:
            B.out.nodes[e.parent].right_child = idx
    if e.depth > B.out.depth:
        B.out.depth = e.depth
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


cdef int _store_set(Builder* B, int64_t node_id, const uint64_t* codes,
                   bint missing_left) noexcept nogil:
    """Stores the set of codes that node node_id's categorical split sends left (code_words
    words of bits; the codes absent from the node follow the missing values) as the
    shorter of its two forms (see _tree.pxd): the bits up to the last word that differs
    from the missing values' side, or the list of the codes that go the other way."""
    cdef void* p
    cdef int64_t W = B.out.code_words, j, last = 0, k = 0, size, at
    cdef uint64_t fill = <uint64_t> -1 if missing_left else 0, x
    cdef uint32_t* out
    cdef bint listed
    for j in range(W):
        x = codes[j] ^ fill
        if x:
            last = j
            k += rf_popcount64(x)
    listed = k > 0 and (k + 1) >> 1 < last + 1
    size = 1 + ((k + 1) >> 1 if listed else last + 1)
    if B.out.sets_used + size > B.out.sets_cap:
        p = realloc(B.out.left_codes,
                    max(2 * B.out.sets_cap, B.out.sets_used + size) * sizeof(uint64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.out.left_codes = <uint64_t*> p
        B.out.sets_cap = max(2 * B.out.sets_cap, B.out.sets_used + size)
    at = B.out.sets_used
    if listed:
        B.out.left_codes[at] = ((<uint64_t> k) << 2) | SET_LIST
        B.out.left_codes[at + size - 1] = 0          # (an odd count's last half word)
        out = <uint32_t*> (B.out.left_codes + at + 1)
        k = 0
        for j in range(last + 1):
            x = codes[j] ^ fill
            while x:
                out[k] = <uint32_t> (64 * j + rf_ctz64(x))
                k += 1
                x &= x - 1
    else:
        B.out.left_codes[at] = ((<uint64_t> (last + 1)) << 2) | SET_BITS
        memcpy(B.out.left_codes + at + 1, codes, (last + 1) * sizeof(uint64_t))
    B.out.code_row[node_id] = at
    B.out.sets_used += size
    return 0


cdef int _expand(Builder* B, int64_t ei, bint children_final, int64_t* out) noexcept nogil:
    """Split a node: mark sides, partition the lists, make the two child entries.

    Right after a feature's slice is partitioned, each child's first and last keys tell
    whether the feature is constant in that child; it is then marked so, and neither
    scanned nor partitioned below it (with max_features < n_features this keeps
    constant columns, such as blank pixels, from being moved at every node)."""
    cdef int64_t K = B.data.n_classes, F = B.data.n_features, n_act = B.data.n_active
    cdef int64_t le = _ent_alloc(B), re = _ent_alloc(B)
    if le < 0 or re < 0:
        return -1
    cdef Entry* e = &B.front.ent[ei]
    cdef int64_t s = e.start, end = e.end, f = e.split.feature, q, g
    cdef int64_t cut = e.split.pos, enm = e.end - e.split.n_missing, p
    cdef int64_t depth = e.depth, W = B.front.n_words, node_id = e.node_id
    cdef int rs = B.key.rshift
    cdef key_t* R = B.work.scratch
    cdef const key_t* Lf = B.col.lists + f * n_act
    cdef key_t* D
    cdef uint32_t* gl = B.work.goleft
    cdef uint64_t* consts = B.front.constant + ei * W
    cdef uint64_t* lconsts = B.front.constant + le * W
    cdef uint64_t* rconsts = B.front.constant + re * W
    cdef uint64_t bit
    cdef bint lleaf, rleaf, presorted = e.presorted, kids_presorted
    cdef SplitInfo sp = e.split
    cdef bint moved = sp.n_missing > 0 and sp.missing_left
    cdef const uint64_t* sets = NULL   # a categorical split's ranks, then codes, that go left
    cdef double bounds[4]          # lower, upper of the left child, then of the right
    cdef double middle
    cdef int cst = B.data.monotonic[f] if B.data.monotonic != NULL else 0
    cdef bint cat = B.cat.mask != NULL and B.cat.mask[f]
    bounds[0] = bounds[2] = e.lower
    bounds[1] = bounds[3] = e.upper
    if cst != 0:
        # children of a constrained split meet at the mean of their class-0 fractions
        # (of their means, medians)
        if B.par.absolute:
            middle = (sp.value_left + sp.value_right) / 2.0
        else:
            middle = (B.front.counts[ei * 3 * K + K] / (2.0 * sp.weight_left)
                      + B.front.counts[ei * 3 * K + 2 * K] / (2.0 * sp.weight_right))
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
        sets = _entry_sets(B, ei)
        if _store_set(B, node_id, sets + B.cat.rank_words, sp.missing_left) < 0:
            return -1
    B.out.nodes[node_id].feature = f
    B.out.nodes[node_id].threshold = sp.threshold
    B.out.nodes[node_id].missing_go_to_left = <uint8_t> sp.missing_left
    lleaf = children_final or _is_leaf(B, depth + 1, p - s, sp.weight_left,
                                       sp.impurity_left)
    rleaf = children_final or _is_leaf(B, depth + 1, end - p, sp.weight_right,
                                       sp.impurity_right)
    memcpy(lconsts, consts, W * sizeof(uint64_t))
    memcpy(rconsts, consts, W * sizeof(uint64_t))
    kids_presorted = presorted
    if lleaf and rleaf or B.par.values:
        pass        # (values: the samples were partitioned with the split, see there)
    elif not presorted:
        _partition_samples(B, s, end, p, f, sp.cut_rank, moved,
                           sets if cat else NULL)
    elif B.par.method == METHOD_AUTO and not _lists_pay(B.par.max_features, F,
                                                        B.key.rbits,
                                                        _count_varied(consts, F)):
        if cat:
            _samples_from_list_cat(B, Lf, s, end, sets, lleaf, rleaf)
        else:
            _samples_from_list(B, Lf, s, cut, enm, end, moved, lleaf, rleaf)
        kids_presorted = False
    else:
        if cat:
            _mark_sides_cat(gl, Lf, s, end, sets, rs, B.key.imask)
        else:
            _mark_sides(gl, Lf, s, cut, enm, end, moved, B.key.imask)
        for g in range(F):
            bit = (<uint64_t> 1) << (g & 63)
            if consts[g >> 6] & bit:
                continue
            D = B.col.lists + g * n_act
            if g == f and not moved and not cat:
                pass                 # already in order: [s, p) left, [p, end) right
            elif B.par.use_avx512:
                rf_partition_avx512(D, R, s, end, p, gl, B.key.imask,
                                    2 if lleaf else (1 if rleaf else 0))
            elif lleaf:
                _partition_right(D, R, s, end, p, gl, B.key.imask)
            elif rleaf:
                _partition_left(D, s, end, gl, B.key.imask)
            else:
                _partition_both(D, R, s, end, p, gl, B.key.imask)
            if not lleaf and ((D[s] ^ D[p - 1]) >> rs) == 0:
                lconsts[g >> 6] |= bit
            if not rleaf and ((D[p] ^ D[end - 1]) >> rs) == 0:
                rconsts[g >> 6] |= bit
    for q in range(2):
        g = le if q == 0 else re
        e = &B.front.ent[g]
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
        if B.par.absolute:
            e.median = sp.value_left if q == 0 else sp.value_right
        memcpy(B.front.counts + g * 3 * K, B.front.counts + ei * 3 * K + (1 + q) * K,
               K * sizeof(double))
        e.hist = -1
        e.hist_full = 0
    if B.front.ent[ei].hist >= 0:
        if lleaf and rleaf:
            _hist_release(B, &B.front.ent[ei])
        else:
            _hist_children(B, ei, le, re, lleaf, rleaf)
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
        if B.front.ent[root].has_split:
            if _heap_push(B, root) < 0:
                return -1
        while B.front.order_len > 0 and splits_left > 0:
            ei = _heap_pop(B)
            splits_left -= 1
            if _expand(B, ei, splits_left == 0, kids) < 0:
                return -1
            _ent_release(B, ei)
            for q in range(2):
                if _create_node(B, kids[q], splits_left > 0) < 0:
                    return -1
                if B.front.ent[kids[q]].has_split:
                    if _heap_push(B, kids[q]) < 0:
                        return -1
                else:
                    _ent_release(B, kids[q])
    else:
        # depth-first: nodes are numbered when popped (pre-order); the frontier is a stack
        if _order_push(B, root) < 0:
            return -1
        while B.front.order_len > 0:
            B.front.order_len -= 1
            ei = B.front.order[B.front.order_len]
            if _create_node(B, ei, True) < 0:
                return -1
            if B.front.ent[ei].has_split:
                if _expand(B, ei, False, kids) < 0:
                    return -1
                if _order_push(B, kids[1]) < 0 or _order_push(B, kids[0]) < 0:
                    return -1
            _hist_release(B, &B.front.ent[ei])
            _ent_release(B, ei)
    return 0


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
