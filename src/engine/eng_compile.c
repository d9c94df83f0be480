/* atc's driver (compile.h): per gear, import the ONNX model, apply the
 * compile options (input shapes, float16 inputs, output types), run the full
 * pipeline into a program (eng_program_build: folding, fusion, layout, memory
 * plan, bf16 marks when asked) and pack its weights into an area of its own;
 * then write every program into one image. */
#include "engine/compile.h"
#include "graph/aipp.h"
#include "engine/eng_priv.h"
#include "graph/errs.h"
#include "onnx/onnx_import.h"
#include "core/core.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *str_cat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) { memcpy(s, a, la); memcpy(s + la, b, lb + 1); }
    return s;
}

static int input_index(const g_graph *g, const char *name)
{
    for (int k = 0; k < g->n_inputs; k++)
        if (!strcmp(g->t[g->inputs[k]].name, name)) return k;
    return -1;
}

static void list_inputs(const g_graph *g, char *buf, size_t len)
{
    size_t p = 0;
    buf[0] = 0;
    for (int k = 0; k < g->n_inputs && p + 4 < len; k++)
        p += (size_t)snprintf(buf + p, len - p, "%s'%s'", k ? ", " : "", g->t[g->inputs[k]].name);
}

/* A Cast node from tensor `from` to tensor `to` (dtype `dt`). */
static int add_cast(g_graph *g, int from, int to, int dt, const char *name)
{
    int in[1] = { from }, out[1] = { to };
    int ni = g_node_add(g, "Cast", "", name, 1, in, 1, out);
    if (ni < 0) return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory");
    g_node *n = &g->nodes[ni];
    n->attr = calloc(1, sizeof *n->attr);
    if (!n->attr) return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory");
    n->attr[0].name = strdup("to");
    n->attr[0].type = G_AT_INT;
    n->attr[0].i = dt;
    n->n_attr = 1;
    return n->attr[0].name ? 0 : acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory");
}

/* The input keeps its name but takes float16; a Cast feeds the float32
 * tensor the graph reads. */
static int fp16_input(g_graph *g, const char *name)
{
    int k = input_index(g, name);
    if (k < 0) {
        char b[512];
        list_inputs(g, b, sizeof b);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--input_fp16_nodes: '%s' is not an input of the model "
                        "(inputs: %s)", name, b);
    }
    int t = g->inputs[k];
    if (g->t[t].dtype != G_F32)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "--input_fp16_nodes: input '%s' is %s; only float32 inputs "
                        "can be made float16", name, g_dtype_name(g->t[t].dtype));
    char *alias = str_cat(name, "::openacl_fp32");
    char *cname = str_cat(name, "::openacl_cast_fp16");
    int nt = alias && cname ? g_tensor_add(g, name) : -1;
    if (nt < 0) { free(alias); free(cname); return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory"); }
    free(g->t[t].name);
    g->t[t].name = alias;
    g->t[t].kind = G_TK_ACT;
    g->t[nt].kind = G_TK_INPUT;
    g->t[nt].dtype = G_F16;
    g->t[nt].shape = g->t[t].shape;
    g->inputs[k] = nt;
    int rc = add_cast(g, nt, t, G_F32, cname);
    free(cname);
    return rc;
}

/* Output k keeps its name and gets dtype dt through a Cast. */
static int cast_output(g_graph *g, int k, int dt)
{
    int t = g->outputs[k];
    if (g->t[t].dtype == dt) return 0;
    char *alias = str_cat(g->t[t].name, "::openacl_orig");
    char *cname = str_cat(g->t[t].name, "::openacl_cast_out");
    int nt = alias && cname ? g_tensor_add(g, g->t[t].name) : -1;
    if (nt < 0) { free(alias); free(cname); return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory"); }
    free(g->t[t].name);
    g->t[t].name = alias;
    g->t[t].is_output = 0;
    for (int j = 0; j < g->n_outputs; j++)
        if (j != k && g->outputs[j] == t) g->t[t].is_output = 1;
    g->t[nt].is_output = 1;
    g->t[nt].dtype = dt;
    g->outputs[k] = nt;
    int rc = add_cast(g, t, nt, dt, cname);
    free(cname);
    return rc;
}

static int rewrite(g_graph *g, const eng_compile_req *r)
{
    int rc = 0;
    for (int i = 0; i < r->n_fp16 && !rc; i++) rc = fp16_input(g, r->fp16_inputs[i]);
    unsigned char *set = calloc((size_t)g->n_outputs + 1, 1);
    if (!set) return acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory");
    for (int i = 0; i < r->n_out_types && !rc; i++) {
        int hit = -1, found = 0;
        for (int n = 0; n < g->n_nodes && hit < 0; n++) {
            const g_node *nd = &g->nodes[n];
            if (strcmp(nd->name, r->out_type_node[i]) || r->out_type_index[i] < 0 ||
                r->out_type_index[i] >= nd->n_out) continue;
            found = 1;
            int t = nd->out[r->out_type_index[i]];
            for (int k = 0; k < g->n_outputs && hit < 0; k++) if (g->outputs[k] == t) hit = k;
        }
        if (hit < 0 && found)
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "--output_type: output %d of node '%s' is not an output of the "
                          "model", r->out_type_index[i], r->out_type_node[i]);
        else if (hit < 0)
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "--output_type: the model has no node '%s' with an output %d",
                          r->out_type_node[i], r->out_type_index[i]);
        if (!rc) { set[hit] = 1; rc = cast_output(g, hit, r->out_type_dtype[i]); }
    }
    /* the per-output form wins over the global one */
    for (int k = 0; k < g->n_outputs && !rc && r->out_dtype != G_UNDEF; k++)
        if (!set[k]) rc = cast_output(g, k, r->out_dtype);
    free(set);
    return rc;
}

