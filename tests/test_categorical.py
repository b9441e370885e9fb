"""Categorical features: splits on sets of levels, checked against a brute-force search
over every partition of the levels, and their storage, prediction and input handling."""
import pickle

import numpy as np
import pytest
from sklearn.base import clone

from helpers import trees_of
from rotforest import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    RotationForestClassifier,
    RotationForestRegressor,
)
from rotforest import _builder
from rotforest.pruning import prune_cost_complexity


def _impurity(criterion, y, w, n_classes):
    """A node's impurity, written out independently of the builder."""
    W = w.sum()
    if criterion in ("gini", "entropy"):
        p = np.bincount(y, weights=w, minlength=n_classes) / W
        if criterion == "gini":
            return 1.0 - np.sum(p * p)
        p = p[p > 0]
        return -np.sum(p * np.log2(p))
    mean = np.sum(w * y) / W
    if criterion == "poisson":
        if mean <= 0:
            return np.inf
        t = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mean), 0.0) - (y - mean)
        return np.sum(w * t) / W
    return np.sum(w * (y - mean) ** 2) / W


def _best_partition(X, y, w, criterion, n_classes, min_samples_leaf):
    """The largest weighted impurity decrease of any split of (X, y, w) on any of its
    (categorical) features: every partition of the levels present, the missing values
    being one more level."""
    best = -np.inf
    W = w.sum()
    parent = W * _impurity(criterion, y, w, n_classes)
    for j in range(X.shape[1]):
        col = np.where(np.isnan(X[:, j]), -1.0, X[:, j])
        levels = np.unique(col)
        m = len(levels)
        if m < 2:
            continue
        for bits in range(1, 2 ** (m - 1)):          # the last level always on the right
            left_levels = [levels[b] for b in range(m - 1) if (bits >> b) & 1]
            left = np.isin(col, left_levels)
            if left.sum() < min_samples_leaf or (~left).sum() < min_samples_leaf:
                continue
            il = _impurity(criterion, y[left], w[left], n_classes)
            ir = _impurity(criterion, y[~left], w[~left], n_classes)
            if not (np.isfinite(il) and np.isfinite(ir)):
                continue
            best = max(best, parent - w[left].sum() * il - w[~left].sum() * ir)
    return best


def _node_samples(tree, X):
    return tree.decision_path(X).toarray().astype(bool)


def _data(seed, n=160, levels=(7, 5), n_classes=2, missing=0.1, regression=False):
    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.randint(0, k, n) for k in levels]).astype(float)
    # codes need not be contiguous: spread them over 0 .. 254
    X[:, 0] = np.array([3, 17, 40, 41, 99, 200, 254, 7, 8, 9])[X[:, 0].astype(int)]
    X[rng.rand(n) < missing, 0] = np.nan
    X[rng.rand(n) < missing / 2, 1] = np.nan
    effect = rng.randn(300)
    signal = (effect[np.nan_to_num(X[:, 0], nan=255).astype(int) % 300]
              + effect[np.nan_to_num(X[:, 1], nan=1).astype(int)] + 0.7 * rng.randn(n))
    if regression:
        y = np.exp(signal / 2)           # positive: Poisson too
    else:
        y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("criterion, n_classes", [("gini", 2), ("entropy", 2),
                                                  ("gini", 3), ("entropy", 4)])
@pytest.mark.parametrize("weighted", [False, True])
def test_classifier_splits_equal_brute_force(criterion, n_classes, weighted):
    """Every node's split is the best partition of the levels of either feature (two
    classes: the levels ordered by class share; more classes with at most 10 levels:
    every partition), missing values placed as a level."""
    for seed in range(3):
        X, y = _data(seed, n_classes=n_classes)
        w = (np.random.RandomState(seed).randint(1, 4, len(y)).astype(float) if weighted
             else np.ones(len(y)))
        tree = DecisionTreeClassifier(criterion=criterion, categorical_features=[0, 1],
                                      min_samples_leaf=3, min_category_samples=1,
                                      random_state=0)
        tree.fit(X, y, sample_weight=w)
        t = tree.tree_
        inside = _node_samples(tree, X)
        checked = 0
        for node in np.flatnonzero(t.children_left != -1):
            rows = inside[:, node]
            l, r = t.children_left[node], t.children_right[node]
            got = (t.weighted_n_node_samples[node] * t.impurity[node]
                   - t.weighted_n_node_samples[l] * t.impurity[l]
                   - t.weighted_n_node_samples[r] * t.impurity[r])
            want = _best_partition(X[rows], y[rows], w[rows], criterion, n_classes, 3)
            assert got == pytest.approx(want, rel=1e-9, abs=1e-9), (seed, node)
            assert np.isnan(t.threshold[node])
            checked += 1
        assert checked > 5


