"""Multi-output targets (y of shape (n, k), k >= 2) in the trees and random forests, with
scikit-learn as the reference: the fitted attributes' types and shapes, node-for-node
equality of the trees on tie-free data (every criterion, weights, class weights, missing
values, depth-first and best-first growth, cost-complexity pruning), and the forests'
trees, predictions and out-of-bag estimates against scikit-learn's trees refitted on the
same bootstrap samples.

The data are tie-free as in helpers.tie_free_data: each feature column is a permutation
of 0..n-1 (the ranks of continuous normal draws: exact in float32, which scikit-learn's
trees read, and no two values closer than 1); the targets are continuous functions of
the underlying normal draws plus noise.  With ``max_features=None`` the two builders then
agree node for node, except where two features give exactly the same impurity decrease
(scikit-learn breaks such a tie by its random feature order); the cases compared
strictly (``max_ties=0``) are ones where scikit-learn's own tree does not depend on its
``random_state``."""
import numbers
import pickle
import warnings

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.ensemble import RandomForestClassifier as SkForestClassifier
from sklearn.ensemble import RandomForestRegressor as SkForestRegressor
from sklearn.exceptions import DataConversionWarning
from sklearn.metrics import r2_score
from sklearn.tree import DecisionTreeClassifier as SkTreeClassifier
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor

from helpers import sklearn_at_least
from rotforest import _builder
from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor)
from test_exactness import assert_same_tree

# scikit-learn 1.8 fixed its trees' handling of missing values (see test_missing.py) and
# its weighted medians (absolute error, see test_regression.py): before, no oracle.
needs_sklearn_1_8 = pytest.mark.skipif(
    not sklearn_at_least("1.8"),
    reason="scikit-learn < 1.8 misplaces missing values and finds weighted medians "
           "wrongly (both fixed in 1.8)")


# ---------------------------------------------------------------------------- data


