"""Inputs at the edges: warm starts on other data, extreme values and weights, degenerate
bootstraps, parameter values beyond the data. Each case either fits correctly or stops
with a clear error that leaves the fitted model as it was."""
import warnings

import numpy as np
import pytest

from helpers import counting_pools
from rotforest import (DecisionTreeClassifier, RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor, export_text)

FORESTS = [RandomForestClassifier, RotationForestClassifier]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=300) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("n_features", [2, 6])
def test_warm_start_refuses_another_number_of_features(cls, data, n_features):
    X, y = data
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    before = forest.predict_proba(X)
    other = np.random.default_rng(1).normal(size=(300, n_features))
    for n_estimators in (3, 6):           # adding trees, and adding none
        with pytest.raises(ValueError, match=f"{n_features} features.*expecting 4"):
            forest.set_params(n_estimators=n_estimators).fit(other, y)
        assert forest.n_features_in_ == 4 and len(forest.estimators_) == 3
        np.testing.assert_array_equal(forest.predict_proba(X), before)


@pytest.mark.parametrize("cls", FORESTS)
def test_warm_start_keeps_and_checks_feature_names(cls, data):
    pd = pytest.importorskip("pandas")
    X, y = data
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(frame, y)
    with pytest.raises(ValueError, match="feature names"):
        forest.set_params(n_estimators=5).fit(frame.rename(columns={"a": "z"}), y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # "X does not have valid feature names"
        forest.set_params(n_estimators=3).fit(X, y)    # adds no tree
    assert list(forest.feature_names_in_) == ["a", "b", "c", "d"]
    assert len(forest.estimators_) == 3


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("change", [dict(max_samples=0.5), dict(rows=200)])
def test_warm_start_with_oob_score_refuses_other_draws(cls, data, change):
    X, y = data
    forest = cls(n_estimators=3, bootstrap=True, oob_score=True, warm_start=True,
                 random_state=0).fit(X, y)
    before = forest.oob_decision_function_.copy()
    change = dict(change)          # the parameter's dict is shared between the cases
    rows = change.pop("rows", 300)
    forest.set_params(n_estimators=5, **change)
    with pytest.raises(ValueError, match="warm_start with oob_score"):
        forest.fit(X[:rows], y[:rows])
    assert len(forest.estimators_) == 3
    np.testing.assert_array_equal(forest.oob_decision_function_, before)


@pytest.mark.parametrize("cls", FORESTS)
def test_warm_start_with_oob_score_refuses_trees_grown_without_bootstrap(cls, data):
    X, y = data
    forest = cls(n_estimators=3, bootstrap=False, warm_start=True, random_state=0).fit(X, y)
    forest.set_params(n_estimators=5, bootstrap=True, oob_score=True)
    with pytest.raises(ValueError, match="tree 0 was drawn from 300 samples, 300 draws, "
                                         "bootstrap=False"):
        forest.fit(X, y)
    assert len(forest.estimators_) == 3


@pytest.mark.parametrize("cls", FORESTS)
def test_forests_pickled_before_draw_records(cls, data):
    """Forests fitted by the previous release stored one draw for all trees (and not
    whether they were bootstrapped): they predict and warm-start as before, and refuse an
    out-of-bag score over trees whose draws are unknown."""
    import pickle

    X, y = data
    forest = cls(n_estimators=3, bootstrap=True, warm_start=True, random_state=0).fit(X, y)
    state = forest.__getstate__()
    del state["_draw_records"]
    state["_n_draws_fitted"] = 300
    if cls is RandomForestClassifier:
        state["_n_samples_fitted"] = 300
    old = cls.__new__(cls)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    assert not hasattr(old, "_draw_records")
    np.testing.assert_array_equal(old.predict_proba(X), forest.predict_proba(X))
    if cls is RandomForestClassifier:
        for a, b in zip(old.estimators_samples_, forest.estimators_samples_):
            np.testing.assert_array_equal(a, b)
    old.set_params(n_estimators=5).fit(X, y)
    assert len(old.estimators_) == 5
    old.set_params(n_estimators=6, oob_score=True)
    with pytest.raises(ValueError, match="older rotforest"):
        old.fit(X, y)
    assert len(old.estimators_) == 5


@pytest.mark.parametrize("cls", FORESTS)
def test_bootstrap_weights_that_could_overflow_are_refused_whatever_the_seed(cls, data):
    X, y = data
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


def test_warm_start_records_each_trees_draw(data):
    X, y = data
    forest = RandomForestClassifier(n_estimators=2, max_samples=50, warm_start=True,
                                    random_state=0).fit(X, y)
    forest.set_params(n_estimators=4, max_samples=None).fit(X[:200], y[:200])
    forest.set_params(n_estimators=5, bootstrap=False).fit(X[:100], y[:100])
    sizes = [(len(s), s.max() < n) for s, n in zip(forest.estimators_samples_,
                                                  [300, 300, 200, 200, 100])]
    assert sizes == [(50, True), (50, True), (200, True), (200, True), (100, True)]
    np.testing.assert_array_equal(forest.estimators_samples_[4], np.arange(100))
    forest.set_params(bootstrap=True)          # a parameter changed after the fit
    np.testing.assert_array_equal(forest.estimators_samples_[4], np.arange(100))
    one = RandomForestClassifier(n_estimators=2, max_samples=50, random_state=0).fit(X, y)
    for a, b in zip(one.estimators_samples_, forest.estimators_samples_[:2]):
        np.testing.assert_array_equal(a, b)


def test_warm_start_with_the_same_draws_still_grows(data):
    X, y = data
    once = RandomForestClassifier(n_estimators=6, max_samples=0.5, oob_score=True,
                                  random_state=0).fit(X, y)
    warm = RandomForestClassifier(n_estimators=3, max_samples=150, oob_score=True,
                                  warm_start=True, random_state=0).fit(X, y)
    warm.set_params(n_estimators=6, max_samples=0.5).fit(X, y)   # 150 draws either way
    np.testing.assert_array_equal(warm.oob_decision_function_, once.oob_decision_function_)


@pytest.mark.parametrize("power", [40, 531, 700, 1020])   # 2 ** 531: about 1e160
def test_rotation_forest_normalises_huge_values(data, power):
    X, y = data
    ref = RotationForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    big = X.copy()
    big[:, 0] *= 2.0 ** power          # exact: the same data in other units
    forest = RotationForestClassifier(n_estimators=5, random_state=0).fit(big, y)
    assert np.all(np.isfinite(forest.scale_)) and np.all(np.isfinite(forest.mean_))
    np.testing.assert_allclose(forest.scale_[0], ref.scale_[0] * 2.0 ** power, rtol=1e-12)
    np.testing.assert_allclose(forest.mean_[0], ref.mean_[0] * 2.0 ** power, rtol=1e-9)
    same = np.mean(forest.predict(big) == ref.predict(X))
    assert same > 0.98                  # the same model up to rounding
    assert forest.score(big, y) > 0.85


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
@pytest.mark.parametrize("weight", [2.0 ** 1010, 1.7e305, 2.0 ** -1000])
def test_weights_at_the_ends_of_the_floats(cls, data, weight):
    X, y = data
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
def test_weights_whose_sum_overflows_say_so(cls, data):
    X, y = data
    with pytest.raises(ValueError, match="sum to more than the largest float"):
        cls(random_state=0).fit(X, y, sample_weight=np.full(300, 2.0 ** 1020))


def test_class_weight_at_the_end_of_the_floats(data):
    X, y = data
    ref = DecisionTreeClassifier(class_weight={0: 1.0, 1: 2.0}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        big = DecisionTreeClassifier(class_weight={0: 2.0 ** 1012, 1: 2.0 ** 1013}).fit(X, y)
    np.testing.assert_array_equal(big.tree_.feature, ref.tree_.feature)
    np.testing.assert_array_equal(big.tree_.threshold, ref.tree_.threshold)


def test_rotation_forest_grows_a_tree_when_a_bootstrap_draws_no_weight(data):
    X, y = data
    sw = (np.arange(300) % 10 == 0).astype(float)
    kw = dict(n_estimators=10, bootstrap=True, max_samples=0.05, random_state=0)
    # the random forest draws by weight (scikit-learn 1.9): only weighted samples
    forest = RandomForestClassifier(**kw).fit(X, y, sample_weight=sw)
    assert all(np.all(sw[s] > 0) for s in forest.estimators_samples_)
    for cls in [RotationForestClassifier]:
        forest = cls(**kw).fit(X, y, sample_weight=sw)
        # a tree whose draw had no weight knows nothing: a leaf of equal class shares,
        # which gives no out-of-bag sample its own label (other leaves are draws of one
        # class)
        values = [t.tree_.value[0, 0] for t in forest.estimators_ if t.tree_.node_count == 1]
        knows_nothing = [np.allclose(v, 0.5) for v in values]
        assert len(forest.estimators_) == 10 and sum(knows_nothing) >= 3
        assert all(k or v.max() == 1.0 for k, v in zip(knows_nothing, values))


def test_importances_of_splits_that_gain_nothing_are_zero():
    X, y = [[0.0], [0.0], [1.0], [1.0]], [0, 1, 0, 1]
    forest = RandomForestClassifier(n_estimators=2, bootstrap=False, random_state=0).fit(X, y)
    assert forest.estimators_[0].tree_.node_count > 1
    np.testing.assert_array_equal(forest.feature_importances_, [0.0])


@pytest.mark.parametrize("cls", FORESTS)
def test_numpy_bools_are_bools(cls, data):
    X, y = data
    a = cls(n_estimators=3, oob_score=np.True_, bootstrap=np.True_, random_state=0).fit(X, y)
    b = cls(n_estimators=3, oob_score=True, bootstrap=True, random_state=0).fit(X, y)
    assert a.oob_score_ == b.oob_score_


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("param, value", [("warm_start", "yes"), ("warm_start", None),
                                          ("n_jobs", True)])
def test_bool_and_int_parameters_of_the_wrong_type(cls, data, param, value):
    with pytest.raises(TypeError, match=param):
        cls(n_estimators=2, **{param: value}).fit(*data)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
def test_counts_beyond_any_data_mean_what_the_largest_useful_ones_do(cls, data):
    X, y = data
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
        for tree in getattr(single, "estimators_", [single]):
            assert tree.tree_.node_count == 1


@pytest.mark.parametrize("cls", FORESTS)
def test_out_of_bag_score_without_any_out_of_bag_sample(cls):
    X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    forest = cls(n_estimators=3, bootstrap=True, oob_score=True)
    with pytest.raises(ValueError, match="with 1 sample,.*none is out of bag"):
        forest.fit(X[:1], y[:1])
    assert not hasattr(forest, "estimators_")


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("backend", [None, "threading", "sequential"])
def test_more_jobs_than_trees(cls, data, monkeypatch, backend):
    """n_jobs far above the number of trees starts a thread a tree at most, in our own
    pool of threads (joblib's default and threading backends: after the first two
    trees, grown alone, a thread for each of the other two, their trees being taken as
    slow enough here) or through joblib when the caller chose another backend."""
    import contextlib

    import joblib

    started = counting_pools(monkeypatch)
    X, y = data
    with (joblib.parallel_config(backend=backend) if backend else contextlib.nullcontext()):
        a = cls(n_estimators=4, n_jobs=10_000, random_state=0).fit(X, y)
    if backend == "sequential":                      # one worker: no threads at all
        assert started == []
    else:   # two trees alone, then a thread a tree, not 10,000 (the random
        # forest's presort: a thread a column)
        assert started[-1] == 2 and max(started) <= max(2, X.shape[1])
    b = cls(n_estimators=4, n_jobs=1, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


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


@pytest.mark.parametrize("cls", [DecisionTreeClassifier] + FORESTS)
@pytest.mark.parametrize("value", [float("nan"), -1.0, float("inf"), "2"])
def test_class_weight_values_are_checked(cls, data, value):
    with pytest.raises(ValueError, match="class_weight values.*for class 0"):
        cls(class_weight={0: value, 1: 1.0}).fit(*data)


def test_warm_start_adding_no_tree_still_scores_out_of_bag(data):
    X, y = data
    forest = RandomForestClassifier(n_estimators=4, warm_start=True, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="unchanged"):
        forest.set_params(oob_score=True).fit(X, y)
    once = RandomForestClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, y)
    assert forest.oob_score_ == once.oob_score_


def test_oob_score_is_not_taken_on_the_samples_trees_were_pruned_on(data):
    forest = RandomForestClassifier(n_estimators=3, oob_score=True, oob_pruning=True)
    with pytest.raises(ValueError, match="oob_score with oob_pruning"):
        forest.fit(*data)


@pytest.mark.parametrize("rotation", ["gaussian", "pca"])
def test_a_feature_constant_where_present_moves_nothing(rotation):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    X[:, 2] = 1000.0
    X[rng.random(400) < 0.3, 2] = np.nan              # random: carries nothing
    forest = RotationForestClassifier(n_estimators=10, rotation=rotation, group_size=None,
                                      random_state=0).fit(X, y)
    assert 2 in forest.rotated_features_               # kept for its missing cells
    assert forest.feature_importances_[2] == 0.0
    test = rng.normal(size=(200, 3))
    probas = []
    for value in (1000.0, 1001.0, 1010.0, -5.0):
        test[:, 2] = value
        probas.append(forest.predict_proba(test))
    for p in probas[1:]:
        np.testing.assert_array_equal(p, probas[0])
    test[::2, 2] = np.nan                               # its missingness still routes
    assert forest.predict_proba(test).shape == (200, 2)


def test_a_row_of_weight_zero_changes_no_rotation_forest():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[:, 3] = 7.0                                       # constant in training
    extra = np.r_[X, [[0.0, 0.0, 0.0, np.nan]]]
    w = np.r_[np.ones(300), 0.0]
    a = RotationForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    b = RotationForestClassifier(n_estimators=5, random_state=0).fit(extra, np.r_[y, 0],
                                                                     sample_weight=w)
    np.testing.assert_array_equal(a.rotated_features_, b.rotated_features_)
    np.testing.assert_array_equal(a.missing_features_, b.missing_features_)


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


def test_reduced_error_pruning_needs_tuning_weight(data):
    X, y = data
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


def test_validation_fraction_errors_name_it(data):
    X, y = data
    y = y.copy()
    y[0] = 2                                           # a class of one sample
    with pytest.raises(ValueError, match="validation_fraction=0.3 cannot hold out"):
        DecisionTreeClassifier(validation_fraction=0.3).fit(X, y)


@pytest.mark.parametrize("cls", FORESTS)
def test_balanced_class_weight_with_warm_start_warns_as_scikit_learn(cls, data):
    with pytest.warns(UserWarning, match="not recommended for warm_start"):
        cls(n_estimators=2, class_weight="balanced", warm_start=True).fit(*data)


def test_random_forest_draws_bootstrap_samples_by_weight_as_scikit_learn_1_9(data):
    X, y = data
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
    root = forest.estimators_[3].tree_
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


def test_oob_pruning_keeps_trees_whose_out_of_bag_samples_weigh_nothing():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 6))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    sw = np.zeros(1000)
    sw[:40] = 1.0                  # every weighted sample is drawn: out of bag weighs 0
    forest = RandomForestClassifier(n_estimators=10, oob_pruning=True, random_state=0)
    forest.fit(X, y, sample_weight=sw)
    assert all(t.tree_.node_count > 1 for t in forest.estimators_)
    assert forest.score(X, y) > 0.85


