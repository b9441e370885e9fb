"""Fitted tree storage and the prediction kernels (apply, decision_path)."""
import numpy as np
from scipy.sparse import csr_matrix

from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.math cimport NAN

TREE_LEAF = -1
TREE_UNDEFINED = -2

NODE_DTYPE = np.dtype({
    "names": ["left_child", "right_child", "feature", "threshold", "impurity",
              "n_node_samples", "weighted_n_node_samples", "missing_go_to_left"],
    "formats": ["<i8", "<i8", "<i8", "<f8", "<f8", "<i8", "<f8", "u1"],
    "offsets": [0, 8, 16, 24, 32, 40, 48, 56],
    "itemsize": 64,
})
assert sizeof(Node) == NODE_DTYPE.itemsize


cdef inline const Node* _node_ptr(nodes) except NULL:
    if nodes.dtype != NODE_DTYPE or not nodes.flags.c_contiguous or nodes.shape[0] == 0:
        raise ValueError("corrupt tree: node array has the wrong layout")
    cdef const uint8_t[::1] raw = nodes.view(np.uint8).reshape(-1)
    return <const Node*> &raw[0]


cdef struct FlatNode:      # the traversal layout: 16 bytes, siblings side by side
    double threshold       # NaN for a leaf: "x > NaN" is false, so a leaf loops on itself
    int32_t feature        # 0 for a leaf (any valid column)
    int32_t left           # the right child is left + 1; a leaf points to itself


FLAT_DTYPE = np.dtype({"names": ["threshold", "feature", "left"],
                       "formats": ["<f8", "<i4", "<i4"], "offsets": [0, 8, 12],
                       "itemsize": 16})
assert sizeof(FlatNode) == 16


def flatten(nodes):
    """Breadth-first copy of the nodes for fast traversal, and the original id of each."""
    cdef const Node* nd = _node_ptr(nodes)
    cdef int64_t n = nodes.shape[0], head = 0, tail = 1, old, pos
    flat = np.empty(n, dtype=FLAT_DTYPE)
    original = np.empty(n, dtype=np.int64)
    cdef uint8_t[::1] raw = flat.view(np.uint8)
    cdef FlatNode* fl = <FlatNode*> &raw[0]
    cdef int64_t[::1] orig = original
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
                fl[head].left = <int32_t> tail
                orig[tail] = nd[old].left_child
                orig[tail + 1] = nd[old].right_child
                tail += 2
            head += 1
    return flat, original


cdef enum:
    BLOCK = 8


def apply_flat(flat, const int64_t[::1] original, const double[:, :] X):
    """Leaf reached by every row: BLOCK rows walk the tree in lockstep, so that their
    memory accesses overlap; rows that reach a leaf wait there (leaves loop on
    themselves) until the whole block has arrived."""
    cdef uint8_t[::1] raw = flat.view(np.uint8)
    cdef const FlatNode* fl = <const FlatNode*> &raw[0]
    cdef Py_ssize_t n = X.shape[0], i0, j, m
    cdef int32_t cur[BLOCK]
    cdef const FlatNode* node
    cdef bint moving
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] res = out
    with nogil:
        i0 = 0
        while i0 < n:
            m = min(BLOCK, n - i0)
            for j in range(m):
                cur[j] = 0
            moving = True
            while moving:
                moving = False
                for j in range(m):
                    node = &fl[cur[j]]
                    cur[j] = node.left + (X[i0 + j, node.feature] > node.threshold)
                    moving = moving | (fl[cur[j]].threshold == fl[cur[j]].threshold)
            for j in range(m):
                res[i0 + j] = original[cur[j]]
            i0 += m
    return out


def decision_path_dense(nodes, const double[:, :] X):
    """CSR indicator matrix (n_samples, node_count) of the nodes each row visits."""
    cdef const Node* nd = _node_ptr(nodes)
    cdef Py_ssize_t n = X.shape[0], i
    cdef int64_t k, total = 0, pos
    indptr_arr = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    with nogil:
        for i in range(n):
            k = 0
            total += 1
            while nd[k].left_child != -1:
                if X[i, nd[k].feature] <= nd[k].threshold:
                    k = nd[k].left_child
                else:
                    k = nd[k].right_child
                total += 1
            indptr[i + 1] = total
    indices_arr = np.empty(total, dtype=np.int64)
    cdef int64_t[::1] indices = indices_arr
    with nogil:
        pos = 0
        for i in range(n):
            k = 0
            indices[pos] = 0
            pos += 1
            while nd[k].left_child != -1:
                if X[i, nd[k].feature] <= nd[k].threshold:
                    k = nd[k].left_child
                else:
                    k = nd[k].right_child
                indices[pos] = k
                pos += 1
    data = np.ones(total, dtype=np.intp)
    return csr_matrix((data, indices_arr, indptr_arr), shape=(n, nodes.shape[0]))


class Tree:
    """The fitted structure of one tree, with scikit-learn's ``tree_`` attribute names.

    Nodes are stored in a structured array with fixed-width fields (see ``NODE_DTYPE``);
    ``children_left``, ``feature``, ... are views into it.  ``value`` holds the weighted
    class fractions of every node, shape ``(node_count, 1, n_classes)``.
    """

    def __init__(self, n_features, n_classes, nodes, value, max_depth):
        self.n_features = int(n_features)
        self.n_classes = np.array([n_classes], dtype=np.intp)
        self.n_outputs = 1
        # arrays pickled on a machine of the other byte order are converted on load
        self.nodes = np.ascontiguousarray(nodes).astype(NODE_DTYPE, copy=False)
        self.value = np.ascontiguousarray(value, dtype=np.float64)
        self.max_depth = int(max_depth)

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

    def apply(self, X):
        """Leaf index reached by every row of ``X`` (float64, 2-D)."""
        flat = self.__dict__.get("_flat")
        if flat is None:
            flat = self._flat = flatten(self.nodes)
        return apply_flat(flat[0], flat[1], X)

    def decision_path(self, X):
        return decision_path_dense(self.nodes, X)

    def predict(self, X):
        """Class fractions of the leaf reached by every row, shape (n, 1, n_classes)."""
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
            np.add.at(importances, nodes["feature"][inner], decrease)
        importances /= nodes["weighted_n_node_samples"][0]
        if normalize:
            total = importances.sum()
            if total > 0.0:
                importances /= total
        return importances

    def __reduce__(self):
        return (Tree, (self.n_features, int(self.n_classes[0]), self.nodes, self.value,
                       self.max_depth))
