/* GridSample (opsets 16 and 20) on 4-D input: bilinear/linear, nearest and
 * bicubic/cubic sampling with zeros, border and reflection padding, the
 * grid denormalised with or without align_corners. Out-of-range coordinates
 * are clamped (border) or reflected (reflection) before interpolation, and
 * fetched pixels outside the image read 0 (zeros). */
#include "core/par.h"
#include "kernels/ref/shape_common.h"
#include <math.h>
#include <omp.h>

enum { GS_LINEAR, GS_NEAREST, GS_CUBIC };
enum { GP_ZEROS, GP_BORDER, GP_REFLECT };

typedef struct gs_state { int mode, pad, align; } gs_state;

static int gs_init(g_graph *g, g_node *n, void **stp)
{
    gs_state s;
    const char *m = g_attr_str(n, "mode", n->opset >= 20 ? "linear" : "bilinear");
    const char *p = g_attr_str(n, "padding_mode", "zeros");
    if (!strcmp(m, "bilinear") || !strcmp(m, "linear")) s.mode = GS_LINEAR;
    else if (!strcmp(m, "nearest")) s.mode = GS_NEAREST;
    else if (!strcmp(m, "bicubic") || !strcmp(m, "cubic")) s.mode = GS_CUBIC;
    else return ksh_fail(n, KSH_EUNSUP, "mode '%s' is not supported", m);
    if (!strcmp(p, "zeros")) s.pad = GP_ZEROS;
    else if (!strcmp(p, "border")) s.pad = GP_BORDER;
    else if (!strcmp(p, "reflection")) s.pad = GP_REFLECT;
    else return ksh_fail(n, KSH_EUNSUP, "padding_mode '%s' is not supported", p);
    s.align = g_attr_int(n, "align_corners", 0) != 0;
    int dt = ksh_in_dtype(g, n, 0), gt = ksh_in_dtype(g, n, 1);
    if (!ksh_is_float(dt) || !ksh_is_float(gt))
        return ksh_fail(n, KSH_ETYPE, "X (%s) and grid (%s) must be float types", g_dtype_name(dt), g_dtype_name(gt));
    gs_state *ps = malloc(sizeof *ps);
    if (!ps) return ksh_fail(n, KSH_ENOMEM, "out of memory");
    *ps = s;
    *stp = ps;
    return 0;
}

static void gs_fini(void *st) { free(st); }

static int gs_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    const g_shape *x = &in[0].shape, *gr = &in[1].shape;
    out[0].dtype = in[0].dtype;
    out[0].layout = G_LAYOUT_PLAIN;
    if (x->rank < 0 || gr->rank < 0) { ksh_set_unknown(&out[0].shape); return 0; }
    if (x->rank != 4 || gr->rank != 4 || (gr->d[3] >= 0 && gr->d[3] != 2))
        return ksh_fail(n, KSH_EUNSUP, "only 4-D X [N,C,H,W] with grid [N,Ho,Wo,2] is supported (ranks %d, %d)",
                        x->rank, gr->rank);
    if (x->d[0] >= 0 && gr->d[0] >= 0 && x->d[0] != gr->d[0])
        return ksh_fail(n, KSH_EINVAL, "batch %lld of X differs from grid batch %lld", (long long)x->d[0],
                        (long long)gr->d[0]);
    g_shape o = *x;
    o.d[2] = gr->d[1];
    o.d[3] = gr->d[2];
    out[0].shape = o;
    return 0;
}

static double gs_reflect(double x, double lo, double hi)
{
    double range = hi - lo;
    if (range <= 0) return lo;
    if (x < lo) {
        double dx = lo - x;
        int64_t k = (int64_t)(dx / range);
        double r = dx - (double)k * range;
        return k % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        double dx = x - hi;
        int64_t k = (int64_t)(dx / range);
        double r = dx - (double)k * range;
        return k % 2 == 0 ? hi - r : lo + r;
    }
    return x;
}

typedef struct gs_img {
    const void *p;
    int dt;
    int64_t H, W;
    const gs_state *s;
    double lo_x, hi_x, lo_y, hi_y;
} gs_img;

