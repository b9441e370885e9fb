"""RandomForestClassifier and RandomForestRegressor: bagged presorted trees sharing one
presort, built in threads.  Here: each tree's draws and growth (_ForestJob, _grow_trees),
the random forest's hooks of the shared fit, out-of-bag sums and prediction; what both
kinds of forest share (the fit's template, checks, draw records) is in _ensemble.py."""
from dataclasses import dataclass, replace
from typing import Any, Optional

import numpy as np
from scipy.sparse import issparse
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.ensemble import RandomForestRegressor as _SklearnRandomForestRegressor
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from rotforest import _builder, _hist
from rotforest._ensemble import (_SEED_SCHEME, _TREE_PARAMS, _TREE_SEED_BOUND, _BaseForest,
                                 _ForestStructure, _NumericTargets, _TreeJob, _TreeSeeds,
                                 _VotingPredictions, _leaf_values, _settings_once,
                                 _tree_rng, check_ensemble_params, check_oob_target,
                                 check_whole_draws, draw_records, oob_regression_scored,
                                 oob_scored, register_as_sklearn_forest,
                                 set_tree_outputs, tree_template,
                                 warn_balanced_warm_start)
from rotforest._bins import (binned_features, check_max_bins, outputs_and_classes,
                             resolve_max_bins)
from rotforest._parallel import _presort_in_threads, _ranks_in_threads, _sum_over_trees
from rotforest._validation import (check_class_weight, check_real, check_tree_params,
                                   resolve_max_features, store_params)
from rotforest.pruning import prune_reduced_error
from rotforest._dependence import RecursionDependence
from rotforest._docs import shared_entries
from rotforest._inputs import (category_table, grows_on_entries, predict_input,
                               training_data)
from rotforest._sparse import canonical_csc, canonical_csr, sparse_columns
from rotforest.tree import DecisionTreeRegressor

__all__ = ["RandomForestClassifier", "RandomForestRegressor"]


def _draw_tree(base_seed, index, n_samples, n_draws, bootstrap, p=None, legacy=False,
               state=None):
    """The in-bag sample indices (with repeats) of one tree, drawn uniformly or with the
    probabilities ``p`` (the normalised sample weights), and the draw its seeds are made
    from (see _TreeSeeds).

    The draws are scikit-learn's for the tree's ``random_state`` (``first`` reduced
    below _TREE_SEED_BOUND): ``RandomState(random_state).randint(0, n, n_draws)``, or
    its ``choice`` with ``p``, as scikit-learn's forests draw each tree's sample from
    its seed; so tools that rebuild a forest's samples from its trees' seeds
    (forestci) get ours.  ``state``: a RandomState to reseed (making one costs about
    100 us).  ``legacy``: forests fitted before 2026-11-27, which drew from the tree's
    generator itself."""
    rng = _tree_rng(base_seed, index)
    first = int(rng.integers(np.iinfo(np.int64).max))
    if not bootstrap:
        return np.arange(n_samples), first
    if legacy:
        if p is None:
            return rng.integers(0, n_samples, n_draws), first
        return rng.choice(n_samples, n_draws, p=p), first
    if state is None:
        state = np.random.RandomState(first % _TREE_SEED_BOUND)
    else:
        state.seed(first % _TREE_SEED_BOUND)
    if p is None:
        return state.randint(0, n_samples, n_draws), first
    return state.choice(n_samples, n_draws, replace=True, p=p), first


# rows a chunk of a tree's bootstrap draw (see _unit_counts)
_DRAW_CHUNK = 1 << 20


def _unit_counts(base_seed, index, n_samples, n_draws, state):
    """_draw_tree's uniform bootstrap draw (not legacy) as uint8 counts, and its
    ``first``: RandomState.randint's draws made and counted in C (_hist.bag_counts),
    or beyond 2**32 rows drawn in chunks of _DRAW_CHUNK (randint continues one stream
    across calls: the same draws); no int64 array of n_draws is held.  None for the
    counts when a row is drawn more than 255 times."""
    rng = _tree_rng(base_seed, index)
    first = int(rng.integers(np.iinfo(np.int64).max))
    state.seed(first % _TREE_SEED_BOUND)
    if n_samples <= _hist.BAG_ROWS:
        # the same draws, made and counted in C (_hist.bag_counts)
        return _hist.bag_counts(state, n_samples, n_draws), first
    counts = np.zeros(n_samples, dtype=np.uint8)
    for start in range(0, n_draws, _DRAW_CHUNK):
        drawn = state.randint(0, n_samples, min(_DRAW_CHUNK, n_draws - start))
        if _hist.draw_counts(np.asarray(drawn, dtype=np.int64), n_samples,
                             out=counts) is None:
            return None, first
    return counts, first


def _in_bag(drawn, n_samples):
    """A tree's drawn indices as scikit-learn's forests give them: int32 (when every
    index fits)."""
    return drawn.astype(np.int32 if n_samples <= np.iinfo(np.int32).max else np.int64,
                        copy=False)


