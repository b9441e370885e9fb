"""Forests fitted on Dask collections whose rows stay on the workers that hold them.

``rotforest.dask.RandomForestClassifier`` (and ``RandomForestRegressor``,
``ExtraTreesClassifier``, ``ExtraTreesRegressor``, ``RotationForestClassifier``,
``RotationForestRegressor``) take the local estimator's
parameters and ``client`` (default: the current Dask client), and fit on a
``dask.array`` or ``dask.dataframe`` X with y (and sample weights) in the same
collection kind.  Each row partition of X (a block of rows) grows its share of the
trees, in proportion to its rows, on its own rows, in one task on the worker that
holds it: the rows never cross the network, only the fitted trees and a few numbers
do (the classes and their counts, the partitions' lengths).  The fitted model is an
ordinary local forest of all the partitions' trees (``to_local()``); ``predict``,
``predict_proba`` and ``apply`` on a Dask collection return lazy Dask arrays (the
forest is sent to each worker once per call), on numpy data they answer at once.

What is global: the classes (over every partition; a partition that lacks a class is
fine: its trees give that class nothing), a dataframe's category columns (their
categories the union over all partitions, the trees reading their codes), ``class_weight="balanced"`` (from the classes'
counts over all partitions), the number of features and their names, a rotation
forest's normalisation (pooled from every partition's column sums; its wide-data
screen is each partition's own).  Each tree draws
its bootstrap within its partition's rows.  The forest depends only on the data, its
partitioning and ``random_state`` (partition ``b``'s trees are seeded from the
forest's seed and ``b``), never on the number of workers or on which worker grew what;
``fit_partitions`` fits the same forest here from the partitions as numpy arrays.  With
``oob_score=True`` a row is out of bag for the trees of its partition that did not draw
it; each partition scores its rows, and only the counts behind the score travel
(``oob_score_``: accuracy, or R^2 over the pooled rows).  Rows sorted into partitions
(class shares or target means far beyond sampling noise apart) make ``fit`` warn;
``draw_from="all"`` makes each partition's trees learn from a pool of rows drawn at
random from every partition instead (only the drawn rows travel).
"""
import copy
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state

try:
    import dask
    import dask.array as da
    from distributed import default_client
except ImportError as exc:          # pragma: no cover (the dask extra not installed)
    raise ImportError('rotforest.dask needs Dask\'s distributed scheduler: pip install '
                      '"rotforest[dask]"') from exc

from rotforest import extra as _extra
from rotforest import forest as _forest
from rotforest import rotation as _rotation
from rotforest._categorical import MAX_CATEGORIES, _as_codes, _storable
from rotforest._docs import _sections, derived_init
from rotforest._rotate import finish_normalisation
from rotforest._tree import Tree

__all__ = ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor", "RotationForestClassifier", "RotationForestRegressor",
           "fit_partitions", "tree_shares"]


def tree_shares(rows, n_trees):
    """How many of ``n_trees`` trees each partition grows.

    In proportion to its rows, rounded by the largest remainders (ties: the earlier
    partition); a partition without rows grows none.

    Parameters
    ----------
    rows : array-like of shape (n_partitions,)
        The partitions' numbers of rows.
    n_trees : int
        The forest's number of trees.

    Returns
    -------
    shares : ndarray of shape (n_partitions,)
        The trees of each partition; they sum to ``n_trees``.
    """
    rows = np.asarray(rows, dtype=np.float64)
    if rows.sum() <= 0:
        raise ValueError("X has no rows")
    exact = n_trees * rows / rows.sum()
    shares = np.floor(exact).astype(np.int64)
    order = np.lexsort((np.arange(rows.size), -(exact - shares)))
    shares[order[:n_trees - int(shares.sum())]] += 1
    return shares


def _partition_seeds(random_state, n_parts):
    """Each partition's random_state: from the forest's seed and the partition's
    number only."""
    base = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    return [int(s.generate_state(1)[0] >> 1)
            for s in np.random.SeedSequence(base).spawn(n_parts)]


def _pool_counts(rows, seeds):
    """With ``draw_from="all"``: how many rows partition b's pool takes of each
    partition p (``counts[b, p]``): as many rows in all as partition b holds, drawn
    at random without replacement from all the rows (partition b's seed)."""
    rows = np.asarray(rows, dtype=np.int64)
    counts = np.zeros((len(rows), len(rows)), dtype=np.int64)
    for b, seed in enumerate(seeds):
        if rows[b]:
            counts[b] = np.random.default_rng([seed, 0]).multivariate_hypergeometric(
                rows, int(rows[b]))
    return counts


