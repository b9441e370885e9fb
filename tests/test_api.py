"""DecisionTreeClassifier as a scikit-learn user meets it: inputs, outputs, errors,
pickling and scikit-learn's tree exporters."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.tree import export_graphviz, export_text

from helpers import tie_free_data
from rotforest import DecisionTreeClassifier
from rotforest._tree import NODE_DTYPE, Tree


@pytest.fixture
def iris():
    return load_iris(return_X_y=True)


def test_outputs_are_consistent(iris):
    X, y = iris
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (150, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(clf.predict_log_proba(X), np.log(proba))
    leaves = clf.apply(X)
    assert leaves.dtype == np.int64
    assert np.all(clf.tree_.children_left[leaves] == -1)
    path = clf.decision_path(X)
    assert path.shape == (150, clf.tree_.node_count)
    np.testing.assert_array_equal(path[np.arange(150), leaves].A.ravel(), 1)
    np.testing.assert_array_equal(np.asarray(path.sum(axis=1)).ravel(),
                                  _depth_of(clf.tree_)[leaves] + 1)
    assert clf.get_depth() == 3 == _depth_of(clf.tree_).max()
    assert clf.get_n_leaves() == np.sum(clf.tree_.children_left == -1)
    assert clf.tree_.value.shape == (clf.tree_.node_count, 1, 3)
    assert clf.n_classes_ == 3 and clf.n_features_in_ == 4 and clf.max_features_ == 4
    imp = clf.feature_importances_
    assert imp.shape == (4,) and imp.sum() == pytest.approx(1.0) and np.all(imp >= 0)
    assert clf.score(X, y) > 0.95


def _depth_of(tree):
    depth = np.zeros(tree.node_count, dtype=int)
    for node in range(tree.node_count):
        for child in (tree.children_left[node], tree.children_right[node]):
            if child != -1:
                depth[child] = depth[node] + 1
    return depth


def test_string_labels_and_many_input_types(iris):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    a = DecisionTreeClassifier(random_state=0).fit(X, names)
    assert list(a.classes_) == ["setosa", "versicolor", "virginica"]
    assert a.predict(X).dtype == names.dtype
    b = DecisionTreeClassifier(random_state=0).fit(X.tolist(), list(names))
    c = DecisionTreeClassifier(random_state=0).fit((X * 10).astype(np.int16), names)
    d = DecisionTreeClassifier(random_state=0).fit(X.astype(np.float32), names)
    ro = X.copy()
    ro.setflags(write=False)
    e = DecisionTreeClassifier(random_state=0).fit(ro, names)
    f = DecisionTreeClassifier(random_state=0).fit(np.asfortranarray(X), names)
    for other in (b, e, f):
        np.testing.assert_array_equal(other.tree_.threshold, a.tree_.threshold)
    assert c.score((X * 10).astype(np.int16), names) == a.score(X, names)
    assert d.score(X.astype(np.float32), names) == pytest.approx(a.score(X, names), abs=0.02)


def test_pandas_feature_names(iris):
    pd = pytest.importorskip("pandas")
    X, y = iris
    df = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    clf = DecisionTreeClassifier(max_depth=2).fit(df, pd.Series(y))
    np.testing.assert_array_equal(clf.feature_names_in_, ["sl", "sw", "pl", "pw"])
    with pytest.warns(UserWarning, match="feature names"):
        from_array = clf.predict(X)
    np.testing.assert_array_equal(clf.predict(df), from_array)
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(df.rename(columns={"sl": "x"}))


def test_pickle_round_trip_and_fixed_width_nodes(iris):
    X, y = iris
    clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(again.apply(X), clf.apply(X))
    nodes = clf.tree_.nodes
    assert nodes.dtype == NODE_DTYPE and NODE_DTYPE.itemsize == 41   # packed
    for name in NODE_DTYPE.names:
        field = NODE_DTYPE.fields[name][0]
        assert field.str[0] in ("<", "|")  # little-endian, or a single byte
        assert field.kind != "O"
    # a tree pickled on a big-endian machine stores big-endian fields: it must load too
    swapped = nodes.astype(NODE_DTYPE.newbyteorder(">"))
    foreign = pickle.loads(pickle.dumps(Tree(4, 3, swapped, clf.tree_.value.astype(">f8"),
                                             clf.tree_.max_depth)))
    np.testing.assert_array_equal(foreign.apply(X), clf.tree_.apply(X))


def test_sklearn_exporters_work():
    X, y = tie_free_data(500, 4, 3, seed=0)
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    sk = SkTree(max_depth=2, random_state=0).fit(X, y)
    names = ["sl", "sw", "pl", "pw"]
    assert export_text(clf, feature_names=names) == export_text(sk, feature_names=names)
    assert export_text(clf, show_weights=True) == export_text(sk, show_weights=True)
    dot = export_graphviz(clf, class_names=["a", "b", "c"], filled=True)
    assert dot == export_graphviz(sk, class_names=["a", "b", "c"], filled=True)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from sklearn.tree import plot_tree
    import matplotlib.pyplot as plt
    ours = [a.get_text() for a in plot_tree(clf, filled=True)]
    plt.close("all")
    theirs = [a.get_text() for a in plot_tree(sk, filled=True)]
    plt.close("all")
    assert ours == theirs and len(ours) >= clf.tree_.node_count


def test_single_class_and_constant_features():
    X = np.random.default_rng(0).normal(size=(20, 3))
    clf = DecisionTreeClassifier().fit(X, ["only"] * 20)
    assert clf.tree_.node_count == 1
    np.testing.assert_array_equal(clf.predict(X), ["only"] * 20)
    np.testing.assert_array_equal(clf.predict_proba(X), np.ones((20, 1)))
    clf = DecisionTreeClassifier().fit(np.ones((10, 2)), [0, 1] * 5)
    assert clf.tree_.node_count == 1
    np.testing.assert_allclose(clf.predict_proba(np.ones((1, 2))), [[0.5, 0.5]])


def test_random_state_and_max_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 10))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=500) > 0).astype(int)
    a = DecisionTreeClassifier(max_features=2, random_state=3).fit(X, y)
    b = DecisionTreeClassifier(max_features=2, random_state=3).fit(X, y)
    c = DecisionTreeClassifier(max_features=2, random_state=4).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    assert not np.array_equal(a.tree_.feature, c.tree_.feature)
    # features are drawn per node: with 2 of 10, the root often misses feature 0
    roots = {DecisionTreeClassifier(max_features=2, random_state=s).fit(X, y).tree_.feature[0]
             for s in range(30)}
    assert len(roots) > 2
    for value, expected in [("sqrt", 3), ("log2", 3), (0.5, 5), (7, 7), (None, 10)]:
        assert DecisionTreeClassifier(max_features=value).fit(X, y).max_features_ == expected


def test_random_splitter_is_random_but_reproducible():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] > 0).astype(int)
    a = DecisionTreeClassifier(splitter="random", random_state=0).fit(X, y)
    b = DecisionTreeClassifier(splitter="random", random_state=0).fit(X, y)
    c = DecisionTreeClassifier(splitter="random", random_state=1).fit(X, y)
    best = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    assert not np.array_equal(a.tree_.threshold, c.tree_.threshold)
    assert a.score(X, y) == 1.0
    assert a.tree_.node_count > best.tree_.node_count


def test_min_impurity_decrease_and_stop_rules():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1000, 4))
    y = (X[:, 0] + rng.normal(scale=1.0, size=1000) > 0).astype(int)
    t = DecisionTreeClassifier(min_impurity_decrease=0.01).fit(X, y).tree_
    inner = t.children_left != -1
    left, right = t.children_left[inner], t.children_right[inner]
    w = t.weighted_n_node_samples
    decrease = (w[inner] * t.impurity[inner] - w[left] * t.impurity[left]
                - w[right] * t.impurity[right]) / w[0]
    assert np.all(decrease >= 0.01 - 1e-12)
    t = DecisionTreeClassifier(min_samples_leaf=37).fit(X, y).tree_
    assert t.n_node_samples[t.children_left == -1].min() >= 37
    t = DecisionTreeClassifier(min_samples_split=100).fit(X, y).tree_
    assert t.n_node_samples[t.children_left != -1].min() >= 100
    t = DecisionTreeClassifier(max_depth=4).fit(X, y).tree_
    assert t.max_depth == 4
    t = DecisionTreeClassifier(min_weight_fraction_leaf=0.1).fit(X, y).tree_
    assert t.weighted_n_node_samples[t.children_left == -1].min() >= 100


# ----------------------------------------------------------------------------------------
# Bad input: a clear error, and a fitted model left as it was
# ----------------------------------------------------------------------------------------

X_OK = np.random.default_rng(0).normal(size=(30, 3))
Y_OK = np.arange(30) % 2


@pytest.mark.parametrize("params, error, match", [
    (dict(criterion="mse"), ValueError, "criterion"),
    (dict(splitter="worst"), ValueError, "splitter"),
    (dict(max_depth=0), ValueError, "max_depth"),
    (dict(max_depth=2.5), TypeError, "max_depth"),
    (dict(min_samples_split=1), ValueError, "min_samples_split"),
    (dict(min_samples_split=1.5), ValueError, "min_samples_split"),
    (dict(min_samples_leaf=0), ValueError, "min_samples_leaf"),
    (dict(min_samples_leaf=1.0), ValueError, "min_samples_leaf"),
    (dict(min_weight_fraction_leaf=0.6), ValueError, "min_weight_fraction_leaf"),
    (dict(max_features=0), ValueError, "max_features"),
    (dict(max_features=1.5), ValueError, "max_features"),
    (dict(max_features="all"), ValueError, "max_features"),
    (dict(max_leaf_nodes=1), ValueError, "max_leaf_nodes"),
    (dict(min_impurity_decrease=-1.0), ValueError, "min_impurity_decrease"),
    (dict(class_weight="sometimes"), ValueError, "class_weight"),
    (dict(random_state="seed"), ValueError, "random_state|seed"),
])
def test_bad_parameters(params, error, match):
    with pytest.raises(error, match=match):
        DecisionTreeClassifier(**params).fit(X_OK, Y_OK)


@pytest.mark.parametrize("X, y, sw, error, match", [
    (np.where(np.eye(30, 3) > 0, np.inf, X_OK), Y_OK, None, ValueError, "infinity"),
    (X_OK, np.linspace(0, 1, 30), None, ValueError, "Unknown label type"),
    (X_OK[:0], Y_OK[:0], None, ValueError, "0 sample"),
    (X_OK, Y_OK[:10], None, ValueError, "inconsistent numbers of samples"),
    (X_OK[:, :0], Y_OK, None, ValueError, "0 feature"),
    (X_OK, Y_OK, -np.ones(30), ValueError, "non-negative"),
    (X_OK, Y_OK, np.ones(29), ValueError, "sample_weight.shape"),
    (X_OK, Y_OK, np.zeros(30), ValueError, "sum to zero"),
    (X_OK, Y_OK, np.full(30, np.nan), ValueError, "NaN|finite"),
    (X_OK.astype(complex), Y_OK, None, ValueError, "[Cc]omplex"),
    (np.array([["a", "b", "c"]] * 30), Y_OK, None, ValueError, "could not convert"),
    (X_OK, Y_OK[:, None, None], None, ValueError, "1-D or 2-D"),
    (X_OK, Y_OK[:, None][:, :0], None, ValueError, "0 columns"),
])
def test_bad_data(X, y, sw, error, match):
    with pytest.raises(error, match=match):
        DecisionTreeClassifier().fit(X, y, sample_weight=sw)


def test_failed_fit_leaves_fitted_model_unchanged():
    clf = DecisionTreeClassifier(max_features=3).fit(X_OK, Y_OK)
    before = pickle.dumps(clf)
    proba = clf.predict_proba(X_OK)
    with pytest.raises(ValueError):   # fails after X (of 2 features) was validated
        clf.fit(X_OK[:, :2], Y_OK, sample_weight=np.full(30, np.nan))
    with pytest.raises(ValueError):
        clf.fit(X_OK, Y_OK, sample_weight=-np.ones(30))
    assert pickle.dumps(clf) == before
    assert clf.n_features_in_ == 3
    np.testing.assert_array_equal(clf.predict_proba(X_OK), proba)


def test_bad_predict_input():
    clf = DecisionTreeClassifier().fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X_OK[:, :2])
    with pytest.raises(ValueError, match="infinity"):
        clf.predict(np.full((2, 3), -np.inf))
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        DecisionTreeClassifier().predict(X_OK)


@pytest.mark.parametrize("make_sparse", [sp.csr_matrix, sp.csc_matrix, sp.coo_array])
@pytest.mark.parametrize("Est", ["tree", "forest", "rotation"])
def test_sparse_X_gives_the_model_of_its_dense_form(Est, make_sparse):
    """Sparse X (any scipy format, as OneHotEncoder or a ColumnTransformer may hand over)
    fits and predicts as its dense form: implicit entries are 0.0, stored NaN missing."""
    from rotforest import RandomForestClassifier, RotationForestClassifier
    est = {"tree": DecisionTreeClassifier(random_state=0),
           "forest": RandomForestClassifier(n_estimators=5, random_state=0),
           "rotation": RotationForestClassifier(n_estimators=5, random_state=0)}[Est]
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 6)) * (rng.uniform(size=(200, 6)) < 0.3)
    X[rng.uniform(size=X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    Xs = make_sparse(X)
    assert np.isnan(Xs.data).any()            # NaN is stored, not implicit
    dense = clone_fit(est, X, y)
    sparse = clone_fit(est, Xs, y)
    for method in ("predict_proba", "apply"):
        expected = getattr(dense, method)(X)
        np.testing.assert_array_equal(getattr(sparse, method)(Xs), expected)
        np.testing.assert_array_equal(getattr(dense, method)(Xs), expected)
    if Est == "tree":
        assert pickle.dumps(sparse.tree_) == pickle.dumps(dense.tree_)
        np.testing.assert_array_equal(
            dense.cost_complexity_pruning_path(Xs, y).ccp_alphas,
            dense.cost_complexity_pruning_path(X, y).ccp_alphas)


def clone_fit(est, X, y):
    from sklearn.base import clone
    return clone(est).fit(X, y)


def test_sparse_one_hot_pipeline_equals_dense_one():
    """The pipeline users write first: OneHotEncoder's default output is sparse."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    rng = np.random.RandomState(1)
    X = rng.randint(0, 8, size=(300, 4))
    y = (X[:, 0] % 3 == 0) ^ (X[:, 1] > 4)
    dense = make_pipeline(OneHotEncoder(sparse_output=False),
                          DecisionTreeClassifier(random_state=0)).fit(X, y)
    sparse = make_pipeline(OneHotEncoder(), DecisionTreeClassifier(random_state=0)).fit(X, y)
    assert sp.issparse(sparse[0].transform(X))
    np.testing.assert_array_equal(sparse.predict_proba(X), dense.predict_proba(X))
    assert sparse.score(X, y) == 1.0


