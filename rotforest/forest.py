"""RandomForestClassifier and RandomForestRegressor: bagged presorted trees sharing one
presort, built in threads."""
import numbers
import warnings

import numpy as np
from joblib import effective_n_jobs
from scipy.sparse import hstack as sparse_hstack
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.ensemble import RandomForestRegressor as _SklearnRandomForestRegressor
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted, validate_data

from rotforest import _builder
from rotforest._parallel import (_Progress, _grow_in_threads, _presort_in_threads,
                                 _ranks_in_threads, _sum_over_trees)
from rotforest._validation import (check_class_weight, check_int, check_real,
                                   check_tree_params, densify, resolve_max_features,
                                   store_params)
from rotforest.pruning import prune_reduced_error
from rotforest._dependence import RecursionDependence
from rotforest._inputs import (category_table, check_targets, predict_input,
                               regression_data, training_data, weight_scale)
from rotforest.tree import DecisionTreeClassifier, DecisionTreeRegressor, _AcceptsNaN, _AtomicFit

__all__ = ["RandomForestClassifier", "RandomForestRegressor"]

_TREE_PARAMS = ("criterion", "max_depth", "min_samples_split", "min_samples_leaf",
                "min_weight_fraction_leaf", "max_features", "max_leaf_nodes",
                "min_impurity_decrease", "ccp_alpha", "monotonic_cst",
                "min_category_samples")


def _tree_rng(base_seed, index):
    """The generator of tree ``index``: a function of the forest's base seed and the
    tree's index only, so results depend neither on n_jobs nor on warm starts."""
    return np.random.default_rng(np.random.SeedSequence(base_seed, spawn_key=(index,)))


def _draw_tree(base_seed, index, n_samples, n_draws, bootstrap, p=None):
    """The in-bag sample indices (with repeats) and the builder seed of one tree: drawn
    uniformly, or with the probabilities ``p`` (the normalised sample weights)."""
    rng = _tree_rng(base_seed, index)
    seed = int(rng.integers(np.iinfo(np.int64).max))
    if not bootstrap:
        return np.arange(n_samples), seed
    if p is None:
        return rng.integers(0, n_samples, n_draws), seed
    return rng.choice(n_samples, n_draws, p=p), seed


def tree_categories(categories, base_seed, index, fraction):
    """Tree ``index``'s category table: each categorical feature of ``categories``
    (category_table's, or None) kept with probability ``fraction``, else split on
    thresholds of its codes in this tree (its row set to -1); None when none is kept.
    Drawn from a stream of its own, so that the tree's other draws do not change."""
    if categories is None or fraction >= 1.0:
        return categories
    rng = np.random.default_rng(np.random.SeedSequence(base_seed, spawn_key=(index, 1)))
    ordered = (rng.random(categories.shape[0]) >= fraction) & (categories[:, 0] >= 0)
    if not ordered.any():
        return categories
    categories = categories.copy()
    categories[ordered] = -1
    return categories if (categories[:, 0] >= 0).any() else None


def draw_probabilities(sw, bootstrap):
    """The probabilities with which a bootstrap draws the samples, as scikit-learn 1.9
    does: proportional to the sample weights (times class weights), whose trees then take
    the counts alone; None (uniform draws, counts times weights) when the weights are all
    equal, where both rules grow the same trees."""
    if not bootstrap or np.all(sw == sw[0]):
        return None
    return sw / sw.sum()


def _settings_once(tree, template, n_samples, n_features, n_classes):
    """The builder settings of one of a forest's trees, which share their parameters:
    checked and resolved for the first tree of a worker's share (``template`` None, or
    made for another number of features) and returned with that number as
    ``(settings, n_features)``, the template of the next tree; later trees only take
    ``max_features_`` from it.  (Per tree, the checks cost about as much Python as a
    small tree's whole build.)  The caller copies the settings before changing them."""
    if template is None or template[1] != n_features:
        limits = check_tree_params(tree)
        return tree._builder_settings(n_samples, n_features, *limits,
                                      n_classes=n_classes), n_features
    tree.max_features_ = template[0]["max_features"]
    return template


