"""RotationForestClassifier and RotationForestRegressor: presorted trees grown on randomly
rotated, normalised features.  Here: each tree's draws, rotation and growth
(_RotationJob, _grow_rotated), the screening forest and relevance-drawn subsets on wide
data, the rotation forest's hooks of the shared fit, prediction by blocks of trees; what
both kinds of forest share (the fit's template, checks, draw records) is in
_ensemble.py, the rotation maths in _rotate.py."""
import threading
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from rotforest import _builder
from rotforest._validation import (
    check_class_weight,
    check_int,
    check_option,
    check_tree_params,
    resolve_max_features,
    store_params,
)
from rotforest._parallel import _SUM_BLOCK, _sum_over_trees
from rotforest._rotate import (_Rotated, _normalisation, _normalise, _rotated_features,
                               _shares, draw_rotation)
from rotforest._ensemble import _TREE_PARAMS as _FOREST_TREE_PARAMS
from rotforest._ensemble import (
    _BaseForest,
    _ForestStructure,
    _NumericTargets,
    _TreeJob,
    _TREE_SEED_BOUND,
    _TreeSeeds,
    _VotingPredictions,
    _leaf_values,
    _settings_once,
    _tree_rng,
    check_ensemble_params,
    check_oob_target,
    check_whole_draws,
    draw_records,
    oob_regression_scored,
    oob_scored,
    register_as_sklearn_forest,
    set_tree_outputs,
    tree_template,
    warn_balanced_warm_start,
)
# (the screening forest of wide data: see screen_relevance)
from rotforest.forest import RandomForestClassifier, RandomForestRegressor, _in_bag
from rotforest._inputs import predict_input, training_data
from rotforest.tree import DecisionTreeRegressor
from rotforest._bins import (binned_features, check_max_bins, outputs_and_classes,
                             resolve_max_bins)
from rotforest._categorical import check_categorical_params
from rotforest._docs import shared_entries
from rotforest._rotated_tree import RotatedTreeClassifier, RotatedTreeRegressor

__all__ = ["RotationForestClassifier", "RotationForestRegressor", "RotatedTreeClassifier",
           "RotatedTreeRegressor"]

# the random forests' tree parameters but monotonic_cst (the axes are not the features)
_TREE_PARAMS = tuple(name for name in _FOREST_TREE_PARAMS if name != "monotonic_cst")

# rows of test data projected at once (bounds the memory of predict_proba)
_BATCH_CELLS = 4_000_000
# up to this many projected values, rows are projected for all trees at once in one task
# (the fixed cost of a projection per block of trees would dominate; above it, blocks of
# trees are faster even in one thread: 2,000 rows x 20 features x 100 trees take 11.5
# ms by blocks, 22 ms at once; 100 rows 1.2 ms by blocks, 1.0 ms at once)
_ONE_PROJECTION_CELLS = 500_000


# a regression forest's PCA draws rows from random subsets of this many quantile bins of
# the target, as a classifier's draws them from random subsets of the classes (chosen by
# measurement: see RotationForestRegressor)
_TARGET_BINS = 4

# Wide data (more rotated features than max_rotated_features, subset_sampling "mixed"
# or "relevance"): a screening forest of _SCREEN_TREES trees (depth at most
# _SCREEN_DEPTH; None: unlimited) measures each feature's relevance once per fit; a tree
# that draws by relevance takes _RELEVANT_SHARE of its subset by squared relevance and
# the rest uniformly ("mixed": the even-numbered trees; the others draw uniformly).
# Chosen by measurement: see the rotation guide's wide-data section and
# benchmarks/bench_wide_default.py.
_SCREEN_TREES = 20
_SCREEN_DEPTH = None
# the screening forest's nodes draw this share of the features (the square root where
# that is more): with the square root, at 10,000 features (15 informative, 1,000 rows)
# the default reached 0.602 accuracy against 0.703 for all-features trees; with a tenth,
# 0.701 (3-fold CV), at a screen of 0.44 s against 0.15 s
_SCREEN_SHARE = 0.1
_RELEVANT_SHARE = 0.8
_UNIFORM_FLOOR = 0.01
# max_bins="auto" bins each tree's axes from this many rows (more for wide data):
# benchmarks/bench_binned.py --rotation, 10 trees, 20 features, binned fit over exact
# 1.85 at 200,000 rows, 1.05 at a million, 0.64 at four million
_AUTO_BIN_ROWS = 2_000_000

def _sklearn_draw(random_state, n, n_draws):
    """A tree's bootstrap sample by scikit-learn's forests' rule for its seed."""
    return np.random.RandomState(random_state).randint(0, n, n_draws)


def _tree_draws(base_seed, index, n, n_draws, bootstrap, as_sklearn=True, drawn=False):
    """Tree ``index``'s generator, the draw its seeds are made from (see _TreeSeeds) and
    its bootstrap counts (None without bootstrap; ``drawn``: the drawn indices instead,
    with repeats), so that they can be regenerated alone.  The sample is scikit-learn's
    for the tree's ``random_state``, ``RandomState(random_state).randint(0, n,
    n_draws)`` (what forestci reads); ``as_sklearn`` False: forests fitted before
    2026-11-29 and their warm starts, which drew from the tree's generator before its
    rotation."""
    rng = _tree_rng(base_seed, index)
    first = int(rng.integers(np.iinfo(np.int64).max))
    counts = None
    if bootstrap:
        if as_sklearn:
            indices = _sklearn_draw(first % _TREE_SEED_BOUND, n, n_draws)
        else:
            indices = rng.integers(0, n, n_draws)
        counts = (indices if drawn
                  else np.bincount(indices, minlength=n).astype(np.float64))
    return rng, first, counts


def target_bins(y, n_bins=_TARGET_BINS):
    """Codes 0..k-1 of the quantile bins of a numeric target (k <= n_bins: bins that
    ties leave empty are merged), the groups whose random subsets a regression forest's
    PCA rotations draw rows from."""
    edges = np.quantile(y, np.linspace(0.0, 1.0, n_bins + 1)[1:-1])
    return np.unique(np.searchsorted(edges, y, side="right"),
                     return_inverse=True)[1].astype(np.int32)


def knows_nothing(settings, n_samples, target, regression, sw):
    """Builder settings and weights that grow a single leaf: the tree of a bootstrap
    sample that drew no weight.  A classifier's leaf gets equal class shares (shares of
    the samples' own weights would let each out-of-bag sample vote for its own label); a
    regressor's the weighted mean (median, for the absolute error) of all targets (each
    sample's own share of it is 1/n of the weight)."""
    leaf = dict(settings, min_samples_split=n_samples + 1)
    if regression:
        return leaf, sw
    return leaf, compute_sample_weight("balanced", target)


def check_bootstrap_weights(sw, n_draws, bootstrap):
    """A bootstrap sample may draw the heaviest sample n_draws times: refuse weights whose
    tree totals could pass the largest float (whatever the seed draws)."""
    if bootstrap and not np.isfinite(n_draws * float(sw.max())):
        raise ValueError(f"the largest sample weight times the {n_draws} bootstrap draws "
                         "exceeds the largest float: divide the sample weights by a large "
                         "number (only their ratios matter)")