def _take(X, y, sample_weight, count, seed, source):
    """``count`` rows of a partition (``source``), at random without replacement
    (seeded by the pool's seed and the source's number), in their order."""
    rows = np.sort(np.random.default_rng([seed, 1, source]).choice(
        len(X), size=count, replace=False))
    return (np.asarray(X)[rows], np.asarray(y)[rows],
            None if sample_weight is None else np.asarray(sample_weight)[rows])


def _joined(pieces):
    """A pool's pieces (see _take) as one X, y and sample_weight."""
    X = np.concatenate([p[0] for p in pieces])
    y = np.concatenate([p[1] for p in pieces])
    w = (None if pieces[0][2] is None
         else np.concatenate([p[2] for p in pieces]))
    return X, y, w


def _widen(forest, classes):
    """A partition's classifier on the global ``classes``: its trees' values get a
    column of zeros for each class the partition lacked."""
    if np.array_equal(forest.classes_, classes):
        return forest
    at = np.searchsorted(classes, forest.classes_)
    k = len(classes)
    rotated = hasattr(forest, "rotated_estimators_")
    for tree in forest._trees():
        old = tree.tree_
        value = np.zeros(old.value.shape[:2] + (k,))
        value[:, :, at] = old.value
        tree.tree_ = Tree(old.n_features, k, old.nodes, value, old.max_depth,
                          old.code_sets)
        # (a rotation forest's trees hold the classes, a random forest's their codes)
        tree.classes_ = classes if rotated else np.arange(k)
        tree.n_classes_ = k
    forest.classes_ = classes
    forest.n_classes_ = k
    return forest


def _fit_part(local, params, X, y, sample_weight, n_trees, seed, classes,
              normalisation=None):
    """One partition's forest, grown where the partition is (a rotation forest with the
    normalisation of all the rows, see _normalisation), with the few numbers the whole
    forest needs of its rows (see _part_numbers).  With ``draw_from="all"`` X is the
    list of the partition's pool's pieces (see _take), y and sample_weight None."""
    if isinstance(X, list):             # a pool drawn from all partitions
        X, y, sample_weight = _joined(X)
    forest = local(**dict(params, n_estimators=n_trees, random_state=seed))
    if normalisation is not None:
        forest._given_normalisation = normalisation
    with warnings.catch_warnings():
        # (a partition's rows that every one of its few trees drew: counted below)
        warnings.filterwarnings("ignore", "Some inputs do not have OOB scores")
        try:
            forest.fit(X, y, sample_weight=sample_weight)
        finally:
            forest.__dict__.pop("_given_normalisation", None)
    _part_numbers(forest, np.asarray(y), classes)
    return forest if classes is None else _widen(forest, classes)


def _part_numbers(forest, y, classes):
    """The partition's numbers, kept on its forest as ``_part``: its class counts (in
    the global classes' order), or its rows and first target's sum and sum of
    squares; with oob_score, what its out-of-bag predictions add to the forest's score
    (rows scored and right, or per output the rows, sum and sum of squares of the
    targets and the squared errors).  The per-row arrays are dropped: only these
    numbers travel."""
    numbers = {}
    if classes is not None:
        numbers["counts"] = np.bincount(np.searchsorted(classes, y),
                                        minlength=len(classes))
    else:
        first = y.reshape(len(y), -1)[:, 0].astype(np.float64)
        numbers["moments"] = np.array([len(y), first.sum(), (first * first).sum()])
    if getattr(forest, "oob_score", False):
        if classes is not None:
            votes = forest.oob_decision_function_
            seen = ~np.isnan(votes).any(axis=1)
            predicted = forest.classes_.take(np.argmax(votes[seen], axis=1))
            numbers["oob"] = np.array([seen.sum(), (predicted == y[seen]).sum()],
                                      dtype=np.float64)
        else:
            target = y.reshape(len(y), -1).astype(np.float64)
            predicted = forest.oob_prediction_.reshape(len(y), -1)
            seen = ~np.isnan(predicted).any(axis=1)
            t, e = target[seen], target[seen] - predicted[seen]
            numbers["oob"] = np.column_stack([np.full(t.shape[1], len(t)), t.sum(axis=0),
                                              (t * t).sum(axis=0), (e * e).sum(axis=0)])
        for name in ("oob_decision_function_", "oob_prediction_", "oob_score_"):
            forest.__dict__.pop(name, None)
    forest._part = numbers