def _features(n, n_features, seed):
    """Normal draws Z, the tie-free feature matrix X of their ranks, and the generator."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, n_features))
    X = np.column_stack([rankdata(Z[:, j], method="ordinal") - 1
                         for j in range(n_features)]).astype(np.float64)
    return Z, X, rng


def mo_classification(n=1500, n_features=6, seed=0, labels="object"):
    """X and a y of 3 outputs with 2, 4 and 3 classes, each a noisy function of the
    features.  ``labels``: "object" (an object array of str labels, as a data frame's
    text columns give), "str" (a numpy string array) or "int" (int64)."""
    Z, X, rng = _features(n, n_features, seed)
    e = rng.normal(size=(n, 3))
    y0 = (Z[:, 0] + 0.5 * Z[:, 1] + 0.7 * e[:, 0] > 0).astype(np.int64)
    y1 = np.digitize(Z[:, 1] - Z[:, 2] + 0.7 * e[:, 1], [-1.0, 0.0, 1.0])
    y2 = np.digitize(Z[:, 3] * Z[:, 0] + 0.5 * Z[:, 4] + 0.5 * e[:, 2], [-0.4, 0.4])
    if labels == "int":
        return X, np.column_stack([y0, y1, y2])
    y = np.column_stack([np.array(["no", "yes"])[y0], np.array(["a", "b", "c", "d"])[y1],
                         np.array(["low", "mid", "high"])[y2]])
    return X, y.astype(object) if labels == "object" else y


def mo_binary(n=600, n_features=6, seed=0):
    """X and a y of 3 binary outputs (0/1, so that scikit-learn computes out-of-bag
    estimates for its forest: it does for binary outputs only)."""
    Z, X, rng = _features(n, n_features, seed)
    e = rng.normal(size=(n, 3))
    y = np.column_stack([Z[:, 0] + 0.5 * Z[:, 1] + 0.6 * e[:, 0] > 0,
                         Z[:, 1] - Z[:, 2] + 0.6 * e[:, 1] > 0.3,
                         Z[:, 3] * Z[:, 0] + 0.5 * e[:, 2] > 0]).astype(np.int64)
    return X, y


def mo_regression(n=1200, n_features=6, seed=0, kind="normal"):
    """X and 3 correlated continuous targets.  ``kind``: "normal" (real-valued),
    "positive" (gamma draws: positive and continuous, for the Poisson criterion) or
    "counts" (Poisson counts, zeros included)."""
    Z, X, rng = _features(n, n_features, seed)
    s = 1.5 * Z[:, 0] + np.sin(2.0 * Z[:, 1]) + 0.5 * Z[:, 2] * Z[:, 3]
    signal = np.column_stack([s, 0.5 * s - Z[:, 4], np.exp(0.3 * Z[:, 1]) * Z[:, 0]])
    if kind == "positive":
        return X, rng.gamma(2.0, np.exp(0.4 * signal) / 2.0)
    if kind == "counts":
        return X, rng.poisson(np.exp(0.5 * signal)).astype(np.float64)
    return X, signal + 0.3 * rng.normal(size=signal.shape)


def weights(kind, n, seed=1):
    rng = np.random.default_rng(seed)
    return {"none": None, "real": rng.uniform(0.2, 3.0, n),
            "integer": rng.integers(0, 4, n).astype(np.float64)}[kind]


def encoded(y):
    """Each column of y as the indices of its sorted distinct labels (the forests' trees
    are grown on these)."""
    return np.column_stack([np.unique(y[:, k], return_inverse=True)[1].ravel()
                            for k in range(y.shape[1])])


# Depth-first to depth 4, best-first to 10 leaves, and grown to leaves of 5 samples.  A
# leaf of at least 5 samples keeps single outlying samples from being cut off (two
# features that both have a sample at their end cut it off alike: an exact tie).  Fully
# grown, nodes of 10 to 20 samples still tie now and then (two features that part them
# alike, or with unit or integer weights two partitions with the same class counts):
# there every difference must be an exact tie (``STRICT``).
SETTINGS = [dict(max_depth=4, min_samples_leaf=5), dict(max_leaf_nodes=10, min_samples_leaf=5),
            dict(min_samples_leaf=5)]
SETTING_IDS = ["max_depth=4", "max_leaf_nodes=10", "min_samples_leaf=5"]
STRICT = dict(zip(SETTING_IDS, [True, True, False]))


def tie_free(settings):
    return STRICT[SETTING_IDS[SETTINGS.index(settings)]]


def compare(ours, theirs, strict, min_fraction=0.85):
    """assert_same_tree with the multi-output shapes checked first; ``strict``: no
    exact tie between features may occur (else each must be one, and at least
    ``min_fraction`` of scikit-learn's nodes are compared)."""
    a, b = ours.tree_, theirs.tree_
    assert ours.n_outputs_ == theirs.n_outputs_ and a.n_outputs == b.n_outputs
    np.testing.assert_array_equal(a.n_classes, b.n_classes)
    assert a.value.shape[1:] == b.value.shape[1:]
    ties, compared = assert_same_tree(ours, theirs, max_ties=0 if strict else None)
    assert compared >= min_fraction * b.node_count
    if not ties:
        assert a.value.shape == b.value.shape
        np.testing.assert_allclose(a.value, b.value, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                                   rtol=1e-7, atol=1e-12)
    return ties


def assert_same_classifier_output(ours, theirs, X):
    """predict (labels, dtype), predict_proba and predict_log_proba (lists of k arrays)
    of two fitted multi-output classifiers agree."""
    pred, ref = ours.predict(X), theirs.predict(X)
    assert pred.shape == ref.shape == (len(X), ours.n_outputs_)
    assert pred.dtype == ref.dtype
    np.testing.assert_array_equal(pred, ref)
    proba, ref_proba = ours.predict_proba(X), theirs.predict_proba(X)
    assert isinstance(proba, list) and len(proba) == ours.n_outputs_
    for p, q, n_classes in zip(proba, ref_proba, theirs.n_classes_):
        assert p.shape == q.shape == (len(X), n_classes)
        np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-12)
    with np.errstate(divide="ignore"):
        log_proba, ref_log = ours.predict_log_proba(X), theirs.predict_log_proba(X)
    assert isinstance(log_proba, list) and len(log_proba) == ours.n_outputs_
    for p, q in zip(log_proba, ref_log):
        assert p.shape == q.shape
        np.testing.assert_array_equal(np.isneginf(p), np.isneginf(q))
        np.testing.assert_allclose(np.exp(p), np.exp(q), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------- trees


@pytest.mark.parametrize("labels", ["object", "str", "int"])
def test_classifier_attributes_are_sklearns(labels):
    """classes_ a list of k arrays (each output its own classes: 2, 4 and 3 here),
    n_classes_ an integer ndarray, tree_.value of shape (nodes, k, max classes) holding
    each output's weighted class fractions (zero beyond its classes)."""
    X, y = mo_classification(labels=labels)
    ours = DecisionTreeClassifier(max_depth=4).fit(X, y)
    theirs = SkTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    assert ours.n_outputs_ == theirs.n_outputs_ == 3
    assert type(ours.classes_) is type(theirs.classes_) is list
    assert len(ours.classes_) == 3
    for c, ref in zip(ours.classes_, theirs.classes_):
        assert isinstance(c, np.ndarray) and c.dtype == ref.dtype
        np.testing.assert_array_equal(c, ref)
    assert type(ours.n_classes_) is type(theirs.n_classes_) is np.ndarray
    assert ours.n_classes_.dtype.kind == theirs.n_classes_.dtype.kind == "i"
    np.testing.assert_array_equal(ours.n_classes_, [2, 4, 3])
    t = ours.tree_
    assert t.value.shape == (t.node_count, 3, 4)
    assert t.max_n_classes == 4
    for k, n_classes in enumerate([2, 4, 3]):
        np.testing.assert_allclose(t.value[:, k, :n_classes].sum(axis=1), 1.0, rtol=1e-12)
        assert np.all(t.value[:, k, n_classes:] == 0.0)
    compare(ours, theirs, strict=True)
    assert_same_classifier_output(ours, theirs, X)
    Xt = mo_classification(400, seed=9)[0]
    assert_same_classifier_output(ours, theirs, Xt)
    np.testing.assert_array_equal(ours.apply(Xt), theirs.apply(Xt.astype(np.float32)))


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss"])
@pytest.mark.parametrize("weighting", ["none", "real", "integer"])
@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
def test_classifier_equals_sklearn(criterion, weighting, settings):
    X, y = mo_classification(seed=1)
    sw = weights(weighting, len(y))
    ours = DecisionTreeClassifier(criterion=criterion, **settings).fit(X, y, sample_weight=sw)
    theirs = SkTreeClassifier(criterion=criterion, random_state=0, **settings).fit(
        X, y, sample_weight=sw)
    if not compare(ours, theirs, tie_free(settings)):
        assert_same_classifier_output(ours, theirs, X)


@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
@pytest.mark.parametrize("weighting", ["none", "real", "integer"])
@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
def test_regressor_equals_sklearn(criterion, weighting, settings):
    X, y = mo_regression(seed=2, kind="positive" if criterion == "poisson" else "normal")
    sw = weights(weighting, len(y))
    ours = DecisionTreeRegressor(criterion=criterion, **settings).fit(X, y, sample_weight=sw)
    theirs = SkTreeRegressor(criterion=criterion, random_state=0, **settings).fit(
        X, y, sample_weight=sw)
    assert ours.tree_.value.shape[1:] == (3, 1)
    if compare(ours, theirs, tie_free(settings)):
        return
    pred = ours.predict(X)
    assert pred.shape == (len(y), 3)
    np.testing.assert_allclose(pred, theirs.predict(X), rtol=1e-12, atol=1e-12)
    Xt = mo_regression(300, seed=8)[0]
    np.testing.assert_allclose(ours.predict(Xt), theirs.predict(Xt), rtol=1e-12, atol=1e-12)


def test_regressor_poisson_counts_equals_sklearn():
    """Poisson counts (zeros included: scikit-learn refuses a cut that leaves an output
    without a positive count on one side); equal counts can tie, so ties are allowed."""
    X, y = mo_regression(seed=3, kind="counts")
    assert (y == 0).any()
    for settings in (dict(max_depth=4), dict(min_samples_leaf=10)):     # (tie-free here)
        ours = DecisionTreeRegressor(criterion="poisson", **settings).fit(X, y)
        theirs = SkTreeRegressor(criterion="poisson", random_state=0, **settings).fit(X, y)
        compare(ours, theirs, strict=False)


@pytest.mark.skipif(sklearn_at_least("1.9"),
                    reason="scikit-learn 1.9 made friedman_mse the squared error; rotforest "
                           "keeps Friedman's score, whose multi-output form (scikit-learn's "
                           "before 1.9) sums the outputs' differences before squaring")
@pytest.mark.parametrize("settings", SETTINGS[:2], ids=SETTING_IDS[:2])
def test_regressor_friedman_mse_equals_sklearn(settings):
    X, y = mo_regression(seed=4)
    sw = weights("real", len(y))
    ours = DecisionTreeRegressor(criterion="friedman_mse", **settings).fit(X, y, sw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)      # 1.9 deprecates the name
        theirs = SkTreeRegressor(criterion="friedman_mse", random_state=0,
                                 **settings).fit(X, y, sw)
    compare(ours, theirs, strict=True)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)