def _grow_trees(tree_class, forest_params, indices, X, keys, y, y_enc, sw, n_classes,
                base_seed, n_draws, bootstrap, balanced_subsample, oob_pruning, progress,
                scaled_by, p, ranks=None, categories=None, set_fraction=1.0,
                template=None):
    """Build the trees ``indices`` one after the other (one worker's share), instances
    of ``tree_class``: ``y_enc`` holds class codes (n_classes of them) or, for regression
    trees, the numeric targets (n_classes 1); ``sw`` was divided by ``scaled_by`` (see
    weight_scale); ``p``: draw_probabilities; ``ranks``: the presort's dense ranks, or
    None; ``categories``: category_table's, or None, of which each tree keeps a feature
    with probability ``set_fraction`` (see tree_categories); ``template``: the fit's
    tree_template (None: made from the first tree)."""
    n = X.shape[0]
    trees = []
    for index in indices:
        drawn, seed = _draw_tree(base_seed, index, n, n_draws, bootstrap, p)
        weights = np.bincount(drawn, minlength=n).astype(np.float64)   # bootstrap counts
        out = weights == 0 if oob_pruning else None
        if p is None:          # drawn by weight: the counts alone carry the weights
            weights *= sw      # in place: no array of n samples is held beyond the weights
        if balanced_subsample:
            weights *= compute_sample_weight("balanced", y, indices=drawn)
        del drawn
        tree = tree_class(random_state=seed, **forest_params)
        template = _settings_once(tree, template, n, X.shape[1], n_classes)
        settings = dict(template[0])
        # features visited in a random order even when all are drawn: exact ties between
        # features (frequent in small nodes) go to a random one, as in scikit-learn's
        # forests, not always to the first (more diverse trees)
        settings["shuffle_features"] = True
        if not tree._regression:
            tree.classes_ = np.arange(n_classes)
            tree.n_classes_ = n_classes
        tree.n_outputs_ = 1
        tree.n_features_in_ = X.shape[1]
        # every tree has weight: drawn by weight, or equal positive weights, or all rows
        own = tree_categories(categories, base_seed, index, set_fraction)
        tree.is_categorical_ = None if own is None else own[:, 0] >= 0
        tree._grow(X, keys, y_enc, weights, settings, seed, scaled_by if p is None else 1.0,
                   ranks=ranks, categories=own)
        if oob_pruning and sw[out].sum() > 0:   # weighted draws may leave out only
            tree.tree_ = prune_reduced_error(     # samples of weight 0: nothing to tune on
                tree.tree_, np.ascontiguousarray(X[out]), y_enc[out], sw[out],
                regression=tree._regression)
        trees.append(tree)
        if progress is not None:
            progress()
    return trees


def _oob_votes(trees, indices, X, base_seed, draws, n_classes, probabilities):
    """Sum of the class probabilities that the trees ``indices`` give the samples they
    did not see (the first n_classes columns), and how many trees voted for each sample
    (the last column)."""
    n = X.shape[0]
    sums = np.zeros((n, n_classes + 1))
    for tree, index, n_draws, p in zip(trees, indices, draws, probabilities):
        drawn, _ = _draw_tree(base_seed, index, n, n_draws, True, p)
        out = np.bincount(drawn, minlength=n) == 0
        if np.any(out):
            sums[out, :n_classes] += tree.tree_.value[tree.tree_.apply(X[out]), 0, :]
            sums[out, n_classes] += 1
    return sums


# Far beyond any forest that fits in memory: a larger n_estimators gets a clear error
# instead of an overflow or a MemoryError.
_MAX_TREES = (1 << 31) - 1


