"""Partial dependence by weighted tree traversal (scikit-learn's "recursion" method).

For a grid point ``x_S`` of the target features ``S``, Friedman's weighted traversal
starts at the root with weight 1; a split on a feature of ``S`` sends the weight to the
child that ``x_S`` goes to, any other split shares it between both children in
proportion to their training weight (``weighted_n_node_samples``); the partial dependence
is the sum of the leaves' values times the weights that reach them.

The weight that reaches a leaf is a product of two factors: the shares taken at the
splits on other features, which do not depend on the grid, and, for every target
feature ``j``, whether ``x_j`` satisfies the conditions of the leaf's splits on ``j``.
So the tree is walked once, level by level (all nodes of one depth at a time, with
numpy), for the distinct grid values of every target feature at once: each node carries
its share and, per target feature, a boolean row saying which of those values reach it.
For a grid that is a product of per-feature values (what scikit-learn builds) the sum
over leaves is then a matrix product over the distinct values, and every grid point
reads its entry; for other grids the leaves' rows are combined point by point, in
blocks.  The cost is O(nodes x distinct values) per tree, not O(nodes x grid points).

Splits read the grid values as :meth:`Tree.apply` reads samples (float64): ``x <=
threshold`` goes left, NaN goes to the ``missing_go_to_left`` side; a categorical split
(threshold NaN) sends left the codes of ``Tree.categories_left(node)``, and a value that
is no code 0 .. 64 ``Tree.code_words`` - 1 (NaN, negative, fractional, larger) goes where
the node's missing values go.
"""
import numpy as np
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits     # a dependency of scikit-learn

from rotforest._categorical import category_index
from rotforest._tree import set_sides

# bound on the temporary arrays (elements) of the sums over leaves
_BLOCK_BUDGET = 1 << 22


def _goes_left(tree, nodes, values):
    """Boolean (len(nodes), len(values)): which values each split node sends left."""
    threshold = tree.threshold[nodes]
    missing_left = tree.missing_go_to_left[nodes].astype(bool)[:, None]
    nan = np.isnan(values)[None, :]
    with np.errstate(invalid="ignore"):
        left = values[None, :] <= threshold[:, None]
    left = np.where(nan, missing_left, left)
    categorical = np.isnan(threshold)
    if np.any(categorical) and tree.code_sets is not None:
        rows = np.flatnonzero(categorical)
        left[rows] = set_sides(tree.code_sets, tree.code_at[nodes[rows]],
                               missing_left[rows, 0].astype(np.uint8),
                               np.ascontiguousarray(values, dtype=np.float64)).astype(bool)
    return left


def _leaf_terms(tree, target_features, values, n_values):
    """Walk ``tree`` for the values of each target feature.

    Returns ``(weighted, masks)``: ``weighted`` (n_leaves, n_values) holds every reached
    leaf's first ``n_values`` values times its share of the weight at the splits on
    other features; ``masks[k]`` (n_leaves, len(values[k])) says which values of target
    feature ``k`` reach the leaf.  Leaves that no value reaches are left out."""
    children_left = tree.children_left
    children_right = tree.children_right
    feature = tree.feature
    node_weight = tree.weighted_n_node_samples
    target_features = np.asarray(target_features)
    is_target = np.isin(feature, target_features)

    frontier = np.zeros(1, dtype=np.intp)
    share = np.ones(1)
    masks = [np.ones((1, v.shape[0]), dtype=bool) for v in values]
    leaf_nodes, leaf_shares, leaf_masks = [], [], [[] for _ in values]
    while frontier.size:
        leaf = children_left[frontier] == -1
        if np.any(leaf):
            leaf_nodes.append(frontier[leaf])
            leaf_shares.append(share[leaf])
            for k in range(len(values)):
                leaf_masks[k].append(masks[k][leaf])
        inner = ~leaf
        if not np.any(inner):
            break
        parent = frontier[inner]
        share = share[inner]
        masks = [m[inner] for m in masks]
        left, right = children_left[parent], children_right[parent]
        target = is_target[parent]
        # scikit-learn's shares: left / parent, and one minus that on the right
        with np.errstate(invalid="ignore", divide="ignore"):
            fraction = node_weight[left] / node_weight[parent]
        fraction = np.where(np.isfinite(fraction), fraction, 0.5)
        left_share = share * np.where(target, 1.0, fraction)
        right_share = share * np.where(target, 1.0, 1.0 - fraction)
        left_masks, right_masks = [], []
        for k, j in enumerate(target_features):
            rows = np.flatnonzero(feature[parent] == j)
            lm, rm = masks[k], masks[k]
            # a feature listed twice is routed by its first column only, as
            # scikit-learn's recursion does
            if rows.size and j not in target_features[:k]:
                go = _goes_left(tree, parent[rows], values[k])
                lm, rm = lm.copy(), rm.copy()
                lm[rows] &= go
                rm[rows] &= ~go
            left_masks.append(lm)
            right_masks.append(rm)
        frontier = np.concatenate([left, right])
        share = np.concatenate([left_share, right_share])
        masks = [np.concatenate([lm, rm]) for lm, rm in zip(left_masks, right_masks)]
        # drop the nodes that no value reaches (or that carry no weight)
        alive = share > 0
        for m in masks:
            alive &= m.any(axis=1)
        if not np.all(alive):
            frontier, share = frontier[alive], share[alive]
            masks = [m[alive] for m in masks]

    if not leaf_nodes:
        return np.zeros((0, n_values)), [np.zeros((0, v.shape[0]), bool) for v in values]
    leaf_nodes = np.concatenate(leaf_nodes)
    # (several outputs of a regression tree: one value each)
    values_of = tree.value.reshape(tree.value.shape[0], -1)
    weighted = values_of[leaf_nodes, :n_values] * np.concatenate(leaf_shares)[:, None]
    return weighted, [np.concatenate(m) for m in leaf_masks]


