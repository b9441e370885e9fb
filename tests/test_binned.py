"""The binned builder (``max_bins``, _hist.pyx): bins and codes against numpy, every
split of a binned tree against a brute-force search over the bins' edges, weights, the
two-class integer histograms against the floating ones, the rule of "auto", refusals."""
import itertools

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from rotforest import (ExtraTreesClassifier, RandomForestClassifier,
                       RandomForestQuantileRegressor, RandomForestRegressor, _bins, _hist)


def _data(n=600, p=5, seed=0, levels=None, missing=0.0, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) if levels is None else rng.integers(0, levels, (n, p))
    X = X.astype(float)
    signal = X[:, 0] - 0.5 * X[:, 1] + 0.3 * X[:, 2] * X[:, 3]
    noise = rng.normal(scale=X[:, 0].std() if levels else 1.0, size=n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    if regression:
        return X, signal + noise
    return X, (signal + noise > np.median(signal)).astype(int) + (signal > 2 * signal.std())


def test_edges_and_codes_against_numpy():
    rng = np.random.default_rng(1)
    few = rng.integers(0, 7, 500).astype(float)
    edges = _hist.bin_edges(few, 255)
    assert np.array_equal(edges, (np.arange(6) + 0.5))          # the midpoints
    many = rng.normal(size=5000)
    many[::7] = np.nan
    edges = _hist.bin_edges(many, 16)
    assert edges.size == 15 and np.all(np.diff(edges) > 0)
    present = many[~np.isnan(many)]
    counts = np.bincount(np.searchsorted(edges, present, side="left"), minlength=16)
    assert counts.max() <= 2 * present.size / 16                  # nearly equal counts
    X = np.column_stack([few, many[:500]])
    codes, flat, offsets, exact = _bins.binned_features(X, 16, 2)
    for j in range(2):
        e = flat[offsets[j]:offsets[j + 1]]
        want = np.where(np.isnan(X[:, j]), 255, np.searchsorted(e, X[:, j], side="left"))
        assert np.array_equal(codes[:, j], want)
    # an F-ordered X codes the same
    assert np.array_equal(_bins.binned_features(np.asfortranarray(X), 16, 1)[0], codes)


def test_codes_for_every_count_of_edges_and_extreme_values():
    # the search takes eight steps over edges padded with infinity: every count of
    # edges up to 255, values equal to an edge, infinities and NaN against numpy
    rng = np.random.default_rng(2)
    for count in (0, 1, 2, 3, 127, 128, 129, 200, 254, 255):
        e = np.sort(rng.choice(np.arange(-500.0, 500.0), count, replace=False))
        x = np.concatenate([e, e + 1e-9, e - 1e-9, rng.uniform(-600, 600, 300),
                            [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300, -1e300]])
        X = np.column_stack([x, x[::-1]])
        offsets = np.array([0, count, 2 * count], dtype=np.int64)
        out = np.empty(X.shape, dtype=np.uint8)
        for order in (X, np.asfortranarray(X)):
            _hist.bin_codes(order, np.concatenate([e, e]), offsets, out, 0, len(X))
            for j in range(2):
                want = np.where(np.isnan(X[:, j]), 255,
                                np.searchsorted(e, X[:, j], side="left"))
                assert np.array_equal(out[:, j], want), count
    with pytest.raises(ValueError, match="more than 255 edges"):
        _hist.bin_codes(np.zeros((2, 1)), np.arange(256.0), np.array([0, 256]),
                        np.empty((2, 1), dtype=np.uint8), 0, 2)


def _impurity(y, w, regression, criterion):
    W = w.sum()
    if regression:
        mean = (w * y).sum() / W
        if criterion == "poisson":      # the mean half Poisson deviance
            if mean <= 0:
                return np.inf
            ylogy = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mean), 0.0)
            return (w * (ylogy - (y - mean))).sum() / W
        return (w * (y - mean) ** 2).sum() / W
    frac = np.bincount(y, weights=w, minlength=3) / W
    if criterion == "gini":
        return 1.0 - (frac ** 2).sum()
    frac = frac[frac > 0]
    return -(frac * np.log2(frac)).sum()


def _decrease(y, w, left, regression, criterion):
    W, wl = w.sum(), w[left].sum()
    return (_impurity(y, w, regression, criterion)
            - wl / W * _impurity(y[left], w[left], regression, criterion)
            - (W - wl) / W * _impurity(y[~left], w[~left], regression, criterion))


def _best_over(X, y, w, thresholds, min_leaf, regression, criterion, keep=None):
    """The best impurity decrease of any cut at ``thresholds(j, x)`` of each feature j
    (missing values on either side), or that sends only the missing values right, by
    brute force; ``keep(j, left)``: whether a cut may be taken (None: every one)."""
    best = -np.inf
    for j in range(X.shape[1]):
        x = X[:, j]
        nan = np.isnan(x)
        for thr in list(thresholds(j, x[~nan])) + [np.inf]:
            for nan_left in (False, True):
                left = np.where(nan, nan_left, x <= thr)
                if min(left.sum(), (~left).sum()) < max(min_leaf, 1):
                    continue
                if keep is not None and not keep(j, left):
                    continue
                gain = _decrease(y, w, left, regression, criterion)
                if np.isfinite(gain):   # (Poisson: a side of zero targets is no cut)
                    best = max(best, gain)
    return best


def _goes_left(tree, node, x):
    """Which of the values x of the node's split feature go left."""
    return np.where(np.isnan(x), bool(tree.missing_go_to_left[node]),
                    x <= tree.threshold[node])


def _best_over_edges(X, y, w, flat, offsets, min_leaf, regression, criterion):
    """_best_over the bins' edges."""
    return _best_over(X, y, w, lambda j, x: flat[offsets[j]:offsets[j + 1]], min_leaf,
                      regression, criterion)


