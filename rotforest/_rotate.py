"""The rotation forests' maths: random rotations (PCA axes of random groups of features, or
uniformly random orthonormal axes), the normalisation of the features, and the
projection of normalised rows onto a tree's axes with the missing-value rules
(``_Rotated``).  rotation.py draws and grows the trees; explain.py and onnx.py read the
projection from here through the fitted forest."""
import numpy as np
import scipy.sparse as sp

from rotforest import _bins, _builder
from rotforest._parallel import column_ranges_in_threads
from rotforest._validation import power_of_two_below


def _orthonormal(rng, size, count=None):
    """A uniformly random orthonormal matrix (``count`` of them, stacked, when given): QR
    of a standard normal one, with the signs fixed by R's diagonal."""
    shape = (size, size) if count is None else (count, size, size)
    q, r = np.linalg.qr(rng.standard_normal(shape))
    return q * np.where(np.diagonal(r, axis1=-2, axis2=-1) < 0, -1.0, 1.0)[..., None, :]


# rotations with groups of at most this many features are drawn in one GIL-free call
# (_builder.rotation: random draws, moments, Jacobi eigenvectors and the CSC arrays in C;
# a tree's rotation of 30 features in groups of 3 over 379 rows took 157 us in numpy
# calls and contended for the GIL in threads); larger groups by numpy (_pca_blocks)
_C_ROTATION_MAX_GROUP = _builder.MAX_ROTATION_GROUP
# PCA rotations by numpy: at most this many cells (features x rows) of the data at once
_PCA_BATCH_CELLS = 4_000_000


# loadings of a unit-length principal axis below this are rounding noise
_LOADING_NOISE = 2.0 ** -40