/* Whether input `name` is the image of an AIPP node (graph/aipp.c names the
 * float tensor behind it). */
static int is_aipp_image(const g_graph *g, const char *name)
{
    char *alias = str_cat(name, "::openacl_aipp_out");
    int hit = alias && g_tensor_find(g, alias) >= 0;
    free(alias);
    return hit;
}

/* An AIPP image declares its own shape, the batch still a gear dim. */
static void image_decl(const g_graph *g, const eng_compile_req *r, const g_tensor *x, g_shape *decl)
{
    if (!r->n_aipp || !is_aipp_image(g, x->name) || decl->rank != 4 || x->shape.rank != 4) return;
    int64_t b = decl->d[0];
    *decl = x->shape;
    decl->d[0] = b;
}

/* The AIPP nodes of --insert_op_conf; an input fixed by --input_shape is
 * fixed to the image's shape instead. */
static int insert_aipp(g_graph *g, const eng_compile_req *r, g_shape *shp)
{
    if (r->n_aipp && r->gear_kind && r->gear_kind != ENG_GEAR_BATCH)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "--insert_op_conf: AIPP with --dynamic_image_size or "
                        "--dynamic_dims is not supported by this build (--dynamic_batch_size is)");
    for (int i = 0; i < r->n_aipp; i++) {
        const aipp_cfg *c = &r->aipp[i];
        if (r->gear_kind && c->mode == AIPP_MODE_DYNAMIC)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "--insert_op_conf: %s line %d: dynamic AIPP with gears "
                            "is not supported by this build", r->aipp_src ? r->aipp_src : "(config)", c->line);
        int k = c->related_name[0] ? input_index(g, c->related_name) : c->rank;
        int s = -1;
        g_shape sh;
        memset(&sh, 0, sizeof sh);
        if (k >= 0 && k < g->n_inputs) {
            sh = g->t[g->inputs[k]].shape;
            for (int j = 0; j < r->n_shapes; j++)
                if (!strcmp(r->shape_names[j], g->t[g->inputs[k]].name)) { s = j; sh = shp[j]; }
        }
        int rc = aipp_insert(g, r->aipp_src ? r->aipp_src : "(config)", c, &sh);
        if (rc) return rc;
        if (s >= 0) shp[s] = sh;
    }
    return 0;
}

/* Shapes of gear k: the -1 dims of --input_shape filled with its values. */
static int gear_shapes(const eng_compile_req *r, int k, g_shape *out)
{
    const int64_t *v = r->gear_vals + (size_t)k * (size_t)r->gear_nvals;
    int pos = 0;
    for (int i = 0; i < r->n_shapes; i++) {
        out[i] = r->shapes[i];
        for (int d = 0; d < out[i].rank; d++) {
            if (out[i].d[d] >= 0) continue;
            switch (r->gear_kind) {
            case ENG_GEAR_BATCH: out[i].d[d] = v[0]; break;
            case ENG_GEAR_HW: out[i].d[d] = d == 2 ? v[0] : v[1]; break;
            default:
                if (pos >= r->gear_nvals)
                    return acl_fail(ACL_ERROR_INVALID_PARAM, "--dynamic_dims: gear %d has %d values, --input_shape "
                                    "has more -1 dims", k + 1, r->gear_nvals);
                out[i].d[d] = v[pos];
            }
            pos++;
        }
    }
    return 0;
}

