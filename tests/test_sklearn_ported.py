"""The assertions of scikit-learn's own tests that our runs of its suites cannot see.

``sklearn_suites.py`` runs scikit-learn's test_tree.py and test_forest.py on our classes,
but marks some tests as expected failures (``xfail(strict=True)``) or deselects them as a
whole: one assertion that does not apply to us (a seed's lottery, a private attribute, a
behaviour we chose differently) then hides every other assertion of the test.  Here each
such test's other assertions are written anew on our estimators, with references that do
not depend on one machine's floats: the same model built two ways, hand-made examples,
sums recomputed from the trees' public arrays.  A comment before each group names the
scikit-learn test it stands for and what of it is left out (and why).

Nothing here reads scikit-learn's test files: only its public API of release 1.6 on.
"""
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification, make_hastie_10_2
from sklearn.exceptions import NotFittedError
from sklearn.metrics import r2_score
from sklearn.utils.class_weight import compute_sample_weight

from helpers import trees_of
from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                       ExtraTreeRegressor, ExtraTreesClassifier,
                       ExtraTreesQuantileRegressor, ExtraTreesRegressor,
                       RandomForestClassifier, RandomForestQuantileRegressor,
                       RandomForestRegressor,
                       RotationForestClassifier, RotationForestQuantileRegressor,
                       RotationForestRegressor)

TREES = [DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
         ExtraTreeRegressor]
CLASSIFIERS = [RandomForestClassifier, ExtraTreesClassifier, RotationForestClassifier]
REGRESSORS = [RandomForestRegressor, ExtraTreesRegressor, RotationForestRegressor]
QUANTILE = [RandomForestQuantileRegressor, ExtraTreesQuantileRegressor,
            RotationForestQuantileRegressor]
ROTATION = [RotationForestClassifier, RotationForestRegressor,
            RotationForestQuantileRegressor]

# scikit-learn's toy problem (both test files): two well separated groups of three rows.
TOY_X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]], dtype=float)
TOY_Y = np.array([-1, -1, -1, 1, 1, 1])
TOY_T = np.array([[-1, -1], [2, 2], [3, 2]], dtype=float)
TOY_TRUE = np.array([-1, 1, 1])


def _regression(cls):
    return cls._tree_class._regression if hasattr(cls, "_tree_class") else cls._regression


def _target(cls, y):
    """``y`` as the estimator's target: labels for a classifier, floats for a
    regressor."""
    return np.asarray(y, dtype=float) if _regression(cls) else np.asarray(y)


@pytest.fixture(scope="module")
def iris():
    """Iris in a fixed shuffled order: 150 rows, three balanced classes."""
    data = load_iris()
    order = np.random.RandomState(0).permutation(len(data.target))
    return data.data[order], data.target[order]


def _same_structure(a, b):
    """Two trees with the same splits and the same leaf values (values are class
    fractions or means, so a constant factor on all weights leaves them unchanged)."""
    np.testing.assert_array_equal(a.tree_.children_left, b.tree_.children_left)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_allclose(a.tree_.value, b.tree_.value, rtol=1e-12, atol=0)


def _same_forest(a, b, X):
    assert len(trees_of(a)) == len(trees_of(b))
    for s, t in zip(trees_of(a), trees_of(b)):
        _same_structure(s, t)
    pa, pb = a.predict_proba(X), b.predict_proba(X)
    if isinstance(pa, list):
        pa, pb = np.hstack(pa), np.hstack(pb)
    np.testing.assert_allclose(pa, pb, rtol=1e-12, atol=0)


# ======================================================================================
# sklearn/tree/tests/test_tree.py::test_error (xfailed: its Poisson check fits X of one
# row on y of three values, which we refuse for the lengths before we read y; scikit-
# learn loops over its classifiers only, here all four trees).