# Categorical features of more levels (ranks) than this take sets in every tree whatever
# categorical_set_fraction says (None: no such rule; a switch for measurement).
_SETS_ABOVE = None
# extra trees read the features that are not small integers from a float32 copy of X
# (the same trees; False: from X, for the benchmarks)
_FLOATS = True
# ... and the small-integer features mostly of one value (or of two values) through
# bits that mark the rows of other values (the same trees; False: every row's code)
_BITS = True
# A dense X whose columns store (hold other than 0.0) at most this many values on
# average is grown on as a sparse one (its entries listed per column, see _sparse.py):
# the same trees, and a node then reads a drawn feature's few entries instead of every
# sample's value.  Fits of 100 trees (benchmarks/bench_few_valued.py --sparse-rule): 0.3 to
# 0.8 of the dense path's time at 6 to 45 entries a column (600 to 10,000 rows, 500 to
# 10,000 columns of counts or binary words), 0.8 to 1.3 around 90 to 100, slower above
# (None: never).  The crossover in entries a column grows with the rows: so does a
# dense X of at most _SPARSE_SHARE of its cells stored (0.58 to 0.6 of the time at 0.2%
# to 0.4% of 50,000 to 100,000 rows; 0.76 to 0.92 at 0.5%, 1.1 to 1.24 at 1%).
_SPARSE_ENTRIES = 64
_SPARSE_SHARE = 0.004


def tree_categories(categories, base_seed, index, fraction):
    """Tree ``index``'s category table: each categorical feature of ``categories``
    (category_table's, or None) kept with probability ``fraction``, else split on
    thresholds of its codes in this tree (its mask entry set to 0); None when none is kept.
    Drawn from a stream of its own, so that the tree's other draws do not change."""
    if categories is None or fraction >= 1.0:
        return categories
    mask, offsets, codes = categories
    rng = np.random.default_rng(np.random.SeedSequence(base_seed, spawn_key=(index, 1)))
    ordered = (rng.random(mask.shape[0]) >= fraction) & (mask != 0)
    if _SETS_ABOVE is not None:
        # (for measurement) features of more levels than this: sets in every tree
        ordered &= np.diff(offsets) <= _SETS_ABOVE
    if not ordered.any():
        return categories
    mask = mask.copy()
    mask[ordered] = 0
    return (mask, offsets, codes) if mask.any() else None


def draw_probabilities(sw, bootstrap):
    """The probabilities with which a bootstrap draws the samples, as scikit-learn 1.9
    does: proportional to the sample weights (times class weights), whose trees then take
    the counts alone; None (uniform draws, counts times weights) when the weights are all
    equal, where both rules grow the same trees."""
    if not bootstrap or np.all(sw == sw[0]):
        return None
    return sw / sw.sum()


@dataclass(eq=False)
class _ForestJob(_TreeJob):
    """What every tree of a random forest's fit shares (see _TreeJob): instances of
    ``tree_class`` with the parameters ``params``; ``X``, its presorted ``keys`` and the
    dense ``ranks`` (or None) of the presort; ``y`` as given and ``target``: class codes
    (``n_values`` of them) or, for regression trees, the numeric targets (``n_values``
    1); ``sw`` divided by ``scaled_by`` (see weight_scale); the draws (``base_seed``,
    ``n_draws``, ``bootstrap``, ``p``: draw_probabilities); ``categories``:
    category_table's, or None, of which each tree keeps a feature with probability
    ``set_fraction`` (see tree_categories); ``template``: the fit's tree_template;
    ``legacy_seeds``: the trees are seeded as before 2026-11-27 (see _TreeSeeds);
    ``codes``: _builder.integer_codes', ``floats``: _builder.float_copy's, ``bits``:
    _builder.code_bits' (trees of random cuts on the values, no keys); ``col_top``:
    _builder.column_tops' of the keys (or None); ``tree_threads``: the threads each
    binned tree may grow its subtrees in (see _hist_forks.pxi)."""

    tree_class: type
    params: dict
    X: np.ndarray
    keys: np.ndarray
    y: np.ndarray
    target: np.ndarray
    sw: np.ndarray
    n_values: Any
    base_seed: int
    n_draws: int
    bootstrap: bool
    balanced_subsample: bool
    oob_pruning: bool
    progress: Any
    scaled_by: float
    p: Optional[np.ndarray]
    ranks: Optional[np.ndarray]
    categories: Optional[np.ndarray]
    set_fraction: float
    template: tuple
    legacy_seeds: bool = False
    codes: Optional[tuple] = None
    sparse: Optional[tuple] = None
    floats: Optional[tuple] = None
    bits: Optional[tuple] = None
    binned: Optional[tuple] = None
    col_top: Optional[np.ndarray] = None
    tree_threads: int = 1

    @property
    def cells(self):
        return self.X.size      # (a sparse X: its stored entries)