def test_balanced_class_weight_balances_weighted_totals_in_the_forest():
    # as scikit-learn 1.9's forest: each class gets the same total weight
    from sklearn.ensemble import RandomForestClassifier as SkForest

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 3))
    y = (rng.random(400) < 0.2).astype(int)
    sw = np.where(y == 1, 5.0, 1.0)
    kw = dict(n_estimators=2, bootstrap=False, class_weight="balanced", random_state=0)
    ours = RandomForestClassifier(**kw).fit(X, y, sample_weight=sw)
    sk = SkForest(**kw).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.estimators_[0].tree_.value[0, 0],
                               sk.estimators_[0].tree_.value[0, 0])
    np.testing.assert_allclose(ours.estimators_[0].tree_.value[0, 0], [0.5, 0.5])


# ---------------------------------------------------------------------------------------
# Found by a fuzzing review (2026-11-25): settings a warm start cannot honour, invalid
# settings in a fit that grows no tree, stale out-of-bag results, and unclear messages.
# ---------------------------------------------------------------------------------------
ALL_FORESTS = [RandomForestClassifier, RotationForestClassifier, RandomForestRegressor,
               RotationForestRegressor]


def _fitted_state(forest, X):
    out = forest.predict(X)
    return out, len(forest.estimators_), forest.estimator_.get_params()


