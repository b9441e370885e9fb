"""What the two kinds of forest share (the random forests of forest.py and the rotation
forests of rotation.py): their tree parameters, parameter and warm-start checks, draw
records, out-of-bag scoring, the structure methods (apply, decision_path, votes), the
job objects' base (_TreeJob) and the one fit (_BaseForest._fit, a template whose hooks
each kind fills in).  forest.py and rotation.py hold what is their kind's own: each
tree's draws and growth, the fit's preparation, prediction."""
import math
import numbers
import types
import warnings

import numpy as np
from joblib import effective_n_jobs
from scipy.sparse import hstack as sparse_hstack
from sklearn.base import BaseEstimator
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from rotforest._inputs import check_targets, regression_data, weight_scale
from rotforest._mixins import (_AcceptsNaN, _AtomicFit, _LogProba, _stack_outputs,
                               subset_accuracy)
from rotforest._parallel import _Progress, _grow_in_threads
from rotforest._validation import _is_int, _is_real, check_int, check_tree_params
from rotforest.tree import DecisionTreeClassifier, builder_seed

# the parameters that a forest passes on to its trees (the rotation forests take all but
# monotonic_cst: see rotation.py)
_TREE_PARAMS = ("criterion", "max_depth", "min_samples_split", "min_samples_leaf",
                "min_weight_fraction_leaf", "max_features", "max_leaf_nodes",
                "min_impurity_decrease", "ccp_alpha", "monotonic_cst",
                "min_category_samples")


def _tree_rng(base_seed, index):
    """The generator of tree ``index``: a function of the forest's base seed and the
    tree's index only, so results depend neither on n_jobs nor on warm starts."""
    return np.random.default_rng(np.random.SeedSequence(base_seed, spawn_key=(index,)))


# scikit-learn's forests give their trees a random_state below this (and a tree's own fit
# takes one up to 2**32 - 1)
_TREE_SEED_BOUND = int(np.iinfo(np.int32).max)


class _TreeSeeds:
    """The seeds of a forest's trees, made from the first draw of each tree's generator
    (see _tree_rng), a 64-bit int (drawn so, as before, so that the draws after it are
    unchanged; a random forest's trees now draw their bootstrap samples from their
    random_state, as scikit-learn's do: see forest._draw_tree): ``seeds(drawn)`` is the
    tree's ``random_state``, below
    scikit-learn's bound (_TREE_SEED_BOUND), and the builder seed that the tree's own fit
    derives from that random_state (tree.builder_seed), so that a tree cloned from the
    forest and refitted on its draw grows again.  ``legacy``: forests fitted before
    these seeds (2026-11-27), warm-started, grow on as they began: the draw is both
    seeds.  One object per worker's share: it reseeds one RandomState (constructing one
    costs about 100 µs, reseeding about 1.5)."""

    def __init__(self, legacy=False):
        self._legacy = legacy
        self._state = np.random.RandomState(0)

    def __call__(self, drawn):
        if self._legacy:
            return drawn, drawn
        random_state = drawn % _TREE_SEED_BOUND
        self._state.seed(random_state)
        return random_state, builder_seed(self._state)


# the seeds of the forests fitted since 2026-11-27 (_TreeSeeds; absent: the older ones)
_SEED_SCHEME = 2


def _settings_once(tree, template, n_samples, n_features, n_classes):
    # (n_classes: an int, or several outputs' list: see value_counts)
    """The builder settings of one of a forest's trees, which share their parameters:
    checked and resolved for the first tree of a worker's share (``template`` None, or
    made for another number of features) and returned with that number as
    ``(settings, n_features)``, the template of the next tree; later trees only take
    ``max_features_`` from it.  (Per tree, the checks cost about as much Python as a
    small tree's whole build.)  The caller copies the settings before changing them."""
    if template is None or template[1] != n_features:
        limits = check_tree_params(tree)
        n_outputs = len(n_classes) if isinstance(n_classes, list) else 1
        return tree._builder_settings(n_samples, n_features, *limits,
                                      n_classes=n_classes, n_outputs=n_outputs), n_features
    tree.max_features_ = template[0]["max_features"]
    return template


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
        raise ValueError("Out of bag estimation only available if bootstrap=True: without "
                         "it no sample is out of bag")
    if est.max_samples is not None and not est.bootstrap:
        raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either switch "
                         "to `bootstrap=True` or set `max_sample=None`. (max_samples sizes "
                         "the bootstrap sample: it needs bootstrap=True)")
    check_max_samples(est.max_samples)
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
        records = np.tile(np.array(one, dtype=np.int64), (len(est._trees()), 1))
    return records


