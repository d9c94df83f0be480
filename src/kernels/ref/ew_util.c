/* Shared machinery of the reference elementwise family: node-named errors,
 * dtype access, the half/double adapters and the flat and broadcasting
 * parallel drivers (OpenMP, the one thread pool of the library). */
#include "kernels/ref/ew_common.h"
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int ew_fail(const g_node *n, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return acl_fail(code, "node '%s' (%s, opset %d): %s", n && n->name ? n->name : "?",
                    n && n->op_type ? n->op_type : "?", n ? n->opset : 0, msg);
}

int ew_check_type(const g_node *n, int idx, int dt, unsigned mask)
{
    if (ew_type_ok(mask, dt)) return 0;
    return ew_fail(n, EW_ETYPE, "input %d has data type %s, not supported by this kernel", idx,
                   dt == G_UNDEF ? "undefined" : g_dtype_name(dt));
}

void ew_fini_free(void *state) { free(state); }

int ew_layout_any(const g_node *n, void *state, int idx, int layout)
{
    (void)n; (void)state; (void)idx;
    return layout == G_LAYOUT_PLAIN || layout == G_LAYOUT_NHWC;
}

/* ---- conversions ---- */
void ew_half_to_f32(int dt, const uint16_t *x, float *y, size_t n)
{
    if (dt == G_BF16) {
        for (size_t i = 0; i < n; i++) y[i] = ew_bf2f(x[i]);
    } else {
        for (size_t i = 0; i < n; i++) y[i] = ew_h2f(x[i]);
    }
}

void ew_f32_to_half(int dt, const float *x, uint16_t *y, size_t n)
{
    if (dt == G_BF16) {
        for (size_t i = 0; i < n; i++) y[i] = ew_f2bf(x[i]);
    } else {
        for (size_t i = 0; i < n; i++) y[i] = ew_f2h(x[i]);
    }
}

double ew_ld(const void *p, int dt, size_t i)
{
    switch (dt) {
    case G_F32: return ((const float *)p)[i];
    case G_F64: return ((const double *)p)[i];
    case G_F16: return ew_h2f(((const uint16_t *)p)[i]);
    case G_BF16: return ew_bf2f(((const uint16_t *)p)[i]);
    case G_I8: return ((const int8_t *)p)[i];
    case G_I16: return ((const int16_t *)p)[i];
    case G_I32: return ((const int32_t *)p)[i];
    case G_I64: return (double)((const int64_t *)p)[i];
    case G_U8: case G_BOOL: return ((const uint8_t *)p)[i];
    case G_U16: return ((const uint16_t *)p)[i];
    case G_U32: return ((const uint32_t *)p)[i];
    case G_U64: return (double)((const uint64_t *)p)[i];
    default: return 0.0;
    }
}

/* double -> integer without undefined behaviour: NaN gives 0, out of range
 * saturates to the 64-bit range, then the value wraps to the type's width. */
