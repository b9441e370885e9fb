"""Exact SHAP values of every rotforest estimator, in the original features.

``explain(estimator, X)`` computes path-dependent tree SHAP values (shap's
``feature_perturbation="tree_path_dependent"``): the game ``v(S)`` follows the explained
row's side at every node whose test reads only features in ``S`` and averages the two
sides by their training cover elsewhere.  ``explain(estimator, X, background=B)``
computes interventional SHAP values: ``v(S)`` is the mean over the rows ``b`` of ``B``
of the model's output on the row made of ``x``'s values on ``S`` and ``b``'s elsewhere.

Both are exact (no sampling) for every estimator, rotation forests included: their trees
split on axes that mix a few original features, and a node there reads all the features
of its axis.  In the path-dependent game such a node is followed when every feature it
reads is known; the interventional game needs no convention at all.  See
``_explain.pyx`` for the algorithm, and the user guide for what the values mean.
"""
import dataclasses
import numbers
import weakref

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from scipy.sparse.csgraph import connected_components

from rotforest import _explain
from rotforest._inputs import predict_input
from rotforest._kinds import fitted_kind, reads_mean
from rotforest._parallel import column_ranges_in_threads

__all__ = ["Explanation", "explain"]

_RAW, _AXIS_ROUTE, _AXIS_IMPUTE, _INDICATOR, _CODE = range(5)


@dataclasses.dataclass(eq=False, repr=False)
class Explanation:
    """SHAP values of a batch of rows, with what is needed to read them.

    Made by :func:`explain`; the parameters become the attributes of the same names.

    Parameters
    ----------
    values : ndarray
        See the attributes.
    base_values : ndarray
        See the attributes.
    data : ndarray
        See the attributes.
    feature_names : list of str
        See the attributes.
    output_names : list or None
        See the attributes.
    feature_perturbation : str
        See the attributes.

    Attributes
    ----------
    values : ndarray of shape (n_samples, n_features) or (n_samples, n_features, n_classes)
        Each feature's contribution to each row's output: ``predict`` for regressors,
        ``predict_proba`` (one column per class of ``classes_``) for classifiers.
    base_values : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The output with no feature known; ``values.sum(axis=1) + base_values`` is the
        model's output on every row.
    data : ndarray of shape (n_samples, n_features)
        The rows explained, as the model reads them (float64; categorical columns of a
        DataFrame as their codes).
    feature_names : list of str
        ``feature_names_in_`` of the estimator, else ``x0``, ``x1``, ...
    output_names : list or None
        The classes (the last axis of ``values``) for a classifier; None for a regressor.
    feature_perturbation : {"tree_path_dependent", "interventional"}
        Which game the values are of.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from rotforest import DecisionTreeClassifier, explain
    >>> X, y = load_iris(return_X_y=True)
    >>> ex = explain(DecisionTreeClassifier(max_depth=2).fit(X, y), X[:3])
    >>> ex.values.shape, ex.base_values.shape, ex.output_names
    ((3, 4, 3), (3, 3), [0, 1, 2])
    """

    values: np.ndarray
    base_values: np.ndarray
    data: np.ndarray
    feature_names: list
    output_names: object
    feature_perturbation: str

    @property
    def shape(self):
        """The shape of ``values``.

        Returns
        -------
        shape : tuple of int
        """
        return self.values.shape

    def __len__(self):
        return self.values.shape[0]

    def __repr__(self):
        return (f"Explanation({self.feature_perturbation}, values of shape "
                f"{self.values.shape})")

    def to_shap(self):
        """The same values as a ``shap.Explanation``, for shap's plots (needs shap).

        Returns
        -------
        explanation : shap.Explanation
        """
        try:
            import shap
        except ImportError as exc:      # pragma: no cover - depends on the environment
            raise ImportError("to_shap needs shap: pip install \"rotforest[shap]\"") from exc
        output_names = (None if self.output_names is None
                        else [str(name) for name in self.output_names])
        return shap.Explanation(values=self.values, base_values=self.base_values,
                                data=self.data, feature_names=list(self.feature_names),
                                output_names=output_names)