@pytest.mark.parametrize("regression, criterion, levels, missing, min_leaf", [
    (False, "gini", None, 0.0, 1),
    (False, "gini", 12, 0.1, 1),
    (False, "entropy", None, 0.1, 3),
    (True, "squared_error", None, 0.0, 1),
    (True, "squared_error", 9, 0.15, 4),
    (True, "poisson", None, 0.1, 1),
    (True, "poisson", 9, 0.0, 3),
])
def test_every_split_is_the_best_over_the_edges(regression, criterion, levels, missing,
                                               min_leaf):
    X, y = _data(300, 4, seed=3, levels=levels, missing=missing, regression=regression)
    if criterion == "poisson":          # counts, a third of them zero
        y = np.floor(np.exp(y / 2 + 0.3)) * (np.arange(len(y)) % 3 != 0)
    cls = RandomForestRegressor if regression else RandomForestClassifier
    forest = cls(n_estimators=1, bootstrap=False, max_features=None, max_depth=4,
                 min_samples_leaf=min_leaf, criterion=criterion, max_bins=24,
                 random_state=0).fit(X, y)
    assert forest.max_bins_ == 24
    _, flat, offsets, _ = _bins.binned_features(X, 24, 1)
    tree = forest.estimators_[0].tree_
    paths = tree.decision_path(X).toarray().astype(bool)
    w = np.ones(len(y))
    target = y if regression else np.searchsorted(forest.classes_, y)
    for node in range(tree.node_count):
        rows = paths[:, node]
        f = tree.feature[node]
        if f < 0:
            continue
        x = X[rows, f]
        left = _goes_left(tree, node, x)
        got = _decrease(target[rows], w[rows], left, regression, criterion)
        best = _best_over_edges(X[rows], target[rows], w[rows], flat, offsets, min_leaf,
                                regression, criterion)
        # at least the best cut at an edge (a cut refined inside its bins may beat it)
        assert got >= best - 1e-9 * abs(best) - 1e-12
        assert min(left.sum(), (~left).sum()) >= min_leaf
        # the threshold: infinity (only the missing values right), or the midpoint of
        # two neighbouring values of the node (refined), or, where every bin holds one
        # value, an edge (the midpoint of two neighbouring values of the feature)
        thr = tree.threshold[node]
        values = np.unique(x[~np.isnan(x)])
        below, above = values[values <= thr], values[values > thr]
        assert thr == np.inf or (below.size and above.size and (
            thr == below[-1] / 2 + above[0] / 2
            or thr in flat[offsets[f]:offsets[f + 1]]))


def _value(target, rows, left, regression):
    """A side's value as the constraints read it: its mean, or its class-0 fraction."""
    side = target[rows][left]
    return side.mean() if regression else (side == 0).mean()


@pytest.mark.parametrize("regression, criterion, missing", [
    (False, "gini", 0.0), (False, "entropy", 0.1), (True, "squared_error", 0.1)])
def test_monotonic_splits_keep_their_bounds_and_beat_every_kept_edge_cut(
        regression, criterion, missing):
    # monotonic_cst on bins: every split on a constrained feature orders its children's
    # values (the class-1 probability, or the mean, may only rise along a feature of
    # +1) within the bounds set above it (children meet at the mean of their values),
    # every node's value is held in its bounds, and each split is at least the best cut
    # at an edge that keeps them (brute force)
    X, y = _data(400, 4, seed=6, missing=missing, regression=regression)
    if not regression:
        y = (y > 0).astype(int)
    cst = np.array([1, -1, 0, 1])
    cls = RandomForestRegressor if regression else RandomForestClassifier
    forest = cls(n_estimators=1, bootstrap=False, max_features=None, max_depth=5,
                 criterion=criterion, max_bins=24, monotonic_cst=cst,
                 random_state=0).fit(X, y)
    assert forest.max_bins_ == 24
    built = cst if regression else -cst          # (the builder's: class-0 fraction)
    _, flat, offsets, _ = _bins.binned_features(X, 24, 1)
    tree = forest.estimators_[0].tree_
    paths = tree.decision_path(X).toarray().astype(bool)
    w = np.ones(len(y))
    bounds = {0: (-np.inf, np.inf)}
    constrained = 0
    for node in range(tree.node_count):
        lo, hi = bounds[node]
        rows = paths[:, node]
        raw = _value(y, rows, np.ones(rows.sum(), bool), regression)
        stored = tree.value[node, 0, 0]
        assert np.isclose(stored, min(max(raw, lo), hi), rtol=1e-9, atol=1e-12)
        f = tree.feature[node]
        if f < 0:
            continue
        x = X[rows, f]
        left = _goes_left(tree, node, x)
        vl = _value(y, rows, left, regression)
        vr = _value(y, rows, ~left, regression)
        kids = [(lo, hi), (lo, hi)]
        if built[f]:
            constrained += 1
            assert (vl - vr) * built[f] <= 1e-12
            assert lo - 1e-12 <= min(vl, vr) and max(vl, vr) <= hi + 1e-12
            middle = vl / 2 + vr / 2
            kids = ([(lo, middle), (middle, hi)] if built[f] == 1
                    else [(middle, hi), (lo, middle)])
        bounds[tree.children_left[node]], bounds[tree.children_right[node]] = kids
        got = _decrease(y[rows], w[rows], left, regression, criterion)

        def keeps(j, cut, rows=rows, lo=lo, hi=hi):
            a, b = _value(y, rows, cut, regression), _value(y, rows, ~cut, regression)
            return not built[j] or ((a - b) * built[j] <= 0 and lo <= min(a, b)
                                    and max(a, b) <= hi)
        best = _best_over(X[rows], y[rows], w[rows],
                          lambda j, x: flat[offsets[j]:offsets[j + 1]], 0, regression,
                          criterion, keeps)
        assert got >= best - 1e-9 * abs(best) - 1e-12
    assert constrained >= 3


