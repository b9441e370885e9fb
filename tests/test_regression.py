"""DecisionTreeRegressor against independent references: scikit-learn's tree on tie-free
data, and a brute-force split search written here for every node of a tree."""
import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.tree import DecisionTreeRegressor as SkTree
from sklearn.tree import export_text

from helpers import sklearn_at_least
from rotforest import DecisionTreeRegressor
from test_exactness import assert_same_tree

# Before 1.8, scikit-learn's absolute error found weighted medians wrongly under unequal
# sample weights (scikit-learn#10725; its criterion was rewritten in 1.8, #32100): its
# trees are then no oracle for ours.
SKLEARN_WEIGHTED_MEDIANS = sklearn_at_least("1.8")
NO_WEIGHTED_MEDIANS = "scikit-learn < 1.8 computes weighted medians wrongly (fixed in 1.8)"


def skip_weighted_absolute_error(criterion):
    if criterion == "absolute_error" and not SKLEARN_WEIGHTED_MEDIANS:
        pytest.skip(NO_WEIGHTED_MEDIANS)


def tie_free_regression(n, n_features, seed, poisson=False):
    """Columns that are permutations of 0..n-1 (exact in float32, as scikit-learn's trees
    read them) and a continuous target of distinct values."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, n_features))
    signal = 1.5 * Z[:, 0] + np.sin(2.0 * Z[:, 1]) + 0.5 * Z[:, 2] * Z[:, 3]
    if poisson:
        y = rng.gamma(2.0, np.exp(0.4 * signal) / 2.0)       # positive, continuous
    else:
        y = signal + 0.3 * rng.normal(size=n)
    X = np.column_stack([rankdata(Z[:, j], method="ordinal") - 1 for j in range(n_features)])
    return X.astype(np.float64), y


SETTINGS = [
    dict(max_depth=1),
    dict(max_depth=4),
    dict(min_samples_leaf=25),
    dict(max_depth=8, min_samples_leaf=5, min_samples_split=40),
    dict(min_weight_fraction_leaf=0.02),
    dict(min_impurity_decrease=0.002, min_samples_leaf=10),
]


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "absolute_error"])
@pytest.mark.parametrize("weights", ["none", "real", "integer"])
@pytest.mark.parametrize("settings", SETTINGS,
                         ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_equals_sklearn(criterion, weights, settings):
    X, y = tie_free_regression(1200, 6, seed=3, poisson=criterion == "poisson")
    rng = np.random.default_rng(1)
    sw = {"none": None, "real": rng.uniform(0.2, 3.0, len(y)),
          "integer": rng.integers(0, 4, len(y)).astype(float)}[weights]
    if weights != "none":
        skip_weighted_absolute_error(criterion)
    ours = DecisionTreeRegressor(criterion=criterion, **settings).fit(X, y, sw)
    theirs = SkTree(criterion=criterion, random_state=0, **settings).fit(X, y, sw)
    if criterion == "absolute_error" and weights == "none":
        # With unit weights, moving one sample across a cut often leaves the summed
        # absolute deviations exactly unchanged (it lies in both children's median
        # intervals), so cuts of one node tie exactly and each builder's rounding picks
        # one.  Every disagreement must be such a tie.
        ties, compared = assert_same_tree(ours, theirs, max_ties=None)
        assert compared >= 0.6 * theirs.tree_.node_count
        return
    ties, compared = assert_same_tree(ours, theirs, max_ties=0)
    assert compared == theirs.tree_.node_count
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(ours.apply(X), theirs.apply(X.astype(np.float32)))


def test_equals_sklearn_fully_grown():
    """Grown to single samples, small nodes tie between features; every disagreement must
    be an exact tie, and the trees fit the training data alike."""
    X, y = tie_free_regression(1500, 5, seed=8)
    sw = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    ours = DecisionTreeRegressor().fit(X, y, sw)
    theirs = SkTree(random_state=0).fit(X, y, sw)
    ties, compared = assert_same_tree(ours, theirs, max_ties=None)
    # ties cut whole subtrees off: where they fall depends on scikit-learn's random
    # feature order and on the last bits of y (numpy's sin differs between releases);
    # 0.39 to 0.42 of the nodes are compared over random_state 0..5 and numpy 1.23 to 2.5
    assert compared >= 0.35 * theirs.tree_.node_count
    np.testing.assert_allclose(ours.predict(X), y)       # every leaf one sample


@pytest.mark.parametrize("max_leaf_nodes", [2, 9, 40])
def test_equals_sklearn_best_first(max_leaf_nodes):
    X, y = tie_free_regression(2000, 5, seed=4)
    sw = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    ours = DecisionTreeRegressor(max_leaf_nodes=max_leaf_nodes).fit(X, y, sw)
    theirs = SkTree(max_leaf_nodes=max_leaf_nodes, random_state=0).fit(X, y, sw)
    assert_same_tree(ours, theirs, max_ties=0)
    assert ours.get_n_leaves() == max_leaf_nodes


def test_friedman_mse_splits_as_squared_error():
    """Friedman's score orders the cuts of a node as the squared error's does (both grow
    the same tree depth-first); only the improvement it reports differs:
    wl wr (mean_l - mean_r)^2 / w, not scaled by the node's share of the weight."""
    X, y = tie_free_regression(800, 5, seed=5)
    a = DecisionTreeRegressor(criterion="friedman_mse", min_samples_leaf=5).fit(X, y)
    b = DecisionTreeRegressor(min_samples_leaf=5).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_allclose(a.tree_.impurity, b.tree_.impurity)
    # best-first order follows Friedman's improvement: recompute it for the root's
    # children and check the larger one was split first
    t = DecisionTreeRegressor(criterion="friedman_mse", max_leaf_nodes=3).fit(X, y).tree_

    def friedman(node):
        l, r = t.children_left[node], t.children_right[node]
        wl, wr = t.weighted_n_node_samples[l], t.weighted_n_node_samples[r]
        d = t.value[l, 0, 0] - t.value[r, 0, 0]
        return wl * wr * d * d / (wl + wr)

    full = DecisionTreeRegressor(criterion="friedman_mse", max_depth=2).fit(X, y).tree_
    kids = [full.children_left[0], full.children_right[0]]
    scores = []
    for node in kids:
        l, r = full.children_left[node], full.children_right[node]
        wl, wr = full.weighted_n_node_samples[l], full.weighted_n_node_samples[r]
        d = full.value[l, 0, 0] - full.value[r, 0, 0]
        scores.append(wl * wr * d * d / (wl + wr))
    first = kids[int(np.argmax(scores))]
    split_side = 0 if t.children_left[t.children_left[0]] != -1 else 1
    assert kids.index(first) == split_side
    assert friedman(0) > 0


