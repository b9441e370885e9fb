"""Exact SHAP kernels for trees whose nodes may read several features at once.

A tree is described to these kernels by *blocks*: groups of original features such that
every split reads features of one block only (for our axis-aligned trees, each feature
used is a block of one; for a rotation forest's tree, a block is a group of features that
its axes mix, with the indicator and category columns of those features).  ``mask[n]``
holds the members of node ``n``'s block that its test reads.

Both games of a tree factor over blocks, leaf by leaf:

    v(S) = sum over leaves l of value[l] * prod over blocks B of F_l,B(S & B)

where F_l,B is a product over the edges on the way to l whose node reads block B.
*Path-dependent* (shap's "tree_path_dependent"): an edge's factor is 1 or 0 (whether the
explained row takes it) when every feature its node reads is in S, else the edge's share
of its parent's training cover.  *Interventional*, for a pair (row x, background row b):
an edge's factor is whether the row made of x's values on S and b's elsewhere takes it.

The Shapley value of a product of block games is Owen's multilinear extension at the
diagonal, integrated over [0, 1]:

    phi_i = sum_l value[l] * int_0^1 D_l,B,i(t) prod_{B' != B} E_l,B'(t) dt      (i in B)

with E_B(t) = sum_T F_B(T) t^|T| (1-t)^(|B|-|T|) and D_B,i the same sum of
F_B(T + i) - F_B(T) over the subsets T of B without i.  The integrands are polynomials,
so a Gauss-Legendre rule of enough points is exact.

Path-dependent: one walk of the tree per row carries prod_B E_B at the rule's points down
the path and the sums over leaves back up, and attributes a leaf's share to a block at
the deepest edge of its path that reads the block: O(nodes x points x outputs) per row
and tree (the idea of Linear TreeSHAP, extended to blocks).  Interventional: one walk
per pair, which follows only the edges that some mixture of x and b takes; at each leaf
reached the factors are 0/1 and the integrals are exact sums of Beta integrals.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.math cimport isnan, NAN, rint
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from rotforest._tree cimport Node, goes_left

MAX_BLOCK = 12                  # 4096 subsets of a block's members

cdef enum:
    CMAX_BLOCK = 12

# how a node's test value is made from the features of its block (see explain.py)
cdef enum:
    RAW = 0            # the feature's value (an axis-aligned tree)
    AXIS_ROUTE = 1     # sum of weight x normalised value; NaN when a member is missing
    AXIS_IMPUTE = 2    # sum of weight x normalised value (missing ones are 0)
    INDICATOR = 3      # 1.0 when the feature is missing, else 0.0
    CODE = 4           # rint(value x scale + mean); NaN when missing

cdef inline int _popcount(uint32_t v) noexcept nogil:
    cdef int c = 0
    while v:
        v &= v - 1
        c += 1
    return c


cdef struct TreeView:
    const Node* nodes
    const double* value          # node_count x K
    const uint64_t* codes        # the tree's code_sets, or NULL
    const int64_t* code_at       # per node: the start of its set there, -1 for none
    const int32_t* block         # per node, -1 for a leaf
    const uint32_t* mask         # per node: the block members its test reads
    const int32_t* bsize         # per block
    const int32_t* bstart        # per block: its members in bfeat
    const int32_t* bfeat         # the original feature of every member
    int32_t n_blocks
    int32_t max_bsize
    int32_t K
    # interventional: every node's test value, from its entries
    const int32_t* kind          # per node
    const int64_t* estart        # per node: entries estart[n] .. estart[n + 1]
    const int32_t* efeat         # the original feature of an entry
    const uint32_t* ebit         # its member bit in the block
    const double* ew             # weight (axes), scale (codes)
    const double* emean          # mean (codes)


cdef inline const uint64_t* _codes_of(const TreeView* t, int32_t n) noexcept nogil:
    """Node n's row of the tree's code sets, NULL for a node without one."""
    if t.codes == NULL or t.code_at[n] < 0:
        return NULL
    return t.codes + t.code_at[n]


cdef int _view(TreeView* t, nodes, value, codes, code_at, block, mask, bsize, bstart,
               bfeat, int32_t max_bsize) except -1:
    cdef const uint8_t[::1] raw = nodes.view(np.uint8).reshape(-1)
    cdef const double[:, ::1] v = value
    cdef const uint64_t[::1] c
    cdef const int64_t[::1] ca
    cdef const int32_t[::1] bl = block, bs = bsize, bst = bstart, bf = bfeat
    cdef const uint32_t[::1] mk = mask
    if max_bsize > CMAX_BLOCK:
        raise ValueError(f"a block of {max_bsize} features; at most {CMAX_BLOCK}")
    t.nodes = <const Node*> &raw[0]
    t.value = &v[0, 0]
    t.K = <int32_t> v.shape[1]
    t.codes = NULL
    t.code_at = NULL
    if codes is not None:
        c = codes
        ca = code_at
        if ca.shape[0] != nodes.shape[0] or np.max(code_at) >= c.shape[0]:
            raise ValueError("code_at must give every node the start of its set, or -1")
        t.codes = &c[0]
        t.code_at = &ca[0]
    t.block = &bl[0]
    t.mask = &mk[0]
    t.n_blocks = <int32_t> bs.shape[0]
    t.bsize = &bs[0] if bs.shape[0] else NULL
    t.bstart = &bst[0] if bst.shape[0] else NULL
    t.bfeat = &bf[0] if bf.shape[0] else NULL
    t.max_bsize = max_bsize
    return 0


# ----------------------------------------------------------------------------------------
# Path-dependent SHAP
# ----------------------------------------------------------------------------------------

cdef struct PathCtx:
    const TreeView* t
    int q
    int K
    int TS                       # 2 ** max_bsize
    double* H                    # per depth: q x K, the sums over leaves below
    double* sub                  # per depth: q x K, what deeper edges of the same block take
    double* G                    # per depth: q, prod_B E_B on the path
    double* Esave                # per depth: q
    double* Tsave                # per depth: TS
    double* table                # per block: TS, F_B on the path
    double* E                    # per block: q
    int32_t* last                # per block: the depth of the deepest edge reading it
    const double* pw             # (max_bsize + 1) x (max_bsize + 1) x q
    const double* wq             # the rule's weights
    const double* x              # the explained row, as the tree reads it
    double* phi                  # n_features x K, this row's values
    double* R                    # q
    const double* tq             # the rule's points
    double* invE                 # per block: q, 1 / E (singleton blocks)
    double* invEsave             # per depth: q


cdef inline const double* _pw(const PathCtx* c, int n, int j) noexcept nogil:
    return c.pw + (n * (c.t.max_bsize + 1) + j) * c.q


cdef inline void _leaf_sums(const PathCtx* c, int32_t n, double* H,
                            const double* G) noexcept nogil:
    """A leaf's H: its values times G at every point of the rule."""
    cdef const double* v = c.t.value + <int64_t> n * c.K
    cdef int k, o
    for k in range(c.q):
        for o in range(c.K):
            H[k * c.K + o] = G[k] * v[o]


