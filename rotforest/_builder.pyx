"""Presort and the presorted CART builder.

The lists
---------
``presort(X)`` sorts every feature once: row ``f`` holds the samples ``i`` (32 bits each)
in increasing order of ``X[i, f]``, ties by index, then a bitmap of the positions that
start a new value.  It is only read, so a forest can share it between its trees.  Each
tree copies the rows of its samples (non-zero weight) into working keys that carry the
dense rank of the value (counted from the bitmap), the class and, for integer weights,
the weight (see "Working keys" below): two neighbours in a list have equal values
exactly when their ranks are equal, and the scans read one sequential stream without
touching X.

A node is the same ``[start, end)`` slice of every list.  To split it, the builder marks
which side every sample goes to (a bitmap, walking the winning feature's slice) and
partitions every other feature's slice stably in place: the left keys are packed
forward, the right ones set aside in a scratch the size of one list and copied back
behind them, so a tree needs one copy of the lists.  Features found constant in a node
are remembered and neither scanned nor partitioned below it, and the side of a split
that is certain to become a leaf is not partitioned at all.

The build runs entirely without the GIL.  Depth-first growth (a stack, nodes numbered in
pre-order as scikit-learn does) and best-first growth (a heap keyed by impurity
improvement, for ``max_leaf_nodes``) share every function; only the frontier differs.

Where the processor has AVX-512, the two-class Gini scan with integer weights and the
stable partition run as vector kernels chosen at run time; they perform the same
operations in the same order as the portable kernels and so grow the same trees (the
test suite checks this).  ``ROTFOREST_NO_AVX512=1`` turns them off.
"""
import os as _os

import numpy as np

from libc.stdlib cimport malloc, realloc, free, calloc, qsort
from libc.string cimport memcpy, memset
from libc.math cimport log, ceil, INFINITY, isfinite, isnan
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from rotforest._tree cimport Node
from rotforest._tree import NODE_DTYPE