@needs_sklearn_1_8
@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
def test_regressor_absolute_error_equals_sklearn(settings):
    """Multi-output absolute error: the mean over the outputs of each one's weighted
    absolute deviations from its weighted median (real weights: no exact ties)."""
    X, y = mo_regression(seed=5)
    sw = weights("real", len(y))
    ours = DecisionTreeRegressor(criterion="absolute_error", **settings).fit(X, y, sw)
    theirs = SkTreeRegressor(criterion="absolute_error", random_state=0,
                             **settings).fit(X, y, sw)
    if compare(ours, theirs, tie_free(settings)):
        return
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)


def test_copies_of_one_target_grow_the_one_target_tree():
    """k copies of a 1-D y: the per-output impurities are equal, so their mean is the
    1-D impurity, and the tree is the 1-D tree with k equal rows of values."""
    X, y = mo_regression(seed=6)
    sw = weights("real", len(y))
    one = DecisionTreeRegressor(min_samples_leaf=20).fit(X, y[:, 0], sw)
    three = DecisionTreeRegressor(min_samples_leaf=20).fit(X, np.repeat(y[:, :1], 3, 1), sw)
    assert three.tree_.value.shape == (one.tree_.node_count, 3, 1)
    for name in ("feature", "threshold", "children_left", "n_node_samples"):
        np.testing.assert_array_equal(getattr(three.tree_, name), getattr(one.tree_, name))
    np.testing.assert_allclose(three.tree_.impurity, one.tree_.impurity, rtol=1e-9)
    np.testing.assert_allclose(three.predict(X), np.repeat(one.predict(X)[:, None], 3, 1),
                               rtol=1e-12)
    Xc, yc = mo_classification(seed=6, labels="int")
    sw = weights("real", len(yc))
    one = DecisionTreeClassifier(min_samples_leaf=20).fit(Xc, yc[:, 1], sw)
    three = DecisionTreeClassifier(min_samples_leaf=20).fit(Xc, np.repeat(yc[:, 1:2], 3, 1),
                                                            sw)
    np.testing.assert_array_equal(three.tree_.feature, one.tree_.feature)
    np.testing.assert_array_equal(three.tree_.threshold, one.tree_.threshold)
    np.testing.assert_allclose(three.tree_.impurity, one.tree_.impurity, rtol=1e-9)
    for p in three.predict_proba(Xc):
        np.testing.assert_allclose(p, one.predict_proba(Xc), rtol=1e-12)