cdef inline void _add(double* dst, const double* src, int64_t m) noexcept nogil:
    cdef int64_t i
    for i in range(m):
        dst[i] += src[i]


cdef inline void _settle(PathCtx* c, int32_t feature, const double* Hc,
                         const double* sub1) noexcept nogil:
    """phi[feature] += the rule's sum of R (its weights times D / E) times the sums over
    the leaves below an edge that no deeper edge of the feature's block leads to."""
    cdef int K = c.K, o, k
    cdef int64_t idx = <int64_t> feature * K
    cdef double s
    for o in range(K):
        s = 0.0
        for k in range(c.q):
            s += c.R[k] * (Hc[k * K + o] - sub1[k * K + o])
        c.phi[idx + o] += s


cdef void _path_visit(PathCtx* c, int32_t n, int d) noexcept nogil:
    cdef const TreeView* t = c.t
    cdef const Node* nd = &t.nodes[n]
    cdef int q = c.q, K = c.K, k, o, side, i
    cdef int64_t qk = <int64_t> q * K, idx
    cdef double* H = c.H + d * qk
    cdef double* G = c.G + d * q
    cdef const double* v
    cdef int32_t B, child, saved_last
    cdef uint32_t mask, T, nT, bit
    cdef int bs
    cdef bint left, ind
    cdef double r, f, diff, s
    cdef double* table
    cdef double* E
    cdef double* Ts
    cdef double* Es
    cdef double* Gc
    cdef double* Hc
    cdef double* sub1
    cdef double* R = c.R
    cdef const double* p
    cdef bint any_left
    if nd.left_child == -1:
        _leaf_sums(c, n, H, G)
        return
    B = t.block[n]
    mask = t.mask[n]
    bs = t.bsize[B]
    nT = (<uint32_t> 1) << bs
    left = goes_left(nd, c.x[nd.feature], _codes_of(t, n))
    memset(H, 0, qk * sizeof(double))
    table = c.table + <int64_t> B * c.TS
    E = c.E + <int64_t> B * q
    Ts = c.Tsave + <int64_t> (d + 1) * c.TS
    Es = c.Esave + <int64_t> (d + 1) * q
    Gc = c.G + <int64_t> (d + 1) * q
    Hc = c.H + (d + 1) * qk
    sub1 = c.sub + (d + 1) * qk
    for side in range(2):
        child = nd.left_child if side == 0 else nd.right_child
        ind = left if side == 0 else not left
        r = t.nodes[child].weighted_n_node_samples / nd.weighted_n_node_samples
        memcpy(Ts, table, nT * sizeof(double))
        memcpy(Es, E, q * sizeof(double))
        any_left = False
        for T in range(nT):
            f = (1.0 if ind else 0.0) if (T & mask) == mask else r
            table[T] = Ts[T] * f
            any_left = any_left or table[T] != 0.0
        if any_left:
            for k in range(q):
                E[k] = 0.0
            for T in range(nT):
                if table[T] != 0.0:
                    p = _pw(c, bs, _popcount(T))
                    for k in range(q):
                        E[k] += table[T] * p[k]
            for k in range(q):
                Gc[k] = G[k] / Es[k] * E[k]
            saved_last = c.last[B]
            c.last[B] = d + 1
            memset(sub1, 0, qk * sizeof(double))
            _path_visit(c, child, d + 1)
            # the leaves below this edge that no deeper edge of B leads to: their share
            # of B's members is settled here
            for i in range(bs):
                bit = (<uint32_t> 1) << i
                for k in range(q):
                    R[k] = 0.0
                for T in range(nT):
                    if T & bit:
                        continue
                    diff = table[T | bit] - table[T]
                    if diff != 0.0:
                        p = _pw(c, bs - 1, _popcount(T))
                        for k in range(q):
                            R[k] += diff * p[k]
                for k in range(q):
                    R[k] *= c.wq[k] / E[k]
                _settle(c, t.bfeat[t.bstart[B] + i], Hc, sub1)
            _add(H, Hc, qk)
            c.last[B] = saved_last
        memcpy(table, Ts, nT * sizeof(double))
        memcpy(E, Es, q * sizeof(double))
    # the leaves below this node reach B again below the deepest edge above that read it
    if c.last[B] >= 0:
        _add(c.sub + c.last[B] * qk, H, qk)