cdef extern from *:
    """
    #include <string.h>
    #include <stdint.h>
    #include <math.h>
    /* Screening factor of the scalar two-class Gini kernel, which divides only for cuts
       that may beat the best so far: a cut whose proxy q = num / den (rounded) exceeds
       best > 0 has num > best * RF_SCREEN * den even after the two roundings of the
       right-hand side, so a cut failing the screen cannot be better.  (With best = -inf
       or 0 the screen is exact.)  Both kernels thus compare the rounded quotients. */
    #define RF_SCREEN (1.0 - 0x1p-48)
    /* AVX-512 kernels, chosen at run time when the processor has them. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(_WIN32)
    #include <immintrin.h>
    /* Inclusive prefix sum of the 8 lanes of c, plus carry (the same in every lane). */
    static inline __attribute__((always_inline, target("avx512f,avx512dq")))
    __m512i rf_prefix_sum8(__m512i c, __m512i carry) {
        const __m512i zero = _mm512_setzero_si512();
        c = _mm512_add_epi64(c, _mm512_alignr_epi64(c, zero, 7));
        c = _mm512_add_epi64(c, _mm512_alignr_epi64(c, zero, 6));
        c = _mm512_add_epi64(c, _mm512_alignr_epi64(c, zero, 4));
        return _mm512_add_epi64(c, carry);
    }
    /* The last lane of c in every lane: the carry of the next block, kept in a register
       (a round trip through a general register would lengthen the loop's chain). */
    static inline __attribute__((always_inline, target("avx512f,avx512dq")))
    __m512i rf_last_lane(__m512i c) {
        return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), c);
    }
    /* Lanes j of a block at p whose cut p + 1 + j lies in [lo, hi]. */
    static inline uint32_t rf_cut_lanes(int64_t p, int64_t lo, int64_t hi) {
        int64_t a = lo - p - 1, b = hi - p - 1;
        uint32_t m = 0xFF;
        if (b < 0 || a > 7) return 0;
        if (a > 0) m &= 0xFFu << a;
        if (b < 7) m &= 0xFFu >> (7 - b);
        return m & 0xFF;
    }
    /* The largest lane of v, in every lane. */
    static inline __attribute__((always_inline, target("avx512f,avx512dq")))
    __m512d rf_bcast_max(__m512d v) {
        v = _mm512_max_pd(v, _mm512_shuffle_f64x2(v, v, 0x4E));
        v = _mm512_max_pd(v, _mm512_shuffle_f64x2(v, v, 0xB1));
        return _mm512_max_pd(v, _mm512_permute_pd(v, 0x55));
    }
    /* Keeps, in each lane, the best cut that lane has seen among the lanes `lanes` with
       proxies q = vn / vd: q replaces the lane's best when q > best (so a lane keeps the
       first of equals).  Only cuts that may beat a threshold t (in every lane: the best
       of all lanes so far, or a floor given by the caller) matter: thr_s is t times
       RF_SCREEN, the others fail that screen, and when all do, the division (the loop's
       costliest step) is skipped.  Returns whether a lane's best changed. */
    static inline __attribute__((always_inline, target("avx512f,avx512dq"),
                                 optimize("fp-contract=off")))
    int rf_keep8(__mmask8 lanes, __m512d vn, __m512d vd, __m512i cut, __m512d thr_s,
                 __m512d *best, __m512i *pos) {
        lanes &= _mm512_cmp_pd_mask(vn, _mm512_mul_pd(thr_s, vd), _CMP_GT_OQ);
        if (!lanes) return 0;
        __m512d q = _mm512_mask_div_pd(_mm512_set1_pd(-INFINITY), lanes, vn, vd);
        __mmask8 up = _mm512_cmp_pd_mask(q, *best, _CMP_GT_OQ);
        *best = _mm512_mask_mov_pd(*best, up, q);
        *pos = _mm512_mask_mov_epi64(*pos, up, cut);
        return up != 0;
    }
    /* rf_keep8 for two classes: the cuts of lanes `lanes` with l1 of class 1 and weight
       wl on the left (totals vt1, vwt). */
    static inline __attribute__((always_inline, target("avx512f,avx512dq"),
                                 optimize("fp-contract=off")))
    int rf_track8(__mmask8 lanes, __m512d dl1, __m512d dwl, __m512d vt1, __m512d vwt,
                  __m512i cut, __m512d thr_s, __m512d *best, __m512i *pos) {
        __m512d dwr = _mm512_sub_pd(vwt, dwl);
        __m512d dr1 = _mm512_sub_pd(vt1, dl1);
        __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(dl1, dl1), dwr),
                                   _mm512_mul_pd(_mm512_mul_pd(dr1, dr1), dwl));
        return rf_keep8(lanes, vn, _mm512_mul_pd(dwl, dwr), cut, thr_s, best, pos);
    }
    /* Folds the lanes' bests into (*best, *pos): the largest proxy, at its first cut, if
       it beats *best (what a scan in cut order keeping the first of equals finds). */
    static inline __attribute__((always_inline, target("avx512f,avx512dq")))
    void rf_fold8(__m512d bv, __m512i pv, double *best, int64_t *pos) {
        double mx = _mm512_reduce_max_pd(bv);
        if (mx > *best) {
            __mmask8 at = _mm512_cmp_pd_mask(bv, _mm512_set1_pd(mx), _CMP_EQ_OQ);
            *best = mx;
            *pos = _mm512_mask_reduce_min_epi64(at, pv);
        }
    }
    /* The 8 keys at p, returned; *m, the lanes whose rank differs from the next key's
       (a cut may follow them); *w their weights, read from the keys or all 1 (unit). */
    static inline __attribute__((always_inline, target("avx512f,avx512dq")))
    __m512i rf_keys8(const uint64_t *L, int64_t p, const int unit, __m128i rsv,
                     __m128i wsv, __m512i wmv, __mmask8 *m, __m512i *w) {
        __m512i k = _mm512_loadu_si512((const void *)(L + p));
        __m512i kn = _mm512_loadu_si512((const void *)(L + p + 1));
        *m = _mm512_test_epi64_mask(_mm512_srl_epi64(_mm512_xor_si512(k, kn), rsv),
                                    _mm512_set1_epi64(-1));
        *w = unit ? _mm512_set1_epi64(1) : _mm512_and_si512(_mm512_srl_epi64(k, wsv), wmv);
        return k;
    }
    /* The block of 8 keys at p (rf_keys8) with two classes: the class-1 weight (*l1v)
       and weight (*wlv) up to and including each lane, carried from block to block in
       *l1c and *wlc (unit: *wlv is left alone, the caller knows it). */
    static inline __attribute__((always_inline, target("avx512f,avx512dq")))
    void rf_block8(const uint64_t *L, int64_t p, const int unit, __m128i rsv, __m128i csv,
                   __m128i wsv, __m512i wmv, __mmask8 *m, __m512i *l1v, __m512i *wlv,
                   __m512i *l1c, __m512i *wlc) {
        __m512i wv;
        __m512i k = rf_keys8(L, p, unit, rsv, wsv, wmv, m, &wv);
        __m512i c = _mm512_and_si512(_mm512_srl_epi64(k, csv), _mm512_set1_epi64(1));
        if (!unit) {
            c = _mm512_mullo_epi64(c, wv);
            *wlv = rf_prefix_sum8(wv, *wlc);
            *wlc = rf_last_lane(*wlv);
        }
        *l1v = rf_prefix_sum8(c, *l1c);
        *l1c = rf_last_lane(*l1v);
    }
    /* The two-class Gini scan over 8 cuts at a time with AVX-512 (integer weights), used
       when the processor has it.  It performs the same floating-point operations in the
       same order as the scalar kernel (no fused multiply-add), so both choose the same
       split.  Cuts lie at c = p + 1 for p in [s, hi), where the values on both sides
       differ; each is scored with the left counts as they are (when c is in [lo1, hi1])
       and plus (m1, mw), the missing samples of the node (when c is in [lo2, hi2]; an
       empty range when there are none: two = 0).  It scans all of [s, hi): the last
       block is read whole (L must be readable 8 keys past hi), its lanes past hi masked.
       Integer weights read from the keys, or all 1 (unit: the left weight is the
       position). */
    static inline __attribute__((always_inline, target("avx512f,avx512dq"),
                                 optimize("fp-contract=off")))
    void rf_gini_binary_avx512_impl(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1,
            int64_t lo2, int64_t hi2, int cs, int rs, int ws, uint64_t wm, const int unit,
            const int two, double dt1, double dwt, double m1, double mw, double *best1_io,
            int64_t *pos1, double *best2_io, int64_t *pos2) {
        const __m512d iota = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1);
        const __m512i iotai = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
        const __m512i wmv = _mm512_set1_epi64((long long)wm);
        const __m128i csv = _mm_cvtsi32_si128(cs), rsv = _mm_cvtsi32_si128(rs);
        const __m128i wsv = _mm_cvtsi32_si128(ws);
        const __m512d vt1 = _mm512_set1_pd(dt1), vwt = _mm512_set1_pd(dwt);
        const __m512d vm1 = _mm512_set1_pd(m1), vmw = _mm512_set1_pd(mw);
        __m512i l1c = _mm512_setzero_si512(), wlc = l1c;
        __m512d b1 = _mm512_set1_pd(*best1_io), b2 = _mm512_set1_pd(*best2_io);
        const __m512d vs = _mm512_set1_pd(RF_SCREEN);
        __m512d t1 = b1, t2 = _mm512_max_pd(b1, b2);
        __m512d t1s = _mm512_mul_pd(t1, vs), t2s = _mm512_mul_pd(t2, vs);
        /* With missing samples, one screen serves both directions in most blocks: for
           either direction, l1^2/wl + r1^2/wr is at most the proxy of the three groups
           (present left, present right, missing), l1^2/wl + rp1^2/wrp + m1^2/mw (the
           square of a sum over a sum never exceeds the sum of the squares over their
           weights), so a cut that beats t1 (<= t2) has l1^2/wl + rp1^2/wrp > t1 - C,
           C = m1^2/mw.  The slack of 2^-46 on t1 and C covers every rounding, and the
           test is the screen of RF_SCREEN on the split of the present samples alone. */
        const __m512d vt1p = _mm512_sub_pd(vt1, vm1), vwtp = _mm512_sub_pd(vwt, vmw);
        const __m512d va = _mm512_set1_pd(1.0 - 0x1p-46);
        const __m512d vcb = _mm512_set1_pd(two ? m1 * m1 / mw * (1.0 + 0x1p-46) : 0.0);
        __m512d t3s = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(t1, va), vcb), vs);
        __m512i q1 = _mm512_set1_epi64(-1), q2 = q1;
        int64_t p;
        for (p = s; p < hi; p += 8) {
            __mmask8 m;
            __m512i l1v, wlv = _mm512_setzero_si512();
            rf_block8(L, p, unit, rsv, csv, wsv, wmv, &m, &l1v, &wlv, &l1c, &wlc);
            __m512d dwl = unit ? _mm512_add_pd(_mm512_set1_pd((double)(p - s)), iota)
                               : _mm512_cvtepi64_pd(wlv);
            __mmask8 m1k = m & (__mmask8)rf_cut_lanes(p, lo1, hi1);
            __mmask8 m2k = two ? m & (__mmask8)rf_cut_lanes(p, lo2, hi2) : 0;
            if (!(m1k | m2k)) continue;
            __m512d dl1 = _mm512_cvtepi64_pd(l1v);
            __m512i cut = _mm512_add_epi64(_mm512_set1_epi64(p), iotai);
            if (two) {
                __m512d dwr = _mm512_sub_pd(vwtp, dwl), dr1 = _mm512_sub_pd(vt1p, dl1);
                __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(dl1, dl1), dwr),
                                           _mm512_mul_pd(_mm512_mul_pd(dr1, dr1), dwl));
                __m512d vd = _mm512_mul_pd(dwl, dwr);
                if (!_mm512_mask_cmp_pd_mask(m1k | m2k, vn, _mm512_mul_pd(t3s, vd),
                                             _CMP_GT_OQ))
                    continue;
            }
            if (rf_track8(m1k, dl1, dwl, vt1, vwt, cut, t1s, &b1, &q1)) {
                t1 = rf_bcast_max(b1);
                t2 = _mm512_max_pd(t2, t1);
                t1s = _mm512_mul_pd(t1, vs);
                t2s = _mm512_mul_pd(t2, vs);
                t3s = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(t1, va), vcb), vs);
            }
            /* a cut missing-left wins only if it beats every cut missing-right */
            if (two && rf_track8(m2k, _mm512_add_pd(dl1, vm1), _mm512_add_pd(dwl, vmw),
                                 vt1, vwt, cut, t2s, &b2, &q2)) {
                t2 = _mm512_max_pd(t2, rf_bcast_max(b2));
                t2s = _mm512_mul_pd(t2, vs);
            }
        }
        rf_fold8(b1, q1, best1_io, pos1);
        if (two) rf_fold8(b2, q2, best2_io, pos2);
    }
    __attribute__((target("avx512f,avx512dq"), optimize("fp-contract=off")))
    static void rf_gini_binary_avx512(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1,
            int64_t lo2, int64_t hi2, int cs, int rs, int ws, uint64_t wm, double dt1,
            double dwt, double m1, double mw, double *best1_io, int64_t *pos1,
            double *best2_io, int64_t *pos2) {
        /* unit and two are constants inside: four specialised loops */
        #define RF_GINI2(U, T) rf_gini_binary_avx512_impl(L, s, hi, lo1, hi1, lo2, hi2, \
            cs, rs, ws, wm, U, T, dt1, dwt, m1, mw, best1_io, pos1, best2_io, pos2)
        int two = lo2 <= hi2;
        if (wm == 1) { if (two) RF_GINI2(1, 1); else RF_GINI2(1, 0); }
        else { if (two) RF_GINI2(0, 1); else RF_GINI2(0, 0); }
        #undef RF_GINI2
    }
    /* Bound for the two-class entropy screen below: a cut whose entropy proxy beats t
       has a Gini proxy l1^2/wl + r1^2/wr above the value returned (-inf for t = -inf). */
    static inline double rf_entropy_screen(double t, double dt1, double slack) {
        if (t == -INFINITY) return -INFINITY;
        return dt1 + t * (1.0 / (4.0 * 0.693147180559945309417)) - slack;
    }
    /* The two-class entropy scan with AVX-512, for integer weights read from the keys and
       x log x read from the table f (x up to the node's weight).  The proxy of a cut is
       f(l0) + f(r0) + f(l1) + f(r1) - f(wl) - f(wr), formed in the scalar kernel's order,
       so both choose the same cut.  Cuts c = p + 1 for p in [s, hi) between distinct
       values, scored when c is in [lo, hi1]; only cuts beating *best_io (the node's best
       proxy so far) matter, and the result is the first of the best of those (*best_io,
       *pos_io unchanged when none).  Screen: binary entropy in nats is at least
       4 ln 2 p (1 - p), so a cut's proxy -(wl H(pl) + wr H(pr)) is at most
       4 ln 2 (Q - t1), Q = l1^2/wl + r1^2/wr; a cut can beat t only if
       Q > t1 + t / (4 ln 2), tested as a product (a slack of 1e-9 of the proxies'
       scale covers the roundings), and the table is read only for lanes that pass. */
    __attribute__((target("avx512f,avx512dq"), optimize("fp-contract=off")))
    static void rf_entropy_binary_avx512(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int64_t hi1, int cs,
            int rs, int ws, uint64_t wm, double dt1, double dwt, const double *f,
            double *best_io, int64_t *pos_io) {
        const __m512i iotai = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
        const __m512i wmv = _mm512_set1_epi64((long long)wm);
        const __m128i csv = _mm_cvtsi32_si128(cs), rsv = _mm_cvtsi32_si128(rs);
        const __m128i wsv = _mm_cvtsi32_si128(ws);
        const __m512d vt1 = _mm512_set1_pd(dt1), vwt = _mm512_set1_pd(dwt);
        const __m512i it1 = _mm512_set1_epi64((long long)dt1);
        const __m512i iwt = _mm512_set1_epi64((long long)dwt);
        const double slack = 1e-9 * (dwt * (log(dwt) + 1.0) + dt1);   /* >= |proxies| */
        __m512i l1c = _mm512_setzero_si512(), wlc = l1c;
        __m512d b = _mm512_set1_pd(*best_io);
        __m512d vbs = _mm512_set1_pd(rf_entropy_screen(*best_io, dt1, slack));
        __m512i q = _mm512_set1_epi64(-1);
        int64_t p;
        for (p = s; p < hi; p += 8) {
            __mmask8 m;
            __m512i l1v, wlv = _mm512_setzero_si512();
            rf_block8(L, p, 0, rsv, csv, wsv, wmv, &m, &l1v, &wlv, &l1c, &wlc);
            __mmask8 lanes = m & (__mmask8)rf_cut_lanes(p, lo, hi1);
            if (!lanes) continue;
            __m512d dl1 = _mm512_cvtepi64_pd(l1v), dwl = _mm512_cvtepi64_pd(wlv);
            __m512d dwr = _mm512_sub_pd(vwt, dwl), dr1 = _mm512_sub_pd(vt1, dl1);
            __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(dl1, dl1), dwr),
                                       _mm512_mul_pd(_mm512_mul_pd(dr1, dr1), dwl));
            lanes = _mm512_mask_cmp_pd_mask(lanes, vn,
                                            _mm512_mul_pd(vbs, _mm512_mul_pd(dwl, dwr)),
                                            _CMP_GT_OQ);
            if (!lanes) continue;
            __m512i iwr = _mm512_sub_epi64(iwt, wlv), ir1 = _mm512_sub_epi64(it1, l1v);
            __m512i il0 = _mm512_sub_epi64(wlv, l1v), ir0 = _mm512_sub_epi64(iwr, ir1);
            const __m512d z = _mm512_setzero_pd();
            __m512d fl0 = _mm512_mask_i64gather_pd(z, lanes, il0, f, 8);
            __m512d fr0 = _mm512_mask_i64gather_pd(z, lanes, ir0, f, 8);
            __m512d fl1 = _mm512_mask_i64gather_pd(z, lanes, l1v, f, 8);
            __m512d fr1 = _mm512_mask_i64gather_pd(z, lanes, ir1, f, 8);
            __m512d fwl = _mm512_mask_i64gather_pd(z, lanes, wlv, f, 8);
            __m512d fwr = _mm512_mask_i64gather_pd(z, lanes, iwr, f, 8);
            __m512d acc = _mm512_add_pd(_mm512_add_pd(fl0, fr0), _mm512_add_pd(fl1, fr1));
            __m512d pr = _mm512_sub_pd(_mm512_sub_pd(acc, fwl), fwr);
            __mmask8 up = _mm512_mask_cmp_pd_mask(lanes, pr, b, _CMP_GT_OQ);
            if (!up) continue;
            b = _mm512_mask_mov_pd(b, up, pr);
            q = _mm512_mask_mov_epi64(q, up, _mm512_add_epi64(_mm512_set1_epi64(p), iotai));
            vbs = _mm512_set1_pd(rf_entropy_screen(_mm512_reduce_max_pd(b), dt1, slack));
        }
        rf_fold8(b, q, best_io, pos_io);
    }
    /* The Gini scan with more than two classes, 8 cuts at a time with AVX-512, for
       integer weights read from the keys (or all 1: unit).  A cut's proxy is
       (sql wr + sqr wl) / (wl wr), sql and sqr the sums of the squared class weights
       left and right, formed from exact integers in the portable kernel's order, so
       both choose the same cut.  The class weights left live in cl (zeroed by the
       caller), gathered at each block and scattered back after it (a scatter writes
       its lanes in order, so the last lane of a class leaves its count); within a
       block, each lane adds the weights of the earlier lanes of its class, found by
       comparing the classes shifted by 1 to 7 lanes.  sql grows by w (2a + w) when a
       sample of weight w joins a class holding a, and sqr = t2 - 2 S + sql with
       t2 = sum of tot^2 and S = sum over the samples left of w tot[class] (tot: the
       node's class weights).  Cuts c = p + 1 for p in [s, hi) between distinct
       values, scored when c is in [lo, hi]; only cuts beating *best_io (the node's
       best so far) matter, screened by rf_keep8; the first of the best of those
       is returned (*best_io, *pos_io unchanged when none).  The last block is read
       whole (L readable 8 keys past hi), its lanes past hi masked. */
    static inline __attribute__((always_inline, target("avx512f,avx512dq"),
                                 optimize("fp-contract=off")))
    void rf_gini_multi_avx512_impl(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
            uint64_t cm, uint64_t wm, const int unit, int64_t *cl, const int64_t *tot,
            int64_t t2, double dwt, double *best_io, int64_t *pos_io) {
        const __m512d iota = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1);
        const __m512i iotai = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
        const __m512i cmv = _mm512_set1_epi64((long long)cm);
        const __m512i wmv = _mm512_set1_epi64((long long)wm);
        const __m128i csv = _mm_cvtsi32_si128(cs), rsv = _mm_cvtsi32_si128(rs);
        const __m128i wsv = _mm_cvtsi32_si128(ws);
        const __m512i zero = _mm512_setzero_si512(), none = _mm512_set1_epi64(-1);
        const __m512i vt2 = _mm512_set1_epi64((long long)t2);
        const __m512d vwt = _mm512_set1_pd(dwt), vs = _mm512_set1_pd(RF_SCREEN);
        __m512i sqc = zero, stc = zero, wlc = zero, q = none;
        __m512d b = _mm512_set1_pd(*best_io);
        __m512d ts = _mm512_mul_pd(b, vs);
        int64_t p;
        for (p = s; p < hi; p += 8) {
            __mmask8 m;
            __m512i w;
            __m512i k = rf_keys8(L, p, unit, rsv, wsv, wmv, &m, &w);
            __m512i c = _mm512_and_si512(_mm512_srl_epi64(k, csv), cmv);
            __m512i e = zero;
            #define RF_SAME(D) e = _mm512_mask_add_epi64(e, _mm512_cmpeq_epi64_mask(c, \
                _mm512_alignr_epi64(c, none, 8 - D)), e, _mm512_alignr_epi64(w, zero, 8 - D))
            RF_SAME(1); RF_SAME(2); RF_SAME(3); RF_SAME(4); RF_SAME(5); RF_SAME(6);
            RF_SAME(7);
            #undef RF_SAME
            __m512i a = _mm512_add_epi64(_mm512_i64gather_epi64(c, (const void *)cl, 8), e);
            _mm512_i64scatter_epi64((void *)cl, c, _mm512_add_epi64(a, w), 8);
            __m512i sql = rf_prefix_sum8(
                _mm512_mullo_epi64(w, _mm512_add_epi64(_mm512_add_epi64(a, a), w)), sqc);
            sqc = rf_last_lane(sql);
            __m512i st = rf_prefix_sum8(
                _mm512_mullo_epi64(w, _mm512_i64gather_epi64(c, (const void *)tot, 8)), stc);
            stc = rf_last_lane(st);
            __m512d dwl;
            if (unit) {
                dwl = _mm512_add_pd(_mm512_set1_pd((double)(p - s)), iota);
            } else {
                __m512i wl = rf_prefix_sum8(w, wlc);
                wlc = rf_last_lane(wl);
                dwl = _mm512_cvtepi64_pd(wl);
            }
            __mmask8 lanes = m & (__mmask8)rf_cut_lanes(p, lo, hi);
            if (!lanes) continue;
            __m512i sqr = _mm512_add_epi64(_mm512_sub_epi64(vt2, _mm512_add_epi64(st, st)),
                                           sql);
            __m512d dwr = _mm512_sub_pd(vwt, dwl);
            __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_cvtepi64_pd(sql), dwr),
                                       _mm512_mul_pd(_mm512_cvtepi64_pd(sqr), dwl));
            if (rf_keep8(lanes, vn, _mm512_mul_pd(dwl, dwr),
                         _mm512_add_epi64(_mm512_set1_epi64(p), iotai), ts, &b, &q))
                ts = _mm512_mul_pd(rf_bcast_max(b), vs);
        }
        rf_fold8(b, q, best_io, pos_io);
    }
    __attribute__((target("avx512f,avx512dq"), optimize("fp-contract=off")))
    static void rf_gini_multi_avx512(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
            uint64_t cm, uint64_t wm, int64_t *cl, const int64_t *tot, int64_t t2,
            double dwt, double *best_io, int64_t *pos_io) {
        if (wm == 1)
            rf_gini_multi_avx512_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 1, cl, tot, t2,
                                      dwt, best_io, pos_io);
        else
            rf_gini_multi_avx512_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 0, cl, tot, t2,
                                      dwt, best_io, pos_io);
    }
    /* The missing samples at the end of L[s:e), those whose rank (key >> rs) is at least
       nan_rank: their number, returned, and their class-1 weight and weight in *m1 and
       *mw (weights read from the keys).  Read backwards, 8 keys at a time, until a block
       holds a present value: no binary search, and the tail is summed in the same pass. */
    __attribute__((target("avx512f,avx512dq")))
    static int64_t rf_missing_tail_avx512(const uint64_t *L, int64_t s, int64_t e,
                                          uint64_t nan_rank, int rs, int cs, int ws,
                                          uint64_t wm, int64_t *m1, int64_t *mw) {
        const __m128i rsv = _mm_cvtsi32_si128(rs), wsv = _mm_cvtsi32_si128(ws);
        const __m512i nr = _mm512_set1_epi64((long long)nan_rank);
        const __m512i wmv = _mm512_set1_epi64((long long)wm);
        const __m512i cbit = _mm512_set1_epi64((long long)(1ULL << cs));
        __m512i a1 = _mm512_setzero_si512(), aw = a1;
        int64_t q = e, p, nm = 0;
        while (q > s) {
            __mmask8 ld;
            __m512i k;
            if (q - s >= 8) {
                p = q - 8;
                ld = 0xFF;
                k = _mm512_loadu_si512((const void *)(L + p));
            } else {
                p = s;
                ld = (__mmask8)((1u << (q - s)) - 1);
                k = _mm512_maskz_loadu_epi64(ld, (const void *)(L + p));
            }
            __mmask8 miss = _mm512_mask_cmpge_epu64_mask(ld, _mm512_srl_epi64(k, rsv), nr);
            __m512i w = _mm512_and_si512(_mm512_srl_epi64(k, wsv), wmv);
            aw = _mm512_mask_add_epi64(aw, miss, aw, w);
            a1 = _mm512_mask_add_epi64(a1, miss & _mm512_test_epi64_mask(k, cbit), a1, w);
            nm += __builtin_popcount((unsigned)miss);
            if (miss != ld) break;       /* present values below: the tail starts here */
            q = p;
        }
        *m1 = _mm512_reduce_add_epi64(a1);
        *mw = _mm512_reduce_add_epi64(aw);
        return nm;
    }
    /* Stable partition of L[s:e) in place: the left samples are packed from L[s], the
       right ones go to the scratch R and are copied back to L[p:e) at the end; mode 0
       keeps both sides, 1 only the left, 2 only the right.  Packing the left side in
       place is safe: it is written at or before the keys just loaded.  The side of each
       sample is bit i of the bitmap gl (a bit a sample keeps it in L2 beside the streams
       of keys; 32-bit words gathered 8 at a time), and compress-stores write each side's
       keys in order. */
    __attribute__((target("avx512f,avx512vl,avx512dq")))
    static void rf_partition_avx512(uint64_t *L, uint64_t *R, int64_t s, int64_t e,
                                    int64_t p, const uint32_t *gl, uint64_t imask, int mode) {
        const __m512i im = _mm512_set1_epi64((long long)imask);
        const __m512i m31 = _mm512_set1_epi64(31), one = _mm512_set1_epi64(1);
        int64_t il = s, ir = 0, q;
        for (q = s; q + 8 <= e; q += 8) {
            __m512i k = _mm512_loadu_si512((const void *)(L + q));
            __m512i i = _mm512_and_si512(k, im);
            __m256i g = _mm512_i64gather_epi32(_mm512_srli_epi64(i, 5), (const void *)gl, 4);
            __m512i b = _mm512_srlv_epi64(_mm512_cvtepu32_epi64(g), _mm512_and_si512(i, m31));
            __mmask8 left = _mm512_test_epi64_mask(b, one);
            int nl = __builtin_popcount((unsigned)left);
            if (mode != 2) _mm512_mask_compressstoreu_epi64((void *)(L + il), left, k);
            if (mode != 1) _mm512_mask_compressstoreu_epi64((void *)(R + ir), (__mmask8)~left, k);
            il += nl;
            ir += 8 - nl;
        }
        for (; q < e; q++) {
            uint64_t k = L[q];
            uint64_t i = k & imask;
            if ((gl[i >> 5] >> (i & 31)) & 1) { if (mode != 2) L[il] = k; il++; }
            else { if (mode != 1) R[ir] = k; ir++; }
        }
        if (mode != 1) memcpy(L + p, R, (size_t)(ir < e - p ? ir : e - p) * sizeof(uint64_t));
    }
    static int rf_cpu_has_avx512(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
            && __builtin_cpu_supports("avx512vl");
    }
    #else
    static void rf_partition_avx512(uint64_t *L, uint64_t *R, int64_t s, int64_t e,
                                    int64_t p, const uint32_t *gl, uint64_t imask, int mode) {}
    static void rf_gini_binary_avx512(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1,
            int64_t lo2, int64_t hi2, int cs, int rs, int ws, uint64_t wm, double dt1,
            double dwt, double m1, double mw, double *best1_io, int64_t *pos1,
            double *best2_io, int64_t *pos2) {}
    static int64_t rf_missing_tail_avx512(const uint64_t *L, int64_t s, int64_t e,
                                          uint64_t nan_rank, int rs, int cs, int ws,
                                          uint64_t wm, int64_t *m1, int64_t *mw) {
        return 0;
    }
    static void rf_entropy_binary_avx512(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int64_t hi1, int cs,
            int rs, int ws, uint64_t wm, double dt1, double dwt, const double *f,
            double *best_io, int64_t *pos_io) {}
    static void rf_gini_multi_avx512(
            const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
            uint64_t cm, uint64_t wm, int64_t *cl, const int64_t *tot, int64_t t2,
            double dwt, double *best_io, int64_t *pos_io) {}
    static int rf_cpu_has_avx512(void) { return 0; }
    #endif
    /* Large buffers (a tree's sorted lists, from 32 MiB): on Linux, aligned to 2 MiB
       and offered to transparent huge pages, which spares the build most of its TLB
       misses and page faults (numpy does the same for its large arrays).  Freed with
       free(). */
    #if defined(__linux__)
    #include <sys/mman.h>
    #include <stdlib.h>
    static void *rf_alloc_big(size_t size) {
        void *p = NULL;
        if (size < ((size_t)32 << 20)) return malloc(size);   /* measured: no gain below */
        if (posix_memalign(&p, (size_t)2 << 20, size) != 0) return NULL;
    #ifdef MADV_HUGEPAGE
        madvise(p, size, MADV_HUGEPAGE);
    #endif
        return p;
    }
    #else
    static void *rf_alloc_big(size_t size) { return malloc(size); }
    #endif
    #if defined(_WIN32)
    #include <windows.h>
    static uint64_t rf_physical_memory(void) {
        MEMORYSTATUSEX m; m.dwLength = sizeof(m);
        return GlobalMemoryStatusEx(&m) ? (uint64_t)m.ullTotalPhys : (uint64_t)-1;
    }
    #else
    #include <unistd.h>
    static uint64_t rf_physical_memory(void) {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
        return (pages > 0 && size > 0) ? (uint64_t)pages * (uint64_t)size : (uint64_t)-1;
    }
    #endif
    /* splitmix64: a small, fast generator with a 64-bit state. */
    static inline uint64_t rf_rng_next(uint64_t *s) {
        uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    """
    uint64_t rf_rng_next(uint64_t* s) noexcept nogil
    void* rf_alloc_big(size_t size) noexcept nogil
    uint64_t rf_physical_memory() noexcept nogil
    double RF_SCREEN
    void rf_gini_binary_avx512(
            const uint64_t* L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1, int64_t lo2,
            int64_t hi2, int cs, int rs, int ws, uint64_t wm, double dt1, double dwt,
            double m1, double mw, double* best1_io, int64_t* pos1, double* best2_io,
            int64_t* pos2) noexcept nogil
    int rf_cpu_has_avx512() noexcept nogil
    void rf_entropy_binary_avx512(
            const uint64_t* L, int64_t s, int64_t hi, int64_t lo, int64_t hi1, int cs,
            int rs, int ws, uint64_t wm, double dt1, double dwt, const double* f,
            double* best_io, int64_t* pos_io) noexcept nogil
    void rf_gini_multi_avx512(
            const uint64_t* L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
            uint64_t cm, uint64_t wm, int64_t* cl, const int64_t* tot, int64_t t2,
            double dwt, double* best_io, int64_t* pos_io) noexcept nogil
    int64_t rf_missing_tail_avx512(const uint64_t* L, int64_t s, int64_t e,
                                   uint64_t nan_rank, int rs, int cs, int ws, uint64_t wm,
                                   int64_t* m1, int64_t* mw) noexcept nogil
    void rf_partition_avx512(uint64_t* L, uint64_t* R, int64_t s, int64_t e,
                             int64_t p, const uint32_t* gl, uint64_t imask,
                             int mode) noexcept nogil