def check_ensemble_params(est):
    """Checks common to rotforest's forests (n_estimators, verbose, bootstrap, oob_score,
    max_samples, n_jobs)."""
    check_int("n_estimators", est.n_estimators, 1)
    if est.n_estimators > _MAX_TREES:
        raise ValueError(f"n_estimators must be at most {_MAX_TREES}; got {est.n_estimators}")
    check_int("verbose", est.verbose, 0)
    if not isinstance(est.bootstrap, (bool, np.bool_)):
        raise TypeError(f"bootstrap must be a bool; got {est.bootstrap!r}")
    if not (isinstance(est.oob_score, (bool, np.bool_)) or callable(est.oob_score)):
        raise TypeError(f"oob_score must be a bool or a callable; got {est.oob_score!r}")
    if est.oob_score and not est.bootstrap:
        raise ValueError("oob_score needs bootstrap=True: without it no sample is out of bag")
    if est.max_samples is not None and not est.bootstrap:
        raise ValueError("max_samples needs bootstrap=True")
    if not isinstance(est.warm_start, (bool, np.bool_)):
        raise TypeError(f"warm_start must be a bool; got {est.warm_start!r}")
    if est.n_jobs is not None and (not isinstance(est.n_jobs, numbers.Integral)
                                   or isinstance(est.n_jobs, (bool, np.bool_))):
        raise TypeError(f"n_jobs must be an int or None; got {est.n_jobs!r}")
    if est.n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, -1 or a positive int")


def draw_records(est):
    """Every fitted tree's draw: (number of samples, draws, bootstrap as 0/1, and in the
    random forest the index into ``_draw_p`` of its draw probabilities, -1 for uniform),
    one row a tree, from which its bootstrap sample is regenerated.  Warm starts may add trees
    drawn otherwise.  Forests pickled before the records existed had one draw for all
    trees; what they did not store (bootstrap; the rotation forest's number of samples)
    is -1, unknown."""
    records = getattr(est, "_draw_records", None)
    if records is None:
        one = [getattr(est, "_n_samples_fitted", -1), est._n_draws_fitted, -1]
        records = np.tile(np.array(one, dtype=np.int64), (len(est.estimators_), 1))
    return records


def warn_balanced_warm_start(est):
    """scikit-learn's warning: class weight presets are computed on each fit's data."""
    if est.warm_start and isinstance(est.class_weight, str):   # (checked: a preset)
        warnings.warn('class_weight presets "balanced" or "balanced_subsample" are not '
                      "recommended for warm_start if the fitted data differs from the "
                      "full dataset: the class weights are computed on each fit's y",
                      UserWarning)


def check_warm_start(est, classes, n_samples, n_draws):
    """With warm_start and fitted trees: the forest may only grow, on the same classes.
    Trees may be added on other data or draws (each tree's draw is recorded), but an
    out-of-bag score needs every tree drawn from the same samples.  (The number of
    features and their names are checked with X.)"""
    if est.n_estimators < len(est.estimators_):
        raise ValueError(f"n_estimators={est.n_estimators} must be at least the "
                         f"{len(est.estimators_)} trees already fitted when warm_start is on")
    if classes is not None and (len(classes) != est.n_classes_
                                or np.any(classes != est.classes_)):
        raise ValueError("warm_start: y has other classes than the fitted forest")
    if est.oob_score:
        records = draw_records(est)[:, :3]
        if np.any(records < 0):
            raise ValueError("warm_start with oob_score: this forest was fitted by an older "
                             "rotforest, which did not record how its trees drew their "
                             "samples; fit it anew to score it out of bag")
        now = np.array([n_samples, n_draws, int(est.bootstrap)])
        differ = np.flatnonzero(np.any(records != now, axis=1))
        if differ.size:
            n0, d0, b0 = records[differ[0]]
            raise ValueError(
                f"warm_start with oob_score needs every tree drawn as this fit draws "
                f"({n_samples} samples, {n_draws} draws, bootstrap={bool(est.bootstrap)}); "
                f"tree {differ[0]} was drawn from {n0} samples, {d0} draws, "
                f"bootstrap={bool(b0)}: its out-of-bag samples are not this data's")


