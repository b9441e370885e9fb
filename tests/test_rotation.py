"""RotationForestClassifier: rotations, prediction through them, determinism, junk features."""
import pickle
import re

import numpy as np
import scipy.sparse as sp
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import cross_val_score

from rotforest import RandomForestClassifier, RotationForestClassifier, RotationForestRegressor
from rotforest._rotate import _moments, _normalisation, _normalise, draw_rotation


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=900, n_features=8, n_informative=5,
                               n_classes=3, random_state=0)


@pytest.mark.parametrize("kind", ["gaussian", "pca"])
@pytest.mark.parametrize("group_size", [1, 3, 4, None])
def test_rotations_are_orthonormal_and_block_diagonal(data, kind, group_size):
    X, y = data
    rng = np.random.default_rng(0)
    Z = (X - X.mean(0)) / X.std(0)
    R = draw_rotation(rng, 8, group_size, kind, Z, y).toarray()
    np.testing.assert_allclose(R.T @ R, np.eye(8), atol=1e-10)
    np.testing.assert_allclose(R @ R.T, np.eye(8), atol=1e-10)
    size = 8 if group_size is None else group_size
    # every feature shares its axes with at most group_size - 1 others
    assert max(np.count_nonzero(np.abs(R) > 0, axis=1)) <= size
    if group_size == 1:
        np.testing.assert_allclose(np.abs(R).sum(axis=1), 1.0)


@pytest.mark.parametrize("n_estimators", [1, 2, 7])   # 1 and 2: few entries in all
def test_forest_predicts_through_stored_rotations(data, n_estimators):
    X, y = data
    forest = RotationForestClassifier(n_estimators=n_estimators, random_state=0).fit(X, y)
    Z = (X - X.mean(0)) / X.std(0)
    np.testing.assert_allclose(forest.mean_, X.mean(0))
    np.testing.assert_allclose(forest.scale_, X.std(0))
    per_tree = [t.predict_proba(Z @ r.toarray())
                for t, r in zip(forest.rotated_estimators_, forest.rotations_)]
    np.testing.assert_allclose(forest.predict_proba(X), np.mean(per_tree, axis=0),
                               atol=1e-12)
    leaves = forest.apply(X)
    assert leaves.shape == (len(y), n_estimators)
    last = n_estimators - 1
    np.testing.assert_array_equal(leaves[:, last], forest.rotated_estimators_[last].apply(
        Z @ forest.rotations_[last].toarray()))
    path, ptr = forest.decision_path(X)
    assert path.shape == (len(y), ptr[-1])
    imp = forest.feature_importances_
    assert imp.shape == (8,) and imp.sum() == pytest.approx(1.0) and np.all(imp >= 0)
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(again.predict_proba(X), forest.predict_proba(X))


@pytest.mark.parametrize("max_depth", [None, 3])
def test_prediction_in_small_batches_equals_one_batch(data, monkeypatch, max_depth):
    X, y = data
    forest = RotationForestClassifier(n_estimators=19, max_depth=max_depth,
                                      random_state=1).fit(X, y)
    whole = forest.predict_proba(X)              # all trees projected at once
    monkeypatch.setattr("rotforest.rotation._ONE_PROJECTION_CELLS", 0)
    np.testing.assert_array_equal(forest.predict_proba(X), whole)   # by blocks of trees
    monkeypatch.setattr("rotforest.rotation._BATCH_CELLS", 100)
    np.testing.assert_array_equal(forest.predict_proba(X), whole)   # and few rows at once


def test_same_forest_whatever_n_jobs(data):
    X, y = data
    probas = [RotationForestClassifier(n_estimators=6, rotation=kind, n_jobs=j,
                                       random_state=3).fit(X, y).predict_proba(X)
              for kind in ("gaussian", "pca") for j in (1, 2, 8)]
    for i in (1, 2):
        np.testing.assert_array_equal(probas[0], probas[i])
        np.testing.assert_array_equal(probas[3], probas[3 + i])


def test_warm_start_and_oob(data):
    X, y = data
    once = RotationForestClassifier(n_estimators=8, bootstrap=True, oob_score=True,
                                    random_state=2).fit(X, y)
    warm = RotationForestClassifier(n_estimators=3, bootstrap=True, warm_start=True,
                                    random_state=2).fit(X, y)
    warm.set_params(n_estimators=8, oob_score=True).fit(X, y)
    np.testing.assert_array_equal(warm.predict_proba(X), once.predict_proba(X))
    assert warm.oob_score_ == once.oob_score_
    assert 0.6 < once.oob_score_ <= 1.0