cdef void _path_visit1(PathCtx* c, int32_t n, int d) noexcept nogil:
    """_path_visit for trees whose blocks are single features (F_B is then the pair
    b = F(empty), a = F({i}); E_B(t) = b (1 - t) + a t and D_B,i = a - b)."""
    cdef const TreeView* t = c.t
    cdef const Node* nd = &t.nodes[n]
    cdef int q = c.q, K = c.K, k, o, side
    cdef int64_t qk = <int64_t> q * K, idx
    cdef double* H = c.H + d * qk
    cdef const double* G = c.G + d * q
    cdef const double* v
    cdef const double* tq = c.tq
    cdef int32_t B, child, saved_last
    cdef bint left
    cdef double a0, b0, a, b, e, ie, diff, s, r
    cdef double* ab
    cdef double* E
    cdef double* invE
    cdef double* Es
    cdef double* invEs
    cdef double* Gc
    cdef double* Hc
    cdef double* sub1
    cdef double* R = c.R
    if nd.left_child == -1:
        _leaf_sums(c, n, H, G)
        return
    B = t.block[n]
    left = goes_left(nd, c.x[nd.feature], _codes_of(t, n))
    memset(H, 0, qk * sizeof(double))
    ab = c.table + 2 * <int64_t> B
    b0 = ab[0]
    a0 = ab[1]
    E = c.E + <int64_t> B * q
    invE = c.invE + <int64_t> B * q
    Es = c.Esave + <int64_t> (d + 1) * q
    invEs = c.invEsave + <int64_t> (d + 1) * q
    memcpy(Es, E, q * sizeof(double))
    memcpy(invEs, invE, q * sizeof(double))
    Gc = c.G + <int64_t> (d + 1) * q
    Hc = c.H + (d + 1) * qk
    sub1 = c.sub + (d + 1) * qk
    saved_last = c.last[B]
    for side in range(2):
        if side == 0:
            child = nd.left_child
            a = a0 if left else 0.0
        else:
            child = nd.right_child
            a = 0.0 if left else a0
        r = t.nodes[child].weighted_n_node_samples / nd.weighted_n_node_samples
        b = b0 * r
        if a == 0.0 and b == 0.0:
            continue
        ab[0] = b
        ab[1] = a
        for k in range(q):
            e = b + (a - b) * tq[k]
            ie = 1.0 / e
            E[k] = e
            invE[k] = ie
            Gc[k] = G[k] * invEs[k] * e
        c.last[B] = d + 1
        memset(sub1, 0, qk * sizeof(double))
        _path_visit1(c, child, d + 1)
        diff = a - b
        if diff != 0.0:
            for k in range(q):
                R[k] = c.wq[k] * diff * invE[k]
            _settle(c, t.bfeat[t.bstart[B]], Hc, sub1)
        _add(H, Hc, qk)
        c.last[B] = saved_last
    ab[0] = b0
    ab[1] = a0
    memcpy(E, Es, q * sizeof(double))
    memcpy(invE, invEs, q * sizeof(double))
    if c.last[B] >= 0:
        _add(c.sub + c.last[B] * qk, H, qk)