def tree_template(tree_class, params, n_samples, n_features, n_classes):
    """The trees' builder settings, resolved once per fit as _settings_once's template
    (the workers start from it).  Made before any tree is grown, so that a fit that
    grows none (a warm start without new trees) refuses what a fresh fit would."""
    return _settings_once(tree_class(**params), None, n_samples, n_features, n_classes)


def warn_no_new_trees():
    warnings.warn("warm_start with no new trees to fit: the forest is unchanged",
                  UserWarning)


def drop_oob(est):
    """Forget the out-of-bag results of an earlier fit (a fit without oob_score that
    changed the forest: they would describe other trees, maybe other data)."""
    for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
        est.__dict__.pop(name, None)


def check_oob_seen(seen):
    """A warning when some samples were in every tree's bootstrap sample, and a clear
    error when all were (``seen``: the mask of samples some tree left out)."""
    if not seen.any():
        n = seen.size
        raise ValueError(f"oob_score: with {n} sample{'' if n == 1 else 's'}, every tree "
                         "drew every sample, so none is out of bag; use more samples or "
                         "trees, or oob_score=False")
    if not seen.all():
        warnings.warn("Some inputs do not have OOB scores. This probably means too few "
                      "trees were used to compute any reliable OOB estimates.",
                      UserWarning)


def oob_scored(est, y, sums, counts):
    """Set a classifying forest's ``oob_decision_function_`` and ``oob_score_`` (accuracy,
    or the callable ``oob_score``'s score) from the sums of the out-of-bag trees' class
    probabilities and how many trees left each sample out."""
    seen = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        est.oob_decision_function_ = sums / counts[:, None]
    check_oob_seen(seen)
    predicted = est.classes_.take(np.argmax(est.oob_decision_function_[seen], axis=1),
                                  axis=0)
    scorer = est.oob_score if callable(est.oob_score) else accuracy_score
    est.oob_score_ = float(scorer(y[seen], predicted))


def oob_regression_scored(est, y, sums, counts):
    """Set a regressing forest's ``oob_prediction_`` and ``oob_score_`` (R², or the
    callable ``oob_score``'s score) from the sums of the out-of-bag trees' predictions
    and how many trees left each sample out."""
    seen = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        est.oob_prediction_ = sums[:, 0] / counts
    check_oob_seen(seen)
    scorer = est.oob_score if callable(est.oob_score) else r2_score
    est.oob_score_ = float(scorer(y[seen], est.oob_prediction_[seen]))


class _NumericTargets:
    """The targets of a regressing forest: X, y, the targets (float64) twice, the
    weights, and no classes."""

    def _forest_data(self, X, y, sample_weight, warm):
        X, y, sw = regression_data(self, X, y, sample_weight, reset=not warm)
        check_targets(y, self.criterion, sw)
        return X, y, y, sw, None


