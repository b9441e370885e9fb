"""RandomForestClassifier: bagging by counts, determinism, threads, out-of-bag estimate,
importances.  (Warm starts: test_warm_start.py; weights: test_weights.py.)"""
import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.model_selection import cross_val_score, train_test_split

from helpers import counting_pools, trees_of
from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier

FORESTS = [RandomForestClassifier, RotationForestClassifier]


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=1500, n_features=12, n_informative=6,
                               n_classes=3, n_clusters_per_class=1, random_state=0)


def test_same_forest_whatever_n_jobs(data):
    X, y = data
    probas = [RandomForestClassifier(n_estimators=12, n_jobs=j, random_state=7)
              .fit(X, y).predict_proba(X) for j in (1, 2, 8)]
    np.testing.assert_array_equal(probas[0], probas[1])
    np.testing.assert_array_equal(probas[0], probas[2])
    other = RandomForestClassifier(n_estimators=12, random_state=8).fit(X, y)
    assert not np.array_equal(other.predict_proba(X), probas[0])


def test_threads_given_by_the_second_trees_time(monkeypatch):
    """The first two trees are grown alone and the second is timed; the others get one
    thread when it took under _TREE_SECONDS_TO_THREAD, else one per
    _TREE_SECONDS_PER_THREAD of its time (two at least), at most n_jobs and one a tree;
    the trees come back in order.  From _CELLS_UNTIMED cells nothing is timed."""
    from types import SimpleNamespace

    import rotforest._parallel as forest

    started = counting_pools(monkeypatch)
    monkeypatch.setattr(forest, "_TREE_SECONDS_TO_THREAD", 0.02)
    monkeypatch.setattr(forest, "_TREE_SECONDS_PER_THREAD", 0.01)
    # a clock that only the second tree advances: the test does not depend on how
    # long a sleep takes on a loaded machine
    now = [0.0]
    monkeypatch.setattr(forest, "time", SimpleNamespace(perf_counter=lambda: now[0]))

    def grow(chunk, second_takes):
        if chunk[0] == 1:
            now[0] += second_takes
        return [index * 10 for index in chunk]

    for second_takes, n_jobs, n_trees, threads in [
            (0.0, 8, 20, []),            # quick trees: one thread, no pool
            (0.015, 8, 20, []),          # still under the threshold
            (0.021, 8, 20, [2]),         # two threads at least
            (0.035, 8, 20, [3]),         # 3.5 thread-times: three threads
            (0.035, 2, 20, [2]),         # at most n_jobs
            (0.035, 8, 4, [2]),          # at most a thread a tree left
            (0.035, 8, 3, []),           # one tree left
            (0.035, 1, 20, [])]:         # n_jobs=1: no timing, no threads
        started.clear()
        trees = forest._grow_in_threads(grow, lambda chunk: (chunk, second_takes),
                                        list(range(n_trees)), n_jobs, 1000)
        assert trees == [10 * i for i in range(n_trees)]
        assert started == threads
    # large data: every thread asked for, untimed
    started.clear()
    trees = forest._grow_in_threads(grow, lambda chunk: (chunk, 0.0), list(range(20)), 8,
                                    forest._CELLS_UNTIMED)
    assert trees == [10 * i for i in range(20)] and started == [8]


@pytest.mark.parametrize("cls", ["RandomForestClassifier", "RotationForestClassifier",
                                 "RandomForestRegressor", "RotationForestRegressor"])
def test_small_data_grows_on_one_thread_the_same_forest(monkeypatch, cls):
    """On small data (trees of well under _TREE_SECONDS_TO_THREAD), n_jobs=4 starts
    no thread (two threads took longer than one there) and grows the same forest."""
    import rotforest
    import rotforest._parallel as forest

    monkeypatch.setattr(forest, "_TREE_SECONDS_TO_THREAD", 1.0)    # every tree "small"
    monkeypatch.setattr(forest, "_CELLS_PER_THREAD_SHIFT", 15)
    started = counting_pools(monkeypatch)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = X[:, 0] + rng.normal(size=120)
    if "Classifier" in cls:
        y = (y > 0).astype(int)
    est = getattr(rotforest, cls)
    four = est(n_estimators=10, n_jobs=4, random_state=0).fit(X, y)
    assert started == []
    one = est(n_estimators=10, n_jobs=1, random_state=0).fit(X, y)
    np.testing.assert_array_equal(four.predict(X), one.predict(X))
    for a, b in zip(trees_of(four), trees_of(one)):
        np.testing.assert_array_equal(a.tree_.nodes, b.tree_.nodes)


