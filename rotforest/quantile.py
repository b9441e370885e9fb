"""Quantile regression forests (Meinshausen, 2006) on rotforest's regression forests:
RandomForestQuantileRegressor, RotationForestQuantileRegressor and
ExtraTreesQuantileRegressor.  The forest is fitted as its base class fits it; then each
tree keeps the training rows of each of its leaves (compact lists, see _LeafLists), and
predict returns weighted quantiles of the training targets (kernels in _quantile.pyx).

The weight of training row i at x is the mean over the trees of w_ti 1[i in leaf_t(x)] /
(sum of w_tj over that leaf), with w_ti the weight that tree t was grown with: its
bootstrap count times the sample weight (the count alone where a random forest drew its
rows by weight; the sample weight alone without bootstrap).  The weighted quantile treats
these weights as copies of the targets, in units that make a one-tree forest's count c a
row's c copies (see predict), so that a one-tree forest without bootstrap returns
exactly numpy's quantiles of each leaf's targets."""
import hashlib
import inspect
import textwrap
import warnings

import numpy as np
from joblib import effective_n_jobs
from scipy.sparse import csr_matrix, issparse
from sklearn.exceptions import DataConversionWarning
from sklearn.metrics import d2_pinball_score, r2_score
from sklearn.utils.validation import check_is_fitted

from rotforest import _quantile
from rotforest._docs import _sections, derived_init, with_defaults
from rotforest._ensemble import draw_records
from rotforest._inputs import predict_input
from rotforest._quantile_leaves import (clipped_values, resolve_max_samples_leaf,
                                        subsample_leaves)
from rotforest._quantile_readers import _QuantileReaders, warn_without_oob
from rotforest._parallel import _in_workers
from rotforest._validation import check_bool
from rotforest.extra import ExtraTreesRegressor
from rotforest.forest import RandomForestRegressor, _draw_tree, draw_probabilities
from rotforest.rotation import _BATCH_CELLS, RotationForestRegressor, _BaseRotationForest

__all__ = ["RandomForestQuantileRegressor", "RotationForestQuantileRegressor",
           "ExtraTreesQuantileRegressor"]

_METHODS = tuple(_quantile.METHODS)
_MEAN = 5                       # the kernel's weighted mean (out-of-bag "mean")
# rows predicted per task (threads over rows): bounds the leaves held at once
_ROWS_PER_TASK = 2048
# the fit keeps the training rows' leaves for its out-of-bag scores up to this many
# (rows x trees, 8 bytes each); beyond, they are found again
_KEEP_LEAVES = 1 << 22


def _check_quantiles(quantiles, name="quantiles"):
    """``"mean"``, or the quantiles as a 1-D float array and whether one was given as a
    scalar (or a list of one: predict then returns one column, as quantile-forest)."""
    what = f'{name} must be a float in [0, 1], a 1-D list of them, or "mean"'
    if isinstance(quantiles, str):
        if quantiles == "mean":
            return "mean", True
        raise ValueError(f"{what}; got {quantiles!r}")
    if isinstance(quantiles, (bool, np.bool_)) or quantiles is None:
        raise TypeError(f"{what}; got {quantiles!r}")
    try:
        with warnings.catch_warnings():     # (numpy < 1.24 warns of ragged lists)
            warnings.simplefilter("ignore")
            arr = np.asarray(quantiles)
    except (ValueError, TypeError):          # ragged lists
        raise ValueError(f"{what}; got {quantiles!r}") from None
    if arr.dtype == object and any(np.ndim(v) > 0 for v in arr.ravel()):
        # (numpy < 1.24 makes an object array of a ragged list instead of refusing it)
        raise ValueError(f"{what}; got {quantiles!r}")
    if arr.dtype.kind not in "iuf":
        if arr.dtype.kind == "b":
            raise TypeError(f"{what}; got booleans {quantiles!r}")
        raise TypeError(f"{what}; got {quantiles!r}")
    if arr.ndim > 1:
        raise ValueError(f"{what}; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{what}; got an empty list")
    arr = arr.astype(np.float64).ravel()
    if np.isnan(arr).any():
        raise ValueError(f"{what}; got NaN in {quantiles!r}")
    if np.any((arr < 0) | (arr > 1)):
        raise ValueError(f"{what}; got {quantiles!r}, outside [0, 1]")
    return arr, arr.size == 1


def _ranked(values):
    """The order that sorts ``values`` (stable) and each value's rank (int32)."""
    order = np.argsort(values, kind="stable")
    rank = np.empty(values.size, dtype=np.int32)
    rank[order] = np.arange(values.size, dtype=np.int32)
    return order, rank


def _reordered(lists, order, y, sw):
    """The leaf lists ``lists`` (of the first output, whose rank order is ``order``)
    for another output's targets ``y``: the same rows and multiplicities in each leaf,
    named and sorted by this output's ranks (``sw``: the weights, or None)."""
    o, rank = _ranked(y)
    rows = rank[order[lists.rows]]
    sizes = np.diff(lists.offsets[:-1])
    sizes[sizes < 0] = 0                      # (between trees: one offset ends, 0 begins)
    node = np.repeat(np.arange(sizes.size), sizes)
    perm = np.lexsort((rows, node))
    return lists.replaced(
        rows=np.ascontiguousarray(rows[perm]),
        counts=None if lists.counts is None else np.ascontiguousarray(lists.counts[perm]),
        ys=np.ascontiguousarray(y[o]), rank=rank,
        sw=None if sw is None or np.all(sw == sw[0]) else np.ascontiguousarray(sw[o]))


def _check_interpolation(interpolation):
    if not isinstance(interpolation, str) or interpolation not in _METHODS:
        raise ValueError(f"interpolation must be one of {', '.join(map(repr, _METHODS))} "
                         f"(numpy's quantile methods); got {interpolation!r}")
    return _quantile.METHODS[interpolation]


