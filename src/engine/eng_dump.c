/* Operator data dump (eng_dump.h): the per-model state, the step directory
 * and index of each run, and the .npy writer. Runs only when a dump is
 * attached; a model's executions are serialised by the API layer, so the
 * per-model state needs no lock. */
#include "engine/eng_dump.h"
#include "engine/eng_priv.h"
#include "graph/passes.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

struct eng_dump {
    eng_dump_cfg *cfg;
    const eng_dump_model *sel;
    char *base;               /* dump_path/{time}/{device}/{model}/{model_id} */
    long step;                /* runs so far */
    int failed;               /* a write failed: this model dumps no more */
    FILE *index;              /* this run's dump_index.json */
    int n_entries;
    long long ts;             /* timestamp of the node being dumped (its inputs and outputs share it) */
    int ts_task;
    char dir[4096];           /* this run's step directory */
};

eng_dump_cfg *eng_dump_cfg_new(void)
{
    eng_dump_cfg *c = calloc(1, sizeof *c);
    if (c) atomic_store((atomic_int *)&c->refs, 1);
    return c;
}

void eng_dump_cfg_ref(eng_dump_cfg *c) { if (c) atomic_fetch_add((atomic_int *)&c->refs, 1); }

void eng_dump_cfg_unref(eng_dump_cfg *c)
{
    if (!c || atomic_fetch_sub((atomic_int *)&c->refs, 1) != 1) return;
    for (int i = 0; i < c->n_models; i++) {
        for (int k = 0; k < c->models[i].n_layers; k++) free(c->models[i].layers[k]);
        free(c->models[i].layers);
        free(c->models[i].name);
    }
    free(c->models);
    free(c->path);
    free(c);
}

const eng_dump_model *eng_dump_select(const eng_dump_cfg *c, const char *model)
{
    if (!c) return NULL;
    for (int i = 0; i < c->n_models; i++)
        if (model && !strcmp(c->models[i].name, model)) return &c->models[i];
    return NULL;
}

/* CANN's dump names replace the characters a file name cannot hold. */
static void clean_name(char *dst, size_t cap, const char *s)
{
    size_t k = 0;
    for (; s && *s && k + 1 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        dst[k++] = (ch == '/' || ch == '\\' || ch == '.' || ch == ' ' || ch < 0x20 || ch == 0x7f) ? '_' : (char)ch;
    }
    dst[k] = 0;
    if (!k && cap > 1) snprintf(dst, cap, "_");
}

static void put_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static int mkdir_p(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int r = mkdir(path, 0755);
        *p = '/';
        if (r && errno != EEXIST) return -1;
    }
    return (mkdir(path, 0755) && errno != EEXIST) ? -1 : 0;
}

int eng_dump_attach(eng_model *m, eng_dump_cfg *cfg, const eng_dump_model *sel, const char *model,
                    uint32_t model_id, int device)
{
    if (!m || !cfg || !sel)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "model dump: model, configuration or selection is NULL");
    eng_dump *d = calloc(1, sizeof *d);
    char name[256];
    clean_name(name, sizeof name, model && *model ? model : "model");
    size_t n = strlen(cfg->path) + strlen(name) + 96;
    if (!d || !(d->base = malloc(n))) {
        free(d);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "model dump: out of memory attaching to model %u", model_id);
    }
    snprintf(d->base, n, "%s/%s/%d/%s/%u", cfg->path, cfg->time, device, name, model_id);
    eng_dump_cfg_ref(cfg);
    d->cfg = cfg;
    d->sel = sel;
    eng_dump_detach(m);
    m->dump = d;
    return 0;
}

void eng_dump_detach(eng_model *m)
{
    if (!m || !m->dump) return;
    eng_dump *d = m->dump;
    if (d->index) fclose(d->index);
    eng_dump_cfg_unref(d->cfg);
    free(d->base);
    free(d);
    m->dump = NULL;
}

static void dump_failed(eng_dump *d, const char *what, const char *path, int err)
{
    d->failed = 1;
    if (d->index) { fclose(d->index); d->index = NULL; }
    acl_fail(ACL_ERROR_WRITE_FILE, "model dump: %s %s failed: %s; this model's dump stops, its "
             "inference results are not affected", what, path, strerror(err ? err : EIO));
}

