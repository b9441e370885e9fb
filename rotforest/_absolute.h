/* rotforest: the absolute-error criterion's kernel, running weighted medians over a
   doubly linked list of a node's samples in increasing target (see _absolute.pxi). */
#ifndef ROTFOREST_ABSOLUTE_H
#define ROTFOREST_ABSOLUTE_H
#include <stdint.h>
#include "_prefetch.h"
#include "_compiler.h"

/* A sample of the node, by its rank in y: its weight, centred target and neighbours
   still present (32 bytes: two records a cache line, one line per access). */
typedef struct { double w; double y; int32_t p; int32_t n; int64_t pad; } rf_rec;
/* A set of the node's samples: its weight W, sum of w y S, and its lower weighted
   median m (the first rank whose cumulative weight reaches W / 2) with the weight wm
   and sum of w y sm of the ranks up to m included. */
typedef struct { double W; double S; double wm; double sm; int64_t m; } rf_abs_state;
#ifndef RF_ABS_AHEAD
#define RF_ABS_AHEAD 16           /* deletions ahead whose record is prefetched */
#endif

/* Every rank 1..n present; the sentinels 0 and n + 1 (weight 0) point at themselves
   outwards. */
static inline void rf_abs_link(rf_rec* R, int64_t n) {
    for (int64_t r = 0; r < n + 2; r++) {
        R[r].p = (int32_t)(r - 1);
        R[r].n = (int32_t)(r + 1);
    }
    R[0].p = 0;
    R[n + 1].n = (int32_t)(n + 1);
}

/* A sum of absolute deviations as the running sums give it, less rounding below 0: a
   negative one (large targets, many deletions) would let a cut look better than one
   whose children have none, and the scan's early stop assumes none is negative. */
static inline double rf_abs_nonneg(double sad) {
    return sad > 0.0 ? sad : 0.0;
}

/* The set's sum of absolute deviations from its median: with the lower median m,
   y_m (2 wm - W) - 2 sm + S. */
static inline double rf_abs_sad(const rf_rec* R, const rf_abs_state* st) {
    return rf_abs_nonneg(R[st->m].y * (2.0 * st->wm - st->W) - 2.0 * st->sm + st->S);
}

/* The set's median as scikit-learn takes it: the mean of the lower median and the next
   value when the weight up to the lower one is exactly half. */
static inline double rf_abs_median(const rf_rec* R, const rf_abs_state* st) {
    if (st->wm == 0.5 * st->W)
        return 0.5 * (R[st->m].y + R[R[st->m].n].y);
    return R[st->m].y;
}

/* Before the deletion at L[q] (count of them left, step apart): prefetches the record of
   the deletion RF_ABS_AHEAD further on and the rank of the one twice as far (they
   survive the pipeline flushes of mispredicted branches). */
static inline RF_ALWAYS_INLINE
void rf_abs_prefetch(const rf_rec* R, const int32_t* rk, const uint64_t* L, uint64_t im,
                     int64_t q, int64_t step, int64_t count) {
    if (count > 2 * RF_ABS_AHEAD)
        RF_PREFETCH_RW(&rk[L[q + 2 * RF_ABS_AHEAD * step] & im], 0, 3);
    if (count > RF_ABS_AHEAD)
        RF_PREFETCH_RW(&R[rk[L[q + RF_ABS_AHEAD * step] & im]], 1, 3);
}

/* Deletes L[q] (rank rk[L[q] & im]) for q = from, from + step, ... short of to, and
   after each deletion writes the SAD of what is left to out[q - base] (and its median
   to med[q - base]) when `record` is set.  A deletion unlinks the rank, then moves the
   median pointer forward while the weight up to it is below half of what is left, and
   back while it would still reach half without its own weight (one step at most for
   unit weights).  (Branches here beat masks: predicted, they let the processor run
   ahead of the chain of moves, each waiting on the one before.) */
static inline RF_ALWAYS_INLINE
void rf_abs_pass_impl(rf_rec* R, const int32_t* rk, const uint64_t* L, uint64_t im,
                      int64_t tail, rf_abs_state* st, int64_t from, int64_t to,
                      int64_t step, double* out, double* med, int64_t base, int record,
                      int medians) {
    double W = st->W, S = st->S, wm = st->wm, sm = st->sm, wr, wyr, half;
    int64_t m = st->m, count = (to - from) * step, q = from, r;
    int32_t pr, nx;
    for (; count > 0; count--, q += step) {
        rf_abs_prefetch(R, rk, L, im, q, step, count);
        r = rk[L[q] & im];
        wr = R[r].w;
        wyr = wr * R[r].y;
        pr = R[r].p;
        nx = R[r].n;
        W -= wr;
        S -= wyr;
        if (r <= m) {
            wm -= wr;
            sm -= wyr;
            if (r == m)
                m = pr;
        }
        R[pr].n = nx;
        R[nx].p = pr;
        half = 0.5 * W;
        while (wm < half && m != tail) {
            m = R[m].n;
            wm += R[m].w;
            sm += R[m].w * R[m].y;
        }
        while (m != 0 && wm - R[m].w >= half) {
            wm -= R[m].w;
            sm -= R[m].w * R[m].y;
            m = R[m].p;
        }
        if (record) {
            out[q - base] = rf_abs_nonneg(R[m].y * (2.0 * wm - W) - 2.0 * sm + S);
            if (medians)
                med[q - base] = (wm == half) ? 0.5 * (R[m].y + R[R[m].n].y) : R[m].y;
        }
    }
    st->W = W;
    st->S = S;
    st->wm = wm;
    st->sm = sm;
    st->m = m;
}