@needs_sklearn_1_8
@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
def test_missing_values_equal_sklearn(settings):
    rng = np.random.default_rng(7)
    X, y = mo_classification(seed=7)
    X[rng.random(X.shape) < 0.1] = np.nan
    sw = weights("real", len(y))
    ours = DecisionTreeClassifier(**settings).fit(X, y, sw)
    theirs = SkTreeClassifier(random_state=0, **settings).fit(X, y, sw)
    ties = compare(ours, theirs, tie_free(settings))
    Xt = mo_classification(400, seed=9)[0]
    Xt[rng.random(Xt.shape) < 0.3] = np.nan
    if not ties:
        inner = theirs.tree_.children_left != -1
        np.testing.assert_array_equal(ours.tree_.missing_go_to_left[inner],
                                      theirs.tree_.missing_go_to_left[inner])
        assert_same_classifier_output(ours, theirs, Xt)
    Xr, yr = mo_regression(seed=7)
    Xr[rng.random(Xr.shape) < 0.1] = np.nan
    sw = weights("real", len(yr))
    ours = DecisionTreeRegressor(**settings).fit(Xr, yr, sw)
    theirs = SkTreeRegressor(random_state=0, **settings).fit(Xr, yr, sw)
    if not compare(ours, theirs, tie_free(settings)):
        np.testing.assert_allclose(ours.predict(Xt), theirs.predict(Xt), rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("class_weight", [
    [{"no": 1.0, "yes": 3.0}, {"a": 1.0, "b": 0.5, "c": 2.0, "d": 1.5},
     {"low": 2.0, "mid": 1.0, "high": 0.7}],
    "balanced"], ids=["list of dicts", "balanced"])
@pytest.mark.parametrize("weighting", ["none", "real"])
def test_class_weight_equals_sklearn(class_weight, weighting):
    """Each sample weighs the product of its classes' weights in the outputs (times its
    sample weight)."""
    X, y = mo_classification(seed=8)
    sw = weights(weighting, len(y))
    ours = DecisionTreeClassifier(class_weight=class_weight, **SETTINGS[0]).fit(X, y, sw)
    theirs = SkTreeClassifier(class_weight=class_weight, random_state=0,
                              **SETTINGS[0]).fit(X, y, sw)
    if not compare(ours, theirs, strict=True):
        assert_same_classifier_output(ours, theirs, X)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, RandomForestClassifier])
@pytest.mark.parametrize("class_weight", [
    {0: 1.0, 1: 2.0},                                  # one dict for 3 outputs
    [{0: 1.0, 1: 2.0}, {0: 1.0, 1: 2.0}],              # 2 dicts for 3 outputs
    [{0: 1.0, 1: 2.0}] * 4], ids=["dict", "too few", "too many"])
def test_bad_class_weight_for_multi_output(cls, class_weight):
    X, y = mo_binary(200)
    params = dict(n_estimators=2) if cls is RandomForestClassifier else {}
    with pytest.raises(ValueError):
        cls(class_weight=class_weight, **params).fit(X, y)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_cost_complexity_pruning_equals_sklearn(task):
    if task == "classification":
        X, y = mo_classification(seed=10)
        ours_cls, sk_cls = DecisionTreeClassifier, SkTreeClassifier
    else:
        X, y = mo_regression(seed=10)
        ours_cls, sk_cls = DecisionTreeRegressor, SkTreeRegressor
    sw = weights("real", len(y))
    ours = ours_cls(min_samples_leaf=10).fit(X, y, sw)
    theirs = sk_cls(min_samples_leaf=10, random_state=0).fit(X, y, sw)
    compare(ours, theirs, strict=True)
    path = ours.cost_complexity_pruning_path(X, y, sw)
    ref = theirs.cost_complexity_pruning_path(X, y, sw)
    np.testing.assert_allclose(path.ccp_alphas, ref.ccp_alphas, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(path.impurities, ref.impurities, rtol=1e-9, atol=1e-14)
    distinct = np.unique(path.ccp_alphas)
    # between two alphas of the path (the first midpoint, below the first positive
    # alpha, prunes nothing)
    for alpha in ((distinct[:-1] + distinct[1:]) / 2)[1:][:: max(1, len(distinct) // 5)]:
        a = ours_cls(min_samples_leaf=10, ccp_alpha=alpha).fit(X, y, sw)
        b = sk_cls(min_samples_leaf=10, ccp_alpha=alpha, random_state=0).fit(X, y, sw)
        assert a.tree_.node_count == b.tree_.node_count < theirs.tree_.node_count
        compare(a, b, strict=True)


def test_column_vector_y_is_one_output():
    """y of shape (n, 1) fits as its 1-D column: one output, 1-D predictions; a
    DataConversionWarning exactly where scikit-learn gives one (its trees do not warn,
    its forests do)."""
    X, y = mo_classification(300, seed=11, labels="int")
    Xr, yr = mo_regression(300, seed=11)
    cases = [(DecisionTreeClassifier(max_depth=3), SkTreeClassifier(max_depth=3), X, y),
             (DecisionTreeRegressor(max_depth=3), SkTreeRegressor(max_depth=3), Xr, yr),
             (RandomForestClassifier(n_estimators=3, random_state=0),
              SkForestClassifier(n_estimators=3, random_state=0), X, y),
             (RandomForestRegressor(n_estimators=3, random_state=0),
              SkForestRegressor(n_estimators=3, random_state=0), Xr, yr)]
    for ours, theirs, XX, yy in cases:
        column = yy[:, 1:2]
        with warnings.catch_warnings(record=True) as ours_warned:
            warnings.simplefilter("always")
            ours.fit(XX, column)
        with warnings.catch_warnings(record=True) as sk_warned:
            warnings.simplefilter("always")
            theirs.fit(XX, column)
        converted = [issubclass(w.category, DataConversionWarning) for w in ours_warned]
        expected = [issubclass(w.category, DataConversionWarning) for w in sk_warned]
        assert any(converted) == any(expected), type(ours).__name__
        assert ours.n_outputs_ == theirs.n_outputs_ == 1
        assert ours.predict(XX).shape == (len(XX),)
        flat = type(ours)(**ours.get_params()).fit(XX, column.ravel())
        np.testing.assert_array_equal(ours.predict(XX), flat.predict(XX))
        if hasattr(theirs, "classes_"):
            assert isinstance(ours.classes_, np.ndarray) and ours.classes_.ndim == 1
            assert isinstance(ours.n_classes_, numbers.Integral)
            assert ours.predict_proba(XX).shape == (len(XX), ours.n_classes_)


def test_single_output_unchanged():
    X, y = mo_classification(300, seed=12, labels="str")
    tree = DecisionTreeClassifier(max_depth=3).fit(X, y[:, 1])
    assert isinstance(tree.classes_, np.ndarray)
    np.testing.assert_array_equal(tree.classes_, ["a", "b", "c", "d"])
    assert isinstance(tree.n_classes_, numbers.Integral) and tree.n_classes_ == 4
    assert tree.n_outputs_ == 1
    assert tree.tree_.value.shape == (tree.tree_.node_count, 1, 4)
    assert tree.predict(X).shape == (300,)
    proba = tree.predict_proba(X)
    assert isinstance(proba, np.ndarray) and proba.shape == (300, 4)
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y[:, 1])
    assert isinstance(forest.classes_, np.ndarray)
    assert isinstance(forest.n_classes_, numbers.Integral) and forest.n_classes_ == 4
    assert isinstance(forest.predict_proba(X), np.ndarray)
    Xr, yr = mo_regression(300, seed=12)
    reg = DecisionTreeRegressor(max_depth=3).fit(Xr, yr[:, 0])
    assert reg.n_outputs_ == 1 and reg.predict(Xr).shape == (300,)
    assert reg.tree_.value.shape == (reg.tree_.node_count, 1, 1)


def test_multi_output_trees_pickle():
    X, y = mo_classification(300, seed=13)
    tree = DecisionTreeClassifier(max_depth=4).fit(X, y)
    back = pickle.loads(pickle.dumps(tree))
    np.testing.assert_array_equal(back.predict(X), tree.predict(X))
    for p, q in zip(back.predict_proba(X), tree.predict_proba(X)):
        np.testing.assert_array_equal(p, q)
    Xr, yr = mo_regression(300, seed=13)
    reg = DecisionTreeRegressor(max_depth=4).fit(Xr, yr)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(reg)).predict(Xr), reg.predict(Xr))


