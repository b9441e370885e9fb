"""Fitted tree storage and the prediction kernels (apply, decision_path)."""
import numpy as np
from scipy.sparse import csr_matrix, issparse

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.math cimport NAN, isnan

TREE_LEAF = -1
TREE_UNDEFINED = -2

NODE_DTYPE = np.dtype({
    "names": ["left_child", "right_child", "feature", "threshold", "impurity",
              "n_node_samples", "weighted_n_node_samples", "missing_go_to_left"],
    "formats": ["<i4", "<i4", "<i4", "<f8", "<f8", "<i4", "<f8", "u1"],
    "offsets": [0, 4, 8, 12, 20, 28, 32, 40],
    "itemsize": 41,
})
assert sizeof(Node) == NODE_DTYPE.itemsize


cdef inline const Node* _node_ptr(nodes) except NULL:
    if nodes.dtype != NODE_DTYPE or not nodes.flags.c_contiguous or nodes.shape[0] == 0:
        raise ValueError("corrupt tree: node array has the wrong layout")
    cdef const uint8_t[::1] raw = nodes.view(np.uint8).reshape(-1)
    return <const Node*> &raw[0]


cdef struct FlatNode:      # the traversal layout: 16 bytes, siblings side by side
    double threshold       # NaN for a leaf: "x > NaN" is false, so a leaf loops on itself;
                           # a categorical split: its row of the table of code sets
    int32_t feature        # 0 for a leaf (any valid column); the top bit: NaN goes right;
                           # the next bit (CATEGORICAL): a split on a set of codes
    int32_t left           # the right child is left + 1; a leaf points to itself


FLAT_DTYPE = np.dtype({"names": ["threshold", "feature", "left"],
                       "formats": ["<f8", "<i4", "<i4"], "offsets": [0, 8, 12],
                       "itemsize": 16})
assert sizeof(FlatNode) == 16


def categorical_splits(nodes):
    """Boolean mask of the nodes that split on a set of codes (threshold NaN)."""
    return (nodes["left_child"] != TREE_LEAF) & np.isnan(nodes["threshold"])


def _bit_rows(rows):
    """Bitset rows (a 2-D uint64 array, a row of W words each) as code_sets rows."""
    rows = np.ascontiguousarray(rows, dtype=np.uint64)
    head = np.full((rows.shape[0], 1), (rows.shape[1] << 2) | SET_BITS, dtype=np.uint64)
    return np.ascontiguousarray(np.hstack([head, rows]).reshape(-1))


def _parse_sets(const uint64_t[::1] sets, int64_t n_rows):
    """The start of every row of ``sets`` (int64, n_rows + 1 entries, the last its
    length); ValueError unless they are exactly n_rows well-formed rows."""
    cdef int64_t pos = 0, r, n, kind, words, j, total = sets.shape[0]
    cdef const uint32_t* codes
    starts_arr = np.empty(n_rows + 1, dtype=np.int64)
    cdef int64_t[::1] starts = starts_arr
    cdef int bad = 0
    with nogil:
        for r in range(n_rows):
            starts[r] = pos
            if pos >= total:
                bad = 1
                break
            kind = <int64_t> (sets[pos] & 3)
            n = <int64_t> (sets[pos] >> 2)
            if kind > SET_LIST or (kind == SET_BITS and n < 1):
                bad = 2
                break
            words = set_size(&sets[pos]) - 1
            if words > total - pos - 1:
                bad = 1
                break
            if kind == SET_LIST:
                codes = <const uint32_t*> &sets[pos + 1]
                for j in range(n):
                    if codes[j] >= CODE_LIMIT or (j and codes[j] <= codes[j - 1]):
                        bad = 3
                        break
                if bad:
                    break
            pos += 1 + words
        starts[n_rows] = pos
    if bad == 1 or (not bad and pos != total):
        raise ValueError(f"corrupt tree: code_sets does not hold {n_rows} sets of codes")
    if bad == 2:
        raise ValueError("corrupt tree: a set of codes of an unknown kind or no width")
    if bad == 3:
        raise ValueError("corrupt tree: a list of codes out of order or out of range")
    return starts_arr