/* rf_abs_pass_impl for a set whose weights are all 1: the median then moves by at most
   one rank a deletion (forward when the deleted rank was at or below it and the set's
   size was even, back when it was above it and the size odd; never both).  Each deleted
   rank is as likely below the median as above it, so a branch on it is mispredicted half
   the time: here the moves are integer selects on counts (the weights up to the median
   and of the set), and the sums of w y change by the same terms in the same order as in
   rf_abs_pass_impl, so the numbers are the same. */
static inline RF_ALWAYS_INLINE
void rf_abs_pass_unit_impl(rf_rec* R, const int32_t* rk, const uint64_t* L, uint64_t im,
                           int64_t tail, rf_abs_state* st, int64_t from, int64_t to,
                           int64_t step, double* out, double* med, int64_t base,
                           int record, int medians) {
    double S = st->S, sm = st->sm, yr, ym;
    int64_t W = (int64_t)st->W, wm = (int64_t)st->wm;
    int64_t m = st->m, count = (to - from) * step, q = from, r, mn, mp, below, fwd, back;
    int32_t pr, nx;
    for (; count > 0; count--, q += step) {
        rf_abs_prefetch(R, rk, L, im, q, step, count);
        r = rk[L[q] & im];
        yr = R[r].y;
        pr = R[r].p;
        nx = R[r].n;
        W -= 1;
        S -= yr;
        below = r <= m;
        wm -= below;
        sm -= (double)below * yr;
        m ^= (m ^ (int64_t)pr) & -(int64_t)(r == m);
        R[pr].n = nx;
        R[nx].p = pr;
        /* forward while the weight up to m is below half the set's; back while the
           weight before m still reaches half */
        mn = R[m].n;
        mp = R[m].p;
        fwd = (2 * wm < W) & (m != tail);
        back = (m != 0) & (2 * (wm - 1) >= W);
        ym = R[m ^ ((m ^ mn) & -fwd)].y;
        wm += fwd - back;
        sm += (double)(fwd - back) * ym;
        m ^= ((m ^ mn) & -fwd) | ((m ^ mp) & -back);
        if (record) {
            out[q - base] = rf_abs_nonneg(R[m].y * (double)(2 * wm - W) - 2.0 * sm + S);
            if (medians)
                med[q - base] = (2 * wm == W) ? 0.5 * (R[m].y + R[R[m].n].y) : R[m].y;
        }
    }
    st->W = (double)W;
    st->S = S;
    st->wm = (double)wm;
    st->sm = sm;
    st->m = m;
}

/* Sets of at most 64 ranks (small nodes): the ranks present are the bits of one word,
   so a set grows by insertion from empty, with no list to link, and the median moves to
   the next or previous rank present by a bit scan.  Inserts L[q] (rank rk[L[q] & im],
   1..64) for q = from, from + step, ... (count of them) and after each insertion writes
   the SAD of the set to out[q - base] (its median to med[q - base] when med is not
   NULL), with the lower weighted median as in rf_abs_pass_impl. */
static void rf_abs_small_general(const rf_rec* R, const int32_t* rk, const uint64_t* L,
                                 uint64_t im, int64_t from, int64_t count, int64_t step,
                                 double* out, double* med, int64_t base) {
    uint64_t mask = 0, below, above;
    double W = 0.0, S = 0.0, wm = 0.0, sm = 0.0, w, wy, half;
    int64_t m = 0, q = from, r, nx;
    for (; count > 0; count--, q += step) {
        r = rk[L[q] & im];
        w = R[r].w;
        wy = w * R[r].y;
        W += w;
        S += wy;
        mask |= (uint64_t)1 << (r - 1);
        if (m == 0) {
            m = r;
            wm = w;
            sm = wy;
        } else if (r < m) {
            wm += w;
            sm += wy;
        }
        half = 0.5 * W;
        for (;;) {                      /* back while the weight before m reaches half */
            below = mask & (((uint64_t)1 << (m - 1)) - 1);
            if (below == 0 || wm - R[m].w < half)
                break;
            wm -= R[m].w;
            sm -= R[m].w * R[m].y;
            m = 64 - rf_clz64(below);
        }
        while (wm < half) {             /* forward while short of half */
            above = m < 64 ? mask & (~(uint64_t)0 << m) : 0;
            if (above == 0)
                break;
            m = rf_ctz64(above) + 1;
            wm += R[m].w;
            sm += R[m].w * R[m].y;
        }
        out[q - base] = rf_abs_nonneg(R[m].y * (2.0 * wm - W) - 2.0 * sm + S);
        if (med) {
            above = m < 64 ? mask & (~(uint64_t)0 << m) : 0;
            nx = above ? rf_ctz64(above) + 1 : m;
            med[q - base] = (wm == half) ? 0.5 * (R[m].y + R[nx].y) : R[m].y;
        }
    }
}

