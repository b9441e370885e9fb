"""DecisionTreeClassifier and DecisionTreeRegressor: greedy CART on presorted lists."""
import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.tree import DecisionTreeClassifier as _SklearnDecisionTreeClassifier
from sklearn.tree import DecisionTreeRegressor as _SklearnDecisionTreeRegressor
from sklearn.model_selection import train_test_split
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.validation import check_is_fitted

from rotforest import _builder, _hist
from rotforest._bins import (binned_features, check_max_bins, outputs_and_classes,
                             resolve_max_bins)
from rotforest._inputs import (_check_sample_weight, category_table, check_targets,
                               grows_on_entries, predict_input, regression_data,
                               training_data, weight_scale)
from rotforest._dependence import RecursionDependence
from rotforest._docs import shared_entries
from rotforest._mixins import _AcceptsNaN, _AtomicFit, _LogProba, _stack_outputs
from rotforest._sparse import canonical_csc, sparse_columns
from rotforest._tree import Tree
from rotforest.pruning import cost_complexity_path, prune_cost_complexity, prune_reduced_error
from rotforest._validation import (
    check_real,
    check_tree_params,
    resolve_max_features,
    resolve_min_samples_leaf,
    resolve_min_samples_split,
    resolve_monotonic_cst,
    store_params,
)

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor"]

_MAX_DEPTH_NONE = np.iinfo(np.int32).max

# A dense X that stores (holds other than 0.0) at most _SPARSE_ENTRIES values a column on
# average, or at most _SPARSE_SHARE of its cells, is grown on as a sparse one (its
# entries per column, see _sparse.py): the same tree (regression: up to the last bits
# of the sums, which add in another order), and a node reads a feature's few entries
# instead of every sample's value (presorted lists of mostly zeros grow deep trees, each
# level moving every sample of every feature).  A tree of binary columns took 0.05 to
# 0.7 of the dense path's time at 40 to 45 entries a column (600 to 10,000 rows), 0.14
# to 0.43 at 0.4% to 2% of the cells, 0.95 to 1.14 at 7% to 15%.  A tree of random
# cuts, which reads no presorted lists, takes only the share: at 45 entries a column it
# took 0.2 to 0.6 of its time from 3,000 rows but 2.5 times it at 600 rows (7.5% of the
# cells), and 0.2 to 0.7 at 0.4% to 2% of the cells
# (benchmarks/bench_few_valued.py --sparse-rule).  None: never.
_SPARSE_ENTRIES = 64
_SPARSE_SHARE = 0.02


def builder_seed(rng):
    """The builder's seed, drawn from the generator of a tree's ``random_state`` (a
    RandomState): what a tree's fit passes to the builder, and what a forest passes for
    a tree of ``random_state`` s (see _ensemble._TreeSeeds), so that the tree refits."""
    return int(rng.randint(np.iinfo(np.int64).max, dtype=np.int64))


# the binned builder's trees of at least this many samples grow their subtrees apart
# (see _hist_forks.pxi)
_FORK_ROWS = _hist.FORK_ROWS
# a single tree's max_bins="auto" bins from this many rows (more for wide data, as the
# forests' rule): benchmarks/bench_binned.py --tree, 20 features, binned fit over exact
# at 200,000 rows 1.4 to 2.1, at a million 0.57 to 1.04, at four million 0.21 to 0.68
_AUTO_BIN_ROWS = 1_000_000


def _grow_binned(X, binned, codes, numeric, sw, n_values, settings, seed,
                 min_weight_leaf, criterion, categories=None, min_category_samples=10,
                 outputs=None):
    """The binned builder's tree (see _hist.pyx) on ``binned`` (_bins.binned_features'
    for X, then optionally a _hist.Workspace to reuse and the threads to grow its
    subtrees in), its cuts refined on X, the
    features of ``categories`` (_bins.category_table's) split on sets: ``(nodes,
    value, depth, left_codes)``; ``outputs``: several outputs as _grow gives them (codes
    or numeric row by row), or None."""
    bin_codes, edges, offsets, exact = binned[:4]
    n_outputs = 1
    if outputs is not None:
        n_outputs = outputs if numeric is not None else len(outputs)
        n_values = 1 if numeric is not None else int(max(outputs))
    orders, rare = _builder.category_settings()
    return _hist.build_tree(
        bin_codes, edges, offsets, codes, numeric, sw,
        1 if numeric is not None else n_values, _hist.CRITERIA[criterion],
        settings["max_depth"], settings["min_samples_split"],
        settings["min_samples_leaf"], min_weight_leaf, settings["max_features"],
        settings["min_impurity_decrease"], seed,
        shuffle_features=settings.get("shuffle_features", False),
        workspace=binned[4] if len(binned) > 4 else None, X=X, exact=exact,
        monotonic=settings.get("monotonic"), categories=categories,
        min_category_samples=min_category_samples, category_orders=orders,
        category_rare=rare, n_outputs=n_outputs,
        output_classes=None if numeric is not None or outputs is None else outputs,
        threads=binned[5] if len(binned) > 5 else 1, fork_rows=_FORK_ROWS)


