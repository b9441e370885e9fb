"""The forests as scikit-learn's ensembles: the sequence of their trees (len, indexing,
iteration), ``estimator``, trees that refit as the forest grew them (their seeds),
``estimators_samples_`` as int32 and ``max_samples`` as scikit-learn 1.9 resolves it;
each compared with scikit-learn's forests on the same inputs where they have it."""
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn import ensemble
from sklearn.ensemble import RandomForestClassifier as SkClassifier
from sklearn.ensemble import RandomForestRegressor as SkRegressor
from sklearn.exceptions import NotFittedError

from helpers import sklearn_at_least, trees_of
from rotforest import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                       RandomForestRegressor, RotationForestClassifier,
                       RotationForestRegressor)
from rotforest._ensemble import _TREE_SEED_BOUND, draw_records
from rotforest.forest import _draw_tree

FORESTS = [RandomForestClassifier, RandomForestRegressor, RotationForestClassifier,
           RotationForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor]
RANDOM = [(RandomForestClassifier, SkClassifier), (RandomForestRegressor, SkRegressor)]


def _peer(cls):
    """scikit-learn's forest of the same kind: its extra trees for ours, else its random
    forest (the rotation forests have none)."""
    kind = "ExtraTrees" if cls.__name__.startswith("ExtraTrees") else "RandomForest"
    return getattr(ensemble, kind + ("Regressor" if cls._tree_class._regression
                                     else "Classifier"))
# our max_samples follows scikit-learn 1.9 (floats above 1.0, a share of the weights'
# total, the warning of few draws); older releases, the oracle here, refuse or differ
_MAX_SAMPLES_RULE = "scikit-learn 1.9's max_samples rule, which older releases lack"


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=300, n_features=8, n_informative=4,
                               random_state=0)
    return X, y


def _targets(cls, y):
    return y.astype(float) * 3.0 + 1.0 if cls._tree_class._regression else y


def _same_tree(a, b):
    """Node for node: the same node array (fields, thresholds, weights) and values."""
    assert a.tree_.node_count == b.tree_.node_count
    np.testing.assert_array_equal(a.tree_.nodes, b.tree_.nodes)
    np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


# ----------------------------------------------------------------- the ensemble protocol

@pytest.mark.parametrize("cls", FORESTS)
def test_a_fitted_forest_is_the_sequence_of_its_trees_as_scikit_learns(cls, data):
    X, y = data
    y = _targets(cls, y)
    forest = cls(n_estimators=4, random_state=0).fit(X, y)
    sk = _peer(cls)(n_estimators=4, random_state=0).fit(X, y)
    assert len(forest) == len(sk) == 4
    assert forest[0] is forest.estimators_[0] and forest[-1] is forest.estimators_[-1]
    assert type(forest[1:3]) is type(sk[1:3]) is list
    assert forest[1:3] == forest.estimators_[1:3]
    assert list(forest) == forest.estimators_
    # the same kind of trees (a rotation forest's take X and project it)
    assert [type(t).__name__.replace("RotatedTree", "DecisionTree") for t in forest] == [
        type(t).__name__ for t in sk]
    with pytest.raises(IndexError):
        forest[4]
    with pytest.raises(IndexError):
        sk[4]
    forest.set_params(warm_start=True, n_estimators=6).fit(X, y)
    assert len(forest) == 6 and list(forest) == forest.estimators_


@pytest.mark.parametrize("cls", FORESTS)
def test_an_unfitted_forest_has_no_trees_to_count_as_scikit_learns(cls):
    sk = SkClassifier()
    forest = cls()
    for use in (len, iter, lambda f: f[0]):
        with pytest.raises(AttributeError):
            use(sk)
        with pytest.raises(NotFittedError):   # an AttributeError too
            use(forest)
    assert bool(forest)       # an estimator is true, fitted or not (sklearn's raise here)


