"""Columns of strings in X: fit and every prediction method refuse them with a message
that names the column, shows a value of it and says how to use it (categories through
``categorical_features``, or an encoder), instead of numpy's bare "could not convert
string to float".  Numbers written as strings are still read as numbers, and a failed
call leaves a fitted model as it was."""
import pickle

import numpy as np
import pytest

import rotforest

ESTIMATORS = [getattr(rotforest, name) for name in rotforest.__all__
              if isinstance(getattr(rotforest, name), type)
              and hasattr(getattr(rotforest, name), "fit")]
FAST = {"n_estimators": 3, "random_state": 0}


def test_every_estimator_is_listed():
    assert len(ESTIMATORS) == 13


def _make(Est, **params):
    est = Est()
    return est.set_params(**{k: v for k, v in {**FAST, **params}.items()
                             if k in est.get_params()})


def _data(n=40):
    rng = np.random.RandomState(0)
    a = rng.normal(size=n)
    b = rng.normal(size=n)
    y = (a + 0.3 * rng.normal(size=n) > 0).astype(int)
    colors = np.array(["red", "blue", "green"])[rng.randint(0, 3, size=n)]
    return a, b, colors, y


def _methods(est):
    return [m for m in ("predict", "predict_proba", "predict_log_proba", "apply",
                        "decision_path", "score")
            if hasattr(est, m)]


def _call(est, method, X, y):
    return getattr(est, method)(X, y) if method == "score" else getattr(est, method)(X)


def _snapshot(est, X, y):
    out = {}
    for method in _methods(est):
        result = _call(est, method, X, y)
        if isinstance(result, tuple):                   # a forest's decision_path
            result = (result[0].toarray(), result[1])
        elif hasattr(result, "toarray"):                # a tree's
            result = result.toarray()
        out[method] = result
    return out


def _assert_same(before, after):
    assert before.keys() == after.keys()
    for method in before:
        b, a = before[method], after[method]
        if isinstance(b, tuple):
            for x, z in zip(b, a):
                np.testing.assert_array_equal(x, z)
        else:
            np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("Est", ESTIMATORS, ids=lambda e: e.__name__)
def test_every_estimator_names_the_string_column(Est):
    """fit, a failed refit (the fitted model unchanged) and every prediction method."""
    pd = pytest.importorskip("pandas", reason="the column is named in a pandas DataFrame")
    a, b, colors, y = _data()
    good = pd.DataFrame({"a": a, "color": b})
    bad = pd.DataFrame({"a": a, "color": pd.Series(colors, dtype=object)})

    with pytest.raises(ValueError, match=r"column 'color' \(e\.g\. '(red|blue|green)'\)"
                                         r".*'category' dtype.*from_dtype"):
        _make(Est).fit(bad, y)

    est = _make(Est).fit(good, y)
    pickled = pickle.dumps(est)
    before = _snapshot(est, good, y)
    with pytest.raises(ValueError, match="column 'color'.*OrdinalEncoder"):
        est.fit(bad, y)
    assert pickle.dumps(est) == pickled
    _assert_same(before, _snapshot(est, good, y))

    for method in _methods(est):
        with pytest.raises(ValueError, match="column 'color'.*fitted model reads it as "
                                             "numbers"):
            _call(est, method, bad, y)
    _assert_same(before, _snapshot(est, good, y))


def _pandas_frames(pd, colors, a):
    frames = {"object": pd.DataFrame({"a": a, "color": pd.Series(colors, dtype=object)}),
              "string": pd.DataFrame({"a": a, "color": pd.Series(colors, dtype="string")})}
    try:
        import pyarrow  # noqa: F401
        frames["string[pyarrow]"] = pd.DataFrame(
            {"a": a, "color": pd.Series(colors, dtype="string[pyarrow]")})
    except ImportError:
        pass
    with_missing = pd.Series(colors, dtype="string")
    with_missing[::5] = pd.NA
    frames["string with NA"] = pd.DataFrame({"a": a, "color": with_missing})
    return frames


