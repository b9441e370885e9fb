"""RotationForestRegressor against references computed here: the mean of its trees read
through its stored rotations, principal axes by SVD, out-of-bag sums recomputed from
the trees' own draws, and a rotated target that axis-parallel forests fit poorly."""
import pickle

import numpy as np
import pytest
from sklearn.metrics import r2_score

from rotforest import (DecisionTreeRegressor, RandomForestRegressor,
                       RotationForestRegressor)
from rotforest.rotation import _tree_draws, draw_rotation, target_bins


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 7)) * np.array([1, 10, 0.1, 1, 5, 1, 100])
    y = X[:, 0] + X[:, 1] / 10 - 20 * X[:, 2] + rng.normal(scale=0.3, size=400)
    return X, y


def _projected(forest, X, i):
    Z = (X - forest.mean_) / forest.scale_
    return np.ascontiguousarray(Z @ forest.rotations_[i].toarray())


@pytest.mark.parametrize("params", [{}, {"rotation": "gaussian", "group_size": None},
                                    {"bootstrap": True, "max_features": 0.5,
                                     "min_samples_leaf": 3}])
def test_prediction_is_the_mean_of_the_trees_on_their_rotations(data, params):
    X, y = data
    forest = RotationForestRegressor(n_estimators=9, random_state=1, **params).fit(X, y)
    Xt = X[:50] + 0.1
    mean = np.mean([tree.predict(_projected(forest, Xt, i))
                    for i, tree in enumerate(forest.rotated_estimators_)], axis=0)
    np.testing.assert_allclose(forest.predict(Xt), mean, rtol=1e-10, atol=1e-10)
    assert all(isinstance(t, DecisionTreeRegressor) for t in forest.rotated_estimators_)
    for R in forest.rotations_:                          # orthonormal axes
        R = R.toarray()
        np.testing.assert_allclose(R.T @ R, np.eye(R.shape[1]), atol=1e-10)
    # fully grown trees on every row (no bootstrap) reproduce the training targets
    if not params.get("bootstrap"):
        np.testing.assert_allclose(forest.predict(X), y, rtol=1e-10)


def test_same_forest_whatever_n_jobs_warm_start_and_pickle(data):
    X, y = data
    X = X.copy()
    X[::9, 3] = np.nan
    one = RotationForestRegressor(n_estimators=8, random_state=5).fit(X, y)
    two = RotationForestRegressor(n_estimators=8, n_jobs=2, random_state=5).fit(X, y)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))
    warm = RotationForestRegressor(n_estimators=3, warm_start=True, random_state=5)
    warm.fit(X, y).set_params(n_estimators=8).fit(X, y)
    np.testing.assert_array_equal(one.predict(X), warm.predict(X))
    again = pickle.loads(pickle.dumps(one))
    np.testing.assert_array_equal(one.predict(X), again.predict(X))
    assert one.apply(X).shape == (len(X), 8)


def test_oob_prediction_from_the_trees_that_left_a_sample_out(data):
    X, y = data
    forest = RotationForestRegressor(n_estimators=25, bootstrap=True, oob_score=True,
                                     random_state=2).fit(X, y)
    sums, counts = np.zeros(len(y)), np.zeros(len(y))
    for i, tree in enumerate(forest.rotated_estimators_):
        out = _tree_draws(forest._base_seed, i, len(y), len(y), True)[2] == 0
        sums[out] += tree.predict(_projected(forest, X[out], i))
        counts[out] += 1
    seen = counts > 0
    np.testing.assert_allclose(forest.oob_prediction_[seen], sums[seen] / counts[seen])
    assert forest.oob_score_ == pytest.approx(r2_score(y[seen], sums[seen] / counts[seen]))


def test_rotated_target_is_fitted_better_than_by_a_random_forest():
    """y depends on a sum of features (an oblique direction): rotated trees follow it
    with fewer steps than axis-parallel ones."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1200, 6))
    y = X[:, :4].sum(axis=1) + rng.normal(scale=0.2, size=1200)
    rot = RotationForestRegressor(n_estimators=50, random_state=0).fit(X[:800], y[:800])
    rf = RandomForestRegressor(n_estimators=50, random_state=0).fit(X[:800], y[:800])
    a, b = rot.score(X[800:], y[800:]), rf.score(X[800:], y[800:])
    assert a > b + 0.02, (a, b)


def test_missing_values_route_and_impute(data):
    X, y = data
    X = X.copy()
    X[::5, 1] = np.nan
    for missing in ("route", "impute"):
        forest = RotationForestRegressor(n_estimators=10, missing=missing,
                                         random_state=0).fit(X[:300], y[:300])
        assert np.all(np.isfinite(forest.predict(X[300:])))
        assert forest.score(X[300:], y[300:]) > 0.8
        np.testing.assert_array_equal(forest.missing_features_, [1])


def test_trees_that_drew_no_weight_predict_the_weighted_mean():
    """Bootstrap with most weights 0: a tree whose draw holds no weight is one leaf of
    the weighted mean of all targets."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = rng.normal(size=40)
    w = np.zeros(40)
    w[:2] = [1.0, 3.0]
    forest = RotationForestRegressor(n_estimators=30, bootstrap=True,
                                     random_state=0).fit(X, y, sample_weight=w)
    empty = [i for i in range(30)
             if not (_tree_draws(forest._base_seed, i, 40, 40, True)[2] * w).any()]
    assert empty
    for i in empty:
        tree = forest.rotated_estimators_[i]
        assert tree.tree_.node_count == 1
        assert tree.tree_.value[0, 0, 0] == pytest.approx((y[0] + 3 * y[1]) / 4)


