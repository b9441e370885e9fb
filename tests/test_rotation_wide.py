"""Rotation forests on wide data: each tree's subset of features drawn by relevance."""
from functools import partial

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import train_test_split

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor)
from rotforest import rotation
from rotforest._ensemble import _TREE_SEED_BOUND
from rotforest.rotation import (_tree_draws, draw_rotation, subset_probabilities,
                                target_bins, tree_features)


def _loaded(forest):
    """The features each tree's rotation loads, one boolean row a tree."""
    return np.vstack([np.abs(r.toarray()).sum(axis=1) > 0 for r in forest.rotations_])


@pytest.fixture(scope="module")
def sparse_signal():
    """10 of 300 features carry the class (the first 10: shuffle=False)."""
    return make_classification(n_samples=600, n_features=300, n_informative=6,
                               n_redundant=4, shuffle=False, random_state=0)


def test_subset_probabilities_by_hand():
    relevance = np.array([0.0, 1.0, 2.0, 0.0, 5.0])
    features = np.array([0, 1, 2, 3])             # feature 4 is not rotated
    floor = rotation._UNIFORM_FLOOR
    expected = (1 - floor) * np.array([0.0, 1.0, 4.0, 0.0]) / 5.0 + floor / 4
    np.testing.assert_allclose(subset_probabilities(relevance, features), expected)
    # no relevance anywhere (a screen that grew single leaves): uniform
    np.testing.assert_allclose(subset_probabilities(np.zeros(5), features), 0.25)


def test_tree_features_draws_its_share_by_relevance():
    rng = np.random.default_rng(0)
    features = np.arange(100) * 2                      # the rotated features' indices
    p = np.full(100, 1e-6)
    p[:5] = 1.0
    p /= p.sum()
    seen = np.zeros(100, dtype=int)
    for _ in range(200):
        drawn = tree_features(rng, features, 10, p)
        assert drawn.size == 10 and np.all(np.diff(drawn) > 0)      # sorted, distinct
        assert np.isin(drawn, features).all()
        assert np.isin(features[:5], drawn).all()     # 8 by relevance hold all 5
        seen[np.searchsorted(features, drawn)] += 1
    # the other 5 places a tree are uniform over the 95 others: every feature appears,
    # each about 200 * 5 / 95 = 10.5 times (the 3 relevance draws left add ~6 more)
    assert seen[5:].min() > 0 and 5 < seen[5:].mean() < 25
    # without probabilities, a uniform subset (as before relevance sampling)
    assert tree_features(np.random.default_rng(1), features, 10).size == 10
    assert tree_features(rng, features, 100, p) is features    # all of them: no draw


def test_trees_hold_the_signal_features(sparse_signal):
    """With 30 of 300 features a tree, a uniform draw holds a tenth of the 10 signal
    features; a draw by relevance holds nearly all of them (the screening forest ranks
    them first)."""
    X, y = sparse_signal
    params = dict(n_estimators=10, max_rotated_features=30, random_state=0)
    relevance = RotationForestClassifier(subset_sampling="relevance", **params).fit(X, y)
    uniform = RotationForestClassifier(subset_sampling="uniform", **params).fit(X, y)
    mixed = RotationForestClassifier(**params).fit(X, y)       # the default
    assert _loaded(relevance)[:, :10].mean() > 0.8
    assert _loaded(uniform)[:, :10].mean() < 0.25
    assert np.sum(np.argsort(-relevance._relevance)[:10] < 10) >= 9
    assert uniform._relevance is None
    np.testing.assert_array_equal(mixed._relevance, relevance._relevance)
    # "mixed": the even-numbered trees are the relevance forest's (the same draws from
    # the same generators, every axis at a node), the odd-numbered ones the uniform
    # forest's (the square root of the axes at a node, max_features="auto")
    for i, (rotated, tree) in enumerate(zip(mixed.rotations_, mixed.rotated_estimators_)):
        same_as = relevance if i % 2 == 0 else uniform
        np.testing.assert_array_equal(rotated.toarray(), same_as.rotations_[i].toarray())
        assert tree.max_features_ == (30 if i % 2 == 0 else 5)
        for name in ["feature", "threshold", "children_left", "value"]:
            np.testing.assert_array_equal(getattr(tree.tree_, name),
                                          getattr(same_as.rotated_estimators_[i].tree_, name))