@pytest.mark.parametrize("kind", ["gaussian", "pca"])
def test_constant_features_are_left_out_of_the_rotations(kind):
    """Features constant in training get no loading: the forest equals the one fitted
    without them (same draws), test values in them are ignored, and a constant whose
    weighted mean rounds off its value (0.1 under uneven weights) still normalises to
    exactly 0 rather than being divided by a rounding-sized spread."""
    X, y = make_classification(n_samples=300, n_features=5, random_state=0)
    sw = np.random.default_rng(0).uniform(0.1, 3.0, 300)
    Xc = np.hstack([X, np.full((300, 1), 7.0), np.full((300, 1), 0.1)])
    params = dict(n_estimators=5, rotation=kind, random_state=0)
    plain = RotationForestClassifier(**params).fit(X, y, sample_weight=sw)
    forest = RotationForestClassifier(**params).fit(Xc, y, sample_weight=sw)
    np.testing.assert_array_equal(forest.rotated_features_, np.arange(5))
    np.testing.assert_array_equal(forest.scale_[-2:], 1.0)
    np.testing.assert_array_equal(forest.mean_[-2:], [7.0, 0.1])
    for R, Rp in zip(forest.rotations_, plain.rotations_):
        assert R.shape == (7, 5)
        np.testing.assert_array_equal(R.toarray()[:5], Rp.toarray())
        np.testing.assert_array_equal(R.toarray()[5:], 0.0)
        np.testing.assert_allclose(R.T @ R.toarray(), np.eye(5), atol=1e-10)
    expected = plain.predict_proba(X)
    np.testing.assert_array_equal(forest.predict_proba(Xc), expected)
    shifted = Xc.copy()
    shifted[:, 5:] = np.random.default_rng(1).normal(size=(300, 2)) * 1e6
    np.testing.assert_array_equal(forest.predict_proba(shifted), expected)
    np.testing.assert_array_equal(forest.feature_importances_[:5], plain.feature_importances_)
    np.testing.assert_array_equal(forest.feature_importances_[5:], 0.0)
    # all features constant: a forest of single leaves, not an error
    flat = RotationForestClassifier(**params).fit(np.ones((10, 3)), np.arange(10) % 2)
    np.testing.assert_array_equal(flat.predict_proba(np.zeros((2, 3))), 0.5)


@pytest.mark.parametrize("order", ["C", "F"])
def test_unweighted_normalisation_equals_the_general_one(order):
    """Without missing values or weights the normalisation skips its masks; it must
    give the very bits of the masked, weighted computation (the trees depend on them),
    also for huge values (the rescaled moments), -0.0 and constant columns."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 6)) * [1.0, 1e-3, 1e300, 1.0, 1.0, 1.0]
    X[:, 3] = -0.0
    X[:, 4] = np.round(X[:, 4])
    X[:, 5] = 2.5
    X = np.asarray(X, order=order)
    ones = np.ones(X.shape[0])
    for scaling in ["std", "range"]:
        mean, scale, constant = _normalisation(X, ones, scaling)
        present = ~np.isnan(X) & (ones > 0)[:, None]     # the general case's masks
        W = present * ones[:, None]
        safe = W.sum(axis=0)
        with np.errstate(over="ignore", invalid="ignore"):
            ref_mean, ref_sd = _moments(X, W, present, safe)
        step = 2.0 ** np.floor(np.log2(np.abs(X[:, 2]).max()))
        m2, s2 = _moments(X[:, 2:3] / step, W[:, 2:3], present[:, 2:3], safe[2:3])
        ref_mean[2], ref_sd[2] = m2[0] * step, s2[0] * step
        ref_mean[[3, 5]] = [-0.0, 2.5]     # a constant's mean: its (least) value
        ref_sd[[3, 5]] = 1.0
        if scaling == "range":
            ref_sd = np.where(np.ptp(X, axis=0) > 0, np.ptp(X, axis=0), 1.0)
        np.testing.assert_array_equal(constant, [False] * 3 + [True, False, True])
        np.testing.assert_array_equal(mean.view(np.uint64), ref_mean.view(np.uint64))
        np.testing.assert_array_equal(scale.view(np.uint64), ref_sd.view(np.uint64))
        Z, mask = _normalise(X, mean, scale, constant)
        assert mask is None and Z.flags.f_contiguous
        np.testing.assert_array_equal(Z, np.where(constant, 0.0, (X - mean) / scale))


@pytest.mark.parametrize("order", ["C", "F"])
def test_normalisation_in_column_blocks_is_the_same(order, monkeypatch):
    """The normalised rows computed in threads, by blocks of columns, are bit for bit
    the one-thread ones, also when only some blocks hold missing values, and whatever
    the number of blocks."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 7)) * [1.0, 1e300, 1.0, 1.0, 3.0, 1.0, 1.0]
    X[:, 3] = 4.0
    X[rng.random(120) < 0.2, 5] = np.nan
    X = np.asarray(X, order=order)
    for sw in [np.ones(120), rng.uniform(0.5, 2.0, 120)]:
        for cols in [slice(0, 5), slice(None)]:        # without and with missing values
            Xc = np.asarray(X[:, cols], order=order)
            with np.errstate(over="ignore", invalid="ignore"):
                one = _normalisation(Xc, sw)
            Z1, mask1 = _normalise(Xc, *one)
            monkeypatch.setattr("rotforest._rotate._NORMALISE_CELLS_PER_THREAD", 1)
            for n_threads in [2, 3, 7]:
                Z, mask = _normalise(Xc, *one, n_threads=n_threads)
                np.testing.assert_array_equal(Z.view(np.uint64), Z1.view(np.uint64))
                assert (mask is None) == (mask1 is None) == (cols.stop == 5)
                if mask is not None:
                    np.testing.assert_array_equal(mask, mask1)
            monkeypatch.undo()


