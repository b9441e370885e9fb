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
