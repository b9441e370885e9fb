# Node storage shared by the builder and the prediction code.
#
# Every field has a fixed width, so that a pickled tree reads the same on every
# platform, and the struct is packed (41 bytes, no padding): node ids, features and
# sample counts fit 32 bits because a fit takes at most 2**31 - 1 samples (the builder
# refuses a tree of more nodes).  The layout is mirrored by NODE_DTYPE in _tree.pyx.
from libc.math cimport isnan
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

cdef packed struct Node:
    int32_t left_child          # -1 for a leaf
    int32_t right_child         # -1 for a leaf
    int32_t feature             # -2 for a leaf
    double threshold            # go left when x[feature] <= threshold; -2.0 for a leaf
    double impurity
    int32_t n_node_samples      # samples with non-zero weight that reached the node
    double weighted_n_node_samples
    uint8_t missing_go_to_left  # NaN goes to the left child (1) or the right one (0)


# The test of a node, shared by the prediction kernels (_tree.pyx) and the SHAP kernels
# (_explain.pyx), so that both route every value the same way.

cdef inline bint is_categorical(const Node* nd) noexcept nogil:
    """A split on a set of codes (see Tree.code_sets): the only splits without a
    threshold."""
    return nd.left_child != -1 and isnan(nd.threshold)


# A categorical split's set of codes is a row of 64-bit words (see Tree.code_sets): a
# header, (length << 2) | kind, then
# - kind SET_BITS: `length` words of bits, bit c % 64 of word c // 64 set when code c
#   goes left (codes beyond them go where the node's missing values go);
# - kind SET_LIST: `length` codes as uint32, in increasing order, two a word: the codes
#   that go to the side the missing values do not go to (every other code goes there).
# A value that is no integer code 0 .. CODE_LIMIT - 1 (NaN, negative, fractional or
# larger) goes where the node's missing values go.
cdef enum:
    SET_BITS = 0
    SET_LIST = 1
    CODE_LIMIT = 16777216      # 2**24: codes 0 .. 2**24 - 1


cdef inline int64_t set_size(const uint64_t* row) noexcept nogil:
    """The 64-bit words of a set of codes, its header included."""
    cdef int64_t n = <int64_t> (row[0] >> 2)
    return 1 + (n if (row[0] & 3) == SET_BITS else (n + 1) >> 1)


cdef inline bint code_left(const uint64_t* row, double x, bint missing_left) noexcept nogil:
    """Whether value x of a categorical feature goes left at a node whose set of codes
    is ``row`` (see above)."""
    cdef int64_t c, n = <int64_t> (row[0] >> 2), lo, hi, mid
    cdef const uint32_t* codes
    # (the range is tested first: only a value in it is converted to an integer)
    if not (x >= 0.0 and x < <double> CODE_LIMIT) or x != <double> (<int64_t> x):
        return missing_left
    c = <int64_t> x
    if (row[0] & 3) == SET_BITS:
        if c >= 64 * n:
            return missing_left
        return (row[1 + (c >> 6)] >> (c & 63)) & 1
    codes = <const uint32_t*> (row + 1)
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes[mid] < <uint32_t> c:
            lo = mid + 1
        else:
            hi = mid
    if lo < n and codes[lo] == <uint32_t> c:
        return not missing_left
    return missing_left


cdef inline bint goes_left(const Node* nd, double x, const uint64_t* row) noexcept nogil:
    """Whether value x goes left at node nd (``row``: its set of codes, read only by a
    categorical split; NULL for any other node)."""
    if is_categorical(nd):
        return code_left(row, x, nd.missing_go_to_left != 0)
    if isnan(x):
        return nd.missing_go_to_left != 0
    return x <= nd.threshold
