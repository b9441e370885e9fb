"""Categorical features of many levels (beyond 255): the splits of two classes and of
numeric targets equal the exact search over the order of the levels by class share or
mean target (Fisher 1958; Breiman et al. 1984), written out here in numpy; the code
sets of any width route the training samples; bad codes are refused."""
import numpy as np
import pytest

from rotforest import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreesClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
)
from rotforest import _builder


def _ordered_best(codes, y, regression, shrink=0.0):
    """The smallest weighted impurity of the two children (Gini times weight, or the
    sum of squared deviations) over every cut of the levels ordered by class-1 share
    (mean target), ties by code; and the levels of the best left side.  ``shrink``:
    each level's share taken as if it had that many more samples at the node's mean."""
    levels, inverse = np.unique(codes, return_inverse=True)
    n = np.bincount(inverse).astype(float)
    s = np.bincount(inverse, weights=y.astype(float))
    order = np.lexsort((levels, (s + shrink * s.sum() / n.sum()) / (n + shrink)))
    cn, cs = np.cumsum(n[order])[:-1], np.cumsum(s[order])[:-1]
    N, S = n.sum(), s.sum()
    if regression:
        total_sq = np.sum(y.astype(float) ** 2)
        cost = total_sq - cs ** 2 / cn - (S - cs) ** 2 / (N - cn)
    else:
        pl, pr = cs / cn, (S - cs) / (N - cn)
        cost = cn * 2 * pl * (1 - pl) + (N - cn) * 2 * pr * (1 - pr)
    k = int(np.argmin(cost))
    return cost[k], set(levels[order[:k + 1]].tolist())