@pytest.mark.parametrize("criterion", ["squared_error", "friedman_mse", "poisson"])
def test_regressor_splits_equal_brute_force(criterion):
    """Numeric targets: the levels ordered by their mean target, every cut scored, find
    the best partition of all."""
    for seed in range(3):
        X, y = _data(seed, regression=True)
        w = np.random.RandomState(seed).uniform(0.5, 2.0, len(y))
        tree = DecisionTreeRegressor(criterion=criterion, categorical_features=[0, 1],
                                     min_samples_leaf=2, max_depth=6,
                                     min_category_samples=1, random_state=0)
        tree.fit(X, y, sample_weight=w)
        t = tree.tree_
        inside = _node_samples(tree, X)
        brute = "poisson" if criterion == "poisson" else "squared_error"
        for node in np.flatnonzero(t.children_left != -1):
            rows = inside[:, node]
            l, r = t.children_left[node], t.children_right[node]
            got = sum(sign * w[rows & inside[:, k]].sum()
                      * _impurity(brute, y[rows & inside[:, k]], w[rows & inside[:, k]], 1)
                      for sign, k in ((1, node), (-1, l), (-1, r)))
            want = _best_partition(X[rows], y[rows], w[rows], brute, 1, 2)
            assert got == pytest.approx(want, rel=1e-7, abs=1e-9), (seed, node)


def test_left_sets_route_the_training_samples():
    """categories_left and missing_go_to_left describe where every training sample went
    (node sizes), and codes a node never saw follow its missing values."""
    X, y = _data(0)
    tree = DecisionTreeClassifier(categorical_features=[0, 1], random_state=0).fit(X, y)
    t = tree.tree_
    inside = _node_samples(tree, X)
    for node in np.flatnonzero(t.children_left != -1):
        rows = inside[:, node]
        col = X[rows, t.feature[node]]
        left_codes = t.categories_left(node)
        goes_left = np.where(np.isnan(col), bool(t.missing_go_to_left[node]),
                             np.isin(col, left_codes))
        assert goes_left.sum() == t.n_node_samples[t.children_left[node]]
        seen = set(np.unique(col[~np.isnan(col)]))
        unseen = [c for c in range(255) if c not in seen]
        assert all((c in left_codes) == bool(t.missing_go_to_left[node]) for c in unseen)
    # values that are no code (unseen, fractional, negative, too large) go as NaN does
    Z = np.repeat(X[:1], 5, axis=0)
    Z[:, 0] = [np.nan, 1.0, 2.5, -3.0, 1e6]
    leaves = tree.apply(Z)
    assert np.all(leaves == leaves[0])
    assert np.array_equal(tree.decision_path(Z).toarray(),
                          np.repeat(tree.decision_path(Z[:1]).toarray(), 5, axis=0))


def test_node_methods_grow_the_same_tree():
    """Presorted lists and sorting in the nodes give the same categorical splits (with
    missing values, weights, a numeric feature, best-first growth, random splits)."""
    X, y = _data(1, n=600, levels=(10, 30), n_classes=3)
    X = np.column_stack([X, np.random.RandomState(0).randn(len(y))])
    w = np.random.RandomState(1).randint(0, 3, len(y)).astype(float)
    models = [DecisionTreeClassifier(categorical_features=[0, 1], random_state=0),
              DecisionTreeClassifier(categorical_features=[0, 1], max_leaf_nodes=20,
                                     max_features=2, random_state=0),
              DecisionTreeClassifier(categorical_features=[0, 1], splitter="random",
                                     random_state=0),
              DecisionTreeRegressor(categorical_features=[0, 1], random_state=0)]
    for model in models:
        target = y.astype(float) if model._regression else y
        trees = []
        for method in ("presort", "sort", "auto"):
            previous = _builder._set_node_method(method)
            try:
                trees.append(clone(model).fit(X, target, sample_weight=w).tree_)
            finally:
                _builder._set_node_method(previous)
        for other in trees[1:]:
            assert other.nodes.tobytes() == trees[0].nodes.tobytes()
            assert np.array_equal(other.value, trees[0].value)
            assert np.array_equal(other.left_codes, trees[0].left_codes)