@pytest.mark.parametrize("Est", [rotforest.DecisionTreeRegressor,
                                 rotforest.RandomForestClassifier],
                         ids=lambda e: e.__name__)
def test_pandas_object_and_string_dtypes(Est):
    pd = pytest.importorskip("pandas", reason="pandas dtypes are tested")
    a, b, colors, y = _data()
    for name, frame in _pandas_frames(pd, colors, a).items():
        with pytest.raises(ValueError, match="X's column 'color'.*holds strings.*"
                                             r"X\['color'\] = X\['color'\]"
                                             r"\.astype\('category'\)"):
            _make(Est).fit(frame, y)
        # the suggestion works
        fixed = frame.assign(color=frame["color"].astype("category"))
        est = _make(Est).fit(fixed, y)
        assert est.is_categorical_.tolist() == [False, True], name
        est.predict(frame)          # (strings at predict time: coded by the categories)


def test_polars_string_columns():
    pl = pytest.importorskip("polars", reason="polars String columns are tested")
    a, b, colors, y = _data()
    frame = pl.DataFrame({"a": a, "color": colors.tolist()})
    with pytest.raises(ValueError, match=r"X's column 'color' \(e\.g\. '\w+'\).*polars' "
                                         r"Categorical.*pl\.col\('color'\)"
                                         r"\.cast\(pl\.Categorical\)"):
        rotforest.DecisionTreeClassifier().fit(frame, y)
    fitted = rotforest.DecisionTreeClassifier().fit(pl.DataFrame({"a": a, "color": b}), y)
    with pytest.raises(ValueError, match="column 'color'.*reads it as numbers"):
        fitted.predict(frame)


def test_polars_string_column_beside_a_categorical_one():
    """A polars frame with a Categorical column is read through pandas: the advice is
    still polars'."""
    pl = pytest.importorskip("polars", reason="polars String columns are tested")
    pytest.importorskip("pyarrow", reason="polars Categorical columns are read through "
                                          "pyarrow")
    pytest.importorskip("pandas", reason="polars Categorical columns are read through "
                                         "pandas")
    a, b, colors, y = _data()
    frame = pl.DataFrame({"a": a, "kind": pl.Series(colors.tolist(), dtype=pl.Categorical),
                          "color": colors.tolist()})
    with pytest.raises(ValueError, match=r"column 'color'.*pl\.col\('color'\)"):
        rotforest.DecisionTreeClassifier().fit(frame, y)


@pytest.mark.parametrize("kind", ["object", "str", "bytes", "list"])
def test_arrays_of_strings_name_the_column_by_index(kind):
    a, b, colors, y = _data()
    if kind == "object":
        X = np.empty((len(a), 3), dtype=object)
        X[:, 0], X[:, 1], X[:, 2] = a, b, colors
    elif kind == "str":
        X = np.column_stack([a.astype(str), b.astype(str), colors])
    elif kind == "bytes":
        X = np.column_stack([a.astype(str), b.astype(str), colors]).astype(bytes)
    else:
        X = [[x, z, c] for x, z, c in zip(a, b, colors)]
    example = r"b'\w+'" if kind == "bytes" else r"'\w+'"
    with pytest.raises(ValueError, match=rf"X's column 2 \(e\.g\. {example}\) holds "
                                         r"strings.*categorical_features=\[2\]"):
        rotforest.DecisionTreeClassifier().fit(X, y)


