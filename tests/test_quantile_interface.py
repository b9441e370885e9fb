"""quantile-forest's interface on our quantile forests: quantile_ranks,
proximity_counts and out-of-bag reading of a subset of the training rows
(``indices``), each against a brute-force computation from the forest's leaves
(``apply``) and in-bag counts (``estimators_samples_``), not from its leaf lists."""
import numpy as np
import pytest
from sklearn.datasets import make_regression

from helpers import trees_of
from rotforest import (ExtraTreesQuantileRegressor, RandomForestQuantileRegressor,
                       RotationForestQuantileRegressor)

QUANTILE_FORESTS = [RandomForestQuantileRegressor, ExtraTreesQuantileRegressor,
                    RotationForestQuantileRegressor]


@pytest.fixture(scope="module")
def data():
    X, y = make_regression(160, 4, noise=15.0, random_state=0)
    y = np.round(y, 0)                                       # some tied targets
    return X, y


def _fitted(cls, data, weighted=False):
    X, y = data
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y)) if weighted else None
    forest = cls(n_estimators=12, bootstrap=True, min_samples_leaf=3, random_state=0)
    return forest.fit(X, y, sample_weight=sw), sw


def _brute(forest, X_train, sw, X, own=None, copies_of=None):
    """Each row's copies of every training row (N times its weight, see the Notes)
    and its multiplicities summed over the trees that predict it."""
    n = X_train.shape[0]
    # (the random forests drew their bootstrap rows by weight: the counts alone weigh
    # the rows, see the Notes; the rotation forest multiplies counts by weights)
    if sw is None or not isinstance(forest, RotationForestQuantileRegressor):
        sw = np.ones(n)
    inbag = np.array([np.bincount(s, minlength=n) for s in forest.estimators_samples_],
                     dtype=float)
    train_leaves, leaves = forest.apply(X_train), forest.apply(X)
    copies = np.zeros((len(X), n))
    mult = np.zeros((len(X), n))
    for i in range(len(X)):
        weights, N, used = np.zeros(n), 0.0, 0
        for t in range(inbag.shape[0]):
            same = train_leaves[:, t] == leaves[i, t]
            if own is not None and own[i] >= 0 and inbag[t, own[i]] > 0:
                continue
            if copies_of is not None and own[i] >= 0 and np.any(
                    inbag[t, list(copies_of.get(own[i], ()))] > 0):
                continue
            c = inbag[t] * same
            if c.sum() == 0:
                continue
            weights += c * sw / (c * sw).sum()
            N += c.sum()
            used += 1
            mult[i] += c
        copies[i] = weights / max(used, 1) * N
    return copies, mult


