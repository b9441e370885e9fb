"""rotforest.dask: forests fitted on Dask collections, each row partition growing its
share of the trees where it is held.  On a LocalCluster of two worker processes the
fit equals, tree for tree, the local reproduction of the same partitions
(``fit_partitions``); lazy predictions equal the local forest's; classes are global;
bad input gets clear errors.  Skipped when dask.distributed is not installed
(``pip install "rotforest[dask]"``)."""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression

from helpers import optional_module, trees_of

distributed = optional_module("distributed")
da = optional_module("dask.array")
pytestmark = pytest.mark.skipif(distributed is None or da is None,
                                reason="dask.distributed is not installed")
if distributed is not None and da is not None:
    import rotforest.dask as rd


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _same_trees(a, b):
    assert len(trees_of(a)) == len(trees_of(b))
    for s, t in zip(trees_of(a), trees_of(b)):
        assert s.tree_.nodes.tobytes() == t.tree_.nodes.tobytes()
        assert np.array_equal(s.tree_.value, t.tree_.value)


CHUNKS = (700, 1300, 1000)


@pytest.mark.parametrize("name", ["RandomForestClassifier", "RandomForestRegressor",
                                  "ExtraTreesClassifier", "ExtraTreesRegressor",
                                  "RotationForestClassifier", "RotationForestRegressor"])
def test_fit_is_the_local_reproduction_tree_for_tree(client, name):
    cls = getattr(rd, name)
    regression = name.endswith("Regressor")
    if regression:
        X, y = make_regression(3000, 6, noise=5.0, random_state=1)
    else:
        X, y = make_classification(3000, 6, n_informative=4, n_classes=3,
                                   random_state=1)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    dX = da.from_array(X, chunks=(CHUNKS, 3))       # (columns in two chunks: joined)
    dy, dw = da.from_array(y, chunks=(CHUNKS,)), da.from_array(w, chunks=(CHUNKS,))
    est = cls(n_estimators=11, max_depth=8, random_state=3)
    fitted = est.fit(dX, dy, sample_weight=dw)
    parts = np.cumsum(CHUNKS)[:-1]
    local = rd.fit_partitions(clone(est), np.split(X, parts), np.split(y, parts),
                              np.split(w, parts))
    _same_trees(fitted.to_local(), local)
    # the trees follow the rows: 11 trees dealt 2.57, 4.77, 3.67 -> 2, 5, 4
    assert list(rd.tree_shares(CHUNKS, 11)) == [2, 5, 4]
    assert np.array_equal(local._partition_of_tree, [0] * 2 + [1] * 5 + [2] * 4)
    # each partition's trees saw only its rows
    first = trees_of(local)[0].tree_
    assert first.nodes["weighted_n_node_samples"][0] <= w[:700].sum() * 3
    # lazy predictions: dask arrays, equal to the local forest's
    predicted = fitted.predict(dX)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), local.predict(X))
    np.testing.assert_array_equal(fitted.apply(dX).compute(), local.apply(X))
    if not regression:
        np.testing.assert_allclose(fitted.predict_proba(dX).compute(),
                                   local.predict_proba(X), rtol=0, atol=0)
    # numpy in, numpy out, at once
    assert isinstance(fitted.predict(X[:5]), np.ndarray)
    # the score where the rows are: scikit-learn's on the local forest
    for weights in (None, w):
        assert fitted.score(dX, dy, None if weights is None else dw) == pytest.approx(
            local.score(X, y, sample_weight=weights), rel=1e-10)