# ----------------------------------------------------------------------------------------
# What the kernels need to know of a tree
# ----------------------------------------------------------------------------------------

class _TreeSpec:
    """One tree as the kernels see it: its nodes, the blocks of original features that its
    tests read, and how each test value is made from them (see _explain.pyx)."""

    def __init__(self, tree, n_features, columns, kinds):
        """``columns[c]``: (features, weights) that the tree's input column ``c`` reads;
        ``kinds[c]``: how they make its value (_RAW, _AXIS_ROUTE, ...)."""
        nodes = tree.nodes
        inner = np.flatnonzero(nodes["left_child"] != -1)
        node_col = nodes["feature"][inner].astype(np.int64)
        used = np.unique(node_col)
        # blocks: connected components of the features that the used columns read (each
        # feature alone in an axis-aligned tree)
        if all(columns[c][0].size == 1 for c in used):
            pairs_f = np.array([columns[c][0][0] for c in used], dtype=np.int64)
            label = np.arange(n_features)
        else:
            pairs_c = np.concatenate([np.full(columns[c][0].size, c) for c in used])
            pairs_f = np.concatenate([columns[c][0] for c in used]).astype(np.int64)
            incidence = sp.csr_matrix((np.ones(pairs_c.size), (pairs_c, pairs_f)),
                                      shape=(len(columns), n_features))
            _, label = connected_components((incidence.T @ incidence).tocsr(),
                                            directed=False)
        members = np.unique(pairs_f)
        lab = label[members]
        order = np.lexsort((members, lab))
        bfeat, lab = members[order], lab[order]
        _, bstart, bsize = np.unique(lab, return_index=True, return_counts=True)
        block_of = np.full(n_features, -1, dtype=np.int64)
        local = np.zeros(n_features, dtype=np.int64)
        block_of[bfeat] = np.repeat(np.arange(bsize.size), bsize)
        local[bfeat] = np.arange(bfeat.size) - np.repeat(bstart, bsize)
        self.max_bsize = int(bsize.max()) if bsize.size else 1
        if self.max_bsize > _explain.MAX_BLOCK:
            raise ValueError(
                f"a tree of this model has splits that together read {self.max_bsize} "
                f"linked features; explain supports at most {_explain.MAX_BLOCK} (a "
                "rotation forest's group_size)")
        # every used column's entries, then every node's (its column's), vectorised
        col_pos = np.full(len(columns), -1, dtype=np.int64)
        col_pos[used] = np.arange(used.size)
        c_feats = [columns[c][0] for c in used]
        c_len = np.array([f.size for f in c_feats], dtype=np.int64)
        c_start = np.concatenate([[0], np.cumsum(c_len)])
        c_efeat = np.concatenate(c_feats) if used.size else np.zeros(0, dtype=np.int64)
        c_ew = (np.concatenate([columns[c][1] for c in used]) if used.size
                else np.zeros(0))
        c_emean = (np.concatenate([columns[c][2] for c in used]) if used.size
                   else np.zeros(0))
        c_ebit = (np.uint32(1) << local[c_efeat].astype(np.uint32)).astype(np.uint32)
        c_mask = (np.bitwise_or.reduceat(c_ebit, c_start[:-1]) if used.size
                  else np.zeros(0, dtype=np.uint32))
        c_block = block_of[c_efeat[c_start[:-1]]] if used.size else np.zeros(0, np.int64)
        c_kind = np.asarray(kinds, dtype=np.int32)[used] if used.size else np.zeros(0)
        n = nodes.shape[0]
        pos = col_pos[node_col]
        block = np.full(n, -1, dtype=np.int32)
        mask = np.zeros(n, dtype=np.uint32)
        kind = np.zeros(n, dtype=np.int32)
        counts = np.zeros(n, dtype=np.int64)
        block[inner] = c_block[pos]
        mask[inner] = c_mask[pos]
        kind[inner] = c_kind[pos]
        counts[inner] = c_len[pos]
        lengths = c_len[pos]
        total = int(lengths.sum())
        node_first = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        take = (np.repeat(c_start[pos] - node_first, lengths)
                + np.arange(total, dtype=np.int64))
        efeat, ebit, ew, emean = ([c_efeat[take]], [c_ebit[take]], [c_ew[take]],
                                  [c_emean[take]])
        self.nodes = nodes
        self.value = np.ascontiguousarray(tree.value[:, 0, :])
        self.codes = tree.code_sets             # one set per categorical split
        self.code_at = tree.code_at             # every node's set there (-1: none)
        self.block = block
        self.mask = mask
        self.bsize = np.asarray(bsize, dtype=np.int32)
        self.bstart = np.asarray(bstart, dtype=np.int32)
        self.bfeat = np.asarray(bfeat, dtype=np.int32)
        self.max_depth = int(tree.max_depth)
        self.kind = kind
        self.estart = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        cat = (lambda parts, dtype: np.concatenate(parts).astype(dtype) if parts
               else np.zeros(0, dtype=dtype))
        self.efeat = cat(efeat, np.int32)
        self.ebit = cat(ebit, np.uint32)
        self.ew = cat(ew, np.float64)
        self.emean = cat(emean, np.float64)
        self.degree = _explain.path_degree(nodes, block, self.bsize)

    def common(self):
        return (self.nodes, self.value, self.codes, self.code_at, self.block, self.mask,
                self.bsize, self.bstart, self.bfeat, self.max_bsize, self.max_depth)