int eng_dump_begin(eng_dump *d)
{
    if (d->failed || atomic_load((atomic_int *)&d->cfg->stopped)) return 0;
    /* a name cut short would land elsewhere: too long is a failure */
    if ((size_t)snprintf(d->dir, sizeof d->dir, "%s/%ld", d->base, d->step++) >= sizeof d->dir - 32) {
        dump_failed(d, "creating (path too long)", d->base, ENAMETOOLONG);
        return 0;
    }
    if (mkdir_p(d->dir)) { dump_failed(d, "creating", d->dir, errno); return 0; }
    char p[4200];
    snprintf(p, sizeof p, "%s/dump_index.json", d->dir);
    if (!(d->index = fopen(p, "w"))) { dump_failed(d, "creating", p, errno); return 0; }
    d->n_entries = 0;
    d->ts_task = -1;
    fputs("{\"producer\":\"openacl\",\"files\":[", d->index);
    return 1;
}

void eng_dump_end(eng_dump *d)
{
    if (!d->index) return;
    fputs("\n]}\n", d->index);
    int bad = ferror(d->index), err = errno;
    if (fclose(d->index)) { bad = 1; err = errno; }
    d->index = NULL;
    if (bad) dump_failed(d, "writing the index of", d->dir, err);
}

static const char *npy_descr(int dt)
{
    switch (dt) {
    case G_F32: case G_BF16: return "<f4";
    case G_F64: return "<f8";
    case G_F16: return "<f2";
    case G_I8: return "|i1";
    case G_U8: return "|u1";
    case G_I16: return "<i2";
    case G_U16: return "<u2";
    case G_I32: return "<i4";
    case G_U32: return "<u4";
    case G_I64: return "<i8";
    case G_U64: return "<u8";
    case G_BOOL: return "|b1";
    default: return NULL;
    }
}

/* The logical (plain layout, bf16 widened) copy of v; NULL on OOM. */
static void *logical_copy(const k_tensor *v, size_t *nbytes)
{
    int64_t numel = g_shape_numel(&v->shape);
    size_t es = g_dtype_size(v->dtype), os = v->dtype == G_BF16 ? 4 : es;
    void *dst = malloc(numel ? (size_t)numel * os : 1);
    if (!dst) return NULL;
    *nbytes = (size_t)numel * os;
    int r = v->shape.rank;
    int64_t C = r > 1 ? v->shape.d[1] : 1, S = 1;
    for (int i = 2; i < r; i++) S *= v->shape.d[i];
    int nhwc = v->layout == G_LAYOUT_NHWC && r >= 3;
    const unsigned char *src = v->data;
    for (int64_t i = 0; i < numel; i++) {
        int64_t j = i;   /* source element of logical element i */
        if (nhwc) {
            int64_t s = i % S, c = (i / S) % C, nn = i / (S * C);
            j = (nn * S + s) * C + c;
        }
        if (v->dtype == G_BF16) {
            uint32_t b = (uint32_t)((const uint16_t *)src)[j] << 16;
            memcpy((char *)dst + (size_t)i * 4, &b, 4);
        } else {
            memcpy((char *)dst + (size_t)i * es, src + (size_t)j * es, es);
        }
    }
    return dst;
}

static int write_npy(const char *path, const char *descr, const g_shape *s, const void *data, size_t nbytes)
{
    char hdr[512], dims[320] = "";
    size_t k = 0;
    for (int i = 0; i < s->rank && k + 24 < sizeof dims; i++)
        k += (size_t)snprintf(dims + k, sizeof dims - k, "%lld,", (long long)s->d[i]);
    if (s->rank > 1 && k) dims[k - 1] = 0;   /* (2,3) but (4,) and () */
    int h = snprintf(hdr + 10, sizeof hdr - 10, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr, dims);
    int total = 10 + h + 1, pad = (64 - total % 64) % 64;
    memset(hdr + 10 + h, ' ', (size_t)pad);
    hdr[10 + h + pad] = '\n';
    int hl = h + pad + 1;
    memcpy(hdr, "\x93NUMPY\x01\x00", 8);
    hdr[8] = (char)(hl & 0xff);
    hdr[9] = (char)(hl >> 8);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int bad = fwrite(hdr, 1, (size_t)(10 + hl), f) != (size_t)(10 + hl);
    if (!bad && nbytes) bad = fwrite(data, 1, nbytes, f) != nbytes;
    if (fclose(f)) bad = 1;
    return bad ? -1 : 0;
}

