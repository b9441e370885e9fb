"""The presort: order by value, ties by sample index, dense ranks."""
import numpy as np
import pytest

from rotforest import _builder


@pytest.mark.parametrize("kind", ["continuous", "few_values", "binary", "signed_zeros",
                                  "tenths", "close", "huge_and_tiny", "offset", "outliers"])
@pytest.mark.parametrize("layout", ["F", "C", "view"])
@pytest.mark.parametrize("method, n", [("auto", 5000), ("auto", 200), ("numpy", 5000), ("radix", 5000),
                                       ("radix", 200), ("numpy", 30), ("auto", 33),
                                       ("numpy", 64), ("radix", 65),
                                       ("auto", 643), ("auto", 5001)])
def test_presort_orders_by_value_then_index(kind, layout, method, n):
    # numpy's sort and the radix sort each give the reference order (auto picks by n)
    rng = np.random.default_rng(0)
    _builder._set_presort_method(method)
    try:
        _check_presort(kind, layout, rng, n)
    finally:
        _builder._set_presort_method("auto")


def _check_presort(kind, layout, rng, n):
    X = {
        "continuous": rng.normal(size=(n, 6)),
        "few_values": np.round(rng.normal(size=(n, 6)) * 3),
        "binary": rng.integers(0, 2, size=(n, 6)).astype(float),
        "signed_zeros": rng.choice([-0.0, 0.0, 1.5, -2.0], size=(n, 6)),
        # ties of values whose low bits are not zero
        "tenths": np.round(rng.normal(size=(n, 6)), 1),
        # distinct values that agree in all but their last bits (the sort keys drop
        # the lowest bits of the values for the sample index), with ties among them
        "close": 1.0 + rng.integers(0, 40, size=(n, 6)) * 2.0 ** -50,
        "huge_and_tiny": rng.choice([-1e300, -5e-324, 0.0, 5e-324, 1e-300, 1e300, np.inf,
                                     -np.inf, 1e300 * (1 + 2.0 ** -52)], size=(n, 6)),
        # the radix sort orders only the top bits of a column's span: values far from
        # zero that differ in their low bits (timestamps), and a span set by outliers,
        # leave runs of keys equal in those bits, ordered from the values
        "offset": 1.7e9 + rng.integers(0, 10 ** 6, size=(n, 6)) + rng.random((n, 6)),
        "outliers": np.where(rng.random((n, 6)) < 0.01, 1e12,
                             np.round(rng.random((n, 6)) * 1e-6, 13)),
    }[kind]
    X = {"F": np.asfortranarray, "C": np.ascontiguousarray,
         "view": lambda a: np.repeat(a[::-1], 2, axis=1)[::-1, ::2]}[layout](X)
    keys = _builder.presort(X)
    assert keys.shape == (6, n + (n + 31) // 32) and keys.dtype == np.uint32
    for j in range(6):
        expected = np.argsort(X[:, j], kind="stable")      # stable: ties by index
        order, ranks_found = _decode(keys[j], n)
        np.testing.assert_array_equal(order, expected)
        ranks = np.unique(X[:, j], return_inverse=True)[1]  # -0.0 and 0.0 are one value
        np.testing.assert_array_equal(ranks_found, ranks[expected])


def _decode(row, n):
    """The sample order and the dense rank at every position of one presorted row."""
    starts = np.unpackbits(row[n:].astype("<u4").view(np.uint8), bitorder="little")[:n]
    return row[:n].astype(np.int64), np.cumsum(starts) - 1


@pytest.mark.parametrize("n", [300, 1001])     # sorted; counted (few values, many rows)
def test_presort_missing_values_last_as_one_value(n):
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(n, 2)), 1)
    X[rng.random(n) < 0.2, 0] = np.nan
    keys = _builder.presort(X)
    order, ranks = _decode(keys[0], n)
    assert np.array_equal(order[~np.isnan(X[order, 0])],
                          np.argsort(X[:, 0], kind="stable")[:np.sum(~np.isnan(X[:, 0]))])
    nan = np.isnan(X[:, 0])
    assert np.all(nan[order[-nan.sum():]]) and not np.any(nan[order[:-nan.sum()]])
    np.testing.assert_array_equal(order[-nan.sum():], np.flatnonzero(nan))  # index order
    assert np.all(ranks[-nan.sum():] == ranks[-1])
    assert ranks[-1] == len(np.unique(X[~nan, 0]))