ctypedef uint64_t key_t

ctypedef fused rank_t:     # dense ranks, in the narrowest type that holds them
    uint8_t
    uint16_t
    uint32_t

cdef enum:
    CRIT_GINI = 0
    CRIT_ENTROPY = 1
    CRIT_ERROR = 2

cdef enum:
    METHOD_AUTO = 0        # each node's method from the cost model (_lists_pay)
    METHOD_PRESORT = 1     # partition the presorted lists at every node
    METHOD_SORT = 2        # sort the scanned features in every node, from the root
    RADIX_BITS = 11        # digits of the node sort: 2048 counts stay in the L1 cache

METHODS = {"auto": METHOD_AUTO, "presort": METHOD_PRESORT, "sort": METHOD_SORT}

CRITERIA = {"gini": CRIT_GINI, "entropy": CRIT_ENTROPY, "log_loss": CRIT_ENTROPY,
            "error": CRIT_ERROR}

cdef double EPSILON = 2.220446049250313e-16
cdef double LN2 = 0.6931471805599453
# Integer weights up to this total use a table of x*log(x) instead of calls to log().
cdef int64_t XLOGX_TABLE_MAX = 1 << 23
cdef uint64_t INACTIVE = 0xFFFFFFFFFFFFFFFF
cdef uint64_t NO_NAN = 0xFFFFFFFFFFFFFFFF     # nan_rank of a feature without missing values

MAX_SAMPLES = (1 << 31) - 1
cdef int64_t MAX_NODES = (1 << 31) - 1      # node ids are stored in 32 bits

# Set ROTFOREST_NO_AVX512=1 to use the portable kernels only (the results are identical).
cdef bint _USE_AVX512 = rf_cpu_has_avx512() != 0 and not _os.environ.get("ROTFOREST_NO_AVX512")


# How nodes find their splits; "presort" and "sort" force one method (for tests and
# benchmarks: every method grows the same trees).
cdef int _METHOD = METHODS.get(_os.environ.get("ROTFOREST_NODE_METHOD", "auto"), METHOD_AUTO)


def _set_node_method(method):
    """Set how nodes find their splits ("auto", "presort" or "sort"; for tests and
    benchmarks); returns the previous setting."""
    global _METHOD
    previous = {v: k for k, v in METHODS.items()}[_METHOD]
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    _METHOD = METHODS[method]
    return previous


def _set_simd(bint enabled):
    """Switch the AVX-512 kernels on or off (for tests); returns the previous state."""
    global _USE_AVX512
    previous = _USE_AVX512
    _USE_AVX512 = enabled and rf_cpu_has_avx512() != 0
    return previous


# ----------------------------------------------------------------------------------------
# Presort
# ----------------------------------------------------------------------------------------

cdef extern from *:
    """
    typedef struct { double v; int64_t i; } rf_vi;
    /* (value, index) order, for the rare runs the sort keys could not tell apart */
    static int rf_cmp_vi(const void *a, const void *b) {
        const rf_vi *x = (const rf_vi *)a, *y = (const rf_vi *)b;
        if (x->v < y->v) return -1;
        if (x->v > y->v) return 1;
        return (x->i > y->i) - (x->i < y->i);
    }
    #define rf_popcount32(x) rf_popcount64((uint64_t)(x))
    /* bit counts by halves (compilers turn this into one instruction where the
       target has one; __builtin_popcount would call a library routine otherwise) */
    static inline int rf_popcount64(uint64_t x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    """
    ctypedef struct rf_vi:
        double v
        int64_t i
    int rf_cmp_vi(const void* a, const void* b) noexcept nogil
    int rf_popcount32(uint32_t x) noexcept nogil
    int rf_popcount64(uint64_t x) noexcept nogil


cdef inline uint64_t _ordered_bits(double v) noexcept nogil:
    """An unsigned integer that orders as v does: NaN above everything, -0.0 as 0.0."""
    cdef uint64_t u
    if v != v:
        return ~(<uint64_t> 0)
    if v == 0.0:
        return (<uint64_t> 1) << 63
    memcpy(&u, &v, sizeof(double))
    if u >> 63:
        return ~u
    return u | ((<uint64_t> 1) << 63)


cdef void _block_keys(const double* X, int64_t rstride, int64_t cstride, int64_t n,
                      int64_t nb, int ib, uint64_t* keys, double* vals,
                      uint64_t* low) noexcept nogil:
    """Sort keys of nb neighbouring columns, read row by row (a row-major X is read once
    for the block, not once per column): key = the top 64 - ib bits of the value's ordered
    bits, then the sample index in the low ib bits.  low[j] gathers the dropped bits of
    column j's present values (0: equal keys mean equal values).  With vals, the
    columns are also copied there, contiguous."""
    cdef int64_t i, j
    cdef uint64_t imask = ((<uint64_t> 1) << ib) - 1, u
    cdef double v
    for j in range(nb):
        low[j] = 0
    for i in range(n):
        for j in range(nb):
            v = X[i * rstride + j * cstride]
            u = _ordered_bits(v)
            if v == v:
                low[j] |= u
            keys[j * n + i] = (u & ~imask) | <uint64_t> i
            if vals != NULL:
                vals[j * n + i] = v
    for j in range(nb):
        low[j] &= imask


cdef int _finish_column(const double* col, int64_t stride, uint64_t* keys, int64_t n,
                        int ib, bint exact, uint32_t* out) noexcept nogil:
    """Given one column's sorted keys, write the sample order to out[:n] and the bits of
    the positions that start a new value to the words out[n:].

    Keys with equal value bits form a run, in index order.  A run almost always holds
    one value (ties); when the dropped low bits of the values differ (values within about
    2^-(52 - ib) of each other), the run is sorted by (value, index) here.  With exact
    (no present value has dropped bits, as for integer-valued columns) runs are not
    checked.  Returns -1 when memory runs out."""
    cdef uint64_t imask = ((<uint64_t> 1) << ib) - 1, pmask = ~imask, pre
    cdef uint32_t* starts = out + n
    cdef int64_t p = 0, q, r, m
    cdef double v0, v
    cdef bint same
    cdef rf_vi* buf
    memset(starts, 0, ((n + 31) >> 5) * sizeof(uint32_t))
    while p < n:
        pre = keys[p] & pmask
        q = p + 1
        while q < n and (keys[q] & pmask) == pre:
            q += 1
        starts[p >> 5] |= (<uint32_t> 1) << (p & 31)
        m = q - p
        if m > 1 and not exact:
            v0 = col[<int64_t> (keys[p] & imask) * stride]
            same = True
            for r in range(p + 1, q):
                v = col[<int64_t> (keys[r] & imask) * stride]
                if not (v == v0 or (v != v and v0 != v0)):     # -0.0 == 0.0; NaN: one value
                    same = False
                    break
            if not same:
                buf = <rf_vi*> malloc(m * sizeof(rf_vi))
                if buf == NULL:
                    return -1
                for r in range(m):
                    buf[r].i = <int64_t> (keys[p + r] & imask)
                    buf[r].v = col[buf[r].i * stride]
                qsort(buf, m, sizeof(rf_vi), rf_cmp_vi)
                for r in range(m):
                    keys[p + r] = pre | <uint64_t> buf[r].i
                    if r > 0 and buf[r].v != buf[r - 1].v:
                        starts[(p + r) >> 5] |= (<uint32_t> 1) << ((p + r) & 31)
                free(buf)
        for r in range(p, q):
            out[r] = <uint32_t> (keys[r] & imask)
        p = q
    return 0


# presort's column sort: numpy's sort below PRESORT_RADIX_MIN samples, our radix sort
# from there (no vectorised numpy sort on some processors, AMD EPYC among them: 2,000
# rows 17 against 21 ns a cell, 6,700 rows 16 against 28, 20,000 rows 16 against 34;
# numpy wins below about 1,500 rows, where the radix sort's counts cost more than the
# sort), and at any size for columns whose values differ in at most RADIX_BITS bits
# (binary, small integers: one pass).  _set_presort_method forces either, for tests.
cdef int64_t PRESORT_RADIX_MIN = 1536
cdef int _PRESORT = {"numpy": 0, "radix": 1}.get(_os.environ.get("ROTFOREST_PRESORT", ""), 2)


def _set_presort_method(method):
    """"numpy", "radix" or "auto" (the default: by the number of samples and the bits a
    column's values differ in)."""
    global _PRESORT
    _PRESORT = {"numpy": 0, "radix": 1, "auto": 2}[method]


cdef int _column_bits(const uint64_t* keys, int64_t n, int ib, uint64_t* lo,
                      int* low_zeros) noexcept nogil:
    """The bits a radix sort of one column's keys must order: the span of their value
    bits (above the ib index bits), less the low bits that every key shares (integer
    and few-valued columns share many: 0.0 and 1.0 differ in 10 bits, not 52).  lo gets
    the least value bits, shifted right by low_zeros."""
    cdef uint64_t v0 = keys[0] >> ib, v, least = v0, most = v0, varying = 0
    cdef int64_t i
    cdef int l = 0
    for i in range(1, n):
        v = keys[i] >> ib
        varying |= v ^ v0
        if v < least:
            least = v
        if v > most:
            most = v
    if varying == 0:
        low_zeros[0] = 0
        lo[0] = least
        return 0
    while ((varying >> l) & 1) == 0:
        l += 1
    low_zeros[0] = l
    lo[0] = least >> l
    return _bit_length((most >> l) - (least >> l))


cdef void _radix_column(uint64_t* keys, uint64_t* tmp, int64_t n, int ib, uint64_t lo,
                        int low_zeros, int bits, int64_t* hist) noexcept nogil:
    """Sorts one column's keys (made in sample order) by their value bits, stably: the
    order of the whole keys, as the index bits below are already increasing (lo,
    low_zeros and bits from _column_bits)."""
    cdef int shift = ib + low_zeros
    if n > 1 and bits > 0:
        if _radix_sort(keys, tmp, n, shift, ~(<uint64_t> 0) >> shift, lo, bits, hist,
                       10 if n < 4096 else RADIX_BITS):
            memcpy(keys, tmp, n * sizeof(uint64_t))


cdef int64_t _element_stride(Py_ssize_t stride) except? -1:
    if stride % <Py_ssize_t> sizeof(double) != 0:
        raise ValueError("X must be a float64 array with strides that are multiples of 8 bytes")
    return stride // <Py_ssize_t> sizeof(double)


def keys_width(Py_ssize_t n):
    """Length of one row of :func:`presort`'s output for ``n`` samples."""
    return n + (n + 31) // 32


def presort(const double[:, :] X, out=None, Py_ssize_t start=0, stop=None):
    """Sort every column of X once.

    X may have any memory layout (row- or column-major, or a strided view) whose strides
    are whole float64 cells; it is not copied.  Returns a C-contiguous ``uint32`` array of shape
    ``(n_features, keys_width(n_samples))``.  In row ``f``, the first ``n_samples``
    entries list the samples in increasing order of ``X[i, f]``, ties broken by sample
    index; the remaining ``ceil(n_samples / 32)`` entries are a bitmap (bit ``p`` of word
    ``p // 32``) of the positions that start a new value, so that the dense rank of the
    sample at position ``p`` is the number of bits set up to ``p``, minus one.  Missing
    values (NaN) come last and count as one value, the highest of their column (a column
    must not hold both NaN and +inf).  4 bytes and one bit a cell: the forest keeps this
    array for its whole fit.  Each column is ordered by sorting 64-bit integer keys, the
    value's leading bits above the sample index (our radix sort on the value bits that
    differ, from PRESORT_RADIX_MIN samples or when one pass does; numpy's sort otherwise;
    both without the GIL, and several times faster than an argsort of the values); the
    rare neighbours whose values differ only in the dropped bits are then put in order.

    With ``out`` (such an array, already allocated) only the rows ``start:stop`` are
    computed, into ``out``: threads can share the work.
    """
    cdef int64_t n = X.shape[0], F = X.shape[1], f
    if n > MAX_SAMPLES:
        raise ValueError(f"at most {MAX_SAMPLES} samples are supported, got {n}")
    cdef int64_t width = keys_width(n)
    if out is None:
        out = np.empty((F, width), dtype=np.uint32)
    if out.shape != (F, width) or out.dtype != np.uint32:
        raise ValueError("out must be a uint32 array of shape (n_features, "
                         "keys_width(n_samples))")
    stop = F if stop is None else min(stop, F)
    if start < 0 or stop < 0:
        raise ValueError(f"start and stop must be non-negative, got {start} and {stop}")
    if n == 0 or start >= stop:
        return out
    cdef uint32_t[:, ::1] o = out
    cdef int ib = 1
    while ((<int64_t> 1) << ib) < n:
        ib += 1
    cdef int64_t rstride = _element_stride(X.strides[0]), cstride = _element_stride(X.strides[1])
    # columns are read in blocks of 4 (and copied, so that runs of equal keys can read
    # their values nearby) unless they are contiguous already
    cdef bint strided = rstride != 1
    cdef int64_t nb = min(4, stop - start) if strided else 1, j, f0, m
    keys_arr = np.empty((nb, n), dtype=np.uint64)
    cdef uint64_t[:, ::1] keys = keys_arr
    vals_arr = np.empty((nb if strided else 1, n if strided else 1), dtype=np.float64)
    cdef double[:, ::1] vals = vals_arr
    cdef uint64_t low[4]
    cdef const double* base = &X[0, 0]
    cdef const double* col
    cdef int64_t cs
    cdef int err = 0
    cdef bint radix
    cdef uint64_t lo
    cdef int low_zeros, bits
    tmp_arr = np.empty(n if _PRESORT != 0 else 1, dtype=np.uint64)
    cdef uint64_t[::1] tmp = tmp_arr
    hist_arr = np.empty(max((1 << RADIX_BITS) + 1, 4 * 256), dtype=np.int64)
    cdef int64_t[::1] hist = hist_arr
    for f0 in range(start, stop, nb):
        m = min(nb, stop - f0)
        with nogil:
            _block_keys(base + f0 * cstride, rstride, cstride, n, m, ib, &keys[0, 0],
                        &vals[0, 0] if strided else NULL, low)
        for j in range(m):
            radix = False
            if _PRESORT != 0:
                with nogil:
                    bits = _column_bits(&keys[j, 0], n, ib, &lo, &low_zeros)
                    # (auto: many samples, or a column sorted in one pass)
                    radix = _PRESORT == 1 or n >= PRESORT_RADIX_MIN or bits <= RADIX_BITS
                    if radix:
                        _radix_column(&keys[j, 0], &tmp[0], n, ib, lo, low_zeros, bits,
                                      &hist[0])
            if not radix:
                keys_arr[j].sort()           # numpy's sort, without the GIL
            col = &vals[j, 0] if strided else base + (f0 + j) * cstride
            cs = 1 if strided else rstride
            with nogil:
                err = _finish_column(col, cs, &keys[j, 0], n, ib, low[j] == 0, &o[f0 + j, 0])
            if err:
                raise MemoryError()
    return out