@pytest.mark.parametrize("missing", ["route", "impute"])
def test_constant_feature_with_missing_values_is_kept_only_when_routing(missing):
    """Under "route", a constant feature's missing cells still tell the trees something
    (they hide its group's axes), so it stays in the rotations; under "impute" its
    indicator column carries that, and an all-missing feature is left out under both."""
    X, y = make_classification(n_samples=300, n_features=4, random_state=2)
    partly = np.where(y == 1, np.nan, 5.0)       # constant, missing exactly in class 1
    Xc = np.column_stack([X, partly, np.full(300, np.nan)])
    forest = RotationForestClassifier(n_estimators=5, missing=missing,
                                      random_state=0).fit(Xc, y)
    kept = [0, 1, 2, 3, 4] if missing == "route" else [0, 1, 2, 3]
    np.testing.assert_array_equal(forest.rotated_features_, kept)
    np.testing.assert_array_equal(forest.missing_features_, [4, 5])
    assert forest.score(Xc, y) == 1.0          # the missingness itself separates the classes
    Xt = Xc.copy()
    Xt[:, 5] = 1.0                              # values never seen in training: ignored
    np.testing.assert_array_equal(forest.predict_proba(Xt), forest.predict_proba(Xc))


def test_junk_features_default_not_worse_than_random_forest():
    """5 informative features among 45 of noise: a dense random rotation mixes the noise
    into every axis and loses; the default grouped rotation must not lose to our random
    forest."""
    X, y = make_classification(n_samples=1500, n_features=5, n_informative=5,
                               n_redundant=0, random_state=1)
    X = np.hstack([X, np.random.default_rng(0).normal(size=(1500, 45))])
    rot = cross_val_score(RotationForestClassifier(n_estimators=50, random_state=0,
                                                   n_jobs=2), X, y, cv=3).mean()
    rf = cross_val_score(RandomForestClassifier(n_estimators=50, random_state=0, n_jobs=2),
                         X, y, cv=3).mean()
    dense = cross_val_score(RotationForestClassifier(n_estimators=50, group_size=None,
                                                     rotation="gaussian", random_state=0,
                                                     n_jobs=2),
                            X, y, cv=3).mean()
    assert rot >= rf - 0.005
    assert dense < rot - 0.03


@pytest.mark.parametrize("params, error, match", [
    (dict(rotation="random"), ValueError, "rotation"),
    (dict(group_size=0), ValueError, "group_size"),
    (dict(oob_score=True), ValueError, "bootstrap"),
    (dict(class_weight="balanced_subsample"), ValueError, "class_weight"),
    (dict(n_estimators=0), ValueError, "n_estimators"),
    (dict(max_rotated_features=0), ValueError, "max_rotated_features"),
    (dict(max_rotated_features=1.5), ValueError, "max_rotated_features"),
    (dict(max_rotated_features="all"), ValueError, "max_rotated_features"),
    (dict(max_rotated_features=[3]), TypeError, "max_rotated_features"),
])
def test_bad_parameters(data, params, error, match):
    X, y = data
    with pytest.raises(error, match=match):
        RotationForestClassifier(**{"n_estimators": 2, **params}).fit(X, y)