def test_more_levels_than_the_exact_search():
    """More classes and more than 10 levels: cuts of the orders by each class's share.
    A level set that separates the classes exactly is found."""
    rng = np.random.RandomState(0)
    codes = rng.randint(0, 40, 3000)
    y = codes % 3
    X = codes[:, None].astype(float)
    tree = DecisionTreeClassifier(categorical_features=[0], max_leaf_nodes=3).fit(X, y)
    assert tree.score(X, y) == 1.0
    assert tree.get_n_leaves() == 3


def test_pickle_pruning_and_importances():
    X, y = _data(2, n=400)
    X = np.column_stack([X, np.random.RandomState(0).randn(len(y))])
    tree = DecisionTreeClassifier(categorical_features=[0, 1], random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(tree))
    assert np.array_equal(again.predict_proba(X), tree.predict_proba(X))
    path = tree.cost_complexity_pruning_path(X, y)
    alpha = path.ccp_alphas[len(path.ccp_alphas) // 2]
    pruned = clone(tree).set_params(ccp_alpha=alpha).fit(X, y)
    assert 1 < pruned.get_n_leaves() < tree.get_n_leaves()
    # pruning the full tree keeps each kept node's code set (renumbered with it)
    again = prune_cost_complexity(tree.tree_, alpha)
    assert np.array_equal(again.left_codes, pruned.tree_.left_codes)
    assert np.array_equal(again.predict(X), pruned.tree_.predict(X))
    # one non-empty row for each split on a set of codes that remains
    sets = np.flatnonzero((again.children_left != -1) & np.isnan(again.threshold))
    assert again.left_codes.shape[0] == sets.size > 0
    assert np.array_equal(again.code_row[sets], np.arange(sets.size))
    assert np.all(np.any(again.left_codes, axis=1))
    held = DecisionTreeClassifier(categorical_features=[0, 1], validation_fraction=0.3,
                                  random_state=0).fit(X, y)
    assert held.get_n_leaves() < tree.get_n_leaves()
    assert np.array_equal(held.apply(X), held.tree_.apply(X))
    imp = tree.feature_importances_
    assert imp.sum() == pytest.approx(1.0) and np.all(imp > 0)


def test_forest_same_for_any_n_jobs_and_beats_ordinal_codes():
    """A forest with native categories equals itself for any n_jobs; on a target that
    depends on an unordered set of levels it beats the same forest on the raw codes."""
    rng = np.random.RandomState(0)
    n = 3000
    codes = rng.randint(0, 60, n)
    good = rng.rand(60) < 0.5
    X = np.column_stack([codes, rng.randn(n)]).astype(float)
    y = (good[codes] ^ (rng.rand(n) < 0.1)).astype(int)
    tr, te = slice(0, 2000), slice(2000, None)
    params = dict(n_estimators=30, max_depth=4, random_state=0, categorical_set_fraction=1.0)
    native = [RandomForestClassifier(categorical_features=[0], n_jobs=j, **params)
              .fit(X[tr], y[tr]) for j in (1, 2)]
    assert np.array_equal(native[0].predict_proba(X[te]), native[1].predict_proba(X[te]))
    ordinal = RandomForestClassifier(categorical_features=None, **params).fit(X[tr], y[tr])
    assert native[0].score(X[te], y[te]) > ordinal.score(X[te], y[te]) + 0.05
    assert native[0].score(X[te], y[te]) > 0.85
    reg = [RandomForestRegressor(categorical_features=c, **params).fit(X[tr], y[tr] * 1.0)
           for c in ([0], None)]
    assert reg[0].score(X[te], y[te]) > max(0.5, reg[1].score(X[te], y[te]) + 0.2)


@pytest.mark.parametrize("value, message", [
    ([0.5, 1.0], "non-integer"),
    ([-1.0, 1.0], "negative"),
    ([3.0, 2.0 ** 24], "at most 16777216"),
    ([3.0, 70000.0], "only 2 distinct ones"),      # spread thinly: a bitset per split
])
def test_bad_codes(value, message):
    X = np.array([value * 5]).reshape(-1, 1)
    y = np.arange(len(X)) % 2
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(categorical_features=[0]).fit(X, y)


def test_bad_parameters():
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 0, 1])
    for value, message in [("yes", "from_dtype"), ([3], "outside"), ([True], "mask of 1"),
                           (["a"], "no feature names"), ([[0]], "1-D")]:
        with pytest.raises(ValueError, match=message):
            DecisionTreeClassifier(categorical_features=value).fit(X, y)
    with pytest.raises(ValueError, match="monotonic_cst"):
        DecisionTreeClassifier(categorical_features=[0], monotonic_cst=[1, 0]).fit(X, y)
    with pytest.raises(ValueError, match="absolute_error"):
        DecisionTreeRegressor(categorical_features=[0], criterion="absolute_error").fit(
            X, y.astype(float))
    for est in (DecisionTreeClassifier, RandomForestClassifier, RotationForestRegressor):
        for value in (0, 2.5, "10"):
            with pytest.raises((ValueError, TypeError), match="min_category_samples"):
                est(categorical_features=[0], min_category_samples=value).fit(X, y)
    # a failed fit leaves a fitted model as it was
    tree = DecisionTreeClassifier(categorical_features=[0]).fit(X, y)
    before = tree.tree_.nodes.copy()
    with pytest.raises(ValueError):
        tree.fit(np.array([[-1.0, 0.0]] * 4), y)
    assert tree.tree_.nodes.tobytes() == before.tobytes()
    assert tree.is_categorical_.tolist() == [True, False]


