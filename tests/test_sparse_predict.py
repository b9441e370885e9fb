"""tree_.apply / decision_path on sparse X, read without making it dense: every row
reaches the nodes of its dense form (the dense kernels are the reference), whatever
the format, index width, stored zeros, NaN or duplicates."""
import numpy as np
import pytest
import scipy.sparse as sp

from rotforest import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    RandomForestClassifier,
)
from rotforest import _tree

N_FEATURES = 12


def _rows(seed, n=400, nan=0.03):
    """Mostly zeros: counts, counts of either sign, a sparse normal column; some NaN."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.3, (n, N_FEATURES)).astype(float)
    X[:, 3:6] *= rng.choice([-1.0, 1.0], (n, 3))
    X[:, 6] = np.where(rng.random(n) < 0.2, rng.normal(size=n), 0.0)
    X[rng.random(X.shape) < nan] = np.nan
    X[::17] = 0.0                               # empty rows
    return X


def _target(X, seed):
    rng = np.random.default_rng(seed)
    Z = np.nan_to_num(X, nan=0.5)
    return Z[:, 0] - Z[:, 3] + Z[:, 6] + 0.5 * Z[:, 7] * Z[:, 8] + rng.normal(0, 0.3, len(X))


def _categorical_rows(seed, n=400):
    """Columns 0 and 1: codes, 0 the most frequent (absent from a sparse row); the
    rest as in _rows."""
    rng = np.random.default_rng(seed)
    X = _rows(seed + 1, n)
    X[:, 0] = rng.choice([0, 0, 0, 2, 5, 9, 200], n)
    X[:, 1] = rng.choice([0, 0, 1, 3, 254], n)
    X[rng.random(n) < 0.05, 0] = np.nan
    return X


def _trees():
    """Fitted trees (tree_ objects) with NaN on both sides, negative thresholds and
    categorical splits; each with the dense rows its tests read."""
    X = _rows(0)
    y = _target(X, 0)
    Xc = _categorical_rows(3)
    yc = _target(Xc, 3) + np.isin(Xc[:, 0], [2, 200]) * 2.0 - (Xc[:, 1] == 3) * 2.0
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y > 0)
    trees = {
        "classifier": DecisionTreeClassifier(random_state=0).fit(X, (y > 0) + (y > 1)),
        "regressor": DecisionTreeRegressor(random_state=0, min_samples_leaf=2).fit(X, y),
        "categorical": DecisionTreeClassifier(categorical_features=[0, 1],
                                              random_state=0).fit(Xc, yc > 0),
        "categorical-regressor": DecisionTreeRegressor(
            categorical_features=[0, 1], random_state=0).fit(Xc, yc),
    }
    out = {name: (est.tree_, Xc if "categorical" in name else X)
           for name, est in trees.items()}
    for k, est in enumerate(forest.estimators_):
        out[f"forest-{k}"] = (est.tree_, X)
    return out


TREES = _trees()


def _new_rows(name, seed=7):
    """Rows the tree was not grown on; for categorical trees also values that are no
    code (negative, fractional, beyond 254), which go where missing values go."""
    if "categorical" in name:
        X = _categorical_rows(seed, 300)
        bad = np.random.default_rng(seed).random(300) < 0.1
        X[bad, 0] = np.resize([-1.0, 2.5, 255.0, 1e9, -0.0, np.inf], bad.sum())
        return X
    return _rows(seed, 300)


def _same(tree, S, D):
    """The sparse S reaches the nodes of the dense D."""
    leaves = tree.apply(S)
    assert leaves.dtype == np.int64
    np.testing.assert_array_equal(leaves, tree.apply(D))
    path, expected = tree.decision_path(S), tree.decision_path(D)
    assert sp.isspmatrix_csr(path) and path.shape == expected.shape
    assert path.dtype == expected.dtype
    assert (path != expected).nnz == 0
    np.testing.assert_array_equal(path.indptr, expected.indptr)
    np.testing.assert_array_equal(path.indices, expected.indices)
    np.testing.assert_array_equal(tree.predict(S), tree.predict(D))


def test_trees_cover_what_the_kernels_must_handle():
    """The fixtures exercise NaN sent either way, negative thresholds and categorical
    splits, on trees deep enough for lockstep blocks to finish at different depths."""
    tree = TREES["classifier"][0]
    inner = tree.children_left != -1
    assert set(tree.missing_go_to_left[inner]) == {0, 1}
    assert (tree.threshold[inner] < 0).any()
    depths = tree.compute_node_depths()[tree.children_left == -1]
    assert depths.min() < depths.max() - 3
    cat = TREES["categorical"][0]
    assert any(cat.categories_left(k) is not None for k in range(cat.node_count))
    # categorical splits sending code 0 (an absent entry) each way
    sends = [0 in cat.categories_left(k) for k in range(cat.node_count)
             if cat.categories_left(k) is not None]
    assert set(sends) == {True, False}


@pytest.mark.filterwarnings("ignore::scipy.sparse.SparseEfficiencyWarning")  # dia
@pytest.mark.parametrize("name", sorted(TREES))
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "bsr", "dia",
                                 "csr_array", "coo_array", "csc_array"])
def test_every_sparse_format_reaches_the_dense_leaves(name, fmt):
    tree, X = TREES[name]
    for D in (X, _new_rows(name)):
        if fmt.endswith("_array"):
            S = getattr(sp, fmt)(D)
        else:
            S = sp.csr_matrix(D).asformat(fmt)
        _same(tree, S, D)


def _csr(D, index_dtype, indptr_dtype=None):
    S = sp.csr_matrix(D)
    S.indices = S.indices.astype(index_dtype)
    S.indptr = S.indptr.astype(indptr_dtype or index_dtype)
    assert S.indices.dtype == index_dtype and S.has_canonical_format
    return S


@pytest.mark.parametrize("name", ["classifier", "categorical", "forest-0"])
@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.int64, np.int64),
                                    (np.int32, np.int64), (np.int64, np.int32)])
def test_int32_and_int64_indices(name, dtypes):
    tree, _ = TREES[name]
    D = _new_rows(name)
    _same(tree, _csr(D, *dtypes), D)
    # the kernels themselves, on those arrays as they are
    S = _csr(D, *dtypes)
    flat = _tree.flatten(tree.nodes, tree.left_codes)
    np.testing.assert_array_equal(_tree.apply_flat_sparse(flat[0], flat[1], S, flat[2]),
                                  _tree.apply_flat(flat[0], flat[1], D, flat[2]))
    path = _tree.decision_path_sparse(tree.nodes, S, tree.left_codes)
    assert (path != _tree.decision_path_dense(tree.nodes, D, tree.left_codes)).nnz == 0


@pytest.mark.parametrize("name", ["regressor", "categorical"])
def test_stored_zeros_and_nan(name):
    """An explicitly stored 0.0 (or -0.0) reads as an absent entry; a stored NaN is
    a missing value."""
    tree, _ = TREES[name]
    D = _new_rows(name)
    rng = np.random.default_rng(1)
    S = sp.csr_matrix(D)
    S.data[rng.random(S.nnz) < 0.3] = 0.0
    S.data[rng.random(S.nnz) < 0.1] = -0.0
    S.data[rng.random(S.nnz) < 0.1] = np.nan
    assert (S.data == 0).any() and np.isnan(S.data).any()
    _same(tree, S, S.toarray())
    # every column stored in every row, zeros included
    dense_stored = sp.csr_matrix(np.ones_like(D))
    dense_stored.data = D.ravel().copy()
    assert dense_stored.nnz == D.size
    _same(tree, dense_stored, D)


@pytest.mark.parametrize("name", ["classifier", "categorical", "forest-1"])
def test_duplicates_are_summed_and_the_callers_matrix_kept(name):
    """Duplicate entries count as their sum, as scipy's toarray counts them; unsorted,
    duplicated CSR input is sorted and summed in a copy, never in place."""
    tree, _ = TREES[name]
    D = _new_rows(name)
    rng = np.random.default_rng(2)
    C = sp.coo_matrix(D)
    extra = rng.random(C.nnz) < 0.3
    rows = np.concatenate([C.row, C.row[extra], C.row[extra]])
    cols = np.concatenate([C.col, C.col[extra], C.col[extra]])
    vals = np.concatenate([C.data, rng.normal(size=extra.sum()),
                           rng.choice([1.0, -1.0, np.nan], extra.sum())])
    # also duplicates of entries the dense form lacks, summing to anything
    rows = np.concatenate([rows, [0, 0, 5, 5, 5]])
    cols = np.concatenate([cols, [2, 2, 7, 7, 9]])
    vals = np.concatenate([vals, [1.5, -1.5, 2.0, 3.0, -4.0]])
    order = rng.permutation(len(rows))
    coo = sp.coo_matrix((vals[order], (rows[order], cols[order])), shape=D.shape)
    summed = coo.toarray()
    _same(tree, coo, summed)
    # a CSR of unsorted, duplicated indices: the entries grouped by row, kept in the
    # shuffled order within each
    rows, cols, vals = rows[order], cols[order], vals[order]
    by_row = np.argsort(rows, kind="stable")
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=D.shape[0]))]
    csr = sp.csr_matrix((vals[by_row], cols[by_row], indptr), shape=D.shape)
    assert not csr.has_canonical_format
    before = (csr.data.copy(), csr.indices.copy(), csr.indptr.copy())
    np.testing.assert_array_equal(csr.toarray(), summed)
    _same(tree, csr, summed)
    np.testing.assert_array_equal(csr.data, before[0])
    np.testing.assert_array_equal(csr.indices, before[1])
    np.testing.assert_array_equal(csr.indptr, before[2])


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, bool,
                                   np.float32])
def test_integer_bool_and_float32_values(dtype):
    """Sparse values of any real dtype are read as float64, as dense ones are."""
    tree, _ = TREES["classifier"]
    D = np.nan_to_num(_new_rows("classifier"), nan=2.0).astype(dtype)
    S = sp.csr_matrix(D)
    assert S.dtype == dtype
    _same(tree, S, D)
    _same(tree, sp.coo_array(D), D.astype(np.float64))
    assert S.dtype == dtype


def test_empty_rows_and_no_rows():
    tree, X = TREES["categorical"]
    empty = sp.csr_matrix((5, N_FEATURES))
    _same(tree, empty, np.zeros((5, N_FEATURES)))
    for S in (sp.csr_matrix((0, N_FEATURES)), sp.csc_array((0, N_FEATURES)),
              sp.coo_matrix((0, N_FEATURES))):
        leaves = tree.apply(S)
        assert leaves.shape == (0,) and leaves.dtype == np.int64
        path = tree.decision_path(S)
        assert path.shape == (0, tree.node_count) and path.nnz == 0
        assert tree.predict(S).shape == (0,) + tree.value.shape[1:]


def test_sparse_input_is_never_made_dense(monkeypatch):
    """Neither the conversion nor the kernels call toarray / todense."""
    tree, _ = TREES["categorical"]
    D = _new_rows("categorical")
    formats = [sp.csr_matrix(D), sp.csc_matrix(D), sp.coo_array(D), sp.lil_matrix(D)]
    expected = tree.apply(D), tree.decision_path(D)

    def refuse(self, *args, **kwargs):
        raise AssertionError("sparse X made dense")

    for cls in {type(S) for S in formats} | {sp.csr_matrix, sp.csr_array}:
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    for S in formats:
        np.testing.assert_array_equal(tree.apply(S), expected[0])
        assert (tree.decision_path(S) != expected[1]).nnz == 0


def test_wrong_shapes_and_dtypes_are_refused():
    tree, X = TREES["classifier"]
    for S in (sp.csr_matrix(X[:, :-1]), sp.coo_array(np.zeros((3, N_FEATURES + 1)))):
        with pytest.raises(ValueError, match=f"X has {S.shape[1]} features, but the "
                                             f"tree was grown on {N_FEATURES}"):
            tree.apply(S)
        with pytest.raises(ValueError, match="features, but the tree was grown on"):
            tree.decision_path(S)
    one_d = sp.coo_array(np.ones(N_FEATURES))
    if one_d.ndim == 1:          # (scipy before 1.13 makes every sparse array 2-D)
        with pytest.raises(ValueError, match="2-D"):
            tree.apply(one_d)
    with pytest.raises(TypeError, match="real numbers"):
        tree.apply(sp.csr_matrix(np.ones((2, N_FEATURES), dtype=complex)))


def test_kernels_refuse_what_they_cannot_read():
    """The sparse kernels take only canonical float64 CSR with a consistent indptr."""
    tree, X = TREES["classifier"]
    flat = _tree.flatten(tree.nodes, tree.left_codes)
    S = sp.csr_matrix(np.nan_to_num(X))
    for bad in (sp.csc_matrix(S), S.astype(np.float32)):
        with pytest.raises(ValueError):
            _tree.apply_flat_sparse(flat[0], flat[1], bad)
        with pytest.raises(ValueError):
            _tree.decision_path_sparse(tree.nodes, bad)
    unsorted = sp.csr_matrix((np.array([1.0, 2.0]), np.array([3, 1]), np.array([0, 2])),
                             shape=(1, N_FEATURES))
    with pytest.raises(ValueError, match="sorted"):
        _tree.apply_flat_sparse(flat[0], flat[1], unsorted)
    broken = S.copy()
    broken.indptr = broken.indptr.copy()
    broken.indptr[3] = broken.nnz + 10
    with pytest.raises(ValueError, match="indptr"):
        _tree.apply_flat_sparse(flat[0], flat[1], broken)
    with pytest.raises(ValueError, match="indptr"):
        _tree.decision_path_sparse(tree.nodes, broken)


def test_many_features_and_long_rows():
    """Rows storing many columns (long binary searches), features far apart."""
    rng = np.random.default_rng(5)
    n, d = 300, 600
    D = np.where(rng.random((n, d)) < 0.3, rng.normal(size=(n, d)), 0.0)
    D[rng.random((n, d)) < 0.01] = np.nan
    y = D[:, 0] + np.nan_to_num(D[:, 599]) - np.nan_to_num(D[:, 300]) > 0
    tree = DecisionTreeClassifier(random_state=0, max_features=50).fit(D, y).tree_
    assert tree.node_count > 21
    E = np.where(rng.random((n, d)) < 0.9, rng.normal(size=(n, d)), 0.0)
    for M in (D, E):
        _same(tree, sp.csr_matrix(M), M)
        _same(tree, _csr(M, np.int64), M)
