"""Warm starts and refits of a fitted forest: more trees equal one fit; each tree keeps
the draw it was grown on (out-of-bag votes follow them, also in forests pickled before
draws were recorded); settings a warm start cannot honour (other features, feature names,
draws, scaling, categorical features, missing-value mode) are refused and leave the
fitted forest as it was; a warm fit that adds no tree still checks every setting; a fit
without oob_score forgets an earlier out-of-bag result."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification

from helpers import tie_free_data
from rotforest import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                       RandomForestRegressor, RotationForestClassifier,
                       RotationForestRegressor)

FORESTS = [RandomForestClassifier, RotationForestClassifier]
ALL_FORESTS = [RandomForestClassifier, RotationForestClassifier, RandomForestRegressor,
               RotationForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor]


@pytest.fixture(scope="module")
def three_class_data():
    return make_classification(n_samples=1500, n_features=12, n_informative=6,
                               n_classes=3, n_clusters_per_class=1, random_state=0)


def _fitted_state(forest, X):
    out = forest.predict(X)
    return out, len(forest.estimators_), forest.estimator_.get_params()


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
def test_warm_start_equals_one_fit(three_class_data):
    X, y = three_class_data
    once = RandomForestClassifier(n_estimators=10, random_state=5, oob_score=True).fit(X, y)
    warm = RandomForestClassifier(n_estimators=4, random_state=5, warm_start=True,
                                  oob_score=True).fit(X, y)
    first = warm.estimators_[0]
    warm.set_params(n_estimators=10).fit(X, y)
    assert warm.estimators_[0] is first
    np.testing.assert_array_equal(warm.predict_proba(X), once.predict_proba(X))
    assert warm.oob_score_ == once.oob_score_
    with pytest.raises(ValueError, match="n_estimators"):
        warm.set_params(n_estimators=5).fit(X, y)


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("n_features", [2, 6])
def test_warm_start_refuses_another_number_of_features(cls, binary_data, n_features):
    X, y = binary_data
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    before = forest.predict_proba(X)
    other = np.random.default_rng(1).normal(size=(300, n_features))
    for n_estimators in (3, 6):           # adding trees, and adding none
        with pytest.raises(ValueError, match=f"{n_features} features.*expecting 4"):
            forest.set_params(n_estimators=n_estimators).fit(other, y)
        assert forest.n_features_in_ == 4 and len(forest.estimators_) == 3
        np.testing.assert_array_equal(forest.predict_proba(X), before)


@pytest.mark.parametrize("cls", FORESTS)
def test_warm_start_keeps_and_checks_feature_names(cls, binary_data):
    pd = pytest.importorskip("pandas")
    X, y = binary_data
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(frame, y)
    with pytest.raises(ValueError, match="feature names"):
        forest.set_params(n_estimators=5).fit(frame.rename(columns={"a": "z"}), y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # "X does not have valid feature names"
        forest.set_params(n_estimators=3).fit(X, y)    # adds no tree
    assert list(forest.feature_names_in_) == ["a", "b", "c", "d"]
    assert len(forest.estimators_) == 3


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("change", [dict(max_samples=0.5), dict(rows=200)])
def test_warm_start_with_oob_score_refuses_other_draws(cls, binary_data, change):
    X, y = binary_data
    forest = cls(n_estimators=3, bootstrap=True, oob_score=True, warm_start=True,
                 random_state=0).fit(X, y)
    before = forest.oob_decision_function_.copy()
    change = dict(change)          # the parameter's dict is shared between the cases
    rows = change.pop("rows", 300)
    forest.set_params(n_estimators=5, **change)
    with pytest.raises(ValueError, match="warm_start with oob_score"):
        forest.fit(X[:rows], y[:rows])
    assert len(forest.estimators_) == 3
    np.testing.assert_array_equal(forest.oob_decision_function_, before)


@pytest.mark.parametrize("cls", FORESTS)
def test_warm_start_with_oob_score_refuses_trees_grown_without_bootstrap(cls, binary_data):
    X, y = binary_data
    forest = cls(n_estimators=3, bootstrap=False, warm_start=True, random_state=0).fit(X, y)
    forest.set_params(n_estimators=5, bootstrap=True, oob_score=True)
    with pytest.raises(ValueError, match="tree 0 was drawn from 300 samples, 300 draws, "
                                         "bootstrap=False"):
        forest.fit(X, y)
    assert len(forest.estimators_) == 3


def test_warm_start_records_each_trees_draw(binary_data):
    X, y = binary_data
    forest = RandomForestClassifier(n_estimators=2, max_samples=50, warm_start=True,
                                    random_state=0).fit(X, y)
    forest.set_params(n_estimators=4, max_samples=None).fit(X[:200], y[:200])
    forest.set_params(n_estimators=5, bootstrap=False).fit(X[:100], y[:100])
    sizes = [(len(s), s.max() < n) for s, n in zip(forest.estimators_samples_,
                                                  [300, 300, 200, 200, 100])]
    assert sizes == [(50, True), (50, True), (200, True), (200, True), (100, True)]
    np.testing.assert_array_equal(forest.estimators_samples_[4], np.arange(100))
    forest.set_params(bootstrap=True)          # a parameter changed after the fit
    np.testing.assert_array_equal(forest.estimators_samples_[4], np.arange(100))
    one = RandomForestClassifier(n_estimators=2, max_samples=50, random_state=0).fit(X, y)
    for a, b in zip(one.estimators_samples_, forest.estimators_samples_[:2]):
        np.testing.assert_array_equal(a, b)


def test_warm_start_with_the_same_draws_still_grows(binary_data):
    X, y = binary_data
    once = RandomForestClassifier(n_estimators=6, max_samples=0.5, oob_score=True,
                                  random_state=0).fit(X, y)
    warm = RandomForestClassifier(n_estimators=3, max_samples=150, oob_score=True,
                                  warm_start=True, random_state=0).fit(X, y)
    warm.set_params(n_estimators=6, max_samples=0.5).fit(X, y)   # 150 draws either way
    np.testing.assert_array_equal(warm.oob_decision_function_, once.oob_decision_function_)


@pytest.mark.parametrize("cls", FORESTS)
def test_forests_pickled_before_draw_records(cls, binary_data):
    """Forests fitted by the previous release stored one draw for all trees (and not
    whether they were bootstrapped): they predict and warm-start as before, and refuse an
    out-of-bag score over trees whose draws are unknown."""
    import pickle

    X, y = binary_data
    forest = cls(n_estimators=3, bootstrap=True, warm_start=True, random_state=0).fit(X, y)
    state = forest.__getstate__()
    del state["_draw_records"]
    state["_n_draws_fitted"] = 300
    if cls is RandomForestClassifier:
        state["_n_samples_fitted"] = 300
    old = cls.__new__(cls)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    assert not hasattr(old, "_draw_records")
    np.testing.assert_array_equal(old.predict_proba(X), forest.predict_proba(X))
    if cls is RandomForestClassifier:
        for a, b in zip(old.estimators_samples_, forest.estimators_samples_):
            np.testing.assert_array_equal(a, b)
    old.set_params(n_estimators=5).fit(X, y)
    assert len(old.estimators_) == 5
    old.set_params(n_estimators=6, oob_score=True)
    with pytest.raises(ValueError, match="older rotforest"):
        old.fit(X, y)
    assert len(old.estimators_) == 5


def test_warm_start_adding_no_tree_still_scores_out_of_bag(binary_data):
    X, y = binary_data
    forest = RandomForestClassifier(n_estimators=4, warm_start=True, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="unchanged"):
        forest.set_params(oob_score=True).fit(X, y)
    once = RandomForestClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, y)
    assert forest.oob_score_ == once.oob_score_


@pytest.mark.parametrize("cls", FORESTS)
def test_balanced_class_weight_with_warm_start_warns_as_scikit_learn(cls, binary_data):
    with pytest.warns(UserWarning, match="not recommended for warm_start"):
        cls(n_estimators=2, class_weight="balanced", warm_start=True).fit(*binary_data)


def test_rotation_forest_missing_mode_cannot_change_on_warm_start():
    X, y = tie_free_data(200, 4, 2, seed=1)
    forest = RotationForestClassifier(n_estimators=2, warm_start=True, random_state=0).fit(X, y)
    forest.set_params(n_estimators=4, missing="impute")
    with pytest.raises(ValueError, match="missing"):
        forest.fit(X, y)
    with pytest.raises(ValueError, match="missing"):
        RotationForestClassifier(missing="drop").fit(X, y)


# --------------------------------------------------------------------------------------
# Found by a fuzzing review (2026-11-25): settings a warm start cannot honour,
# invalid settings in a fit that grows no tree, stale out-of-bag results.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ALL_FORESTS)
@pytest.mark.parametrize("bad", [dict(min_samples_leaf=1.5), dict(min_samples_split=0),
                                 dict(ccp_alpha=-1.0), dict(max_features="bogus"),
                                 dict(categorical_features=[9])])
def test_warm_start_without_new_trees_checks_the_settings(cls, binary_data, bad):
    # a warm fit that adds no tree refuses what a fresh fit refuses, and changes nothing
    X, y = binary_data
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    before = _fitted_state(forest, X)
    with pytest.raises(ValueError):
        cls(n_estimators=3, random_state=0, **bad).fit(X, y)
    with pytest.raises(ValueError):
        forest.set_params(**bad).fit(X, y)
    after = _fitted_state(forest, X)
    np.testing.assert_array_equal(after[0], before[0])
    assert after[1:] == before[1:]


@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
def test_rotation_warm_start_without_new_trees_warns_and_keeps_the_forest(cls, binary_data):
    X, y = binary_data
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    before = _fitted_state(forest, X)
    with pytest.warns(UserWarning, match="no new trees"):
        forest.set_params(min_samples_leaf=5).fit(X, y)    # valid, but grows nothing
    after = _fitted_state(forest, X)
    np.testing.assert_array_equal(after[0], before[0])
    assert after[1:] == before[1:]     # estimator_ still describes the fitted trees


@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
def test_rotation_warm_start_refuses_another_scaling(cls, binary_data):
    X, y = binary_data
    forest = cls(n_estimators=2, warm_start=True, random_state=0).fit(X, y)
    before = _fitted_state(forest, X)
    scale, fitted = forest.scale_.copy(), forest.scaling
    other = {"std": "range", "range": "std"}[fitted]
    with pytest.raises(ValueError, match="scaling cannot change"):
        forest.set_params(n_estimators=4, scaling=other).fit(X, y)
    np.testing.assert_array_equal(forest.scale_, scale)
    np.testing.assert_array_equal(forest.predict(X), before[0])
    forest.set_params(scaling=fitted).fit(X, y)          # back to the fitted one: grows
    assert len(forest.estimators_) == 4


@pytest.mark.parametrize("cls", ALL_FORESTS)
def test_warm_start_refuses_other_categorical_features(cls):
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=(120, 3)), rng.integers(0, 6, 120)]
    y = np.isin(X[:, 3], [1, 4]).astype(int)
    extra = {"min_category_samples": 1}
    forest = cls(n_estimators=2, warm_start=True, random_state=0, **extra).fit(X, y)
    before = _fitted_state(forest, X)
    with pytest.raises(ValueError, match="categorical_features cannot change"):
        forest.set_params(n_estimators=4, categorical_features=[3]).fit(X, y)
    np.testing.assert_array_equal(forest.predict(X), before[0])
    assert forest.is_categorical_ is None and len(forest.estimators_) == 2
    # the same setting given another way (a mask of no feature) is the same setting
    forest.set_params(categorical_features=np.zeros(4, dtype=bool)).fit(X, y)
    assert len(forest.estimators_) == 4
    # and a forest fitted with categories keeps them
    cat = cls(n_estimators=2, warm_start=True, random_state=0, categorical_features=[3],
              **extra).fit(X, y)
    with pytest.raises(ValueError, match=r"treat features \[3\].*now gives \[\]"):
        cat.set_params(n_estimators=4, categorical_features=None).fit(X, y)
    cat.set_params(categorical_features=[False, False, False, True]).fit(X, y)
    assert len(cat.estimators_) == 4


@pytest.mark.parametrize("cls", ALL_FORESTS)
def test_a_fit_without_oob_score_forgets_the_earlier_one(cls, binary_data):
    X, y = binary_data
    forest = cls(n_estimators=8, bootstrap=True, oob_score=True, random_state=0).fit(X, y)
    names = [n for n in ("oob_score_", "oob_decision_function_", "oob_prediction_")
             if hasattr(forest, n)]
    assert len(names) == 2
    forest.set_params(oob_score=False).fit(X[:100], y[:100])
    assert not any(hasattr(forest, n) for n in names)
    # a warm fit that adds no tree leaves the forest, and its score, as they were
    warm = cls(n_estimators=8, bootstrap=True, oob_score=True, warm_start=True,
               random_state=0).fit(X, y)
    score = warm.oob_score_
    with pytest.warns(UserWarning, match="no new trees"):
        warm.set_params(oob_score=False).fit(X, y)
    assert warm.oob_score_ == score