@pytest.mark.parametrize("regression", [False, True])
def test_monotonic_binned_forests_predict_monotonically(regression):
    # every tree of a binned forest (bootstrap, drawn features, cuts refined in their
    # bins) rises along a feature of +1 and falls along one of -1, for every row
    X, y = _data(3000, 4, seed=7, missing=0.05, regression=regression)
    if not regression:
        y = (y > 0).astype(int)
    cst = [1, -1, 0, 0]
    cls = RandomForestRegressor if regression else RandomForestClassifier
    forest = cls(n_estimators=8, max_bins=32, max_depth=8, max_features=2,
                 monotonic_cst=cst, random_state=1).fit(X, y)
    assert forest.max_bins_ == 32
    rows = X[np.random.default_rng(0).choice(len(X), 60, replace=False)]
    grid = np.linspace(-4, 4, 81)
    for f, sign in ((0, 1), (1, -1)):
        sweep = np.repeat(rows, grid.size, axis=0)
        sweep[:, f] = np.tile(grid, len(rows))
        for tree in forest.estimators_:
            out = tree.predict(sweep) if regression else tree.predict_proba(sweep)[:, 1]
            steps = np.diff(out.reshape(len(rows), grid.size), axis=1) * sign
            assert steps.min() >= -1e-12
    # and against the unconstrained binned forest, the constraint changes the trees
    free = cls(n_estimators=8, max_bins=32, max_depth=8, max_features=2,
               random_state=1).fit(X, y)
    assert _nodes(free) != _nodes(forest)


def test_friedman_mse_on_bins_cuts_as_squared_error_and_weighs_as_friedman():
    # friedman_mse bins too: its cuts are the squared error's (the proxies differ by a
    # factor in a node), and min_impurity_decrease weighs Friedman's improvement,
    # (wr sum_l - wl sum_r)^2 / (wl wr w), not scaled by the node's weight share
    X, y = _data(2000, 5, seed=13, missing=0.05, regression=True)
    make = lambda criterion, decrease=0.0: RandomForestRegressor(
        n_estimators=3, max_bins=64, criterion=criterion, max_depth=7,
        min_impurity_decrease=decrease, random_state=0).fit(X, y)
    friedman = make("friedman_mse")
    assert friedman.max_bins_ == 64 and _nodes(friedman) == _nodes(make("squared_error"))
    tree = RandomForestRegressor(n_estimators=1, bootstrap=False, max_bins=64,
                                 criterion="friedman_mse", min_impurity_decrease=0.5,
                                 random_state=0).fit(X, y).estimators_[0].tree_
    paths = tree.decision_path(X).toarray().astype(bool)
    gains = []
    for node in range(tree.node_count):
        rows = paths[:, node]
        f = tree.feature[node]
        if f < 0:
            continue
        left = _goes_left(tree, node, X[rows, f])
        a, b = y[rows][left], y[rows][~left]
        diff = len(b) * a.sum() - len(a) * b.sum()
        gains.append(diff * diff / (len(a) * len(b) * rows.sum()))
    # every split gains at least 0.5 by Friedman's measure, and the tree splits far
    # more than the squared error's does for the same threshold (its improvement is
    # the node's share of its decrease: one split here)
    assert min(gains) >= 0.5 - 1e-9
    squared = RandomForestRegressor(n_estimators=1, bootstrap=False, max_bins=64,
                                    min_impurity_decrease=0.5, random_state=0).fit(X, y)
    assert len(gains) > 100 * (squared.estimators_[0].tree_.feature >= 0).sum()


def test_monotonic_arrays_that_do_not_fit_are_refused():
    X, y = _data(200, 4)
    codes, flat, offsets, _ = _bins.binned_features(X[:, :3], 16, 1)
    w = np.ones(len(y))
    grow = lambda target, k, mono: _hist.build_tree(
        codes, flat, offsets, target.astype(np.int32), None, w, k, 0, 4, 2, 1, 0.0, 3,
        0.0, 1, monotonic=np.array(mono, dtype=np.int8))
    with pytest.raises(ValueError, match="2 entries for 3 features"):
        grow(y > 0, 2, [1, 0])
    with pytest.raises(ValueError, match="take two classes"):
        grow(y, 3, [1, 0, 0])
    with pytest.raises(ValueError, match="must be -1, 0 or 1"):
        grow(y > 0, 2, [2, 0, 0])
    assert len(grow(y > 0, 2, [1, -1, 0])[0]) > 1


def _nodes(forest):
    return [(t.tree_.feature.tolist(), t.tree_.threshold.tolist(),
             t.tree_.n_node_samples.tolist()) for t in forest.estimators_]


def test_weights_only_their_ratios_and_integer_histograms():
    # weights 1 take the two-class integer histograms, 0.5 the floating ones: one forest
    X, y = _data(800, 6, seed=5, missing=0.05)
    y = (y > 0).astype(int)
    make = lambda: RandomForestClassifier(n_estimators=5, max_bins=64, bootstrap=False,
                                          random_state=0)
    ones = make().fit(X, y)
    halves = make().fit(X, y, sample_weight=np.full(len(y), 0.5))
    assert _nodes(ones) == _nodes(halves)
    # and bootstrap counts (integers) with and without a common factor
    a = RandomForestClassifier(n_estimators=5, max_bins=64, random_state=0).fit(X, y)
    b = RandomForestClassifier(n_estimators=5, max_bins=64, random_state=0).fit(
        X, y, sample_weight=np.full(len(y), 0.25))
    assert _nodes(a) == _nodes(b)


@pytest.mark.parametrize("width", [12, 70])
def test_integer_histograms_for_every_batch_of_features(width):
    # the two-class integer histograms are summed for batches of 1 to 8 features at
    # once (and larger batches eight at a time), from records with codes (narrow) or
    # rows (wide): each batch size's trees are the floating histograms' trees
    X, y = _data(1500, width, seed=12, missing=0.05)
    y = (y > 0).astype(np.int32)
    codes, flat, offsets, exact = _bins.binned_features(X, 48, 1)
    w = np.random.default_rng(4).integers(1, 4, len(X)).astype(float)
    for m in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11):
        a, b = [_hist.build_tree(codes, flat, offsets, y, None, ww, 2, 0, 8, 2, 1, 0.0, m,
                                 0.0, 5, False, X=X, exact=exact) for ww in (w, w * 0.5)]
        assert len(a[0]) > 50
        assert np.array_equal(a[0]["feature"], b[0]["feature"])
        assert np.array_equal(a[0]["threshold"], b[0]["threshold"])
        assert np.array_equal(a[0]["n_node_samples"], b[0]["n_node_samples"])
        assert np.allclose(a[1], b[1], rtol=1e-12)