def test_sparse_projection_kernel_equals_matrix_product():
    """The GIL-free kernel that projects rows equals Z @ R (any layout of Z,
    block-diagonal, arbitrary sparse or non-square R) and rejects a malformed R."""
    import scipy.sparse as sp

    from rotforest import _builder
    from rotforest._rotate import _product, draw_rotation

    def kernel(A, R):
        R = R.tocsc()
        return _product(A, R, R.data)

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(1000, 11))
    y = rng.integers(0, 3, 1000)
    for R in (draw_rotation(rng, 11, 3, "gaussian"), draw_rotation(rng, 11, 4, "pca", Z, y),
              sp.random(11, 11, density=0.3, random_state=1, format="csr"),
              sp.random(11, 40, density=0.2, random_state=2, format="csr")):
        for layout in (Z, np.asfortranarray(Z), Z[::-1][::-1]):
            P = kernel(layout, R)
            assert P.flags.f_contiguous and P.shape == (1000, R.shape[1])
            np.testing.assert_allclose(P, Z @ R.toarray(), rtol=1e-12, atol=1e-12)
    R = draw_rotation(rng, 11, 3, "gaussian").tocsc()
    with pytest.raises(ValueError, match="one row per column"):
        kernel(Z[:, :5], R)
    bad = R.indices.astype(np.int64)
    bad[0] = 11
    with pytest.raises(ValueError, match="row index"):
        _builder.project_sparse(np.asfortranarray(Z), R.indptr.astype(np.int64), bad,
                                R.data, 11)


def test_pca_blocks_are_the_principal_axes_of_their_draw(data, monkeypatch):
    """Each PCA block holds the principal axes (by SVD here, largest variance first,
    up to sign) of its group's columns over the class subset and 75% row sample that
    the same random draws select: numpy's draws (groups of more than 8 features, forced
    here for groups of 3)."""
    from rotforest import _rotate

    monkeypatch.setattr(_rotate, "_C_ROTATION_MAX_GROUP", 0)
    X, y = data
    Z = (X - X.mean(0)) / X.std(0)
    R = draw_rotation(np.random.default_rng(3), 8, 3, "pca", Z, y).toarray()
    rng = np.random.default_rng(3)
    order = rng.permutation(8)
    groups = [np.sort(order[start:start + 3]) for start in range(0, 8, 3)]
    chosen = rng.random((3, 3)) < 0.5           # a class subset for every group
    for g in range(3):
        if not chosen[g].any():
            chosen[g, rng.integers(3)] = True
    coins = np.frombuffer(rng.bytes(3 * len(y)), dtype=np.uint8).reshape(3, len(y))
    keep = chosen[:, y] & (coins < 192)            # 3/4 of the rows
    for g, group in enumerate(groups):
        rows = np.flatnonzero(keep[g])
        assert set(np.unique(y[rows])) <= set(np.flatnonzero(chosen[g]))
        sub = Z[np.ix_(rows, group)]
        _, _, vt = np.linalg.svd(sub - sub.mean(0), full_matrices=False)
        block = R[np.ix_(group, group)]
        np.testing.assert_allclose(np.abs(block), np.abs(vt.T), atol=1e-8)


@pytest.mark.parametrize("n_features,size,n_classes", [(8, 3, 3), (17, 8, 5), (5, 1, 2),
                                                      (13, 4, 70)])
def test_rotation_in_one_call_holds_the_principal_axes_of_its_draw(n_features, size,
                                                                   n_classes):
    """The GIL-free draw (_builder.rotation), against numpy on the draws it reports:
    groups are sorted runs of its random order; each group kept only rows of a subset
    of the codes, about 3/4 of them; its block holds the principal axes of those rows
    (SVD, largest variance first, up to sign; eigenvalues apart, so the axes are
    defined); each axis's largest loading is positive; the same seed gives the same
    rotation, and a group's kept rows differ from group to group."""
    from rotforest import _builder

    rng = np.random.default_rng(n_features)
    n = 2000
    scales = rng.uniform(0.2, 3.0, n_features)      # distinct variances
    Z = rng.normal(size=(n, n_features)) * scales
    Z[:, 1] += 0.5 * Z[:, 0]
    y = rng.integers(0, n_classes, n).astype(np.int32)
    features = np.arange(n_features, dtype=np.int64)
    Zt = np.ascontiguousarray(Z.T)
    indptr, indices, data, order, keep = _builder.rotation(Zt, y, features, size, True,
                                                           12345, 0.0, trace=True)
    R = sp.csc_matrix((data, indices, indptr), shape=(n_features, n_features)).toarray()
    np.testing.assert_allclose(R.T @ R, np.eye(n_features), atol=1e-12)
    assert sorted(order) == list(range(n_features))
    starts = range(0, n_features, size)
    assert keep.shape == (len(starts), n)
    shares = []
    for g, start in enumerate(starts):
        group = np.sort(order[start:start + size])
        rows = np.flatnonzero(keep[g])
        codes = np.unique(y[rows])
        pool = np.isin(y, codes)
        shares.append(len(rows) / pool.sum())
        sub = Z[np.ix_(rows, group)]
        _, sv, vt = np.linalg.svd(sub - sub.mean(0), full_matrices=False)
        assert np.all(np.diff(sv) < 0)
        block = R[np.ix_(group, group)]
        np.testing.assert_allclose(np.abs(block), np.abs(vt.T), atol=1e-9)
        top = block[np.argmax(np.abs(block), axis=0), np.arange(len(group))]
        assert np.all(top > 0)
        outside = np.delete(np.arange(n_features), group)
        assert np.all(R[np.ix_(outside, group)] == 0.0)
    assert abs(np.mean(shares) - 0.75) < 0.05, shares
    if len(starts) > 1:
        assert not np.array_equal(keep[0], keep[1])
    again = _builder.rotation(Zt, y, features, size, True, 12345, 0.0)
    for a, b in zip(again, (indptr, indices, data)):
        np.testing.assert_array_equal(a, b)
    other = _builder.rotation(Zt, y, features, size, True, 54321, 0.0, trace=True)
    assert not np.array_equal(other[4], keep)