static double gs_pixel(const gs_img *m, size_t base, int64_t y, int64_t x)
{
    if (m->s->pad == GP_ZEROS) {
        if (x < 0 || x >= m->W || y < 0 || y >= m->H) return 0;
    } else if (m->s->pad == GP_BORDER) {
        x = x < 0 ? 0 : x >= m->W ? m->W - 1 : x;
        y = y < 0 ? 0 : y >= m->H ? m->H - 1 : y;
    } else {
        x = (int64_t)gs_reflect((double)x, m->lo_x, m->hi_x);
        y = (int64_t)gs_reflect((double)y, m->lo_y, m->hi_y);
        x = x < 0 ? 0 : x >= m->W ? m->W - 1 : x;
        y = y < 0 ? 0 : y >= m->H ? m->H - 1 : y;
    }
    return ksh_getf(m->p, m->dt, base + (size_t)(y * m->W + x));
}

static void cubic_w(double t, double *w)
{
    const double A = -0.75;
    double x;
    x = t + 1; w[0] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    x = t;     w[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
    x = 1 - t; w[2] = ((A + 2) * x - (A + 3)) * x * x + 1;
    x = 2 - t; w[3] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
}

static int gs_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const gs_state *s = st;
    const int64_t *xd = in[0].shape.d;
    int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3];
    int64_t Ho = out[0].shape.d[2], Wo = out[0].shape.d[3];
    gs_img m = {.p = in[0].data, .dt = in[0].dtype, .H = H, .W = W, .s = s};
    if (s->align) { m.lo_x = 0; m.hi_x = (double)(W - 1); m.lo_y = 0; m.hi_y = (double)(H - 1); }
    else { m.lo_x = -0.5; m.hi_x = (double)W - 0.5; m.lo_y = -0.5; m.hi_y = (double)H - 0.5; }
    int64_t total = N * Ho * Wo;
    int nt = ksh_threads(c, (size_t)(total * C) * 16);
    OA_PAR_FOR(nt, for (int64_t q = 0; q < total; q++) {
        int64_t b = q / (Ho * Wo), pix = q % (Ho * Wo);
        double gx = ksh_getf(in[1].data, in[1].dtype, (size_t)(q * 2));
        double gy = ksh_getf(in[1].data, in[1].dtype, (size_t)(q * 2 + 1));
        double x = s->align ? (gx + 1) / 2 * (double)(W - 1) : ((gx + 1) * (double)W - 1) / 2;
        double y = s->align ? (gy + 1) / 2 * (double)(H - 1) : ((gy + 1) * (double)H - 1) / 2;
        if (s->mode == GS_NEAREST) { x = nearbyint(x); y = nearbyint(y); }
        if (x < m.lo_x || x > m.hi_x || y < m.lo_y || y > m.hi_y) {
            if (s->pad == GP_BORDER) {
                x = x < 0 ? 0 : x > (double)(W - 1) ? (double)(W - 1) : x;
                y = y < 0 ? 0 : y > (double)(H - 1) ? (double)(H - 1) : y;
            } else if (s->pad == GP_REFLECT) {
                x = gs_reflect(x, m.lo_x, m.hi_x);
                y = gs_reflect(y, m.lo_y, m.hi_y);
            }
        }
        for (int64_t ch = 0; ch < C; ch++) {
            size_t base = (size_t)((b * C + ch) * H * W);
            double v;
            if (s->mode == GS_NEAREST) {
                v = gs_pixel(&m, base, (int64_t)y, (int64_t)x);
            } else if (s->mode == GS_LINEAR) {
                double fx = floor(x), fy = floor(y), dx = x - fx, dy = y - fy;
                int64_t x1 = (int64_t)fx, y1 = (int64_t)fy;
                v = (1 - dy) * ((1 - dx) * gs_pixel(&m, base, y1, x1) + dx * gs_pixel(&m, base, y1, x1 + 1)) +
                    dy * ((1 - dx) * gs_pixel(&m, base, y1 + 1, x1) + dx * gs_pixel(&m, base, y1 + 1, x1 + 1));
            } else {
                double fx = floor(x), fy = floor(y), wx[4], wy[4];
                cubic_w(x - fx, wx);
                cubic_w(y - fy, wy);
                int64_t x0 = (int64_t)fx - 1, y0 = (int64_t)fy - 1;
                v = 0;
                for (int i = 0; i < 4; i++) {
                    double r = 0;
                    for (int j = 0; j < 4; j++) r += wx[j] * gs_pixel(&m, base, y0 + i, x0 + j);
                    v += wy[i] * r;
                }
            }
            ksh_setf(out[0].data, out[0].dtype, (size_t)((b * C + ch) * Ho * Wo + pix), v);
        }
    });
    return 0;
}
static const k_op k_gridsample = {.op_type = "GridSample", .domain = "", .since = 16, .impl = "ref",
                                  .init = gs_init, .infer = gs_infer, .run = gs_run, .fini = gs_fini};
K_REGISTER(k_gridsample);
