/* Engine unit tests: the memory planner (reuse, alignment, sizes), the ONNX
 * importer's refusals (truncated, garbage, cycles, missing initialisers,
 * external-data paths, dims overflow, duplicate producers, unsupported ops,
 * opset range) and the executor (static with caller memory, dynamic shapes,
 * plan/pack/scratch, outputs that are inputs or constants, input checks).
 *
 * Models are built in memory with the generated protobuf-c structs; the ops
 * they use are test kernels registered here in the "openacl.test" domain,
 * so these tests do not depend on the real kernels. */
#include "../common/oa_check.h"
#include "engine/engine.h"
#include "graph/passes.h"
#include "graph/plan.h"
#include "onnx/onnx_import.h"
#include "onnx/onnx.pb-c.h"
#include "acl/acl_base.h"
#include <limits.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *aclGetRecentErrMsg(void);


/* ---------------- test kernels (domain openacl.test) ---------------- */

static int t_init(g_graph *g, g_node *n, void **st)
{
    int want = !strcmp(n->op_type, "TAdd") ? 2 : 1;
    if (n->n_in != want || n->n_out != 1) return ACL_ERROR_INVALID_PARAM;
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j] >= 0 && g->t[n->in[j]].dtype != G_F32) return K_DECLINE;
    return 0;
}

static int tadd_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = G_F32;
    if (in[0].shape.rank >= 0 && in[1].shape.rank >= 0 && g_shape_known(&in[0].shape) &&
        g_shape_known(&in[1].shape) && !g_shape_eq(&in[0].shape, &in[1].shape))
        return ACL_ERROR_INVALID_PARAM;
    out[0].shape = in[0].shape;
    return 0;
}

static int tadd_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    size_t k = out[0].nbytes / 4;
    const float *a = in[0].data, *b = in[1].data;
    float *y = out[0].data;
    for (size_t i = 0; i < k; i++) y[i] = a[i] + b[i];
    return 0;
}

static const k_op k_tadd = { .op_type = "TAdd", .domain = "openacl.test", .since = 1, .impl = "ref",
                             .init = t_init, .infer = tadd_infer, .run = tadd_run };
K_REGISTER(k_tadd);

/* TScale: y = x * k, with k packed into the weight area and a scratch copy. */
typedef struct tscale_st { const float *packed; int planned, packed_calls; } tscale_st;

static int tscale_init(g_graph *g, g_node *n, void **st)
{
    if (t_init(g, n, st)) return K_DECLINE;
    *st = calloc(1, sizeof(tscale_st));
    return *st ? 0 : ACL_ERROR_BAD_ALLOC;
}

static int tunary_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = G_F32;
    out[0].shape = in[0].shape;
    return 0;
}

static int tscale_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out,
                       size_t *pb, size_t *sb)
{
    ((tscale_st *)st)->planned++;
    *pb = sizeof(float);
    *sb = out[0].nbytes;
    return 0;
}

static int tscale_pack(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, void *p)
{
    tscale_st *s = st;
    *(float *)p = g_attr_float(n, "k", 1.0f);
    s->packed = p;
    s->packed_calls++;
    return 0;
}

static int tscale_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    tscale_st *s = st;
    if (!s->packed || !c->scratch || c->scratch_bytes < out[0].nbytes || ((uintptr_t)c->scratch & 63))
        return ACL_ERROR_INTERNAL_ERROR;
    size_t k = out[0].nbytes / 4;
    float *tmp = c->scratch;
    const float *x = in[0].data;
    for (size_t i = 0; i < k; i++) tmp[i] = x[i] * *s->packed;
    memcpy(out[0].data, tmp, out[0].nbytes);
    return 0;
}

static void tscale_fini(void *st) { free(st); }

static const k_op k_tscale = { .op_type = "TScale", .domain = "openacl.test", .since = 1,
                               .impl = "ref", .init = tscale_init, .infer = tunary_infer,
                               .plan = tscale_plan, .pack = tscale_pack, .run = tscale_run,
                               .fini = tscale_fini };
K_REGISTER(k_tscale);

/* TMulW: y = x * w for a constant w that pack() copies (packed_inputs bit 1):
 * the engine then keeps no copy of w of its own in a static plan. */
typedef struct tmulw_st { const float *w; } tmulw_st;

static int tmulw_init(g_graph *g, g_node *n, void **st)
{
    if (n->n_in != 2 || n->in[1] < 0 || g->t[n->in[1]].kind != G_TK_CONST) return K_DECLINE;
    *st = calloc(1, sizeof(tmulw_st));
    return *st ? 0 : ACL_ERROR_BAD_ALLOC;
}

static int tmulw_plan(const g_node *n, void *st, const k_tensor *in, const k_tensor *out,
                      size_t *pb, size_t *sb)
{
    *pb = in[1].nbytes;
    *sb = 0;
    return 0;
}

static int tmulw_pack(const g_node *n, void *st, const k_tensor *in, const k_tensor *out, void *p)
{
    if (!in[1].data) return ACL_ERROR_INTERNAL_ERROR;
    memcpy(p, in[1].data, in[1].nbytes);
    ((tmulw_st *)st)->w = p;
    return 0;
}

static int tmulw_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    const tmulw_st *s = st;
    size_t k = out[0].nbytes / 4;
    for (size_t i = 0; i < k; i++) ((float *)out[0].data)[i] = ((const float *)in[0].data)[i] * s->w[i];
    return 0;
}

static const k_op k_tmulw = { .op_type = "TMulW", .domain = "openacl.test", .since = 1,
                              .impl = "ref", .init = tmulw_init, .infer = tunary_infer,
                              .plan = tmulw_plan, .pack = tmulw_pack, .run = tmulw_run,
                              .fini = tscale_fini, .packed_inputs = 1u << 1 };
K_REGISTER(k_tmulw);

/* TPositives: 1-D output holding the positive values of x (data-dependent shape). */
static int tpos_infer(const g_node *n, void *st, const k_tensor *in, k_tensor *out)
{
    out[0].dtype = G_F32;
    if (!in[0].data) { out[0].shape.rank = 1; out[0].shape.d[0] = -1; return K_NEED_DATA; }
    int64_t k = 0, tot = g_shape_numel(&in[0].shape);
    for (int64_t i = 0; i < tot; i++) k += ((const float *)in[0].data)[i] > 0;
    out[0].shape.rank = 1;
    out[0].shape.d[0] = k;
    return 0;
}

static int tpos_run(const g_node *n, void *st, const k_tensor *in, k_tensor *out, const k_ctx *c)
{
    int64_t tot = g_shape_numel(&in[0].shape), k = 0;
    for (int64_t i = 0; i < tot; i++) {
        float v = ((const float *)in[0].data)[i];
        if (v > 0) ((float *)out[0].data)[k++] = v;
    }
    return 0;
}

static const k_op k_tpos = { .op_type = "TPositives", .domain = "openacl.test", .since = 1,
                             .impl = "ref", .init = t_init, .infer = tpos_infer, .run = tpos_run };
K_REGISTER(k_tpos);

/* ---------------- model building ---------------- */

static void **g_allocs;
static int g_nalloc, g_capalloc;

static void *T(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (g_nalloc == g_capalloc) {
        g_capalloc = g_capalloc ? g_capalloc * 2 : 256;
        g_allocs = realloc(g_allocs, (size_t)g_capalloc * sizeof *g_allocs);
    }
    g_allocs[g_nalloc++] = p;
    return p;
}

static void T_free_all(void)
{
    for (int i = 0; i < g_nalloc; i++) free(g_allocs[i]);
    g_nalloc = 0;
}

