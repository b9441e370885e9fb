/* The binned builder's partition of a node's samples (see _hist.pyx).
 *
 * A tree's samples are records of `stride` bytes (a multiple of 8, or of 4 when
 * narrow): a header of `hdr` bytes (the sample's codes, side by side, and its row, an
 * int32, when `compact`; otherwise its row of `codes`, an int64) and the payload: the
 * weight (a double) and the class (an int64) or the target (a double); for two classes
 * with integer weights (mode 2) one uint64, w + (w * class << 32), or (mode 4, narrow
 * compact records: every weight below 2^16) one uint32, w + (w * class << 16), read as
 * mode 2's (rf_pay).  A node's records are the slice [s, e) of the buffer of its
 * depth's parity; its children's are the same slice of the other buffer: the left side
 * from s forward, the right side from e backward (so that no record is copied twice).
 * Every record is written to both ends and the count of its side advances (no branch
 * on the side); with place = 0 (children that will not be split) none is written.
 * Each side's statistics are summed on the way: class weights (mode 0), the sums of
 * w*y and w*y*y (mode 1; mode 3, Poisson: w*y and w*y*log y), or for two classes
 * with integer weights the sums
 * of w + (w * class << 32), in registers (modes 2 and 4).  A cut to refine sets aside the
 * records of its two bins (rf_hrefine).  Returns the left side's size (of the placed
 * records: the right side's start is e less the placed right ones).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "_compiler.h"
#include "_prefetch.h"

/* A two-class record's payload (mode 2, see above) as the uint64 w + (w * class << 32):
 * 8 bytes, or narrow (4 bytes, w + (w * class << 16), each weight below 2^16). */
static inline uint64_t rf_pay(const uint8_t *rec, int64_t hdr, const int narrow) {
    if (narrow) {
        uint32_t v;
        memcpy(&v, rec + hdr, 4);
        return (uint64_t)(v & 0xFFFFU) | ((uint64_t)(v >> 16) << 32);
    } else {
        uint64_t v;
        memcpy(&v, rec + hdr, 8);
        return v;
    }
}

/* A cut to refine (see _refine_split in _hist.pyx): the records whose codes are in
 * [lo, hi] are not placed but copied, in order, to U (their count in *u); the others
 * go as the codes say (below lo left, above hi right, missing by mleft).  pending = 0:
 * every record placed by code <= cut. */
typedef struct {
    int64_t lo, hi;
    int pending;
    uint8_t *U;
    int64_t u;
    const double *X;        /* (prefetched for the set-aside records: their value of */
    int64_t xs0, xs1;       /* the feature is read next, from X at their row) */
    int64_t rowoff;
} rf_hrefine;

/* a value gathered for a refinement, with its record's place in U */
typedef struct { double x; int64_t i; } rf_xv;

static inline int rf_xv_less(const rf_xv *a, const rf_xv *b) {
    return a->x < b->x || (a->x == b->x && a->i < b->i);
}

/* A sort of v[0:n) by LESS(a, b) (pointers): quicksort (median of three, the smaller
 * part first, so the stack stays logarithmic) down to runs of 24, then one insertion
 * sort; one function a type. */
