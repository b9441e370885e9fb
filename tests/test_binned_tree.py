"""A single tree on bins (``DecisionTreeClassifier(max_bins=...)``, the regressor alike),
and a rotation forest whose trees bin their own axes: by default from a million rows
(two for rotation forests), when asked, or never; every split at least the best cut
over the bins' edges (brute force, as for the forests' binned trees), the same tree a
one-tree forest of every feature and no bootstrap grows on the same bins, refusals."""
import numpy as np
import pytest
from scipy.sparse import csr_matrix

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                       ExtraTreeRegressor, RandomForestClassifier, RotationForestClassifier,
                       RotationForestRegressor, _bins)
from rotforest import rotation as rotation_module
from rotforest import tree as tree_module
from test_binned import _best_over_edges, _data, _decrease, _goes_left


def _check_splits(tree, X, target, max_bins, regression, criterion):
    """Every split of ``tree`` (grown on X's bins, every row of weight 1) decreases the
    impurity at least as much as the best cut at an edge of the bins (brute force)."""
    _, flat, offsets, _ = _bins.binned_features(X, max_bins, 1)
    paths = tree.decision_path(X).toarray().astype(bool)
    w = np.ones(len(target))
    for node in np.flatnonzero(tree.feature >= 0):
        rows = paths[:, node]
        left = _goes_left(tree, node, X[rows, tree.feature[node]])
        got = _decrease(target[rows], w[rows], left, regression, criterion)
        best = _best_over_edges(X[rows], target[rows], w[rows], flat, offsets, 1,
                                regression, criterion)
        assert got >= best - 1e-9 * abs(best) - 1e-12


@pytest.mark.parametrize("regression, criterion, levels, missing", [
    (False, "gini", None, 0.0), (False, "entropy", 12, 0.1),
    (True, "squared_error", None, 0.1), (True, "poisson", 9, 0.0)])
def test_every_split_is_the_best_over_the_edges(regression, criterion, levels, missing):
    X, y = _data(300, 4, seed=5, levels=levels, missing=missing, regression=regression)
    if criterion == "poisson":
        y = np.floor(np.exp(y / 2 + 0.3)) * (np.arange(len(y)) % 3 != 0)
    cls = DecisionTreeRegressor if regression else DecisionTreeClassifier
    est = cls(max_depth=4, criterion=criterion, max_bins=24, random_state=0).fit(X, y)
    assert est.max_bins_ == 24
    target = y if regression else np.searchsorted(est.classes_, y)
    _check_splits(est.tree_, X, target, 24, regression, criterion)


def test_auto_bins_from_its_rows(monkeypatch):
    X, y = _data(400, 5, seed=6)
    assert DecisionTreeClassifier().get_params()["max_bins"] == "auto"
    exact = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert exact.max_bins_ is None
    monkeypatch.setattr(_bins, "AUTO_ROWS", 100)     # (the forests' rule, not the tree's)
    assert DecisionTreeClassifier(max_bins="auto", random_state=0).fit(X, y).max_bins_ is None
    monkeypatch.setattr(tree_module, "_AUTO_BIN_ROWS", 100)
    auto = DecisionTreeClassifier(max_bins="auto", random_state=0).fit(X, y)
    binned = DecisionTreeClassifier(max_bins=255, random_state=0).fit(X, y)
    assert auto.max_bins_ == 255
    np.testing.assert_array_equal(auto.tree_.threshold, binned.tree_.threshold)
    assert DecisionTreeClassifier(max_bins=None, random_state=0).fit(X, y).max_bins_ is None
    # what the binned builder does not take grows exact under "auto"
    reg = DecisionTreeRegressor(criterion="absolute_error", max_bins="auto").fit(X, y)
    assert reg.max_bins_ is None


def test_the_tree_of_a_one_tree_forest_on_the_same_bins():
    """A forest of one tree, every feature, no bootstrap, grows on the same bins with the
    same builder: without ties between features (which the forest breaks at random, the
    tree by index: large leaves keep small nodes out) its tree is this tree."""
    X, y = _data(2000, 6, seed=7)
    params = dict(max_bins=64, max_depth=6, min_samples_leaf=40, random_state=0)
    tree = DecisionTreeClassifier(**params).fit(X, y)
    forest = RandomForestClassifier(n_estimators=1, bootstrap=False, max_features=None,
                                    **params).fit(X, y)
    other = forest.estimators_[0].tree_
    assert tree.tree_.node_count == other.node_count
    np.testing.assert_array_equal(tree.tree_.feature, other.feature)
    np.testing.assert_array_equal(tree.tree_.threshold, other.threshold)
    np.testing.assert_array_equal(tree.predict_proba(X), forest.predict_proba(X))


def test_binned_tree_is_as_accurate_as_the_exact_one():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(40_000, 8))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=len(X)) > 0)
    fit, test = slice(0, 30_000), slice(30_000, None)
    scores = [DecisionTreeClassifier(max_depth=10, max_bins=b, random_state=0)
              .fit(X[fit], y[fit]).score(X[test], y[test]) for b in (None, 255)]
    assert abs(scores[0] - scores[1]) < 0.01