def test_threads_and_quantile_forest():
    X, y = _data(500, 5, seed=2, regression=True)
    one = RandomForestRegressor(n_estimators=6, max_bins=32, n_jobs=1,
                                random_state=0).fit(X, y)
    two = RandomForestRegressor(n_estimators=6, max_bins=32, n_jobs=2,
                                random_state=0).fit(X, y)
    assert _nodes(one) == _nodes(two)
    assert np.array_equal(one.predict(X), two.predict(X))
    quantile = RandomForestQuantileRegressor(n_estimators=6, max_bins=32,
                                             random_state=0).fit(X, y)
    assert _nodes(quantile) == _nodes(one)
    assert quantile.max_bins_ == 32


def test_auto_grows_exact_below_its_rows_and_binned_above(monkeypatch):
    X, y = _data(400, 5, seed=4)
    auto = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    exact = RandomForestClassifier(n_estimators=3, max_bins=None, random_state=0).fit(X, y)
    assert auto.max_bins_ is None and _nodes(auto) == _nodes(exact)
    monkeypatch.setattr(_bins, "AUTO_ROWS", 100)
    auto = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    binned = RandomForestClassifier(n_estimators=3, max_bins=255, random_state=0).fit(X, y)
    assert auto.max_bins_ == 255 and _nodes(auto) == _nodes(binned)
    # wide data (records without their codes) bins from proportionally more rows:
    # 128 features from twice AUTO_ROWS
    wide = np.repeat(X, 26, axis=1)[:, :128]
    for rows, bins in ((199, None), (200, 255)):
        assert RandomForestClassifier(n_estimators=2, random_state=0).fit(
            wide[:rows], y[:rows]).max_bins_ == bins
    assert RandomForestClassifier(n_estimators=2, random_state=0).fit(
        wide[:100, :64], y[:100]).max_bins_ == 255
    # what the binned builder does not take grows exact under "auto"
    for params in ({"criterion": "absolute_error"}, {"max_leaf_nodes": 8}):
        forest = RandomForestRegressor(n_estimators=2, random_state=0, **params)
        assert forest.fit(X, y).max_bins_ is None


@pytest.mark.parametrize("value, error", [(1, ValueError), (256, ValueError),
                                          ("all", TypeError), (True, TypeError),
                                          (2.5, TypeError)])
def test_bad_max_bins_refused(value, error):
    X, y = _data(100, 4)
    with pytest.raises(error, match="max_bins"):
        RandomForestClassifier(n_estimators=2, max_bins=value).fit(X, y)


@pytest.mark.parametrize("params, fit_with", [
    ({"criterion": "absolute_error"}, "regression"),
    ({"max_leaf_nodes": 5}, "classes"),
    ({}, "sparse"),
    ({"categorical_features": [0]}, "classes"),
])
def test_explicit_bins_that_cannot_be_honoured_are_refused(params, fit_with):
    X, y = _data(120, 4, levels=5)
    cls = RandomForestRegressor if fit_with == "regression" else RandomForestClassifier
    if fit_with == "sparse":
        X = csr_matrix(X)
    if "categorical_features" in params:
        X[:, 0] = np.arange(X.shape[0]) % 100      # more categories than bins
    forest = cls(n_estimators=2, max_bins=64, random_state=0, **params)
    with pytest.raises(ValueError, match="max_bins=64 cannot be honoured"):
        forest.fit(X, y)
    assert not hasattr(forest, "estimators_")


def test_extra_trees_take_no_max_bins():
    assert "max_bins" not in ExtraTreesClassifier().get_params()
    assert "max_bins" not in ExtraTreesClassifier.__doc__


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("width", [1, 6, 8, 9, 20, 24, 25, 30, 33, 64])
def test_records_with_codes_or_rows_grow_one_tree(regression, width):
    # the samples' records carry their codes (narrow data) or their rows (wide data):
    # one tree either way, for every kind of statistics and every record size (the
    # partition has loops for some sizes)
    X, y = _data(700, max(width, 4), seed=8, missing=0.1, regression=regression)
    X = X[:, :width]
    codes, flat, offsets, _ = _bins.binned_features(X, 40, 1)
    w = np.random.default_rng(0).integers(0, 3, len(X)).astype(float)
    targets = [y] if regression else [y, (y > 0).astype(int)]      # (3 and 2 classes)
    for weights, target in itertools.product((w, w * 0.3), targets):
        grown = []
        for compact in (64, 0):
            if regression:
                args = (None, target, weights, 1, 2)
            else:
                args = (target.astype(np.int32), None, weights, int(target.max()) + 1, 0)
            nodes, value, _, _ = _hist.build_tree(
                codes, flat, offsets, *args, 8, 2, 2, 0.0, 3, 0.0, 7, True,
                compact_features=compact)
            grown.append((nodes.tobytes(), value.tobytes()))
        assert grown[0] == grown[1]


@pytest.mark.parametrize("regression, min_leaf", [(False, 1), (False, 3), (True, 1),
                                                  (True, 2)])