def test_no_categorical_features_changes_nothing():
    X, y = _data(3)
    X = np.nan_to_num(X)
    a = DecisionTreeClassifier(random_state=0).fit(X, y)
    b = DecisionTreeClassifier(categorical_features=None, random_state=0).fit(X, y)
    assert a.is_categorical_ is None and a.tree_.left_codes is None
    assert np.array_equal(a.tree_.nodes, b.tree_.nodes)


def test_dataframe_category_columns():
    """pandas: category columns are found by dtype, coded by their categories (at predict
    time by the categories seen in fit, unknown ones as missing), and work in a Pipeline
    and GridSearchCV without an encoder."""
    pd = pytest.importorskip("pandas")
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    rng = np.random.RandomState(0)
    n = 600
    cities = np.array(["oslo", "lima", "kyiv", "pune", "baku", "nuuk"])
    good = {"oslo", "kyiv", "nuuk"}
    city = cities[rng.randint(0, len(cities), n)]
    frame = pd.DataFrame({"city": pd.Categorical(city), "x": rng.randn(n)})
    y = np.array([c in good for c in city]).astype(int)
    tree = DecisionTreeClassifier(max_depth=1).fit(frame, y)
    assert tree.is_categorical_.tolist() == [True, False]
    assert tree.score(frame, y) == 1.0
    # the same values under other categories (order, extra and unknown ones)
    other = pd.DataFrame({"city": pd.Categorical(city, categories=list(cities[::-1])
                                                 + ["rome"]), "x": frame["x"]})
    assert np.array_equal(tree.predict(other), y)
    unknown = pd.DataFrame({"city": pd.Categorical(["rome", None]), "x": [0.0, 0.0]})
    nan_leaf = tree.apply(pd.DataFrame({"city": pd.Categorical([None], categories=["oslo"]),
                                        "x": [0.0]}))
    assert np.all(tree.apply(unknown) == nan_leaf[0])
    # strings at predict time, coded by the categories seen in fit
    plain = pd.DataFrame({"city": city.astype(object), "x": frame["x"]})
    assert np.array_equal(tree.predict(plain), y)
    # (both features tried at every node: a perfect score for any seed, not by luck)
    search = GridSearchCV(make_pipeline(RandomForestClassifier(n_estimators=5,
                                                               max_features=None,
                                                               random_state=0)),
                          {"randomforestclassifier__max_depth": [1, 3]}, cv=3)
    search.fit(frame, y)
    assert search.score(frame, y) == 1.0
    named = DecisionTreeClassifier(categorical_features=["city"]).fit(frame, y)
    assert named.is_categorical_.tolist() == [True, False]
    many = pd.DataFrame({"c": pd.Categorical([str(i) for i in range(300)])})
    assert DecisionTreeClassifier(min_category_samples=1).fit(
        many, np.arange(300) % 2).score(many, np.arange(300) % 2) == 1.0


def _best_cut(x, y, w, criterion, n_classes, min_samples_leaf):
    """The largest weighted impurity decrease of a threshold on numeric column x: every
    cut between neighbouring values, the missing values on either side, and every
    present value against the missing ones."""
    W = w.sum()
    parent = W * _impurity(criterion, y, w, n_classes)
    values = np.unique(x[~np.isnan(x)])
    best = -np.inf
    sides = [(x <= t) | (np.isnan(x) & ml)
             for t in values[:-1] for ml in (False, True)] + [~np.isnan(x)]
    for left in sides:
        if left.sum() < min_samples_leaf or (~left).sum() < min_samples_leaf:
            continue
        il = _impurity(criterion, y[left], w[left], n_classes)
        ir = _impurity(criterion, y[~left], w[~left], n_classes)
        if np.isfinite(il) and np.isfinite(ir):
            best = max(best, parent - w[left].sum() * il - w[~left].sum() * ir)
    return best


