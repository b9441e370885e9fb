"""ONNX export: onnxruntime's results against the estimators' own predictions.

Running an exported model needs onnx and onnxruntime, a skl2onnx pipeline skl2onnx too:
those tests are skipped, each with its reason, where they are not installed.  The errors
that rotforest raises without them are checked whatever is installed (their imports
made to fail)."""
import subprocess
import sys

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import rotforest
from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestClassifier, RandomForestRegressor,
                       RotationForestClassifier, RotationForestRegressor)
from rotforest import onnx as rf_onnx

from helpers import optional_module, trees_of

onnx = optional_module("onnx")
ort = optional_module("onnxruntime")
skl2onnx = optional_module("skl2onnx")

needs_onnx = pytest.mark.skipif(
    onnx is None, reason='builds ONNX models: needs onnx (pip install "rotforest[onnx]")')
needs_onnxruntime = pytest.mark.skipif(
    onnx is None or ort is None,
    reason="runs the exported models: needs onnx and onnxruntime")
needs_skl2onnx = pytest.mark.skipif(
    onnx is None or ort is None or skl2onnx is None,
    reason="converts pipelines with skl2onnx: needs skl2onnx, onnx and onnxruntime")

CLASSIFIERS = [DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier]
REGRESSORS = [DecisionTreeRegressor, RandomForestRegressor, RotationForestRegressor]
ALL = CLASSIFIERS + REGRESSORS
N_TRAIN, N_TEST = 240, 120


def _make(cls, **params):
    if cls in (DecisionTreeClassifier, DecisionTreeRegressor):
        return cls(random_state=0, **params)
    return cls(n_estimators=8, random_state=0, **params)


def _run(model, X):
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name:
                              np.ascontiguousarray(X, dtype=np.float64)})


def _check(est, X_test, model=None):
    """onnxruntime's outputs against the estimator's own predictions."""
    model = rf_onnx.to_onnx(est) if model is None else model
    ensembles = [n for n in model.graph.node if n.op_type == "TreeEnsemble"]
    assert len(ensembles) == 1 and ensembles[0].domain == "ai.onnx.ml"
    assert {o.domain: o.version for o in model.opset_import}["ai.onnx.ml"] >= 5
    outputs = _run(model, X_test)
    if hasattr(est, "classes_"):
        assert [o.name for o in model.graph.output] == ["label", "probabilities"]
        label, proba = outputs
        assert proba.dtype == np.float64
        np.testing.assert_allclose(proba, est.predict_proba(X_test), rtol=0, atol=1e-9)
        expected = est.predict(X_test)
        assert label.shape == expected.shape
        assert label.tolist() == expected.tolist()
    else:
        assert [o.name for o in model.graph.output] == ["variable"]
        (variable,) = outputs
        assert variable.dtype == np.float64 and variable.shape == (X_test.shape[0], 1)
        np.testing.assert_allclose(variable[:, 0], est.predict(X_test), rtol=0,
                                   atol=1e-9)


def _data(regression, n_features=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N_TRAIN + N_TEST, n_features))
    signal = X[:, 0] + 0.8 * X[:, 1] * X[:, 2] - 0.5 * X[:, 3]
    if regression:
        y = signal + 0.1 * rng.normal(size=signal.size)
    else:
        y = np.digitize(signal, [-0.5, 0.6])
    return X, y


def _fit_check(cls, X, y, **params):
    est = _make(cls, **params).fit(X[:N_TRAIN], y[:N_TRAIN])
    _check(est, X[N_TRAIN:])
    return est


@needs_onnxruntime
@pytest.mark.parametrize("cls", ALL)
def test_plain(cls):
    X, y = _data(cls in REGRESSORS)
    X[:, 5] = 2.5                       # a constant feature
    _fit_check(cls, X, y)


