"""Extremely randomised trees (Geurts, Ernst and Wehenkel, 2006): ExtraTreeClassifier and
ExtraTreeRegressor, trees that draw one random threshold per drawn feature, and the
forests of them, ExtraTreesClassifier and ExtraTreesRegressor.  The trees are
rotforest's trees with other defaults (``splitter="random"``, scikit-learn's
``max_features``), the forests its random forests without bootstrap by default; their
docstrings take the parameters' text from those (see _docs.py).  Random thresholds need
no sorted lists: the builder grows these trees on the values themselves (see
_scan_random.pxi), so neither a tree nor a forest presorts X unless a feature is
categorical or the criterion is the absolute error."""
from sklearn.ensemble import RandomForestRegressor as _SklearnRandomForestRegressor

from rotforest._docs import derived_docstring, derived_init
from rotforest._ensemble import register_as_sklearn_forest
from rotforest.forest import (RandomForestClassifier, RandomForestRegressor,
                              _ForestClassifier, _ForestRegressor)
from rotforest.tree import DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["ExtraTreeClassifier", "ExtraTreeRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor"]


# scikit-learn's defaults where they differ from the tree's or random forest's whose
# parameters these estimators take
_TREE_CLASSIFIER_DEFAULTS = {"splitter": "random", "max_features": "sqrt"}
_TREE_REGRESSOR_DEFAULTS = {"splitter": "random", "max_features": 1.0}
_FOREST_DEFAULTS = {"bootstrap": False}
# the random forests' parameters that the extra trees (random cuts on the values, no
# search to bin) do not take
_NOT_EXTRA = ("max_bins",)


class ExtraTreeClassifier(DecisionTreeClassifier):
    __doc__ = derived_docstring(
        DecisionTreeClassifier,
        """An extremely randomised tree classifier.

        A :class:`DecisionTreeClassifier` that draws, at every node, ``max_features``
        features and one threshold per feature uniformly between the feature's extremes
        in the node, and keeps the best of these random cuts.  Alone it is a weak model;
        it is the tree of :class:`ExtraTreesClassifier`.  No sorted lists are built (see
        the extra trees' guide).

        Read more in the user guide: :doc:`Extra trees </user_guide/extra_trees>`.""",
        defaults=_TREE_CLASSIFIER_DEFAULTS, removed=_NOT_EXTRA,
        see_also="""
        ExtraTreesClassifier : A forest of these trees.
        sklearn.tree.ExtraTreeClassifier : scikit-learn's extremely randomised tree.""",
        examples="""
        >>> from sklearn.datasets import load_iris
        >>> from rotforest import ExtraTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> tree = ExtraTreeClassifier(random_state=0).fit(X, y)
        >>> tree.splitter, tree.max_features_, round(tree.score(X, y), 3)
        ('random', 2, 1.0)""")
    __init__ = derived_init(DecisionTreeClassifier, _TREE_CLASSIFIER_DEFAULTS,
                            removed=_NOT_EXTRA)


class ExtraTreeRegressor(DecisionTreeRegressor):
    __doc__ = derived_docstring(
        DecisionTreeRegressor,
        """An extremely randomised tree regressor.

        A :class:`DecisionTreeRegressor` that draws, at every node, ``max_features``
        features and one threshold per feature uniformly between the feature's extremes
        in the node, and keeps the best of these random cuts; the tree of
        :class:`ExtraTreesRegressor`.

        Read more in the user guide: :doc:`Extra trees </user_guide/extra_trees>`.""",
        defaults=_TREE_REGRESSOR_DEFAULTS, removed=_NOT_EXTRA,
        see_also="""
        ExtraTreesRegressor : A forest of these trees.
        sklearn.tree.ExtraTreeRegressor : scikit-learn's extremely randomised tree.""",
        examples="""
        >>> from sklearn.datasets import load_diabetes
        >>> from rotforest import ExtraTreeRegressor
        >>> X, y = load_diabetes(return_X_y=True)
        >>> tree = ExtraTreeRegressor(random_state=0).fit(X, y)
        >>> tree.splitter, round(tree.score(X, y), 3)
        ('random', 1.0)""")
    __init__ = derived_init(DecisionTreeRegressor, _TREE_REGRESSOR_DEFAULTS,
                            removed=_NOT_EXTRA)



