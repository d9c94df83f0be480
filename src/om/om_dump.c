/* A compiled model's structure as JSON (atc --mode=1): header, sections,
 * gears, inputs/outputs, and per program its nodes (op, kernel, attributes,
 * tensors) and tensors (type, shape, layout, arena offset, weight blob),
 * through the decoders of om_read.c. */
#include "om/om.h"
#include "om/program.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *precision_name(int p) { return p == OM_PREC_BF16 ? "bf16" : "fp32"; }

/* The first main-graph node carrying the bf16 mark, -1 if none. */
static int first_bf16_node(const g_graph *g)
{
    for (int i = 0; g && i < g->n_nodes; i++)
        if (graph_node_bf16(&g->nodes[i])) return i;
    return -1;
}

static cJSON *j_i64(int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    return cJSON_CreateRaw(b);
}

static cJSON *j_shape(const g_shape *s)
{
    if (s->rank < 0) return cJSON_CreateString("unknown rank");
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < s->rank; i++) cJSON_AddItemToArray(a, j_i64(s->d[i]));
    return a;
}

static const char *gear_kind_name(int k)
{
    return k == OM_GEAR_BATCH ? "dynamic_batch_size" : k == OM_GEAR_HW ? "dynamic_image_size" :
           k == OM_GEAR_DIMS ? "dynamic_dims" : "none";
}

static cJSON *j_graph(const g_graph *g, const om_rec *rec, const om_blobtab *bt, const unsigned char *borrowed);

static cJSON *j_attr(const g_attr *a)
{
    switch (a->type) {
    case G_AT_FLOAT: return cJSON_CreateNumber(a->f);
    case G_AT_INT: return j_i64(a->i);
    case G_AT_TYPE: return cJSON_CreateString(g_dtype_name((int)a->i));
    case G_AT_STRING: return cJSON_CreateString(a->s ? a->s : "");
    case G_AT_FLOATS: {
        cJSON *v = cJSON_CreateArray();
        for (int i = 0; i < a->n; i++) cJSON_AddItemToArray(v, cJSON_CreateNumber(a->floats[i]));
        return v;
    }
    case G_AT_INTS: {
        cJSON *v = cJSON_CreateArray();
        for (int i = 0; i < a->n; i++) cJSON_AddItemToArray(v, j_i64(a->ints[i]));
        return v;
    }
    case G_AT_STRINGS: {
        cJSON *v = cJSON_CreateArray();
        for (int i = 0; i < a->n; i++) cJSON_AddItemToArray(v, cJSON_CreateString(a->strings[i]));
        return v;
    }
    case G_AT_TENSOR: {
        cJSON *v = cJSON_CreateObject();
        cJSON_AddStringToObject(v, "tensor_dtype", g_dtype_name(a->t->dtype));
        cJSON_AddItemToObject(v, "shape", j_shape(&a->t->shape));
        cJSON_AddItemToObject(v, "bytes", j_i64((int64_t)a->t->nbytes));
        return v;
    }
    case G_AT_GRAPH: return j_graph(a->g, NULL, NULL, NULL);
    default: return cJSON_CreateNull();
    }
}