def _bernstein(tq, int max_bsize):
    """pw[n, j, k] = t_k^j (1 - t_k)^(n - j) for blocks of up to max_bsize features, at
    the rule's points t_k."""
    t = np.asarray(tq)
    out = np.empty((max_bsize + 1, max_bsize + 1, t.shape[0]))
    for n in range(max_bsize + 1):
        for j in range(n + 1):
            out[n, j] = t ** j * (1.0 - t) ** (n - j)
    return out


def path_dependent(nodes, value, codes, code_at, block, mask, bsize, bstart, bfeat,
                   int32_t max_bsize, int32_t max_depth, const double[:, :] rows,
                   double[:, :, ::1] phi, const double[::1] tq, const double[::1] wq):
    """Adds this tree's path-dependent SHAP values of every row of ``rows`` (as the tree
    reads them) to ``phi`` (n_rows x n_features x K); ``tq``, ``wq``: a Gauss-Legendre
    rule on [0, 1] exact for the tree's polynomials (see path_degree)."""
    cdef TreeView t
    _view(&t, nodes, value, codes, code_at, block, mask, bsize, bstart, bfeat,
          max_bsize)
    cdef PathCtx c
    cdef int q = tq.shape[0], K = t.K, n_levels = max_depth + 2, j, k, bs, i
    cdef int64_t qk = <int64_t> q * K, row, TS = (<int64_t> 1) << max_bsize
    if phi.shape[2] != K or phi.shape[0] != rows.shape[0]:
        raise ValueError("phi has the wrong shape")
    cdef const double[:, :, ::1] pw = _bernstein(tq, max_bsize)
    xbuf = np.empty(rows.shape[1])
    cdef double[::1] xb = xbuf
    c.t = &t
    c.q = q
    c.K = K
    c.TS = <int> TS
    c.pw = &pw[0, 0, 0]
    c.wq = &wq[0]
    c.H = <double*> malloc(n_levels * qk * sizeof(double))
    c.sub = <double*> malloc(n_levels * qk * sizeof(double))
    c.G = <double*> malloc(n_levels * q * sizeof(double))
    c.Esave = <double*> malloc(n_levels * q * sizeof(double))
    c.Tsave = <double*> malloc(n_levels * TS * sizeof(double))
    c.table = <double*> malloc((t.n_blocks + 1) * TS * sizeof(double))
    c.E = <double*> malloc((t.n_blocks + 1) * q * sizeof(double))
    c.last = <int32_t*> malloc((t.n_blocks + 1) * sizeof(int32_t))
    c.R = <double*> malloc(q * sizeof(double))
    c.tq = &tq[0]
    c.invE = <double*> malloc((t.n_blocks + 1) * q * sizeof(double))
    c.invEsave = <double*> malloc(n_levels * q * sizeof(double))
    try:
        if (c.H == NULL or c.sub == NULL or c.G == NULL or c.Esave == NULL
                or c.Tsave == NULL or c.table == NULL or c.E == NULL or c.last == NULL
                or c.R == NULL or c.invE == NULL or c.invEsave == NULL):
            raise MemoryError()
        with nogil:
            for j in range(t.n_blocks * TS):
                c.table[j] = 1.0
            for j in range(t.n_blocks * q):
                c.E[j] = 1.0
                c.invE[j] = 1.0
            for j in range(t.n_blocks):
                c.last[j] = -1
            for k in range(q):
                c.G[k] = 1.0
            for row in range(rows.shape[0]):
                for i in range(rows.shape[1]):
                    xb[i] = rows[row, i]
                c.x = &xb[0]
                c.phi = &phi[row, 0, 0]
                if max_bsize == 1:
                    _path_visit1(&c, 0, 0)
                else:
                    _path_visit(&c, 0, 0)
    finally:
        free(c.invE)
        free(c.invEsave)
        free(c.H)
        free(c.sub)
        free(c.G)
        free(c.Esave)
        free(c.Tsave)
        free(c.table)
        free(c.E)
        free(c.last)
        free(c.R)


