"""Sparse X grown on as it is: the stored entries' ranks against the dense ranks, the
trees against those of the dense form of the same data (every criterion, weights,
missing values, random cuts, constraints, several outputs), the estimators on every
sparse format, and fits whose dense form would not fit in memory."""
import itertools
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

import rotforest
from rotforest import _builder, _validation
from rotforest._sparse import canonical_csc, sparse_columns

_NODE_FIELDS = ["left_child", "right_child", "feature", "impurity", "n_node_samples",
                "weighted_n_node_samples", "missing_go_to_left"]


def _sparse_data(rng, n, d, nan=False, density=0.3):
    """Counts with signs (negative values, -0.0 among the zeros), one dense normal
    column, one column without zeros, one all zero; NaN in some cells of every other
    column."""
    X = (rng.random((n, d)) < density) * rng.poisson(1.5, (n, d)).astype(float)
    X *= rng.choice([-1.0, 1.0, 1.0, 2.5], (n, d))
    X[:, 0] = rng.normal(size=n)
    X[:, 1] = np.where(X[:, 1] == 0, 3.0, X[:, 1])
    X[:, 2] = 0.0
    if nan:
        # in half the columns: a node scans features with and without missing values
        X[:, ::2][rng.random((n, (d + 1) // 2)) < 0.05] = np.nan
    return X


def _same_nodes(a, b):
    """Node arrays equal: every field bit for bit, thresholds as numbers (a threshold
    drawn at a zero may be -0.0 on the dense form, whose zeros keep their sign)."""
    return (a.shape == b.shape
            and all(np.array_equal(a[f], b[f]) for f in _NODE_FIELDS)
            and np.array_equal(a["threshold"], b["threshold"], equal_nan=True))


def _broadcast(X):
    return np.broadcast_to(np.zeros(1), X.shape)


def test_sparse_ranks_are_the_dense_ranks():
    rng = np.random.default_rng(0)
    for nan, density in itertools.product([False, True], [0.02, 0.3, 0.9]):
        X = _sparse_data(rng, 200, 15, nan, density)
        S = sp.coo_matrix(X)
        # explicit zeros and duplicates (summed by scipy) in the stored form
        S = sp.coo_matrix((np.r_[S.data, 0.0, 0.0, 1.5, -1.5],
                           (np.r_[S.row, 3, 4, 5, 5], np.r_[S.col, 6, 7, 8, 8])),
                          shape=X.shape)
        dense = S.toarray()
        ptr, rows, ranks, zero, values, offsets, top, has_nan = sparse_columns(
            canonical_csc(S))
        expected = _builder.dense_ranks(_builder.presort(dense))
        for f in range(X.shape[1]):
            got = np.full(X.shape[0], zero[f], dtype=np.int64)
            got[rows[ptr[f]:ptr[f + 1]]] = ranks[ptr[f]:ptr[f + 1]]
            np.testing.assert_array_equal(got, expected[f])
            assert top[f] == expected[f].max()
            present = np.unique(dense[:, f][~np.isnan(dense[:, f])])
            np.testing.assert_array_equal(values[offsets[f]:offsets[f] + present.size],
                                          present)
            assert has_nan[f] == np.isnan(dense[:, f]).any()


_CASES = list(itertools.product(
    ["gini2", "gini3", "entropy3", "log_loss2", "error3", "squared", "friedman",
     "poisson", "absolute"],
    [False, True],                     # missing values
    [False, True],                     # random cuts
    ["one", "int", "real"],            # weights
))


@pytest.mark.parametrize("kind, nan, random_split, weights", _CASES)
def test_builder_grows_the_dense_forms_tree(kind, nan, random_split, weights):
    """The dense form's tree.  The scans of a sparse column's entries take the implicit
    zeros' sums from the node's totals: with targets and weights whose sums are exact in
    any order (quarters, halves) they give the reference scan's tree exactly, whatever
    the criterion (both score cuts by _proxy_counts), and the fast scans' tree exactly
    where those score cuts from the same sums in the same arithmetic: Gini with integer
    weights, the squared error, Poisson, random cuts."""
    # (a seed of the case's own, the same in every process: str hashes are not)
    rng = np.random.default_rng(zlib.crc32(repr((kind, nan, random_split, weights)).encode()))
    n, d = 300, 12
    X = _sparse_data(rng, n, d, nan)
    regression = kind in ("squared", "friedman", "poisson", "absolute")
    K = int(kind[-1]) if not regression else 1
    y = rng.integers(0, K, n).astype(np.int32) if not regression else None
    if not regression:
        y[np.nan_to_num(X[:, 4]) > 0] = 0
    target = (np.abs(rng.normal(size=n) + np.nan_to_num(X[:, 3])) if regression
              else None)
    sw = {"one": np.ones(n), "int": rng.integers(0, 4, n).astype(float),
          "real": np.round(rng.random(n) * 4) / 2 + 0.5}[weights]
    if target is not None and kind != "absolute":
        target = np.round(target * 4) / 4
    name = kind.rstrip("23")
    criteria = _builder.REGRESSION_CRITERIA if regression else _builder.CRITERIA
    criterion = criteria["squared_error" if name == "squared" else
                         "friedman_mse" if name == "friedman" else
                         "absolute_error" if name == "absolute" else name]
    fast_exact = random_split or not (name in ("entropy", "log_loss")
                                      or (name == "gini" and weights == "real"))
    cols = sparse_columns(canonical_csc(sp.csr_matrix(X)))
    for max_features, max_leaf_nodes in [(4, -1), (d, 15)]:
        args = dict(n_classes=K, criterion=criterion, random_split=random_split,
                    max_depth=1000, min_samples_split=2, min_samples_leaf=1,
                    min_weight_leaf=0.0, max_features=max_features,
                    max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=0.0, seed=7,
                    target=target, shuffle_features=True)
        if not fast_exact:
            # the fast scans' arithmetic differs from the sparse scans' in the last
            # bits: the same proxies up to rounding (one scale within a node: a
            # feature with missing values competes with the sparse ones at the root)
            dense = _builder.build_tree(X, _builder.presort(X), y, sw, **args)
            sparse = _builder.build_tree(_broadcast(X), None, y, sw, sparse=cols, **args)
            assert dense[0][0]["feature"] == sparse[0][0]["feature"]
            assert dense[0][0]["threshold"] == sparse[0][0]["threshold"]
            assert abs(len(dense[0]) - len(sparse[0])) <= 0.1 * len(dense[0])
        for reference in ([False, True] if fast_exact else [True]):
            _builder._set_reference_scan(reference)
            try:
                dense = _builder.build_tree(X, _builder.presort(X), y, sw, **args)
                sparse = _builder.build_tree(_broadcast(X), None, y, sw, sparse=cols,
                                             **args)
            finally:
                _builder._set_reference_scan(False)
            if kind == "poisson":
                # (the impurity's sums of y log y are not exact: the tree is)
                np.testing.assert_allclose(dense[0]["impurity"], sparse[0]["impurity"],
                                           rtol=1e-12)
                sparse[0]["impurity"] = dense[0]["impurity"]
            assert _same_nodes(dense[0], sparse[0]), reference
            np.testing.assert_array_equal(dense[1], sparse[1])


def test_builder_monotonic_and_several_outputs():
    rng = np.random.default_rng(3)
    n, d = 300, 10
    X = _sparse_data(rng, n, d, nan=True)
    cols = sparse_columns(canonical_csc(sp.csc_matrix(X)))
    y = (np.nan_to_num(X[:, 3]) + rng.normal(size=n) > 0).astype(np.int32)
    mono = np.zeros(d, dtype=np.int8)
    mono[[3, 5]] = [1, -1]
    args = dict(n_classes=2, criterion=_builder.CRITERIA["gini"], random_split=False,
                max_depth=1000, min_samples_split=2, min_samples_leaf=2,
                min_weight_leaf=0.0, max_features=d, max_leaf_nodes=-1,
                min_impurity_decrease=0.0, seed=1, monotonic=mono)
    dense = _builder.build_tree(X, _builder.presort(X), y, np.ones(n), **args)
    sparse = _builder.build_tree(_broadcast(X), None, y, np.ones(n), sparse=cols, **args)
    assert _same_nodes(dense[0], sparse[0])
    Y = np.column_stack([y, rng.integers(0, 3, n)]).astype(np.int32).reshape(-1)
    args.update(monotonic=None, n_classes=1, output_classes=[2, 3])
    dense = _builder.build_tree(X, _builder.presort(X), Y, np.ones(n), **args)
    sparse = _builder.build_tree(_broadcast(X), None, Y, np.ones(n), sparse=cols, **args)
    assert _same_nodes(dense[0], sparse[0])
    np.testing.assert_array_equal(dense[1], sparse[1])


def test_builder_refuses_what_is_not_sparse_columns():
    X = _sparse_data(np.random.default_rng(0), 50, 4)
    cols = sparse_columns(canonical_csc(sp.csr_matrix(X)))
    y = (np.arange(50) % 2).astype(np.int32)
    args = dict(n_classes=2, criterion=0, random_split=False, max_depth=10,
                min_samples_split=2, min_samples_leaf=1, min_weight_leaf=0.0,
                max_features=4, max_leaf_nodes=-1, min_impurity_decrease=0.0, seed=1)
    bad_rows = list(cols)
    bad_rows[1] = cols[1].copy()
    bad_rows[1][0] = 50                      # a row beyond the samples
    bad_rank = list(cols)
    bad_rank[2] = cols[2] + np.uint32(40)    # ranks beyond the column's values
    for bad in (tuple(bad_rows), tuple(bad_rank), cols[:7], "columns"):
        with pytest.raises(ValueError, match="sparse_columns"):
            _builder.build_tree(_broadcast(X), None, y, np.ones(50), sparse=bad, **args)
    with pytest.raises(ValueError, match="no keys"):
        _builder.build_tree(_broadcast(X), _builder.presort(X), y, np.ones(50),
                            sparse=cols, **args)


_ESTIMATORS = [
    (rotforest.DecisionTreeClassifier, {}),
    (rotforest.DecisionTreeRegressor, {}),
    (rotforest.ExtraTreeClassifier, {}),
    (rotforest.RandomForestClassifier, dict(n_estimators=6, oob_score=True)),
    (rotforest.RandomForestRegressor, dict(n_estimators=6, max_features=0.5)),
    (rotforest.ExtraTreesClassifier, dict(n_estimators=6)),
    (rotforest.ExtraTreesRegressor, dict(n_estimators=6, bootstrap=True,
                                         oob_score=True)),
    (rotforest.RandomForestQuantileRegressor, dict(n_estimators=6)),
]


def _trees(est):
    return [est] if hasattr(est, "tree_") else list(est.estimators_)


@pytest.mark.parametrize("cls, params", _ESTIMATORS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "csr_array", "csc_int64"])
def test_estimators_on_sparse_equal_dense(cls, params, fmt, monkeypatch):
    rng = np.random.default_rng(5)
    n, d = 240, 30
    X = _sparse_data(rng, n, d, nan=True, density=0.1)
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 5]) > 0).astype(int)
    if "Regressor" in cls.__name__:
        y = np.abs(y + rng.normal(size=n))
    if "Regressor" in cls.__name__:
        # the squared error's scans, and random cuts on dense X (on the values), sum the
        # targets in other orders than the sparse scans: quarters sum exactly in any
        y = np.round(4 * y) / 4
    sw = rng.integers(1, 3, n).astype(float)
    S = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix,
         "csr_array": sp.csr_array, "csc_int64": sp.csc_matrix}[fmt](X)
    if fmt == "csc_int64":
        S.indices = S.indices.astype(np.int64)
        S.indptr = S.indptr.astype(np.int64)
    # (a forest grows a dense X of so few entries as a sparse one: not here)
    monkeypatch.setattr(rotforest.forest, "_SPARSE_ENTRIES", None)
    dense = cls(random_state=0, **params).fit(X, y, sample_weight=sw)
    # never made dense: fit and prediction on the stored entries alone
    monkeypatch.setattr(_validation, "_physical_memory", lambda: 1000)
    sparse = cls(random_state=0, **params).fit(S, y, sample_weight=sw)
    for a, b in zip(_trees(dense), _trees(sparse)):
        assert _same_nodes(a.tree_.nodes, b.tree_.nodes)
        np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
    np.testing.assert_array_equal(dense.predict(X), sparse.predict(S))
    np.testing.assert_array_equal(dense.apply(X), sparse.apply(S))
    if hasattr(dense, "oob_score_"):
        assert dense.oob_score_ == sparse.oob_score_