def test_sparse_X_too_large_for_memory_is_refused(monkeypatch):
    """An estimator that works on dense arrays (the rotation forest) refuses a sparse
    matrix whose dense form exceeds physical memory with a clear error, not an
    out-of-memory kill while the dense array is filled; a tree never makes it dense."""
    from rotforest import RotationForestClassifier, _validation
    monkeypatch.setattr(_validation, "_physical_memory", lambda: 1000)
    X = sp.csr_matrix(np.ones((60, 3)))
    clf = RotationForestClassifier(n_estimators=2, random_state=0).fit(X_OK, Y_OK)
    before = pickle.dumps(clf)
    with pytest.raises(ValueError, match="dense"):
        clf.fit(X, np.r_[Y_OK, Y_OK])
    with pytest.raises(ValueError, match="GiB"):
        clf.predict(X)
    assert pickle.dumps(clf) == before
    tree = DecisionTreeClassifier(random_state=0).fit(X, np.r_[Y_OK, Y_OK])
    np.testing.assert_array_equal(tree.predict(X), DecisionTreeClassifier(
        random_state=0).fit(X.toarray(), np.r_[Y_OK, Y_OK]).predict(X.toarray()))


@pytest.mark.parametrize("y", [
    np.array([1, 0, 1, 1, 0]),
    np.array([-128, 127, 0, 127], dtype=np.int8),
    np.array([0, 255, 3, 3], dtype=np.uint8),
    np.array([2**64 - 1, 2**64 - 3, 2**64 - 1], dtype=np.uint64),
    np.array([-2**63, -2**63 + 5, 7]),            # a range too wide to count: np.unique
    np.array([2**63 - 1, 2**63 - 2]),
    np.array([5, 5, 5], dtype=np.int16),
    np.arange(10)[::-2],
    np.array(["b", "a", "b"]),
])
def test_label_encoding_equals_np_unique(y):
    from rotforest._inputs import _encode

    classes, codes = _encode(y)
    ref_classes, ref_codes = np.unique(y, return_inverse=True)
    assert classes.dtype == ref_classes.dtype and codes.dtype == ref_codes.dtype
    np.testing.assert_array_equal(classes, ref_classes)
    np.testing.assert_array_equal(codes, ref_codes)