def test_relevance_sampling_is_more_accurate_on_sparse_signal(sparse_signal):
    """Where a few of many features carry the class, the default (mixed) and relevance
    sampling beat the uniform subsets (the default before, nodes scanning the square
    root of the axes) by far and are not below the all-features forest."""
    X, y = sparse_signal
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)

    def score(**params):
        forest = RotationForestClassifier(n_estimators=30, random_state=0, **params)
        return forest.fit(Xtr, ytr).score(Xte, yte)

    default, relevance = score(), score(subset_sampling="relevance")
    before = score(subset_sampling="uniform")          # nodes scan the root of the axes
    every = score(max_rotated_features=None, max_features=None)
    assert min(default, relevance) > before + 0.05
    assert min(default, relevance) > every - 0.05      # level: 0.787 each at this seed


def test_the_screen_is_a_seeded_random_forest(sparse_signal):
    """The relevance is the importances of a 20-tree random forest on the original
    features, a tenth of them at each node, with the forest's seed and weights."""
    X, y = sparse_signal
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))
    forest = RotationForestClassifier(n_estimators=3, random_state=5, n_jobs=2).fit(
        X, y, sample_weight=w)
    base_seed = np.random.RandomState(5).randint(np.iinfo(np.int32).max)
    assert rotation.screen_features(300) == 30 and rotation.screen_features(40) == 6
    screen = RandomForestClassifier(
        n_estimators=rotation._SCREEN_TREES, max_features=30,
        max_depth=rotation._SCREEN_DEPTH, random_state=base_seed,
        categorical_features=None).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(forest._relevance, screen.feature_importances_)


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
def test_same_forest_for_any_n_jobs_and_by_warm_start(sparse_signal, Forest):
    X, y = sparse_signal
    params = dict(max_rotated_features=40, random_state=3, subset_sampling="mixed")
    one = Forest(n_estimators=6, n_jobs=1, **params).fit(X, y)
    two = Forest(n_estimators=6, n_jobs=2, **params).fit(X, y)
    warm = Forest(n_estimators=3, warm_start=True, **params).fit(X, y)
    warm.set_params(n_estimators=6).fit(X, y)
    for other in (two, warm):
        np.testing.assert_array_equal(one._relevance, other._relevance)
        for a, b in zip(one.rotations_, other.rotations_):
            np.testing.assert_array_equal(a.toarray(), b.toarray())
        np.testing.assert_array_equal(one.predict(X), other.predict(X))


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
def test_narrow_data_runs_no_screen(Forest):
    """At most max_rotated_features rotated features: no screen, and the same forest
    whichever subset_sampling is asked for."""
    X, y = make_classification(n_samples=200, n_features=12, random_state=0)
    a = Forest(n_estimators=4, random_state=0).fit(X, y)
    b = Forest(n_estimators=4, random_state=0, subset_sampling="uniform").fit(X, y)
    assert a._relevance is None
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_regressor_draws_the_signal_features():
    X, y, coef = make_regression(n_samples=500, n_features=200, n_informative=5,
                                 shuffle=False, noise=1.0, coef=True, random_state=0)
    forest = RotationForestRegressor(n_estimators=8, max_rotated_features=20,
                                     subset_sampling="relevance", random_state=0).fit(X, y)
    strong = np.flatnonzero(np.abs(coef) > 0.5 * np.abs(coef).max())
    assert strong.size >= 3 and np.all(strong < 5)
    assert np.all(_loaded(forest)[:, strong])            # in every tree
    uniform = RotationForestRegressor(n_estimators=8, max_rotated_features=20,
                                      subset_sampling="uniform", random_state=0).fit(X, y)
    assert _loaded(uniform)[:, strong].mean() < 0.3
    screen = RandomForestRegressor(
        n_estimators=rotation._SCREEN_TREES, max_features=20,
        max_depth=rotation._SCREEN_DEPTH, categorical_features=None,
        random_state=np.random.RandomState(0).randint(np.iinfo(np.int32).max)).fit(X, y)
    np.testing.assert_array_equal(forest._relevance, screen.feature_importances_)


def test_defaults():
    """The classifier mixes relevance-drawn and uniform trees; the regressor draws every
    tree by relevance (a mean of predictions is pulled towards the mean target by trees
    that miss the signal: see the user guide)."""
    assert RotationForestClassifier().subset_sampling == "mixed"
    assert RotationForestRegressor().subset_sampling == "relevance"
    assert RotationForestClassifier().max_rotated_features == 100


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
def test_bad_subset_sampling(Forest):
    X, y = make_classification(n_samples=50, n_features=5, random_state=0)
    with pytest.raises(ValueError, match="subset_sampling.*'mixed'.*'relevance'.*'uniform'"):
        Forest(subset_sampling="relevant").fit(X, y)