@pytest.mark.parametrize("cls", TREES)
def test_unfitted_trees_raise_not_fitted_error(cls):
    """Every prediction method of an unfitted tree raises NotFittedError (a
    ValueError and an AttributeError too), not an error from a missing attribute."""
    tree = cls()
    methods = ["predict", "apply", "decision_path"]
    if not _regression(cls):
        methods.append("predict_proba")
    for method in methods:
        with pytest.raises(NotFittedError):
            getattr(tree, method)(TOY_T)


@pytest.mark.parametrize("cls", TREES)
def test_trees_refuse_rows_of_another_width(cls):
    """Rows with more or fewer features than the fit's are refused by every method
    that reads rows, naming both counts; so are the fit's own rows when the tree was
    fitted on wider ones (X times its transpose, 6 features)."""
    y = _target(cls, TOY_Y)
    tree = cls(random_state=0).fit(TOY_X, y)
    methods = ["predict", "apply"] + ([] if _regression(cls) else ["predict_proba"])
    for rows, width in ((np.array([[-2.0, -1.0, 1.0]]), 3), (TOY_T[:, 1:], 1)):
        for method in methods:
            with pytest.raises(ValueError, match=f"{width} features.*expecting 2"):
                getattr(tree, method)(rows)
    wide = cls(random_state=0).fit(TOY_X @ TOY_X.T, y)
    for method in ("predict", "apply"):
        with pytest.raises(ValueError, match="2 features.*expecting 6"):
            getattr(wide, method)(TOY_X)
    with pytest.raises(ValueError, match="6 features.*expecting 2"):
        tree.predict(TOY_X @ TOY_X.T)


@pytest.mark.parametrize("cls", TREES)
def test_trees_refuse_y_of_another_length(cls):
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        cls().fit(TOY_X, _target(cls, TOY_Y)[:-1])


@pytest.mark.parametrize("cls", TREES)
@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_trees_grow_the_same_tree_from_non_contiguous_X(cls, layout):
    """A column-major X, or a strided view of a wider array, grows the tree that the
    C-contiguous copy grows (node for node, the random cuts of the extra tree included)
    and predicts the toy problem's answers."""
    y = _target(cls, TOY_Y)
    if layout == "fortran":
        X = np.asfortranarray(TOY_X)
    else:
        X = np.repeat(TOY_X, 2, axis=1)[:, ::2]
    assert not X.flags.c_contiguous and np.array_equal(X, TOY_X)
    tree = cls(random_state=0).fit(X, y)
    reference = cls(random_state=0).fit(np.ascontiguousarray(TOY_X), y)
    np.testing.assert_array_equal(tree.tree_.nodes, reference.tree_.nodes)
    np.testing.assert_array_equal(tree.tree_.value, reference.tree_.value)
    np.testing.assert_array_equal(tree.predict(TOY_T), _target(cls, TOY_TRUE))


@pytest.mark.parametrize("cls", [DecisionTreeRegressor, ExtraTreeRegressor])
def test_poisson_trees_refuse_negative_targets_and_a_zero_sum(cls):
    """criterion="poisson" needs non-negative targets of positive sum: each refusal says
    which, on X and y of the same length (scikit-learn's test passes X of one row with
    y of three values; we check the lengths first).  Our message for the zero sum reads
    "Sum of y is not strictly positive", scikit-learn's forests' wording (its tree
    says "not positive")."""
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match="Sum of y is not .*positive.*Poisson"):
        cls(criterion="poisson").fit(X, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="Some value.*of y are negative.*Poisson"):
        cls(criterion="poisson").fit(X, [5.0, -0.1, 2.0])
    cls(criterion="poisson").fit(X, [0.0, 0.0, 1.0])     # zeros with a positive sum


# ======================================================================================
# sklearn/tree/tests/test_tree.py::test_importances (xfailed: at random_state=0 our
# ExtraTreeClassifier gives its third informative feature 0.098, below the test's 0.1;
# the seed decides, scikit-learn's own fails at random_state=9).  The property held
# here, the informative features ranked above every noise feature, held for every
# random_state 0-99 of each tree and 0-199 of the extra tree classifier, by at least
# 0.034 (the extra tree classifier; 0.06 and 0.19 for the others).

