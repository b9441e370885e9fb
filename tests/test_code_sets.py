"""Splits on sets of codes wider than 256 codes: ``Tree.left_codes`` holds one row of W
64-bit words per categorical split (in node order).  Trees built by hand with rows of
40 words (codes up to 2559) are read by every consumer of the sets (apply, predict and
decision_path on dense and sparse rows, explain, partial dependence, ONNX, pruning)
and checked against plain-Python walks of the sets they were built from; trees in the
former layout (a 256-bit row per node) load as the new one."""
import math
import pickle
from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp

from rotforest import (DecisionTreeClassifier, DecisionTreeRegressor,
                       RandomForestRegressor, explain)
from rotforest import _tree
from rotforest._tree import NODE_DTYPE, Tree
from rotforest.pruning import (cost_complexity_path, prune_cost_complexity,
                               prune_reduced_error)

WORDS = 40                      # codes 0 .. 2559
N_FEATURES = 3                  # 0 and 2: categorical, 1: numeric


# ------------------------------------------------------------------------------ trees
class _Spec:
    """A tree built by hand, with what it was built from: every node's feature, its
    threshold (None for a set), its set of codes going left and its missing side."""

    def __init__(self, seed, words=WORDS, depth=6, code_limit=None):
        rng = np.random.default_rng(seed)
        self.words = words
        n_codes = 64 * words
        limit = n_codes if code_limit is None else code_limit
        records, self.sets, rows = [], {}, []

        def grow(d):
            node = len(records)
            records.append(None)
            if d == depth or (d > 2 and rng.random() < 0.25):
                records[node] = dict(leaf=True, weight=float(rng.integers(1, 30)),
                                     impurity=float(rng.random()),
                                     value=float(rng.normal()))
                return node
            feature = int(rng.integers(N_FEATURES))
            missing_left = bool(rng.random() < 0.5)
            record = dict(leaf=False, feature=feature, missing_left=missing_left)
            records[node] = record
            if feature == 1:
                record["threshold"] = float(np.round(rng.normal(), 2))
            else:
                # a set of codes: random, or (now and then) empty or full; codes of
                # the limit and above go where missing values go
                draw = rng.random()
                p = 0.0 if draw < 0.08 else 1.0 if draw < 0.16 else rng.uniform(0.05, 0.95)
                bits = rng.random(n_codes) < p
                bits[limit:] = missing_left
                self.sets[node] = set(np.flatnonzero(bits).tolist())
                rows.append(np.packbits(bits, bitorder="little").view("<u8"))
                record["threshold"] = None
            record["left"] = grow(d + 1)
            record["right"] = grow(d + 1)
            return node

        grow(0)
        n = len(records)
        nodes = np.zeros(n, dtype=NODE_DTYPE)
        value = np.zeros((n, 1, 1))
        depth_of = np.zeros(n, dtype=np.int64)
        for node in range(n - 1, -1, -1):          # children before their parent
            r = records[node]
            if r["leaf"]:
                nodes[node] = (-1, -1, -2, -2.0, r["impurity"], int(r["weight"]),
                               r["weight"], 0)
                value[node] = r["value"]
                continue
            a, b = r["left"], r["right"]
            w = nodes["weighted_n_node_samples"][[a, b]]
            imp = nodes["impurity"][[a, b]]
            weight = float(w.sum())
            impurity = float((w * imp).sum() / weight + rng.uniform(0.01, 0.3))
            threshold = np.nan if r["threshold"] is None else r["threshold"]
            nodes[node] = (a, b, r["feature"], threshold, impurity, int(weight), weight,
                           int(r["missing_left"]))
            value[node] = (w[0] * value[a] + w[1] * value[b]) / weight
        for node in range(n):                       # parents before their children
            if not records[node]["leaf"]:
                depth_of[records[node]["left"]] = depth_of[node] + 1
                depth_of[records[node]["right"]] = depth_of[node] + 1
        self.records = records
        self.codes = np.array(rows, dtype=np.uint64).reshape(-1, words)
        self.tree = Tree(N_FEATURES, 1, nodes, value, int(depth_of.max()), self.codes)

    def goes_left(self, node, x):
        """The node's test on value x, from what it was built from."""
        r = self.records[node]
        if r["threshold"] is not None:
            return r["missing_left"] if math.isnan(x) else x <= r["threshold"]
        if not (0 <= x < 64 * self.words) or x != math.floor(x):
            return r["missing_left"]            # NaN, negative, fractional, too large
        return int(x) in self.sets[node]

    def path(self, row):
        node, out = 0, [0]
        while not self.records[node]["leaf"]:
            r = self.records[node]
            node = r["left"] if self.goes_left(node, row[r["feature"]]) else r["right"]
            out.append(node)
        return out