static char *S(const char *s)
{
    char *d = T(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

static Onnx__ValueInfoProto *vi(const char *name, int dt, int rank, const int64_t *dims,
                                const char *sym)
{
    Onnx__ValueInfoProto *v = T(sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = S(name);
    Onnx__TypeProto *tp = T(sizeof *tp);
    onnx__type_proto__init(tp);
    Onnx__TypeProto__Tensor *tt = T(sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = dt;
    if (rank >= 0) {
        Onnx__TensorShapeProto *sh = T(sizeof *sh);
        onnx__tensor_shape_proto__init(sh);
        sh->n_dim = (size_t)rank;
        sh->dim = T((size_t)(rank + 1) * sizeof *sh->dim);
        for (int i = 0; i < rank; i++) {
            Onnx__TensorShapeProto__Dimension *d = T(sizeof *d);
            onnx__tensor_shape_proto__dimension__init(d);
            if (dims[i] < 0) {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
                d->dim_param = S(sym ? sym : "N");
            } else {
                d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
                d->dim_value = dims[i];
            }
            sh->dim[i] = d;
        }
        tt->shape = sh;
    }
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->type = tp;
    return v;
}

static Onnx__NodeProto *node(const char *op, const char *name, const char *in0, const char *in1,
                             const char *out0)
{
    Onnx__NodeProto *n = T(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = S(op);
    n->name = S(name);
    n->domain = S(strncmp(op, "T", 1) ? "" : "openacl.test");
    n->input = T(2 * sizeof(char *));
    if (in0) n->input[n->n_input++] = S(in0);
    if (in1) n->input[n->n_input++] = S(in1);
    n->output = T(sizeof(char *));
    n->output[n->n_output++] = S(out0);
    return n;
}

static void node_attr_f(Onnx__NodeProto *n, const char *name, float f)
{
    Onnx__AttributeProto *a = T(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = S(name);
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    a->has_f = 1;
    a->f = f;
    Onnx__AttributeProto **v = T((n->n_attribute + 1) * sizeof *v);
    if (n->n_attribute) memcpy(v, n->attribute, n->n_attribute * sizeof *v);
    v[n->n_attribute++] = a;
    n->attribute = v;
}

static Onnx__NodeProto *nodev(const char *op, const char *name, int nin, const char *const *ins,
                              int nout, const char *const *outs)
{
    Onnx__NodeProto *n = T(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = S(op);
    n->name = S(name);
    n->domain = S(strncmp(op, "T", 1) ? "" : "openacl.test");
    n->input = T((size_t)(nin + 1) * sizeof(char *));
    for (int i = 0; i < nin; i++) n->input[n->n_input++] = S(ins[i]);
    n->output = T((size_t)(nout + 1) * sizeof(char *));
    for (int i = 0; i < nout; i++) n->output[n->n_output++] = S(outs[i]);
    return n;
}

static void node_attr_g(Onnx__NodeProto *n, const char *name, Onnx__GraphProto *g)
{
    Onnx__AttributeProto *a = T(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = S(name);
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    a->g = g;
    Onnx__AttributeProto **v = T((n->n_attribute + 1) * sizeof *v);
    if (n->n_attribute) memcpy(v, n->attribute, n->n_attribute * sizeof *v);
    v[n->n_attribute++] = a;
    n->attribute = v;
}

static Onnx__TensorProto *tensor(const char *name, int rank, const int64_t *dims, const float *data,
                                 size_t nvals)
{
    Onnx__TensorProto *t = T(sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = S(name);
    t->has_data_type = 1;
    t->data_type = 1;
    t->n_dims = (size_t)rank;
    t->dims = T((size_t)(rank + 1) * sizeof(int64_t));
    memcpy(t->dims, dims, (size_t)rank * sizeof(int64_t));
    if (data) {
        t->has_raw_data = 1;
        t->raw_data.len = nvals * 4;
        t->raw_data.data = T(nvals * 4);
        memcpy(t->raw_data.data, data, nvals * 4);
    }
    return t;
}

typedef struct gb {
    Onnx__GraphProto g;
    Onnx__NodeProto *nodes[16];
    Onnx__ValueInfoProto *ins[8], *outs[8];
    Onnx__TensorProto *inits[8];
    int opset;
} gb;

static void gb_init(gb *b)
{
    memset(b, 0, sizeof *b);
    onnx__graph_proto__init(&b->g);
    b->g.name = S("g");
    b->opset = 13;
}

/* Finishes b's GraphProto (for use as a subgraph or by gb_pack). */
static Onnx__GraphProto *gb_graph(gb *b)
{
    b->g.node = b->nodes;
    b->g.input = b->ins;
    b->g.output = b->outs;
    b->g.initializer = b->inits;
    return &b->g;
}

static void *gb_pack(gb *b, size_t *len)
{
    gb_graph(b);
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.graph = &b->g;
    Onnx__OperatorSetIdProto o1, o2, *ops[2] = { &o1, &o2 };
    onnx__operator_set_id_proto__init(&o1);
    onnx__operator_set_id_proto__init(&o2);
    o1.domain = S("");
    o1.has_version = 1;
    o1.version = b->opset;
    o2.domain = S("openacl.test");
    o2.has_version = 1;
    o2.version = 1;
    m.n_opset_import = 2;
    m.opset_import = ops;
    *len = onnx__model_proto__get_packed_size(&m);
    void *buf = T(*len);
    onnx__model_proto__pack(&m, buf);
    return buf;
}

static const int64_t D23[2] = { 2, 3 };

/* x[2,3] -> TScale(k=2) -> a -> TAdd(a, w) -> y ; w an initializer */
static void *model_basic(size_t *len)
{
    gb b;
    gb_init(&b);
    static const float w[6] = { 1, 2, 3, 4, 5, 6 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.inits[b.g.n_initializer++] = tensor("w", 2, D23, w, 6);
    Onnx__NodeProto *s = node("TScale", "scale", "x", NULL, "a");
    node_attr_f(s, "k", 2.0f);
    b.nodes[b.g.n_node++] = s;
    b.nodes[b.g.n_node++] = node("TAdd", "add", "a", "w", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    return gb_pack(&b, len);
}

/* The last failure's message (aclGetRecentErrMsg clears it when read). */
static char g_msg[8192];

static void grab_msg(void)
{
    const char *m = aclGetRecentErrMsg();
    snprintf(g_msg, sizeof g_msg, "%s", m ? m : "");
}

static int load(const void *buf, size_t len, const char *base, eng_model **m)
{
    eng_opts o = { .threads = 1, .base_dir = base };
    int rc = eng_load(buf, len, &o, m);
    grab_msg();
    return rc;
}

static int run(eng_model *m, void *work, const k_tensor *in, int ni, k_tensor *out, int no,
               eng_alloc_fn alloc)
{
    int rc = eng_run(m, work, in, ni, out, no, alloc, NULL);
    grab_msg();
    return rc;
}

static int msg_has(const char *needle)
{
    int ok = strstr(g_msg, needle) != NULL;
    if (!ok) printf("  (message was: %s)\n", g_msg);
    return ok;
}

/* ---------------- planner ---------------- */

static unsigned rng_state = 12345;
static unsigned rnd(void) { rng_state = rng_state * 1103515245u + 12345u; return rng_state >> 8; }

static void test_planner(void)
{
    /* disjoint lifetimes share memory */
    plan_item a[3] = { { 1000, 0, 1, 0 }, { 1000, 2, 3, 0 }, { 1000, 4, 5, 0 } };
    size_t sz = plan_assign(a, 3);
    CHECK(sz == 1024, "three disjoint 1000-byte buffers need 1024 bytes, got %zu", sz);
    /* overlapping ones do not */
    plan_item b[3] = { { 100, 0, 2, 0 }, { 100, 1, 3, 0 }, { 100, 2, 2, 0 } };
    sz = plan_assign(b, 3);
    CHECK(sz == 384, "three overlapping 100-byte buffers take 3 slots of 128, got %zu", sz);
    CHECK(b[0].offset != b[1].offset && b[1].offset != b[2].offset && b[0].offset != b[2].offset,
          "overlapping buffers got distinct offsets");
    /* random: no overlap among live-together items, alignment, bounds */
    for (int round = 0; round < 20; round++) {
        int n = 50 + (int)(rnd() % 150);
        plan_item *it = calloc((size_t)n, sizeof *it);
        size_t total = 0;
        for (int i = 0; i < n; i++) {
            it[i].first = (int)(rnd() % 100);
            it[i].last = it[i].first + (int)(rnd() % 20);
            it[i].size = rnd() % 5000;
            total += (it[i].size + 63) & ~(size_t)63;
        }
        sz = plan_assign(it, n);
        int ok = 1, aligned = 1;
        for (int i = 0; i < n; i++) {
            if (it[i].offset % 64) aligned = 0;
            if (it[i].offset + it[i].size > sz) ok = 0;
            for (int j = i + 1; j < n; j++) {
                if (it[i].first > it[j].last || it[j].first > it[i].last) continue;
                if (!it[i].size || !it[j].size) continue;
                if (it[i].offset < it[j].offset + it[j].size && it[j].offset < it[i].offset + it[i].size)
                    ok = 0;
            }
        }
        /* lower bound: the most bytes live at one step */
        size_t peak = 0;
        for (int s = 0; s < 120; s++) {
            size_t live = 0;
            for (int i = 0; i < n; i++)
                if (it[i].first <= s && s <= it[i].last) live += (it[i].size + 63) & ~(size_t)63;
            if (live > peak) peak = live;
        }
        CHECK(ok, "round %d: live-together buffers overlap or exceed the arena", round);
        CHECK(aligned, "round %d: an offset is not 64-byte aligned", round);
        CHECK(sz >= peak && sz <= total, "round %d: arena %zu outside [peak %zu, sum %zu]", round,
              sz, peak, total);
        free(it);
    }
}

/* Adds input x[1000] and a chain of n TScale (k 1.5) nodes s0..s{n-1}
 * writing t0, t1, ...; the last writes `last` instead (NULL: t{n-1}). */
static void tscale_chain(gb *b, int n, const char *last)
{
    static const int64_t d[1] = { 1000 };
    b->ins[b->g.n_input++] = vi("x", 1, 1, d, NULL);
    char prev[16] = "x", cur[16];
    for (int i = 0; i < n; i++) {
        if (i == n - 1 && last) snprintf(cur, sizeof cur, "%s", last);
        else snprintf(cur, sizeof cur, "t%d", i);
        char nm[16];
        snprintf(nm, sizeof nm, "s%d", i);
        Onnx__NodeProto *s = node("TScale", nm, prev, NULL, cur);
        node_attr_f(s, "k", 1.5f);
        b->nodes[b->g.n_node++] = s;
        strcpy(prev, cur);
    }
}

/* A chain x -> TScale -> t1 -> TScale -> t2 ... -> y: intermediates reuse two slots. */
static void test_planner_graph(void)
{
    gb b;
    gb_init(&b);
    static const int64_t d[1] = { 1000 };
    tscale_chain(&b, 8, "y");
    b.outs[b.g.n_output++] = vi("y", 1, 1, d, NULL);
    size_t len;
    void *buf = gb_pack(&b, &len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "chain model loads (%d): %s", rc, g_msg);
    if (!rc) {
        /* 6 intermediates of 4000 B and 8 scratch buffers of 4000 B; at any
         * step at most input, output and scratch are live */
        size_t ws = eng_work_size(m);
        CHECK(ws >= 2 * 4032 && ws <= 3 * 4032, "work size %zu reuses memory (naive would be %d)",
              ws, 14 * 4032);
        CHECK(eng_weight_size(m) == 8 * 64, "8 packed scalars, 64 bytes each: %zu",
              eng_weight_size(m));
        float x[1000], y[1000];
        for (int i = 0; i < 1000; i++) x[i] = (float)i;
        k_tensor in = { .dtype = G_F32, .shape = { 1, { 1000 } }, .data = x, .nbytes = sizeof x };
        k_tensor out = { .data = y, .nbytes = sizeof y };
        rc = run(m, NULL, &in, 1, &out, 1, NULL);
        double k = pow(1.5, 8);
        CHECK(rc == 0 && fabs(y[999] - 999 * k) < 1e-2 && fabs(y[10] - 10 * k) < 1e-3,
              "chain result y[999] = %g, expected %g (%d %s)", y[999], 999 * k, rc,
              rc ? g_msg : "");
        eng_free(m);
    }
    T_free_all();
}

/* Packs the model built in b, imports and optimises it; *buf and *len get
 * the packed bytes (freed with the test's allocations). */
static int import_opt(gb *b, g_graph **g, void **buf, size_t *len)
{
    *buf = gb_pack(b, len);
    *g = NULL;
    int rc = onnx_import(*buf, *len, NULL, g);
    return rc ? rc : graph_optimize(*g);
}

/* The planned tensor offsets, as plan_graph_check takes them (the test
 * graphs have fewer than 64 tensors). */
static void plan_offsets(const g_graph *g, int64_t off[64])
{
    for (int t = 0; t < g->n_t && t < 64; t++) off[t] = g->t[t].mem_offset;
}

/* A view op's output shares its input's arena storage. */
static void test_view_alias(void)
{
    gb b;
    gb_init(&b);
    static const int64_t d[1] = { 1000 }, d2[2] = { 10, 100 }, two[1] = { 2 };
    b.ins[b.g.n_input++] = vi("x", 1, 1, d, NULL);
    Onnx__TensorProto *shp = tensor("shp", 1, two, NULL, 0);
    shp->data_type = 7;
    shp->has_raw_data = 1;
    shp->raw_data.len = 16;
    shp->raw_data.data = T(16);
    memcpy(shp->raw_data.data, d2, 16);
    b.inits[b.g.n_initializer++] = shp;
    Onnx__NodeProto *s1 = node("TScale", "s1", "x", NULL, "a");
    node_attr_f(s1, "k", 2.0f);
    b.nodes[b.g.n_node++] = s1;
    b.nodes[b.g.n_node++] = node("Reshape", "r", "a", "shp", "v");
    Onnx__NodeProto *s2 = node("TScale", "s2", "v", NULL, "y");
    node_attr_f(s2, "k", 3.0f);
    b.nodes[b.g.n_node++] = s2;
    b.outs[b.g.n_output++] = vi("y", 1, 2, d2, NULL);
    size_t len;
    void *buf;
    g_graph *g;
    int rc = import_opt(&b, &g, &buf, &len);
    size_t arena = 0;
    if (!rc) rc = plan_graph(g, NULL, NULL, &arena);
    CHECK(rc == 0, "view model plans: %d", rc);
    if (!rc) {
        int ta = g_tensor_find(g, "a"), tv = g_tensor_find(g, "v");
        CHECK(ta >= 0 && tv >= 0 && g->t[ta].mem_offset >= 0 &&
              g->t[ta].mem_offset == g->t[tv].mem_offset && arena == 4032,
              "Reshape output shares its input's storage (offsets %lld %lld, arena %zu)",
              (long long)g->t[ta].mem_offset, (long long)g->t[tv].mem_offset, arena);
        int64_t off[64];
        plan_offsets(g, off);
        CHECK(g->n_t <= 64 && plan_graph_check(g, off, NULL, NULL, NULL, arena) == 1,
              "a view sharing its input's storage passes the plan check");
    }
    g_graph_free(g);
    eng_model *m = NULL;
    rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "view model loads: %s", g_msg);
    if (!rc) {
        float x[1000], y[1000];
        for (int i = 0; i < 1000; i++) x[i] = (float)i;
        k_tensor in = { .dtype = G_F32, .shape = { 1, { 1000 } }, .data = x, .nbytes = sizeof x };
        k_tensor out = { .data = y, .nbytes = sizeof y };
        rc = run(m, NULL, &in, 1, &out, 1, NULL);
        CHECK(rc == 0 && y[7] == 42.0f && out.shape.rank == 2, "aliased view computes: y[7] = %g", y[7]);
        eng_free(m);
    }
    aclGetRecentErrMsg();
    T_free_all();
}

/* plan_graph_check: a plan is accepted exactly when it is sound (a compiled
 * model's recorded plan goes through it; a damaged one is planned again). */
static void test_plan_check(void)
{
    gb b;
    gb_init(&b);
    static const int64_t d[1] = { 1000 };
    tscale_chain(&b, 6, "y");
    b.outs[b.g.n_output++] = vi("y", 1, 1, d, NULL);
    size_t len;
    void *buf;
    g_graph *g;
    int rc = import_opt(&b, &g, &buf, &len);
    size_t arena = 0, sb[6] = { 4000, 0, 4000, 4000, 0, 4000 }, so[6] = { 0 };
    if (!rc) rc = plan_graph(g, sb, so, &arena);
    CHECK(rc == 0 && g->n_nodes == 6, "chain plans: %d", rc);
    if (!rc && g->n_nodes == 6) {
        int64_t off[64];
        plan_offsets(g, off);
        int t1 = g_tensor_find(g, "t1"), t2 = g_tensor_find(g, "t2");
        CHECK(plan_graph_check(g, off, sb, so, NULL, arena) == 1 && arena < plan_graph_naive(g, sb),
              "the planner's own plan (buffers reused: %zu of %zu bytes) is accepted", arena,
              plan_graph_naive(g, sb));
        size_t so2[6];
        memcpy(so2, so, sizeof so);
        so2[2] = (size_t)off[t1];   /* node 2 reads t1: its scratch over its input */
        CHECK(plan_graph_check(g, off, sb, so2, NULL, arena) == 0, "scratch over a live input refused");
        memcpy(so2, so, sizeof so);
        so2[2] = (size_t)off[t2];   /* ... over its output */
        CHECK(plan_graph_check(g, off, sb, so2, NULL, arena) == 0, "scratch over the output refused");
        so2[2] = so[2] + 64;
        CHECK(plan_graph_check(g, off, sb, so2, NULL, arena) == 0, "scratch running past the arena refused");
        so2[2] = so[2] + 1;
        CHECK(plan_graph_check(g, off, sb, so2, NULL, arena + 64) == 0, "misaligned scratch refused");
        int64_t off2[64];
        memcpy(off2, off, sizeof off);
        off2[t2] = off[t1];         /* t1 is read while t2 is written */
        CHECK(plan_graph_check(g, off2, sb, so, NULL, arena) == 0, "two live tensors at one offset refused");
        memcpy(off2, off, sizeof off);
        off2[t2] = (int64_t)arena;  /* moved to free space above the arena */
        CHECK(plan_graph_check(g, off2, sb, so, NULL, arena + 4032) == 1, "a buffer moved to free space accepted");
        memcpy(off2, off, sizeof off);
        off2[g_tensor_find(g, "y")] = 0;   /* a graph output has no arena storage */
        CHECK(plan_graph_check(g, off2, sb, so, NULL, arena) == 0, "an arena offset on a graph output refused");
        memcpy(off2, off, sizeof off);
        off2[t1] = -1;
        CHECK(plan_graph_check(g, off2, sb, so, NULL, arena) == 0, "an arena tensor without an offset refused");
        CHECK(plan_graph_check(g, off, sb, so, NULL, arena - 64) == 0, "a plan larger than its arena refused");
    }
    g_graph_free(g);
    T_free_all();
}

/* plan_graph_inplace: an output takes over an input's storage when the
 * kernel asks, the input dies at that node and no other input of the node
 * reads the same storage; plan_graph_check accepts exactly that sharing. */
static void test_plan_inplace(void)
{
    gb b;
    gb_init(&b);
    static const int64_t d[1] = { 1000 };
    tscale_chain(&b, 5, NULL);
    b.nodes[b.g.n_node++] = node("Add", "twice", "t4", "t4", "u");   /* reads t4 through both inputs */
    Onnx__NodeProto *s = node("TScale", "last", "u", NULL, "y");
    node_attr_f(s, "k", 1.5f);
    b.nodes[b.g.n_node++] = s;
    b.outs[b.g.n_output++] = vi("y", 1, 1, d, NULL);
    size_t len;
    void *buf;
    g_graph *g;
    int rc = import_opt(&b, &g, &buf, &len);
    size_t arena = 0, arena0 = 0;
    int inplace[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    if (!rc) rc = plan_graph(g, NULL, NULL, &arena0);
    if (!rc) rc = plan_graph_inplace(g, NULL, inplace, NULL, &arena);
    CHECK(rc == 0 && g->n_nodes == 7, "in-place chain plans: %d (%d nodes)", rc, g ? g->n_nodes : -1);
    if (!rc && g->n_nodes == 7) {
        int64_t off[64];
        plan_offsets(g, off);
        int t0 = g_tensor_find(g, "t0"), t4 = g_tensor_find(g, "t4"), u = g_tensor_find(g, "u");
        int same = 1;
        for (int i = 1; i < 5; i++) {
            char nm[8];
            snprintf(nm, sizeof nm, "t%d", i);
            same &= off[g_tensor_find(g, nm)] == off[t0];
        }
        CHECK(same, "t1..t4 take over t0's storage");
        CHECK(off[u] != off[t4], "Add(t4, t4) may not write over t4 while reading it twice");
        CHECK(arena <= arena0, "in-place plan no larger: %zu vs %zu", arena, arena0);
        CHECK(plan_graph_check(g, off, NULL, NULL, inplace, arena) == 1, "the in-place plan passes the check");
        CHECK(plan_graph_check(g, off, NULL, NULL, NULL, arena) == 0,
              "without the in-place grants the shared storage is an overlap");
    }
    g_graph_free(g);
    T_free_all();
}

/* A Dropout in training mode with a constant ratio 0 keeps every element
 * (torchvision's Swin exports its attention dropouts so): eliminated; with a
 * ratio of 0.5 it stays. */
static void test_dropout_ratio0(void)
{
    for (int half = 0; half < 2; half++) {
        gb b;
        gb_init(&b);
        static const int64_t none[1] = { 0 };
        const float ratio = half ? 0.5f : 0.0f;
        b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
        b.inits[b.g.n_initializer++] = tensor("ratio", 0, none, &ratio, 1);
        Onnx__TensorProto *tm = tensor("train", 0, none, NULL, 0);
        tm->data_type = 9;   /* bool */
        tm->has_raw_data = 1;
        tm->raw_data.len = 1;
        tm->raw_data.data = T(1);
        tm->raw_data.data[0] = 1;
        b.inits[b.g.n_initializer++] = tm;
        static const char *const ins[3] = { "x", "ratio", "train" }, *const outs[1] = { "d" };
        b.nodes[b.g.n_node++] = nodev("Dropout", "drop", 3, ins, 1, outs);
        b.nodes[b.g.n_node++] = node("Relu", "relu", "d", NULL, "y");
        b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
        size_t len;
        void *buf = gb_pack(&b, &len);
        g_graph *g = NULL;
        int rc = onnx_import(buf, len, NULL, &g);
        if (!rc) rc = graph_elim_identity(g);
        int drops = 0;
        for (int i = 0; !rc && i < g->n_nodes; i++) drops += !strcmp(g->nodes[i].op_type, "Dropout");
        CHECK(rc == 0 && drops == half, "training-mode Dropout with ratio %g: %d left (want %d), rc %d",
              (double)ratio, drops, half, rc);
        g_graph_free(g);
        if (!half) {
            eng_model *m = NULL;
            rc = load(buf, len, NULL, &m);
            CHECK(rc == 0, "ratio-0 Dropout model loads: %d", rc);
            if (!rc) {
                float x[6] = { 1, -2, 3, -4, 5, -6 }, yv[6] = { 0 }, want[6] = { 1, 0, 3, 0, 5, 0 };
                k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = 24 };
                k_tensor out = { .data = yv, .nbytes = 24 };
                rc = run(m, NULL, &in, 1, &out, 1, NULL);
                CHECK(rc == 0 && !memcmp(want, yv, sizeof yv), "ratio-0 Dropout passes its input through");
                eng_free(m);
            }
        }
        T_free_all();
    }
}

/* Identity/Dropout elimination, dead nodes, constant folding. */
static void test_passes(void)
{
    gb b;
    gb_init(&b);
    static const float c1[6] = { 1, 1, 1, 1, 1, 1 }, c2[6] = { 2, 2, 2, 2, 2, 2 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.inits[b.g.n_initializer++] = tensor("c1", 2, D23, c1, 6);
    b.inits[b.g.n_initializer++] = tensor("c2", 2, D23, c2, 6);
    Onnx__NodeProto *s = node("TScale", "scale", "x", NULL, "a");
    node_attr_f(s, "k", 2.0f);
    b.nodes[b.g.n_node++] = s;
    b.nodes[b.g.n_node++] = node("Identity", "id1", "a", NULL, "a2");
    b.nodes[b.g.n_node++] = node("Dropout", "drop", "a2", NULL, "a3");
    b.nodes[b.g.n_node++] = node("TAdd", "fold_me", "c1", "c2", "c3");      /* constant */
    b.nodes[b.g.n_node++] = node("TAdd", "add", "a3", "c3", "sum");
    b.nodes[b.g.n_node++] = node("Identity", "id_out", "sum", NULL, "y");  /* y is the output */
    b.nodes[b.g.n_node++] = node("TScale", "dead", "x", NULL, "unused");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    size_t len;
    void *buf = gb_pack(&b, &len);
    g_graph *g = NULL;
    int rc = onnx_import(buf, len, NULL, &g);
    CHECK(rc == 0 && g->n_nodes == 7, "imported 7 nodes");
    if (!rc) rc = graph_optimize(g);
    CHECK(rc == 0, "optimised: %d", rc);
    if (!rc) {
        int y = g_tensor_find(g, "y"), c3 = g_tensor_find(g, "c3");
        CHECK(g->n_nodes == 2, "identities, dropout, the dead node and the constant add are gone: "
              "%d nodes left", g->n_nodes);
        CHECK(y >= 0 && g->t[y].producer >= 0 && !strcmp(g->nodes[g->t[y].producer].name, "add"),
              "the output is written by 'add' directly");
        CHECK(c3 >= 0 && g->t[c3].kind == G_TK_CONST && g->t[c3].data &&
              ((const float *)g->t[c3].data)[5] == 3.0f, "c1 + c2 folded to a constant");
        CHECK(g_tensor_find(g, "c1") >= 0 && !g->t[g_tensor_find(g, "c1")].data,
              "inputs of the fold are dropped once nobody reads them");
        CHECK(graph_is_static(g), "static");
    }
    g_graph_free(g);
    eng_model *m = NULL;
    rc = load(buf, len, NULL, &m);
    if (!rc) {
        CHECK(eng_weight_size(m) == 64 + 64, "weights: folded c3 and the packed scale only (%zu)",
              eng_weight_size(m));
        float x[6] = { 1, 2, 3, 4, 5, 6 }, yv[6];
        k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = 24 };
        k_tensor out = { .data = yv, .nbytes = 24 };
        rc = run(m, NULL, &in, 1, &out, 1, NULL);
        CHECK(rc == 0 && yv[0] == 5 && yv[5] == 15, "optimised model computes: %g %g", yv[0], yv[5]);
        eng_free(m);
    }
    T_free_all();
}

/* A constant read only through packed copies takes no room of its own. */
static void test_packed_only_constant(void)
{
    gb b;
    gb_init(&b);
    static const float w[6] = { 1, 2, 3, 4, 5, 6 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.inits[b.g.n_initializer++] = tensor("w", 2, D23, w, 6);
    b.nodes[b.g.n_node++] = node("TMulW", "mul1", "x", "w", "a");
    b.nodes[b.g.n_node++] = node("TMulW", "mul2", "a", "w", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    size_t len;
    void *buf = gb_pack(&b, &len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "packed-only model loads: %s", g_msg);
    if (!rc) {
        CHECK(eng_weight_size(m) == 2 * 64, "only the two packed copies of w are kept: %zu",
              eng_weight_size(m));
        float x[6] = { 1, 1, 1, 1, 1, 1 }, y[6];
        k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = 24 };
        k_tensor out = { .data = y, .nbytes = 24 };
        rc = run(m, NULL, &in, 1, &out, 1, NULL);
        CHECK(rc == 0 && y[0] == 1 && y[5] == 36, "computes from the packed copies: %g %g", y[0], y[5]);
        eng_free(m);
    }
    T_free_all();
}

/* ---------------- executor ---------------- */

static void test_static_run(void)
{
    size_t len;
    void *buf = model_basic(&len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "basic model loads (%d): %s", rc, g_msg);
    if (rc) { T_free_all(); return; }
    CHECK(eng_is_static(m), "basic model is static");
    CHECK(eng_num_inputs(m) == 1 && eng_num_outputs(m) == 1, "one input, one output");
    const eng_io *io = eng_input(m, 0);
    CHECK(io && !strcmp(io->name, "x") && io->nbytes == 24 && io->dtype == G_F32, "input desc");
    /* weights: w (24 B -> 64) + packed k (4 B -> 64) */
    CHECK(eng_weight_size(m) == 128, "weight size %zu", eng_weight_size(m));
    void *w = aligned_alloc(64, 128), *work = aligned_alloc(64, eng_work_size(m) + 64);
    rc = eng_bind_weights(m, w);
    CHECK(rc == 0, "bind weights");
    CHECK(eng_bind_weights(m, w) != 0, "binding twice is refused");
    float x[6] = { 1, -1, 2, -2, 3, -3 }, y[6];
    k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = sizeof x };
    for (int r = 0; r < 3; r++) {
        k_tensor out = { .data = y, .nbytes = sizeof y };
        memset(y, 0, sizeof y);
        rc = run(m, work, &in, 1, &out, 1, NULL);
        CHECK(rc == 0 && y[0] == 3 && y[1] == 0 && y[5] == 0 && y[4] == 11,
              "run %d: y = %g %g %g %g %g %g (%s)", r, y[0], y[1], y[2], y[3], y[4], y[5],
              rc ? g_msg : "");
        CHECK(out.shape.rank == 2 && out.shape.d[1] == 3 && out.nbytes == 24, "output shape");
    }
    /* input checks */
    k_tensor bad = in;
    bad.dtype = G_I32;
    k_tensor out = { .data = y, .nbytes = sizeof y };
    CHECK(run(m, work, &bad, 1, &out, 1, NULL) == ACL_ERROR_INVALID_PARAM &&
          msg_has("input 0 'x'") , "wrong dtype refused naming the input");
    bad = in;
    bad.shape.d[1] = 4;
    CHECK(run(m, work, &bad, 1, &out, 1, NULL) != 0 && msg_has("[2,4]"),
          "wrong shape refused with the shapes");
    bad = in;
    bad.nbytes = 8;
    CHECK(run(m, work, &bad, 1, &out, 1, NULL) != 0 && msg_has("24 bytes"),
          "short input buffer refused");
    k_tensor small = { .data = y, .nbytes = 4 };
    CHECK(run(m, work, &in, 1, &small, 1, NULL) != 0 && msg_has("output 0"),
          "short output buffer refused");
    CHECK(run(m, (char *)work + 8, &in, 1, &out, 1, NULL) == ACL_ERROR_MEMORY_ADDRESS_UNALIGNED,
          "unaligned work refused");
    eng_free(m);
    free(w);
    free(work);
    T_free_all();
}

static void *test_alloc(void *ctx, size_t n) { (void)ctx; return malloc(n ? n : 1); }

static void test_dynamic(void)
{
    /* x[N,3] -> TAdd(x, x) -> a -> TPositives -> y[?] ; also z = TScale(x) */
    gb b;
    gb_init(&b);
    static const int64_t dn[2] = { -1, 3 }, dq[1] = { -1 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, dn, "N");
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "x", "a");
    b.nodes[b.g.n_node++] = node("TPositives", "pos", "a", NULL, "y");
    Onnx__NodeProto *s = node("TScale", "scale", "x", NULL, "z");
    node_attr_f(s, "k", -1.0f);
    b.nodes[b.g.n_node++] = s;
    b.outs[b.g.n_output++] = vi("y", 1, 1, dq, "Q");
    b.outs[b.g.n_output++] = vi("z", 1, 2, dn, "N");
    size_t len;
    void *buf = gb_pack(&b, &len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "dynamic model loads (%d): %s", rc, g_msg);
    if (rc) { T_free_all(); return; }
    CHECK(!eng_is_static(m) && eng_work_size(m) == 0, "dynamic model reported as such");
    CHECK(eng_input(m, 0)->shape.d[0] == -1 && eng_input(m, 0)->nbytes == 0, "symbolic dim is -1");
    for (int r = 1; r <= 3; r++) {
        float x[9];
        for (int i = 0; i < 3 * r; i++) x[i] = (i % 2) ? (float)i : -(float)i;
        k_tensor in = { .dtype = G_F32, .shape = { 2, { r, 3 } }, .data = x, .nbytes = sizeof x };
        k_tensor out[2] = { { 0 } };
        float z[9];
        out[1].data = z;
        out[1].nbytes = sizeof z;
        rc = run(m, NULL, &in, 1, out, 2, NULL);
        CHECK(rc != 0 && msg_has("no allocator"), "output without buffer or allocator refused");
        out[0].data = NULL;
        rc = run(m, NULL, &in, 1, out, 2, test_alloc);
        int npos = (3 * r) / 2;
        CHECK(rc == 0 && out[0].shape.rank == 1 && out[0].shape.d[0] == npos,
              "r=%d: positives count %lld, expected %d (%s)", r,
              (long long)out[0].shape.d[0], npos, rc ? g_msg : "");
        if (!rc) {
            const float *y = out[0].data;
            CHECK(y[0] == 2.0f && out[1].shape.d[0] == r && z[1] == -1.0f && z[2] == 2.0f,
                  "r=%d values y0=%g z1=%g z2=%g", r, y[0], z[1], z[2]);
        }
        free(out[0].data);
    }
    eng_free(m);
    T_free_all();
}

/* Pinning a symbolic input dim at load makes the plan static. */
/* A description (aclmdlGetDescFrom*) knows the inputs and outputs as a load
 * does, but nothing is optimised, planned or packed, and it cannot run. */
static void test_describe(void)
{
    size_t len;
    void *buf = model_basic(&len);
    eng_model *d = NULL, *m = NULL;
    eng_opts o = { .threads = 1 };
    int rc = eng_describe(buf, len, &o, &d);
    grab_msg();
    CHECK(rc == 0 && d, "basic model described (%d): %s", rc, g_msg);
    CHECK(load(buf, len, NULL, &m) == 0 && m, "basic model loads: %s", g_msg);
    if (d && m) {
        CHECK(eng_num_inputs(d) == eng_num_inputs(m) && eng_num_outputs(d) == eng_num_outputs(m),
              "same I/O counts");
        const eng_io *a = eng_output(d, 0), *b = eng_output(m, 0);
        CHECK(a && b && !strcmp(a->name, b->name) && a->dtype == b->dtype && a->nbytes == b->nbytes &&
              g_shape_eq(&a->shape, &b->shape), "the output as a load reports it");
        CHECK(eng_weight_size(m) > 0 && eng_weight_size(d) == 0 && eng_work_size(d) == 0,
              "nothing planned or packed: weights %zu, work %zu", eng_weight_size(d), eng_work_size(d));
        CHECK(eng_bind_weights(d, NULL) == ACL_ERROR_INVALID_PARAM, "a description cannot be bound");
    }
    eng_free(d);
    eng_free(m);
    T_free_all();
}

static void test_fixed_shapes(void)
{
    gb b;
    gb_init(&b);
    static const int64_t dn[2] = { -1, 3 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, dn, "N");
    Onnx__NodeProto *s = node("TScale", "scale", "x", NULL, "y");
    node_attr_f(s, "k", 4.0f);
    b.nodes[b.g.n_node++] = s;
    b.outs[b.g.n_output++] = vi("y", 1, 2, dn, "N");
    size_t len;
    void *buf = gb_pack(&b, &len);
    const char *names[1] = { "x" };
    g_shape fix = { 2, { 5, 3 } }, bad = { 2, { 5, 4 } };
    eng_opts o = { .threads = 1, .n_fix = 1, .fix_names = names, .fix_shapes = &fix };
    eng_model *m = NULL;
    int rc = eng_load(buf, len, &o, &m);
    grab_msg();
    CHECK(rc == 0 && eng_is_static(m) && eng_input(m, 0)->nbytes == 60 &&
          eng_output(m, 0)->shape.d[0] == 5, "pinned input gives a static plan (%s)", g_msg);
    if (!rc) {
        float x[15], y[15];
        for (int i = 0; i < 15; i++) x[i] = (float)i;
        k_tensor in = { .dtype = G_F32, .shape = { 2, { 5, 3 } }, .data = x, .nbytes = sizeof x };
        k_tensor out = { .data = y, .nbytes = sizeof y };
        rc = run(m, NULL, &in, 1, &out, 1, NULL);
        CHECK(rc == 0 && y[14] == 56, "pinned model runs: y[14] = %g", y[14]);
        in.shape.d[0] = 4;
        CHECK(run(m, NULL, &in, 1, &out, 1, NULL) != 0 && msg_has("[4,3]") && msg_has("[5,3]"),
              "a different batch is refused with both shapes");
        eng_free(m);
    }
    o.fix_shapes = &bad;
    CHECK(eng_load(buf, len, &o, &m) == ACL_ERROR_INVALID_PARAM, "contradicting pin refused");
    grab_msg();
    CHECK(msg_has("contradicts"), "message says so");
    names[0] = "nope";
    o.fix_shapes = &fix;
    CHECK(eng_load(buf, len, &o, &m) == ACL_ERROR_INVALID_PARAM, "pin of an unknown input refused");
    grab_msg();
    CHECK(msg_has("'nope'"), "message names it");
    T_free_all();
}

static void test_output_is_input_or_const(void)
{
    gb b;
    gb_init(&b);
    static const float c[6] = { 9, 8, 7, 6, 5, 4 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.inits[b.g.n_initializer++] = tensor("c", 2, D23, c, 6);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "c", "y");
    b.outs[b.g.n_output++] = vi("x", 1, 2, D23, NULL);
    b.outs[b.g.n_output++] = vi("c", 1, 2, D23, NULL);
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    size_t len;
    void *buf = gb_pack(&b, &len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "model with pass-through outputs loads: %s", rc ? g_msg : "");
    if (!rc) {
        float x[6] = { 1, 1, 1, 1, 1, 1 }, o[4][6];
        k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = sizeof x };
        k_tensor out[4];
        for (int i = 0; i < 4; i++) out[i] = (k_tensor){ .data = o[i], .nbytes = 24 };
        rc = run(m, NULL, &in, 1, out, 4, NULL);
        CHECK(rc == 0 && o[0][0] == 1 && o[1][0] == 9 && o[2][5] == 5 && o[3][5] == 5,
              "pass-through outputs: %g %g %g %g (%s)", o[0][0], o[1][0], o[2][5], o[3][5],
              rc ? g_msg : "");
        eng_free(m);
    }
    T_free_all();
}

/* ---------------- control flow with captured outer values ---------------- */

static gb *gb_new(void)
{
    gb *b = T(sizeof *b);
    gb_init(b);
    return b;
}

/* y = If(c) { TAdd(x, x) } else { TScale(x, -1) }: outer x captured by both
 * branches, static shapes, so the If runs inside the static plan. */
static void test_if_captures(void)
{
    static const int64_t sc[1] = { 0 };
    gb *tb = gb_new(), *eb = gb_new(), b;
    tb->nodes[tb->g.n_node++] = node("TAdd", "then_add", "x", "x", "t_out");
    tb->outs[tb->g.n_output++] = vi("t_out", 1, 2, D23, NULL);
    Onnx__NodeProto *s = node("TScale", "else_scale", "x", NULL, "e_out");
    node_attr_f(s, "k", -1.0f);
    eb->nodes[eb->g.n_node++] = s;
    eb->outs[eb->g.n_output++] = vi("e_out", 1, 2, D23, NULL);
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("c", 9, 0, sc, NULL);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    const char *ins[1] = { "c" }, *outs[1] = { "y" };
    Onnx__NodeProto *n = nodev("If", "if", 1, ins, 1, outs);
    node_attr_g(n, "then_branch", gb_graph(tb));
    node_attr_g(n, "else_branch", gb_graph(eb));
    b.nodes[b.g.n_node++] = n;
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    size_t len;
    void *buf = gb_pack(&b, &len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "If with captures loads: %s", g_msg);
    if (!rc) {
        CHECK(eng_is_static(m), "If with equal static branch shapes keeps the model static");
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6];
        for (int c = 0; c < 2; c++) {
            unsigned char cv = (unsigned char)c;
            k_tensor in[2] = { { .dtype = G_BOOL, .shape = { 0 }, .data = &cv, .nbytes = 1 },
                               { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = 24 } };
            k_tensor out = { .data = y, .nbytes = sizeof y };
            rc = run(m, NULL, in, 2, &out, 1, NULL);
            float want = c ? 12.0f : -6.0f;
            CHECK(rc == 0 && y[5] == want, "If(cond=%d): y[5] = %g, expected %g (%s)", c, y[5], want,
                  rc ? g_msg : "");
        }
        eng_free(m);
    }
    T_free_all();
}

/* Loop(M=3, cond=true, y0): body y = TAdd(y, w) with outer w captured, and an
 * If inside the body that captures the outer-outer x; scan output stacks y. */
static void test_loop_nested_captures(void)
{
    static const int64_t sc[1] = { 0 }, d2[1] = { 2 };
    gb *body = gb_new(), *tb = gb_new(), *eb = gb_new(), b;
    /* inner If: then TAdd(y_in, x) else y_in (x from the main graph) */
    tb->nodes[tb->g.n_node++] = node("TAdd", "in_then", "y_in", "x", "it");
    tb->outs[tb->g.n_output++] = vi("it", 1, 1, d2, NULL);
    eb->nodes[eb->g.n_node++] = node("TAdd", "in_else", "y_in", "w", "ie");
    eb->outs[eb->g.n_output++] = vi("ie", 1, 1, d2, NULL);
    body->ins[body->g.n_input++] = vi("i", 7, 0, sc, NULL);
    body->ins[body->g.n_input++] = vi("cond_in", 9, 0, sc, NULL);
    body->ins[body->g.n_input++] = vi("y_in", 1, 1, d2, NULL);
    const char *iins[1] = { "cond_in" }, *iouts[1] = { "y_if" };
    Onnx__NodeProto *inner = nodev("If", "inner_if", 1, iins, 1, iouts);
    node_attr_g(inner, "then_branch", gb_graph(tb));
    node_attr_g(inner, "else_branch", gb_graph(eb));
    body->nodes[body->g.n_node++] = inner;
    body->nodes[body->g.n_node++] = node("TAdd", "body_add", "y_if", "w", "y_out");
    body->nodes[body->g.n_node++] = node("Identity", "pass_cond", "cond_in", NULL, "cond_out");
    body->outs[body->g.n_output++] = vi("cond_out", 9, 0, sc, NULL);
    body->outs[body->g.n_output++] = vi("y_out", 1, 1, d2, NULL);
    body->outs[body->g.n_output++] = vi("y_out", 1, 1, d2, NULL);
    gb_init(&b);
    static const float w[2] = { 1, 10 };
    b.ins[b.g.n_input++] = vi("M", 7, 0, sc, NULL);
    b.ins[b.g.n_input++] = vi("cond", 9, 0, sc, NULL);
    b.ins[b.g.n_input++] = vi("y0", 1, 1, d2, NULL);
    b.ins[b.g.n_input++] = vi("x", 1, 1, d2, NULL);
    b.inits[b.g.n_initializer++] = tensor("w", 1, d2, w, 2);
    const char *ins[3] = { "M", "cond", "y0" }, *outs[2] = { "y_final", "y_all" };
    Onnx__NodeProto *n = nodev("Loop", "loop", 3, ins, 2, outs);
    node_attr_g(n, "body", gb_graph(body));
    b.nodes[b.g.n_node++] = n;
    b.outs[b.g.n_output++] = vi("y_final", 1, 1, d2, NULL);
    static const int64_t dyn2[2] = { -1, 2 };
    b.outs[b.g.n_output++] = vi("y_all", 1, 2, dyn2, "iters");
    size_t len;
    void *buf = gb_pack(&b, &len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "Loop with nested captures loads: %s", g_msg);
    if (!rc) {
        int64_t M = 3;
        unsigned char cond = 1;
        float y0[2] = { 0, 0 }, x[2] = { 100, 1000 }, yf[2], ya[8];
        k_tensor in[4] = { { .dtype = G_I64, .shape = { 0 }, .data = &M, .nbytes = 8 },
                           { .dtype = G_BOOL, .shape = { 0 }, .data = &cond, .nbytes = 1 },
                           { .dtype = G_F32, .shape = { 1, { 2 } }, .data = y0, .nbytes = 8 },
                           { .dtype = G_F32, .shape = { 1, { 2 } }, .data = x, .nbytes = 8 } };
        k_tensor out[2] = { { .data = yf, .nbytes = sizeof yf }, { .data = ya, .nbytes = sizeof ya } };
        rc = run(m, NULL, in, 4, out, 2, NULL);
        /* each step: y += x + w = (101, 1010) */
        CHECK(rc == 0 && yf[0] == 303 && yf[1] == 3030, "Loop final y = %g %g (%s)", yf[0], yf[1],
              rc ? g_msg : "");
        CHECK(rc == 0 && out[1].shape.rank == 2 && out[1].shape.d[0] == 3 && ya[2] == 202 && ya[5] == 3030,
              "Loop scan output [%lld,%lld] %g %g", (long long)out[1].shape.d[0],
              (long long)out[1].shape.d[1], ya[2], ya[5]);
        cond = 0;   /* no iteration: y_final = y0, y_all is [0,2] */
        y0[0] = 7;
        rc = run(m, NULL, in, 4, out, 2, NULL);
        CHECK(rc == 0 && yf[0] == 7 && out[1].shape.d[0] == 0, "Loop with cond=false runs zero times");
        eng_free(m);
    }
    T_free_all();
}

/* ---------------- model-local functions ---------------- */

static Onnx__FunctionProto *function(const char *name, int nin, const char *const *ins, int nout,
                                     const char *const *outs, int nn, Onnx__NodeProto **nodes)
{
    Onnx__FunctionProto *f = T(sizeof *f);
    onnx__function_proto__init(f);
    f->name = S(name);
    f->domain = S("local");
    f->input = T((size_t)nin * sizeof(char *));
    for (int i = 0; i < nin; i++) f->input[f->n_input++] = S(ins[i]);
    f->output = T((size_t)nout * sizeof(char *));
    for (int i = 0; i < nout; i++) f->output[f->n_output++] = S(outs[i]);
    f->node = T((size_t)nn * sizeof *f->node);
    for (int i = 0; i < nn; i++) f->node[f->n_node++] = nodes[i];
    return f;
}

static void *pack_with_functions(gb *b, int nf, Onnx__FunctionProto **fs, size_t *len)
{
    gb_graph(b);
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.graph = &b->g;
    Onnx__OperatorSetIdProto o[3], *ops[3] = { &o[0], &o[1], &o[2] };
    const char *doms[3] = { "", "openacl.test", "local" };
    for (int i = 0; i < 3; i++) {
        onnx__operator_set_id_proto__init(&o[i]);
        o[i].domain = S(doms[i]);
        o[i].has_version = 1;
        o[i].version = i ? 1 : 13;
    }
    m.n_opset_import = 3;
    m.opset_import = ops;
    m.n_functions = (size_t)nf;
    m.functions = fs;
    *len = onnx__model_proto__get_packed_size(&m);
    void *buf = T(*len);
    onnx__model_proto__pack(&m, buf);
    return buf;
}

static void test_functions(void)
{
    /* ScaleAdd(X, Y) = TScale(X, k = caller's alpha) + Y; Outer(X) = ScaleAdd(X, X) alpha 4 */
    Onnx__NodeProto *sc = node("TScale", "scale", "X", NULL, "T");
    Onnx__AttributeProto *ra = T(sizeof *ra);
    onnx__attribute_proto__init(ra);
    ra->name = S("k");
    ra->ref_attr_name = S("alpha");
    ra->has_type = 1;
    ra->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    sc->attribute = T(sizeof *sc->attribute);
    sc->attribute[sc->n_attribute++] = ra;
    Onnx__NodeProto *body[2] = { sc, node("TAdd", "add", "T", "Y", "Z") };
    const char *fin[2] = { "X", "Y" }, *fout[1] = { "Z" };
    Onnx__FunctionProto *scale_add = function("ScaleAdd", 2, fin, 1, fout, 2, body);
    const char *cin[2] = { "X", "X" }, *cout[1] = { "Z" };
    Onnx__NodeProto *inner = nodev("ScaleAdd", "inner_call", 2, cin, 1, cout);
    inner->domain = S("local");
    node_attr_f(inner, "alpha", 4.0f);
    Onnx__FunctionProto *outer = function("Outer", 1, fin, 1, fout, 1, &inner);

    gb b;
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    const char *c1[2] = { "x", "x" }, *o1[1] = { "y1" }, *c2[2] = { "y1", "x" }, *o2[1] = { "y2" };
    const char *c3[1] = { "y2" }, *o3[1] = { "y" };
    Onnx__NodeProto *n1 = nodev("ScaleAdd", "call1", 2, c1, 1, o1), *n2 = nodev("ScaleAdd", "call2", 2, c2, 1, o2);
    Onnx__NodeProto *n3 = nodev("Outer", "call3", 1, c3, 1, o3);
    n1->domain = n2->domain = n3->domain = S("local");
    node_attr_f(n1, "alpha", 2.0f);
    node_attr_f(n2, "alpha", 3.0f);
    b.nodes[b.g.n_node++] = n1;
    b.nodes[b.g.n_node++] = n2;
    b.nodes[b.g.n_node++] = n3;
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    Onnx__FunctionProto *fs[2] = { scale_add, outer };
    size_t len;
    void *buf = pack_with_functions(&b, 2, fs, &len);
    eng_model *m = NULL;
    int rc = load(buf, len, NULL, &m);
    CHECK(rc == 0, "model with local functions loads: %s", g_msg);
    if (!rc) {
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6];
        k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = 24 };
        k_tensor out = { .data = y, .nbytes = 24 };
        rc = run(m, NULL, &in, 1, &out, 1, NULL);
        /* y1 = 3x, y2 = 3*y1 + x = 10x, y = 4*y2 + y2 = 50x */
        CHECK(rc == 0 && y[0] == 50 && y[5] == 300, "inlined functions compute: %g %g", y[0], y[5]);
        eng_free(m);
    }
    T_free_all();

    /* a function calling itself is refused */
    const char *rin[1] = { "X" }, *rout[1] = { "Z" };
    Onnx__NodeProto *self = nodev("Loopy", "self_call", 1, rin, 1, rout);
    self->domain = S("local");
    Onnx__FunctionProto *loopy = function("Loopy", 1, rin, 1, rout, 1, &self);
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    const char *li[1] = { "x" }, *lo[1] = { "y" };
    Onnx__NodeProto *call = nodev("Loopy", "call", 1, li, 1, lo);
    call->domain = S("local");
    b.nodes[b.g.n_node++] = call;
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = pack_with_functions(&b, 1, &loopy, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("Loopy") && msg_has("deep"),
          "recursive function refused");
    T_free_all();
}

/* ---------------- models on several threads ---------------- */

typedef struct conc_arg { const void *buf; size_t len; int ok; } conc_arg;

static void *conc_main(void *p)
{
    conc_arg *a = p;
    for (int r = 0; r < 20; r++) {
        eng_model *m = NULL;
        eng_opts o = { .threads = 1 };
        if (eng_load(a->buf, a->len, &o, &m)) return NULL;
        float x[6] = { 1, 2, 3, 4, 5, 6 }, y[6];
        k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = 24 };
        for (int k = 0; k < 5; k++) {
            k_tensor out = { .data = y, .nbytes = 24 };
            if (eng_run(m, NULL, &in, 1, &out, 1, NULL, NULL) || y[5] != 18) { eng_free(m); return NULL; }
        }
        eng_free(m);
    }
    a->ok = 1;
    return NULL;
}

/* Loads and runs of different models on different threads share nothing. */
static void test_concurrent_models(void)
{
    size_t len;
    void *buf = model_basic(&len);
    conc_arg a[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        a[i] = (conc_arg){ buf, len, 0 };
        pthread_create(&th[i], NULL, conc_main, &a[i]);
    }
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    CHECK(a[0].ok && a[1].ok && a[2].ok, "three threads loading and running models");
    T_free_all();
}

/* ---------------- importer refusals ---------------- */

static void test_truncated_and_garbage(void)
{
    size_t len;
    unsigned char *buf = model_basic(&len);
    eng_model *m = NULL;
    int ok_all = 1;
    for (size_t l = 0; l < len; l++) {
        int rc = load(buf, l, NULL, &m);
        if (rc == 0) { ok_all = 0; printf("  prefix of %zu/%zu bytes loaded\n", l, len); eng_free(m); }
        aclGetRecentErrMsg();
    }
    CHECK(ok_all, "every truncated prefix is refused");
    CHECK(load(buf, len, NULL, &m) == 0, "the full model loads");
    eng_free(m);
    /* garbage and bit flips: must not crash; refusals carry a message */
    unsigned char junk[512];
    for (int r = 0; r < 300; r++) {
        size_t l = 1 + rnd() % sizeof junk;
        for (size_t i = 0; i < l; i++) junk[i] = (unsigned char)rnd();
        if (load(junk, l, NULL, &m) == 0) eng_free(m);
        aclGetRecentErrMsg();
    }
    unsigned char *mut = malloc(len);
    for (int r = 0; r < 300; r++) {
        memcpy(mut, buf, len);
        for (int k = 0; k < 3; k++) mut[rnd() % len] ^= (unsigned char)(1u << (rnd() % 8));
        if (load(mut, len, NULL, &m) == 0) eng_free(m);
        aclGetRecentErrMsg();
    }
    free(mut);
    int rc = load(junk, 0, NULL, &m);
    CHECK(rc == ACL_ERROR_INVALID_PARAM, "empty buffer refused");
    /* graphs nested 100000 deep (ModelProto.graph -> node -> attribute.g -> ...)
     * must be refused before the recursive protobuf parser sees them */
    {
        size_t depth = 100000, cap = depth * 16 + 64, pos = cap;
        unsigned char *deep = malloc(cap);
        size_t inner = 0;   /* bytes of the innermost message */
        /* build from the inside out: each level wraps the previous bytes */
        for (size_t lvl = 0; lvl < depth * 3; lvl++) {
            static const unsigned char fields[3] = { (6 << 3) | 2, (5 << 3) | 2, (1 << 3) | 2 };
            unsigned char hdr[12];
            size_t hl = 0, v = inner;
            hdr[hl++] = fields[lvl % 3];   /* attr.g, node.attribute, graph.node */
            do { unsigned char b = v & 0x7f; v >>= 7; hdr[hl++] = (unsigned char)(b | (v ? 0x80 : 0)); } while (v);
            if (pos < hl + 16) break;
            pos -= hl;
            memcpy(deep + pos, hdr, hl);
            inner += hl;
        }
        unsigned char hdr[12];
        size_t hl = 0, v = inner;
        hdr[hl++] = (7 << 3) | 2;          /* ModelProto.graph */
        do { unsigned char b = v & 0x7f; v >>= 7; hdr[hl++] = (unsigned char)(b | (v ? 0x80 : 0)); } while (v);
        pos -= hl;
        memcpy(deep + pos, hdr, hl);
        rc = load(deep + pos, cap - pos, NULL, &m);
        CHECK(rc == ACL_ERROR_PARSE_MODEL && msg_has("levels deep"), "deeply nested graphs refused");
        free(deep);
    }
    static const unsigned char text[] = "this is not an onnx model at all, just some text";
    rc = load(text, sizeof text, NULL, &m);
    CHECK(rc != 0, "text refused");
    CHECK(rc != 0 && msg_has("ONNX"), "message says what failed");
    T_free_all();
}

static void test_graph_errors(void)
{
    size_t len;
    void *buf;
    eng_model *m = NULL;
    gb b;

    /* cycle: a = TAdd(x, c), c = TAdd(a, x) */
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.nodes[b.g.n_node++] = node("TAdd", "n_a", "x", "c", "a");
    b.nodes[b.g.n_node++] = node("TAdd", "n_c", "a", "x", "c");
    b.outs[b.g.n_output++] = vi("c", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("cycle") &&
          (msg_has("n_a") || msg_has("n_c")), "cycle refused naming a node on it");
    T_free_all();

    /* missing initializer / unknown input name */
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "w_missing", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("w_missing") &&
          msg_has("'add'"), "unknown input refused naming the tensor and node");
    T_free_all();

    /* initializer without data */
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.inits[b.g.n_initializer++] = tensor("w", 2, D23, NULL, 0);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "w", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("'w'") && msg_has("no raw_data"),
          "initializer without data refused");
    T_free_all();

    /* raw_data length mismatch */
    gb_init(&b);
    static const float w4[4] = { 1, 2, 3, 4 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.inits[b.g.n_initializer++] = tensor("w", 2, D23, w4, 4);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "w", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("16 bytes of raw_data, expected 24"),
          "raw_data size mismatch refused");
    T_free_all();

    /* dims overflow */
    gb_init(&b);
    static const int64_t huge[3] = { (int64_t)1 << 40, (int64_t)1 << 40, 4 };
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.inits[b.g.n_initializer++] = tensor("w", 3, huge, w4, 4);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "w", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_MODEL_SIZE_INVALID && msg_has("'w'"),
          "overflowing dims refused before allocating");
    T_free_all();

    /* an output the operator requires left unnamed: TopK without its
     * indices (a trailing empty name: dropped), LayerNormalization and Relu
     * without Y; LSTM may leave Y out */
    static const struct { const char *op; int nout; const char *outs[3]; int slot; } req[] = {
        { "TopK", 2, { "y", "" }, 1 }, { "LayerNormalization", 2, { "", "y" }, 0 },
        { "Relu", 2, { "", "y" }, 0 }, { "DynamicQuantizeLinear", 3, { "y", "", "z" }, 1 },
    };
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        static const char *const ins[2] = { "x", "k" };
        char slot[32];
        gb_init(&b);
        b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
        b.ins[b.g.n_input++] = vi("k", 7, 1, D23, NULL);
        b.nodes[b.g.n_node] = nodev(req[i].op, "needy", 2, ins, req[i].nout, req[i].outs);
        b.nodes[b.g.n_node++]->domain = S("");   /* nodev puts T* ops in the test domain */
        b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
        buf = gb_pack(&b, &len);
        snprintf(slot, sizeof slot, "output %d", req[i].slot);
        CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("'needy'") && msg_has(slot) &&
                  msg_has("requires"),
              "%s with a required output left unnamed refused", req[i].op);
        T_free_all();
    }

    /* more outputs than the operator has: the second was never written
     * and failed the run as an internal error */
    {
        static const char *const x1[1] = { "x" }, *const yz[2] = { "y", "z" };
        gb_init(&b);
        b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
        b.nodes[b.g.n_node++] = nodev("Relu", "greedy", 1, x1, 2, yz);
        b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
        b.outs[b.g.n_output++] = vi("z", 1, 2, D23, NULL);
        buf = gb_pack(&b, &len);
        CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("'greedy'") && msg_has("lists 2 outputs"),
              "Relu with two outputs refused at load");
        T_free_all();
    }

    /* Shape and Size without their input (an empty name, dropped as
     * trailing) used to load and answer an empty shape */
    static const char *const shape_ops[2] = { "Shape", "Size" };
    for (int i = 0; i < 2; i++) {
        static const char *const none[1] = { "" }, *const y[1] = { "y" };
        gb_init(&b);
        b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
        b.nodes[b.g.n_node++] = nodev(shape_ops[i], "blind", 1, none, 1, y);
        b.outs[b.g.n_output++] = vi("y", 7, 1, D23, NULL);
        buf = gb_pack(&b, &len);
        CHECK(load(buf, len, NULL, &m) == ACL_ERROR_INVALID_PARAM && msg_has("'blind'") && msg_has("expects 1 input"),
              "%s without its input refused", shape_ops[i]);
        T_free_all();
    }

    /* duplicate producer */
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.nodes[b.g.n_node++] = node("TAdd", "first", "x", "x", "y");
    b.nodes[b.g.n_node++] = node("TAdd", "second", "x", "x", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("produced twice") &&
          msg_has("first") && msg_has("second"), "duplicate producer refused naming both");
    T_free_all();

    /* unsupported ops: listed together */
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.nodes[b.g.n_node++] = node("NoSuchOpA", "bad_one", "x", NULL, "a");
    b.nodes[b.g.n_node++] = node("NoSuchOpB", "bad_two", "a", NULL, "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_FEATURE_UNSUPPORTED && msg_has("2 nodes") &&
          msg_has("'bad_one' (NoSuchOpA") && msg_has("'bad_two' (NoSuchOpB"),
          "unsupported ops listed in one error");
    T_free_all();

    /* opset out of range */
    for (int k = 0; k < 2; k++) {
        gb_init(&b);
        b.opset = k ? 22 : 0;
        b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
        b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "x", "y");
        b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
        buf = gb_pack(&b, &len);
        CHECK(load(buf, len, NULL, &m) == ACL_ERROR_FEATURE_UNSUPPORTED && msg_has(k ? "opset 22" : "opset 0;"),
              "opset %d refused naming it", k ? 22 : 0);
        T_free_all();
    }

    /* an input without an element type; one declaring an absurd shape */
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 0, 2, D23, NULL);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "x", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("no element type"),
          "input without element type refused");
    T_free_all();
    gb_init(&b);
    static const int64_t big[3] = { (int64_t)1 << 30, (int64_t)1 << 30, 16 };
    b.ins[b.g.n_input++] = vi("x", 1, 3, big, NULL);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "x", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 3, big, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_MODEL_SIZE_INVALID && msg_has("more than"),
          "input declaring an absurd shape refused");
    T_free_all();

    /* an output nobody produces */
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "x", "y");
    b.outs[b.g.n_output++] = vi("nowhere", 1, 2, D23, NULL);
    buf = gb_pack(&b, &len);
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_PARSE_MODEL && msg_has("nowhere"),
          "unknown output refused");
    T_free_all();
}