@needs_onnxruntime
@pytest.mark.parametrize("cls", ALL)
def test_float32_input(cls):
    """input_type="float": the model takes float32 rows and casts them to double before
    any comparison, so it gives exactly the estimator's predictions on those rows made
    double; a missing value stays missing."""
    X, y = _data(cls in REGRESSORS)
    X[N_TRAIN::7, 2] = np.nan
    est = _make(cls).fit(X[:N_TRAIN], y[:N_TRAIN])
    X32 = X[N_TRAIN:].astype(np.float32)
    model = rf_onnx.to_onnx(est, input_type="float")
    assert model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    outputs = session.run(None, {"X": X32})
    as_double = X32.astype(np.float64)
    if hasattr(est, "classes_"):
        np.testing.assert_allclose(outputs[1], est.predict_proba(as_double), rtol=0,
                                   atol=1e-9)
        assert outputs[0].tolist() == est.predict(as_double).tolist()
    else:
        np.testing.assert_allclose(outputs[0][:, 0], est.predict(as_double), rtol=0,
                                   atol=1e-9)
    # the same through the public wrapper; and a wrong type is refused
    assert rotforest.to_onnx(est, input_type="float").graph.input[0].type.tensor_type \
        .elem_type == onnx.TensorProto.FLOAT
    with pytest.raises(ValueError, match="input_type must be 'double' or 'float'"):
        rf_onnx.to_onnx(est, input_type="float16")


@needs_onnxruntime
@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("missing", ["route", "impute"])
def test_missing_values(cls, missing):
    if cls not in (RotationForestClassifier, RotationForestRegressor):
        if missing == "impute":
            pytest.skip("missing= is a rotation forest's parameter")
        params = {}
    else:
        params = {"missing": missing}
    rng = np.random.default_rng(1)
    X, y = _data(cls in REGRESSORS, seed=1)
    X[:, 5] = 2.5                       # constant, with missing cells
    X[rng.random(X.shape) < 0.12] = np.nan
    X[N_TRAIN + 3, :] = np.nan          # a row with nothing present
    _fit_check(cls, X, y, **params)


def _categorical_data(regression, seed=2):
    rng = np.random.default_rng(seed)
    n = N_TRAIN + N_TEST
    X = rng.normal(size=(n, 5))
    X[:, 0] = rng.integers(0, 8, n)
    X[:, 3] = rng.integers(0, 5, n)
    effect = np.array([1.5, -1.0, 0.3, 2.0, -2.0, 0.0, 1.0, -0.5])
    signal = effect[X[:, 0].astype(int)] + 0.7 * X[:, 1] + (X[:, 3] == 2) - 0.5
    y = signal + 0.1 * rng.normal(size=n) if regression else np.digitize(signal, [-0.3, 0.8])
    X[rng.random(n) < 0.08, 0] = np.nan
    X[rng.random(n) < 0.08, 1] = np.nan
    # test rows: codes unseen in training, NaN, and values that are no code
    test = slice(N_TRAIN, None)
    X[test][:6, 0] = [9.0, 254.0, -1.0, 2.5, 300.0, np.nan]
    X[test][6:9, 3] = [7.0, 3.5, -0.0]
    return X, y


@needs_onnxruntime
@pytest.mark.parametrize("cls", ALL)
def test_categorical(cls, monkeypatch):
    X, y = _categorical_data(cls in REGRESSORS)
    params = {"categorical_features": [0, 3]}
    rotation = cls in (RotationForestClassifier, RotationForestRegressor)
    if rotation:
        params["min_category_samples"] = 5
    est = _fit_check(cls, X, y, **params)
    trees = trees_of(est) if hasattr(est, "estimators_") else [est]
    assert any(np.isnan(t.tree_.threshold[t.tree_.children_left != -1]).any()
               for t in trees), "no split on a set of categories"
    if rotation:
        # the per-tree projection of large data, and missing="impute"
        monkeypatch.setattr(rf_onnx, "DENSE_PROJECTION_CELLS", 0)
        _check(est, X[N_TRAIN:])
        _fit_check(cls, X, y, missing="impute", **params)