def test_siblings_by_subtraction_grow_the_built_trees(regression, min_leaf):
    # every feature drawn: children's histograms by subtraction from their parent's
    # (integer weights: exact sums) give the trees that building every node's give
    X, y = _data(6000, 5, seed=9, missing=0.05, regression=regression)
    if not regression:
        y = (y > 0).astype(np.int32)                 # two classes: integer histograms
    codes, flat, offsets, _ = _bins.binned_features(X, 64, 1)
    w = np.random.default_rng(1).integers(0, 4, len(X)).astype(float)
    args = (None, y, w, 1, 2) if regression else (y, None, w, 2, 0)
    trees = [_hist.build_tree(codes, flat, offsets, *args, 10 ** 6, 2, min_leaf, 0.0, 5,
                              0.0, 3, True, subtract=subtract)
             for subtract in (True, False)]
    a, b = trees[0][0], trees[1][0]
    assert len(a) > 200
    assert np.array_equal(a["feature"], b["feature"])
    assert np.array_equal(a["n_node_samples"], b["n_node_samples"])
    if regression:      # (sums by subtraction round otherwise: the same cuts here)
        assert np.allclose(trees[0][1], trees[1][1], rtol=1e-12, atol=1e-9)
    else:
        assert np.array_equal(a["threshold"], b["threshold"])
        assert np.array_equal(trees[0][1], trees[1][1])


@pytest.mark.parametrize("regression, classes", [(False, 2), (False, 3), (True, 1)])
def test_children_at_the_greatest_depth_are_not_placed_and_alike(regression, classes):
    # a node whose children are at max_depth sums their statistics without placing its
    # samples (refined cuts included): the trees of placing them, node for node
    X, y = _data(3000, 6, seed=5, missing=0.05, regression=regression)
    if not regression:
        y = (y if classes == 3 else (y > 0)).astype(np.int32)
    codes, flat, offsets, exact = _bins.binned_features(X, 32, 1)
    for w in (np.random.default_rng(3).integers(0, 3, len(X)).astype(float),
              np.random.default_rng(3).uniform(0.1, 2.0, len(X))):
        args = (None, y, w, 1, 2) if regression else (y, None, w, classes, 0)
        for depth in (1, 3, 6):
            a, b = [_hist.build_tree(codes, flat, offsets, *args, depth, 2, 1, 0.0, 4,
                                     0.0, 11, False, X=X, exact=exact, skip_last=skip)
                    for skip in (True, False)]
            assert a[0].tobytes() == b[0].tobytes() and np.array_equal(a[1], b[1])
            assert a[2] == depth


def test_draw_counts_are_bincounts():
    drawn = np.random.default_rng(0).integers(0, 50, 400)
    assert np.array_equal(_hist.draw_counts(drawn, 60),
                          np.bincount(drawn, minlength=60).astype(float))
    with pytest.raises(ValueError, match="not a row"):
        _hist.draw_counts(np.array([0, 60]), 60)


@pytest.mark.parametrize("n, n_draws", [(1, 1), (1, 300), (2, 2), (3, 5), (1024, 1024),
                                        (1025, 3000), (300_000, 300_000), (12, 5000)])
def test_bag_counts_are_randints_draws(n, n_draws):
    """A bag drawn in C is RandomState.randint's draw counted (numpy's own draws as
    the reference: every row count, power-of-two ranges and one row included), its
    state left as it was; None where a row would be drawn more than 255 times."""
    for seed in (0, 17):
        state = np.random.RandomState(seed)
        counts = _hist.bag_counts(state, n, n_draws)
        want = np.bincount(state.randint(0, n, n_draws), minlength=n)
        if want.max() > 255:
            assert counts is None
            continue
        assert counts.dtype == np.uint8 and np.array_equal(counts, want)
    # after other draws (the state's position inside its 624 words)
    state = np.random.RandomState(5)
    state.randint(0, 7, 333)
    counts = _hist.bag_counts(state, 1000, 1000)
    assert np.array_equal(counts, np.bincount(state.randint(0, 1000, 1000), minlength=1000))
    assert _hist.bag_counts(state, 0, 10) is None
    assert _hist.bag_counts(np.random.RandomState(0), _hist.BAG_ROWS + 1, 1) is None


@pytest.mark.parametrize("regression", [False, True])
def test_a_boundary_inside_a_bin_is_found_where_the_exact_search_finds_it(regression):
    # 8 bins: the step at 0.3711 lies inside one; the binned cut is refined on the
    # values within its two bins, so the stump is the exact builder's, threshold too
    rng = np.random.default_rng(4)
    X = rng.random((3000, 2))
    y = (X[:, 0] > 0.3711).astype(float)
    if regression:
        y = y * 5.0 + rng.normal(0, 0.01, len(y))
    cls = RandomForestRegressor if regression else RandomForestClassifier
    stumps = [cls(n_estimators=1, bootstrap=False, max_features=None, max_depth=1,
                  max_bins=bins, random_state=0).fit(X, y).estimators_[0].tree_
              for bins in (8, None)]
    assert stumps[0].feature[0] == stumps[1].feature[0] == 0
    assert stumps[0].threshold[0] == stumps[1].threshold[0]
    edges = _bins.binned_features(X, 8, 1)[1]
    assert stumps[0].threshold[0] not in edges


def test_bins_of_one_value_are_marked_exact():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(0, 5, 300), rng.normal(size=300),
                         rng.integers(0, 3000, 300)]).astype(float)
    X[::9, 0] = np.nan
    assert _bins.binned_features(X, 255, 1)[3].tolist() == [1, 0, 0]


def _midpoints(j, x):
    values = np.unique(x)
    return (values[:-1] + values[1:]) / 2


def _best_exact(X, y, w, min_leaf, criterion):
    """_best_over every cut between two distinct values: the exact search's optimum."""
    return _best_over(X, y, w, _midpoints, min_leaf, False, criterion)


