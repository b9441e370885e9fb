"""rotforest.explain against independent references: Shapley values by enumerating every
coalition of a few features (the interventional game through the model's own predict on
mixed rows; the path-dependent game by a plain-Python walk of the trees), and shap's own
TreeExplainer on node-for-node copies of our trees as scikit-learn trees.

The enumerations need nothing beyond rotforest's own dependencies; only the comparisons
with shap (and the DataFrame of the Explanation test) are skipped when shap (pandas) is
not installed, and ``to_shap``'s error without shap is checked whatever is installed."""
import sys
from itertools import combinations
from math import factorial

import numpy as np
import pytest

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                       ExtraTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor, explain)
from rotforest.explain import Explanation
from sklearn_trees import as_sklearn
from helpers import trees_of

N_FEATURES = 5


def _data(seed, n=240, n_features=N_FEATURES, classes=3, nan=0.0, categorical=None):
    """Rows exact in float32 (values on a grid) with an interaction, optionally NaN cells
    and an integer-coded categorical column."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, n_features)) * 8) / 8
    if categorical is not None:
        X[:, categorical] = rng.integers(0, 6, n)
    score = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * (X[:, 3] > 0)
    if categorical is not None:
        score += np.isin(X[:, categorical], [1, 4]) * 1.5
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    y_reg = score + 0.3 * rng.normal(size=n)
    y_cls = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y_cls, y_reg


def _shapley(game, n_features):
    """Exact Shapley values of game(S) (S: a tuple of feature indices; the game returns an
    array of outputs) by enumerating every coalition."""
    cache = {}

    def v(S):
        if S not in cache:
            cache[S] = np.asarray(game(S), dtype=np.float64)
        return cache[S]

    phi = [0.0] * n_features
    for i in range(n_features):
        others = [j for j in range(n_features) if j != i]
        total = 0.0
        for size in range(n_features):
            weight = factorial(size) * factorial(n_features - size - 1) / factorial(n_features)
            for S in combinations(others, size):
                total = total + weight * (v(tuple(sorted(S + (i,)))) - v(S))
        phi[i] = total
    return np.array(phi), v(())


def _output(est, X):
    return est.predict_proba(X) if hasattr(est, "classes_") else est.predict(X)[:, None]


def _interventional_reference(est, x, background):
    """Shapley values of v(S) = mean over b of the model's output on (x on S, b elsewhere),
    the model run by its own predict."""
    def game(S):
        rows = background.copy()
        rows[:, list(S)] = x[list(S)]
        return _output(est, rows).mean(axis=0)
    return _shapley(game, x.size)


def _goes_left(tree, node, value):
    """The test of one node on one value, written out (an independent reading of it)."""
    if np.isnan(tree.threshold[node]):          # categorical: a set of codes
        codes = tree.categories_left(node)
        if (np.isnan(value) or value < 0 or value >= 64 * tree.code_words
                or value != int(value)):
            return bool(tree.missing_go_to_left[node])
        return int(value) in set(codes.tolist())
    if np.isnan(value):
        return bool(tree.missing_go_to_left[node])
    return value <= tree.threshold[node]


def _reads(est, tree_index, column):
    """The original features that input column ``column`` of a tree reads."""
    if not hasattr(est, "rotations_"):
        return {column}
    R = est.rotations_[tree_index].tocsc()
    if column < R.shape[1]:
        return set(R.indices[R.indptr[column]:R.indptr[column + 1]].tolist())
    extra = column - R.shape[1]
    if est._missing_fitted == "impute":
        if extra < len(est.missing_features_):
            return {int(est.missing_features_[extra])}
        extra -= len(est.missing_features_)
    return {int(np.flatnonzero(est._set_columns())[extra])}


def _tree_inputs(est, X):
    """The rows each tree reads (for a rotation forest: its axes and extra columns)."""
    if hasattr(est, "rotations_"):
        return [rows for _, rows in est._tree_rows(X)]
    trees = trees_of(est) if hasattr(est, "estimators_") else [est]
    return [np.asarray(X, dtype=np.float64)] * len(trees)


def _path_reference(est, x):
    """Shapley values of the path-dependent game, the game evaluated by a recursive walk
    of every tree: a node whose features are all in S follows x; otherwise its children
    are averaged by training cover."""
    trees = trees_of(est) if hasattr(est, "estimators_") else [est]
    inputs = [rows[0] for rows in _tree_inputs(est, x[None, :])]

    def tree_value(k, tree, row, S):
        def walk(node):
            if tree.children_left[node] == -1:
                return tree.value[node, 0, :]
            left, right = tree.children_left[node], tree.children_right[node]
            if _reads(est, k, tree.feature[node]) <= set(S):
                return walk(left if _goes_left(tree, node, row[tree.feature[node]])
                            else right)
            w = tree.weighted_n_node_samples
            return (w[left] * walk(left) + w[right] * walk(right)) / w[node]
        return walk(0)

    def game(S):
        return np.mean([tree_value(k, t.tree_, inputs[k], S)
                        for k, t in enumerate(trees)], axis=0)
    return _shapley(game, x.size)


CASES = {
    "tree-cls": lambda: DecisionTreeClassifier(max_depth=6, random_state=0),
    "tree-reg": lambda: DecisionTreeRegressor(max_depth=6, random_state=0),
    "forest-cls": lambda: RandomForestClassifier(n_estimators=4, max_depth=5,
                                                 random_state=0),
    "forest-reg": lambda: RandomForestRegressor(n_estimators=4, max_depth=5,
                                                random_state=0),
    "rotation-cls": lambda: RotationForestClassifier(n_estimators=3, max_depth=4,
                                                     random_state=0),
    "rotation-reg": lambda: RotationForestRegressor(n_estimators=3, max_depth=4,
                                                    random_state=0),
    # random cuts: thresholds anywhere between two values, and trees of every sample
    "extra-tree-cls": lambda: ExtraTreeClassifier(max_depth=6, random_state=0),
    "extra-tree-reg": lambda: ExtraTreeRegressor(max_depth=6, random_state=0),
    "extra-forest-cls": lambda: ExtraTreesClassifier(n_estimators=4, max_depth=5,
                                                     random_state=0),
    "extra-forest-reg": lambda: ExtraTreesRegressor(n_estimators=4, max_depth=5,
                                                    random_state=0),
}


def _fit(name, X, y_cls, y_reg, **params):
    est = CASES[name]().set_params(**params)
    return est.fit(X, y_cls if name.endswith("cls") else y_reg)


def _check(est, X, background, rows=3):
    ex = explain(est, X[:rows], background=background)
    values = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    base = ex.base_values if ex.base_values.ndim == 2 else ex.base_values[:, None]
    for r in range(rows):
        if background is None:
            ref, empty = _path_reference(est, X[r])
        else:
            ref, empty = _interventional_reference(est, X[r], background)
        np.testing.assert_allclose(values[r], ref, atol=1e-9, rtol=0)
        np.testing.assert_allclose(base[r], empty, atol=1e-9, rtol=0)
    # additivity against the model's own output
    np.testing.assert_allclose(values.sum(axis=1) + base, _output(est, X[:rows]),
                               atol=1e-9, rtol=0)
    return ex


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("game", ["path", "interventional"])
def test_matches_enumeration(name, game):
    X, y_cls, y_reg = _data(0)
    est = _fit(name, X, y_cls, y_reg)
    _check(est, X[200:], None if game == "path" else X[:12])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("game", ["path", "interventional"])
def test_missing_values_match_enumeration(name, game):
    X, y_cls, y_reg = _data(1, nan=0.15)
    est = _fit(name, X, y_cls, y_reg)
    test = X[200:].copy()
    test[0, 1] = np.nan        # a row with a missing value in a used feature
    _check(est, test, None if game == "path" else X[:12])


@pytest.mark.parametrize("game", ["path", "interventional"])
def test_rotation_impute_matches_enumeration(game):
    X, y_cls, _ = _data(2, nan=0.15)
    est = RotationForestClassifier(n_estimators=3, max_depth=4, missing="impute",
                                   random_state=0).fit(X, y_cls)
    _check(est, X[200:], None if game == "path" else X[:12])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("game", ["path", "interventional"])
def test_categorical_matches_enumeration(name, game):
    X, y_cls, y_reg = _data(3, categorical=4, nan=0.05)
    params = {"categorical_features": [4]}
    if name.startswith("rotation"):
        params["min_category_samples"] = 5      # trees also split on sets of codes
    est = _fit(name, X, y_cls, y_reg, **params)
    test = X[200:].copy()
    test[1, 4] = 7                              # a code never seen in training
    _check(est, test, None if game == "path" else X[:12])


def test_rotation_groups_of_two_and_wider_data():
    # groups of 2 over 6 features; a block's members interact inside one axis
    X, y_cls, _ = _data(4, n_features=6)
    est = RotationForestClassifier(n_estimators=2, max_depth=4, group_size=2,
                                   random_state=0).fit(X, y_cls)
    _check(est, X[200:], None, rows=2)
    _check(est, X[200:], X[:8], rows=2)


@pytest.fixture
def shap():
    """shap, for the tests that compare with it or convert to its Explanation."""
    return pytest.importorskip("shap", reason="compares with shap (pip install shap); "
                                              "the enumeration tests need no shap")


@pytest.mark.parametrize("classifier", [True, False])
def test_path_dependent_equals_shap_on_the_same_trees(shap, classifier):
    """shap's TreeExplainer reads a node-for-node copy of each of our trees."""
    X, y_cls, y_reg = _data(5, n=600, n_features=8)
    forest = (RandomForestClassifier if classifier else RandomForestRegressor)(
        n_estimators=5, random_state=0).fit(X, y_cls if classifier else y_reg)
    rows = X[:50]
    ours = explain(forest, rows)
    values, base = 0.0, 0.0
    for tree in trees_of(forest):
        sk = as_sklearn(tree)
        explainer = shap.TreeExplainer(sk, feature_perturbation="tree_path_dependent")
        values = values + np.asarray(explainer.shap_values(rows, check_additivity=False))
        base = base + np.asarray(explainer.expected_value)
    values, base = values / len(trees_of(forest)), base / len(trees_of(forest))
    np.testing.assert_allclose(ours.values, values, atol=1e-9, rtol=0)
    np.testing.assert_allclose(ours.base_values[0], base, atol=1e-9, rtol=0)