def _grow_trees(job, indices):
    """Build the trees ``indices`` one after the other (one worker's share) as the fit's
    ``job`` (a _ForestJob) says."""
    X, sw, p, target = job.X, job.sw, job.p, job.target
    n = X.shape[0]
    template = job.template
    seeds = _TreeSeeds(job.legacy_seeds)
    state = np.random.RandomState(0)        # reseeded for every tree's draw
    trees = []
    # the binned builder's buffers, reused by this worker's trees
    binned = (None if job.binned is None
              else job.binned + (_hist.Workspace(), job.tree_threads))
    # the binned builder takes bootstrap counts of unit weights as uint8 (a byte a row
    # where float64 holds eight)
    small = (binned is not None and job.bootstrap and p is None
             and not job.balanced_subsample and not job.oob_pruning
             and bool(np.all(sw == 1.0)))
    for index in indices:
        weights = drawn = None
        if small and not job.legacy_seeds:
            weights, first = _unit_counts(job.base_seed, index, n, job.n_draws, state)
        if weights is None:
            drawn, first = _draw_tree(job.base_seed, index, n, job.n_draws, job.bootstrap,
                                      p, job.legacy_seeds, state)
            weights = _hist.draw_counts(np.asarray(drawn, dtype=np.int64), n)
        random_state, seed = seeds(first)
        out = weights == 0 if job.oob_pruning else None
        if p is None and weights.dtype != np.uint8:
            # uniform draws: the counts times the weights (drawn by weight, the counts
            # alone carry them), in place: no array of n samples beyond the weights
            weights *= sw
        if job.balanced_subsample:
            weights *= compute_sample_weight("balanced", job.y, indices=drawn)
        del drawn
        tree = job.tree_class(random_state=random_state, **job.params)
        template = _settings_once(tree, template, n, X.shape[1], job.n_values)
        settings = dict(template[0])
        # features visited in a random order even when all are drawn: exact ties between
        # features (frequent in small nodes) go to a random one, as in scikit-learn's
        # forests, not always to the first (more diverse trees)
        settings["shuffle_features"] = True
        set_tree_outputs(tree, job.n_values)
        tree.n_features_in_ = X.shape[1]
        # every tree has weight: drawn by weight, or equal positive weights, or all rows
        own = tree_categories(job.categories, job.base_seed, index, job.set_fraction)
        tree.is_categorical_ = None if own is None else own[0] != 0
        tree._grow(X, job.keys, target, weights, settings, seed,
                   job.scaled_by if p is None else 1.0, ranks=job.ranks, categories=own,
                   value_codes=job.codes, sparse=job.sparse, floats=job.floats,
                   bits=job.bits, binned=binned, col_top=job.col_top)
        if job.oob_pruning and sw[out].sum() > 0:   # weighted draws may leave out only
            tree.tree_ = prune_reduced_error(     # samples of weight 0: nothing to tune on
                tree.tree_, X[out] if issparse(X) else np.ascontiguousarray(X[out]),
                target[out], sw[out], regression=tree._regression)
        trees.append(tree)
        if job.progress is not None:
            job.progress()
    return trees


def _oob_votes(trees, indices, X, base_seed, draws, n_classes, probabilities, legacy):
    """Sum of the class probabilities that the trees ``indices`` give the samples they
    did not see (the first n_classes columns: every value of a leaf, see _leaf_values),
    and how many trees voted for each sample (the last column)."""
    n = X.shape[0]
    sums = np.zeros((n, n_classes + 1))
    state = np.random.RandomState(0)
    for tree, index, n_draws, p in zip(trees, indices, draws, probabilities):
        drawn, _ = _draw_tree(base_seed, index, n, n_draws, True, p, legacy, state)
        out = np.bincount(drawn, minlength=n) == 0
        if np.any(out):
            sums[out, :n_classes] += _leaf_values(tree.tree_)[tree.tree_.apply(X[out])]
            sums[out, n_classes] += 1
    return sums


