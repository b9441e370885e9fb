"""Which rotforest estimator an object is, for the modules that read fitted estimators
(explain, onnx): the registry of the estimator classes by kind.  It imports the
estimator modules, and no estimator module imports it (the estimators do not depend on
their readers)."""
from sklearn.base import is_regressor
from sklearn.utils.validation import check_is_fitted

from rotforest.extra import (ExtraTreeClassifier, ExtraTreeRegressor, ExtraTreesClassifier,
                             ExtraTreesRegressor)
from rotforest.forest import RandomForestClassifier, RandomForestRegressor
from rotforest.rotation import RotationForestClassifier, RotationForestRegressor
from rotforest.tree import DecisionTreeClassifier, DecisionTreeRegressor


def estimator_kinds():
    """rotforest's estimators: class -> "tree", "forest" or "rotation" (the extra
    trees are trees, their forests forests)."""
    return {DecisionTreeClassifier: "tree", DecisionTreeRegressor: "tree",
            ExtraTreeClassifier: "tree", ExtraTreeRegressor: "tree",
            RandomForestClassifier: "forest", RandomForestRegressor: "forest",
            ExtraTreesClassifier: "forest", ExtraTreesRegressor: "forest",
            RotationForestClassifier: "rotation", RotationForestRegressor: "rotation"}


def fitted_kind(estimator, purpose):
    """The kind (see estimator_kinds) of a fitted rotforest estimator; a TypeError that
    starts with ``purpose`` ("explain takes", ...) for any other object, NotFittedError
    for an unfitted one, a ValueError for one fitted on several outputs."""
    kinds = estimator_kinds()
    kind = next((k for cls, k in kinds.items() if isinstance(estimator, cls)), None)
    if kind is None:
        names = ", ".join(cls.__name__ for cls in kinds)
        raise TypeError(f"{purpose} a rotforest estimator ({names}); got "
                        f"{type(estimator).__name__!r}")
    check_is_fitted(estimator)
    if getattr(estimator, "n_outputs_", 1) > 1:
        raise ValueError(f"{purpose} models of one output; this "
                         f"{type(estimator).__name__} was fitted on "
                         f"{estimator.n_outputs_} (a 2-D y): fit one per output, for "
                         "instance through sklearn.multioutput.MultiOutput"
                         f"{'Regressor' if is_regressor(estimator) else 'Classifier'}")
    return kind
