"""Per-node methods: partitioning the presorted lists, or sorting the drawn features in
the node (from dense ranks).  Whichever method each node uses, the tree is the same; and
features are drawn per node with scikit-learn's rule."""
import contextlib

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.tree import DecisionTreeClassifier as SkTree

from helpers import trees_of
from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, _builder)

TREE_FIELDS = ["children_left", "children_right", "feature", "threshold", "impurity",
               "n_node_samples", "weighted_n_node_samples", "missing_go_to_left", "value"]


@contextlib.contextmanager
def node_method(method):
    previous = _builder._set_node_method(method)
    try:
        yield
    finally:
        _builder._set_node_method(previous)


def assert_same_tree(a, b):
    assert a.node_count == b.node_count
    for field in TREE_FIELDS:
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)


def grown_by_each_method(make, X, y, **fit):
    trees = []
    for method in ["presort", "sort", "auto"]:
        with node_method(method):
            trees.append(make().fit(X, y, **fit))
    return trees


def _data(kind, n, n_features, n_classes, missing, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    if kind == "discrete":          # few values per column: heavy ties
        X = np.round(X * 1.5)
    elif kind == "sparse":          # mostly zeros, as counts and indicators are
        X = np.where(rng.random((n, n_features)) < 0.85, 0.0, np.round(np.abs(X) * 3))
    score = X[:, 0] + 0.8 * X[:, 1] - 0.5 * X[:, 2] + rng.normal(scale=0.7, size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    if missing:
        X[rng.random(X.shape) < 0.12] = np.nan
    return X, y


def test_column_tops_count_the_values_and_grow_the_same_tree():
    rng = np.random.default_rng(4)
    n = 300
    X = np.column_stack([rng.normal(size=n), np.round(rng.normal(size=n)),
                         rng.integers(0, 2, n).astype(float), np.full(n, 2.5)])
    X[rng.random(n) < 0.1, 1] = np.nan          # missing values: one more value
    keys = _builder.presort(X)
    tops = _builder.column_tops(keys, n)
    expected = [np.unique(X[~np.isnan(X[:, j]), j]).size - 1 + np.isnan(X[:, j]).any()
                for j in range(X.shape[1])]
    np.testing.assert_array_equal(tops, expected)
    assert tops.dtype == np.uint64 and not tops.flags.writeable
    y = (X[:, 0] + np.nan_to_num(X[:, 1]) > 0).astype(np.int32)
    args = dict(n_classes=2, criterion=0, random_split=False, max_depth=2**31 - 1,
                min_samples_split=2, min_samples_leaf=1, min_weight_leaf=0.0,
                max_features=2, max_leaf_nodes=-1, min_impurity_decrease=0.0, seed=5)
    a = _builder.build_tree(X, keys, y, np.ones(n), **args)
    b = _builder.build_tree(X, keys, y, np.ones(n), col_top=tops, **args)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(ValueError, match="col_top"):
        _builder.build_tree(X, keys, y, np.ones(n), col_top=tops[:3], **args)
    with pytest.raises(ValueError, match="col_top"):
        _builder.build_tree(X, keys, y, np.ones(n), col_top=tops.astype(np.int64), **args)
    with pytest.raises(ValueError, match="presort"):
        _builder.column_tops(keys, n + 40)


def test_dense_ranks_match_a_reference_in_the_narrowest_type():
    rng = np.random.default_rng(1)
    n = 700
    X = np.column_stack([rng.normal(size=n), np.round(rng.normal(size=n)),
                         rng.integers(0, 3, n).astype(float), np.full(n, 2.5),
                         rng.normal(size=n)])
    X[rng.random(n) < 0.1, 1] = np.nan
    keys = _builder.presort(X)
    ranks = _builder.dense_ranks(keys)
    assert ranks.dtype == np.uint16 and ranks.shape == (5, n)   # 700 distinct values
    for j in range(5):
        col = X[:, j]
        expected = np.where(np.isnan(col), -1, rankdata(np.nan_to_num(col, nan=0.0),
                                                        method="dense") - 1)
        present = ~np.isnan(col)
        expected[present] = rankdata(col[present], method="dense") - 1
        expected[~present] = expected[present].max() + 1 if present.any() else 0
        np.testing.assert_array_equal(ranks[j], expected)
    narrow = _builder.presort(np.round(X[:, 1:4]))
    assert _builder.dense_ranks(narrow).dtype == np.uint8
    wide = _builder.presort(np.arange(70000.0)[:, None])
    assert _builder.rank_dtype(wide, 70000) == np.uint32
    # computed in parts, as the forest's threads do
    out = np.empty((5, n), dtype=np.uint32)
    _builder.dense_ranks(keys, out, 0, 2)
    _builder.dense_ranks(keys, out, 2, 5)
    np.testing.assert_array_equal(out, ranks)
    with pytest.raises(ValueError, match="holds the ranks"):
        _builder.dense_ranks(keys, np.empty((5, n), dtype=np.uint8))


@pytest.mark.parametrize("kind", ["continuous", "discrete", "sparse"])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("missing", [False, True])
def test_every_method_grows_the_same_tree(kind, criterion, n_classes, missing):
    X, y = _data(kind, 600, 24, n_classes, missing, seed=n_classes + 3 * missing)
    rng = np.random.default_rng(5)
    weights = {"none": None, "counts": rng.integers(0, 4, len(y)).astype(float),
               "real": rng.random(len(y)) + 0.01}
    for (wname, w) in weights.items():
        for params in [dict(max_features="sqrt"), dict(max_features=0.3),
                       dict(max_features=None), dict(max_features="sqrt", max_leaf_nodes=40),
                       dict(max_features=5, splitter="random"),
                       dict(max_features="sqrt", min_samples_leaf=3, max_depth=9)]:
            trees = grown_by_each_method(
                lambda: DecisionTreeClassifier(criterion=criterion, random_state=7, **params),
                X, y, sample_weight=w)
            assert trees[0].tree_.node_count > 20, (wname, params)
            for t in trees[1:]:
                assert_same_tree(trees[0].tree_, t.tree_)


@pytest.mark.parametrize("kind", ["continuous", "discrete", "sparse"])
@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "absolute_error"])
@pytest.mark.parametrize("missing", [False, True])
def test_every_method_grows_the_same_regression_tree(kind, criterion, missing):
    X, _ = _data(kind, 500, 24, 2, missing, seed=4 + missing)
    rng = np.random.default_rng(6)
    y = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=len(X))
    y = np.exp(y / 3.0) if criterion == "poisson" else np.round(y, 1)
    weights = {"none": None, "counts": rng.integers(0, 4, len(y)).astype(float),
               "real": rng.random(len(y)) + 0.01}
    for (wname, w) in weights.items():
        for params in [dict(max_features="sqrt"), dict(max_features=None),
                       dict(max_features="sqrt", max_leaf_nodes=40),
                       dict(max_features=5, splitter="random"),
                       dict(max_features=6, min_samples_leaf=3,
                            monotonic_cst=[1, -1] + [0] * 22)]:
            trees = grown_by_each_method(
                lambda: DecisionTreeRegressor(criterion=criterion, random_state=7,
                                              **params), X, y, sample_weight=w)
            assert trees[0].tree_.node_count > 20, (wname, params)
            for t in trees[1:]:
                assert_same_tree(trees[0].tree_, t.tree_)