static cJSON *j_graph(const g_graph *g, const om_rec *rec, const om_blobtab *bt, const unsigned char *borrowed)
{
    static const char *const kinds[] = { "activation", "input", "constant" };
    cJSON *o = cJSON_CreateObject();
    cJSON *ts = cJSON_AddArrayToObject(o, "tensors");
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", x->name);
        cJSON_AddStringToObject(e, "kind", kinds[x->kind]);
        cJSON_AddStringToObject(e, "dtype", g_dtype_name(x->dtype));
        cJSON_AddItemToObject(e, "shape", j_shape(&x->shape));
        cJSON_AddStringToObject(e, "layout", x->layout == G_LAYOUT_NHWC ? "nhwc" : "plain");
        if (x->is_output) cJSON_AddBoolToObject(e, "output", 1);
        if (rec && rec->mem_offset[t] >= 0) cJSON_AddItemToObject(e, "arena_offset", j_i64(rec->mem_offset[t]));
        if (x->kind == G_TK_CONST && x->data) {
            cJSON_AddItemToObject(e, "bytes", j_i64((int64_t)x->nbytes));
            if (rec && rec->const_off[t] >= 0)
                cJSON_AddItemToObject(e, "weights_offset", j_i64(rec->const_off[t]));
            else if (borrowed && borrowed[t] && bt)
                cJSON_AddItemToObject(e, "plain_offset",
                                      j_i64((int64_t)((const unsigned char *)x->data - bt->plain)));
            else
                cJSON_AddStringToObject(e, "data", "inline");
        }
        cJSON_AddItemToArray(ts, e);
    }
    cJSON *ins = cJSON_AddArrayToObject(o, "inputs"), *outs = cJSON_AddArrayToObject(o, "outputs");
    for (int i = 0; i < g->n_inputs; i++) cJSON_AddItemToArray(ins, cJSON_CreateString(g->t[g->inputs[i]].name));
    for (int i = 0; i < g->n_outputs; i++)
        cJSON_AddItemToArray(outs, cJSON_CreateString(g->t[g->outputs[i]].name));
    cJSON *ns = cJSON_AddArrayToObject(o, "nodes");
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", n->name);
        cJSON_AddStringToObject(e, "op", n->op_type);
        cJSON_AddStringToObject(e, "domain", *n->domain ? n->domain : "ai.onnx");
        cJSON_AddNumberToObject(e, "opset", n->opset);
        if (rec && rec->impl[i]) cJSON_AddStringToObject(e, "kernel", rec->impl[i]);
        cJSON *a = cJSON_AddArrayToObject(e, "inputs"), *b = cJSON_AddArrayToObject(e, "outputs");
        for (int j = 0; j < n->n_in; j++)
            cJSON_AddItemToArray(a, n->in[j] < 0 ? cJSON_CreateNull() : cJSON_CreateString(g->t[n->in[j]].name));
        for (int j = 0; j < n->n_out; j++)
            cJSON_AddItemToArray(b, n->out[j] < 0 ? cJSON_CreateNull() : cJSON_CreateString(g->t[n->out[j]].name));
        if (n->n_attr) {
            cJSON *at = cJSON_AddObjectToObject(e, "attributes");
            for (int k = 0; k < n->n_attr; k++) cJSON_AddItemToObject(at, n->attr[k].name, j_attr(&n->attr[k]));
        }
        if (rec && rec->packed_bytes[i]) {
            cJSON_AddItemToObject(e, "packed_bytes", j_i64((int64_t)rec->packed_bytes[i]));
            if (rec->packed_off[i] >= 0) cJSON_AddItemToObject(e, "packed_offset", j_i64(rec->packed_off[i]));
        }
        if (rec && rec->scratch_bytes[i]) {
            cJSON_AddItemToObject(e, "scratch_offset", j_i64((int64_t)rec->scratch_off[i]));
            cJSON_AddItemToObject(e, "scratch_bytes", j_i64((int64_t)rec->scratch_bytes[i]));
        }
        cJSON_AddItemToArray(ns, e);
    }
    return o;
}

static cJSON *j_sections(const om_file *f)
{
    static const char *const secnames[] = { "", "info", "programs", "blobs", "weights", "plain", "sums", "exec" };
    cJSON *secs = cJSON_CreateArray();
    for (int i = 0; i < f->n_sec; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", f->sec[i].id <= OM_SEC_EXEC ? secnames[f->sec[i].id] : "?");
        cJSON_AddItemToObject(e, "offset", j_i64((int64_t)f->sec[i].off));
        cJSON_AddItemToObject(e, "bytes", j_i64((int64_t)f->sec[i].size));
        cJSON_AddStringToObject(e, "checksum", f->sec[i].flags & OM_SF_CHUNKED ? "crc32c per MiB" : "crc32c");
        cJSON_AddItemToArray(secs, e);
    }
    return secs;
}