def test_classes_are_global_and_a_partition_may_lack_one(client):
    X, y = make_classification(3000, 6, n_informative=4, n_classes=3, random_state=2)
    labels = np.array(["ant", "bee", "cat"])[y]
    labels[:1000][labels[:1000] == "cat"] = "ant"     # the first partition: no "cat"
    dX, dy = da.from_array(X, chunks=1000), da.from_array(labels, chunks=1000)
    with pytest.warns(UserWarning, match="not spread over the partitions"):
        # (a partition without a class is far from a random one)
        forest = rd.RandomForestClassifier(n_estimators=9, random_state=0).fit(dX, dy)
    assert forest.classes_.tolist() == ["ant", "bee", "cat"]
    local = forest.to_local()
    first = local.estimators_[0]        # grown on the first partition
    assert first.tree_.value.shape[2] == 3
    assert np.all(first.tree_.value[:, 0, 2] == 0.0)
    proba = forest.predict_proba(dX).compute()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(forest.predict(dX).compute()) <= {"ant", "bee", "cat"}
    # "balanced" weighs the classes by their counts over every partition (here the
    # first partition has no "cat" at all): each partition's forest gets the weights
    classes, counts = np.unique(labels, return_counts=True)
    balanced = rd.RandomForestClassifier(n_estimators=3, class_weight="balanced")
    plan = rd._Plan(balanced, [1000] * 3, classes, counts)
    assert plan.params["class_weight"] == pytest.approx(
        {c: 3000 / (3 * k) for c, k in zip(classes.tolist(), counts)})
    with pytest.warns(UserWarning, match="not spread over the partitions"):
        fitted = rd.RandomForestClassifier(n_estimators=3, class_weight="balanced",
                                           random_state=0).fit(dX, dy)
        again = rd.fit_partitions(clone(fitted), np.split(X, 3), np.split(labels, 3))
    assert fitted.to_local().class_weight == "balanced"
    _same_trees(fitted.to_local(), again)


@pytest.mark.parametrize("scaling, class_weight", [("std", None), ("range", "balanced")])
def test_rotation_forests_normalise_over_all_the_rows(client, scaling, class_weight):
    # the mean and scale of every column, its constancy, the features rotated and those
    # with missing values: those of a local fit's normalisation of all the rows (the
    # weights and class weights included), whichever partition holds which rows
    from rotforest._rotate import _normalisation, _rotated_features
    rng = np.random.default_rng(3)
    X, y = make_classification(3000, 7, n_informative=4, n_classes=3, random_state=3)
    X[:, 5] = 2.5                                   # constant, with missing cells
    X[:, 2] *= 1e4
    X[rng.random(X.shape) < 0.04] = np.nan
    w = rng.uniform(0.0, 3.0, len(y))
    w[:50] = 0.0
    forest = rd.RotationForestClassifier(n_estimators=6, scaling=scaling,
                                         class_weight=class_weight, random_state=0)
    forest.fit(da.from_array(X, chunks=(CHUNKS, 7)), da.from_array(y, chunks=(CHUNKS,)),
               sample_weight=da.from_array(w, chunks=(CHUNKS,)))
    local = forest.to_local()
    sw = w.copy()
    if class_weight == "balanced":
        counts = np.bincount(y)
        sw *= (len(y) / (3 * counts))[y]
    mean, scale, constant = _normalisation(X, sw, scaling)
    np.testing.assert_allclose(local.mean_, mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(local.scale_, scale, rtol=1e-10)
    assert np.array_equal(local._constant, constant) and constant[5]
    live = X[w > 0]
    assert np.array_equal(local.rotated_features_,
                          _rotated_features(live, constant, local.missing))
    assert np.array_equal(local.missing_features_,
                          np.flatnonzero(np.isnan(live).any(axis=0)))
    parts = np.cumsum(CHUNKS)[:-1]
    _same_trees(local, rd.fit_partitions(clone(forest), np.split(X, parts),
                                         np.split(y, parts), np.split(w, parts)))


def test_dataframes_names_and_unknown_lengths(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = make_classification(2000, 5, random_state=4)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)])
    dX = dd.from_pandas(frame, npartitions=3)
    dy = dd.from_pandas(pd.Series(y), npartitions=3)
    forest = rd.RandomForestClassifier(n_estimators=6, random_state=0).fit(dX, dy)
    assert list(forest.feature_names_in_) == list(frame.columns)
    assert forest.predict(dX).compute().shape == (2000,)
    # rows of unknown lengths (a filter) are counted, not refused
    kept = dX[dX["f0"] > -10.0]
    assert np.isnan(kept.to_dask_array().chunks[0][0])
    assert forest.predict(kept).compute().shape == (2000,)
    with pytest.raises(ValueError, match="feature names"):
        forest.predict(dX.rename(columns={"f0": "other"}))
    # refitted on an array: no names left from the dataframe's fit
    forest.fit(dX.to_dask_array(lengths=True), dy.to_dask_array(lengths=True))
    assert not hasattr(forest, "feature_names_in_")
    assert not hasattr(forest.to_local(), "feature_names_in_")