@pytest.mark.parametrize("cls", FORESTS)
def test_estimator_is_the_kind_of_tree_unfitted_with_defaults(cls, data):
    X, y = data
    forest = cls(n_estimators=2, max_depth=3, random_state=0)
    sk = _peer(cls)()
    assert type(forest.estimator).__name__ == type(sk.estimator).__name__
    assert isinstance(forest.estimator, cls._tree_class)
    assert forest.estimator.get_params() == cls._tree_class().get_params()
    assert "estimator" not in forest.get_params()       # nor in scikit-learn's
    forest.fit(X, _targets(cls, y))
    assert not hasattr(forest.estimator, "tree_")
    assert type(forest.estimator_) is type(forest.estimator)
    assert forest.estimator_.max_depth == 3 and forest.estimator.max_depth is None


# ------------------------------------------------------------------ refittable trees

@pytest.mark.parametrize("cls", FORESTS)
def test_trees_random_state_in_scikit_learns_range(cls, data):
    X, y = data
    forest = cls(n_estimators=30, random_state=1).fit(X, _targets(cls, y))
    states = [tree.random_state for tree in forest]
    assert all(isinstance(s, int) and 0 <= s < _TREE_SEED_BOUND for s in states)
    assert _TREE_SEED_BOUND == np.iinfo(np.int32).max
    assert len(set(states)) == len(states)
    clone(trees_of(forest)[0]).fit(X, _targets(cls, y))  # accepted by the tree's own fit


@pytest.mark.parametrize("cls, params", [
    (RandomForestClassifier, {}),
    (RandomForestClassifier, dict(criterion="entropy", max_depth=6, max_samples=0.7)),
    (RandomForestClassifier, dict(max_leaf_nodes=12, class_weight="balanced_subsample")),
    (RandomForestRegressor, dict(max_features=0.5)),
    (RandomForestRegressor, dict(max_features="sqrt", min_samples_leaf=3)),
])
def test_a_tree_taken_out_of_a_random_forest_refits_to_the_same_tree(cls, params, data):
    """clone(tree).fit on the forest's draw for it (bootstrap counts as sample weights,
    times the weights) grows the forest's tree node for node (features drawn at every
    node: the builder's seed matters)."""
    X, y = data
    y = _targets(cls, y)
    forest = cls(n_estimators=6, random_state=3, n_jobs=2, **params).fit(X, y)
    balanced = params.get("class_weight") == "balanced_subsample"
    for tree, drawn in zip(forest, forest.estimators_samples_):
        weights = np.bincount(drawn, minlength=len(X)).astype(float)
        if balanced:
            from sklearn.utils.class_weight import compute_sample_weight
            weights *= compute_sample_weight("balanced", y, indices=drawn)
        _same_tree(clone(tree).fit(X, y, sample_weight=weights), tree)


@pytest.mark.parametrize("cls", [RandomForestClassifier, RandomForestRegressor])
def test_refits_with_sample_weights(cls, data):
    """Equal weights multiply the counts; unequal ones are drawn by (the counts alone
    are the tree's weights); without bootstrap the weights are the tree's."""
    X, y = data
    y = _targets(cls, y)
    equal = np.full(len(X), 2.0)
    forest = cls(n_estimators=3, max_features=3, random_state=0).fit(X, y, equal)
    for tree, drawn in zip(forest, forest.estimators_samples_):
        counts = np.bincount(drawn, minlength=len(X))
        _same_tree(clone(tree).fit(X, y, sample_weight=counts * equal), tree)
    unequal = np.random.default_rng(0).integers(0, 4, len(X)).astype(float)
    forest = cls(n_estimators=3, max_features=3, random_state=0).fit(X, y, unequal)
    for tree, drawn in zip(forest, forest.estimators_samples_):
        counts = np.bincount(drawn, minlength=len(X)).astype(float)
        _same_tree(clone(tree).fit(X, y, sample_weight=counts), tree)
    forest = cls(n_estimators=3, max_features=3, bootstrap=False,
                 random_state=0).fit(X, y, unequal)
    for tree in forest:
        _same_tree(clone(tree).fit(X, y, sample_weight=unequal), tree)


