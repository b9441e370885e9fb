"""monotonic_cst: scikit-learn's monotonic constraints on the positive class's probability,
checked against scikit-learn's trees node for node and as a property of the predictions."""
import pickle

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkTree

from helpers import sklearn_at_least, tie_free_data
from rotforest import DecisionTreeClassifier, RandomForestClassifier
from test_exactness import SETTINGS, assert_same_tree


# scikit-learn's trees take missing values together with monotonic_cst from 1.9 on;
# before, they refuse NaN in X when monotonic_cst is set.
@pytest.mark.parametrize("missing", [False, pytest.param(True, marks=pytest.mark.skipif(
    not sklearn_at_least("1.9"),
    reason="scikit-learn < 1.9 refuses missing values with monotonic_cst"))])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("settings", SETTINGS + [dict(max_leaf_nodes=12)])
def test_equals_sklearn_with_constraints(settings, criterion, missing):
    """The same candidates rejected, the same bounds passed down, the same values clipped:
    the tree equals scikit-learn's (exact ties between features, which scikit-learn breaks
    at random, are checked to be ties and their subtrees set aside)."""
    compared = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        X, y = tie_free_data(600, 6, 2, seed=seed)
        if missing:
            X[rng.random(X.shape) < 0.1] = np.nan
        cst = np.array([1, -1, 0, 1, -1, 0])[rng.permutation(6)]
        params = dict(criterion=criterion, monotonic_cst=cst, random_state=0, **settings)
        ours = DecisionTreeClassifier(**params).fit(X, y)
        theirs = SkTree(**params).fit(X, y)
        # best-first: a tie would reorder the whole growth, so none may occur
        ties, n = assert_same_tree(ours, theirs,
                                   max_ties=0 if "max_leaf_nodes" in settings else 6)
        compared += n
        # the constraints changed the tree (else this test could not fail)
        free = DecisionTreeClassifier(**{**params, "monotonic_cst": None}).fit(X, y)
        assert pickle.dumps(free.tree_) != pickle.dumps(ours.tree_) or ours.tree_.node_count < 4
    assert compared >= 9        # ties do not set the whole comparison aside


def _check_monotone(model, X, cst, n_rows=40, n_grid=25):
    """Sweep every constrained feature over its range for some rows: the positive class's
    probability must never move against the constraint."""
    rng = np.random.default_rng(0)
    rows = X[rng.choice(len(X), n_rows, replace=False)]
    for f in np.flatnonzero(cst):
        grid = np.linspace(np.nanmin(X[:, f]) - 1, np.nanmax(X[:, f]) + 1, n_grid)
        sweep = np.repeat(rows, n_grid, axis=0)
        sweep[:, f] = np.tile(grid, n_rows)
        p = model.predict_proba(sweep)[:, 1].reshape(n_rows, n_grid)
        steps = np.diff(p, axis=1) * cst[f]
        assert np.all(steps >= -1e-12), (f, steps.min())


def _decreasing_data(n=800, seed=0):
    """Class 1 grows likelier with feature 0 overall, but with local dips, so that an
    unconstrained model is not monotone in it."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, 3))
    logit = X[:, 0] - 5 + 2.5 * np.sin(3 * X[:, 0]) + X[:, 1] - 5
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


@pytest.mark.parametrize("make", [
    lambda cst: DecisionTreeClassifier(monotonic_cst=cst, random_state=0),
    lambda cst: DecisionTreeClassifier(monotonic_cst=cst, splitter="random", random_state=0),
    lambda cst: DecisionTreeClassifier(monotonic_cst=cst, max_leaf_nodes=30, random_state=0),
    lambda cst: DecisionTreeClassifier(monotonic_cst=cst, criterion="error", random_state=0),
    lambda cst: RandomForestClassifier(n_estimators=10, monotonic_cst=cst, random_state=0),
])
def test_predictions_are_monotone(make):
    X, y = _decreasing_data()
    X[np.random.default_rng(1).random(X.shape) < 0.05] = np.nan      # NaN in training too
    cst = np.array([1, -1, 0])          # feature 1 against the data's own trend
    model = make(cst).fit(X, y)
    _check_monotone(model, X, cst)
    free = make(None).fit(X, y)
    with pytest.raises(AssertionError):
        _check_monotone(free, X, cst)   # the check can fail: without constraints it does


def test_labels_order_defines_the_positive_class():
    """The constraint binds the probability of classes_[1], whatever the labels are."""
    X, y = _decreasing_data()
    labels = np.array(["yes", "no"])[y]     # classes_ = ["no", "yes"]: "yes" is positive
    model = DecisionTreeClassifier(monotonic_cst=[1, 0, 0], random_state=0).fit(X, labels)
    assert list(model.classes_) == ["no", "yes"]
    _check_monotone(model, X, np.array([1, 0, 0]))


@pytest.mark.parametrize("cst, match", [
    ([1, 0], "shape"),
    ([1, 0, 2], "-1, 0 or 1"),
    ([1, 0, 0.5], "-1, 0 or 1"),
    (["a", 0, 0], "-1, 0 or 1"),
])
def test_bad_constraints(cst, match):
    X, y = _decreasing_data(100)
    clf = DecisionTreeClassifier().fit(X, y)
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match=match):
        clf.set_params(monotonic_cst=cst).fit(X, y)
    assert pickle.dumps(clf.set_params(monotonic_cst=None)) == before
    with pytest.raises(ValueError, match=match):
        RandomForestClassifier(n_estimators=2, monotonic_cst=cst).fit(X, y)


def test_multiclass_is_refused_and_one_class_is_harmless():
    X, y = _decreasing_data(150)
    with pytest.raises(ValueError, match="more than two classes"):
        DecisionTreeClassifier(monotonic_cst=[1, 0, 0]).fit(X, np.arange(150) % 3)
    one = DecisionTreeClassifier(monotonic_cst=[1, 0, 0]).fit(X, np.zeros(150))
    np.testing.assert_array_equal(one.predict_proba(X), 1.0)