@pytest.fixture(scope="module")
def three_informative():
    """5,000 rows, 10 features of which the first 3 are informative (not shuffled)."""
    return make_classification(n_samples=5000, n_features=10, n_informative=3,
                               n_redundant=0, n_repeated=0, shuffle=False, random_state=0)


@pytest.mark.parametrize("cls", TREES)
@pytest.mark.parametrize("random_state", range(3))
def test_tree_importances_rank_the_informative_features_first(cls, random_state,
                                                              three_informative):
    """One importance per feature, non-negative, summing to 1; the three informative
    features have the three largest, each above every noise feature's by a margin."""
    X, y = three_informative
    importances = cls(random_state=random_state).fit(
        X, _target(cls, y)).feature_importances_
    assert importances.shape == (10,)
    assert np.all(importances >= 0)
    np.testing.assert_allclose(importances.sum(), 1.0, rtol=1e-12)
    assert importances[:3].min() > importances[3:].max() + 0.02


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_tree_importances_are_the_same_grown_depth_first_and_best_first(cls, iris):
    """max_leaf_nodes as large as the data grows best-first the tree that depth-first
    growth grows, so the importances are the same (and not all on one feature)."""
    X, y = iris
    y = _target(cls, y)
    depth_first = cls(random_state=0).fit(X, y).feature_importances_
    best_first = cls(random_state=0, max_leaf_nodes=len(X)).fit(X, y).feature_importances_
    np.testing.assert_array_equal(depth_first, best_first)
    assert np.count_nonzero(depth_first) > 1


# ======================================================================================
# sklearn/ensemble/tests/test_forest.py::test_class_weight_errors (xfailed: scikit-learn
# warns that a warm start on y with another number of outputs adds no tree and keeps its
# forest; we refuse it).  Its other check: a list of class weights of the wrong length.

@pytest.mark.parametrize("cls", CLASSIFIERS + REGRESSORS)
@pytest.mark.parametrize("n_estimators", [3, 5], ids=["no-new-tree", "more-trees"])
def test_warm_start_on_another_number_of_outputs_is_refused(cls, n_estimators):
    """Refused with a ValueError that names both numbers of outputs, whether or not
    trees would be added, and the forest is left as it was (its trees, outputs and
    predictions).  (The classifiers with class_weight="balanced", as in scikit-learn's
    test, which also warns that a preset and warm starts do not mix.)"""
    y = _target(cls, TOY_Y)
    two = np.column_stack([y, 2 * y])
    extra = {} if _regression(cls) else dict(class_weight="balanced")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "class_weight presets", UserWarning)
        forest = cls(n_estimators=3, warm_start=True, random_state=0, **extra)
        forest.fit(TOY_X, y)
        trees = list(trees_of(forest))
        before = forest.predict(TOY_T)
        forest.set_params(n_estimators=n_estimators)
        with pytest.raises(ValueError, match=r"warm_start: y has 2 output.*forest 1"):
            forest.fit(TOY_X, two)
    assert trees_of(forest) == trees and forest.n_outputs_ == 1
    np.testing.assert_array_equal(forest.predict(TOY_T), before)


@pytest.mark.parametrize("cls", CLASSIFIERS)
@pytest.mark.parametrize("n_dicts", [1, 3])
def test_class_weight_list_of_the_wrong_length_is_refused(cls, n_dicts):
    """y of two outputs takes a list of two dicts of class weights: one or three are
    refused, with both counts in the message."""
    two = np.column_stack([TOY_Y, 2 * TOY_Y])
    weights = [{-1: 0.5, 1: 1.0}] * n_dicts
    with pytest.raises(ValueError, match=f"y has 2, class_weight {n_dicts}"):
        cls(n_estimators=2, class_weight=weights, random_state=0).fit(TOY_X, two)