def _special(words, infinite=True):
    """Codes at the edges of rows of ``words`` words, and values that are no code
    (infinite ones only where the rows do not go through an estimator, which refuses
    them)."""
    n = 64 * words
    return [n, n - 1, n - 64, n + 0.5, n + 1, 1e9, 2.0 ** 63, 2.0 ** 64, 1e300, -1.0,
            -0.5, -0.0, 0.0, 2.5, 254.0, 255.0, 256.0, 63.0, 64.0, np.nan
            ] + ([np.inf, -np.inf] if infinite else [])


def _rows(seed, n=400, words=WORDS, infinite=True):
    """Rows of codes of the whole range, values that are no code, and zeros."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, N_FEATURES))
    special = np.array(_special(words, infinite))
    for j in (0, 2):
        X[:, j] = rng.integers(0, 64 * words, n)
        odd = rng.random(n) < 0.3
        X[odd, j] = rng.choice(special, odd.sum())
    X[:, 1] = np.round(rng.normal(size=n), 2)
    X[rng.random(n) < 0.1, 1] = np.nan
    X[rng.random(X.shape) < 0.2] = 0.0          # absent entries of a sparse matrix
    return X


SPECS = [_Spec(seed) for seed in range(4)]


def test_the_trees_are_wide():
    for spec in SPECS:
        tree = spec.tree
        assert tree.code_words == WORDS and tree.left_codes.shape == (len(spec.sets), WORDS)
        assert tree.left_codes.dtype == np.uint64 and tree.left_codes.flags.c_contiguous
        assert 0 < len(spec.sets) < tree.node_count
        expected = np.full(tree.node_count, -1)
        expected[sorted(spec.sets)] = np.arange(len(spec.sets))
        np.testing.assert_array_equal(tree.code_row, expected)
        for node in range(tree.node_count):
            got = tree.categories_left(node)
            if node in spec.sets:
                assert got.tolist() == sorted(spec.sets[node])
            else:
                assert got is None
    largest = max(max(s) for spec in SPECS for s in spec.sets.values() if s)
    assert largest > 2500


# ------------------------------------------------------------------ apply, decision_path
def _check_reading(spec, X):
    tree = spec.tree
    paths = [spec.path(row) for row in X]
    leaves = np.array([p[-1] for p in paths])
    values = tree.value[leaves]
    S = sp.csr_matrix(X)
    assert S.nnz < X.size
    for rows in (X, S, np.asfortranarray(X), np.hstack([X, X])[:, :N_FEATURES]):
        np.testing.assert_array_equal(tree.apply(rows), leaves)
        np.testing.assert_array_equal(tree.predict(rows), values)
        indicator = tree.decision_path(rows).toarray()
        expected = np.zeros((X.shape[0], tree.node_count), dtype=indicator.dtype)
        for i, p in enumerate(paths):
            expected[i, p] = 1
        np.testing.assert_array_equal(indicator, expected)


@pytest.mark.parametrize("index", range(len(SPECS)))
def test_dense_and_sparse_rows_against_a_plain_walk(index):
    spec = SPECS[index]
    _check_reading(spec, _rows(index))
    # every special value in every categorical column, alone
    special = np.array(_special(WORDS))
    X = np.zeros((special.size * 2, N_FEATURES))
    X[:special.size, 0] = special
    X[special.size:, 2] = special
    X[:, 1] = 0.05
    _check_reading(spec, X)


def test_flat_table_and_kernels():
    spec = SPECS[0]
    tree = spec.tree
    flat, original, table = _tree.flatten(tree.nodes, tree.left_codes)
    assert table.dtype == np.uint64 and table.ndim == 1
    np.testing.assert_array_equal(table, tree.code_sets)
    # a categorical node's flat threshold is the start of its set in the table
    categorical = (flat["feature"] & 0x40000000) != 0
    assert categorical.sum() == tree.left_codes.shape[0]
    starts = flat["threshold"][categorical].astype(np.int64)
    np.testing.assert_array_equal(starts, tree.code_at[original[categorical]])
    for start, node in zip(starts, original[categorical]):
        np.testing.assert_array_equal(
            _tree.dense_set(table, start, tree.missing_go_to_left[node] != 0, WORDS),
            tree.left_codes[tree.code_row[node]])
    X = _rows(9)
    expected = np.array([spec.path(r)[-1] for r in X])
    np.testing.assert_array_equal(_tree.apply_flat(flat, original, X, table), expected)
    np.testing.assert_array_equal(
        _tree.apply_flat_sparse(flat, original, sp.csr_matrix(X), table), expected)
    dense = _tree.decision_path_dense(tree.nodes, X, tree.left_codes)
    sparse = _tree.decision_path_sparse(tree.nodes, sp.csr_matrix(X), tree.left_codes)
    assert (dense != sparse).nnz == 0
    np.testing.assert_array_equal(dense.indices[dense.indptr[1:] - 1], expected)


def test_one_word():
    """The narrowest rows: codes 0 .. 63, 64 and above go the missing way."""
    spec = _Spec(11, words=1)
    assert spec.tree.code_words == 1
    _check_reading(spec, _rows(11, words=1))
    _check_reading(spec, _rows(12))             # codes far past the rows


def test_corrupt_code_sets_are_refused():
    spec = SPECS[1]
    t = spec.tree
    args = (N_FEATURES, 1, t.nodes, t.value, t.max_depth)
    n_sets = t.left_codes.shape[0]
    for bad in (None, t.left_codes[:-1], np.zeros((n_sets + 1, WORDS)),
                np.zeros((n_sets, 0)), t.left_codes.reshape(-1),
                np.zeros((t.node_count, 5)), np.zeros((t.node_count, WORDS))):
        with pytest.raises(ValueError, match="corrupt tree"):
            Tree(*args, bad)
        if bad is not None and bad.ndim == 2:
            with pytest.raises(ValueError, match="corrupt tree"):
                _tree.flatten(t.nodes, bad)
            with pytest.raises(ValueError, match="corrupt tree"):
                _tree.decision_path_dense(t.nodes, np.zeros((1, N_FEATURES)), bad)
    # a tree without categorical splits: no rows, None
    leaf = np.zeros(1, dtype=NODE_DTYPE)
    leaf[0] = (-1, -1, -2, -2.0, 0.0, 1, 1.0, 0)
    for codes in (None, np.zeros((0, 3)), np.zeros((1, 4))):
        one = Tree(N_FEATURES, 1, leaf, np.zeros((1, 1, 1)), 0, codes)
        assert one.left_codes is None and one.code_row is None and one.code_words == 0
        assert one.categories_left(0) is None
        np.testing.assert_array_equal(one.apply(np.zeros((2, N_FEATURES))), [0, 0])


# ----------------------------------------------------------------------- former layout
def _former(spec, seed):
    """The spec's tree in the former layout: a row of 4 words per node, zeros for the
    nodes without a set, code 255 (which went where missing values go) random."""
    rng = np.random.default_rng(seed)
    tree = spec.tree
    old = np.zeros((tree.node_count, 4), dtype=np.uint64)
    for node in spec.sets:
        row = tree.left_codes[tree.code_row[node]].copy()
        if rng.random() < 0.5:
            row[3] ^= np.uint64(1) << np.uint64(63)
        old[node] = row
    return old


class _PickledBefore:
    """Unpickles as a Tree pickled before the sets could be wider."""

    def __init__(self, tree, old):
        self.args = (tree.n_features, int(tree.n_classes[0]), tree.nodes, tree.value,
                     tree.max_depth, old)

    def __reduce__(self):
        return Tree, self.args


def test_former_layout_loads_as_the_compact_one():
    spec = _Spec(5, words=4, code_limit=255)    # the former codes: 0 .. 254
    tree = spec.tree
    old = _former(spec, 0)
    assert np.any(old[sorted(spec.sets), 3] >> np.uint64(63)
                  != tree.missing_go_to_left[sorted(spec.sets)])
    loaded = pickle.loads(pickle.dumps(_PickledBefore(tree, old)))
    assert isinstance(loaded, Tree) and loaded.code_words == 4
    np.testing.assert_array_equal(loaded.left_codes, tree.left_codes)
    np.testing.assert_array_equal(loaded.code_row, tree.code_row)
    X = _rows(5, words=4)
    expected = np.array([spec.path(r)[-1] for r in X])
    for t in (loaded, Tree(N_FEATURES, 1, tree.nodes, tree.value, tree.max_depth, old)):
        np.testing.assert_array_equal(t.apply(X), expected)
        np.testing.assert_array_equal(t.apply(sp.csr_matrix(X)), expected)
        assert (t.decision_path(X) != tree.decision_path(X)).nnz == 0
    # code 255 went where missing values go, and still does
    X = np.array([[255.0, 0.0, 255.0], [np.nan, 0.0, np.nan]])
    np.testing.assert_array_equal(loaded.apply(X[:1]), loaded.apply(X[1:]))
    # pickled again: the compact layout
    again = pickle.loads(pickle.dumps(loaded))
    assert again.left_codes.shape == (len(spec.sets), 4)
    np.testing.assert_array_equal(again.left_codes, loaded.left_codes)
    assert "_flat" not in pickle.loads(pickle.dumps(loaded)).__dict__


def test_wide_tree_pickles():
    tree = SPECS[2].tree
    X = _rows(3)
    tree.apply(X)                               # (caches the flat layout)
    again = pickle.loads(pickle.dumps(tree))
    # pickled as code_sets: a header and WORDS words a set (these are bitsets)
    assert again.__reduce__()[1][5].shape == (len(SPECS[2].sets) * (WORDS + 1),)
    np.testing.assert_array_equal(again.left_codes, tree.left_codes)
    np.testing.assert_array_equal(again.apply(X), tree.apply(X))


def test_fitted_trees_store_one_row_per_set():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 200, 3000), rng.normal(size=3000)])
    y = (np.isin(X[:, 0], np.arange(0, 200, 3)) ^ (X[:, 1] > 1)).astype(int)
    est = DecisionTreeClassifier(categorical_features=[0], max_depth=6,
                                 random_state=0).fit(X, y)
    t = est.tree_
    sets = np.flatnonzero((t.children_left != -1) & np.isnan(t.threshold))
    assert sets.size and t.left_codes.shape[0] == sets.size
    np.testing.assert_array_equal(t.code_row[sets], np.arange(sets.size))
    for node in sets:
        left = t.categories_left(node)
        goes = np.isin(X[:, 0], left)
        assert np.all(left < 64 * t.code_words)
        assert goes[t.decision_path(X)[:, node].toarray().ravel() != 0].sum() == \
            t.n_node_samples[t.children_left[node]]


# ------------------------------------------------------------------------------ pruning
def _pairs(pruned, tree):
    """(new, old) node pairs of a pruned tree and the tree it was pruned from, walked
    side by side from the roots."""
    out, stack = [], [(0, 0)]
    while stack:
        new, old = stack.pop()
        out.append((new, old))
        if pruned.children_left[new] != -1:
            stack.append((pruned.children_left[new], tree.children_left[old]))
            stack.append((pruned.children_right[new], tree.children_right[old]))
    return out


def _check_pruned(pruned, spec):
    tree = spec.tree
    assert 1 < pruned.n_leaves < tree.n_leaves
    kept = [(new, old) for new, old in _pairs(pruned, tree)
            if pruned.children_left[new] != -1 and old in spec.sets]
    assert kept, "no set kept: choose another tree"
    n_sets = np.count_nonzero((pruned.children_left != -1) & np.isnan(pruned.threshold))
    assert pruned.left_codes.shape == (n_sets, WORDS) and n_sets == len(kept)
    for new, old in _pairs(pruned, tree):
        if pruned.children_left[new] == -1:
            assert pruned.categories_left(new) is None
            continue
        assert pruned.feature[new] == tree.feature[old]
        assert pruned.missing_go_to_left[new] == tree.missing_go_to_left[old]
        if old in spec.sets:
            assert pruned.categories_left(new).tolist() == sorted(spec.sets[old])
    # the pruned tree routes rows as the tree does down to its leaves
    X = _rows(21)
    mapping = dict(_pairs(pruned, tree))
    leaves = pruned.apply(X)
    paths = tree.decision_path(X).toarray()
    assert np.all(paths[np.arange(X.shape[0]), [mapping[k] for k in leaves]] == 1)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(pruned)).apply(X), leaves)


def test_cost_complexity_pruning_keeps_the_rows():
    spec = SPECS[3]
    alphas, _ = cost_complexity_path(spec.tree)
    pruned = prune_cost_complexity(spec.tree, float(alphas[len(alphas) // 3]))
    _check_pruned(pruned, spec)


def test_reduced_error_pruning_keeps_the_rows():
    spec = SPECS[3]
    X = _rows(8, n=300)
    rng = np.random.default_rng(8)
    y = spec.tree.predict(X)[:, 0, 0] + 0.8 * rng.normal(size=X.shape[0])
    pruned = prune_reduced_error(spec.tree, X, y, np.ones(X.shape[0]), regression=True)
    _check_pruned(pruned, spec)


# ------------------------------------------------------------- estimators holding them
def _estimator(tree):
    """A fitted regressor of N_FEATURES features (0 and 2 categorical) holding ``tree``."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 5, 60), rng.normal(size=60),
                         rng.integers(0, 5, 60)]).astype(float)
    est = DecisionTreeRegressor(categorical_features=[0, 2], max_depth=2,
                                random_state=0).fit(X, rng.normal(size=60))
    est.tree_ = tree
    return est


