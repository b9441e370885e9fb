"""The readers of fitted estimators on the quantile forests: explain, to_onnx and partial
dependence never give the mean where predict gives the median.  Each either computes
what the user asked for by name (``output="mean"``: ``predict(X, quantiles="mean")``),
or refuses with the remedy."""
import numpy as np
import pytest
from sklearn.inspection import partial_dependence
from sklearn.datasets import make_regression

from rotforest import (ExtraTreesQuantileRegressor, RandomForestQuantileRegressor,
                       RandomForestRegressor, RotationForestQuantileRegressor, explain)

QUANTILE_FORESTS = [RandomForestQuantileRegressor, ExtraTreesQuantileRegressor,
                    RotationForestQuantileRegressor]


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = 3 * X[:, 0] + X[:, 1] ** 2 + rng.exponential(2.0, size=n)   # skewed noise
    return X, y


@pytest.fixture(scope="module", params=QUANTILE_FORESTS, ids=lambda c: c.__name__)
def fitted(request):
    X, y = _data()
    forest = request.param(n_estimators=8, min_samples_leaf=3, random_state=0).fit(X, y)
    # the data make the median and the mean differ: a reader that gave the mean for
    # predict would be caught
    assert np.abs(forest.predict(X) - forest.predict(X, quantiles="mean")).max() > 1e-3
    return forest, X


# ------------------------------------------------------------------------- explain
def test_explain_refuses_without_output(fitted):
    forest, X = fitted
    for background in (None, X[:10]):
        with pytest.raises(ValueError) as info:
            explain(forest, X[:3], background=background)
        message = str(info.value)
        assert "quantiles (the median by default)" in message
        assert "tree SHAP cannot explain" in message
        assert 'output="mean"' in message
        assert 'predict(X, quantiles="mean")' in message


def test_explain_refuses_other_outputs(fitted):
    forest, X = fitted
    for output in ("median", 0.5, "predict"):
        with pytest.raises(ValueError, match='output="mean"'):
            explain(forest, X[:3], output=output)
    plain = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="output must be None"):
        explain(plain, X[:3], output="mean")


@pytest.mark.parametrize("with_background", [False, True])
def test_explain_mean_adds_up(fitted, with_background):
    forest, X = fitted
    rows = X[:7]
    background = X[20:45] if with_background else None
    ex = explain(forest, rows, background=background, output="mean")
    mean = forest.predict(rows, quantiles="mean")
    np.testing.assert_allclose(ex.values.sum(axis=1) + ex.base_values, mean,
                               rtol=0, atol=1e-9)
    if with_background:
        # base_values from the same output: the mean over the background rows
        expected = forest.predict(background, quantiles="mean").mean()
        np.testing.assert_allclose(ex.base_values, expected, rtol=0, atol=1e-12)
        assert ex.feature_perturbation == "interventional"
    else:
        assert ex.feature_perturbation == "tree_path_dependent"


# ---------------------------------------------------------------------------- onnx
def test_onnx_mean_output(fitted):
    onnx = pytest.importorskip("onnx", reason="ONNX export needs the onnx package")
    ort = pytest.importorskip("onnxruntime",
                              reason="running the ONNX model needs onnxruntime")
    from rotforest.onnx import to_onnx
    forest, X = fitted
    with pytest.raises(ValueError) as info:
        to_onnx(forest)
    message = str(info.value)
    assert "quantiles (the median by default)" in message
    assert 'output="mean"' in message
    with pytest.raises(ValueError, match='output="mean"'):
        to_onnx(forest, output="median")
    model = to_onnx(forest, output="mean")
    assert isinstance(model, onnx.ModelProto)
    assert [o.name for o in model.graph.output] == ["mean"]
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {"X": X})
    assert out.shape == (X.shape[0], 1)
    np.testing.assert_allclose(out[:, 0], forest.predict(X, quantiles="mean"),
                               rtol=0, atol=1e-9)


def test_onnx_refuses_output_for_other_estimators():
    pytest.importorskip("onnx", reason="ONNX export needs the onnx package")
    from rotforest.onnx import to_onnx
    X, y = _data()
    plain = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="output must be None"):
        to_onnx(plain, output="mean")
    assert [o.name for o in to_onnx(plain).graph.output] == ["variable"]


def test_skl2onnx_pipeline_refused(fitted):
    pytest.importorskip("onnx", reason="ONNX export needs the onnx package")
    skl2onnx = pytest.importorskip("skl2onnx", reason="the pipeline test needs skl2onnx")
    import rotforest.onnx  # noqa: F401 - registers the converters
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    forest, X = fitted
    X, y = _data()
    pipeline = make_pipeline(StandardScaler(), type(forest)(
        n_estimators=3, random_state=0)).fit(X, y)
    with pytest.raises(ValueError) as info:
        skl2onnx.to_onnx(pipeline, X[:1])
    message = str(info.value)
    assert "skl2onnx cannot pass output=\"mean\"" in message
    assert 'rotforest.onnx.to_onnx(forest, output="mean")' in message


# -------------------------------------------------------------- partial dependence
def _by_hand(forest, X, feature, grid):
    """Mean over the rows of predict with the feature set to each grid value."""
    out = []
    for value in grid:
        Xv = X.copy()
        Xv[:, feature] = value
        out.append(forest.predict(Xv).mean())
    return np.array(out)


def test_partial_dependence_brute_is_predict(fitted):
    forest, X = fitted
    result = partial_dependence(forest, X, [1], method="brute", grid_resolution=7)
    grid = result["grid_values"][0]
    np.testing.assert_allclose(result["average"][0], _by_hand(forest, X, 1, grid),
                               rtol=0, atol=1e-12)


def test_partial_dependence_recursion_refused(fitted):
    forest, X = fitted
    with pytest.raises(ValueError) as info:
        partial_dependence(forest, X, [1], method="recursion", grid_resolution=5)
    message = str(info.value)
    assert "method='brute'" in message or 'method="brute"' in message
    if not isinstance(forest, RotationForestQuantileRegressor):
        # (the rotation forests are no virtual subclass of scikit-learn's forest:
        # scikit-learn refuses "recursion" for them with its own message)
        assert "dependence of the mean" in message
        assert "the median by default" in message


def test_partial_dependence_auto_never_gives_the_mean(fitted):
    """method="auto" (the default) either computes predict's dependence (brute) or is
    refused with the remedy: it never returns the mean's dependence."""
    forest, X = fitted
    try:
        result = partial_dependence(forest, X, [1], grid_resolution=7)
    except ValueError as exc:
        # scikit-learn picks "recursion" for its RandomForestRegressor's virtual
        # subclasses (our random-forest and extra-trees quantile forests)
        assert not isinstance(forest, RotationForestQuantileRegressor)
        assert "method='brute'" in str(exc)
        return
    grid = result["grid_values"][0]
    np.testing.assert_allclose(result["average"][0], _by_hand(forest, X, 1, grid),
                               rtol=0, atol=1e-12)
