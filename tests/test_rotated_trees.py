"""A rotation forest's trees as the forest's users read them: ``estimators_``,
``forest[i]`` and ``iter(forest)`` take the user's X (averaged, they are the forest's
output), the trees themselves stay as ``rotated_estimators_``; and every bootstrapped
forest's in-bag counts are what scikit-learn's rule regenerates from each tree's
``random_state`` (what forestci reads), checked against what the trees were grown on."""
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression

from helpers import optional_module
from rotforest import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                       RandomForestRegressor, RotationForestClassifier,
                       RotationForestQuantileRegressor, RotationForestRegressor)
from rotforest._rotated_tree import RotatedTreeClassifier, RotatedTreeRegressor

forestci = optional_module("forestci")
needs_forestci = pytest.mark.skipif(forestci is None, reason="forestci is not installed")


@pytest.fixture(scope="module")
def classification():
    X, y = make_classification(240, 7, n_informative=4, n_classes=3, random_state=0)
    X[::7, 2] = np.nan                                 # missing values are routed
    return X, y


@pytest.fixture(scope="module")
def regression():
    X, y = make_regression(240, 7, noise=5.0, random_state=0)
    return X, y


def _mean(values):
    return np.mean(values, axis=0)


@pytest.mark.parametrize("params", [{}, dict(bootstrap=True, max_rotated_features=3),
                                    dict(missing="impute", rotation="gaussian")])
