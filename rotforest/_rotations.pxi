# The rotation forest's kernels: sparse projections, and each tree's rotation drawn in
# one call (its C code in _rotations.h).
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Rotations
# ----------------------------------------------------------------------------------------

def project_sparse(const double[::1, :] Z, const int64_t[::1] indptr,
                   const int64_t[::1] indices, const double[::1] data, Py_ssize_t n_in):
    """``Z @ R`` for a sparse ``R`` of ``n_in`` rows given in CSC form (column j of R:
    entries ``indptr[j]:indptr[j + 1]``), as a column-major array, without the GIL and
    without BLAS threads.

    Meant for rotations (block-diagonal, or many trees' side by side), where a BLAS
    product would spend its time on zeros and a scipy sparse product on copies.  Rows
    are taken in blocks that stay in cache while every output column is written once."""
    cdef Py_ssize_t n = Z.shape[0], n_out = indptr.shape[0] - 1, r0, r1, r, j, p, i
    cdef double v
    if n_in != Z.shape[1]:
        raise ValueError("R must have one row per column of Z")
    if n_out < 0 or indptr[0] != 0 or indptr[n_out] > indices.shape[0] \
            or indptr[n_out] > data.shape[0]:
        raise ValueError("R's indptr does not match its entries")
    for j in range(n_out):
        if indptr[j] > indptr[j + 1]:
            raise ValueError("R's indptr must be non-decreasing")
    for p in range(indptr[n_out]):
        if indices[p] < 0 or indices[p] >= n_in:
            raise ValueError("R has a row index out of range")
    out = np.zeros((n, n_out), dtype=np.float64, order="F")
    cdef double[::1, :] o = out
    with nogil:
        for r0 in range(0, n, 256):
            r1 = min(r0 + 256, n)
            for j in range(n_out):
                for p in range(indptr[j], indptr[j + 1]):
                    i = indices[p]
                    v = data[p]
                    for r in range(r0, r1):
                        o[r, j] += Z[r, i] * v
    return out


cdef extern from "_rotations.h":
    int RF_MOM_MAX
    void rf_group_moments(const double* Zt, int64_t n, const int64_t* groups, int64_t m,
                          int64_t size, const uint8_t* keep, double* sums,
                          double* cross, int avx512) noexcept nogil
    int rf_draw_rotation(const double* Zt, int64_t n, const int32_t* y, int64_t n_classes,
                         const int64_t* features, int64_t n_axes, int64_t size, int pca,
                         uint64_t seed, double noise, int avx512, int32_t* indptr,
                         int32_t* indices, double* data, int64_t* order_out,
                         uint8_t* keep_out) noexcept nogil


MAX_ROTATION_GROUP = RF_MOM_MAX