def check_whole_draws(est):
    """A clear error for the in-bag readers of a forest fitted by rotforest.dask (its
    trees drew their samples within their partitions)."""
    if getattr(est, "_partition_of_tree", None) is not None:
        raise ValueError(
            "this forest was fitted by rotforest.dask: each tree drew its sample within "
            "its row partition, so it has no in-bag indices into the whole X")


def warn_balanced_warm_start(est):
    """scikit-learn's warning: class weight presets are computed on each fit's data."""
    if est.warm_start and isinstance(est.class_weight, str):   # (checked: a preset)
        warnings.warn('class_weight presets "balanced" or "balanced_subsample" are not '
                      "recommended for warm_start if the fitted data differs from the "
                      "full dataset: the class weights are computed on each fit's y",
                      UserWarning)


def value_counts(classes, target):
    """What a forest's fit calls ``n_values``: the classes of one output (an int; a
    regressor's 1), or with several outputs the list of each one's (1s for a
    regressor)."""
    if target.ndim == 2:
        return ([len(c) for c in classes] if classes is not None
                else [1] * target.shape[1])
    return 1 if classes is None else len(classes)


def set_tree_outputs(tree, n_values):
    """A forest's tree's classes (codes) and outputs before it grows: ``n_values`` is
    the fit's (see value_counts)."""
    if isinstance(n_values, list):          # several outputs
        if not tree._regression:
            tree.classes_ = [np.arange(k) for k in n_values]
            tree.n_classes_ = np.array(n_values, dtype=np.intp)
        tree.n_outputs_ = len(n_values)
    else:
        if not tree._regression:
            tree.classes_ = np.arange(n_values)
            tree.n_classes_ = n_values
        tree.n_outputs_ = 1


def _same_classes(classes, fitted):
    """Whether the classes of a fit (an array, or several outputs' list of arrays)
    are the fitted ones."""
    if isinstance(classes, list) != isinstance(fitted, list):
        return False
    if not isinstance(classes, list):
        classes, fitted = [classes], [fitted]
    return len(classes) == len(fitted) and all(
        len(a) == len(b) and np.all(a == b) for a, b in zip(classes, fitted))


