"""Missing values (NaN in X): scikit-learn's NaN-aware trees as the reference on tie-free
data, a brute-force split search that scores every missing-value direction, and the
training partition reproduced at predict time."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.tree import DecisionTreeClassifier as SkTree

from helpers import sklearn_at_least, tie_free_data, trees_of
from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier
from test_exactness import SETTINGS, assert_same_tree, impurity


# scikit-learn 1.8 fixed two bugs of its trees with missing values: a node's partition
# could leave the last non-missing sample on the wrong side (scikit-learn#32351), and a
# feature whose present values are all equal was skipped as constant although the
# missing ones could be split off (#32274).  Before 1.8 its trees on these data are no
# oracle; our builder is the same whatever scikit-learn is installed.
needs_sklearn_missing_fixes = pytest.mark.skipif(
    not sklearn_at_least("1.8"),
    reason="scikit-learn < 1.8 misplaces missing values in its splits (fixed in 1.8)")


def with_missing(X, fraction, seed, columns=None):
    X = X.copy()
    rng = np.random.default_rng(seed)
    hole = rng.random(X.shape) < fraction
    if columns is not None:
        keep = np.ones(X.shape[1], bool)
        keep[columns] = False
        hole[:, keep] = False
    X[hole] = np.nan
    return X


def test_tree_missing_direction_is_exposed():
    X, y = tie_free_data(400, 4, 2, seed=1)
    tree = DecisionTreeClassifier(max_depth=3).fit(with_missing(X, 0.2, 0), y)
    mgl = tree.tree_.missing_go_to_left
    assert mgl.dtype == np.uint8 and mgl.shape == (tree.tree_.node_count,)
    assert set(np.unique(mgl)) <= {0, 1}


@needs_sklearn_missing_fixes
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("weights", ["none", "real"])
@pytest.mark.parametrize("settings", SETTINGS[:5], ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_equals_sklearn_with_missing(criterion, n_classes, weights, settings):
    X, y = tie_free_data(1500, 6, n_classes, seed=n_classes)
    X = with_missing(X, 0.1, seed=n_classes)
    sw = None if weights == "none" else np.random.default_rng(1).uniform(0.2, 3.0, len(y))
    ours = DecisionTreeClassifier(criterion=criterion, **settings).fit(X, y, sample_weight=sw)
    theirs = SkTree(criterion=criterion, random_state=0, **settings).fit(X, y, sample_weight=sw)
    ties, compared = assert_same_tree(ours, theirs, max_ties=0 if weights == "real" else None)
    assert compared >= 0.8 * theirs.tree_.node_count
    if not ties:
        inner = theirs.tree_.children_left != -1
        np.testing.assert_array_equal(ours.tree_.missing_go_to_left[inner],
                                      theirs.tree_.missing_go_to_left[inner])
        Xt = with_missing(tie_free_data(500, 6, n_classes, seed=9)[0], 0.3, seed=5)
        np.testing.assert_array_equal(ours.apply(Xt), theirs.apply(Xt.astype(np.float32)))
        np.testing.assert_allclose(ours.predict_proba(Xt), theirs.predict_proba(Xt), atol=1e-12)


@needs_sklearn_missing_fixes
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("fraction", [0.05, 0.4])
def test_fully_grown_with_missing_differs_only_at_exact_ties(criterion, fraction):
    X, y = tie_free_data(2000, 5, 2, seed=11)
    X = with_missing(X, fraction, seed=3)
    sw = np.random.default_rng(4).uniform(0.5, 2.0, len(y))
    ours = DecisionTreeClassifier(criterion=criterion).fit(X, y, sw)
    theirs = SkTree(criterion=criterion, random_state=0).fit(X, y, sw)
    _, compared = assert_same_tree(ours, theirs, max_ties=None)
    assert compared >= 0.6 * theirs.tree_.node_count


@needs_sklearn_missing_fixes
@pytest.mark.parametrize("max_leaf_nodes", [5, 25])
def test_best_first_with_missing(max_leaf_nodes):
    X, y = tie_free_data(2000, 5, 3, seed=7)
    X = with_missing(X, 0.15, seed=2)
    sw = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    ours = DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes).fit(X, y, sw)
    theirs = SkTree(max_leaf_nodes=max_leaf_nodes, random_state=0).fit(X, y, sw)
    assert_same_tree(ours, theirs, max_ties=0)


def test_nan_at_predict_for_feature_never_missing_follows_larger_child():
    X, y = tie_free_data(1000, 4, 2, seed=5)
    sw = np.random.default_rng(2).uniform(0.5, 2.0, len(y))     # no exact ties
    ours = DecisionTreeClassifier(max_depth=4, min_samples_leaf=20).fit(X, y, sw)
    theirs = SkTree(max_depth=4, min_samples_leaf=20, random_state=0).fit(X, y, sw)
    assert_same_tree(ours, theirs, max_ties=0)
    t = ours.tree_
    inner = np.flatnonzero(t.children_left != -1)
    larger_left = t.n_node_samples[t.children_left[inner]] > t.n_node_samples[t.children_right[inner]]
    np.testing.assert_array_equal(t.missing_go_to_left[inner], larger_left)
    Xt = with_missing(X[:300], 0.5, seed=8)
    np.testing.assert_array_equal(ours.apply(Xt), theirs.apply(Xt.astype(np.float32)))
    # by hand: a row that is all NaN walks down the larger child at every node
    node = 0
    while t.children_left[node] != -1:
        node = t.children_left[node] if t.missing_go_to_left[node] else t.children_right[node]
    assert ours.apply(np.full((1, 4), np.nan))[0] == node


def brute_force_root_missing(X, y, w, criterion):
    """Every cut between distinct present values with the missing samples on either side,
    and 'present left, missing right': the best weighted impurity decrease."""
    classes = np.unique(y)
    counts = lambda m: np.array([w[m & (y == c)].sum() for c in classes])  # noqa: E731
    parent = impurity(counts(np.ones(len(y), bool)), criterion)
    W = w.sum()
    best = -np.inf
    for f in range(X.shape[1]):
        nan = np.isnan(X[:, f])
        values = np.unique(X[~nan, f])
        sides = []
        for lo in values[:-1]:
            present_left = ~nan & (X[:, f] <= lo)
            sides += [present_left, present_left | nan]
        if nan.any():
            sides.append(~nan)
        for left in sides:
            if left.all() or not left.any():
                continue
            cl, cr = counts(left), counts(~left)
            child = (cl.sum() * impurity(cl, criterion) + cr.sum() * impurity(cr, criterion)) / W
            best = max(best, parent - child)
    return best


@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
@pytest.mark.parametrize("seed", range(6))
def test_root_split_with_missing_matches_brute_force(criterion, seed):
    rng = np.random.default_rng(seed)
    n = 60
    X = rng.integers(0, 5, (n, 3)).astype(float)           # ties on purpose
    y = rng.integers(0, 3 if seed % 2 else 2, n)
    X[:, 0] += y * 0.7
    X = with_missing(X, 0.25, seed)
    w = rng.integers(1, 4, n).astype(float)
    tree = DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, y, w)
    t = tree.tree_
    ours = t.impurity[0] - (t.weighted_n_node_samples[1] * t.impurity[1]
                            + t.weighted_n_node_samples[2] * t.impurity[2]) / w.sum()
    assert ours == pytest.approx(brute_force_root_missing(X, y, w, criterion), abs=1e-12)


def _missing_side_decrease(X, y, w, threshold, left, n_classes, criterion):
    """The weighted child impurity (negated) of the root split at ``threshold`` with the
    missing samples sent ``left`` (True) or right, computed here."""
    x = X[:, 0]
    nan = np.isnan(x)
    goes_left = (~nan & (x <= threshold)) | (nan & left)
    cl = np.bincount(y[goes_left], w[goes_left], n_classes)
    cr = np.bincount(y[~goes_left], w[~goes_left], n_classes)
    return -sum(c.sum() * impurity(c, criterion) for c in (cl, cr) if c.sum() > 0)


def test_entropy_sends_missing_right_at_a_mirrored_tie():
    """Classes 1 and 2 swap between the sides: both directions score the same, and the
    missing values go right, scikit-learn's rule (entropy's sums round differently for
    the two, which once sent them left)."""
    X = np.array([[2.0], [np.nan], [np.nan], [1.0], [1.0], [np.nan], [2.0]])
    y = np.array([0, 0, 1, 0, 1, 2, 2])
    for criterion in ("gini", "entropy"):
        t = DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, y).tree_
        assert t.threshold[0] == 1.5
        assert _missing_side_decrease(X, y, np.ones(7), 1.5, True, 3, criterion) == \
            pytest.approx(_missing_side_decrease(X, y, np.ones(7), 1.5, False, 3, criterion))
        assert not t.missing_go_to_left[0], criterion
        sk = SkTree(criterion=criterion, max_depth=1).fit(X, y).tree_
        assert not sk.missing_go_to_left[0]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_missing_values_go_right_whenever_both_directions_tie(criterion):
    """On many small data sets with few values, whenever the root's chosen cut scores
    the same (to rounding, computed here) with the missing samples on either side, they
    go right, as the documentation says and scikit-learn does."""
    rng = np.random.default_rng(1)
    ties = 0
    for trial in range(1500):
        n_classes, n = int(rng.integers(2, 4)), int(rng.integers(4, 14))
        X = rng.integers(0, 3, size=(n, 1)).astype(float)
        X[rng.random(n) < 0.4] = np.nan
        y = rng.integers(0, n_classes, n)
        w = np.ones(n) if trial % 2 else rng.integers(1, 4, n).astype(float)
        if np.isnan(X).all() or not np.isnan(X).any() or len(set(y)) < 2:
            continue
        t = DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, y, w).tree_
        if t.node_count < 2:
            continue
        left, right = (_missing_side_decrease(X, y, w, t.threshold[0], side, n_classes,
                                              criterion) for side in (True, False))
        if abs(left - right) <= 1e-9 * max(1.0, abs(left)):
            ties += 1
            assert not t.missing_go_to_left[0], (X[:, 0], y, w)
        else:       # no tie: the better direction
            assert t.missing_go_to_left[0] == (left > right)
    assert ties >= 10


@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "error"])
def test_training_partition_is_reproduced_at_predict(splitter, criterion):
    rng = np.random.default_rng(0)
    X = with_missing(rng.integers(0, 4, (500, 4)).astype(float), 0.3, seed=1)
    y = rng.integers(0, 3, 500)
    tree = DecisionTreeClassifier(splitter=splitter, criterion=criterion,
                                  random_state=0).fit(X, y)
    t = tree.tree_
    leaves = tree.apply(X)
    reached = np.bincount(leaves, minlength=t.node_count)
    is_leaf = t.children_left == -1
    np.testing.assert_array_equal(reached[is_leaf], t.n_node_samples[is_leaf])
    # and the path counts of inner nodes
    path = tree.decision_path(X)
    np.testing.assert_array_equal(np.asarray(path.sum(axis=0)).ravel(), t.n_node_samples)


def test_edge_cases_match_sklearn():
    X, y = tie_free_data(300, 4, 2, seed=3)
    X[:, 1] = np.nan                                   # all missing
    X[:, 2] = np.where(np.arange(300) % 3 == 0, np.nan, 7.0)   # one present value
    ours = DecisionTreeClassifier(max_depth=4).fit(X, y)
    theirs = SkTree(max_depth=4, random_state=0).fit(X, y)
    assert_same_tree(ours, theirs, max_ties=0)
    assert 1 not in ours.tree_.feature
    # "present left, missing right" splits have an infinite threshold
    sep = (ours.tree_.feature == 2)
    assert np.all(np.isposinf(ours.tree_.threshold[sep]))
    assert np.all(ours.tree_.missing_go_to_left[sep] == 0)


def test_missing_only_in_test_set():
    X, y = tie_free_data(600, 5, 3, seed=4)
    for est in [DecisionTreeClassifier(random_state=0),
                RandomForestClassifier(n_estimators=5, random_state=0),
                RotationForestClassifier(n_estimators=5, random_state=0)]:
        est.fit(X, y)
        proba = est.predict_proba(with_missing(X, 0.3, seed=6))
        assert proba.shape == (600, 3) and np.all(np.isfinite(proba))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("Est", [DecisionTreeClassifier, RandomForestClassifier,
                                 RotationForestClassifier])
def test_infinity_is_still_an_error(Est):
    X, y = tie_free_data(100, 3, 2, seed=1)
    X[5, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Est().fit(X, y)
    est = Est().fit(np.nan_to_num(X, posinf=0.0), y)
    with pytest.raises(ValueError, match="infinity"):
        est.predict(X)


def test_random_forest_with_missing_is_reproducible_across_n_jobs():
    X, y = tie_free_data(800, 6, 2, seed=2)
    X = with_missing(X, 0.1, seed=3)
    a = RandomForestClassifier(n_estimators=8, random_state=1, n_jobs=1).fit(X, y)
    b = RandomForestClassifier(n_estimators=8, random_state=1, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # each tree equals a single tree grown on its bootstrap counts
    tree = trees_of(a)[0]
    leaves = tree.apply(X)
    inbag = a.estimators_samples_[0]
    counts = np.bincount(inbag, minlength=len(y))
    reached = np.bincount(leaves[counts > 0], minlength=tree.tree_.node_count)
    is_leaf = tree.tree_.children_left == -1
    np.testing.assert_array_equal(reached[is_leaf], tree.tree_.n_node_samples[is_leaf])


def _project_by_hand(forest, X, i):
    """Tree i's input, computed here from the documented rule."""
    Z = (X - forest.mean_) / forest.scale_
    mask = np.isnan(Z)
    R = forest.rotations_[i].toarray()
    P = np.where(mask, 0.0, Z) @ R
    if forest.missing == "route":
        P[(mask.astype(float) @ (R != 0)) > 0] = np.nan
        return P
    return np.hstack([P, mask[:, forest.missing_features_].astype(float)])