def path_degree(nodes, const int32_t[::1] block, const int32_t[::1] bsize):
    """The largest number of features, over the tree's root-to-leaf paths, in the blocks
    that a path reads: the degree that bounds its polynomials."""
    cdef const uint8_t[::1] raw = nodes.view(np.uint8).reshape(-1)
    cdef const Node* nd = <const Node*> &raw[0]
    cdef int64_t n = nodes.shape[0], i, best = 0
    # children carry larger ids than their parents: one pass in id order, with each
    # node's count and, for the blocks, a walk up to see whether the path read it already
    count_a = np.zeros(n, dtype=np.int64)
    parent_a = np.full(n, -1, dtype=np.int64)
    cdef int64_t[::1] count = count_a, parent = parent_a
    cdef int64_t a
    cdef bint seen
    with nogil:
        for i in range(n):
            if nd[i].left_child != -1:
                parent[nd[i].left_child] = i
                parent[nd[i].right_child] = i
        for i in range(n):
            if i == 0:
                count[i] = 0
            else:
                a = parent[i]
                count[i] = count[a]
                # does an ancestor of a (or a) before a read block[a]? then no new degree
                seen = False
                a = parent[a]
                while a != -1:
                    if block[a] == block[parent[i]]:
                        seen = True
                        break
                    a = parent[a]
                if not seen:
                    count[i] += bsize[block[parent[i]]]
            if nd[i].left_child == -1 and count[i] > best:
                best = count[i]
    return int(best)


def expected_value(nodes, const double[:, ::1] value):
    """The cover-weighted mean of the leaves' values (the path-dependent game's value of
    the empty coalition), shape (K,)."""
    cdef const uint8_t[::1] raw = nodes.view(np.uint8).reshape(-1)
    cdef const Node* nd = <const Node*> &raw[0]
    cdef int64_t n = nodes.shape[0], i, o, K = value.shape[1]
    share_a = np.zeros(n)
    out_a = np.zeros(K)
    cdef double[::1] share = share_a, out = out_a
    with nogil:
        share[0] = 1.0
        for i in range(n):
            if nd[i].left_child == -1:
                for o in range(K):
                    out[o] += share[i] * value[i, o]
            else:
                share[nd[i].left_child] = (share[i] * nd[nd[i].left_child].weighted_n_node_samples
                                           / nd[i].weighted_n_node_samples)
                share[nd[i].right_child] = (share[i] * nd[nd[i].right_child].weighted_n_node_samples
                                            / nd[i].weighted_n_node_samples)
    return out_a


# ----------------------------------------------------------------------------------------
# Interventional SHAP
# ----------------------------------------------------------------------------------------