@needs_onnxruntime
@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
def test_rotation_categorical_rotated(cls):
    # min_category_samples=None: the codes are only rotated with the others
    X, y = _categorical_data(cls in REGRESSORS)
    _fit_check(cls, X, y, categorical_features=[0, 3])


@needs_onnxruntime
@pytest.mark.parametrize("cls", [RotationForestClassifier, RotationForestRegressor])
@pytest.mark.parametrize("dense", [True, False])
def test_rotation_subsets(cls, dense, monkeypatch):
    # trees rotating subsets of the features (rows of the rotations left empty)
    if not dense:
        monkeypatch.setattr(rf_onnx, "DENSE_PROJECTION_CELLS", 0)
    X, y = _data(cls in REGRESSORS, n_features=12, seed=3)
    X[np.random.default_rng(3).random(X.shape) < 0.05] = np.nan
    _fit_check(cls, X, y, max_rotated_features=5, group_size=2)


@needs_onnxruntime
@pytest.mark.parametrize("cls", ALL)
def test_values_near_1000(cls):
    # splits 1e-5 apart around 1000: single precision would merge them
    X, y = _data(cls in REGRESSORS, seed=4)
    X = 1000.0 + 1e-4 * np.tanh(X)
    model = rf_onnx.to_onnx(_make(cls).fit(X[:N_TRAIN], y[:N_TRAIN]))
    est = _make(cls).fit(X[:N_TRAIN], y[:N_TRAIN])
    _check(est, X[N_TRAIN:], model)
    assert np.unique(X[:N_TRAIN].astype(np.float32)[:, 0]).size < N_TRAIN / 2


@needs_onnxruntime
@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_string_labels(cls):
    X, y = _data(False, seed=5)
    labels = np.array(["cat", "dog", "eel"])[y]
    est = _fit_check(cls, X, labels)
    out = rf_onnx.to_onnx(est).graph.output[0]
    assert out.type.tensor_type.elem_type == onnx.TensorProto.STRING


@needs_onnxruntime
@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_other_labels(cls):
    X, y = _data(False, seed=6)
    _fit_check(cls, X, np.array([-3, 10, 42])[y])
    _fit_check(cls, X, y == 1)                       # booleans
    _fit_check(cls, X, np.array([1.0, 2.0, 4.0])[y])  # floats: double labels


@needs_onnxruntime
def test_no_root_reads_as_a_leaf():
    """onnxruntime before 1.24 takes a root whose two children carry the same id for a
    one-leaf tree (microsoft/onnxruntime#24679), also when one child is a leaf and the
    other a node; the export then numbers that tree's leaves otherwise.  The second tree
    of this forest has such a root."""
    from rotforest.onnx import _tree_tables

    X, y = _data(False, seed=6)
    est = _fit_check(RandomForestClassifier, X, y == 1)
    first, leaves, _ = _tree_tables(trees_of(est)[0].tree_)
    second, _, _ = _tree_tables(trees_of(est)[1].tree_)
    offset = {0: first["feature"].size, 1: leaves.size}          # nodes, leaves
    assert second["trueleaf"][0] != second["falseleaf"][0]
    assert len({second[side][0] + offset[second[side + "leaf"][0]]
                for side in ("true", "false")}) == 1
    (ensemble,) = [n for n in rf_onnx.to_onnx(est).graph.node if n.op_type == "TreeEnsemble"]
    a = {x.name: onnx.helper.get_attribute_value(x) for x in ensemble.attribute}
    for root in a["tree_roots"]:
        assert (a["nodes_truenodeids"][root] != a["nodes_falsenodeids"][root]
                or a["nodes_trueleafs"][root] == a["nodes_falseleafs"][root] == 1)


@needs_onnxruntime
def test_single_leaf_and_ties():
    X, y = _data(False, seed=7)
    stump = DecisionTreeClassifier(max_depth=1, random_state=0)
    leaf = DecisionTreeRegressor(min_samples_split=10_000).fit(X[:N_TRAIN], y[:N_TRAIN])
    assert leaf.tree_.node_count == 1
    _check(leaf, X[N_TRAIN:])
    # two trees voting 0.5 / 0.5: the first class wins, as in predict
    forest = RandomForestClassifier(n_estimators=2, max_depth=1, random_state=0)
    forest.fit(X[:N_TRAIN], y[:N_TRAIN] % 2)
    _check(forest, X[N_TRAIN:])
    _check(stump.fit(X[:N_TRAIN], y[:N_TRAIN]), X[N_TRAIN:])