class _BaseRandomForest(_BaseForest):
    """What both random forests share: bagging on one shared presort, trees built in
    threads, warm starts, out-of-bag sums, importances and draws: the random forest's
    hooks of the shared fit (see _BaseForest).  Subclasses check the targets, say which
    trees they grow and how out-of-bag sums become a score."""

    # pickled before these: sets in every tree, the exact builder
    _pickle_defaults = dict(_BaseForest._pickle_defaults, categorical_set_fraction=1.0,
                            max_bins=None)
    _grower = staticmethod(_grow_trees)
    _sparse_native = True    # a sparse X is grown on as it is (see _sparse.py)

    def _grow_new(self, job, new, n_jobs):
        # fewer trees than threads: a binned tree grows its subtrees in the threads
        # left over (the same trees: see _hist_forks.pxi)
        if job.binned is not None and 0 < len(new) < n_jobs:
            job = replace(job, tree_threads=n_jobs // len(new))
        return super()._grow_new(job, new, n_jobs)

    def fit(self, X, y, sample_weight=None):
        """Build the forest on (X, y), optionally weighting the samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (converted to float64; NaN marks a missing value; a scipy
            sparse matrix is grown on as it is, never made dense).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (strings or numbers) for a classifier; numeric targets for a
            regressor (finite, and non-negative for ``criterion="poisson"``).  A 2-D y
            holds several outputs, one per column, fitted together.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights. With bootstrap, unequal weights (times class weights)
            set the probabilities with which each tree draws the samples, and the trees
            take the counts alone, as in scikit-learn 1.9; without bootstrap, or with
            equal weights, they multiply the counts.

        Returns
        -------
        self : object
            The fitted forest.
        """
        return self._atomic(self._fit, X, y, sample_weight)

    def _tree_params(self):
        return {name: getattr(self, name) for name in _TREE_PARAMS}

    def _check_params(self):
        check_ensemble_params(self)
        if not isinstance(self.oob_pruning, (bool, np.bool_)):
            raise TypeError(f"oob_pruning must be a bool; got {self.oob_pruning!r}")
        if self.oob_pruning and not self.bootstrap:
            raise ValueError("oob_pruning needs bootstrap=True: without it no sample is "
                             "out of bag")
        if self.oob_pruning and self.oob_score:
            raise ValueError("oob_score with oob_pruning would score every tree on the "
                             "samples it was pruned on (an optimistic score); use one of "
                             "them, or cross-validation")
        check_real("categorical_set_fraction", self.categorical_set_fraction, 0.0, 1.0)
        check_max_bins(getattr(self, "max_bins", None))
        check_tree_params(self._tree_class(**self._tree_params()))

    def _fit_plan(self, fit):
        """The draws' probabilities, and the trees' builder settings (tree_template)."""
        # (unequal weights are drawn by, not multiplied: no bootstrap total can overflow;
        # equal ones total at most their sum, which training_data checked)
        fit.p = draw_probabilities(fit.sw, self.bootstrap)
        fit.template = tree_template(self._tree_class, self._tree_params(), *fit.X.shape,
                                     fit.n_values)

    def _tree_job(self, fit, new):
        """The new trees' _ForestJob: the one presort of the fit (and its dense ranks,
        when the trees' nodes may sort), shared by every tree, and the category table."""
        X = fit.X
        ranks = keys = codes = sparse = floats = bits = None
        template = self._tree_class(**self._tree_params())
        template.is_categorical_ = getattr(self, "is_categorical_", None)
        binned = None
        max_bins = self._max_bins(fit) if hasattr(self, "max_bins") else None
        self.max_bins_ = max_bins
        if max_bins is not None:
            # the bins' codes of every row, once per forest (see _bins.py)
            binned = binned_features(X, max_bins, fit.n_jobs,
                                     getattr(self, "is_categorical_", None))
            if fit.sw.strides[0] and bool(np.all(fit.sw == 1.0)):
                # unit weights as one number seen n times (read only): no array of n
                # floats through the fit (80 MB at 10 million rows); each tree weighs
                # its rows by its own counts
                fit.sw = np.broadcast_to(np.float64(1.0), fit.sw.shape)
        elif issparse(X) or grows_on_entries(template, X, _SPARSE_ENTRIES, _SPARSE_SHARE):
            # the stored entries and their ranks, once per forest (see _sparse.py)
            sparse = sparse_columns(X if issparse(X) else canonical_csc(X))
            for part in sparse:
                part.setflags(write=False)
        elif template._needs_presort():
            keys = _presort_in_threads(X, fit.n_jobs)   # one sort per forest, every tree's
            keys.setflags(write=False)
        else:
            # extra trees grow on the values: features of small integers read as codes
            codes = _builder.integer_codes(X)
            # the other features from a float32 copy of X (half its bytes; see
            # _scan_random.pxi), kept for the fit
            if _FLOATS and (codes is None or not codes[1].all()):
                floats = _builder.float_copy(X, None if codes is None else codes[1])
            # and where a feature's codes are mostly one (blank pixels, one-hot
            # columns), which rows hold another: the others' codes are not read
            if _BITS and codes is not None:
                bits = _builder.code_bits(codes)
        categories = category_table(self, X, keys, binned)
        # every column's count of values (what each tree reads of the keys first), once
        col_top = None if keys is None else _builder.column_tops(keys, X.shape[0])
        # the trees' nodes may sort the features they draw (see the builder): their
        # dense ranks, also once per forest (1 to 4 bytes a cell)
        if keys is not None and _builder.needs_ranks(
                keys, X.shape[0], resolve_max_features(self.max_features, X.shape[1]),
                col_top):
            ranks = _ranks_in_threads(keys, X.shape[0], fit.n_jobs, col_top)
            ranks.setflags(write=False)
        return _ForestJob(
            self._tree_class, self._tree_params(), X, keys, fit.y, fit.target, fit.sw,
            fit.n_values, fit.base_seed, fit.n_draws, self.bootstrap,
            self._preset() == "balanced_subsample" and self.bootstrap,
            bool(self.oob_pruning), self._progress(len(new)), fit.scaled_by, fit.p, ranks,
            categories, float(self.categorical_set_fraction), fit.template,
            fit.legacy_seeds, codes, sparse, floats, bits, binned, col_top)

    def _max_bins(self, fit):
        """The fit's bins (see _bins.resolve_max_bins), or None."""
        return resolve_max_bins(self, fit.X, *outputs_and_classes(
            fit.target, fit.n_values, self._tree_class._regression))

    def _share_of(self, sw):
        """A float max_samples is a share of the weights' total, as in scikit-learn 1.9
        (whose draws follow the weights, as these do: see draw_probabilities)."""
        return None if np.all(sw == 1.0) else sw.sum()

    def _draw_record(self, fit):
        """The new trees' draw: samples, draws, bootstrap, and which of ``_draw_p`` (the
        probabilities of the fits so far, kept by _keep) it drew with (-1: uniformly)."""
        probabilities = list(getattr(self, "_draw_p", [])) if fit.warm else []
        which = next((i for i, q in enumerate(probabilities) if np.array_equal(q, fit.p)),
                     None) if fit.p is not None else -1
        if which is None:
            probabilities.append(fit.p)
            which = len(probabilities) - 1
        fit.draw_p = probabilities
        return [fit.X.shape[0], fit.n_draws, int(self.bootstrap), which]

    def _keep(self, fit, grown):
        self._draw_p = fit.draw_p
        trees = (list(self.estimators_) if fit.warm else []) + grown
        self.estimators_ = trees
        self.estimator_ = self._tree_class(**self._tree_params())
        for tree in trees:
            if fit.classes is not None:
                tree.classes_ = fit.classes
            if hasattr(self, "feature_names_in_"):
                tree.feature_names_in_ = self.feature_names_in_
            tree._category_maps = getattr(self, "_category_maps", {})  # export_text

    def _score_oob(self, fit, job):
        self._set_oob(fit.X, fit.y, fit.n_jobs)

    def _preset(self):
        """The class_weight preset ("balanced" or "balanced_subsample"), else None."""
        cw = getattr(self, "class_weight", None)
        return cw if isinstance(cw, str) else None

    def _tree_probabilities(self):
        """Each fitted tree's draw probabilities (None: uniform)."""
        records = draw_records(self)
        if records.shape[1] == 3:
            return [None] * records.shape[0]
        return [None if k < 0 else self._draw_p[k] for k in records[:, 3]]

    def _legacy_draws(self):
        """Whether the trees drew as forests fitted before 2026-11-27 did (see
        _draw_tree): a forest loaded from then, and warm-started since."""
        return getattr(self, "_seed_scheme", 1) < _SEED_SCHEME

    def _oob_sums(self, X, n_jobs, n_values):
        """The sums of the out-of-bag trees' leaf values of every sample, and how many
        trees left it out."""
        if issparse(X):
            X = canonical_csr(X)                    # rows, as the trees walk them
        draws = draw_records(self)[:, 1]            # every tree's own draw: same samples
        probabilities = self._tree_probabilities()  # (check_warm_start), maybe other weights
        both = _sum_over_trees(len(self.estimators_), n_jobs, lambda chunk: _oob_votes(
            self.estimators_[chunk.start:chunk.stop], chunk, X, self._base_seed,
            draws[chunk.start:chunk.stop], n_values,
            probabilities[chunk.start:chunk.stop], self._legacy_draws()))
        return both[:, :-1], both[:, -1]

    # --------------------------------------------------------------- prediction
    def _validate_X_predict(self, X):
        return predict_input(self, X)

    def _mean_leaf_values(self, X, n_values):
        """The mean over the trees of their leaves' values (n_values columns), summed in
        fixed blocks of trees whatever the number of threads."""
        X = self._validate_X_predict(X)
        n_jobs = self._prediction_jobs(X.shape[0])

        def block(trees):
            total = np.zeros((X.shape[0], n_values))
            for tree in self.estimators_[trees.start:trees.stop]:
                tree.tree_.add_leaf_values(X, _leaf_values(tree.tree_), total)
            return total

        return _sum_over_trees(len(self.estimators_), n_jobs, block) / len(self.estimators_)

    def _tree_rows(self, X):
        X = self._validate_X_predict(X)
        return ((tree, X) for tree in self.estimators_)

    @property
    def feature_importances_(self):
        """Mean over the trees of their normalised impurity-decrease importances.

        Returns
        -------
        importances : ndarray of shape (n_features,)
            Non-negative, summing to 1 (all zero when every tree is a single leaf).
        """
        check_is_fitted(self)
        per_tree = [t.tree_.compute_feature_importances() for t in self.estimators_
                    if t.tree_.node_count > 1]
        if not per_tree:
            return np.zeros(self.n_features_in_)
        mean = np.mean(per_tree, axis=0)
        total = mean.sum()     # 0 when every split decreased the impurity by nothing
        return mean / total if total > 0 else mean

    @property
    def estimators_samples_(self):
        """The in-bag sample indices of every tree, regenerated from the seeds.

        Returns
        -------
        samples : list of ndarray of int32
            One array per tree of the drawn sample indices, with repeats (every index
            when ``bootstrap=False``); int32 as scikit-learn's (int64 beyond its range).
        """
        check_is_fitted(self)
        check_whole_draws(self)
        records = draw_records(self)
        legacy, state = self._legacy_draws(), np.random.RandomState(0)
        return [_in_bag(_draw_tree(self._base_seed, i, int(n), int(draws),
                                   bool(self.bootstrap if boot < 0 else boot), p, legacy,
                                   state)[0], n)
                for i, ((n, draws, boot), p) in enumerate(zip(records[:, :3],
                                                             self._tree_probabilities()))]



class _ForestClassifier(_VotingPredictions, ClassifierMixin, _BaseRandomForest):
    """What the classifying forests of bagged trees share (the random forest's and the
    extra trees'): class weights and their presets, out-of-bag votes, probabilities."""

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        check_class_weight(self.class_weight, ("balanced", "balanced_subsample"), None)
        super()._check_params()

    def _forest_data(self, X, y, sample_weight, warm):
        """X, y, the class codes (int32), the weights (times class weights) and the
        classes."""
        # "balanced" from the weighted class totals, as scikit-learn 1.9's forests do
        whole = self.class_weight if isinstance(self.class_weight, dict) else None
        warn_balanced_warm_start(self)
        if isinstance(self.class_weight, list):
            whole = self.class_weight
        X, y, classes, y_enc, sw = training_data(self, X, y, sample_weight, whole,
                                                 reset=not warm)
        check_oob_target(self, y_enc)
        if self._preset() == "balanced" or (self._preset() == "balanced_subsample"
                                            and not self.bootstrap):
            # (scikit-learn's formula, weighted; without bootstrap every tree's sample is
            # the whole data, so balancing each is balancing it once, as scikit-learn does;
            # several outputs: the product of each one's)
            codes = y_enc.reshape(y_enc.shape[0], -1)
            factor = np.ones_like(sw)
            for o, c in enumerate(classes if y_enc.ndim == 2 else [classes]):
                totals = np.bincount(codes[:, o], weights=sw, minlength=len(c))
                share = np.divide(totals.sum(), len(c) * totals,
                                  out=np.zeros_like(totals), where=totals > 0)
                factor *= share[codes[:, o]]
            sw = sw * factor
        return X, y, np.ascontiguousarray(y_enc, dtype=np.int32), sw, classes

    def _set_oob(self, X, y, n_jobs):
        oob_scored(self, y, *self._oob_sums(X, n_jobs, self._value_width()))

    # --------------------------------------------------------------- prediction
    def predict_proba(self, X):
        """Class probabilities: the mean of the trees' leaf class fractions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes), or a list of such arrays
            Columns in the order of ``classes_`` (several outputs: one array per
            output).
        """
        check_is_fitted(self)
        return self._by_output(self._mean_leaf_values(X, self._value_width()))


# the max_bins entry of both random forests' docstrings
_MAX_BINS_DOC = """\
max_bins : "auto", int or None, default="auto"
    Grow the trees on binned features: each feature's values are cut once per fit
    into at most ``max_bins`` (2 to 255) bins of nearly equal counts (a feature of
    at most that many distinct values keeps them all), and the trees' splits are
    searched between bins, on histograms. Much faster on many rows, and the
    thresholds fall between bins instead of between every two values. None: the
    exact search, every threshold. "auto" (the default): 255 bins from
    200,000 rows on (from 200,000 x n_features / 64 rows for more than 64
    features), where binned growth is measured faster, exact otherwise. Binned
    growth takes dense features (categorical ones of at most ``max_bins``
    categories, a bin each), the gini, entropy, squared_error, friedman_mse and
    poisson criteria, several outputs, ``monotonic_cst`` and
    ``max_leaf_nodes=None``; otherwise "auto" grows exact and an int is refused. See
    :doc:`Random forests </user_guide/forests>`.

Attributes
----------
"""


@shared_entries(max_bins=_MAX_BINS_DOC)
class RandomForestClassifier(_ForestClassifier):
    """A random forest of presorted CART trees.

    The features are sorted once per fit and the sorted lists are shared, read-only, by
    all trees; each tree gets its bootstrap sample as integer counts (the builder's
    sample weights), so no data is copied per tree. Trees are built by ``n_jobs``
    threads running the GIL-free builder; for a given ``random_state`` the forest is the
    same whatever ``n_jobs`` is.

    Read more in the user guide: :doc:`Random forests </user_guide/forests>`.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    criterion : {"gini", "entropy", "log_loss", "error"}, default="gini"
        Impurity that every tree reduces (see :class:`DecisionTreeClassifier`).
    max_depth : int or None, default=None
        Maximum depth of every tree; None grows until the other rules stop it.
    min_samples_split : int or float, default=2
        Minimum number of samples a node needs to be split.
    min_samples_leaf : int or float, default=1
        Minimum number of samples in each child of a split.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child of a split.
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Features drawn at random at each node of each tree.
    max_leaf_nodes : int or None, default=None
        Grow every tree best-first up to this many leaves.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted impurity decrease is at least this.
    bootstrap : bool, default=True
        Draw each tree's samples with replacement; otherwise every tree sees all samples.
    oob_score : bool or callable, default=False
        Estimate the generalisation score on the out-of-bag samples (accuracy, or
        ``oob_score(y_true, y_pred)``). Needs ``bootstrap=True``.
    n_jobs : int or None, default=None
        Threads that build (and predict with) the trees; None means 1, -1 all cores.
        At most: trees too small to gain from threads get fewer (see the parallelism
        guide).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap samples and the trees; the same seed gives the same forest
        whatever ``n_jobs`` is.
    verbose : int, default=0
        1 reports progress every tenth of the trees, 2 after every tree.
    warm_start : bool, default=False
        Keep the fitted trees and add new ones up to ``n_estimators``.
    class_weight : dict, list of dict, "balanced", "balanced_subsample" or None, \
default=None
        Weights of the classes; "balanced_subsample" balances each tree's bootstrap
        sample (without bootstrap it is "balanced").  Several outputs: a list of one
        dict per output, whose weights multiply, or a preset.
    max_samples : int, float or None, default=None
        Size of each bootstrap sample, as in scikit-learn 1.9: an int is the number of
        draws, a float that share of the number of samples, or of the sample weights'
        total when they are given (rounded down, at least 1); either may exceed the
        number of samples. None: as many draws as there are samples.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning of every tree (see
        :class:`DecisionTreeClassifier`).
    oob_pruning : bool, default=False
        Prune every tree by reduced-error pruning, with its own out-of-bag samples as the
        tuning set. Needs ``bootstrap=True``.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonic constraints of every tree on the probability of the positive class (1
        rising, -1 falling, 0 free; two classes only), as in
        :class:`DecisionTreeClassifier`; the forest's average keeps them.
    categorical_features : "from_dtype", None or array-like of bool, int or str, \
default="from_dtype"
        Features whose values are categories, split on sets of categories (in the
        trees that ``categorical_set_fraction`` picks): "from_dtype" takes the
        ``category`` columns of a pandas DataFrame (none for other inputs), None takes
        none; or a boolean mask, feature indices or feature names. Categories are
        integer codes from 0 to 2**24 - 1 (a pandas ``category`` column is coded by
        its categories; NaN is missing); in a set split, a category that the node did not
        see in training goes where its missing values go (a code split as a number is
        compared with the thresholds). See
        :doc:`Categorical features </user_guide/categorical>`.
    min_category_samples : int, default=10
        In a node, a category with fewer training samples than this is not split off
        alone: such categories are pooled and go to one side together (otherwise splits
        on sets of categories fit the noise of rare ones). 1 pools none.
    categorical_set_fraction : float in [0, 1], default=0.5
        The probability that a tree splits a categorical feature on sets of categories,
        drawn for each tree and feature; in the other trees the feature is split on
        thresholds of its codes, as a number. Mixing the two is measured better than
        either alone (see :doc:`Categorical features </user_guide/categorical>`): the
        order of the codes, where it means something (months, grades), is not lost, and
        the trees differ more.
        1.0 splits every categorical feature on sets in every tree.
    <max_bins>
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    max_bins_ : int or None
        The bins the last fit grew its trees on; None when it searched every
        threshold (see ``max_bins``).
    estimators_ : list of DecisionTreeClassifier
        The fitted trees, each usable on its own (also ``forest[i]``, ``len(forest)``
        and ``iter(forest)``); each tree's ``random_state`` is below 2**31 - 1, and
        refitted on its bootstrap counts (times the weights) it grows again.
    estimator_ : DecisionTreeClassifier
        The unfitted template of the trees: the forest's tree parameters (each fitted
        tree also has its own ``random_state``).
    classes_ : ndarray of shape (n_classes,) or list of ndarray
        The class labels, sorted (several outputs: one array per output).
    n_classes_ : int or list of int
        Number of classes (several outputs: of each output).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during fit; only when X had string column names.
    n_outputs_ : int
        Number of outputs (columns of a 2-D y; 1 for a 1-D y).
    feature_importances_ : ndarray of shape (n_features,)
        Mean of the trees' normalised impurity-decrease importances.
    oob_score_ : float
        Out-of-bag score over the samples that some tree left out (scikit-learn scores
        the others as class 0); only with ``oob_score``. A callable ``oob_score``
        receives the labels as they are.
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Mean out-of-bag class probabilities of every training sample (NaN for a sample
        that every tree drew); only with ``oob_score``.  Several outputs (two classes
        each, as in scikit-learn): shape (n_samples, 2, n_outputs), and ``oob_score_``
        the share of samples with every output right.
    estimators_samples_ : list of ndarray of int32
        The in-bag sample indices (with repeats) of every tree.

    See Also
    --------
    DecisionTreeClassifier : The trees of this forest.
    RotationForestClassifier : Trees grown on random rotations of the features.
    sklearn.ensemble.RandomForestClassifier : scikit-learn's random forest.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from rotforest import RandomForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> forest.predict(X[:3]).tolist()
    [0, 0, 0]
    >>> len(forest.estimators_), forest.feature_importances_.round(2).tolist()
    (20, [0.11, 0.03, 0.42, 0.44])
    >>> forest = RandomForestClassifier(n_estimators=50, oob_score=True, n_jobs=2,
    ...                                 random_state=0).fit(X, y)
    >>> round(forest.oob_score_, 3)
    0.947
    """

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features="sqrt",
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        bootstrap=True,
        oob_score=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
        class_weight=None,
        max_samples=None,
        ccp_alpha=0.0,
        oob_pruning=False,
        monotonic_cst=None,
        categorical_features="from_dtype",
        min_category_samples=10,
        categorical_set_fraction=0.5,
        max_bins="auto",
    ):
        store_params(self, locals())