# ---------------------------------------------------------------------------- forests


def oob_reference(trees, samples, X, n_outputs, classifier, unseen=np.nan):
    """scikit-learn's out-of-bag estimate, computed here from fitted trees and their
    drawn samples: each sample's mean prediction (class probabilities stacked as
    (n_classes, n_outputs)) over the trees it was not drawn for; ``unseen`` where there
    is none (rotforest's NaN; scikit-learn's 0)."""
    n = len(X)
    total, count = None, np.zeros(n)
    for tree, drawn in zip(trees, samples):
        out = np.bincount(drawn, minlength=n) == 0
        if classifier:
            pred = np.stack(tree.predict_proba(X[out]), axis=-1)       # (m, classes, k)
        else:
            pred = tree.predict(X[out]).reshape(-1, 1, n_outputs)      # (m, 1, k)
        if total is None:
            total = np.zeros((n,) + pred.shape[1:])
        total[out] += pred
        count[out] += 1
    total /= np.maximum(count, 1)[:, None, None]
    total[count == 0] = unseen          # (rotforest's NaN, as for one output)
    return total if classifier else total[:, 0, :]


def refitted(forest, X, y, tree_class):
    """scikit-learn trees grown on each of the forest's bootstrap samples (their draw
    counts as sample weights), with the forest's tree settings."""
    out = []
    for tree, drawn in zip(forest.estimators_, forest.estimators_samples_):
        counts = np.bincount(drawn, minlength=len(X)).astype(np.float64)
        sk = tree_class(random_state=tree.random_state, max_features=None,
                        min_samples_leaf=forest.min_samples_leaf, max_depth=forest.max_depth)
        out.append(sk.fit(X, y, sample_weight=counts))
    return out