#define RF_DEFINE_SORT(NAME, T, LESS)                                                 \
static void NAME(T *v, int64_t n) {                                                   \
    int64_t stack[128], top = 0, lo = 0, hi = n - 1, i, j, mid;                       \
    T pivot, tmp;                                                                     \
    for (;;) {                                                                        \
        while (hi - lo > 24) {                                                        \
            mid = lo + (hi - lo) / 2;                                                 \
            if (LESS(&v[mid], &v[lo])) { tmp = v[mid]; v[mid] = v[lo]; v[lo] = tmp; } \
            if (LESS(&v[hi], &v[lo])) { tmp = v[hi]; v[hi] = v[lo]; v[lo] = tmp; }    \
            if (LESS(&v[hi], &v[mid])) { tmp = v[hi]; v[hi] = v[mid]; v[mid] = tmp; } \
            pivot = v[mid];                                                           \
            i = lo;                                                                   \
            j = hi;                                                                   \
            while (i <= j) {                                                          \
                while (LESS(&v[i], &pivot)) i++;                                      \
                while (LESS(&pivot, &v[j])) j--;                                      \
                if (i <= j) { tmp = v[i]; v[i] = v[j]; v[j] = tmp; i++; j--; }        \
            }                                                                         \
            if (j - lo < hi - i) {                                                    \
                if (i < hi) { stack[top++] = i; stack[top++] = hi; }                  \
                hi = j;                                                               \
            } else {                                                                  \
                if (lo < j) { stack[top++] = lo; stack[top++] = j; }                  \
                lo = i;                                                               \
            }                                                                         \
        }                                                                             \
        if (top == 0) break;                                                          \
        hi = stack[--top];                                                            \
        lo = stack[--top];                                                            \
    }                                                                                 \
    for (i = 1; i < n; i++) {                                                         \
        tmp = v[i];                                                                   \
        for (j = i - 1; j >= 0 && LESS(&tmp, &v[j]); j--)                             \
            v[j + 1] = v[j];                                                          \
        v[j + 1] = tmp;                                                               \
    }                                                                                 \
}

/* rf_sort_xv: by (x, i) */
RF_DEFINE_SORT(rf_sort_xv, rf_xv, rf_xv_less)

/* A bootstrap bag drawn as numpy's legacy RandomState draws randint(0, n, size): the
 * Mersenne Twister MT19937 (Matsumoto and Nishimura 1998) from a state that numpy
 * seeded (its 624 words and position), each draw the next 32-bit output masked to the
 * bits of n - 1 and drawn again while above it.  The draws are counted, not stored. */
typedef struct { uint32_t key[624]; int64_t pos; } rf_mt;

static void rf_mt_refill(rf_mt *s) {
    const uint32_t upper = 0x80000000U, lower = 0x7fffffffU, twist = 0x9908b0dfU;
    uint32_t y;
    int64_t i;
    for (i = 0; i < 624 - 397; i++) {
        y = (s->key[i] & upper) | (s->key[i + 1] & lower);
        s->key[i] = s->key[i + 397] ^ (y >> 1) ^ ((uint32_t)0 - (y & 1) & twist);
    }
    for (; i < 623; i++) {
        y = (s->key[i] & upper) | (s->key[i + 1] & lower);
        s->key[i] = s->key[i + 397 - 624] ^ (y >> 1) ^ ((uint32_t)0 - (y & 1) & twist);
    }
    y = (s->key[623] & upper) | (s->key[0] & lower);
    s->key[623] = s->key[396] ^ (y >> 1) ^ ((uint32_t)0 - (y & 1) & twist);
    s->pos = 0;
}