@pytest.mark.parametrize("cls, params", _ESTIMATORS, ids=lambda v: getattr(v, "__name__", ""))
def test_dense_data_of_few_entries_grows_as_sparse(cls, params, monkeypatch):
    # a dense X whose columns hold few values other than 0.0 is grown on its entries
    # (_SPARSE_ENTRIES of tree.py and forest.py): the trees of the dense path, which
    # the spy shows is not the one taken; more entries keep the dense path
    module = rotforest.forest if "n_estimators" in params else rotforest.tree
    random_tree = cls is rotforest.ExtraTreeClassifier   # takes only the share rule
    rng = np.random.default_rng(7)
    n, d = 300, 40
    X = _sparse_data(rng, n, d, nan=True, density=0.08)
    share = np.count_nonzero(X) / X.size
    if random_tree:
        monkeypatch.setattr(module, "_SPARSE_SHARE", share + 0.01)
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 3]) > 0).astype(int)
    if "Regressor" in cls.__name__:
        y = np.round(4 * np.abs(y + rng.normal(size=n))) / 4
    sw = rng.integers(1, 3, n).astype(float)
    made = []
    real = module.canonical_csc
    monkeypatch.setattr(module, "canonical_csc", lambda A: made.append(A.shape) or real(A))
    on = cls(random_state=0, **params).fit(X, y, sample_weight=sw)
    assert made == [X.shape]
    monkeypatch.setattr(module, "_SPARSE_ENTRIES", None)
    off = cls(random_state=0, **params).fit(X, y, sample_weight=sw)
    assert made == [X.shape]
    for a, b in zip(_trees(on), _trees(off)):
        assert _same_nodes(a.tree_.nodes, b.tree_.nodes)
        np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
    np.testing.assert_array_equal(on.predict(X), off.predict(X))
    # about 40 entries a column: sparse under a rule of 64, dense under one of 20
    monkeypatch.setattr(module, "_SPARSE_ENTRIES", 20)
    if random_tree:
        monkeypatch.setattr(module, "_SPARSE_SHARE", share - 0.01)
    cls(random_state=0, **params).fit(X, y)
    assert made == [X.shape]
    monkeypatch.setattr(module, "_SPARSE_ENTRIES", 64)
    if random_tree:     # 64 entries a column do not make a random tree sparse
        cls(random_state=0, **params).fit(X, y)
        assert made == [X.shape]
        monkeypatch.setattr(module, "_SPARSE_SHARE", share + 0.01)
    cls(random_state=0, **params).fit(X, y)
    assert made == [X.shape, X.shape]


