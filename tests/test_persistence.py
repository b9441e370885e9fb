"""Saving and loading fitted models: pickle and skops, every estimator, with NumPy input
and with a DataFrame of category columns (whose categories the model keeps), missing
values included; and models pickled before the categories were kept as arrays."""
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

import rotforest

ESTIMATORS = [
    rotforest.DecisionTreeClassifier(random_state=0),
    rotforest.DecisionTreeRegressor(random_state=0),
    rotforest.RandomForestClassifier(n_estimators=4, random_state=0),
    rotforest.RandomForestRegressor(n_estimators=4, random_state=0),
    rotforest.ExtraTreesClassifier(n_estimators=4, random_state=0),
    rotforest.ExtraTreesRegressor(n_estimators=4, random_state=0),
    rotforest.RotationForestClassifier(n_estimators=4, random_state=0),
    rotforest.RotationForestRegressor(n_estimators=4, random_state=0),
]


def _frame():
    pd = pytest.importorskip("pandas")
    X, y = make_classification(n_samples=240, n_features=5, random_state=0)
    X[::7, 1] = np.nan
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame["city"] = pd.Categorical(np.array(["north", "south", "east"])[np.arange(240) % 3])
    frame["size"] = pd.Categorical(np.arange(240) % 4)          # number categories
    return frame, y


def _unseen(frame):
    """Rows with a category the fit never saw (read as missing)."""
    pd = pytest.importorskip("pandas")
    rows = frame.iloc[:3].copy()
    rows["city"] = pd.Categorical(["west", "north", "west"])
    return rows


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("data", ["array", "frame"])
def test_skops_round_trip_predicts_the_same(est, data):
    sio = pytest.importorskip("skops.io")
    frame, y = _frame()
    X = frame[list("abcde")].to_numpy() if data == "array" else frame
    model = est.fit(X, y)
    saved = sio.dumps(model)
    untrusted = sio.get_untrusted_types(data=saved)
    # only our own classes (and scipy's sparse rotation matrices) need trusting
    assert all(name.startswith(("rotforest.", "scipy.sparse.")) for name in untrusted)
    loaded = sio.loads(saved, trusted=untrusted)
    method = "predict_proba" if hasattr(model, "predict_proba") else "predict"
    np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(model, method)(X))
    if data == "frame":
        rows = _unseen(frame)
        np.testing.assert_array_equal(getattr(loaded, method)(rows),
                                      getattr(model, method)(rows))


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_a_model_pickled_with_pandas_categories_still_predicts(est):
    """Models pickled before 2026-11-27 kept each category column's categories as a
    pandas Index; they load and predict as models keeping arrays do."""
    pd = pytest.importorskip("pandas", reason="the old models kept pandas Index objects")
    frame, y = _frame()
    model = est.fit(frame, y)
    old = pickle.loads(pickle.dumps(model))
    old._category_maps = {j: pd.Index(c) for j, c in model._category_maps.items()}
    for tree in getattr(old, "estimators_", []):
        tree._category_maps = old._category_maps
    assert all(isinstance(c, np.ndarray) for c in model._category_maps.values())
    for rows in (frame, _unseen(frame)):
        method = "predict_proba" if hasattr(model, "predict_proba") else "predict"
        np.testing.assert_array_equal(getattr(old, method)(rows),
                                      getattr(model, method)(rows))
