"""Histogram nodes (rotforest/_hist_nodes.pxi): trees that visit every feature at every
node, on features of few values, count the smaller child of each split and take the
larger one's counts by subtraction.  The reference is the same builder with them off
(the presorted lists, or sorting in the nodes): the trees must be identical, node for
node, and the counter must show that the histogram path ran."""
import numpy as np
import pytest

import rotforest
from rotforest import _builder


def _same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    assert ta.node_count == tb.node_count
    np.testing.assert_array_equal(ta.feature, tb.feature)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_array_equal(ta.children_left, tb.children_left)
    np.testing.assert_array_equal(ta.n_node_samples, tb.n_node_samples)
    np.testing.assert_array_equal(ta.weighted_n_node_samples, tb.weighted_n_node_samples)
    np.testing.assert_array_equal(ta.value, tb.value)


def _fit_both(make, X, y, sample_weight=None):
    """The estimator fitted with histogram nodes and without, and how many trees took
    the histogram path."""
    before = _builder._hist_trees()
    with_hist = make().fit(X, y, sample_weight=sample_weight)
    used = _builder._hist_trees() - before
    previous = _builder._set_hist_nodes(False)
    try:
        without = make().fit(X, y, sample_weight=sample_weight)
    finally:
        _builder._set_hist_nodes(previous)
    return with_hist, without, used


def _few_valued(seed, n, p, values, classes):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, (n, p)).astype(np.float64) * rng.normal(size=p)
    X[:, 0] = 0.0                                      # a constant column
    score = X[:, 1:4].sum(axis=1) + rng.normal(0, 1, n)
    edges = np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1])
    return X, np.digitize(score, edges)


@pytest.mark.parametrize("classes", [2, 3, 7, 16])
@pytest.mark.parametrize("values", [2, 9, 25])
def test_trees_equal_the_lists(classes, values):
    X, y = _few_valued(classes * 100 + values, 4000, 12, values, classes)
    for params in (dict(), dict(max_depth=5), dict(min_samples_leaf=4),
                   dict(min_samples_split=30, min_impurity_decrease=1e-4),
                   dict(min_weight_fraction_leaf=0.02)):
        a, b, used = _fit_both(
            lambda: rotforest.DecisionTreeClassifier(random_state=0, **params), X, y)
        assert used == 1, params
        _same_tree(a, b)


def test_integer_weights_and_bootstrap_forests():
    X, y = _few_valued(1, 2000, 20, 6, 3)
    w = np.random.default_rng(2).integers(0, 4, X.shape[0]).astype(np.float64)
    a, b, used = _fit_both(lambda: rotforest.DecisionTreeClassifier(random_state=3), X, y,
                           sample_weight=w)
    assert used == 1
    _same_tree(a, b)
    # bagging: every feature at every node, bootstrap counts as weights
    a, b, used = _fit_both(lambda: rotforest.RandomForestClassifier(
        n_estimators=6, max_features=None, random_state=4, n_jobs=2), X, y)
    assert used == 6
    for ta, tb in zip(a.estimators_, b.estimators_):
        _same_tree(ta, tb)


@pytest.mark.parametrize("tuning", [dict(max_bytes=1), dict(rows_pct=1),
                                    dict(rows_pct=400), dict(alone=0), dict(alone=100)])
def test_thresholds_change_no_tree(tuning):
    """Few blocks (a tree of two: nodes fall back to counting or sorting alone), blocks
    down to tiny nodes or only at the top, counting every node's features or sorting
    them: the same tree."""
    X, y = _few_valued(5, 1200, 15, 30, 3)
    previous = _builder._tune_hist(**tuning)
    try:
        a, b, used = _fit_both(lambda: rotforest.DecisionTreeClassifier(random_state=0),
                               X, y)
    finally:
        _builder._tune_hist(*previous)
    assert used == 1
    _same_tree(a, b)


def test_rotation_forest_relevance_trees():
    """The rotation forest's relevance trees on wide binary data (every rotated axis of
    at most 8 values) take the histogram path; the forest is the same."""
    rng = np.random.default_rng(6)
    X = (rng.random((600, 300)) < 0.2).astype(np.float64)
    y = (X[:, :3].sum(axis=1) + rng.random(600) > 1.5).astype(np.int64)
    a, b, used = _fit_both(lambda: rotforest.RotationForestClassifier(
        n_estimators=8, random_state=0, n_jobs=2), X, y)
    assert used >= 4
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    for ta, tb in zip(a.estimators_, b.estimators_):
        _same_tree(ta.estimator_, tb.estimator_)


def test_not_taken_where_it_does_not_apply():
    """Missing values, drawn features, best-first growth, entropy, regression and
    features of many values grow as before (no histogram tree)."""
    X, y = _few_valued(7, 800, 8, 5, 2)
    Xn = X.copy()
    Xn[::17, 2] = np.nan
    many = np.random.default_rng(8).normal(size=X.shape)
    cases = [(lambda: rotforest.DecisionTreeClassifier(random_state=0), Xn, y),
             (lambda: rotforest.DecisionTreeClassifier(max_features=3, random_state=0), X, y),
             (lambda: rotforest.DecisionTreeClassifier(max_leaf_nodes=20, random_state=0),
              X, y),
             (lambda: rotforest.DecisionTreeClassifier(criterion="entropy", random_state=0),
              X, y),
             (lambda: rotforest.DecisionTreeRegressor(random_state=0), X, y.astype(float)),
             (lambda: rotforest.DecisionTreeClassifier(random_state=0), many, y)]
    for make, data, target in cases:
        a, b, used = _fit_both(make, data, target)
        assert used == 0
        _same_tree(a, b)
