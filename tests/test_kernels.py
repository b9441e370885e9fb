"""The AVX-512 kernels against the portable code: every kernel must grow the very tree
the portable loops grow (the same operations in the same order, and among cuts of equal
proxy the first).  Skipped, visibly, on a processor without AVX-512, where both paths
are the portable one."""
import numpy as np
import pytest

from rotforest import DecisionTreeRegressor, _builder


def _has_avx512():
    previous = _builder._set_simd(True)
    return bool(_builder._set_simd(previous))      # the state that True gave


pytestmark = pytest.mark.skipif(
    not _has_avx512(), reason="no AVX-512 on this processor: nothing to compare the "
    "portable kernels with")


@pytest.mark.parametrize("n_classes", [2, 3, 5, 10])
@pytest.mark.parametrize("min_samples_leaf", [1, 7])
@pytest.mark.parametrize("weights", [None, "counts"])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_simd_kernels_choose_the_same_tree(n_classes, min_samples_leaf, weights, missing,
                                           criterion):
    """The AVX-512 kernels, where the processor has them, must grow the very tree the
    portable ones grow (the same operations in the same order, and among cuts of equal
    proxy the first: small nodes of integer counts have many such ties)."""
    from sklearn.datasets import make_classification

    from rotforest import DecisionTreeClassifier

    X, y = make_classification(n_samples=6000, n_features=6,
                               n_informative=4 if n_classes <= 5 else 5,
                               n_redundant=2 if n_classes <= 5 else 1,
                               n_classes=n_classes, random_state=n_classes)
    X[:, :3] = np.round(X[:, :3], 1)   # some tied columns
    if missing:
        X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    sw = None
    if weights == "counts":            # bootstrap-like integer weights, zeros included
        sw = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    trees = []
    for simd in (True, False):
        previous = _builder._set_simd(simd)
        try:
            tree = DecisionTreeClassifier(criterion=criterion,
                                          min_samples_leaf=min_samples_leaf)
            trees.append(tree.fit(X, y, sample_weight=sw).tree_)
        finally:
            _builder._set_simd(previous)
    np.testing.assert_array_equal(trees[0].nodes, trees[1].nodes)
    np.testing.assert_array_equal(trees[0].value, trees[1].value)


@pytest.mark.parametrize("criterion", ["squared_error", "friedman_mse"])
@pytest.mark.parametrize("weights", ["none", "counts", "real"])
@pytest.mark.parametrize("settings", [dict(), dict(min_samples_leaf=7),
                                      dict(min_weight_fraction_leaf=0.01),
                                      dict(max_leaf_nodes=300, max_features=3)],
                         ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()) or "default")
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
def test_simd_scan_chooses_the_same_tree(criterion, weights, settings, missing):
    """The AVX-512 squared-error scan, where the processor has it, must grow the very tree
    the portable scan grows: both add the left sums in blocks of 8 in one order, and
    among cuts of equal proxy keep the first (the rounded target makes many such ties;
    real weights make the sums inexact, so their order matters).  With missing values,
    the cuts that send them left start from their sums, carried in."""
    from rotforest import _builder

    rng = np.random.default_rng(3)
    X = rng.normal(size=(5000, 6))
    X[:, :3] = np.round(X[:, :3], 1)                  # tied columns
    y = np.round(X[:, 0] + np.sin(2 * X[:, 3]) + 0.5 * rng.normal(size=5000), 1)
    if missing:
        X[rng.random(X.shape) < [0.3, 0.05, 0.0, 0.2, 0.01, 0.0]] = np.nan
    sw = {"none": None, "counts": rng.integers(0, 4, 5000).astype(float),
          "real": rng.uniform(0.1, 3.0, 5000)}[weights]
    trees = []
    for simd in (True, False):
        previous = _builder._set_simd(simd)
        try:
            tree = DecisionTreeRegressor(criterion=criterion, random_state=0, **settings)
            trees.append(tree.fit(X, y, sample_weight=sw).tree_)
        finally:
            _builder._set_simd(previous)
    assert trees[0].node_count > 50
    np.testing.assert_array_equal(trees[0].nodes, trees[1].nodes)
    np.testing.assert_array_equal(trees[0].value, trees[1].value)


def test_simd_scan_agrees_when_weights_round_a_side_away():
    """Real weights of very different sizes: the node's weight, summed, can equal the
    left side's, leaving a right side of weight 0 (or below) by rounding; neither scan
    may take such a cut (found by a review: the two scans once chose differently)."""
    from rotforest import _builder

    X = np.array([[2.0], [3.0], [1.0], [0.0]])
    y = np.array([2.0, 2.0, 0.0, 2.0])
    w = np.array([0.5, 0.5, 1e16, 1.0])
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(300, 3))
    yr = Xr[:, 0] + rng.normal(size=300)
    wr = rng.choice([1e16, 3e15, 1.25, 1.0, 0.5], size=300)
    for data in [(X, y, w, dict(max_depth=1)), (Xr, yr, wr, dict())]:
        trees = []
        for simd in (True, False):
            previous = _builder._set_simd(simd)
            try:
                trees.append(DecisionTreeRegressor(random_state=0, **data[3]).fit(
                    data[0], data[1], sample_weight=data[2]).tree_)
            finally:
                _builder._set_simd(previous)
        np.testing.assert_array_equal(trees[0].nodes, trees[1].nodes)
        np.testing.assert_array_equal(trees[0].value, trees[1].value)


@pytest.mark.parametrize("weights", ["none", "counts"])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
def test_simd_random_cut_sums_grow_the_same_trees(weights, missing):
    """Random cuts on the values of a numeric target: the AVX-512 count adds the left
    sums in the portable loop's eight lanes and order, so both grow the very same trees
    (real targets: any other order of addition would change the last bits, and near ties
    with them); the classes' counts of several classes are exact integers either way."""
    from rotforest import ExtraTreesClassifier, ExtraTreesRegressor

    rng = np.random.default_rng(4)
    X = rng.normal(size=(3000, 6))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + 0.3 * rng.normal(size=3000)
    classes = np.digitize(y, np.quantile(y, [0.2, 0.4, 0.6, 0.8]))
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    sw = None if weights == "none" else rng.integers(0, 4, 3000).astype(float)
    for Forest, target in ((ExtraTreesRegressor, y), (ExtraTreesClassifier, classes)):
        forests = []
        for simd in (True, False):
            previous = _builder._set_simd(simd)
            try:
                forests.append(Forest(n_estimators=3, random_state=0).fit(
                    X, target, sample_weight=sw))
            finally:
                _builder._set_simd(previous)
        for a, b in zip(*(f.estimators_ for f in forests)):
            np.testing.assert_array_equal(a.tree_.nodes, b.tree_.nodes)
            np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
