"""The builder against independent references: scikit-learn on tie-free data, a brute-force
split search written here, and a worked example from the literature."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkTree

from helpers import tie_free_data
from rotforest import DecisionTreeClassifier


def _decrease(t, n):
    l, r = t.children_left[n], t.children_right[n]
    w = t.weighted_n_node_samples
    return t.impurity[n] * w[n] - t.impurity[l] * w[l] - t.impurity[r] * w[r]


def assert_same_tree(ours, theirs, max_ties=0):
    """Node for node: structure, feature, threshold, counts, impurity and value.

    scikit-learn visits features in a random order, so where two features give exactly
    the same impurity decrease it may pick the other one.  Such a node is accepted only
    after checking that the two decreases are equal, and the subtrees below it are not
    compared; at most ``max_ties`` of them are allowed (None: any number)."""
    a, b = ours.tree_, theirs.tree_
    ties = []
    pure = []           # pure nodes that scikit-learn splits to no effect
    compared = 0
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        compared += 1
        assert a.n_node_samples[i] == b.n_node_samples[j]
        assert a.weighted_n_node_samples[i] == pytest.approx(b.weighted_n_node_samples[j], rel=1e-12)
        assert a.impurity[i] == pytest.approx(b.impurity[j], rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(a.value[i], b.value[j], rtol=1e-9, atol=1e-12)
        a_leaf, b_leaf = a.children_left[i] == -1, b.children_left[j] == -1
        if a_leaf and not b_leaf and a.impurity[i] == 0.0 and b.impurity[j] < 1e-12:
            # scikit-learn rounds the Gini of some pure nodes to ~3e-16 > eps and splits
            # them to no effect; ours is exactly 0 and stays a leaf
            assert np.all(b.value[b.children_left[j]] == b.value[j])
            pure.append(i)
            continue
        assert a_leaf == b_leaf
        if a_leaf:
            assert a.feature[i] == b.feature[j] == -2
            continue
        if (a.feature[i] != b.feature[j] or a.threshold[i] != b.threshold[j]
                or a.missing_go_to_left[i] != b.missing_go_to_left[j]):
            assert _decrease(a, i) == pytest.approx(_decrease(b, j), rel=1e-12)
            ties.append(i)
            continue
        stack.append((a.children_left[i], b.children_left[j]))
        stack.append((a.children_right[i], b.children_right[j]))
    assert max_ties is None or len(ties) <= max_ties, ties
    if not ties and not pure:
        assert a.node_count == b.node_count
        assert a.max_depth == b.max_depth
        for name in ["children_left", "children_right", "feature", "threshold",
                     "n_node_samples"]:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                                   rtol=1e-7, atol=1e-12)
    # callers compare whole-tree behaviour (apply) only when nothing was set aside
    return ties + pure, compared


# Settings whose nodes stay large, so that exact ties between features (which
# scikit-learn breaks at random) practically never occur.
SETTINGS = [
    dict(max_depth=1),
    dict(max_depth=3),
    dict(max_depth=6, min_samples_leaf=30),
    dict(min_samples_leaf=40),
    dict(min_samples_split=150, max_depth=10, min_samples_leaf=5),
    dict(min_impurity_decrease=0.00123, min_samples_leaf=20),
    dict(min_weight_fraction_leaf=0.02),
]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("weights", ["none", "real", "integer"])
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_equals_sklearn_depth_first(criterion, n_classes, weights, settings):
    X, y = tie_free_data(1500, 6, n_classes, seed=n_classes)
    rng = np.random.default_rng(1)
    sw = {"none": None, "real": rng.uniform(0.2, 3.0, len(y)),
          "integer": rng.integers(0, 4, len(y)).astype(float)}[weights]
    ours = DecisionTreeClassifier(criterion=criterion, **settings).fit(X, y, sample_weight=sw)
    theirs = SkTree(criterion=criterion, random_state=0, **settings).fit(X, y, sample_weight=sw)
    # unweighted or integer-weighted nodes can tie exactly between features
    ties, compared = assert_same_tree(ours, theirs, max_ties=0 if weights == "real" else None)
    assert compared >= 0.8 * theirs.tree_.node_count
    if not ties:
        np.testing.assert_array_equal(ours.apply(X), theirs.apply(X.astype(np.float32)))
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("n_classes", [2, 4, 10])
def test_equals_sklearn_fully_grown(criterion, n_classes):
    """Grown to purity, small nodes tie often; every disagreement must be an exact tie."""
    X, y = tie_free_data(3000, 8, n_classes, seed=20 + n_classes)
    sw = np.random.default_rng(4).uniform(0.5, 2.0, len(y))
    ours = DecisionTreeClassifier(criterion=criterion).fit(X, y, sw)
    theirs = SkTree(criterion=criterion, random_state=0).fit(X, y, sw)
    ties, compared = assert_same_tree(ours, theirs, max_ties=None)
    assert compared >= 0.6 * theirs.tree_.node_count


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_leaf_nodes", [2, 7, 30])
def test_equals_sklearn_best_first(criterion, max_leaf_nodes):
    X, y = tie_free_data(2000, 5, 3, seed=7)
    sw = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    ours = DecisionTreeClassifier(criterion=criterion, max_leaf_nodes=max_leaf_nodes)
    theirs = SkTree(criterion=criterion, max_leaf_nodes=max_leaf_nodes, random_state=0)
    assert_same_tree(ours.fit(X, y, sw), theirs.fit(X, y, sw), max_ties=0)
    assert ours.get_n_leaves() == max_leaf_nodes


def test_equals_sklearn_class_weight_balanced():
    X, y = tie_free_data(1200, 5, 3, seed=11)
    keep = np.r_[np.flatnonzero(y == 0)[:150], np.flatnonzero(y != 0)]
    X, y = X[keep], y[keep]
    ours = DecisionTreeClassifier(class_weight="balanced", min_samples_leaf=40).fit(X, y)
    theirs = SkTree(class_weight="balanced", min_samples_leaf=40, random_state=0).fit(X, y)
    ties, compared = assert_same_tree(ours, theirs, max_ties=2)
    assert compared >= 0.8 * theirs.tree_.node_count


# ----------------------------------------------------------------------------------------
# A brute-force split search, written from the definitions
# ----------------------------------------------------------------------------------------

def impurity(counts, criterion):
    w = counts.sum()
    p = counts / w
    if criterion == "gini":
        return 1.0 - np.sum(p ** 2)
    if criterion == "entropy":
        p = p[p > 0]
        return -np.sum(p * np.log2(p))
    return 1.0 - p.max()


def brute_force_root(X, y, w, criterion, min_samples_leaf=1):
    """All (feature, threshold) splits between distinct values, with their weighted
    impurity decrease; returns the best decrease and the set of splits attaining it."""
    classes = np.unique(y)
    counts = lambda m: np.array([w[m & (y == c)].sum() for c in classes])  # noqa: E731
    everything = np.ones(len(y), bool)
    parent = impurity(counts(everything), criterion)
    W = w.sum()
    results = []
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        for lo, hi in zip(values[:-1], values[1:]):
            left = X[:, f] <= lo
            if left.sum() < min_samples_leaf or (~left).sum() < min_samples_leaf:
                continue
            cl, cr = counts(left), counts(~left)
            wl, wr = cl.sum(), cr.sum()
            child = (wl * impurity(cl, criterion) + wr * impurity(cr, criterion)) / W
            results.append((parent - child, f, lo, hi))
    best = max(r[0] for r in results)
    winners = {(f, lo, hi) for d, f, lo, hi in results if d >= best - 1e-12}
    return best, winners


@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
@pytest.mark.parametrize("seed", range(12))
def test_first_split_matches_brute_force(criterion, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 60))
    n_classes = int(rng.integers(2, 5))
    X = rng.integers(0, 5, size=(n, 4)).astype(float)        # heavy ties
    X[:, 3] = rng.normal(size=n)                               # one continuous column
    y = rng.integers(0, n_classes, n)
    w = rng.choice([0.5, 1.0, 2.0, 3.5], size=n)
    min_leaf = int(rng.integers(1, 4))
    if len(np.unique(y)) < 2:
        y[0], y[1] = 0, 1
    best, winners = brute_force_root(X, y, w, criterion, min_leaf)
    tree = DecisionTreeClassifier(criterion=criterion, max_depth=1,
                                  min_samples_leaf=min_leaf).fit(X, y, sample_weight=w)
    t = tree.tree_
    if best <= 1e-12:
        return  # no useful split exists; a leaf or any zero-gain split is acceptable
    assert t.node_count == 3
    f, thr = t.feature[0], t.threshold[0]
    lo = X[:, f][X[:, f] <= thr].max()
    hi = X[:, f][X[:, f] > thr].min()
    assert (f, lo, hi) in winners
    decrease = (t.impurity[0] * t.weighted_n_node_samples[0]
                - t.impurity[1] * t.weighted_n_node_samples[1]
                - t.impurity[2] * t.weighted_n_node_samples[2]) / t.weighted_n_node_samples[0]
    assert decrease == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
@pytest.mark.parametrize("splitter", ["best", "random"])
def test_heavy_ties_partition_is_reproduced_at_predict(criterion, splitter):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(3000, 6)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 3000)) % 3
    sw = rng.integers(1, 4, 3000).astype(float)
    tree = DecisionTreeClassifier(criterion=criterion, splitter=splitter,
                                  random_state=0).fit(X, y, sample_weight=sw)
    t = tree.tree_
    leaves = tree.apply(X)
    is_leaf = t.children_left == -1
    np.testing.assert_array_equal(np.bincount(leaves, minlength=t.node_count)[is_leaf],
                                  t.n_node_samples[is_leaf])
    np.testing.assert_allclose(np.bincount(leaves, weights=sw, minlength=t.node_count)[is_leaf],
                               t.weighted_n_node_samples[is_leaf])
    # every node, not only the leaves
    visits = np.asarray(tree.decision_path(X).sum(axis=0)).ravel()
    np.testing.assert_array_equal(visits, t.n_node_samples)
    # thresholds lie between the values that reach the node
    inner = np.flatnonzero(~is_leaf)
    path = tree.decision_path(X).tocsc()
    for node in inner:
        rows = path[:, node].nonzero()[0]
        v = X[rows, t.feature[node]]
        assert v.min() <= t.threshold[node] < v.max()


# ----------------------------------------------------------------------------------------
# A worked example: ten animals, three binary features, label cat
# ----------------------------------------------------------------------------------------

ANIMALS = np.array([
    # ear pointy, face round, whiskers, cat
    [1, 1, 1, 1], [0, 0, 1, 1], [0, 1, 0, 0], [1, 0, 1, 0], [1, 1, 1, 1],
    [1, 1, 0, 1], [0, 0, 0, 0], [1, 1, 0, 1], [0, 1, 0, 0], [0, 1, 0, 0],
])


def bits(labels):
    p = np.bincount(labels, minlength=2) / len(labels)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def gain(X, y, f):
    left, right = y[X[:, f] == 0], y[X[:, f] == 1]
    return bits(y) - (len(left) * bits(left) + len(right) * bits(right)) / len(y)


def test_cat_example_information_gains_and_tree():
    X, y = ANIMALS[:, :3].astype(float), ANIMALS[:, 3]
    gains = [gain(X, y, f) for f in range(3)]
    assert np.round(gains, 2).tolist() == [0.28, 0.03, 0.12]
    tree = DecisionTreeClassifier(criterion="entropy", max_depth=2).fit(X, y)
    t = tree.tree_
    assert t.feature[0] == int(np.argmax(gains)) == 0         # ear shape at the root
    assert t.impurity[0] == pytest.approx(bits(y))
    floppy, pointy = t.children_left[0], t.children_right[0]   # ear == 0 goes left
    assert t.feature[pointy] == 1                               # face shape
    assert t.feature[floppy] == 2                               # whiskers
    sub = X[:, 0] == 1
    assert gain(X[sub], y[sub], 1) > max(gain(X[sub], y[sub], 2), 0)
    sub = X[:, 0] == 0
    assert gain(X[sub], y[sub], 2) > max(gain(X[sub], y[sub], 1), 0)
    assert tree.score(X, y) == 1.0
    # log_loss is entropy's other name
    other = DecisionTreeClassifier(criterion="log_loss", max_depth=2).fit(X, y)
    np.testing.assert_array_equal(other.tree_.feature, t.feature)


def test_error_criterion_hand_example():
    # 6 samples, one feature; the misclassification-minimising cut is between 2 and 3
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([0, 0, 0, 1, 1, 0])
    tree = DecisionTreeClassifier(criterion="error", max_depth=1).fit(X, y)
    t = tree.tree_
    assert t.threshold[0] == 2.5
    assert t.impurity[0] == pytest.approx(1 - 4 / 6)
    assert t.impurity[1] == 0.0 and t.impurity[2] == pytest.approx(1 / 3)


def test_float64_keeps_close_large_values_apart():
    # timestamps one second apart: float32 cannot tell them apart, float64 can
    X = (1.7e9 + np.arange(40, dtype=np.float64)).reshape(-1, 1)
    y = np.arange(40) % 2
    tree = DecisionTreeClassifier().fit(X, y)
    assert tree.score(X, y) == 1.0
    assert tree.get_n_leaves() == 40
    assert np.float32(1.7e9) == np.float32(1.7e9 + 1)


def test_threshold_never_rounds_onto_the_right_value():
    a = 1.0
    b = np.nextafter(a, 2.0)   # adjacent doubles: the midpoint rounds to one of them
    X = np.array([[a], [a], [b], [b]])
    y = np.array([0, 0, 1, 1])
    tree = DecisionTreeClassifier().fit(X, y)
    assert tree.tree_.threshold[0] == a
    np.testing.assert_array_equal(tree.predict(X), y)
    X = np.array([[-1e308], [1e308]])
    tree = DecisionTreeClassifier().fit(X, [0, 1])
    np.testing.assert_array_equal(tree.predict(X), [0, 1])


@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
def test_zero_weight_samples_are_ignored(criterion):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(int)
    w = rng.integers(0, 3, 300).astype(float)
    a = DecisionTreeClassifier(criterion=criterion).fit(X, y, sample_weight=w)
    keep = w > 0
    b = DecisionTreeClassifier(criterion=criterion).fit(X[keep], y[keep], sample_weight=w[keep])
    for name in ["children_left", "feature", "threshold", "n_node_samples", "impurity"]:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


# --------------------------------------------------------------------------------------
# Float weights over many orders of magnitude: the split search stays exact
# --------------------------------------------------------------------------------------


def test_multiclass_gini_with_float_weights_scores_light_sides_exactly():
    # float weights spread over six orders of magnitude: the right side's sum of squared
    # class weights, taken down from about W^2, was all rounding by the end of the scan,
    # and a cut worth 3e-15 beat the best one, worth 1e-5 (from a fuzzing review)
    rng = np.random.default_rng(0)
    n = 2000
    X = np.arange(n, dtype=float)[:, None]
    y = np.zeros(n, int)
    y[-5:] = 1                                    # five light class-1 samples at the top
    y[rng.choice(n - 5, 3, replace=False)] = 2    # three light class-2 samples elsewhere
    w = rng.uniform(0.5, 1.5, n)
    w[y != 0] = 1e-6

    def weighted_gini(mask):                      # sum_i c_i (W - c_i) / W: no cancellation
        c = np.bincount(y[mask], weights=w[mask], minlength=3)
        return (c * (c.sum() - c)).sum() / c.sum()

    best = max((weighted_gini(np.ones(n, bool)) - weighted_gini(X[:, 0] <= t)
                - weighted_gini(X[:, 0] > t), t) for t in np.arange(n - 1) + 0.5)
    for Xs in (X, -X):                            # the light side last, and first
        tree = DecisionTreeClassifier(max_depth=1).fit(Xs, y, sample_weight=w).tree_
        assert abs(tree.threshold[0]) == best[1]