# ======================================================================================
# sklearn/ensemble/tests/test_forest.py::test_max_samples_geq_one (xfailed: it reads
# scikit-learn's private _n_samples_bootstrap).  A float max_samples of 1.5 and the int
# it stands for draw the same number of samples and grow the same forest.

@pytest.mark.parametrize("cls", CLASSIFIERS + REGRESSORS + QUANTILE)
def test_max_samples_above_one_draws_more_samples_than_rows(cls):
    """max_samples=1.5 on 20 rows: every tree's bootstrap is 30 draws (the root's
    weight; estimators_samples_ where the forest has it), so fewer than 20 distinct
    rows; the forest is the one max_samples=30 grows, and not the one of 20 draws."""
    X, y = make_hastie_10_2(n_samples=20, random_state=1)
    X = X.astype(np.float32)
    y = _target(cls, y)
    params = dict(n_estimators=5, bootstrap=True, random_state=11)
    share = cls(max_samples=1.5, **params).fit(X, y)
    count = cls(max_samples=30, **params).fit(X, y)
    plain = cls(**params).fit(X, y)
    for tree in trees_of(share):
        assert tree.tree_.weighted_n_node_samples[0] == 30
        assert tree.tree_.n_node_samples[0] < 20            # distinct rows in the bag
    if hasattr(share, "estimators_samples_"):
        for tree, drawn in zip(trees_of(share), share.estimators_samples_):
            assert len(drawn) == 30
            assert len(np.unique(drawn)) == tree.tree_.n_node_samples[0]
    for a, b in zip(trees_of(share), trees_of(count)):
        np.testing.assert_array_equal(a.tree_.nodes, b.tree_.nodes)
    assert share.score(X, y) == count.score(X, y)
    assert [t.tree_.weighted_n_node_samples[0] for t in trees_of(plain)] == [20] * 5


# ======================================================================================
# sklearn/ensemble/tests/test_forest.py::test_class_weights_forest (deselected: it reads
# the private _sample_weight).  Its behaviour: class weights act as the sample weights
# they stand for (balanced ones on balanced classes as unit weights, dicts as the
# weights of their classes, several outputs' weights multiplying, sample weights times
# class weights), with and without bootstrap.  scikit-learn compares importances; here
# every tree and the probabilities are compared.

def _product_of_dicts(weights, y):
    out = np.ones(len(y))
    for o, d in enumerate(weights):
        out *= np.array([d[label] for label in y[:, o]])
    return out


def _class_weight_case(case, X, y):
    """``(class_weight, y, sample_weight)`` of a fit and ``(y, sample_weight)`` of the
    unweighted fit it must equal."""
    rng = np.random.RandomState(1)
    multi = np.column_stack([y, rng.randint(0, 2, len(y)),
                             (y + rng.randint(0, 2, len(y))) % 3])
    copies = np.column_stack([y, y, y])
    heavy = np.where(y == 1, 100.0, 1.0)
    if case == "balanced-on-balanced-classes":
        return ("balanced", y, None), (y, np.ones(len(y)))
    if case == "dict-as-sample-weight":
        return ({0: 1.0, 1: 100.0, 2: 1.0}, y, None), (y, heavy)
    if case == "dict-times-sample-weight":
        return ({0: 1.0, 1: 100.0, 2: 1.0}, y, heavy), (y, heavy ** 2)
    if case == "outputs-multiply":
        weights = [{0: 2.0, 1: 2.0, 2: 1.0}, {0: 3.0, 1: 0.5}, {0: 1.0, 1: 2.0, 2: 4.0}]
        return (weights, multi, None), (multi, _product_of_dicts(weights, multi))
    if case == "balanced-outputs-multiply":
        return (("balanced", multi, None),
                (multi, compute_sample_weight("balanced", multi)))
    # scikit-learn's three copies of the target with weights whose product is 4 for
    # every row: no weighting at all
    weights = [{0: 2.0, 1: 2.0, 2: 1.0}, {0: 2.0, 1: 1.0, 2: 2.0},
               {0: 1.0, 1: 2.0, 2: 2.0}]
    return (weights, copies, None), (copies, None)


