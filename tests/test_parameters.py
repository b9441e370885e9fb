"""Parameter values every estimator shares, at the edges: numpy bools are bools,
wrongly typed bool and int parameters are refused, and counts beyond any data
(max_depth, max_leaf_nodes, min_samples_*, min_category_samples, max_features above the
number of features) mean what the largest useful value means, or get a clear error
(n_estimators)."""
import numpy as np
import pytest

from helpers import trees_of
from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier

FORESTS = [RandomForestClassifier, RotationForestClassifier]


@pytest.mark.parametrize("cls", FORESTS)
def test_numpy_bools_are_bools(cls, binary_data):
    X, y = binary_data
    a = cls(n_estimators=3, oob_score=np.True_, bootstrap=np.True_, random_state=0).fit(X, y)
    b = cls(n_estimators=3, oob_score=True, bootstrap=True, random_state=0).fit(X, y)
    assert a.oob_score_ == b.oob_score_


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("param, value", [("warm_start", "yes"), ("warm_start", None),
                                          ("n_jobs", True)])
def test_bool_and_int_parameters_of_the_wrong_type(cls, binary_data, param, value):
    with pytest.raises(TypeError, match=param):
        cls(n_estimators=2, **{param: value}).fit(*binary_data)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
def test_counts_beyond_any_data_mean_what_the_largest_useful_ones_do(cls, binary_data):
    X, y = binary_data
    huge = 2 ** 70
    kw = dict(random_state=0)
    # no depth or leaf limit at all
    a = cls(**kw, max_depth=huge).fit(X, y)
    b = cls(**kw).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # best-first growth without a reachable limit: as with a large limit the builder
    # always took (a random forest draws its features in best-first order, so not None)
    c = cls(**kw, max_leaf_nodes=huge).fit(X, y)
    d = cls(**kw, max_leaf_nodes=10 ** 6 if cls is RandomForestClassifier else None).fit(X, y)
    np.testing.assert_array_equal(c.predict_proba(X), d.predict_proba(X))
    # no split at all
    for param in ("min_samples_leaf", "min_samples_split"):
        single = cls(**kw, **{param: huge}).fit(X, y)
        for tree in (trees_of(single) if hasattr(single, "estimators_") else [single]):
            assert tree.tree_.node_count == 1


def test_huge_counts_get_clear_errors_or_mean_the_largest_useful_value(binary_data):
    X, y = binary_data
    X = np.c_[X, np.arange(len(y)) % 5]
    kw = dict(categorical_features=[4], random_state=0)
    huge = DecisionTreeClassifier(min_category_samples=2**63, **kw).fit(X, y)
    largest = DecisionTreeClassifier(min_category_samples=len(y) + 1, **kw).fit(X, y)
    for name in ("feature", "threshold", "children_left", "value"):
        np.testing.assert_array_equal(getattr(huge.tree_, name), getattr(largest.tree_, name))
    for n_estimators in (2**31, 2**64):
        with pytest.raises(ValueError, match="n_estimators must be at most"):
            RandomForestClassifier(n_estimators=n_estimators).fit(X, y)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
def test_max_features_above_the_features_means_all_of_them(cls):
    # as in scikit-learn 1.9, so that one parameter grid serves data sets of any width
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 4))
    X[:, 3] = 1.0                  # constant: the rotation forest has 3 axes
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    every = cls(max_features=None, random_state=0).fit(X, y)
    for value in (4, 10):
        model = cls(max_features=value, random_state=0).fit(X, y)
        np.testing.assert_array_equal(model.predict_proba(X), every.predict_proba(X))