static inline uint32_t rf_mt_next(rf_mt *s) {
    uint32_t y;
    if (s->pos >= 624)
        rf_mt_refill(s);
    y = s->key[s->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    return y ^ (y >> 18);
}

/* counts[k] += the times row k is drawn in n_draws draws of [0, n) (1 <= n <= 2^32);
 * 0, or -1 when a count would pass 255 (counts are then partial). */
static int rf_mt_counts(rf_mt *s, uint64_t n, int64_t n_draws, uint8_t *counts) {
    const uint32_t top = (uint32_t)(n - 1);
    uint32_t mask = top, v;
    int64_t i;
    if (top == 0) {                     /* (numpy draws nothing for one row) */
        if (n_draws > 255 - (int64_t)counts[0])
            return -1;
        counts[0] = (uint8_t)(counts[0] + n_draws);
        return 0;
    }
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    for (i = 0; i < n_draws; i++) {
        do {
            v = rf_mt_next(s) & mask;
        } while (v > top);
        if (counts[v] == 255)
            return -1;
        counts[v]++;
    }
    return 0;
}

/* A value's bits as an unsigned key in the values' order (-0.0 as 0.0; no NaN). */
static inline uint64_t rf_order_key(double x) {
    uint64_t b;
    if (x == 0.0)
        x = 0.0;
    memcpy(&b, &x, 8);
    return b ^ ((uint64_t)((int64_t)b >> 63) | ((uint64_t)1 << 63));
}

/* v[0:n) with v[k].i == k sorted by (x, i), as rf_sort_xv sorts them: a stable radix
 * sort on the values' keys, a byte a pass, the passes where every key has the same
 * byte skipped (a bin's values share their high bytes); tmp: room for n.  Few values
 * go to rf_sort_xv. */
static void rf_radix_xv(rf_xv *v, rf_xv *tmp, int64_t n) {
    int64_t count[8][256], k, d, at;
    rf_xv *src = v, *dst = tmp, *swap;
    if (n <= 96) {
        rf_sort_xv(v, n);
        return;
    }
    memset(count, 0, sizeof(count));
    for (k = 0; k < n; k++) {
        const uint64_t key = rf_order_key(v[k].x);
        for (d = 0; d < 8; d++)
            count[d][(key >> (8 * d)) & 255]++;
    }
    for (d = 0; d < 8; d++) {
        int64_t *c = count[d];
        const uint64_t first = (rf_order_key(src[0].x) >> (8 * d)) & 255;
        if (c[first] == n)
            continue;                   /* one byte for all: the order stands */
        at = 0;
        for (k = 0; k < 256; k++) {
            const int64_t m = c[k];
            c[k] = at;
            at += m;
        }
        for (k = 0; k < n; k++) {
            const uint64_t b = (rf_order_key(src[k].x) >> (8 * d)) & 255;
            dst[c[b]++] = src[k];
        }
        swap = src;
        src = dst;
        dst = swap;
    }
    if (src != v)
        memcpy(v, src, (size_t)n * sizeof(rf_xv));
}

/* a gathered sample of a bin searched inside (see _resolve in _hist.pyx) */
typedef struct { double x; double w; int32_t cls; int32_t code; } rf_he;

static inline int rf_he_less(const rf_he *a, const rf_he *b) { return a->x < b->x; }

/* rf_sort_he: by x (the order of equal values does not matter: only cuts between
 * distinct values are scored) */
RF_DEFINE_SORT(rf_sort_he, rf_he, rf_he_less)

/* One pass over the records [s, e) for the marked bins of up to eight features fs[0:nf)
 * (marked: nf tables of 256 bytes, 0 or 1): for each record marked in any of them, its
 * place t and the features that mark it, as (t << 8) | bits (bit q: feature fs[q]),
 * into out (room for e - s + 1; no branch on the marks); their count. */
static inline int64_t rf_hgather_impl(const uint8_t *src, int64_t stride,
                                      const uint8_t *codes, int64_t p, int64_t s,
                                      int64_t e, const int compact, const int64_t *fs,
                                      const int64_t nf, const uint8_t *marked,
                                      int64_t *out) {
    int64_t t, u = 0, q, f[8];
    for (q = 0; q < nf; q++)
        f[q] = fs[q];
    for (t = s; t < e; t++) {
        const uint8_t *rec = src + t * stride;
        const uint8_t *row = compact ? rec : codes + *(const int64_t *)rec * p;
        int64_t bits = 0;
        for (q = 0; q < nf; q++)
            bits |= (int64_t)marked[q * 256 + row[f[q]]] << q;
        out[u] = (t << 8) | bits;
        u += bits != 0;
    }
    return u;
}

static int64_t rf_hgather(const uint8_t *src, int64_t stride, const uint8_t *codes,
                          int64_t p, int64_t s, int64_t e, int compact, const int64_t *fs,
                          int64_t nf, const uint8_t *marked, int64_t *out) {
#define RF_HGATHER(C, N) rf_hgather_impl(src, stride, codes, p, s, e, C, fs, N, marked, out)
    if (!compact)
        return RF_HGATHER(0, nf);
    switch (nf) {
    case 1: return RF_HGATHER(1, 1);
    case 2: return RF_HGATHER(1, 2);
    case 3: return RF_HGATHER(1, 3);
    case 4: return RF_HGATHER(1, 4);
    }
    return RF_HGATHER(1, nf);
#undef RF_HGATHER
}

/* The places of feature q's records of a gather (rf_hgather's out, u of them) into idx;
 * their count. */
static int64_t rf_hgather_take(const int64_t *gathered, int64_t u, int64_t q,
                               int64_t *idx) {
    int64_t i, k = 0;
    for (i = 0; i < u; i++) {
        const int64_t v = gathered[i];
        idx[k] = v >> 8;
        k += (v >> q) & 1;
    }
    return k;
}

/* The gathered samples' value of feature f (from X at their rows: the record's int32
 * at rowoff, or its int64 at 0 when rowoff < 0), weight, class and code, for the u
 * records at places idx; X prefetched some samples ahead and the records twice as far
 * (their reads are the misses). */
static void rf_hfetch(const uint8_t *src, int64_t stride, int64_t hdr, int64_t rowoff,
                      const uint8_t *codes, int64_t p, int compact, int packed,
                      const double *X, int64_t xs0, int64_t xs1, int64_t f,
                      const int64_t *idx, int64_t u, rf_he *out) {
    const int64_t ahead = 12;
    int64_t k;
    for (k = 0; k < u; k++) {
        const uint8_t *rec = src + idx[k] * stride;
        int64_t row;
        if (k + 2 * ahead < u)          /* (the records are spread over the node too) */
            RF_PREFETCH(src + idx[k + 2 * ahead] * stride);
        if (k + ahead < u) {
            const uint8_t *next = src + idx[k + ahead] * stride;
            const int64_t r2 = rowoff >= 0 ? (int64_t)*(const int32_t *)(next + rowoff)
                                           : *(const int64_t *)next;
            RF_PREFETCH(X + r2 * xs0 + f * xs1);
        }
        row = rowoff >= 0 ? (int64_t)*(const int32_t *)(rec + rowoff)
                          : *(const int64_t *)rec;
        out[k].x = X[row * xs0 + f * xs1];
        if (packed) {                   /* (2: narrow) */
            const uint64_t v = rf_pay(rec, hdr, packed == 2);
            out[k].w = (double)(v & (((uint64_t)1 << 32) - 1));
            out[k].cls = (v >> 32) != 0;
        } else {
            out[k].w = *(const double *)(rec + hdr);
            out[k].cls = (int32_t)*(const int64_t *)(rec + hdr + 8);
        }
        out[k].code = compact ? rec[f] : codes[row * p + f];
    }
}

#define RF_COPY_BOTH(B) do {                                                          \
        uint64_t v_[4];                                                               \
        memcpy(v_, rec, B);                                                           \
        memcpy(dst + l * stride, v_, B);                                              \
        memcpy(dst + (r - 1) * stride, v_, B);                                        \
    } while (0)

