"""Copies of our fitted trees as scikit-learn estimators, node for node, so that
scikit-learn's (and shap's) own code can be run on exactly the trees we grew."""
import numpy as np
from sklearn.tree import DecisionTreeClassifier as SkTreeClassifier
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor
from sklearn.tree._tree import NODE_DTYPE as SK_NODE_DTYPE
from sklearn.tree._tree import Tree as SkTree


def sklearn_tree_(tree):
    """scikit-learn's ``Tree`` with the nodes, thresholds, missing-value directions and
    values of our ``tree`` (a ``rotforest._tree.Tree`` without categorical splits)."""
    if tree.code_sets is not None:         # (sets only for splits on sets of codes)
        raise ValueError("scikit-learn's trees have no categorical splits")
    n_classes = np.asarray(tree.n_classes, dtype=np.intp)
    out = SkTree(tree.n_features, n_classes, 1)
    nodes = np.zeros(tree.node_count, dtype=SK_NODE_DTYPE)
    for name in SK_NODE_DTYPE.names:
        nodes[name] = tree.nodes[name]
    out.__setstate__({"max_depth": tree.max_depth, "node_count": tree.node_count,
                      "nodes": nodes,
                      "values": np.ascontiguousarray(tree.value, dtype=np.float64)})
    return out


def as_sklearn(estimator):
    """A fitted scikit-learn DecisionTree{Classifier,Regressor} whose ``tree_`` is a copy
    of our single tree ``estimator``'s."""
    classifier = hasattr(estimator, "classes_")
    sk = SkTreeClassifier() if classifier else SkTreeRegressor()
    sk.tree_ = sklearn_tree_(estimator.tree_)
    sk.n_features_in_ = estimator.n_features_in_
    sk.n_outputs_ = 1
    sk.max_features_ = estimator.n_features_in_
    if classifier:
        sk.classes_ = estimator.classes_
        sk.n_classes_ = len(estimator.classes_)
    return sk