def _column_numbers(X, y, sample_weight, class_weight, classes):
    """A partition's sums for the normalisation of all the rows (rotation forests): per
    column the weight of its present values (rows of positive weight, times the class
    weights), their weighted mean and sum of squared deviations, least and greatest
    value, and whether some or all of the rows' cells are missing."""
    X = np.asarray(X, dtype=np.float64)
    w = (np.ones(X.shape[0]) if sample_weight is None
         else np.asarray(sample_weight, dtype=np.float64))
    if isinstance(class_weight, dict):
        per_class = np.array([class_weight.get(c, 1.0) for c in classes.tolist()])
        w = w * per_class[np.searchsorted(classes, np.asarray(y))]
    nan = np.isnan(X)
    live = w > 0
    present = ~nan & live[:, None]
    W = (present * w[:, None]).sum(axis=0)
    mean = (present * w[:, None] * np.where(present, X, 0.0)).sum(axis=0) / np.where(
        W > 0, W, 1.0)
    D = np.where(present, X - mean, 0.0)
    return {"W": W, "mean": mean, "M2": (w[:, None] * D * D).sum(axis=0),
            "low": np.where(present, X, np.inf).min(axis=0, initial=np.inf),
            "high": np.where(present, X, -np.inf).max(axis=0, initial=-np.inf),
            "rows": int(live.sum()), "nan_any": nan[live].any(axis=0),
            "nan_all": nan[live].all(axis=0)}


def _normalisation(numbers, scaling, missing):
    """A rotation forest's normalisation of all the rows from its partitions' numbers
    (see _column_numbers): what its local fit computes of the rows it is given
    (_rotate._normalisation, _rotated_features), the sums pooled by partition."""
    W = np.sum([n["W"] for n in numbers], axis=0)
    safe = np.where(W > 0, W, 1.0)
    mean = np.sum([n["W"] * n["mean"] for n in numbers], axis=0) / safe
    M2 = np.sum([n["M2"] + n["W"] * (n["mean"] - mean) ** 2 for n in numbers], axis=0)
    mean, scale, constant = finish_normalisation(
        mean, np.sqrt(M2 / safe), np.min([n["low"] for n in numbers], axis=0),
        np.max([n["high"] for n in numbers], axis=0), scaling)
    live = [n for n in numbers if n["rows"]]
    nan_any = np.any([n["nan_any"] for n in live], axis=0)
    nan_all = np.all([n["nan_all"] for n in live], axis=0)
    keep = ~constant
    if missing == "route":
        keep |= nan_any & ~nan_all
    features = np.flatnonzero(keep)
    return (mean, scale, constant, np.flatnonzero(nan_any),
            features if features.size else np.arange(constant.size))


class _Plan:
    """What every partition's fit shares: the local parameters (class weights made
    global), the trees and seed of each partition, the global classes."""

    def __init__(self, est, rows, classes=None, counts=None):
        params = est._local_params()
        if est.draw_from not in ("partition", "all"):
            raise ValueError(f"draw_from must be 'partition' or 'all', got "
                             f"{est.draw_from!r}")
        self.pooled = est.draw_from == "all"
        if callable(params.get("oob_score")):
            raise ValueError("oob_score on Dask collections is accuracy (R^2 for "
                             "regressors): pass True, not a scorer")
        if params.get("warm_start"):
            raise ValueError("warm_start is not available for a fit on Dask collections")
        if classes is not None and params.get("class_weight") == "balanced":
            # the preset over all partitions, not each partition's own
            params["class_weight"] = dict(zip(
                classes.tolist(), (counts.sum() / (len(classes) * counts)).tolist()))
        self.params = params
        self.classes = classes
        self.shares = tree_shares(rows, int(params["n_estimators"]))
        self.seeds = _partition_seeds(params["random_state"], len(self.shares))
        idle = np.flatnonzero((self.shares == 0) & (np.asarray(rows) > 0))
        if idle.size and not self.pooled:
            warnings.warn(
                f"{idle.size} of {len(rows)} partitions hold less than a tree's share of "
                f"the rows and grow no tree (partition {idle[0]} first): their rows are "
                "not used; use at least as many trees as partitions of equal size, or "
                "fewer, larger partitions", UserWarning)

    def parts(self):
        """(partition, its trees, its seed) of each partition that grows trees."""
        return [(b, int(k), self.seeds[b]) for b, k in enumerate(self.shares) if k > 0]

    def data(self, rows, xs, ys, ws, take=_take):
        """What each partition that grows trees fits on: its rows (X, y, weights), or
        with draw_from="all" its pool's pieces (``take`` of each partition, see
        _pool_counts), then None, None."""
        if not self.pooled:
            return [(xs[b], ys[b], ws[b]) for b, _, _ in self.parts()]
        counts = _pool_counts(rows, self.seeds)
        return [([take(xs[p], ys[p], ws[p], int(c), seed, p)
                  for p, c in enumerate(counts[b]) if c], None, None)
                for b, _, seed in self.parts()]