def rotation(Zt, y, const int64_t[::1] features, Py_ssize_t size, bint pca,
             uint64_t seed, double noise, bint trace=False):
    """One tree's rotation, drawn in one call without the GIL: the CSC arrays
    ``(indptr, indices, data)`` (int32, int32, float64) of an (n_features x
    len(features)) matrix whose column ``j`` is the axis of ``features[j]`` (features
    increasing, rows of ``Zt``: the normalised data transposed, C-contiguous).  The
    features are shuffled and cut into groups of ``size`` (1 to 8; the last one
    shorter), each block the group's principal axes with ``pca`` (over the rows whose
    code in ``y``, int32 from 0, is in a random non-empty subset of the codes, each row
    kept with probability 3/4; largest variance first) or a uniformly random orthonormal
    block without (``Zt`` and ``y`` may then be None).  Loadings below ``noise`` are set
    to 0.  All draws come from the seed.  With ``trace``, also the features' random
    order and the rows each group kept (tests)."""
    cdef int64_t n_axes = features.shape[0], F, n = 0, n_classes = 0, i, n_groups, nnz, r
    cdef const double[:, ::1] zt
    cdef const int32_t[::1] codes
    cdef const double* zp = NULL
    cdef const int32_t* yp = NULL
    if size < 1 or size > RF_MOM_MAX:
        raise ValueError(f"groups of 1 to {RF_MOM_MAX} features, got {size}")
    if n_axes == 0:
        raise ValueError("no feature to rotate")
    if pca:
        zt = Zt
        codes = y
        F, n = zt.shape[0], zt.shape[1]
        if codes.shape[0] != n:
            raise ValueError("y must have one code per column of Zt")
        if n > 0:
            zp = &zt[0, 0]
            yp = &codes[0]
        for i in range(n):
            if codes[i] < 0 or codes[i] >= n:
                raise ValueError("the codes in y must be non-negative and below the "
                                 "number of rows")
            if codes[i] >= n_classes:
                n_classes = <int64_t> codes[i] + 1
    else:
        F = features[n_axes - 1] + 1 if Zt is None else Zt.shape[0]
    for i in range(n_axes):
        if features[i] < 0 or features[i] >= F or (i > 0 and features[i] <= features[i - 1]):
            raise ValueError("features must be increasing and index rows of Zt")
    if F > 2147483647:
        raise ValueError("too many features for int32 indices")
    size = min(size, n_axes)
    r = n_axes % size
    nnz = (n_axes - r) * size + r * r
    if nnz > 2147483647:
        raise ValueError("too many loadings for int32 indices")
    n_groups = n_axes // size + (r > 0)
    indptr = np.empty(n_axes + 1, dtype=np.int32)
    indices = np.empty(nnz, dtype=np.int32)
    data = np.empty(nnz, dtype=np.float64)
    order = np.empty(n_axes if trace else 1, dtype=np.int64)
    keep = np.zeros((n_groups if trace else 1, n if trace else 1), dtype=np.uint8)
    cdef int32_t[::1] ip = indptr, ix = indices
    cdef double[::1] dv = data
    cdef int64_t[::1] ov = order
    cdef uint8_t[:, ::1] kv = keep
    cdef int status
    with nogil:
        status = rf_draw_rotation(zp, n, yp, n_classes, &features[0], n_axes, size,
                                  pca and n > 0, seed, noise, _USE_AVX512, &ip[0], &ix[0],
                                  &dv[0], &ov[0] if trace else NULL,
                                  &kv[0, 0] if trace and n > 0 else NULL)
    if status != 0:
        raise MemoryError("not enough memory for a rotation")
    if trace:
        return indptr, indices, data, order, keep
    return indptr, indices, data


def group_moments(const double[:, ::1] Zt, const int64_t[:, ::1] groups,
                  const uint8_t[:, ::1] keep):
    """For each row g of ``groups`` (m groups of ``size`` <= 8 features, rows of the
    transposed data ``Zt``), the sums over the rows kept for it (``keep[g]`` nonzero) of
    its features, (m, size), and of their products, (m, size, size), without the GIL:
    the moments kernel that :func:`rotation` runs for each group, exposed alone so that
    its tests can check it against numpy to rounding, for every group size, row counts
    around its blocks of 8, and its AVX-512 form against the portable one."""
    cdef int64_t m = groups.shape[0], size = groups.shape[1], n = Zt.shape[1], g, a
    if size < 1 or size > RF_MOM_MAX:
        raise ValueError(f"groups of 1 to {RF_MOM_MAX} features, got {size}")
    if keep.shape[0] != m or keep.shape[1] != n:
        raise ValueError("keep must have one row per group and one column per sample")
    for g in range(m):
        for a in range(size):
            if groups[g, a] < 0 or groups[g, a] >= Zt.shape[0]:
                raise ValueError("a group's feature is out of range")
    sums = np.empty((m, size), dtype=np.float64)
    cross = np.empty((m, size, size), dtype=np.float64)
    cdef double[:, ::1] s = sums
    cdef double[:, :, ::1] c = cross
    if m > 0 and n > 0:
        with nogil:
            rf_group_moments(&Zt[0, 0], n, &groups[0, 0], m, size, &keep[0, 0], &s[0, 0],
                             &c[0, 0, 0], _USE_AVX512)
    elif m > 0:
        sums[:] = 0.0
        cross[:] = 0.0
    return sums, cross
