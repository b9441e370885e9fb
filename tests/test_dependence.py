"""Partial dependence: scikit-learn's partial_dependence and PartialDependenceDisplay on
every estimator, and the "recursion" method of the tree and random-forest regressors
(rotforest/_dependence.py) against scikit-learn's on the same trees and a plain-Python
traversal."""
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor as SkForestRegressor
from sklearn.exceptions import NotFittedError
from sklearn.inspection import PartialDependenceDisplay, partial_dependence
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor
from sklearn.tree import export_graphviz, export_text, plot_tree

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor)
from helpers import sklearn_at_least
from sklearn_trees import as_sklearn


@pytest.fixture
def plt():
    """matplotlib's pyplot on the Agg backend, for the tests that draw (skipped without
    matplotlib: the computations need none); closes the figures afterwards."""
    matplotlib = pytest.importorskip("matplotlib",
                                     reason="draws with scikit-learn's plotting: needs "
                                            "matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    yield pyplot
    pyplot.close("all")


def _data(n=300, n_features=4, seed=0, missing=0.0):
    """Features exact in float32 (scikit-learn's trees read float32), an interaction
    target, and a fraction ``missing`` of NaN in training."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, n_features)), 2).astype(np.float32).astype(float)
    y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + 0.3 * rng.normal(size=n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def _f32_grid(rng, n_points, n_target):
    return rng.normal(size=(n_points, n_target)).astype(np.float32).astype(float)


def _goes_left(tree, node, x):
    codes = tree.categories_left(node)
    missing_left = bool(tree.missing_go_to_left[node])
    if codes is not None:
        if np.isnan(x) or x < 0 or x >= 64 * tree.code_words or x != int(x):
            return missing_left
        return int(x) in set(codes.tolist())
    if np.isnan(x):
        return missing_left
    return x <= tree.threshold[node]


def _reference(tree, point, features):
    """Friedman's weighted traversal, written out recursively over the tree arrays."""
    features = list(features)

    def walk(node, weight):
        left, right = tree.children_left[node], tree.children_right[node]
        if left == -1:
            return weight * tree.value[node, 0, 0]
        f = tree.feature[node]
        if f in features:
            x = point[features.index(f)]
            return walk(left if _goes_left(tree, node, x) else right, weight)
        share = tree.weighted_n_node_samples[left] / tree.weighted_n_node_samples[node]
        return walk(left, weight * share) + walk(right, weight * (1 - share))

    return walk(0, 1.0)


def _forest_reference(forest, grid, features):
    return np.array([np.mean([_reference(t.tree_, p, features) for t in forest.estimators_])
                     for p in grid])


def _on_grid(est, X, features, values, **kwargs):
    """partial_dependence on the grid ``values`` ({feature: sorted distinct values}).

    scikit-learn 1.7 added custom_values; before it, the grid of a feature is the
    distinct values of its column whenever they are fewer than grid_resolution: rows
    made of ``values`` (the other columns are read by the "recursion" method for
    nothing but their number) give the same grid."""
    if sklearn_at_least("1.7"):
        return partial_dependence(est, X, features, custom_values=values, **kwargs)
    n = max(len(v) for v in values.values())
    rows = np.zeros((n, X.shape[1]))
    for f, v in values.items():
        rows[:, f] = np.resize(v, n)
    out = partial_dependence(est, rows, features, grid_resolution=n + 1, **kwargs)
    for f, got in zip(features, out["grid_values"]):
        np.testing.assert_array_equal(got, values[f])
    return out


FEATURE_SETS = [[0], [2], [0, 1], [3, 0], [1, 2, 3]]


# ---------------------------------------------------------------- recursion vs scikit-learn
@pytest.mark.parametrize("missing", [0.0, 0.1])
@pytest.mark.parametrize("features", FEATURE_SETS)
def test_tree_recursion_equals_sklearn_on_the_same_tree(features, missing):
    X, y = _data(missing=missing)
    tree = DecisionTreeRegressor(random_state=0).fit(X, y)
    sk = as_sklearn(tree)
    rng = np.random.default_rng(1)
    scattered = _f32_grid(rng, 60, len(features))
    axes = [np.unique(_f32_grid(rng, 7, 1)) for _ in features]
    product = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(features))
    for grid in (scattered, product):
        ours = tree._compute_partial_dependence_recursion(grid, features)
        assert ours.shape == (grid.shape[0],) and ours.dtype == np.float64
        theirs = sk._compute_partial_dependence_recursion(grid, np.asarray(features))
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("features", [[0], [1, 2]])
def test_partial_dependence_recursion_equals_sklearn(features):
    X, y = _data(missing=0.05)
    tree = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    values = {f: np.unique(_f32_grid(np.random.default_rng(f), 9, 1)) for f in features}
    ours = _on_grid(tree, X, features, values, method="recursion")
    theirs = _on_grid(as_sklearn(tree), X, features, values, method="recursion")
    np.testing.assert_allclose(ours["average"], theirs["average"], rtol=1e-12, atol=1e-12)
    # the default method for our tree is the recursion
    default = _on_grid(tree, X, features, values)
    np.testing.assert_array_equal(default["average"], ours["average"])