def tree_features(rng, features, n_rotated, probabilities=None):
    """The features one tree rotates: all of ``features`` when there are at most
    ``n_rotated``, else ``n_rotated`` of them, sorted (drawn from the tree's generator
    only then, so that narrower data grows the same forest as before).  Without
    ``probabilities`` they are a uniform random subset; with them (one per feature of
    ``features``, summing to 1: see subset_probabilities), ``_RELEVANT_SHARE`` of them
    are drawn without replacement by those probabilities and the rest uniformly from the
    features not yet drawn, so that every feature keeps a chance in every tree."""
    if n_rotated >= features.size:
        return features
    if probabilities is None:
        return np.sort(rng.choice(features, n_rotated, replace=False))
    n_relevant = int(round(_RELEVANT_SHARE * n_rotated))
    drawn = rng.choice(features.size, n_relevant, replace=False, p=probabilities)
    left = np.ones(features.size, dtype=bool)
    left[drawn] = False
    others = rng.choice(np.flatnonzero(left), n_rotated - n_relevant, replace=False)
    return np.sort(features[np.concatenate([drawn, others])])


def subset_probabilities(relevance, features):
    """The probabilities by which trees draw the relevant part of their subsets: the
    squared relevance of each of ``features`` (squares, so that the many small
    importances that noise features collect in deep nodes do not outweigh the few large
    ones of the informative features), mixed with a ``_UNIFORM_FLOOR`` share spread
    evenly (every probability positive).  Uniform when no feature has any relevance."""
    weight = np.square(np.asarray(relevance, dtype=np.float64)[features])
    total = weight.sum()
    even = np.full(features.size, 1.0 / features.size)
    if not (total > 0 and np.isfinite(total)):
        return even
    p = (1.0 - _UNIFORM_FLOOR) * (weight / total) + _UNIFORM_FLOOR * even
    return p / p.sum()


def screen_features(n_features):
    """Features drawn at each node of the screening forest: a tenth of them, or the
    square root where that is more (below 100 features).  The square root, a random
    forest's default, tries each of 10,000 features at about one node in a hundred, and
    its importances missed too many of 15 informative ones (see _SCREEN_SHARE)."""
    return max(1, int(np.sqrt(n_features)), int(_SCREEN_SHARE * n_features))


def screen_relevance(regression, X, target, sw, seed, n_jobs):
    """Each feature's relevance for drawing the trees' subsets on wide data: the
    impurity-decrease importances of a small random forest (``_SCREEN_TREES`` trees,
    bootstrap, screen_features of the features at each node) grown on the original
    features, missing values included, with the fit's weights.  A forest, not a
    univariate score, so that features that matter only together with others are
    found too."""
    forest = (RandomForestRegressor if regression else RandomForestClassifier)(
        n_estimators=_SCREEN_TREES, max_features=screen_features(X.shape[1]),
        max_depth=_SCREEN_DEPTH, n_jobs=n_jobs, random_state=seed,
        categorical_features=None)
    forest.fit(X, target, sample_weight=sw)
    return forest.feature_importances_


class _OneBlasThread:
    """A context in which BLAS runs on the calling thread alone.  Each tree's PCA makes a
    few small products (groups of 3 features over a few thousand rows); a threaded BLAS
    would start threads inside the forest's own workers, and they spin-wait for work
    after each product, taking cores from the trees: 8-13% of a regression forest's fit
    on 2 cores.  The limit is process-wide (threadpoolctl, which comes with
    scikit-learn; without it nothing changes): the first fit to enter sets it and the
    last one to leave restores the original, so that fits overlapping in several
    threads, in any order, leave BLAS as they found it."""

    _lock = threading.Lock()
    _users = 0
    _limiter = None
    _controller = None

    def __enter__(self):
        cls = type(self)
        with cls._lock:
            if cls._users == 0:
                if cls._controller is None:
                    try:
                        from threadpoolctl import ThreadpoolController
                    except ImportError:      # pragma: no cover
                        cls._controller = False
                    else:
                        cls._controller = ThreadpoolController()
                if cls._controller:
                    cls._limiter = cls._controller.limit(limits=1, user_api="blas")
            cls._users += 1
        return self

    def __exit__(self, *exc):
        cls = type(self)
        with cls._lock:
            cls._users -= 1
            if cls._users == 0 and cls._limiter is not None:
                cls._limiter.restore_original_limits()
                cls._limiter = None
        return False


_one_blas_thread = _OneBlasThread


@dataclass(eq=False)
class _RotationJob(_TreeJob):
    """What every tree of a rotation forest's fit shares (see _TreeJob): instances of
    ``tree_class``, each grown on its own rotation of the normalised rows ``Z`` (``mask``:
    their missing cells, or None), projected by ``project`` (a _Rotated); ``target``
    holds class codes (``n_values`` classes) or numeric targets (``n_values`` 1);
    ``pca_groups`` the codes whose random subsets the PCA rotations draw rows from (the
    classes, or the target's quantile bins); ``sw`` divided by ``scaled_by`` (see
    weight_scale); the draws (``base_seed``, ``bootstrap``, ``n_draws``) and rotations
    (``group_size``, ``rotation``: "pca" or "gaussian").  ``kinds`` (see
    _BaseRotationForest._tree_kinds): one or two kinds of trees, tree ``i`` of kind ``i
    % len(kinds)``, each ``[params, template, probabilities]``: the trees' parameters,
    their tree_template, and the probabilities by which they draw their subsets of
    ``n_rotated`` of ``features`` (see tree_features; None: uniformly);
    ``legacy_seeds``: the trees are seeded as before 2026-11-27 (see _TreeSeeds)."""

    tree_class: type
    kinds: list
    Z: np.ndarray
    mask: Optional[np.ndarray]
    project: _Rotated
    target: np.ndarray
    pca_groups: np.ndarray
    sw: np.ndarray
    n_values: int
    base_seed: int
    bootstrap: bool
    n_draws: int
    group_size: Optional[int]
    rotation: str
    features: np.ndarray
    n_rotated: int
    progress: Any
    scaled_by: float
    legacy_seeds: bool = False
    max_bins: Optional[int] = None     # each tree grows on its axes' bins (see max_bins)

    @property
    def cells(self):
        return self.Z.shape[0] * max(1, self.n_rotated)