def _checked_codes(nodes, left_codes):
    """A tree's sets of codes as ``(code_sets, code_at)`` (see Tree), or ``(None, None)``
    for a tree without categorical splits; ValueError when they do not fit the nodes.

    Takes the sets as ``code_sets`` (1-D uint64) or as bitsets: a 2-D uint64 array of
    one row per categorical split in increasing node id, W >= 1 words each (bit c % 64
    of word c // 64: code c goes left); or of shape (node_count, 4), one 256-bit row per
    node (trees pickled before sets could be wider), where code 255, which went where
    the node's missing values go, is set to go there."""
    categorical = categorical_splits(nodes)
    n_split = int(np.count_nonzero(categorical))
    if left_codes is None:
        if n_split:
            raise ValueError("corrupt tree: a split without a threshold and no code sets")
        return None, None
    left_codes = np.asarray(left_codes)
    if left_codes.ndim == 2:
        left_codes = np.ascontiguousarray(left_codes, dtype=np.uint64)
        if left_codes.shape[1] < 1:
            raise ValueError("corrupt tree: left_codes must be a 2-D array of at least one "
                             f"word a row; got shape {left_codes.shape}")
        if left_codes.shape[0] == nodes.shape[0]:      # the former form: a row per node
            if left_codes.shape[1] != 4:
                raise ValueError("corrupt tree: left_codes has the wrong shape "
                                 f"{left_codes.shape} for {nodes.shape[0]} nodes")
            compact = left_codes[categorical]          # (a copy)
            top = np.uint64(1) << np.uint64(63)
            compact[:, 3] = np.where(nodes["missing_go_to_left"][categorical] != 0,
                                     compact[:, 3] | top, compact[:, 3] & ~top)
            left_codes = compact
        elif left_codes.shape[0] != n_split:
            raise ValueError(f"corrupt tree: left_codes has {left_codes.shape[0]} rows for "
                             f"{n_split} categorical splits")
        if not n_split:
            return None, None
        sets = _bit_rows(left_codes)
    elif left_codes.ndim == 1 and left_codes.dtype == np.uint64:
        sets = np.ascontiguousarray(left_codes)
        if not n_split:
            if sets.shape[0]:
                raise ValueError("corrupt tree: code sets without categorical splits")
            return None, None
    else:
        raise ValueError("corrupt tree: the code sets must be a 1-D uint64 array or 2-D "
                         f"bitsets; got shape {left_codes.shape} of {left_codes.dtype}")
    starts = _parse_sets(sets, n_split)
    at = np.full(nodes.shape[0], -1, dtype=np.int64)
    at[categorical] = starts[:n_split]
    return sets, at


def code_rows(nodes):
    """The row of every node among the sets of codes (in node order): int32, -1 for the
    nodes that do not split on a set of codes."""
    categorical = categorical_splits(nodes)
    return np.where(categorical, np.cumsum(categorical) - 1, -1).astype(np.int32)


def set_end(const uint64_t[::1] code_sets, int64_t start):
    """Where the set of codes that starts at ``start`` ends (its header, then its
    words)."""
    return start + set_size(&code_sets[start])