def test_regression_forests_are_the_same_by_every_method_and_thread_count():
    X, _ = _data("sparse", 400, 50, 2, True, seed=12)
    y = np.round(np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 3]), 1)
    forests = []
    for method, jobs in [("presort", 1), ("sort", 2), ("auto", 3)]:
        with node_method(method):
            forests.append(RandomForestRegressor(6, criterion="absolute_error",
                                                 max_features=0.3, n_jobs=jobs,
                                                 random_state=0).fit(X, y))
    for f in forests[1:]:
        for a, b in zip(trees_of(forests[0]), trees_of(f)):
            assert_same_tree(a.tree_, b.tree_)


def test_monotonic_constraints_grow_the_same_tree_by_every_method():
    X, y = _data("continuous", 800, 12, 2, True, seed=3)
    cst = [1, -1] + [0] * 10
    trees = grown_by_each_method(lambda: DecisionTreeClassifier(
        max_features=4, monotonic_cst=cst, random_state=2), X, y)
    for t in trees[1:]:
        assert_same_tree(trees[0].tree_, t.tree_)


def test_forests_are_the_same_by_every_method_and_thread_count():
    X, y = _data("sparse", 500, 60, 3, True, seed=11)
    for make in [lambda j: RandomForestClassifier(12, n_jobs=j, class_weight="balanced",
                                                  random_state=0),
                 lambda j: RandomForestClassifier(8, n_jobs=j, max_leaf_nodes=30,
                                                  max_samples=0.5, random_state=1),
                 lambda j: RotationForestClassifier(6, n_jobs=j, max_features="sqrt",
                                                    random_state=2)]:
        forests = []
        for method, jobs in [("presort", 1), ("sort", 2), ("auto", 3)]:
            with node_method(method):
                forests.append(make(jobs).fit(X, y))
        for f in forests[1:]:
            for a, b in zip(trees_of(forests[0]), trees_of(f)):
                assert_same_tree(a.tree_, b.tree_)
            np.testing.assert_array_equal(forests[0].predict_proba(X), f.predict_proba(X))