@pytest.mark.parametrize("cls", ALL_FORESTS)
@pytest.mark.parametrize("bad", [dict(min_samples_leaf=1.5), dict(min_samples_split=0),
                                 dict(ccp_alpha=-1.0), dict(max_features="bogus"),
                                 dict(categorical_features=[9])])
def test_warm_start_without_new_trees_checks_the_settings(cls, data, bad):
    # a warm fit that adds no tree refuses what a fresh fit refuses, and changes nothing
    X, y = data
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    before = _fitted_state(forest, X)
    with pytest.raises(ValueError):
        cls(n_estimators=3, random_state=0, **bad).fit(X, y)
    with pytest.raises(ValueError):
        forest.set_params(**bad).fit(X, y)
    after = _fitted_state(forest, X)
    np.testing.assert_array_equal(after[0], before[0])
    assert after[1:] == before[1:]


@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
def test_rotation_warm_start_without_new_trees_warns_and_keeps_the_forest(cls, data):
    X, y = data
    forest = cls(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    before = _fitted_state(forest, X)
    with pytest.warns(UserWarning, match="no new trees"):
        forest.set_params(min_samples_leaf=5).fit(X, y)    # valid, but grows nothing
    after = _fitted_state(forest, X)
    np.testing.assert_array_equal(after[0], before[0])
    assert after[1:] == before[1:]     # estimator_ still describes the fitted trees


@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
def test_rotation_warm_start_refuses_another_scaling(cls, data):
    X, y = data
    forest = cls(n_estimators=2, warm_start=True, random_state=0).fit(X, y)
    before = _fitted_state(forest, X)
    scale, fitted = forest.scale_.copy(), forest.scaling
    other = {"std": "range", "range": "std"}[fitted]
    with pytest.raises(ValueError, match="scaling cannot change"):
        forest.set_params(n_estimators=4, scaling=other).fit(X, y)
    np.testing.assert_array_equal(forest.scale_, scale)
    np.testing.assert_array_equal(forest.predict(X), before[0])
    forest.set_params(scaling=fitted).fit(X, y)          # back to the fitted one: grows
    assert len(forest.estimators_) == 4


@pytest.mark.parametrize("cls", ALL_FORESTS)
def test_warm_start_refuses_other_categorical_features(cls):
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=(120, 3)), rng.integers(0, 6, 120)]
    y = np.isin(X[:, 3], [1, 4]).astype(int)
    extra = {"min_category_samples": 1}
    forest = cls(n_estimators=2, warm_start=True, random_state=0, **extra).fit(X, y)
    before = _fitted_state(forest, X)
    with pytest.raises(ValueError, match="categorical_features cannot change"):
        forest.set_params(n_estimators=4, categorical_features=[3]).fit(X, y)
    np.testing.assert_array_equal(forest.predict(X), before[0])
    assert forest.is_categorical_ is None and len(forest.estimators_) == 2
    # the same setting given another way (a mask of no feature) is the same setting
    forest.set_params(categorical_features=np.zeros(4, dtype=bool)).fit(X, y)
    assert len(forest.estimators_) == 4
    # and a forest fitted with categories keeps them
    cat = cls(n_estimators=2, warm_start=True, random_state=0, categorical_features=[3],
              **extra).fit(X, y)
    with pytest.raises(ValueError, match=r"treat features \[3\].*now gives \[\]"):
        cat.set_params(n_estimators=4, categorical_features=None).fit(X, y)
    cat.set_params(categorical_features=[False, False, False, True]).fit(X, y)
    assert len(cat.estimators_) == 4