class _BaseDecisionTree(_AcceptsNaN, _AtomicFit, BaseEstimator):
    """What both trees share: the fit on presorted lists, the one call into the
    builder, pruning, and the tree's structure (apply, decision_path, depth, leaves,
    importances).  Subclasses check the targets and say what the leaves hold."""

    # (a tree pickled before max_bins was grown exact)
    _pickle_defaults = dict(_AtomicFit._pickle_defaults, max_bins=None)
    _regression = False      # a numeric target (leaves hold means), not class codes
    _sparse_native = True    # a sparse X is grown on as it is (see _sparse.py)
    _criteria = _builder.CRITERIA    # the criteria the tree takes, and their codes

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on (X, y), optionally weighting the samples.

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
            Non-negative weights; samples of weight zero are ignored.

        Returns
        -------
        self : object
            The fitted tree.
        """
        return self._atomic(self._fit, X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        limits = check_tree_params(self)   # cheap checks first, before touching the data
        X, target, sw, fitted = self._training_data(X, y, sample_weight)
        rng = check_random_state(self.random_state)
        tune = None
        if self.validation_fraction is not None:
            frac = check_real("validation_fraction", self.validation_fraction, 0.0, 1.0,
                              low_open=True, high_open=True)
            stratify = target if not self._regression else None
            try:
                grow, tune = train_test_split(np.arange(X.shape[0]), test_size=frac,
                                              stratify=stratify, random_state=rng)
            except ValueError as error:
                what = "a stratified tuning set" if not self._regression else "a tuning set"
                raise ValueError(f"validation_fraction={frac} cannot hold out {what} "
                                 f"from these {X.shape[0]} samples: {error}") from error
            grow.sort()
            X_tune, y_tune, w_tune = X[tune], target[tune], sw[tune]
            X, target, sw = X[grow], target[grow], sw[grow]
            if issparse(X):
                X = canonical_csc(X)
            if not sw.sum() > 0:
                raise ValueError("the sample weights of the growing part sum to zero")
            if not w_tune.sum() > 0:
                raise ValueError("the sample weights of the tuning part held out by "
                                 "validation_fraction sum to zero: nothing to prune on")
        settings = self._builder_settings(X.shape[0], X.shape[1], *limits,
                                          n_classes=fitted.get("n_classes_", 1),
                                          n_outputs=fitted["n_outputs_"])
        seed = builder_seed(rng)
        # (random cuts grow on the values: no presort; a forest of them also codes its
        # features of small integers, a pass over X that one tree would not win back)
        # (a sparse X: its stored entries, see _sparse.py)
        # (a dense X of few entries: as a sparse one, see _SPARSE_ENTRIES)
        # (max_bins: the codes of the bins, see _bins.py; no presort)
        binned = sparse = None
        self.max_bins_ = self._max_bins(X, target, fitted)
        per_column = (0 if self.splitter == "random" and _SPARSE_ENTRIES is not None
                      else _SPARSE_ENTRIES)
        if self.max_bins_ is not None:
            binned = binned_features(X, self.max_bins_, 1,
                                     getattr(self, "is_categorical_", None))
        elif grows_on_entries(self, X, per_column, _SPARSE_SHARE):
            sparse = sparse_columns(canonical_csc(X))
        keys = (_builder.presort(X)
                if self._needs_presort() and not issparse(X) and sparse is None
                and binned is None else None)
        categories = category_table(self, X, keys, binned)
        for name, value in fitted.items():
            setattr(self, name, value)
        self._grow(X, keys, target, sw, settings, seed, categories=categories,
                   sparse=sparse, binned=binned)
        if tune is not None:
            self.tree_ = prune_reduced_error(
                self.tree_, X_tune if issparse(X_tune) else np.ascontiguousarray(X_tune),
                y_tune, w_tune, regression=self._regression)
        return self

    def _max_bins(self, X, target, fitted):
        """The bins this fit grows on (see _bins.resolve_max_bins), or None: the exact
        search (also for random cuts, which the binned builder does not draw)."""
        max_bins = getattr(self, "max_bins", None)
        check_max_bins(max_bins)
        if max_bins is None:
            return None
        if self.splitter == "random":
            if max_bins == "auto":
                return None
            raise ValueError(f'max_bins={max_bins!r} takes splitter="best": random cuts '
                             "are drawn on the values; use max_bins=None")
        return resolve_max_bins(self, X, *outputs_and_classes(
            target, fitted.get("n_classes_"), self._regression), _AUTO_BIN_ROWS)

    def _needs_presort(self):
        """Whether the tree grows on presorted lists: all but random splits without
        categorical features or the absolute error (see _builder.needs_presort); called
        once the data is checked (``is_categorical_`` set)."""
        return _builder.needs_presort(
            self.splitter == "random", getattr(self, "is_categorical_", None) is not None,
            self._criteria[self.criterion], self._regression)

    def _builder_settings(self, n_samples, n_features, max_depth, max_leaf_nodes, *,
                          n_classes, n_outputs=1):
        """Every parameter resolved to the plain numbers the builder takes (max_depth and
        max_leaf_nodes as check_tree_params returns them)."""
        # counts beyond the data mean the same as the largest useful ones (a leaf of more
        # than n samples, a depth or leaf count no tree of n samples reaches): clamped,
        # so that any int the checks accept reaches the builder
        min_leaf = min(resolve_min_samples_leaf(self.min_samples_leaf, n_samples),
                       n_samples + 1)
        min_split = min(resolve_min_samples_split(self.min_samples_split, n_samples),
                        n_samples + 1)
        self.max_features_ = resolve_max_features(self.max_features, n_features)
        frac = check_real("min_weight_fraction_leaf", self.min_weight_fraction_leaf,
                          0.0, 0.5)
        check_real("ccp_alpha", self.ccp_alpha, 0.0)
        return dict(
            criterion=self._criteria[self.criterion],
            random_split=self.splitter == "random",
            max_depth=_MAX_DEPTH_NONE if max_depth is None else min(max_depth,
                                                                    _MAX_DEPTH_NONE),
            min_samples_split=max(min_split, 2 * min_leaf),
            min_samples_leaf=min_leaf,
            min_weight_fraction_leaf=frac,
            max_features=self.max_features_,
            max_leaf_nodes=(-1 if max_leaf_nodes is None
                            else min(max_leaf_nodes, max(2, n_samples))),
            min_impurity_decrease=float(self.min_impurity_decrease),
            monotonic=resolve_monotonic_cst(self.monotonic_cst, n_features, n_classes,
                                            regression=self._regression,
                                            n_outputs=n_outputs),
        )

    def _grow(self, X, keys, target, sw, settings, seed, scaled_by=1.0, ranks=None,
              categories=None, value_codes=None, sparse=None, floats=None, bits=None,
              binned=None, col_top=None):
        """The one call into the builder, on lists presorted by the caller (a forest
        shares them, and their dense ``ranks``, between its trees).  ``target``: class
        codes (int32) or numeric targets (float64); ``scaled_by``: the power of two by
        which the caller already divided the weights; ``categories``: category_table's
        for X, or None; ``value_codes``: _builder.integer_codes' for X, or None, and
        ``floats`` _builder.float_copy's, or None, and ``bits`` _builder.code_bits'
        for the codes, or None (keys None: random cuts on the values).  A sparse X (canonical_csc's) is grown on its
        ``sparse_columns`` (``sparse``, computed here when None).  ``binned``:
        _bins.binned_features' for X: the tree grows on the bins (keys None; see
        _hist.pyx).  ``col_top``: _builder.column_tops' for the keys (a forest's, once
        for its trees), or None."""
        # A tree depends only on the ratios of the weights: weights far from 1 are scaled
        # so that sums and squares neither overflow nor underflow, and the node weights
        # are scaled back afterwards.
        step = weight_scale(sw)
        if step != 1.0:
            sw = sw / step
        scale = scaled_by * step
        settings = dict(settings)
        frac = settings.pop("min_weight_fraction_leaf")
        n_values = 1 if self._regression else self.n_classes_
        outputs = None
        if target.ndim == 2:     # several outputs, passed row by row
            n_values = [1] * target.shape[1] if self._regression else list(n_values)
            outputs = target.shape[1] if self._regression else n_values
            target = target.reshape(-1)
        if not self._regression:
            codes, numeric = target, None
        else:
            codes, numeric = None, target
        if binned is not None:
            nodes, value, depth, left_codes = _grow_binned(
                X, binned, codes, numeric, sw, n_values, settings, seed,
                frac * float(sw.sum()), self.criterion, categories,
                min(self.min_category_samples, X.shape[0] + 1), outputs)
        else:
            nodes, value, depth, left_codes = self._grow_exact(
                X, keys, codes, numeric, sw, n_values, outputs, settings, seed,
                frac * float(sw.sum()), ranks, categories, value_codes, sparse, floats,
                bits, col_top)
        # pruned on the scaled weights (only their ratios matter; scaled back, tiny ones
        # would be subnormal and round), then the node weights scaled back
        tree = prune_cost_complexity(Tree(X.shape[1], n_values, nodes, value, depth,
                                          left_codes), float(self.ccp_alpha))
        if scale != 1.0:
            nodes = tree.nodes.copy()
            nodes["weighted_n_node_samples"] *= scale
            if not np.all(np.isfinite(nodes["weighted_n_node_samples"])):
                # a bootstrap's counts times weights: the inputs' own sum was finite
                raise ValueError("the weights of a tree's samples sum to more than the "
                                 "largest float: divide the sample weights by a large "
                                 "number (only their ratios matter)")
            tree = Tree(tree.n_features, n_values, nodes, tree.value, tree.max_depth,
                        tree.code_sets)
        self.tree_ = tree
        return self

    def _grow_exact(self, X, keys, codes, numeric, sw, n_values, outputs, settings,
                    seed, min_weight_leaf, ranks, categories, value_codes, sparse, floats,
                    bits, col_top=None):
        """The exact builder's tree (see _grow): ``(nodes, value, depth, left_codes)``."""
        X_build = X
        if issparse(X):
            sparse = sparse_columns(X) if sparse is None else sparse
            X_build = np.broadcast_to(np.zeros(1), X.shape)   # the shape alone
            keys = value_codes = floats = bits = col_top = None
        return _builder.build_tree(
            X_build, keys, codes, sw, 1 if outputs is not None else n_values, seed=seed,
            sparse=sparse,
            output_classes=outputs, codes=value_codes, floats=floats, bits=bits,
            min_weight_leaf=min_weight_leaf, ranks=ranks, target=numeric,
            categories=categories, col_top=None if keys is None else col_top,
            # (more than the samples: the same as n + 1, which fits the builder's int64)
            min_category_samples=min(self.min_category_samples, X.shape[0] + 1),
            **settings)

    # ------------------------------------------------------------------ pruning
    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The pruning path of minimal cost-complexity pruning, as scikit-learn gives it.

        A tree is grown on (X, y) with ``ccp_alpha=0`` and pruned weakest link by weakest
        link. Choose ``ccp_alpha`` among the returned alphas, for instance by
        cross-validation. The estimator itself is not changed.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (a classifier) or numeric targets (a regressor).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.

        Returns
        -------
        path : sklearn.utils.Bunch
            ``ccp_alphas``: the effective alpha of each pruning step, increasing from 0;
            ``impurities``: the total weighted leaf impurity after each step.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from rotforest import DecisionTreeClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y)
        >>> len(path.ccp_alphas), float(path.ccp_alphas[0])
        (14, 0.0)
        >>> clf = DecisionTreeClassifier(ccp_alpha=path.ccp_alphas[-3], random_state=0)
        >>> clf.fit(X, y).get_n_leaves()
        3
        """
        est = clone(self).set_params(ccp_alpha=0.0, validation_fraction=None)
        est.fit(X, y, sample_weight=sample_weight)
        alphas, impurities = cost_complexity_path(est.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)

    def _prune_on(self, X, y, sample_weight):
        """reduced_error_prune: the tuning set checked (its y by _tuning_targets), then
        the fitted tree pruned on it."""
        X = self._validate_X_predict(X)
        y = np.asarray(y)
        shape = (X.shape[0],) if self.n_outputs_ == 1 else (X.shape[0], self.n_outputs_)
        if y.shape != shape:
            raise ValueError(f"y must have shape {shape} (the tree's outputs); got shape "
                             f"{y.shape}")
        if y.ndim == 1:
            targets = self._tuning_targets(y, self.classes_ if not self._regression
                                           else None)
        else:
            targets = np.stack([self._tuning_targets(
                y[:, o], self.classes_[o] if not self._regression else None)
                for o in range(y.shape[1])], axis=1)
        sw = _check_sample_weight(sample_weight, X.shape[0])
        if not sw.sum() > 0:
            raise ValueError("the tuning sample weights sum to zero: nothing to prune on")
        self.tree_ = prune_reduced_error(self.tree_, X, targets, sw,
                                         regression=self._regression)
        return self

    # --------------------------------------------------------------- prediction
    def _validate_X_predict(self, X):
        return predict_input(self, X)

    def apply(self, X):
        """Index of the leaf that each sample reaches.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        leaves : ndarray of shape (n_samples,)
            Node id (in ``tree_``) of each sample's leaf.
        """
        X = self._validate_X_predict(X)
        return self.tree_.apply(X)

    def decision_path(self, X):
        """The nodes that each sample visits, from the root to its leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, node_count)
            Entry (i, j) is 1 when sample i passes through node j.
        """
        X = self._validate_X_predict(X)
        return self.tree_.decision_path(X)

    def get_depth(self):
        """Depth of the tree.

        Returns
        -------
        depth : int
            Length of the longest root-to-leaf path (a single leaf has depth 0).
        """
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves.

        Returns
        -------
        n_leaves : int
            Number of leaves of the fitted (and possibly pruned) tree.
        """
        check_is_fitted(self)
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total impurity decrease brought by each feature.

        Returns
        -------
        importances : ndarray of shape (n_features,)
            Non-negative, summing to 1 (all zero for a single-leaf tree).
        """
        check_is_fitted(self)
        return self.tree_.compute_feature_importances()


# the max_bins entry of both trees' docstrings
_MAX_BINS_DOC = """\
max_bins : int, "auto" or None, default="auto"
    Grow on binned features, as the random forests can: each feature's values cut
    into at most ``max_bins`` (2 to 255) bins of nearly equal counts, the cuts
    searched on histograms of the bins (and inside the two bins around the best
    cut). "auto" (the default) bins from a million rows (more for wide data), where
    binned fits were measured faster: 1.4 to 2 times the exact fit's time at
    200,000 rows, 0.6 to 1.0 at a million, 0.2 to 0.7 at four million (20
    features), held-out scores within 0.003. None always searches exactly on the
    presorted features (the tree that equals scikit-learn's). Not with
    ``splitter="random"``.
"""


@shared_entries(max_bins=_MAX_BINS_DOC)
class DecisionTreeClassifier(_LogProba, ClassifierMixin, _BaseDecisionTree):
    """A CART decision tree classifier grown on presorted feature lists.

    The features are sorted once per fit; every node is then split by scanning the
    sorted lists with running weighted class counts, and the lists are partitioned
    stably for the children, so no node sorts again.  Splits fall only between
    distinct values, at a threshold that reproduces the training partition exactly
    (``x <= threshold`` goes left).  X is kept in float64 throughout.

    Read more in the user guide: :doc:`Decision trees </user_guide/trees>`.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "error"}, default="gini"
        Impurity to reduce: Gini index, Shannon entropy (``log_loss`` is the same), or the
        misclassification rate.
    splitter : {"best", "random"}, default="best"
        "best" scans every threshold of the drawn features; "random" draws one threshold
        per drawn feature uniformly between its extremes in the node.
    max_depth : int or None, default=None
        Maximum depth of the tree; None grows until the other rules stop it.
    min_samples_split : int or float, default=2
        Minimum number of samples a node needs to be split (a float is a fraction of the
        training samples).
    min_samples_leaf : int or float, default=1
        Minimum number of samples in each child of a split (a float is a fraction of the
        training samples).
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child of a split.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random at each node (a float is a fraction of the
        features; None: all of them).
    random_state : int, RandomState instance or None, default=None
        Seeds the feature draws, the random splitter and the hold-out of
        ``validation_fraction``.
    max_leaf_nodes : int or None, default=None
        Grow best-first (largest impurity decrease first) up to this many leaves.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted impurity decrease is at least this.
    class_weight : dict, list of dict, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights (several outputs: a
        list of one dict per output, whose weights multiply, or "balanced").
    ccp_alpha : float, default=0.0
        Complexity parameter of minimal cost-complexity pruning: the grown tree is pruned
        to the subtree of largest cost complexity not above ``ccp_alpha`` (as in
        scikit-learn; see :meth:`cost_complexity_pruning_path`).
    validation_fraction : float or None, default=None
        If set, ``fit`` holds out this stratified fraction of the training data (drawn
        with ``random_state``), grows the tree on the rest and prunes it by reduced-error
        pruning on the held-out part (see :meth:`reduced_error_prune`).
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Per feature, 1 when the predicted probability of the positive class (the second
        of ``classes_``) may only rise with the feature, -1 when it may only fall, 0 for
        no constraint; None: no constraint. Two classes only. As in scikit-learn, a
        split on a constrained feature is a candidate only if its children's
        probabilities are in that order and within the bounds set by the constrained
        splits above it, and every node's probability is held within those bounds.
    categorical_features : "from_dtype", None or array-like of bool, int or str, \