cdef struct PairCtx:
    const TreeView* t
    int K
    int TS
    uint8_t* table               # per block: TS, F_B on the path (0/1)
    uint8_t* Tsave               # per depth: TS
    uint8_t* dirs                # per depth: TS, whether each mixture goes left
    int32_t* onpath              # the blocks the path reads, in order
    int32_t n_onpath
    uint8_t* is_onpath           # per block
    const double* zx             # the explained row (values, missing flags)
    const uint8_t* mx
    const double* zb             # the background row
    const uint8_t* mb
    double* phi                  # n_features x K, this row's values
    const double* beta           # beta[M * (M_MAX + 1) + a] = a! (M - a)! / (M + 1)!
    int M_MAX
    int32_t* nontrivial          # scratch: nontrivial blocks at a leaf
    int q                        # a Gauss-Legendre rule exact for the tree's polynomials
    const double* wq
    const double* pw             # (max_bsize + 1) x (max_bsize + 1) x q, as in PathCtx
    double* Eb                   # scratch: per nontrivial block, E at the q points
    double* Pq                   # scratch: q, the product of the E
    double* cnt                  # scratch: max_bsize + 1


cdef inline double _test_value(const TreeView* t, int32_t n, uint32_t from_x,
                               const double* zx, const uint8_t* mx,
                               const double* zb, const uint8_t* mb) noexcept nogil:
    """Node n's test value for the row made of x's features where their member bit is in
    from_x and b's elsewhere (summed in the order of the prediction code)."""
    cdef int64_t e = t.estart[n], end = t.estart[n + 1]
    cdef int32_t kind = t.kind[n], f
    cdef bint use_x, miss
    cdef double acc = 0.0, z
    if kind == RAW:
        f = t.efeat[e]
        return zx[f] if (t.ebit[e] & from_x) else zb[f]
    if kind == INDICATOR or kind == CODE:
        f = t.efeat[e]
        use_x = (t.ebit[e] & from_x) != 0
        miss = mx[f] if use_x else mb[f]
        z = zx[f] if use_x else zb[f]
        if kind == INDICATOR:
            return 1.0 if miss else 0.0
        if miss:
            return NAN
        return rint(z * t.ew[e] + t.emean[e])
    miss = False
    while e < end:
        f = t.efeat[e]
        if t.ebit[e] & from_x:
            acc += zx[f] * t.ew[e]
            miss = miss or mx[f] != 0
        else:
            acc += zb[f] * t.ew[e]
            miss = miss or mb[f] != 0
        e += 1
    if kind == AXIS_ROUTE and miss:
        return NAN
    return acc


cdef void _pair_leaf(PairCtx* c, int32_t n) noexcept nogil:
    """Adds leaf n's share of this pair's Shapley values."""
    cdef const TreeView* t = c.t
    cdef int32_t j, B, bs, n_nt = 0, i, m, K = c.K, o
    cdef uint32_t T, nT, bit
    cdef const double* v = t.value + <int64_t> n * K
    cdef double* acc
    cdef double s, w
    cdef int64_t idx
    cdef int k, q
    cdef uint8_t* table
    cdef bint all_single = True
    cdef int nx = 0, nb = 0
    # blocks whose table is not all ones (where x and b make a difference)
    for j in range(c.n_onpath):
        B = c.onpath[j]
        table = c.table + <int64_t> B * c.TS
        nT = (<uint32_t> 1) << t.bsize[B]
        for T in range(nT):
            if not table[T]:
                c.nontrivial[n_nt] = B
                n_nt += 1
                if t.bsize[B] != 1:
                    all_single = False
                elif table[1]:
                    nx += 1
                else:
                    nb += 1
                break
    if n_nt == 0:
        return
    if all_single:
        # singletons: x's features S_x (table 01) and b's S_b (table 10); the classic
        # weights W(|S_x| - 1, |S_b|) and -W(|S_x|, |S_b| - 1)
        for j in range(n_nt):
            B = c.nontrivial[j]
            table = c.table + <int64_t> B * c.TS
            if table[1]:
                w = c.beta[(nx + nb - 1) * (c.M_MAX + 1) + nx - 1]
            else:
                w = -c.beta[(nx + nb - 1) * (c.M_MAX + 1) + nx]
            idx = <int64_t> t.bfeat[t.bstart[B]] * K
            for o in range(K):
                c.phi[idx + o] += w * v[o]
        return
    # general blocks: every nontrivial block's E at the rule's points, their product,
    # then for each member i of each block B the integral of D_B,i times the others' E
    # (E > 0 inside (0, 1): the empty set's term is positive or some set's is)
    q = c.q
    for k in range(q):
        c.Pq[k] = 1.0
    for j in range(n_nt):
        B = c.nontrivial[j]
        bs = t.bsize[B]
        table = c.table + <int64_t> B * c.TS
        nT = (<uint32_t> 1) << bs
        for m in range(bs + 1):
            c.cnt[m] = 0.0
        for T in range(nT):
            if table[T]:
                c.cnt[_popcount(T)] += 1.0
        acc = c.Eb + <int64_t> j * q
        for k in range(q):
            s = 0.0
            for m in range(bs + 1):
                s += c.cnt[m] * c.pw[(bs * (t.max_bsize + 1) + m) * q + k]
            acc[k] = s
            c.Pq[k] *= s
    for j in range(n_nt):
        B = c.nontrivial[j]
        bs = t.bsize[B]
        table = c.table + <int64_t> B * c.TS
        nT = (<uint32_t> 1) << bs
        acc = c.Eb + <int64_t> j * q
        for i in range(bs):
            bit = (<uint32_t> 1) << i
            for m in range(bs):
                c.cnt[m] = 0.0
            for T in range(nT):
                if T & bit:
                    continue
                c.cnt[_popcount(T)] += <double> table[T | bit] - <double> table[T]
            s = 0.0
            for k in range(q):
                w = 0.0
                for m in range(bs):
                    w += c.cnt[m] * c.pw[((bs - 1) * (t.max_bsize + 1) + m) * q + k]
                s += c.wq[k] * w * c.Pq[k] / acc[k]
            if s != 0.0:
                idx = <int64_t> t.bfeat[t.bstart[B] + i] * K
                for o in range(K):
                    c.phi[idx + o] += s * v[o]