@pytest.mark.parametrize("cls", ALL_FORESTS)
def test_a_fit_without_oob_score_forgets_the_earlier_one(cls, data):
    X, y = data
    forest = cls(n_estimators=8, bootstrap=True, oob_score=True, random_state=0).fit(X, y)
    names = [n for n in ("oob_score_", "oob_decision_function_", "oob_prediction_")
             if hasattr(forest, n)]
    assert len(names) == 2
    forest.set_params(oob_score=False).fit(X[:100], y[:100])
    assert not any(hasattr(forest, n) for n in names)
    # a warm fit that adds no tree leaves the forest, and its score, as they were
    warm = cls(n_estimators=8, bootstrap=True, oob_score=True, warm_start=True,
               random_state=0).fit(X, y)
    score = warm.oob_score_
    with pytest.warns(UserWarning, match="no new trees"):
        warm.set_params(oob_score=False).fit(X, y)
    assert warm.oob_score_ == score


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, RandomForestClassifier,
                                 RotationForestClassifier])
def test_class_weight_as_an_array_gets_a_clear_error(cls, data):
    X, y = data
    with pytest.raises(ValueError, match="class_weight must be a dict, 'balanced'"):
        cls(class_weight=np.array([1.0, 2.0])).fit(X, y)


def test_export_text_of_a_forest_says_to_pass_a_tree(data):
    X, y = data
    forest = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="estimators_"):
        export_text(forest)
    assert export_text(forest.estimators_[0]).startswith("|---")