def test_rotation_in_one_call_gaussian_and_bad_input():
    """Without PCA every block is a random orthonormal one (no data needed), uniformly
    distributed: the loadings of a 3 x 3 block have mean 0 and mean square 1/3 over many
    draws.  A subset of the features gets rows at its features only.  Bad arguments
    raise ValueError."""
    from rotforest import _builder

    features = np.array([1, 4, 6], dtype=np.int64)
    blocks = []
    for seed in range(2000):
        indptr, indices, data = _builder.rotation(None, None, features, 3, False, seed, 0.0)
        np.testing.assert_array_equal(indices, np.tile(features, 3))
        block = data.reshape(3, 3)                     # row j: axis j's loadings
        np.testing.assert_allclose(block @ block.T, np.eye(3), atol=1e-12)
        blocks.append(block)
    blocks = np.array(blocks)
    assert abs(blocks.mean()) < 0.01
    np.testing.assert_allclose((blocks ** 2).mean(axis=0), 1 / 3, atol=0.03)
    # a uniformly random rotation has each sign of its determinant half the time
    dets = np.linalg.det(blocks)
    assert 0.4 < np.mean(dets > 0) < 0.6
    # a seed whose second Gaussian column fell (nearly) on the first (found by a review:
    # it was left all zeros, one axis lost); it is drawn again
    indptr, indices, data = _builder.rotation(None, None, np.arange(2, dtype=np.int64), 2,
                                              False, 7692793, 0.0)
    block = data.reshape(2, 2)
    np.testing.assert_allclose(block @ block.T, np.eye(2), atol=1e-12)
    Zt = np.zeros((7, 10))
    y = np.zeros(10, dtype=np.int32)
    with pytest.raises(ValueError, match="groups of 1 to 8"):
        _builder.rotation(Zt, y, features, 9, True, 0, 0.0)
    with pytest.raises(ValueError, match="increasing"):
        _builder.rotation(Zt, y, np.array([4, 1], dtype=np.int64), 3, True, 0, 0.0)
    with pytest.raises(ValueError, match="increasing"):
        _builder.rotation(Zt, y, np.array([1, 7], dtype=np.int64), 3, True, 0, 0.0)
    with pytest.raises(ValueError, match="non-negative"):
        _builder.rotation(Zt, y - 1, features, 3, True, 0, 0.0)
    for big in (10, 2 ** 31 - 1):      # (2^31 - 1 overflowed a 32-bit count: a crash)
        with pytest.raises(ValueError, match="below the number of rows"):
            _builder.rotation(Zt, np.r_[y[:9], big].astype(np.int32), features, 3, True,
                              0, 0.0)
    with pytest.raises(TypeError):
        draw_rotation(np.random.default_rng(0), 7, 3, "pca", Zt.T, y + 0.5)
    with pytest.raises(ValueError, match="one code per column"):
        _builder.rotation(Zt, y[:5], features, 3, True, 0, 0.0)