def _mixed(seed, n_classes, n=200):
    """A weak categorical feature (7 levels, missing values) beside two stronger numeric
    ones (continuous with missing values; integers)."""
    rng = np.random.RandomState(seed)
    X = np.column_stack([rng.randint(0, 7, n), rng.rand(n), rng.randint(0, 9, n)])
    X = X.astype(float)
    X[rng.rand(n) < 0.1, 0] = np.nan
    X[rng.rand(n) < 0.1, 1] = np.nan
    effect = rng.randn(8) * 0.6
    signal = (effect[np.nan_to_num(X[:, 0], nan=7).astype(int)]
              + 2 * np.nan_to_num(X[:, 1], nan=0.3) + 0.3 * X[:, 2] + 0.5 * rng.randn(n))
    if n_classes == 0:
        return X, np.exp(signal / 2)
    return X, np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))


def _tree_of(builder, criterion, regression):
    """A single tree of either builder, every feature drawn at every node, the first
    feature split on sets."""
    # (min_samples_leaf 1: with larger leaves, the best valid partition of two classes'
    # levels need not be a cut of their order, which both builders search)
    common = dict(criterion=criterion, categorical_features=[0], min_category_samples=1,
                  random_state=0, max_depth=6)
    if builder == "exact":
        make = DecisionTreeRegressor if regression else DecisionTreeClassifier
        return make(**common), lambda est: est
    make = RandomForestRegressor if regression else RandomForestClassifier
    return (make(n_estimators=1, bootstrap=False, max_features=None, max_bins=255,
                 categorical_set_fraction=1.0, **common),
            lambda est: est.estimators_[0])


@pytest.mark.parametrize("builder", ["exact", "binned"])
@pytest.mark.parametrize("criterion, n_classes", [("gini", 2), ("entropy", 2),
                                                  ("gini", 3), ("squared_error", 0),
                                                  ("poisson", 0)])
@pytest.mark.parametrize("weighted", [False, True])
def test_sets_and_thresholds_compete_on_one_scale(builder, criterion, n_classes,
                                                  weighted):
    """With categorical and numeric features side by side, every node's split is the
    best of every partition of the categorical levels and every threshold of the
    numeric features (brute force), whichever kind wins; both kinds win somewhere.
    (Two classes with Gini once scored the sets on another scale than the thresholds,
    so a set split of a tenth of the best threshold's gain won.)"""
    regression = n_classes == 0
    kinds = set()
    for seed in range(2):
        X, y = _mixed(seed, n_classes)
        w = (np.random.RandomState(seed).randint(1, 4, len(y)).astype(float) if weighted
             else np.ones(len(y)))
        est, tree_of = _tree_of(builder, criterion, regression)
        t = tree_of(est.fit(X, y, sample_weight=w))
        inside = _node_samples(t, X)
        brute = "poisson" if criterion == "poisson" else (
            "squared_error" if regression else criterion)
        K = 1 if regression else n_classes
        tree = t.tree_
        for node in np.flatnonzero(tree.children_left != -1):
            rows = inside[:, node]
            got = sum(sign * w[rows & inside[:, k]].sum()
                      * _impurity(brute, y[rows & inside[:, k]], w[rows & inside[:, k]], K)
                      for sign, k in ((1, node), (-1, tree.children_left[node]),
                                      (-1, tree.children_right[node])))
            want = max(_best_partition(X[rows][:, :1], y[rows], w[rows], brute, K, 1),
                       *(_best_cut(X[rows, j], y[rows], w[rows], brute, K, 1)
                         for j in (1, 2)))
            assert got == pytest.approx(want, rel=1e-7, abs=1e-9), (seed, node)
            kinds.add(bool(np.isnan(tree.threshold[node])))
    assert kinds == {True, False}


