"""Forks of the binned builder (_hist_forks.pxi): a large tree grown as its top and the
subtrees below depth 3 apart, in threads when a forest has more threads than trees.
Without random draws a forked tree is the unforked one node for node (the stitching);
with them it is the same for every number of threads; forests pass their spare threads
and stay the same for every n_jobs."""
import numpy as np
import pytest

from rotforest import RandomForestClassifier, RandomForestRegressor, _bins, _hist, tree


def _data(n, p, seed, regression, classes=2, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    signal = X[:, 0] - 0.7 * X[:, 1] + X[:, 2] * X[:, 3] + 0.5 * np.sin(3 * X[:, 4])
    y = signal + rng.normal(scale=0.8, size=n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    if regression:
        return X, y
    cuts = np.quantile(y, np.linspace(0, 1, classes + 1)[1:-1])
    return X, np.searchsorted(cuts, y).astype(np.int32)


def _grow(X, y, codes, flat, offsets, exact, w, kind, fork_rows, threads=1,
          max_features=None, shuffle=False, monotonic=None, min_leaf=1):
    p = X.shape[1]
    if kind == "poisson":
        args = (None, y, w, 1, 4)
    elif kind == "squared":
        args = (None, y, w, 1, 2)
    else:
        args = (y, None, w, int(y.max()) + 1, 1 if kind == "entropy" else 0)
    return _hist.build_tree(codes, flat, offsets, *args, 14, 2, min_leaf, 0.0,
                            max_features or p, 0.0, 17, shuffle, X=X, exact=exact,
                            monotonic=monotonic, threads=threads, fork_rows=fork_rows)


CASES = [("gini", 2, "counts", 0.0, None, 1), ("gini", 3, "floats", 0.05, None, 1),
         ("entropy", 2, "floats", 0.0, None, 3), ("squared", 1, "counts", 0.05, None, 1),
         ("squared", 1, "floats", 0.0, None, 2), ("poisson", 1, "counts", 0.0, None, 1),
         ("gini", 2, "counts", 0.0, (1, -1, 0, 0, 0, 0), 1),
         ("squared", 1, "floats", 0.0, (1, 0, 0, 0, 0, 0), 1)]


@pytest.mark.parametrize("kind, classes, weights, missing, monotonic, min_leaf", CASES)
def test_a_forked_tree_is_the_unforked_tree(kind, classes, weights, missing, monotonic,
                                            min_leaf):
    # every feature in a fixed order: no random draw, so the subtrees grown apart and
    # put back give the tree grown in one piece, node for node (numbered in pre-order)
    X, y = _data(5000, 6, 3, kind in ("squared", "poisson"), classes, missing)
    if kind == "poisson":
        y = np.floor(np.exp(y / 2))
    rng = np.random.default_rng(4)
    w = (rng.integers(0, 3, len(y)) if weights == "counts"
         else rng.uniform(0.2, 2.0, len(y))).astype(float)
    codes, flat, offsets, exact = _bins.binned_features(X, 48, 1)
    mono = None if monotonic is None else np.array(monotonic, dtype=np.int8)
    whole = _grow(X, y, codes, flat, offsets, exact, w, kind, 0, monotonic=mono,
                  min_leaf=min_leaf)
    forked = _grow(X, y, codes, flat, offsets, exact, w, kind, 100, threads=2,
                   monotonic=mono, min_leaf=min_leaf)
    nodes = whole[0]
    assert len(nodes) > 100 and whole[2] > 5
    assert forked[0].tobytes() == nodes.tobytes()
    assert np.array_equal(forked[1], whole[1]) and forked[2] == whole[2]
    # (pre-order: a split node's left child is the next node)
    split = np.flatnonzero(nodes["left_child"] >= 0)
    assert np.array_equal(nodes["left_child"][split], split + 1)


def test_forks_with_random_draws_are_the_same_for_every_number_of_threads():
    X, y = _data(6000, 8, 5, False, 2, 0.02)
    codes, flat, offsets, exact = _bins.binned_features(X, 64, 1)
    w = np.random.default_rng(2).integers(0, 3, len(y)).astype(float)
    grown = [_grow(X, y, codes, flat, offsets, exact, w, "gini", rows, threads,
                   max_features=3, shuffle=True)
             for rows, threads in ((100, 1), (100, 2), (100, 5), (0, 1), (10 ** 9, 3))]
    for other in grown[1:3]:
        assert other[0].tobytes() == grown[0][0].tobytes()
        assert np.array_equal(other[1], grown[0][1])
    # the forks draw from streams of their own: another tree than the one grown whole,
    # which is the tree of a root below fork_rows
    assert grown[3][0].tobytes() != grown[0][0].tobytes()
    assert grown[4][0].tobytes() == grown[3][0].tobytes()
    # a valid tree: each split node's samples are its children's
    nodes = grown[0][0]
    split = np.flatnonzero(nodes["left_child"] >= 0)
    assert np.array_equal(nodes["n_node_samples"][split],
                          nodes["n_node_samples"][nodes["left_child"][split]]
                          + nodes["n_node_samples"][nodes["right_child"][split]])


@pytest.mark.parametrize("cls", [RandomForestClassifier, RandomForestRegressor])
def test_forests_give_spare_threads_to_their_trees(monkeypatch, cls):
    monkeypatch.setattr(tree, "_FORK_ROWS", 200)
    calls = []
    build = _hist.build_tree

    def spy(*args, **kwargs):
        calls.append(kwargs["threads"])
        return build(*args, **kwargs)

    monkeypatch.setattr(_hist, "build_tree", spy)
    X, y = _data(3000, 6, 7, cls is RandomForestRegressor, 3, 0.03)
    fits = {}
    for n_trees, n_jobs, threads in ((1, 1, [1]), (1, 3, [3]), (2, 5, [2, 2]),
                                     (3, 2, [1, 1, 1])):
        calls.clear()
        forest = cls(n_estimators=n_trees, max_bins=64, n_jobs=n_jobs, max_features=2,
                     random_state=0).fit(X, y)
        assert calls == threads
        fits[n_trees, n_jobs] = forest
    for a, b in (((1, 1), (1, 3)),):
        ta, tb = fits[a].estimators_[0].tree_, fits[b].estimators_[0].tree_
        assert np.array_equal(ta.threshold, tb.threshold)
        assert np.array_equal(ta.value, tb.value)
        assert np.array_equal(fits[a].predict(X), fits[b].predict(X))
    assert fits[1, 1].estimators_[0].tree_.node_count > 200


@pytest.mark.parametrize("regression", [False, True])
def test_forks_of_several_outputs(regression):
    # several outputs (each output's statistics side by side): forked and unforked,
    # node for node, without random draws
    X, y0 = _data(4000, 6, 8, regression, 3)
    _, y1 = _data(4000, 6, 9, regression, 2)
    codes, flat, offsets, exact = _bins.binned_features(X, 40, 1)
    w = np.random.default_rng(5).integers(0, 3, len(X)).astype(float)
    if regression:
        target = np.ascontiguousarray(np.column_stack([y0, y1]).ravel())
        args, extra = (None, target, w, 1, 2), {}
    else:
        codes_y = np.ascontiguousarray(np.column_stack([y0, y1]).ravel(), dtype=np.int32)
        args, extra = (codes_y, None, w, 3, 0), {"output_classes": [3, 2]}
    grown = [_hist.build_tree(codes, flat, offsets, *args, 12, 2, 1, 0.0, 6, 0.0, 3,
                              False, X=X, exact=exact, n_outputs=2, fork_rows=rows,
                              threads=2, **extra)
             for rows in (0, 100)]
    assert len(grown[0][0]) > 100
    assert grown[1][0].tobytes() == grown[0][0].tobytes()
    assert np.array_equal(grown[1][1], grown[0][1])
    # (the forks ran: with random draws their streams give another tree)
    drawn = [_hist.build_tree(codes, flat, offsets, *args, 12, 2, 1, 0.0, 3, 0.0, 3,
                              True, X=X, exact=exact, n_outputs=2, fork_rows=rows,
                              **extra)[0].tobytes()
             for rows in (0, 100)]
    assert drawn[0] != drawn[1]