def resolve_max_samples(max_samples, n_samples):
    """Bootstrap sample size: n_samples for None, an int as it is, a float as a fraction."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, numbers.Integral) and not isinstance(max_samples, bool):
        check_int("max_samples", max_samples, 1)
        if max_samples > n_samples:
            raise ValueError(f"max_samples ({max_samples}) must be at most n_samples "
                             f"({n_samples})")
        return int(max_samples)
    frac = check_real("max_samples", max_samples, 0.0, 1.0, low_open=True)
    return max(1, round(n_samples * frac))


class _ForestStructure:
    """apply and decision_path of a forest, from ``_tree_rows(X)``: the (tree, rows it
    reads) pairs, X checked when it is called."""

    def _prediction_jobs(self, n_rows):
        # threads pay off only when there is enough work per thread
        if n_rows * len(self.estimators_) < 200_000:
            return 1
        return min(effective_n_jobs(self.n_jobs), len(self.estimators_))

    def apply(self, X):
        """Leaf index of every sample in every tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        leaves : ndarray of shape (n_samples, n_estimators)
            Column ``i`` holds the node ids of the leaves reached in tree ``i``.
        """
        return np.column_stack([tree.tree_.apply(rows) for tree, rows in self._tree_rows(X)])

    def decision_path(self, X):
        """The nodes that each sample visits in all trees.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, total node count)
            Entry (i, j) is 1 when sample i passes through node j; the trees' nodes are
            side by side.
        n_nodes_ptr : ndarray of shape (n_estimators + 1,)
            Tree ``k``'s nodes are the columns ``n_nodes_ptr[k]:n_nodes_ptr[k + 1]``.
        """
        paths = [tree.tree_.decision_path(rows) for tree, rows in self._tree_rows(X)]
        n_nodes_ptr = np.cumsum([0] + [p.shape[1] for p in paths])
        return sparse_hstack(paths).tocsr(), n_nodes_ptr


class _VotingPredictions(_ForestStructure):
    """predict and predict_log_proba of a classifying forest, from its predict_proba."""

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            ``-inf`` where no tree gives the class any probability.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The class of highest mean probability (the first one on a tie).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted labels, taken from ``classes_``.
        """
        proba = self.predict_proba(X)
        return self.classes_.take(np.argmax(proba, axis=1), axis=0)