static inline RF_ALWAYS_INLINE int64_t rf_hpart_impl(const uint8_t *restrict src,
                                    uint8_t *restrict dst,
                                    int64_t stride, int64_t hdr, const uint8_t *codes,
                                    int64_t p, int64_t s, int64_t e, int64_t f,
                                    int64_t cut, int mleft, rf_hrefine *R,
                                    double *left, double *right,
                                    double *wl, double *wr, const int compact,
                                    const int mode, const int64_t bytes,
                                    const int place, const uint8_t *table) {
    double *st[2] = {right, left};
    double side[2] = {0.0, 0.0};
    double ly = 0.0, ly2 = 0.0, ry = 0.0, ry2 = 0.0, lw = 0.0, rw = 0.0;
    uint64_t lv = 0, rv = 0;
    int64_t l = s, r = e, t, j;
    /* the refinement's fields in locals: the stores to dst could alias *R, so the
     * compiler would read them from memory at every record */
    const int pending = R->pending;
    const int64_t lo = R->lo, hi = R->hi, rowoff = R->rowoff, xs0 = R->xs0, xs1 = R->xs1;
    const double *X = R->X;
    uint8_t *U = R->U;
    int64_t u = R->u;
    for (t = s; t < e; t++) {
        const uint8_t *rec = src + t * stride;
        const uint8_t code = compact ? rec[f] : codes[*(const int64_t *)rec * p + f];
        int64_t go;
        const uint64_t *from = (const uint64_t *)rec;
        if (pending && code != 255 && code >= lo && code <= hi) {
            const int64_t row = rowoff >= 0
                ? (int64_t)*(const int32_t *)(rec + rowoff) : *(const int64_t *)rec;
            RF_PREFETCH(X + row * xs0 + f * xs1);
            memcpy(U + u * stride, rec, (size_t)bytes);
            u++;
            continue;
        }
        go = table ? table[code] : (code == 255 ? mleft : code <= cut);
        if (!place) {
            /* (children that are leaves: their statistics only) */
        } else if (bytes == 32) {
            /* the record read once and written whole to both ends (vector stores;
             * the ends may meet, so a word-by-word copy must alternate its stores;
             * sizes known to the compiler) */
            RF_COPY_BOTH(32);
        } else if (bytes == 28) {
            RF_COPY_BOTH(28);
        } else if (bytes == 24) {
            RF_COPY_BOTH(24);
        } else if (bytes == 20) {
            RF_COPY_BOTH(20);
        } else if ((bytes & 7) == 0) {
            uint64_t *a = (uint64_t *)(dst + l * stride);
            uint64_t *b = (uint64_t *)(dst + (r - 1) * stride);
            for (j = 0; j < bytes >> 3; j++) {
                const uint64_t v = from[j];
                a[j] = v;
                b[j] = v;
            }
        } else {                        /* (narrow records: 4-byte words) */
            uint32_t *a = (uint32_t *)(dst + l * stride);
            uint32_t *b = (uint32_t *)(dst + (r - 1) * stride);
            for (j = 0; j < bytes >> 2; j++) {
                const uint32_t v = ((const uint32_t *)rec)[j];
                a[j] = v;
                b[j] = v;
            }
        }
        if (mode == 1 || mode == 3) {
            const double wt = *(const double *)(rec + hdr);
            const double yv = *(const double *)(rec + hdr + 8);
            const double m = wt * yv, g = (double)go;
            /* the second sums: w y y, or for Poisson (mode 3) w y log y */
            const double q = mode == 1 ? m * yv : (yv > 0.0 ? m * log(yv) : 0.0);
            ly += g * m;
            ly2 += g * q;
            lw += g * wt;
            ry += m - g * m;
            ry2 += q - g * q;
            rw += wt - g * wt;
        } else if (mode == 2 || mode == 4) {
            const uint64_t v = rf_pay(rec, hdr, mode == 4);
            const uint64_t mask = (uint64_t)0 - (uint64_t)go;
            lv += v & mask;
            rv += v & ~mask;
        } else {
            const double wt = *(const double *)(rec + hdr);
            const int64_t k = *(const int64_t *)(rec + hdr + 8);
            st[go][k] += wt;
            side[go] += wt;
        }
        l += go;
        r -= 1 - go;
    }
    R->u = u;
    if (mode == 1 || mode == 3) {
        left[0] = ly;
        left[1] = ly2;
        right[0] = ry;
        right[1] = ry2;
        *wl = lw;
        *wr = rw;
    } else if (mode == 2 || mode == 4) {
        const uint64_t low = ((uint64_t)1 << 32) - 1;
        left[1] = (double)(lv >> 32);
        left[0] = (double)((lv & low) - (lv >> 32));
        right[1] = (double)(rv >> 32);
        right[0] = (double)((rv & low) - (rv >> 32));
        *wl = (double)(lv & low);
        *wr = (double)(rv & low);
    } else {
        *wl = side[1];
        *wr = side[0];
    }
    return l - s;
}