@pytest.mark.parametrize("n", [640, 641, 3000])
def test_presort_of_few_valued_columns_by_counting(n):
    """Columns of at most 256 distinct values, and at most one per 8 rows, are presorted
    by counting (from 640 rows; the sorts otherwise): 1, 2, 255, 256 and 257 distinct
    values (counted at 3,000 rows but for the last; sorted at 640), arbitrary floats, NaN
    as one value above the rest, -0.0 as 0.0, infinities, values one ulp apart, with the
    order and ranks of the reference; the counting and the forced radix sort give the
    same rows."""
    rng = np.random.default_rng(n)
    pools = [np.array([2.5]), np.array([-1.0, 3.0]), rng.normal(size=255) * 1e3,
             rng.normal(size=256), rng.normal(size=257),
             np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, np.nextafter(1.0, 2.0),
                       -5e-324, 5e-324])]
    X = np.column_stack([rng.choice(pool, n) for pool in pools])
    X[:len(pools[4]), 4] = pools[4]          # every one of the 257 values present
    X[:len(pools[3]), 3] = pools[3]
    keys = _builder.presort(np.asfortranarray(X))
    for j in range(X.shape[1]):
        col = np.where(X[:, j] == 0.0, 0.0, X[:, j])               # -0.0 as 0.0
        expected = np.argsort(col, kind="stable")                  # NaN last, stable
        order, ranks = _decode(keys[j], n)
        np.testing.assert_array_equal(order, expected)
        present = col[~np.isnan(col)]
        dense = np.searchsorted(np.unique(present), col[expected])  # NaN: one past the top
        np.testing.assert_array_equal(ranks, dense)
    _builder._set_presort_method("radix")
    try:
        np.testing.assert_array_equal(_builder.presort(np.asfortranarray(X)), keys)
    finally:
        _builder._set_presort_method("auto")


def test_builder_rejects_keys_of_other_data():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(np.int32)
    keys = _builder.presort(X)
    w = np.ones(100)
    w[keys[1, 6]] = 0.0
    bad = keys.copy()
    bad[1, 6] = bad[1, 5]                 # a sample of this tree twice: one too many
    with pytest.raises(ValueError, match="keys do not belong"):
        _build(X, bad, y, w)
    bad = keys.copy()
    bad[2, 0] = 100                       # out of range
    with pytest.raises(ValueError, match="keys do not belong"):
        _build(X, bad, y, np.ones(100))
    with pytest.raises(ValueError, match="do not agree"):
        _build(X, _builder.presort(X[:99]), y, np.ones(100))
    # a sample twice and another never, with the right count: refused where the ranks
    # are counted (trees that sort in their nodes); not detected by the lists, but every
    # partition stays inside its node's slice (this would corrupt the heap otherwise)
    for method in ["presort", "sort"]:
        previous = _builder._set_node_method(method)
        try:
            for f in range(3):
                bad = keys.copy()
                bad[f, :50] = bad[f, 0]
                if method == "sort":
                    with pytest.raises(ValueError, match="keys do not belong"):
                        _build(X, bad, y, np.ones(100))
                    continue
                nodes = _build(X, bad, y, np.ones(100))[0]
                assert nodes["n_node_samples"][0] == 100
        finally:
            _builder._set_node_method(previous)


def _build(X, keys, y, w, seed=0, max_features=None):
    F = X.shape[1]
    return _builder.build_tree(
        X, keys, y, w, int(y.max()) + 1, criterion=_builder.CRITERIA["gini"],
        random_split=False, max_depth=2**31 - 1, min_samples_split=2, min_samples_leaf=1,
        min_weight_leaf=0.0, max_features=max_features or F, max_leaf_nodes=-1,
        min_impurity_decrease=0.0, seed=seed)