def _combine(est, plan, fits, n_features, names):
    """The local forest of every partition's trees (the first partition's forest, its
    parameters the estimator's)."""
    forest = fits[0]
    forest.set_params(**est._local_params())
    if hasattr(forest, "rotated_estimators_"):
        forest.rotated_estimators_ = [t for fit in fits for t in fit.rotated_estimators_]
        forest.rotations_ = [r for fit in fits for r in fit.rotations_]
        forest.__dict__.pop("_wrapped", None)
        forest._stack_rotations()
    else:
        forest.estimators_ = [tree for fit in fits for tree in fit.estimators_]
    n_trees = len(forest._trees())
    # each tree drew from its partition's rows: which partition grew it (the in-bag
    # readers refuse such a forest, see forest.estimators_samples_)
    forest._partition_of_tree = np.repeat(
        [b for b, _, _ in plan.parts()], [k for _, k, _ in plan.parts()])
    forest._draw_records = np.full((n_trees, fits[0]._draw_records.shape[1]), -1,
                                   dtype=np.int64)
    if hasattr(forest, "max_bins_"):
        bins = [fit.max_bins_ for fit in fits]
        forest.max_bins_ = bins[0] if all(b == bins[0] for b in bins) else bins
    forest.n_features_in_ = n_features
    if names is not None:
        forest.feature_names_in_ = names
    if plan.classes is not None:
        forest.classes_ = plan.classes
        forest.n_classes_ = len(plan.classes)
    parts = [fit.__dict__.pop("_part") for fit in fits]
    if forest.oob_score:
        forest.oob_score_ = _oob_score([part["oob"] for part in parts])
    _check_spread(parts, [b for b, _, _ in plan.parts()])
    return forest


def _oob_score(numbers):
    """The forest's out-of-bag score from its partitions' numbers: accuracy, or R^2
    (the outputs' mean) over every row some tree of its partition left out."""
    total = np.sum(numbers, axis=0)
    if total.ndim == 1:                       # (rows scored, right)
        if total[0] == 0:
            raise ValueError("oob_score: every tree drew every row of its partition; "
                             "use more rows or trees, or oob_score=False")
        return float(total[1] / total[0])
    n, s, ss, sse = total.T
    return _r2(sse, ss - s * s / n)