@pytest.mark.parametrize("cls", CLASSIFIERS)
@pytest.mark.parametrize("bootstrap", [True, False])
@pytest.mark.parametrize("case", ["balanced-on-balanced-classes", "dict-as-sample-weight",
                                  "dict-times-sample-weight", "outputs-multiply",
                                  "balanced-outputs-multiply", "constant-product"])
def test_class_weights_equal_the_sample_weights_they_stand_for(cls, bootstrap, case,
                                                              iris):
    """The forest fitted with class weights is, tree for tree, the forest fitted with
    the sample weights they stand for (with bootstrap, the draws follow those weights);
    and class weights of 100 on one class do change the trees (the comparison can
    fail)."""
    X, y = iris
    (class_weight, y_cw, sw_cw), (y_ref, sw_ref) = _class_weight_case(case, X, y)
    params = dict(n_estimators=5, bootstrap=bootstrap, random_state=42)
    weighted = cls(class_weight=class_weight, **params).fit(X, y_cw, sample_weight=sw_cw)
    reference = cls(**params).fit(X, y_ref, sample_weight=sw_ref)
    _same_forest(weighted, reference, X)
    if case == "dict-as-sample-weight":
        plain = cls(**params).fit(X, y)
        assert any(a.tree_.node_count != b.tree_.node_count
                   or not np.array_equal(a.tree_.threshold, b.tree_.threshold)
                   or not np.array_equal(a.tree_.value, b.tree_.value)
                   for a, b in zip(trees_of(plain), trees_of(weighted)))


# ======================================================================================
# sklearn/ensemble/tests/test_forest.py::test_class_weight_balanced_and_bootstrap_multi_
# output (xfailed for the rotation forests, which do not take "balanced_subsample").
# scikit-learn fits "balanced", a list of dicts keyed by the labels, and
# "balanced_subsample" on two outputs with bootstrap, and checks nothing but that they
# fit; here each is held to the sample weights it stands for.

@pytest.mark.parametrize("cls", CLASSIFIERS)
@pytest.mark.parametrize("class_weight", ["balanced", "labels"])
def test_class_weights_on_two_outputs_with_bootstrap(cls, class_weight, iris):
    """Two outputs of labels -1/0/1 and -2/2 (not codes), unbalanced: "balanced" is
    the product of each output's balanced weights, a list of dicts keyed by the labels
    the product of its weights; with bootstrap, as those sample weights."""
    X, y = iris
    rng = np.random.RandomState(3)
    two = np.column_stack([y - 1, np.where(rng.rand(len(y)) < 0.3, 2, -2)])
    if class_weight == "balanced":
        sw = compute_sample_weight("balanced", two)
    else:
        class_weight = [{-1: 0.5, 0: 1.0, 1: 2.0}, {-2: 1.0, 2: 3.0}]
        sw = _product_of_dicts(class_weight, two)
    params = dict(n_estimators=4, bootstrap=True, random_state=0)
    weighted = cls(class_weight=class_weight, **params).fit(X, two)
    _same_forest(weighted, cls(**params).fit(X, two, sample_weight=sw), X)
    np.testing.assert_array_equal(weighted.classes_[1], [-2, 2])


@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier])
def test_balanced_subsample_on_two_outputs_balances_each_trees_draw(cls, iris):
    """Each tree is the tree grown on its own draw's counts times the balanced weights
    of the drawn rows (the product over the outputs), refitted node for node."""
    X, y = iris
    rng = np.random.RandomState(3)
    two = np.column_stack([y - 1, np.where(rng.rand(len(y)) < 0.3, 2, -2)])
    forest = cls(n_estimators=4, bootstrap=True, class_weight="balanced_subsample",
                 random_state=0).fit(X, two)
    for tree, drawn in zip(trees_of(forest), forest.estimators_samples_):
        weights = np.bincount(drawn, minlength=len(X)) * compute_sample_weight(
            "balanced", two, indices=drawn)
        refit = clone(tree).fit(X, two, sample_weight=weights)
        np.testing.assert_array_equal(refit.tree_.nodes, tree.tree_.nodes)
        np.testing.assert_array_equal(refit.tree_.value, tree.tree_.value)