@pytest.mark.parametrize("in_c", [True, False])
def test_pca_batches_and_tiny_samples(data, monkeypatch, in_c):
    """Taking numpy's groups a few at a time changes nothing; a group left with fewer
    than two rows gets a random orthonormal block instead of a degenerate one (in one
    call and by numpy)."""
    from rotforest import _rotate

    X, y = data
    Z = (X - X.mean(0)) / X.std(0)
    if not in_c:
        monkeypatch.setattr(_rotate, "_C_ROTATION_MAX_GROUP", 0)
        whole = draw_rotation(np.random.default_rng(5), 8, 2, "pca", Z, y).toarray()
        monkeypatch.setattr(_rotate, "_PCA_BATCH_CELLS", 1)
        batched = draw_rotation(np.random.default_rng(5), 8, 2, "pca", Z, y).toarray()
        np.testing.assert_allclose(batched, whole, atol=1e-12)
    for rows in (1, 2, 3):
        for seed in range(5):
            R = draw_rotation(np.random.default_rng(seed), 8, 3, "pca", Z[:rows],
                              y[:rows] * 0)
            R = R.toarray()
            assert np.all(np.isfinite(R))
            np.testing.assert_allclose(R.T @ R, np.eye(8), atol=1e-10)


@pytest.fixture(scope="module")
def wide():
    X, y = make_classification(n_samples=300, n_features=40, n_informative=6,
                               n_classes=3, random_state=4)
    X[:, 7] = 2.5                                       # constant: never rotated
    return X, y


@pytest.mark.parametrize("setting, k", [(10, 10), (0.5, 19), ("sqrt", 6), (1000, 39),
                                        (None, 39)])
def test_each_tree_rotates_its_own_subset(wide, setting, k):
    """A tree rotates max_rotated_features of the rotated features (as max_features
    counts), drawn per tree; its axes load those features alone, and the trees predict
    through those axes."""
    X, y = wide
    forest = RotationForestClassifier(n_estimators=6, max_rotated_features=setting,
                                      random_state=0).fit(X, y)
    assert forest.rotated_features_.size == 39 and 7 not in forest.rotated_features_
    subsets = []
    for rotation in forest.rotations_:
        R = rotation.toarray()
        assert R.shape == (40, k)
        np.testing.assert_allclose(R.T @ R, np.eye(k), atol=1e-10)
        loaded = np.flatnonzero(np.abs(R).sum(axis=1) > 0)
        assert loaded.size == k and np.isin(loaded, forest.rotated_features_).all()
        subsets.append(tuple(loaded))
    assert (len(set(subsets)) > 1) == (k < 39)        # drawn anew for every tree
    Z = (X - forest.mean_) / forest.scale_
    Z[:, 7] = 0.0
    per_tree = [t.predict_proba(Z @ r.toarray())
                for t, r in zip(forest.rotated_estimators_, forest.rotations_)]
    np.testing.assert_allclose(forest.predict_proba(X), np.mean(per_tree, axis=0),
                               atol=1e-12)
    # features that no tree rotates get no importance
    never = np.setdiff1d(np.arange(40), np.concatenate([list(s) for s in subsets]))
    assert np.all(forest.feature_importances_[never] == 0.0)
    assert forest.feature_importances_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
@pytest.mark.parametrize("sampling", ["mixed", "relevance", "uniform"])
@pytest.mark.parametrize("rotated, axes", [(None, 39), (39, 39), (1000, 39), (10, 10),
                                           (0.5, 19)])
def test_auto_max_features(wide, Forest, sampling, rotated, axes):
    """max_features="auto" (the classifier's default) scans every axis, as None does,
    except on the trees that rotate a uniformly drawn subset of wider data (every tree
    of subset_sampling="uniform", the odd-numbered ones of "mixed"), which scan the
    square root of their axes, as "sqrt" does: the same trees, node for node."""
    X, y = wide
    params = dict(n_estimators=4, max_rotated_features=rotated, random_state=0,
                  subset_sampling=sampling)
    auto = Forest(max_features="auto", **params).fit(X, y)
    every = Forest(max_features=None, **params).fit(X, y)
    root = Forest(max_features="sqrt", **params).fit(X, y)
    subset = axes < 39
    assert auto.estimator_.max_features == (
        "sqrt" if subset and sampling == "uniform" else None)
    for i, (a, r) in enumerate(zip(auto.rotated_estimators_, auto.rotations_)):
        uniform = subset and (sampling == "uniform" or (sampling == "mixed" and i % 2))
        b = (root if uniform else every).rotated_estimators_[i]
        assert r.shape[1] == axes
        assert a.max_features_ == (int(np.sqrt(axes)) if uniform else axes)
        for name in ["feature", "threshold", "children_left", "value"]:
            np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
    if not subset:
        np.testing.assert_array_equal(auto.predict(X), every.predict(X))