def _r2(sse, sst):
    """R^2 from the squared errors and the squared deviations from the mean (per
    output, their mean); a constant target scores 1.0 when predicted exactly, else 0.0,
    as scikit-learn's r2_score."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r2 = np.where(sst > 0, 1.0 - sse / sst, np.where(sse == 0, 1.0, 0.0))
    return float(np.mean(r2))


# partitions whose class shares (target mean) differ from the whole data's by more than
# this many standard errors of a random partition of their size make fit warn
_SPREAD_Z = 6.0


def _check_spread(parts, numbers):
    """Warns when the rows are not spread over the partitions at random: some
    partition's class shares, or target mean, far beyond sampling noise from the whole
    data's (each tree learns its partition's rows only)."""
    if "counts" in parts[0]:
        counts = np.array([part["counts"] for part in parts], dtype=np.float64)
        share = counts.sum(axis=0) / counts.sum()
        n = counts.sum(axis=1, keepdims=True)
        noise = np.sqrt(np.maximum(share * (1 - share), 1e-300) / np.maximum(n, 1))
        z = np.abs(counts / np.maximum(n, 1) - share) / noise
        z[n[:, 0] == 0] = 0.0
    else:
        m = np.array([part["moments"] for part in parts])
        n, s, ss = m.sum(axis=0)
        mean, sd = s / n, np.sqrt(max(ss / n - (s / n) ** 2, 0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.abs(m[:, 1] / m[:, 0] - mean) / (sd / np.sqrt(m[:, 0]))
        z = np.nan_to_num(z, nan=0.0, posinf=0.0)[:, None]
    if z.size and z.max() > _SPREAD_Z:
        where = numbers[int(np.unravel_index(np.argmax(z), z.shape)[0])]
        warnings.warn(
            f"the rows are not spread over the partitions at random: partition {where}'s "
            f"{'class shares' if 'counts' in parts[0] else 'target mean'} differ from the "
            f"whole data's by {z.max():.0f} standard errors of a random partition, and each "
            "tree learns from its own partition's rows only; shuffle the rows across "
            "partitions before fitting, or pass draw_from='all'", UserWarning)


def _is_dask(data):
    return dask.is_dask_collection(data)


def _category_levels(X, categorical_features):
    """A dask dataframe's category columns made global: X with their categories known
    (the union over all partitions, computed when a partition's are not), and
    {column number: its categories}; {} when X has none.  Only with
    categorical_features "from_dtype" (the default)."""
    if not (_is_dask(X) and hasattr(X, "columns")):
        return X, {}
    columns = [c for c in X.columns if getattr(X[c].dtype, "name", None) == "category"]
    if not columns:
        return X, {}
    if not (isinstance(categorical_features, str) and categorical_features == "from_dtype"):
        raise ValueError("a dask dataframe's category columns are read with "
                         "categorical_features='from_dtype' (the default); got "
                         f"{categorical_features!r}")
    unknown = [c for c in columns if not X[c].cat.known]
    if unknown:
        X = X.categorize(columns=unknown)
    levels = {}
    for c in columns:
        categories = X[c].cat.categories
        if len(categories) > MAX_CATEGORIES:
            raise ValueError(f"categorical feature {c!r} has {len(categories)} categories; "
                             f"at most {MAX_CATEGORIES} are supported")
        # (kept as a local fit on pandas keeps them: its _category_maps)
        levels[list(X.columns).index(c)] = _storable(categories)
    return X, levels


def _codes_of(frame, levels):
    """A pandas partition with the category columns numbered in ``levels`` as the
    local estimators code them (_as_codes: NaN for missing or unknown)."""
    return frame.assign(**{frame.columns[j]: _as_codes(frame.iloc[:, j], categories)
                           for j, categories in levels.items()})


def _coded(X, levels):
    """A dask dataframe's category columns (numbers in ``levels``) as float codes of
    those categories, partition by partition."""
    if not levels:
        return X
    meta = X._meta.astype({X.columns[j]: np.float64 for j in levels})
    return X.map_partitions(_codes_of, levels, meta=meta)


def _rows(data, name, ndim):
    """``data`` as a dask array of known row chunks, one chunk across its columns, and
    its column names (a dataframe's; else None)."""
    names = None
    if _is_dask(data) and hasattr(data, "to_dask_array"):       # a dataframe or series
        if hasattr(data, "columns"):
            names = np.asarray(data.columns, dtype=object)
        data = data.to_dask_array(lengths=True)
    if not isinstance(data, da.Array):
        raise TypeError(f"{name} must be a dask array or dataframe (as X is), got "
                        f"{type(data).__name__}")
    if data.ndim not in ndim:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndim))} dimensions, "
                         f"got {data.ndim}")
    if any(np.isnan(c) for c in data.chunks[0]):
        data = data.compute_chunk_sizes()       # (unknown lengths: computed, not refused)
    if data.ndim == 2 and len(data.chunks[1]) > 1:
        data = data.rechunk({1: -1})
    return data, names


def _aligned(data, X, name):
    """``data`` (rows of X) in X's row partitions."""
    if data.shape[0] != X.shape[0]:
        raise ValueError(f"{name} has {data.shape[0]} rows, X has {X.shape[0]}")
    if data.chunks[0] != X.chunks[0]:
        data = data.rechunk({0: X.chunks[0]})
    return data


def _where_held(client, tasks, keys, held):
    """The tasks' results, each task run on the worker that holds its partition
    (``keys``: the partitions' keys in X; ``held``: client.who_has(X)) when the
    partition is held somewhere (persisted data), one task a worker at a time: a worker with a queue of tasks would have
    them stolen by idle workers, which would fetch the partitions (the rows would
    travel).  A task whose partition is held nowhere yet, or whose worker is lost, runs
    where the scheduler puts it."""
    from collections import deque
    from distributed import as_completed
    queues, free = {}, []
    for i, key in enumerate(keys):
        holders = held.get(key, ())
        if holders:
            queues.setdefault(sorted(holders)[0], deque()).append(i)
        else:
            free.append(i)
    where = {}

    def submit(i, worker):
        future = client.compute(tasks[i], workers=None if worker is None else [worker],
                                allow_other_workers=True)
        where[future] = (i, worker)
        return future

    running = as_completed([submit(i, None) for i in free]
                           + [submit(q.popleft(), w) for w, q in queues.items()])
    results = [None] * len(tasks)
    for future in running:
        i, worker = where.pop(future)
        results[i] = future.result()
        if worker is not None and queues[worker]:
            running.add(submit(queues[worker].popleft(), worker))
    return results


