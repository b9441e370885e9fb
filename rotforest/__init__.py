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
from rotforest.rotation import RotationForestClassifier, RotationForestRegressor
from rotforest.tree import DecisionTreeClassifier, DecisionTreeRegressor
from rotforest.export import export_text


def to_onnx(estimator, **kwargs):
    """Shortcut for :func:`rotforest.onnx.to_onnx` (imports onnx only when called)."""
    from rotforest.onnx import to_onnx as convert
    return convert(estimator, **kwargs)


__version__ = "0.1.0"

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "RandomForestClassifier",
           "RandomForestRegressor", "RotationForestClassifier",
           "RotationForestRegressor", "export_text", "__version__"]