def test_brute_force_helper_can_fail():
    """The reference distinguishes a best partition from a worse one: on data whose
    best split groups levels {0, 2} against {1, 3}, an ordinal cut scores lower."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 10)
    y = np.array([0, 1, 0, 1] * 10)
    best = _best_partition(X, y, np.ones(40), "gini", 2, 1)
    assert best == pytest.approx(20.0)
    for k in range(1, 4):
        left = X[:, 0] < k
        ordinal = 40 * 0.5 - sum(s.sum() * _impurity("gini", y[s], np.ones(s.sum()), 2)
                                 for s in (left, ~left))
        assert ordinal < best - 1


def test_rotation_forests_keep_categorical_features_unrotated():
    """With min_category_samples set, the rotation forests also offer the categorical
    features to every tree as they are, after the axes, split on sets of levels; by
    default they only rotate their codes, as categorical_features=None does."""
    rng = np.random.RandomState(0)
    n = 2400
    codes = rng.randint(0, 60, n)
    good = rng.rand(60) < 0.5
    X = np.column_stack([codes, rng.randn(n), rng.randn(n)]).astype(float)
    X[rng.rand(n) < 0.05, 0] = np.nan
    hit = np.where(np.isnan(X[:, 0]), False, good[np.nan_to_num(X[:, 0]).astype(int)])
    y = ((hit ^ (rng.rand(n) < 0.1)) | (X[:, 1] + X[:, 2] > 2)).astype(int)
    tr, te = slice(0, 1600), slice(1600, None)
    for missing in ("route", "impute"):
        params = dict(n_estimators=20, random_state=0, missing=missing)
        native = RotationForestClassifier(categorical_features=[0], n_jobs=2,
                                          min_category_samples=10, **params)
        native.fit(X[tr], y[tr])
        tree = trees_of(native)[0]
        assert tree.is_categorical_.tolist()[-1] and not tree.is_categorical_[0]
        assert np.isnan(tree.tree_.threshold[tree.tree_.children_left != -1]).any()
        plain = RotationForestClassifier(categorical_features=None, **params)
        assert native.score(X[te], y[te]) > plain.fit(X[tr], y[tr]).score(X[te], y[te]) + 0.05
        one = RotationForestClassifier(categorical_features=[0], n_jobs=1,
                                       min_category_samples=10, **params)
        assert np.array_equal(one.fit(X[tr], y[tr]).predict_proba(X[te]),
                              native.predict_proba(X[te]))
        rotated = RotationForestClassifier(categorical_features=[0], **params)
        rotated.fit(X[tr], y[tr])
        assert rotated.is_categorical_.tolist() == [True, False, False]
        assert all(t.is_categorical_ is None for t in trees_of(rotated))
        assert np.array_equal(rotated.predict_proba(X[te]), plain.predict_proba(X[te]))
        assert np.array_equal(rotated.feature_importances_, plain.feature_importances_)
    reg = RotationForestRegressor(n_estimators=10, categorical_features=[0], random_state=0,
                                  min_category_samples=10)
    assert reg.fit(X[tr], y[tr] * 1.0).score(X[te], y[te]) > 0.3
    # the absolute error needs no split on sets when the codes are only rotated
    RotationForestRegressor(n_estimators=2, categorical_features=[0],
                            criterion="absolute_error").fit(X[tr], y[tr] * 1.0)
    only = RotationForestClassifier(n_estimators=5, categorical_features=[0], random_state=0,
                                    min_category_samples=10)
    assert only.fit(X[tr, :1], y[tr]).score(X[te, :1], y[te]) > 0.8
    assert only.feature_importances_.tolist() == [1.0]
    # the trees' columns cannot change in a warm start
    only.set_params(warm_start=True, n_estimators=6, min_category_samples=None)
    with pytest.raises(ValueError, match="min_category_samples"):
        only.fit(X[tr, :1], y[tr])
    assert len(only.estimators_) == 5


@pytest.mark.parametrize("support", [1, 10])
def test_rare_categories_are_pooled(support):
    """Categories with fewer than min_category_samples samples in a node go to one side
    together: the best split equals the brute force over partitions that keep them
    together."""
    rng = np.random.RandomState(0)
    counts = [60, 50, 40, 8, 6, 5, 4]
    X = np.repeat([3.0, 7.0, 11.0, 20.0, 21.0, 40.0, np.nan], counts)[:, None]
    share = np.repeat([0.2, 0.7, 0.4, 0.9, 0.1, 0.8, 0.3], counts)
    y = (rng.rand(len(X)) < share).astype(int)
    tree = DecisionTreeClassifier(categorical_features=[0], max_depth=1,
                                  min_category_samples=support).fit(X, y)
    col = np.where(np.isnan(X[:, 0]), -1.0, X[:, 0])
    levels, n_level = np.unique(col, return_counts=True)
    rare = levels[n_level < support]
    merged = np.where(np.isin(col, rare), -2.0, col)[:, None]   # one pooled level
    want = _best_partition(merged, y, np.ones(len(y)), "gini", 2, 1)
    t = tree.tree_
    got = (t.weighted_n_node_samples[0] * t.impurity[0]
           - t.weighted_n_node_samples[1] * t.impurity[1]
           - t.weighted_n_node_samples[2] * t.impurity[2])
    assert got == pytest.approx(want, rel=1e-9)
    sides = np.isin(rare[rare >= 0], t.categories_left(0)).tolist()
    if -1.0 in rare:
        sides.append(bool(t.missing_go_to_left[0]))
    assert len(set(sides)) <= 1                              # all on one side
    assert len(rare) == (4 if support == 10 else 0)
    if support == 1:        # alone, the rare levels would split apart
        assert got > _best_partition(np.where(np.isin(col, levels[n_level < 10]), -2.0,
                                              col)[:, None], y, np.ones(len(y)), "gini",
                                     2, 1) + 1e-9


@pytest.mark.parametrize("forest", [RandomForestClassifier, RotationForestClassifier])
def test_forests_pass_min_category_samples_to_their_trees(forest):
    """With min_category_samples above the sample count every category is pooled in every
    node, so no tree splits on a set; with 1, the trees split on sets."""
    X, y = _data(0)
    for support, any_set in ((1, True), (len(y) + 1, False)):
        model = forest(n_estimators=3, categorical_features=[0, 1], random_state=0,
                       min_category_samples=support).fit(X, y)
        sets = 0
        for tree in trees_of(model):
            assert tree.min_category_samples == support
            t = tree.tree_
            sets += int(np.sum(np.isnan(t.threshold[t.children_left != -1])))
        assert (sets > 0) == any_set


def test_categorical_set_fraction():
    """Each tree splits each categorical feature on sets with probability
    categorical_set_fraction, else on its codes: 0 grows the trees of
    categorical_features=None, 1 sets in every tree; the draws depend on the tree's index
    only (n_jobs, warm starts)."""
    X, y = _data(1, n=300, levels=(7, 5, 6))
    X = np.column_stack([X, np.random.RandomState(1).randn(len(y))])
    cats = [0, 1, 2]
    base = dict(n_estimators=40, random_state=0, categorical_features=cats)
    none = RandomForestClassifier(**dict(base, categorical_features=None)).fit(X, y)
    zero = RandomForestClassifier(categorical_set_fraction=0.0, **base).fit(X, y)
    assert np.array_equal(zero.predict_proba(X), none.predict_proba(X))
    assert all(t.is_categorical_ is None for t in trees_of(zero))
    one = RandomForestClassifier(categorical_set_fraction=1.0, **base).fit(X, y)
    assert all(t.is_categorical_.tolist() == [True] * 3 + [False] for t in trees_of(one))
    half = RandomForestClassifier(categorical_set_fraction=0.5, n_jobs=2, **base).fit(X, y)
    kept = np.array([[False] * 4 if t.is_categorical_ is None else t.is_categorical_
                     for t in trees_of(half)])
    assert not kept[:, 3].any() and 0.3 < kept[:, :3].mean() < 0.7
    for t in trees_of(half):         # a feature kept as categorical: set splits only
        nodes = t.tree_.children_left != -1
        for j in cats:
            on_j = nodes & (t.tree_.feature == j)
            kept_j = t.is_categorical_ is not None and t.is_categorical_[j]
            assert np.all(np.isnan(t.tree_.threshold[on_j]) == kept_j)
    serial = RandomForestClassifier(categorical_set_fraction=0.5, n_jobs=1, **base).fit(X, y)
    warm = RandomForestClassifier(categorical_set_fraction=0.5, warm_start=True,
                                  **dict(base, n_estimators=15)).fit(X, y)
    warm.set_params(n_estimators=40).fit(X, y)
    for other in (serial, warm):
        assert np.array_equal(other.predict_proba(X), half.predict_proba(X))
    reg = RandomForestRegressor(categorical_set_fraction=0.5, **base).fit(X, y * 1.0)
    assert 0 < np.mean([t.is_categorical_ is not None for t in trees_of(reg)]) < 1
    for value in (-0.1, 1.5, "half"):
        with pytest.raises((ValueError, TypeError), match="categorical_set_fraction"):
            RandomForestClassifier(categorical_set_fraction=value, **base).fit(X, y)


@pytest.mark.parametrize("make", [DecisionTreeClassifier, RandomForestRegressor,
                                  RotationForestClassifier])
def test_models_pickled_before_the_new_parameters_still_work(make):
    """A model pickled before categorical_features, min_category_samples and
    categorical_set_fraction existed gets the values that describe how it was fitted,
    so get_params, clone and refits work on it."""
    X, y = _data(2, n=120)
    X = np.nan_to_num(X)
    model = make(random_state=0, **({} if make is DecisionTreeClassifier
                                    else {"n_estimators": 3})).fit(X, y)
    state = model.__getstate__()
    for name in ("categorical_features", "min_category_samples", "categorical_set_fraction"):
        state.pop(name, None)
    old = make.__new__(make)
    old.__setstate__(state)
    params = old.get_params()
    assert params["categorical_features"] is None and params["min_category_samples"] == 10
    if make is RandomForestRegressor:
        assert params["categorical_set_fraction"] == 1.0
    assert np.array_equal(old.predict(X), model.predict(X))
    clone(old).fit(X, y)


def test_rotation_forest_warm_start_without_categories_takes_any_pooling():
    X, y = _data(2, n=120)
    X = np.nan_to_num(X)
    forest = RotationForestClassifier(n_estimators=2, warm_start=True, random_state=0)
    forest.fit(X, y).set_params(min_category_samples=10, n_estimators=4).fit(X, y)
    assert len(forest.estimators_) == 4


def _frames_of_one_table():
    """One table as a pandas ``category`` frame and as the other categorical forms a
    user may hold: polars Enum (the same category order) and Categorical (order of
    appearance), and pandas with a pyarrow dictionary column."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    n = 400
    levels = np.array(["a", "b", "c", "d", "e"])
    city = levels[rng.integers(0, 5, n)]
    x = rng.normal(size=n)
    y = (np.isin(city, ["b", "d"]) ^ (x > 1.0)).astype(int)
    reference = pd.DataFrame({"x": x, "city": pd.Categorical(city, categories=levels)})
    others = {
        "polars Enum": pl.DataFrame({"x": x, "city": pl.Series(city,
                                                                dtype=pl.Enum(list(levels)))}),
        "polars Categorical": pl.DataFrame({"x": x,
                                            "city": pl.Series(city, dtype=pl.Categorical)}),
        "pyarrow dictionary": pa.table({"x": x, "city": pa.array(city).dictionary_encode()})
        .to_pandas(types_mapper=pd.ArrowDtype),
    }
    return reference, others, y