@pytest.mark.parametrize("features", [[0], [0, 1], [2, 3]])
def test_forest_recursion_is_the_mean_of_its_trees(features):
    X, y = _data(n=200, missing=0.05)
    forest = RandomForestRegressor(n_estimators=8, max_features=0.6, random_state=0,
                                   max_depth=7).fit(X, y)
    grid = _f32_grid(np.random.default_rng(2), 25, len(features))
    ours = forest._compute_partial_dependence_recursion(grid, features)
    per_tree = [as_sklearn(t)._compute_partial_dependence_recursion(grid, np.asarray(features))
                for t in forest.estimators_]
    np.testing.assert_allclose(ours, np.mean(per_tree, axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours, _forest_reference(forest, grid, features),
                               rtol=1e-12, atol=1e-12)
    # scikit-learn takes the recursion for it, by default and when asked
    values = {f: np.unique(grid[:, k]) for k, f in enumerate(features)}
    by_default = _on_grid(forest, X, features, values)
    asked = _on_grid(forest, X, features, values, method="recursion")
    np.testing.assert_array_equal(by_default["average"], asked["average"])
    flat = np.stack(np.meshgrid(*values.values(), indexing="ij"), -1).reshape(
        -1, len(features))
    np.testing.assert_allclose(asked["average"].ravel(),
                               forest._compute_partial_dependence_recursion(flat, features))


def test_nan_in_the_grid_follows_the_missing_direction():
    X, y = _data(missing=0.15)
    tree = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    grid = np.array([[np.nan, 0.5], [0.3, np.nan], [np.nan, np.nan], [0.1, 0.2]])
    expected = [_reference(tree.tree_, p, [0, 1]) for p in grid]
    np.testing.assert_allclose(tree._compute_partial_dependence_recursion(grid, [0, 1]),
                               expected, rtol=1e-12)


def _categorical_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 7, n).astype(float),
                         rng.normal(size=n)])
    effect = np.array([0.0, 2.0, -1.0, 0.5, 3.0, -2.0, 1.0])
    y = X[:, 0] * effect[X[:, 1].astype(int)] + X[:, 2] + 0.2 * rng.normal(size=n)
    X[rng.random(n) < 0.05, 1] = np.nan      # missing categories
    X[rng.random(n) < 0.05, 0] = np.nan
    return X, y


CATEGORICAL_GRID = np.array([[c, x] for c in [0, 1, 2, 3, 4, 5, 6, 9, 300, -1, 2.5, np.nan]
                             for x in [-1.0, 0.0, 0.7, np.nan]])


@pytest.mark.parametrize("features", [[1, 0], [1], [1, 2]])
def test_categorical_splits_against_plain_python(features):
    X, y = _categorical_data()
    tree = DecisionTreeRegressor(categorical_features=[1], min_category_samples=1,
                                 max_depth=8, random_state=0).fit(X, y)
    assert any(tree.tree_.categories_left(i) is not None
               for i in range(tree.tree_.node_count))
    grid = CATEGORICAL_GRID[:, :len(features)]
    if len(features) == 2 and features[1] == 2:
        grid = CATEGORICAL_GRID.copy()
    ours = tree._compute_partial_dependence_recursion(grid, features)
    expected = [_reference(tree.tree_, p, features) for p in grid]
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-12)


def test_forest_with_set_and_threshold_splits_of_a_category():
    X, y = _categorical_data(seed=1)
    forest = RandomForestRegressor(n_estimators=6, categorical_features=[1],
                                   categorical_set_fraction=0.5, min_category_samples=1,
                                   max_depth=6, random_state=0).fit(X, y)
    ours = forest._compute_partial_dependence_recursion(CATEGORICAL_GRID, [1, 0])
    np.testing.assert_allclose(ours, _forest_reference(forest, CATEGORICAL_GRID, [1, 0]),
                               rtol=1e-12, atol=1e-12)