def _grown_before_subsets(forest, X, y, groups):
    """The forest's trees as a rotation forest grew them before max_rotated_features and
    subset_sampling existed, rebuilt here from its recipe: tree i's generator (its first
    draw the tree's seed), then straight away the PCA rotation of every feature (groups
    of 3; rows drawn from subsets of ``groups``), and a tree with every axis at a node
    (DecisionTree*'s defaults) fitted with that seed on the normalised rows so rotated.
    A list of (tree, rotation)."""
    regression = forest._tree_class._regression
    Tree = DecisionTreeRegressor if regression else DecisionTreeClassifier
    Z, mask = forest._normalised(X)
    out = []
    for i in range(forest.n_estimators):
        rng, first, counts = _tree_draws(forest._base_seed, i, len(X), len(X), False)
        assert counts is None                                  # no bootstrap
        rotation = draw_rotation(rng, X.shape[1], 3, "pca", Z, groups)
        P = forest._projector()(rotation, Z, mask)
        out.append((Tree(random_state=first % _TREE_SEED_BOUND).fit(P, y), rotation))
    return out


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
def test_narrow_forests_are_those_before_relevance_sampling(Forest):
    """On data of at most max_rotated_features rotated features nothing is screened or
    drawn: whatever subset_sampling says, a seed grows the forest grown before
    subset_sampling existed, node for node: the one rebuilt tree by tree from the draws
    of each tree's own generator (see _grown_before_subsets; a subset drawn from that
    generator, another seed or fewer axes at a node would change every tree).  (Built
    in this process: the data sets' matrix products and so the trees differ in the last
    bits between processors.)"""
    make = make_regression if Forest is RotationForestRegressor else partial(
        make_classification, n_classes=3)
    X, y = make(n_samples=300, n_features=60, n_informative=8, random_state=11)
    groups = target_bins(y) if Forest is RotationForestRegressor else y
    base_seed = np.random.RandomState(3).randint(np.iinfo(np.int32).max)
    for sampling in ["mixed", "relevance", "uniform"]:
        forest = Forest(n_estimators=5, subset_sampling=sampling, random_state=3).fit(X, y)
        assert forest._relevance is None and forest._base_seed == base_seed
        expected = _grown_before_subsets(forest, X, y, groups)
        for (tree, rotation), (ref, ref_rotation) in zip(
                zip(forest.rotated_estimators_, forest.rotations_), expected, strict=True):
            np.testing.assert_array_equal(rotation.toarray(), ref_rotation.toarray())
            assert tree.max_features_ == 60
            np.testing.assert_array_equal(tree.tree_.nodes, ref.tree_.nodes)
            np.testing.assert_array_equal(tree.tree_.value, ref.tree_.value)
        # and it predicts as the rebuilt trees do, on rows it was not fitted on
        Z, mask = forest._normalised(X[:20] + 0.5)
        method = "predict" if Forest is RotationForestRegressor else "predict_proba"
        rebuilt = np.mean([getattr(ref, method)(forest._projector()(R, Z, mask))
                           for ref, R in expected], axis=0)
        np.testing.assert_allclose(getattr(forest, method)(X[:20] + 0.5), rebuilt,
                                   rtol=1e-12, atol=1e-12)


def test_a_model_pickled_before_subset_sampling_draws_uniformly():
    """A model unpickled without the parameter gets "uniform", the rule it was fitted
    with, so that get_params, clone and warm starts work on it."""
    import pickle

    X, y = make_classification(n_samples=120, n_features=130, random_state=0)
    forest = RotationForestClassifier(n_estimators=3, subset_sampling="uniform",
                                      warm_start=True, random_state=0).fit(X, y)
    state = forest.__getstate__()
    del state["subset_sampling"]                     # as an older version pickled it
    old = RotationForestClassifier.__new__(RotationForestClassifier)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    assert old.get_params()["subset_sampling"] == "uniform"
    old.set_params(n_estimators=5).fit(X, y)
    # older still: before max_rotated_features and scaling, every feature rotated and
    # standardised
    older = RotationForestClassifier.__new__(RotationForestClassifier)
    older.__setstate__({k: v for k, v in state.items()
                        if k not in ("max_rotated_features", "scaling")})
    assert older.get_params()["max_rotated_features"] is None
    assert older.get_params()["scaling"] == "std"
    fresh = RotationForestClassifier(n_estimators=5, subset_sampling="uniform",
                                     random_state=0).fit(X, y)
    np.testing.assert_array_equal(old.predict_proba(X), fresh.predict_proba(X))