static void progress(const eng_compile_req *r, int k, int n, const char *stage)
{
    if (r->progress) r->progress(r->progress_ctx, k, n, stage);
}

/* Names the first tensor a gear program could not make static. */
static int not_static(const eng_program *m, int k, int n)
{
    const g_graph *g = m->g;
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        if (!(x->nuse > 0 || x->is_output || x->producer >= 0 || x->kind == G_TK_INPUT)) continue;
        if (g_dtype_size(x->dtype) && g_shape_known(&x->shape)) continue;
        char b[128];
        return acl_fail(ACL_ERROR_INVALID_PARAM, "atc: gear %d of %d: tensor '%s' (%s %s) still has an unknown "
                        "shape; every dim must be fixed by --input_shape and the gear values (a gear model runs "
                        "a static plan per gear)", k + 1, n, x->name, g_dtype_name(x->dtype),
                        g_shape_str(&x->shape, b, sizeof b));
    }
    return acl_fail(ACL_ERROR_INVALID_PARAM, "atc: gear %d of %d is not static", k + 1, n);
}

/* Program k of n from its imported, rewritten graph g (taken over): the
 * whole pipeline at shapes shp, then its weights packed into an area of its
 * own (*w), plain copies of packed-only constants kept for the writer. */
static int build_program(g_graph *g, const eng_compile_req *r, const g_shape *shp, int prec, int k, int n,
                         eng_program **out, void **w)
{
    eng_opts o;
    memset(&o, 0, sizeof o);
    o.threads = r->threads;
    o.base_dir = r->base_dir;
    o.n_fix = r->n_shapes;
    o.fix_names = r->shape_names;
    o.fix_shapes = shp;
    o.fix_override = 1;
    o.precision = prec;
    progress(r, k, n, "optimise");
    int rc = eng_program_build(g, &o, out);
    if (rc) return rc;
    eng_program *p = *out;
    if (r->gear_kind && !p->is_static) return not_static(p, k, n);
    progress(r, k, n, "pack");
    p->keep_plain = 1;
    if (!(*w = eng_alloc64(p->weight_size)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "eng_bind_weights: cannot allocate %zu bytes", p->weight_size);
    if ((rc = eng_program_bind(p, *w, NULL))) return rc;
    eng_program_drop_borrowed(p);
    return 0;
}

/* The compiler decides the precision (*prec, enum eng_precision);
 * OPENACL_PRECISION is a load-time setting for ONNX models and is not read
 * here. */
static int compile_precision(const eng_compile_req *r, int *prec)
{
    *prec = r->precision == ENG_PRECISION_BF16 ? ENG_PRECISION_BF16 : ENG_PRECISION_FP32;
    if (r->precision != ENG_PRECISION_DEFAULT && r->precision != ENG_PRECISION_FP32 &&
        r->precision != ENG_PRECISION_BF16)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "atc: precision %d is not one of enum eng_precision", r->precision);
    if (*prec == ENG_PRECISION_BF16 && !eng_cpu_bf16())
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "atc: bfloat16 compute needs a CPU with AVX512-BF16 or AMX "
                        "(oneDNN's ISA here: %s); weights are packed for the compiling machine", eng_kernel_abi());
    return 0;
}

/* Every --input_shape name is an input of g. */
static int check_shape_names(const g_graph *g, const eng_compile_req *r)
{
    for (int i = 0; i < r->n_shapes; i++)
        if (input_index(g, r->shape_names[i]) < 0) {
            char b[512];
            list_inputs(g, b, sizeof b);
            return acl_fail(ACL_ERROR_INVALID_PARAM, "--input_shape: '%s' is not an input of the model "
                            "(inputs: %s)", r->shape_names[i], b);
        }
    return 0;
}