cdef void _pair_visit(PairCtx* c, int32_t n, int d) noexcept nogil:
    cdef const TreeView* t = c.t
    cdef const Node* nd = &t.nodes[n]
    cdef int32_t B, child
    cdef uint32_t mask, A, T, nT
    cdef int side
    cdef bint newly, any_left, same, first
    cdef uint8_t* table
    cdef uint8_t* Ts
    cdef uint8_t* dirs
    cdef const uint64_t* codes
    cdef uint8_t want
    if nd.left_child == -1:
        _pair_leaf(c, n)
        return
    B = t.block[n]
    mask = t.mask[n]
    nT = (<uint32_t> 1) << t.bsize[B]
    codes = _codes_of(t, n)
    dirs = c.dirs + <int64_t> d * c.TS
    # the side of every mixture of x and b on the members the node reads
    A = mask
    same = True
    first = True
    while True:
        dirs[A] = goes_left(nd, _test_value(t, n, A, c.zx, c.mx, c.zb, c.mb), codes)
        if not first and dirs[A] != dirs[mask]:
            same = False
        first = False
        if A == 0:
            break
        A = (A - 1) & mask
    if same:
        # x and b agree here whatever they mix: nothing to record
        _pair_visit(c, nd.left_child if dirs[mask] else nd.right_child, d + 1)
        return
    table = c.table + <int64_t> B * c.TS
    Ts = c.Tsave + <int64_t> (d + 1) * c.TS
    newly = not c.is_onpath[B]
    if newly:
        c.is_onpath[B] = 1
        c.onpath[c.n_onpath] = B
        c.n_onpath += 1
    memcpy(Ts, table, nT)
    for side in range(2):
        child = nd.left_child if side == 0 else nd.right_child
        want = 1 if side == 0 else 0
        any_left = False
        for T in range(nT):
            table[T] = Ts[T] & (dirs[T & mask] == want)
            any_left = any_left or table[T] != 0
        if any_left:
            _pair_visit(c, child, d + 1)
    memcpy(table, Ts, nT)
    if newly:
        c.is_onpath[B] = 0
        c.n_onpath -= 1