/* one loop specialised for each layout and task (and the common record sizes) */
#define RF_HPART(C, M, W) rf_hpart_impl(src, dst, stride, hdr, codes, p, s, e, f, cut, \
                                        mleft, R, left, right, wl, wr, C, M, W, place, \
                                        NULL)
#define RF_HPART_SET(C, M) rf_hpart_impl(src, dst, stride, hdr, codes, p, s, e, f, 0, 0, \
                                         R, left, right, wl, wr, C, M, stride, place, \
                                         table)

/* A categorical split's partition (see _hist_sets.pxi): record goes left when
 * table[its code] is 1 (the missing values' code 255 included); no refinement. */
static int64_t rf_hpart_set(const uint8_t *src, uint8_t *dst, int64_t stride, int64_t hdr,
                            const uint8_t *codes, int64_t p, int64_t s, int64_t e,
                            int64_t f, const uint8_t *table, rf_hrefine *R, double *left,
                            double *right, double *wl, double *wr, int compact, int mode,
                            int place) {
    if (mode == 3) return RF_HPART_SET(compact, 3);
    if (mode == 4) return RF_HPART_SET(1, 4);       /* (narrow records are compact) */
    if (!compact) {
        if (mode == 1) return RF_HPART_SET(0, 1);
        if (mode == 2) return RF_HPART_SET(0, 2);
        return RF_HPART_SET(0, 0);
    }
    if (mode == 1) return RF_HPART_SET(1, 1);
    if (mode == 2) return RF_HPART_SET(1, 2);
    return RF_HPART_SET(1, 0);
}

