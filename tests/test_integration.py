"""Drop-in use in scikit-learn's tooling, every estimator compared with a scikit-learn
reference: Pipeline with a ColumnTransformer on a pandas DataFrame, feature-name checks,
GridSearchCV with nested parallelism, cross_val_score on the same folds, clone and
parameters, sample_weight routed through a Pipeline by metadata routing, and the size of
pickles.  The tests on a DataFrame (the ``frame`` fixture) need pandas and are skipped
without it; the others need nothing beyond rotforest's dependencies."""
import copy
import pickle
import re
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.exceptions import NotFittedError, UnsetMetadataPassedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.utils.validation import check_is_fitted

from helpers import tie_free_data, trees_of
from rotforest import DecisionTreeClassifier, RandomForestClassifier, RotationForestClassifier

# each of ours beside the scikit-learn estimator it is compared with
ESTIMATORS = {
    "tree": (lambda **kw: DecisionTreeClassifier(random_state=0, **kw),
             lambda **kw: SkTree(random_state=0, **kw)),
    "forest": (lambda **kw: RandomForestClassifier(n_estimators=12, random_state=0, **kw),
               lambda **kw: SkForest(n_estimators=12, random_state=0, **kw)),
    "rotation": (lambda **kw: RotationForestClassifier(n_estimators=8, random_state=0, **kw),
                 lambda **kw: SkForest(n_estimators=12, random_state=0, **kw)),
}
NAMES = list(ESTIMATORS)


def ours(name, **kw):
    return ESTIMATORS[name][0](**kw)


def reference(name, **kw):
    return ESTIMATORS[name][1](**kw)


@pytest.fixture(scope="module")
def frame():
    """A table with string categories and numeric columns, string labels."""
    pd = pytest.importorskip("pandas", reason="a DataFrame through a ColumnTransformer "
                                              "needs pandas")
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({
        "age": rng.normal(40, 12, n).round(1),
        "colour": rng.choice(["red", "green", "blue"], n),
        "income": rng.lognormal(3, 0.5, n),
        "size": rng.choice(["S", "M", "L", "XL"], n),
        "score": rng.normal(size=n),
    })
    signal = (df["age"] > 40) ^ (df["colour"] == "red") ^ (df["score"] > 0.5)
    flip = rng.random(n) < 0.05
    y = np.where(signal ^ flip, "yes", "no")
    return df, y


def encoder():
    return ColumnTransformer(
        [("cat", OneHotEncoder(sparse_output=False, handle_unknown="ignore"),
          ["colour", "size"])],
        remainder="passthrough").set_output(transform="pandas")


def pipeline(est):
    return Pipeline([("encode", encoder()), ("clf", est)])


def outcome(fn, cls_name=None):
    """What calling fn does: ('error', type, message) or ('ok', warning messages), with
    the estimator's class name replaced by EST so that ours and scikit-learn's compare."""
    def plain(text):
        return text.replace(cls_name, "EST") if cls_name else text

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as exc:   # noqa: BLE001 - the outcome is what is compared
            return ("error", type(exc).__name__, plain(str(exc)))
    messages = sorted({plain(str(w.message)) for w in caught
                       if issubclass(w.category, UserWarning)})
    return ("ok", messages)


# ------------------------------------------------------------- Pipeline, DataFrame
@pytest.mark.parametrize("name", NAMES)
def test_pipeline_with_column_transformer_on_dataframe(frame, name):
    df, y = frame
    pipe = pipeline(ours(name)).fit(df, y)
    ref = pipeline(reference(name)).fit(df, y)
    np.testing.assert_array_equal(pipe.feature_names_in_, df.columns)
    # the encoded columns reach our estimator with their names, as they reach scikit-learn's
    expected = pipe[0].get_feature_names_out()
    assert len(expected) == 3 + 4 + 3
    np.testing.assert_array_equal(pipe[-1].feature_names_in_, expected)
    np.testing.assert_array_equal(pipe[-1].feature_names_in_, ref[-1].feature_names_in_)
    assert pipe[-1].n_features_in_ == ref[-1].n_features_in_ == len(expected)
    np.testing.assert_array_equal(pipe.classes_, ["no", "yes"])

    pred = pipe.predict(df)
    np.testing.assert_array_equal(pred, pipe[-1].predict(pipe[0].transform(df)))
    assert pipe.score(df, y) >= ref.score(df, y) - 0.05
    # columns are selected by name: another column order gives the same predictions
    np.testing.assert_array_equal(pipe.predict(df[df.columns[::-1]]), pred)
    # an unseen category is ignored by the encoder, as for scikit-learn's pipeline
    odd = df.head(5).assign(colour="purple")
    assert outcome(lambda: pipe.predict(odd))[0] == outcome(lambda: ref.predict(odd))[0] == "ok"
    np.testing.assert_allclose(pipe.predict_proba(df).sum(axis=1), 1.0)