def test_pandas_categories_are_coded_as_in_predict():
    pd = pytest.importorskip("pandas", reason="category columns of a DataFrame need "
                                              "pandas")
    X, y = _categorical_data()
    labels = np.array(list("abcdefg"), dtype=object)
    city = pd.Categorical(np.where(np.isnan(X[:, 1]), None,
                                   labels[np.nan_to_num(X[:, 1]).astype(int)]),
                          categories=list("abcdefg"))
    frame = pd.DataFrame({"x": X[:, 0], "city": city, "z": X[:, 2]})
    tree = DecisionTreeRegressor(min_category_samples=1, max_depth=6,
                                 random_state=0).fit(frame, y)
    coded = DecisionTreeRegressor(categorical_features=[1], min_category_samples=1,
                                  max_depth=6, random_state=0).fit(X, y)
    grid = np.array([["a", 0.5], ["e", -0.5], ["zz", 0.1]], dtype=object)
    np.testing.assert_allclose(
        tree._compute_partial_dependence_recursion(grid, [1, 0]),
        coded._compute_partial_dependence_recursion(
            np.array([[0.0, 0.5], [4.0, -0.5], [np.nan, 0.1]]), [1, 0]))


# ---------------------------------------------------------------- every estimator, defaults
def _estimators():
    return [DecisionTreeClassifier(max_depth=5, random_state=0),
            DecisionTreeRegressor(max_depth=5, random_state=0),
            RandomForestClassifier(n_estimators=5, max_depth=5, random_state=0),
            RandomForestRegressor(n_estimators=5, max_depth=5, random_state=0),
            RotationForestClassifier(n_estimators=3, max_depth=5, random_state=0),
            RotationForestRegressor(n_estimators=3, max_depth=5, random_state=0)]


def _brute_by_hand(est, X, feature, values):
    """The mean prediction (the positive class's probability for a classifier) with the
    feature set to each value."""
    out = []
    for v in values:
        Xv = X.copy()
        Xv[:, feature] = v
        pred = est.predict_proba(Xv)[:, 1] if hasattr(est, "classes_") else est.predict(Xv)
        out.append(pred.mean())
    return np.array(out)


@pytest.mark.parametrize("est", _estimators(), ids=lambda e: type(e).__name__)
def test_defaults_work_on_every_estimator(est):
    X, y = _data(n=150)
    classifier = "Classifier" in type(est).__name__
    est = clone(est).fit(X, (y > 0).astype(int) if classifier else y)
    result = partial_dependence(est, X, [0], grid_resolution=10)
    values = result["grid_values"][0]
    assert result["average"].shape == (1, values.shape[0])
    pair = partial_dependence(est, X, [(0, 1)], grid_resolution=6)
    assert pair["average"].shape == (1, 6, 6)
    brute = partial_dependence(est, X, [0], grid_resolution=10, method="brute")
    np.testing.assert_allclose(brute["average"][0], _brute_by_hand(est, X, 0, values),
                               rtol=1e-10, atol=1e-12)
    recursive = isinstance(est, (DecisionTreeRegressor, RandomForestRegressor))
    if recursive:
        # the default is the recursion, which equals scikit-learn's on the same trees
        asked = partial_dependence(est, X, [0], grid_resolution=10, method="recursion")
        np.testing.assert_array_equal(result["average"], asked["average"])
        trees = [est] if isinstance(est, DecisionTreeRegressor) else est.estimators_
        grid = values.astype(np.float32).astype(float).reshape(-1, 1)
        sk = np.mean([as_sklearn(t)._compute_partial_dependence_recursion(grid, np.array([0]))
                      for t in trees], axis=0)
        np.testing.assert_allclose(est._compute_partial_dependence_recursion(grid, [0]), sk,
                                   rtol=1e-12, atol=1e-12)
    else:
        # classifiers and rotation forests: brute force
        np.testing.assert_array_equal(result["average"], brute["average"])


@pytest.mark.parametrize("est", _estimators(), ids=lambda e: type(e).__name__)
def test_display_draws_every_estimator(est, plt):
    """PartialDependenceDisplay draws the curves of partial_dependence, one and two
    features, for every estimator."""
    X, y = _data(n=150)
    classifier = "Classifier" in type(est).__name__
    est = clone(est).fit(X, (y > 0).astype(int) if classifier else y)
    display = PartialDependenceDisplay.from_estimator(est, X, [0, (0, 1)],
                                                      grid_resolution=5)
    assert display.pd_results[0]["average"].shape == (1, 5)
    np.testing.assert_array_equal(
        display.pd_results[0]["average"],
        partial_dependence(est, X, [0], grid_resolution=5)["average"])
    assert len(plt.gcf().axes) >= 2


@pytest.mark.parametrize("kind", ["individual", "both"])
def test_individual_curves_use_brute_force(kind):
    X, y = _data(n=100)
    forest = RandomForestRegressor(n_estimators=3, max_depth=4, random_state=0).fit(X, y)
    result = partial_dependence(forest, X, [0], kind=kind, grid_resolution=5)
    assert result["individual"].shape == (1, 100, 5)