static int64_t rf_hpart(const uint8_t *src, uint8_t *dst, int64_t stride, int64_t hdr,
                        const uint8_t *codes, int64_t p, int64_t s, int64_t e, int64_t f,
                        int64_t cut, int mleft, rf_hrefine *R, double *left,
                        double *right, double *wl, double *wr, int compact, int mode,
                        int place) {
    if (mode == 3) return RF_HPART(compact, 3, stride);     /* (Poisson) */
    if (mode == 4) {                 /* narrow records (compact), two classes */
        if (stride == 28) return RF_HPART(1, 4, 28);        /* 17 to 20 features */
        if (stride == 24) return RF_HPART(1, 4, 24);        /* 13 to 16 */
        if (stride == 20) return RF_HPART(1, 4, 20);        /* 9 to 12 */
        return RF_HPART(1, 4, stride);
    }
    if (!compact) {
        if (mode == 1) return RF_HPART(0, 1, 24);
        if (mode == 2) return RF_HPART(0, 2, 16);
        return RF_HPART(0, 0, 24);
    }
    if (stride == 32 && mode == 2)   /* 17 to 24 features, two classes */
        return RF_HPART(1, 2, 32);
    if (stride == 40) {              /* 9 to 24 features; 25 to 32, two classes */
        if (mode == 1) return RF_HPART(1, 1, 40);
        if (mode == 2) return RF_HPART(1, 2, 40);
        return RF_HPART(1, 0, 40);
    }
    if (mode == 1) return RF_HPART(1, 1, stride);
    if (mode == 2) return RF_HPART(1, 2, stride);
    return RF_HPART(1, 0, stride);
}

/* The packed histograms (see _fill_packed in _hist.pyx) of the m features fs of the
 * records [s, e) of src: each record's payload (rf_pay: its uint64 at hdr) added to bin
 * code of feature q, alternate records into ph and ph2 (so that runs of one bin do
 * not chain their adds).  Everything read is in locals (the adds could otherwise alias
 * the builder's state, which the compiler would read again at every record), the
 * features in registers for the common batch sizes. */
static inline RF_ALWAYS_INLINE void rf_hfill_packed_impl(const uint8_t *src, int64_t stride,
                                        int64_t hdr,
                                        const uint8_t *codes, int64_t p, int compact,
                                        int64_t s, int64_t e, const int64_t *fs,
                                        uint64_t *ph, uint64_t *ph2, const int64_t m,
                                        const int narrow) {
    int64_t f[8], q, t;
    for (q = 0; q < m; q++)
        f[q] = fs[q];
    for (t = s; t + 1 < e; t += 2) {
        const uint8_t *a = src + t * stride, *b = a + stride;
        const uint64_t va = rf_pay(a, hdr, narrow), vb = rf_pay(b, hdr, narrow);
        const uint8_t *ra = compact ? a : codes + *(const int64_t *)a * p;
        const uint8_t *rb = compact ? b : codes + *(const int64_t *)b * p;
        for (q = 0; q < m; q++) {
            ph[q * 256 + ra[f[q]]] += va;
            ph2[q * 256 + rb[f[q]]] += vb;
        }
    }
    if (t < e) {
        const uint8_t *a = src + t * stride;
        const uint64_t va = rf_pay(a, hdr, narrow);
        const uint8_t *ra = compact ? a : codes + *(const int64_t *)a * p;
        for (q = 0; q < m; q++)
            ph[q * 256 + ra[f[q]]] += va;
    }
}