def test_shared_presort_with_bootstrap_weights_equals_separate_fits():
    """The forest's entry point: one presort, many trees that differ by their weights
    (zero: not in this tree)."""
    from rotforest import DecisionTreeClassifier

    rng = np.random.default_rng(1)
    X = np.asfortranarray(np.round(rng.normal(size=(2000, 5)), 1))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(scale=0.5, size=2000) > 0.5).astype(np.int32)
    keys = _builder.presort(X)
    keys.setflags(write=False)
    for seed in range(3):
        counts = np.bincount(rng.integers(0, 2000, 2000), minlength=2000).astype(float)
        nodes, value, depth, _ = _build(X, keys, y, counts)
        ref = DecisionTreeClassifier().fit(X, y, sample_weight=counts).tree_
        np.testing.assert_array_equal(nodes, ref.nodes)
        np.testing.assert_array_equal(value, ref.value)
        assert depth == ref.max_depth
    np.testing.assert_array_equal(keys, _builder.presort(X))  # the shared lists are untouched


def test_trees_build_concurrently_in_threads():
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(2)
    X = np.asfortranarray(rng.normal(size=(3000, 8)))
    y = rng.integers(0, 3, 3000).astype(np.int32)
    keys = _builder.presort(X)
    weights = [np.bincount(rng.integers(0, 3000, 3000), minlength=3000).astype(float)
               for _ in range(8)]
    sequential = [_build(X, keys, y, w, seed=i, max_features=3) for i, w in enumerate(weights)]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda a: _build(X, keys, y, a[1], seed=a[0], max_features=3),
                                 enumerate(weights)))
    for (n1, v1, d1, _), (n2, v2, d2, _) in zip(sequential, threaded):
        np.testing.assert_array_equal(n1, n2)
        np.testing.assert_array_equal(v1, v2)


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("missing", [False, True])
def test_equal_features_first_one_wins(simd, missing, criterion, n_classes):
    """Among features whose best cuts have exactly equal proxies, the first scanned wins:
    a feature's scan only looks for cuts beating the best of the features before it, and
    must not take an equal one.  Columns 2 and 3 repeat columns 0 and 1 (the second one
    through an increasing map, so the same partitions), so the tree on all four must
    split on columns 0 and 1 only, and be the tree grown on those two."""
    from rotforest import DecisionTreeClassifier

    rng = np.random.default_rng(5)
    A = np.round(rng.normal(size=(3000, 2)), 1)
    score = A[:, 0] + A[:, 1] + rng.normal(size=3000)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    if missing:
        A[rng.random(A.shape) < 0.1] = np.nan
    X = np.column_stack([A, A[:, 0], 3 * A[:, 1] + 1])
    previous = _builder._set_simd(simd)
    try:
        four = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y).tree_
        two = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(A, y).tree_
    finally:
        _builder._set_simd(previous)
    assert four.node_count > 100
    assert set(four.feature[four.feature >= 0]) == {0, 1}
    np.testing.assert_array_equal(four.feature, two.feature)
    np.testing.assert_array_equal(four.threshold, two.threshold)
    np.testing.assert_array_equal(four.value, two.value)


def test_presort_in_row_ranges_equals_whole():
    X = np.asfortranarray(np.random.default_rng(3).normal(size=(500, 7)))
    whole = _builder.presort(X)
    out = np.zeros_like(whole)
    for a, b in [(0, 3), (3, 5), (5, 7)]:
        _builder.presort(X, out, a, b)
    np.testing.assert_array_equal(out, whole)
    with pytest.raises(ValueError, match="out must be"):
        _builder.presort(X, np.zeros((7, 499 + 16), dtype=np.uint32))
    with pytest.raises(ValueError, match="out must be"):
        _builder.presort(X, np.zeros(whole.shape, dtype=np.uint64))