cdef uint64_t _column_tops(const uint32_t[:, ::1] keys, int64_t n,
                           uint64_t* col_top) noexcept nogil:
    """The highest dense rank of every column of presort's output (its count of values,
    minus one) into col_top; returns the largest."""
    cdef int64_t f, i
    cdef uint64_t c, top = 0
    for f in range(keys.shape[0]):
        c = 0
        for i in range((n + 31) >> 5):
            c += rf_popcount32(keys[f, n + i])
        col_top[f] = c - 1 if c > 0 else 0
        top = col_top[f] if col_top[f] > top else top
    return top


cdef object _dtype_for(uint64_t top):
    return np.dtype(np.uint8 if top < 256 else np.uint16 if top < 65536 else np.uint32)


def rank_dtype(const uint32_t[:, ::1] keys, Py_ssize_t n):
    """The narrowest unsigned integer type that holds every dense rank of
    :func:`presort`'s output ``keys`` for ``n`` samples."""
    tops = np.empty(keys.shape[0], dtype=np.uint64)
    cdef uint64_t[::1] t = tops
    cdef uint64_t top = 0
    if keys.shape[0] > 0:
        with nogil:
            top = _column_tops(keys, n, &t[0])
    return _dtype_for(top)


def needs_ranks(const uint32_t[:, ::1] keys, Py_ssize_t n, int64_t max_features):
    """Whether trees grown on :func:`presort`'s output ``keys`` (``n`` samples) with
    ``max_features`` may sort in their nodes, and so read :func:`dense_ranks` (the
    plan of :func:`build_tree`'s root, the same for every tree of a forest; a tree that
    needs ranks it was not given computes them)."""
    cdef int64_t F = keys.shape[0]
    if F == 0 or n == 0:
        return False
    tops = np.empty(F, dtype=np.uint64)
    cdef uint64_t[::1] t = tops
    cdef uint64_t top
    with nogil:
        top = _column_tops(keys, n, &t[0])
    return _tree_method(max(1, min(max_features, F)), F, max(1, _bit_length(top)),
                        &t[0], n) != METHOD_PRESORT


cdef int _rank_rows(const uint32_t[:, ::1] keys, rank_t* o, int64_t n, int64_t a,
                    int64_t b) noexcept nogil:
    """Rows a:b of the ranks; -1 when a row of keys is not an order of all n samples
    (an index out of range, or one twice), -3 when its ranks do not fit in rank_t."""
    cdef int64_t f, i, i0
    cdef uint32_t rank, bits, ix
    cdef uint64_t* seen = <uint64_t*> malloc(((n + 63) >> 6) * sizeof(uint64_t))
    if seen == NULL:
        return -2
    for f in range(a, b):
        memset(seen, 0, ((n + 63) >> 6) * sizeof(uint64_t))
        rank = <uint32_t> -1
        for i0 in range(0, n, 32):
            bits = keys[f, n + (i0 >> 5)]
            for i in range(i0, min(i0 + 32, n)):
                rank += bits & 1
                bits >>= 1
                ix = keys[f, i]
                if ix >= <uint32_t> n or (seen[ix >> 6] >> (ix & 63)) & 1:
                    free(seen)
                    return -1
                seen[ix >> 6] |= (<uint64_t> 1) << (ix & 63)
                o[f * n + ix] = <rank_t> rank
        if rank != <uint32_t> <rank_t> rank:
            free(seen)
            return -3
    free(seen)
    return 0


def dense_ranks(const uint32_t[:, ::1] keys, out=None, Py_ssize_t start=0, stop=None):
    """The dense rank of every cell from :func:`presort`'s output: ``out[f, i]`` is the
    number of distinct values of column ``f`` below ``X[i, f]`` (missing values last, as
    one value).  An array of shape ``(n_features, n_samples)`` of the narrowest unsigned
    type that holds the ranks (:func:`rank_dtype`; 1 byte a cell for columns of at most
    256 values, such as pixels); nodes that sort their samples read it.  With ``out``
    only the rows ``start:stop`` are computed, into ``out``, so threads can share the
    work."""
    cdef int64_t F = keys.shape[0], width = keys.shape[1], n
    n = (32 * width) // 33
    while keys_width(n) < width:
        n += 1
    if keys_width(n) != width:
        raise ValueError("keys is not presort's output")
    if out is None:
        out = np.empty((F, n), dtype=rank_dtype(keys, n))
    if (out.shape != (F, n) or out.dtype not in (np.uint8, np.uint16, np.uint32)
            or not out.flags.c_contiguous):
        raise ValueError("out must be a C-contiguous array of shape (n_features, n_samples) "
                         "and of a type that holds the ranks (rank_dtype)")
    stop = F if stop is None else min(stop, F)
    cdef int64_t a = max(0, start), b = stop
    cdef uint8_t[:, ::1] o1
    cdef uint16_t[:, ::1] o2
    cdef uint32_t[:, ::1] o4
    if n == 0 or a >= b:
        return out
    cdef int err
    if out.dtype == np.uint8:
        o1 = out
        with nogil:
            err = _rank_rows(keys, &o1[0, 0], n, a, b)
    elif out.dtype == np.uint16:
        o2 = out
        with nogil:
            err = _rank_rows(keys, &o2[0, 0], n, a, b)
    else:
        o4 = out
        with nogil:
            err = _rank_rows(keys, &o4[0, 0], n, a, b)
    if err == -2:
        raise MemoryError()
    if err == -3:
        raise ValueError("out must be a C-contiguous array of shape (n_features, n_samples) "
                         "and of a type that holds the ranks (rank_dtype)")
    if err:
        raise ValueError("keys do not belong to X: a row does not order every sample once")
    return out


# ----------------------------------------------------------------------------------------
# Builder state
# ----------------------------------------------------------------------------------------
#
# Working keys.  When a tree starts, every presorted key (rank << 32 | i) of a sample with
# non-zero weight is repacked as
#
#     rank << rshift | class << cshift | weight << wshift | i
#
# with field widths fitted to the problem, so that the scans read the class (and, when the
# weights are small integers, as for unweighted data or bootstrap counts, the weight)
# straight from the list instead of from memory all over the place.  With other weights
# the weight field is empty and weights are read from w[i].

cdef struct SplitInfo:
    int64_t feature
    int64_t pos            # first position of the right child in the feature's list
    double threshold
    double improvement     # scikit-learn's weighted impurity decrease
    double impurity_left
    double impurity_right
    double weight_left
    double weight_right
    int64_t n_missing      # samples of the node missing the split feature (at the list's end)
    int64_t missing_left   # they go to the left child (when n_missing > 0); the stored
                           # direction for NaN at predict time in any case
    uint64_t cut_rank      # the rank of the first present value on the right (the
                           # feature's missing rank when every present value goes left):
                           # a sample goes left when its rank is below it

cdef struct Entry:         # a node on the frontier
    int64_t start
    int64_t end
    int64_t depth
    int64_t parent
    int64_t node_id
    int32_t is_left
    int32_t has_split
    int32_t presorted      # 1: the node's slice of every list is kept in order (method
                           # "presort"); 0: its samples are in `samples` and each scanned
                           # feature is sorted in the node (method "sort")
    double impurity
    double weight
    double lower           # monotonic constraints: bounds on the node's class-0 fraction
    double upper
    SplitInfo split

cdef struct Builder:
    const double* X        # X[i, f] is X[i * xrs + f * xcs] (any layout, never copied)
    int64_t xrs
    int64_t xcs
    const double* w
    int64_t n_total
    int64_t n_features
    int64_t n_classes
    int64_t n_active       # samples with non-zero weight
    int rshift
    int cshift
    int wshift
    uint64_t cmask
    uint64_t wmask
    uint64_t imask
    int rbits              # bits of the largest rank
    bint packed            # weights are read from the keys
    bint use_avx512        # the processor runs the AVX-512 scan
    bint borrowed_lists    # lists is the caller's keys array: not freed here
    key_t* lists           # per feature, the tree's samples in sorted order; each node
                           # owns the slice [start, end) of every feature's list (NULL
                           # when the tree sorts in its nodes from the root)
    const void* ranks      # ranks[f * n_total + i]: the dense rank of X[i, f], of
    int rank_bytes         # rank_bytes (1, 2 or 4) each (NULL when no node sorts)
    key_t* samples         # nodes that sort: their samples (working keys without the
                           # rank) in [start, end), in increasing sample index
    key_t* sorted_keys[2]  # a node's keys of one feature, sorted in the node, at
                           # [start, end); the other buffer holds the best feature's
    key_t* sort_tmp        # the radix sort's other buffer
    int64_t* hist          # the radix sort's counts (2^RADIX_BITS + 1, at least 4 x 256)
    int method             # METHOD_AUTO, METHOD_PRESORT or METHOD_SORT
    key_t* scratch         # room for the right side of a partition (n_active + 1 keys)
    uint32_t* goleft       # bitmap: bit i set when sample i goes left at this split
    uint64_t* nan_rank     # per feature: the rank of its missing values, or NO_NAN
    const int8_t* monotonic  # per feature: 1 / -1 when the class-0 fraction may only
                           # rise / fall from left to right child, 0 when free; NULL: none
    bint any_missing
    int criterion
    int random_split
    int64_t max_depth
    int64_t min_samples_split
    int64_t min_samples_leaf
    double min_weight_leaf
    int64_t max_features
    double min_impurity_decrease
    double total_weight
    uint64_t rng
    double* xlogx_table
    double* cl
    double* cr
    double* fl
    double* fr
    int64_t* cli
    int64_t* cri
    int64_t* feats
    Entry* ent
    double* ent_counts     # 3 * n_classes per entry: own, left child, right child
    uint64_t* ent_const    # n_words per entry: features known to be constant
    int64_t n_words
    int64_t ent_cap
    int64_t ent_used
    int64_t* free_list
    int64_t n_free
    int64_t* order         # the stack or the heap of entry indices
    int64_t order_len
    int64_t order_cap
    Node* nodes
    double* values
    int64_t node_count
    int64_t node_cap
    int64_t depth_reached
    int error


ctypedef fused acc_t:      # class counts: exact integers, or doubles for real weights
    int64_t
    double


cdef inline uint64_t _rand_below(uint64_t* s, int64_t n) noexcept nogil:
    return rf_rng_next(s) % <uint64_t> n


cdef inline double _rand_uniform(uint64_t* s) noexcept nogil:
    return (rf_rng_next(s) >> 11) * (1.0 / 9007199254740992.0)


cdef inline int64_t _cls(const Builder* B, key_t k) noexcept nogil:
    return <int64_t> ((k >> B.cshift) & B.cmask)


cdef inline double _wt(const Builder* B, key_t k) noexcept nogil:
    if B.packed:
        return <double> ((k >> B.wshift) & B.wmask)
    return B.w[k & B.imask]


cdef inline double _xlogx(const Builder* B, double v) noexcept nogil:
    if v <= 0.0:
        return 0.0
    if B.xlogx_table != NULL:
        return B.xlogx_table[<int64_t> v]
    return v * log(v)


cdef inline double _impurity(const Builder* B, const double* c, double w) noexcept nogil:
    """Impurity of a node with weighted class counts c and total weight w (as scikit-learn
    computes it; entropy in bits)."""
    cdef int64_t k
    cdef double acc = 0.0, p
    if B.criterion == CRIT_GINI:
        for k in range(B.n_classes):
            acc += c[k] * c[k]
        return 1.0 - acc / (w * w)
    elif B.criterion == CRIT_ENTROPY:
        for k in range(B.n_classes):
            if c[k] > 0.0:
                p = c[k] / w
                acc -= p * (log(p) / LN2)
        return acc
    else:
        for k in range(B.n_classes):
            if c[k] > acc:
                acc = c[k]
        return 1.0 - acc / w


cdef inline double _proxy_counts(const Builder* B, const double* cl, const double* cr,
                                 double wl, double wr) noexcept nogil:
    """A quantity that orders the splits of one node as their impurity decrease does
    (the same one the scans compute)."""
    cdef int64_t k
    cdef double a = 0.0, b = 0.0
    if B.criterion == CRIT_GINI:
        for k in range(B.n_classes):
            a += cl[k] * cl[k]
            b += cr[k] * cr[k]
        return a / wl + b / wr
    elif B.criterion == CRIT_ENTROPY:
        for k in range(B.n_classes):
            a += _xlogx(B, cl[k]) + _xlogx(B, cr[k])
        return a - _xlogx(B, wl) - _xlogx(B, wr)
    else:
        for k in range(B.n_classes):
            if cl[k] > a:
                a = cl[k]
            if cr[k] > b:
                b = cr[k]
        return a + b


cdef inline bint _is_leaf(const Builder* B, int64_t depth, int64_t n, double w,
                          double impurity) noexcept nogil:
    return (depth >= B.max_depth or n < B.min_samples_split
            or n < 2 * B.min_samples_leaf or w < 2.0 * B.min_weight_leaf
            or impurity <= EPSILON)


# ----------------------------------------------------------------------------------------
# Scans: the best split of one feature's slice [s, e).  Each returns its proxy (-inf when
# no position is valid) and sets pos.  Candidates lie only between distinct values, and
# positions that break min_samples_leaf / min_weight_leaf are never scored.
# ----------------------------------------------------------------------------------------

cdef double _scan_gini(Builder* B, const key_t* L, int64_t s, int64_t e,
                       const double* tot, double wtot, int64_t* pos,
                       acc_t zero) noexcept nogil:
    cdef int64_t lo = s + B.min_samples_leaf, hi = e - B.min_samples_leaf, p
    cdef int rs = B.rshift, cs = B.cshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask, cm = B.cmask, c
    cdef const double* w = B.w
    cdef acc_t* cl
    cdef acc_t* cr
    cdef acc_t sql = 0, sqr = 0, wl = 0, wi, a, wr, wt = <acc_t> wtot, minw
    cdef double best = -INFINITY, num, den, q
    cdef key_t k
    if acc_t is int64_t:
        cl = B.cli
        cr = B.cri
        minw = <int64_t> ceil(B.min_weight_leaf)
    else:
        cl = B.cl
        cr = B.cr
        minw = B.min_weight_leaf
    for c in range(B.n_classes):
        cl[c] = 0
        cr[c] = <acc_t> tot[c]
        sqr += cr[c] * cr[c]
    for p in range(s, hi):
        k = L[p]
        c = (k >> cs) & cm
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        a = cl[c]
        cl[c] = a + wi
        sql += wi * (2 * a + wi)
        a = cr[c]
        cr[c] = a - wi
        sqr -= wi * (2 * a - wi)
        wl += wi
        if ((L[p + 1] ^ k) >> rs) != 0 and p + 1 >= lo:
            wr = wt - wl
            if wl >= minw and wr >= minw:
                num = <double> sql * <double> wr + <double> sqr * <double> wl
                den = <double> wl * <double> wr
                # the rounded quotients are compared, as in the vector kernels (the
                # product only screens: a cut failing it cannot be better)
                if num > best * RF_SCREEN * den:
                    q = num / den
                    if q > best:
                        best = q
                        pos[0] = p + 1
    return best


cdef double _scan_entropy(Builder* B, const key_t* L, int64_t s, int64_t e,
                          const double* tot, double wtot, int64_t* pos,
                          acc_t zero) noexcept nogil:
    cdef int64_t K = B.n_classes, lo = s + B.min_samples_leaf, hi = e - B.min_samples_leaf
    cdef int64_t p, c, j
    cdef int rs = B.rshift, cs = B.cshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask, cm = B.cmask
    cdef const double* w = B.w
    cdef acc_t* cl
    cdef acc_t* cr
    cdef double* fl = B.fl
    cdef double* fr = B.fr
    cdef acc_t wl = 0, wi, a, wr, wt = <acc_t> wtot
    cdef double minw = B.min_weight_leaf, best = -INFINITY, proxy, acc
    cdef key_t k
    if acc_t is int64_t:
        cl = B.cli
        cr = B.cri
    else:
        cl = B.cl
        cr = B.cr
    for c in range(K):
        cl[c] = 0
        fl[c] = 0.0
        cr[c] = <acc_t> tot[c]
        fr[c] = _xlogx(B, tot[c])
    for p in range(s, hi):
        k = L[p]
        c = <int64_t> ((k >> cs) & cm)
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        a = cl[c] + wi
        cl[c] = a
        fl[c] = _xlogx(B, <double> a)
        a = cr[c] - wi
        cr[c] = a
        fr[c] = _xlogx(B, <double> a)
        wl += wi
        if p + 1 >= lo and ((L[p + 1] ^ k) >> rs) != 0:
            wr = wt - wl
            if wl >= minw and wr >= minw:
                acc = 0.0
                for j in range(K):
                    acc += fl[j] + fr[j]
                proxy = acc - _xlogx(B, <double> wl) - _xlogx(B, <double> wr)
                if proxy > best:
                    best = proxy
                    pos[0] = p + 1
    return best