# the forests' docstrings: the random forests' parameters and attributes, with these
# changes (bootstrap off by default; the trees are extra trees)
_FOREST_TEXT = (("list of DecisionTreeClassifier", "list of ExtraTreeClassifier"),
                ("list of DecisionTreeRegressor", "list of ExtraTreeRegressor"),
                ("estimator_ : DecisionTreeClassifier", "estimator_ : ExtraTreeClassifier"),
                ("estimator_ : DecisionTreeRegressor", "estimator_ : ExtraTreeRegressor"),
                ("Draw each tree's samples with replacement; otherwise every tree sees all "
                 "samples.", "Draw each tree's samples with replacement; otherwise (the "
                 "default, as in scikit-learn's extra trees) every tree sees all samples."))


class ExtraTreesClassifier(_ForestClassifier):
    __doc__ = derived_docstring(
        RandomForestClassifier,
        """A forest of extremely randomised trees.

        Every tree is an :class:`ExtraTreeClassifier`, grown by default on all samples
        (no bootstrap): at each node it draws ``max_features`` features and one random
        threshold for each, and keeps the best of these cuts.  Everything else is the
        random forest's (:class:`RandomForestClassifier`): trees built by ``n_jobs``
        threads, the same forest for a ``random_state`` whatever ``n_jobs`` is, missing
        values, categorical features, monotonic constraints, pruning, warm starts, and
        out-of-bag scores with ``bootstrap=True``.  No presort is made (random
        thresholds need no sorted lists) unless a feature is categorical.

        Read more in the user guide: :doc:`Extra trees </user_guide/extra_trees>`.""",
        defaults=_FOREST_DEFAULTS, replace=_FOREST_TEXT, removed=_NOT_EXTRA,
        see_also="""
        ExtraTreeClassifier : The trees of this forest.
        RandomForestClassifier : Bagged trees that search every threshold.
        sklearn.ensemble.ExtraTreesClassifier : scikit-learn's extra trees.""",
        examples="""
        >>> from sklearn.datasets import load_iris
        >>> from rotforest import ExtraTreesClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> forest = ExtraTreesClassifier(n_estimators=20, random_state=0).fit(X, y)
        >>> forest.predict(X[[0, 50, 100]]).tolist()
        [0, 1, 2]
        >>> forest = ExtraTreesClassifier(n_estimators=50, bootstrap=True, oob_score=True,
        ...                               random_state=0).fit(X, y)
        >>> 0.9 < forest.oob_score_ < 1.0
        True""")
    __init__ = derived_init(RandomForestClassifier, _FOREST_DEFAULTS, removed=_NOT_EXTRA)

    _tree_class = ExtraTreeClassifier


class ExtraTreesRegressor(_ForestRegressor):
    __doc__ = derived_docstring(
        RandomForestRegressor,
        """A forest of extremely randomised regression trees.

        Every tree is an :class:`ExtraTreeRegressor`, grown by default on all samples
        (no bootstrap); the prediction is the mean of the trees'.  Everything else is
        :class:`RandomForestRegressor`'s; no presort is made unless a feature is
        categorical or the criterion is the absolute error.

        Read more in the user guide: :doc:`Extra trees </user_guide/extra_trees>`.""",
        defaults=_FOREST_DEFAULTS, replace=_FOREST_TEXT, removed=_NOT_EXTRA,
        see_also="""
        ExtraTreeRegressor : The trees of this forest.
        RandomForestRegressor : Bagged trees that search every threshold.
        sklearn.ensemble.ExtraTreesRegressor : scikit-learn's extra trees.""",
        examples="""
        >>> from sklearn.datasets import load_diabetes
        >>> from rotforest import ExtraTreesRegressor
        >>> X, y = load_diabetes(return_X_y=True)
        >>> forest = ExtraTreesRegressor(n_estimators=50, random_state=0).fit(X[:300],
        ...                                                                   y[:300])
        >>> round(forest.score(X[300:], y[300:]), 2) > 0.3
        True""")
    __init__ = derived_init(RandomForestRegressor, _FOREST_DEFAULTS, removed=_NOT_EXTRA)

    _tree_class = ExtraTreeRegressor


# as RandomForestRegressor (see forest.py): partial_dependence's "recursion" method
_SklearnRandomForestRegressor.register(ExtraTreesRegressor)
register_as_sklearn_forest(ExtraTreesClassifier)     # forestci (see _ensemble.py)