def set_width(code_sets, code_at):
    """The 64-bit words that hold every code a tree's sets name (bitsets' widths, the
    largest code of a list): at least 1; 0 without sets."""
    if code_sets is None:
        return 0
    cdef const uint64_t[::1] sets = code_sets
    cdef const int64_t[::1] at = code_at
    cdef int64_t width = 1, k, n
    cdef const uint64_t* row
    with nogil:
        for k in range(at.shape[0]):
            if at[k] < 0:
                continue
            row = &sets[at[k]]
            n = <int64_t> (row[0] >> 2)
            if (row[0] & 3) == SET_BITS:
                width = max(width, n)
            elif n:
                width = max(width, (<const uint32_t*> (row + 1))[n - 1] // 64 + 1)
    return width


def dense_set(code_sets, int64_t start, bint missing_left, int64_t words):
    """A set of codes (the row at ``start``) as ``words`` words of bits, bit c set when
    code c goes left (codes beyond a bitset's own width and those a list does not name
    go where the missing values go)."""
    head = int(code_sets[start])
    n = head >> 2
    out = np.full(words, np.uint64(0xFFFFFFFFFFFFFFFF) if missing_left else np.uint64(0),
                  dtype=np.uint64)
    if head & 3 == SET_BITS:
        m = min(n, words)
        out[:m] = code_sets[start + 1:start + 1 + m]
        return out
    codes = code_sets[start + 1:start + 1 + (n + 1) // 2].view(np.uint32)[:n]
    codes = codes[codes < 64 * words].astype(np.int64)
    bits = np.uint64(1) << (codes & 63).astype(np.uint64)
    if missing_left:
        np.bitwise_and.at(out, codes >> 6, ~bits)
    else:
        np.bitwise_or.at(out, codes >> 6, bits)
    return out


def flatten(nodes, left_codes=None):
    """Breadth-first copy of the nodes for fast traversal, the original id of each
    (int32, like the node ids themselves: 20 bytes a node in all), and the tree's
    ``code_sets`` (None when there is none; a categorical split's flat threshold is the
    start of its set there).  ``left_codes`` in any form that ``Tree`` takes."""
    cdef const Node* nd = _node_ptr(nodes)
    cdef int64_t n = nodes.shape[0], head = 0, tail = 1, old
    flat = np.empty(n, dtype=FLAT_DTYPE)
    original = np.empty(n, dtype=np.int32)
    cdef uint8_t[::1] raw = flat.view(np.uint8)
    cdef FlatNode* fl = <FlatNode*> &raw[0]
    cdef int32_t[::1] orig = original
    sets, at = _checked_codes(nodes, left_codes)
    cdef const int64_t* start = NULL
    cdef const int64_t[::1] at_view
    if sets is not None:
        at_view = at
        start = &at_view[0]
    with nogil:
        orig[0] = 0
        while head < tail:
            old = orig[head]
            if nd[old].left_child == -1:
                fl[head].threshold = NAN
                fl[head].feature = 0
                fl[head].left = <int32_t> head
            else:
                fl[head].threshold = nd[old].threshold
                fl[head].feature = <int32_t> nd[old].feature
                if is_categorical(&nd[old]):
                    fl[head].threshold = <double> start[old]
                    fl[head].feature |= CATEGORICAL
                if not nd[old].missing_go_to_left:
                    fl[head].feature |= NAN_RIGHT
                fl[head].left = <int32_t> tail
                orig[tail] = nd[old].left_child
                orig[tail + 1] = nd[old].right_child
                tail += 2
            head += 1
    return flat, original, sets


def set_sides(code_sets, const int64_t[::1] starts, const uint8_t[::1] missing_left,
              const double[::1] values):
    """Whether each of ``values`` goes left at each set of codes (those at ``starts``,
    with their nodes' ``missing_left``): uint8 (len(starts), len(values))."""
    cdef const uint64_t[::1] sets = code_sets
    cdef Py_ssize_t i, j, m = starts.shape[0], k = values.shape[0]
    out = np.zeros((m, k), dtype=np.uint8)
    cdef uint8_t[:, ::1] o = out
    with nogil:
        for i in range(m):
            for j in range(k):
                o[i, j] = code_left(&sets[starts[i]], values[j], missing_left[i] != 0)
    return out


cdef enum:
    BLOCK = 8

cdef int32_t NAN_RIGHT = <int32_t> 0x80000000
cdef int32_t CATEGORICAL = 0x40000000
cdef int32_t FEATURE_BITS = 0x3FFFFFFF


cdef inline void _walk_block(const FlatNode* fl, const char* xb, Py_ssize_t s0,
                             Py_ssize_t s1, Py_ssize_t i0, Py_ssize_t m,
                             int32_t* cur) noexcept nogil:
    """Rows i0 .. i0 + m - 1 (m <= BLOCK) of X (at xb, strides s0, s1 in bytes) walked in
    lockstep from the root, so that their memory accesses overlap; rows that reach a
    leaf wait there (leaves loop on themselves) until the whole block has arrived;
    their flat leaves into cur."""
    cdef Py_ssize_t j
    cdef const FlatNode* node
    cdef bint moving = True
    cdef double x
    for j in range(m):
        cur[j] = 0
    while moving:
        moving = False
        for j in range(m):
            node = &fl[cur[j]]
            x = (<const double*> (xb + (i0 + j) * s0
                                  + (node.feature & FEATURE_BITS) * s1))[0]
            # NaN: "x > t" is false; it goes right only where the node says so
            cur[j] = node.left + ((x > node.threshold)
                                  | ((x != x) & (node.feature < 0)))
            moving = moving | (fl[cur[j]].threshold == fl[cur[j]].threshold)


def apply_flat(flat, const int32_t[::1] original, const double[:, :] X, table=None):
    """Leaf reached by every row: BLOCK rows at a time walk the tree in lockstep
    (_walk_block).  ``table``: the sets of codes of the categorical splits (flatten's
    third result), walked row by row."""
    if table is not None:
        return _apply_flat_categorical(flat, original, X, table)
    cdef uint8_t[::1] raw = flat.view(np.uint8)
    cdef const FlatNode* fl = <const FlatNode*> &raw[0]
    cdef Py_ssize_t n = X.shape[0], i0, j, m
    cdef int32_t cur[BLOCK]
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] res = out
    cdef const char* xb = <const char*> &X[0, 0] if n > 0 and X.shape[1] > 0 else NULL
    with nogil:
        i0 = 0
        while i0 < n:
            m = min(BLOCK, n - i0)
            _walk_block(fl, xb, X.strides[0], X.strides[1], i0, m, cur)
            for j in range(m):
                res[i0 + j] = original[cur[j]]
            i0 += m
    return out


def add_leaf_values_flat(flat, const int32_t[::1] original, const double[:, :] X,
                         const double[:, ::1] values, double[:, ::1] out):
    """``out[i] += values[leaf of row i]`` for every row of X: apply_flat's walk (without
    categorical splits) with the leaves' values added as the rows arrive, so no array
    of leaf indices is made and gathered from (a forest's mean sums its trees so)."""
    cdef uint8_t[::1] raw = flat.view(np.uint8)
    cdef const FlatNode* fl = <const FlatNode*> &raw[0]
    cdef Py_ssize_t n = X.shape[0], k = values.shape[1], i0, j, m, c
    cdef int32_t cur[BLOCK]
    cdef const double* v
    cdef const char* xb = <const char*> &X[0, 0] if n > 0 and X.shape[1] > 0 else NULL
    if out.shape[0] != n or out.shape[1] != k:
        raise ValueError(f"out is {out.shape[0]} x {out.shape[1]}, expected {n} x {k}")
    with nogil:
        i0 = 0
        while i0 < n:
            m = min(BLOCK, n - i0)
            _walk_block(fl, xb, X.strides[0], X.strides[1], i0, m, cur)
            for j in range(m):
                v = &values[original[cur[j]], 0]
                for c in range(k):
                    out[i0 + j, c] += v[c]
            i0 += m


def _apply_flat_categorical(flat, const int32_t[::1] original, const double[:, :] X,
                            const uint64_t[::1] table):
    cdef uint8_t[::1] raw = flat.view(np.uint8)
    cdef const FlatNode* fl = <const FlatNode*> &raw[0]
    cdef Py_ssize_t n = X.shape[0], i
    cdef const uint64_t* tab = &table[0]
    cdef int32_t cur, feat
    cdef const FlatNode* node
    cdef double x
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] res = out
    with nogil:
        for i in range(n):
            cur = 0
            node = &fl[0]
            while node.threshold == node.threshold:     # not a leaf
                feat = node.feature
                x = X[i, feat & FEATURE_BITS]
                if feat & CATEGORICAL:
                    cur = node.left + (1 - <int32_t> code_left(
                        tab + <Py_ssize_t> node.threshold, x, feat >= 0))
                else:
                    cur = node.left + ((x > node.threshold) | ((x != x) & (feat < 0)))
                node = &fl[cur]
            res[i] = original[cur]
    return out