# ----------------------------------------------------------------------------------------
# Brute force: the best split of every node, from the definitions
# ----------------------------------------------------------------------------------------

def _loss(y, w, criterion):
    """The node's weighted loss: sum of w (y - mean)^2, the Poisson deviance / 2, or the
    least sum of w |y - c| (attained at one of the y: the loss is convex and piecewise
    linear in c)."""
    W = w.sum()
    mean = np.dot(w, y) / W
    if criterion == "squared_error":
        return float(np.dot(w, (y - mean) ** 2))
    if criterion == "absolute_error":
        return float(min(np.dot(w, np.abs(y - c)) for c in y))
    if mean <= 0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(y > 0, y * np.log(y / mean), 0.0)
    return float(np.dot(w, t - y + mean))


def brute_force_node(X, y, w, criterion, min_samples_leaf):
    """Every cut of the node (between distinct present values, missing values sent
    either way, and "all present left, missing right"): the best loss decrease."""
    parent = _loss(y, w, criterion)
    best = -np.inf
    for f in range(X.shape[1]):
        x = X[:, f]
        miss = np.isnan(x)
        values = np.unique(x[~miss])
        cuts = [(x <= lo) & ~miss for lo in values[:-1]]
        if miss.any():
            cuts += [c | miss for c in cuts] + [~miss]
        for left in cuts:
            right = ~left
            if left.sum() < min_samples_leaf or right.sum() < min_samples_leaf:
                continue
            if criterion == "poisson" and (np.dot(w[left], y[left]) <= 1e-12
                                           or np.dot(w[right], y[right]) <= 1e-12):
                continue
            gain = parent - _loss(y[left], w[left], criterion) - _loss(y[right], w[right],
                                                                      criterion)
            best = max(best, gain)
    return parent, best


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "absolute_error"])
@pytest.mark.parametrize("seed", range(6))
def test_every_split_matches_brute_force(criterion, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 90))
    X = rng.integers(0, 4, size=(n, 3)).astype(float)       # heavy ties
    X = np.column_stack([X, rng.normal(size=n)])             # one continuous column
    if seed % 2:
        X[rng.random(X.shape) < 0.15] = np.nan               # missing values
    y = rng.poisson(2.0, n).astype(float) if criterion == "poisson" else rng.normal(size=n)
    w = rng.choice([0.5, 1.0, 2.0], size=n)
    msl = int(rng.integers(1, 4))
    tree = DecisionTreeRegressor(criterion=criterion, min_samples_leaf=msl, max_depth=4)
    t = tree.fit(X, y, sample_weight=w).tree_
    path = tree.decision_path(X).toarray().astype(bool)
    checked = 0
    for node in range(t.node_count):
        inside = path[:, node]
        parent, best = brute_force_node(X[inside], y[inside], w[inside], criterion, msl)
        if t.children_left[node] == -1:
            # a leaf: no split was allowed, or none helps (or the depth limit held it)
            depth_limited = t.compute_node_depths()[node] == 5
            assert depth_limited or best <= 1e-9 * max(1.0, parent) or inside.sum() < 2 * msl
            continue
        l, r = t.children_left[node], t.children_right[node]
        gain = parent - _loss(y[path[:, l]], w[path[:, l]], criterion) \
            - _loss(y[path[:, r]], w[path[:, r]], criterion)
        assert gain == pytest.approx(best, rel=1e-9, abs=1e-9)
        # the stored impurities are the node losses per unit weight
        W = w[inside].sum()
        assert t.impurity[node] == pytest.approx(parent / W, rel=1e-9, abs=1e-12)
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize("weighted", [False, True])
def test_poisson_never_makes_a_child_of_zero_targets(weighted):
    # rates with zeros at the high end of x0: the right child's sum of w y, taken as the
    # node's total less the left sum, rounds to a leftover above zero; such a child
    # (which would predict 0) must still be refused, and the best allowed cut chosen
    # (found from a fuzzing review: 1.4e-14 left over made a child of 28 zeros)
    checked = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = 100
        X = rng.normal(size=(n, 2))
        y = np.where(X[:, 0] > 0.5, 0.0, rng.gamma(2.0, 0.7, n))
        w = rng.uniform(0.3, 3.0, n) if weighted else np.ones(n)
        tree = DecisionTreeRegressor(criterion="poisson", max_depth=1)
        t = tree.fit(X, y, sample_weight=w).tree_
        assert t.node_count == 3
        assert t.value[1:, 0, 0].min() > 0.0
        parent, best = brute_force_node(X, y, w, "poisson", 1)
        left = tree.apply(X) == 1
        gain = parent - _loss(y[left], w[left], "poisson") - _loss(y[~left], w[~left],
                                                                   "poisson")
        assert gain == pytest.approx(best, rel=1e-9)
        checked += 1
    assert checked == 40
    forest = RandomForestRegressor(criterion="poisson", n_estimators=10, random_state=0)
    forest.fit(X, y)
    for est in forest.estimators_:
        leaves = est.tree_.children_left == -1
        assert est.tree_.value[leaves, 0, 0].min() > 0.0