def test_process_backend_gives_the_same_forest(data):
    X, y = data
    threads = RandomForestClassifier(n_estimators=6, n_jobs=2, random_state=3).fit(X, y)
    with parallel_backend("loky", n_jobs=2):
        processes = RandomForestClassifier(n_estimators=6, n_jobs=2, random_state=3,
                                           verbose=1).fit(X, y)
    np.testing.assert_array_equal(threads.predict_proba(X), processes.predict_proba(X))


def test_proba_is_mean_of_trees_and_trees_stand_alone(data):
    X, y = data
    forest = RandomForestClassifier(n_estimators=9, random_state=0).fit(X, y)
    mean = np.mean([t.predict_proba(X) for t in trees_of(forest)], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X), mean, rtol=1e-12)
    tree = trees_of(forest)[0]
    assert isinstance(tree, DecisionTreeClassifier)
    np.testing.assert_array_equal(tree.classes_, forest.classes_)
    assert tree.predict(X).shape == (len(y),)
    leaves = forest.apply(X)
    assert leaves.shape == (len(y), 9)
    np.testing.assert_array_equal(leaves[:, 0], tree.apply(X))
    path, ptr = forest.decision_path(X)
    assert path.shape == (len(y), ptr[-1]) and len(ptr) == 10
    imp = forest.feature_importances_
    assert imp.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(imp, np.mean([t.feature_importances_ for t in trees_of(forest)],
                                            axis=0) / 1.0, rtol=1e-12)


def test_bootstrap_counts_match_estimators_samples(data):
    X, y = data
    forest = RandomForestClassifier(n_estimators=5, random_state=1, max_samples=0.5).fit(X, y)
    for tree, drawn in zip(trees_of(forest), forest.estimators_samples_):
        assert len(drawn) == 750
        t = tree.tree_
        assert t.weighted_n_node_samples[0] == len(drawn)       # unit sample weights
        assert t.n_node_samples[0] == len(np.unique(drawn))     # distinct samples
        counts = np.bincount(drawn, minlength=len(y))
        np.testing.assert_allclose(t.value[0, 0] * len(drawn),
                                   np.bincount(y, weights=counts, minlength=3))
    full = RandomForestClassifier(n_estimators=3, bootstrap=False, random_state=1).fit(X, y)
    for tree, drawn in zip(trees_of(full), full.estimators_samples_):
        np.testing.assert_array_equal(drawn, np.arange(len(y)))
        assert tree.tree_.n_node_samples[0] == len(y)


def test_oob_score_close_to_held_out(data):
    X, y = data
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.4, random_state=0)
    forest = RandomForestClassifier(n_estimators=60, oob_score=True, random_state=0).fit(Xa, ya)
    assert abs(forest.oob_score_ - forest.score(Xb, yb)) < 0.04
    assert forest.oob_decision_function_.shape == (len(ya), 3)
    np.testing.assert_allclose(forest.oob_decision_function_.sum(axis=1), 1.0)
    from sklearn.metrics import balanced_accuracy_score
    custom = RandomForestClassifier(n_estimators=20, oob_score=balanced_accuracy_score,
                                    random_state=0).fit(Xa, ya)
    assert 0.5 < custom.oob_score_ <= 1.0