default="from_dtype"
        Features whose values are categories, split on sets of categories instead of
        thresholds: "from_dtype" takes the ``category`` columns of a pandas DataFrame
        (none for other inputs), None takes none; or a boolean mask, feature indices or
        feature names. Categories are integer codes from 0 to 2**24 - 1 (a pandas
        ``category`` column is coded by its categories; NaN is missing); a category that a node did
        not see in training goes where the node's missing values go. See
        :doc:`Categorical features </user_guide/categorical>`.
    min_category_samples : int, default=10
        In a node, a category with fewer training samples than this is not split off
        alone: such categories are pooled and go to one side together (otherwise splits
        on sets of categories fit the noise of rare ones). 1 pools none.
    <max_bins>

    Attributes
    ----------
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    classes_ : ndarray of shape (n_classes,) or list of ndarray
        The class labels, sorted (several outputs: one array per output).
    n_classes_ : int or list of int
        Number of classes (several outputs: of each output).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during fit; only when X had string column names.
    max_features_ : int
        The resolved number of features drawn at each node.
    max_bins_ : int or None
        The bins the tree grew on, or None for the exact search (see ``max_bins``).
    n_outputs_ : int
        Number of outputs (columns of a 2-D y; 1 for a 1-D y).
    tree_ : rotforest._tree.Tree
        The fitted nodes, with scikit-learn's field names (``children_left``,
        ``children_right``, ``feature``, ``threshold``, ``impurity``,
        ``n_node_samples``, ``weighted_n_node_samples``, and ``value`` of shape
        (node_count, 1, n_classes) holding class fractions), so scikit-learn's
        ``export_text``, ``export_graphviz`` and ``plot_tree`` read it.
    feature_importances_ : ndarray of shape (n_features,)
        Normalised total impurity decrease brought by each feature.

    See Also
    --------
    RandomForestClassifier : Bagged trees sharing one presort.
    RotationForestClassifier : Trees grown on random rotations of the features.
    sklearn.tree.DecisionTreeClassifier : scikit-learn's tree, which sorts at every node.

    Notes
    -----
    Grown exact (below a million rows by default, or with ``max_bins=None``) and
    without exact ties between features, the tree equals scikit-learn's node for node
    (feature, threshold, impurity, value). Where two features give exactly the same
    impurity decrease, rotforest takes the lower-indexed one.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from rotforest import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> clf.get_depth(), clf.get_n_leaves()
    (2, 3)
    >>> round(clf.score(X, y), 3)
    0.96
    >>> clf.predict(X[[0, 50, 100]]).tolist()
    [0, 1, 2]
    >>> clf.predict_proba(X[[100]]).round(3).tolist()
    [[0.0, 0.022, 0.978]]
    """

    def __init__(
        self,
        *,
        criterion="gini",
        splitter="best",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=None,
        random_state=None,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        class_weight=None,
        ccp_alpha=0.0,
        validation_fraction=None,
        monotonic_cst=None,
        categorical_features="from_dtype",
        min_category_samples=10,
        max_bins="auto",
    ):
        store_params(self, locals())

    # ------------------------------------------------------------------ fitting
    def _training_data(self, X, y, sample_weight):
        """X, the class codes (int32), the weights, and the attributes a fit sets."""
        X, y, classes, y_enc, sw = training_data(self, X, y, sample_weight,
                                                 self.class_weight)
        if y.ndim == 1:
            fitted = dict(classes_=classes, n_classes_=len(classes), n_outputs_=1)
        else:
            fitted = dict(classes_=classes, n_outputs_=y.shape[1],
                          n_classes_=np.array([len(c) for c in classes], dtype=np.intp))
        return X, np.ascontiguousarray(y_enc, dtype=np.int32), sw, fitted

    # ------------------------------------------------------------------ pruning
    def reduced_error_prune(self, X, y, sample_weight=None):
        """Prune the fitted tree by reduced-error pruning on the tuning set (X, y).

        Bottom-up, a branch is replaced by a leaf whenever the leaf misclassifies no
        more of the tuning set (by weight) than the branch does; ties prune, and so do
        branches that no tuning sample reaches.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Tuning data, not used to grow the tree.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Labels of the tuning data, among the classes the tree was fitted on.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the tuning samples.

        Returns
        -------
        self : DecisionTreeClassifier
            The tree, pruned in place.

        Examples
        --------
        >>> from sklearn.datasets import make_classification
        >>> from sklearn.model_selection import train_test_split
        >>> from rotforest import DecisionTreeClassifier
        >>> X, y = make_classification(600, flip_y=0.2, random_state=0)
        >>> X_grow, X_tune, y_grow, y_tune = train_test_split(X, y, random_state=0)
        >>> clf = DecisionTreeClassifier(random_state=0).fit(X_grow, y_grow)
        >>> before = clf.get_n_leaves()
        >>> after = clf.reduced_error_prune(X_tune, y_tune).get_n_leaves()
        >>> before, after
        (61, 5)
        """
        return self._prune_on(X, y, sample_weight)

    def _tuning_targets(self, y, classes):
        """The tuning labels (of one output, whose classes are ``classes``) as class
        codes; a clear error for labels not fitted on."""
        try:
            codes = np.searchsorted(classes, y)
        except TypeError as error:          # labels that do not compare with the classes
            raise ValueError(f"y holds labels the tree was not fitted on ({error})") from error
        codes = np.minimum(codes, len(classes) - 1)
        unknown = classes[codes] != y
        if np.any(unknown):
            raise ValueError(f"y holds labels the tree was not fitted on: "
                             f"{np.unique(y[unknown])[:5].tolist()}")
        return codes

    # --------------------------------------------------------------- prediction
    def predict_proba(self, X):
        """Class probabilities: the weighted class fractions of each sample's leaf.

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
        leaves = self.apply(X)
        if self.n_outputs_ == 1:
            return self.tree_.value[leaves, 0, :]
        return [self.tree_.value[leaves, o, :n] for o, n in enumerate(self.n_classes_)]

    def predict(self, X):
        """Most probable class of each sample (the first one on a tie).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predicted labels, taken from ``classes_``.
        """
        leaves = self.apply(X)
        leaf_class = np.argmax(self.tree_.value, axis=2)[leaves]
        if self.n_outputs_ == 1:
            return self.classes_.take(leaf_class[:, 0], axis=0)
        return _stack_outputs([c.take(leaf_class[:, o], axis=0)
                               for o, c in enumerate(self.classes_)])