cdef double _scan_error(Builder* B, const key_t* L, int64_t s, int64_t e,
                        const double* tot, double wtot, int64_t* pos,
                        acc_t zero) noexcept nogil:
    cdef int64_t K = B.n_classes, lo = s + B.min_samples_leaf, hi = e - B.min_samples_leaf
    cdef int64_t p, c, j, amr = 0
    cdef int rs = B.rshift, cs = B.cshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask, cm = B.cmask
    cdef const double* w = B.w
    cdef acc_t* cl
    cdef acc_t* cr
    cdef acc_t wl = 0, wi, a, wr, maxl = 0, wt = <acc_t> wtot
    cdef double minw = B.min_weight_leaf, best = -INFINITY, proxy
    cdef key_t k
    if acc_t is int64_t:
        cl = B.cli
        cr = B.cri
    else:
        cl = B.cl
        cr = B.cr
    for c in range(K):
        cl[c] = 0
        cr[c] = <acc_t> tot[c]
        if cr[c] > cr[amr]:
            amr = c
    for p in range(s, hi):
        k = L[p]
        c = <int64_t> ((k >> cs) & cm)
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
        else:
            wi = w[k & im]
        a = cl[c] + wi
        cl[c] = a
        if a > maxl:
            maxl = a
        cr[c] -= wi
        if c == amr:
            for j in range(K):
                if cr[j] > cr[amr]:
                    amr = j
        wl += wi
        if p + 1 >= lo and ((L[p + 1] ^ k) >> rs) != 0:
            wr = wt - wl
            if wl >= minw and wr >= minw:
                proxy = <double> (maxl + cr[amr])
                if proxy > best:
                    best = proxy
                    pos[0] = p + 1
    return best


cdef inline double _scan(Builder* B, const key_t* L, int64_t s, int64_t e,
                         const double* tot, double wtot, int64_t* pos,
                         acc_t zero) noexcept nogil:
    if B.criterion == CRIT_GINI:
        return _scan_gini(B, L, s, e, tot, wtot, pos, zero)
    elif B.criterion == CRIT_ENTROPY:
        return _scan_entropy(B, L, s, e, tot, wtot, pos, zero)
    return _scan_error(B, L, s, e, tot, wtot, pos, zero)


# ----------------------------------------------------------------------------------------
# Missing values.  A feature's missing samples share its highest rank, so they sit at the
# end of each of its slices: [s, e - nm) holds the present values in order, [e - nm, e) the
# missing ones.  Candidates are scored as scikit-learn scores them, in its order, ties
# going to the first: every cut between distinct present values with the missing samples
# on the right, then "all present left, all missing right", then every cut with the
# missing samples on the left.  The proxies are those of the kernels above, so features
# with and without missing values compare in one node.  (Two classes with Gini: the
# missing samples are handled by _scan_gini_binary itself.)
# ----------------------------------------------------------------------------------------

cdef inline int64_t _count_missing(const Builder* B, const key_t* L, int64_t s, int64_t e,
                                   uint64_t nan_rank) noexcept nogil:
    cdef int64_t a = s, b = e, m
    cdef int rs = B.rshift
    while a < b:
        m = (a + b) >> 1
        if (L[m] >> rs) >= nan_rank:
            b = m
        else:
            a = m + 1
    return e - a


cdef inline int64_t _missing_tail(const Builder* B, const key_t* L, int64_t s, int64_t e,
                                  uint64_t nan_rank, int64_t* m1, int64_t* mw) noexcept nogil:
    """The number of missing samples at the end of L[s:e) and, with integer weights in the
    keys, their class-1 weight and weight (else 0)."""
    cdef int64_t nm, q, wi
    cdef key_t k
    if B.use_avx512 and B.packed:
        return rf_missing_tail_avx512(L, s, e, nan_rank, B.rshift, B.cshift, B.wshift,
                                      B.wmask, m1, mw)
    nm = _count_missing(B, L, s, e, nan_rank)
    m1[0] = 0
    mw[0] = 0
    if B.packed:
        for q in range(e - nm, e):
            k = L[q]
            wi = <int64_t> ((k >> B.wshift) & B.wmask)
            m1[0] += wi & -(<int64_t> ((k >> B.cshift) & 1))
            mw[0] += wi
    return nm


cdef inline void _gini2_score(double a1, double aw, double dt1, double dwt, double minw,
                              int64_t c, double* best, int64_t* pos) noexcept nogil:
    """Two-class Gini proxy of the cut c whose left child holds weight aw, a1 of it of
    class 1: (l1^2/wl + r1^2/wr) = num / den; the first of equals kept.  The quotient is
    only formed for cuts that pass the screen (see RF_SCREEN), as in the AVX-512 kernel."""
    cdef double rw = dwt - aw, r1, num, den, bound
    if aw >= minw and rw >= minw:
        r1 = dt1 - a1
        num = a1 * a1 * rw + r1 * r1 * aw
        den = aw * rw
        # the screen's bound assumes that its product does not underflow: below 1e-290
        # (tiny real weights) the quotient is always formed
        bound = best[0] * RF_SCREEN * den
        if (num > bound or bound < 1e-290) and num / den > best[0]:
            best[0] = num / den
            pos[0] = c


cdef double _scan_gini_binary(Builder* B, const key_t* L, int64_t s, int64_t e, int64_t nm,
                              const double* tot, double wtot, double floor, int64_t* pos,
                              int64_t* ml, acc_t zero, int64_t m1i, int64_t mwi) noexcept nogil:
    # For two classes, (l0^2 + l1^2)/wl + (r0^2 + r1^2)/wr equals a constant plus
    # 2 (l1^2/wl + r1^2/wr): the scan maximises the latter.  The last nm samples of the
    # slice are missing the feature; one pass over the present ones [s, enm) scores each
    # cut c with them right (c - s >= msl, e - c >= msl) and, when nm > 0, left
    # (c - s + nm >= msl, enm - c >= msl); then "present left, missing right".  The
    # counters are exact integers when the weights are.  Only cuts whose proxy exceeds
    # floor (the best proxy of the node's features scanned before) can win the node, so
    # the best cut is searched among those alone (-inf and pos -1 when there is none):
    # most cuts then fail the kernels' screens and are never divided.  With integer
    # weights the missing samples' class-1 weight and weight come in (m1i, mwi) (see
    # _missing_tail); otherwise they are summed here.
    cdef int64_t enm = e - nm, msl = B.min_samples_leaf, p, pos1 = -1, pos2 = -1
    cdef int64_t lo1 = s + msl, hi1 = min(enm - 1, e - msl), lo2 = s + msl - nm
    cdef int64_t hi2 = enm - msl if nm > 0 else lo2 - 1     # empty without missing samples
    cdef int64_t hi = max(hi1, hi2), start = s
    cdef int rs = B.rshift, cs = B.cshift, ws = B.wshift
    cdef uint64_t wm = B.wmask, im = B.imask
    cdef const double* w = B.w
    cdef acc_t wi, m1 = 0, mw = 0, l1 = 0, wl = 0
    cdef double minw = B.min_weight_leaf, dt1 = tot[1], dwt = wtot
    cdef double best1 = floor, best2 = floor
    cdef key_t k
    if acc_t is int64_t:
        m1 = m1i
        mw = mwi
        if B.use_avx512 and minw == 0.0 and hi > s:
            rf_gini_binary_avx512(L, s, hi, lo1, hi1, lo2, hi2, cs, rs, ws, wm, dt1, dwt,
                                  <double> m1, <double> mw, &best1, &pos1, &best2, &pos2)
            start = hi                 # every cut scanned
    else:
        for p in range(enm, e):
            wi = w[L[p] & im]
            m1 += wi * <double> ((L[p] >> cs) & 1)
            mw += wi
    for p in range(start, hi):
        k = L[p]
        if acc_t is int64_t:
            wi = <int64_t> ((k >> ws) & wm)
            l1 += wi & -(<int64_t> ((k >> cs) & 1))
        else:
            wi = w[k & im]
            l1 += wi * <double> ((k >> cs) & 1)
        wl += wi
        if ((L[p + 1] ^ k) >> rs) == 0:
            continue
        if lo1 <= p + 1 <= hi1:
            _gini2_score(<double> l1, <double> wl, dt1, dwt, minw, p + 1, &best1, &pos1)
        if lo2 <= p + 1 <= hi2:
            _gini2_score(<double> l1 + <double> m1, <double> wl + <double> mw, dt1, dwt,
                         minw, p + 1, &best2, &pos2)
    if nm >= msl and enm - s >= msl:         # all present values left, missing ones right
        _gini2_score(dt1 - <double> m1, dwt - <double> mw, dt1, dwt, minw, enm,
                     &best1, &pos1)
    if best2 > best1:
        pos[0] = pos2
        ml[0] = 1
        return best2
    pos[0] = pos1
    ml[0] = 0
    return best1 if pos1 >= 0 else -INFINITY


cdef inline double _proxy_moved(Builder* B, const double* cl, const double* cm, double wl,
                                const double* tot, double wtot) noexcept nogil:
    """Proxy of the split whose left child holds the counts cl (plus cm when given).
    Two classes with Gini: the two-class kernel's proxy (l1^2/wl + r1^2/wr, see
    _gini2_score), so that its features and the others compare in one node."""
    cdef int64_t c
    cdef double* a = B.cr
    cdef double* b = B.fr
    cdef double wr, a1, r1
    if B.criterion == CRIT_GINI and B.n_classes == 2:
        a1 = cl[1] + (cm[1] if cm != NULL else 0.0)
        r1 = tot[1] - a1
        wr = wtot - wl
        return (a1 * a1 * wr + r1 * r1 * wl) / (wl * wr)
    if cm != NULL:
        for c in range(B.n_classes):
            a[c] = cl[c] + cm[c]
    else:
        for c in range(B.n_classes):
            a[c] = cl[c]
    for c in range(B.n_classes):
        b[c] = tot[c] - a[c]
    wr = wtot - wl
    return _proxy_counts(B, a, b, wl, wr)


cdef inline bint _monotonic_ok(double l0, double wl, double r0, double wr, int cst,
                               double lower, double upper) noexcept nogil:
    """Whether a two-class split with class-0 weights l0 / r0 in children of weights wl /
    wr keeps the constraint cst on the class-0 fraction and the node's bounds (the test
    scikit-learn applies, in its arithmetic)."""
    cdef double vl = l0 / wl, vr = r0 / wr
    return (vl >= lower and vr >= lower and vl <= upper and vr <= upper
            and (vl - vr) * cst <= 0.0)


cdef double _scan_missing(Builder* B, const key_t* L, int64_t s, int64_t e, int64_t nm,
                          const double* tot, double wtot, int64_t* pos,
                          int64_t* ml, int cst=0, double lower=0.0,
                          double upper=0.0) noexcept nogil:
    """The missing-value scan for every criterion (counts in doubles, O(classes) per cut).
    With ``cst`` (a monotonic constraint, two classes) only cuts that keep it and the
    node's bounds are candidates; it then serves features without missing values too."""
    cdef int64_t K = B.n_classes, enm = e - nm, msl = B.min_samples_leaf, q, p, c
    cdef int64_t pos1 = -1, pos2 = -1
    cdef int rs = B.rshift
    cdef double* cl = B.cl
    cdef double* cm = B.fl
    cdef double minw = B.min_weight_leaf, wl = 0.0, wm = 0.0, wi, proxy
    cdef double best1 = -INFINITY, best2 = -INFINITY
    cdef key_t k
    for c in range(K):
        cl[c] = 0.0
        cm[c] = 0.0
    for q in range(enm, e):
        wi = _wt(B, L[q])
        cm[_cls(B, L[q])] += wi
        wm += wi
    for q in range(s, enm):
        k = L[q]
        wi = _wt(B, k)
        cl[_cls(B, k)] += wi
        wl += wi
        if q + 1 == enm or ((L[q + 1] ^ k) >> rs) == 0:
            continue
        p = q + 1
        if (p - s >= msl and e - p >= msl and wl >= minw and wtot - wl >= minw
                and (cst == 0 or _monotonic_ok(cl[0], wl, tot[0] - cl[0], wtot - wl, cst,
                                               lower, upper))):
            proxy = _proxy_moved(B, cl, NULL, wl, tot, wtot)
            if proxy > best1:
                best1 = proxy
                pos1 = p
        if (nm > 0 and p - s + nm >= msl and enm - p >= msl and wl + wm >= minw
                and wtot - wl - wm >= minw
                and (cst == 0 or _monotonic_ok(cl[0] + cm[0], wl + wm,
                                               tot[0] - cl[0] - cm[0], wtot - wl - wm,
                                               cst, lower, upper))):
            proxy = _proxy_moved(B, cl, cm, wl + wm, tot, wtot)
            if proxy > best2:
                best2 = proxy
                pos2 = p
    if (enm - s >= msl and nm >= msl and wl >= minw and wtot - wl >= minw
            and (cst == 0 or _monotonic_ok(cl[0], wl, tot[0] - cl[0], wtot - wl, cst,
                                           lower, upper))):
        proxy = _proxy_moved(B, cl, NULL, wl, tot, wtot)
        if proxy > best1:
            best1 = proxy
            pos1 = enm
    if best2 > best1:
        pos[0] = pos2
        ml[0] = 1
        return best2
    pos[0] = pos1
    ml[0] = 0
    return best1


cdef double _random_split(Builder* B, const key_t* L, int64_t f, int64_t s, int64_t e,
                          int64_t nm, const double* tot, double wtot, int64_t* pos,
                          double* thr, int64_t* ml, double lower,
                          double upper) noexcept nogil:
    """Extremely randomised split: one uniform threshold between the node's extremes of
    the present values; missing samples, if any, go to a side drawn at random."""
    cdef const double* xf = B.X + f * B.xcs
    cdef uint64_t im = B.imask
    cdef int64_t enm = e - nm, rs = B.xrs
    cdef double lo_v = xf[<int64_t> (L[s] & im) * rs], hi_v = xf[<int64_t> (L[enm - 1] & im) * rs]
    cdef double t = lo_v + _rand_uniform(&B.rng) * (hi_v - lo_v)
    cdef int64_t a, b, m, p, c, n_left
    cdef double wl = 0.0, wi
    if not isfinite(t):
        t = lo_v / 2.0 + hi_v / 2.0
    if t >= hi_v:
        t = lo_v
    ml[0] = <int64_t> _rand_below(&B.rng, 2) if nm > 0 else 0
    # first position whose value exceeds t
    a = s
    b = enm
    while a < b:
        m = (a + b) >> 1
        if xf[<int64_t> (L[m] & im) * rs] > t:
            b = m
        else:
            a = m + 1
    p = a
    n_left = p - s + (nm if ml[0] else 0)
    if n_left < B.min_samples_leaf or (e - s) - n_left < B.min_samples_leaf:
        return -INFINITY
    for c in range(B.n_classes):
        B.cl[c] = 0.0
    for m in range(s, p):
        wi = _wt(B, L[m])
        B.cl[_cls(B, L[m])] += wi
        wl += wi
    if ml[0]:
        for m in range(enm, e):
            wi = _wt(B, L[m])
            B.cl[_cls(B, L[m])] += wi
            wl += wi
    if wl < B.min_weight_leaf or wtot - wl < B.min_weight_leaf:
        return -INFINITY
    for c in range(B.n_classes):
        B.cr[c] = tot[c] - B.cl[c]
    if (B.monotonic != NULL and B.monotonic[f] != 0
            and not _monotonic_ok(B.cl[0], wl, B.cr[0], wtot - wl, B.monotonic[f],
                                  lower, upper)):
        return -INFINITY
    pos[0] = p
    thr[0] = t
    return _proxy_counts(B, B.cl, B.cr, wl, wtot - wl)


cdef inline void _add_counts2(const Builder* B, const key_t* L, int64_t a, int64_t b,
                              double* counts, double* weight) noexcept nogil:
    """Adds the class weights of L[a:b) to counts (two classes, weights in the keys)."""
    cdef int64_t q, c1 = 0, tw = 0, wi
    cdef int cs = B.cshift, ws = B.wshift
    cdef uint64_t wm = B.wmask
    cdef key_t k
    for q in range(a, b):
        k = L[q]
        wi = <int64_t> ((k >> ws) & wm)
        c1 += wi & -(<int64_t> ((k >> cs) & 1))
        tw += wi
    counts[0] += <double> (tw - c1)
    counts[1] += <double> c1
    weight[0] += <double> tw


# ----------------------------------------------------------------------------------------
# Sorting in the node
# ----------------------------------------------------------------------------------------
#
# Below the nodes where the presorted lists stop paying for themselves (_lists_pay), a
# node keeps only its samples, in ``samples[start:end)`` in increasing sample index, and
# sorts the features it scans: each sample's key takes the feature's dense rank (from
# ``ranks``) and the keys are sorted by rank, stably.  Stable on keys in index order, the
# result is exactly the slice the presorted list would hold (by rank, then index), so the
# scans, and the tree, are the same whichever method a node uses.