static void rf_hfill_packed(const uint8_t *src, int64_t stride, int64_t hdr,
                            const uint8_t *codes, int64_t p, int compact, int64_t s,
                            int64_t e, const int64_t *fs, int64_t m, uint64_t *ph,
                            uint64_t *ph2, int narrow) {
#define RF_HFILL(M, N) rf_hfill_packed_impl(src, stride, hdr, codes, p, compact, s, e, \
                                            fs, ph, ph2, M, N)
#define RF_HFILL_M(M) do { if (narrow) RF_HFILL(M, 1); else RF_HFILL(M, 0); } while (0)
    int64_t q;
    switch (m) {
    case 1: RF_HFILL_M(1); return;
    case 2: RF_HFILL_M(2); return;
    case 3: RF_HFILL_M(3); return;
    case 4: RF_HFILL_M(4); return;
    case 5: RF_HFILL_M(5); return;
    case 6: RF_HFILL_M(6); return;
    case 7: RF_HFILL_M(7); return;
    case 8: RF_HFILL_M(8); return;
    }
    for (q = 0; q < m; q += 8)        /* more: eight at a time */
        rf_hfill_packed(src, stride, hdr, codes, p, compact, s, e, fs + q,
                        m - q < 8 ? m - q : 8, ph + q * 256, ph2 + q * 256, narrow);
#undef RF_HFILL_M
#undef RF_HFILL
}

/* rf_hpart for several outputs (see _hist.pyx): records of a weight and n_out classes
 * (int64) or targets (double); by code <= cut (missing by mleft), or by table[code]
 * when table is not NULL; no refinement.  Sums each side's class weights per output
 * (class k of output o at off[o] + k), or per output the sums of w*y (at o) and of
 * w*y*y, or w*y*log y with poisson (at n_out + o). */
static int64_t rf_hpart_multi(const uint8_t *src, uint8_t *dst, int64_t stride,
                              int64_t hdr, const uint8_t *codes, int64_t p, int64_t s,
                              int64_t e, int64_t f, int64_t cut, int mleft,
                              const uint8_t *table, double *left, double *right,
                              double *wl, double *wr, int compact, int place,
                              int64_t n_out, const int64_t *off, int regression,
                              int poisson) {
    double *st[2] = {right, left};
    double side[2] = {0.0, 0.0};
    int64_t l = s, r = e, t, o;
    for (t = s; t < e; t++) {
        const uint8_t *rec = src + t * stride;
        const uint8_t code = compact ? rec[f] : codes[*(const int64_t *)rec * p + f];
        const int go = table ? table[code] : (code == 255 ? mleft : code <= cut);
        const double wt = *(const double *)(rec + hdr);
        double *to = st[go];
        if (place) {
            memcpy(dst + (go ? l : r - 1) * stride, rec, (size_t)stride);
        }
        side[go] += wt;
        if (regression) {
            const double *y = (const double *)(rec + hdr + 8);
            for (o = 0; o < n_out; o++) {
                const double m = wt * y[o];
                to[o] += m;
                to[n_out + o] += poisson ? (y[o] > 0.0 ? m * log(y[o]) : 0.0) : m * y[o];
            }
        } else {
            const int64_t *k = (const int64_t *)(rec + hdr + 8);
            for (o = 0; o < n_out; o++)
                to[off[o] + k[o]] += wt;
        }
        l += go;
        r -= 1 - go;
    }
    *wl = side[1];
    *wr = side[0];
    return l - s;
}