class _BaseRandomForest(_AcceptsNaN, _AtomicFit, BaseEstimator):
    """What both random forests share: bagging on one shared presort, trees built in
    threads, warm starts, out-of-bag sums, importances and draws.  Subclasses check the
    targets, say which trees they grow and how out-of-bag sums become a score."""

    _tree_class = DecisionTreeClassifier
    _pickle_defaults = dict(_AtomicFit._pickle_defaults, categorical_set_fraction=1.0)

    def fit(self, X, y, sample_weight=None):
        """Build the forest on (X, y), optionally weighting the samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (converted to float64; NaN marks a missing value; a scipy
            sparse matrix is expanded to a dense array).
        y : array-like of shape (n_samples,)
            Class labels (strings or numbers) for a classifier; numeric targets for a
            regressor (finite, and non-negative for ``criterion="poisson"``).
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
        check_tree_params(self._tree_class(**self._tree_params()))

    def _fit(self, X, y, sample_weight):
        self._check_params()
        warm = self.warm_start and hasattr(self, "estimators_")
        X, y, codes, sw, classes = self._forest_data(X, y, sample_weight, warm)
        n_values = 1 if classes is None else len(classes)
        n = X.shape[0]
        n_draws = resolve_max_samples(self.max_samples, n)
        scaled_by = weight_scale(sw)            # weights far from 1: see weight_scale
        sw = sw / scaled_by if scaled_by != 1.0 else sw
        # (unequal weights are drawn by, not multiplied: no bootstrap total can overflow;
        # equal ones total at most their sum, which training_data checked)
        p = draw_probabilities(sw, self.bootstrap)
        if warm:
            check_warm_start(self, classes, n, n_draws)
            trees = list(self.estimators_)
            base_seed = self._base_seed
        else:
            trees = []
            base_seed = int(check_random_state(self.random_state).randint(
                np.iinfo(np.int32).max))
        new = list(range(len(trees), self.n_estimators))
        template = tree_template(self._tree_class, self._tree_params(), n, X.shape[1],
                                 n_values)
        if warm and not new:
            warn_no_new_trees()
            if self.oob_score:          # asked for now, or again: as scikit-learn does
                self._set_oob(X, y, effective_n_jobs(self.n_jobs))
            return self

        n_jobs = effective_n_jobs(self.n_jobs)
        keys = _presort_in_threads(X, n_jobs)   # one sort per forest, shared by every tree
        keys.setflags(write=False)
        categories = category_table(self, X, keys)
        # the trees' nodes may sort the features they draw (see the builder): their
        # dense ranks, also once per forest (1 to 4 bytes a cell)
        ranks = None
        if _builder.needs_ranks(keys, X.shape[0], resolve_max_features(self.max_features,
                                                                       X.shape[1])):
            ranks = _ranks_in_threads(keys, X.shape[0], n_jobs)
            ranks.setflags(write=False)
        progress = _Progress(len(new), self.verbose) if self.verbose else None
        # the same array objects for every chunk: a distributed joblib backend (dask)
        # ships each argument once per fit, recognising it by identity
        trees.extend(_grow_in_threads(_grow_trees, lambda chunk: (
            self._tree_class, self._tree_params(), chunk, X, keys, y, codes, sw,
            n_values, base_seed, n_draws, self.bootstrap,
            self._preset() == "balanced_subsample" and self.bootstrap,
            bool(self.oob_pruning), progress, scaled_by, p, ranks, categories,
            float(self.categorical_set_fraction), template), new, n_jobs, X.size))

        if classes is not None:
            self.classes_ = classes
            self.n_classes_ = len(classes)
        self.n_outputs_ = 1
        self._base_seed = base_seed
        # each tree's draw: samples, draws, bootstrap, and which of _draw_p it drew with
        # (-1: uniformly)
        probabilities = list(getattr(self, "_draw_p", [])) if warm else []
        which = next((i for i, q in enumerate(probabilities) if np.array_equal(q, p)),
                     None) if p is not None else -1
        if which is None:
            probabilities.append(p)
            which = len(probabilities) - 1
        old = draw_records(self) if warm else np.zeros((0, 4), dtype=np.int64)
        if old.shape[1] == 3:                   # forests fitted before weighted draws
            old = np.hstack([old, np.full((old.shape[0], 1), -1, dtype=np.int64)])
        self._draw_records = np.vstack(
            [old, np.tile(np.array([n, n_draws, int(self.bootstrap), which], dtype=np.int64),
                          (len(new), 1))])
        self._draw_p = probabilities
        self.estimators_ = trees
        self.estimator_ = self._tree_class(**self._tree_params())
        for tree in trees:
            if classes is not None:
                tree.classes_ = classes
            if hasattr(self, "feature_names_in_"):
                tree.feature_names_in_ = self.feature_names_in_
            tree._category_maps = getattr(self, "_category_maps", {})  # export_text
        if self.oob_score:
            self._set_oob(X, y, n_jobs)
        else:
            drop_oob(self)
        return self

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

    def _oob_sums(self, X, n_jobs, n_values):
        """The sums of the out-of-bag trees' leaf values of every sample, and how many
        trees left it out."""
        draws = draw_records(self)[:, 1]            # every tree's own draw: same samples
        probabilities = self._tree_probabilities()  # (check_warm_start), maybe other weights
        both = _sum_over_trees(len(self.estimators_), n_jobs, lambda chunk: _oob_votes(
            self.estimators_[chunk.start:chunk.stop], chunk, X, self._base_seed,
            draws[chunk.start:chunk.stop], n_values,
            probabilities[chunk.start:chunk.stop]))
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
                total += tree.tree_.value[tree.tree_.apply(X), 0, :]
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
        samples : list of ndarray
            One array per tree of the drawn sample indices, with repeats (every index
            when ``bootstrap=False``).
        """
        check_is_fitted(self)
        records = draw_records(self)
        return [_draw_tree(self._base_seed, i, int(n), int(draws),
                           bool(self.bootstrap if boot < 0 else boot), p)[0]  # < 0: unknown
                for i, ((n, draws, boot), p) in enumerate(zip(records[:, :3],
                                                             self._tree_probabilities()))]


