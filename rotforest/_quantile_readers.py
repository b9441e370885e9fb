"""What quantile-forest's users read of a fitted quantile forest beyond its quantiles:
``quantile_ranks`` (where a target falls in the predicted distribution) and
``proximity_counts`` (which training rows share the leaves of a row), both from the
forest's leaf lists (see quantile._LeafLists), in or out of bag, on all the training
rows or on a subset of them (``indices``)."""
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from rotforest._inputs import predict_input
from rotforest._validation import check_bool

# entries of the leaf lists gathered at once (bounds the memory of one batch of rows)
_ENTRIES_PER_BATCH = 1 << 21
_KINDS = ("rank", "weak", "strict", "mean")


def leaf_entries(lists, leaves, own):
    """The training rows in the leaves of a batch of rows, one entry per (row, tree,
    training row) of the trees each row is predicted by (those whose leaf holds the
    row's own rank ``own[i]`` are skipped: out of bag; -1 or ``own`` None: none is):
    ``(row, rank, count, copies, N, pair, share)``: the row of each entry, its training
    row's rank (target order), its multiplicity in the tree, its copies in the row's
    weighted distribution (see the quantile forests' Notes: N copies in all, each tree
    adding its leaf's weights normalised to 1), each row's N (0: no tree predicts it),
    each entry's (row, tree) pair (``row * n_trees + tree``) and its share of its
    pair's weight."""
    n, T = leaves.shape
    nodes = lists.node_base[:T][None, :] + leaves
    base = lists.row_base[:T][None, :]
    a = (base + lists.offsets[nodes]).ravel()
    lengths = np.maximum((base + lists.offsets[nodes + 1]).ravel() - a, 0)
    pair = np.repeat(np.arange(n * T), lengths)
    entry = np.repeat(a, lengths) + (np.arange(pair.size)
                                     - np.repeat(np.cumsum(lengths) - lengths, lengths))
    rank = lists.rows[entry]
    count = (np.ones(entry.size) if lists.counts is None
             else lists.counts[entry].astype(np.float64))
    if own is not None:
        hit = rank == own[pair // T]
        out = np.bincount(pair[hit], minlength=n * T) > 0
        keep = ~out[pair]
        pair, rank, count = pair[keep], rank[keep], count[keep]
    s = count if lists.sw is None else count * lists.sw[rank]
    S = np.bincount(pair, weights=s, minlength=n * T)
    used = np.bincount(np.flatnonzero(S > 0) // T, minlength=n)
    row = pair // T
    N = np.bincount(row, weights=count, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = s / S[pair]
        copies = share * (N / np.maximum(used, 1))[row]
    return row, rank, count, copies, N, pair, share


def warn_without_oob(missing):
    """Warns when some rows (``missing``, a mask) have no out-of-bag tree."""
    if np.any(missing):
        warnings.warn(f"{int(np.sum(missing))} rows were drawn by every tree and have no "
                      "out-of-bag prediction (NaN): grow more trees", UserWarning,
                      stacklevel=3)


def _ranks(group, copies, N, vals, target, n, kind):
    """The rank of each group's target among its copies (see quantile_ranks)."""
    L = np.bincount(group, weights=copies * (vals < target), minlength=n)
    R = np.bincount(group, weights=copies * (vals <= target), minlength=n)
    match = np.bincount(group, weights=(vals == target), minlength=n) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        share = {"weak": R / N, "strict": L / N, "mean": (L + R) / (2 * N),
                 "rank": (L + R + match) / (2 * N)}[kind]
    return np.where(N > 0, np.clip(share, 0.0, 1.0), np.nan)


class _QuantileReaders:
    """quantile_ranks and proximity_counts (mixed into _QuantileForest, which provides
    ``_leaf_lists``, ``_leaves``, ``_oob_rows``)."""

    def _batches(self, Xc, own, lists):
        """(start, stop, leaves, own) of batches of rows holding about
        _ENTRIES_PER_BATCH entries of the leaf lists."""
        lists = self._leaf_lists
        leaves_held = max(1, int(np.count_nonzero(np.diff(lists.offsets) > 0)))
        per_row = len(self._trees()) * max(1.0, lists.rows.size / leaves_held)
        step = max(1, int(_ENTRIES_PER_BATCH // per_row))
        for start in range(0, Xc.shape[0], step):
            stop = min(Xc.shape[0], start + step)
            yield (start, stop, *self._excluding(self._leaves(Xc[start:stop]),
                                                 None if own is None else own[start:stop],
                                                 lists))

    def quantile_ranks(self, X, y, kind="rank", aggregate_leaves_first=True,
                       oob_score=False, indices=None, duplicates=None):
        """Where each target falls in its row's predicted distribution.

        The share of the row's weighted training targets (the distribution ``predict``
        takes quantiles of: N copies, see Notes) below ``y``, in [0, 1], as
        quantile-forest's ``quantile_ranks`` and ``scipy.stats.percentileofscore``
        define it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            One target for each row (of each output).
        kind : {"rank", "weak", "strict", "mean"}, default="rank"
            "weak": the share of copies <= y (the distribution function); "strict":
            the share < y; "mean": their mean; "rank": the mean position of the
            copies equal to y, ``(L + R + 1) / 2N`` with L copies below and R at or
            below (``L / N`` when none equals y).
        aggregate_leaves_first : bool, default=True
            False: each tree's rank of y in its own leaf (its copies), averaged over
            the trees.
        oob_score : bool, default=False
            Out of bag, as ``predict(..., oob_score=True)``.
        indices : array-like of int of shape (n_samples,), default=None
            With ``oob_score``: the training row of each row of X (-1: not a training
            row, predicted by every tree); None: X is the training data.
        duplicates : list of list of int, default=None
            With ``oob_score``: sets of training rows that are copies of one another;
            a row is then left out of the trees grown with any of its copies.

        Returns
        -------
        ranks : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            NaN for a row that no tree predicts (out of bag: drawn by every tree).
        """
        check_is_fitted(self)
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}; got {kind!r}")
        Xc, own = self._reader_rows(X, oob_score, indices, duplicates)
        y = np.asarray(y, dtype=np.float64)
        k = self.n_outputs_
        if y.ndim == 2 and y.shape[1] == 1 and k == 1:
            y = y[:, 0]
        if y.shape != ((Xc.shape[0],) if k == 1 else (Xc.shape[0], k)):
            raise ValueError(f"y must hold one target for each of the {Xc.shape[0]} rows "
                             f"of X (and each of the {k} outputs); got shape {y.shape}")
        check_bool("aggregate_leaves_first", aggregate_leaves_first)
        if k > 1:
            return np.column_stack([self._ranks_of(Xc, y[:, o], own, kind,
                                                   aggregate_leaves_first, o)
                                    for o in range(k)])
        return self._ranks_of(Xc, y, own, kind, aggregate_leaves_first, 0)

    def _ranks_of(self, Xc, y, own, kind, aggregate_leaves_first, output):
        """quantile_ranks of one output."""
        out = np.empty(Xc.shape[0])
        lists = self._value_lists(output)
        T = len(self._trees())
        for start, stop, leaves, own_b in self._batches(Xc, own, lists):
            row, rank, count, copies, N, pair, share = leaf_entries(lists, leaves, own_b)
            n = stop - start
            if aggregate_leaves_first:
                out[start:stop] = _ranks(row, copies, N, lists.ys[rank], y[start:stop][row],
                                         n, kind)
            else:       # each tree's copies in its own leaf, the ranks averaged
                N_pair = np.bincount(pair, weights=count, minlength=n * T)
                ranks = _ranks(pair, share * N_pair[pair], N_pair, lists.ys[rank],
                               y[start:stop][row], n * T, kind).reshape(n, T)
                with np.errstate(invalid="ignore"):
                    out[start:stop] = (np.nansum(ranks, axis=1)
                                       / np.sum(~np.isnan(ranks), axis=1))
        if own is not None:
            warn_without_oob(np.isnan(out))
        return out

    def proximity_counts(self, X, max_proximities=None, return_sorted=True,
                         oob_score=False, indices=None, duplicates=None):
        """The training rows that share each row's leaves, and how often.

        Breiman's proximities: training row j's count for x is the sum, over the trees
        that predict x, of j's multiplicity in x's leaf (its bootstrap count; 1
        without bootstrap), as quantile-forest counts them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        max_proximities : int >= 1 or None, default=None
            Keep each row's this many largest counts (None: all).
        return_sorted : bool, default=True
            Largest count first (ties: lower training index first); False: by
            training index.
        oob_score : bool, default=False
            Only the trees that were not grown with the row (see ``predict``).
        indices : array-like of int of shape (n_samples,), default=None
            With ``oob_score``: the training row of each row of X (-1: none).
        duplicates : list of list of int, default=None
            With ``oob_score``: sets of training rows that are copies of one another
            (see ``predict``).

        Returns
        -------
        proximities : list of list of (int, int)
            For each row of X, (training row index, count) pairs.
        """
        check_is_fitted(self)
        if max_proximities is not None and (
                isinstance(max_proximities, (bool, np.bool_))
                or not isinstance(max_proximities, (int, np.integer))
                or max_proximities < 1):
            raise ValueError("max_proximities must be an int >= 1 or None; got "
                             f"{max_proximities!r}")
        check_bool("return_sorted", return_sorted)
        Xc, own = self._reader_rows(X, oob_score, indices, duplicates)
        lists = self._leaf_lists
        index_of = np.empty(lists.rank.size, dtype=np.int64)
        index_of[lists.rank] = np.arange(lists.rank.size)       # rank -> training row
        out = []
        for start, stop, leaves, own_b in self._batches(Xc, own, lists):
            row, rank, count = leaf_entries(lists, leaves, own_b)[:3]
            key = row * lists.rank.size + index_of[rank]
            keys, inverse = np.unique(key, return_inverse=True)
            totals = np.bincount(inverse, weights=count).astype(np.int64)
            rows, train = np.divmod(keys, lists.rank.size)
            bounds = np.searchsorted(rows, np.arange(stop - start + 1))
            for i in range(stop - start):
                t, c = train[bounds[i]:bounds[i + 1]], totals[bounds[i]:bounds[i + 1]]
                if return_sorted or max_proximities is not None:
                    order = np.lexsort((t, -c))[:max_proximities]
                    if not return_sorted:
                        order = np.sort(order)
                    t, c = t[order], c[order]
                out.append(list(zip(t.tolist(), c.tolist())))
        return out

    def _reader_rows(self, X, oob_score, indices, duplicates):
        """The checked rows and each one's own rank (out of bag), or None."""
        if not self._reader_checks(oob_score, indices, duplicates):
            return predict_input(self, X), None
        return self._oob_rows(X, indices, duplicates)

    @staticmethod
    def _reader_checks(oob_score, indices, duplicates):
        """The checks of the out-of-bag arguments; whether out of bag."""
        oob_score = check_bool("oob_score", oob_score)
        if not oob_score and (indices is not None or duplicates is not None):
            raise ValueError("indices and duplicates are read only with oob_score=True")
        return bool(oob_score)