def _placed_take(client, held):
    """_take as a future computed on the worker that holds the partition (when held
    somewhere): only the drawn rows then travel, to the worker that fits on them (a
    restriction on the fit's task would bind its whole graph, and the partitions would
    travel whole)."""
    take = dask.delayed(_take, pure=True)

    def placed(x, y, w, count, seed, source):
        holders = sorted(held.get(x.key, ()))
        return client.compute(take(x, y, w, count, seed, source),
                              workers=holders[:1] or None, allow_other_workers=True)
    return placed


def _call(block, forest, method):
    return getattr(forest, method)(block)


class _DaskForest(BaseEstimator):
    """What the Dask forests share: the fit by partitions, to_local, lazy predictions."""

    _local = None           # the local forest class
    _rotation = False       # a rotation forest: normalised over all the rows

    def _local_params(self):
        params = self.get_params(deep=False)
        params.pop("client")
        params.pop("draw_from")
        return params

    def _client(self):
        return self.client if self.client is not None else default_client()

    def fit(self, X, y, sample_weight=None):
        """Fit the forest on Dask collections, each row partition of X growing its
        share of the trees where it is held (see the module's docstring).

        Parameters
        ----------
        X : dask array or dask dataframe of shape (n_samples, n_features)
        y : dask array or dask series of shape (n_samples,) (a regressor's may be
            (n_samples, n_outputs))
        sample_weight : dask array or dask series of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        client = self._client()
        X, levels = _category_levels(X, self.categorical_features)
        X, names = _rows(_coded(X, levels), "X", (2,))
        classifier = isinstance(self, ClassifierMixin)
        y = _aligned(_rows(y, "y", (1,) if classifier else (1, 2))[0], X, "y")
        if sample_weight is not None:
            sample_weight = _aligned(_rows(sample_weight, "sample_weight", (1,))[0], X,
                                     "sample_weight")
        classes = counts = None
        if classifier:
            classes, counts = client.compute(da.unique(y, return_counts=True),
                                             sync=True)
        plan = _Plan(self, X.chunks[0], classes, counts)
        if levels:              # (the partitions' forests read the codes)
            plan.params["categorical_features"] = sorted(levels)
        xs, ys = X.to_delayed().ravel(), y.to_delayed().ravel()
        ws = (sample_weight.to_delayed().ravel() if sample_weight is not None
              else [None] * len(xs))
        held = client.who_has(X)        # (persisted partitions: where they are)
        normalisation = None
        if self._rotation:
            numbers = dask.delayed(_column_numbers, pure=True)
            cw = plan.params.get("class_weight")
            normalisation = _normalisation(
                _where_held(client, [numbers(xs[b], ys[b], ws[b], cw, classes)
                                     for b in range(len(xs))],
                            [x.key for x in xs], held),
                self.scaling, self.missing)
        task = dask.delayed(_fit_part, pure=True)
        data = plan.data(X.chunks[0], xs, ys, ws, _placed_take(client, held))
        tasks = [task(self._local, plan.params, *data[i], k, seed, classes,
                      normalisation)
                 for i, (b, k, seed) in enumerate(plan.parts())]
        fits = _where_held(client, tasks, [xs[b].key for b, _, _ in plan.parts()], held)
        forest = _combine(self, plan, fits, X.shape[1], names)
        if levels:              # a DataFrame's categories, as a local fit keeps them
            forest._category_maps = levels
        self._forest_ = forest
        self._set_fitted()
        return self

    def _set_fitted(self):
        forest = self._forest_
        for name in ("classes_", "n_classes_", "n_outputs_", "n_features_in_",
                     "feature_names_in_", "estimators_", "max_bins_", "oob_score_"):
            if hasattr(forest, name):
                setattr(self, name, getattr(forest, name))
            else:                       # (not left from an earlier fit)
                self.__dict__.pop(name, None)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "_forest_")

    def to_local(self):
        """The fitted forest as an ordinary rotforest estimator.

        Returns
        -------
        forest : estimator
            A copy of the fitted local forest (every partition's trees).
        """
        self._check_fitted()
        return copy.deepcopy(self._forest_)

    def _check_fitted(self):
        from sklearn.utils.validation import check_is_fitted
        check_is_fitted(self)

    @property
    def feature_importances_(self):
        self._check_fitted()
        return self._forest_.feature_importances_

    def _lazy(self, X, method, width=None, dtype=np.float64):
        """The local forest's ``method`` on X: at once for numpy data, a lazy dask array
        for a Dask collection (``width`` columns, or 1-D when None)."""
        self._check_fitted()
        forest = self._forest_
        if not _is_dask(X):
            return getattr(forest, method)(X)
        maps = getattr(forest, "_category_maps", None)
        if maps and hasattr(X, "columns"):
            X = _coded(X, maps)
        X, names = _rows(X, "X", (2,))
        fitted = getattr(forest, "feature_names_in_", None)
        if names is not None and fitted is not None and not np.array_equal(names, fitted):
            raise ValueError("X's columns are not the feature names seen in fit")
        if fitted is not None:          # (the blocks are arrays: checked above)
            forest = copy.copy(forest)
            del forest.feature_names_in_
        ref = dask.delayed(forest, pure=True)       # one key: each worker fetches it once
        # (meta given: dask would otherwise call the method on an empty block with the
        # forest still a Delayed)
        if width is None:
            return X.map_blocks(_call, ref, method, dtype=dtype, drop_axis=1,
                                meta=np.empty((0,), dtype=dtype))
        return X.map_blocks(_call, ref, method, dtype=dtype,
                            chunks=(X.chunks[0], (width,)),
                            meta=np.empty((0, 0), dtype=dtype))

    def apply(self, X):
        """Each tree's leaf for each row.

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        leaves : dask array or ndarray of shape (n_samples, n_estimators)
            Lazy for a Dask X, computed at once otherwise.
        """
        self._check_fitted()
        return self._lazy(X, "apply", len(self._forest_.estimators_), np.intp)


def _weighted_mean(values, sample_weight):
    """The (weighted) mean of a dask array, computed."""
    if sample_weight is None:
        return float(values.mean().compute())
    w = _aligned(_rows(sample_weight, "sample_weight", (1,))[0], values, "sample_weight")
    return float(((values * w).sum() / w.sum()).compute())


class _DaskClassifier(ClassifierMixin, _DaskForest):

    def score(self, X, y, sample_weight=None):
        """Accuracy on (X, y); on Dask collections computed where the rows are."""
        if not _is_dask(X):
            return super().score(X, y, sample_weight)
        predicted = self.predict(X)
        y = _aligned(_rows(y, "y", (1,))[0], predicted, "y")
        return _weighted_mean((predicted == y).astype(np.float64), sample_weight)

    def predict_proba(self, X):
        """Class probabilities: the mean of the trees'.

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        proba : dask array or ndarray of shape (n_samples, n_classes)
            Lazy for a Dask X, computed at once otherwise.
        """
        self._check_fitted()
        return self._lazy(X, "predict_proba", len(self.classes_))

    def predict(self, X):
        """Predicted classes: those of the highest mean probability.

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        y : dask array or ndarray of shape (n_samples,)
            Lazy for a Dask X, computed at once otherwise.
        """
        self._check_fitted()
        return self._lazy(X, "predict", None, self.classes_.dtype)


class _DaskRegressor(RegressorMixin, _DaskForest):

    def score(self, X, y, sample_weight=None):
        """R^2 on (X, y) (several outputs: their mean); on Dask collections computed
        where the rows are."""
        if not _is_dask(X):
            return super().score(X, y, sample_weight)
        predicted = self.predict(X)
        y = _aligned(_rows(y, "y", (1, 2))[0], predicted, "y").astype(np.float64)
        y = y.reshape(y.shape[0], -1)
        predicted = predicted.reshape(predicted.shape[0], -1)
        w = (da.ones(y.shape[0], chunks=(y.chunks[0],)) if sample_weight is None else
             _aligned(_rows(sample_weight, "sample_weight", (1,))[0], y, "sample_weight"))
        w = w[:, None]
        mean = (w * y).sum(axis=0) / w.sum()
        sse = (w * (y - predicted) ** 2).sum(axis=0)
        sst = (w * (y - mean) ** 2).sum(axis=0)
        return _r2(*dask.compute(sse, sst))

    def predict(self, X):
        """Predicted targets: the mean of the trees'.

        Parameters
        ----------
        X : dask array, dask dataframe or array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        y : dask array or ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Lazy for a Dask X, computed at once otherwise.
        """
        self._check_fitted()
        outputs = self._forest_.n_outputs_
        return self._lazy(X, "predict", None if outputs == 1 else outputs)


def _dask_class(base, local):
    name = local.__name__
    return type(name, (base,), {
        "__init__": derived_init(local, added=(("client", None),
                                               ("draw_from", "partition"))),
        "_local": local,
        "_rotation": name.startswith("Rotation"),
        "__module__": __name__,
        "__doc__": _docstring(local),
    })


_ADDED = """client : distributed.Client, default=None
    The client of the cluster to fit on (None: the current one).
draw_from : {"partition", "all"}, default="partition"
    Where a partition's trees draw their rows from. "partition": its own rows,
    which never move. "all": a pool of as many rows as the partition holds, drawn
    at random without replacement from all the partitions and sent to the worker
    that holds the partition (trees then draw from the pool as from a partition's
    rows), for rows partitioned non-randomly (sorted by time or by class). Its
    cost: about (P - 1) / P of the data crosses the network for P partitions, and
    each worker holds its pools beside its partitions.
"""

_ATTRIBUTES = """classes_ : ndarray of shape (n_classes,)
    The classes over all partitions (classifiers).
n_outputs_ : int
    The number of outputs.
n_features_in_ : int
    The number of features seen in fit.
feature_names_in_ : ndarray of shape (n_features,)
    A dataframe's column names (only when X had them).
estimators_ : list
    The trees of every partition, as the local forest's ``estimators_``.
feature_importances_ : ndarray of shape (n_features,)
    The local forest's impurity-based importances.
oob_score_ : float
    With ``oob_score=True``: accuracy (classifiers) or R^2 over every row some tree
    of its partition left out.
"""


def _docstring(local):
    """A Dask forest's docstring: what it is, the local forest's parameters and
    ``client`` and ``draw_from``, its fitted attributes."""
    name = local.__name__
    params = _sections(local.__doc__)["Parameters"].strip("\n") + "\n" + _ADDED
    return "\n".join([
        f"{name} fitted on Dask collections, each row partition growing its share "
        "of the trees where it is held.",
        "",
        f"The parameters are :class:`rotforest.{name}`'s, and ``client`` and "
        "``draw_from``; see :mod:`rotforest.dask` and the scaling-out guide. "
        "``to_local()`` gives the fitted forest as an ordinary local estimator.",
        "",
        "Parameters", "----------", params.rstrip("\n"), "",
        "Attributes", "----------", _ATTRIBUTES.rstrip("\n"), ""])


RandomForestClassifier = _dask_class(_DaskClassifier, _forest.RandomForestClassifier)
RandomForestRegressor = _dask_class(_DaskRegressor, _forest.RandomForestRegressor)
ExtraTreesClassifier = _dask_class(_DaskClassifier, _extra.ExtraTreesClassifier)
ExtraTreesRegressor = _dask_class(_DaskRegressor, _extra.ExtraTreesRegressor)
RotationForestClassifier = _dask_class(_DaskClassifier, _rotation.RotationForestClassifier)
RotationForestRegressor = _dask_class(_DaskRegressor, _rotation.RotationForestRegressor)


def fit_partitions(estimator, X_parts, y_parts, sample_weight_parts=None):
    """The forest that ``estimator.fit`` fits on Dask collections of these partitions.

    Computed here from numpy arrays, one per row partition in order: the same trees,
    the same seeds (the tests' reference for the cluster's fit).

    Parameters
    ----------
    estimator : one of rotforest.dask's forests
        Its parameters are used; it is not changed.
    X_parts : list of array-like of shape (n_rows_b, n_features)
        Each partition's rows.
    y_parts : list of array-like of shape (n_rows_b,) or (n_rows_b, n_outputs)
        Each partition's targets.
    sample_weight_parts : list of array-like of shape (n_rows_b,), default=None
        Each partition's sample weights.

    Returns
    -------
    forest : estimator
        The fitted local forest, as ``estimator.fit(...).to_local()`` would give it.
    """
    if not isinstance(estimator, _DaskForest):
        raise TypeError("estimator must be one of rotforest.dask's forests")
    X_parts = [np.asarray(x) for x in X_parts]
    y_parts = [np.asarray(y) for y in y_parts]
    if len(X_parts) != len(y_parts) or any(len(x) != len(y)
                                           for x, y in zip(X_parts, y_parts)):
        raise ValueError("X_parts and y_parts must hold the same partitions")
    w_parts = (list(sample_weight_parts) if sample_weight_parts is not None
               else [None] * len(X_parts))
    classes = counts = None
    if isinstance(estimator, ClassifierMixin):
        classes, counts = np.unique(np.concatenate(y_parts), return_counts=True)
    plan = _Plan(estimator, [len(x) for x in X_parts], classes, counts)
    normalisation = None
    if estimator._rotation:
        cw = plan.params.get("class_weight")
        normalisation = _normalisation(
            [_column_numbers(X_parts[b], y_parts[b], w_parts[b], cw, classes)
             for b in range(len(X_parts))], estimator.scaling, estimator.missing)
    data = plan.data([len(x) for x in X_parts], X_parts, y_parts, w_parts)
    fits = [_fit_part(estimator._local, plan.params, *data[i], k, seed, classes,
                      normalisation) for i, (b, k, seed) in enumerate(plan.parts())]
    return _combine(estimator, plan, fits, X_parts[0].shape[1], None)