def test_huge_counts_get_clear_errors_or_mean_the_largest_useful_value(data):
    X, y = data
    X = np.c_[X, np.arange(len(y)) % 5]
    kw = dict(categorical_features=[4], random_state=0)
    huge = DecisionTreeClassifier(min_category_samples=2**63, **kw).fit(X, y)
    largest = DecisionTreeClassifier(min_category_samples=len(y) + 1, **kw).fit(X, y)
    for name in ("feature", "threshold", "children_left", "value"):
        np.testing.assert_array_equal(getattr(huge.tree_, name), getattr(largest.tree_, name))
    for n_estimators in (2**31, 2**64):
        with pytest.raises(ValueError, match="n_estimators must be at most"):
            RandomForestClassifier(n_estimators=n_estimators).fit(X, y)


def test_importances_ignore_rounding_of_splits_without_gain():
    # criterion="error": splits of no gain are common; a tree made of them has a total
    # decrease of pure rounding (+-1e-17), which normalised became [3, -2] (review)
    rng = np.random.default_rng(56)
    n = int(rng.integers(10, 60))
    X = rng.normal(size=(n, 2)).round(2)
    y = (rng.random(n) < 0.2).astype(int)
    forest = RandomForestClassifier(n_estimators=5, criterion="error", max_features=None,
                                    max_leaf_nodes=3, random_state=0).fit(X, y)
    for est in [forest] + forest.estimators_:
        imp = est.feature_importances_
        assert np.all(imp >= 0.0) and (imp.sum() == 0.0 or abs(imp.sum() - 1.0) < 1e-12)
    # a tree with real gains keeps its importances summing to 1
    tree = DecisionTreeClassifier(criterion="error", random_state=0).fit(
        X, (X[:, 0] > 0).astype(int))
    np.testing.assert_allclose(tree.feature_importances_, [1.0, 0.0])


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
        np.testing.assert_allclose(forest.estimators_[0].tree_.value[0, 0], [0.5, 0.5])
    for a, b in zip(*[f.estimators_ for f in fits]):
        np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