def _grow_rotated(job, indices):
    """Build the trees ``indices`` (one worker's share), each on its own rotation, as the
    fit's ``job`` (a _RotationJob) says: a list of (tree, rotation)."""
    n, F = job.Z.shape
    regression = job.tree_class._regression
    Z = np.asfortranarray(job.Z)       # once per chunk: the projections read columns
    Zt = Z.T                           # C-contiguous: the PCA takes rows of it
    target, sw, project, kinds = job.target, job.sw, job.project, job.kinds
    templates = [template for _, template, _ in kinds]
    seeds = _TreeSeeds(job.legacy_seeds)
    out = []
    for index in indices:
        # (legacy seeds: the random_state is not scikit-learn's; the older draws)
        rng, first, counts = _tree_draws(job.base_seed, index, n, job.n_draws,
                                         job.bootstrap, as_sklearn=not job.legacy_seeds)
        random_state, seed = seeds(first)
        k = index % len(kinds)
        params, _, probabilities = kinds[k]
        rotation = draw_rotation(
            rng, F, job.group_size, job.rotation, y=job.pca_groups, Zt=Zt,
            features=tree_features(rng, job.features, job.n_rotated, probabilities))
        weights = sw if counts is None else counts * sw
        P = np.asfortranarray(project(rotation, Z, job.mask))  # Z @ R, column-major
        tree = job.tree_class(random_state=random_state, **params)
        templates[k] = _settings_once(tree, templates[k], n, P.shape[1], job.n_values)
        settings = templates[k][0]
        set_tree_outputs(tree, job.n_values)
        tree.n_features_in_ = P.shape[1]
        keys = binned = None
        if job.max_bins is None:
            keys = _builder.presort(P)                    # one sort per tree
        else:                                             # or its axes' bins
            binned = binned_features(P, job.max_bins, 1, project.category_mask(P))
        tree.is_categorical_, categories = project.categories(P, keys, binned)
        if weights.sum() > 0:
            tree._grow(P, keys, target, weights, settings, seed, job.scaled_by,
                       categories=categories, binned=binned)
        else:   # every drawn sample had zero weight (uniform draws, counts x weights)
            leaf, leaf_weights = knows_nothing(settings, n, target, regression, sw)
            tree._grow(P, keys, target, leaf_weights, leaf, seed,
                       job.scaled_by if regression else 1.0, categories=categories,
                       binned=binned)
        out.append((tree, rotation))
        if job.progress is not None:
            job.progress()
    return out


def pca_groups(target, classes):
    """The groups whose random subsets a tree's PCA draws its rows from: the classes (a
    classifier), the quantile bins of the target (a regressor).  Several outputs: each
    combination of the outputs' classes is a group; a regressor's outputs are
    standardised and averaged, and that mean is binned."""
    if target.ndim == 2:
        if classes is not None:
            return np.unique(target, axis=0, return_inverse=True)[1].reshape(-1)
        spread = target.std(axis=0)
        target = ((target - target.mean(axis=0))
                  / np.where(spread > 0, spread, 1.0)).mean(axis=1)
    return target if classes is not None else target_bins(target)