def _shapley(game, n_features):
    phi = np.zeros(n_features)
    for i in range(n_features):
        others = [j for j in range(n_features) if j != i]
        for size in range(n_features):
            weight = (math.factorial(size) * math.factorial(n_features - size - 1)
                      / math.factorial(n_features))
            for S in combinations(others, size):
                phi[i] += weight * (game(set(S) | {i}) - game(set(S)))
    return phi


def _path_game(spec, x):
    """The path-dependent game of the spec's tree at row x: a node whose feature is in S
    follows x, the others average their children by training weight."""
    tree = spec.tree
    w = tree.weighted_n_node_samples

    def walk(node, S):
        r = spec.records[node]
        if r["leaf"]:
            return tree.value[node, 0, 0]
        a, b = r["left"], r["right"]
        if r["feature"] in S:
            return walk(a if spec.goes_left(node, x[r["feature"]]) else b, S)
        return (w[a] * walk(a, S) + w[b] * walk(b, S)) / w[node]
    return lambda S: walk(0, S)


@pytest.mark.parametrize("index", [0, 1])
def test_explain_against_coalitions(index):
    spec = SPECS[index]
    est = _estimator(spec.tree)
    X = _rows(30 + index, n=14, infinite=False)
    got = explain(est, X)
    for row, phi in zip(X, got.values):
        np.testing.assert_allclose(phi, _shapley(_path_game(spec, row), N_FEATURES),
                                   rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got.values.sum(axis=1) + got.base_values, est.predict(X),
                               rtol=1e-9, atol=1e-9)
    # interventional: the game through the tree's own walk of mixed rows
    background = _rows(40 + index, n=9, infinite=False)
    got = explain(est, X[:6], background=background)
    for row, phi in zip(X[:6], got.values):
        def game(S, row=row):
            mixed = background.copy()
            mixed[:, sorted(S)] = row[sorted(S)]
            return np.mean([spec.tree.value[spec.path(m)[-1], 0, 0] for m in mixed])
        np.testing.assert_allclose(phi, _shapley(game, N_FEATURES), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("features", [[0], [2], [0, 1], [2, 0]])
def test_partial_dependence_against_a_plain_traversal(features):
    spec = SPECS[1]
    est = _estimator(spec.tree)
    tree = spec.tree
    w = tree.weighted_n_node_samples
    codes = np.concatenate([np.arange(0, 64 * WORDS, 97.0), _special(WORDS, False)])
    columns = {0: codes, 2: codes[::-1], 1: np.array([-1.0, 0.0, 0.3, np.nan])}
    n = max(columns[f].size for f in features)
    grid = np.column_stack([np.resize(columns[f], n) for f in features])

    def reference(point):
        def walk(node, weight):
            r = spec.records[node]
            if r["leaf"]:
                return weight * tree.value[node, 0, 0]
            a, b = r["left"], r["right"]
            if r["feature"] in features:
                x = point[features.index(r["feature"])]
                return walk(a if spec.goes_left(node, x) else b, weight)
            return walk(a, weight * w[a] / w[node]) + walk(b, weight * w[b] / w[node])
        return walk(0, 1.0)

    ours = est._compute_partial_dependence_recursion(grid, np.array(features))
    np.testing.assert_allclose(ours, [reference(p) for p in grid], rtol=1e-12,
                               atol=1e-12)


def test_forest_of_hand_built_trees_predicts_their_mean():
    est, specs = _forest()
    X = _rows(50, infinite=False)
    expected = np.mean([[s.tree.value[s.path(r)[-1], 0, 0] for r in X] for s in specs],
                       axis=0)
    np.testing.assert_allclose(est.predict(X), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.predict(sp.csr_matrix(X)), expected, rtol=1e-12,
                               atol=1e-12)


def _forest():
    """A forest of two hand-built trees of different widths: 40 words, and 2 (the codes
    from 128 up go where a node's missing values go in the second)."""
    specs = [SPECS[0], _Spec(7, words=2)]
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 5, 60), rng.normal(size=60),
                         rng.integers(0, 5, 60)]).astype(float)
    est = RandomForestRegressor(n_estimators=2, categorical_features=[0, 2], max_depth=2,
                                random_state=0).fit(X, rng.normal(size=60))
    for member, spec in zip(est.estimators_, specs):
        member.tree_ = spec.tree
    return est, specs


