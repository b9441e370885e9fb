# Projections for the rotation forest.
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


def group_moments(const double[:, ::1] Zt, const int64_t[:, ::1] groups,
                  const uint8_t[:, ::1] keep):
    """For each row g of ``groups`` (m groups of ``size`` <= 8 features, rows of the
    transposed data ``Zt``), the sums over the rows kept for it (``keep[g]`` nonzero) of
    its features, (m, size), and of their products, (m, size, size), without the GIL:
    the moments of the rotation forest's PCA, in one pass over each group's rows instead
    of numpy's copy of the groups and batched products."""
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