def test_leaves_hold_weighted_means():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = rng.normal(size=300)
    w = rng.uniform(0.1, 3.0, 300)
    reg = DecisionTreeRegressor(min_samples_leaf=20, random_state=0).fit(X, y, w)
    leaves = reg.apply(X)
    for leaf in np.unique(leaves):
        m = leaves == leaf
        assert reg.tree_.value[leaf, 0, 0] == pytest.approx(np.average(y[m], weights=w[m]))
    assert reg.predict(X).shape == (300,)


def weighted_median(y, w):
    """scikit-learn's weighted median, written out: in increasing y, the first value
    whose cumulative weight exceeds half the total; the mean of it and the value before
    when the weight before it is exactly half."""
    order = np.argsort(y, kind="stable")
    y, w = y[order], w[order]
    before = np.concatenate([[0.0], np.cumsum(w)[:-1]])
    i = int(np.nonzero(before + w > w.sum() / 2)[0][0])
    return (y[i - 1] + y[i]) / 2 if i > 0 and before[i] == w.sum() / 2 else y[i]


def test_weighted_median_by_hand():
    assert weighted_median(np.array([1.0, 2, 10, 20]), np.array([1.0, 1, 1, 3])) == 15.0
    assert weighted_median(np.array([3.0, 1, 2]), np.ones(3)) == 2.0
    assert weighted_median(np.array([4.0, 1, 2, 3]), np.ones(4)) == 2.5