# ---------------------------------------------------------------------------------- ONNX
def _onnx_predict(est, X):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from rotforest import onnx as rf_onnx
    model = rf_onnx.to_onnx(est)
    ensemble = [n for n in model.graph.node if n.op_type == "TreeEnsemble"][0]
    attrs = {a.name: a for a in ensemble.attribute}
    from onnx import numpy_helper
    members = numpy_helper.to_array(attrs["membership_values"].t)
    assert np.nanmax(members) > 254
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {session.get_inputs()[0].name:
                                np.ascontiguousarray(X, dtype=np.float64)})
    return out[:, 0]


@pytest.mark.parametrize("index", range(len(SPECS)))
def test_onnx_of_a_wide_tree(index):
    est = _estimator(SPECS[index].tree)
    special = np.array(_special(WORDS, False))
    X = np.vstack([_rows(60 + index, infinite=False), np.column_stack(
        [special, np.full(special.size, 0.05), special[::-1]])])
    np.testing.assert_allclose(_onnx_predict(est, X), est.predict(X), rtol=0, atol=1e-9)


def test_onnx_of_trees_of_different_widths():
    est, _ = _forest()
    X = _rows(70, n=600, infinite=False)
    np.testing.assert_allclose(_onnx_predict(est, X), est.predict(X), rtol=0, atol=1e-9)