def test_trees_and_forests_grow_sparse_below_a_share_of_the_cells(monkeypatch):
    # 75 entries a column but 1.5% of the cells: a tree (every feature at every node)
    # grows on the entries, a forest (a few features a node) on the dense columns,
    # which it leaves only at a smaller share
    rng = np.random.default_rng(3)
    X = (rng.random((5000, 10)) < 0.015) * rng.poisson(2.0, (5000, 10)).astype(float)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    made = []
    for module in (rotforest.tree, rotforest.forest):
        real = module.canonical_csc
        monkeypatch.setattr(module, "canonical_csc",
                            lambda A, real=real, module=module:
                            made.append(module.__name__) or real(A))
    tree = rotforest.DecisionTreeClassifier(random_state=0).fit(X, y)
    rotforest.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    assert made == ["rotforest.tree"]
    monkeypatch.setattr(rotforest.tree, "_SPARSE_SHARE", 0.0)
    dense = rotforest.DecisionTreeClassifier(random_state=0).fit(X, y)
    assert made == ["rotforest.tree"]
    assert _same_nodes(tree.tree_.nodes, dense.tree_.nodes)
    # a forest takes a share too, a smaller one: 0.3% of 30,000 rows (90 a column)
    Z = (rng.random((30000, 5)) < 0.003).astype(float)
    z = (Z[:, 0] + Z[:, 1] > 0).astype(int)
    rotforest.RandomForestClassifier(n_estimators=2, random_state=0).fit(Z, z)
    assert made == ["rotforest.tree", "rotforest.forest"]
    monkeypatch.setattr(rotforest.forest, "_SPARSE_SHARE", 0.002)
    rotforest.RandomForestClassifier(n_estimators=2, random_state=0).fit(Z, z)
    assert made == ["rotforest.tree", "rotforest.forest"]