def test_oob_reference_is_sklearns():
    """The reference above gives scikit-learn's own forests' out-of-bag attributes."""
    X, y = mo_binary(300, seed=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # samples without OOB trees
        sk = SkForestClassifier(n_estimators=6, oob_score=True, random_state=0).fit(X, y)
        ref = oob_reference(sk.estimators_, sk.estimators_samples_, X, 3, True, 0.0)
    assert sk.oob_decision_function_.shape == ref.shape == (300, 2, 3)
    np.testing.assert_allclose(sk.oob_decision_function_, ref, rtol=1e-12)
    assert sk.oob_score_ == pytest.approx(np.mean(np.all(ref.argmax(axis=1) == y, axis=1)))
    Xr, yr = mo_regression(300, seed=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        skr = SkForestRegressor(n_estimators=6, oob_score=True, random_state=0).fit(Xr, yr)
        ref = oob_reference(skr.estimators_, skr.estimators_samples_, Xr, 3, False, 0.0)
    assert skr.oob_prediction_.shape == ref.shape == (300, 3)
    np.testing.assert_allclose(skr.oob_prediction_, ref, rtol=1e-12)
    assert skr.oob_score_ == pytest.approx(r2_score(yr, ref))


def test_forest_regressor_equals_sklearn_trees_on_its_samples():
    """Every tree equals scikit-learn's tree grown on the same bootstrap sample (drawn,
    as scikit-learn's forests draw it, from the tree's random_state); the forest's
    predictions and out-of-bag estimates are those of scikit-learn's trees."""
    X, y = mo_regression(600, seed=21)
    forest = RandomForestRegressor(n_estimators=5, max_features=None, min_samples_leaf=10,
                                   oob_score=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # samples without OOB trees
        forest.fit(X, y)
    assert forest.n_outputs_ == 3
    for tree, drawn in zip(forest.estimators_, forest.estimators_samples_):
        np.testing.assert_array_equal(
            drawn, np.random.RandomState(tree.random_state).randint(0, len(X), len(X)))
    sk_trees = refitted(forest, X, y, SkTreeRegressor)
    for tree, sk in zip(forest.estimators_, sk_trees):
        compare(tree, sk, strict=True)
    Xt = mo_regression(300, seed=22)[0]
    for data in (X, Xt):
        pred = forest.predict(data)
        assert pred.shape == (len(data), 3)
        np.testing.assert_allclose(pred, np.mean([t.predict(data) for t in sk_trees], axis=0),
                                   rtol=1e-10, atol=1e-12)
    ref = oob_reference(sk_trees, forest.estimators_samples_, X, 3, False)
    assert forest.oob_prediction_.shape == (len(X), 3)
    np.testing.assert_allclose(forest.oob_prediction_, ref, rtol=1e-10, atol=1e-12)
    seen = ~np.isnan(ref[:, 0])
    assert forest.oob_score_ == pytest.approx(r2_score(y[seen], ref[seen]), rel=1e-10)
    assert forest.score(Xt, forest.predict(Xt)) == pytest.approx(1.0)


def test_forest_classifier_equals_sklearn_trees_on_its_samples():
    """Binary outputs with string labels: classes_ and n_classes_ lists
    as scikit-learn's forest has them, probabilities the mean of scikit-learn's trees on
    the same samples, oob_decision_function_ of shape (n, 2, k) and oob_score_ the
    fraction of samples whose every output is right."""
    X, y01 = mo_binary(600, seed=23)
    y = np.column_stack([np.array(pair)[y01[:, k]]
                         for k, pair in enumerate([("no", "yes"), ("down", "up"), ("a", "b")])])
    # (bootstrap counts are integer weights: small nodes would tie between features)
    forest = RandomForestClassifier(n_estimators=5, max_features=None, max_depth=5,
                                    min_samples_leaf=20, oob_score=True, random_state=0)
    sk_forest = SkForestClassifier(n_estimators=5, oob_score=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # samples without OOB trees
        forest.fit(X, y)
        sk_forest.fit(X, y)
    assert forest.n_outputs_ == 3
    assert type(forest.classes_) is type(sk_forest.classes_) is list
    for c, ref in zip(forest.classes_, sk_forest.classes_):
        assert c.dtype == ref.dtype
        np.testing.assert_array_equal(c, ref)
    assert type(forest.n_classes_) is type(sk_forest.n_classes_)
    assert list(forest.n_classes_) == list(sk_forest.n_classes_) == [2, 2, 2]
    sk_trees = refitted(forest, X, encoded(y), SkTreeClassifier)
    for tree, sk in zip(forest.estimators_, sk_trees):
        compare(tree, sk, strict=True)
    Xt = mo_binary(300, seed=24)[0]
    proba = forest.predict_proba(Xt)
    assert isinstance(proba, list) and len(proba) == 3
    for k in range(3):
        mean = np.mean([t.predict_proba(Xt)[k] for t in sk_trees], axis=0)
        np.testing.assert_allclose(proba[k], mean, rtol=1e-10, atol=1e-12)
    pred = forest.predict(Xt)
    assert pred.shape == (300, 3) and pred.dtype == sk_forest.predict(Xt).dtype
    for k in range(3):
        np.testing.assert_array_equal(pred[:, k], forest.classes_[k][proba[k].argmax(1)])
    ref = oob_reference(sk_trees, forest.estimators_samples_, X, 3, True)
    assert forest.oob_decision_function_.shape == sk_forest.oob_decision_function_.shape
    np.testing.assert_allclose(forest.oob_decision_function_, ref, rtol=1e-10, atol=1e-12)
    seen = ~np.isnan(ref[:, 0, 0])
    assert forest.oob_score_ == pytest.approx(np.mean(np.all(
        ref[seen].argmax(axis=1) == encoded(y)[seen], axis=1)), rel=1e-12)


def test_forest_classifier_with_outputs_of_different_class_counts():
    """2, 4 and 3 classes: predictions and per-output probabilities; scikit-learn
    computes no out-of-bag estimate for such a y (ValueError), nor do we."""
    X, y = mo_classification(500, seed=25)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    sk = SkForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    assert list(forest.n_classes_) == list(sk.n_classes_) == [2, 4, 3]
    pred = forest.predict(X)
    assert pred.shape == (500, 3) and pred.dtype == sk.predict(X).dtype
    proba = forest.predict_proba(X)
    assert [p.shape for p in proba] == [(500, 2), (500, 4), (500, 3)]
    for k in range(3):
        assert set(pred[:, k]) <= set(forest.classes_[k])
        np.testing.assert_allclose(proba[k].sum(axis=1), 1.0)
    try:
        SkForestClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, y)
    except ValueError:          # "multiclass-multioutput" targets (1.6 to 1.9 at least)
        with pytest.raises(ValueError):
            RandomForestClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, y)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_rotation_forests_take_multi_output(task):
    """The rotation forests fit several outputs natively: shapes and attributes as the
    random forests'; two copies of one target give, output by output, exactly the
    single-output forest (the same PCA groups, splits, leaves and out-of-bag votes)."""
    if task == "classification":
        X, y = mo_classification(300, seed=26)
        cls = RotationForestClassifier
    else:
        X, y = mo_regression(300, seed=26)
        cls = RotationForestRegressor
    forest = cls(n_estimators=3, random_state=0).fit(X, y)
    assert forest.n_outputs_ == 3
    assert forest.predict(X).shape == (300, 3)
    if task == "classification":
        assert [p.shape for p in forest.predict_proba(X)] == [(300, 2), (300, 4), (300, 3)]
        y = encoded(y)[:, 0]              # two classes: out-of-bag scores are defined
    else:
        y = y[:, 0]
    params = dict(n_estimators=6, random_state=0, bootstrap=True, oob_score=True)
    # (both through the reference scan: the single-output regression scan sums in
    # another order, and on rotated features 3-sample nodes have exact ties between
    # features that rounding breaks; the reference's proxy of two copies is exactly
    # twice the one of one)
    previous = _builder._set_reference_scan(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)      # samples without OOB trees
            one = cls(**params).fit(X, y)
            two = cls(**params).fit(X, np.column_stack([y, y]))
    finally:
        _builder._set_reference_scan(previous)
    if task == "classification":
        for proba in two.predict_proba(X):
            np.testing.assert_array_equal(proba, one.predict_proba(X))
        np.testing.assert_array_equal(two.oob_decision_function_[:, :, 1],
                                      one.oob_decision_function_)
    else:
        np.testing.assert_array_equal(two.predict(X), np.column_stack([one.predict(X)] * 2))
        np.testing.assert_array_equal(two.oob_prediction_[:, 1], one.oob_prediction_)
    assert two.oob_score_ == pytest.approx(one.oob_score_)


# ---------------------------------------------------------------------------- bad inputs


ALL = [DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier,
       RandomForestRegressor]


def _make(cls, **params):
    if cls in (RandomForestClassifier, RandomForestRegressor):
        params.setdefault("n_estimators", 2)
    return cls(**params)


@pytest.mark.parametrize("cls", [DecisionTreeRegressor, RandomForestRegressor])
def test_missing_target_value_refused(cls):
    X, y = mo_regression(200, seed=30)
    y[5, 1] = np.nan
    with pytest.raises(ValueError):
        _make(cls).fit(X, y)


@pytest.mark.parametrize("cls", ALL)
def test_y_without_outputs_or_of_three_dimensions_refused(cls):
    X = mo_regression(200, seed=31)[0]
    with pytest.raises(ValueError):
        _make(cls).fit(X, np.zeros((200, 0)))
    with pytest.raises(ValueError):
        _make(cls).fit(X, np.zeros((200, 2, 2), dtype=np.int64))


@pytest.mark.parametrize("cls", ALL)
def test_monotonic_constraints_refused_with_multi_output(cls):
    X, y = mo_binary(200, seed=32)
    if cls in (DecisionTreeRegressor, RandomForestRegressor):
        y = y.astype(np.float64)
    with pytest.raises(ValueError):
        _make(cls, monotonic_cst=[1, 0, 0, 0, 0, 0]).fit(X, y)


@pytest.mark.parametrize("classifier", [True, False])
def test_explain_and_onnx_refuse_several_outputs_clearly(classifier):
    """SHAP values and ONNX export take one output: a model of several gets a
    ValueError naming the wrapper that fits one per output, not a wrong answer."""
    from rotforest.explain import explain
    from rotforest.onnx import to_onnx
    X, y = (mo_classification(200, seed=30) if classifier
            else mo_regression(200, seed=30))
    model = (DecisionTreeClassifier if classifier else DecisionTreeRegressor)(
        max_depth=3).fit(X, y)
    wrapper = "MultiOutputClassifier" if classifier else "MultiOutputRegressor"
    with pytest.raises(ValueError, match=f"models of one output.*{wrapper}"):
        explain(model, X[:5])
    pytest.importorskip("onnx", reason="to_onnx needs onnx before it reads the model")
    with pytest.raises(ValueError, match=f"models of one output.*{wrapper}"):
        to_onnx(model)


@pytest.mark.parametrize("classifier, criterion", [
    (True, "gini"), (False, "squared_error"), (False, "friedman_mse")])
def test_multi_output_scan_equals_the_reference_scan(classifier, criterion):
    """The multi-output scan of the common criteria (_scan_outputs) grows the trees the
    reference scan grows, bit for bit, with ties, weights and min_samples_leaf."""
    rng = np.random.RandomState(40)
    X = np.round(rng.normal(size=(600, 5)), 1)          # many ties
    if classifier:
        _, y = mo_classification(600, seed=40)
        make = DecisionTreeClassifier
    else:
        _, y = mo_regression(600, seed=40)
        make = DecisionTreeRegressor
    sw = rng.uniform(0.5, 2.0, 600)
    for settings, weight in [({}, None), (dict(min_samples_leaf=4), sw),
                             (dict(max_features=2, random_state=3), None)]:
        fast = make(criterion=criterion, **settings).fit(X, y, weight).tree_
        previous = _builder._set_reference_scan(True)
        try:
            ref = make(criterion=criterion, **settings).fit(X, y, weight).tree_
        finally:
            _builder._set_reference_scan(previous)
        assert fast.nodes.tobytes() == ref.nodes.tobytes()
        np.testing.assert_array_equal(fast.value, ref.value)


def _brute_force_root(codes, y, n_levels):
    """The best root split of categorical feature 0 over every partition of its levels
    (each side non-empty), scored by the mean over the outputs of the children's
    weighted Gini impurities: (the lowest score, the set of levels of the left side
    that scores it)."""
    best, best_set = np.inf, None
    n = len(y)
    for mask in range(1, 2 ** (n_levels - 1)):
        left = np.isin(codes, [c for c in range(n_levels) if (mask >> c) & 1])
        score = 0.0
        for part in (left, ~left):
            for o in range(y.shape[1]):     # (np.unique: the classes present)
                share = np.unique(y[part, o], return_counts=True)[1] / part.sum()
                score += part.sum() / n * (1.0 - np.sum(share ** 2))
        score /= y.shape[1]
        if score < best - 1e-12:
            best, best_set = score, {c for c in range(n_levels) if (mask >> c) & 1}
    return best, best_set


def test_multi_output_categorical_split_is_the_best_partition():
    """A categorical feature of 6 levels and two outputs: the root's split is the
    partition of the levels that a brute-force search over all of them finds best."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(41)
    codes = rng.randint(0, 6, 400)
    y = np.column_stack([(np.isin(codes, [0, 2, 5]) ^ (rng.rand(400) < 0.1)).astype(int),
                         np.where(codes < 3, rng.randint(0, 3, 400), 2)])
    X = pd.DataFrame({"c": pd.Categorical(codes), "x": rng.normal(size=400) * 1e-3})
    tree = DecisionTreeClassifier(max_depth=1, min_category_samples=1).fit(X, y)
    best, best_set = _brute_force_root(codes, y, 6)
    assert tree.tree_.feature[0] == 0
    left = set(tree.tree_.categories_left(0).tolist())
    assert left in (best_set, set(range(6)) - best_set)
    root = tree.tree_
    children = (root.weighted_n_node_samples[1:3] / root.weighted_n_node_samples[0]
                * root.impurity[1:3]).sum()
    assert children == pytest.approx(best, rel=1e-12)


def test_data_frame_outputs_of_different_label_types():
    """A data frame y whose columns hold labels of different types (text and integers:
    an object array that no one sort orders, on which scikit-learn's forest fails):
    each output keeps its own labels, and the fit equals the one on integer codes."""
    pd = pytest.importorskip("pandas")
    X, y = mo_classification(300, seed=50, labels="int")
    frame = pd.DataFrame({"text": np.array(["a", "b", "c", "d"])[y[:, 1]],
                          "number": y[:, 0]})
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, frame)
    codes = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y[:, 1::-1])
    assert [list(c) for c in forest.classes_] == [["a", "b", "c", "d"], [0, 1]]
    predicted = forest.predict(X)
    np.testing.assert_array_equal(predicted[:, 0],
                                  np.array(["a", "b", "c", "d"])[codes.predict(X)[:, 0]])
    np.testing.assert_array_equal(predicted[:, 1].astype(int), codes.predict(X)[:, 1])


def test_export_text_shows_every_output():
    """rotforest's export_text on trees of several outputs: a regressor's leaves show
    every output's value, a classifier's every output's class (and weights), as the
    tree's own values say."""
    from rotforest.export import export_text
    X, y = mo_regression(200, seed=60)
    reg = DecisionTreeRegressor(max_depth=1).fit(X, y)
    leaf = reg.tree_.children_left[0]
    text = export_text(reg, decimals=3)
    assert "value: [" + ", ".join(f"{v:.3f}" for v in reg.tree_.value[leaf, :, 0]) + "]" in text
    X, y = mo_classification(200, seed=60, labels="str")
    clf = DecisionTreeClassifier(max_depth=1).fit(X, y)
    leaf = clf.tree_.children_left[0]
    shown = [c[np.argmax(clf.tree_.value[leaf, o, :len(c)])]
             for o, c in enumerate(clf.classes_)]
    text = export_text(clf, show_weights=True)
    assert "class: [" + ", ".join(shown) + "]" in text
    assert text.count("weights: [[") == 2
    with pytest.raises(ValueError, match="class_names"):
        export_text(clf, class_names=[["x", "y"]])


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, RandomForestClassifier,
                                 RotationForestClassifier])
def test_score_of_several_outputs(cls):
    """score() of a multi-output classifier: scikit-learn's subset accuracy where
    scikit-learn computes it (outputs of 0s and 1s), and the same share of rows with
    every output right for any labels (where scikit-learn's refuses them)."""
    from sklearn.metrics import accuracy_score
    X, y = mo_binary(300, seed=70)
    params = {} if cls is DecisionTreeClassifier else dict(n_estimators=3)
    model = cls(max_depth=2, random_state=0, **params).fit(X, y)
    sw = np.random.RandomState(0).uniform(0.5, 2.0, 300)
    assert model.score(X, y, sw) == pytest.approx(
        accuracy_score(y, model.predict(X), sample_weight=sw))
    X, y = mo_classification(300, seed=70)
    model = cls(max_depth=2, random_state=0, **params).fit(X, y)
    assert model.score(X, y) == pytest.approx(np.mean(np.all(model.predict(X) == y, 1)))
    with pytest.raises(ValueError, match="one column per output"):
        model.score(X, y[:, :2])