@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
def test_a_rotation_forests_tree_refits_on_its_rotated_rows(cls, data):
    """The trees read the normalised, rotated rows: refitted on those (and the
    bootstrap counts), a tree grows again."""
    X, y = data
    y = _targets(cls, y)
    forest = cls(n_estimators=4, bootstrap=True, max_features="sqrt",
                 random_state=2).fit(X, y)
    Z, mask = forest._normalised(X)
    n_draws = int(draw_records(forest)[0, 1])
    from rotforest.rotation import _tree_draws
    for i, (tree, rotation) in enumerate(zip(forest.rotated_estimators_, forest.rotations_)):
        P = forest._projector()(rotation, Z, mask)
        counts = _tree_draws(forest._base_seed, i, len(X), n_draws, True)[2]
        _same_tree(clone(tree).fit(P, y, sample_weight=counts), tree)


@pytest.mark.parametrize("cls", FORESTS)
def test_forests_pickled_before_these_seeds_warm_start_as_they_began(cls, data):
    """A forest fitted before the trees' seeds were in scikit-learn's range grows its
    new trees as its first ones were seeded (the one fit's sequence goes on)."""
    X, y = data
    y = _targets(cls, y)
    forest = cls(n_estimators=2, bootstrap=True, warm_start=True, random_state=0).fit(X, y)
    state = dict(forest.__getstate__())     # (a copy: it may be the live __dict__)
    del state["_seed_scheme"]
    old = cls.__new__(cls)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    old.set_params(n_estimators=4).fit(X, y)
    first = _draw_tree(old._base_seed, 3, len(X), len(X), True)[1]
    assert old.estimators_[3].random_state == first > _TREE_SEED_BOUND
    assert not hasattr(old, "_seed_scheme")
    forest.set_params(n_estimators=4).fit(X, y)         # a forest of today: today's seeds
    assert forest.estimators_[3].random_state == first % _TREE_SEED_BOUND


# ------------------------------------------------------------------ estimators_samples_

@pytest.mark.parametrize("cls, sk_cls", RANDOM)
@pytest.mark.parametrize("bootstrap", [True, False])
def test_estimators_samples_are_int32_as_scikit_learns(cls, sk_cls, bootstrap, data):
    X, y = data
    y = _targets(cls, y)
    ours = cls(n_estimators=2, bootstrap=bootstrap, random_state=0).fit(X, y)
    sk = sk_cls(n_estimators=2, bootstrap=bootstrap, random_state=0).fit(X, y)
    for a, b in zip(ours.estimators_samples_, sk.estimators_samples_):
        assert a.dtype == b.dtype == np.int32 and a.shape == b.shape
    weighted = cls(n_estimators=2, random_state=0).fit(X, y, np.arange(len(X)) % 3 + 1.0)
    assert all(s.dtype == np.int32 for s in weighted.estimators_samples_)


# ------------------------------------------------------------------------- max_samples

@pytest.mark.parametrize("cls, sk_cls", RANDOM)
@pytest.mark.parametrize("max_samples, weights, class_weight", [
    (1.5, None, None),
    (2.5, None, None),
    (0.705, None, None),             # 211.5 draws: 211, rounded down as scikit-learn
    (0.31, None, None),
    (450, None, None),               # an int above n_samples
    (1000, None, None),
    (0.5, "integers", None),         # a share of the weights' total (scikit-learn 1.9)
    (1.3, "reals", None),
    (0.5, "equal", None),
    (1, None, None),
    (0.8, "integers", "balanced"),
    (0.6, None, "balanced"),
    (0.9, "reals", {0: 1.0, 1: 3.0}),
])
@pytest.mark.skipif(not sklearn_at_least("1.9"), reason=_MAX_SAMPLES_RULE)
def test_max_samples_draws_as_many_as_scikit_learns(cls, sk_cls, max_samples, weights,
                                                    class_weight, data):
    X, y = data
    regression = cls._tree_class._regression
    if regression and class_weight is not None:
        pytest.skip("no class_weight")
    y = _targets(cls, y)
    sw = {None: None, "equal": np.full(len(X), 2.0),
          "integers": np.random.default_rng(1).integers(0, 5, len(X)).astype(float),
          "reals": np.random.default_rng(2).uniform(0.1, 2.0, len(X))}[weights]
    extra = {} if regression else dict(class_weight=class_weight)
    ours = cls(n_estimators=2, max_samples=max_samples, random_state=0, **extra)
    sk = sk_cls(n_estimators=2, max_samples=max_samples, random_state=0, **extra)
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours.fit(X, y, sample_weight=sw)
    with warnings.catch_warnings(record=True) as sk_warned:
        warnings.simplefilter("always")
        sk.fit(X, y, sample_weight=sw)
    assert sk._n_samples_bootstrap == int(draw_records(ours)[0, 1])
    assert [len(s) for s in ours.estimators_samples_] == [sk._n_samples_bootstrap] * 2
    few = [any("bootstrap" in str(w.message) for w in warned)
           for warned in (ours_warned, sk_warned)]
    assert few[0] == few[1]


