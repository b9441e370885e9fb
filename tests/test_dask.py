"""Fitting on a dask.distributed cluster through joblib's dask backend: the same model as a
local fit, and the training data reaches each worker once per fit, not once per tree.

Every test needs a cluster: skipped, each with the reason, when dask.distributed (or
cloudpickle) is not installed (``pip install "rotforest[dask]"``).  The digests below are
computed in this run, of the bytes that arrive on the workers, and compared with each
other: nothing recorded."""
import hashlib
import logging
import sys

import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold, cross_val_score

from helpers import optional_module, trees_of
from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier


distributed = optional_module("dask.distributed")
cloudpickle = optional_module("cloudpickle")

N_WORKERS = 2


class ArrivalLog(distributed.WorkerPlugin if distributed is not None else object):
    """Records, on every worker, each piece of data that arrives from elsewhere (scattered
    by the client or fetched from another worker) with its size and a digest of its
    bytes (of an object's arrays: a forest's job object), and each task the worker
    runs."""

    name = "rotforest-arrivals"

    def setup(self, worker):
        self.worker = worker
        self.arrived, self.ran = [], []
        worker.rotforest_log = self

    def transition(self, key, start, finish, **kwargs):
        if finish != "memory":
            return
        if start in ("executing", "long-running"):
            self.ran.append(str(key))
            return
        value = self.worker.data[key]
        arrays = ([value] if isinstance(value, np.ndarray) else
                  [v for v in getattr(value, "__dict__", {}).values()
                   if isinstance(v, np.ndarray)])
        raw = b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)
        self.arrived.append((str(key), int(getattr(value, "nbytes", 0)),
                             hashlib.sha1(raw).hexdigest()))

    def clear(self):
        self.arrived.clear()
        self.ran.clear()


def _read_log(dask_worker):
    log = dask_worker.rotforest_log
    out = {"arrived": list(log.arrived), "ran": list(log.ran)}
    log.clear()
    return out


@pytest.fixture(scope="module")
def client():
    """A local cluster of N_WORKERS processes with the ArrivalLog plugin."""
    if distributed is None or cloudpickle is None:
        pytest.skip('needs a dask cluster: dask.distributed and cloudpickle (pip install '
                    '"rotforest[dask]")')
    # the plugin is defined here: ship it by value (workers cannot import this module)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    cluster = distributed.LocalCluster(n_workers=N_WORKERS, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    try:
        client.register_plugin(ArrivalLog())
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=2000, n_features=10, n_informative=5, n_classes=3,
                               n_clusters_per_class=1, random_state=0)


def _same_trees(a, b):
    assert len(trees_of(a)) == len(trees_of(b))
    for ta, tb in zip(trees_of(a), trees_of(b)):
        np.testing.assert_array_equal(ta.tree_.nodes, tb.tree_.nodes)
        np.testing.assert_array_equal(ta.tree_.value, tb.tree_.value)


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=12, oob_score=True, random_state=4),
    lambda: RotationForestClassifier(n_estimators=6, random_state=4),
], ids=["forest", "rotation"])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "with-nan"])
def test_cluster_fit_equals_local_fit(client, data, make, missing):
    X, y = data
    if missing:
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    local = make().set_params(n_jobs=2).fit(X, y)
    client.run(_read_log)
    with parallel_backend("dask"):
        remote = make().fit(X, y)
    logs = client.run(_read_log)
    # the trees were built on the workers, not in this process
    assert sum(len(log["ran"]) for log in logs.values()) >= 2
    _same_trees(remote, local)
    np.testing.assert_array_equal(remote.predict_proba(X), local.predict_proba(X))
    if hasattr(local, "oob_score_"):
        assert remote.oob_score_ == local.oob_score_
    if hasattr(local, "rotations_"):
        for ra, rb in zip(remote.rotations_, local.rotations_):
            assert (ra != rb).nnz == 0


# what a fit ships, in bytes of an (n x F) problem: at most n x F float64 matrices (X and
# the presorted keys and ranks of the random forest; the normalised X of the rotation
# forest), and the labels, class codes (int32) and sample weights of every row, all in
# the fit's one job object (see rotforest._ensemble._TreeJob)
SHIPPED = {
    "forest": (lambda: RandomForestClassifier(n_estimators=12, random_state=0), 2,
               "_grow_trees"),
    "rotation": (lambda: RotationForestClassifier(n_estimators=12, random_state=0), 1,
                 "_grow_rotated"),
}


@pytest.mark.parametrize("name", SHIPPED)
def test_data_reaches_each_worker_once(client, data, name):
    """12 trees on 2 workers: the client sends the fit's data once, in its job object
    (joblib's dask backend scatters large arguments once per call, by identity); each
    worker then holds at most one copy of the fit's data (received from the client or
    fetched from the other worker), and the trees are built in as many tasks as there
    are workers."""
    make, n_matrices, task_name = SHIPPED[name]
    X, y = data
    n, F = X.shape
    client.run(_read_log)
    with parallel_backend("dask"):
        make().fit(X, y)
    logs = client.run(_read_log)

    one_copy = n_matrices * 8 * n * F + (8 + 4 + 8) * n
    keys_of = {}     # content digest -> the data keys that carried it
    for log in logs.values():
        for key, nbytes, digest in log["arrived"]:
            keys_of.setdefault(digest, set()).add(key)
    assert all(len(keys) == 1 for keys in keys_of.values()), "an array was sent twice"
    big = []
    for worker, log in logs.items():
        digests = [d for _, nbytes, d in log["arrived"] if nbytes > 0]
        assert len(digests) == len(set(digests)), f"{worker} received the same data twice"
        received = sum(nbytes for _, nbytes, _ in log["arrived"])
        assert received <= one_copy, (worker, received, one_copy)
        big += [nbytes for _, nbytes, _ in log["arrived"] if nbytes >= 8 * n * F]
    # the matrices travelled as data (not inside every task), in the job object that
    # every chunk of trees shares, at most once per worker
    assert 1 <= len(big) <= N_WORKERS
    tasks = [key for log in logs.values() for key in log["ran"] if task_name in key]
    assert len(tasks) == N_WORKERS           # one task per worker's chunk, not one per tree


def test_nested_cross_validation_on_the_cluster(client, data):
    """cross_val_score's folds run as cluster tasks and each fold's forest submits its
    own tasks from inside a worker: it neither deadlocks nor changes the scores."""
    X, y = data
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    for est in (RandomForestClassifier(n_estimators=6, random_state=1),
                DecisionTreeClassifier(max_depth=6, random_state=1)):
        local = cross_val_score(est, X, y, cv=cv)
        with parallel_backend("dask"):
            remote = cross_val_score(est, X, y, cv=cv, n_jobs=-1)
        np.testing.assert_array_equal(remote, local)