def test_classifier_defaults_to_auto_axes(data):
    """The classifier's default is "auto"; on narrow data it grows the all-axes forest."""
    X, y = data
    assert RotationForestClassifier().max_features == "auto"
    assert RotationForestRegressor().max_features is None
    a = RotationForestClassifier(n_estimators=5, random_state=7).fit(X, y)
    b = RotationForestClassifier(n_estimators=5, max_features=None, random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert all(t.max_features_ == X.shape[1] for t in a.rotated_estimators_)
    for Forest in [RotationForestClassifier, RotationForestRegressor]:
        forms = "'auto' (the default), an int >= 1, a float in (0, 1], 'sqrt', 'log2'"
        with pytest.raises(ValueError, match=re.escape(f"{forms} or None; got 'Auto'")):
            Forest(max_features="Auto").fit(X, y)


def test_narrow_data_forest_does_not_draw_subsets(data):
    """At most max_rotated_features features: the forest is the one that rotates all of
    them (no draw is made, so the same seed grows the same trees)."""
    X, y = data
    a = RotationForestClassifier(n_estimators=5, random_state=7).fit(X, y)
    b = RotationForestClassifier(n_estimators=5, max_rotated_features=None,
                                 random_state=7).fit(X, y)
    c = RotationForestClassifier(n_estimators=5, max_rotated_features=8,
                                 random_state=7).fit(X, y)
    for other in (b, c):
        np.testing.assert_array_equal(a.predict_proba(X), other.predict_proba(X))
        for r, s in zip(a.rotations_, other.rotations_):
            np.testing.assert_array_equal(r.toarray(), s.toarray())


def test_warm_start_with_another_subset_size(wide, monkeypatch):
    """Trees of different axis counts (max_rotated_features changed between warm fits)
    predict through their own axes, whichever way the projections are batched."""
    X, y = wide
    forest = RotationForestClassifier(n_estimators=4, max_rotated_features=5,
                                      warm_start=True, random_state=1).fit(X, y)
    forest.set_params(n_estimators=9, max_rotated_features=12).fit(X, y)
    assert [r.shape[1] for r in forest.rotations_] == [5] * 4 + [12] * 5
    Z = (X - forest.mean_) / forest.scale_
    Z[:, 7] = 0.0
    expected = np.mean([t.predict_proba(Z @ r.toarray())
                        for t, r in zip(forest.rotated_estimators_, forest.rotations_)], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X), expected, atol=1e-12)
    monkeypatch.setattr("rotforest.rotation._ONE_PROJECTION_CELLS", 0)
    monkeypatch.setattr("rotforest.rotation._SUM_BLOCK", 2)
    monkeypatch.setattr("rotforest.rotation._BATCH_CELLS", 50)
    np.testing.assert_allclose(forest.predict_proba(X), expected, atol=1e-12)
    again = pickle.loads(pickle.dumps(forest))
    np.testing.assert_allclose(again.predict_proba(X), expected, atol=1e-12)


def test_pca_loadings_of_rounding_size_are_zero(monkeypatch):
    """A feature constant on a group's rows (a zero count, normalised) has loadings of
    exactly 0 on the other axes, not rounding noise (~1e-17: rows that differ only in
    that feature would then be a few ulps apart, and trees could cut between them)."""
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(400, 3))
    Z[:, 1] += Z[:, 0]
    Z[:, 2] = -0.030443128277399274
    y = (Z[:, 0] > 0).astype(int)
    for noise in (None, 0.0):
        if noise is not None:       # without the cleanup the test fails
            monkeypatch.setattr("rotforest._rotate._LOADING_NOISE", noise)
        alone = 0
        for seed in range(20):
            R = draw_rotation(np.random.default_rng(seed), 3, 3, "pca", Z, y).toarray()
            np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-10)
            alone += np.count_nonzero(R[2]) == 1 and np.count_nonzero(R[:, R[2] != 0]) == 1
        assert alone == (20 if noise is None else 0)