def test_node_depths_and_max_n_classes_as_scikit_learn_gives_them():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 4))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int) + (X[:, 1] > 1)
    ours = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    sk = SkTree(max_depth=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, sk.tree_.feature)
    np.testing.assert_array_equal(ours.tree_.compute_node_depths(), sk.tree_.compute_node_depths())
    assert ours.tree_.max_n_classes == sk.tree_.max_n_classes == 3
    best_first = DecisionTreeClassifier(max_leaf_nodes=30, random_state=0).fit(X, y)
    depths = best_first.tree_.compute_node_depths()
    assert depths.max() - 1 == best_first.get_depth()
    left, right = best_first.tree_.children_left, best_first.tree_.children_right
    expected = np.zeros_like(depths)
    stack = [(0, 1)]                                    # walked from the root
    while stack:
        node, depth = stack.pop()
        expected[node] = depth
        if left[node] != -1:
            stack += [(left[node], depth + 1), (right[node], depth + 1)]
    np.testing.assert_array_equal(depths, expected)


def test_builder_refuses_an_unknown_criterion():
    """A criterion code the builder has no scan for fails at the entry (it would have
    been scanned as another criterion)."""
    from rotforest import _builder
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    keys = _builder.presort(X)
    y = (X[:, 0] > 0).astype(np.int32)
    w = np.ones(30)
    settings = dict(random_split=False, max_depth=1, min_samples_split=2,
                    min_samples_leaf=1, min_weight_leaf=0.0, max_features=2,
                    max_leaf_nodes=-1, min_impurity_decrease=0.0, seed=0)
    nodes = _builder.build_tree(X, keys, y, w, 2, criterion=_builder.CRITERIA["gini"],
                                **settings)[0]
    assert nodes.shape[0] == 3
    for criterion in (7, -1, _builder.REGRESSION_CRITERIA["squared_error"]):
        with pytest.raises(ValueError, match="classification criterion"):
            _builder.build_tree(X, keys, y, w, 2, criterion=criterion, **settings)