@pytest.mark.parametrize("cls", [RandomForestClassifier, RotationForestClassifier])
@pytest.mark.skipif(not sklearn_at_least("1.9"), reason=_MAX_SAMPLES_RULE)
def test_max_samples_warns_as_scikit_learn_of_few_draws(cls, data):
    X, y = data
    with pytest.warns(UserWarning, match="bootstrap"):
        SkClassifier(n_estimators=1, max_samples=0.02).fit(X, y)
    with pytest.warns(UserWarning, match="gives only 6 bootstrap draws"):
        forest = cls(n_estimators=2, max_samples=0.02, bootstrap=True).fit(X, y)
    assert int(draw_records(forest)[0, 1]) == 6


@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
@pytest.mark.parametrize("max_samples, expected", [(1.5, 450), (0.705, 211), (700, 700)])
def test_rotation_forests_take_max_samples_above_the_samples(cls, max_samples, expected,
                                                             data):
    """A float is a share of the rows (the rotation forest multiplies the counts by the
    weights rather than drawing by them), rounded down as scikit-learn does."""
    X, y = data
    y = _targets(cls, y)
    sw = np.random.default_rng(0).uniform(0.5, 2.0, len(X))
    forest = cls(n_estimators=2, bootstrap=True, max_samples=max_samples,
                 oob_score=True, random_state=0).fit(X, y, sample_weight=sw)
    assert int(draw_records(forest)[0, 1]) == expected
    assert np.isfinite(forest.oob_score_)


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("max_samples, error", [
    (0, ValueError), (-3, ValueError), (0.0, ValueError), (-0.5, ValueError),
    (float("nan"), ValueError), (float("inf"), ValueError), ("half", TypeError),
    (True, TypeError), (2**64, ValueError),
])
def test_max_samples_refused_as_scikit_learn_refuses_it(cls, max_samples, error, data):
    """scikit-learn raises InvalidParameterError (a ValueError and a TypeError) for all
    of these but True (a TypeError there too) and 2**64 (too many draws)."""
    X, y = data
    with pytest.raises(error, match="max_samples"):
        cls(n_estimators=2, max_samples=max_samples, bootstrap=True).fit(X, _targets(cls, y))


@pytest.mark.parametrize("cls", [RandomForestClassifier, RandomForestRegressor])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_samples", [None, 0.6, 1.5])
def test_each_trees_sample_is_scikit_learns_draw_for_its_seed(cls, weighted, max_samples,
                                                               data):
    """Tools that rebuild a forest's bootstrap samples from its trees' seeds, as
    scikit-learn's forests draw them (forestci does), get our trees' samples: each
    tree's in-bag indices are ``RandomState(tree.random_state).randint(0, n, draws)``,
    or with unequal weights its ``choice`` with the normalised weights, scikit-learn's
    rule, written out here."""
    X, y = data
    n = len(y)
    w = np.random.default_rng(0).uniform(0.5, 2.0, n) if weighted else None
    forest = cls(n_estimators=6, max_samples=max_samples, random_state=3).fit(X, y, w)
    total = n if w is None else w.sum()
    draws = n if max_samples is None else max(1, int(max_samples * total))
    for tree, drawn in zip(forest.estimators_, forest.estimators_samples_):
        state = np.random.RandomState(tree.random_state)
        expected = (state.randint(0, n, draws) if w is None
                    else state.choice(n, draws, replace=True, p=w / w.sum()))
        np.testing.assert_array_equal(drawn, expected)