def _plain_columns(n_features):
    one, zero = np.ones(1), np.zeros(1)
    return [(np.array([j]), one, zero) for j in range(n_features)], [_RAW] * n_features


def _rotation_columns(est, rotation):
    """The columns a rotation forest's tree reads: its axes, then the indicator and the
    category columns (see rotation._Rotated)."""
    R = rotation.tocsc()
    axis = _AXIS_ROUTE if est._missing_fitted == "route" else _AXIS_IMPUTE
    columns, kinds = [], []
    for c in range(R.shape[1]):
        lo, hi = R.indptr[c], R.indptr[c + 1]
        columns.append((R.indices[lo:hi].astype(np.int64), R.data[lo:hi].astype(np.float64),
                        np.zeros(hi - lo)))
        kinds.append(axis)
    indicators, codes = est._projector().extra_features()
    for f in indicators:
        columns.append((np.array([f]), np.ones(1), np.zeros(1)))
        kinds.append(_INDICATOR)
    for f in codes:
        columns.append((np.array([f]), np.array([est.scale_[f]]), np.array([est.mean_[f]])))
        kinds.append(_CODE)
    return columns, kinds


def _family(estimator):
    """("tree" | "forest" | "rotation", the fitted trees)."""
    family = fitted_kind(estimator, "explain takes")
    return family, [estimator] if family == "tree" else list(estimator._trees())


# what the kernels need of each fitted tree, kept while the tree lives (a fitted tree's
# nodes, and a rotation forest's rotation of it, never change)
_SPECS = weakref.WeakKeyDictionary()


def _specs(estimator, family, trees):
    n_features = estimator.n_features_in_
    out = []
    columns = kinds = None
    rotations = estimator.rotations_ if family == "rotation" else [None] * len(trees)
    for tree, rotation in zip(trees, rotations):
        spec = _SPECS.get(tree.tree_)
        if spec is None:
            if family == "rotation":
                spec = _TreeSpec(tree.tree_, n_features,
                                 *_rotation_columns(estimator, rotation))
            else:
                if columns is None:
                    columns, kinds = _plain_columns(n_features)
                spec = _TreeSpec(tree.tree_, n_features, columns, kinds)
            _SPECS[tree.tree_] = spec
        out.append(spec)
    return out