ctypedef fused index_t:
    int32_t
    int64_t


def _csr_parts(X):
    """The arrays of a CSR matrix of float64 (sorted indices, no duplicates) as the
    sparse kernels read them: indptr as int64, indices as int32 or int64, data; checked
    so that no row reads outside them."""
    if not issparse(X) or X.format != "csr" or X.ndim != 2:
        raise ValueError("X must be a 2-D CSR matrix")
    indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
    indices = X.indices
    if indices.dtype != np.int32:
        indices = indices.astype(np.int64, copy=False)
    indices = np.ascontiguousarray(indices)
    data = np.ascontiguousarray(X.data)
    n = X.shape[0]
    if (indptr.shape[0] != n + 1 or indptr[0] < 0
            or indptr[n] > min(indices.shape[0], data.shape[0])
            or np.any(indptr[1:] < indptr[:n])):
        raise ValueError("corrupt CSR matrix: indptr does not fit its indices")
    if X.dtype != np.float64 or not X.has_canonical_format:
        raise ValueError("X must hold float64 with sorted indices and no duplicates")
    return indptr, indices, data


def apply_flat_sparse(flat, const int32_t[::1] original, X, table=None):
    """apply_flat for a CSR matrix ``X`` of float64 (rows' indices sorted, without
    duplicates, int32 or int64): each row's stored values are scattered into a dense
    row of zeros, the row walks the tree reading it, and the entries are cleared again,
    so that every row reaches the leaf of its dense form (NaN stored: missing) in time
    of its entries plus its path, categorical splits included.  Rows walk one at a time:
    the trees that sparse data grows are often deep on one side, where rows walking in
    lockstep would wait for the longest path of their block."""
    indptr, indices, data = _csr_parts(X)
    return _apply_csr(flat, original, indptr, indices, data,
                      np.zeros(1, dtype=np.uint64) if table is None else table,
                      X.shape[1])


def _apply_csr(flat, const int32_t[::1] original, const int64_t[::1] indptr,
               const index_t[::1] indices, const double[::1] data,
               const uint64_t[::1] table, Py_ssize_t n_features):
    cdef uint8_t[::1] raw = flat.view(np.uint8)
    cdef const FlatNode* fl = <const FlatNode*> &raw[0]
    cdef const index_t* ind = &indices[0] if indices.shape[0] else NULL
    cdef const double* val = &data[0] if data.shape[0] else NULL
    cdef const uint64_t* tab = &table[0]
    cdef Py_ssize_t n = indptr.shape[0] - 1, i, t
    cdef int32_t cur, feat
    cdef const FlatNode* node
    cdef double x
    row_arr = np.zeros(max(n_features, 1), dtype=np.float64)
    cdef double[::1] row = row_arr
    cdef double* r = &row[0]
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] res = out
    with nogil:
        for i in range(n):
            for t in range(indptr[i], indptr[i + 1]):
                if 0 <= ind[t] < n_features:       # (a corrupt index is not written)
                    r[ind[t]] = val[t]
            cur = 0
            node = &fl[0]
            while node.threshold == node.threshold:     # not a leaf
                feat = node.feature
                x = r[feat & FEATURE_BITS]
                if feat & CATEGORICAL:
                    cur = node.left + (1 - <int32_t> code_left(
                        tab + <Py_ssize_t> node.threshold, x, feat >= 0))
                elif x <= node.threshold:
                    # a branch, not arithmetic: paths in such trees mostly take one side
                    # (a zero below the cut), which the processor predicts and runs ahead
                    cur = node.left
                else:
                    cur = node.left + (1 if x == x or feat < 0 else 0)
                node = &fl[cur]
            res[i] = original[cur]
            for t in range(indptr[i], indptr[i + 1]):
                if 0 <= ind[t] < n_features:
                    r[ind[t]] = 0.0
    return out


cdef inline void _scatter(double* r, const int64_t* ind, const double* val, int64_t a,
                          int64_t b, Py_ssize_t n_features, bint clear) noexcept nogil:
    """A CSR row's entries a .. b - 1 written into the dense row r (or, ``clear``, set
    back to 0.0); a corrupt index is not written."""
    cdef int64_t t
    for t in range(a, b):
        if 0 <= ind[t] < n_features:
            r[ind[t]] = 0.0 if clear else val[t]


cdef inline int64_t _row_path(const Node* nd, const uint64_t* codes,
                              const int64_t* code_at, const double* row,
                              Py_ssize_t stride, int64_t* out) noexcept nogil:
    """The nodes a row (feature f at row[f * stride]) visits from the root, written to
    out when it is not NULL; their number.  ``codes``: the tree's code_sets,
    ``code_at``: every node's set there (both NULL for a tree without categorical
    splits)."""
    cdef int64_t k = 0, count = 1
    cdef const uint64_t* own
    if out != NULL:
        out[0] = 0
    while nd[k].left_child != -1:
        own = NULL
        if code_at != NULL and code_at[k] >= 0:
            own = codes + code_at[k]
        if goes_left(&nd[k], row[nd[k].feature * stride], own):
            k = nd[k].left_child
        else:
            k = nd[k].right_child
        if out != NULL:
            out[count] = k
        count += 1
    return count