@pytest.mark.parametrize("name", NAMES)
def test_feature_name_checks_are_scikit_learns(frame, name):
    df, y = frame
    Xt = encoder().fit_transform(df)
    cols = list(Xt.columns)
    renamed = Xt.rename(columns={cols[-1]: "something_else"})
    cases = {
        "numpy after fitting on names": (Xt, lambda m: m.predict(Xt.to_numpy())),
        "renamed column": (Xt, lambda m: m.predict(renamed)),
        "reordered columns": (Xt, lambda m: m.predict(Xt[cols[::-1]])),
        "same names": (Xt, lambda m: m.predict(Xt)),
        "names after fitting on numpy": (Xt.to_numpy(), lambda m: m.predict_proba(Xt)),
    }
    for case, (X_fit, call) in cases.items():
        a, b = ours(name).fit(X_fit, y), reference(name).fit(X_fit, y)
        got = outcome(lambda: call(a), type(a).__name__)
        want = outcome(lambda: call(b), type(b).__name__)
        assert got == want, case
    # the texts these must be (so that both cannot silently agree on saying nothing)
    fitted = ours(name).fit(Xt, y)
    with pytest.warns(UserWarning, match=re.escape(
            f"X does not have valid feature names, but {type(fitted).__name__} was fitted "
            "with feature names")):
        fitted.predict(Xt.to_numpy())
    with pytest.raises(ValueError, match="Feature names unseen at fit time:\n- something_else"):
        fitted.predict(renamed)
    # through the pipeline, a missing column is the ColumnTransformer's error
    pipe, ref = pipeline(ours(name)).fit(df, y), pipeline(reference(name)).fit(df, y)
    bad = df.rename(columns={"age": "AGE"})
    got, want = outcome(lambda: pipe.predict(bad)), outcome(lambda: ref.predict(bad))
    assert got == want and got[0] == "error" and "age" in got[2]


# ------------------------------------------------------------- GridSearchCV, nested
def _grid(name):
    grid = {"max_depth": [3, None], "min_samples_leaf": [1, 4]}
    if name != "tree":
        grid["max_features"] = ["sqrt", None]
    return grid


