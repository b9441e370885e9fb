"""Sample and class weights: only the ratios of the weights matter, up to the ends of
the floats; sums that would overflow are refused clearly; the random forest draws its
bootstrap samples by weight (as scikit-learn 1.9) and the rotation forest grows a tree
even from a draw that weighs nothing; class weights are checked, equal the sample weights
they stand for, and "balanced" balances the weighted class totals."""
import warnings

import numpy as np
import pytest

from helpers import sklearn_at_least, trees_of
from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier

FORESTS = [RandomForestClassifier, RotationForestClassifier]


@pytest.mark.parametrize("scale", [2.0 ** -1000, 2.0 ** -400, 2.0 ** 400, 2.0 ** 1010])
def test_extreme_weights_grow_the_unweighted_tree(scale):
    """Only the ratios of the weights matter: sums that would overflow and squares that
    would underflow must not change the tree (power-of-two factors keep the ratios
    exact, so even ties must break the same way)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    w = rng.integers(1, 4, 300).astype(float)
    ref = DecisionTreeClassifier(min_weight_fraction_leaf=0.01).fit(X, y, sample_weight=w)
    big = DecisionTreeClassifier(min_weight_fraction_leaf=0.01).fit(X, y, sample_weight=w * scale)
    np.testing.assert_array_equal(big.tree_.feature, ref.tree_.feature)
    np.testing.assert_array_equal(big.tree_.threshold, ref.tree_.threshold)
    np.testing.assert_allclose(big.tree_.value, ref.tree_.value, rtol=1e-12)
    np.testing.assert_allclose(big.tree_.weighted_n_node_samples,
                               ref.tree_.weighted_n_node_samples * scale, rtol=1e-12)
    np.testing.assert_allclose(big.feature_importances_, ref.feature_importances_,
                               rtol=1e-12)


@pytest.mark.parametrize("scale", [2.0 ** 1018, 2.0 ** 1022])
def test_weights_whose_sum_overflows_are_refused(scale):
    """Node weights above the largest float would be inf (importances NaN, ccp_alpha
    void): a clear error instead."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    w = rng.integers(1, 4, 300).astype(float) * scale
    tree = DecisionTreeClassifier().fit(X[:5], y[:5])
    with pytest.raises(ValueError, match="sum to more than the largest float"):
        tree.fit(X, y, sample_weight=w)
    assert tree.n_features_in_ == 3 and tree.tree_.n_node_samples[0] == 5


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
@pytest.mark.parametrize("weight", [2.0 ** 1010, 1.7e305, 2.0 ** -1000])
def test_weights_at_the_ends_of_the_floats(cls, binary_data, weight):
    X, y = binary_data
    kw = dict(random_state=0, ccp_alpha=0.005)
    ref = cls(**kw).fit(X, y)
    model = cls(**kw).fit(X, y, sample_weight=np.full(300, weight))
    if weight != 1.7e305:
        # weights of exactly 1 once scaled by a power of two: the very same model
        np.testing.assert_array_equal(model.predict_proba(X), ref.predict_proba(X))
        np.testing.assert_allclose(model.feature_importances_, ref.feature_importances_,
                                   rtol=1e-9)
    else:
        # weights of 1.9 after scaling: the same splits up to rounding at near-ties
        assert np.mean(model.predict(X) == ref.predict(X)) > 0.97
    assert np.all(np.isfinite(model.feature_importances_))
    if cls is DecisionTreeClassifier and weight != 1.7e305:   # ccp_alpha prunes alike
        assert model.get_n_leaves() == ref.get_n_leaves() < 20


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
def test_weights_whose_sum_overflows_say_so(cls, binary_data):
    X, y = binary_data
    with pytest.raises(ValueError, match="sum to more than the largest float"):
        cls(random_state=0).fit(X, y, sample_weight=np.full(300, 2.0 ** 1020))