def _rule(specs):
    """The largest degree of the trees' polynomials, and a Gauss-Legendre rule on [0, 1]
    exact for them (points, weights)."""
    degree = max(spec.degree for spec in specs)
    x, w = np.polynomial.legendre.leggauss(max(1, (degree + 1) // 2))
    return degree, np.ascontiguousarray((x + 1.0) / 2.0), np.ascontiguousarray(w / 2.0)


# node visits below which threads cost more than they save (the GIL passes between
# the kernel calls of each thread)
_THREADED_VISITS = 2_000_000


def _in_threads(work, n_rows, n_jobs, visits):
    """work(rows) for blocks of rows, in up to n_jobs threads (each row's result does not
    depend on the blocks); ``visits``: about how many node visits the whole job makes."""
    n_threads = 1 if visits < _THREADED_VISITS else effective_n_jobs(n_jobs)
    column_ranges_in_threads(lambda a, b: work(slice(a, b)), n_rows, n_threads)


def _model_inputs(estimator, family, data):
    """Per-feature values and missing flags of checked rows, as the kernels mix them."""
    if family == "rotation":
        Z, mask = estimator._normalise_checked(data)
        Z = np.ascontiguousarray(Z)
        missing = (np.zeros(Z.shape, dtype=np.uint8) if mask is None
                   else np.ascontiguousarray(mask, dtype=np.uint8))
        return Z, missing
    return np.ascontiguousarray(data), np.ascontiguousarray(np.isnan(data), dtype=np.uint8)


def _checked_background(estimator, background):
    """The background rows as the model reads them; clear errors for none or the wrong
    width."""
    shape = np.shape(background)
    if len(shape) == 2 and shape[0] == 0:
        raise ValueError("background has no rows: pass reference rows (say 100 drawn from "
                         "the training data), or None for path-dependent values")
    try:
        return predict_input(estimator, background, dense=True)
    except ValueError as exc:
        raise ValueError(f"background: {exc}") from exc


def _outputs(estimator, X, mean=False):
    if hasattr(estimator, "predict_proba"):
        return estimator.predict_proba(X)
    if mean:                    # a quantile forest's mean (see explain's output)
        return estimator.predict(X, quantiles="mean")[:, None]
    return estimator.predict(X)[:, None]


def explain(estimator, X, *, background=None, n_jobs=None, output=None):
    """Exact SHAP values of a fitted rotforest estimator, in its original features.

    Classifiers are explained on ``predict_proba``, regressors on ``predict``.  Without
    ``background``, path-dependent tree SHAP (shap's ``tree_path_dependent``), weighted
    by each node's training cover; with it, interventional SHAP against those rows.
    Missing values and categorical features are routed as the trees route them.  For a
    rotation forest the values are of the original features: a node of its trees reads
    every feature its axis mixes (see the user guide, *Explaining and deploying models*).

    Parameters
    ----------
    estimator : fitted rotforest estimator
        Any of rotforest's estimators: DecisionTree*, ExtraTree*, RandomForest*,
        ExtraTrees*, RotationForest*.
    X : array-like or DataFrame of shape (n_samples, n_features)
        The rows to explain.
    background : array-like or DataFrame of shape (n_background, n_features), default=None
        Reference rows for interventional values (say 100 rows drawn from the training
        data; the cost grows with their number).  None: path-dependent values.
    n_jobs : int, default=None
        Threads over the rows (None: 1 unless in a joblib ``parallel_config`` context;
        -1: all cores).  The values do not depend on it.
    output : {None, "mean"}, default=None
        What to explain.  None (the only value for every estimator but the quantile
        forests): ``predict_proba`` or ``predict``.  A quantile forest's ``predict``
        gives quantiles (the median by default), which tree SHAP cannot explain, so it
        is refused without ``output="mean"``; with it, the values and ``base_values``
        explain the forest's mean, ``predict(X, quantiles="mean")``.

    Returns
    -------
    explanation : Explanation
        ``values`` of shape (n_samples, n_features) for a regressor and (n_samples,
        n_features, n_classes) for a classifier, ``base_values``, ``data``,
        ``feature_names``, ``output_names``; ``to_shap()`` gives a ``shap.Explanation``.
        ``values.sum(axis=1) + base_values`` equals the model's output.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from rotforest import RandomForestRegressor, explain
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> ex = explain(forest, X[:5])
    >>> ex.values.shape
    (5, 10)
    >>> bool(abs(ex.values.sum(axis=1) + ex.base_values - forest.predict(X[:5])).max() < 1e-9)
    True
    """
    family, trees = _family(estimator)
    mean = reads_mean(estimator, output, "explain", "tree SHAP cannot explain them")
    if n_jobs is not None and (not isinstance(n_jobs, numbers.Integral)
                               or isinstance(n_jobs, bool)):
        raise TypeError(f"n_jobs must be an integer or None; got {n_jobs!r}")
    if n_jobs == 0:
        raise ValueError("n_jobs must not be 0: a positive number of threads, or -1 for "
                         "all cores")
    data = np.asarray(predict_input(estimator, X, dense=True), dtype=np.float64)
    n, n_features = data.shape
    classifier = hasattr(estimator, "classes_")
    K = len(estimator.classes_) if classifier else 1
    specs = _specs(estimator, family, trees)
    phi = np.zeros((n, n_features, K))
    if background is None:
        perturbation = "tree_path_dependent"
        _path_dependent(estimator, family, specs, data, phi, n_jobs)
        base = np.mean([_explain.expected_value(s.nodes, s.value) for s in specs], axis=0)
        base = np.tile(base, (n, 1))
    else:
        perturbation = "interventional"
        _interventional(estimator, family, specs, data,
                        _checked_background(estimator, background), phi, n_jobs)
        base = np.tile(_outputs(estimator, background, mean).mean(axis=0), (n, 1))
    phi /= len(specs)
    names = getattr(estimator, "feature_names_in_", None)
    names = ([str(v) for v in names] if names is not None
             else [f"x{j}" for j in range(n_features)])
    if classifier:
        return Explanation(phi, base, data, names, estimator.classes_.tolist(), perturbation)
    return Explanation(phi[:, :, 0], base[:, 0], data, names, None, perturbation)


def _path_dependent(estimator, family, specs, data, phi, n_jobs):
    _, tq, wq = _rule(specs)
    if family == "rotation":
        Z, mask = estimator._normalise_checked(data)
        project = estimator._projector()

        def work(rows):
            M = None if mask is None else mask[rows]
            for spec, rotation in zip(specs, estimator.rotations_):
                P = np.ascontiguousarray(project(rotation, Z[rows], M))
                _explain.path_dependent(*spec.common(), P, phi[rows], tq, wq)
    else:
        data = np.ascontiguousarray(data)

        def work(rows):
            for spec in specs:
                _explain.path_dependent(*spec.common(), data[rows], phi[rows], tq, wq)

    visits = phi.shape[0] * sum(spec.nodes.shape[0] for spec in specs)
    _in_threads(work, phi.shape[0], n_jobs, visits)


def _interventional(estimator, family, specs, data, background, phi, n_jobs):
    zx, mx = _model_inputs(estimator, family, data)
    zb, mb = _model_inputs(estimator, family, background)
    degree, tq, wq = _rule(specs)
    beta = _explain.beta_table(degree + 1)
    n_background = zb.shape[0]

    def work(rows):
        for spec in specs:
            _explain.interventional(*spec.common(), spec.kind, spec.estart, spec.efeat,
                                    spec.ebit, spec.ew, spec.emean, zx[rows], mx[rows],
                                    zb, mb, phi[rows], beta, tq, wq)

    # a walk per pair follows about a root-to-leaf path or two
    visits = phi.shape[0] * n_background * sum(2 * spec.max_depth + 1 for spec in specs)
    _in_threads(work, phi.shape[0], n_jobs, visits)
    phi /= n_background