def test_validation_fraction_and_oob_pruning_on_sparse():
    rng = np.random.default_rng(2)
    X = _sparse_data(rng, 300, 20, density=0.2)
    y = (X[:, 0] + X[:, 4] > 0).astype(int)
    S = sp.csr_matrix(X)
    a = rotforest.DecisionTreeClassifier(validation_fraction=0.3, random_state=0)
    b = rotforest.DecisionTreeClassifier(validation_fraction=0.3, random_state=0)
    assert _same_nodes(a.fit(X, y).tree_.nodes, b.fit(S, y).tree_.nodes)
    a = rotforest.RandomForestClassifier(n_estimators=4, oob_pruning=True, random_state=0)
    b = rotforest.RandomForestClassifier(n_estimators=4, oob_pruning=True, random_state=0)
    a.fit(X, y)
    b.fit(S, y)
    for ta, tb in zip(a.estimators_, b.estimators_):
        assert _same_nodes(ta.tree_.nodes, tb.tree_.nodes)


def test_warm_start_on_sparse_is_one_fit():
    rng = np.random.default_rng(4)
    S = sp.csr_matrix(_sparse_data(rng, 200, 25, density=0.1))
    y = rng.integers(0, 3, 200)
    one = rotforest.RandomForestClassifier(n_estimators=6, random_state=1).fit(S, y)
    warm = rotforest.RandomForestClassifier(n_estimators=3, warm_start=True,
                                            random_state=1).fit(S, y)
    warm.set_params(n_estimators=6).fit(S, y)
    np.testing.assert_array_equal(one.predict_proba(S), warm.predict_proba(S))


