"""rotforest: fast presorted decision trees and forests with a scikit-learn interface."""
try:
    from rotforest import _builder, _tree  # noqa: F401  (compiled extensions)
except ImportError as exc:  # pragma: no cover - only in a broken or source-tree import
    raise ImportError(
        "rotforest's compiled extensions could not be imported. Install the package with "
        "`pip install .` (or `pip install --no-build-isolation -e .` for development) and "
        "do not run Python from inside the source folder of a non-editable install."
    ) from exc

from rotforest.forest import RandomForestClassifier, RandomForestRegressor
from rotforest.extra import (ExtraTreeClassifier, ExtraTreeRegressor, ExtraTreesClassifier,
                             ExtraTreesRegressor)
from rotforest.rotation import RotationForestClassifier, RotationForestRegressor
from rotforest.tree import DecisionTreeClassifier, DecisionTreeRegressor
from rotforest.quantile import (ExtraTreesQuantileRegressor, RandomForestQuantileRegressor,
                                RotationForestQuantileRegressor)
from rotforest.export import export_text
from rotforest.explain import Explanation, explain


def to_onnx(estimator, *, target_opset=None, output=None, input_type="double"):
    """A fitted estimator as an ONNX model (needs ``pip install "rotforest[onnx]"``).

    The same as :func:`rotforest.onnx.to_onnx`, which documents the model: one double
    input ``X``; a classifier's outputs ``label`` and ``probabilities``, a regressor's
    ``variable``; every tree in one ``TreeEnsemble`` node in double precision, with the
    trees' missing-value directions and category sets.  onnx is imported only when this
    is called.

    Parameters
    ----------
    estimator : fitted rotforest estimator
        Any of rotforest's estimators: DecisionTree*, ExtraTree*, RandomForest*,
        ExtraTrees*, RotationForest*.
    target_opset : int or dict, default=None
        The opset of the main domain (an int), or ``{"": n, "ai.onnx.ml": m}`` with
        ``m >= 5``; None: the module's default.
    output : {None, "mean"}, default=None
        None: the model computes ``predict_proba`` / ``predict``.  A quantile forest's
        quantiles cannot be computed by ONNX's tree ensembles: it is refused unless
        ``output="mean"``, whose one output ``mean`` equals ``predict(X,
        quantiles="mean")``.
    input_type : {"double", "float"}, default="double"
        "float": the model takes float32 rows and casts them to double inside the graph
        (exactly), so its results are those of ``X.astype(np.float64)``.

    Returns
    -------
    model : onnx.ModelProto

    Examples
    --------
    >>> import numpy as np
    >>> import onnxruntime as ort                        # doctest: +SKIP
    >>> from sklearn.datasets import load_iris
    >>> from rotforest import RandomForestClassifier, to_onnx
    >>> X, y = load_iris(return_X_y=True)
    >>> forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> model = to_onnx(forest)                          # doctest: +SKIP
    >>> session = ort.InferenceSession(model.SerializeToString())  # doctest: +SKIP
    >>> label, proba = session.run(None, {"X": X[:2]})   # doctest: +SKIP
    >>> bool(np.abs(proba - forest.predict_proba(X[:2])).max() < 1e-9)  # doctest: +SKIP
    True
    """
    from rotforest.onnx import to_onnx as convert
    return convert(estimator, target_opset=target_opset, output=output,
                   input_type=input_type)


from importlib.metadata import PackageNotFoundError as _NotFound, version as _version

try:                                    # the installed package's (meson.build's)
    __version__ = _version("rotforest")
except _NotFound:                       # pragma: no cover (a source tree, not installed)
    __version__ = "unknown"

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "RandomForestClassifier",
           "RandomForestRegressor", "ExtraTreeClassifier", "ExtraTreeRegressor",
           "ExtraTreesClassifier", "ExtraTreesRegressor", "RotationForestClassifier",
           "RotationForestRegressor", "export_text", "explain", "Explanation",
           "to_onnx", "__version__", "RandomForestQuantileRegressor",
           "RotationForestQuantileRegressor", "ExtraTreesQuantileRegressor"]