def _fingerprint(X, sparse=None):
    """A digest of the rows as predict_input converts them: how predict knows that X is
    the training data (for out-of-bag predictions) without keeping it.  ``sparse``: the
    digest of X's canonical CSR form ("csr:" ahead; a sparse fit's), or of its dense
    form; by default as X comes, so that the training rows are recognised in either
    form."""
    if sparse is None:
        sparse = issparse(X)
    digest = hashlib.blake2b(repr(X.shape).encode(), digest_size=16)
    if sparse:
        X = csr_matrix(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        X.eliminate_zeros()
        for part in (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data):
            digest.update(memoryview(np.ascontiguousarray(part)).cast("B"))
        return "csr:" + digest.hexdigest()
    X = np.ascontiguousarray(X.toarray() if issparse(X) else X, dtype=np.float64)
    if np.signbit(X[X == 0.0]).any():
        X = X + 0.0           # -0.0 as 0.0 (a sparse form's implicit zeros)
    digest.update(memoryview(X).cast("B"))
    return digest.hexdigest()


def _narrowest(counts):
    """Multiplicities in the narrowest unsigned type (None when all are 1)."""
    top = int(counts.max()) if counts.size else 1
    if top <= 1:
        return None
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    raise ValueError(f"a bootstrap count of {top} does not fit 32 bits")


class _LeafLists:
    """Every tree's leaves' training rows, named by their targets' ranks: tree ``t``'s
    leaf ``node`` holds ``rows[row_base[t] + offsets[node_base[t] + node]`` up to the
    next node's offset ``]`` (int32, ascending: in target order), with multiplicities
    ``counts`` (uint8/16/32; None when all are 1).  ``ys``: the training targets
    sorted; ``sw``: the sample weights by rank when the trees were grown with unequal
    ones (else None); ``rank``: each training row's rank (int32)."""

    def __init__(self, ys, rank, sw, offsets, rows, counts):
        self.ys, self.rank, self.sw = ys, rank, sw
        self.node_base = np.concatenate([[0], np.cumsum([o.size for o in offsets])]
                                        ).astype(np.int64)
        self.row_base = np.concatenate([[0], np.cumsum([r.size for r in rows])]
                                       ).astype(np.int64)
        # (a trailing 0: a leaf index one past a tree's last node reads an empty list,
        # see _QuantileForest._excluding)
        self.offsets = np.concatenate(list(offsets) + [[0]]).astype(np.int32, copy=False)
        self.rows = np.concatenate(rows).astype(np.int32, copy=False)
        self.counts = _narrowest(np.concatenate(counts))
        # the calibration scores' unit beyond a row's range of targets: that range plus
        # a hundredth of the training targets' (see _quantile._pit_distance)
        spread = float(ys[-1] - ys[0]) if ys.size else 0.0
        self.unit0 = 0.01 * spread if spread > 0 else 1.0

    def with_values(self, values):
        """These lists with every entry's value ``values`` (parallel to ``rows``) in
        place of its training target: the entries become rows of their own (no
        multiplicities, no weights), ranked by value."""
        order, rows = _ranked(values)
        return self.replaced(ys=np.ascontiguousarray(values[order]), rows=rows,
                             counts=None, sw=None)

    def replaced(self, **fields):
        """A copy of these lists with ``fields`` in place of their own (the other
        arrays shared)."""
        out = object.__new__(type(self))
        vars(out).update(vars(self), **fields)
        return out

    @property
    def nbytes(self):
        """Bytes of the lists (rows, multiplicities, offsets), not counting the
        per-row arrays (targets, ranks, weights: 12 to 20 bytes a training row)."""
        return (self.rows.nbytes + self.offsets.nbytes
                + (0 if self.counts is None else self.counts.nbytes)
                + self.node_base.nbytes + self.row_base.nbytes)

    def predict(self, leaves, quantiles, method, oob_rank=None, ytrue=None,
                weighting=(True, True, True)):
        """The kernel on ``leaves`` (rows x trees); ``weighting``: (weighted quantile,
        weighted leaves, leaves aggregated first), quantile-forest's options (see
        _QuantileForest.predict)."""
        weighted, by_leaf, pooled = weighting
        sw = self.sw if weighted else None
        normalise = weighted and by_leaf
        if pooled:
            return _quantile.predict_rows(leaves, self.node_base, self.row_base,
                                          self.offsets, self.rows, self.counts, self.ys,
                                          sw, oob_rank, quantiles, method, ytrue,
                                          self.unit0, normalise)
        # each tree's own quantile, then their mean over the trees that predict the row
        total = count = 0
        for t in range(leaves.shape[1]):
            out = _quantile.predict_rows(
                np.ascontiguousarray(leaves[:, t:t + 1]), self.node_base[t:t + 1],
                self.row_base[t:t + 1], self.offsets, self.rows, self.counts, self.ys,
                sw, oob_rank, quantiles, method, ytrue, self.unit0, normalise)
            seen = ~np.isnan(out)
            total = total + np.where(seen, out, 0.0)
            count = count + seen
        with np.errstate(invalid="ignore"):
            return total / count


class _QuantileForest(_QuantileReaders):
    """What the three quantile forests share: the fit (the base forest's, then the leaf
    lists), quantile and interval prediction, calibration and the pinball score.  A
    subclass puts this before its base regressor; the kind of forest's own parts are
    ``_tree_weights`` (each tree's multiplicities and weights) and ``_leaves`` (the
    leaves of rows in every tree)."""

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None, sparse_pickle=False):
        """Build the forest on (X, y), then keep the training rows of every leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (converted to float64; NaN marks a missing value).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Numeric targets (a 2-D y of one column is taken as 1-D, with a
            ``DataConversionWarning``; several columns are several outputs, the trees
            grown on them together and each output's quantiles taken of its own
            targets).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights, used as the base forest uses them; a training row's
            weight in the quantiles is the weight its trees were grown with (see the
            class's Notes).
        sparse_pickle : bool, default=False
            quantile-forest's option to pickle its leaf matrix sparse; accepted for its
            users, with no effect: these leaf lists are always compact.

        Returns
        -------
        self : object
            The fitted forest.
        """
        check_bool("sparse_pickle", sparse_pickle)
        return self._atomic(self._fit_quantiles, X, y, sample_weight)

    def _fit_quantiles(self, X, y, sample_weight):
        _check_quantiles(self._default_quantiles(), "default_quantiles")
        if self.warm_start:
            raise ValueError("warm_start is not supported by the quantile forests: the "
                             "leaves' training rows are those of one fit; refit with "
                             "warm_start=False")
        if y is None:           # the base forest's error
            return super().fit(X, y, sample_weight)
        y = np.asarray(y) if not hasattr(y, "iloc") else y.to_numpy()
        Y = None
        if y.ndim == 2 and y.shape[1] > 1:     # several outputs: lists for each
            Y, y = np.asarray(y, dtype=np.float64), y[:, 0]
        elif y.ndim == 2:
            warnings.warn("A column-vector y was passed when a 1d array was expected. "
                          "Please change the shape of y to (n_samples,), for example "
                          "using ravel().", DataConversionWarning, stacklevel=3)
            y = y[:, 0]
        k = resolve_max_samples_leaf(self.max_samples_leaf, y.shape[0])
        cst = getattr(self, "monotonic_cst", None)
        constrained = cst is not None and np.any(np.asarray(cst, dtype=object) != 0)
        if constrained and Y is not None:
            raise ValueError("monotonic_cst takes one output")
        if constrained and k != 1:
            raise ValueError(
                "monotonic_cst needs max_samples_leaf=1 in a quantile forest: the trees' "
                "means follow the constraints, but quantiles of several training "
                "targets a leaf need not (a constrained feature raised could lower an "
                "upper quantile); with one row a leaf, clipped to bounds that follow "
                "them, every quantile does")
        super().fit(X, y if Y is None else Y, sample_weight)
        Xc = predict_input(self, X)
        yf = np.ascontiguousarray(y, dtype=np.float64)
        n = yf.shape[0]
        sw = (np.ones(n) if sample_weight is None
              else np.asarray(sample_weight, dtype=np.float64).reshape(-1))
        if sw.shape[0] != n:        # (a scalar weight: as the base forest took it)
            sw = np.broadcast_to(sw, (n,)).astype(np.float64)
        order, rank = _ranked(yf)
        n_jobs = effective_n_jobs(self.n_jobs)
        uses_sw = self._uses_weights(sw)
        sw_rank = sw[order]

        draws = self._draws(n)
        T = len(self._trees())
        keep = n * T <= _KEEP_LEAVES      # for the scores below
        leaves = np.empty((n, T), dtype=np.int64) if keep else None
        # subsampled leaves: out of bag, the trees grown with a row are known from this
        inbag = np.zeros((n, T), dtype=bool) if k is not None and self.bootstrap else None

        def lists(chunk):
            out = []
            state = np.random.RandomState(0)
            for t, leaf in zip(chunk, self._tree_leaves(Xc, chunk)):
                if keep:
                    leaves[:, t] = leaf
                count = draws(t, state)
                weight = count * sw if uses_sw else count
                o, r, c = _quantile.leaf_lists(
                    np.ascontiguousarray(leaf[order], dtype=np.int64),
                    np.ascontiguousarray(weight[order]),
                    np.ascontiguousarray(count[order], dtype=np.int64),
                    self._trees()[t].tree_.node_count)
                if k is not None:
                    o, r, c = subsample_leaves(o, r, c, k, self._trees()[t].random_state)
                    if inbag is not None:
                        inbag[:, t] = count > 0
                out.append((o, r, c))
            return out

        step = -(-T // max(1, min(n_jobs, T)))
        chunks = [range(a, min(T, a + step)) for a in range(0, T, step)]
        parts = [part for chunk in _in_workers(lists, [(c,) for c in chunks], n_jobs)
                 for part in chunk]
        self._leaf_lists = _LeafLists(
            yf[order], rank,
            sw_rank if uses_sw and not np.all(sw == sw[0]) else None,
            [p[0] for p in parts], [p[1] for p in parts], [p[2] for p in parts])
        if Y is not None:
            self._output_lists = [self._leaf_lists] + [
                _reordered(self._leaf_lists, order, Y[:, o], sw if uses_sw else None)
                for o in range(1, Y.shape[1])]
        self._subsampled = k is not None
        self._inbag_bits = None if inbag is None else np.packbits(inbag, axis=1)
        self._values = (self._leaf_lists.with_values(clipped_values(
            self._leaf_lists, self._trees(), np.asarray(cst))) if constrained else None)
        self._train_fingerprint = _fingerprint(Xc)
        self.calibration_scores_ = (self._scores(Xc, yf, own=np.arange(n), leaves=leaves)
                                    if self.bootstrap and Y is None else None)
        return self

    def _draws(self, n):
        """``count(t, state)``: tree t's multiplicity of every training row (float64),
        regenerated from its seeds as the fit drew it (``state``: a RandomState to
        reseed)."""
        records = draw_records(self)
        if isinstance(self, _BaseRotationForest):
            def count(t, state):
                if not self.bootstrap:
                    return np.ones(n)
                return self._drawn(t, n)
            return count
        probabilities = self._tree_probabilities()
        legacy = self._legacy_draws()

        def count(t, state):
            draws, boot = int(records[t, 1]), bool(records[t, 2])
            drawn = _draw_tree(self._base_seed, t, n, draws, boot, probabilities[t],
                               legacy, state)[0]
            return np.bincount(drawn, minlength=n).astype(np.float64)
        return count

    def _uses_weights(self, sw):
        """Whether the trees were grown with counts times sample weights (a random
        forest that drew its rows by weight took the counts alone)."""
        if isinstance(self, _BaseRotationForest):
            return True
        return draw_probabilities(sw, self.bootstrap) is None

    def _tree_leaves(self, Xc, trees):
        """The leaf of every row of the checked rows Xc in each of ``trees`` (a
        range)."""
        if isinstance(self, _BaseRotationForest):
            return self._rotated_leaves(Xc, trees)
        return [self._trees()[t].tree_.apply(Xc) for t in trees]

    def _rotated_leaves(self, Xc, trees):
        """A rotation forest's leaves: the rows projected onto all the trees' axes at
        once (one sparse product, as its prediction does), in batches of rows."""
        Z, mask = self._normalise_checked(Xc)
        if mask is not None:
            mask = np.asfortranarray(mask, dtype=np.float64)
        project = self._projector()
        first, last = self._axis_starts[trees.start], self._axis_starts[trees.stop]
        starts = self._axis_starts[trees.start:trees.stop + 1] - first
        R = self._stacked()[:, first:last]
        step = max(1, _BATCH_CELLS // max(1, int(last - first)))
        parts = [[] for _ in trees]
        for start in range(0, Z.shape[0], step):
            M = None if mask is None else mask[start:start + step]
            P = project.axes(R, Z[start:start + step], M)
            extra = project.extra(Z[start:start + step], M)
            for k, t in enumerate(trees):
                Pk = P[:, starts[k]:starts[k + 1]]
                if extra is not None:
                    Pk = np.hstack([Pk, extra])
                parts[k].append(self._trees()[t].tree_.apply(np.ascontiguousarray(Pk)))
        return [np.concatenate(p) if len(p) != 1 else p[0] for p in parts]

    def _leaves(self, Xc):
        """Leaves of the rows Xc in every tree, (rows, trees) int64."""
        leaves = np.empty((Xc.shape[0], len(self._trees())), dtype=np.int64)
        for t, leaf in enumerate(self._tree_leaves(Xc, range(len(self._trees())))):
            leaves[:, t] = leaf
        return leaves

    # --------------------------------------------------------------- prediction
    def _weighted(self, Xc, quantiles, method, own=None, ytrue=None, leaves=None,
                  weighting=(True, True, True), output=0):
        """The kernel's output for the checked rows Xc (or their ``leaves``, rows x
        trees, when known), in tasks of rows run by ``n_jobs`` threads (the same
        numbers for any n_jobs: each row alone); ``own``: out of bag, each row's
        training row (-1: none), or None; ``output``: the lists of that output."""
        lists = self._value_lists(output)
        n = Xc.shape[0]
        n_jobs = effective_n_jobs(self.n_jobs)
        step = max(1, min(_ROWS_PER_TASK, -(-n // max(1, n_jobs))))
        tasks = [(start, min(n, start + step)) for start in range(0, n, step)] or [(0, 0)]
        q = np.ascontiguousarray(quantiles, dtype=np.float64)

        def run(start, stop):
            rows = (self._leaves(Xc[start:stop]) if leaves is None
                    else leaves[start:stop])
            rows, own_b = self._excluding(rows, None if own is None else own[start:stop],
                                          lists)
            return lists.predict(rows, q, method, own_b,
                                 None if ytrue is None else ytrue[start:stop], weighting)

        return np.vstack(_in_workers(run, tasks, n_jobs))

    def predict(self, X, quantiles=None, interpolation="linear", *,
                weighted_quantile=True, weighted_leaves=True, aggregate_leaves_first=True,
                oob_score=False, indices=None, duplicates=None):
        """Quantiles of the target at X: weighted quantiles of the training targets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        quantiles : float, list of float, "mean" or None, default=None
            Levels in [0, 1]; "mean": the forest's mean prediction (the base
            regressor's ``predict``); None: ``default_quantiles``.
        interpolation : {"linear", "lower", "higher", "midpoint", "nearest"}, \
default="linear"
            How a quantile between two of the (weighted) training targets is taken, as
            ``numpy.quantile``'s ``method`` of the same name does on the targets
            repeated as many times as their weights say (see Notes).
        weighted_quantile : bool, default=True
            False: every copy of a training row in x's leaves counts once, sample
            weights ignored (quantile-forest's unweighted quantile).
        weighted_leaves : bool, default=True
            True: each tree's leaf weights sum to 1 (Meinshausen's weights, see
            Notes); False: the leaves' copies pooled, each weighing its sample weight
            (quantile-forest's default).
        aggregate_leaves_first : bool, default=True
            True: one quantile of the trees' leaves pooled as the weights say; False:
            each tree's quantile of its own leaf, averaged over the trees
            (quantile-forest's option of the same name).
        oob_score : bool, default=False
            Out-of-bag predictions: X must be the training data (the same rows, in the
            same order, unless ``indices`` says which they are), and each row is
            predicted by the trees that were not grown with it. Needs
            ``bootstrap=True``. A row that every tree was grown with gets NaN.
        indices : array-like of int of shape (n_samples,), default=None
            With ``oob_score``: the training row of each row of X (a subset of the
            training rows, in any order; -1: not a training row, predicted by every
            tree), as quantile-forest takes it. None: X is the training data.
        duplicates : list of list of int, default=None
            With ``oob_score``: sets of training rows that are copies of one another
            (quantile-forest's argument); a row is then predicted only by the trees
            grown with none of its copies.

        Returns
        -------
        y : ndarray of shape (n_samples,), (n_samples, n_quantiles) or \
(n_samples, n_outputs, n_quantiles)
            One column per quantile, in the order given, without that axis for one
            quantile (a float, or a list of one) or "mean"; several outputs: one row of
            them per sample.
        """
        check_is_fitted(self)
        quantiles = self._default_quantiles() if quantiles is None else quantiles
        levels, single = _check_quantiles(quantiles)
        method = _check_interpolation(interpolation)
        weighting = tuple(check_bool(name, value) for name, value in (
            ("weighted_quantile", weighted_quantile), ("weighted_leaves", weighted_leaves),
            ("aggregate_leaves_first", aggregate_leaves_first)))
        if isinstance(levels, str) and not oob_score and weighting == (True, True, True):
            self._reader_checks(oob_score, indices, duplicates)
            return super().predict(X)          # the forest's mean (the same numbers)
        Xc, own = self._reader_rows(X, oob_score, indices, duplicates)
        q, method = (np.zeros(1), _MEAN) if isinstance(levels, str) else (levels, method)
        outs = [self._weighted(Xc, q, method, own=own, weighting=weighting, output=o)
                for o in range(self.n_outputs_)]
        if own is not None:
            warn_without_oob(np.any([np.isnan(o).any(axis=1) for o in outs], axis=0))
        out = outs[0] if len(outs) == 1 else np.stack(outs, axis=1)
        return out[..., 0] if single else out

    def _one_output(self, what):
        if self.n_outputs_ > 1:
            raise ValueError(f"{what} takes a forest of one output (the calibration "
                             f"scores are one output's); this one has {self.n_outputs_}: "
                             "predict each output's quantiles with predict")

    def _default_quantiles(self):
        # None: the mean, as quantile-forest reads it
        return "mean" if self.default_quantiles is None else self.default_quantiles

    def _get_unsampled_indices(self, estimator, duplicates=None, sample_weight=None):
        """The training rows that ``estimator`` (one of this forest's trees) was not
        grown with: quantile-forest's (private) reader, which its tests use."""
        t = next(i for i, tree in enumerate(self._trees()) if tree is estimator)
        count = self._draws(self._leaf_lists.rank.size)(t, np.random.RandomState(0))
        if duplicates is None:
            return np.flatnonzero(count == 0)
        group = self._duplicate_groups(duplicates)
        drawn = np.zeros(count.size, dtype=bool)
        np.logical_or.at(drawn, group, count > 0)
        return np.flatnonzero(~drawn[group])

    def _value_lists(self, output=0):
        """The lists whose values the quantiles of ``output`` read: the leaves'
        training targets (ranked by that output's), or with monotonic constraints their
        clipped values (see _quantile_leaves)."""
        values = getattr(self, "_values", None)
        if values is not None:
            return values
        return self._leaf_lists if output == 0 else self._output_lists[output]

    def _excluding(self, leaves, own, lists):
        """Out of bag (``own``: each row's training row, -1: none), the leaves and own
        ranks (in ``lists``) that the kernel reads: the rows' ranks, or with subsampled
        leaves (``max_samples_leaf``, which may have left a row out of its leaf's list)
        each row's leaf in every tree grown with its own training row replaced by an
        empty one (one past the tree's last node), and no own ranks."""
        if own is None:
            return leaves, None
        if own.ndim == 1 and not getattr(self, "_subsampled", False):
            ranks = np.full(own.shape, -1, dtype=np.int32)
            ranks[own >= 0] = lists.rank[own[own >= 0]]
            return leaves, ranks
        grown = own                            # the trees grown with each row (or a copy)
        if own.ndim == 1:
            grown = np.zeros(leaves.shape, dtype=bool)
            if self._inbag_bits is not None:
                grown[own >= 0] = np.unpackbits(self._inbag_bits[own[own >= 0]], axis=1,
                                                count=leaves.shape[1]).astype(bool)
        if lists.offsets.size == lists.node_base[-1]:     # (pickled before the sentinel)
            lists.offsets = np.append(lists.offsets, np.int32(0))
        empty = np.array([tree.tree_.node_count for tree in self._trees()])
        return np.ascontiguousarray(np.where(grown, empty[None, :], leaves)), None

    def _oob_rows(self, X, indices, duplicates=None):
        """Out of bag: the checked rows of X and each one's training row (-1 for
        ``indices`` -1), or with ``duplicates`` the trees grown with each row or one of
        its copies (rows x trees, bool)."""
        Xc, idx = self._oob_indices(X, indices)
        return Xc, idx if duplicates is None else self._grown_with(idx, duplicates)

    def _grown_with(self, idx, duplicates):
        """Whether each tree was grown with the training row ``idx[i]`` or any row in a
        set of ``duplicates`` with it (rows x trees)."""
        n_train = self._leaf_lists.rank.size
        group = self._duplicate_groups(duplicates)
        T = len(self._trees())
        draws, state = self._draws(n_train), np.random.RandomState(0)
        inbag = np.empty((n_train, T), dtype=bool)
        for t in range(T):
            inbag[:, t] = draws(t, state) > 0
        by_group = np.zeros((n_train, T), dtype=bool)
        np.logical_or.at(by_group, group, inbag)
        grown = np.zeros((idx.size, T), dtype=bool)
        known = idx >= 0
        grown[known] = by_group[group[idx[known]]]
        return grown

    def _duplicate_groups(self, duplicates):
        """Each training row's set of copies, named by its least index."""
        n_train = self._leaf_lists.rank.size
        try:
            sets = [np.asarray(list(d), dtype=np.int64).ravel() for d in duplicates]
        except (TypeError, ValueError):
            raise ValueError("duplicates must be a list of lists of training row indices; "
                             f"got {duplicates!r}") from None
        group = np.arange(n_train)
        for members in sets:
            if members.size and (members.min() < 0 or members.max() >= n_train):
                raise ValueError(f"duplicates must hold training row indices in [0, "
                                 f"{n_train - 1}]; got {members.tolist()}")
            if members.size:
                joined = np.isin(group, group[members])
                group[joined] = group[joined].min()
        return group

    def _oob_indices(self, X, indices):
        if indices is None:
            return self._check_oob(X), np.arange(self._leaf_lists.rank.size)
        if not self.bootstrap:
            self._check_oob(X)                                   # its error
        Xc = predict_input(self, X)
        idx = np.asarray(indices)
        n_train = self._leaf_lists.rank.shape[0]
        if idx.dtype.kind == "f" and np.all(idx == np.round(idx)):
            idx = idx.astype(np.int64)                   # (-np.ones(n), say)
        if idx.shape != (Xc.shape[0],) or not (idx.size == 0 or np.issubdtype(
                idx.dtype, np.integer)):
            raise ValueError(f"indices must be {Xc.shape[0]} ints, the training row of "
                             f"each row of X (-1: none); got {np.asarray(indices)!r}")
        if idx.size and (idx.min() < -1 or idx.max() >= n_train):
            raise ValueError(f"indices must lie in [-1, {n_train - 1}] (the {n_train} "
                             "training rows; -1: none)")
        return Xc, idx.astype(np.int64)

    def _check_oob(self, X):
        if not self.bootstrap:
            raise ValueError("oob_score=True needs a forest fitted with bootstrap=True: "
                             "without it every tree was grown with every row, and none is "
                             "out of bag")
        Xc = predict_input(self, X)
        if Xc.shape[0] != self._leaf_lists.rank.shape[0] or \
                _fingerprint(Xc, self._train_fingerprint.startswith("csr:")) != \
                self._train_fingerprint:
            raise ValueError("oob_score=True predicts the training rows out of bag: X must "
                             f"be the training data ({self._leaf_lists.rank.shape[0]} rows, "
                             "in the order of fit); got other rows")
        return Xc

    # ----------------------------------------------------------------- intervals
    def _scores(self, Xc, y, own=None, leaves=None):
        """Every row's conformity score: how far from 1/2 the levels lie whose
        quantile (linear interpolation) is its target (out of bag: training rows)."""
        return self._weighted(Xc, np.zeros(1), 0, own=own, ytrue=y, leaves=leaves)[:, 0]

    def calibrate(self, X, y):
        """Calibrate ``predict_interval`` on held-out rows.

        Replaces the calibration scores that ``fit`` made out of bag (with
        ``bootstrap=True``) by those of rows that the forest was not fitted on: each
        row's distance from 1/2 of the levels whose quantile is its target (see
        ``predict_interval``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Calibration rows, not used to fit the forest.
        y : array-like of shape (n_samples,)
            Their targets.

        Returns
        -------
        self : object
            The forest, with new ``calibration_scores_``.
        """
        check_is_fitted(self)
        self._one_output("calibrate")
        Xc = predict_input(self, X)
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1 or y.shape[0] != Xc.shape[0]:
            raise ValueError(f"y must be 1-D with one target per row of X ({Xc.shape[0]}); "
                             f"got shape {y.shape}")
        if not np.all(np.isfinite(y)):
            raise ValueError("y must be finite")
        if y.shape[0] == 0:
            raise ValueError("calibrate needs at least one row")
        self.calibration_scores_ = self._scores(Xc, np.ascontiguousarray(y))
        return self

    def predict_interval(self, X, coverage=0.9, calibrated=True):
        """Central prediction intervals: raw quantiles, or calibrated to a coverage.

        Raw (``calibrated=False``): the quantiles ``(1 - coverage) / 2`` and ``(1 +
        coverage) / 2``. Calibrated: the quantiles ``1/2 - d`` and ``1/2 + d``, where
        ``d`` is the ``ceil((m + 1) coverage)``-th smallest of the m calibration scores
        (``calibration_scores_``: out of bag from ``fit`` with ``bootstrap=True``, or
        from ``calibrate``) -- distributional conformal prediction (Chernozhukov,
        Wüthrich and Zhu, 2021) with the forest's conditional distribution. A ``d``
        above 1/2 widens the range of the weighted targets ``[q0, q1]`` by ``d - 1/2``
        times ``q1 - q0`` plus a hundredth of the training targets' range on both
        sides. The interval then holds a new target with probability at least
        ``coverage`` when the calibration rows and the new ones are exchangeable
        (held-out calibration rows; out-of-bag scores come close to that). Linear
        interpolation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        coverage : float in (0, 1), default=0.9
            The share of targets the intervals should hold.
        calibrated : bool, default=True
            Calibrate the levels on ``calibration_scores_`` (needs them).

        Returns
        -------
        intervals : ndarray of shape (n_samples, 2)
            Lower and upper ends (unbounded when there are fewer than ``coverage / (1 -
            coverage)`` calibration scores, with a warning).
        """
        check_is_fitted(self)
        if isinstance(coverage, (bool, np.bool_)) or not isinstance(
                coverage, (int, float, np.integer, np.floating)):
            raise TypeError(f"coverage must be a float in (0, 1); got {coverage!r}")
        if not 0 < coverage < 1:
            raise ValueError(f"coverage must be a float in (0, 1); got {coverage!r}")
        if not isinstance(calibrated, (bool, np.bool_)):
            raise TypeError(f"calibrated must be a bool; got {calibrated!r}")
        self._one_output("predict_interval")
        if not calibrated:
            return self.predict(X, quantiles=[(1 - coverage) / 2, (1 + coverage) / 2])
        scores = getattr(self, "calibration_scores_", None)
        if scores is None:
            raise ValueError("calibrated intervals need calibration scores: fit with "
                             "bootstrap=True (out of bag), or call calibrate(X, y) "
                             "with held-out rows first")
        d = self._calibrated_distance(scores, coverage)
        if d <= 0.5:
            return self.predict(X, quantiles=[0.5 - d, 0.5 + d])
        ends = self.predict(X, quantiles=[0.0, 1.0])
        if np.isinf(d):
            return np.column_stack([np.full(len(ends), -np.inf),
                                    np.full(len(ends), np.inf)])
        widen = (d - 0.5) * (ends[:, 1] - ends[:, 0] + self._leaf_lists.unit0)
        return np.column_stack([ends[:, 0] - widen, ends[:, 1] + widen])

    @staticmethod
    def _calibrated_distance(scores, coverage):
        scores = scores[~np.isnan(scores)]
        m = scores.size
        k = int(np.ceil((m + 1) * coverage))
        if k > m:
            warnings.warn(f"{m} calibration scores are too few for a coverage of "
                          f"{coverage}: the intervals are unbounded", UserWarning)
            return np.inf
        return float(np.partition(scores, k - 1)[k - 1])

    # ------------------------------------------------------------------ scoring
    def score(self, X, y, sample_weight=None, *, quantiles=None):
        """The pinball skill of ``default_quantiles`` on (X, y): higher is better.

        For each default quantile q, scikit-learn's ``d2_pinball_score`` (1 - the
        pinball loss of the predictions / that of the constant q-quantile of y, 1 at
        best, as R² is for the mean), averaged over the quantiles; R² when
        ``default_quantiles="mean"``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,)
            True targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the score.
        quantiles : float, list of float, "mean" or None, default=None
            The quantiles scored in place of ``default_quantiles`` (quantile-forest's
            argument; keyword only).

        Returns
        -------
        score : float
            Mean D² pinball score over the default quantiles.
        """
        levels, _ = (_check_quantiles(self._default_quantiles(), "default_quantiles")
                     if quantiles is None else _check_quantiles(quantiles))
        if isinstance(levels, str):
            return float(r2_score(y, self.predict(X, "mean"), sample_weight=sample_weight))
        pred = self.predict(X, quantiles=levels)
        pred = pred.reshape(pred.shape[0], -1, levels.size)       # rows x outputs x q
        y = np.asarray(y)
        return float(np.mean([d2_pinball_score(y, pred[:, :, k].reshape(y.shape),
                                               alpha=q, sample_weight=sample_weight)
                              for k, q in enumerate(levels)]))

    @property
    def quantile_nbytes_(self):
        """Bytes that the leaves' training rows take (beyond the trees).

        Returns
        -------
        nbytes : int
            Rows, multiplicities and offsets of every tree's leaves, plus the per-row
            targets, ranks and weights.
        """
        check_is_fitted(self)
        lists = self._leaf_lists
        return int(lists.nbytes + lists.ys.nbytes + lists.rank.nbytes
                   + (0 if lists.sw is None else lists.sw.nbytes))

    def _compute_partial_dependence_recursion(self, grid, target_features):
        """Refused: the "recursion" method would give the dependence of the mean.

        scikit-learn's ``partial_dependence`` calls this with ``method="recursion"``,
        and also with ``method="auto"`` (its default) for the random-forest and
        extra-trees quantile forests (they are virtual subclasses of its
        ``RandomForestRegressor``).  The weighted traversal averages the leaves' mean
        values, so it computes the partial dependence of ``predict(X,
        quantiles="mean")``, not of ``predict``'s quantiles.

        Parameters
        ----------
        grid : array-like of shape (n_points, n_target_features)
            Values of the target features.
        target_features : array-like of int of shape (n_target_features,)
            The features of the grid's columns.

        Raises
        ------
        ValueError
            Always, with the remedy: ``method="brute"``.
        """
        raise ValueError(
            f"partial dependence by the 'recursion' method (which partial_dependence "
            f"also picks for method='auto' on a {type(self).__name__}) averages the "
            "trees' leaf values: it is the dependence of the mean, predict(X, "
            "quantiles=\"mean\"), while predict returns quantiles (the median by "
            "default). Pass method='brute', which calls predict")


# ------------------------------------------------------------- the classes' making
def _with_default_quantiles(base, defaults=None):
    """The quantile forest's ``__init__``: ``base``'s parameters with ``defaults`` in
    place of its own, and ``default_quantiles`` after them (see derived_init)."""
    return derived_init(base, defaults, added=[("default_quantiles", 0.5),
                                               ("max_samples_leaf", None)])


_DEFAULT_QUANTILES_DOC = """\
    default_quantiles : float, list of float, "mean" or None, default=0.5
        The quantiles that ``predict`` returns when it is given none, and that
        ``score`` scores (None: the mean, as quantile-forest reads it).
    max_samples_leaf : int, float or None, default=None
        The most training rows' copies a leaf keeps (a float: that share of the
        training rows, rounded up), drawn at random from each leaf's copies (seeded by
        the tree's ``random_state``); None keeps them all (quantile-forest's default
        is 1). Fewer copies take less memory and time and give coarser
        distributions. ``monotonic_cst`` needs 1: each leaf's one value is then
        clipped to bounds along the constrained features, and every quantile follows
        the constraints.
"""

_QUANTILE_ATTRIBUTES_DOC = """\
    calibration_scores_ : ndarray of shape (n_calibration,) or None
        The conformity scores that calibrate ``predict_interval``: out of bag from
        ``fit`` with ``bootstrap=True`` (one per training row, NaN for a row that every
        tree was grown with), from ``calibrate`` after it; None otherwise. A score is
        how far from 1/2 the levels lie whose quantile is the row's target (beyond the
        range of the weighted targets: 1/2 plus the distance out in units of that
        range plus a hundredth of the training targets' range).
    quantile_nbytes_ : int
        Bytes that the leaves' training rows take.
"""

_NOTES_DOC = """\
    Weights. The prediction at x is a quantile of the training targets, row i weighing
    the mean over the trees of ``w_ti / W_t(x)`` when it is in x's leaf in tree t (0
    otherwise), where ``w_ti`` is the weight tree t was grown with (its bootstrap count
    times its sample weight; the count alone where a random forest drew its rows by
    weight; the sample weight without bootstrap) and ``W_t(x)`` their sum over that
    leaf (Meinshausen, 2006). Each tree's weights sum to 1, so the mean prediction is
    the forest's own.

    Quantiles of weighted targets. The weights are read as copies of the targets: x's
    leaves hold N copies in all (the sum over the trees of the multiplicities in x's
    leaf), and row i holds N times its weight. ``interpolation``
    then picks the quantile of that sequence of copies by numpy's rule, which for
    "linear" is the value at position ``h = (N - 1) q`` (from 0), interpolated between
    the copies ``floor(h)`` and ``floor(h) + 1`` (copy j belongs to the first row, in
    target order, whose cumulative copies exceed j). A one-tree forest without
    bootstrap therefore returns numpy's quantile of each leaf's targets, and with
    bootstrap a row drawn c times counts as c copies. Unequal sample weights are
    normalised within each leaf (mean 1 over its rows), so only their ratios matter.

    Memory. Each tree keeps, per leaf, its training rows (int32, 4 bytes, only those it
    was grown with: 63% of the rows with bootstrap), their multiplicities (1 byte with
    bootstrap, none without) and one int32 offset per node: measured 8.2 bytes per
    training row per tree with bootstrap and 12.0 without at ``min_samples_leaf=1``
    (4.0 and 5.3 at 5), beside the trees' own 60 to 100 (see the user guide,
    :doc:`Quantile forests </user_guide/quantile>`).

    References: N. Meinshausen (2006), "Quantile Regression Forests", JMLR 7; V.
    Chernozhukov, K. Wüthrich and Y. Zhu (2021), "Distributional conformal
    prediction", PNAS 118(48).
"""


def _quantile_doc(base, summary, examples, defaults=None):
    """The docstring of the quantile forest on ``base``: ``summary``, then ``base``'s
    Parameters (with the defaults of ``defaults``, name: value, written in) and
    Attributes (see _docs.py) with this module's additions, the Notes and
    ``examples``."""
    parts = _sections(base.__doc__)
    parameters = with_defaults(parts["Parameters"], defaults, base)
    return "\n".join([
        inspect.cleandoc(summary), "",
        "Parameters", "----------", parameters.rstrip("\n"),
        textwrap.dedent(_DEFAULT_QUANTILES_DOC).rstrip("\n"), "",
        "Attributes", "----------", parts["Attributes"].rstrip("\n"),
        textwrap.dedent(_QUANTILE_ATTRIBUTES_DOC).rstrip("\n"), "",
        "See Also", "--------",
        f"{base.__name__} : The forest whose mean ``predict(X, quantiles='mean')`` "
        "returns.", "",
        "Notes", "-----", textwrap.dedent(_NOTES_DOC).rstrip("\n"), "",
        "Examples", "--------", textwrap.dedent(examples).rstrip("\n"), ""])


class RandomForestQuantileRegressor(_QuantileForest, RandomForestRegressor):
    # pickled before max_samples_leaf: every row kept
    _pickle_defaults = dict(RandomForestRegressor._pickle_defaults, max_samples_leaf=None)
    __init__ = _with_default_quantiles(RandomForestRegressor)
    __doc__ = _quantile_doc(RandomForestRegressor, """A quantile regression forest on
    :class:`RandomForestRegressor`: any quantile of the target at prediction time.

    The forest is the random forest's (the same trees for the same parameters and
    ``random_state``); it also keeps every leaf's training rows, and ``predict``
    returns weighted quantiles of their targets (Meinshausen, 2006), in compiled code,
    ``n_jobs`` threads over the rows. Out-of-bag quantiles, calibrated prediction
    intervals (``predict_interval``, one output) and a pinball ``score``.

    Read more in the user guide: :doc:`Quantile forests </user_guide/quantile>`.""", """\
    >>> import numpy as np
    >>> from sklearn.datasets import load_diabetes
    >>> from rotforest import RandomForestQuantileRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = RandomForestQuantileRegressor(n_estimators=50, random_state=0).fit(X, y)
    >>> forest.predict(X[:2], quantiles=[0.05, 0.5, 0.95]).shape
    (2, 3)
    >>> bool(np.all(np.diff(forest.predict(X[:5], [0.1, 0.5, 0.9]), axis=1) >= 0))
    True
    >>> forest.predict_interval(X[:2], coverage=0.9).shape
    (2, 2)
""")


# the rotation forest's quantile defaults (its regressor's stay min_samples_leaf=1,
# group_size=3): measured on the shared regression sets, see the user guide
_ROTATION_QUANTILE_DEFAULTS = {"min_samples_leaf": 2, "group_size": 2}


class RotationForestQuantileRegressor(_QuantileForest, RotationForestRegressor):
    # pickled before max_samples_leaf: every row kept
    _pickle_defaults = dict(RotationForestRegressor._pickle_defaults, max_samples_leaf=None)
    __init__ = _with_default_quantiles(RotationForestRegressor,
                                       _ROTATION_QUANTILE_DEFAULTS)
    __doc__ = _quantile_doc(RotationForestRegressor, """A quantile regression forest on
    :class:`RotationForestRegressor`: any quantile of the target at prediction time.

    The forest is the rotation forest's (the same trees for the same parameters and
    ``random_state``); it also keeps every leaf's training rows, and ``predict``
    returns weighted quantiles of their targets (Meinshausen, 2006), in compiled code,
    ``n_jobs`` threads over the rows. With ``bootstrap=False`` (the rotation forest's
    default) every tree holds every row once, and there are no out-of-bag predictions
    or scores: fit with ``bootstrap=True`` for those, or calibrate intervals on
    held-out rows (``calibrate``; intervals take one output).

    Two defaults differ from :class:`RotationForestRegressor`'s, for quantiles:
    ``min_samples_leaf=2`` (its 1: leaves of one row, on trees without bootstrap, make
    distributions too narrow) and ``group_size=2`` (its 3). On fresh splits of the 20
    shared regression sets (not those they were chosen on), their pinball loss was
    3.4% below quantile-forest's (the regressor's defaults: 0.4 to 0.9%); the
    regressor's defaults stay better on a few sets (see the user guide).

    Read more in the user guide: :doc:`Quantile forests </user_guide/quantile>`.""", """\
    >>> from sklearn.datasets import load_diabetes
    >>> from rotforest import RotationForestQuantileRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = RotationForestQuantileRegressor(n_estimators=20, min_samples_leaf=5,
    ...                                          random_state=0).fit(X[:300], y[:300])
    >>> forest.predict(X[300:302], quantiles=[0.05, 0.95]).shape
    (2, 2)
    >>> forest.calibrate(X[300:], y[300:]).predict_interval(X[:2]).shape
    (2, 2)
""", _ROTATION_QUANTILE_DEFAULTS)

    @property
    def estimators_(self):
        return RotationForestRegressor.estimators_.fget(self)

    @estimators_.setter
    def estimators_(self, trees):
        raise AttributeError("a quantile forest's trees cannot be replaced: its leaves' "
                             "training rows were recorded for these trees; fit a forest "
                             "with fewer n_estimators instead")


class ExtraTreesQuantileRegressor(_QuantileForest, ExtraTreesRegressor):
    # pickled before max_samples_leaf: every row kept
    _pickle_defaults = dict(ExtraTreesRegressor._pickle_defaults, max_samples_leaf=None)
    __init__ = _with_default_quantiles(ExtraTreesRegressor)
    __doc__ = _quantile_doc(ExtraTreesRegressor, """A quantile regression forest on
    :class:`ExtraTreesRegressor`: any quantile of the target at prediction time.

    The forest is the extra trees' (the same trees for the same parameters and
    ``random_state``); it also keeps every leaf's training rows, and ``predict``
    returns weighted quantiles of their targets (Meinshausen, 2006), in compiled code,
    ``n_jobs`` threads over the rows. With ``bootstrap=False`` (the extra trees'
    default) every tree holds every row once, and there are no out-of-bag predictions
    or scores: fit with ``bootstrap=True`` for those, or calibrate intervals on
    held-out rows (``calibrate``; intervals take one output).

    Read more in the user guide: :doc:`Quantile forests </user_guide/quantile>`.""", """\
    >>> from sklearn.datasets import load_diabetes
    >>> from rotforest import ExtraTreesQuantileRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = ExtraTreesQuantileRegressor(n_estimators=50, min_samples_leaf=5,
    ...                                      random_state=0).fit(X[:300], y[:300])
    >>> forest.predict(X[300:303], quantiles=[0.1, 0.5, 0.9]).shape
    (3, 3)
    >>> forest.calibrate(X[300:], y[300:]).predict_interval(X[:2], 0.8).shape
    (2, 2)
""")