def test_blas_limit_is_restored_whatever_order_overlapping_fits_end():
    """A fit runs BLAS on one thread (process-wide); fits overlapping in several threads
    must leave BLAS as they found it even when the first to start ends first (found by
    a review: each fit restoring what it saw left BLAS at one thread for good)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from rotforest.rotation import _one_blas_thread

    def blas_threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info()
                if i["user_api"] == "blas"]

    before = blas_threads()
    if not before:
        pytest.skip("no BLAS library found by threadpoolctl")
    first, second = _one_blas_thread(), _one_blas_thread()
    first.__enter__()
    second.__enter__()
    assert all(t == 1 for t in blas_threads())
    first.__exit__(None, None, None)           # the first to start ends first
    assert all(t == 1 for t in blas_threads())
    second.__exit__(None, None, None)
    assert blas_threads() == before
    X, y = make_classification(200, 6, random_state=0)
    RotationForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert blas_threads() == before


@pytest.mark.parametrize("size", range(1, 9))
def test_group_moments_against_numpy(size):
    """The PCA's sums and cross-products over each group's kept rows, against numpy's
    on the same rows, for every group size the kernel takes and row counts around its
    blocks of 8; the AVX-512 form gives the same numbers bit for bit."""
    from rotforest import _builder

    rng = np.random.default_rng(size)
    for n in [1, 2, 7, 8, 9, 16, 31, 250]:
        Zt = rng.normal(size=(11, n)) * rng.uniform(0.1, 100.0, size=(11, 1))
        groups = np.array([rng.choice(11, size, replace=False) for _ in range(5)])
        keep = rng.random((5, n)) < 0.7
        keep[0] = False                                  # a group with no row
        sums, cross = _builder.group_moments(Zt, groups, keep.view(np.uint8))
        for g in range(5):
            rows = Zt[groups[g]][:, keep[g]]
            np.testing.assert_allclose(sums[g], rows.sum(axis=1), rtol=1e-12, atol=1e-9)
            np.testing.assert_allclose(cross[g], rows @ rows.T, rtol=1e-12, atol=1e-9)
        assert np.all(sums[0] == 0.0) and np.all(cross[0] == 0.0)
        was = _builder._set_simd(False)                   # the portable loops
        try:
            other = _builder.group_moments(Zt, groups, keep.view(np.uint8))
        finally:
            _builder._set_simd(was)
        np.testing.assert_array_equal(other[0], sums)
        np.testing.assert_array_equal(other[1], cross)
    with pytest.raises(ValueError, match="groups of 1 to 8"):
        _builder.group_moments(np.zeros((12, 3)), np.zeros((1, 9), dtype=np.int64),
                               np.ones((1, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="out of range"):
        _builder.group_moments(np.zeros((4, 3)), np.array([[0, 4]]),
                               np.ones((1, 3), dtype=np.uint8))


# --------------------------------------------------------------------------------------
# Normalisation at the edges: huge values, a feature constant where present, a
# row of weight zero.
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("power", [40, 531, 700, 1020])   # 2 ** 531: about 1e160
def test_rotation_forest_normalises_huge_values(binary_data, power):
    X, y = binary_data
    ref = RotationForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    big = X.copy()
    big[:, 0] *= 2.0 ** power          # exact: the same data in other units
    forest = RotationForestClassifier(n_estimators=5, random_state=0).fit(big, y)
    assert np.all(np.isfinite(forest.scale_)) and np.all(np.isfinite(forest.mean_))
    np.testing.assert_allclose(forest.scale_[0], ref.scale_[0] * 2.0 ** power, rtol=1e-12)
    np.testing.assert_allclose(forest.mean_[0], ref.mean_[0] * 2.0 ** power, rtol=1e-9)
    same = np.mean(forest.predict(big) == ref.predict(X))
    assert same > 0.98                  # the same model up to rounding
    assert forest.score(big, y) > 0.85


@pytest.mark.parametrize("rotation", ["gaussian", "pca"])
def test_a_feature_constant_where_present_moves_nothing(rotation):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    X[:, 2] = 1000.0
    X[rng.random(400) < 0.3, 2] = np.nan              # random: carries nothing
    forest = RotationForestClassifier(n_estimators=10, rotation=rotation, group_size=None,
                                      random_state=0).fit(X, y)
    assert 2 in forest.rotated_features_               # kept for its missing cells
    assert forest.feature_importances_[2] == 0.0
    test = rng.normal(size=(200, 3))
    probas = []
    for value in (1000.0, 1001.0, 1010.0, -5.0):
        test[:, 2] = value
        probas.append(forest.predict_proba(test))
    for p in probas[1:]:
        np.testing.assert_array_equal(p, probas[0])
    test[::2, 2] = np.nan                               # its missingness still routes
    assert forest.predict_proba(test).shape == (200, 2)


def test_a_row_of_weight_zero_changes_no_rotation_forest():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[:, 3] = 7.0                                       # constant in training
    extra = np.r_[X, [[0.0, 0.0, 0.0, np.nan]]]
    w = np.r_[np.ones(300), 0.0]
    a = RotationForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    b = RotationForestClassifier(n_estimators=5, random_state=0).fit(extra, np.r_[y, 0],
                                                                     sample_weight=w)
    np.testing.assert_array_equal(a.rotated_features_, b.rotated_features_)
    np.testing.assert_array_equal(a.missing_features_, b.missing_features_)