/* rf_abs_small_general for weights all 1: at most one move of the median an insertion (back
   when the weight before it reaches half, forward when the weight up to it is short of
   half; never both), as integer selects on counts, the sums of w y changed by the same
   terms in the same order as there. */
static void rf_abs_small_unit(const rf_rec* R, const int32_t* rk, const uint64_t* L,
                              uint64_t im, int64_t from, int64_t count, int64_t step,
                              double* out, double* med, int64_t base) {
    uint64_t mask, below, above;
    double S, sm, y, ym;
    int64_t W = 1, wm = 1, m, q = from, r, prv, nxt, fwd, back, lt;
    if (count <= 0)
        return;
    /* the first insertion: the set of one rank */
    m = rk[L[q] & im];
    mask = (uint64_t)1 << (m - 1);
    S = R[m].w * R[m].y;
    sm = S;
    for (;;) {
        above = mask & ~(((uint64_t)2 << (m - 1)) - 1);
        out[q - base] = rf_abs_nonneg(R[m].y * (double)(2 * wm - W) - 2.0 * sm + S);
        if (med) {
            nxt = above ? rf_ctz64(above) + 1 : m;
            med[q - base] = (2 * wm == W) ? 0.5 * (R[m].y + R[nxt].y) : R[m].y;
        }
        if (--count == 0)
            break;
        q += step;
        r = rk[L[q] & im];
        y = R[r].y;
        W += 1;
        S += y;
        mask |= (uint64_t)1 << (r - 1);
        lt = r < m;
        wm += lt;
        sm += (double)lt * y;
        below = mask & (((uint64_t)1 << (m - 1)) - 1);
        above = mask & ~(((uint64_t)2 << (m - 1)) - 1);
        back = 2 * (wm - 1) >= W;          /* (then a rank below m is present) */
        fwd = (2 * wm < W) & (above != 0);
        prv = 64 - rf_clz64(below | 1);
        nxt = rf_ctz64(above | ((uint64_t)1 << 63)) + 1;
        ym = R[m ^ ((m ^ nxt) & -fwd)].y;
        wm += fwd - back;
        sm += (double)(fwd - back) * ym;
        m ^= ((m ^ nxt) & -fwd) | ((m ^ prv) & -back);
    }
}

/* Sets of at most 64 ranks grown from empty (rf_abs_small_general), with the
   branch-free moves of rf_abs_small_unit when the weights are all 1 (unit). */
static void rf_abs_small(const rf_rec* R, const int32_t* rk, const uint64_t* L,
                         uint64_t im, int64_t from, int64_t count, int64_t step,
                         double* out, double* med, int64_t base, int unit) {
    if (unit)
        rf_abs_small_unit(R, rk, L, im, from, count, step, out, med, base);
    else
        rf_abs_small_general(R, rk, L, im, from, count, step, out, med, base);
}

/* rf_abs_pass_impl, specialised: no recording (out NULL), costs only, or costs and
   medians (med not NULL). */
static void rf_abs_pass(rf_rec* R, const int32_t* rk, const uint64_t* L, uint64_t im,
                        int64_t tail, rf_abs_state* st, int64_t from, int64_t to,
                        int64_t step, double* out, double* med, int64_t base, int unit) {
    if (unit) {
        if (out == 0)
            rf_abs_pass_unit_impl(R, rk, L, im, tail, st, from, to, step, out, med, base,
                                  0, 0);
        else if (med == 0)
            rf_abs_pass_unit_impl(R, rk, L, im, tail, st, from, to, step, out, med, base,
                                  1, 0);
        else
            rf_abs_pass_unit_impl(R, rk, L, im, tail, st, from, to, step, out, med, base,
                                  1, 1);
    } else if (out == 0)
        rf_abs_pass_impl(R, rk, L, im, tail, st, from, to, step, out, med, base, 0, 0);
    else if (med == 0)
        rf_abs_pass_impl(R, rk, L, im, tail, st, from, to, step, out, med, base, 1, 0);
    else
        rf_abs_pass_impl(R, rk, L, im, tail, st, from, to, step, out, med, base, 1, 1);
}
#endif