def decision_path_dense(nodes, X, left_codes=None):
    """CSR indicator matrix (n_samples, node_count) of the nodes each row visits;
    ``left_codes`` in either form that ``Tree`` takes."""
    sets, at = _checked_codes(nodes, left_codes)
    return _decision_paths(nodes, sets, at, _dense_rows(X), None)


def _dense_rows(X):
    """Rows as _decision_paths reads them: float64, strides in whole cells."""
    X = np.asarray(X, dtype=np.float64)
    if X.strides[0] % X.itemsize or X.strides[1] % X.itemsize:
        X = np.ascontiguousarray(X)
    return X


def decision_path_sparse(nodes, X, left_codes=None):
    """decision_path_dense for a CSR matrix ``X``, each row scattered into a dense row
    of zeros as apply_flat_sparse does."""
    sets, at = _checked_codes(nodes, left_codes)
    return _decision_paths(nodes, sets, at, None, _sparse_rows(X))


def _sparse_rows(X):
    """A CSR matrix as _decision_paths reads it."""
    indptr, indices, data = _csr_parts(X)
    return indptr, indices.astype(np.int64, copy=False), data, X.shape[1]


cdef object _decision_paths(nodes, sets, at, dense, sparse):
    """decision_path_dense / _sparse: one pass counts each row's path, the second writes
    it; the rows of ``dense`` (float64, strides in whole cells) or of ``sparse`` (CSR
    parts and the number of features); ``sets``, ``at``: the tree's checked code sets
    (_checked_codes)."""
    cdef const Node* nd = _node_ptr(nodes)
    # a tree without categorical splits never reads its codes
    cdef const uint64_t* codes = NULL
    cdef const int64_t* code_at = NULL
    cdef const uint64_t[::1] codes_view
    cdef const int64_t[::1] at_view
    if sets is not None:
        codes_view = sets
        codes = &codes_view[0]
        at_view = at
        code_at = &at_view[0]
    cdef const double[:, :] X
    cdef const int64_t[::1] xptr
    cdef const int64_t[::1] xind
    cdef const double[::1] xval
    cdef double[::1] rowv
    cdef const int64_t* ind = NULL
    cdef const double* val = NULL
    cdef double* r = NULL
    cdef Py_ssize_t n, nf = 0, i, rs = 0, cs = 0, stride
    cdef const double* base = NULL
    cdef const double* row
    cdef int64_t total = 0, pos
    cdef int64_t* out
    cdef bint is_dense = dense is not None
    if is_dense:
        X = dense
        n = X.shape[0]
        if n and X.shape[1]:
            base = &X[0, 0]
            rs = X.strides[0] // <Py_ssize_t> sizeof(double)
            cs = X.strides[1] // <Py_ssize_t> sizeof(double)
    else:
        xptr, xind, xval, nf = sparse
        n = xptr.shape[0] - 1
        ind = &xind[0] if xind.shape[0] else NULL
        val = &xval[0] if xval.shape[0] else NULL
        rowv = np.zeros(max(nf, 1), dtype=np.float64)
        r = &rowv[0]
    indptr_arr = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    indices_arr = np.empty(0, dtype=np.int64)
    cdef int64_t[::1] indices
    for pos in range(2):          # (pass 0 counts, pass 1 writes)
        if pos == 1:
            indices_arr = np.empty(total, dtype=np.int64)
            indices = indices_arr
        with nogil:
            for i in range(n):
                if is_dense:
                    row = base + i * rs
                    stride = cs
                else:
                    _scatter(r, ind, val, xptr[i], xptr[i + 1], nf, False)
                    row = r
                    stride = 1
                if pos == 0:
                    total += _row_path(nd, codes, code_at, row, stride, NULL)
                    indptr[i + 1] = total
                else:
                    _row_path(nd, codes, code_at, row, stride, &indices[0] + indptr[i])
                if not is_dense:
                    _scatter(r, ind, val, xptr[i], xptr[i + 1], nf, True)
    data = np.ones(total, dtype=np.intp)
    return csr_matrix((data, indices_arr, indptr_arr), shape=(n, nodes.shape[0]))


