"""Pruning: CART's minimal cost-complexity pruning and reduced-error pruning."""
import numpy as np

from rotforest._tree import Tree, cost_complexity_prune, keep_as_leaves


def prune_cost_complexity(tree, ccp_alpha):
    """The subtree of ``tree`` (a rotforest Tree) that minimal cost-complexity pruning
    keeps for ``ccp_alpha``: the one of largest cost complexity not above it."""
    if ccp_alpha <= 0.0 or tree.node_count == 1:
        return tree
    leaves = cost_complexity_prune(tree.nodes, ccp_alpha, False)
    return _rebuilt(tree, leaves)


def cost_complexity_path(tree):
    """Effective alphas and total leaf impurities of the weakest-link pruning sequence."""
    return cost_complexity_prune(tree.nodes, 0.0, True)


def prune_reduced_error(tree, X, y_codes, sample_weight):
    """Reduced-error pruning with a tuning set (X float64, y as class codes).

    Bottom-up, from the outermost branches toward the root, a branch becomes a leaf when
    the leaf misclassifies no more tuning weight than the (already pruned) branch does;
    ties prune, so the tree gets simpler. Branches that no tuning sample reaches are
    pruned too (they cannot be shown to help)."""
    n_nodes, n_classes = tree.node_count, tree.value.shape[2]
    path = tree.decision_path(X).tocsc()
    onehot = np.zeros((X.shape[0], n_classes))
    onehot[np.arange(X.shape[0]), y_codes] = sample_weight
    reached = np.asarray(path.T @ onehot)                  # tuning weight per node, class
    predicted = np.argmax(tree.value[:, 0, :], axis=1)      # a leaf's class, ties first
    leaf_error = reached.sum(axis=1) - reached[np.arange(n_nodes), predicted]
    left, right = tree.children_left, tree.children_right
    branch_error = leaf_error.copy()
    leaves = left == -1
    # children always carry larger ids than their parent: walking ids downwards visits
    # every branch after all the branches below it
    for node in range(n_nodes - 1, -1, -1):
        if left[node] == -1:
            continue
        below = branch_error[left[node]] + branch_error[right[node]]
        if leaf_error[node] <= below:
            leaves[node] = True
        else:
            branch_error[node] = below
    if not np.any(leaves & (left != -1)):
        return tree
    return _rebuilt(tree, leaves)


def _rebuilt(tree, leaves):
    nodes, value, depth = keep_as_leaves(tree.nodes, tree.value, leaves)
    return Tree(tree.n_features, int(tree.n_classes[0]), nodes, value, depth)