@pytest.mark.parametrize("bootstrap", [True, False])
def test_rotation_forests_refuse_balanced_subsample(bootstrap):
    """The rotation forest has no per-tree balancing: "balanced_subsample" is refused
    by name (with one output or two), before any tree is grown."""
    forest = RotationForestClassifier(n_estimators=2, bootstrap=bootstrap,
                                      class_weight="balanced_subsample", random_state=0)
    for y in (TOY_Y, np.column_stack([TOY_Y, 2 * TOY_Y])):
        with pytest.raises(ValueError, match="class_weight.*'balanced_subsample'"):
            forest.fit(TOY_X, y)
        assert not hasattr(forest, "estimators_")


# ======================================================================================
# sklearn/ensemble/tests/test_forest.py::test_forest_multioutput_integral_regression_
# target (deselected: it regenerates the draws with scikit-learn's private
# _generate_unsampled_indices).  Integer targets of two outputs are regression targets:
# the out-of-bag prediction of a row is the mean of the trees that did not draw it.
# (The quantile forests take one output only.)

def _in_bag_counts(forest, n):
    """Each tree's multiplicity of every training row: from estimators_samples_, or for
    a rotation forest (which has no public in-bag record) regenerated from its seeds,
    checked against each tree's root (its weight is the number of draws, its sample
    count the distinct rows drawn)."""
    if hasattr(forest, "estimators_samples_"):
        return [np.bincount(s, minlength=n) for s in forest.estimators_samples_]
    if not forest.bootstrap:
        return [np.ones(n, dtype=np.int64)] * len(trees_of(forest))
    from rotforest.rotation import _tree_draws      # private: no public in-bag record
    counts = [_tree_draws(forest._base_seed, i, n, n, True)[2].astype(np.int64)
              for i in range(len(trees_of(forest)))]
    for tree, c in zip(trees_of(forest), counts):
        assert tree.tree_.n_node_samples[0] == np.count_nonzero(c)
    return counts


def _tree_rows(forest, X, i):
    """The rows tree ``i`` of a forest reads: X itself, or for a rotation forest its
    documented rotation of the normalised rows, ((X - mean_) / scale_) @ rotations_[i]."""
    if not hasattr(forest, "rotations_"):
        return X
    return np.asarray(((X - forest.mean_) / forest.scale_) @ forest.rotations_[i])


@pytest.mark.parametrize("cls", REGRESSORS)
def test_out_of_bag_prediction_of_integer_targets_of_two_outputs(cls, iris):
    """oob_prediction_ is, row by row, the mean over the trees that did not draw the
    row of their predictions (not votes: the targets 0-9 are numbers), and oob_score_
    is the R2 of those predictions."""
    X, _ = iris
    y = np.random.RandomState(42).randint(0, 10, size=(len(X), 2))
    forest = cls(n_estimators=20, oob_score=True, bootstrap=True, random_state=0)
    forest.fit(X, y)
    total, times = np.zeros(y.shape), np.zeros(len(X))
    in_bag = _in_bag_counts(forest, len(X))
    for i, (tree, counts) in enumerate(zip(trees_of(forest), in_bag)):
        out = counts == 0
        total[out] += tree.predict(_tree_rows(forest, X, i)[out])
        times[out] += 1
    assert times.min() > 0                        # every row is out of some tree's bag
    np.testing.assert_allclose(forest.oob_prediction_, total / times[:, None],
                               rtol=1e-12, atol=1e-12)
    assert not np.array_equal(forest.oob_prediction_, np.round(forest.oob_prediction_))
    np.testing.assert_allclose(forest.oob_score_, r2_score(y, forest.oob_prediction_),
                               rtol=1e-12)