@pytest.mark.parametrize("cls", QUANTILE_FORESTS)
@pytest.mark.parametrize("weighted", [False, True])
def test_quantile_ranks_are_the_shares_of_the_weighted_targets(cls, weighted, data):
    X, y = data
    forest, sw = _fitted(cls, data, weighted)
    Xt, yt = X[:25] + 0.05, y[:25] + np.r_[np.zeros(10), np.full(15, 3.0)]
    copies, _ = _brute(forest, X, sw, Xt)
    N = copies.sum(1)
    L = (copies * (y[None, :] < yt[:, None])).sum(1)
    R = (copies * (y[None, :] <= yt[:, None])).sum(1)
    match = ((copies > 0) & (y[None, :] == yt[:, None])).any(1)
    expected = {"weak": R / N, "strict": L / N, "mean": (L + R) / (2 * N),
                "rank": (L + R + match) / (2 * N)}
    for kind, value in expected.items():
        np.testing.assert_allclose(forest.quantile_ranks(Xt, yt, kind=kind), value,
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls", QUANTILE_FORESTS)
def test_proximity_counts_are_shared_leaves_times_multiplicities(cls, data):
    X, y = data
    forest, sw = _fitted(cls, data)
    _, mult = _brute(forest, X, sw, X[:8])
    got = forest.proximity_counts(X[:8])
    for i, pairs in enumerate(got):
        assert dict(pairs) == {j: int(c) for j, c in enumerate(mult[i]) if c > 0}
        counts = [c for _, c in pairs]
        assert counts == sorted(counts, reverse=True)
    top = forest.proximity_counts(X[:8], max_proximities=3)
    assert all(t == g[:3] for t, g in zip(top, got))
    unsorted = forest.proximity_counts(X[:8], return_sorted=False)
    assert all([j for j, _ in p] == sorted(j for j, _ in p) for p in unsorted)
    _, oob_mult = _brute(forest, X, sw, X[:8], own=np.arange(8))
    oob = forest.proximity_counts(X[:8], oob_score=True, indices=np.arange(8))
    for i, pairs in enumerate(oob):
        assert dict(pairs) == {j: int(c) for j, c in enumerate(oob_mult[i]) if c > 0}
        assert i not in dict(pairs)            # no tree grown with the row predicts it


@pytest.mark.parametrize("cls", QUANTILE_FORESTS)
def test_out_of_bag_on_a_subset_of_the_training_rows(cls, data):
    X, y = data
    forest, _ = _fitted(cls, data)
    q = [0.2, 0.5, 0.8]
    full = forest.predict(X, quantiles=q, oob_score=True)
    pick = np.array([5, 77, 3, 150, 3])
    np.testing.assert_array_equal(
        forest.predict(X[pick], quantiles=q, oob_score=True, indices=pick), full[pick])
    np.testing.assert_array_equal(
        forest.predict(X[pick], quantiles="mean", oob_score=True, indices=pick),
        forest.predict(X, quantiles="mean", oob_score=True)[pick])
    # -1: not a training row, predicted by every tree
    rows = np.vstack([X[:2], X[:1] + 1.0])
    np.testing.assert_array_equal(
        forest.predict(rows, quantiles=q, oob_score=True, indices=[-1, 1, -1])[[0, 2]],
        forest.predict(rows, quantiles=q)[[0, 2]])
    copies, _ = _brute(forest, X, None, X[pick], own=pick)
    ranks = forest.quantile_ranks(X[pick], y[pick], kind="weak", oob_score=True,
                                  indices=pick)
    np.testing.assert_allclose(
        ranks, (copies * (y[None, :] <= y[pick][:, None])).sum(1) / copies.sum(1),
        rtol=1e-10)


def test_bad_out_of_bag_arguments_say_what_is_wrong(data):
    X, y = data
    forest, _ = _fitted(RandomForestQuantileRegressor, data)
    with pytest.raises(ValueError, match="indices and duplicates are read only"):
        forest.predict(X[:3], indices=[0, 1, 2])
    with pytest.raises(ValueError, match=r"indices must lie in \[-1, 159\]"):
        forest.predict(X[:2], oob_score=True, indices=[0, 160])
    with pytest.raises(ValueError, match="indices must be 2 ints"):
        forest.predict(X[:2], oob_score=True, indices=[0.5, 1])
    with pytest.raises(ValueError, match="read only with oob_score=True"):
        forest.quantile_ranks(X[:2], y[:2], duplicates=[[0, 1]])
    with pytest.raises(ValueError, match=r"duplicates must hold training row indices"):
        forest.predict(X, 0.5, oob_score=True, duplicates=[[0, 400]])
    with pytest.raises(ValueError, match="duplicates must be a list of lists"):
        forest.predict(X, 0.5, oob_score=True, duplicates=[["a"]])
    with pytest.raises(ValueError, match="kind must be one of"):
        forest.quantile_ranks(X[:2], y[:2], kind="median")
    with pytest.raises(ValueError, match="one target for each of the 2 rows"):
        forest.quantile_ranks(X[:2], y[:3])
    with pytest.raises(ValueError, match="max_proximities must be an int >= 1"):
        forest.proximity_counts(X[:2], max_proximities=0)
    unbagged = RandomForestQuantileRegressor(n_estimators=3, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match="bootstrap=True"):
        unbagged.proximity_counts(X[:2], oob_score=True, indices=[0, 1])


def _tree_counts(forest, X_train, x):
    """Each tree's multiplicities of the training rows in x's leaf (trees x rows)."""
    n = X_train.shape[0]
    inbag = np.array([np.bincount(s, minlength=n) for s in forest.estimators_samples_])
    same = forest.apply(X_train) == forest.apply(x[None, :])[0][None, :]
    return inbag * same.T


@pytest.mark.parametrize("cls", QUANTILE_FORESTS)
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_forests_options_are_numpys_quantiles_of_the_copies(cls, method, data):
    """weighted_leaves=False pools the leaves' copies; weighted_quantile=False also
    ignores the sample weights; aggregate_leaves_first=False averages each tree's
    quantile of its own leaf: with whole copies, numpy's quantiles of the targets
    repeated."""
    X, y = data
    forest, sw = _fitted(cls, data, weighted=True)
    q = np.array([0.0, 0.1, 0.37, 0.5, 0.9, 1.0])
    Xt = X[:6] + 0.05
    pooled = forest.predict(Xt, q, method, weighted_quantile=False)
    per_tree = forest.predict(Xt, q, method, weighted_quantile=False,
                              aggregate_leaves_first=False)
    ranks = forest.quantile_ranks(Xt, y[:6], kind="weak", aggregate_leaves_first=False)
    for i, x in enumerate(Xt):
        counts = _tree_counts(forest, X, x)
        np.testing.assert_allclose(
            pooled[i], np.quantile(np.repeat(y, counts.sum(0)), q, method=method),
            rtol=1e-12)
        trees = [np.repeat(y, c) for c in counts if c.sum() > 0]
        np.testing.assert_allclose(
            per_tree[i], np.mean([np.quantile(v, q, method=method) for v in trees], 0),
            rtol=1e-12)
        w = sw if isinstance(forest, RotationForestQuantileRegressor) else np.ones(len(y))
        np.testing.assert_allclose(
            ranks[i], np.mean([np.average(y <= y[i], weights=c * w)
                               for c in counts if c.sum() > 0]), rtol=1e-12)
    if not isinstance(forest, RotationForestQuantileRegressor):
        # the random forests' rows weigh their counts alone: the sample weights change
        # nothing (see the Notes)
        np.testing.assert_array_equal(forest.predict(Xt, q, method, weighted_leaves=False),
                                      pooled)
    np.testing.assert_allclose(forest.predict(Xt, "mean", weighted_quantile=False),
                               [np.average(y, weights=_tree_counts(forest, X, x).sum(0))
                                for x in Xt], rtol=1e-12)


def test_pooled_leaves_weigh_the_rotation_forests_sample_weights(data):
    X, y = data
    forest, sw = _fitted(RotationForestQuantileRegressor, data, weighted=True)
    x = X[3] + 0.05
    copies = _tree_counts(forest, X, x).sum(0) * sw
    np.testing.assert_allclose(forest.predict(x[None, :], "mean", weighted_leaves=False),
                               [np.average(y, weights=copies)], rtol=1e-12)
    with pytest.raises(TypeError, match="weighted_leaves must be a bool"):
        forest.predict(X[:2], weighted_leaves=None)


@pytest.mark.parametrize("cls", QUANTILE_FORESTS)
@pytest.mark.parametrize("max_samples_leaf", [1, 3, 0.02])
def test_max_samples_leaf_keeps_that_many_copies_of_the_leaves_rows(
        cls, max_samples_leaf, data):
    """Each leaf keeps at most k of its copies, drawn from its own (so every kept
    row was in the leaf and in the tree's bag); out of bag still leaves out every tree
    grown with the row, kept in its leaf or not."""
    X, y = data
    k = max_samples_leaf if isinstance(max_samples_leaf, int) else int(
        np.ceil(max_samples_leaf * len(y)))
    forest = cls(n_estimators=8, bootstrap=True, max_samples_leaf=max_samples_leaf,
                 random_state=0).fit(X, y)
    full = cls(n_estimators=8, bootstrap=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(forest.apply(X), full.apply(X))     # the same trees
    for i, x in enumerate(X[:10]):
        counts = _tree_counts(full, X, x)
        kept = forest.proximity_counts(x[None, :])[0]
        per_tree = [dict() for _ in range(8)]
        leaves = forest.apply(x[None, :])[0]
        lists = forest._leaf_lists
        index_of = np.argsort(lists.rank)
        for t in range(8):
            a = lists.row_base[t] + lists.offsets[lists.node_base[t] + leaves[t]]
            b = lists.row_base[t] + lists.offsets[lists.node_base[t] + leaves[t] + 1]
            c = np.ones(b - a) if lists.counts is None else lists.counts[a:b]
            per_tree[t] = dict(zip(index_of[lists.rows[a:b]].tolist(), c.tolist()))
            assert sum(per_tree[t].values()) == min(k, counts[t].sum())
            assert all(counts[t][j] >= m for j, m in per_tree[t].items())
        total = {}
        for d in per_tree:
            for j, m in d.items():
                total[j] = total.get(j, 0) + m
        assert dict(kept) == total
    # out of bag: a tree grown with row 0 does not predict it even where its leaf
    # kept other rows
    inbag = np.array([np.bincount(s, minlength=len(y)) for s in full.estimators_samples_])
    oob = forest.proximity_counts(X[:1], oob_score=True, indices=[0])[0]
    grown = set(np.flatnonzero(inbag[:, 0] > 0))
    expected = {}
    leaves = forest.apply(X[:1])[0]
    for t in range(8):
        if t in grown:
            continue
        same = np.flatnonzero(forest.apply(X)[:, t] == leaves[t])
        expected.update({j: expected.get(j, 0) for j in same})
    assert 0 not in dict(oob) and set(dict(oob)) <= set(expected)


def test_max_samples_leaf_refuses_what_it_cannot_read(data):
    X, y = data
    for bad in (0, 1.5, -2, "one", True):
        with pytest.raises(ValueError, match="max_samples_leaf"):
            RandomForestQuantileRegressor(n_estimators=2, max_samples_leaf=bad).fit(X, y)


@pytest.mark.parametrize("cls", [RandomForestQuantileRegressor, ExtraTreesQuantileRegressor])
def test_monotonic_constraints_hold_for_every_quantile_with_one_row_a_leaf(cls):
    """With max_samples_leaf=1 each tree's clipped values follow the constraints, and
    so does every quantile of them; with more rows a leaf the constraint is refused
    (a quantile of several targets need not follow it), leaving the model as it was."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (400, 3))
    y = 2 * X[:, 0] - 3 * X[:, 1] + rng.normal(0, 1.5, 400)
    forest = cls(n_estimators=20, max_samples_leaf=1, monotonic_cst=[1, -1, 0],
                 bootstrap=True, random_state=0).fit(X, y)
    q = [0.05, 0.25, 0.5, 0.75, 0.95]
    base = rng.uniform(-1, 1, (300, 3))
    for feature, sign in ((0, 1), (1, -1)):
        moved = base.copy()
        moved[:, feature] += rng.uniform(0, 0.5, 300)
        for method in ("linear", "lower", "nearest"):
            diff = (forest.predict(moved, q, method) - forest.predict(base, q, method)) * sign
            assert diff.min() >= -1e-12
        # the clipped values are the trees' own: each tree follows the constraint
        for t in range(3):
            one = forest._value_lists()
            vals = lambda Z: one.ys[one.rows[one.row_base[t] + one.offsets[
                one.node_base[t] + forest.apply(Z)[:, t]]]]
            assert ((vals(moved) - vals(base)) * sign).min() >= -1e-12
    oob = forest.predict(X, q, oob_score=True)
    assert np.all(np.diff(oob[~np.isnan(oob).any(1)], axis=1) >= -1e-12)
    # unconstrained, leaves of one row break it: the refusal is for a reason
    free = cls(n_estimators=20, max_samples_leaf=1, bootstrap=True, random_state=0).fit(X, y)
    moved = base.copy()
    moved[:, 0] += 0.3
    assert (free.predict(moved, q) - free.predict(base, q)).min() < 0
    before = forest.predict(base, q)
    with pytest.raises(ValueError, match="monotonic_cst needs max_samples_leaf=1"):
        forest.set_params(max_samples_leaf=None).fit(X, y)
    np.testing.assert_array_equal(forest.predict(base, q), before)


def test_quantile_forests_smaller_options_read_as_quantile_forest_reads_them(data):
    """default_quantiles=None is the mean; score(quantiles=) scores other levels;
    fit(sparse_pickle=) is accepted (the lists are compact either way); integral float
    indices are taken; rows that every tree drew warn out of bag."""
    from sklearn.metrics import d2_pinball_score, r2_score
    X, y = data
    forest = RandomForestQuantileRegressor(n_estimators=4, bootstrap=True,
                                           default_quantiles=None, random_state=0)
    forest.fit(X, y, sparse_pickle=True)
    np.testing.assert_array_equal(forest.predict(X[:5]), forest.predict(X[:5], "mean"))
    assert forest.score(X, y) == pytest.approx(r2_score(y, forest.predict(X, "mean")))
    assert forest.score(X, y, quantiles=0.9) == pytest.approx(
        d2_pinball_score(y, forest.predict(X, 0.9), alpha=0.9))
    np.testing.assert_array_equal(
        forest.predict(X[:3], 0.5, oob_score=True, indices=np.array([0.0, 1.0, 2.0])),
        forest.predict(X[:3], 0.5, oob_score=True, indices=[0, 1, 2]))
    with pytest.warns(UserWarning, match="no out-of-bag prediction"):
        oob = forest.predict(X, 0.5, oob_score=True)
    inbag = np.array([np.bincount(s, minlength=len(y)) for s in forest.estimators_samples_])
    np.testing.assert_array_equal(np.isnan(oob), (inbag > 0).all(0))
    for t, tree in enumerate(forest.estimators_):
        np.testing.assert_array_equal(forest._get_unsampled_indices(tree),
                                      np.flatnonzero(inbag[t] == 0))
    with pytest.raises(TypeError, match="sparse_pickle must be a bool"):
        forest.fit(X, y, sparse_pickle="yes")


@pytest.mark.parametrize("cls", QUANTILE_FORESTS)
@pytest.mark.parametrize("max_samples_leaf", [None, 2])
def test_duplicates_leave_out_the_trees_grown_with_any_copy(cls, max_samples_leaf, data):
    """quantile-forest's duplicates: out of bag, a row is predicted only by the trees
    grown with none of its copies (sets joined where they share a row)."""
    X, y = data
    forest = cls(n_estimators=10, bootstrap=True, max_samples_leaf=max_samples_leaf,
                 random_state=0).fit(X, y)
    duplicates = [[0, 1], [1, 7], [20, 21, 22]]
    copies_of = {0: {0, 1, 7}, 1: {0, 1, 7}, 7: {0, 1, 7}, 20: {20, 21, 22},
                 21: {20, 21, 22}, 22: {20, 21, 22}}
    rows = np.array([0, 1, 7, 20, 22, 30])
    _, mult = _brute(forest, X, None, X[rows], own=rows, copies_of=copies_of)
    got = forest.proximity_counts(X[rows], oob_score=True, indices=rows,
                                  duplicates=duplicates)
    for i, pairs in enumerate(got):
        expected = {j: int(c) for j, c in enumerate(mult[i]) if c > 0}
        if max_samples_leaf is None:
            assert dict(pairs) == expected
        else:       # some of the leaves' copies kept: never a tree grown with a copy
            assert all(0 < c <= expected.get(j, 0) for j, c in pairs)
    full = forest.predict(X, [0.3, 0.7], oob_score=True, duplicates=duplicates)
    np.testing.assert_array_equal(
        full[rows], forest.predict(X[rows], [0.3, 0.7], oob_score=True, indices=rows,
                                   duplicates=duplicates))
    plain = forest.predict(X, [0.3, 0.7], oob_score=True)
    others = np.setdiff1d(np.arange(len(y)), [0, 1, 7, 20, 21, 22])
    np.testing.assert_array_equal(full[others], plain[others])
    inbag = np.array([np.bincount(s, minlength=len(y)) for s in forest.estimators_samples_])
    for t, tree in enumerate(trees_of(forest)):
        unsampled = forest._get_unsampled_indices(tree, duplicates=duplicates)
        expected = [j for j in range(len(y))
                    if not any(inbag[t, k] > 0 for k in copies_of.get(j, {j}))]
        np.testing.assert_array_equal(unsampled, expected)