static cJSON *j_inputs(const om_meta *meta)
{
    cJSON *ins = cJSON_CreateArray();
    for (int i = 0; i < meta->n_in; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", meta->in_names[i]);
        cJSON_AddStringToObject(e, "dtype", g_dtype_name(meta->in_dtype[i]));
        cJSON_AddItemToObject(e, "shape", j_shape(&meta->in_shape[i]));
        if (meta->has_ranges) {
            cJSON *rg = cJSON_AddArrayToObject(e, "range");
            for (int d = 0; d < meta->in_shape[i].rank; d++) {
                cJSON *p = cJSON_CreateArray();
                cJSON_AddItemToArray(p, j_i64(meta->lo[(size_t)i * G_MAX_RANK + (size_t)d]));
                cJSON_AddItemToArray(p, j_i64(meta->hi[(size_t)i * G_MAX_RANK + (size_t)d]));
                cJSON_AddItemToArray(rg, p);
            }
        }
        cJSON_AddItemToArray(ins, e);
    }
    return ins;
}

static cJSON *j_blobs(const om_blobtab *bt)
{
    cJSON *bl = cJSON_CreateArray();
    for (int i = 0; i < bt->n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "section", bt->e[i].region == OM_REGION_PLAIN ? "plain" : "weights");
        cJSON_AddItemToObject(e, "offset", j_i64((int64_t)bt->e[i].off));
        cJSON_AddItemToObject(e, "bytes", j_i64((int64_t)bt->e[i].size));
        cJSON_AddItemToArray(bl, e);
    }
    return bl;
}