def test_a_matrix_far_too_large_to_be_dense_fits():
    """10,000 x 200,000 (16 GB dense) with 20,000 stored entries: fitted and predicted
    on its entries, the same tree as a dense slice of its used columns grows."""
    rng = np.random.default_rng(8)
    n, d, nnz = 10_000, 200_000, 20_000
    rows = rng.integers(0, n, nnz)
    spread = rng.choice(d, 1000, replace=False)       # (a dense slice of ~80 MB)
    cols = np.r_[rng.integers(0, 50, nnz // 2), spread[rng.integers(0, 1000, nnz // 2)]]
    S = sp.csr_matrix((rng.poisson(2.0, nnz) + 1.0, (rows, cols)), shape=(n, d))
    y = (np.asarray(S[:, :10].sum(axis=1)).ravel() > 0).astype(int)
    tree = rotforest.DecisionTreeClassifier(max_depth=6, random_state=0).fit(S, y)
    used = np.unique(S.tocoo().col)
    small = rotforest.DecisionTreeClassifier(max_depth=6, random_state=0).fit(
        S[:, used].toarray(), y)
    assert tree.score(S, y) == small.score(S[:, used].toarray(), y) > 0.9
    mapped = used[small.tree_.feature[small.tree_.feature >= 0]]
    np.testing.assert_array_equal(tree.tree_.feature[tree.tree_.feature >= 0], mapped)
    np.testing.assert_array_equal(tree.tree_.threshold, small.tree_.threshold)


def test_columns_without_zeros_and_checks_once():
    """A column that stores every row, all negative (no 0.0 among its values), and the
    same after validation_fraction holds out a column's only zero; a forest's columns
    are checked once (read-only), and a changed one is refused."""
    X = np.array([[-1.0, 0.0], [-2.0, 1.0], [-3.0, 0.0], [-1.0, 1.0]] * 10)
    X[0, 1] = 2.0
    y = np.arange(40) % 2
    for fit in (lambda Z: rotforest.DecisionTreeClassifier(random_state=0).fit(Z, y),
                lambda Z: rotforest.DecisionTreeClassifier(
                    validation_fraction=0.5, random_state=3).fit(Z, y)):
        assert _same_nodes(fit(X).tree_.nodes, fit(sp.csr_matrix(X)).tree_.nodes)
    cols = sparse_columns(canonical_csc(sp.csr_matrix(X)))
    for part in cols:
        part.setflags(write=False)
    args = dict(n_classes=2, criterion=0, random_split=False, max_depth=10,
                min_samples_split=2, min_samples_leaf=1, min_weight_leaf=0.0,
                max_features=2, max_leaf_nodes=-1, min_impurity_decrease=0.0, seed=1)
    codes = y.astype(np.int32)
    _builder.build_tree(_broadcast(X), None, codes, np.ones(40), sparse=cols, **args)
    assert cols.checked == (40, 2)
    bad = type(cols)(part.copy() for part in cols)
    bad[1][0] = 40                                   # a row beyond the samples
    with pytest.raises(ValueError, match="sparse_columns"):
        _builder.build_tree(_broadcast(X), None, codes, np.ones(40), sparse=bad, **args)


def test_quantile_oob_on_either_form_of_the_training_rows():
    rng = np.random.default_rng(6)
    X = _sparse_data(rng, 200, 10)
    y = X[:, 0] + rng.normal(size=200)
    for fit_form, predict_form in [(sp.csr_matrix, np.asarray), (np.asarray, sp.csc_matrix)]:
        model = rotforest.RandomForestQuantileRegressor(n_estimators=5, random_state=0)
        model.fit(fit_form(X), y)
        a = model.predict(fit_form(X), quantiles=[0.5], oob_score=True)
        b = model.predict(predict_form(X), quantiles=[0.5], oob_score=True)
        np.testing.assert_array_equal(a, b)
        with pytest.raises(ValueError, match="training data"):
            model.predict(predict_form(X[::-1]), quantiles=[0.5], oob_score=True)