class Tree:
    """The fitted structure of one tree, with scikit-learn's ``tree_`` attribute names.

    Nodes are stored in a packed structured array with fixed-width fields (41 bytes a
    node, see ``NODE_DTYPE``); ``children_left``, ``feature``, ... are views into it
    (node ids, features and sample counts are 32-bit integers).  ``value`` holds the weighted
    class fractions of every node, shape ``(node_count, n_outputs, max_n_classes)``
    (a regression tree: the mean target of each output, ``max_n_classes`` 1).
    Splits on sets of codes (threshold NaN) keep their sets in ``code_sets``, one row
    per such split in node order (a bitset, or the list of the codes that do not go
    where the node's missing values go, whichever is shorter: see ``_tree.pxd``);
    ``code_at`` gives every node's row there (-1 for the others),
    ``categories_left(node)`` its codes and ``left_codes`` all of them as bitsets.
    """

    def __init__(self, n_features, n_classes, nodes, value, max_depth, left_codes=None):
        # n_classes: an int (one output), or one per output (1 for a regression output)
        self.n_features = int(n_features)
        self.n_classes = np.array(n_classes, dtype=np.intp).reshape(-1)
        self.n_outputs = int(self.n_classes.shape[0])
        # arrays pickled on a machine of the other byte order are converted on load
        self.nodes = np.ascontiguousarray(nodes).astype(NODE_DTYPE, copy=False)
        self.value = np.ascontiguousarray(value, dtype=np.float64)
        self.max_depth = int(max_depth)
        # categorical splits (their threshold is NaN): their sets of codes as code_sets
        # (1-D uint64; None for a tree without categorical splits); bitsets of shape
        # (n_categorical_splits, W) or (node_count, 4) (the forms of trees pickled
        # before) are converted
        self.code_sets, self.code_at = _checked_codes(self.nodes, left_codes)

    @property
    def code_row(self):
        """Every node's row among the sets of codes, in node order (int32, -1 for the
        nodes that do not split on a set of codes; None without such splits)."""
        return None if self.code_sets is None else code_rows(self.nodes)

    @property
    def code_words(self):
        """The 64-bit words that hold every code the sets name (0 without sets): the
        width of ``left_codes``."""
        width = self.__dict__.get("_code_words")
        if width is None:
            width = self._code_words = set_width(self.code_sets, self.code_at)
        return width

    @property
    def left_codes(self):
        """The sets of codes as bitsets, shape (n_categorical_splits, code_words), one row
        per categorical split in node order, bit c % 64 of word c // 64 set when code c
        goes left (a value that is no code below 64 code_words goes where the node's
        missing values go); None without categorical splits.  A new array each time."""
        if self.code_sets is None:
            return None
        words = self.code_words
        nodes = np.flatnonzero(self.code_at >= 0)
        missing = self.nodes["missing_go_to_left"]
        return np.array([dense_set(self.code_sets, self.code_at[k], missing[k] != 0, words)
                         for k in nodes], dtype=np.uint64).reshape(len(nodes), words)

    # scikit-learn's field names, as read-only views of the node array
    @property
    def node_count(self):
        return int(self.nodes.shape[0])

    @property
    def capacity(self):
        return int(self.nodes.shape[0])

    @property
    def children_left(self):
        return self.nodes["left_child"]

    @property
    def children_right(self):
        return self.nodes["right_child"]

    @property
    def feature(self):
        return self.nodes["feature"]

    @property
    def threshold(self):
        return self.nodes["threshold"]

    @property
    def impurity(self):
        return self.nodes["impurity"]

    @property
    def n_node_samples(self):
        return self.nodes["n_node_samples"]

    @property
    def weighted_n_node_samples(self):
        return self.nodes["weighted_n_node_samples"]

    @property
    def missing_go_to_left(self):
        return self.nodes["missing_go_to_left"]

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.nodes["left_child"] == TREE_LEAF))

    @property
    def max_n_classes(self):
        return int(self.n_classes.max())

    def compute_node_depths(self):
        """The depth of every node, the root's being 1 (scikit-learn's convention)."""
        nodes = self.nodes
        depths = np.ones(nodes.shape[0], dtype=np.int64)
        # children always carry larger ids than their parent: one pass in id order
        for node in np.flatnonzero(nodes["left_child"] != TREE_LEAF):
            depths[nodes["left_child"][node]] = depths[node] + 1
            depths[nodes["right_child"][node]] = depths[node] + 1
        return depths

    def _rows(self, X):
        """``X`` as rows the kernels read: a 2-D float64 array of n_features columns, or
        for a sparse ``X`` (any format) a CSR matrix of float64 with sorted indices and
        no duplicates (a new one where ``X`` is not such: ``X`` itself is never
        changed).  Like scikit-learn's ``Tree``, takes float32 arrays; any real array
        is converted; anything else is refused clearly."""
        if isinstance(X, np.ndarray) and X.dtype == np.float64:
            rows = X
        elif issparse(X):
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D; got a sparse array of shape {X.shape}")
            self._check_width(X)
            if X.dtype.kind not in "biuf":
                raise TypeError("X must hold real numbers (float64 or float32, as the "
                                f"estimator's input); got dtype {X.dtype}")
            rows = X.tocsr()
            if rows.dtype != np.float64:
                rows = rows.astype(np.float64)       # a copy
            if not rows.has_canonical_format:
                if rows is X:
                    rows = rows.copy()
                rows.sum_duplicates()                # sorts the indices too
            return rows
        else:
            rows = np.asarray(X)
            if rows.dtype.kind not in "biuf":
                raise TypeError("X must hold real numbers (float64 or float32, as the "
                                f"estimator's input); got dtype {rows.dtype}")
            rows = rows.astype(np.float64, copy=False)
        if rows.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features); got shape "
                             f"{rows.shape}")
        self._check_width(rows)
        return rows

    def _check_width(self, rows):
        if rows.shape[1] != self.n_features:
            raise ValueError(f"X has {rows.shape[1]} features, but the tree was grown on "
                             f"{self.n_features}")

    def apply(self, X):
        """Leaf index reached by every row of ``X`` (2-D: float64, float32 or any real
        array, or a sparse matrix, read without making it dense; NaN is a missing
        value)."""
        flat = self.__dict__.get("_flat")
        if flat is None:
            flat = self._flat = flatten(self.nodes, self.code_sets)
        rows = self._rows(X)
        if issparse(rows):
            return apply_flat_sparse(flat[0], flat[1], rows, flat[2])
        return apply_flat(flat[0], flat[1], rows, flat[2])

    def add_leaf_values(self, X, values, out):
        """``out += values[self.apply(X)]`` (``values``: one row per node, float64;
        ``out``: float64, C order), without the array of leaf indices where X is dense
        and the tree has no categorical split."""
        flat = self.__dict__.get("_flat")
        if flat is None:
            flat = self._flat = flatten(self.nodes, self.code_sets)
        rows = self._rows(X)
        values = np.ascontiguousarray(values, dtype=np.float64)
        if (issparse(rows) or flat[2] is not None or values.ndim != 2
                or values.shape[0] != self.node_count or not out.flags.c_contiguous
                or out.dtype != np.float64):
            out += values[self.apply(rows)]
            return out
        add_leaf_values_flat(flat[0], flat[1], rows, values, out)
        return out

    def decision_path(self, X):
        """The nodes every row of ``X`` passes (a CSR indicator matrix, one row per
        sample); ``X`` as for :meth:`apply`."""
        rows = self._rows(X)
        # (the tree's sets are checked already)
        if issparse(rows):
            return _decision_paths(self.nodes, self.code_sets, self.code_at, None,
                                   _sparse_rows(rows))
        return _decision_paths(self.nodes, self.code_sets, self.code_at,
                               _dense_rows(rows), None)

    def categories_left(self, node):
        """The codes that node ``node`` sends left: a sorted int array for a categorical
        split, of codes 0 .. 64 ``code_words`` - 1 (codes its training samples did not
        hold go where its missing values go, as do the values that are no such code),
        None for a split on a threshold or a leaf."""
        if self.code_sets is None or self.code_at[node] < 0:
            return None
        bits = np.unpackbits(dense_set(self.code_sets, self.code_at[node],
                                       self.nodes["missing_go_to_left"][node] != 0,
                                       self.code_words).astype("<u8").view(np.uint8),
                             bitorder="little")
        return np.flatnonzero(bits)

    def predict(self, X):
        """The values of the leaf reached by every row, shape (n, n_outputs,
        max_n_classes)."""
        return self.value[self.apply(X)]

    def compute_feature_importances(self, normalize=True):
        """Total weighted impurity decrease brought by each feature."""
        nodes = self.nodes
        importances = np.zeros(self.n_features, dtype=np.float64)
        inner = np.flatnonzero(nodes["left_child"] != TREE_LEAF)
        if inner.size:
            left = nodes["left_child"][inner]
            right = nodes["right_child"][inner]
            w = nodes["weighted_n_node_samples"]
            imp = nodes["impurity"]
            decrease = w[inner] * imp[inner] - w[left] * imp[left] - w[right] * imp[right]
            # a split never raises the weighted impurity: a negative decrease is rounding
            # (splits of no gain, frequent with the misclassification error)
            np.add.at(importances, nodes["feature"][inner], np.maximum(decrease, 0.0))
        importances /= nodes["weighted_n_node_samples"][0]
        if normalize:
            total = importances.sum()
            # a total at the rounding level of the root's impurity is no decrease at all:
            # normalised, its noise would become large importances
            if total > 1e-12 * nodes["impurity"][0]:
                importances /= total
            else:
                importances[:] = 0.0
        return importances

    def __reduce__(self):
        n_classes = int(self.n_classes[0]) if self.n_outputs == 1 else self.n_classes
        return (Tree, (self.n_features, n_classes, self.nodes, self.value,
                       self.max_depth, self.code_sets))