def test_marked_string_column_and_unmarked_string_column():
    """categorical_features names one column of strings (not of the category dtype),
    and another column of strings is not named: the message covers both."""
    pd = pytest.importorskip("pandas", reason="the columns are named in a DataFrame")
    a, b, colors, y = _data()
    frame = pd.DataFrame({"a": a, "color": colors, "city": colors[::-1].copy()})
    est = rotforest.RandomForestClassifier(categorical_features=["color"], **FAST)
    with pytest.raises(ValueError) as info:
        est.fit(frame, y)
    message = str(info.value)
    assert "columns 'color'" in message and "'city'" in message
    assert "marks column 'color' as categorical" in message
    assert "X['color'] = X['color'].astype('category')" in message
    assert "To split column 'city' as categories" in message
    assert "X['city'] = X['city'].astype('category')" in message
    assert not hasattr(est, "is_categorical_")          # (left as it was)
    # the category dtype for 'color' alone: 'city' is still named
    fixed = frame.assign(color=frame["color"].astype("category"))
    with pytest.raises(ValueError, match=r"X's column 'city'"):
        est.fit(fixed, y)
    both = fixed.assign(city=frame["city"].astype("category"))
    with pytest.raises(ValueError, match=r"Column 'city' has the 'category' dtype, but "
                                         r"categorical_features=\['color'\] does not "
                                         "mark it"):
        est.fit(both, y)
    est.fit(both[["a", "color"]], y)
    assert est.is_categorical_.tolist() == [False, True]


def test_category_column_with_categorical_features_none():
    pd = pytest.importorskip("pandas", reason="the column has pandas' category dtype")
    a, b, colors, y = _data()
    frame = pd.DataFrame({"a": a, "color": pd.Categorical(colors)})
    with pytest.raises(ValueError, match="Column 'color' has the 'category' dtype.*"
                                         "categorical_features=None does not mark it.*"
                                         "from_dtype"):
        rotforest.DecisionTreeClassifier(categorical_features=None).fit(frame, y)


def test_array_with_a_marked_column_of_strings():
    a, b, colors, y = _data()
    X = np.empty((len(a), 2), dtype=object)
    X[:, 0], X[:, 1] = a, colors
    with pytest.raises(ValueError, match=r"categorical_features=\[1\] marks column 1 as "
                                         "categorical.*integer codes"):
        rotforest.DecisionTreeClassifier(categorical_features=[1]).fit(X, y)


def test_predict_where_the_model_has_a_categorical_feature():
    pd = pytest.importorskip("pandas", reason="the model is fitted on a DataFrame")
    a, b, colors, y = _data()
    frame = pd.DataFrame({"a": a, "color": pd.Categorical(colors)})
    est = rotforest.DecisionTreeClassifier(random_state=0).fit(frame, y)
    as_strings = frame.assign(color=colors.astype(object))
    np.testing.assert_array_equal(est.predict(as_strings), est.predict(frame))
    objects = as_strings.to_numpy()
    with pytest.raises(ValueError, match="column 1 .*categorical in the fitted model.*"
                                         "pass a DataFrame"), \
            pytest.warns(UserWarning, match="feature names"):
        est.predict(objects)

    codes = np.column_stack([a, pd.Categorical(colors).codes]).astype(float)
    by_codes = rotforest.DecisionTreeClassifier(categorical_features=[1]).fit(codes, y)
    with pytest.raises(ValueError, match="column 1 .*categorical in the fitted model.*"
                                         "integer codes"):
        by_codes.predict(objects)


def test_warm_start_refit_with_a_string_column_leaves_the_forest():
    pd = pytest.importorskip("pandas", reason="the column is named in a DataFrame")
    a, b, colors, y = _data()
    good = pd.DataFrame({"a": a, "color": b})
    est = rotforest.RandomForestClassifier(warm_start=True, **FAST).fit(good, y)
    pickled = pickle.dumps(est)
    proba = est.predict_proba(good)
    est.set_params(n_estimators=6)
    with pytest.raises(ValueError, match="column 'color'"):
        est.fit(good.assign(color=colors), y)
    est.set_params(n_estimators=3)
    assert pickle.dumps(est) == pickled
    np.testing.assert_array_equal(est.predict_proba(good), proba)


@pytest.mark.parametrize("Est", [rotforest.DecisionTreeClassifier,
                                 rotforest.RotationForestRegressor],
                         ids=lambda e: e.__name__)
