/* rotforest: the order of a node's categories along the first principal axis of their
 * class shares, shared by the exact builder (_categorical.pxi) and the binned one
 * (_hist_sets.pxi), so that both order a node's levels alike. */
#ifndef ROTFOREST_CATEGORIES_H
#define ROTFOREST_CATEGORIES_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_platform.h"

/* The m scanned levels sv[0..m) (each level r's K class weights at stat + r * K, its
 * weight w[r]) in ord, sorted by their class shares (shrunk towards the mean share by
 * a prior of weight a) projected on the first principal axis of those shares, each
 * level weighted by its weight (Coppersmith, Hong and Hosking 1999); ties in
 * increasing j.  The weighted covariance of the shares (K x K) in one pass over the
 * levels, its axis by power iteration from the direction of the most frequent class.
 * mean: K doubles of work (the weighted mean share); axis: 3 K + K K. */
static void rf_cat_axis_order(const double *stat, const double *w, const int64_t *sv,
                              int64_t m, int64_t K, double a, double *mean,
                              double *axis, rf_vi *ord) {
    double *v = axis, *u = axis + K, *q = axis + 2 * K, *S = axis + 3 * K;
    double wsum = 0.0, norm, wr, dot, big = -1.0, change;
    const double *st;
    int64_t j, r, c, e, d = 0, it;
    for (c = 0; c < K; c++)
        mean[c] = 0.0;
    for (j = 0; j < m; j++) {
        r = sv[j];
        st = stat + r * K;
        for (c = 0; c < K; c++)
            mean[c] += st[c];
        wsum += w[r];
    }
    for (c = 0; c < K; c++) {
        mean[c] /= wsum;
        v[c] = 0.0;
        if (mean[c] > big) {
            big = mean[c];
            d = c;
        }
    }
    v[d] = 1.0;
    memset(S, 0, (size_t)(K * K) * sizeof(double));
    for (j = 0; j < m; j++) {
        r = sv[j];
        wr = w[r];
        st = stat + r * K;
        for (c = 0; c < K; c++)
            q[c] = (st[c] + a * mean[c]) / (wr + a) - mean[c];
        for (c = 0; c < K; c++)
            for (e = c; e < K; e++)
                S[c * K + e] += wr * q[c] * q[e];
    }
    for (c = 0; c < K; c++)
        for (e = 0; e < c; e++)
            S[c * K + e] = S[e * K + c];
    for (it = 0; it < 100; it++) {
        norm = 0.0;
        for (c = 0; c < K; c++) {
            dot = 0.0;
            for (e = 0; e < K; e++)
                dot += S[c * K + e] * v[e];
            u[c] = dot;
            norm += dot * dot;
        }
        if (norm <= 0.0)
            break;
        norm = sqrt(norm);
        change = 0.0;
        for (c = 0; c < K; c++) {
            change += fabs(u[c] / norm - v[c]);
            v[c] = u[c] / norm;
        }
        if (change < 1e-12)
            break;
    }
    for (j = 0; j < m; j++) {
        r = sv[j];
        st = stat + r * K;
        dot = 0.0;
        for (c = 0; c < K; c++)
            dot += (st[c] + a * mean[c]) / (w[r] + a) * v[c];
        ord[j].v = dot;
        ord[j].i = j;
    }
    qsort(ord, (size_t)m, sizeof(rf_vi), rf_cmp_vi);
}
#endif