# ----------------------------------------------------------------------------------------
# Pruning kernels
# ----------------------------------------------------------------------------------------

def cost_complexity_prune(nodes, double ccp_alpha, bint path):
    """Minimal cost-complexity pruning (CART's weakest-link pruning).

    Repeatedly turns into a leaf the internal node of smallest effective alpha
    ``(R(t) - R(T_t)) / (|leaves(T_t)| - 1)``, where R is the weighted impurity as a share
    of the root's weight (the first such node by index on a tie), until the root is a
    leaf or, unless ``path``, until the next effective alpha exceeds ``ccp_alpha``.

    Returns ``(alphas, impurities)`` of every step when ``path``, else the boolean mask
    of the nodes that are leaves of the pruned tree.
    """
    cdef const Node* nd = _node_ptr(nodes)
    cdef Py_ssize_t n = nodes.shape[0], i, node, best
    cdef double total = nd[0].weighted_n_node_samples, alpha, effective, diff
    cdef int64_t removed
    r_node_a = np.empty(n)
    r_branch_a = np.zeros(n)
    n_leaves_a = np.zeros(n, dtype=np.int64)
    parent_a = np.full(n, -1, dtype=np.int64)
    leaf_a = np.zeros(n, dtype=np.uint8)
    candidate_a = np.zeros(n, dtype=np.uint8)
    stack_a = np.empty(n, dtype=np.int64)
    alphas_a = np.empty(n + 1)
    impurities_a = np.empty(n + 1)
    alpha_a = np.empty(n)              # cached effective alpha of every candidate
    cand_a = np.empty(n, dtype=np.int64)   # the candidates, in increasing id order
    cdef double[::1] node_alpha = alpha_a
    cdef int64_t[::1] cand = cand_a
    cdef Py_ssize_t m = 0, j, kept
    cdef double[::1] r_node = r_node_a, r_branch = r_branch_a
    cdef double[::1] alphas = alphas_a, impurities = impurities_a
    cdef int64_t[::1] n_leaves = n_leaves_a, parent = parent_a, stack = stack_a
    cdef uint8_t[::1] leaf = leaf_a, candidate = candidate_a
    cdef Py_ssize_t top, count = 0
    with nogil:
        for i in range(n):
            r_node[i] = nd[i].weighted_n_node_samples * nd[i].impurity / total
            if nd[i].left_child == -1:
                leaf[i] = 1
            else:
                parent[nd[i].left_child] = i
                parent[nd[i].right_child] = i
                candidate[i] = 1
        for i in range(n):            # each leaf adds itself to all its ancestors
            if leaf[i]:
                r_branch[i] = r_node[i]
                node = i
                while node != 0:
                    node = parent[node]
                    r_branch[node] += r_node[i]
                    n_leaves[node] += 1
        for i in range(n):
            if candidate[i]:
                node_alpha[i] = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
                cand[m] = i
                m += 1
        alphas[0] = 0.0
        impurities[0] = r_branch[0]
        count = 1
        while candidate[0]:
            # the first candidate (by id) of smallest effective alpha; an alpha changes
            # only when a branch below the node is pruned, so it is cached
            effective = 1.7976931348623157e308
            best = 0
            for j in range(m):
                i = cand[j]
                if node_alpha[i] < effective:
                    effective = node_alpha[i]
                    best = i
            if not path and ccp_alpha < effective:
                break
            # the branch below `best` leaves the tree
            top = 0
            stack[top] = best
            top += 1
            while top > 0:
                top -= 1
                node = stack[top]
                candidate[node] = 0
                leaf[node] = 0
                if nd[node].left_child != -1:
                    stack[top] = nd[node].left_child
                    stack[top + 1] = nd[node].right_child
                    top += 2
            leaf[best] = 1
            removed = n_leaves[best] - 1
            n_leaves[best] = 0
            diff = r_node[best] - r_branch[best]
            r_branch[best] = r_node[best]
            node = parent[best]
            while node != -1:
                n_leaves[node] -= removed
                r_branch[node] += diff
                node_alpha[node] = (r_node[node] - r_branch[node]) / (n_leaves[node] - 1)
                node = parent[node]
            kept = 0
            for j in range(m):
                if candidate[cand[j]]:
                    cand[kept] = cand[j]
                    kept += 1
            m = kept
            alphas[count] = effective
            impurities[count] = r_branch[0]
            count += 1
    if path:
        return alphas_a[:count].copy(), impurities_a[:count].copy()
    return leaf_a.astype(bool)