# -------------------------------------------------------------------------------- export
@pytest.mark.parametrize("words, n_names", [(WORDS, None), (1, 100), (1, 20)])
def test_export_lists_the_shorter_side(words, n_names):
    """export_text's sets: the codes (or named categories) each side gets, the shorter
    listed; a category past the rows goes where missing values go."""
    from rotforest.export import _category_sides, export_text
    spec = SPECS[0] if words == WORDS else _Spec(13, words=1)
    tree = spec.tree
    names = None if n_names is None else [f"c{k}" for k in range(n_names)]
    n = 64 * words if names is None else n_names
    for node in spec.sets:
        left = {c for c in range(n) if spec.goes_left(node, float(c))}
        right = set(range(n)) - left
        (op_left, shown_left), (op_right, shown_right) = _category_sides(tree, node, names)
        assert shown_left == shown_right and {op_left, op_right} == {"in", "not in"}
        listed = shown_left[1:-1].split(", ") if shown_left != "{}" else []
        label = (lambda c: str(c)) if names is None else (lambda c: names[c])
        side = left if op_left == "in" else right
        assert sorted(listed) == sorted(label(c) for c in side)
        assert len(side) <= n - len(side)
    text = export_text(_estimator(tree), max_depth=20)
    assert text.count(" in {") == 2 * len(spec.sets)