def test_polars_categories_without_pyarrow_say_what_to_install(monkeypatch):
    """A polars frame's Categorical columns are read through pandas and pyarrow: without
    them the fit says so and what to do, rather than failing inside polars."""
    pl = pytest.importorskip("polars", reason="the message is about polars frames")
    frame = pl.DataFrame({"x": [0.1, 0.2, 0.3, 0.4],
                          "c": pl.Series(list("abab"), dtype=pl.Categorical)})

    def no_pyarrow(*args, **kwargs):
        raise ImportError("No module named 'pyarrow'")

    monkeypatch.setattr(pl.DataFrame, "to_pandas", no_pyarrow)
    with pytest.raises(ImportError, match="read through pandas and pyarrow: install them"):
        DecisionTreeClassifier(categorical_features="from_dtype").fit(frame, [0, 1, 0, 1])


@pytest.mark.parametrize("Est", [DecisionTreeClassifier, RandomForestClassifier])
def test_polars_and_pyarrow_categorical_columns_are_categorical_features(Est):
    """``categorical_features="from_dtype"`` takes polars Categorical/Enum and pyarrow
    dictionary columns as scikit-learn's HistGradientBoosting does: the model equals the
    one fitted on the pandas ``category`` frame (same probabilities on every row, and a
    level unseen in fit counts as missing in both).  A forest equals it where the
    categories come in the same order (Enum); in the order of appearance its levels get
    other codes, which its random draws see, so it is only as accurate."""
    pd = pytest.importorskip("pandas")
    reference, others, y = _frames_of_one_table()
    expected = Est(random_state=0).fit(reference, y)
    unseen = pd.DataFrame({"x": [0.0, 2.0],
                           "city": pd.Categorical(["z", "b"], categories=["b", "z"])})
    for name, X in others.items():
        model = Est(random_state=0).fit(X, y)
        np.testing.assert_array_equal(model.is_categorical_, [False, True], err_msg=name)
        assert list(model.feature_names_in_) == ["x", "city"]
        if Est is RandomForestClassifier and name != "polars Enum":
            assert model.score(X, y) == pytest.approx(expected.score(reference, y), abs=0.02)
            continue
        np.testing.assert_array_equal(model.predict_proba(X), expected.predict_proba(reference),
                                      err_msg=name)
        np.testing.assert_array_equal(model.predict_proba(unseen),
                                      expected.predict_proba(unseen), err_msg=name)