def test_class_weight_and_max_samples(data):
    X, y = data
    keep = np.r_[np.flatnonzero(y == 0)[:60], np.flatnonzero(y != 0)]
    Xi, yi = X[keep], y[keep]
    plain = RandomForestClassifier(n_estimators=30, random_state=0).fit(Xi, yi)
    balanced = RandomForestClassifier(n_estimators=30, random_state=0,
                                      class_weight="balanced").fit(Xi, yi)
    sub = RandomForestClassifier(n_estimators=30, random_state=0,
                                 class_weight="balanced_subsample").fit(Xi, yi)
    from sklearn.utils.class_weight import compute_sample_weight
    explicit = RandomForestClassifier(n_estimators=30, random_state=0).fit(
        Xi, yi, sample_weight=compute_sample_weight("balanced", yi))
    np.testing.assert_array_equal(balanced.predict_proba(Xi), explicit.predict_proba(Xi))
    assert not np.array_equal(balanced.predict_proba(Xi), plain.predict_proba(Xi))
    for tree, drawn in zip(trees_of(sub), sub.estimators_samples_):
        root = tree.tree_.value[0, 0]                     # classes balanced in every bag
        np.testing.assert_allclose(root, [1 / 3] * 3, rtol=1e-9)
    dict_w = RandomForestClassifier(n_estimators=5, random_state=0,
                                    class_weight={0: 5.0, 1: 1.0, 2: 1.0}).fit(Xi, yi)
    same = RandomForestClassifier(n_estimators=5, random_state=0).fit(
        Xi, yi, sample_weight=np.where(yi == 0, 5.0, 1.0))
    np.testing.assert_array_equal(dict_w.predict_proba(Xi), same.predict_proba(Xi))
    small = RandomForestClassifier(n_estimators=3, max_samples=100, random_state=0).fit(X, y)
    assert all(t.tree_.weighted_n_node_samples[0] == 100 for t in trees_of(small))


def test_accuracy_matches_sklearn_forest():
    X, y = make_classification(n_samples=2000, n_features=20, n_informative=8,
                               random_state=3)
    ours = cross_val_score(RandomForestClassifier(n_estimators=50, random_state=0), X, y, cv=3)
    theirs = cross_val_score(SkForest(n_estimators=50, random_state=0), X, y, cv=3)
    assert abs(ours.mean() - theirs.mean()) < 0.02


@pytest.mark.parametrize("params, error, match", [
    (dict(n_estimators=0), ValueError, "n_estimators"),
    (dict(bootstrap="yes"), TypeError, "bootstrap"),
    (dict(oob_score=True, bootstrap=False), ValueError, "bootstrap"),
    (dict(max_samples=0.5, bootstrap=False), ValueError, "max_samples"),
    (dict(max_samples=0), ValueError, "max_samples"),
    (dict(max_samples=0.0), ValueError, "max_samples"),
    (dict(max_samples=float("nan")), ValueError, "max_samples"),
    (dict(max_samples=float("inf")), ValueError, "max_samples"),
    (dict(max_samples="all"), TypeError, "max_samples"),
    (dict(max_samples=True), TypeError, "max_samples"),
    (dict(class_weight="balance"), ValueError, "class_weight"),
    (dict(n_jobs=0), ValueError, "n_jobs"),
    (dict(max_features=0), ValueError, "max_features"),
    (dict(criterion="mse"), ValueError, "criterion"),
])
def test_bad_parameters(data, params, error, match):
    X, y = data
    with pytest.raises(error, match=match):
        RandomForestClassifier(**{"n_estimators": 2, **params}).fit(X, y)


def test_verbose_reports_progress(data, capsys):
    X, y = data
    RandomForestClassifier(n_estimators=6, verbose=2, n_jobs=2, random_state=0).fit(X, y)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "trees" in ln]
    assert len(lines) == 6
    assert lines[-1].startswith("[rotforest] built 6 / 6 trees")
    RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    assert capsys.readouterr().out == ""


def test_small_batches_predict_without_threads(data):
    X, y = data
    forest = RandomForestClassifier(n_estimators=10, n_jobs=4, random_state=0).fit(X, y)
    assert forest._prediction_jobs(5) == 1
    assert forest._prediction_jobs(100_000) == 4
    np.testing.assert_array_equal(forest.predict_proba(X[:5]), forest.predict_proba(X)[:5])