@pytest.mark.parametrize("missing", ["route", "impute"])
@pytest.mark.parametrize("group_size", [2, None])
def test_rotation_forest_with_missing_equals_its_trees(missing, group_size):
    X, y = tie_free_data(500, 5, 2, seed=6)
    X = with_missing(X, 0.1, seed=7, columns=[0, 3])
    forest = RotationForestClassifier(n_estimators=6, missing=missing, group_size=group_size,
                                      random_state=0).fit(X, y)
    np.testing.assert_array_equal(forest.missing_features_, [0, 3])
    present = ~np.isnan(X[:, 0])
    assert forest.mean_[0] == pytest.approx(X[present, 0].mean())
    assert forest.scale_[0] == pytest.approx(X[present, 0].std())
    Xt = with_missing(tie_free_data(200, 5, 2, seed=8)[0], 0.2, seed=9)
    expected = np.mean([t.predict_proba(_project_by_hand(forest, Xt, i))
                        for i, t in enumerate(trees_of(forest))], axis=0)
    np.testing.assert_allclose(forest.predict_proba(Xt), expected, atol=1e-12)
    leaves = np.column_stack([t.apply(_project_by_hand(forest, Xt, i))
                              for i, t in enumerate(trees_of(forest))])
    np.testing.assert_array_equal(forest.apply(Xt), leaves)
    paths, ptr = forest.decision_path(Xt)
    assert sp.issparse(paths) and paths.shape[1] == ptr[-1]
    imp = forest.feature_importances_
    assert imp.shape == (5,) and imp.sum() == pytest.approx(1.0)