cdef bint _radix_sort(key_t* a, key_t* tmp, int64_t n, int shift, uint64_t fmask,
                      uint64_t lo, int bits, int64_t* hist,
                      int digit_bits=RADIX_BITS) noexcept nogil:
    """Stable sort of a[0:n) by the field ((k >> shift) & fmask) - lo, of at most `bits`
    bits, with tmp[0:n) as the other buffer (least significant digit first, digits of at
    most digit_bits <= RADIX_BITS bits).  True when the result is in tmp, False when in
    a."""
    cdef int passes, digit, d, pss
    cdef int64_t q, i, total, c
    cdef uint64_t mask, kf
    cdef key_t k
    cdef key_t* src = a
    cdef key_t* dst = tmp
    cdef key_t* t
    if n < 2 or bits <= 0:
        return False
    if n <= 24:
        for q in range(1, n):
            k = a[q]
            kf = ((k >> shift) & fmask) - lo
            i = q
            while i > 0 and (((a[i - 1] >> shift) & fmask) - lo) > kf:
                a[i] = a[i - 1]
                i -= 1
            a[i] = k
        return False
    if bits == 1:
        # two values: a stable partition, counted and placed with the cursors in
        # registers (a histogram of two counts stalls on its own stores)
        c = 0
        for q in range(n):
            c += <int64_t> ((((a[q] >> shift) & fmask) - lo) & 1)
        i = 0
        total = n - c
        for q in range(n):
            k = a[q]
            c = <int64_t> ((((k >> shift) & fmask) - lo) & 1)
            tmp[total if c else i] = k
            i += 1 - c
            total += c
        return True
    passes = (bits + digit_bits - 1) // digit_bits
    digit = (bits + passes - 1) // passes
    mask = ((<uint64_t> 1) << digit) - 1
    for pss in range(passes):
        d = pss * digit
        if digit <= 8:
            # few counts: four interleaved histograms, so that runs of one value do
            # not wait on each other's stores
            memset(hist, 0, 4 * (mask + 1) * sizeof(int64_t))
            q = 0
            while q + 4 <= n:
                hist[((((src[q] >> shift) & fmask) - lo) >> d) & mask] += 1
                hist[(mask + 1) + (((((src[q + 1] >> shift) & fmask) - lo) >> d) & mask)] += 1
                hist[2 * (mask + 1) + (((((src[q + 2] >> shift) & fmask) - lo) >> d) & mask)] += 1
                hist[3 * (mask + 1) + (((((src[q + 3] >> shift) & fmask) - lo) >> d) & mask)] += 1
                q += 4
            while q < n:
                hist[((((src[q] >> shift) & fmask) - lo) >> d) & mask] += 1
                q += 1
            for i in range(<int64_t> mask + 1):
                hist[i] += (hist[(mask + 1) + i] + hist[2 * (mask + 1) + i]
                            + hist[3 * (mask + 1) + i])
        else:
            memset(hist, 0, (mask + 1) * sizeof(int64_t))
            for q in range(n):
                hist[((((src[q] >> shift) & fmask) - lo) >> d) & mask] += 1
        total = 0
        for i in range(<int64_t> mask + 1):
            c = hist[i]
            hist[i] = total
            total += c
        for q in range(n):
            k = src[q]
            i = <int64_t> (((((k >> shift) & fmask) - lo) >> d) & mask)
            dst[hist[i]] = k
            hist[i] += 1
        t = src
        src = dst
        dst = t
    return src != a


cdef inline void _gather_keys(const rank_t* rk, const key_t* S, key_t* out, int64_t s,
                              int64_t e, uint64_t im, int rs, uint64_t* lo,
                              uint64_t* hi) noexcept nogil:
    """out[q] = S[q] with its rank in feature row rk, for q in [s, e); the least and
    largest rank."""
    cdef uint64_t r, rmin = <uint64_t> -1, rmax = 0
    cdef int64_t q
    cdef key_t k
    for q in range(s, e):
        k = S[q]
        r = rk[k & im]
        rmin = r if r < rmin else rmin
        rmax = r if r > rmax else rmax
        out[q] = (r << rs) | k
    lo[0] = rmin
    hi[0] = rmax


cdef const key_t* _node_keys(Builder* B, int64_t f, int64_t s, int64_t e) noexcept nogil:
    """The keys of feature f of a sorting node's samples, in the order of the presorted
    list, at [s, e) of the returned buffer (sorted_keys[0]); NULL when f is constant in
    the node."""
    cdef key_t* out = B.sorted_keys[0]
    cdef key_t* t
    cdef uint64_t rmin, rmax
    cdef int64_t row = f * B.n_total
    if B.rank_bytes == 1:
        _gather_keys((<const uint8_t*> B.ranks) + row, B.samples, out, s, e, B.imask,
                     B.rshift, &rmin, &rmax)
    elif B.rank_bytes == 2:
        _gather_keys((<const uint16_t*> B.ranks) + row, B.samples, out, s, e, B.imask,
                     B.rshift, &rmin, &rmax)
    else:
        _gather_keys((<const uint32_t*> B.ranks) + row, B.samples, out, s, e, B.imask,
                     B.rshift, &rmin, &rmax)
    if rmin == rmax:
        return NULL
    if _radix_sort(out + s, B.sort_tmp + s, e - s, B.rshift, <uint64_t> -1, rmin,
                   _bit_length(rmax - rmin), B.hist):
        t = B.sorted_keys[0]
        B.sorted_keys[0] = B.sort_tmp
        B.sort_tmp = t
    return B.sorted_keys[0]


cdef void _samples_by_index(Builder* B, int64_t s, int64_t e) noexcept nogil:
    """Sort samples[s:e) by sample index."""
    if _radix_sort(B.samples + s, B.sort_tmp + s, e - s, 0, B.imask, 0,
                   _bit_length(B.imask), B.hist):
        memcpy(B.samples + s, B.sort_tmp + s, (e - s) * sizeof(key_t))


cdef void _samples_from_list(Builder* B, const key_t* Lf, int64_t s, int64_t cut,
                             int64_t enm, int64_t e, bint moved, bint lleaf,
                             bint rleaf) noexcept nogil:
    """A presorted node whose children sort: their samples from the split feature's list
    (left: [s, cut), and the missing [enm, e) when they move left), each child's in index
    order."""
    cdef key_t pm = ((<key_t> 1) << B.rshift) - 1
    cdef key_t* S = B.samples
    cdef int64_t q, o = s, p
    for q in range(s, cut):
        S[o] = Lf[q] & pm
        o += 1
    if moved:
        for q in range(enm, e):
            S[o] = Lf[q] & pm
            o += 1
    p = o
    for q in range(cut, enm):
        S[o] = Lf[q] & pm
        o += 1
    if not moved:
        for q in range(enm, e):
            S[o] = Lf[q] & pm
            o += 1
    if not lleaf:
        _samples_by_index(B, s, p)
    if not rleaf:
        _samples_by_index(B, p, e)


cdef inline int64_t _split_samples(const rank_t* rk, key_t* S, key_t* R, int64_t s,
                                   int64_t e, uint64_t im, uint64_t cut_rank,
                                   uint64_t nr, bint moved) noexcept nogil:
    """Left keys of S[s:e) packed from S[s], right ones into R; returns their count."""
    cdef int64_t il = s, ir = 0, q, g
    cdef uint64_t r
    cdef key_t k
    for q in range(s, e):
        k = S[q]
        r = rk[k & im]
        g = <int64_t> ((r < cut_rank) | (moved & (r == nr)))
        S[il] = k
        R[ir] = k
        il += g
        ir += 1 - g
    return ir


cdef void _partition_samples(Builder* B, int64_t s, int64_t e, int64_t p, int64_t f,
                             uint64_t cut_rank, bint moved) noexcept nogil:
    """Stable partition of a sorting node's samples[s:e) by its split on feature f: a
    sample goes left when its rank is below cut_rank, or when it is missing and the
    missing samples move left."""
    cdef int64_t row = f * B.n_total, ir
    cdef uint64_t nr = B.nan_rank[f]
    if B.rank_bytes == 1:
        ir = _split_samples((<const uint8_t*> B.ranks) + row, B.samples, B.scratch, s, e,
                            B.imask, cut_rank, nr, moved)
    elif B.rank_bytes == 2:
        ir = _split_samples((<const uint16_t*> B.ranks) + row, B.samples, B.scratch, s, e,
                            B.imask, cut_rank, nr, moved)
    else:
        ir = _split_samples((<const uint32_t*> B.ranks) + row, B.samples, B.scratch, s, e,
                            B.imask, cut_rank, nr, moved)
    memcpy(B.samples + p, B.scratch, min(ir, e - p) * sizeof(key_t))


# Costs of the two methods per key, relative to partitioning one presorted list: sorting
# a feature in a node reads each sample's rank and writes its key (GATHER_COST), then
# moves the key once per digit of the radix sort (DIGIT_COST).  Fitted to forced-method
# fits on this project's benchmark machine (AVX-512): with all features scanned, the
# lists win on columns of many values (two digits; 1.2x at 100k rows, 2.6x at 1M) and
# sorting wins on columns of few values (one digit; 0.67x); with 4 of 20 features drawn
# per node sorting takes 0.2x to 0.5x of the lists' time, on MNIST 0.1x.
cdef double GATHER_COST = 0.35
cdef double DIGIT_COST = 0.5


cdef bint _lists_pay(int64_t max_features, int64_t F, int rbits, int64_t d) noexcept nogil:
    """Whether a node with d features not constant should partition its presorted lists
    for its children rather than let them (and their subtrees) sort the features they
    scan (max_features of F drawn; ranks of rbits bits)."""
    cdef double m
    # features the children scan: each draws max_features of the n_features, of which a
    # share d / n_features is not constant (and at least one is)
    m = <double> max_features * d / F
    if m < 1.0:
        m = 1.0
    if m > d:
        m = d
    return d < m * (GATHER_COST + DIGIT_COST * ceil(<double> rbits / RADIX_BITS))


cdef int _plan(int method, int64_t max_features, int64_t F, int rbits,
               int64_t n_varied) noexcept nogil:
    """How a tree starts: METHOD_SORT (its root sorts already), METHOD_PRESORT (its root
    keeps the lists, and no node with fewer varied features would switch) or
    METHOD_AUTO (the root keeps the lists and each node decides)."""
    cdef int64_t d
    if method != METHOD_AUTO:
        return method
    if not _lists_pay(max_features, F, rbits, n_varied):
        return METHOD_SORT
    for d in range(1, n_varied):
        if not _lists_pay(max_features, F, rbits, d):
            return METHOD_AUTO
    return METHOD_PRESORT


cdef int _tree_method(int64_t max_features, int64_t F, int rbits, const uint64_t* col_top,
                      int64_t n) noexcept nogil:
    """_plan for a tree of n samples whose columns have the highest ranks col_top (those
    constant over all samples do not count), and METHOD_SORT when its lists would take
    over a quarter of the machine's memory (a forest holds one copy per thread: nodes
    then sort from ranks of 1 to 4 bytes a cell)."""
    cdef int64_t f, n_varied = 0
    cdef int method
    for f in range(F):
        n_varied += col_top[f] > 0
    method = _plan(_METHOD, max_features, F, rbits, n_varied)
    if method != METHOD_SORT and (F * n + 9) * sizeof(key_t) > rf_physical_memory() // 4:
        return METHOD_SORT
    return method


cdef void _find_split(Builder* B, int64_t ei) noexcept nogil:
    """Best split of a frontier node; sets its has_split and split fields.

    Features are drawn as scikit-learn draws them: with max_features below n_features,
    uniformly without replacement among all features, every drawn feature counting
    towards max_features whether or not it is constant in the node, until max_features
    are drawn and at least one of them is not constant (or none is left).  Otherwise every
    feature is visited in index order.  Either way, of features whose cuts are exactly
    as good, the first visited wins."""
    cdef Entry* e = &B.ent[ei]
    cdef int64_t K = B.n_classes, F = B.n_features, s = e.start, end = e.end
    cdef double* counts = B.ent_counts + ei * 3 * K
    cdef double* cleft = counts + K
    cdef double* cright = counts + 2 * K
    cdef uint64_t* consts = B.ent_const + ei * B.n_words
    cdef key_t* base = B.lists
    cdef key_t* swap
    cdef int64_t f, i, j, visited = 0, found = 0, pos = -1, best_f = -1, best_p = -1, c, q
    cdef int64_t nm, ml = 0, best_nm = 0, best_ml = 0, enm, n_left, m1i = 0, mwi = 0, t2
    cdef double best = -INFINITY, proxy, thr = 0.0, best_thr = 0.0, wl, wr, wi, a, b
    cdef bint draw = B.max_features < F, presorted = e.presorted, multi_simd
    cdef const key_t* L
    # the multiclass Gini kernel takes the node's class weights as integers (in cri) and
    # the sum of their squares, the same for every feature (at such a node the only other
    # scan, _scan_missing, keeps its counts in doubles and leaves cri alone)
    multi_simd = (B.criterion == CRIT_GINI and K > 2 and B.packed and B.use_avx512
                  and B.min_weight_leaf == 0.0 and not B.random_split)
    if multi_simd:
        t2 = 0
        for c in range(K):
            B.cri[c] = <int64_t> counts[c]
            t2 += B.cri[c] * B.cri[c]
    i = 0
    while i < F:
        if draw:
            if visited >= B.max_features and found > 0:
                break
            # B.feats is a permutation of the features kept from node to node: the first
            # i are this node's draws so far, any arrangement of the rest is as good
            j = i + <int64_t> _rand_below(&B.rng, F - i)
            f = B.feats[j]
            B.feats[j] = B.feats[i]
            B.feats[i] = f
        else:
            f = i
        i += 1
        visited += 1
        if (consts[f >> 6] >> (f & 63)) & 1:
            continue
        if presorted:
            L = base + f * B.n_active
            if ((L[s] ^ L[end - 1]) >> B.rshift) == 0:
                L = NULL
        else:
            L = _node_keys(B, f, s, end)
        if L == NULL:
            consts[f >> 6] |= (<uint64_t> 1) << (f & 63)
            continue
        found += 1
        nm = 0
        ml = 0
        m1i = 0
        mwi = 0
        if B.any_missing and B.nan_rank[f] != NO_NAN:
            nm = _missing_tail(B, L, s, end, B.nan_rank[f], &m1i, &mwi)
        if B.random_split:
            proxy = _random_split(B, L, f, s, end, nm, counts, e.weight, &pos, &thr, &ml,
                                  e.lower, e.upper)
        elif B.monotonic != NULL and B.monotonic[f] != 0:
            # a constrained feature: the portable scan, checking every cut
            proxy = _scan_missing(B, L, s, end, nm, counts, e.weight, &pos, &ml,
                                  B.monotonic[f], e.lower, e.upper)
        elif B.criterion == CRIT_GINI and K == 2:
            if B.packed:
                proxy = _scan_gini_binary(B, L, s, end, nm, counts, e.weight, best, &pos,
                                          &ml, <int64_t> 0, m1i, mwi)
            else:
                proxy = _scan_gini_binary(B, L, s, end, nm, counts, e.weight, best, &pos,
                                          &ml, <double> 0.0, 0, 0)
        elif nm > 0:
            proxy = _scan_missing(B, L, s, end, nm, counts, e.weight, &pos, &ml)
        elif (B.criterion == CRIT_ENTROPY and K == 2 and B.packed and B.use_avx512
                and B.xlogx_table != NULL and B.min_weight_leaf == 0.0):
            # the cuts of the AVX-512 kernel that beat the features before (see there)
            pos = -1
            proxy = best
            rf_entropy_binary_avx512(L, s, end - B.min_samples_leaf,
                                     s + B.min_samples_leaf, end - B.min_samples_leaf,
                                     B.cshift, B.rshift, B.wshift, B.wmask, counts[1],
                                     e.weight, B.xlogx_table, &proxy, &pos)
            if pos < 0:
                proxy = -INFINITY
        elif multi_simd:
            # more than two classes: the cuts of the AVX-512 kernel that beat the
            # features before (see there)
            memset(B.cli, 0, K * sizeof(int64_t))
            pos = -1
            proxy = best
            rf_gini_multi_avx512(L, s, end - B.min_samples_leaf, s + B.min_samples_leaf,
                                 B.cshift, B.rshift, B.wshift, B.cmask, B.wmask, B.cli,
                                 B.cri, t2, e.weight, &proxy, &pos)
            if pos < 0:
                proxy = -INFINITY
        elif B.packed:
            proxy = _scan(B, L, s, end, counts, e.weight, &pos, <int64_t> 0)
        else:
            proxy = _scan(B, L, s, end, counts, e.weight, &pos, <double> 0.0)
        if proxy > best:
            best = proxy
            best_f = f
            best_p = pos
            best_thr = thr
            best_nm = nm
            best_ml = ml
            if not presorted:        # keep the best feature's sorted keys
                swap = B.sorted_keys[0]
                B.sorted_keys[0] = B.sorted_keys[1]
                B.sorted_keys[1] = swap
    e.has_split = 0
    if best_f < 0:
        return
    # exact class counts of both children
    L = base + best_f * B.n_active if presorted else B.sorted_keys[1]
    enm = end - best_nm
    e.split.cut_rank = (L[best_p] >> B.rshift) if best_p < enm else B.nan_rank[best_f]
    for c in range(K):
        cleft[c] = 0.0
        cright[c] = 0.0
    wl = 0.0
    wr = 0.0
    if B.packed and K == 2:
        # integer sums in registers (the loop below carries a dependency through memory
        # whenever neighbours share a class); the same exact values
        _add_counts2(B, L, s, best_p, cleft, &wl)
        _add_counts2(B, L, best_p, enm, cright, &wr)
        if best_ml:
            _add_counts2(B, L, enm, end, cleft, &wl)
        else:
            _add_counts2(B, L, enm, end, cright, &wr)
    else:
        for q in range(s, best_p):
            wi = _wt(B, L[q])
            cleft[_cls(B, L[q])] += wi
            wl += wi
        for q in range(best_p, enm):
            wi = _wt(B, L[q])
            cright[_cls(B, L[q])] += wi
            wr += wi
        for q in range(enm, end):
            wi = _wt(B, L[q])
            if best_ml:
                cleft[_cls(B, L[q])] += wi
                wl += wi
            else:
                cright[_cls(B, L[q])] += wi
                wr += wi
    n_left = best_p - s + (best_nm if best_ml else 0)
    e.split.feature = best_f
    e.split.pos = best_p
    e.split.n_missing = best_nm
    # with no missing sample here, NaN at predict time follows the larger child
    e.split.missing_left = best_ml if best_nm > 0 else (n_left > (end - s) - n_left)
    e.split.weight_left = wl
    e.split.weight_right = wr
    e.split.impurity_left = _impurity(B, cleft, wl)
    e.split.impurity_right = _impurity(B, cright, wr)
    e.split.improvement = (e.weight / B.total_weight) * (
        e.impurity - (wr / e.weight) * e.split.impurity_right
        - (wl / e.weight) * e.split.impurity_left)
    if e.split.improvement + EPSILON < B.min_impurity_decrease:
        return
    if B.random_split:
        e.split.threshold = best_thr
    elif best_p == enm:
        # all present values left, the missing ones right: NaN <= inf is false
        e.split.threshold = INFINITY
    else:
        # midpoint of the two neighbours, never rounded up onto the right one
        a = B.X[best_f * B.xcs + <int64_t> (L[best_p - 1] & B.imask) * B.xrs]
        b = B.X[best_f * B.xcs + <int64_t> (L[best_p] & B.imask) * B.xrs]
        thr = a / 2.0 + b / 2.0
        if thr >= b or not isfinite(thr):
            thr = a
        e.split.threshold = thr
    e.has_split = 1