@pytest.mark.parametrize("kind", ["random", "rotation"])
def test_estimator_is_the_unfitted_template_of_the_trees(data, kind):
    from sklearn.utils.validation import check_is_fitted
    from sklearn.exceptions import NotFittedError
    from rotforest import RotationForestClassifier
    X, y = data
    make = RandomForestClassifier if kind == "random" else RotationForestClassifier
    forest = make(n_estimators=3, max_depth=4, min_samples_leaf=3, criterion="entropy",
                  random_state=0).fit(X, y)
    template = forest.estimator_
    assert isinstance(template, DecisionTreeClassifier)
    with pytest.raises(NotFittedError):
        check_is_fitted(template)
    for tree in trees_of(forest):
        expected = tree.get_params()
        expected["random_state"] = None
        assert template.get_params() == expected
    assert (template.max_depth, template.min_samples_leaf, template.criterion) == (4, 3,
                                                                                   "entropy")


@pytest.mark.parametrize("kind", ["random", "rotation"])
def test_probabilities_to_the_last_bit_whatever_n_jobs(kind):
    # leaves of depth-limited trees hold fractions, so the order in which the trees'
    # probabilities are added shows in the last bits; 4,000 rows x 60 trees is enough
    # work for prediction to run in threads
    from rotforest import RotationForestClassifier

    X, y = make_classification(n_samples=8000, n_features=8, n_informative=5, n_classes=3,
                               random_state=1)
    X[::13, 2] = np.nan
    cls = RandomForestClassifier if kind == "random" else RotationForestClassifier
    forest = cls(n_estimators=60, max_depth=4, bootstrap=True, oob_score=True,
                 random_state=0, n_jobs=1).fit(X[:4000], y[:4000])
    probas, oob = [], []
    for n_jobs in (1, 2, 3, 5):
        forest.set_params(n_jobs=n_jobs)
        assert forest._prediction_jobs(4000) == min(n_jobs, 60)
        probas.append(forest.predict_proba(X[4000:]))
        oob.append(cls(n_estimators=60, max_depth=4, bootstrap=True, oob_score=True,
                       random_state=0, n_jobs=n_jobs).fit(X[:4000], y[:4000])
                   .oob_decision_function_)
    assert not np.array_equal(probas[0], np.round(probas[0] * 60) / 60)   # fractions
    for p, o in zip(probas[1:], oob[1:]):
        np.testing.assert_array_equal(p, probas[0])
        np.testing.assert_array_equal(o, oob[0])
    # and the mean of the trees' own probabilities, up to rounding
    each = [tree.predict_proba(rows) for tree, rows in forest._tree_rows(X[4000:])]
    np.testing.assert_allclose(probas[0], np.mean(each, axis=0), rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_every_tree_has_its_resolved_settings(n_jobs):
    """The trees' builder settings are checked and resolved once per worker's share:
    every tree, not only the first of a share, still carries the resolved
    max_features_, and a bad parameter is still refused before any tree is grown."""
    from rotforest import RotationForestRegressor

    X, y = make_classification(n_samples=200, n_features=16, random_state=0)
    rf = RandomForestClassifier(n_estimators=6, max_features="sqrt", n_jobs=n_jobs,
                                random_state=0).fit(X, y)
    assert [t.max_features_ for t in trees_of(rf)] == [4] * 6
    rot = RotationForestRegressor(n_estimators=5, max_features=0.5, n_jobs=n_jobs,
                                  random_state=0).fit(X, y * 1.0)
    assert [t.max_features_ for t in trees_of(rot)] == [8] * 5
    with pytest.raises(ValueError, match="max_depth"):
        RandomForestClassifier(n_estimators=3, max_depth=0, n_jobs=n_jobs).fit(X, y)


# --------------------------------------------------------------------------------------
# Edge cases: n_jobs far above the trees, an out-of-bag score with no sample out
# of bag, importances of splits that gain nothing.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", FORESTS)
@pytest.mark.parametrize("backend", [None, "threading", "sequential"])
def test_more_jobs_than_trees(cls, binary_data, monkeypatch, backend):
    """n_jobs far above the number of trees starts a thread a tree at most, in our own
    pool of threads (joblib's default and threading backends: after the first two
    trees, grown alone, a thread for each of the other two, their trees being taken as
    slow enough here) or through joblib when the caller chose another backend."""
    import contextlib

    import joblib

    started = counting_pools(monkeypatch)
    X, y = binary_data
    with (joblib.parallel_config(backend=backend) if backend else contextlib.nullcontext()):
        a = cls(n_estimators=4, n_jobs=10_000, random_state=0).fit(X, y)
    if backend == "sequential":                      # one worker: no threads at all
        assert started == []
    else:   # two trees alone, then a thread a tree, not 10,000 (the random
        # forest's presort: a thread a column)
        assert started[-1] == 2 and max(started) <= max(2, X.shape[1])
    b = cls(n_estimators=4, n_jobs=1, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("cls", FORESTS)
def test_out_of_bag_score_without_any_out_of_bag_sample(cls):
    X, y = np.array([[0.0], [1.0]]), np.array([0, 1])
    forest = cls(n_estimators=3, bootstrap=True, oob_score=True)
    with pytest.raises(ValueError, match="with 1 sample,.*none is out of bag"):
        forest.fit(X[:1], y[:1])
    assert not hasattr(forest, "estimators_")


def test_importances_of_splits_that_gain_nothing_are_zero():
    X, y = [[0.0], [0.0], [1.0], [1.0]], [0, 1, 0, 1]
    forest = RandomForestClassifier(n_estimators=2, bootstrap=False, random_state=0).fit(X, y)
    assert trees_of(forest)[0].tree_.node_count > 1
    np.testing.assert_array_equal(forest.feature_importances_, [0.0])


def test_importances_ignore_rounding_of_splits_without_gain():
    # criterion="error": splits of no gain are common; a tree made of them has a total
    # decrease of pure rounding (+-1e-17), which normalised became [3, -2] (review)
    rng = np.random.default_rng(56)
    n = int(rng.integers(10, 60))
    X = rng.normal(size=(n, 2)).round(2)
    y = (rng.random(n) < 0.2).astype(int)
    forest = RandomForestClassifier(n_estimators=5, criterion="error", max_features=None,
                                    max_leaf_nodes=3, random_state=0).fit(X, y)
    for est in [forest] + trees_of(forest):
        imp = est.feature_importances_
        assert np.all(imp >= 0.0) and (imp.sum() == 0.0 or abs(imp.sum() - 1.0) < 1e-12)
    # a tree with real gains keeps its importances summing to 1
    tree = DecisionTreeClassifier(criterion="error", random_state=0).fit(
        X, (X[:, 0] > 0).astype(int))
    np.testing.assert_allclose(tree.feature_importances_, [1.0, 0.0])


def test_add_leaf_values_equals_the_gather_of_apply():
    # the fused walk that sums a forest's leaf values against values[apply(X)], on
    # dense X in either order, float32, missing values, categorical splits, sparse X
    from scipy.sparse import csr_matrix
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 6))
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 5] = rng.integers(0, 7, 500)
    y = (np.nan_to_num(X[:, 0]) + (X[:, 5] % 3 == 1) > 0.5).astype(int)
    for categorical in (None, [5]):
        forest = RandomForestClassifier(n_estimators=3, random_state=0,
                                        categorical_features=categorical).fit(X, y)
        for tree in forest.estimators_:
            t = tree.tree_
            values = t.value.reshape(t.node_count, -1)
            for rows in (X, np.asfortranarray(X), X.astype(np.float32),
                         csr_matrix(np.nan_to_num(X))):
                start = rng.normal(size=(500, values.shape[1]))
                want = start + values[t.apply(rows)]
                got = t.add_leaf_values(rows, values, start.copy())
                assert np.array_equal(got, want)