int eng_compile(const void *onnx, size_t len, const eng_compile_req *r, void **image, size_t *image_len)
{
    *image = NULL;
    *image_len = 0;
    int n = r->gear_kind ? r->n_gears : 1;
    if (r->gear_kind && (n < 1 || n > ENG_MAX_GEARS || r->gear_nvals < 1))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "atc: %d gears of %d values", n, r->gear_nvals);
    int prec, rc = compile_precision(r, &prec);
    if (rc) return rc;
    eng_program **progs = calloc((size_t)n, sizeof *progs);
    void **wts = calloc((size_t)n, sizeof *wts);   /* each program's own weight area */
    g_shape *shp = calloc((size_t)r->n_shapes + 1, sizeof *shp);
    const char **names = NULL;
    int *dtypes = NULL;
    g_shape *decl = NULL;
    int64_t *lo = NULL, *hi = NULL;
    int n_in = 0;
    if (!progs || !wts || !shp) { rc = acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory"); goto done; }
    for (int k = 0; k < n && !rc; k++) {
        progress(r, k, n, "import");
        g_graph *g = NULL;
        if ((rc = onnx_import(onnx, len, r->base_dir, &g))) break;
        rc = check_shape_names(g, r);
        if (!rc) rc = rewrite(g, r);
        if (!rc && r->gear_kind) rc = gear_shapes(r, k, shp);
        else if (!rc && r->n_shapes) memcpy(shp, r->shapes, (size_t)r->n_shapes * sizeof *shp);
        if (!rc) rc = insert_aipp(g, r, shp);
        if (rc) { g_graph_free(g); break; }
        if (k == 0) {
            /* the declared inputs: what the model reports, -1 where dynamic */
            n_in = g->n_inputs;
            names = calloc((size_t)n_in + 1, sizeof *names);
            dtypes = calloc((size_t)n_in + 1, sizeof *dtypes);
            decl = calloc((size_t)n_in + 1, sizeof *decl);
            lo = calloc(((size_t)n_in + 1) * G_MAX_RANK, sizeof *lo);
            hi = calloc(((size_t)n_in + 1) * G_MAX_RANK, sizeof *hi);
            if (!names || !dtypes || !decl || !lo || !hi) {
                g_graph_free(g);
                rc = acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory");
                break;
            }
            for (int i = 0; i < n_in; i++) {
                const g_tensor *x = &g->t[g->inputs[i]];
                names[i] = strdup(x->name);
                dtypes[i] = x->dtype;
                decl[i] = x->shape;
                for (int d = 0; d < G_MAX_RANK; d++) {
                    lo[(size_t)i * G_MAX_RANK + (size_t)d] = 1;
                    hi[(size_t)i * G_MAX_RANK + (size_t)d] = -1;
                }
                for (int s = 0; s < r->n_shapes; s++) {
                    if (strcmp(r->shape_names[s], x->name)) continue;
                    decl[i] = r->shapes[s];
                    for (int d = 0; d < decl[i].rank && r->lo; d++) {
                        lo[(size_t)i * G_MAX_RANK + (size_t)d] = r->lo[(size_t)s * G_MAX_RANK + (size_t)d];
                        hi[(size_t)i * G_MAX_RANK + (size_t)d] = r->hi[(size_t)s * G_MAX_RANK + (size_t)d];
                    }
                    image_decl(g, r, x, &decl[i]);
                }
                for (int d = 0; d < decl[i].rank; d++)
                    if (decl[i].d[d] >= 0) {
                        lo[(size_t)i * G_MAX_RANK + (size_t)d] = decl[i].d[d];
                        hi[(size_t)i * G_MAX_RANK + (size_t)d] = decl[i].d[d];
                    }
                if (!names[i]) { g_graph_free(g); rc = acl_fail(ACL_ERROR_BAD_ALLOC, "atc: out of memory"); break; }
            }
            if (rc) break;
        }
        if ((rc = build_program(g, r, shp, prec, k, n, &progs[k], &wts[k]))) break;   /* g is the program's now */
    }
    if (!rc) {
        eng_export_req x;
        memset(&x, 0, sizeof x);
        x.progs = progs;
        x.n_progs = n;
        om_write_req *w = &x.facts;
        w->gear_kind = r->gear_kind;
        w->gear_nvals = r->gear_kind ? r->gear_nvals : 0;
        w->gear_vals = r->gear_vals;
        /* a model without gears reports its program's inputs as they are */
        const eng_program *p0 = progs[0];
        if (!r->gear_kind)
            for (int i = 0; i < n_in && i < p0->n_in; i++) decl[i] = p0->ins[i].shape;
        w->n_in = n_in;
        w->in_names = names;
        w->in_dtype = dtypes;
        w->in_shape = decl;
        w->lo = lo;
        w->hi = hi;
        w->producer = "atc";
        w->soc_version = r->soc_version;
        w->precision_mode = r->precision_mode;
        w->input_format = r->input_format;
        w->framework = r->framework;
        w->cmdline = r->cmdline;
        w->precision = prec;
        w->progress = r->progress;
        w->progress_ctx = r->progress_ctx;
        rc = eng_export(&x, image, image_len);
    }
done:
    for (int k = 0; progs && k < n; k++) eng_program_free(progs[k]);
    for (int k = 0; wts && k < n; k++) free(wts[k]);
    for (int i = 0; names && i < n_in; i++) free((char *)names[i]);
    free(progs); free(wts); free(shp); free(names); free(dtypes); free(decl); free(lo); free(hi);
    return rc;
}