@needs_onnxruntime
def test_category_set_sides():
    # a split whose every code goes to the missing side (nothing to test membership
    # of), and one whose missing side is the left
    X, y = _categorical_data(False, seed=11)
    est = DecisionTreeClassifier(random_state=0, categorical_features=[0, 3])
    est.fit(X[:N_TRAIN], y[:N_TRAIN])
    tree_ = est.tree_
    sets = np.flatnonzero(np.isnan(tree_.threshold) & (tree_.children_left != -1))
    assert sets.size >= 2
    tree_.nodes["missing_go_to_left"][sets[0]] = 1
    tree_.left_codes[tree_.code_row[sets[0]]] = np.iinfo(np.uint64).max
    tree_.nodes["missing_go_to_left"][sets[1]] = 1 - tree_.missing_go_to_left[sets[1]]
    tree_.__dict__.pop("_flat", None)
    _check(est, X[N_TRAIN:])
    _check(est, X[:N_TRAIN])


@needs_onnxruntime
def test_dataframe_categories():
    pd = pytest.importorskip("pandas", reason="category columns of a DataFrame need "
                                              "pandas")
    X, y = _categorical_data(False)
    frame = pd.DataFrame(X, columns=list("abcde"))
    names = np.array(["red", "green", "blue", "grey", "pink", "teal", "navy", "gold",
                      "cyan", "plum"])
    frame["a"] = pd.Categorical(np.where(np.isnan(X[:, 0]), None,
                                         names[np.nan_to_num(X[:, 0]).astype(int) % 8]))
    train, test = frame.iloc[:N_TRAIN], frame.iloc[N_TRAIN:].copy()
    test["a"] = pd.Categorical(test["a"].astype(object).where(
        np.arange(len(test)) % 9 != 0, "mauve"))        # a category unseen in fit
    for est in (RandomForestClassifier(n_estimators=5, random_state=0),
                RotationForestClassifier(n_estimators=5, random_state=0,
                                         min_category_samples=5)):
        est.fit(train, y[:N_TRAIN])
        fed = rf_onnx.onnx_input(est, test)
        assert fed.dtype == np.float64 and fed.flags.c_contiguous
        label, proba = _run(rf_onnx.to_onnx(est), fed)
        np.testing.assert_allclose(proba, est.predict_proba(test), rtol=0, atol=1e-9)
        assert label.tolist() == est.predict(test).tolist()


@needs_onnxruntime
def test_target_opset():
    X, y = _data(False)
    est = _make(RandomForestClassifier).fit(X[:N_TRAIN], y[:N_TRAIN])
    model = rotforest.to_onnx(est, target_opset=17)
    assert {o.domain: o.version for o in model.opset_import} == {"": 17,
                                                                 "ai.onnx.ml": 5}
    _check(est, X[N_TRAIN:], model)
    with pytest.raises(ValueError, match="opset 5"):
        rf_onnx.to_onnx(est, target_opset={"": 17, "ai.onnx.ml": 3})
    with pytest.raises(ValueError, match="target_opset"):
        rf_onnx.to_onnx(est, target_opset=7)