class RandomForestClassifier(_VotingPredictions, ClassifierMixin, _BaseRandomForest):
    """A random forest of presorted CART trees.

    The features are sorted once per fit and the sorted lists are shared, read-only, by
    all trees; each tree gets its bootstrap sample as integer counts (the builder's
    sample weights), so no data is copied per tree. Trees are built by ``n_jobs``
    threads running the GIL-free builder; for a given ``random_state`` the forest is the
    same whatever ``n_jobs`` is.

    Read more in the user guide: :doc:`/user_guide/forests`.

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
    class_weight : dict, "balanced", "balanced_subsample" or None, default=None
        Weights of the classes; "balanced_subsample" balances each tree's bootstrap
        sample (without bootstrap it is "balanced").
    max_samples : int, float or None, default=None
        Size of each bootstrap sample (a float is a fraction of the samples; None: as
        many as there are samples).
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
        integer codes from 0 to 254 (a pandas ``category`` column is coded by its
        categories; NaN is missing); in a set split, a category that the node did not
        see in training goes where its missing values go (a code split as a number is
        compared with the thresholds). See
        :doc:`/user_guide/categorical`.
    min_category_samples : int, default=10
        In a node, a category with fewer training samples than this is not split off
        alone: such categories are pooled and go to one side together (otherwise splits
        on sets of categories fit the noise of rare ones). 1 pools none.
    categorical_set_fraction : float in [0, 1], default=0.5
        The probability that a tree splits a categorical feature on sets of categories,
        drawn for each tree and feature; in the other trees the feature is split on
        thresholds of its codes, as a number. Mixing the two is measured better than
        either alone (see :doc:`/user_guide/categorical`): the order of the codes, where
        it means something (months, grades), is not lost, and the trees differ more.
        1.0 splits every categorical feature on sets in every tree.

    Attributes
    ----------
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    estimators_ : list of DecisionTreeClassifier
        The fitted trees, each usable on its own.
    estimator_ : DecisionTreeClassifier
        The unfitted template of the trees: the forest's tree parameters (each fitted
        tree also has its own ``random_state``).
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during fit; only when X had string column names.
    n_outputs_ : int
        Always 1 (one target).
    feature_importances_ : ndarray of shape (n_features,)
        Mean of the trees' normalised impurity-decrease importances.
    oob_score_ : float
        Out-of-bag score over the samples that some tree left out (scikit-learn scores
        the others as class 0); only with ``oob_score``. A callable ``oob_score``
        receives the labels as they are.
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Mean out-of-bag class probabilities of every training sample (NaN for a sample
        that every tree drew); only with ``oob_score``.
    estimators_samples_ : list of ndarray
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
    (20, [0.13, 0.03, 0.43, 0.41])
    >>> forest = RandomForestClassifier(n_estimators=50, oob_score=True, n_jobs=2,
    ...                                 random_state=0).fit(X, y)
    >>> round(forest.oob_score_, 3)
    0.953
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
    ):
        store_params(self, locals())

    # ------------------------------------------------------------------ fitting
    def _check_params(self):
        check_class_weight(self.class_weight, ("balanced", "balanced_subsample"))
        super()._check_params()

    def _forest_data(self, X, y, sample_weight, warm):
        """X, y, the class codes (int32), the weights (times class weights) and the
        classes."""
        # "balanced" from the weighted class totals, as scikit-learn 1.9's forests do
        whole = self.class_weight if isinstance(self.class_weight, dict) else None
        warn_balanced_warm_start(self)
        X, y, classes, y_enc, sw = training_data(self, X, y, sample_weight, whole,
                                                 reset=not warm)
        if self._preset() == "balanced" or (self._preset() == "balanced_subsample"
                                            and not self.bootstrap):
            # (scikit-learn's formula, weighted; without bootstrap every tree's sample is
            # the whole data, so balancing each is balancing it once, as scikit-learn does)
            totals = np.bincount(y_enc, weights=sw, minlength=len(classes))
            share = np.divide(totals.sum(), len(classes) * totals,
                              out=np.zeros_like(totals), where=totals > 0)
            sw = sw * share[y_enc]
        return X, y, y_enc.astype(np.int32), sw, classes

    def _set_oob(self, X, y, n_jobs):
        oob_scored(self, y, *self._oob_sums(X, n_jobs, self.n_classes_))

    # --------------------------------------------------------------- prediction
    def predict_proba(self, X):
        """Class probabilities: the mean of the trees' leaf class fractions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        return self._mean_leaf_values(X, self.n_classes_)