@pytest.mark.parametrize("weights", ["none", "integer", "real"])
def test_absolute_error_leaves_hold_weighted_medians(weights):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 3))
    y = np.round(rng.normal(size=400), 1)        # repeated values: median ties
    w = {"none": np.ones(400), "integer": rng.integers(1, 4, 400).astype(float),
         "real": rng.uniform(0.1, 3.0, 400)}[weights]
    for splitter in ["best", "random"]:
        reg = DecisionTreeRegressor(criterion="absolute_error", splitter=splitter,
                                    min_samples_leaf=6, random_state=0).fit(X, y, w)
        t = reg.tree_
        path = reg.decision_path(X).toarray().astype(bool)
        for node in range(t.node_count):
            m = path[:, node]
            med = weighted_median(y[m], w[m])
            assert t.value[node, 0, 0] == pytest.approx(med, abs=1e-12)
            sad = np.dot(w[m], np.abs(y[m] - med))
            assert t.impurity[node] == pytest.approx(sad / w[m].sum(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("cst", [1, -1])
@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
def test_monotonic_constraints_equal_sklearn_and_hold(cst, criterion):
    X, y = tie_free_regression(1000, 4, seed=9)
    y = y + cst * 0.002 * X[:, 1]
    mono = [0, cst, 0, 0]
    # (real weights: the absolute error's cuts then do not tie, see test_equals_sklearn)
    sw = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    skip_weighted_absolute_error(criterion)
    ours = DecisionTreeRegressor(criterion=criterion, monotonic_cst=mono,
                                 min_samples_leaf=10).fit(X, y, sw)
    theirs = SkTree(criterion=criterion, monotonic_cst=mono, min_samples_leaf=10,
                    random_state=0).fit(X, y, sw)
    assert_same_tree(ours, theirs, max_ties=0)
    grid = np.tile(X[:200], (1, 1))
    low, high = grid.copy(), grid.copy()
    low[:, 1] = 0.0
    high[:, 1] = X[:, 1].max()
    assert np.all(cst * (ours.predict(high) - ours.predict(low)) >= 0)


def test_random_splitter_fits_and_partitions():
    X, y = tie_free_regression(500, 5, seed=2)
    reg = DecisionTreeRegressor(splitter="random", min_samples_leaf=5, random_state=0).fit(X, y)
    assert reg.get_n_leaves() > 10
    # every leaf's value is the mean of the training samples it receives
    leaves = reg.apply(X)
    for leaf in np.unique(leaves):
        assert reg.tree_.value[leaf, 0, 0] == pytest.approx(y[leaves == leaf].mean())
    again = DecisionTreeRegressor(splitter="random", min_samples_leaf=5, random_state=0)
    np.testing.assert_array_equal(again.fit(X, y).tree_.threshold, reg.tree_.threshold)


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
def test_cost_complexity_path_equals_sklearn(criterion):
    X, y = tie_free_regression(600, 4, seed=6)
    sw = np.random.default_rng(5).uniform(0.5, 2.0, len(y))
    skip_weighted_absolute_error(criterion)
    ours = DecisionTreeRegressor(criterion=criterion, min_samples_leaf=8)
    ours = ours.cost_complexity_pruning_path(X, y, sw)
    theirs = SkTree(criterion=criterion, min_samples_leaf=8, random_state=0)
    theirs = theirs.cost_complexity_pruning_path(X, y, sw)
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=1e-9, atol=1e-12)
    alpha = ours.ccp_alphas[-4]
    a = DecisionTreeRegressor(criterion=criterion, min_samples_leaf=8,
                              ccp_alpha=alpha).fit(X, y, sw)
    b = SkTree(criterion=criterion, min_samples_leaf=8, ccp_alpha=alpha,
               random_state=0).fit(X, y, sw)
    assert_same_tree(a, b, max_ties=0)


def test_reduced_error_pruning_by_squared_error():
    """Against a direct bottom-up computation of the tuning set's squared errors."""
    X, y = tie_free_regression(700, 4, seed=10)
    y = y + np.random.default_rng(0).normal(size=len(y))
    reg = DecisionTreeRegressor(min_samples_leaf=3).fit(X[:400], y[:400])
    t = reg.tree_
    Xt, yt = X[400:], y[400:]
    path = reg.decision_path(Xt).toarray().astype(bool)
    own = np.array([np.sum((yt[path[:, j]] - t.value[j, 0, 0]) ** 2)
                    for j in range(t.node_count)])
    keep_leaf = np.zeros(t.node_count, bool)
    best = own.copy()
    for j in range(t.node_count - 1, -1, -1):
        if t.children_left[j] == -1:
            continue
        below = best[t.children_left[j]] + best[t.children_right[j]]
        if own[j] <= below + 1e-9:
            keep_leaf[j] = True
        else:
            best[j] = below
    # leaves of the expected pruned tree: nodes made leaves with no leaf above them
    expected = 0
    stack = [0]
    while stack:
        j = stack.pop()
        if keep_leaf[j] or t.children_left[j] == -1:
            expected += 1
        else:
            stack += [t.children_left[j], t.children_right[j]]
    before = reg.get_n_leaves()
    reg.reduced_error_prune(Xt, yt)
    assert reg.get_n_leaves() == expected < before
    assert np.sum((reg.predict(Xt) - yt) ** 2) == pytest.approx(best[0])


def test_validation_fraction_prunes_on_held_out_rows():
    X, y = tie_free_regression(800, 4, seed=11)
    y = y + np.random.default_rng(1).normal(size=len(y))
    full = DecisionTreeRegressor(random_state=0).fit(X, y)
    pruned = DecisionTreeRegressor(validation_fraction=0.3, random_state=0).fit(X, y)
    assert pruned.get_n_leaves() < full.get_n_leaves() / 5


def test_exporters_read_the_regressor():
    X, y = tie_free_regression(200, 4, seed=1)
    reg = DecisionTreeRegressor(max_depth=2).fit(X, y)
    text = export_text(reg, feature_names=["a", "b", "c", "d"])
    assert "value: [" in text and "a <=" in text


@pytest.mark.parametrize("y, message", [
    (np.r_[np.nan, np.zeros(9)], "NaN"),
    (np.r_[np.inf, np.zeros(9)], "infinity|infinite"),
    (np.array(list("abcdefghij")), "could not convert|numeric|string"),
    (np.zeros(7), "inconsistent|samples"),
    (np.zeros((10, 2, 1)), "1-D or 2-D"),
    (np.zeros((10, 0)), "0 columns"),
    (np.r_[1e200, np.zeros(9)], "1e150"),
])
def test_bad_targets_give_clear_errors(y, message):
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor().fit(X, y)


def test_poisson_needs_non_negative_targets():
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ValueError, match="non-negative"):
        DecisionTreeRegressor(criterion="poisson").fit(X, np.r_[-1.0, np.ones(9)])
    with pytest.raises(ValueError, match="positive"):
        DecisionTreeRegressor(criterion="poisson").fit(X, np.zeros(10))