def check_warm_start(est, classes, n_samples, n_draws, n_outputs=1):
    """With warm_start and fitted trees: the forest may only grow, on the same classes.
    Trees may be added on other data or draws (each tree's draw is recorded), but an
    out-of-bag score needs every tree drawn from the same samples.  (The number of
    features and their names are checked with X.)"""
    if est.n_estimators < len(est._trees()):
        raise ValueError(f"n_estimators={est.n_estimators} must be at least the "
                         f"{len(est._trees())} trees already fitted when warm_start is on")
    if n_outputs != getattr(est, "n_outputs_", 1):
        raise ValueError(f"warm_start: y has {n_outputs} output(s), the fitted forest "
                         f"{est.n_outputs_}")
    if classes is not None and not _same_classes(classes, est.classes_):
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
    warnings.warn("Warm-start fitting without increasing n_estimators does not fit new "
                  "trees: the forest is unchanged (no new trees)",
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
    probabilities and how many trees left each sample out.  Several outputs: the
    sums hold each output's (the most classes of one) in turn, the decision function
    is (n_samples, classes, outputs) as scikit-learn's, and the accuracy is that of
    every output right (scikit-learn's, which scores multilabel targets only)."""
    seen = counts > 0
    m = est.n_outputs_
    with np.errstate(invalid="ignore", divide="ignore"):
        votes = sums / counts[:, None]
    check_oob_seen(seen)
    if m == 1:
        est.oob_decision_function_ = votes
        predicted = est.classes_.take(np.argmax(votes[seen], axis=1), axis=0)
    else:
        votes = votes.reshape(votes.shape[0], m, -1)
        est.oob_decision_function_ = np.ascontiguousarray(votes.transpose(0, 2, 1))
        predicted = _stack_outputs([c.take(np.argmax(votes[seen, o, :len(c)], axis=1))
                                    for o, c in enumerate(est.classes_)])
    if callable(est.oob_score):
        est.oob_score_ = float(est.oob_score(y[seen], predicted))
    elif m == 1:
        est.oob_score_ = float(accuracy_score(y[seen], predicted))
    else:
        est.oob_score_ = subset_accuracy(y[seen], predicted)


def _leaf_values(tree):
    """A tree's node values as rows (several outputs: each output's in turn)."""
    return tree.value.reshape(tree.value.shape[0], -1)


def check_oob_target(est, y):
    """scikit-learn's refusal of out-of-bag scores for several outputs of which one has
    more than two classes (``type_of_target`` of the class codes ``y``
    "multiclass-multioutput"), before the trees grow."""
    if est.oob_score and y.ndim == 2:
        kind = type_of_target(y)
        if kind not in ("binary", "multiclass", "multilabel-indicator"):
            raise ValueError(f"The type of target cannot be used to compute OOB estimates. "
                             f"Got {kind} while only the following are supported: binary, "
                             "multiclass, multilabel-indicator (several outputs: two "
                             "classes each).")


def oob_regression_scored(est, y, sums, counts):
    """Set a regressing forest's ``oob_prediction_`` and ``oob_score_`` (R², or the
    callable ``oob_score``'s score) from the sums of the out-of-bag trees' predictions
    and how many trees left each sample out (several outputs: a column each)."""
    seen = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        prediction = sums / counts[:, None]
    est.oob_prediction_ = prediction[:, 0] if est.n_outputs_ == 1 else prediction
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


# the most draws a bootstrap sample may have (the builder counts samples in int64)
_MAX_DRAWS = int(np.iinfo(np.int64).max)


def check_max_samples(max_samples):
    """scikit-learn's rule (1.5 on): None, an int >= 1 or a float > 0 (finite), either of
    them above the number of samples too."""
    if max_samples is None:
        return
    what = "max_samples must be None, an int >= 1 or a float > 0"
    if not (_is_int(max_samples) or _is_real(max_samples)):
        raise TypeError(f"{what}; got {max_samples!r} of type {type(max_samples).__name__}")
    if _is_int(max_samples):
        if max_samples < 1:
            raise ValueError(f"{what}; got {max_samples!r}")
        if max_samples > _MAX_DRAWS:
            raise ValueError(f"max_samples must be at most {_MAX_DRAWS}; got {max_samples!r}")
    elif not (max_samples > 0 and math.isfinite(max_samples)):    # (NaN fails both)
        raise ValueError(f"{what}; got {max_samples!r}")


def resolve_max_samples(max_samples, n_samples, total=None):
    """Bootstrap sample size as scikit-learn's forests (1.9) resolve it: n_samples for
    None, an int as it is (also above n_samples), a float as that share of ``total``
    (the sum of the sample weights; None: n_samples), rounded down, at least 1, with
    scikit-learn's warning when that gives suspiciously few draws."""
    if max_samples is None:
        return n_samples
    check_max_samples(max_samples)
    if _is_int(max_samples):
        return int(max_samples)
    of = n_samples if total is None else float(total)
    drawn = float(max_samples) * of
    if not drawn < _MAX_DRAWS:
        raise ValueError(f"max_samples={max_samples!r} of {of} would draw {drawn:.3g} "
                         f"samples per tree, more than {_MAX_DRAWS}")
    n_draws = max(int(drawn), 1)
    if n_draws < max(10, n_samples ** (1 / 3)):
        whole = ("the number of samples" if total is None
                 else "the sum of the sample weights")
        warnings.warn(f"max_samples={max_samples!r} of {whole} ({of}) gives only "
                      f"{n_draws} bootstrap draw{'' if n_draws == 1 else 's'} per tree; "
                      "pass max_samples as an int to choose the number of draws",
                      UserWarning)
    return n_draws


class _ForestStructure:
    """apply and decision_path of a forest, from ``_tree_rows(X)``: the (tree, rows it
    reads) pairs, X checked when it is called."""

    def _prediction_jobs(self, n_rows):
        # threads pay off only when there is enough work per thread
        if n_rows * len(self._trees()) < 200_000:
            return 1
        return min(effective_n_jobs(self.n_jobs), len(self._trees()))

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


class _VotingPredictions(_LogProba, _ForestStructure):
    """predict and predict_log_proba of a classifying forest, from its predict_proba."""

    def predict(self, X):
        """The class of highest mean probability (the first one on a tie).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predicted labels, taken from ``classes_``.
        """
        proba = self.predict_proba(X)
        if isinstance(proba, list):     # several outputs
            return _stack_outputs([c.take(np.argmax(p, axis=1), axis=0)
                                   for c, p in zip(self.classes_, proba)])
        return self.classes_.take(np.argmax(proba, axis=1), axis=0)


class _TreeJob:
    """Base of a kind's job: what every tree of one fit shares (its fields, a dataclass
    in each kind's module), handed to the kind's worker as ``grow(job, indices)``.  The
    same object goes to every chunk of trees, so that joblib's dask backend scatters it
    once per fit, recognising it by identity: it does so for an argument whose
    ``dask.sizeof`` (``sys.getsizeof`` for an object, which calls ``__sizeof__``) is
    over 1 kB, hence ``__sizeof__`` counts the arrays the job holds (``nbytes``: those
    of its own fields; the few small arrays inside other objects are not counted)."""

    @property
    def nbytes(self):
        return sum(value.nbytes for value in vars(self).values()
                   if isinstance(value, np.ndarray))

    def __sizeof__(self):
        return object.__sizeof__(self) + self.nbytes


class _Fit(types.SimpleNamespace):
    """What one fit has resolved, handed from step to step of _BaseForest._fit: ``warm``,
    the checked data (``X``, ``y``, ``target``: class codes or numeric targets, ``sw``:
    the weights divided by ``scaled_by``, ``classes``: None for a regressor,
    ``n_values``: the number of classes, 1 for a regressor), ``n_draws`` (the bootstrap
    sample size), ``base_seed``, ``legacy_seeds`` (a warm start of a forest fitted
    before the trees' seeds of _TreeSeeds: its new trees are seeded as its first ones
    were), ``n_fitted`` (the trees kept from a warm start) and ``n_jobs``; a kind's
    hooks add their own fields."""


class _BaseForest(_AcceptsNaN, _AtomicFit, BaseEstimator):
    """What both kinds of forest share: the fit, a template (``_fit``) of which each kind
    fills in the hooks:

    - ``_check_fit()``, ``_check_draws(sw, n_draws)``, ``_check_warm()``: the kind's
      checks of the data, of the draws and of a warm start (none by default);
    - ``_share_of(sw)``: the total of which a float ``max_samples`` is a share (None:
      the number of samples; see resolve_max_samples);
    - ``_fit_plan(fit)``: the kind's preparation, before the check that a warm start
      adds trees (so that such a fit refuses what a fresh one would);
    - ``_tree_job(fit, new)``: the job of the new trees (see _TreeJob), what they
      share, prepared only when there are trees to grow; the kind's worker
      (``_grower``, ``grow(job, indices)``) grows them;
    - ``_draw_record(fit)``: the row of the draw records (see draw_records) of every
      new tree;
    - ``_keep(fit, grown)``: the fitted trees (``estimators_``, ``estimator_``) and the
      kind's own fitted attributes;
    - ``_score_oob(fit, job)``: the out-of-bag score (``job`` None: a warm start that
      grew no tree, scored again).

    The fit either completes or leaves the forest unchanged (_AtomicFit).

    Fitted, a forest is also the sequence of its trees, as scikit-learn's ensembles
    (BaseEnsemble) are: ``len(forest)``, ``forest[i]``, ``iter(forest)``."""

    _tree_class = DecisionTreeClassifier
    _grower = None      # the kind's worker: grow(job, indices) -> the trees of indices

    def _value_width(self):
        """The values of a leaf: each output's classes (the most of one), or 1."""
        classes = np.max(self.n_classes_) if hasattr(self, "classes_") else 1
        return self.n_outputs_ * int(classes)

    def _by_output(self, mean):
        """The trees' mean leaf values (_value_width columns) as predict_proba (a
        classifier: an array, or one per output) or predict (a regressor: a column, or
        one per output) returns them."""
        if not hasattr(self, "classes_"):
            return mean[:, 0] if self.n_outputs_ == 1 else mean
        if self.n_outputs_ == 1:
            return mean
        mean = mean.reshape(mean.shape[0], self.n_outputs_, -1)
        return [mean[:, o, :k] for o, k in enumerate(self.n_classes_)]

    # ------------------------------------------------- scikit-learn's ensemble protocol
    def __len__(self):
        """The number of fitted trees (NotFittedError, an AttributeError as scikit-learn's
        forests raise, before fit)."""
        check_is_fitted(self, "estimators_")
        return len(self._trees())

    def __getitem__(self, index):
        """The fitted tree ``index`` (a list of them for a slice)."""
        check_is_fitted(self, "estimators_")
        return self.estimators_[index]

    def __iter__(self):
        """The fitted trees, in order."""
        check_is_fitted(self, "estimators_")
        return iter(self.estimators_)

    def __bool__(self):
        # an estimator is true, fitted or not (without this, bool() would call __len__,
        # which refuses an unfitted forest, as scikit-learn's forests do)
        return True

    def _trees(self):
        """The fitted trees themselves (a rotation forest's read its rotated rows)."""
        return self.estimators_

    @property
    def estimator(self):
        """The kind of tree the forest grows, as scikit-learn's forests have it.

        Returns
        -------
        tree : DecisionTreeClassifier or DecisionTreeRegressor
            A new unfitted tree with default parameters (``estimator_``, set by fit,
            holds the forest's own tree parameters).
        """
        return self._tree_class()

    def _fit(self, X, y, sample_weight):
        self._check_params()
        fit = self._fit_data(X, y, sample_weight)
        self._fit_plan(fit)
        new = list(range(fit.n_fitted, self.n_estimators))
        if fit.warm and not new:
            warn_no_new_trees()
            if self.oob_score:          # asked for now, or again: as scikit-learn does
                self._score_oob(fit, None)
            return self
        job = self._tree_job(fit, new)
        grown = self._grow_new(job, new, fit.n_jobs)
        self._keep_forest(fit, len(new))
        self._keep(fit, grown)
        if self.oob_score:
            self._score_oob(fit, job)
        else:
            drop_oob(self)
        return self

    def _fit_data(self, X, y, sample_weight):
        """The fit's checked data (see _forest_data), draws, weights and base seed (a
        warm start's is the first fit's), in a _Fit."""
        warm = self.warm_start and hasattr(self, "estimators_")
        X, y, target, sw, classes = self._forest_data(X, y, sample_weight, warm)
        self._check_fit()
        n = X.shape[0]
        n_draws = (resolve_max_samples(self.max_samples, n, self._share_of(sw))
                   if self.bootstrap else n)
        self._check_draws(sw, n_draws)
        scaled_by = weight_scale(sw)            # weights far from 1: see weight_scale
        sw = sw / scaled_by if scaled_by != 1.0 else sw
        if warm:
            check_warm_start(self, classes, n, n_draws, 1 if y.ndim == 1 else y.shape[1])
            self._check_warm()
            base_seed = self._base_seed
        else:
            base_seed = int(check_random_state(self.random_state).randint(
                np.iinfo(np.int32).max))
        return _Fit(warm=warm, X=X, y=y, target=target, sw=sw, classes=classes,
                    n_values=value_counts(classes, target), n_draws=n_draws,
                    n_outputs=1 if target.ndim == 1 else target.shape[1],
                    scaled_by=scaled_by, base_seed=base_seed,
                    legacy_seeds=warm and getattr(self, "_seed_scheme", 1) < _SEED_SCHEME,
                    n_fitted=len(self._trees()) if warm else 0,
                    n_jobs=effective_n_jobs(self.n_jobs))

    def _check_fit(self):
        pass

    def _share_of(self, sw):
        return None

    def _check_draws(self, sw, n_draws):
        pass

    def _check_warm(self):
        pass

    def _progress(self, n_trees):
        """The progress reporter of n_trees new trees (None when not verbose)."""
        return _Progress(n_trees, self.verbose) if self.verbose else None

    def _grow_new(self, job, new, n_jobs):
        """The trees ``new``, grown by the kind's worker from the one ``job`` for every
        chunk (see _TreeJob), in threads (see _grow_in_threads)."""
        return _grow_in_threads(self._grower, lambda chunk: (job, chunk), new, n_jobs,
                                job.cells)

    def _keep_forest(self, fit, n_new):
        """What every forest keeps of a fit: the classes, the base seed and each new
        tree's draw record (older records padded with -1, unknown)."""
        if fit.classes is not None:
            self.classes_ = fit.classes
            # (several outputs: a list, as scikit-learn's forests keep it)
            self.n_classes_ = (fit.n_values if fit.n_outputs > 1 else len(fit.classes))
        self.n_outputs_ = fit.n_outputs
        self._base_seed = fit.base_seed
        if not fit.legacy_seeds:
            self._seed_scheme = _SEED_SCHEME
        row = np.array(self._draw_record(fit), dtype=np.int64)
        old = draw_records(self) if fit.warm else np.zeros((0, row.size), dtype=np.int64)
        if old.shape[1] < row.size:     # random forests fitted before weighted draws
            old = np.hstack([old, np.full((old.shape[0], row.size - old.shape[1]), -1,
                                          dtype=np.int64)])
        self._draw_records = np.vstack([old, np.tile(row, (n_new, 1))])


def register_as_sklearn_forest(cls):
    """Registers ``cls`` as a virtual subclass of scikit-learn's (private) BaseForest,
    the class that tools rebuilding a forest's bootstrap samples test for (forestci's
    ``calc_inbag`` fills in-bag counts only for its instances, and all zeros otherwise).
    Every forest registered draws each tree's sample as scikit-learn's forests do for the
    tree's ``random_state`` (see forest._draw_tree, rotation._tree_draws).  In
    scikit-learn 1.6 to 1.9 nothing else tests for BaseForest; without it (a release
    that moves it), nothing is registered."""
    try:
        from sklearn.ensemble._forest import BaseForest
    except ImportError:                                         # pragma: no cover
        return cls
    BaseForest.register(cls)
    return cls