@pytest.mark.parametrize("params, X_kind, match", [
    ({"max_bins": 64, "criterion": "absolute_error"}, "regression", "cannot be honoured"),
    ({"max_bins": 64, "max_leaf_nodes": 5}, "classes", "cannot be honoured"),
    ({"max_bins": 64}, "sparse", "cannot be honoured"),
    ({"max_bins": 64, "splitter": "random"}, "classes", "splitter"),
    ({"max_bins": 1}, "classes", "max_bins"),
    ({"max_bins": 256}, "classes", "max_bins"),
    ({"max_bins": "many"}, "classes", "max_bins"),
])
def test_bins_that_cannot_be_honoured_are_refused(params, X_kind, match):
    X, y = _data(120, 4, levels=5)
    cls = DecisionTreeRegressor if X_kind == "regression" else DecisionTreeClassifier
    if X_kind == "sparse":
        X = csr_matrix(X)
    est = cls(random_state=0, **params)
    with pytest.raises((ValueError, TypeError), match=match):
        est.fit(X, y)
    assert not hasattr(est, "tree_")


def test_extra_trees_take_no_max_bins():
    for cls in (ExtraTreeClassifier, ExtraTreeRegressor):
        assert "max_bins" not in cls().get_params()
        assert "max_bins :" not in cls.__doc__


@pytest.mark.parametrize("regression", [False, True])
def test_rotation_trees_split_at_least_at_the_best_edge_of_their_axes(regression):
    """Each tree of a rotation forest with max_bins bins its own axes: its splits are at
    least the best cuts over the edges of those axes' bins (brute force on the axes the
    tree saw: every row, weight 1, without bootstrap)."""
    X, y = _data(300, 5, seed=9, regression=regression)
    cls = RotationForestRegressor if regression else RotationForestClassifier
    criterion = "squared_error" if regression else "gini"
    forest = cls(n_estimators=2, max_bins=16, max_depth=4, random_state=0).fit(X, y)
    assert forest.max_bins_ == 16
    target = y if regression else np.searchsorted(forest.classes_, y)
    for wrapper in forest.estimators_:
        _check_splits(wrapper.estimator_.tree_, wrapper._rows(X), target, 16, regression,
                      criterion)


def test_rotation_forest_bins_when_asked(monkeypatch):
    X, y = _data(3000, 6, seed=10)
    fit, test = slice(0, 2000), slice(2000, None)
    exact = RotationForestClassifier(n_estimators=20, random_state=0).fit(X[fit], y[fit])
    assert exact.max_bins_ is None and exact.get_params()["max_bins"] == "auto"
    binned = RotationForestClassifier(n_estimators=20, max_bins=64,
                                      random_state=0).fit(X[fit], y[fit])
    assert binned.max_bins_ == 64
    assert abs(exact.score(X[test], y[test]) - binned.score(X[test], y[test])) < 0.03
    auto = RotationForestClassifier(n_estimators=2, max_bins="auto", random_state=0)
    assert auto.fit(X, y).max_bins_ is None
    monkeypatch.setattr(tree_module, "_AUTO_BIN_ROWS", 100)    # (a single tree's)
    assert auto.fit(X, y).max_bins_ is None
    monkeypatch.setattr(rotation_module, "_AUTO_BIN_ROWS", 100)
    assert auto.fit(X, y).max_bins_ == 255
    with pytest.raises(ValueError, match="max_bins=8 cannot be honoured"):
        RotationForestRegressor(n_estimators=2, criterion="absolute_error",
                                max_bins=8).fit(X, y.astype(float))


def test_rotation_forest_bins_with_category_sets():
    """Categorical features offered to the trees unrotated (min_category_samples) are
    split on sets of their bins, one category a bin."""
    X, y = _data(1500, 5, seed=11)
    X[:, 4] = np.arange(len(X)) % 7
    y = (y + (X[:, 4] % 3 == 0)) % 2
    kw = dict(n_estimators=6, categorical_features=[4], min_category_samples=5,
              random_state=0)
    binned = RotationForestClassifier(max_bins=32, **kw).fit(X[:1000], y[:1000])
    exact = RotationForestClassifier(**kw).fit(X[:1000], y[:1000])
    assert binned.max_bins_ == 32
    assert abs(binned.score(X[1000:], y[1000:]) - exact.score(X[1000:], y[1000:])) < 0.05


def test_rotation_forest_checks_the_categories_its_trees_split():
    """A categorical feature of more categories than bins stops a rotation forest from
    binning only when its trees split it on sets (min_category_samples); otherwise it
    is rotated as its codes, like any feature."""
    X, y = _data(1200, 5, seed=12)
    X[:, 4] = np.arange(len(X)) % 300
    kw = dict(n_estimators=2, categorical_features=[4], max_bins=64, random_state=0)
    assert RotationForestClassifier(**kw).fit(X, y).max_bins_ == 64
    with pytest.raises(ValueError, match="categorical feature 4 has more than 64"):
        RotationForestClassifier(min_category_samples=5, **kw).fit(X, y)