@pytest.mark.parametrize("criterion, classes, missing, min_leaf, weighted", [
    ("gini", 2, 0.0, 1, False),
    ("gini", 3, 0.1, 1, True),
    ("entropy", 2, 0.1, 3, False),
    ("entropy", 3, 0.0, 2, True),
])
def test_cuts_inside_bins_are_searched_up_to_the_tolerance(monkeypatch, criterion,
                                                           classes, missing, min_leaf,
                                                           weighted):
    # classes that flip every 1/40 of x0's range: 6 bins hold several flips each, so
    # the best cuts lie inside bins; a binned classifier's every split gains at least
    # 1 / (1 + INSIDE_TOL) of the exact optimum's (brute force; INSIDE_ABS 0), all
    # of it with 0, and without the search inside bins (a huge tolerance) some split
    # gains less
    rng = np.random.default_rng(7)
    n = 400
    X = rng.random((n, 3))
    y = np.floor(X[:, 0] * 40).astype(int) % classes
    noisy = rng.random(n) < 0.1
    y[noisy] = rng.integers(0, classes, noisy.sum())
    X[rng.random(X.shape) < missing] = np.nan
    w = rng.integers(1, 4, n) * 0.7 if weighted else np.ones(n)

    def worst_ratio(tol):
        monkeypatch.setattr(_hist, "INSIDE_TOL", tol)
        monkeypatch.setattr(_hist, "INSIDE_ABS", 0.0)
        forest = RandomForestClassifier(
            n_estimators=1, bootstrap=False, max_features=None, max_depth=5,
            min_samples_leaf=min_leaf, criterion=criterion, max_bins=6,
            random_state=0).fit(X, y, sample_weight=w)
        tree = forest.estimators_[0].tree_
        paths = tree.decision_path(X).toarray().astype(bool)
        worst = np.inf
        for node in range(tree.node_count):
            rows = paths[:, node]
            f = tree.feature[node]
            if f < 0:
                continue
            x = X[rows, f]
            left = np.where(np.isnan(x), bool(tree.missing_go_to_left[node]),
                            x <= tree.threshold[node])
            assert min(left.sum(), (~left).sum()) >= min_leaf
            got = _decrease(y[rows], w[rows], left, False, criterion)
            best = _best_exact(X[rows], y[rows], w[rows], min_leaf, criterion)
            worst = min(worst, (got + 1e-12) / (best + 1e-12))
        return worst

    assert worst_ratio(0.0) >= 1 - 1e-9
    assert worst_ratio(0.5) >= 1 / 1.5 - 1e-9
    assert worst_ratio(1e9) < 1 / 1.5


def test_uint8_counts_grow_the_float_counts_trees(monkeypatch):
    # unit weights: the binned forest's trees take their bootstrap counts as uint8,
    # drawn in chunks (the same stream); equal weights of 2 take the float64 path:
    # the same trees (a tree depends on the weights' ratios only)
    from rotforest import forest as forest_module
    monkeypatch.setattr(forest_module, "_DRAW_CHUNK", 97)
    X, y = _data(700, 5, seed=9)
    unit = RandomForestClassifier(n_estimators=4, max_bins=32, random_state=3).fit(X, y)
    twos = RandomForestClassifier(n_estimators=4, max_bins=32, random_state=3).fit(
        X, y, sample_weight=np.full(len(y), 2.0))
    assert _nodes(unit) == _nodes(twos)
    for a, b in zip(unit.estimators_, twos.estimators_):
        assert np.array_equal(a.tree_.value, b.tree_.value)
        assert np.allclose(2 * a.tree_.weighted_n_node_samples,
                           b.tree_.weighted_n_node_samples)
    # the counts against the draw's bincount, and a row drawn more than 255 times
    drawn = np.random.RandomState(0).randint(0, 50, 400)
    counts = _hist.draw_counts(drawn, 50, out=np.zeros(50, np.uint8))
    assert counts.dtype == np.uint8 and np.array_equal(counts, np.bincount(drawn,
                                                                           minlength=50))
    many = np.zeros(300, dtype=np.int64)
    assert _hist.draw_counts(many, 3).tolist() == [300.0, 0.0, 0.0]
    assert _hist.draw_counts(many, 3, out=np.zeros(3, np.uint8)) is None


def _categorical_data(n, n_classes, seed):
    """Three categorical features (4, 12 and 40 levels with rare ones, spread codes,
    missing values) and one numeric of few values."""
    rng = np.random.default_rng(seed)
    levels = (4, 12, 40)
    X = np.column_stack([rng.zipf(1.6, n) % k for k in levels] + [rng.integers(0, 6, n)])
    X = X.astype(float)
    X[:, 1] = X[:, 1] * 7 + 3
    X[rng.random(n) < 0.05, 0] = np.nan
    X[rng.random(n) < 0.05, 2] = np.nan
    effect = rng.normal(size=300)
    codes = np.nan_to_num(X[:, :3], nan=299).astype(int)
    signal = effect[codes].sum(axis=1) + 0.3 * X[:, 3] + rng.normal(size=n)
    if n_classes == 0:
        return X, signal
    return X, np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))


def _same_set_trees(make, X, y, common):
    """A one-tree forest fitted on 255 bins and exact: the same tree node for node (at
    least three splits on sets, the same sets of codes); both forests."""
    binned = make(max_bins=255, **common).fit(X, y)
    exact = make(max_bins=None, **common).fit(X, y)
    a, b = binned.estimators_[0].tree_, exact.estimators_[0].tree_
    assert binned.max_bins_ == 255 and exact.max_bins_ is None
    for field in ("left_child", "feature", "n_node_samples", "missing_go_to_left"):
        np.testing.assert_array_equal(a.nodes[field], b.nodes[field])
    np.testing.assert_array_equal(a.threshold, b.threshold)
    sets = np.flatnonzero(np.isnan(a.threshold) & (a.children_left != -1))
    assert len(sets) >= 3
    for node in sets:
        np.testing.assert_array_equal(a.categories_left(node), b.categories_left(node))
    return binned, exact


