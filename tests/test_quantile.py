"""Quantile regression forests: numpy's quantiles for one tree, Meinshausen's weights
against a brute force from apply and the in-bag counts, out-of-bag predictions, the
interval calibration, errors, pickling and threads."""
import pickle

import numpy as np
import pytest
from sklearn.base import clone

from rotforest import (ExtraTreesQuantileRegressor, RandomForestQuantileRegressor,
                       RandomForestRegressor, RotationForestQuantileRegressor,
                       RotationForestRegressor)
from rotforest.rotation import _tree_draws

METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]
LEVELS = np.array([0.0, 0.01, 0.05, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.9, 0.95, 0.99, 1.0])
QUANTILE_CLASSES = [RandomForestQuantileRegressor, RotationForestQuantileRegressor,
                    ExtraTreesQuantileRegressor]


def _data(n=400, seed=0, n_features=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    # rounded: ties among the targets, and a spread that depends on x
    y = np.round(X[:, 0] + rng.normal(size=n) * np.exp(0.5 * X[:, 1]), 1)
    return X, y


@pytest.fixture(scope="module")
def data():
    return _data()


def _counts(forest, n):
    """Every tree's multiplicity of every training row, from the forest's own draws."""
    if isinstance(forest, RotationForestRegressor):
        if not forest.bootstrap:
            return np.ones((len(forest.estimators_), n))
        return np.array([_tree_draws(forest._base_seed, t, n, n, True)[2]
                         for t in range(len(forest.estimators_))])
    return np.array([np.bincount(s, minlength=n) for s in forest.estimators_samples_],
                    dtype=float)


def _brute_weights(forest, X_train, X, sw=None, oob=False):
    """Meinshausen's weights (rows of X x training rows), from apply and the counts:
    mean over trees of w_ti 1[same leaf] / (sum of w_tj over the leaf), w_ti the count
    times the sample weight; also the copies N (all the leaves' counts)."""
    n = X_train.shape[0]
    counts = _counts(forest, n)
    w_tree = counts * (1.0 if sw is None else sw)
    train_leaves, leaves = forest.apply(X_train), forest.apply(X)
    W = np.zeros((X.shape[0], n))
    N = np.zeros(X.shape[0])
    used = np.zeros(X.shape[0])
    for i in range(X.shape[0]):
        for t in range(counts.shape[0]):
            if oob and counts[t, i] > 0:
                continue
            same = (train_leaves[:, t] == leaves[i, t]) & (w_tree[t] > 0)
            W[i, same] += w_tree[t, same] / w_tree[t, same].sum()
            N[i] += counts[t, same].sum()
            used[i] += 1
    return W / np.maximum(used, 1)[:, None], N


def _assert_weighted_means(got, W, y):
    """``got`` equals the weighted means ``W @ y`` up to the rounding of their sums:
    within 1e-10 of the sums of the terms' sizes, ``W @ |y|``.  (Relative to the means
    alone, a mean that cancels to about 0 would be held to the last bits, which the
    order of the sums decides: ours, or the matrix product's, which BLAS orders by
    processor.)"""
    error, size = np.abs(got - W @ y), W @ np.abs(y)
    assert np.all(error <= 1e-10 * size), (error / size).max()


def _weighted_quantile(y, w, N, q):
    """The documented rule: the targets sorted, row k holding N w_k / sum(w) copies;
    copy j is the first row whose cumulative copies exceed j; linear interpolation at
    h = (N - 1) q."""
    order = np.argsort(y, kind="stable")
    y, w = y[order], w[order]
    keep = w > 0
    y, cum = y[keep], np.cumsum(w[keep]) * N / w.sum()

    def copy(j):
        k = np.searchsorted(cum, j + 1e-9 * N, side="right")
        return y[min(k, y.size - 1)]

    h = (N - 1) * q
    if h >= N - 1:
        return y[-1]
    lo = np.floor(h)
    return copy(lo) + (copy(lo + 1) - copy(lo)) * (h - lo)


# ---------------------------------------------------------------- exactness
@pytest.mark.parametrize("cls", QUANTILE_CLASSES)
@pytest.mark.parametrize("leaf", [1, 7])
def test_one_tree_without_bootstrap_is_numpy_quantile(cls, leaf, data):
    X, y = data
    forest = cls(n_estimators=1, bootstrap=False, min_samples_leaf=leaf,
                 random_state=0).fit(X, y)
    X_new = _data(150, seed=1)[0]
    train, new = forest.apply(X)[:, 0], forest.apply(X_new)[:, 0]
    for method in METHODS:
        got = forest.predict(X_new, LEVELS, interpolation=method)
        want = np.array([np.quantile(y[train == leaf_id], LEVELS, method=method)
                         for leaf_id in new])
        np.testing.assert_array_equal(got, want, err_msg=method)


def test_rotation_quantile_defaults():
    """The rotation forest's quantile defaults (leaves of two rows, pairs of features),
    in the signature, get_params, clone and the docstring; its regressor keeps its own."""
    forest = RotationForestQuantileRegressor()
    params = forest.get_params()
    assert params["min_samples_leaf"] == 2 and params["group_size"] == 2
    base = RotationForestRegressor().get_params()
    assert base["min_samples_leaf"] == 1 and base["group_size"] == 3
    assert {k: v for k, v in params.items() if k not in (
        "min_samples_leaf", "group_size", "default_quantiles", "max_samples_leaf")} == {
        k: v for k, v in base.items() if k not in ("min_samples_leaf", "group_size")}
    copy = clone(RotationForestQuantileRegressor(group_size=3, min_samples_leaf=1))
    assert copy.group_size == 3 and copy.min_samples_leaf == 1
    doc = RotationForestQuantileRegressor.__doc__
    assert "group_size : int or None, default=2\n" in doc
    assert "min_samples_leaf : int or float, default=2\n" in doc
    assert "group_size : int or None, default=3\n" in RotationForestRegressor.__doc__
    for cls in (RandomForestQuantileRegressor, ExtraTreesQuantileRegressor):
        assert cls().get_params()["min_samples_leaf"] == 1


@pytest.mark.parametrize("cls", [RandomForestQuantileRegressor,
                                 RotationForestQuantileRegressor])
def test_one_bootstrap_tree_counts_as_copies(cls, data):
    X, y = data
    forest = cls(n_estimators=1, bootstrap=True, min_samples_leaf=5,
                 random_state=3).fit(X, y)
    c = _counts(forest, len(y))[0].astype(int)
    train = np.repeat(forest.apply(X)[:, 0], c)
    copies = np.repeat(y, c)
    X_new = _data(100, seed=2)[0]
    for method in METHODS:
        got = forest.predict(X_new, LEVELS, interpolation=method)
        want = np.array([np.quantile(copies[train == leaf_id], LEVELS, method=method)
                         for leaf_id in forest.apply(X_new)[:, 0]])
        np.testing.assert_array_equal(got, want, err_msg=method)


@pytest.mark.parametrize("cls,params", [
    (RandomForestQuantileRegressor, {}),
    (RandomForestQuantileRegressor, {"bootstrap": False, "max_features": 0.5}),
    (RotationForestQuantileRegressor, {"bootstrap": True}),
])
@pytest.mark.parametrize("weighted", [False, True])
def test_weights_are_meinshausens(cls, params, weighted, data):
    X, y = data
    X, y = X[:150], y[:150]
    sw = None
    if weighted:
        sw = np.random.default_rng(5).uniform(0.5, 2.0, size=len(y))
        sw[::11] = 0.0
    forest = cls(n_estimators=8, min_samples_leaf=3, random_state=0, **params)
    forest.fit(X, y, sample_weight=sw)
    X_new = _data(25, seed=4)[0]
    # a random forest that drew its rows by weight grew its trees on the counts alone
    drawn_by_weight = (weighted and cls is RandomForestQuantileRegressor
                       and forest.bootstrap)
    W, N = _brute_weights(forest, X, X_new, None if drawn_by_weight else sw)
    got = forest.predict(X_new, [0.1, 0.5, 0.83])
    want = np.array([[_weighted_quantile(y, W[i], N[i], q) for q in (0.1, 0.5, 0.83)]
                     for i in range(len(X_new))])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the weights' mean is the forest's own prediction
    _assert_weighted_means(forest.predict(X_new, "mean"), W, y)


@pytest.mark.parametrize("cls,base", [
    (RandomForestQuantileRegressor, RandomForestRegressor),
    (RotationForestQuantileRegressor, RotationForestRegressor),
])
def test_mean_is_the_base_forest(cls, base, data):
    X, y = data
    q = cls(n_estimators=10, random_state=0).fit(X, y)
    params = {k: v for k, v in q.get_params().items()
              if k not in ("default_quantiles", "max_samples_leaf")}
    b = base(**params).fit(X, y)          # the quantile forest's defaults, where its own
    np.testing.assert_array_equal(q.predict(X[:50], quantiles="mean"), b.predict(X[:50]))
    q.set_params(default_quantiles="mean")
    np.testing.assert_array_equal(q.predict(X[:50]), b.predict(X[:50]))


@pytest.mark.parametrize("cls", [RandomForestQuantileRegressor,
                                 RotationForestQuantileRegressor])
def test_out_of_bag_against_brute_force(cls, data):
    X, y = data
    X, y = X[:120], y[:120]
    forest = cls(n_estimators=6, bootstrap=True, min_samples_leaf=2,
                 random_state=1).fit(X, y)
    W, N = _brute_weights(forest, X, X, oob=True)
    got = forest.predict(X, [0.2, 0.5], oob_score=True)
    for i in range(len(y)):
        if N[i] == 0:
            assert np.all(np.isnan(got[i]))
            continue
        assert W[i, i] == 0
        want = [_weighted_quantile(y, W[i], N[i], q) for q in (0.2, 0.5)]
        np.testing.assert_allclose(got[i], want, rtol=1e-12)
    mean = forest.predict(X, "mean", oob_score=True)
    seen = N > 0
    _assert_weighted_means(mean[seen], W[seen], y)


# ---------------------------------------------------------------- behaviour
def test_shapes_and_monotone_in_q(data):
    X, y = data
    forest = RandomForestQuantileRegressor(n_estimators=20, random_state=0).fit(X, y)
    assert forest.predict(X[:7]).shape == (7,)
    assert forest.predict(X[:7], 0.3).shape == (7,)
    assert forest.predict(X[:7], [0.3]).shape == (7,)
    grid = np.linspace(0, 1, 41)
    for method in METHODS:
        pred = forest.predict(X[:60], grid, interpolation=method)
        assert pred.shape == (60, 41)
        assert np.all(np.diff(pred, axis=1) >= 0), method
        assert np.all(pred[:, 0] >= y.min()) and np.all(pred[:, -1] <= y.max())
    # quantiles in any order: the columns follow them
    np.testing.assert_array_equal(forest.predict(X[:9], [0.9, 0.1]),
                                  forest.predict(X[:9], [0.1, 0.9])[:, ::-1])


def test_threads_do_not_change_predictions(data):
    X, y = data
    one = RandomForestQuantileRegressor(n_estimators=15, random_state=0, n_jobs=1)
    two = RandomForestQuantileRegressor(n_estimators=15, random_state=0, n_jobs=3)
    one.fit(X, y)
    two.fit(X, y)
    X_new = _data(5000, seed=9)[0]       # several tasks of rows
    np.testing.assert_array_equal(one.predict(X_new, [0.1, 0.5, 0.9]),
                                  two.predict(X_new, [0.1, 0.5, 0.9]))
    np.testing.assert_array_equal(one.calibration_scores_, two.calibration_scores_)


def test_pickle_round_trip(data):
    X, y = data
    for cls in QUANTILE_CLASSES:
        forest = cls(n_estimators=5, random_state=0).fit(X, y)
        back = pickle.loads(pickle.dumps(forest))
        np.testing.assert_array_equal(back.predict(X[:20], [0.1, 0.9]),
                                      forest.predict(X[:20], [0.1, 0.9]))


def test_sample_weight_ratios_only(data):
    X, y = data
    sw = np.random.default_rng(0).uniform(0.5, 2, len(y))
    a = RandomForestQuantileRegressor(n_estimators=5, bootstrap=False, max_features=0.5,
                                      random_state=0).fit(X, y, sample_weight=sw)
    b = RandomForestQuantileRegressor(n_estimators=5, bootstrap=False, max_features=0.5,
                                      random_state=0).fit(X, y, sample_weight=sw * 1e3)
    np.testing.assert_allclose(a.predict(X[:30], [0.2, 0.7]), b.predict(X[:30], [0.2, 0.7]),
                               rtol=1e-12)


def test_calibrated_intervals_cover():
    X, y = _data(1500, seed=3)
    X_test, y_test = _data(1500, seed=4)
    # out of bag, each row is predicted by about a third of the trees: enough of them
    forest = RandomForestQuantileRegressor(n_estimators=100, random_state=0,
                                           n_jobs=2).fit(X, y)
    assert forest.calibration_scores_.shape == (len(y),)
    raw = forest.predict_interval(X_test, 0.9, calibrated=False)
    np.testing.assert_allclose(raw, forest.predict(X_test, [0.05, 0.95]), atol=1e-12)
    cal = forest.predict_interval(X_test, 0.9)
    covered = np.mean((y_test >= cal[:, 0]) & (y_test <= cal[:, 1]))
    assert 0.87 <= covered <= 0.95
    # held-out calibration on a forest without bootstrap
    rot = RotationForestQuantileRegressor(n_estimators=20, min_samples_leaf=5,
                                          random_state=0).fit(X[:1000], y[:1000])
    assert rot.calibration_scores_ is None
    with pytest.raises(ValueError, match="calibrat"):
        rot.predict_interval(X_test)
    rot.calibrate(X[1000:], y[1000:])
    cal = rot.predict_interval(X_test, 0.8)
    covered = np.mean((y_test >= cal[:, 0]) & (y_test <= cal[:, 1]))
    assert 0.75 <= covered <= 0.86


def test_score_is_pinball_skill(data):
    from sklearn.metrics import d2_pinball_score
    X, y = data
    forest = RandomForestQuantileRegressor(n_estimators=10, random_state=0,
                                           default_quantiles=[0.1, 0.5]).fit(X, y)
    pred = forest.predict(X[:100])
    want = np.mean([d2_pinball_score(y[:100], pred[:, 0], alpha=0.1),
                    d2_pinball_score(y[:100], pred[:, 1], alpha=0.5)])
    assert forest.score(X[:100], y[:100]) == pytest.approx(want)


def test_memory_is_compact(data):
    X, y = data
    forest = RandomForestQuantileRegressor(n_estimators=10, random_state=0).fit(X, y)
    lists = forest._leaf_lists
    assert lists.rows.dtype == np.int32 and lists.counts.dtype == np.uint8
    assert lists.offsets.dtype == np.int32
    # in-bag rows only: about 63% of the rows per tree
    assert 0.55 * len(y) * 10 < lists.rows.size < 0.72 * len(y) * 10
    plain = RandomForestQuantileRegressor(n_estimators=3, bootstrap=False,
                                          random_state=0).fit(X, y)
    assert plain._leaf_lists.counts is None and plain._leaf_lists.rows.size == 3 * len(y)
    assert forest.quantile_nbytes_ > lists.rows.nbytes


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("quantiles,error", [
    (1.5, ValueError), (-0.1, ValueError), ([0.1, np.nan], ValueError), ([], ValueError),
    ([[0.1, 0.2]], ValueError), ("median", ValueError), (True, TypeError),
    (["a"], TypeError), ([0.1, [0.2, 0.3]], ValueError),
])
def test_bad_quantiles_are_refused(quantiles, error, data):
    X, y = data
    forest = RandomForestQuantileRegressor(n_estimators=3, random_state=0).fit(X, y)
    before = pickle.dumps(forest)
    with pytest.raises(error, match="quantiles"):
        forest.predict(X[:3], quantiles)
    with pytest.raises(error, match="default_quantiles"):
        RandomForestQuantileRegressor(n_estimators=3, default_quantiles=quantiles).fit(X, y)
    forest.set_params(default_quantiles=quantiles)
    with pytest.raises(error):
        forest.predict(X[:3])
    forest.set_params(default_quantiles=0.5)
    assert pickle.dumps(forest) == before


def test_other_errors(data):
    X, y = data
    forest = RandomForestQuantileRegressor(n_estimators=3, random_state=0).fit(X, y)
    before = pickle.dumps(forest)
    with pytest.raises(ValueError, match="interpolation"):
        forest.predict(X[:3], 0.5, interpolation="cubic")
    with pytest.raises(TypeError, match="oob_score"):
        forest.predict(X, 0.5, oob_score="yes")
    with pytest.raises(ValueError, match="training data"):
        forest.predict(X[:-1], 0.5, oob_score=True)
    X_other = X.copy()
    X_other[3, 1] += 1.0
    with pytest.raises(ValueError, match="training data"):
        forest.predict(X_other, 0.5, oob_score=True)
    with pytest.raises(ValueError, match="coverage"):
        forest.predict_interval(X[:3], coverage=1.0)
    with pytest.raises(TypeError, match="coverage"):
        forest.predict_interval(X[:3], coverage="high")
    with pytest.raises(ValueError, match="y must"):
        forest.calibrate(X[:10], y[:9])
    # a failed fit leaves the forest as it was
    with pytest.raises(ValueError, match="max_samples_leaf"):
        forest.set_params(max_samples_leaf=0).fit(X, np.column_stack([y, y]))
    forest.set_params(max_samples_leaf=None)
    with pytest.raises(ValueError, match="warm_start"):
        forest.set_params(warm_start=True).fit(X, y)
    forest.set_params(warm_start=False)
    assert pickle.dumps(forest) == before
    plain = RandomForestQuantileRegressor(n_estimators=3, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match="bootstrap=True"):
        plain.predict(X, 0.5, oob_score=True)
    with pytest.raises(ValueError, match="bootstrap=True"):
        RotationForestQuantileRegressor(n_estimators=3).fit(X, y).predict(
            X, 0.5, oob_score=True)


def test_column_vector_y_is_one_output(data):
    from sklearn.exceptions import DataConversionWarning
    X, y = data
    with pytest.warns(DataConversionWarning):
        two = RandomForestQuantileRegressor(n_estimators=3, random_state=0).fit(
            X, y[:, None])
    one = RandomForestQuantileRegressor(n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(one.predict(X[:10]), two.predict(X[:10]))


@pytest.mark.parametrize("cls", QUANTILE_CLASSES)
def test_several_outputs_each_take_their_own_quantiles(cls, data):
    """One forest on two outputs: each output's quantiles are the documented weighted
    quantiles of its own targets with the forest's weights (one set of leaves for
    both), in and out of bag; the mean is the base forest's; ranks and scores by
    output; intervals, calibrated on one output's scores, are refused."""
    X, y = data
    Y = np.column_stack([y, np.sin(y / 40.0) * 10 + X[:, 0]])
    forest = cls(n_estimators=6, bootstrap=True, random_state=0).fit(X, Y)
    q = np.array([0.1, 0.5, 0.9])
    Xt = X[:12] + 0.05
    got = forest.predict(Xt, q)
    assert got.shape == (12, 2, 3) and forest.predict(Xt, 0.5).shape == (12, 2)
    W, N = _brute_weights(forest, X, Xt)
    for o in range(2):
        expected = [[_weighted_quantile(Y[:, o], W[i], N[i], level) for level in q]
                    for i in range(12)]
        np.testing.assert_allclose(got[:, o, :], expected, rtol=1e-9, atol=1e-9)
        ranks = forest.quantile_ranks(Xt, Y[:12] + 1.0, kind="weak")[:, o]
        np.testing.assert_allclose(ranks, (W * (Y[None, :, o] <= Y[:12, o, None] + 1.0)
                                           ).sum(1) / W.sum(1), rtol=1e-10)
    Wo, No = _brute_weights(forest, X, X[:15], oob=True)
    oob = forest.predict(X, 0.5, oob_score=True)
    for o in range(2):
        for i in range(15):
            if No[i] > 0:
                assert oob[i, o] == pytest.approx(
                    _weighted_quantile(Y[:, o], Wo[i], No[i], 0.5), rel=1e-9, abs=1e-9)
    base = forest.predict(Xt, "mean")
    assert base.shape == (12, 2)
    _assert_weighted_means(base[:, 1], W, Y[:, 1])
    from sklearn.metrics import d2_pinball_score
    assert forest.score(Xt, Y[:12], quantiles=0.5) == pytest.approx(
        d2_pinball_score(Y[:12], got[:, :, 1], alpha=0.5))
    assert forest.calibration_scores_ is None
    with pytest.raises(ValueError, match="one output"):
        forest.predict_interval(Xt, calibrated=False)
    with pytest.raises(ValueError, match="one output"):
        forest.calibrate(Xt, Y[:12])