static int64_t d2i64(double v)
{
    if (v != v) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

void ew_st(void *p, int dt, size_t i, double v)
{
    switch (dt) {
    case G_F32: ((float *)p)[i] = (float)v; break;
    case G_F64: ((double *)p)[i] = v; break;
    case G_F16: ((uint16_t *)p)[i] = ew_f2h((float)v); break;
    case G_BF16: ((uint16_t *)p)[i] = ew_f2bf((float)v); break;
    case G_BOOL: ((uint8_t *)p)[i] = v != 0.0; break;
    case G_U64:
        if (v >= 18446744073709551615.0) ((uint64_t *)p)[i] = UINT64_MAX;
        else if (v >= 0.0) ((uint64_t *)p)[i] = (uint64_t)v;
        else ((uint64_t *)p)[i] = (uint64_t)d2i64(v);
        break;
    default: ew_sti(p, dt, i, d2i64(v)); break;
    }
}

int64_t ew_ldi(const void *p, int dt, size_t i)
{
    switch (dt) {
    case G_I8: return ((const int8_t *)p)[i];
    case G_I16: return ((const int16_t *)p)[i];
    case G_I32: return ((const int32_t *)p)[i];
    case G_I64: return ((const int64_t *)p)[i];
    case G_U8: case G_BOOL: return ((const uint8_t *)p)[i];
    case G_U16: return ((const uint16_t *)p)[i];
    case G_U32: return ((const uint32_t *)p)[i];
    case G_U64: return (int64_t)((const uint64_t *)p)[i];
    default: return d2i64(ew_ld(p, dt, i));
    }
}

void ew_sti(void *p, int dt, size_t i, int64_t v)
{
    switch (dt) {
    case G_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case G_I16: ((int16_t *)p)[i] = (int16_t)v; break;
    case G_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case G_I64: ((int64_t *)p)[i] = v; break;
    case G_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case G_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case G_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case G_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case G_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    default: ew_st(p, dt, i, (double)v); break;
    }
}

double ew_scalar(const k_tensor *t, int *ok)
{
    int64_t ne = t ? g_shape_numel(&t->shape) : 0;
    if (!t || t->dtype == G_UNDEF || !t->data || ne < 1) {
        if (ok) *ok = 0;
        return 0.0;
    }
    if (ok) *ok = 1;
    return ew_ld(t->data, t->dtype, 0);
}

/* ---- adapters ---- */
#define EW_CH 256

void ew_un_half(const void *x, void *y, size_t n, const ew_par *p)
{
    float fx[EW_CH], fy[EW_CH];
    const uint16_t *X = x;
    for (size_t i0 = 0; i0 < n; i0 += EW_CH) {
        size_t m = n - i0 < EW_CH ? n - i0 : EW_CH;
        ew_half_to_f32(p->dta, X + i0, fx, m);
        if (p->dty == G_BOOL) {
            p->un(fx, (uint8_t *)y + i0, m, p);
        } else {
            p->un(fx, fy, m, p);
            ew_f32_to_half(p->dty, fy, (uint16_t *)y + i0, m);
        }
    }
}

void ew_un_dbl(const void *x, void *y, size_t n, const ew_par *p)
{
    double dx[EW_CH], dy[EW_CH];
    size_t ea = g_dtype_size(p->dta);
    for (size_t i0 = 0; i0 < n; i0 += EW_CH) {
        size_t m = n - i0 < EW_CH ? n - i0 : EW_CH;
        const char *xs = (const char *)x + i0 * ea;
        for (size_t i = 0; i < m; i++) dx[i] = ew_ld(xs, p->dta, i);
        p->un(dx, dy, m, p);
        for (size_t i = 0; i < m; i++) ew_st(y, p->dty, i0 + i, dy[i]);
    }
}

void ew_bin_half(const void *a, ptrdiff_t sa, const void *b, ptrdiff_t sb, void *y, size_t n,
                 const ew_par *p)
{
    float fa[EW_CH], fb[EW_CH], fy[EW_CH];
    const uint16_t *A = a, *B = b;
    if (sa == 0) fa[0] = p->dta == G_BF16 ? ew_bf2f(A[0]) : ew_h2f(A[0]);
    if (sb == 0) fb[0] = p->dtb == G_BF16 ? ew_bf2f(B[0]) : ew_h2f(B[0]);
    for (size_t i0 = 0; i0 < n; i0 += EW_CH) {
        size_t m = n - i0 < EW_CH ? n - i0 : EW_CH;
        if (sa == 1) ew_half_to_f32(p->dta, A + i0, fa, m);
        else if (sa)
            for (size_t i = 0; i < m; i++) fa[i] = ew_ld(A, p->dta, (i0 + i) * (size_t)sa);
        if (sb == 1) ew_half_to_f32(p->dtb, B + i0, fb, m);
        else if (sb)
            for (size_t i = 0; i < m; i++) fb[i] = ew_ld(B, p->dtb, (i0 + i) * (size_t)sb);
        if (p->dty == G_BOOL) {
            p->bin(fa, sa != 0, fb, sb != 0, (uint8_t *)y + i0, m, p);
        } else {
            p->bin(fa, sa != 0, fb, sb != 0, fy, m, p);
            ew_f32_to_half(p->dty, fy, (uint16_t *)y + i0, m);
        }
    }
}

void ew_bin_dbl(const void *a, ptrdiff_t sa, const void *b, ptrdiff_t sb, void *y, size_t n,
                const ew_par *p)
{
    double da[EW_CH], db[EW_CH], dy[EW_CH];
    for (size_t i0 = 0; i0 < n; i0 += EW_CH) {
        size_t m = n - i0 < EW_CH ? n - i0 : EW_CH;
        for (size_t i = 0; i < m; i++) {
            da[i] = ew_ld(a, p->dta, (i0 + i) * (size_t)sa);
            db[i] = ew_ld(b, p->dtb, (i0 + i) * (size_t)sb);
        }
        p->bin(da, 1, db, 1, dy, m, p);
        if (p->dty == G_BOOL)
            for (size_t i = 0; i < m; i++) ((uint8_t *)y)[i0 + i] = ((const uint8_t *)(const void *)dy)[i];
        else
            for (size_t i = 0; i < m; i++) ew_st(y, p->dty, i0 + i, dy[i]);
    }
}

/* ---- threading ---- */
int ew_threads(const k_ctx *ctx, size_t work, size_t grain)
{
    if (omp_in_parallel()) return 1;
    int nt = ctx && ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
    if (grain == 0) grain = 1;
    size_t cap = work / grain;
    if (cap < (size_t)nt) nt = (int)cap;
    return nt < 1 ? 1 : nt;
}

void ew_flat_run(ew_un_fn f, const void *x, size_t esx, void *y, size_t esy, size_t n,
                 const ew_par *p, const k_ctx *ctx, size_t grain)
{
    if (n == 0) return;
    int nt = ew_threads(ctx, n, grain);
    if (nt <= 1) {
        f(x, y, n, p);
        return;
    }
#pragma omp parallel num_threads(nt)
    {
        size_t m = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t chunk = ((n + m - 1) / m + 15) & ~(size_t)15;
        size_t i0 = t * chunk;
        if (i0 < n) {
            size_t len = n - i0 < chunk ? n - i0 : chunk;
            f((const char *)x + i0 * esx, (char *)y + i0 * esy, len, p);
        }
    }
}

/* ---- broadcasting ---- */
void ew_strides(const k_tensor *t, int64_t *st)
{
    int r = t->shape.rank;
    const int64_t *d = t->shape.d;
    if (r == 4 && t->layout == G_LAYOUT_NHWC) {
        st[1] = 1;
        st[3] = d[1];
        st[2] = d[3] * d[1];
        st[0] = d[2] * d[3] * d[1];
        return;
    }
    int64_t s = 1;
    for (int i = r - 1; i >= 0; i--) {
        st[i] = s;
        s *= d[i];
    }
}

int ew_bc_layout(const k_tensor *in, int nin, const g_shape *out)
{
    if (out->rank != 4) return G_LAYOUT_PLAIN;
    for (int i = 0; i < nin; i++)
        if (in[i].dtype != G_UNDEF && in[i].shape.rank == 4 && in[i].layout == G_LAYOUT_NHWC)
            return G_LAYOUT_NHWC;
    return G_LAYOUT_PLAIN;
}

int ew_bc_plan(ew_bc *bc, const k_tensor *y, const k_tensor *a, const k_tensor *b)
{
    int r = y->shape.rank;
    int perm[G_MAX_RANK];
    int64_t D[G_MAX_RANK], S[2][G_MAX_RANK];
    for (int i = 0; i < r; i++) perm[i] = i;
    if (r == 4 && y->layout == G_LAYOUT_NHWC) {
        perm[1] = 2; perm[2] = 3; perm[3] = 1;
    }
    const k_tensor *src[2] = { a, b };
    for (int k = 0; k < 2; k++) {
        int64_t ls[G_MAX_RANK], lst[G_MAX_RANK];
        const k_tensor *t = src[k];
        int rin = t->shape.rank;
        if (rin > r) return -1;
        ew_strides(t, ls);
        for (int j = 0; j < r; j++) {
            int ij = j - (r - rin);
            int64_t dj = ij >= 0 ? t->shape.d[ij] : 1;
            if (dj != 1 && dj != y->shape.d[j]) return -1;
            lst[j] = (ij < 0 || dj == 1) ? 0 : ls[ij];
        }
        for (int p = 0; p < r; p++) S[k][p] = lst[perm[p]];
    }
    for (int p = 0; p < r; p++) D[p] = y->shape.d[perm[p]];
    /* drop size-1 dims, merge neighbours */
    int m = 0;
    for (int p = 0; p < r; p++) {
        if (D[p] == 1) continue;
        if (m > 0 && S[0][m - 1] == S[0][p] * D[p] && S[1][m - 1] == S[1][p] * D[p]) {
            bc->d[m - 1] *= D[p];
            bc->st[0][m - 1] = S[0][p];
            bc->st[1][m - 1] = S[1][p];
            continue;
        }
        bc->d[m] = D[p];
        bc->st[0][m] = S[0][p];
        bc->st[1][m] = S[1][p];
        m++;
    }
    if (m == 0) {
        bc->d[0] = 1;
        bc->st[0][0] = bc->st[1][0] = 0;
        m = 1;
    }
    bc->rank = m;
    return 0;
}

/* Units [u0, u1) of the iteration: unit = (row, chunk of the inner dim). */
static void bc_range(const ew_bc *bc, ew_bin_fn f, const char *a, size_t esa, const char *b,
                     size_t esb, char *y, size_t esy, const ew_par *p, int64_t nch,
                     int64_t chunk, int64_t u0, int64_t u1)
{
    int R = bc->rank - 1;
    int64_t n = bc->d[R], sa = bc->st[0][R], sb = bc->st[1][R];
    int64_t idx[G_MAX_RANK], row = u0 / nch, c = u0 % nch, oa = 0, ob = 0, rr = row;
    for (int k = R - 1; k >= 0; k--) {
        idx[k] = rr % bc->d[k];
        rr /= bc->d[k];
        oa += idx[k] * bc->st[0][k];
        ob += idx[k] * bc->st[1][k];
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t i0 = c * chunk, len = n - i0 < chunk ? n - i0 : chunk;
        f(a + (size_t)(oa + i0 * sa) * esa, sa, b + (size_t)(ob + i0 * sb) * esb, sb,
          y + (size_t)(row * n + i0) * esy, (size_t)len, p);
        if (++c == nch) {
            c = 0;
            row++;
            for (int k = R - 1; k >= 0; k--) {
                oa += bc->st[0][k];
                ob += bc->st[1][k];
                if (++idx[k] < bc->d[k]) break;
                oa -= bc->st[0][k] * bc->d[k];
                ob -= bc->st[1][k] * bc->d[k];
                idx[k] = 0;
            }
        }
    }
}

void ew_bc_run(const ew_bc *bc, ew_bin_fn f, const void *a, size_t esa, const void *b,
               size_t esb, void *y, size_t esy, const ew_par *p, const k_ctx *ctx, size_t grain)
{
    int R = bc->rank - 1;
    int64_t n = bc->d[R], rows = 1;
    for (int k = 0; k < R; k++) rows *= bc->d[k];
    int64_t total = rows * n;
    if (total <= 0) return;
    int nt = ew_threads(ctx, (size_t)total, grain);
    if (nt <= 1) {
        bc_range(bc, f, a, esa, b, esb, y, esy, p, 1, n, 0, rows);
        return;
    }
    /* enough rows: whole rows per thread; else split rows into chunks */
    int64_t nch = 1, chunk = n;
    if (rows < 4 * (int64_t)nt) {
        nch = (4 * (int64_t)nt + rows - 1) / rows;
        chunk = ((n + nch - 1) / nch + 63) & ~(int64_t)63;
        nch = (n + chunk - 1) / chunk;
    }
    int64_t units = rows * nch;
#pragma omp parallel num_threads(nt)
    {
        int64_t m = omp_get_num_threads(), t = omp_get_thread_num();
        int64_t u0 = units * t / m, u1 = units * (t + 1) / m;
        if (u0 < u1) bc_range(bc, f, a, esa, b, esb, y, esy, p, nch, chunk, u0, u1);
    }
}

/* y[j] = x[j] * k + b, then max(., 0) when relu, over a contiguous run:
 * a per-channel affine on one plane (BatchNormalization, ConcatNorm) */
EW_CLONE void ew_affine_f32(const float *x, float *y, int64_t m, float k, float b, int relu)
{
    if (relu) {
        EW_SIMD for (int64_t j = 0; j < m; j++) {
            float v = x[j] * k + b;
            y[j] = v > 0.0f ? v : 0.0f;
        }
    } else {
        EW_SIMD for (int64_t j = 0; j < m; j++) y[j] = x[j] * k + b;
    }
}

/* y[j] = x[j] * k[j] + b[j], then max(., 0) when relu: the same over a
 * channels-last pixel's run of channels */
EW_CLONE void ew_affine_ch_f32(const float *x, float *y, int64_t m, const float *k, const float *b, int relu)
{
    if (relu) {
        EW_SIMD for (int64_t j = 0; j < m; j++) {
            float v = x[j] * k[j] + b[j];
            y[j] = v > 0.0f ? v : 0.0f;
        }
    } else {
        EW_SIMD for (int64_t j = 0; j < m; j++) y[j] = x[j] * k[j] + b[j];
    }
}