def test_interventional_equals_shap_on_the_same_tree(shap):
    X, _, y_reg = _data(6, n=400, n_features=8)
    tree = DecisionTreeRegressor(max_depth=8, random_state=0).fit(X, y_reg)
    explainer = shap.TreeExplainer(as_sklearn(tree), data=X[:30],
                                   feature_perturbation="interventional")
    rows = X[300:340]
    ref = explainer.shap_values(rows, check_additivity=False)
    ours = explain(tree, rows, background=X[:30])
    # shap's interventional kernel is itself off by about 1e-7 (its own additivity error
    # on these rows, measured 1.2e-7 with shap 0.51): the values agree to that, and ours
    # add up to the prediction exactly (and equal enumeration to 1e-9, tests above)
    shap_error = np.abs(ref.sum(axis=1) + explainer.expected_value - tree.predict(rows)).max()
    np.testing.assert_allclose(ours.values, ref, atol=max(10 * shap_error, 1e-9), rtol=0)
    np.testing.assert_allclose(ours.base_values, explainer.expected_value, atol=1e-9)
    ours_error = np.abs(ours.values.sum(axis=1) + ours.base_values - tree.predict(rows)).max()
    assert ours_error < 1e-12


def test_explanation_object():
    """An Explanation of a DataFrame's rows carries its column names, the classes as
    output names and the rows' values, whatever shap's presence."""
    pd = pytest.importorskip("pandas", reason="a DataFrame's names need pandas")
    X, y_cls, _ = _data(7)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(N_FEATURES)])
    labels = np.array(["low", "mid", "high"])[y_cls]
    est = RandomForestClassifier(n_estimators=5, random_state=0).fit(frame, labels)
    ex = explain(est, frame.iloc[:4], n_jobs=2)
    assert isinstance(ex, Explanation)
    assert ex.values.shape == (4, N_FEATURES, 3)
    assert ex.base_values.shape == (4, 3)
    assert ex.feature_names == list(frame.columns)
    assert ex.output_names == list(est.classes_)
    np.testing.assert_array_equal(ex.data, X[:4])
    # the same forest fitted on the array explains the same values
    plain = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(explain(plain, X[:4]).values, ex.values)


