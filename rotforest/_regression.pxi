# The scan of the regression criteria: a numeric target on the same lists.
# Included by _builder.pyx (one compiled module: the kernels inline across files).

# ----------------------------------------------------------------------------------------
# Regression.  A node keeps the sums of w y, w y^2 and (Poisson) w y log y of its samples
# in place of class weights (see _accumulate); the squared error's scan needs only the
# running sums of w and w y over a feature's slice, the target being read from yv by
# sample index.  Features with missing values in the node, constrained features and the
# Poisson criterion use _scan_missing, which keeps the same sums, with the children's
# means in place of the class-0 fractions.
# ----------------------------------------------------------------------------------------

cdef double _scan_regression(Builder* B, const key_t* L, int64_t s, int64_t e,
                             const double* tot, double wtot, int64_t* pos) noexcept nogil:
    """A feature without missing values in the node and without a constraint.  Squared
    error (and Friedman's, which orders the cuts alike): the proxy sl^2/wl + sr^2/wr =
    num / den, the quotient formed only for cuts that pass the screen (as in the Gini
    kernels, see RF_SCREEN).  Poisson: _reg_proxy at every cut.  The first of equal cuts
    wins."""
    cdef int64_t lo = s + B.min_samples_leaf, hi = e - B.min_samples_leaf, p
    cdef int rs = B.rshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask
    cdef const double* w = B.w
    cdef const double* yv = B.yv
    cdef double sl = 0.0, wl = 0.0, wi, wr, sr, st = tot[0], minw = B.min_weight_leaf
    cdef double best = -INFINITY, num, den, bound, proxy
    cdef bint packed = B.packed, poisson = B.criterion == CRIT_POISSON
    cdef key_t k
    for p in range(s, hi):
        k = L[p]
        if packed:
            wi = <double> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        sl += wi * yv[k & im]
        wl += wi
        if ((L[p + 1] ^ k) >> rs) != 0 and p + 1 >= lo:
            wr = wtot - wl
            if wl >= minw and wr >= minw:
                sr = st - sl
                if poisson:
                    proxy = _reg_proxy(CRIT_POISSON, sl, wl, sr, wr)
                    if proxy > best:
                        best = proxy
                        pos[0] = p + 1
                    continue
                num = sl * sl * wr + sr * sr * wl
                den = wl * wr
                bound = best * RF_SCREEN * den
                if (num > bound or bound < 1e-290) and num / den > best:
                    best = num / den
                    pos[0] = p + 1
    return best