def _pca_blocks(rng, Zt, y, parts):
    """Each group's principal axes over a random non-empty subset of the classes and 75%
    of their rows, drawn for every group independently (Rodriguez, Kuncheva and Alonso,
    2006), largest variance first, by numpy (groups of more than 8 features; smaller ones
    are drawn by _builder.rotation).  ``Zt`` is the normalised data transposed (features
    x rows, C-contiguous); ``y`` holds class codes 0..K-1 (or a numeric target's quantile
    bins, see target_bins), every one present.  ``parts`` lists the groups by size, each
    an (m, size) array of features, one group a row; returns the (m, size, size) arrays
    of their axes (column b of block i: the loadings of axis b on the features of row i).
    Groups of one size share their arithmetic (batched products and one ``eigh``)."""
    n_groups, n = sum(len(part) for part in parts), y.size
    n_classes = int(y.max()) + 1
    chosen = rng.random((n_groups, n_classes)) < 0.5
    for g in np.flatnonzero(~chosen.any(axis=1)):
        chosen[g, rng.integers(n_classes)] = True
    # each row kept with probability 3/4: a random byte below 192 (a quarter of the
    # random bits that doubles would take)
    coins = np.frombuffer(rng.bytes(n_groups * n), dtype=np.uint8).reshape(n_groups, n)
    keep = np.take(chosen, y, axis=1) & (coins < 192)
    counts = keep.sum(axis=1)
    out = []
    first = 0
    for part in parts:
        m, size = part.shape
        blocks = np.empty((m, size, size))
        step = max(1, _PCA_BATCH_CELLS // (size * n))
        for start in range(0, m, step):
            stop = min(m, start + step)
            safe = np.maximum(counts[first + start:first + stop].astype(np.float64), 2.0)
            Zg = Zt[part[start:stop]]                                    # (k, size, n)
            w = keep[first + start:first + stop].astype(np.float64)      # (k, n)
            mean = (Zg @ w[:, :, None])[:, :, 0] / safe[:, None]        # (k, size)
            cross = (Zg * w[:, None, :]) @ Zg.transpose(0, 2, 1)         # (k, size, size)
            cov = (cross - safe[:, None, None] * mean[:, :, None] * mean[:, None, :])
            _, vectors = np.linalg.eigh(cov / (safe - 1.0)[:, None, None])
            # A feature constant on the group's rows (common in sparse counts) has
            # loadings of exactly 0 but for rounding (~1e-17); kept, they give tied rows
            # values a few ulps apart, which the presort must order one by one and the
            # trees may cut between.  They are set to 0 (a unit length off by < 1e-11).
            vectors[np.abs(vectors) < _LOADING_NOISE] = 0.0
            blocks[start:stop] = vectors[:, :, ::-1]
        out.append(blocks)
        first += m
    first = 0
    for part, blocks in zip(parts, out):
        for i in np.flatnonzero(counts[first:first + len(part)] < 2):   # too few rows
            blocks[i] = _orthonormal(rng, part.shape[1])
        first += len(part)
    return out


def draw_rotation(rng, n_features, group_size, kind, Z=None, y=None, *, Zt=None,
                  features=None):
    """One tree's rotation: a sparse (n_features x n_axes) matrix with orthonormal
    columns, block diagonal over random groups of ``group_size`` of the rotated features
    (one dense block when None).  ``features`` (default: all) are the rotated features,
    sorted; axis ``j`` belongs to the group of ``features[j]``, and the other features
    have no loading.  ``kind="pca"`` needs the normalised data ``Z`` and class codes
    ``y`` (a numeric target's quantile bins for a regressor); ``Zt``, Z transposed as a
    C-contiguous array, may be passed instead of Z by a caller that draws many
    rotations."""
    if kind == "pca" and Zt is None:
        Zt = np.ascontiguousarray(Z.T)
    if features is None:
        features = np.arange(n_features)
    n_axes = len(features)
    if n_axes == 0:           # nothing to rotate (every feature categorical)
        return sp.csc_matrix((n_features, 0))
    size = n_axes if group_size is None else min(group_size, n_axes)
    if size <= _C_ROTATION_MAX_GROUP:
        # one GIL-free call, its draws from one seed of the tree's generator
        seed = int(rng.integers(np.iinfo(np.int64).max))
        arrays = _builder.rotation(
            Zt, None if y is None else np.ascontiguousarray(
                np.asarray(y).astype(np.int32, casting="same_kind", copy=False)),
            np.ascontiguousarray(features, dtype=np.int64), size, kind == "pca", seed,
            _LOADING_NOISE)
        return sp.csc_matrix(arrays[::-1], shape=(n_features, n_axes))
    order = rng.permutation(n_axes)
    # the groups: consecutive runs of `size` axes of the permutation (the last one
    # shorter), each sorted; one (m, size) array of axes for the full groups, one row for
    # the rest
    full = n_axes // size * size
    local = [np.sort(order[:full].reshape(-1, size), axis=1)]
    if full < n_axes:
        local.append(np.sort(order[full:])[None, :])
    parts = [features[axes] for axes in local]
    if kind == "pca":
        blocks = _pca_blocks(rng, Zt, y, parts)
    else:
        blocks = [_orthonormal(rng, part.shape[1], len(part)) for part in parts]
    # block i of a part puts loading blocks[i][a, b] on feature parts[i][a] for axis
    # local[i][b]: axis local[i][b] is a column of the CSC arrays with the rows parts[i]
    # (increasing) and the values blocks[i][:, b] (the arrays built directly: a COO
    # matrix converted took 0.16 ms a tree)
    lengths = np.empty(n_axes, dtype=np.int64)
    for axes in local:
        lengths[axes] = axes.shape[1]
    indptr = np.zeros(n_axes + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int64)
    data = np.empty(indptr[-1])
    for axes, part, block in zip(local, parts, blocks):
        at = indptr[axes][:, :, None] + np.arange(axes.shape[1])      # (m, s, s)
        indices[at] = part[:, None, :]
        data[at] = block.transpose(0, 2, 1)
    return sp.csc_matrix((data, indices, indptr), shape=(n_features, n_axes))


# A thread of the normalised rows' column blocks gets 2^20 cells at least (some 5 ms of
# numpy's passes, which release the GIL): below that the threads cost more than they save.
_NORMALISE_CELLS_PER_THREAD = 1 << 20


def _normalisation(X, sw, scaling="std"):
    """Weighted mean and scale of every column over its present values of positive
    weight (the standard deviation, or with ``scaling="range"`` the range, max - min),
    and the mask of the constant columns (a single present value, or none).  A constant
    column gets scale 1 and its value as mean (0 when all-missing), so that it
    normalises to exactly 0; a rounded mean would leave a tiny spread, and dividing by
    it would blow test values up.  (One thread: numpy's sums over rows are ordered by
    the shape of the array, so blocks of columns would round differently.)"""
    if np.all(sw == 1.0) and not np.isnan(X).any():
        # every cell present with weight 1 (the common case): the same sums, in the same
        # order, as the general case below, in a third of its passes over X (wide data)
        present = W = None
        safe = np.full(X.shape[1], float(X.shape[0]))
    else:
        present = ~np.isnan(X) & (sw > 0)[:, None]
        W = present * sw[:, None]
        total = W.sum(axis=0)
        safe = np.where(total > 0, total, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        mean, scale = _moments(X, W, present, safe)
    wild = ~(np.isfinite(mean) & np.isfinite(scale))
    if wild.any():
        # values so large that their sums or squares overflow: the moments of the
        # columns divided by a power of two near their largest value, scaled back
        if present is None:
            step = power_of_two_below(np.abs(X[:, wild]).max(axis=0))
            m, s = _moments(X[:, wild] / step, None, None, safe[wild])
        else:
            step = power_of_two_below(
                np.where(present[:, wild], np.abs(X[:, wild]), 0.0).max(axis=0))
            m, s = _moments(X[:, wild] / step, W[:, wild], present[:, wild], safe[wild])
        mean[wild], scale[wild] = m * step, s * step
    if present is None:
        low, high = X.min(axis=0), X.max(axis=0)
    else:
        low = np.where(present, X, np.inf).min(axis=0)
        high = np.where(present, X, -np.inf).max(axis=0)
    return finish_normalisation(mean, scale, low, high, scaling)


def finish_normalisation(mean, scale, low, high, scaling):
    """The columns' mean, scale and constant mask from their weighted means, standard
    deviations and least and greatest present values (see _normalisation; also
    rotforest.dask's, from sums pooled over partitions)."""
    constant = ~(low < high)
    if scaling == "range":
        with np.errstate(over="ignore", invalid="ignore"):
            spread = high - low
            # a range past the largest float: a quarter of it (finite) instead
            scale = np.where(np.isfinite(spread), spread, high / 4 - low / 4)
    mean[constant] = np.where(np.isfinite(low[constant]), low[constant], 0.0)
    scale[constant | ~(scale > 0.0)] = 1.0
    return mean, scale, constant


def _moments(X, W, present, safe):
    """Weighted mean and standard deviation of every column over its present values
    (``present`` and ``W`` None: every cell, weight 1; the same sums, as 1 x v is v)."""
    if present is None:
        mean = X.sum(axis=0) / safe
        D = X - mean
        np.multiply(D, D, out=D)
        return mean, np.sqrt(D.sum(axis=0) / safe)
    mean = (W * np.where(present, X, 0.0)).sum(axis=0) / safe
    D = np.where(present, X - mean, 0.0)
    return mean, np.sqrt((W * D * D).sum(axis=0) / safe)


def _shares(rotation, constant):
    """How an axis' importance is shared among the features: the squares of its loadings
    (unit length: they sum to 1), among the features that varied in training when it has
    any (a constant one, rotated only for its missing cells, moves no axis)."""
    shares = rotation.multiply(rotation).tocsc()
    if constant is None or not constant[shares.indices].any():   # none is rotated
        return shares
    varied = sp.diags((~constant).astype(np.float64)) @ shares
    sums = np.asarray(varied.sum(axis=0)).ravel()
    keep = sums > 0
    scale = np.where(keep, 1.0 / np.where(keep, sums, 1.0), 0.0)
    return (varied @ sp.diags(scale)) + (shares @ sp.diags((~keep).astype(np.float64)))


def _rotated_features(X, constant, missing):
    """The features that the rotations mix: all but the training-constant ones (they
    carry nothing a tree could split on, and an axis that mixed one would move with a
    test value the trees never learned).  With ``missing="route"`` a constant feature
    with both present and missing values is kept: its missing cells hide its group's
    axes, which is information (an all-missing one would hide them in every row).  When
    no feature qualifies, all are kept."""
    keep = ~constant
    if missing == "route":
        nan = np.isnan(X)
        keep |= nan.any(axis=0) & ~nan.all(axis=0)
    used = np.flatnonzero(keep)
    return used if used.size else np.arange(constant.size)


def _normalise(X, mean, scale, constant=None, n_threads=1):
    """Normalised rows with missing cells set to 0 (the training mean), and the mask of
    the missing cells (None when there is none).  Features ``constant`` in training
    normalise to 0 whatever their value (a tree ignores a feature it never saw vary);
    only whether they are missing remains.  Column-major (the projections read columns),
    blocks of columns in up to ``n_threads`` threads."""
    Z = np.empty(X.shape, order="F")
    mask = np.empty(X.shape, dtype=bool, order="F")

    def block(a, b):
        """Fills Z[:, a:b] and mask[:, a:b]; whether a cell there is missing."""
        Xb, Zb, m, s = X[:, a:b], Z[:, a:b], mean[a:b], scale[a:b]
        with np.errstate(over="ignore"):
            np.subtract(Xb, m, out=Zb)
            np.divide(Zb, s, out=Zb)
        wild = np.isinf(Zb)
        if wild.any():      # X - mean overflowed (values near the largest floats)
            Zb[wild] = (Xb / s - m / s)[wild]
        if constant is not None and constant[a:b].any():
            c = constant[a:b]
            Zb[:, c] = np.where(np.isnan(Xb[:, c]), np.nan, 0.0)
        missing = np.isnan(Zb, out=mask[:, a:b])
        if not missing.any():
            return False
        Zb[missing] = 0.0
        return True

    n_threads = min(n_threads, X.size // _NORMALISE_CELLS_PER_THREAD)
    if not any(column_ranges_in_threads(block, X.shape[1], n_threads)):
        return Z, None
    return Z, mask


def _product(A, R, data):
    """``A @ R`` for a CSC matrix ``R`` whose entries are replaced by ``data``, column-major.
    The GIL-free kernel is several times faster than scipy's sparse product on rotations
    (no copies of A), and unlike a dense BLAS product it starts no threads inside the
    forest's own threads.  A column-major A is used as it is; a row-major one is copied."""
    return _builder.project_sparse(np.asfortranarray(A), R.indptr.astype(np.int64),
                                   R.indices.astype(np.int64), data, R.shape[0])


class _Rotated:
    """Projects normalised rows onto a tree's axes (or many trees' stacked axes).

    Missing cells are 0, the training mean, in the rows.  With ``missing="route"`` an
    axis that mixes a missing feature is itself missing (NaN): the tree sends it down the
    side it learned for missing values.  With ``missing="impute"`` the axes keep the
    imputed values, and indicator columns of the features that had missing values in
    training follow the axes, unrotated.  The categorical features (mask
    ``categorical``; ``mean`` and ``scale`` of the normalisation give their codes back)
    are rotated with the others as numbers, and also come last as they are, their
    missing cells NaN, for the trees' splits on sets of levels."""

    def __init__(self, missing, missing_features, categorical=None, mean=None, scale=None):
        self.missing = missing
        self.missing_features = missing_features
        self.categorical = None
        if categorical is not None and np.any(categorical):
            self.categorical = np.flatnonzero(categorical)
            self.mean = mean[self.categorical]
            self.scale = scale[self.categorical]

    def extra_features(self):
        """The original features of the columns after the axes, in their order: the
        missing-value indicators (missing="impute"), then the categorical features' codes
        (int arrays, maybe empty)."""
        none = np.zeros(0, dtype=np.int64)
        indicators = (np.asarray(self.missing_features, dtype=np.int64)
                      if self.missing == "impute" else none)
        return indicators, none if self.categorical is None else self.categorical

    def n_extra(self):
        """How many indicator and categorical columns follow the axes."""
        indicators, codes = self.extra_features()
        return indicators.size, codes.size

    def axes(self, R, Z, mask):
        R = R.tocsc()             # no copy for the stacked rotations fit stores
        P = _product(Z, R, R.data)
        if mask is not None and self.missing == "route":
            touched = _product(np.asarray(mask, dtype=np.float64), R, np.ones_like(R.data))
            P[touched > 0] = np.nan
        return P

    def extra(self, Z, mask):
        """The indicator and categorical columns (None when there are none)."""
        parts = []
        if self.missing == "impute" and self.missing_features.size:
            parts.append(np.zeros((Z.shape[0], self.missing_features.size)) if mask is None
                         else mask[:, self.missing_features].astype(np.float64))
        if self.categorical is not None:
            # the normalisation undone: integer codes, exact after rounding (a column
            # constant in training normalised to 0: its one code)
            codes = np.round(Z[:, self.categorical] * self.scale + self.mean)
            if mask is not None:
                codes = np.where(mask[:, self.categorical] != 0, np.nan, codes)
            parts.append(codes)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else np.hstack(parts)

    def category_mask(self, P):
        """Which columns of P (a tree's) are categorical features (the last ones), or
        None."""
        if self.categorical is None:
            return None
        mask = np.zeros(P.shape[1], dtype=bool)
        mask[P.shape[1] - self.categorical.size:] = True
        return mask

    def categories(self, P, keys, binned=None):
        """The category table of the columns P (a tree's), from its presorted ``keys``
        or, when it grows on bins, its ``binned`` features; None without categorical
        features."""
        mask = self.category_mask(P)
        if mask is None:
            return None, None
        if binned is not None:
            return mask, _bins.category_table(P, mask, binned)
        return mask, _builder.category_codes(P, keys, mask.astype(np.uint8))

    def __call__(self, R, Z, mask):
        P = self.axes(R, Z, mask)
        extra = self.extra(Z, mask)
        return P if extra is None else np.hstack([P, extra])