def test_any_memory_layout_gives_the_same_keys_and_tree():
    """The builder and the presort read X through its strides: row-major, column-major,
    strided views and views with negative strides give what a column-major copy gives."""
    from rotforest import DecisionTreeClassifier, RandomForestClassifier

    rng = np.random.default_rng(5)
    wide = np.round(rng.normal(size=(600, 10)), 1)
    wide[rng.random(wide.shape) < 0.05] = np.nan
    y = (np.nan_to_num(wide[:, 0]) + rng.normal(size=600) > 0).astype(int)
    views = {"C": np.ascontiguousarray(wide[:, ::2]), "strided": wide[:, ::2],
             "negative row stride": np.ascontiguousarray(wide[::-1])[::-1, ::2],
             "negative column stride": np.ascontiguousarray(wide[:, ::-1])[:, ::-1][:, ::2]}
    ref_X = np.asfortranarray(wide[:, ::2])
    ref_keys = _builder.presort(ref_X)
    ref_tree = DecisionTreeClassifier(random_state=0).fit(ref_X, y).tree_
    ref_forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(ref_X, y)
    for name, X in views.items():
        assert not X.flags.f_contiguous, name
        np.testing.assert_array_equal(_builder.presort(X), ref_keys, err_msg=name)
        tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
        np.testing.assert_array_equal(tree.threshold, ref_tree.threshold, err_msg=name)
        np.testing.assert_array_equal(tree.feature, ref_tree.feature, err_msg=name)
        forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
        np.testing.assert_array_equal(forest.predict_proba(ref_X),
                                      ref_forest.predict_proba(ref_X), err_msg=name)


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("min_samples_leaf", [1, 2, 3])
def test_first_of_equal_cuts_is_kept(simd, min_samples_leaf):
    """Alternating labels on distinct values: cuts at mirrored positions have exactly equal
    Gini proxies.  The root must take the first of the best cuts, which exact rational
    arithmetic finds here; the sizes move the tied cuts across the lanes of the vector
    kernel and into its scalar tail."""
    from fractions import Fraction

    from rotforest import DecisionTreeClassifier

    previous = _builder._set_simd(simd)
    try:
        for n in range(40, 90, 3):
            X = np.arange(n, dtype=float)[:, None]
            y = np.arange(n) % 2
            T = int(y.sum())
            proxies = []
            for c in range(min_samples_leaf, n - min_samples_leaf + 1):
                l1 = int(y[:c].sum())
                proxies.append((Fraction(l1 * l1, c) + Fraction((T - l1) ** 2, n - c), c))
            best = max(p for p, _ in proxies)
            first = min(c for p, c in proxies if p == best)
            tree = DecisionTreeClassifier(max_depth=1, min_samples_leaf=min_samples_leaf)
            t = tree.fit(X, y).tree_
            assert t.threshold[0] == first - 0.5, n
    finally:
        _builder._set_simd(previous)


def test_odd_strides_and_bad_ranges():
    """X whose strides are not whole float64 cells (a field of a structured array): the
    low-level functions refuse it clearly, the estimators copy it and fit as on a copy."""
    from rotforest import DecisionTreeClassifier, RandomForestClassifier

    rng = np.random.default_rng(9)
    s = np.zeros((300, 3), [("a", "f8"), ("b", "i1")])
    s["a"] = np.round(rng.normal(size=(300, 3)), 1)
    X = s["a"]                                   # strides of 9 bytes a cell
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    with pytest.raises(ValueError, match="multiples of 8 bytes"):
        _builder.presort(X)
    ref = DecisionTreeClassifier(random_state=0).fit(X.copy(), y).tree_
    np.testing.assert_array_equal(DecisionTreeClassifier(random_state=0).fit(X, y).tree_.nodes,
                                  ref.nodes)
    forest = RandomForestClassifier(n_estimators=3, random_state=0)
    np.testing.assert_array_equal(forest.fit(X, y).predict_proba(X),
                                  forest.fit(X.copy(), y).predict_proba(X))
    out = np.empty((3, _builder.keys_width(300)), dtype=np.uint32)
    with pytest.raises(ValueError, match="non-negative"):
        _builder.presort(X.copy(), out=out, start=-2)


@pytest.mark.parametrize("simd", [True, False])
def test_multiclass_exact_tie_keeps_the_first_cut(simd):
    """Cutting off the first sample or the last one gives exactly equal Gini proxies
    here (1 + 49/11 both), and no other cut is as good.  The first cut must win, as in
    scikit-learn; comparing num > best * den instead of the rounded quotients took the
    last one, because (num / den) * den rounds below num for these values."""
    from sklearn.tree import DecisionTreeClassifier as SkTree

    from rotforest import DecisionTreeClassifier

    X = np.arange(12.0)[:, None]
    y = np.array([0, 2, 2, 1, 2, 1, 2, 2, 0, 2, 1, 0])
    previous = _builder._set_simd(simd)
    try:
        ours = DecisionTreeClassifier(max_depth=1).fit(X, y).tree_.threshold[0]
    finally:
        _builder._set_simd(previous)
    assert ours == SkTree(max_depth=1).fit(X, y).tree_.threshold[0] == 0.5