def keep_as_leaves(nodes, value, leaves):
    """The tree in which the nodes marked in ``leaves`` (a boolean mask over ``nodes``)
    become leaves and everything below them is dropped, renumbered in pre-order with no
    orphan nodes.  Returns ``(nodes, value, max_depth, keep)``, keep: the old id of
    every new node."""
    cdef const Node* nd = _node_ptr(nodes)
    cdef Py_ssize_t n = nodes.shape[0]
    leaves_u8 = np.ascontiguousarray(leaves, dtype=np.uint8)
    if leaves_u8.shape[0] != n:
        raise ValueError("leaves must mark every node")
    cdef const uint8_t[::1] lv = leaves_u8
    order_a = np.empty(n, dtype=np.int64)       # old ids, in the new pre-order
    depth_a = np.zeros(n, dtype=np.int64)
    new_id_a = np.full(n, -1, dtype=np.int64)
    stack_a = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] order = order_a, depth = depth_a, new_id = new_id_a, stack = stack_a
    cdef Py_ssize_t top = 0, count = 0, node, max_depth = 0
    with nogil:
        stack[0] = 0
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            new_id[node] = count
            order[count] = node
            count += 1
            if depth[node] > max_depth:
                max_depth = depth[node]
            if nd[node].left_child != -1 and not lv[node]:
                depth[nd[node].left_child] = depth[node] + 1
                depth[nd[node].right_child] = depth[node] + 1
                stack[top] = nd[node].right_child
                stack[top + 1] = nd[node].left_child
                top += 2
    keep = order_a[:count]
    out = nodes[keep].copy()
    inner = (out["left_child"] != -1) & ~leaves_u8[keep].astype(bool)
    out["left_child"] = np.where(inner, new_id_a[out["left_child"]], -1)
    out["right_child"] = np.where(inner, new_id_a[out["right_child"]], -1)
    out["feature"] = np.where(inner, out["feature"], -2)
    out["threshold"] = np.where(inner, out["threshold"], -2.0)
    out["missing_go_to_left"] = np.where(inner, out["missing_go_to_left"], 0)
    return out, np.ascontiguousarray(value[keep]), int(max_depth), keep
