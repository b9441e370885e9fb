"""Pruning: cost-complexity against scikit-learn, reduced-error against references."""
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.tree import export_text

from helpers import tie_free_data
from rotforest import DecisionTreeClassifier, RandomForestClassifier

# (min_samples_leaf, seed) for which both libraries grow the same tree on tie-free data
# with real-valued weights (checked in the test before anything is compared)
SAME_TREE = [(30, 1), (20, 2), (30, 3)]


def _fitted_pair(min_samples_leaf, seed, ccp_alpha=0.0):
    X, y = tie_free_data(1500, 6, 3, seed=seed)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, len(y))
    ours = DecisionTreeClassifier(min_samples_leaf=min_samples_leaf, ccp_alpha=ccp_alpha)
    theirs = SkTree(min_samples_leaf=min_samples_leaf, ccp_alpha=ccp_alpha, random_state=0)
    return X, y, w, ours.fit(X, y, w), theirs.fit(X, y, w)


def _assert_same_structure(a, b):
    assert a.node_count == b.node_count
    for name in ["children_left", "children_right", "feature", "threshold",
                 "n_node_samples"]:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_allclose(a.value, b.value, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)
    assert a.max_depth == b.max_depth


@pytest.mark.parametrize("min_samples_leaf, seed", SAME_TREE)
def test_cost_complexity_path_and_pruned_trees_equal_sklearn(min_samples_leaf, seed):
    X, y, w, ours, theirs = _fitted_pair(min_samples_leaf, seed)
    _assert_same_structure(ours.tree_, theirs.tree_)
    path = ours.cost_complexity_pruning_path(X, y, w)
    ref = theirs.cost_complexity_pruning_path(X, y, w)
    np.testing.assert_allclose(path.ccp_alphas, ref.ccp_alphas, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(path.impurities, ref.impurities, rtol=1e-9, atol=1e-14)
    distinct = np.unique(path.ccp_alphas)
    for alpha in (distinct[:-1] + distinct[1:])[:: max(1, len(distinct) // 6)] / 2:
        a = DecisionTreeClassifier(min_samples_leaf=min_samples_leaf, ccp_alpha=alpha)
        b = SkTree(min_samples_leaf=min_samples_leaf, ccp_alpha=alpha, random_state=0)
        _assert_same_structure(a.fit(X, y, w).tree_, b.fit(X, y, w).tree_)
    # the largest alpha leaves the root alone
    top = DecisionTreeClassifier(min_samples_leaf=min_samples_leaf,
                                 ccp_alpha=path.ccp_alphas[-1] * 1.01).fit(X, y, w)
    assert top.tree_.node_count == 1


def test_pruned_tree_is_a_valid_compact_tree():
    X, y, w, ours, _ = _fitted_pair(20, 2)
    alphas = ours.cost_complexity_pruning_path(X, y, w).ccp_alphas
    pruned = DecisionTreeClassifier(min_samples_leaf=20, ccp_alpha=alphas[len(alphas) // 2])
    pruned.fit(X, y, w)
    t = pruned.tree_
    assert t.node_count < ours.tree_.node_count
    inner = t.children_left != -1
    # no orphans: every node but the root is the child of exactly one node
    children = np.r_[t.children_left[inner], t.children_right[inner]]
    assert sorted(children.tolist()) == list(range(1, t.node_count))
    assert np.all(t.feature[~inner] == -2) and np.all(t.threshold[~inner] == -2.0)
    leaves = pruned.apply(X)
    assert np.all(t.children_left[leaves] == -1)
    np.testing.assert_array_equal(np.bincount(leaves, minlength=t.node_count)[~inner],
                                  t.n_node_samples[~inner])
    visits = np.asarray(pruned.decision_path(X).sum(axis=0)).ravel()
    np.testing.assert_array_equal(visits, t.n_node_samples)
    assert pruned.feature_importances_.sum() == pytest.approx(1.0)
    assert export_text(pruned).count("class:") == pruned.get_n_leaves()
    again = pickle.loads(pickle.dumps(pruned))
    np.testing.assert_array_equal(again.predict_proba(X), pruned.predict_proba(X))


# ----------------------------------------------------------------------------------------
# Reduced-error pruning
# ----------------------------------------------------------------------------------------

def test_reduced_error_hand_example():
    # X = 0,1,2,3 with labels 0,0,1,1: a root split at 1.5 and two pure leaves
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    tree = DecisionTreeClassifier().fit(X, y)
    assert tree.get_n_leaves() == 2
    # tuning set {x=0: 1, x=3: 1}: the split errs once (x=0), a root leaf (which
    # predicts class 0, the first of the 50/50 tie) errs twice -> the split stays
    kept = DecisionTreeClassifier().fit(X, y).reduced_error_prune([[0.0], [3.0]], [1, 1])
    assert kept.get_n_leaves() == 2
    # tuning set {x=0: 1, x=0: 1}: the split errs twice, the root leaf twice -> a tie,
    # which prunes
    pruned = DecisionTreeClassifier().fit(X, y).reduced_error_prune([[0.0], [0.0]], [1, 1])
    assert pruned.get_n_leaves() == 1 and pruned.tree_.node_count == 1
    np.testing.assert_allclose(pruned.predict_proba([[5.0]]), [[0.5, 0.5]])
    # weights count: weight 3 on a correctly predicted x=3 outweighs two errors at x=0
    weighted = DecisionTreeClassifier().fit(X, y).reduced_error_prune(
        [[0.0], [0.0], [3.0]], [1, 1, 1], sample_weight=[1.0, 1.0, 3.0])
    assert weighted.get_n_leaves() == 2


def _reference_rep(tree, X, y):
    """Reduced-error pruning written recursively, sample by sample (no vectors)."""
    t = tree.tree_
    predicted = np.argmax(t.value[:, 0, :], axis=1)
    leaves = set()

    def reach(node, rows):
        if t.children_left[node] == -1:
            return sum(predicted[node] != y[r] for r in rows)
        go_left = [r for r in rows if X[r, t.feature[node]] <= t.threshold[node]]
        go_right = [r for r in rows if X[r, t.feature[node]] > t.threshold[node]]
        below = reach(t.children_left[node], go_left) + reach(t.children_right[node], go_right)
        as_leaf = sum(predicted[node] != y[r] for r in rows)
        if as_leaf <= below:
            leaves.add(node)
            return as_leaf
        return below

    reach(0, list(range(len(y))))
    return leaves


@pytest.mark.parametrize("seed", range(4))
def test_reduced_error_matches_a_recursive_reference(seed):
    X, y = make_classification(n_samples=700, n_features=5, n_informative=3, flip_y=0.15,
                               n_classes=3, n_clusters_per_class=1, random_state=seed)
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=seed)
    full = DecisionTreeClassifier(max_depth=8, random_state=0).fit(Xa, ya)
    expected_leaves = _reference_rep(full, Xb, yb)
    # the pruned tree keeps exactly the nodes above the reference's pruning points
    t = full.tree_
    keep, stack = [], [0]
    while stack:
        node = stack.pop()
        keep.append(node)
        if t.children_left[node] != -1 and node not in expected_leaves:
            stack += [t.children_right[node], t.children_left[node]]
    pruned = DecisionTreeClassifier(max_depth=8, random_state=0).fit(Xa, ya)
    pruned.reduced_error_prune(Xb, yb)
    assert pruned.tree_.node_count == len(keep)
    np.testing.assert_array_equal(pruned.tree_.n_node_samples, t.n_node_samples[keep])
    np.testing.assert_array_equal(pruned.tree_.impurity, t.impurity[keep])


def test_perfect_tuning_set_loses_nothing():
    X, y = make_classification(n_samples=500, n_features=6, flip_y=0.2, random_state=1)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert tree.score(X, y) == 1.0
    tree.reduced_error_prune(X, y)          # the tree classifies its tuning set perfectly
    assert tree.score(X, y) == 1.0


def test_noisy_labels_pruned_smaller_and_not_worse():
    X, y = make_classification(n_samples=6000, n_features=10, n_informative=5, flip_y=0.0,
                               random_state=0)
    noisy = np.where(np.random.default_rng(0).random(len(y)) < 0.2, 1 - y, y)
    Xa, Xb, ya, yb = train_test_split(X, noisy, test_size=0.3, random_state=0)
    full = DecisionTreeClassifier(random_state=0).fit(Xa, ya)
    rep = DecisionTreeClassifier(random_state=0, validation_fraction=0.3).fit(Xa, ya)
    assert rep.get_n_leaves() <= full.get_n_leaves() / 2
    assert rep.score(Xb, yb) >= full.score(Xb, yb)
    alphas = full.cost_complexity_pruning_path(Xa, ya).ccp_alphas
    ccp = DecisionTreeClassifier(random_state=0, ccp_alpha=float(np.quantile(alphas, 0.99)))
    ccp.fit(Xa, ya)
    assert ccp.get_n_leaves() <= full.get_n_leaves() / 2
    assert ccp.score(Xb, yb) >= full.score(Xb, yb)


def test_forest_pruning_options():
    X, y = make_classification(n_samples=1500, n_features=8, flip_y=0.2, random_state=2)
    plain = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    pruned = RandomForestClassifier(n_estimators=10, random_state=0, oob_pruning=True).fit(X, y)
    ccp = RandomForestClassifier(n_estimators=10, random_state=0, ccp_alpha=0.002).fit(X, y)
    leaves = lambda f: np.mean([t.get_n_leaves() for t in f.estimators_])  # noqa: E731
    assert leaves(pruned) < leaves(plain) / 2
    assert leaves(ccp) < leaves(plain) / 2
    assert all(t.ccp_alpha == 0.002 for t in ccp.estimators_)
    with pytest.raises(ValueError, match="bootstrap"):
        RandomForestClassifier(oob_pruning=True, bootstrap=False).fit(X, y)


@pytest.mark.parametrize("params, match", [
    (dict(ccp_alpha=-0.1), "ccp_alpha"),
    (dict(validation_fraction=0.0), "validation_fraction"),
    (dict(validation_fraction=1.0), "validation_fraction"),
])
def test_bad_pruning_parameters(params, match):
    X, y = make_classification(n_samples=100, random_state=0)
    with pytest.raises(ValueError, match=match):
        DecisionTreeClassifier(**params).fit(X, y)


def test_reduced_error_prune_bad_input_leaves_tree_unchanged():
    X, y = make_classification(n_samples=100, random_state=0)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    before = pickle.dumps(tree)
    with pytest.raises(ValueError, match="labels"):
        tree.reduced_error_prune(X, np.full(100, 7))
    with pytest.raises(ValueError, match="features"):
        tree.reduced_error_prune(X[:, :3], y)
    assert pickle.dumps(tree) == before
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        DecisionTreeClassifier().reduced_error_prune(X, y)


# --------------------------------------------------------------------------------------
# Weights and out-of-bag samples in pruning: only the ratios of the tuning weights
# matter; tuning sets of no weight and oob_score beside oob_pruning are refused.
# --------------------------------------------------------------------------------------


def test_reduced_error_pruning_keeps_a_strictly_better_branch_beside_a_heavy_sample():
    X = np.array([[0.0], [1.0]] * 3)
    y = np.array([0, 1] * 3)
    tree = DecisionTreeClassifier().fit(X, y)
    Xt = np.vstack([np.zeros((20_000, 1)), [[1.0]] * 3])
    yt = np.r_[np.zeros(20_000, dtype=int), [1, 1, 1]]
    w = np.ones(20_003)
    w[0] = 1e12                    # every sum exact; the split is right on 3 more samples
    tree.reduced_error_prune(Xt, yt, sample_weight=w)
    assert tree.get_n_leaves() == 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reduced_error_pruning_depends_on_the_ratios_of_the_weights_alone(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(600, 5))
    y = (X[:, 0] + rng.normal(size=600) > 0).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X[:400], y[:400])
    leaves = []
    for k in (1.0, 0.1, 3.0, 1e-300, 1e300):
        pruned = DecisionTreeClassifier(random_state=0).fit(X[:400], y[:400])
        pruned.reduced_error_prune(X[400:], y[400:], sample_weight=np.full(200, k))
        leaves.append(pruned.get_n_leaves())
    assert leaves == [leaves[0]] * 5 and leaves[0] < tree.get_n_leaves()
    # forests: weights of 0.1 grow other trees (rounding at near-ties of the split search,
    # as in any float implementation), so powers of two here, which grow the same ones
    forests = [RandomForestClassifier(n_estimators=3, oob_pruning=True, random_state=0)
               .fit(X, y, sample_weight=np.full(600, k)) for k in (1.0, 0.5, 2.0 ** -40)]
    assert len({tuple(t.get_n_leaves() for t in f.estimators_) for f in forests}) == 1


def test_reduced_error_pruning_needs_tuning_weight(binary_data):
    X, y = binary_data
    tree = DecisionTreeClassifier(random_state=0).fit(X[:200], y[:200])
    leaves = tree.get_n_leaves()
    with pytest.raises(ValueError, match="tuning sample weights sum to zero"):
        tree.reduced_error_prune(X[200:], y[200:], sample_weight=np.zeros(100))
    assert tree.get_n_leaves() == leaves
    with pytest.raises(ValueError, match="labels the tree was not fitted on"):
        tree.reduced_error_prune(X[200:], np.array([None] * 100))
    w = np.zeros(300)
    w[:10] = 1.0                                       # the tuning part draws none of them
    with pytest.raises(ValueError, match="tuning part held out by validation_fraction"):
        DecisionTreeClassifier(validation_fraction=0.05, random_state=3).fit(
            X[:200], y[:200], sample_weight=w[:200][::-1].copy())


def test_validation_fraction_errors_name_it(binary_data):
    X, y = binary_data
    y = y.copy()
    y[0] = 2                                           # a class of one sample
    with pytest.raises(ValueError, match="validation_fraction=0.3 cannot hold out"):
        DecisionTreeClassifier(validation_fraction=0.3).fit(X, y)


def test_oob_pruning_keeps_trees_whose_out_of_bag_samples_weigh_nothing():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 6))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    sw = np.zeros(1000)
    sw[:40] = 1.0                  # every weighted sample is drawn: out of bag weighs 0
    forest = RandomForestClassifier(n_estimators=10, oob_pruning=True, random_state=0)
    forest.fit(X, y, sample_weight=sw)
    assert all(t.tree_.node_count > 1 for t in forest.estimators_)
    # (40 samples to learn from: 0.80 to 0.88 over seeds; a forest pruned to its roots
    # would score about 0.5)
    assert forest.score(X, y) > 0.75


def test_oob_score_is_not_taken_on_the_samples_trees_were_pruned_on(binary_data):
    forest = RandomForestClassifier(n_estimators=3, oob_score=True, oob_pruning=True)
    with pytest.raises(ValueError, match="oob_score with oob_pruning"):
        forest.fit(*binary_data)
