# Node storage shared by the builder and the prediction code.
#
# Every field has a fixed width, so that a pickled tree reads the same on every
# platform, and the struct is packed (41 bytes, no padding): node ids, features and
# sample counts fit 32 bits because a fit takes at most 2**31 - 1 samples (the builder
# refuses a tree of more nodes).  The layout is mirrored by NODE_DTYPE in _tree.pyx.
from libc.math cimport isnan
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

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
    """A split on a set of codes (see Tree.left_codes): the only splits without a
    threshold."""
    return nd.left_child != -1 and isnan(nd.threshold)


cdef inline bint code_left(const uint64_t* codes, int64_t words, double x,
                           bint missing_left) noexcept nogil:
    """Whether value x of a categorical feature goes left at a node whose set of codes
    going left is the row ``codes`` of ``words`` 64-bit words (bit c % 64 of word c // 64
    for code c): a value that is no code 0 .. 64 words - 1 (NaN, negative, fractional or
    larger) goes where the node's missing values go."""
    cdef int64_t c
    # (the range is tested first: only a value in it is converted to an integer)
    if not (x >= 0.0 and x < 64.0 * <double> words) or x != <double> (<int64_t> x):
        return missing_left
    c = <int64_t> x
    return (codes[c >> 6] >> (c & 63)) & 1


cdef inline bint goes_left(const Node* nd, double x, const uint64_t* codes,
                           int64_t words) noexcept nogil:
    """Whether value x goes left at node nd (``codes``: its row of left_codes, of
    ``words`` words, read only by a categorical split; NULL for any other node)."""
    if is_categorical(nd):
        return code_left(codes, words, x, nd.missing_go_to_left != 0)
    if isnan(x):
        return nd.missing_go_to_left != 0
    return x <= nd.threshold