class _BaseRotationForest(_BaseForest):
    """What both rotation forests share: the normalisation, each tree's draws and
    rotation, trees built in threads, warm starts, out-of-bag sums, prediction by blocks
    of trees and importances: the rotation forest's hooks of the shared fit (see
    _BaseForest).  Subclasses check the targets, say which trees they grow and how
    out-of-bag sums become a score."""

    # how models pickled before these parameters were fitted: uniform subsets (before
    # subset_sampling), every feature rotated (a classifier before
    # max_rotated_features), standardised features (a classifier before scaling; the
    # regressor came with both)
    _pickle_defaults = dict(_BaseForest._pickle_defaults, subset_sampling="uniform",
                            max_rotated_features=None, scaling="std", max_bins=None)
    _grower = staticmethod(_grow_rotated)

    def _trees(self):
        return self.rotated_estimators_

    def fit(self, X, y, sample_weight=None):
        """Normalise, rotate and grow the forest on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (converted to float64; NaN marks a missing value; a scipy
            sparse matrix is expanded to a dense array).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (strings or numbers) for a classifier; numeric targets for a
            regressor (finite, and non-negative for ``criterion="poisson"``).  A 2-D y
            holds several outputs, one per column, fitted together.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights (also used by the normalisation).

        Returns
        -------
        self : object
            The fitted forest.
        """
        return self._atomic(self._fit, X, y, sample_weight)

    def _check_params(self):
        check_ensemble_params(self)
        check_option("rotation", self.rotation, ("gaussian", "pca"))
        check_int("group_size", self.group_size, 1, allow_none=True)
        resolve_max_features(self.max_rotated_features, 1, "max_rotated_features")
        check_option("subset_sampling", self.subset_sampling,
                     ("mixed", "relevance", "uniform"))
        check_option("missing", self.missing, ("route", "impute"))
        check_option("scaling", self.scaling, ("std", "range"))
        check_int("min_category_samples", self.min_category_samples, 1, allow_none=True)
        check_max_bins(getattr(self, "max_bins", None))
        if isinstance(self.max_features, str) and self.max_features not in (
                "auto", "sqrt", "log2"):
            raise ValueError("max_features must be 'auto' (the default), an int >= 1, a "
                             "float in (0, 1], 'sqrt', 'log2' or None; got "
                             f"{self.max_features!r}")
        check_tree_params(self._tree_class(**self._tree_params()))

    def _tree_params(self, drawn_uniformly=False):
        """The trees' parameters.  ``max_features="auto"`` is every axis, as None, but
        the square root of the axes for trees that rotate a uniformly drawn subset of
        wider data (``drawn_uniformly``): the odd-numbered trees of
        ``subset_sampling="mixed"``, every tree of "uniform".  Relevance-drawn trees
        need every axis on sparse signal (the square root lost 4 points at 500
        features).  In a mixed forest, the square root on its uniform trees moved the
        forest's accuracy by -0.06 points on average over seven wide sets (-0.43 to
        +0.56) and cut its fit time by 15% to 30% on pixel and count data; a forest of
        uniform trees alone loses more with it (0.7 points over the shared wide sets),
        and ``max_features=None`` keeps every axis there."""
        params = {name: getattr(self, name) for name in _TREE_PARAMS}
        if isinstance(params["max_features"], str) and params["max_features"] == "auto":
            params["max_features"] = "sqrt" if drawn_uniformly else None
        if params["min_category_samples"] is None:   # the trees see no categorical column
            params["min_category_samples"] = 1
        return params

    def _set_columns(self):
        """The categorical features the fitted trees split on sets of (None: none; with
        ``min_category_samples=None`` they are only rotated, as their codes)."""
        if not getattr(self, "_category_sets", True):
            return None
        return getattr(self, "is_categorical_", None)

    def _categorical(self):
        """The categorical features that this fit's trees split on sets of (None: none,
        or ``min_category_samples=None``)."""
        if self.min_category_samples is None:
            return None
        return getattr(self, "is_categorical_", None)

    def _check_fit(self):
        if self._categorical() is not None:
            check_categorical_params(self, None, self.criterion)

    def _check_draws(self, sw, n_draws):
        check_bootstrap_weights(sw, n_draws, self.bootstrap)

    def _check_warm(self):
        if self.missing != self._missing_fitted:
            raise ValueError("missing cannot change between warm-started fits")
        if self.scaling != getattr(self, "_scaling_fitted", self.scaling):
            raise ValueError("scaling cannot change between warm-started fits: the "
                             "fitted trees' rotations read features scaled by "
                             f"{self._scaling_fitted!r}")
        if (getattr(self, "is_categorical_", None) is not None
                and (self.min_category_samples is not None)
                != getattr(self, "_category_sets", True)):
            raise ValueError("min_category_samples cannot change between None and a "
                             "number between warm-started fits")

    def _fit_plan(self, fit):
        """The normalisation (a warm start keeps the first fit's), the features the
        rotations may mix, how many each tree rotates, and the kinds of trees."""
        given = self.__dict__.get("_given_normalisation")
        if fit.warm:
            fit.mean, fit.scale = self.mean_, self.scale_
            fit.constant = getattr(self, "_constant", None)     # older pickles: not stored
            fit.missing_features = self.missing_features_
            fit.features = self.rotated_features_
        elif given is not None:
            # a partition of rotforest.dask's fit: the normalisation of all the rows
            fit.mean, fit.scale, fit.constant, fit.missing_features, fit.features = given
        else:
            # weighted, so that a weight of 2 normalises like two copies of a sample
            fit.mean, fit.scale, fit.constant = _normalisation(fit.X, fit.sw, self.scaling)
            # a row of weight 0 changes nothing
            weighted = fit.X if np.all(fit.sw > 0) else fit.X[fit.sw > 0]
            fit.missing_features = np.flatnonzero(np.isnan(weighted).any(axis=0))
            fit.features = _rotated_features(weighted, fit.constant, self.missing)
        fit.n_rotated = resolve_max_features(self.max_rotated_features, fit.features.size,
                                             "max_rotated_features")
        fit.kinds = self._tree_kinds(fit)

    def _tree_kinds(self, fit):
        """The kinds of trees, ``[params, template, probabilities]`` each (see
        _RotationJob), the probabilities None until _tree_job sets those of kind 0 when
        it draws by relevance (``fit.by_relevance``): on wider data (more rotated features
        than each tree rotates), "mixed" alternates a relevance-drawn and a uniform tree;
        one kind otherwise."""
        uniform = [False]
        if fit.n_rotated < fit.features.size:
            uniform = {"relevance": [False], "uniform": [True],
                       "mixed": [False, True]}[self.subset_sampling]
        fit.by_relevance = fit.n_rotated < fit.features.size and not uniform[0]
        kinds = []
        for drawn_uniformly in uniform:
            params = self._tree_params(drawn_uniformly)
            kinds.append([params, tree_template(self._tree_class, params, fit.X.shape[0],
                                                max(1, fit.n_rotated), fit.n_values), None])
        return kinds

    def _tree_job(self, fit, new):
        """The new trees' _RotationJob: the relevance screen of wide data (a warm start
        reuses the first fit's), the normalised rows and their projector."""
        fit.relevance = getattr(self, "_relevance", None) if fit.warm else None
        if fit.by_relevance:                    # kind 0 draws by relevance
            if fit.relevance is None:
                # seeded by the forest's seed alone: the same screen for any n_jobs
                fit.relevance = screen_relevance(self._tree_class._regression, fit.X,
                                                 fit.target, fit.sw, fit.base_seed,
                                                 fit.n_jobs)
            fit.kinds[0][2] = subset_probabilities(fit.relevance, fit.features)
        Z, mask = _normalise(fit.X, fit.mean, fit.scale, fit.constant, fit.n_jobs)
        project = _Rotated(self.missing, fit.missing_features, self._categorical(),
                           fit.mean, fit.scale)
        groups = np.ascontiguousarray(pca_groups(fit.target, fit.classes),
                                      dtype=np.int32)
        self.max_bins_ = self._max_bins(fit)
        return _RotationJob(
            self._tree_class, fit.kinds, Z, mask, project, fit.target, groups, fit.sw,
            fit.n_values, fit.base_seed, self.bootstrap, fit.n_draws, self.group_size,
            self.rotation, fit.features, fit.n_rotated, self._progress(len(new)),
            fit.scaled_by, fit.legacy_seeds, self.max_bins_)

    def _max_bins(self, fit):
        """The bins the trees grow on (see _bins.resolve_max_bins: "auto" from
        _AUTO_BIN_ROWS, each tree binning its own axes), or None."""
        if getattr(self, "max_bins", None) is None:
            return None
        # (the trees see categorical columns only with min_category_samples)
        return resolve_max_bins(self, fit.X, *outputs_and_classes(
            fit.target, fit.n_values, self._tree_class._regression), _AUTO_BIN_ROWS,
            categorical=self._categorical())

    def _grow_new(self, job, new, n_jobs):
        with _one_blas_thread():
            return super()._grow_new(job, new, n_jobs)

    def _draw_record(self, fit):
        # the last column: 1 when the tree drew its sample as scikit-learn's forests do
        # (see _tree_draws; 0 or -1 for trees fitted before)
        return [fit.X.shape[0], fit.n_draws, int(self.bootstrap), int(not fit.legacy_seeds)]

    def _drawn(self, t, n, drawn=False):
        """Tree t's bootstrap counts of the n training rows (``drawn``: the drawn
        indices, with repeats), regenerated as it drew them."""
        record = draw_records(self)[t]
        if not (record.size > 3 and record[3] == 1):        # drawn before these rules
            return _tree_draws(self._base_seed, t, n, int(record[1]), True, False, drawn)[2]
        # from the tree's seed alone (so a subset of the trees keeps its samples)
        indices = _sklearn_draw(self.rotated_estimators_[t].random_state, n, int(record[1]))
        return indices if drawn else np.bincount(indices, minlength=n).astype(np.float64)

    @property
    def estimators_samples_(self):
        """The in-bag sample indices of every tree, regenerated from the seeds.

        Returns
        -------
        samples : list of ndarray of int32
            One array per tree of the drawn sample indices, with repeats (every index
            when ``bootstrap=False``), as scikit-learn's forests give them.
        """
        check_is_fitted(self)
        check_whole_draws(self)
        out = []
        for t, (n, _, boot) in enumerate(draw_records(self)[:, :3]):
            if n < 0:
                raise AttributeError("this forest was pickled before its trees' samples "
                                     "were recorded")
            boot = bool(self.bootstrap if boot < 0 else boot)
            out.append(_in_bag(self._drawn(t, int(n), drawn=True) if boot
                               else np.arange(n), int(n)))
        return out

    @property
    def estimators_(self):
        """The trees as estimators of the forest's own input.

        Returns
        -------
        trees : list of RotatedTreeClassifier or RotatedTreeRegressor
            Tree ``i`` checks and normalises X as the forest does, projects it onto
            ``rotations_[i]`` and applies ``rotated_estimators_[i]``; the mean of their
            predictions is the forest's.  The same objects on every read until the
            next fit.
        """
        trees = self.__dict__.get("rotated_estimators_")
        if trees is None:
            raise AttributeError(f"{type(self).__name__} has no estimators_ before fit")
        cached = self.__dict__.get("_wrapped")
        if cached is None or cached[0] is not trees:
            cached = (trees, [self._wrapper._of(self, i) for i in range(len(trees))])
            self.__dict__["_wrapped"] = cached
        return list(cached[1])

    @estimators_.setter
    def estimators_(self, trees):
        # a subset of this forest's own trees, as forestci's calibration assigns them
        # (a copy of the forest given some of its trees again)
        trees = list(trees)
        if not all(isinstance(t, self._wrapper) and t.forest is self
                   and t.estimator_ is self.rotated_estimators_[t.index] for t in trees):
            raise ValueError(
                "a rotation forest's estimators_ can only be given trees read from its "
                "own estimators_ (each takes its rotation with it); to assemble other "
                "trees, set rotated_estimators_ and rotations_ together")
        if not trees:
            raise ValueError("a forest needs at least one tree")
        order = [t.index for t in trees]
        records = draw_records(self)
        self.rotations_ = [self.rotations_[i] for i in order]
        self.rotated_estimators_ = [self.rotated_estimators_[i] for i in order]
        self._draw_records = records[order]
        self._stack_rotations()

    def _keep(self, fit, grown):
        fitted = (list(zip(self.rotated_estimators_, self.rotations_)) if fit.warm else []) + grown
        if fit.classes is not None:
            for tree, _ in fitted:
                tree.classes_ = fit.classes
        self.mean_, self.scale_ = fit.mean, fit.scale
        self._constant = fit.constant
        self._relevance = fit.relevance
        self.missing_features_ = fit.missing_features
        self.rotated_features_ = fit.features
        self._missing_fitted = self.missing
        self._scaling_fitted = self.scaling
        self._category_sets = self.min_category_samples is not None
        self.rotated_estimators_ = [t for t, _ in fitted]
        self.estimator_ = self._tree_class(**fit.kinds[0][0])
        self.rotations_ = [r for _, r in fitted]
        self._stack_rotations()

    def _score_oob(self, fit, job):
        """Scored on the job's normalised rows (``job`` None: normalised again)."""
        Z, mask = ((job.Z, job.mask) if job is not None else
                   _normalise(fit.X, fit.mean, fit.scale, fit.constant, fit.n_jobs))
        self._set_oob(Z, mask, fit.y)

    def _projector(self):
        return _Rotated(self._missing_fitted, self.missing_features_, self._set_columns(),
                        self.mean_, self.scale_)


    def _oob_sums(self, Z, mask, n_values):
        """The sums of the out-of-bag trees' leaf values of every sample, and how many
        trees left it out."""
        n = Z.shape[0]
        sums = np.zeros((n, n_values))
        votes = np.zeros(n, dtype=np.int64)
        for i, (tree, rotation) in enumerate(zip(self.rotated_estimators_, self.rotations_)):
            counts = self._drawn(i, n)
            out = counts == 0
            if np.any(out):
                P = np.ascontiguousarray(self._projector()(
                    rotation, Z[out], None if mask is None else mask[out]))
                sums[out] += _leaf_values(tree.tree_)[tree.tree_.apply(P)]
                votes[out] += 1
        return sums, votes

    def __getstate__(self):
        # a copy: scikit-learn may hand back the live __dict__ itself
        state = dict(super().__getstate__())
        state.pop("_stacked_rotations", None)     # derived from rotations_
        state.pop("_axis_starts", None)
        state.pop("_wrapped", None)               # estimators_, made again on demand
        return state

    def __setstate__(self, state):
        if "estimators_" in state:      # pickled before the trees took the forest's input
            state = dict(state)
            state["rotated_estimators_"] = state.pop("estimators_")
        super().__setstate__(state)
        if "rotations_" in self.__dict__:
            self._stack_rotations()

    def _stack_rotations(self):
        """All rotations side by side, and where each tree's axes start among their
        columns (trees may have different numbers of axes: ``max_rotated_features`` can
        change between warm-started fits)."""
        self._stacked_rotations = sp.hstack(self.rotations_).tocsc()
        self._axis_starts = np.concatenate(
            [[0], np.cumsum([r.shape[1] for r in self.rotations_])]).astype(np.int64)

    # --------------------------------------------------------------- prediction
    def _normalised(self, X):
        return self._normalise_checked(predict_input(self, X))

    def _normalise_checked(self, X):
        """Rows already checked by predict_input, normalised (see _normalise)."""
        return _normalise(X, self.mean_, self.scale_, getattr(self, "_constant", None),
                          self._prediction_jobs(X.shape[0]))

    def _stacked(self):
        """All rotations side by side (n_features x the trees' axes, built in fit), so
        that one sparse-dense product projects a batch of rows for a block of trees."""
        return self._stacked_rotations

    def _per_tree(self, X, fn):
        """fn(tree, rotated rows) summed over trees, block by block of trees as
        ``_sum_over_trees`` adds them (the same sums whatever n_jobs is), a block of trees
        to a task, in threads on large batches; a few rows are projected onto every
        tree's axes at once, in one task (see _ONE_PROJECTION_CELLS)."""
        Z, mask = self._normalised(X)
        if mask is not None:   # as the projections read it, once for all blocks of trees
            mask = np.asfortranarray(mask, dtype=np.float64)
        n_jobs = self._prediction_jobs(Z.shape[0])
        everything = range(len(self.rotated_estimators_))
        if n_jobs == 1 and Z.shape[0] * self._axis_starts[-1] <= _ONE_PROJECTION_CELLS:
            return self._sum_over(everything, Z, mask, fn)
        return _sum_over_trees(len(everything), n_jobs,
                               lambda trees: self._sum_over(trees, Z, mask, fn))

    def _sum_over(self, trees, Z, mask, fn):
        """fn(tree, rotated rows) summed over the trees of the range ``trees`` (which
        starts a block), block by block of ``_SUM_BLOCK`` trees; the rows projected onto
        all these trees' axes at once, in batches of about _BATCH_CELLS values."""
        starts = self._axis_starts[trees.start:trees.stop + 1] - self._axis_starts[trees.start]
        R = self._stacked()[:, self._axis_starts[trees.start]:self._axis_starts[trees.stop]]
        project = self._projector()
        step = max(1, _BATCH_CELLS // max(1, int(starts[-1])))
        parts = []
        for start in range(0, Z.shape[0], step):
            M = None if mask is None else mask[start:start + step]
            P = project.axes(R, Z[start:start + step], M)    # rows x the trees' axes
            extra = project.extra(Z[start:start + step], M)
            total = None
            for first in range(0, len(trees), _SUM_BLOCK):
                block = None
                for k in range(first, min(first + _SUM_BLOCK, len(trees))):
                    Pk = P[:, starts[k]:starts[k + 1]]
                    if extra is not None:
                        Pk = np.hstack([Pk, extra])
                    out = fn(self.rotated_estimators_[trees[k]], Pk)
                    block = out if block is None else block + out
                total = block if total is None else total + block
            parts.append(total)
        return np.concatenate(parts)

    def _tree_rows(self, X):
        Z, mask = self._normalised(X)
        project = self._projector()
        return ((tree, np.ascontiguousarray(project(r, Z, mask)))
                for tree, r in zip(self.rotated_estimators_, self.rotations_))

    @property
    def feature_importances_(self):
        """Impurity-decrease importances mapped back to the original features.

        An axis' importance is shared among the features by the squares of its loadings
        (each axis has unit length, so the total is preserved).

        Returns
        -------
        importances : ndarray of shape (n_features,)
            Non-negative, summing to 1 (all zero when every tree is a single leaf).
        """
        check_is_fitted(self)
        total = np.zeros(self.n_features_in_)
        constant = getattr(self, "_constant", None)
        n_indicators, n_categorical = self._projector().n_extra()
        categorical = self._set_columns()
        for tree, rotation in zip(self.rotated_estimators_, self.rotations_):
            total += self._tree_importances(tree, rotation)
        s = total.sum()
        return total / s if s > 0 else total

    def _tree_importances(self, tree, rotation):
        """One tree's importances (summing to 1, or all zero for a leaf) in the
        original features."""
        total = np.zeros(self.n_features_in_)
        if tree.tree_.node_count > 1:
            n_indicators, n_categorical = self._projector().n_extra()
            F = rotation.shape[1]                              # the tree's axes
            imp = tree.tree_.compute_feature_importances()
            total += _shares(rotation, getattr(self, "_constant", None)).dot(imp[:F])
            if n_indicators:                                  # indicator columns
                total[self.missing_features_] += imp[F:F + n_indicators]
            if n_categorical:                                 # categorical features
                total[np.flatnonzero(self._set_columns())] += imp[F + n_indicators:]
        return total


# the max_bins entry of both rotation forests' docstrings
_MAX_BINS_DOC = """\
max_bins : int, "auto" or None, default="auto"
    Grow each tree on binned axes, as the random forests grow on binned features:
    each of the tree's axes cut into at most ``max_bins`` (2 to 255) bins of nearly
    equal counts (each tree bins its own rotation, on one thread), the cuts
    searched on histograms of the bins and refined inside the two bins around the
    best one. "auto" (the default) bins from two million rows (more for wide data):
    binning a tree's axes costs about as much as a shallow exact tree, and binned
    forests took 1.85 times the exact forest's time at 200,000 rows, 1.05 at a
    million and 0.64 at four million (20 features), as accurate. None always
    searches exactly.
"""


@shared_entries(max_bins=_MAX_BINS_DOC)
class RotationForestClassifier(_VotingPredictions, ClassifierMixin, _BaseRotationForest):
    """A forest of presorted trees, each grown on its own random rotation of the
    normalised features.

    The features are normalised (mean 0, standard deviation 1, fitted on the training
    data; constant features are left unscaled). Each tree draws a random orthonormal
    rotation, block diagonal over random groups of ``group_size`` features (or one dense
    rotation of all features when ``group_size=None``), and is grown by the presorted
    builder on the rotated data, the same axes from root to leaves. Rotating small groups
    keeps irrelevant features from being mixed into every axis.

    Read more in the user guide: :doc:`Rotation forests </user_guide/rotation>`.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    rotation : {"pca", "gaussian"}, default="pca"
        "pca": the principal axes of each group over a random class subset and 75% of
        its rows (chosen by measurement: more accurate on the shared data sets).
        "gaussian": independent standard normal axes, orthogonalised (QR), so uniformly
        random rotations; smoother boundaries on data with very few features.
    group_size : int or None, default=3
        Features per rotated group; None rotates all features together.
    max_rotated_features : int, float, {"sqrt", "log2"} or None, default=100
        Features each tree rotates: on data with more rotated features (see
        ``rotated_features_``) than this, every tree draws its own subset of this many
        (see ``subset_sampling``) and its axes are the rotations of those alone (as
        ``max_features`` counts: a float or "sqrt" is a share of the rotated features,
        None all of them). Data with at most 100 features are unaffected by the default.
    subset_sampling : {"mixed", "relevance", "uniform"}, default="mixed"
        How each tree draws its subset of ``max_rotated_features`` features on wider
        data. A tree drawing by relevance takes 80% of its subset with probabilities
        proportional to the squared importances of a small screening random forest
        (20 trees, grown once per fit on the original features) and the rest
        uniformly, so that where the signal sits in a few of many features the tree
        holds most of them, and every feature keeps a chance. "relevance": every tree
        draws so. "uniform": every tree draws a uniform random subset (no screen).
        "mixed": the even-numbered trees draw by relevance and the others uniformly;
        on data whose signal is spread over many features (text, pixels) the uniform
        trees keep the ensemble diverse, where trees that all hold the strongest
        features would agree too often. The user guide compares the three, per class
        of wide data, with the all-features forest and scikit-learn's random forest;
        ``subset_sampling="uniform"`` gives the default before relevance sampling.
    bootstrap : bool, default=False
        Grow each tree on a bootstrap sample (the rotations already diversify the trees).
    max_samples : int, float or None, default=None
        Bootstrap sample size: an int is the number of draws, a float that share of
        the number of samples (rounded down, at least 1); either may exceed the number
        of samples. None: as many draws as there are samples.
    max_features : int, float, {"auto", "sqrt", "log2"} or None, default="auto"
        Rotated axes drawn at each node (None: all of them). A tree has one axis per
        feature it rotates (see ``max_rotated_features``), plus the indicator columns
        with ``missing="impute"``; an int above their number means all of them, a float
        or "sqrt" is a share of them. "auto": all of them, as None, except on the trees
        that rotate a uniformly drawn subset of wider data (see ``subset_sampling``),
        which scan the square root of their axes.
    missing : {"route", "impute"}, default="route"
        How missing values (NaN) enter the rotated trees. Both first set a missing cell
        to the training mean. "route": an axis whose group holds a missing feature is
        itself missing for that row, and the tree sends it down the side it learned for
        missing values. "impute": the axes keep the imputed values, and an indicator
        column for every feature that had missing values in training is given to the
        trees unrotated.
    scaling : {"std", "range"}, default="std"
        How each feature is scaled before the rotations (after its mean is subtracted):
        by its standard deviation or by its range (max - min). Divided by their ranges,
        uncorrelated features of different shapes keep unequal variances, so their
        principal axes stay close to the features, and a PCA rotation mixes mainly
        correlated ones (see :class:`RotationForestRegressor`).
    criterion : {"gini", "entropy", "log_loss", "error"}, default="gini"
        Impurity that every tree reduces.
    max_depth : int or None, default=None
        Maximum depth of every tree.
    min_samples_split : int or float, default=2
        Minimum number of samples a node needs to be split.
    min_samples_leaf : int or float, default=1
        Minimum number of samples in each child of a split.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child of a split.
    max_leaf_nodes : int or None, default=None
        Grow every tree best-first up to this many leaves.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted impurity decrease is at least this.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning of every tree.
    oob_score : bool or callable, default=False
        Out-of-bag estimate (accuracy, or ``oob_score(y_true, y_pred)``); needs
        ``bootstrap=True``.
    n_jobs : int or None, default=None
        Threads that build the trees; None means 1, -1 all cores.
        At most: trees too small to gain from threads get fewer (see the parallelism
        guide).
    random_state : int, RandomState instance or None, default=None
        Seeds the rotations, the subsamples and the trees; the same seed gives the same
        forest whatever ``n_jobs`` is.
    verbose : int, default=0
        1 reports progress every tenth of the trees, 2 after every tree.
    warm_start : bool, default=False
        Keep the fitted trees (and the normalisation, and the screen's relevance on
        wide data) and add new ones up to
        ``n_estimators``.
    class_weight : dict, list of dict, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights (several outputs: a
        list of one dict per output, whose weights multiply, or "balanced").
    categorical_features : "from_dtype", None or array-like of bool, int or str, \
default="from_dtype"
        Features whose values are categories: "from_dtype" takes the ``category``
        columns of a pandas DataFrame (none for other inputs), None takes none; or a
        boolean mask, feature indices or feature names. Categories are integer codes
        from 0 to 2**24 - 1 (a pandas ``category`` column is coded by its categories, and a
        category unseen in training is missing; NaN is missing). See
        :doc:`Categorical features </user_guide/categorical>`.
    min_category_samples : int or None, default=None
        None: the categorical features are rotated with the others as their codes, and
        no tree splits on sets of categories (measured the more accurate for rotation
        forests, see the user guide). A number: every tree is also offered the
        categorical features unrotated, after the axes, and splits them on sets of
        categories; in a node a category with fewer training samples than the number is
        not split off alone but pooled with the other rare ones (1 pools none); a
        category that a node did not see in training goes where its missing values go.
    <max_bins>

    Attributes
    ----------
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    max_bins_ : int or None
        The bins the trees grew on, or None for the exact search (see ``max_bins``).
    estimators_ : list of RotatedTreeClassifier
        The trees as estimators of X itself (also ``forest[i]``, ``len(forest)`` and
        ``iter(forest)``): tree ``i`` normalises X as the forest does, projects it onto
        ``rotations_[i]`` and applies ``rotated_estimators_[i]``, so the mean of their
        ``predict_proba`` is the forest's (what forestci and hand-written loops over
        the trees read). Each has the tree's ``random_state`` and ``feature_importances_``
        in the original features, and no ``tree_`` (its nodes split the axes).
    rotated_estimators_ : list of DecisionTreeClassifier
        The trees themselves, which read the rotated axes. Each tree's ``random_state``
        is below 2**31 - 1, so a clone refits; refitted on its rotated rows
        (``rotations_``) and bootstrap counts (times the weights) it grows again; with
        ``bootstrap=True`` its sample is ``RandomState(random_state).randint(0,
        n_samples, n_draws)``, scikit-learn's forests' rule.
    estimators_samples_ : list of ndarray of int32
        Each tree's drawn sample indices, with repeats (every index without
        bootstrap), regenerated from the seeds.
    estimator_ : DecisionTreeClassifier
        The unfitted template of the trees: the forest's tree parameters (each fitted
        tree also has its own ``random_state``; with ``subset_sampling="mixed"`` on
        wide data, those of the relevance-drawn trees, the uniform ones resolving
        ``max_features="auto"`` to "sqrt").
    rotations_ : list of scipy.sparse.csc_matrix of shape (n_features, n_axes)
        Tree ``i`` sees ``((X - mean_) / scale_) @ rotations_[i]``; the columns are
        orthonormal, one axis per feature the tree rotates (``n_axes`` is the smaller of
        ``len(rotated_features_)`` and ``max_rotated_features``); the rows of the other
        features are empty.
    rotated_features_ : ndarray of int
        The features the rotations may mix: all but those constant in training (which
        get no loading, so test values of them are ignored, as a tree ignores a feature
        it never split on). With ``missing="route"``, a constant feature that had some
        missing values is kept. Each tree rotates all of them, or a subset of
        ``max_rotated_features`` when there are more (see ``subset_sampling``).
    mean_ : ndarray of shape (n_features,)
        Weighted mean of every feature over its present (non-missing) training values.
    scale_ : ndarray of shape (n_features,)
        Weighted standard deviation (or, with ``scaling="range"``, the range) of every
        feature over its present values (1 for constant features, whose ``mean_`` is
        their value).
    missing_features_ : ndarray of int
        Features that had missing values (NaN) in training.
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
        Impurity-decrease importances of the rotated axes, shared back among the
        original features by the squares of their loadings.
    oob_score_ : float
        Out-of-bag score over the samples that some tree left out (scikit-learn scores
        the others as class 0); only with ``oob_score``. A callable ``oob_score``
        receives the labels as they are.
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Mean out-of-bag class probabilities; only with ``oob_score``.

    See Also
    --------
    RandomForestClassifier : Bagged trees on the original axes.
    DecisionTreeClassifier : The trees of this forest.

    Notes
    -----
    After Rodriguez, Kuncheva and Alonso (2006), "Rotation Forest: A New Classifier
    Ensemble Method", IEEE TPAMI 28(10).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from rotforest import RotationForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> forest = RotationForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> forest.predict(X[:3]).tolist()
    [0, 0, 0]
    >>> forest.rotations_[0].shape, len(forest.estimators_)
    ((4, 4), 20)
    >>> forest.rotations_[0].nnz          # groups of 3 and 1 feature: 9 + 1 loadings
    10
    """

    _wrapper = RotatedTreeClassifier

    def __init__(self, n_estimators=100, *, rotation="pca", group_size=3,
                 max_rotated_features=100, subset_sampling="mixed",
                 bootstrap=False, max_samples=None,
                 max_features="auto", missing="route", scaling="std",
                 criterion="gini",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0, warm_start=False, class_weight=None,
                 categorical_features="from_dtype", min_category_samples=None,
                 max_bins="auto"):
        store_params(self, locals())

    def _check_params(self):
        check_class_weight(self.class_weight, ("balanced",), None)
        super()._check_params()

    def _forest_data(self, X, y, sample_weight, warm):
        """X, y, the class codes (int32), the weights (times class weights) and the
        classes."""
        warn_balanced_warm_start(self)
        X, y, classes, y_enc, sw = training_data(self, X, y, sample_weight,
                                                 self.class_weight, reset=not warm)
        check_oob_target(self, y_enc)
        return X, y, np.ascontiguousarray(y_enc, dtype=np.int32), sw, classes

    def _set_oob(self, Z, mask, y):
        oob_scored(self, y, *self._oob_sums(Z, mask, self._value_width()))

    def predict_proba(self, X):
        """Class probabilities: the mean of the trees' leaf class fractions, each tree
        reading the rows projected onto its own axes.

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
        total = self._per_tree(
            X, lambda tree, P: _leaf_values(tree.tree_)[tree.tree_.apply(P)])
        return self._by_output(total / len(self.rotated_estimators_))


@shared_entries(max_bins=_MAX_BINS_DOC)
class RotationForestRegressor(_NumericTargets, _ForestStructure, RegressorMixin,
                              _BaseRotationForest):
    """A forest of presorted regression trees, each grown on its own random rotation of
    the normalised features.

    The regression counterpart of :class:`RotationForestClassifier`: the same
    normalisation, rotations, missing-value handling and builder, with
    :class:`DecisionTreeRegressor` trees; the prediction is the mean of the trees'.
    Where the classifier's ``"pca"`` rotation takes each group's principal axes over a
    random subset of the classes, the regressor's takes them over a random subset of
    the target's quartiles (75% of their rows in both): rotations of few features then
    still differ from tree to tree.

    Read more in the user guide: :doc:`Regression </user_guide/regression>`.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    rotation : {"pca", "gaussian"}, default="pca"
        "pca": the principal axes of each group over a random non-empty subset of the
        target's quartiles and 75% of their rows.
        "gaussian": independent standard normal axes, orthogonalised (QR).
    group_size : int or None, default=3
        Features per rotated group; None rotates all features together.
    max_rotated_features : int, float, {"sqrt", "log2"} or None, default=100
        Features each tree rotates (see :class:`RotationForestClassifier`).
    subset_sampling : {"relevance", "mixed", "uniform"}, default="relevance"
        How each tree draws its subset of ``max_rotated_features`` features on wider
        data (see :class:`RotationForestClassifier`; the screening forest is a
        regression forest here). Unlike the classifier's, the default is every tree by
        relevance: the mean of the trees' predictions shrinks towards the mean target
        by every tree that holds little of the signal, where a classifier's vote only
        gets noisier, so that "mixed" lost 16 and 25 points of R^2 to "relevance" on
        sparse linear signal of 500 and 5,000 features (and gained at most half a point
        elsewhere; see the user guide). "uniform" is the default before relevance
        sampling.
    bootstrap : bool, default=False
        Grow each tree on a bootstrap sample (the rotations already diversify the trees).
    max_samples : int, float or None, default=None
        Bootstrap sample size: an int is the number of draws, a float that share of
        the number of samples (rounded down, at least 1); either may exceed the number
        of samples. None: as many draws as there are samples.
    max_features : int, float, {"auto", "sqrt", "log2"} or None, default=None
        Rotated axes drawn at each node (None: all of them; "auto", the classifier's
        default: all of them but on uniformly drawn subsets of wider data, the square
        root of them).
    missing : {"route", "impute"}, default="route"
        How missing values (NaN) enter the rotated trees (see
        :class:`RotationForestClassifier`).
    scaling : {"range", "std"}, default="range"
        How each feature is scaled before the rotations (after its mean is subtracted):
        by its range (max - min) or by its standard deviation. Divided by their ranges,
        features of different shapes (binary, skewed, uniform) keep unequal variances,
        and the principal axes of uncorrelated features of unequal variance are the
        features themselves: a PCA rotation then mixes mainly correlated features.
        Standardised features all have variance 1, and the principal axes of
        uncorrelated ones mix them at random. "range" was chosen by measurement (see
        the user guide).
    criterion : {"squared_error", "friedman_mse", "poisson", "absolute_error"}, \
            default="squared_error"
        Impurity that every tree reduces (see :class:`DecisionTreeRegressor`).
    max_depth : int or None, default=None
        Maximum depth of every tree.
    min_samples_split : int or float, default=2
        Minimum number of samples a node needs to be split.
    min_samples_leaf : int or float, default=1
        Minimum number of samples in each child of a split.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child of a split.
    max_leaf_nodes : int or None, default=None
        Grow every tree best-first up to this many leaves.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted impurity decrease is at least this.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning of every tree.
    oob_score : bool or callable, default=False
        Out-of-bag estimate (R², or ``oob_score(y_true, y_pred)``); needs
        ``bootstrap=True``.
    n_jobs : int or None, default=None
        Threads that build the trees; None means 1, -1 all cores.
        At most: trees too small to gain from threads get fewer (see the parallelism
        guide).
    random_state : int, RandomState instance or None, default=None
        Seeds the rotations, the subsamples and the trees; the same seed gives the same
        forest whatever ``n_jobs`` is.
    verbose : int, default=0
        1 reports progress every tenth of the trees, 2 after every tree.
    warm_start : bool, default=False
        Keep the fitted trees (and the normalisation, and the screen's relevance on
        wide data) and add new ones up to
        ``n_estimators``.
    categorical_features : "from_dtype", None or array-like of bool, int or str, \
default="from_dtype"
        Features whose values are categories: "from_dtype" takes the ``category``
        columns of a pandas DataFrame (none for other inputs), None takes none; or a
        boolean mask, feature indices or feature names. Categories are integer codes
        from 0 to 2**24 - 1 (a pandas ``category`` column is coded by its categories, and a
        category unseen in training is missing; NaN is missing). See
        :doc:`Categorical features </user_guide/categorical>`.
    min_category_samples : int or None, default=None
        None: the categorical features are rotated with the others as their codes, and
        no tree splits on sets of categories (measured the more accurate for rotation
        forests, see the user guide). A number: every tree is also offered the
        categorical features unrotated, after the axes, and splits them on sets of
        categories; in a node a category with fewer training samples than the number is
        not split off alone but pooled with the other rare ones (1 pools none); a
        category that a node did not see in training goes where its missing values go.
    <max_bins>

    Attributes
    ----------
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    max_bins_ : int or None
        The bins the trees grew on, or None for the exact search (see ``max_bins``).
    estimators_ : list of RotatedTreeRegressor
        The trees as estimators of X itself (also ``forest[i]``, ``len(forest)`` and
        ``iter(forest)``): tree ``i`` normalises X as the forest does, projects it onto
        ``rotations_[i]`` and applies ``rotated_estimators_[i]``, so the mean of their
        ``predict`` is the forest's (what forestci and hand-written loops over the
        trees read). Each has the tree's ``random_state`` and ``feature_importances_``
        in the original features, and no ``tree_`` (its nodes split the axes).
    rotated_estimators_ : list of DecisionTreeRegressor
        The trees themselves, which read the rotated axes. Each tree's ``random_state``
        is below 2**31 - 1, so a clone refits; refitted on its rotated rows
        (``rotations_``) and bootstrap counts (times the weights) it grows again; with
        ``bootstrap=True`` its sample is ``RandomState(random_state).randint(0,
        n_samples, n_draws)``, scikit-learn's forests' rule.
    estimators_samples_ : list of ndarray of int32
        Each tree's drawn sample indices, with repeats (every index without
        bootstrap), regenerated from the seeds.
    estimator_ : DecisionTreeRegressor
        The unfitted template of the trees.
    rotations_ : list of scipy.sparse.csc_matrix of shape (n_features, n_axes)
        Tree ``i`` sees ``((X - mean_) / scale_) @ rotations_[i]``.
    rotated_features_ : ndarray of int
        The features the rotations may mix (all but those constant in training).
    mean_ : ndarray of shape (n_features,)
        Weighted mean of every feature over its present training values.
    scale_ : ndarray of shape (n_features,)
        Range (or, with ``scaling="std"``, weighted standard deviation) of every feature
        over its present values (1 for constant features).
    missing_features_ : ndarray of int
        Features that had missing values (NaN) in training.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during fit; only when X had string column names.
    n_outputs_ : int
        Number of outputs (columns of a 2-D y; 1 for a 1-D y).
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-decrease importances of the rotated axes, shared back among the
        original features by the squares of their loadings.
    oob_score_ : float
        Out-of-bag score over the samples that some tree left out; only with
        ``oob_score``.
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Mean out-of-bag prediction of every training sample (NaN for a sample that
        every tree drew); only with ``oob_score``.

    See Also
    --------
    RandomForestRegressor : Bagged regression trees on the original axes.
    RotationForestClassifier : The same forest for class labels.

    Notes
    -----
    After Rodriguez, Kuncheva and Alonso (2006), "Rotation Forest: A New Classifier
    Ensemble Method", IEEE TPAMI 28(10), with regression trees.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from rotforest import RotationForestRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = RotationForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> forest.rotations_[0].shape, len(forest.estimators_)
    ((10, 10), 20)
    """

    _tree_class = DecisionTreeRegressor

    _wrapper = RotatedTreeRegressor

    def __init__(self, n_estimators=100, *, rotation="pca", group_size=3,
                 max_rotated_features=100, subset_sampling="relevance",
                 bootstrap=False, max_samples=None,
                 max_features=None, missing="route", scaling="range",
                 criterion="squared_error",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0, warm_start=False,
                 categorical_features="from_dtype", min_category_samples=None,
                 max_bins="auto"):
        store_params(self, locals())

    def _set_oob(self, Z, mask, y):
        oob_regression_scored(self, y, *self._oob_sums(Z, mask, self.n_outputs_))

    def predict(self, X):
        """The mean of the trees' predictions, each tree reading the rows projected onto
        its own axes.

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
        total = self._per_tree(
            X, lambda tree, P: _leaf_values(tree.tree_)[tree.tree_.apply(P)])
        return self._by_output(total / len(self.rotated_estimators_))


# each tree draws its bootstrap sample as scikit-learn's forests do for its
# random_state: forestci's in-bag counts (see register_as_sklearn_forest)
register_as_sklearn_forest(RotationForestClassifier)
register_as_sklearn_forest(RotationForestRegressor)
