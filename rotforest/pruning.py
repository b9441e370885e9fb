"""Pruning: CART's minimal cost-complexity pruning and reduced-error pruning."""
import numpy as np

from rotforest._tree import (Tree, categorical_splits, cost_complexity_prune, keep_as_leaves,
                             set_end)
from rotforest._validation import power_of_two_below


def prune_cost_complexity(tree, ccp_alpha):
    """The subtree that minimal cost-complexity pruning keeps for ``ccp_alpha``.

    Weakest links are collapsed, in the order of their effective alpha, as long as that
    alpha is at most ``ccp_alpha`` (CART's pruning, as scikit-learn does it). This is what
    a tree fitted with ``ccp_alpha`` does after growing.

    Parameters
    ----------
    tree : rotforest._tree.Tree
        A fitted tree's nodes (the ``tree_`` attribute of a
        :class:`~rotforest.DecisionTreeClassifier`); it is not modified.
    ccp_alpha : float
        Complexity parameter, non-negative; 0 keeps the tree as it is.

    Returns
    -------
    pruned : rotforest._tree.Tree
        A new compact tree (nodes renumbered in pre-order), or ``tree`` itself when
        nothing is pruned.

    See Also
    --------
    cost_complexity_path : The alphas at which the pruned tree changes.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from rotforest import DecisionTreeClassifier
    >>> from rotforest.pruning import prune_cost_complexity
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> clf.tree_.n_leaves, prune_cost_complexity(clf.tree_, 0.01).n_leaves
    (22, 6)
    """
    if ccp_alpha <= 0.0 or tree.node_count == 1:
        return tree
    leaves = cost_complexity_prune(tree.nodes, ccp_alpha, False)
    return _rebuilt(tree, leaves)


def cost_complexity_path(tree):
    """Effective alphas and total leaf impurities of the weakest-link pruning sequence.

    Parameters
    ----------
    tree : rotforest._tree.Tree
        A fitted tree's nodes (the ``tree_`` attribute of a
        :class:`~rotforest.DecisionTreeClassifier`); it is not modified.

    Returns
    -------
    ccp_alphas : ndarray of shape (n_steps,)
        The effective alpha of each pruning step, increasing, from 0 (the whole tree) to
        the alpha that leaves only the root.
    impurities : ndarray of shape (n_steps,)
        Total weighted impurity of the leaves after each step.

    See Also
    --------
    rotforest.DecisionTreeClassifier.cost_complexity_pruning_path : Grows the tree and
        returns this path, as scikit-learn does.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from rotforest import DecisionTreeClassifier
    >>> from rotforest.pruning import cost_complexity_path
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    >>> alphas, impurities = cost_complexity_path(tree)
    >>> len(alphas), alphas.round(4)[-3:].tolist()
    (7, [0.0297, 0.2598, 0.3333])
    """
    return cost_complexity_prune(tree.nodes, 0.0, True)