# ------------------------------------------------------------------------ skl2onnx
@needs_skl2onnx
def test_skl2onnx_pipeline_scaler():
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = _data(False, seed=8)
    X[np.random.default_rng(8).random(X.shape) < 0.05] = np.nan
    for forest in (RandomForestClassifier(n_estimators=10, random_state=0),
                   RotationForestClassifier(n_estimators=10, random_state=0)):
        pipe = Pipeline([("scale", StandardScaler()), ("model", forest)])
        pipe.fit(X[:N_TRAIN], np.array(["no", "maybe", "yes"])[y[:N_TRAIN]])
        model = skl2onnx.to_onnx(pipe, X[:1].astype(np.float64))
        assert [o.name for o in model.graph.output] == ["label", "probabilities"]
        assert not any(n.op_type == "ZipMap" for n in model.graph.node)
        assert {o.domain: o.version for o in model.opset_import}["ai.onnx.ml"] >= 5
        label, proba = _run(model, X[N_TRAIN:])
        np.testing.assert_allclose(proba, pipe.predict_proba(X[N_TRAIN:]), rtol=0,
                                   atol=1e-9)
        assert label.tolist() == pipe.predict(X[N_TRAIN:]).tolist()
        # the option skl2onnx's own classifiers take changes nothing
        model = skl2onnx.to_onnx(pipe, X[:1].astype(np.float64),
                                 options={"zipmap": False})
        assert [o.name for o in model.graph.output] == ["label", "probabilities"]


@needs_skl2onnx
def test_skl2onnx_column_transformer():
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = _data(True, seed=9)
    for tree in (DecisionTreeRegressor(random_state=0),
                 RotationForestRegressor(n_estimators=5, random_state=0)):
        pipe = Pipeline([
            ("columns", ColumnTransformer([("scale", StandardScaler(), [0, 1, 2]),
                                           ("keep", "passthrough", [3, 4, 5])])),
            ("model", tree)]).fit(X[:N_TRAIN], y[:N_TRAIN])
        model = skl2onnx.to_onnx(pipe, X[:1].astype(np.float64))
        (variable,) = _run(model, X[N_TRAIN:])
        np.testing.assert_allclose(variable[:, 0], pipe.predict(X[N_TRAIN:]), rtol=0,
                                   atol=1e-9)
    clf = Pipeline([
        ("columns", ColumnTransformer([("scale", StandardScaler(), [0, 1, 2])],
                                      remainder="passthrough")),
        ("model", DecisionTreeClassifier(random_state=0))])
    clf.fit(X[:N_TRAIN], y[:N_TRAIN] > 0)
    label, proba = _run(skl2onnx.to_onnx(clf, X[:1].astype(np.float64)), X[N_TRAIN:])
    np.testing.assert_allclose(proba, clf.predict_proba(X[N_TRAIN:]), rtol=0, atol=1e-9)
    assert label.tolist() == clf.predict(X[N_TRAIN:]).astype(np.int64).tolist()


@needs_skl2onnx
def test_skl2onnx_float_input_is_cast():
    X, y = _data(False, seed=10)
    X = X.astype(np.float32).astype(np.float64)     # exact in single precision
    est = _make(RandomForestClassifier).fit(X[:N_TRAIN], y[:N_TRAIN])
    model = skl2onnx.to_onnx(est, X[:1].astype(np.float32))
    assert any(n.op_type == "Cast" for n in model.graph.node)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {"X": X[N_TRAIN:].astype(np.float32)})
    np.testing.assert_allclose(proba, est.predict_proba(X[N_TRAIN:]), rtol=0, atol=1e-9)
    assert label.tolist() == est.predict(X[N_TRAIN:]).tolist()


# -------------------------------------------------------------------------- errors
@needs_onnx
def test_errors():
    """to_onnx refuses what it cannot convert: unfitted estimators, others' models."""
    with pytest.raises(NotFittedError):
        rf_onnx.to_onnx(RandomForestClassifier())
    with pytest.raises(NotFittedError):
        rotforest.to_onnx(RotationForestRegressor())
    from sklearn.ensemble import RandomForestClassifier as SklearnForest
    X, y = _data(False)
    with pytest.raises(TypeError, match="RotationForestClassifier"):
        rf_onnx.to_onnx(SklearnForest(n_estimators=2).fit(X, y))
    with pytest.raises(TypeError, match="converts"):
        rf_onnx.to_onnx("a model")