def _table(weighted, masks):
    """sum over leaves of weighted[l, v] * prod_k masks[k][l, i_k]: shape
    (n_values, n_0, n_1, ...)."""
    sizes = [m.shape[1] for m in masks]
    n_values = weighted.shape[1]
    table = np.zeros((n_values, int(np.prod(sizes))))
    if weighted.shape[0] == 0:
        return table.reshape(n_values, *sizes)
    last = masks[-1].astype(np.float64)
    head = int(np.prod(sizes[:-1]))
    # leaves in chunks, so that the outer products of the first masks stay small
    step = max(1, _BLOCK_BUDGET // max(head, 1))
    for start in range(0, weighted.shape[0], step):
        stop = start + step
        for v in range(n_values):
            outer = weighted[start:stop, v, None]
            for m in masks[:-1]:
                outer = (outer[:, :, None] * m[start:stop, None, :]).reshape(
                    outer.shape[0], -1)
            table[v] += (outer.T @ last[start:stop]).reshape(-1)
    return table.reshape(n_values, *sizes)


def trees_partial_dependence(trees, grid, target_features, n_values=1):
    """Mean over ``trees`` (``rotforest._tree.Tree``) of their partial dependence.

    Parameters
    ----------
    trees : list of Tree
    grid : ndarray of shape (n_points, n_target_features), float64
    target_features : ndarray of shape (n_target_features,), int
    n_values : int
        How many of the leaves' values (the last axis of ``Tree.value``) to return.

    Returns
    -------
    ndarray of shape (n_values, n_points), float64
    """
    # the matrix products are small (one tree's leaves by a few hundred values): BLAS
    # threads only cost here, and much more on a busy machine
    with threadpool_limits(limits=1, user_api="blas"):
        return _trees_partial_dependence(trees, grid, target_features, n_values)


def _trees_partial_dependence(trees, grid, target_features, n_values):
    grid = np.asarray(grid, dtype=np.float64)
    n_points, n_target = grid.shape
    out = np.zeros((n_values, n_points))
    if n_points == 0 or not trees:
        return out
    # the distinct values of every target feature (NaN once), and each point's index
    uniques, inverse = [], []
    for k in range(n_target):
        u, inv = np.unique(grid[:, k], return_inverse=True, equal_nan=True)
        uniques.append(u)
        inverse.append(inv.reshape(-1))
    n_cells = float(np.prod([u.shape[0] for u in uniques]))
    if n_target == 0:
        product = False
    else:
        # a product grid (or near one): the table over the distinct values is no larger
        # than a few times the grid; otherwise evaluate point by point
        product = n_cells <= max(4.0 * n_points, 1024.0)
    if product:
        table = np.zeros((n_values, int(n_cells)))
        for tree in trees:
            weighted, masks = _leaf_terms(tree, target_features, uniques, n_values)
            table += _table(weighted, masks).reshape(n_values, -1)
        cell = np.ravel_multi_index(tuple(inverse), [u.shape[0] for u in uniques]) \
            if n_target > 1 else inverse[0]
        out = table[:, cell]
    else:
        n_leaves_guess = max(t.n_leaves for t in trees)
        block = max(1, min(n_points, _BLOCK_BUDGET // max(n_leaves_guess, 1)))
        for start in range(0, n_points, block):
            rows = slice(start, start + block)
            values = [grid[rows, k] for k in range(n_target)]
            for tree in trees:
                weighted, masks = _leaf_terms(tree, target_features, values, n_values)
                reach = masks[0].astype(np.float64) if masks else None
                for m in masks[1:]:
                    reach *= m
                if reach is None:
                    out[:, rows] += weighted.sum(axis=0)[:, None]
                else:
                    out[:, rows] += weighted.T @ reach
    return out / len(trees)


def _checked_grid(est, grid, target_features):
    """The grid as float64 (n_points, n_target_features), pandas categories coded as in
    predict, and the target features as intp; clear errors for a wrong shape."""
    n_features = est.n_features_in_
    target_features = np.asarray(target_features)
    if target_features.ndim != 1 or (target_features.size
                                     and target_features.dtype.kind not in "iu"):
        raise ValueError("target_features must be a 1-D array of feature indices; got "
                         f"{target_features!r}")
    target_features = target_features.astype(np.intp)
    if np.any((target_features < 0) | (target_features >= n_features)):
        raise ValueError(f"target_features must lie in [0, {n_features - 1}]; got "
                         f"{target_features.tolist()}")
    grid = np.asarray(grid)
    if grid.ndim == 1 and target_features.size == 1:
        grid = grid.reshape(-1, 1)
    if grid.ndim != 2 or grid.shape[1] != target_features.size:
        raise ValueError(f"grid must have shape (n_points, {target_features.size}) for "
                         f"{target_features.size} target feature(s); got shape "
                         f"{grid.shape}")
    maps = getattr(est, "_category_maps", None) or {}
    if any(int(j) in maps for j in target_features):
        columns = [_category_column(grid[:, k], maps.get(int(j)))
                   for k, j in enumerate(target_features)]
        grid = np.column_stack(columns) if columns else grid.astype(np.float64)
    else:
        grid = grid.astype(np.float64)
    return grid, target_features


def _category_column(column, categories):
    """A grid column of a feature fitted as a pandas ``category`` column, as predict reads
    it.  scikit-learn builds the grid from X's own values: a DataFrame's category labels
    (coded here by the categories seen in fit, an unknown one as missing), or an array's
    codes, which predict takes as they are.  Numbers that are all among the categories
    are taken for labels, any other numbers for codes (where the categories are numbers
    and the codes happen to be among them, a grid of codes is read as labels)."""
    if categories is None:
        return np.asarray(column, dtype=np.float64)
    try:
        numbers = np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        numbers = None                      # labels that are not numbers
    index = category_index(categories).get_indexer(column)
    if numbers is not None:
        present = ~np.isnan(numbers)
        if not np.all(index[present] >= 0):
            return numbers                  # codes, as predict reads an array
    codes = index.astype(np.float64)
    codes[index < 0] = np.nan
    return codes


class RecursionDependence:
    """scikit-learn's partial dependence by the "recursion" method, for a regression
    tree or a forest of them (its default for both; see rotforest/_dependence.py)."""

    def _compute_partial_dependence_recursion(self, grid, target_features):
        """Partial dependence by weighted traversal of every tree, averaged over the trees
        as the prediction is.

        Called by :func:`sklearn.inspection.partial_dependence` with
        ``method="recursion"``.

        Parameters
        ----------
        grid : array-like of shape (n_points, n_target_features)
            Values of the target features (read as float64, as by ``predict``).
        target_features : array-like of int of shape (n_target_features,)
            The features of the grid's columns.

        Returns
        -------
        averaged_predictions : ndarray of shape (n_points,) or (n_outputs, n_points)
            The partial dependence at every grid point (of each output).
        """
        check_is_fitted(self)
        grid, target_features = _checked_grid(self, grid, target_features)
        trees = ([self.tree_] if hasattr(self, "tree_")
                 else [t.tree_ for t in self._trees()])
        n_outputs = getattr(self, "n_outputs_", 1)
        average = trees_partial_dependence(trees, grid, target_features, n_outputs)
        return average[0] if n_outputs == 1 else average
