# Node storage shared by the builder and the prediction code.
#
# Every field has a fixed width, so that a pickled tree reads the same on every
# platform.  The layout is mirrored by NODE_DTYPE in _tree.pyx (64 bytes).
from libc.stdint cimport int64_t, uint8_t

cdef struct Node:
    int64_t left_child          # -1 for a leaf
    int64_t right_child         # -1 for a leaf
    int64_t feature             # -2 for a leaf
    double threshold            # go left when x[feature] <= threshold; -2.0 for a leaf
    double impurity
    int64_t n_node_samples      # samples with non-zero weight that reached the node
    double weighted_n_node_samples
    uint8_t missing_go_to_left  # reserved for missing-value support
    uint8_t pad0
    uint8_t pad1
    uint8_t pad2
    uint8_t pad3
    uint8_t pad4
    uint8_t pad5
    uint8_t pad6