static int layer_selected(const eng_dump_model *sel, const g_node *n)
{
    if (!sel->n_layers) return 1;
    const g_attr *cv = g_node_attr(n, G_COVER_ATTR);
    for (int i = 0; i < sel->n_layers; i++) {
        if (n->name && !strcmp(sel->layers[i], n->name)) return 1;
        for (int k = 0; cv && cv->type == G_AT_STRINGS && k < cv->n; k++)
            if (!strcmp(sel->layers[i], cv->strings[k])) return 1;
    }
    return 0;
}

static void index_entry(eng_dump *d, const char *file, const g_graph *g, int task, const g_node *n,
                        int outputs, int i, int t, const k_tensor *v)
{
    FILE *f = d->index;
    fprintf(f, "%s\n{\"file\":", d->n_entries++ ? "," : "");
    put_json_str(f, file);
    fputs(",\"node\":", f);
    put_json_str(f, n->name);
    fputs(",\"op_type\":", f);
    put_json_str(f, n->op_type);
    fprintf(f, ",\"task\":%d,\"io\":\"%s\",\"index\":%d,\"tensor\":", task, outputs ? "output" : "input", i);
    put_json_str(f, g->t[t].name);
    fputs(",\"dtype\":", f);
    put_json_str(f, g_dtype_name(v->dtype == G_BF16 ? G_F32 : v->dtype));
    fputs(",\"stored_dtype\":", f);
    put_json_str(f, g_dtype_name(v->dtype));
    fprintf(f, ",\"stored_layout\":\"%s\",\"shape\":[", v->layout == G_LAYOUT_NHWC ? "NHWC" : "plain");
    for (int k = 0; k < v->shape.rank; k++) fprintf(f, "%s%lld", k ? "," : "", (long long)v->shape.d[k]);
    fputs("],\"onnx_nodes\":[", f);
    const g_attr *cv = g_node_attr(n, G_COVER_ATTR);
    if (cv && cv->type == G_AT_STRINGS) {
        for (int k = 0; k < cv->n; k++) { if (k) fputc(',', f); put_json_str(f, cv->strings[k]); }
    } else {
        put_json_str(f, n->name);
    }
    fputs("]}", f);
}

void eng_dump_node(eng_dump *d, const g_graph *g, int task, const g_node *n, const k_tensor *v, int outputs)
{
    if (!d->index || !(d->cfg->mode & (outputs ? ENG_DUMP_OUTPUT : ENG_DUMP_INPUT))) return;
    if (!layer_selected(d->sel, n)) return;
    /* each part cut so the file name stays under NAME_MAX (255); the index has the full names */
    char op[64], nm[120], path[4600];
    clean_name(op, sizeof op, n->op_type);
    clean_name(nm, sizeof nm, n->name);
    if (!outputs || d->ts_task != task) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        d->ts = (long long)tv.tv_sec * 1000000 + tv.tv_usec;
        d->ts_task = task;
    }
    long long ts = d->ts;
    int cnt = outputs ? n->n_out : n->n_in;
    for (int i = 0; i < cnt; i++) {
        int t = outputs ? n->out[i] : n->in[i];
        const k_tensor *x = &v[i];
        const char *descr = npy_descr(x->dtype);
        /* weights are the model's, not data: only activations and inputs */
        if (t < 0 || g->t[t].kind == G_TK_CONST || !descr || !x->data || x->shape.rank < 0 ||
            g_shape_numel(&x->shape) < 0 || x->nbytes < k_nbytes(x))
            continue;
        size_t nb = 0;
        void *buf = logical_copy(x, &nb);
        if (!buf) { dump_failed(d, "allocating a copy for", n->name, ENOMEM); return; }
        size_t pl = (size_t)snprintf(path, sizeof path, "%s/%s.%s.%d.%lld.%s.%d.npy", d->dir, op, nm, task, ts,
                                     outputs ? "output" : "input", i);
        int bad = pl >= sizeof path ? (errno = ENAMETOOLONG, -1) : write_npy(path, descr, &x->shape, buf, nb);
        int err = errno;
        free(buf);
        if (bad) { dump_failed(d, "writing", path, err); return; }
        index_entry(d, strrchr(path, '/') + 1, g, task, n, outputs, i, t, x);
    }
}