def test_numbers_written_as_strings_still_read_as_numbers(Est):
    a, b, colors, y = _data()
    X = np.column_stack([a, b])
    reference = _make(Est).fit(X, y)
    as_text = X.astype(str)
    as_objects = as_text.astype(object)
    for strings in (as_text, as_objects):
        est = _make(Est).fit(strings, y)
        np.testing.assert_array_equal(est.predict(strings), reference.predict(X))
        np.testing.assert_array_equal(est.predict(X), reference.predict(X))
    try:
        import pandas as pd
    except ImportError:
        return
    frame = pd.DataFrame({"a": a, "b": pd.Series(as_text[:, 1], dtype=object)})
    est = _make(Est).fit(frame, y)
    np.testing.assert_array_equal(est.predict(frame), reference.predict(X))


def test_other_errors_are_left_as_they_were():
    """Not strings: scikit-learn's own errors (a dict in X, feature names that differ)."""
    a, b, colors, y = _data()
    X = np.column_stack([a, b]).astype(object)
    X[0, 0] = {"foo": "bar"}
    with pytest.raises(TypeError, match="argument must be a string.* number"):
        rotforest.DecisionTreeClassifier().fit(X, y)
    pd = pytest.importorskip("pandas", reason="feature names come from a DataFrame")
    est = rotforest.DecisionTreeClassifier().fit(pd.DataFrame({"a": a, "b": b}), y)
    with pytest.raises(ValueError, match="feature names should match"):
        est.predict(pd.DataFrame({"a": a, "c": colors}))


def test_many_string_columns_are_listed_briefly():
    pd = pytest.importorskip("pandas", reason="the columns are named in a DataFrame")
    a, b, colors, y = _data()
    frame = pd.DataFrame({f"c{i}": colors for i in range(8)})
    with pytest.raises(ValueError, match=r"'c4' \(e\.g\. '\w+'\), and 3 more hold "
                                         r"strings.*X\[cols\]"):
        rotforest.DecisionTreeClassifier().fit(frame, y)


def test_long_values_are_shortened():
    pd = pytest.importorskip("pandas", reason="the column is named in a DataFrame")
    a, b, colors, y = _data()
    frame = pd.DataFrame({"a": a, "text": ["x" * 200] * len(a)})
    with pytest.raises(ValueError) as info:
        rotforest.DecisionTreeClassifier().fit(frame, y)
    assert "xxx...'" in str(info.value) and "x" * 40 not in str(info.value)


def test_predict_with_strings_and_another_number_of_columns():
    a, b, colors, y = _data()
    est = rotforest.DecisionTreeClassifier(categorical_features=[1]).fit(
        np.column_stack([a, (b > 0).astype(float)]), y)
    X = np.empty((len(a), 3), dtype=object)
    X[:, 0], X[:, 1], X[:, 2] = a, colors, b
    with pytest.raises(ValueError, match=r"column 1 \(e\.g\. '\w+'\) holds strings.*"
                                         "fitted on 2 features"):
        est.predict(X)


# ------------------------------------------------------------------ max_features

_FORMS = "an int >= 1, a float in (0, 1], 'sqrt', 'log2' or None"


@pytest.mark.parametrize("Est", [E for E in ESTIMATORS
                                 if "max_features" in E().get_params()],
                         ids=lambda E: E.__name__)
@pytest.mark.parametrize("value, error", [
    ("auto", ValueError), ("half", ValueError), (0, ValueError), (-2, ValueError),
    (0.0, ValueError), (1.5, ValueError), (float("nan"), ValueError),
    (True, TypeError), ([3], TypeError)])
def test_bad_max_features_lists_every_accepted_form(Est, value, error):
    """A max_features that is none of scikit-learn's forms is refused with all of them
    listed and the value given.  (A rotation forest takes 'auto' too: its own default.)"""
    if value == "auto" and "Rotation" in Est.__name__:
        return
    a, b, _, y = _data()
    X = np.column_stack([a, b])
    target = y.astype(float) if "Regressor" in Est.__name__ else y
    with pytest.raises(error, match="max_features must be") as raised:
        _make(Est, max_features=value).fit(X, target)
    assert _FORMS in str(raised.value), str(raised.value)