int om_dump_json(const char *src, const void *image, size_t len, const char *this_abi, char **json)
{
    static const char api[] = "atc --mode=1";
    *json = NULL;
    om_file f;
    int rc = om_open(api, src, image, len, &f);
    if (rc) return rc;
    const om_section *si = om_find(&f, OM_SEC_INFO), *sp = om_find(&f, OM_SEC_PROGRAMS);
    if (!si || !sp) return acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s lacks its info or programs", api, src);
    om_meta *meta = NULL;
    int gk, ng, nv, np;
    int64_t *vals = NULL;
    if ((rc = om_read_info(api, src, f.base + si->off, (size_t)si->size, &meta, &gk, &ng, &nv, &vals, &np))) return rc;
    om_blobtab bt;
    if ((rc = om_read_blobs(api, src, &f, &bt))) { om_meta_free(meta); free(vals); return rc; }
    om_exec ex;
    if ((rc = om_read_exec(api, src, &f, np, &ex))) { free(bt.e); om_meta_free(meta); free(vals); return rc; }
    cJSON *root = cJSON_CreateObject();
    char ver[16];
    snprintf(ver, sizeof ver, "%u.%u", f.major, f.minor);
    cJSON_AddStringToObject(root, "format", "openacl compiled model");
    cJSON_AddStringToObject(root, "version", ver);
    cJSON_AddStringToObject(root, "producer", f.producer);
    cJSON_AddStringToObject(root, "kernel_abi", f.kernel_abi);
    cJSON_AddBoolToObject(root, "kernel_abi_matches_this_machine", this_abi && !strcmp(f.kernel_abi, this_abi));
    cJSON_AddItemToObject(root, "file_bytes", j_i64((int64_t)len));
    cJSON_AddItemToObject(root, "sections", j_sections(&f));
    cJSON *cmp = cJSON_AddObjectToObject(root, "compile");
    cJSON_AddStringToObject(cmp, "framework", meta->framework ? meta->framework : "");
    cJSON_AddStringToObject(cmp, "soc_version", meta->soc_version ? meta->soc_version : "");
    cJSON_AddStringToObject(cmp, "precision_mode", meta->precision_mode ? meta->precision_mode : "");
    /* the compute precision: recorded (EXEC), or for 1.0 files what the
     * node marks say (set after the programs are read) */
    cJSON *precision = cJSON_AddStringToObject(cmp, "precision", precision_name(ex.present ? ex.precision : 0));
    cJSON_AddStringToObject(cmp, "precision_source", ex.present ? "recorded" : "node marks (no execution section)");
    int any_marked = 0;
    cJSON_AddStringToObject(cmp, "input_format", meta->input_format ? meta->input_format : "");
    cJSON_AddStringToObject(cmp, "command", meta->cmdline ? meta->cmdline : "");
    cJSON *gears = cJSON_AddObjectToObject(root, "gears");
    cJSON_AddStringToObject(gears, "kind", gear_kind_name(gk));
    cJSON *gv = cJSON_AddArrayToObject(gears, "values");
    for (int g = 0; g < ng; g++) {
        cJSON *a = cJSON_CreateArray();
        for (int k = 0; k < nv; k++) cJSON_AddItemToArray(a, j_i64(vals[(size_t)g * (size_t)nv + (size_t)k]));
        cJSON_AddItemToArray(gv, a);
    }
    cJSON_AddItemToObject(root, "inputs", j_inputs(meta));
    cJSON_AddItemToObject(root, "blobs", j_blobs(&bt));
    cJSON *progs = cJSON_AddArrayToObject(root, "programs");
    om_rdctx c = { api, src, { 0 }, &bt };
    or_init(&c.r, f.base + sp->off, (size_t)sp->size);
    (void)or_u32(&c.r);
    for (int k = 0; k < np && !rc; k++) {
        uint32_t flags = or_u32(&c.r);
        uint64_t work = or_u64(&c.r);
        om_rec rec;
        memset(&rec, 0, sizeof rec);
        g_graph *g = NULL;
        unsigned char *borrowed = NULL;
        rc = c.r.bad ? om_malformed(&c, "program header") : om_read_graph(&c, 0, 1, &g, &rec, &borrowed);
        if (!rc) {
            cJSON *p = j_graph(g, &rec, &bt, borrowed);
            any_marked |= first_bf16_node(g) >= 0;
            if (ex.present && ex.n_nodes[k] != (uint32_t)g->n_nodes) {
                rc = acl_fail(ACL_ERROR_PARSE_MODEL, "%s: compiled model %s is malformed: the execution section "
                              "records %u nodes for program %d, which has %d", api, src, ex.n_nodes[k], k, g->n_nodes);
            } else if (ex.present) {
                /* the thread count each node was planned (and its weights packed) with */
                cJSON *ns = cJSON_GetObjectItemCaseSensitive(p, "nodes");
                int i = 0;
                for (cJSON *e = ns ? ns->child : NULL; e; e = e->next, i++)
                    if (ex.threads[k][i]) cJSON_AddNumberToObject(e, "planned_threads", ex.threads[k][i]);
            }
            cJSON_AddBoolToObject(p, "static", flags & 1);
            cJSON_AddItemToObject(p, "work_bytes", j_i64((int64_t)work));
            if (gk) {
                cJSON *a = cJSON_CreateArray();
                for (int v = 0; v < nv; v++) cJSON_AddItemToArray(a, j_i64(vals[(size_t)k * (size_t)nv + (size_t)v]));
                cJSON_AddItemToObject(p, "gear", a);
            }
            cJSON_AddItemToArray(progs, p);
        }
        if (g && borrowed)
            for (int t = 0; t < g->n_t; t++) if (borrowed[t]) g->t[t].data = NULL;
        g_graph_free(g);
        free(borrowed);
        om_rec_free(&rec);
    }
    if (!rc && !ex.present && any_marked) cJSON_SetValuestring(precision, precision_name(OM_PREC_BF16));
    if (!rc) {
        *json = cJSON_Print(root);
        if (!*json) rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    }
    cJSON_Delete(root);
    free(bt.e);
    free(vals);
    om_exec_free(&ex);
    om_meta_free(meta);
    return rc;
}