def test_classifier_trees_average_to_the_forest(params, classification):
    X, y = classification
    forest = RotationForestClassifier(n_estimators=7, random_state=0, **params).fit(X, y)
    trees = forest.estimators_
    assert len(trees) == len(forest) == 7
    assert all(isinstance(t, RotatedTreeClassifier) for t in trees)
    np.testing.assert_allclose(_mean([t.predict_proba(X) for t in trees]),
                               forest.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(_mean([t.predict_proba(X) for t in forest]),
                               forest.predict_proba(X), rtol=0, atol=1e-12)
    # the trees on their rotated rows give the same leaves as the wrappers on X
    np.testing.assert_array_equal(np.column_stack([t.apply(X) for t in trees]),
                                  forest.apply(X))
    for i in (0, 6):
        assert forest[i].estimator_ is forest.rotated_estimators_[i]
        assert forest[i].rotation_ is forest.rotations_[i]
        np.testing.assert_array_equal(forest[i].classes_, forest.classes_)
        # one tree's labels are its own probabilities' argmax, in the forest's labels
        np.testing.assert_array_equal(
            forest[i].predict(X), forest.classes_[forest[i].predict_proba(X).argmax(1)])
    assert forest[0].decision_path(X).shape == (len(X), forest[0].estimator_.tree_.node_count)


def test_regressor_trees_average_to_the_forest_with_several_outputs(regression):
    X, y = regression
    Y = np.column_stack([y, y ** 2 / 100])
    forest = RotationForestRegressor(n_estimators=6, random_state=1).fit(X, Y)
    assert all(isinstance(t, RotatedTreeRegressor) for t in forest)
    np.testing.assert_allclose(_mean([t.predict(X) for t in forest.estimators_]),
                               forest.predict(X), rtol=1e-12, atol=1e-9)
    assert forest[0].predict(X).shape == Y.shape
    assert forest[0].score(X, Y) == pytest.approx(
        __import__("sklearn.metrics").metrics.r2_score(Y, forest[0].predict(X)))


def test_trees_take_dataframes_with_names_and_categories(classification):
    pd = pytest.importorskip("pandas")
    X, y = classification
    frame = pd.DataFrame(X[:, :6], columns=[f"f{i}" for i in range(6)])
    frame["colour"] = pd.Categorical(np.array(["red", "green", "blue"])[y % 3])
    forest = RotationForestClassifier(n_estimators=5, min_category_samples=5,
                                      random_state=0).fit(frame, y)
    np.testing.assert_allclose(_mean([t.predict_proba(frame) for t in forest]),
                               forest.predict_proba(frame), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(forest[0].feature_names_in_, frame.columns)
    with pytest.raises(ValueError, match="feature names"):
        forest[0].predict(frame[frame.columns[::-1]])


def test_tree_importances_are_the_forests_shares(regression):
    X, y = regression
    forest = RotationForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    per_tree = [t.feature_importances_ for t in forest]
    for imp in per_tree:
        assert imp.shape == (X.shape[1],) and imp.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(_mean(per_tree), forest.feature_importances_, atol=1e-12)


def test_wrappers_refuse_fit_and_notice_a_refit(regression):
    X, y = regression
    forest = RotationForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    tree = forest[1]
    with pytest.raises(TypeError, match="fit the forest"):
        tree.fit(X, y)
    assert isinstance(clone(tree), RotatedTreeRegressor)      # a clone is unfitted
    copy = pickle.loads(pickle.dumps(tree))
    np.testing.assert_allclose(copy.predict(X), tree.predict(X), rtol=0, atol=0)
    forest.set_params(random_state=5).fit(X, y)
    with pytest.raises(ValueError, match="refitted"):
        tree.predict(X)
    with pytest.raises(AttributeError):
        RotationForestRegressor().estimators_


def test_forests_pickled_with_raw_trees_load(regression):
    """Forests pickled before the wrappers held their trees under ``estimators_``."""
    X, y = regression
    forest = RotationForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    state = forest.__getstate__()
    state["estimators_"] = state.pop("rotated_estimators_")
    old = RotationForestRegressor.__new__(RotationForestRegressor)
    old.__setstate__(state)
    np.testing.assert_array_equal(old.predict(X), forest.predict(X))
    assert "estimators_" not in vars(old)


def test_a_subset_of_its_own_trees_can_be_given_back(regression):
    """forestci's calibration gives a copy of the forest half of its trees."""
    X, y = regression
    forest = RotationForestRegressor(n_estimators=6, bootstrap=True, random_state=0).fit(X, y)
    seeds = [t.random_state for t in forest]
    part = clone(forest).fit(X, y)
    part.estimators_ = [part.estimators_[i] for i in (4, 1, 3)]
    assert [t.random_state for t in part] == [seeds[i] for i in (4, 1, 3)]
    np.testing.assert_allclose(part.predict(X),
                               _mean([forest[i].predict(X) for i in (4, 1, 3)]),
                               rtol=1e-12, atol=1e-9)
    for drawn, i in zip(part.estimators_samples_, (4, 1, 3)):
        np.testing.assert_array_equal(drawn, forest.estimators_samples_[i])
    with pytest.raises(ValueError, match="own estimators_"):
        part.estimators_ = forest.estimators_[:2]
    with pytest.raises(ValueError, match="own estimators_"):
        part.estimators_ = list(part.rotated_estimators_)
    quantile = RotationForestQuantileRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(AttributeError, match="cannot be replaced"):
        quantile.estimators_ = quantile.estimators_[:2]


def _root_counts(tree, target, classifier):
    """What the tree's root holds: the weighted count of each class, or the weighted
    mean of the target (the tree's own record of the rows it was grown on)."""
    value = tree.tree_.value[0]
    n = tree.tree_.weighted_n_node_samples[0]
    return (np.asarray(value).ravel() * (n if value.sum() <= 1 + 1e-9 else 1.0)
            if classifier else float(np.ravel(value)[0]))


_BOOTSTRAPPED = [RandomForestClassifier, ExtraTreesClassifier, RotationForestClassifier,
                 RandomForestRegressor, ExtraTreesRegressor, RotationForestRegressor]


def _sklearns_draw(seed, n, draws):
    """scikit-learn's forests' rule for a tree's sample (sklearn.ensemble._forest.
    _generate_sample_indices), written out."""
    return np.random.RandomState(seed).randint(0, n, draws)


@pytest.mark.parametrize("cls", _BOOTSTRAPPED)
@pytest.mark.parametrize("max_samples", [None, 0.6, 50])
def test_in_bag_counts_are_sklearns_rule_and_what_the_trees_grew_on(
        cls, max_samples, classification, regression):
    classifier = "Classifier" in cls.__name__
    X, y = classification if classifier else regression
    X = np.nan_to_num(X)
    n = len(y)
    forest = cls(n_estimators=5, bootstrap=True, max_samples=max_samples,
                 random_state=2).fit(X, y)
    draws = n if max_samples is None else (
        max_samples if isinstance(max_samples, int) else int(max_samples * n))
    trees = getattr(forest, "rotated_estimators_", forest.estimators_)
    for t, (wrapper, tree, drawn) in enumerate(zip(forest.estimators_, trees,
                                                   forest.estimators_samples_)):
        expected = _sklearns_draw(wrapper.random_state, n, draws)
        np.testing.assert_array_equal(drawn, expected)
        counts = np.bincount(expected, minlength=n)
        if classifier:
            held = np.bincount(y, weights=counts, minlength=3)
            np.testing.assert_allclose(_root_counts(tree, y, True), held, rtol=1e-12)
        else:
            assert _root_counts(tree, y, False) == pytest.approx(counts @ y / counts.sum(),
                                                                 rel=1e-12, abs=1e-9)
    if forestci is not None:
        inbag = forestci.calc_inbag(n, forest)
        np.testing.assert_array_equal(
            inbag, np.column_stack([np.bincount(d, minlength=n)
                                    for d in forest.estimators_samples_]))


@needs_forestci
@pytest.mark.parametrize("cls", [RotationForestRegressor, RandomForestRegressor])
def test_forestci_variance_reads_the_forests_own_trees(cls, regression):
    """random_forest_error is forestci's formula on the true in-bag counts (regenerated
    by scikit-learn's rule) and the trees' predictions on X (whose mean is the
    forest's); its calibration, which gives a copy of the forest half of its trees,
    runs."""
    X, y = regression
    forest = cls(n_estimators=30, bootstrap=True, random_state=0).fit(X, y)
    variance = forestci.random_forest_error(forest, X.shape, X[:25], calibrate=False)
    inbag = np.column_stack([
        np.bincount(_sklearns_draw(t.random_state, len(y), len(y)), minlength=len(y))
        for t in forest]).astype(float)
    pred = np.array([tree.predict(X[:25]) for tree in forest])          # trees x rows
    np.testing.assert_allclose(pred.mean(0), forest.predict(X[:25]), rtol=1e-12)
    centered = (pred - pred.mean(0)).T
    raw = forestci._core_computation(X.shape, X[:25], inbag, centered, 30)
    np.testing.assert_allclose(
        variance, forestci._bias_correction(raw, inbag, centered, 30), rtol=1e-10)
    calibrated = forestci.random_forest_error(forest, X.shape, X[:25])
    assert calibrated.shape == (25,) and np.all(np.isfinite(calibrated))


def test_export_text_refuses_a_wrapper_and_takes_the_tree(regression):
    from rotforest import export_text
    X, y = regression
    forest = RotationForestRegressor(n_estimators=2, max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="rotated_estimators_"):
        export_text(forest[0])
    assert "feature_" in export_text(forest.rotated_estimators_[0])
    with pytest.raises(AttributeError, match="rotated axes"):
        forest[0].tree_
    assert forest[0].max_depth == 2 and forest[0].max_features_ == X.shape[1]