def test_classification_criterion_refused():
    with pytest.raises(ValueError, match="criterion"):
        DecisionTreeRegressor(criterion="gini").fit(np.eye(4), np.arange(4.0))


# ----------------------------------------------------------------------------------------
# RandomForestRegressor
# ----------------------------------------------------------------------------------------

from sklearn.ensemble import RandomForestRegressor as SkForest  # noqa: E402
from sklearn.metrics import r2_score  # noqa: E402

from rotforest import RandomForestRegressor  # noqa: E402


def test_forest_without_bootstrap_equals_sklearn():
    """Without bootstrap and with every feature drawn, every tree is the deterministic
    CART tree, so on tie-free data both forests predict alike."""
    X, y = tie_free_regression(800, 5, seed=12)
    ours = RandomForestRegressor(n_estimators=3, bootstrap=False, min_samples_leaf=10,
                                 random_state=0).fit(X, y)
    theirs = SkForest(n_estimators=3, bootstrap=False, min_samples_leaf=10,
                      random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    for a, b in zip(ours.estimators_, theirs.estimators_):
        assert_same_tree(a, b, max_ties=0)


def test_absolute_error_forest_without_bootstrap_equals_sklearn():
    """The same with the absolute error (real weights, under which its cuts do not tie
    exactly; see test_equals_sklearn); a bootstrap forest's trees hold the medians of
    the rows they drew (integer weights), and its prediction is their mean."""
    X, y = tie_free_regression(600, 5, seed=14)
    sw = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    if SKLEARN_WEIGHTED_MEDIANS:        # (see NO_WEIGHTED_MEDIANS)
        ours = RandomForestRegressor(n_estimators=3, criterion="absolute_error",
                                     bootstrap=False, min_samples_leaf=10,
                                     random_state=0).fit(X, y, sw)
        theirs = SkForest(n_estimators=3, criterion="absolute_error", bootstrap=False,
                          min_samples_leaf=10, random_state=0).fit(X, y, sw)
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
        for a, b in zip(ours.estimators_, theirs.estimators_):
            assert_same_tree(a, b, max_ties=0)
    boot = RandomForestRegressor(n_estimators=4, criterion="absolute_error",
                                 min_samples_leaf=5, random_state=1).fit(X, y)
    for tree, rows in zip(boot.estimators_, boot.estimators_samples_):
        counts = np.bincount(rows, minlength=len(y)).astype(float)
        leaves = tree.apply(X)
        for leaf in np.unique(leaves[counts > 0])[:20]:
            m = (leaves == leaf) & (counts > 0)
            assert tree.tree_.value[leaf, 0, 0] == weighted_median(y[m], counts[m])
    np.testing.assert_allclose(boot.predict(X),
                               np.mean([t.predict(X) for t in boot.estimators_], axis=0))


def test_forest_is_the_mean_of_its_trees_and_reproducible():
    X, y = tie_free_regression(600, 6, seed=13)
    X[::7, 2] = np.nan
    forest = RandomForestRegressor(n_estimators=12, max_features=0.5, random_state=3)
    forest.fit(X, y)
    mean = np.mean([t.predict(X) for t in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict(X), mean, rtol=1e-12)
    again = RandomForestRegressor(n_estimators=12, max_features=0.5, n_jobs=2,
                                  random_state=3).fit(X, y)
    np.testing.assert_array_equal(forest.predict(X), again.predict(X))
    # a warm start to 12 trees from 5 gives the same forest
    warm = RandomForestRegressor(n_estimators=5, max_features=0.5, random_state=3,
                                 warm_start=True).fit(X, y)
    warm.set_params(n_estimators=12).fit(X, y)
    np.testing.assert_array_equal(forest.predict(X), warm.predict(X))


def test_forest_oob_prediction_from_the_trees_that_left_a_sample_out():
    X, y = tie_free_regression(300, 4, seed=14)
    forest = RandomForestRegressor(n_estimators=30, oob_score=True, random_state=0).fit(X, y)
    sums = np.zeros(len(y))
    counts = np.zeros(len(y))
    for tree, drawn in zip(forest.estimators_, forest.estimators_samples_):
        out = np.bincount(drawn, minlength=len(y)) == 0
        sums[out] += tree.predict(X[out])
        counts[out] += 1
    seen = counts > 0
    np.testing.assert_allclose(forest.oob_prediction_[seen], sums[seen] / counts[seen])
    assert forest.oob_score_ == pytest.approx(r2_score(y[seen], sums[seen] / counts[seen]))
    scored = RandomForestRegressor(n_estimators=30, random_state=0,
                                   oob_score=lambda t, p: float(np.mean(np.abs(t - p))))
    assert scored.fit(X, y).oob_score_ == pytest.approx(
        np.mean(np.abs(y[seen] - forest.oob_prediction_[seen])))


def test_forest_accuracy_close_to_sklearn():
    """Bagged trees of the same kind: the held-out R^2 of both forests is close."""
    from sklearn.datasets import make_friedman1
    X, y = make_friedman1(1500, noise=1.0, random_state=0)
    ours = RandomForestRegressor(n_estimators=60, random_state=0).fit(X[:1000], y[:1000])
    theirs = SkForest(n_estimators=60, random_state=0).fit(X[:1000], y[:1000])
    a, b = ours.score(X[1000:], y[1000:]), theirs.score(X[1000:], y[1000:])
    assert a > 0.8 and abs(a - b) < 0.01


def test_forest_oob_pruning_and_monotonic():
    X, y = tie_free_regression(500, 4, seed=15)
    y = y + np.random.default_rng(0).normal(size=len(y))
    plain = RandomForestRegressor(n_estimators=10, random_state=0).fit(X, y)
    pruned = RandomForestRegressor(n_estimators=10, oob_pruning=True, random_state=0).fit(X, y)
    assert (sum(t.get_n_leaves() for t in pruned.estimators_)
            < 0.5 * sum(t.get_n_leaves() for t in plain.estimators_))
    mono = RandomForestRegressor(n_estimators=10, monotonic_cst=[1, 0, 0, 0],
                                 random_state=0).fit(X, y)
    low, high = X[:100].copy(), X[:100].copy()
    low[:, 0] = 0.0
    high[:, 0] = X[:, 0].max()
    assert np.all(mono.predict(high) >= mono.predict(low))


def test_forest_bad_targets():
    X = np.arange(40.0).reshape(20, 2)
    with pytest.raises(ValueError, match="NaN"):
        RandomForestRegressor(n_estimators=2).fit(X, np.r_[np.nan, np.zeros(19)])
    with pytest.raises(ValueError, match="1-D or 2-D"):
        RandomForestRegressor(n_estimators=2).fit(X, np.zeros((20, 3, 1)))
    with pytest.raises(ValueError, match="criterion"):
        RandomForestRegressor(n_estimators=2, criterion="gini").fit(X, np.zeros(20))
    forest = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, np.arange(20.0))
    before = forest.predict(X)
    with pytest.raises(ValueError):
        forest.set_params(warm_start=True, n_estimators=4).fit(X[:, :1], np.arange(20.0))
    np.testing.assert_array_equal(forest.predict(X), before)    # left as it was


def test_forest_trees_break_exact_feature_ties_at_random():
    """With every feature drawn, a lone tree takes the first of two identical columns at
    every split, while a forest's trees visit the features in a random order (as
    scikit-learn's do), so both copies get used."""
    X, y = tie_free_regression(400, 4, seed=16)
    X = np.column_stack([X[:, 0], X])                 # columns 0 and 1 are the same
    tree = DecisionTreeRegressor(random_state=0).fit(X, y)
    assert tree.feature_importances_[1] == 0.0 and tree.feature_importances_[0] > 0.2
    forest = RandomForestRegressor(n_estimators=20, max_features=1.0, random_state=0)
    importances = forest.fit(X, y).feature_importances_
    assert importances[0] > 0.05 and importances[1] > 0.05


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("settings", [dict(), dict(min_samples_leaf=3),
                                      dict(max_features=0.5, random_state=1)],
                         ids=["full", "msl3", "features"])
def test_absolute_error_unit_weights_equal_doubled_weights(missing, settings):
    """Unit weights take the branch-free kernels (medians moving one rank a step, large
    nodes and nodes of at most 64 samples); weights of 2 everywhere take the general
    ones and double every sum exactly, so the trees must be the same node for node."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(700, 4))
    X[:, 1] = np.round(X[:, 1], 1)                  # ties in a feature
    y = np.round(rng.normal(size=700), 1)           # ties in the target
    y[:350] = rng.normal(size=350)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    unit = DecisionTreeRegressor(criterion="absolute_error", **settings).fit(X, y)
    two = DecisionTreeRegressor(criterion="absolute_error", **settings).fit(
        X, y, np.full(len(y), 2.0))
    a, b = unit.tree_, two.tree_
    assert a.node_count == b.node_count > 100
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    np.testing.assert_array_equal(a.value, b.value)
    np.testing.assert_array_equal(a.impurity, b.impurity)


@pytest.mark.parametrize("criterion", ["squared_error", "friedman_mse", "absolute_error"])
def test_two_sample_nodes_split_on_the_first_separating_feature(criterion):
    """Every cut of a node of two samples is the same partition, so its features tie
    exactly: the first visited (index order in a tree without feature draws) that
    separates the two wins, not whichever rounding favours."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(400, 5))
    X[:, 0] = np.round(X[:, 0])               # often equal: the split then moves on
    y = rng.normal(size=400) * 1e3 + 1e4      # large sums: rounding differs by side
    reg = DecisionTreeRegressor(criterion=criterion).fit(X, y)
    t = reg.tree_
    path = reg.decision_path(X).toarray().astype(bool)
    checked = 0
    for node in np.flatnonzero((t.children_left >= 0) & (t.n_node_samples == 2)):
        a, b = X[path[:, node]]
        assert t.feature[node] == np.flatnonzero(a != b)[0]
        checked += 1
    assert checked > 50