def test_onnx_input_errors_and_rows_need_no_onnx(monkeypatch):
    """onnx_input is numpy only: it refuses an unfitted estimator and returns the rows as
    predict reads them (C-contiguous float64), with onnx's import made to fail."""
    monkeypatch.setitem(sys.modules, "onnx", None)
    X, y = _data(False)
    with pytest.raises(NotFittedError):
        rf_onnx.onnx_input(DecisionTreeClassifier(), X)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    fed = rf_onnx.onnx_input(est, np.asfortranarray(X[:7]).astype(np.float32))
    assert fed.dtype == np.float64 and fed.flags.c_contiguous
    np.testing.assert_array_equal(fed, X[:7].astype(np.float32))


@pytest.mark.parametrize("entry", ["rotforest.to_onnx", "rotforest.onnx.to_onnx"])
def test_missing_onnx(monkeypatch, entry):
    """Without onnx (its import made to fail, so that this runs whether or not it is
    installed), both entry points raise an ImportError that names the extra to install,
    before looking at the estimator."""
    X, y = _data(False)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    convert = rotforest.to_onnx if entry == "rotforest.to_onnx" else rf_onnx.to_onnx
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r'pip install "rotforest\[onnx\]"'):
        convert(est)
    with pytest.raises(ImportError, match=r'pip install "rotforest\[onnx\]"'):
        convert(RandomForestClassifier())          # not fitted: the missing onnx first


def test_onnx_without_tree_ensemble_is_refused(monkeypatch):
    """An onnx older than 1.16 (no TreeEnsemble in ai.onnx.ml opset 5: a stand-in module
    whose schema lookup fails) is refused with its version and the upgrade to make, and
    the skl2onnx converters are then not registered."""
    import types

    def get_schema(*args):
        raise RuntimeError("no such schema")

    fake = types.ModuleType("onnx")
    fake.__version__ = "1.15.0"
    fake.defs = types.SimpleNamespace(get_schema=get_schema)
    monkeypatch.setitem(sys.modules, "onnx", fake)
    X, y = _data(False)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(ImportError, match=r"onnx >= 1\.16.*found 1\.15\.0.*pip install -U"):
        rf_onnx.to_onnx(est)
    # (skl2onnx, where installed, was imported with the real onnx at the top of this file)
    assert rf_onnx._register() is False


def test_converters_not_registered_without_skl2onnx(monkeypatch):
    """Without skl2onnx (its import made to fail), registering the converters is skipped
    quietly: rotforest.onnx is importable and to_onnx needs only onnx."""
    monkeypatch.setitem(sys.modules, "skl2onnx", None)
    assert rf_onnx._register() is False
    if onnx is not None:
        X, y = _data(False)
        est = DecisionTreeClassifier(random_state=0).fit(X, y)
        model = rf_onnx.to_onnx(est)
        assert [o.name for o in model.graph.output] == ["label", "probabilities"]


def test_rotforest_import_does_not_import_onnx(tmp_path):
    code = ("import sys, rotforest; "
            "assert 'onnx' not in sys.modules and 'rotforest.onnx' not in sys.modules")
    # run outside the source tree: from its root, "import rotforest" would find the
    # uncompiled sources of a non-editable install
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)


@needs_skl2onnx
def test_benchmark_quick():
    import os
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "benchmarks", "bench_onnx.py")
    out = subprocess.run([sys.executable, script, "--quick", "--repeats", "1"],
                         check=True, capture_output=True, text=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("| classification")
            or line.startswith("| regression")]
    assert len(rows) == 3
    for line in rows:    # our export reproduces our predictions to rounding
        assert float(line.split("|")[7]) < 1e-9


@needs_skl2onnx
def test_skl2onnx_refuses_an_opset_below_13_clearly():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    # (the converters were registered by importing rotforest.onnx, as rf_onnx, above)
    from rotforest import RandomForestClassifier
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), rng.integers(0, 2, 60)
    pipe = make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=3)).fit(X, y)
    with pytest.raises(ValueError, match="opset 13"):
        skl2onnx.to_onnx(pipe, X[:1], target_opset=12)
