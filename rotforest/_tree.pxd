# Node storage shared by the builder and the prediction code.
#
# Every field has a fixed width, so that a pickled tree reads the same on every
# platform, and the struct is packed (41 bytes, no padding): node ids, features and
# sample counts fit 32 bits because a fit takes at most 2**31 - 1 samples (the builder
# refuses a tree of more nodes).  The layout is mirrored by NODE_DTYPE in _tree.pyx.
from libc.stdint cimport int32_t, uint8_t

cdef packed struct Node:
    int32_t left_child          # -1 for a leaf
    int32_t right_child         # -1 for a leaf
    int32_t feature             # -2 for a leaf
    double threshold            # go left when x[feature] <= threshold; -2.0 for a leaf
    double impurity
    int32_t n_node_samples      # samples with non-zero weight that reached the node
    double weighted_n_node_samples
    uint8_t missing_go_to_left  # NaN goes to the left child (1) or the right one (0)