def test_multiclass_gini_with_float_weights_scores_light_sides_exactly():
    # float weights spread over six orders of magnitude: the right side's sum of squared
    # class weights, taken down from about W^2, was all rounding by the end of the scan,
    # and a cut worth 3e-15 beat the best one, worth 1e-5 (from a fuzzing review)
    rng = np.random.default_rng(0)
    n = 2000
    X = np.arange(n, dtype=float)[:, None]
    y = np.zeros(n, int)
    y[-5:] = 1                                    # five light class-1 samples at the top
    y[rng.choice(n - 5, 3, replace=False)] = 2    # three light class-2 samples elsewhere
    w = rng.uniform(0.5, 1.5, n)
    w[y != 0] = 1e-6

    def weighted_gini(mask):                      # sum_i c_i (W - c_i) / W: no cancellation
        c = np.bincount(y[mask], weights=w[mask], minlength=3)
        return (c * (c.sum() - c)).sum() / c.sum()

    best = max((weighted_gini(np.ones(n, bool)) - weighted_gini(X[:, 0] <= t)
                - weighted_gini(X[:, 0] > t), t) for t in np.arange(n - 1) + 0.5)
    for Xs in (X, -X):                            # the light side last, and first
        tree = DecisionTreeClassifier(max_depth=1).fit(Xs, y, sample_weight=w).tree_
        assert abs(tree.threshold[0]) == best[1]