@pytest.mark.parametrize("cls", FORESTS)
def test_bootstrap_weights_that_could_overflow_are_refused_whatever_the_seed(cls, binary_data):
    X, y = binary_data
    sw = np.ones(300)
    sw[0] = 1e308                  # finite total; a draw of sample 0 twice is not
    for seed in range(6):
        if cls is RandomForestClassifier:       # draws by weight: trees take counts alone
            forest = cls(n_estimators=3, random_state=seed).fit(X, y, sample_weight=sw)
            assert all(np.all(s == 0) for s in forest.estimators_samples_)
            continue
        with pytest.raises(ValueError, match="bootstrap draws exceeds the largest float"):
            cls(n_estimators=3, bootstrap=True, random_state=seed).fit(X, y, sample_weight=sw)
    cls(n_estimators=3, bootstrap=False, random_state=0).fit(X, y, sample_weight=sw)


def test_random_forest_draws_bootstrap_samples_by_weight_as_scikit_learn_1_9(binary_data):
    X, y = binary_data
    rng = np.random.default_rng(5)
    sw = np.where(rng.random(300) < 0.15, 1.0, 0.0)       # most samples weigh nothing
    sw[:2] = 1.0
    forest = RandomForestClassifier(n_estimators=40, max_samples=30, max_features=None,
                                    random_state=0)
    forest.fit(X, y, sample_weight=sw * 5.0)
    drawn = np.concatenate(forest.estimators_samples_)
    assert np.all(sw[drawn] > 0) and drawn.size == 40 * 30
    # trees take the counts alone: a tree equals one grown on its counts
    counts = np.bincount(forest.estimators_samples_[3], minlength=300).astype(float)
    # (the root holds the counts' total and class shares, not the counts times 5)
    root = trees_of(forest)[3].tree_
    assert root.weighted_n_node_samples[0] == counts.sum()
    codes = np.searchsorted(forest.classes_, y)
    np.testing.assert_allclose(root.value[0, 0], np.bincount(codes, weights=counts,
                                                             minlength=len(forest.classes_))
                               / counts.sum())
    # probabilities in proportion to the weights: a weight-3 sample is drawn 3 times as often
    heavy = sw.copy()
    heavy[0] = 3.0
    f3 = RandomForestClassifier(n_estimators=200, max_samples=100, random_state=1).fit(
        X, y, sample_weight=heavy)
    d = np.concatenate(f3.estimators_samples_)
    ratio = np.mean(d == 0) / np.mean(d == 1)
    assert 2.5 < ratio < 3.5
    # uniform weights keep uniform draws: the same forest as without weights
    a = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    b = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y, sample_weight=np.full(300, 2.0))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # out-of-bag votes and warm starts follow the weighted draws
    oob = RandomForestClassifier(n_estimators=30, oob_score=True, random_state=0).fit(
        X, y, sample_weight=np.r_[np.full(150, 2.0), np.ones(150)])
    warm = RandomForestClassifier(n_estimators=10, oob_score=True, warm_start=True,
                                  random_state=0)
    warm.fit(X, y, sample_weight=np.r_[np.full(150, 2.0), np.ones(150)])
    warm.set_params(n_estimators=30).fit(X, y, sample_weight=np.r_[np.full(150, 2.0), np.ones(150)])
    np.testing.assert_array_equal(warm.oob_decision_function_, oob.oob_decision_function_)
    before = [s.copy() for s in warm.estimators_samples_]
    warm.set_params(n_estimators=35).fit(X, y)          # other weights: each tree its own
    for a, b in zip(before, warm.estimators_samples_):
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(warm.oob_score_)


def test_rotation_forest_grows_a_tree_when_a_bootstrap_draws_no_weight(binary_data):
    X, y = binary_data
    sw = (np.arange(300) % 10 == 0).astype(float)
    kw = dict(n_estimators=10, bootstrap=True, max_samples=15, random_state=0)
    # the random forest draws by weight (scikit-learn 1.9): only weighted samples
    forest = RandomForestClassifier(**kw).fit(X, y, sample_weight=sw)
    assert all(np.all(sw[s] > 0) for s in forest.estimators_samples_)
    for cls in [RotationForestClassifier]:
        forest = cls(**kw).fit(X, y, sample_weight=sw)
        # a tree whose draw had no weight knows nothing: a leaf of equal class shares,
        # which gives no out-of-bag sample its own label (other leaves are draws of one
        # class)
        values = [t.tree_.value[0, 0] for t in trees_of(forest) if t.tree_.node_count == 1]
        knows_nothing = [np.allclose(v, 0.5) for v in values]
        drew_nothing = sum(sw[s].sum() == 0 for s in forest.estimators_samples_)
        assert len(trees_of(forest)) == 10 and sum(knows_nothing) == drew_nothing >= 1
        assert all(k or v.max() == 1.0 for k, v in zip(knows_nothing, values))