class RandomForestRegressor(RecursionDependence, _NumericTargets, _ForestStructure,
                            RegressorMixin, _BaseRandomForest):
    """A random forest of presorted CART regression trees.

    The same forest as :class:`RandomForestClassifier` (one presort shared by all trees,
    bootstrap samples as integer counts, trees built by ``n_jobs`` threads, the same
    forest for a ``random_state`` whatever ``n_jobs`` is), grown with
    :class:`DecisionTreeRegressor` trees; the prediction is the mean of the trees'.

    Read more in the user guide: :doc:`/user_guide/regression`.

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
        Size of each bootstrap sample (a float is a fraction of the samples; None: as
        many as there are samples).
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
        integer codes from 0 to 254 (a pandas ``category`` column is coded by its
        categories; NaN is missing); in a set split, a category that the node did not
        see in training goes where its missing values go (a code split as a number is
        compared with the thresholds). See
        :doc:`/user_guide/categorical`.
    min_category_samples : int, default=10
        In a node, a category with fewer training samples than this is not split off
        alone: such categories are pooled and go to one side together (otherwise splits
        on sets of categories fit the noise of rare ones). 1 pools none.
    categorical_set_fraction : float in [0, 1], default=0.5
        The probability that a tree splits a categorical feature on sets of categories,
        drawn for each tree and feature; in the other trees the feature is split on
        thresholds of its codes, as a number. Mixing the two is measured better than
        either alone (see :doc:`/user_guide/categorical`): the order of the codes, where
        it means something (months, grades), is not lost, and the trees differ more.
        1.0 splits every categorical feature on sets in every tree.

    Attributes
    ----------
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    estimators_ : list of DecisionTreeRegressor
        The fitted trees, each usable on its own.
    estimator_ : DecisionTreeRegressor
        The unfitted template of the trees.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during fit; only when X had string column names.
    n_outputs_ : int
        Always 1 (one target).
    feature_importances_ : ndarray of shape (n_features,)
        Mean of the trees' normalised impurity-decrease importances.
    oob_score_ : float
        Out-of-bag score over the samples that some tree left out; only with
        ``oob_score``.
    oob_prediction_ : ndarray of shape (n_samples,)
        Mean out-of-bag prediction of every training sample (NaN for a sample that
        every tree drew); only with ``oob_score``.
    estimators_samples_ : list of ndarray
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
    0.413
    >>> forest.predict(X[:2]).round(1).tolist()
    [189.5, 84.1]
    """

    _tree_class = DecisionTreeRegressor

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
    ):
        store_params(self, locals())

    def _set_oob(self, X, y, n_jobs):
        oob_regression_scored(self, y, *self._oob_sums(X, n_jobs, 1))

    def predict(self, X):
        """The mean of the trees' predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted values.
        """
        return self._mean_leaf_values(X, 1)[:, 0]


# scikit-learn's partial_dependence takes (by default) and accepts the "recursion" method
# only for instances of its own tree-based estimators: this forest is registered as a
# virtual subclass of its RandomForestRegressor (an ABCMeta class) for that, and has the
# one method that path calls.  In scikit-learn 1.9 nothing else tests for that class or
# its bases (ForestRegressor, BaseForest, BaseEnsemble).  The rotation forests are not
# registered: partial_dependence uses the "brute" method for them and refuses
# "recursion".
_SklearnRandomForestRegressor.register(RandomForestRegressor)