@pytest.mark.parametrize("n_classes", [2, 3, 0, -1])
@pytest.mark.parametrize("support", [1, 10])
def test_categorical_sets_on_bins_are_the_exact_builders(n_classes, support):
    """Each bin one category: a binned tree's splits on sets (levels pooled below
    min_category_samples; two classes and regression by the levels' order, more classes
    by every partition or the principal axis; Poisson too) are the exact builder's,
    node for node, sets of codes included, and they route unseen codes and missing
    values alike."""
    X, y = _categorical_data(3000, max(n_classes, 0), 0)
    regression = n_classes <= 0
    make = RandomForestRegressor if regression else RandomForestClassifier
    extra = {}
    if n_classes == -1:                 # Poisson: counts
        y = np.floor(np.exp(y / 2))
        extra = dict(criterion="poisson")
    common = dict(n_estimators=1, bootstrap=False, max_features=None, max_depth=3,
                  **extra,
                  categorical_features=[0, 1, 2], categorical_set_fraction=1.0,
                  min_category_samples=support, random_state=0)
    binned, exact = _same_set_trees(make, X, y, common)
    unseen = X[:200].copy()
    unseen[::3, 1] = 1000.0         # codes never seen
    unseen[1::3, 2] = np.nan
    np.testing.assert_array_equal(binned.estimators_[0].apply(unseen),
                                  exact.estimators_[0].apply(unseen))


def test_categorical_forests_on_bins_and_the_rule_of_auto(monkeypatch):
    """A binned forest with categorical features keeps each tree's draw of set features
    (categorical_set_fraction), matches the exact forest's accuracy, and "auto" bins
    it unless a categorical feature has more than 255 categories."""
    X, y = _categorical_data(6000, 2, 1)
    common = dict(n_estimators=20, categorical_features=[0, 1, 2], random_state=0)
    binned = RandomForestClassifier(max_bins=255, **common).fit(X[:4000], y[:4000])
    exact = RandomForestClassifier(max_bins=None, **common).fit(X[:4000], y[:4000])
    kinds = {bool(np.isnan(t.tree_.threshold[t.tree_.feature == 1]).all())
             for t in binned.estimators_ if (t.tree_.feature == 1).any()}
    assert kinds == {True, False}       # sets in some trees, thresholds in others
    assert abs(binned.score(X[4000:], y[4000:]) - exact.score(X[4000:], y[4000:])) < 0.02
    monkeypatch.setattr(_bins, "AUTO_ROWS", 1000)
    assert RandomForestClassifier(n_estimators=2, **{k: v for k, v in common.items()
                                                     if k != "n_estimators"}
                                  ).fit(X, y).max_bins_ == 255
    X[:, 2] = np.arange(len(X)) % 300                  # more categories than bins
    auto = RandomForestClassifier(n_estimators=2, categorical_features=[0, 1, 2],
                                  random_state=0).fit(X, y)
    assert auto.max_bins_ is None


@pytest.mark.parametrize("criterion, levels", [("gini", None), ("entropy", 12),
                                               ("squared_error", None),
                                               ("squared_error", 12), ("poisson", None)])
def test_several_outputs_split_at_the_best_edge(criterion, levels):
    """Several outputs: every split is the best cut at the bins' edges (brute force on
    the mean of the outputs' impurities, missing values on either side), its threshold
    an edge; the leaves hold each output's class fractions (means)."""
    regression = criterion in ("squared_error", "poisson")
    X, y0 = _data(300, 4, seed=5, levels=levels, missing=0.1, regression=regression)
    _, y1 = _data(300, 4, seed=6, levels=levels, regression=regression)
    Y = np.column_stack([y0, y1 if regression else y1 % 2])
    if criterion == "poisson":
        Y = np.floor(np.exp(Y / 3))
    cls = RandomForestRegressor if regression else RandomForestClassifier
    forest = cls(n_estimators=1, bootstrap=False, max_features=None, max_depth=4,
                 criterion=criterion, max_bins=24, random_state=0).fit(X, Y)
    assert forest.max_bins_ == 24
    _, flat, offsets, _ = _bins.binned_features(X, 24, 1)
    tree = forest.estimators_[0].tree_
    target = Y if regression else np.column_stack(
        [np.searchsorted(c, Y[:, o]) for o, c in enumerate(forest.classes_)])
    w = np.ones(len(Y))

    def decrease(rows, left):
        return np.mean([_decrease(target[rows, o], w[rows], left, regression, criterion)
                        for o in range(2)])

    paths = tree.decision_path(X).toarray().astype(bool)
    splits = 0
    for node in np.flatnonzero(tree.children_left != -1):
        rows = paths[:, node]
        f = tree.feature[node]
        got = decrease(rows, _goes_left(tree, node, X[rows, f]))
        best = -np.inf
        for j in range(X.shape[1]):
            x = X[rows, j]
            for thr in list(flat[offsets[j]:offsets[j + 1]]) + [np.inf]:
                for nan_left in (False, True):
                    left = np.where(np.isnan(x), nan_left, x <= thr)
                    if left.all() or not left.any():
                        continue
                    gain = decrease(rows, left)
                    if np.isfinite(gain):
                        best = max(best, gain)
        assert got == pytest.approx(best, rel=1e-9, abs=1e-12), node
        assert tree.threshold[node] in set(flat[offsets[f]:offsets[f + 1]]) | {np.inf}
        splits += 1
    assert splits > 5
    leaves = forest.estimators_[0].apply(X)
    for node in np.unique(leaves)[:5]:
        rows = leaves == node
        for o in range(2):
            if regression:
                want = [Y[rows, o].mean()]
            else:
                k = len(forest.classes_[o])
                want = np.bincount(target[rows, o], minlength=k) / rows.sum()
            np.testing.assert_allclose(tree.value[node, o, :len(want)], want, rtol=1e-12)


@pytest.mark.parametrize("kind", ["classes", "three_classes", "squared_error",
                                  "friedman_mse", "poisson"])