# --------------------------------------------------------------------------------------
# Class weights
# --------------------------------------------------------------------------------------


def test_class_weight_equals_sample_weight():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = rng.integers(0, 3, 300)
    a = DecisionTreeClassifier(class_weight={0: 1.0, 1: 3.0, 2: 0.5}).fit(X, y)
    b = DecisionTreeClassifier().fit(X, y, sample_weight=np.array([1.0, 3.0, 0.5])[y])
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_allclose(a.tree_.value, b.tree_.value)
    bal = DecisionTreeClassifier(class_weight="balanced", max_depth=0 + 1).fit(X, y)
    w = bal.tree_.weighted_n_node_samples[0]
    np.testing.assert_allclose(bal.tree_.value[0, 0] * w, [w / 3] * 3)


def test_class_weight_at_the_end_of_the_floats(binary_data):
    X, y = binary_data
    ref = DecisionTreeClassifier(class_weight={0: 1.0, 1: 2.0}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        big = DecisionTreeClassifier(class_weight={0: 2.0 ** 1012, 1: 2.0 ** 1013}).fit(X, y)
    np.testing.assert_array_equal(big.tree_.feature, ref.tree_.feature)
    np.testing.assert_array_equal(big.tree_.threshold, ref.tree_.threshold)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
@pytest.mark.parametrize("value", [float("nan"), -1.0, float("inf"), "2"])
def test_class_weight_values_are_checked(cls, binary_data, value):
    with pytest.raises(ValueError, match="class_weight values.*for class 0"):
        cls(class_weight={0: value, 1: 1.0}).fit(*binary_data)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, RandomForestClassifier,
                                 RotationForestClassifier])
def test_class_weight_as_an_array_gets_a_clear_error(cls, binary_data):
    X, y = binary_data
    with pytest.raises(ValueError, match="class_weight must be a dict, 'balanced'"):
        cls(class_weight=np.array([1.0, 2.0])).fit(X, y)


def test_balanced_class_weight_balances_weighted_totals_in_the_forest():
    # as scikit-learn 1.9's forest: each class gets the same total weight
    from sklearn.ensemble import RandomForestClassifier as SkForest

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 3))
    y = (rng.random(400) < 0.2).astype(int)
    sw = np.where(y == 1, 5.0, 1.0)
    kw = dict(n_estimators=2, bootstrap=False, class_weight="balanced", random_state=0)
    ours = RandomForestClassifier(**kw).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(trees_of(ours)[0].tree_.value[0, 0], [0.5, 0.5])
    if sklearn_at_least("1.9"):
        # before 1.9, scikit-learn's forests balanced the class counts, not the
        # weighted totals (the root was then [1/6, 5/6] here)
        sk = SkForest(**kw).fit(X, y, sample_weight=sw)
        np.testing.assert_allclose(trees_of(ours)[0].tree_.value[0, 0],
                                   trees_of(sk)[0].tree_.value[0, 0])


def test_balanced_subsample_without_bootstrap_is_balanced():
    # every tree's sample is the whole data: balanced once, from the weighted class
    # totals, as "balanced" does (and scikit-learn); before, the weights were ignored
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0.8).astype(int)
    w = np.where(y == 1, 5.0, 1.0) * rng.uniform(0.5, 1.5, 300)
    fits = [RandomForestClassifier(n_estimators=3, bootstrap=False, class_weight=cw,
                                   random_state=0).fit(X, y, sample_weight=w)
            for cw in ("balanced", "balanced_subsample")]
    for forest in fits:
        np.testing.assert_allclose(trees_of(forest)[0].tree_.value[0, 0], [0.5, 0.5])
    for a, b in zip(*[trees_of(f) for f in fits]):
        np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