# ======================================================================================
# sklearn/ensemble/tests/test_forest.py::test_min_samples_leaf and
# test_min_weight_fraction_leaf (xfailed for the rotation forests: they apply each tree
# to the forest's unrotated X, while a rotation forest's tree splits rotated features).
# Here each tree is applied to its own rotated training rows, and its in-bag rows are
# counted (with their bootstrap multiplicities for the weights).

@pytest.fixture(scope="module")
def hastie():
    return make_hastie_10_2(n_samples=300, random_state=1)


@pytest.mark.parametrize("cls", ROTATION)
@pytest.mark.parametrize("bootstrap", [False, True])
@pytest.mark.parametrize("min_samples_leaf, least", [(5, 5), (0.1, 30)])
@pytest.mark.parametrize("max_leaf_nodes", [None, 12])
def test_rotation_forest_leaves_hold_min_samples_leaf_rotated_rows(
        cls, bootstrap, min_samples_leaf, least, max_leaf_nodes, hastie):
    """Every leaf holds at least min_samples_leaf distinct training rows of its tree's
    bag (a float: that share of the 300 rows, rounded up), counted by applying the tree
    to its rotated rows; the counts are the tree's own n_node_samples (the rotation we
    apply is the fit's), and the bound is reached (it constrains the tree)."""
    X, y = hastie
    forest = cls(n_estimators=3, min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                 max_leaf_nodes=max_leaf_nodes, random_state=0).fit(X, _target(cls, y))
    reached = False
    in_bag = _in_bag_counts(forest, len(X))
    for i, (tree, counts) in enumerate(zip(trees_of(forest), in_bag)):
        leaves = tree.apply(_tree_rows(forest, X, i))
        rows = np.bincount(leaves[counts > 0], minlength=tree.tree_.node_count)
        is_leaf = tree.tree_.children_left == -1
        np.testing.assert_array_equal(rows[is_leaf], tree.tree_.n_node_samples[is_leaf])
        assert rows[is_leaf].min() >= least
        reached |= rows[is_leaf].min() == least
    assert reached


@pytest.mark.parametrize("cls", ROTATION)
@pytest.mark.parametrize("bootstrap", [False, True])
@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.5])
@pytest.mark.parametrize("max_leaf_nodes", [None, 12])
def test_rotation_forest_leaves_hold_min_weight_fraction_leaf_rotated(
        cls, bootstrap, fraction, max_leaf_nodes, hastie):
    """With random sample weights, every leaf's weight (the sample weights times the
    bootstrap counts of its rows, applied to the tree's rotated rows) is at least
    min_weight_fraction_leaf of the tree's total weight; at 0.5 each tree is a single
    leaf (no split leaves half the weight on both sides of random weights)."""
    X, y = hastie
    sw = np.random.RandomState(0).rand(len(X))
    forest = cls(n_estimators=3, min_weight_fraction_leaf=fraction, bootstrap=bootstrap,
                 max_leaf_nodes=max_leaf_nodes, random_state=0).fit(
                     X, _target(cls, y), sample_weight=sw)
    in_bag = _in_bag_counts(forest, len(X))
    for i, (tree, counts) in enumerate(zip(trees_of(forest), in_bag)):
        weights = counts * sw
        leaves = tree.apply(_tree_rows(forest, X, i))
        leaf_weight = np.bincount(leaves, weights=weights,
                                  minlength=tree.tree_.node_count)
        is_leaf = tree.tree_.children_left == -1
        # (summed in another order than the builder's: a relative 1e-12 of slack)
        assert leaf_weight[is_leaf].min() >= fraction * weights.sum() * (1 - 1e-12)
        # (the bound constrains: 0.5 leaves one leaf, the others still split)
        assert (tree.tree_.node_count == 1) == (fraction == 0.5)
