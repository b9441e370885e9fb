"""RotatedTree: one tree of a rotation forest as an estimator of the forest's own input.

A rotation forest's trees read the rows normalised and projected onto their own axes
(``rotations_[i]``); tools that average ``forest.estimators_`` on the user's X (forestci,
treeinterpreter-style code, hand-written loops) need trees that take X itself.  The
forest's ``estimators_`` (and ``forest[i]``, ``iter(forest)``) are these wrappers; the
trees themselves are ``rotated_estimators_``."""
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

__all__ = ["RotatedTreeClassifier", "RotatedTreeRegressor"]


class _RotatedTree(BaseEstimator):
    """What both wrappers share: the forest's validation and normalisation of X, the
    tree's projection, then the tree's own method on the projected rows."""

    def __init__(self, forest=None, index=None):
        self.forest = forest
        self.index = index

    @classmethod
    def _of(cls, forest, index):
        """Tree ``index`` of the fitted ``forest``, wrapped."""
        wrapper = cls(forest, index)
        wrapper.estimator_ = forest.rotated_estimators_[index]
        wrapper.rotation_ = forest.rotations_[index]
        for name in ("classes_", "n_classes_", "n_outputs_", "n_features_in_",
                     "feature_names_in_"):
            if hasattr(forest, name):
                setattr(wrapper, name, getattr(forest, name))
        return wrapper

    def fit(self, X, y, sample_weight=None):
        """Refused: a rotation forest's tree is fitted by its forest (fit the forest;
        refit the tree itself on its rotated rows as ``forest.rotated_estimators_``
        documents)."""
        raise TypeError(f"{type(self).__name__} is one tree of a fitted rotation forest "
                        "and cannot be fitted alone: fit the forest")

    def __getattr__(self, name):
        # the tree's parameters (max_depth, min_impurity_decrease, ...) and max_features_
        # read through; not its nodes (tree_): they split the rotated axes, not X's
        # features, and a tool reading them as X's would be silently wrong
        tree = self.__dict__.get("estimator_")
        if tree is not None and (name == "max_features_" or (
                not name.startswith("_") and name in tree.get_params(deep=False))):
            return getattr(tree, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}"
                             + ("; its tree's nodes split the rotated axes: read "
                                "estimator_.tree_ with rotation_" if name == "tree_" else ""))

    @property
    def random_state(self):
        """The tree's seed: with ``bootstrap=True`` its sample is
        ``numpy.random.RandomState(random_state).randint(0, n_samples, n_draws)``, as
        scikit-learn's forests draw theirs (what forestci reads)."""
        check_is_fitted(self)
        return self.estimator_.random_state

    def _rows(self, X):
        """X checked and normalised by the forest, projected onto this tree's axes."""
        check_is_fitted(self)
        forest = self.forest
        trees = getattr(forest, "rotated_estimators_", ())
        if not (self.index < len(trees) and trees[self.index] is self.estimator_):
            raise ValueError("the forest this tree came from was refitted since: read "
                             "forest.estimators_ again")
        Z, mask = forest._normalised(X)
        return np.ascontiguousarray(forest._projector()(self.rotation_, Z, mask))

    def predict(self, X):
        """The tree's prediction for the rows of X (the forest's features).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples, as the forest takes them.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        """
        return self.estimator_.predict(self._rows(X))

    def apply(self, X):
        """The leaf of every row of X in the tree (see the tree's ``apply``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        leaves : ndarray of shape (n_samples,)
        """
        return self.estimator_.apply(self._rows(X))

    def decision_path(self, X):
        """The nodes every row of X passes in the tree (see the tree's
        ``decision_path``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        indicator : sparse matrix of shape (n_samples, n_nodes)
        """
        return self.estimator_.decision_path(self._rows(X))

    def get_depth(self):
        """The depth of the tree."""
        check_is_fitted(self)
        return self.estimator_.get_depth()

    def get_n_leaves(self):
        """The number of leaves of the tree."""
        check_is_fitted(self)
        return self.estimator_.get_n_leaves()

    @property
    def feature_importances_(self):
        """The tree's impurity-decrease importances in the forest's features (each
        axis' importance shared among the features by the squares of its loadings, as
        the forest's ``feature_importances_``), summing to 1 (all zero for a leaf)."""
        check_is_fitted(self)
        return self.forest._tree_importances(self.estimator_, self.rotation_)


class RotatedTreeClassifier(ClassifierMixin, _RotatedTree):
    """One tree of a fitted ``RotationForestClassifier``, taking the forest's input.

    ``forest.estimators_[i]`` (also ``forest[i]`` and ``iter(forest)``): it checks and
    normalises X as the forest does, projects the rows onto the tree's axes and applies
    the tree, so that the mean of the trees' ``predict_proba`` is the forest's.

    Parameters
    ----------
    forest : RotationForestClassifier
        The fitted forest.
    index : int
        The tree's position in the forest.

    Attributes
    ----------
    estimator_ : DecisionTreeClassifier
        The tree itself (``forest.rotated_estimators_[index]``), which reads the
        projected rows.
    rotation_ : scipy.sparse.csc_matrix
        The tree's rotation (``forest.rotations_[index]``).
    random_state : int
        The tree's seed (read only).
    classes_, n_classes_, n_outputs_, n_features_in_, feature_names_in_
        The forest's.
    """

    def predict_proba(self, X):
        """The tree's class probabilities for the rows of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes), or a list of them
        """
        return self.estimator_.predict_proba(self._rows(X))

    def predict_log_proba(self, X):
        """The logarithm of ``predict_proba``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes), or a list of them
        """
        return self.estimator_.predict_log_proba(self._rows(X))


class RotatedTreeRegressor(RegressorMixin, _RotatedTree):
    """One tree of a fitted ``RotationForestRegressor``, taking the forest's input.

    ``forest.estimators_[i]`` (also ``forest[i]`` and ``iter(forest)``): it checks and
    normalises X as the forest does, projects the rows onto the tree's axes and applies
    the tree, so that the mean of the trees' ``predict`` is the forest's.

    Parameters
    ----------
    forest : RotationForestRegressor
        The fitted forest.
    index : int
        The tree's position in the forest.

    Attributes
    ----------
    estimator_ : DecisionTreeRegressor
        The tree itself (``forest.rotated_estimators_[index]``), which reads the
        projected rows.
    rotation_ : scipy.sparse.csc_matrix
        The tree's rotation (``forest.rotations_[index]``).
    random_state : int
        The tree's seed (read only).
    n_outputs_, n_features_in_, feature_names_in_
        The forest's.
    """