/* External data: a model whose initializer "w" lives in a file. */
static void *model_external(const char *location, const char *offset, size_t *len)
{
    gb b;
    gb_init(&b);
    b.ins[b.g.n_input++] = vi("x", 1, 2, D23, NULL);
    Onnx__TensorProto *t = tensor("w", 2, D23, NULL, 0);
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    t->external_data = T(2 * sizeof *t->external_data);
    Onnx__StringStringEntryProto *e = T(sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = S("location");
    e->value = S(location);
    t->external_data[t->n_external_data++] = e;
    if (offset) {
        e = T(sizeof *e);
        onnx__string_string_entry_proto__init(e);
        e->key = S("offset");
        e->value = S(offset);
        t->external_data[t->n_external_data++] = e;
    }
    b.inits[b.g.n_initializer++] = t;
    b.nodes[b.g.n_node++] = node("TAdd", "add", "x", "w", "y");
    b.outs[b.g.n_output++] = vi("y", 1, 2, D23, NULL);
    return gb_pack(&b, len);
}

static void test_external_data(void)
{
    char dir[] = "/tmp/oa_eng_ext_XXXXXX";
    char outside[] = "/tmp/oa_eng_out_XXXXXX";
    if (!mkdtemp(dir) || !mkdtemp(outside)) { CHECK(0, "mkdtemp"); return; }
    char p[512], q[512];
    float w[8] = { 0, 0, 10, 20, 30, 40, 50, 60 };   /* 8 bytes of padding, then 6 values */
    snprintf(p, sizeof p, "%s/weights.bin", dir);
    FILE *f = fopen(p, "wb");
    fwrite(w, 4, 8, f);
    fclose(f);
    snprintf(q, sizeof q, "%s/secret.bin", outside);
    f = fopen(q, "wb");
    fwrite(w, 4, 8, f);
    fclose(f);
    snprintf(p, sizeof p, "%s/sub", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/sub/link.bin", dir);
    if (symlink(q, p)) CHECK(0, "symlink");

    size_t len;
    eng_model *m = NULL;
    void *buf = model_external("weights.bin", "8", &len);
    int rc = load(buf, len, dir, &m);
    CHECK(rc == 0, "external data inside the folder loads: %s", rc ? g_msg : "");
    if (!rc) {
        float x[6] = { 1, 1, 1, 1, 1, 1 }, y[6];
        k_tensor in = { .dtype = G_F32, .shape = { 2, { 2, 3 } }, .data = x, .nbytes = sizeof x };
        k_tensor out = { .data = y, .nbytes = sizeof y };
        rc = run(m, NULL, &in, 1, &out, 1, NULL);
        CHECK(rc == 0 && y[0] == 11 && y[5] == 61, "external values used: %g %g", y[0], y[5]);
        eng_free(m);
    }
    CHECK(load(buf, len, NULL, &m) == ACL_ERROR_INVALID_FILE && msg_has("from memory"),
          "external data refused without a model folder");
    T_free_all();
    buf = model_external(q, NULL, &len);
    CHECK(load(buf, len, dir, &m) == ACL_ERROR_INVALID_FILE && msg_has("absolute"),
          "absolute external path refused");
    T_free_all();
    snprintf(p, sizeof p, "../%s/secret.bin", outside + 5);
    buf = model_external(p, NULL, &len);
    CHECK(load(buf, len, dir, &m) == ACL_ERROR_INVALID_FILE && msg_has(".."),
          "'..' in the external path refused");
    T_free_all();
    buf = model_external("sub/link.bin", NULL, &len);
    CHECK(load(buf, len, dir, &m) == ACL_ERROR_INVALID_FILE && msg_has("outside the model folder"),
          "symlink escaping the folder refused");
    T_free_all();
    buf = model_external("weights.bin", "16", &len);
    CHECK(load(buf, len, dir, &m) == ACL_ERROR_INVALID_FILE_SIZE && msg_has("needs 24"),
          "external data past the end of the file refused");
    T_free_all();
    buf = model_external("missing.bin", NULL, &len);
    CHECK(load(buf, len, dir, &m) == ACL_ERROR_INVALID_FILE && msg_has("missing.bin"),
          "missing external file refused");
    T_free_all();
    unlink(p);
    snprintf(p, sizeof p, "%s/sub/link.bin", dir); unlink(p);
    snprintf(p, sizeof p, "%s/sub", dir); rmdir(p);
    snprintf(p, sizeof p, "%s/weights.bin", dir); unlink(p);
    unlink(q);
    rmdir(dir);
    rmdir(outside);
}

int main(void)
{
    test_planner();
    test_planner_graph();
    test_view_alias();
    test_plan_check();
    test_plan_inplace();
    test_passes();
    test_dropout_ratio0();
    test_packed_only_constant();
    test_static_run();
    test_describe();
    test_dynamic();
    test_fixed_shapes();
    test_output_is_input_or_const();
    test_if_captures();
    test_loop_nested_captures();
    test_functions();
    test_concurrent_models();
    test_truncated_and_garbage();
    test_graph_errors();
    test_external_data();
    aclGetRecentErrMsg();
    free(g_allocs);
    return OA_CHECK_EXIT("engine_unit");
}