@pytest.mark.parametrize("support", [1, 10])
def test_several_outputs_split_on_the_exact_builders_sets(kind, support):
    """Several outputs with categorical features: each bin one category, a binned
    tree's splits on sets (every partition of few levels, else the order by each
    class's share or each output's mean in turn, rare levels pooled) are the exact
    builder's node for node, sets of codes and leaf values included."""
    X, y = _categorical_data(3000, 0, 2)
    _, z = _categorical_data(3000, 0, 3)
    regression = kind in ("squared_error", "friedman_mse", "poisson")
    if regression:
        Y = np.column_stack([y, -y + 0.5 * z, z])
        if kind == "poisson":
            Y = np.floor(np.exp(Y / 2))
        make = RandomForestRegressor
    else:
        k = 3 if kind == "three_classes" else 2
        Y = np.column_stack([np.digitize(v, np.quantile(v, np.linspace(0, 1, k + 1)[1:-1]))
                             for v in (y, z, y + z)])
        make = RandomForestClassifier
    common = dict(n_estimators=1, bootstrap=False, max_features=None, max_depth=4,
                  criterion=kind if regression else "gini",
                  categorical_features=[0, 1, 2], categorical_set_fraction=1.0,
                  min_category_samples=support, random_state=0)
    binned, exact = _same_set_trees(make, X, Y, common)
    np.testing.assert_allclose(binned.estimators_[0].tree_.value,
                               exact.estimators_[0].tree_.value, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(binned.predict(X[:300]), exact.predict(X[:300]),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("decrease", [0.0, 10.0, 50.0])
def test_several_outputs_friedman_on_bins_is_the_exact_builders(decrease):
    """friedman_mse with several outputs: the squared error's split of the outputs'
    sum, Friedman's improvement of their mean for min_impurity_decrease; on features
    whose bins hold one value each, the binned tree is the exact builder's node for
    node (features, the samples each node holds, impurities, values; a threshold that
    sends every present value one way and the missing ones the other is the exact
    builder's largest value or the binned one's edge above it)."""
    X, y0 = _data(800, 4, seed=7, levels=12, missing=0.05, regression=True)
    _, y1 = _data(800, 4, seed=8, levels=12, regression=True)
    Y = np.column_stack([y0, 0.3 * y0 + y1, -y1])
    common = dict(n_estimators=1, bootstrap=False, max_features=None, max_depth=6,
                  min_samples_leaf=5, criterion="friedman_mse", random_state=0)
    grown = RandomForestRegressor(max_bins=24, **common).fit(X, Y).estimators_[0].tree_
    common["min_impurity_decrease"] = decrease
    binned = RandomForestRegressor(max_bins=24, **common).fit(X, Y)
    exact = RandomForestRegressor(max_bins=None, **common).fit(X, Y)
    assert binned.max_bins_ == 24
    a, b = binned.estimators_[0].tree_, exact.estimators_[0].tree_
    assert a.node_count > 15 and (a.node_count < grown.node_count) == (decrease > 0)
    for field in ("left_child", "feature", "n_node_samples"):
        np.testing.assert_array_equal(a.nodes[field], b.nodes[field])
    np.testing.assert_array_equal(binned.estimators_[0].apply(X),
                                  exact.estimators_[0].apply(X))
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-9, atol=1e-12)
    # not the squared error's tree (whose split is the sum of the outputs' gains)
    squared = RandomForestRegressor(max_bins=24, **dict(common, criterion="squared_error")
                                    ).fit(X, Y).estimators_[0].tree_
    assert (squared.node_count != a.node_count
            or not np.array_equal(squared.feature, a.feature)
            or not np.array_equal(squared.threshold, a.threshold))


def test_several_outputs_bin_with_categories_and_friedman(monkeypatch):
    """"auto" bins several outputs, with categorical features and with friedman_mse."""
    monkeypatch.setattr(_bins, "AUTO_ROWS", 100)       # ("auto" bins what it can)
    X, y = _data(200, 4, levels=5)
    assert RandomForestClassifier(n_estimators=2).fit(X, np.column_stack([y, y])
                                                      ).max_bins_ == 255
    assert RandomForestClassifier(n_estimators=2, categorical_features=[0]).fit(
        X, np.column_stack([y, y])).max_bins_ == 255
    assert RandomForestRegressor(n_estimators=2, criterion="friedman_mse").fit(
        X, np.column_stack([X[:, 0], X[:, 1]])).max_bins_ == 255


@pytest.mark.parametrize("p", [5, 13, 20, 28])
def test_narrow_records_grow_the_wide_records_trees(p):
    """Two classes with integer weights below 2^16 may take 4-byte payloads (records 4
    bytes shorter, 4-byte aligned; for large trees): the same trees as the 8-byte
    payloads, node for node, with refined cuts, searches inside bins, missing values, sets of categories,
    random feature draws, small nodes' lazy histograms, subtraction and forks in
    threads; weights of 2^16 and more take the wide records."""
    rng = np.random.default_rng(p)
    n = 6000
    X = rng.normal(size=(n, p))
    X[:, 1] = np.round(X[:, 1] * 3)
    X[rng.random(X.shape) < 0.03] = np.nan
    X[:, 2] = rng.integers(0, 9, n)                      # categorical
    y = ((np.nan_to_num(X[:, 0]) + 0.4 * (X[:, 2] % 3) + rng.normal(size=n)) > 0.3)
    y = y.astype(np.int32)
    mask = np.zeros(p, dtype=bool)
    mask[2] = True
    binned = _bins.binned_features(X, 32, 1, mask)
    codes, flat, offsets, exact = binned[:4]
    table = _bins.category_table(X, mask, binned)
    for w in (rng.integers(0, 4, n).astype(float), rng.integers(0, 60000, n).astype(float),
              np.where(rng.random(n) < 0.5, 1.0, 70000.0)):
        # (forks: trees without sets of categories)
        for max_features, fork_rows, categories in ((p, 0, table), (3, 0, table),
                                                    (p, 500, None), (3, 500, None)):
            a, b = [_hist.build_tree(codes, flat, offsets, y, None, w, 2, 0, 12, 2, 1,
                                     0.0, max_features, 0.0, 7, False, X=X, exact=exact,
                                     categories=categories, threads=2,
                                     fork_rows=fork_rows, narrow_from=narrow)
                    for narrow in (0, -1)]
            assert a[0].tobytes() == b[0].tobytes() and np.array_equal(a[1], b[1])
            if categories is not None:
                assert a[3] is not None and np.array_equal(a[3], b[3])
            assert len(a[0]) > 50