def prune_reduced_error(tree, X, y_codes, sample_weight, regression=False):
    """Reduced-error pruning of a tree with a tuning set.

    Bottom-up, from the outermost branches toward the root, a branch becomes a leaf when
    the leaf misclassifies no more tuning weight than the (already pruned) branch does;
    ties prune, so the tree gets simpler. Branches that no tuning sample reaches are
    pruned too (they cannot be shown to help).

    Parameters
    ----------
    tree : rotforest._tree.Tree
        A fitted tree's nodes (the ``tree_`` attribute of a
        :class:`~rotforest.DecisionTreeClassifier`); it is not modified.
    X : ndarray of shape (n_samples, n_features), float64
        Tuning data, C-contiguous.
    y_codes : ndarray of shape (n_samples,) or (n_samples, n_outputs), int
        Tuning labels as class codes, the indices into the estimator's ``classes_``; for
        a regression tree, the tuning targets (float).  Several outputs: their errors
        are summed.
    sample_weight : ndarray of shape (n_samples,)
        Non-negative weights of the tuning samples.
    regression : bool, default=False
        The tree is a regression tree: errors are weighted squared errors from each
        node's mean instead of misclassified weight.

    Returns
    -------
    pruned : rotforest._tree.Tree
        A new compact tree (nodes renumbered in pre-order), or ``tree`` itself when
        nothing is pruned.

    See Also
    --------
    rotforest.DecisionTreeClassifier.reduced_error_prune : The same on an estimator,
        from labels as they are.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from rotforest import DecisionTreeClassifier
    >>> from rotforest.pruning import prune_reduced_error
    >>> X, y = make_classification(600, flip_y=0.2, random_state=0)
    >>> clf = DecisionTreeClassifier(random_state=0).fit(X[:400], y[:400])
    >>> codes = np.searchsorted(clf.classes_, y[400:])
    >>> pruned = prune_reduced_error(clf.tree_, X[400:], codes, np.ones(200))
    >>> clf.tree_.n_leaves, pruned.n_leaves
    (52, 2)
    """
    n_nodes, n_classes = tree.node_count, tree.value.shape[2]
    path = tree.decision_path(X).tocsc()
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    if sample_weight.size and sample_weight.max() > 0:
        # only ratios matter: divided by a power of two (exactly) to lie near 1
        sample_weight = sample_weight / power_of_two_below(sample_weight.max())
    targets = np.asarray(y_codes)
    targets = targets.reshape(targets.shape[0], -1)    # a column per output
    leaf_error = np.zeros(n_nodes)
    for o in range(targets.shape[1]):       # several outputs: their errors summed
        if regression:
            # each node's weighted squared error from its own mean, term by term (sums
            # of non-negative terms, as below)
            rows = path.indices
            node_of = np.repeat(np.arange(n_nodes), np.diff(path.indptr))
            residual = (targets[rows, o].astype(np.float64)
                        - tree.value[node_of, o, 0])
            leaf_error += np.bincount(node_of, minlength=n_nodes,
                                      weights=sample_weight[rows] * residual * residual)
        else:
            onehot = np.zeros((X.shape[0], n_classes))
            onehot[np.arange(X.shape[0]), targets[:, o]] = sample_weight
            reached = np.asarray(path.T @ onehot)           # tuning weight per node, class
            predicted = np.argmax(tree.value[:, o, :], axis=1)  # a leaf's class, ties first
            wrong = np.ones_like(reached, dtype=bool)
            wrong[np.arange(n_nodes), predicted] = False
            leaf_error += np.where(wrong, reached, 0.0).sum(axis=1)  # summed, not subtracted
    n_classes *= targets.shape[1]
    # a leaf's and a branch's errors are sums of the same non-negative terms in other
    # groupings: they differ by at most their rounding (m terms: m * eps of the sums)
    # when equal, and such differences are ties, so that the pruned tree depends on the
    # ratios of the weights alone
    rounding = (np.asarray(path.sum(axis=0)).ravel() + n_classes) * np.finfo(np.float64).eps
    left, right = tree.children_left, tree.children_right
    branch_error = leaf_error.copy()
    leaves = left == -1
    # children always carry larger ids than their parent: walking ids downwards visits
    # every branch after all the branches below it
    for node in range(n_nodes - 1, -1, -1):
        if left[node] == -1:
            continue
        below = branch_error[left[node]] + branch_error[right[node]]
        if leaf_error[node] <= below + 2.0 * rounding[node] * (leaf_error[node] + below):
            leaves[node] = True
        else:
            branch_error[node] = below
    if not np.any(leaves & (left != -1)):
        return tree
    return _rebuilt(tree, leaves)


def _rebuilt(tree, leaves):
    nodes, value, depth, keep = keep_as_leaves(tree.nodes, tree.value, leaves)
    codes = None
    if tree.code_sets is not None:
        # the sets of the nodes that still split on a set of codes, in their new order
        kept = keep[categorical_splits(nodes)]
        if kept.size:
            starts = tree.code_at[kept]
            ends = np.array([set_end(tree.code_sets, s) for s in starts], dtype=np.int64)
            codes = np.concatenate([tree.code_sets[a:b] for a, b in zip(starts, ends)])
    return Tree(tree.n_features, tree.n_classes, nodes, value, depth, codes)