class _ForestRegressor(RecursionDependence, _NumericTargets, _ForestStructure,
                       RegressorMixin, _BaseRandomForest):
    """What the regressing forests of bagged trees share (the random forest's and the
    extra trees'): out-of-bag predictions, the mean prediction."""

    _tree_class = DecisionTreeRegressor

    def _set_oob(self, X, y, n_jobs):
        oob_regression_scored(self, y, *self._oob_sums(X, n_jobs, self.n_outputs_))

    def predict(self, X):
        """The mean of the trees' predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predicted values.
        """
        check_is_fitted(self)
        return self._by_output(self._mean_leaf_values(X, self.n_outputs_))


@shared_entries(max_bins=_MAX_BINS_DOC)
class RandomForestRegressor(_ForestRegressor):
    """A random forest of presorted CART regression trees.

    The same forest as :class:`RandomForestClassifier` (one presort shared by all trees,
    bootstrap samples as integer counts, trees built by ``n_jobs`` threads, the same
    forest for a ``random_state`` whatever ``n_jobs`` is), grown with
    :class:`DecisionTreeRegressor` trees; the prediction is the mean of the trees'.

    Read more in the user guide: :doc:`Regression </user_guide/regression>`.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    criterion : {"squared_error", "friedman_mse", "poisson", "absolute_error"}, \
            default="squared_error"
        Impurity that every tree reduces (see :class:`DecisionTreeRegressor`).
    max_depth : int or None, default=None
        Maximum depth of every tree; None grows until the other rules stop it.
    min_samples_split : int or float, default=2
        Minimum number of samples a node needs to be split.
    min_samples_leaf : int or float, default=1
        Minimum number of samples in each child of a split.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child of a split.
    max_features : int, float, {"sqrt", "log2"} or None, default=1.0
        Features drawn at random at each node of each tree (1.0, scikit-learn's
        default for regression: all of them, so the trees differ by their bootstrap
        samples alone).
    max_leaf_nodes : int or None, default=None
        Grow every tree best-first up to this many leaves.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted impurity decrease is at least this.
    bootstrap : bool, default=True
        Draw each tree's samples with replacement; otherwise every tree sees all samples.
    oob_score : bool or callable, default=False
        Estimate the generalisation score on the out-of-bag samples (R², or
        ``oob_score(y_true, y_pred)``). Needs ``bootstrap=True``.
    n_jobs : int or None, default=None
        Threads that build (and predict with) the trees; None means 1, -1 all cores.
        At most: trees too small to gain from threads get fewer (see the parallelism
        guide).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap samples and the trees; the same seed gives the same forest
        whatever ``n_jobs`` is.
    verbose : int, default=0
        1 reports progress every tenth of the trees, 2 after every tree.
    warm_start : bool, default=False
        Keep the fitted trees and add new ones up to ``n_estimators``.
    max_samples : int, float or None, default=None
        Size of each bootstrap sample, as in scikit-learn 1.9: an int is the number of
        draws, a float that share of the number of samples, or of the sample weights'
        total when they are given (rounded down, at least 1); either may exceed the
        number of samples. None: as many draws as there are samples.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning of every tree.
    oob_pruning : bool, default=False
        Prune every tree by reduced-error pruning (squared error), with its own
        out-of-bag samples as the tuning set. Needs ``bootstrap=True``.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonic constraints of every tree on the prediction (1 rising, -1 falling, 0
        free); the forest's average keeps them.
    categorical_features : "from_dtype", None or array-like of bool, int or str, \
default="from_dtype"
        Features whose values are categories, split on sets of categories (in the
        trees that ``categorical_set_fraction`` picks): "from_dtype" takes the
        ``category`` columns of a pandas DataFrame (none for other inputs), None takes
        none; or a boolean mask, feature indices or feature names. Categories are
        integer codes from 0 to 2**24 - 1 (a pandas ``category`` column is coded by
        its categories; NaN is missing); in a set split, a category that the node did not
        see in training goes where its missing values go (a code split as a number is
        compared with the thresholds). See
        :doc:`Categorical features </user_guide/categorical>`.
    min_category_samples : int, default=10
        In a node, a category with fewer training samples than this is not split off
        alone: such categories are pooled and go to one side together (otherwise splits
        on sets of categories fit the noise of rare ones). 1 pools none.
    categorical_set_fraction : float in [0, 1], default=0.5
        The probability that a tree splits a categorical feature on sets of categories,
        drawn for each tree and feature; in the other trees the feature is split on
        thresholds of its codes, as a number. Mixing the two is measured better than
        either alone (see :doc:`Categorical features </user_guide/categorical>`): the
        order of the codes, where it means something (months, grades), is not lost, and
        the trees differ more.
        1.0 splits every categorical feature on sets in every tree.
    <max_bins>
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    max_bins_ : int or None
        The bins the last fit grew its trees on; None when it searched every
        threshold (see ``max_bins``).
    estimators_ : list of DecisionTreeRegressor
        The fitted trees, each usable on its own (also ``forest[i]``, ``len(forest)``
        and ``iter(forest)``); each tree's ``random_state`` is below 2**31 - 1, and
        refitted on its bootstrap counts (times the weights) it grows again.
    estimator_ : DecisionTreeRegressor
        The unfitted template of the trees.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during fit; only when X had string column names.
    n_outputs_ : int
        Number of outputs (columns of a 2-D y; 1 for a 1-D y).
    feature_importances_ : ndarray of shape (n_features,)
        Mean of the trees' normalised impurity-decrease importances.
    oob_score_ : float
        Out-of-bag score over the samples that some tree left out; only with
        ``oob_score``.
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Mean out-of-bag prediction of every training sample (NaN for a sample that
        every tree drew); only with ``oob_score``.
    estimators_samples_ : list of ndarray of int32
        The in-bag sample indices (with repeats) of every tree.

    See Also
    --------
    DecisionTreeRegressor : The trees of this forest.
    sklearn.ensemble.RandomForestRegressor : scikit-learn's random forest.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from rotforest import RandomForestRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = RandomForestRegressor(n_estimators=50, oob_score=True, n_jobs=2,
    ...                                random_state=0).fit(X, y)
    >>> round(forest.oob_score_, 3)
    0.387
    >>> forest.predict(X[:2]).round(1).tolist()
    [165.4, 80.3]
    """

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=1.0,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        bootstrap=True,
        oob_score=False,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
        max_samples=None,
        ccp_alpha=0.0,
        oob_pruning=False,
        monotonic_cst=None,
        categorical_features="from_dtype",
        min_category_samples=10,
        categorical_set_fraction=0.5,
        max_bins="auto",
    ):
        store_params(self, locals())


# scikit-learn's partial_dependence takes (by default) and accepts the "recursion" method
# only for instances of its own tree-based estimators: this forest is registered as a
# virtual subclass of its RandomForestRegressor (an ABCMeta class) for that, and has the
# one method that path calls.  In scikit-learn 1.9 nothing else tests for that class or
# its bases (ForestRegressor, BaseForest, BaseEnsemble).  The rotation forests are not
# registered: partial_dependence uses the "brute" method for them and refuses
# "recursion".
_SklearnRandomForestRegressor.register(RandomForestRegressor)
# the classifier draws as scikit-learn's too: forestci's in-bag counts (see
# register_as_sklearn_forest)
register_as_sklearn_forest(RandomForestClassifier)