# ----------------------------------------------------------------------------------------
# Frontier entries, nodes
# ----------------------------------------------------------------------------------------

cdef int64_t _ent_alloc(Builder* B) noexcept nogil:
    cdef int64_t cap
    cdef void* p
    if B.n_free > 0:
        B.n_free -= 1
        return B.free_list[B.n_free]
    if B.ent_used == B.ent_cap:
        cap = 2 * B.ent_cap
        p = realloc(B.ent, cap * sizeof(Entry))
        if p == NULL:
            B.error = 1
            return -1
        B.ent = <Entry*> p
        p = realloc(B.ent_counts, cap * 3 * B.n_classes * sizeof(double))
        if p == NULL:
            B.error = 1
            return -1
        B.ent_counts = <double*> p
        p = realloc(B.ent_const, cap * B.n_words * sizeof(uint64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.ent_const = <uint64_t*> p
        p = realloc(B.free_list, cap * sizeof(int64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.free_list = <int64_t*> p
        B.ent_cap = cap
    B.ent_used += 1
    return B.ent_used - 1


cdef inline void _ent_release(Builder* B, int64_t ei) noexcept nogil:
    B.free_list[B.n_free] = ei
    B.n_free += 1


cdef int _order_push(Builder* B, int64_t ei) noexcept nogil:
    cdef void* p
    if B.order_len == B.order_cap:
        p = realloc(B.order, 2 * B.order_cap * sizeof(int64_t))
        if p == NULL:
            B.error = 1
            return -1
        B.order = <int64_t*> p
        B.order_cap *= 2
    B.order[B.order_len] = ei
    B.order_len += 1
    return 0


cdef inline bint _heap_above(const Builder* B, int64_t a, int64_t b) noexcept nogil:
    cdef double ia = B.ent[a].split.improvement, ib = B.ent[b].split.improvement
    return ia > ib or (ia == ib and B.ent[a].node_id < B.ent[b].node_id)


cdef int _heap_push(Builder* B, int64_t ei) noexcept nogil:
    cdef int64_t i, parent, tmp
    if _order_push(B, ei) < 0:
        return -1
    i = B.order_len - 1
    while i > 0:
        parent = (i - 1) >> 1
        if not _heap_above(B, B.order[i], B.order[parent]):
            break
        tmp = B.order[i]
        B.order[i] = B.order[parent]
        B.order[parent] = tmp
        i = parent
    return 0


cdef int64_t _heap_pop(Builder* B) noexcept nogil:
    cdef int64_t top = B.order[0], i = 0, l, r, m, tmp
    B.order_len -= 1
    B.order[0] = B.order[B.order_len]
    while True:
        l = 2 * i + 1
        r = l + 1
        m = i
        if l < B.order_len and _heap_above(B, B.order[l], B.order[m]):
            m = l
        if r < B.order_len and _heap_above(B, B.order[r], B.order[m]):
            m = r
        if m == i:
            break
        tmp = B.order[i]
        B.order[i] = B.order[m]
        B.order[m] = tmp
        i = m
    return top


cdef int _create_node(Builder* B, int64_t ei, bint can_split) noexcept nogil:
    """Append the entry's node to the tree (as a leaf) and, if it may split, find its split."""
    cdef Entry* e = &B.ent[ei]
    cdef int64_t K = B.n_classes, idx, c, cap
    cdef const double* counts = B.ent_counts + ei * 3 * K
    cdef void* p
    cdef Node* nd
    if B.node_count == MAX_NODES:
        B.error = 2              # node ids are 32-bit (see Node)
        return -1
    if B.node_count == B.node_cap:
        cap = min(2 * B.node_cap, MAX_NODES)
        p = realloc(B.nodes, cap * sizeof(Node))
        if p == NULL:
            B.error = 1
            return -1
        B.nodes = <Node*> p
        p = realloc(B.values, cap * K * sizeof(double))
        if p == NULL:
            B.error = 1
            return -1
        B.values = <double*> p
        B.node_cap = cap
    idx = B.node_count
    B.node_count += 1
    nd = &B.nodes[idx]
    memset(nd, 0, sizeof(Node))
    nd.left_child = -1
    nd.right_child = -1
    nd.feature = -2
    nd.threshold = -2.0
    nd.impurity = e.impurity
    nd.n_node_samples = e.end - e.start
    nd.weighted_n_node_samples = e.weight
    for c in range(K):
        B.values[idx * K + c] = counts[c] / e.weight
    if B.monotonic != NULL and K == 2:
        # the class-0 fraction is held within the bounds the constraints set (two
        # classes), as scikit-learn does, and the other fraction is its complement
        if B.values[idx * K] < e.lower:
            B.values[idx * K] = e.lower
        elif B.values[idx * K] > e.upper:
            B.values[idx * K] = e.upper
        B.values[idx * K + 1] = 1.0 - B.values[idx * K]
    if e.parent >= 0:
        if e.is_left:
            B.nodes[e.parent].left_child = idx
        else:
            B.nodes[e.parent].right_child = idx
    if e.depth > B.depth_reached:
        B.depth_reached = e.depth
    e.node_id = idx
    e.has_split = 0
    if can_split and not _is_leaf(B, e.depth, e.end - e.start, e.weight, e.impurity):
        _find_split(B, ei)
    return 0


cdef inline void _partition_both(key_t* L, key_t* R, int64_t s, int64_t e, int64_t p,
                                 const uint32_t* gl, uint64_t im) noexcept nogil:
    # In place: left keys packed from L[s], right ones into the scratch R, then copied
    # back to L[p:e).  Branch-free: every key is written to both places and only the
    # cursor of its own side moves (a stray write to L[il] lands at or before q, on a key
    # already read; one to R[ir] lands inside R, which has room for e - s + 1 keys).
    cdef int64_t il = s, ir = 0, q, g
    cdef key_t k
    for q in range(s, e):
        k = L[q]
        g = _side(gl, k & im)
        L[il] = k
        R[ir] = k
        il += g
        ir += 1 - g
    memcpy(L + p, R, min(ir, e - p) * sizeof(key_t))


cdef inline int64_t _side(const uint32_t* gl, uint64_t i) noexcept nogil:
    """1 when sample i goes left (bit i of the bitmap gl)."""
    return <int64_t> ((gl[i >> 5] >> (i & 31)) & 1)


cdef inline void _partition_left(key_t* L, int64_t s, int64_t e, const uint32_t* gl,
                                 uint64_t im) noexcept nogil:
    # Only the left child is kept: pack its keys in place from L[s].
    cdef int64_t il = s, q
    cdef key_t k
    for q in range(s, e):
        k = L[q]
        L[il] = k
        il += _side(gl, k & im)


cdef inline void _partition_right(key_t* L, key_t* R, int64_t s, int64_t e, int64_t p,
                                  const uint32_t* gl, uint64_t im) noexcept nogil:
    # Only the right child is kept: its keys go to the scratch, then to L[p:e).
    cdef int64_t ir = 0, q
    cdef key_t k
    for q in range(s, e):
        k = L[q]
        R[ir] = k
        ir += 1 - _side(gl, k & im)
    memcpy(L + p, R, min(ir, e - p) * sizeof(key_t))


cdef int64_t _count_varied(const uint64_t* consts, int64_t F) noexcept nogil:
    """Features not marked constant in a node's bitmap."""
    cdef int64_t w, n = 0
    for w in range((F + 63) >> 6):
        n += rf_popcount64(consts[w])
    return F - n


cdef int _expand(Builder* B, int64_t ei, bint children_final, int64_t* out) noexcept nogil:
    """Split a node: mark sides, partition the lists, make the two child entries.

    Right after a feature's slice is partitioned, each child's first and last keys tell
    whether the feature is constant in that child; it is then marked so, and neither
    scanned nor partitioned below it (with max_features < n_features this keeps
    constant columns, such as blank pixels, from being moved at every node)."""
    cdef int64_t K = B.n_classes, F = B.n_features, n_act = B.n_active
    cdef int64_t le = _ent_alloc(B), re = _ent_alloc(B)
    if le < 0 or re < 0:
        return -1
    cdef Entry* e = &B.ent[ei]
    cdef int64_t s = e.start, end = e.end, f = e.split.feature, q, g
    cdef int64_t cut = e.split.pos, enm = e.end - e.split.n_missing, p
    cdef int64_t depth = e.depth, W = B.n_words, node_id = e.node_id
    cdef int rs = B.rshift
    cdef key_t* R = B.scratch
    cdef const key_t* Lf = B.lists + f * n_act
    cdef key_t* D
    cdef uint32_t* gl = B.goleft
    cdef uint64_t ix
    cdef uint64_t* consts = B.ent_const + ei * W
    cdef uint64_t* lconsts = B.ent_const + le * W
    cdef uint64_t* rconsts = B.ent_const + re * W
    cdef uint64_t bit
    cdef bint lleaf, rleaf, presorted = e.presorted, kids_presorted
    cdef SplitInfo sp = e.split
    cdef bint moved = sp.n_missing > 0 and sp.missing_left
    cdef double bounds[4]          # lower, upper of the left child, then of the right
    cdef double middle
    cdef int cst = B.monotonic[f] if B.monotonic != NULL else 0
    bounds[0] = bounds[2] = e.lower
    bounds[1] = bounds[3] = e.upper
    if cst != 0:
        # children of a constrained split meet at the mean of their class-0 fractions
        middle = (B.ent_counts[ei * 3 * K + K] / (2.0 * sp.weight_left)
                  + B.ent_counts[ei * 3 * K + 2 * K] / (2.0 * sp.weight_right))
        if cst == 1:
            bounds[1] = middle
            bounds[2] = middle
        else:
            bounds[0] = middle
            bounds[3] = middle
    # the left child holds [s, cut) of the split feature's list, plus its missing samples
    # [enm, end) when they go left; p is where the right child starts in every list
    p = cut + (sp.n_missing if moved else 0)
    B.nodes[node_id].feature = f
    B.nodes[node_id].threshold = sp.threshold
    B.nodes[node_id].missing_go_to_left = <uint8_t> sp.missing_left
    lleaf = children_final or _is_leaf(B, depth + 1, p - s, sp.weight_left, sp.impurity_left)
    rleaf = children_final or _is_leaf(B, depth + 1, end - p, sp.weight_right,
                                       sp.impurity_right)
    memcpy(lconsts, consts, W * sizeof(uint64_t))
    memcpy(rconsts, consts, W * sizeof(uint64_t))
    kids_presorted = presorted
    if lleaf and rleaf:
        pass
    elif not presorted:
        _partition_samples(B, s, end, p, f, sp.cut_rank, moved)
    elif B.method == METHOD_AUTO and not _lists_pay(B.max_features, F, B.rbits,
                                                     _count_varied(consts, F)):
        _samples_from_list(B, Lf, s, cut, enm, end, moved, lleaf, rleaf)
        kids_presorted = False
    else:
        for q in range(s, cut):
            ix = Lf[q] & B.imask
            gl[ix >> 5] |= (<uint32_t> 1) << (ix & 31)
        for q in range(cut, end):
            ix = Lf[q] & B.imask
            gl[ix >> 5] &= ~((<uint32_t> 1) << (ix & 31))
        if moved:
            for q in range(enm, end):
                ix = Lf[q] & B.imask
                gl[ix >> 5] |= (<uint32_t> 1) << (ix & 31)
        for g in range(F):
            bit = (<uint64_t> 1) << (g & 63)
            if consts[g >> 6] & bit:
                continue
            D = B.lists + g * n_act
            if g == f and not moved:
                pass                 # already in order: [s, p) left, [p, end) right
            elif B.use_avx512:
                rf_partition_avx512(D, R, s, end, p, gl, B.imask,
                                    2 if lleaf else (1 if rleaf else 0))
            elif lleaf:
                _partition_right(D, R, s, end, p, gl, B.imask)
            elif rleaf:
                _partition_left(D, s, end, gl, B.imask)
            else:
                _partition_both(D, R, s, end, p, gl, B.imask)
            if not lleaf and ((D[s] ^ D[p - 1]) >> rs) == 0:
                lconsts[g >> 6] |= bit
            if not rleaf and ((D[p] ^ D[end - 1]) >> rs) == 0:
                rconsts[g >> 6] |= bit
    for q in range(2):
        g = le if q == 0 else re
        e = &B.ent[g]
        e.start = s if q == 0 else p
        e.end = p if q == 0 else end
        e.depth = depth + 1
        e.parent = node_id
        e.node_id = -1
        e.is_left = 1 if q == 0 else 0
        e.has_split = 0
        e.presorted = kids_presorted
        e.impurity = sp.impurity_left if q == 0 else sp.impurity_right
        e.weight = sp.weight_left if q == 0 else sp.weight_right
        e.lower = bounds[2 * q]
        e.upper = bounds[2 * q + 1]
        memcpy(B.ent_counts + g * 3 * K, B.ent_counts + ei * 3 * K + (1 + q) * K,
               K * sizeof(double))
    out[0] = le
    out[1] = re
    return 0


cdef int _grow(Builder* B, int64_t root, int64_t max_leaf_nodes) noexcept nogil:
    cdef int64_t ei, splits_left, q
    cdef int64_t kids[2]
    if max_leaf_nodes > 0:
        # best-first: nodes are numbered when created; the frontier is a heap
        splits_left = max_leaf_nodes - 1
        if _create_node(B, root, splits_left > 0) < 0:
            return -1
        if B.ent[root].has_split:
            if _heap_push(B, root) < 0:
                return -1
        while B.order_len > 0 and splits_left > 0:
            ei = _heap_pop(B)
            splits_left -= 1
            if _expand(B, ei, splits_left == 0, kids) < 0:
                return -1
            _ent_release(B, ei)
            for q in range(2):
                if _create_node(B, kids[q], splits_left > 0) < 0:
                    return -1
                if B.ent[kids[q]].has_split:
                    if _heap_push(B, kids[q]) < 0:
                        return -1
                else:
                    _ent_release(B, kids[q])
    else:
        # depth-first: nodes are numbered when popped (pre-order); the frontier is a stack
        if _order_push(B, root) < 0:
            return -1
        while B.order_len > 0:
            B.order_len -= 1
            ei = B.order[B.order_len]
            if _create_node(B, ei, True) < 0:
                return -1
            if B.ent[ei].has_split:
                if _expand(B, ei, False, kids) < 0:
                    return -1
                if _order_push(B, kids[1]) < 0 or _order_push(B, kids[0]) < 0:
                    return -1
            _ent_release(B, ei)
    return 0


cdef void _free_builder(Builder* B) noexcept nogil:
    if not B.borrowed_lists:
        free(B.lists)
    free(B.samples)
    free(B.sorted_keys[0])
    free(B.sorted_keys[1])
    free(B.sort_tmp)
    free(B.hist)
    free(B.scratch)
    free(B.goleft)
    free(B.nan_rank)
    free(B.xlogx_table)
    free(B.cl)
    free(B.cr)
    free(B.fl)
    free(B.fr)
    free(B.cli)
    free(B.cri)
    free(B.feats)
    free(B.ent)
    free(B.ent_counts)
    free(B.ent_const)
    free(B.free_list)
    free(B.order)
    free(B.nodes)
    free(B.values)


cdef int _bit_length(uint64_t v) noexcept nogil:
    cdef int b = 0
    while v:
        v >>= 1
        b += 1
    return b


cdef int _fill_list(const uint32_t* row, const uint64_t* payload, int64_t n, int64_t n_act,
                    int rshift, key_t* out) noexcept nogil:
    """One feature's working list: the samples of this tree (payload not INACTIVE) in
    presorted order, each key carrying its dense rank (counted from the bitmap of value
    starts that follows the order in ``row``).  -1 if ``row`` holds an index out of
    range or the wrong number of this tree's samples.  (Keys that are no permutation
    of the samples in other ways give a wrong tree, never a stray memory access: the
    partitions never write past their node's slice.)"""
    cdef const uint32_t* starts = row + n
    cdef uint64_t rank = <uint64_t> -1     # position 0 starts a value: rank 0
    cdef uint64_t kk
    cdef int64_t i, i0, q = 0
    cdef uint32_t ix, bits
    for i0 in range(0, n, 32):             # one word of the bitmap: 32 positions
        bits = starts[i0 >> 5]
        for i in range(i0, min(i0 + 32, n)):
            rank += bits & 1
            bits >>= 1
            ix = row[i]
            if ix >= n:
                return -1
            kk = payload[ix]
            if kk != INACTIVE:
                if q == n_act:
                    return -1
                out[q] = (rank << rshift) | kk
                q += 1
    return 0 if q == n_act else -1


def build_tree(const double[:, :] X, const uint32_t[:, ::1] keys, const int32_t[::1] y,
               const double[::1] sample_weight, int64_t n_classes, int criterion,
               bint random_split, int64_t max_depth, int64_t min_samples_split,
               int64_t min_samples_leaf, double min_weight_leaf, int64_t max_features,
               int64_t max_leaf_nodes, double min_impurity_decrease, uint64_t seed,
               const int8_t[::1] monotonic=None, ranks=None):
    """Grow one tree on presorted lists.

    Parameters are already validated and resolved to plain numbers by the caller.
    ``keys`` is what :func:`presort` returns for ``X`` (it may be shared by many trees: it
    is only read).  Samples whose weight is zero take no part in this tree.
    ``max_leaf_nodes <= 0`` grows depth-first, otherwise best-first.
    ``monotonic`` (two classes only; None for none) holds per feature 1, -1 or 0: a split
    on a feature marked 1 (-1) must not lower (raise) the class-0 fraction from the left
    child to the right one, and every node's fraction stays within the bounds its
    ancestors' constrained splits set (scikit-learn's rule; the caller flips the signs
    of constraints stated on the positive class).
    ``ranks`` is what :func:`dense_ranks` returns for ``keys`` (computed here when None
    and some node sorts: a forest computes it once for all its trees).

    Each node either partitions the presorted lists for its children or, once that costs
    more than sorting the few features its children scan (max_features well below
    n_features; see ``_lists_pay``), leaves the lists and lets its subtree sort in the
    nodes; a tree whose root already prefers sorting never copies the lists.  Both
    methods grow the same tree.  ``_set_node_method`` forces one for tests.

    Returns ``(nodes, value, max_depth)``: the node array (``NODE_DTYPE``), the class
    fractions of every node, shape ``(node_count, 1, n_classes)``, and the depth reached.
    """
    cdef int64_t n = X.shape[0], F = X.shape[1], K = n_classes
    cdef int64_t i, f, q, n_act = 0, root, tmax
    cdef double tw = 0.0, wi, max_w = 0.0
    cdef bint integral = True
    cdef uint64_t max_rank = 0, ix, bad = 0
    cdef int ibits, rbits, cbits, wbits, spare
    cdef bint root_presorted
    cdef const uint8_t[:, ::1] r1
    cdef const uint16_t[:, ::1] r2
    cdef const uint32_t[:, ::1] r4
    cdef Builder B
    cdef key_t* out
    if (keys.shape[0] != F or keys.shape[1] != keys_width(n) or y.shape[0] != n
            or sample_weight.shape[0] != n):
        raise ValueError("X, keys, y and sample_weight do not agree in shape")
    if K < 1 or F < 1 or n < 1 or n > MAX_SAMPLES:
        raise ValueError("empty or oversized problem")
    if monotonic is not None:
        if monotonic.shape[0] != F or K > 2:
            raise ValueError("monotonic needs one entry per feature and two classes")
        for f in range(F):
            if monotonic[f] < -1 or monotonic[f] > 1:
                raise ValueError("monotonic entries must be -1, 0 or 1")
    for i in range(n):
        wi = sample_weight[i]
        if wi < 0.0 or not isfinite(wi):
            raise ValueError("sample weights must be finite and non-negative")
        if wi > 0.0:
            n_act += 1
            tw += wi
            if wi > max_w:
                max_w = wi
            if wi != <double> (<int64_t> wi):
                integral = False
        if y[i] < 0 or y[i] >= K:
            raise ValueError("class codes must lie in [0, n_classes)")
    if n_act == 0:
        raise ValueError("the sample weights sum to zero")
    # the highest dense rank of every column: its count of values, minus one
    col_top_arr = np.empty(F, dtype=np.uint64)
    cdef uint64_t[::1] col_top = col_top_arr
    with nogil:
        max_rank = _column_tops(keys, n, &col_top[0])
        for f in range(F):
            if keys[f, n - 1] >= <uint64_t> n or (keys[f, n] & 1) == 0:
                bad = 1
    if bad:
        raise ValueError("keys do not belong to X")

    if ranks is not None and (ranks.shape != (F, n) or not ranks.flags.c_contiguous
                              or ranks.dtype not in (np.uint8, np.uint16, np.uint32)):
        raise ValueError("ranks must be dense_ranks(keys)")
    memset(&B, 0, sizeof(Builder))
    # layout of the working keys
    ibits = max(1, _bit_length(<uint64_t> (n - 1)))
    rbits = max(1, _bit_length(max_rank))
    cbits = _bit_length(<uint64_t> (K - 1))
    spare = 64 - ibits - rbits - cbits
    if spare < 0:
        raise ValueError(f"too many classes ({K}) for {n} samples")
    B.packed = integral and tw < 2.0 ** 31 and _bit_length(<uint64_t> max_w) <= spare
    wbits = _bit_length(<uint64_t> max_w) if B.packed else 0
    B.imask = ((<uint64_t> 1) << ibits) - 1
    B.wshift = ibits
    B.wmask = ((<uint64_t> 1) << wbits) - 1
    B.cshift = ibits + wbits
    B.cmask = ((<uint64_t> 1) << cbits) - 1
    B.rshift = ibits + wbits + cbits
    B.rbits = rbits

    B.X = &X[0, 0]
    B.xrs = _element_stride(X.strides[0])
    B.xcs = _element_stride(X.strides[1])
    B.w = &sample_weight[0]
    B.n_total = n
    B.n_features = F
    B.n_classes = K
    B.n_active = n_act
    B.criterion = criterion
    B.random_split = random_split
    B.max_depth = max_depth
    B.min_samples_split = min_samples_split
    B.min_samples_leaf = max(min_samples_leaf, 1)
    B.min_weight_leaf = min_weight_leaf
    B.max_features = max(1, min(max_features, F))
    B.min_impurity_decrease = min_impurity_decrease
    B.total_weight = tw
    B.rng = seed
    B.monotonic = &monotonic[0] if monotonic is not None else NULL
    B.n_words = (F + 63) // 64
    B.use_avx512 = _USE_AVX512
    B.ent_cap = 64
    B.order_cap = 64
    B.node_cap = 256
    # how the root (and so the tree) starts: with the lists, unless sorting in the nodes
    # already costs less there, or the lists would not fit in memory
    B.method = _tree_method(B.max_features, F, B.rbits, &col_top[0], n_act)
    root_presorted = B.method != METHOD_SORT
    if root_presorted:
        # 8 keys of padding: the two-class Gini kernel reads a whole last block of 8 (+1)
        B.lists = <key_t*> rf_alloc_big((F * n_act + 9) * sizeof(key_t))
        if B.lists == NULL:
            # no room for the lists: every node sorts (needs 4 bytes a cell of ranks)
            root_presorted = False
            B.method = METHOD_SORT
    if B.method != METHOD_PRESORT:
        if ranks is None:
            ranks = dense_ranks(keys)
        B.rank_bytes = ranks.dtype.itemsize
        if B.rank_bytes < _dtype_for(max_rank).itemsize:
            _free_builder(&B)
            raise ValueError("ranks must be dense_ranks(keys)")
        if B.rank_bytes == 1:
            r1 = ranks
            B.ranks = &r1[0, 0]
        elif B.rank_bytes == 2:
            r2 = ranks
            B.ranks = &r2[0, 0]
        else:
            r4 = ranks
            B.ranks = &r4[0, 0]
        B.samples = <key_t*> malloc((n_act + 9) * sizeof(key_t))
        B.sorted_keys[0] = <key_t*> calloc(n_act + 9, sizeof(key_t))
        B.sorted_keys[1] = <key_t*> calloc(n_act + 9, sizeof(key_t))
        B.sort_tmp = <key_t*> calloc(n_act + 9, sizeof(key_t))
        B.hist = <int64_t*> malloc(max((1 << RADIX_BITS) + 1, 4 * 256) * sizeof(int64_t))
        if (B.samples == NULL or B.sorted_keys[0] == NULL or B.sorted_keys[1] == NULL
                or B.sort_tmp == NULL or B.hist == NULL):
            _free_builder(&B)
            raise MemoryError("not enough memory to grow the tree")
    B.scratch = <key_t*> malloc((n_act + 1) * sizeof(key_t))
    B.goleft = <uint32_t*> calloc((n >> 5) + 2, sizeof(uint32_t))
    B.cl = <double*> malloc(K * sizeof(double))
    B.cr = <double*> malloc(K * sizeof(double))
    B.fl = <double*> malloc(K * sizeof(double))
    B.fr = <double*> malloc(K * sizeof(double))
    B.cli = <int64_t*> malloc(K * sizeof(int64_t))
    B.cri = <int64_t*> malloc(K * sizeof(int64_t))
    B.feats = <int64_t*> malloc(F * sizeof(int64_t))
    B.nan_rank = <uint64_t*> malloc(F * sizeof(uint64_t))
    B.ent = <Entry*> malloc(B.ent_cap * sizeof(Entry))
    B.ent_counts = <double*> malloc(B.ent_cap * 3 * K * sizeof(double))
    B.ent_const = <uint64_t*> malloc(B.ent_cap * B.n_words * sizeof(uint64_t))
    B.free_list = <int64_t*> malloc(B.ent_cap * sizeof(int64_t))
    B.order = <int64_t*> malloc(B.order_cap * sizeof(int64_t))
    B.nodes = <Node*> malloc(B.node_cap * sizeof(Node))
    B.values = <double*> malloc(B.node_cap * K * sizeof(double))
    payload_arr = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] payload = payload_arr
    if integral and criterion == CRIT_ENTROPY and tw <= XLOGX_TABLE_MAX:
        tmax = <int64_t> tw + 1
        B.xlogx_table = <double*> malloc(tmax * sizeof(double))
        if B.xlogx_table != NULL:
            B.xlogx_table[0] = 0.0
            for i in range(1, tmax):
                B.xlogx_table[i] = i * log(<double> i)
    if ((root_presorted and B.lists == NULL) or B.scratch == NULL or B.goleft == NULL or B.cl == NULL
            or B.cr == NULL or B.fl == NULL or B.fr == NULL or B.cli == NULL
            or B.cri == NULL or B.feats == NULL or B.nan_rank == NULL
            or B.ent == NULL or B.ent_counts == NULL or B.ent_const == NULL
            or B.free_list == NULL or B.order == NULL or B.nodes == NULL
            or B.values == NULL):
        _free_builder(&B)
        raise MemoryError("not enough memory to grow the tree")
    if root_presorted:
        memset(B.lists + F * n_act, 0, 9 * sizeof(key_t))
    for f in range(F):
        B.feats[f] = f

    with nogil:
        # missing values sort last, with their feature's highest rank
        for f in range(F):
            ix = keys[f, n - 1]
            if isnan(X[ix, f]):
                B.nan_rank[f] = col_top[f]
                B.any_missing = True
            else:
                B.nan_rank[f] = NO_NAN
        # the working lists hold the samples of this tree only, in presorted order; each
        # sample's class, weight and index are packed once, so the copy reads one array
        for i in range(n):
            if B.w[i] > 0.0:
                payload[i] = ((<uint64_t> y[i]) << B.cshift) | <uint64_t> i
                if B.packed:
                    payload[i] |= (<uint64_t> B.w[i]) << B.wshift
            else:
                payload[i] = INACTIVE
        if root_presorted:
            for f in range(F):
                if _fill_list(&keys[f, 0], &payload[0], n, n_act, B.rshift,
                              B.lists + f * n_act) < 0:
                    B.error = 3
                    break
        else:
            q = 0
            for i in range(n):
                if payload[i] != INACTIVE:
                    B.samples[q] = payload[i]
                    q += 1
            # (dense_ranks checked that every row of keys orders all the samples)
    if B.error == 3:
        _free_builder(&B)
        raise ValueError("keys do not belong to X")
    with nogil:
        root = _ent_alloc(&B)
        B.ent[root].start = 0
        B.ent[root].end = n_act
        B.ent[root].depth = 0
        B.ent[root].parent = -1
        B.ent[root].node_id = -1
        B.ent[root].is_left = 0
        B.ent[root].presorted = root_presorted
        B.ent[root].weight = tw
        B.ent[root].lower = -INFINITY
        B.ent[root].upper = INFINITY
        memset(B.ent_counts + root * 3 * K, 0, 3 * K * sizeof(double))
        memset(B.ent_const + root * B.n_words, 0, B.n_words * sizeof(uint64_t))
        for i in range(n):
            if B.w[i] > 0.0:
                B.ent_counts[root * 3 * K + y[i]] += B.w[i]
        B.ent[root].impurity = _impurity(&B, B.ent_counts + root * 3 * K, tw)
        for f in range(F):      # columns constant over this tree's samples
            if root_presorted:
                out = B.lists + f * n_act
                if ((out[0] ^ out[n_act - 1]) >> B.rshift) != 0:
                    continue
            elif col_top[f] > 0:
                continue        # (sorting nodes find the others when they draw them)
            B.ent_const[root * B.n_words + (f >> 6)] |= (<uint64_t> 1) << (f & 63)
        _grow(&B, root, max_leaf_nodes)

    if B.error:
        _free_builder(&B)
        if B.error == 2:
            raise ValueError(f"the tree would have more than {MAX_NODES} nodes; limit its "
                             "size (max_depth, max_leaf_nodes, min_samples_leaf)")
        raise MemoryError("not enough memory to grow the tree")
    nodes = np.empty(B.node_count, dtype=NODE_DTYPE)
    cdef uint8_t[::1] raw = nodes.view(np.uint8).reshape(-1)
    memcpy(&raw[0], B.nodes, B.node_count * sizeof(Node))
    value = np.empty((B.node_count, 1, K), dtype=np.float64)
    cdef double[:, :, ::1] vv = value
    memcpy(&vv[0, 0, 0], B.values, B.node_count * K * sizeof(double))
    depth = B.depth_reached
    _free_builder(&B)
    return nodes, value, depth


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