@shared_entries(max_bins=_MAX_BINS_DOC)
class DecisionTreeRegressor(RecursionDependence, RegressorMixin, _BaseDecisionTree):
    """A CART regression tree grown on presorted feature lists.

    The same builder as :class:`DecisionTreeClassifier`: the features are sorted once per
    fit and every node is split by scanning the sorted lists with running sums of the
    weights and of the weighted targets.  Leaves hold the weighted mean of their
    samples' targets (the weighted median with ``criterion="absolute_error"``).

    Read more in the user guide: :doc:`Regression </user_guide/regression>`.

    Parameters
    ----------
    criterion : {"squared_error", "friedman_mse", "poisson", "absolute_error"}, \
            default="squared_error"
        Impurity to reduce: the weighted variance (mean squared error), the same with
        Friedman's improvement score, the half mean Poisson deviance (for counts and
        other non-negative targets; a child whose targets sum to zero is never made), or
        the weighted mean absolute deviation from the weighted median (robust to
        outlying targets; nodes then hold their weighted medians, as scikit-learn's:
        where the cumulative weight in increasing y first exceeds half, or the mean of
        the two values there when it is exactly half).  The absolute error's split
        search is exact and takes O(n) per feature and node on the presorted lists
        (running medians over a linked list of the node's targets), against
        scikit-learn's O(n log n).
    splitter : {"best", "random"}, default="best"
        "best" scans every threshold of the drawn features; "random" draws one threshold
        per drawn feature uniformly between its extremes in the node.
    max_depth : int or None, default=None
        Maximum depth of the tree; None grows until the other rules stop it.
    min_samples_split : int or float, default=2
        Minimum number of samples a node needs to be split (a float is a fraction of the
        training samples).
    min_samples_leaf : int or float, default=1
        Minimum number of samples in each child of a split (a float is a fraction of the
        training samples).
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child of a split.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random at each node (a float is a fraction of the
        features; None: all of them).
    random_state : int, RandomState instance or None, default=None
        Seeds the feature draws, the random splitter and the hold-out of
        ``validation_fraction``.
    max_leaf_nodes : int or None, default=None
        Grow best-first (largest impurity decrease first) up to this many leaves.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted impurity decrease is at least this.
    ccp_alpha : float, default=0.0
        Complexity parameter of minimal cost-complexity pruning (see
        :meth:`cost_complexity_pruning_path`).
    validation_fraction : float or None, default=None
        If set, ``fit`` holds out this fraction of the training data (drawn with
        ``random_state``), grows the tree on the rest and prunes it by reduced-error
        pruning (squared error) on the held-out part (see :meth:`reduced_error_prune`).
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Per feature, 1 when the prediction may only rise with the feature, -1 when it
        may only fall, 0 for no constraint; None: no constraint.  As in scikit-learn, a
        split on a constrained feature is a candidate only if its children's means are
        in that order and within the bounds set by the constrained splits above it, and
        every node's value is held within those bounds.
    categorical_features : "from_dtype", None or array-like of bool, int or str, \
default="from_dtype"
        Features whose values are categories, split on sets of categories instead of
        thresholds: "from_dtype" takes the ``category`` columns of a pandas DataFrame
        (none for other inputs), None takes none; or a boolean mask, feature indices or
        feature names. Categories are integer codes from 0 to 2**24 - 1 (a pandas
        ``category`` column is coded by its categories; NaN is missing); a category that a node did
        not see in training goes where the node's missing values go. See
        :doc:`Categorical features </user_guide/categorical>`.
    min_category_samples : int, default=10
        In a node, a category with fewer training samples than this is not split off
        alone: such categories are pooled and go to one side together (otherwise splits
        on sets of categories fit the noise of rare ones). 1 pools none.
    <max_bins>

    Attributes
    ----------
    is_categorical_ : ndarray of shape (n_features,) of bool, or None
        The categorical features; None when there are none.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen during fit; only when X had string column names.
    max_features_ : int
        The resolved number of features drawn at each node.
    max_bins_ : int or None
        The bins the tree grew on, or None for the exact search (see ``max_bins``).
    n_outputs_ : int
        Number of outputs (columns of a 2-D y; 1 for a 1-D y).
    tree_ : rotforest._tree.Tree
        The fitted nodes, with scikit-learn's field names (``value`` of shape
        (node_count, 1, 1) holds each node's weighted mean, or median), so scikit-learn's
        ``export_text``, ``export_graphviz`` and ``plot_tree`` read it.
    feature_importances_ : ndarray of shape (n_features,)
        Normalised total impurity decrease brought by each feature.

    See Also
    --------
    RandomForestRegressor : Bagged regression trees sharing one presort.
    sklearn.tree.DecisionTreeRegressor : scikit-learn's tree, which sorts at every node.

    Notes
    -----
    Grown exact (below a million rows by default, or with ``max_bins=None``) and
    without exact ties between features, the tree equals scikit-learn's node for node
    (feature, threshold, impurity, value). Where two features give exactly the same
    impurity decrease, rotforest takes the lower-indexed one.  A 2-D ``y`` fits several
    outputs in one tree, as in scikit-learn (the impurity is the mean of the outputs').

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from rotforest import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    >>> reg.get_depth(), reg.get_n_leaves()
    (3, 8)
    >>> round(reg.score(X, y), 3)
    0.501
    >>> reg.predict(X[:2]).round(1).tolist()
    [208.6, 83.4]
    """

    _regression = True
    _criteria = _builder.REGRESSION_CRITERIA

    def __init__(
        self,
        *,
        criterion="squared_error",
        splitter="best",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=None,
        random_state=None,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        ccp_alpha=0.0,
        validation_fraction=None,
        monotonic_cst=None,
        categorical_features="from_dtype",
        min_category_samples=10,
        max_bins="auto",
    ):
        store_params(self, locals())

    def _training_data(self, X, y, sample_weight):
        """X, the targets (float64), the weights, and the attributes a fit sets."""
        X, y, sw = regression_data(self, X, y, sample_weight)
        check_targets(y, self.criterion, sw)
        return X, y, sw, dict(n_outputs_=1 if y.ndim == 1 else y.shape[1])

    def reduced_error_prune(self, X, y, sample_weight=None):
        """Prune the fitted tree by reduced-error pruning on the tuning set (X, y).

        Bottom-up, a branch is replaced by a leaf whenever the leaf's weighted squared
        error on the tuning set is no larger than the branch's; ties prune, and so do
        branches that no tuning sample reaches.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Tuning data, not used to grow the tree.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets of the tuning data.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the tuning samples.

        Returns
        -------
        self : DecisionTreeRegressor
            The tree, pruned in place.

        Examples
        --------
        >>> from sklearn.datasets import load_diabetes
        >>> from rotforest import DecisionTreeRegressor
        >>> X, y = load_diabetes(return_X_y=True)
        >>> reg = DecisionTreeRegressor(random_state=0).fit(X[:300], y[:300])
        >>> before = reg.get_n_leaves()
        >>> after = reg.reduced_error_prune(X[300:], y[300:]).get_n_leaves()
        >>> before, after
        (293, 13)
        """
        return self._prune_on(X, y, sample_weight)

    def _tuning_targets(self, y, classes=None):
        """The tuning targets as floats; a clear error for NaN or infinite ones."""
        y = y.astype(np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("y must be finite: it holds NaN or infinite values")
        return y

    def predict(self, X):
        """The mean target of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predicted values.
        """
        leaves = self.apply(X)
        if self.n_outputs_ == 1:
            return self.tree_.value[leaves, 0, 0]
        return self.tree_.value[leaves, :, 0]


# scikit-learn's export_text and plot_tree accept only instances of its own tree classes
# (checked with isinstance), and format a classifier's leaves by the same test.  Our tree
# has the same ``tree_`` fields, so it is registered as a virtual subclass (scikit-learn's
# tree classes use ABCMeta).  The only other test for these classes in scikit-learn
# (1.9) is partial_dependence's: for the regressor it takes the "recursion" method by
# default, which calls _compute_partial_dependence_recursion (RecursionDependence).
_SklearnDecisionTreeClassifier.register(DecisionTreeClassifier)
_SklearnDecisionTreeRegressor.register(DecisionTreeRegressor)