def _level_data(seed, levels, n, regression):
    """Codes of ``levels`` uniform levels with a normal effect each, and a target from
    them (the effect plus noise; its sign for classification)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, levels, n)
    signal = rng.normal(size=levels)[codes] + rng.normal(size=n)
    y = signal if regression else (signal > 0).astype(int)
    return codes, codes[:, None].astype(float), y


def _children_cost(t, node):
    l, r = t.children_left[node], t.children_right[node]
    return (t.weighted_n_node_samples[l] * t.impurity[l]
            + t.weighted_n_node_samples[r] * t.impurity[r])


@pytest.mark.parametrize("levels", [300, 3000])
@pytest.mark.parametrize("regression", [False, True])
def test_root_split_is_the_exact_ordered_search(levels, regression):
    codes, X, y = _level_data(levels, levels, 12 * levels, regression)
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    tree = Est(categorical_features=[0], min_category_samples=1, max_depth=3,
               random_state=0).fit(X, y)
    t = tree.tree_
    want, left = _ordered_best(codes, y, regression)
    assert np.isnan(t.threshold[0])
    assert _children_cost(t, 0) == pytest.approx(want, rel=1e-9)
    # the split is that cut (or the same partition seen from the other side)
    sent = set(t.categories_left(0).tolist()) & set(np.unique(codes).tolist())
    assert sent == left or sent == set(np.unique(codes).tolist()) - left
    # every node below: the exact ordered search of its own samples
    inside = tree.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero(t.children_left != -1)[1:]:
        rows = inside[:, node]
        want, _ = _ordered_best(codes[rows], y[rows], regression)
        assert _children_cost(t, node) == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_many_levels_route_training_samples_and_unseen_codes():
    """A fully grown tree on 2,000 pure levels (each level one class) fits them all; a
    code never seen, or beyond the stored sets, goes where missing values go."""
    rng = np.random.default_rng(1)
    levels = 2000
    label = rng.integers(0, 3, levels)
    codes = np.concatenate([np.arange(levels), rng.integers(0, levels, 8000)])
    X = codes[:, None].astype(float)
    y = label[codes]
    tree = DecisionTreeClassifier(categorical_features=[0], min_category_samples=1,
                                  random_state=0).fit(X, y)
    assert tree.score(X, y) == 1.0
    assert tree.tree_.left_codes.shape[1] == (levels + 63) // 64
    nan_leaf = tree.apply(np.array([[np.nan]]))[0]
    for unseen in (5000.0, 2.0 ** 24 - 1, -3.0, 10.5):
        assert tree.apply(np.array([[unseen]]))[0] == nan_leaf


def test_pandas_category_of_thousands_of_levels():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    names = np.array([f"city{k:04d}" for k in range(2500)])
    good = rng.random(2500) < 0.5
    pick = rng.integers(0, 2500, 20000)
    frame = pd.DataFrame({"city": pd.Categorical(names[pick], categories=names),
                          "x": rng.normal(size=20000)})
    y = good[pick].astype(int)
    forest = RandomForestClassifier(n_estimators=10, random_state=0,
                                    min_category_samples=1).fit(frame, y)
    assert forest.is_categorical_.tolist() == [True, False]
    assert forest.score(frame, y) > 0.99
    # unknown categories at predict time: missing values
    odd = pd.DataFrame({"city": pd.Categorical(["nowhere", None]), "x": [0.0, 0.0]})
    assert np.array_equal(forest.apply(odd)[0], forest.apply(odd)[1])


@pytest.mark.parametrize("orders", [0, 1, 2])
def test_more_classes_many_levels_separable(orders):
    """More classes and many levels: each order (class shares, principal axis, both)
    finds a set that separates a class exactly."""
    previous = _builder._set_category_orders(orders)
    try:
        rng = np.random.default_rng(3)
        codes = rng.integers(0, 900, 20000)
        y = codes % 4
        X = codes[:, None].astype(float)
        tree = DecisionTreeClassifier(categorical_features=[0], max_leaf_nodes=4,
                                      min_category_samples=1).fit(X, y)
        assert tree.score(X, y) == 1.0
        assert tree.get_n_leaves() == 4
    finally:
        _builder._set_category_orders(previous)


def test_forests_and_random_splits_on_many_levels():
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 1200, 6000)
    effect = rng.normal(size=1200)
    X = np.column_stack([codes, rng.normal(size=6000)]).astype(float)
    y = effect[codes] + 0.1 * X[:, 1]
    reg = RandomForestRegressor(n_estimators=8, categorical_features=[0], random_state=0,
                                n_jobs=2).fit(X, y)
    again = RandomForestRegressor(n_estimators=8, categorical_features=[0], random_state=0,
                                  n_jobs=1).fit(X, y)
    assert np.array_equal(reg.predict(X), again.predict(X))
    assert reg.score(X, y) > 0.8
    et = ExtraTreesClassifier(n_estimators=8, categorical_features=[0],
                              random_state=0).fit(X, (y > 0).astype(int))
    assert et.score(X, (y > 0).astype(int)) > 0.95


def test_rotation_quantile_and_explanations_on_many_levels():
    """The other estimators take many levels too; SHAP values of a forest with wide code
    sets add up to its predictions (path-dependent and interventional)."""
    from rotforest import RandomForestQuantileRegressor, RotationForestClassifier
    from rotforest.explain import explain
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 700, 4000)
    effect = rng.normal(size=700)
    X = np.column_stack([codes, rng.normal(size=(4000, 3))]).astype(float)
    y = (effect[codes] + X[:, 1] > 0).astype(int)
    rot = RotationForestClassifier(n_estimators=5, categorical_features=[0],
                                   random_state=0).fit(X, y)
    assert rot.score(X, y) > 0.95
    qrf = RandomForestQuantileRegressor(n_estimators=5, categorical_features=[0],
                                        categorical_set_fraction=1.0,
                                        random_state=0).fit(X, effect[codes])
    assert np.all(np.diff(qrf.predict(X[:50], quantiles=[0.1, 0.5, 0.9]), axis=1) >= 0)
    forest = RandomForestClassifier(n_estimators=4, categorical_features=[0],
                                    categorical_set_fraction=1.0, min_category_samples=1,
                                    random_state=0).fit(X, y)
    assert any(t.tree_.code_words >= 11 for t in forest.estimators_)
    proba = forest.predict_proba(X[:40])[:, 1]
    for background in (None, X[:25]):
        ex = explain(forest, X[:40], background=background)
        values = np.asarray(ex.values)[..., 1] if np.ndim(ex.values) == 3 else ex.values
        base = np.asarray(ex.base_values)
        base = base[..., 1] if base.ndim >= 1 and base.shape[-1] == 2 else base
        np.testing.assert_allclose(values.sum(axis=1) + base, proba, atol=1e-9)


@pytest.mark.parametrize("regression", [False, True])
def test_rare_levels_shrunk_in_the_order(regression):
    """_set_category_rare(1): no pooling in the searches of an order; each level placed
    by its statistic shrunk towards the node's with min_category_samples samples'
    weight, every cut of that order scored."""
    previous = _builder._set_category_rare(1)
    try:
        # about 5 samples a level
        codes, X, y = _level_data(7 + regression, 800, 4000, regression)
        Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
        tree = Est(categorical_features=[0], min_category_samples=10, max_depth=3,
                   random_state=0).fit(X, y)
        t = tree.tree_
        inside = tree.decision_path(X).toarray().astype(bool)
        for node in np.flatnonzero(t.children_left != -1):
            rows = inside[:, node]
            want, _ = _ordered_best(codes[rows], y[rows], regression, shrink=10.0)
            assert _children_cost(t, node) == pytest.approx(want, rel=1e-9, abs=1e-9)
        # pooled instead, the rare levels go together: another (worse) root
        _builder._set_category_rare(0)
        pooled = Est(categorical_features=[0], min_category_samples=10, max_depth=3,
                     random_state=0).fit(X, y)
        assert pooled.tree_.node_count < 3 or (
            _children_cost(pooled.tree_, 0) != pytest.approx(_children_cost(t, 0)))
    finally:
        _builder._set_category_rare(previous)


def test_more_classes_split_on_the_principal_axis_order():
    """More classes, more than 10 levels: the levels' class shares projected on their
    first principal axis (weighted covariance; numpy's eigh here), every cut of that
    order scored with the Gini index: the root's children equal the best of them."""
    rng = np.random.default_rng(11)
    levels, K, n = 150, 4, 30000
    shares = rng.dirichlet(np.ones(K) * 0.7, size=levels)
    codes = rng.integers(0, levels, n)
    y = np.array([rng.choice(K, p=shares[c]) for c in codes])
    X = codes[:, None].astype(float)
    tree = DecisionTreeClassifier(categorical_features=[0], min_category_samples=1,
                                  max_depth=1).fit(X, y)
    counts = np.zeros((levels, K))
    np.add.at(counts, (codes, y), 1.0)
    w = counts.sum(axis=1)
    p = counts / w[:, None]
    mean = counts.sum(axis=0) / n
    cov = ((p - mean) * w[:, None]).T @ (p - mean)
    axis = np.linalg.eigh(cov)[1][:, -1]
    order = np.argsort(p @ axis, kind="stable")
    left = np.cumsum(counts[order], axis=0)[:-1]
    right = counts.sum(axis=0) - left
    nl, nr = left.sum(axis=1), right.sum(axis=1)
    cost = (nl - (left ** 2).sum(axis=1) / nl) + (nr - (right ** 2).sum(axis=1) / nr)
    assert _children_cost(tree.tree_, 0) == pytest.approx(cost.min(), rel=1e-9)
    # the K orders (the former method) find a worse cut on these data
    previous = _builder._set_category_orders(0)
    try:
        former = DecisionTreeClassifier(categorical_features=[0], min_category_samples=1,
                                        max_depth=1).fit(X, y)
    finally:
        _builder._set_category_orders(previous)
    assert _children_cost(former.tree_, 0) != pytest.approx(cost.min(), rel=1e-9)
