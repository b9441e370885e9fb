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


def is_quantile_forest(estimator):
    """Whether ``estimator`` is one of the quantile forests (rotforest.quantile), whose
    ``predict`` gives quantiles rather than the mean of its trees."""
    from rotforest.quantile import _QuantileForest
    return isinstance(estimator, _QuantileForest)


def reads_mean(estimator, output, reader, cannot):
    """Checks the ``output`` a reader of fitted estimators (``reader``: "explain",
    "to_onnx") was asked for; returns whether it reads a quantile forest's mean.
    ``cannot``: what the reader cannot do with quantiles, for the message ("tree SHAP
    cannot explain them").

    A quantile forest's ``predict`` gives quantiles (the median by default), which the
    readers cannot compute from the trees: it needs ``output="mean"``, and is read as
    ``predict(X, quantiles="mean")``.  Any other estimator takes only None."""
    if is_quantile_forest(estimator):
        if isinstance(output, str) and output == "mean":   # (not an array's ==)
            return True
        name = type(estimator).__name__
        raise ValueError(
            f"{name}.predict returns quantiles (the median by default), and {cannot}: "
            f"the trees' leaves hold means. Pass output=\"mean\" to {reader} for the "
            "forest's mean, predict(X, quantiles=\"mean\")"
            + ("" if output is None else f"; got output={output!r}"))
    if output is not None:
        raise ValueError(f"output must be None for a {type(estimator).__name__} ("
                         f"{reader} reads its predict or predict_proba); output=\"mean\" "
                         f"is for the quantile forests only; got output={output!r}")
    return False