# ------------------------------------------------------------------ lists of codes
def _as_lists(spec):
    """The spec's sets as code_sets rows of the list kind: each set's codes that go
    the side its missing values do not go to (every code below 64 W)."""
    tree = spec.tree
    parts = []
    for node in np.flatnonzero(tree.code_at >= 0) if tree.code_sets is not None else []:
        ml = bool(tree.missing_go_to_left[node])
        left = np.zeros(64 * spec.words, dtype=bool)
        left[sorted(spec.sets[node])] = True
        other = np.flatnonzero(left != ml).astype(np.uint32)
        words = np.zeros((other.size + 1) // 2 * 2, dtype=np.uint32)
        words[:other.size] = other
        parts.append(np.concatenate([[np.uint64((other.size << 2) | 1)],
                                     words.view(np.uint64)]))
    return np.concatenate(parts).astype(np.uint64)


@pytest.mark.parametrize("index", range(len(SPECS)))
def test_sets_as_lists_route_as_bitsets(index):
    """A set kept as the list of the codes that do not follow the missing values (the
    form fitted trees take where it is shorter) routes every value as its bitset does,
    in every reader."""
    spec = SPECS[index]
    listed = Tree(N_FEATURES, 1, spec.tree.nodes, spec.tree.value, spec.tree.max_depth,
                  _as_lists(spec))
    X = _rows(40 + index)
    np.testing.assert_array_equal(listed.apply(X), spec.tree.apply(X))
    np.testing.assert_array_equal(listed.apply(sp.csr_matrix(X)), spec.tree.apply(X))
    assert (listed.decision_path(X) != spec.tree.decision_path(X)).nnz == 0
    np.testing.assert_array_equal(listed.left_codes, spec.tree.left_codes)
    for node in spec.sets:
        np.testing.assert_array_equal(listed.categories_left(node),
                                      spec.tree.categories_left(node))
    again = pickle.loads(pickle.dumps(listed))
    np.testing.assert_array_equal(again.code_sets, listed.code_sets)
    np.testing.assert_array_equal(again.apply(X), spec.tree.apply(X))


def test_corrupt_lists_are_refused():
    spec = SPECS[0]
    t = spec.tree
    args = (N_FEATURES, 1, t.nodes, t.value, t.max_depth)
    good = _as_lists(spec)
    Tree(*args, good)
    first = int(good[0] >> np.uint64(2))
    bad_order = good.copy()
    if first >= 2:
        codes = bad_order[1:1 + (first + 1) // 2].view(np.uint32)
        codes[[0, 1]] = codes[[1, 0]]
        with pytest.raises(ValueError, match="corrupt tree"):
            Tree(*args, bad_order)
    big = good.copy()
    big[1:1 + (first + 1) // 2].view(np.uint32)[first - 1] = 1 << 24
    for bad in (big, good[:-1], np.concatenate([good, [np.uint64(0)]]),
                np.concatenate([[np.uint64(3)], good[1:]])):
        with pytest.raises(ValueError, match="corrupt tree"):
            Tree(*args, bad)


def test_fitted_trees_keep_the_shorter_form():
    """A tree fitted on 2,000 levels keeps wide bitsets near the root and short lists
    in deep nodes; both route its training samples."""
    rng = np.random.default_rng(8)
    codes = rng.integers(0, 2000, 30000)
    effect = rng.normal(size=2000)
    X = np.column_stack([codes, rng.normal(size=30000)]).astype(float)
    y = (effect[codes] + X[:, 1] > 0).astype(int)
    tree = DecisionTreeClassifier(categorical_features=[0], min_category_samples=1,
                                  random_state=0).fit(X, y)
    t = tree.tree_
    heads = t.code_sets[t.code_at[t.code_at >= 0]]
    kinds = heads & np.uint64(3)
    assert np.any(kinds == 0) and np.any(kinds == 1)
    dense_words = np.count_nonzero(t.code_at >= 0) * (t.code_words + 1)
    assert t.code_sets.size < dense_words / 3
    assert tree.score(X, y) == 1.0
    # every training sample's leaf from a plain walk of categories_left
    sets = {}
    for row in X[:300]:
        node = 0
        while t.children_left[node] != -1:
            if np.isnan(t.threshold[node]):
                if node not in sets:
                    sets[node] = set(t.categories_left(node).tolist())
                go = row[0] in sets[node]
            else:
                go = row[t.feature[node]] <= t.threshold[node]
            node = t.children_left[node] if go else t.children_right[node]
        assert node == tree.apply(row[None, :])[0]