def test_ranks_are_computed_when_trees_may_sort_them():
    rng = np.random.default_rng(3)
    continuous = _builder.presort(rng.normal(size=(3000, 20)))
    discrete = _builder.presort(np.round(rng.normal(size=(3000, 20))))
    # all features scanned, on columns of many values or few: the lists everywhere
    # (sorting costs a rank read and a digit per key and feature, more than a partition)
    assert not _builder.needs_ranks(continuous, 3000, 20)
    assert not _builder.needs_ranks(discrete, 3000, 20)
    # a few features drawn: nodes sort; half of them, with one digit: nodes sort
    assert _builder.needs_ranks(continuous, 3000, 4)
    assert _builder.needs_ranks(discrete, 3000, 10)
    with node_method("sort"):
        assert _builder.needs_ranks(continuous, 3000, 20)
    with node_method("presort"):
        assert not _builder.needs_ranks(discrete, 3000, 4)


def test_node_method_setting_is_checked():
    with pytest.raises(ValueError, match="method must be one of"):
        _builder._set_node_method("heap")


def _constant_in_node_data(seed):
    """Sparse indicator columns: most of them are constant in most nodes below the top."""
    rng = np.random.default_rng(seed)
    n, F = 3000, 64
    X = (rng.random((n, F)) < 0.04).astype(float)
    X[:, :4] = rng.integers(0, 6, (n, 4))
    logit = X[:, :4].sum(axis=1) - 10 + 3 * X[:, 4:12].sum(axis=1)
    y = (logit + rng.logistic(size=n) > 0).astype(int)
    return X, y


def test_constant_features_drawn_count_as_in_scikit_learn():
    # scikit-learn draws max_features features per node whether or not they are
    # constant there (and goes on until one is not); counting only non-constant ones
    # makes every node choose among more features, so trees with fewer leaves
    X, y = _constant_in_node_data(0)
    ours = [DecisionTreeClassifier(max_features="sqrt", random_state=s).fit(X, y)
            .get_n_leaves() for s in range(30)]
    theirs = [SkTree(max_features="sqrt", random_state=s).fit(X, y).get_n_leaves()
              for s in range(30)]
    assert abs(np.mean(ours) / np.mean(theirs) - 1) < 0.03, (np.mean(ours), np.mean(theirs))


def test_forest_on_constant_in_node_features_matches_scikit_learns():
    from sklearn.ensemble import RandomForestClassifier as SkForest
    X, y = _constant_in_node_data(1)
    Xt, yt = _constant_in_node_data(2)
    ours = RandomForestClassifier(60, random_state=0, n_jobs=2).fit(X, y)
    theirs = SkForest(60, random_state=0, n_jobs=2).fit(X, y)
    assert abs(ours.score(Xt, yt) - theirs.score(Xt, yt)) < 0.01
    # as diverse: trees of the same size (counting only non-constant features drawn
    # gave 29% fewer leaves on the single trees of this data)
    leaves = [np.mean([t.get_n_leaves() for t in trees_of(f)]) for f in (ours, theirs)]
    assert abs(leaves[0] / leaves[1] - 1) < 0.03, leaves