@pytest.mark.parametrize("name", ["RandomForestClassifier", "RotationForestClassifier",
                                  "ExtraTreesRegressor"])
def test_category_columns_are_global(client, name):
    """A dask dataframe's category columns: their categories made global (the union of
    every partition's, here each partition's own and the first lacking one), the trees
    those of the local reproduction on the codes, predictions those of the local forest
    on the pandas frame; an unseen category goes where missing values go."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(0)
    colour = rng.choice(["red", "green", "blue", "cyan", "teal"], size=3000)
    colour[:1000][colour[:1000] == "teal"] = "red"
    x = rng.normal(size=(3000, 3))
    y = (np.isin(colour, ["green", "teal"]) ^ (x[:, 0] > 0)).astype(int)
    frame = pd.DataFrame({"a": x[:, 0], "colour": pd.Categorical(colour), "b": x[:, 1],
                          "c": x[:, 2]})
    parts = []
    for start in range(0, 3000, 1000):
        part = frame.iloc[start:start + 1000].copy()
        part["colour"] = part["colour"].cat.remove_unused_categories()
        parts.append(dd.from_pandas(part, npartitions=1))
    dX = dd.concat(parts)
    dX["colour"] = dX["colour"].cat.as_unknown()
    dy = dd.from_pandas(pd.Series(y), npartitions=3)
    est = getattr(rd, name)(n_estimators=6, max_depth=5, random_state=0).fit(dX, dy)
    local = est.to_local()
    levels = ["blue", "cyan", "green", "red", "teal"]
    assert list(local._category_maps[1]) == levels
    assert list(local.is_categorical_) == [False, True, False, False]
    codes = frame.to_numpy(dtype=object)
    codes[:, 1] = pd.Categorical(colour, categories=levels).codes
    codes = codes.astype(np.float64)
    reference = rd.fit_partitions(clone(est).set_params(categorical_features=[1]),
                                  np.split(codes, 3), np.split(y, 3))
    _same_trees(local, reference)
    np.testing.assert_array_equal(est.predict(dX).compute(), local.predict(frame))
    unseen = frame.assign(colour=pd.Categorical(["purple"] * 3000))
    missing = frame.assign(colour=pd.Categorical([None] * 3000, categories=levels))
    np.testing.assert_array_equal(
        est.predict(dd.from_pandas(unseen, npartitions=2)).compute(),
        local.predict(missing))
    with pytest.raises(ValueError, match="categorical_features='from_dtype'"):
        clone(est).set_params(categorical_features=[1]).fit(dX, dy)


def test_bad_input_is_refused_clearly(client):
    X, y = make_classification(600, 4, random_state=0)
    dX, dy = da.from_array(X, chunks=200), da.from_array(y, chunks=200)
    with pytest.raises(TypeError, match="y must be a dask array"):
        rd.RandomForestClassifier(n_estimators=2).fit(dX, y)
    with pytest.raises(ValueError, match="y has 599 rows"):
        rd.RandomForestClassifier(n_estimators=2).fit(dX, dy[:599])
    with pytest.raises(ValueError, match="not a scorer"):
        rd.RandomForestClassifier(n_estimators=2, oob_score=len).fit(dX, dy)
    with pytest.raises(ValueError, match="warm_start"):
        rd.RandomForestClassifier(n_estimators=2, warm_start=True).fit(dX, dy)
    with pytest.raises(ValueError, match="dimensions"):
        rd.RandomForestClassifier(n_estimators=2).fit(dX, da.stack([dy, dy], axis=1))
    forest = rd.RandomForestClassifier(n_estimators=3, random_state=0)
    assert not hasattr(forest, "classes_")
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        forest.predict(dX)
    forest.fit(dX, dy)
    with pytest.raises(ValueError, match="in-bag"):
        forest.to_local().estimators_samples_
    # mis-aligned partitions of y are brought to X's
    shifted = da.from_array(y, chunks=150)
    again = rd.RandomForestClassifier(n_estimators=3, random_state=0).fit(dX, shifted)
    _same_trees(again.to_local(), forest.to_local())


def test_partitions_that_grow_no_tree_warn(client):
    X, y = make_classification(900, 4, random_state=0)
    rows = (500, 300, 50, 50)
    with pytest.warns(UserWarning, match="2 of 4 partitions hold less than a tree's"):
        rd.RandomForestClassifier(n_estimators=5, max_depth=2, random_state=0).fit(
            da.from_array(X, chunks=(rows, 4)), da.from_array(y, chunks=(rows,)))


def test_tree_shares_follow_the_rows():
    assert list(rd.tree_shares([100, 100, 100], 100)) == [34, 33, 33]
    assert list(rd.tree_shares([0, 50, 150], 8)) == [0, 2, 6]
    assert list(rd.tree_shares([10, 10, 10, 10], 2)) == [1, 1, 0, 0]
    shares = rd.tree_shares(np.random.default_rng(0).integers(1, 1000, 37), 500)
    assert shares.sum() == 500
    with pytest.raises(ValueError, match="no rows"):
        rd.tree_shares([0, 0], 3)


def test_parameters_are_the_local_forests_and_client():
    local = set(rd._forest.RandomForestClassifier().get_params())
    assert set(rd.RandomForestClassifier().get_params()) == local | {"client",
                                                                     "draw_from"}
    est = clone(rd.ExtraTreesRegressor(n_estimators=7, max_depth=3))
    assert est.n_estimators == 7 and est.max_depth == 3 and est.client is None
    assert est.draw_from == "partition"
    assert "max_bins" not in est.get_params()


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
@pytest.mark.parametrize("regression", [False, True])
def test_out_of_bag_scores_reduce_each_partitions_own(client, regression):
    # a row is out of bag for the trees of its partition that did not draw it: the
    # score over every partition's such rows, against each partition's local forest
    # with the partition's seed scoring its own rows (accuracy, or R^2 of the pooled
    # out-of-bag predictions)
    from sklearn.metrics import accuracy_score, r2_score
    if regression:
        X, y = make_regression(2400, 5, noise=10.0, random_state=5)
    else:
        X, y = make_classification(2400, 5, n_informative=3, n_classes=3,
                                   random_state=5)
    cls = rd.RandomForestRegressor if regression else rd.RandomForestClassifier
    est = cls(n_estimators=30, oob_score=True, max_depth=6, random_state=7)
    fitted = est.fit(da.from_array(X, chunks=800), da.from_array(y, chunks=800))
    seeds = rd._partition_seeds(7, 3)
    truth, predicted = [], []
    for b in range(3):
        rows = slice(800 * b, 800 * (b + 1))
        local = est._local(n_estimators=10, oob_score=True, max_depth=6,
                           random_state=seeds[b]).fit(X[rows], y[rows])
        votes = local.oob_prediction_ if regression else local.oob_decision_function_
        seen = ~np.isnan(votes.reshape(len(votes), -1)).any(axis=1)
        truth.append(y[rows][seen])
        predicted.append(votes[seen] if regression
                         else local.classes_[np.argmax(votes[seen], axis=1)])
    score = (r2_score if regression else accuracy_score)(np.concatenate(truth),
                                                         np.concatenate(predicted))
    assert fitted.oob_score_ == pytest.approx(score, rel=1e-12)
    assert fitted.to_local().oob_score_ == fitted.oob_score_
    assert not hasattr(fitted.to_local(), "oob_decision_function_")


@pytest.mark.parametrize("regression", [False, True])
def test_rows_sorted_into_partitions_warn(client, regression):
    if regression:
        X, y = make_regression(3000, 4, noise=1.0, random_state=0)
    else:
        X, y = make_classification(3000, 4, random_state=0)
    order = np.argsort(y, kind="stable")
    est = (rd.RandomForestRegressor if regression
           else rd.RandomForestClassifier)(n_estimators=6, max_depth=3, random_state=0)
    with pytest.warns(UserWarning, match="not spread over the partitions at random"):
        est.fit(da.from_array(X[order], chunks=1000), da.from_array(y[order], chunks=1000))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.fit(da.from_array(X, chunks=1000), da.from_array(y, chunks=1000))


@pytest.mark.parametrize("name", ["RandomForestClassifier", "ExtraTreesRegressor",
                                  "RotationForestClassifier"])
def test_draw_from_all_partitions(client, name):
    """draw_from="all": each partition's trees learn from a pool of as many rows as it
    holds, drawn without replacement from all the rows; the same forest as the local
    reproduction, and on rows sorted by class no warning and the accuracy of shuffled
    partitions rather than the sorted ones'."""
    import warnings
    regression = name.endswith("Regressor")
    if regression:
        X, y = make_regression(3000, 5, noise=1.0, random_state=2)
    else:
        X, y = make_classification(6000, 5, n_informative=3, random_state=2)
        X_test, y_test, X, y = X[3000:], y[3000:], X[:3000], y[:3000]
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    est = getattr(rd, name)(n_estimators=9, max_depth=6, random_state=4, draw_from="all")
    dX, dy, dw = (da.from_array(a, chunks=(CHUNKS,) + a.shape[1:]) for a in (X, y, w))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = est.fit(dX, dy, sample_weight=dw)
    parts = np.cumsum(CHUNKS)[:-1]
    local = rd.fit_partitions(clone(est), np.split(X, parts), np.split(y, parts),
                              np.split(w, parts))
    _same_trees(fitted.to_local(), local)
    # each pool: its partition's number of rows, from every partition, none twice
    seeds = rd._partition_seeds(4, 3)
    counts = rd._pool_counts(CHUNKS, seeds)
    assert list(counts.sum(axis=1)) == list(CHUNKS)
    assert (counts > 0).all() and (counts <= np.array(CHUNKS)).all()
    piece = rd._take(X[:700], y[:700], None, int(counts[1, 0]), seeds[1], 0)[1]
    assert len(piece) == counts[1, 0]
    if regression:
        return
    # class-sorted partitions: each pool holds both classes near their overall shares
    assert all(0.3 < np.mean(rd._joined([rd._take(Xp, yp, None, int(c), seeds[b], p)
                                         for p, (Xp, yp, c) in enumerate(zip(
                                             np.split(X, parts), np.split(y, parts),
                                             counts[b]))])[1]) < 0.7
               for b in range(3))
    own = clone(est).set_params(draw_from="partition")
    with pytest.warns(UserWarning, match="or pass draw_from='all'"):
        own.fit(dX, dy)
    # the pools' forest is about as good as one on shuffled partitions, the sorted
    # partitions' clearly worse (its pure partitions' trees vote one class everywhere)
    from sklearn.metrics import log_loss
    mixed = np.random.default_rng(0).permutation(len(y))
    shuffled = rd.fit_partitions(clone(est), np.split(X[mixed], parts),
                                 np.split(y[mixed], parts))
    loss = [log_loss(y_test, m.predict_proba(X_test)) for m in (fitted, shuffled, own)]
    assert loss[0] < loss[1] + 0.05 and loss[0] < loss[2] - 0.1, loss