def test_feature_importances_follow_the_signal(data):
    X, y = data
    imp = RotationForestRegressor(n_estimators=30, random_state=0).fit(X, y).feature_importances_
    assert imp.sum() == pytest.approx(1.0)
    assert set(np.argsort(imp)[-3:]) == {0, 1, 2}


def test_bad_input_gives_clear_errors_and_leaves_the_forest(data):
    X, y = data
    with pytest.raises(ValueError, match="1-D or 2-D"):
        RotationForestRegressor(n_estimators=2).fit(X, y[:, None, None])
    with pytest.raises(ValueError, match="NaN"):
        RotationForestRegressor(n_estimators=2).fit(X, np.r_[np.nan, y[1:]])
    with pytest.raises(ValueError, match="non-negative"):
        RotationForestRegressor(n_estimators=2, criterion="poisson").fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        RotationForestRegressor(n_estimators=2, criterion="gini").fit(X, y)
    forest = RotationForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    before = forest.predict(X)
    with pytest.raises(ValueError):
        forest.set_params(warm_start=True, n_estimators=4).fit(X[:, :3], y)
    np.testing.assert_array_equal(forest.predict(X), before)


def test_poisson_rotation_forest_predicts_positive_rates():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(600, 4))
    y = rng.poisson(np.exp(0.5 * X[:, 0] - 0.5 * X[:, 1]))
    forest = RotationForestRegressor(n_estimators=20, criterion="poisson",
                                     min_samples_leaf=5, random_state=0).fit(X, y)
    assert np.all(forest.predict(X) >= 0)


def test_range_scaling_keeps_uncorrelated_features_apart():
    """Binary, uniform and skewed independent features: divided by their ranges their
    variances differ, so each group's principal axes are (nearly) the features
    themselves; standardised, the variances are all 1 and the axes mix them."""
    rng = np.random.default_rng(0)
    n = 3000
    X = np.column_stack([rng.integers(0, 2, n), rng.random(n), rng.exponential(size=n)])
    y = X.sum(axis=1)
    near_axes = {}
    for scaling in ("range", "std"):
        forest = RotationForestRegressor(n_estimators=10, scaling=scaling,
                                         random_state=0).fit(X, y)
        lo, hi = X.min(0), X.max(0)
        expected = hi - lo if scaling == "range" else X.std(0)
        np.testing.assert_allclose(forest.scale_, expected, rtol=1e-12)
        np.testing.assert_allclose(forest.mean_, X.mean(0), rtol=1e-12)
        near_axes[scaling] = np.mean([np.abs(R.toarray()).max(axis=0).min()
                                      for R in forest.rotations_])
    assert near_axes["range"] > 0.97 and near_axes["std"] < 0.9, near_axes


def test_pca_draws_rows_from_subsets_of_the_target_quartiles(data):
    """Quartile codes of y (ties merge bins), and each tree's rotation is the one drawn
    with them as the classes whose subsets the PCA takes rows from."""
    codes = target_bins(np.r_[np.arange(8.0), np.full(8, 9.0)])
    np.testing.assert_array_equal(codes, [0, 0, 0, 0, 1, 1, 1, 1] + [2] * 8)
    X, y = data
    codes = target_bins(y)
    np.testing.assert_array_equal(np.bincount(codes), [100] * 4)
    assert np.all(np.diff(y[np.argsort(y)][::-1]) <= 0)   # (y has no ties)
    assert np.all(np.diff(codes[np.argsort(y)]) >= 0)       # bins follow y's order
    forest = RotationForestRegressor(n_estimators=3, random_state=7).fit(X, y)
    Z = (X - forest.mean_) / forest.scale_
    for i, R in enumerate(forest.rotations_):
        rng = _tree_draws(forest._base_seed, i, len(y), len(y), False)[0]
        expected = draw_rotation(rng, X.shape[1], 3, "pca", Z, codes)
        np.testing.assert_allclose(R.toarray(), expected.toarray(), atol=1e-12)