def test_tree_object_takes_what_scikit_learns_takes():
    """``tree_.apply`` / ``decision_path`` take float32 arrays and CSR matrices as
    scikit-learn's ``Tree`` does (and float64, lists, other sparse formats), with the
    leaves of the float64 rows, which are scikit-learn's tree's on tie-free data; a
    wrong width, dimension or dtype is a clear error, not a Cython buffer error."""
    from helpers import tie_free_data
    from sklearn.tree import DecisionTreeClassifier as SkTree
    X, y = tie_free_data(200, 4, 2, seed=1)      # (no equally good features to 4 levels)
    ours = DecisionTreeClassifier(max_depth=4).fit(X, y).tree_
    theirs = SkTree(max_depth=4, random_state=0).fit(X, y).tree_
    np.testing.assert_array_equal(ours.feature, theirs.feature)
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(ours.apply(X), theirs.apply(X32))
    for rows in (X32, sp.csr_matrix(X32), sp.csr_array(X), sp.csc_matrix(X), X.tolist()):
        np.testing.assert_array_equal(ours.apply(rows), theirs.apply(X32))
    np.testing.assert_array_equal(ours.decision_path(sp.csr_matrix(X32)).toarray(),
                                  theirs.decision_path(sp.csr_matrix(X32)).toarray())
    with pytest.raises(ValueError, match="X has 3 features, but the tree was grown on 4"):
        ours.apply(X[:, :3])
    with pytest.raises(ValueError, match="2-D"):
        ours.decision_path(X[0])
    with pytest.raises(TypeError, match="real numbers"):
        ours.apply(np.full((2, 4), "a"))