def test_draw_from_is_checked(client):
    X, y = make_classification(300, 4, random_state=0)
    est = rd.RandomForestClassifier(n_estimators=3, draw_from="everywhere")
    with pytest.raises(ValueError, match="draw_from must be 'partition' or 'all'"):
        est.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=100))
    assert not hasattr(est, "estimators_")


def test_bench_dask_quick_reports_ours_beside_the_local_share(capsys):
    """benchmarks/bench_dask.py --quick: a row for rotforest.dask (time, bytes the
    workers sent, none lost, an accuracy) and for the local forest on one share."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_dask.py"
    spec = importlib.util.spec_from_file_location("bench_dask", path)
    bench = importlib.util.module_from_spec(spec)
    import sys
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(bench)
        bench.main(["--quick"])
    finally:
        sys.path.remove(str(path.parent))
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in out.splitlines() if line.startswith("| rotforest")}
    ours = rows["rotforest.dask"]
    assert ours[0].endswith(" s") and ours[3].endswith(" MB") and ours[4] == "0"
    assert float(ours[2].rstrip("%")) < 5.0          # (no rows moved)
    assert 0.5 < float(ours[5]) <= 1.0
    local = [v for k, v in rows.items() if k.startswith("rotforest, local")][0]
    assert 0.5 < float(local[5]) <= 1.0


def test_a_worker_lost_mid_fit_gives_the_same_forest():
    """A worker process killed while it grows a partition's trees: Dask reruns the
    task elsewhere, and the forest is the one fit_partitions grows."""
    import os
    import threading
    import time
    X, y = make_classification(4000, 8, n_informative=5, random_state=3)
    est = rd.RandomForestClassifier(n_estimators=400, max_depth=10, random_state=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        dX, dy = da.from_array(X, chunks=1000), da.from_array(y, chunks=1000)
        done = {}
        fitting = threading.Thread(target=lambda: done.update(forest=est.fit(dX, dy)))
        fitting.start()
        killed = None
        deadline = time.monotonic() + 60
        while killed is None and time.monotonic() < deadline and fitting.is_alive():
            busy = [w for w, keys in c.processing().items()
                    if any("_fit_part" in str(k) for k in keys)]
            if busy:
                pid = c.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(pid, 9)
                killed = busy[0]
            time.sleep(0.05)
        fitting.join(120)
        assert killed is not None and "forest" in done
    parts = rd.fit_partitions(clone(est), np.split(X, 4), np.split(y, 4))
    _same_trees(done["forest"].to_local(), parts)


@pytest.mark.filterwarnings("ignore:the rows are not spread")
@pytest.mark.parametrize("name", ["RandomForestClassifier", "RotationForestClassifier"])
def test_empty_and_one_class_partitions(client, name):
    X, y = make_classification(1500, 5, random_state=6)
    order = np.argsort(y, kind="stable")            # the first 500 rows: one class
    X, y = X[order], y[order]
    rows = (500, 0, 1000)                           # an empty partition between
    forest = getattr(rd, name)(n_estimators=6, random_state=0).fit(
        da.from_array(X, chunks=(rows, 5)), da.from_array(y, chunks=(rows,)))
    assert list(rd.tree_shares(rows, 6)) == [2, 0, 4]
    first = trees_of(forest.to_local())[0].tree_
    assert first.node_count == 1 and first.value.shape[2] == 2      # one class: a leaf
    proba = forest.predict_proba(da.from_array(X, chunks=500)).compute()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    _same_trees(forest.to_local(), rd.fit_partitions(
        clone(forest), [X[:500], X[500:500], X[500:]], [y[:500], y[500:500], y[500:]]))