def test_to_shap(shap):
    """to_shap hands shap the very arrays and names of the Explanation."""
    X, y_cls, _ = _data(7)
    labels = np.array(["low", "mid", "high"])[y_cls]
    est = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, labels)
    ex = explain(est, X[:4])
    sx = ex.to_shap()
    assert isinstance(sx, shap.Explanation)
    np.testing.assert_array_equal(sx.values, ex.values)
    np.testing.assert_array_equal(sx.base_values, ex.base_values)
    np.testing.assert_array_equal(sx.data, ex.data)
    assert list(sx.feature_names) == list(ex.feature_names)
    assert list(sx.output_names) == [str(c) for c in est.classes_]


def test_to_shap_without_shap_says_what_to_install(monkeypatch):
    """Without shap (its import made to fail, so that this runs whether or not it is
    installed), explain still works and to_shap raises an ImportError naming the extra
    to install; only to_shap needs shap."""
    monkeypatch.setitem(sys.modules, "shap", None)      # "import shap" raises ImportError
    X, _, y_reg = _data(7)
    est = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y_reg)
    ex = explain(est, X[:2])
    with pytest.raises(ImportError,
                       match=r'to_shap needs shap: pip install "rotforest\[shap\]"'):
        ex.to_shap()


def test_threads_give_the_same_values(monkeypatch):
    import importlib
    monkeypatch.setattr(importlib.import_module("rotforest.explain"), "_THREADED_VISITS", 0)
    X, y_cls, _ = _data(8, n=400)
    est = RotationForestClassifier(n_estimators=6, random_state=0).fit(X, y_cls)
    for background in (None, X[:10]):
        one = explain(est, X[:40], background=background, n_jobs=1).values
        two = explain(est, X[:40], background=background, n_jobs=2).values
        np.testing.assert_array_equal(one, two)


def test_errors():
    X, y_cls, y_reg = _data(9)
    with pytest.raises(TypeError, match="rotforest estimator"):
        explain(object(), X)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        explain(RandomForestRegressor(), X)
    est = DecisionTreeRegressor(max_depth=3).fit(X, y_reg)
    with pytest.raises(ValueError, match="features"):
        explain(est, X[:, :3])
    with pytest.raises(ValueError, match="features"):
        explain(est, X, background=X[:, :3])
    with pytest.raises(ValueError, match="background"):
        explain(est, X, background=X[:0])
    with pytest.raises(TypeError, match="n_jobs"):
        explain(est, X, n_jobs=True)
    with pytest.raises(ValueError, match="n_jobs"):
        explain(est, X, n_jobs=0)


def test_benchmark_script_quick(shap, capsys):
    """benchmarks/bench_explain.py runs and our values add up in every row it prints."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "benchmarks", "bench_explain.py")
    spec = importlib.util.spec_from_file_location("_bench_explain", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--quick", "--repeat", "1"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines()
            if line.startswith("| classification") or line.startswith("| regression")]
    assert len(rows) == 4
    for line in rows:
        assert float(line.split("|")[5]) < 1e-9        # our additivity error