# ---------------------------------------------------------------- registrations, exporters
def test_registrations():
    assert isinstance(DecisionTreeRegressor(), SkTreeRegressor)
    assert isinstance(RandomForestRegressor(), SkForestRegressor)
    for est in (RandomForestClassifier(), RotationForestRegressor(),
                RotationForestClassifier()):
        assert not isinstance(est, SkForestRegressor)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_sklearn_exporters_accept_our_trees(cls):
    X, y = _data(n=80)
    tree = cls(max_depth=3, random_state=0).fit(X, (y > 0).astype(int)
                                                if cls is DecisionTreeClassifier else y)
    text = export_text(tree)
    assert text.count("feature_") >= 2
    assert export_text(tree) == export_text(as_sklearn(tree))
    assert export_graphviz(tree).startswith("digraph Tree")
    assert export_graphviz(tree) == export_graphviz(as_sklearn(tree))


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_plot_tree_draws_our_trees(cls, plt):
    """scikit-learn's plot_tree draws a box per node of our tree, with the texts it
    draws for the same tree as a scikit-learn tree."""
    X, y = _data(n=80)
    tree = cls(max_depth=3, random_state=0).fit(X, (y > 0).astype(int)
                                                if cls is DecisionTreeClassifier else y)
    ours = [a.get_text() for a in plot_tree(tree)]
    plt.close("all")
    theirs = [a.get_text() for a in plot_tree(as_sklearn(tree))]
    assert sum("samples = " in text for text in ours) == tree.tree_.node_count
    assert ours == theirs


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("cls", [DecisionTreeRegressor, RandomForestRegressor])
def test_recursion_errors(cls):
    with pytest.raises(NotFittedError):
        cls()._compute_partial_dependence_recursion(np.zeros((2, 1)), [0])
    X, y = _data(n=60)
    est = cls(max_depth=3, random_state=0).fit(X, y)
    if cls is RandomForestRegressor:
        est.set_params(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match=r"grid must have shape \(n_points, 2\)"):
        est._compute_partial_dependence_recursion(np.zeros((5, 3)), [0, 1])
    with pytest.raises(ValueError, match=r"target_features must lie in \[0, 3\]"):
        est._compute_partial_dependence_recursion(np.zeros((5, 1)), [4])
    with pytest.raises(ValueError, match="recursion.*only applies when 'kind'"):
        partial_dependence(est, X, [0], method="recursion", kind="individual")


@pytest.mark.parametrize("cls", [RotationForestRegressor, RotationForestClassifier,
                                 RandomForestClassifier, DecisionTreeClassifier])
def test_recursion_is_refused_where_it_does_not_apply(cls):
    X, y = _data(n=60)
    est = cls(max_depth=3, random_state=0)
    if "Forest" in cls.__name__:
        est.set_params(n_estimators=2)
    est.fit(X, (y > 0).astype(int) if "Classifier" in cls.__name__ else y)
    with pytest.raises(ValueError, match="Only the following estimators support the "
                                         "'recursion' method"):
        partial_dependence(est, X, [0], method="recursion")
    assert not hasattr(est, "_compute_partial_dependence_recursion")


def test_category_codes_in_an_array_grid_are_read_as_predict_reads_them():
    """A tree fitted on a DataFrame's category column predicts arrays of its codes; a grid
    built from such an array holds codes, a grid built from the DataFrame its labels:
    both give the partial dependence that brute force gives on the same input."""
    pd = pytest.importorskip("pandas", reason="category columns of a DataFrame need "
                                              "pandas")
    from sklearn.inspection import partial_dependence
    rng = np.random.default_rng(0)
    c = rng.choice([10, 20, 30], 300)
    frame = pd.DataFrame({"a": rng.normal(size=300),
                          "c": pd.Categorical(c, categories=[10, 20, 30])})
    est = DecisionTreeRegressor(max_depth=4, random_state=0).fit(frame, frame.a + (c == 20) * 5)
    codes = frame.assign(c=frame.c.cat.codes.astype(float)).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # feature names absent from the array
        from_codes = partial_dependence(est, codes, [1], categorical_features=[1],
                                        method="recursion")["average"]
        from_labels = partial_dependence(est, frame, [1], categorical_features=[1],
                                         method="recursion")["average"]
    np.testing.assert_allclose(from_codes, from_labels, atol=1e-12)
    assert from_codes[0, 1] > 4 > from_codes[0, 0]


def test_a_feature_listed_twice_is_routed_by_its_first_column():
    """As scikit-learn's recursion on the same tree: the duplicate column changes
    nothing."""
    from sklearn.inspection import partial_dependence
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(300, 4)) * 8) / 8
    y = X[:, 2] * 3 + X[:, 0]
    tree = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y)
    ours = partial_dependence(tree, X, [(2, 2)], method="recursion", grid_resolution=5)
    theirs = partial_dependence(as_sklearn(tree), X, [(2, 2)], method="recursion",
                                grid_resolution=5)
    np.testing.assert_allclose(ours["average"], theirs["average"], atol=1e-12)