def interventional(nodes, value, codes, code_at, block, mask, bsize, bstart, bfeat,
                   int32_t max_bsize, int32_t max_depth, kind, estart, efeat, ebit, ew,
                   emean, const double[:, ::1] zx, const uint8_t[:, ::1] mx,
                   const double[:, ::1] zb, const uint8_t[:, ::1] mb,
                   double[:, :, ::1] phi, const double[:, ::1] beta,
                   const double[::1] tq, const double[::1] wq):
    """Adds this tree's interventional SHAP values of every row of ``zx`` (missing flags
    ``mx``), summed over the background rows ``zb`` (``mb``), to ``phi`` (n_rows x
    n_features x K).  ``beta``: the table of a! (M - a)! / (M + 1)! (see beta_table),
    large enough for the tree's paths (path_degree); ``tq``, ``wq``: a Gauss-Legendre
    rule on [0, 1] exact for the tree's polynomials, for blocks of several features."""
    cdef TreeView t
    _view(&t, nodes, value, codes, code_at, block, mask, bsize, bstart, bfeat,
          max_bsize)
    cdef const int32_t[::1] kd = kind, ef = efeat
    cdef const int64_t[::1] es = estart
    cdef const uint32_t[::1] eb = ebit
    cdef const double[::1] ewv = ew, emv = emean
    t.kind = &kd[0]
    t.estart = &es[0]
    t.efeat = &ef[0] if ef.shape[0] else NULL
    t.ebit = &eb[0] if eb.shape[0] else NULL
    t.ew = &ewv[0] if ewv.shape[0] else NULL
    t.emean = &emv[0] if emv.shape[0] else NULL
    if phi.shape[2] != t.K or phi.shape[0] != zx.shape[0]:
        raise ValueError("phi has the wrong shape")
    cdef PairCtx c
    cdef int n_levels = max_depth + 2, j
    cdef int64_t TS = (<int64_t> 1) << max_bsize, row, r2
    c.t = &t
    c.K = t.K
    c.TS = <int> TS
    c.beta = &beta[0, 0]
    c.M_MAX = <int> beta.shape[1] - 1
    c.table = <uint8_t*> malloc((t.n_blocks + 1) * TS)
    c.Tsave = <uint8_t*> malloc(n_levels * TS)
    c.dirs = <uint8_t*> malloc(n_levels * TS)
    c.onpath = <int32_t*> malloc((t.n_blocks + 1) * sizeof(int32_t))
    c.is_onpath = <uint8_t*> malloc(t.n_blocks + 1)
    c.nontrivial = <int32_t*> malloc((t.n_blocks + 1) * sizeof(int32_t))
    cdef int q = tq.shape[0]
    cdef const double[:, :, ::1] pw = _bernstein(tq, max_bsize)
    c.q = q
    c.wq = &wq[0]
    c.pw = &pw[0, 0, 0]
    c.Eb = <double*> malloc((t.n_blocks + 1) * q * sizeof(double))
    c.Pq = <double*> malloc(q * sizeof(double))
    c.cnt = <double*> malloc((CMAX_BLOCK + 1) * sizeof(double))
    try:
        if (c.table == NULL or c.Tsave == NULL or c.dirs == NULL or c.onpath == NULL
                or c.is_onpath == NULL or c.nontrivial == NULL or c.Eb == NULL
                or c.Pq == NULL or c.cnt == NULL):
            raise MemoryError()
        with nogil:
            memset(c.table, 1, (t.n_blocks + 1) * TS)
            memset(c.is_onpath, 0, t.n_blocks + 1)
            c.n_onpath = 0
            for row in range(zx.shape[0]):
                c.zx = &zx[row, 0]
                c.mx = &mx[row, 0]
                c.phi = &phi[row, 0, 0]
                for r2 in range(zb.shape[0]):
                    c.zb = &zb[r2, 0]
                    c.mb = &mb[r2, 0]
                    _pair_visit(&c, 0, 0)
    finally:
        free(c.table)
        free(c.Tsave)
        free(c.dirs)
        free(c.onpath)
        free(c.is_onpath)
        free(c.nontrivial)
        free(c.Eb)
        free(c.Pq)
        free(c.cnt)


def beta_table(int m_max):
    """beta[M, a] = a! (M - a)! / (M + 1)! = int_0^1 t^a (1 - t)^(M - a) dt, M <= m_max."""
    out = np.zeros((m_max + 1, m_max + 1))
    for M in range(m_max + 1):
        out[M, 0] = 1.0 / (M + 1)
        for a in range(1, M + 1):
            out[M, a] = out[M, a - 1] * a / (M - a + 1)
    return out