@pytest.mark.parametrize("name", NAMES)
def test_grid_search_nested_parallel_equals_sequential(name):
    """GridSearchCV with n_jobs=2 over an estimator with n_jobs=2 finishes and finds what
    the sequential search finds, score for score (times: benchmarks/bench_integration.py)."""
    X, y = make_classification(n_samples=240, n_features=8, n_informative=4,
                               random_state=1)
    inner = {} if name == "tree" else {"n_jobs": 2}
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    nested = GridSearchCV(ours(name, **inner), _grid(name), cv=cv, n_jobs=2).fit(X, y)
    plain = {} if name == "tree" else {"n_jobs": 1}
    sequential = GridSearchCV(ours(name, **plain), _grid(name), cv=cv, n_jobs=1).fit(X, y)
    assert nested.best_params_ == sequential.best_params_
    assert nested.best_score_ == sequential.best_score_
    np.testing.assert_array_equal(nested.cv_results_["mean_test_score"],
                                  sequential.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(nested.predict_proba(X), sequential.predict_proba(X))
    assert len(nested.cv_results_["params"]) == (4 if name == "tree" else 8)


# ------------------------------------------------------------- cross_val_score
@pytest.mark.parametrize("name", NAMES)
def test_cross_validation_beside_scikit_learn(name):
    kw = {}
    if name == "tree":
        # no ties between values, and leaves large enough that no two features tie on
        # impurity: each fold's tree is scikit-learn's, node for node
        X, y = tie_free_data(400, 6, 3, seed=1)
        kw = dict(max_depth=5, min_samples_leaf=30)
    else:
        X, y = make_classification(n_samples=600, n_features=12, n_informative=6,
                                   random_state=2)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    a = cross_validate(ours(name, **kw), X, y, cv=cv, return_indices=True)
    b = cross_validate(reference(name, **kw), X, y, cv=cv, return_indices=True)
    for key in ("train", "test"):      # the very same folds
        for ia, ib in zip(a["indices"][key], b["indices"][key]):
            np.testing.assert_array_equal(ia, ib)
    assert a["test_score"].shape == b["test_score"].shape == (5,)
    if name == "tree":
        np.testing.assert_array_equal(a["test_score"], b["test_score"])
    else:
        assert a["test_score"].mean() >= b["test_score"].mean() - 0.03


# ------------------------------------------------------------- clone and parameters
def _same_params(p, q):
    assert p.keys() == q.keys()
    for key in p:
        assert type(p[key]) is type(q[key]) and p[key] == q[key], key


@pytest.mark.parametrize("name", NAMES)
def test_clone_get_params_set_params(frame, name):
    df, y = frame
    est = ours(name, max_depth=4, class_weight="balanced")
    fitted = pipeline(est).fit(df, y)
    copy = clone(est)
    assert copy is not est
    _same_params(copy.get_params(), est.get_params())
    check_is_fitted(est)
    with pytest.raises(NotFittedError):
        check_is_fitted(copy)
    assert not [k for k in vars(copy) if k.endswith("_") and not k.startswith("_")]
    # a clone refitted on the same data is the same model
    again = pipeline(copy).fit(df, y)
    np.testing.assert_array_equal(again.predict_proba(df), fitted.predict_proba(df))

    assert copy.set_params(max_depth=2, min_samples_leaf=3) is copy
    assert copy.get_params()["max_depth"] == 2 and copy.max_depth == 2
    assert est.max_depth == 4                       # the original is untouched
    with pytest.raises(ValueError, match="Invalid parameter 'max_dept'"):
        copy.set_params(max_dept=3)
    # nested names through a pipeline, and a clone of the pipeline keeps them
    pipe = pipeline(ours(name))
    pipe.set_params(clf__max_depth=1, clf__criterion="entropy")
    assert pipe.get_params()["clf__max_depth"] == 1
    cloned = clone(pipe)
    assert cloned.get_params()["clf__criterion"] == "entropy"
    stump = cloned.fit(df, y)[-1]
    trees = [stump] if name == "tree" else trees_of(stump)
    assert all(t.get_depth() <= 1 for t in trees)
    # get_params(deep=True) of the pipeline lists every parameter of ours
    deep = pipe.get_params(deep=True)
    assert all(f"clf__{k}" in deep for k in ours(name).get_params())


# ------------------------------------------------------------- metadata routing
def _tree_arrays(est):
    return [(t.tree_.nodes.copy(), t.tree_.value.copy()) for t in _trees(est)]


@pytest.mark.parametrize("name", NAMES)
def test_sample_weight_routed_through_pipeline(frame, name):
    df, y = frame
    w = np.random.default_rng(3).integers(0, 4, len(y)).astype(float)
    with sklearn.config_context(enable_metadata_routing=True):
        # not requested: routing refuses the weights, as it does for scikit-learn's
        for make in (ours, reference):
            with pytest.raises(UnsetMetadataPassedError):
                pipeline(make(name)).fit(df, y, sample_weight=w)
        routed = pipeline(ours(name).set_fit_request(sample_weight=True)).fit(
            df, y, sample_weight=w)
    Xt = encoder().fit_transform(df)
    direct = ours(name).fit(Xt, y, sample_weight=w)
    unweighted = ours(name).fit(Xt, y)
    # the routed weights change the model exactly as passing them directly does
    for (n1, v1), (n2, v2) in zip(_tree_arrays(routed[-1]), _tree_arrays(direct)):
        np.testing.assert_array_equal(n1, n2)
        np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(routed.predict_proba(df), direct.predict_proba(Xt))
    assert not np.array_equal(direct.predict_proba(Xt), unweighted.predict_proba(Xt))
    # cross-validation routes them to every fold's fit and score
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        est = ours(name).set_fit_request(sample_weight=True).set_score_request(
            sample_weight=True)
        # scoring=None scores with Pipeline.score: from scikit-learn 1.8 on its scorer
        # routes the weights along the pipeline to the step that requests them; before,
        # it read the request of the Pipeline itself, which must then ask too
        # (harmless from 1.8 on)
        scores = cross_validate(pipeline(est).set_score_request(sample_weight=True),
                                df, y, cv=cv, params={"sample_weight": w})["test_score"]
    manual = [ours(name).fit(Xt.iloc[tr], y[tr], sample_weight=w[tr])
              .score(Xt.iloc[te], y[te], sample_weight=w[te]) for tr, te in cv.split(Xt, y)]
    np.testing.assert_array_equal(scores, manual)


# ------------------------------------------------------------- pickled size
@pytest.mark.parametrize("name", NAMES)
def test_pickles_are_smaller_than_scikit_learns(name):
    """Nodes are pickled field by field at their narrowest exact width (41 bytes instead
    of scikit-learn's 64) and load back as the very same trees."""
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=5,
                               random_state=5)
    a, b = ours(name).fit(X, y), reference(name).fit(X, y)
    nodes_a = sum(t.tree_.node_count for t in _trees(a))
    nodes_b = sum(t.tree_.node_count for t in _trees(b))
    size_a = len(pickle.dumps(a, protocol=5))
    size_b = len(pickle.dumps(b, protocol=5))
    assert size_a / nodes_a < 0.8 * size_b / nodes_b
    back = pickle.loads(pickle.dumps(a, protocol=5))
    for (n1, v1), (n2, v2) in zip(_tree_arrays(back), _tree_arrays(a)):
        assert n1.dtype == n2.dtype
        np.testing.assert_array_equal(n1, n2)
        np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(back.predict_proba(X), a.predict_proba(X))
    np.testing.assert_array_equal(copy.deepcopy(a).predict_proba(X), a.predict_proba(X))


def _trees(est):
    return trees_of(est) if hasattr(est, "estimators_") else [est]
