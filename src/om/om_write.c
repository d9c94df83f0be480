/* The compiled-model writer (docs/om-format.md): programs described by the
 * engine (om/program.h) into the src/om container. Each program's graph as
 * the passes left it (nodes with their attributes, the kernel implementation
 * chosen, tensors with dtype, shape, layout and arena offset), its memory
 * plan, and its weights: the constants read at run time and every packed
 * area in the WEIGHTS section (identical blobs of different gears stored
 * once), the plain copies of constants that only packing reads in PLAIN. */
#include "om/om.h"
#include "om/program.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first main-graph node carrying the bf16 mark, -1 if none. */
static int first_bf16_node(const g_graph *g)
{
    for (int i = 0; g && i < g->n_nodes; i++)
        if (graph_node_bf16(&g->nodes[i])) return i;
    return -1;
}

typedef struct blobstore {
    om_buf rt, plain;
    om_bent *e;
    int n, cap;
    int oom;
} blobstore;

/* Adds a blob (deduplicated by content within its region); returns its id. */
static int blob_add(blobstore *b, int region, const void *p, size_t n)
{
    uint32_t crc = om_crc32c(0, p, n);
    om_buf *buf = region == OM_REGION_PLAIN ? &b->plain : &b->rt;
    for (int i = 0; i < b->n; i++) {
        const om_bent *e = &b->e[i];
        if (e->region == region && e->size == n && e->crc == crc && !memcmp(buf->p + e->off, p, n)) return i;
    }
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        om_bent *v = realloc(b->e, (size_t)cap * sizeof *v);
        if (!v) { b->oom = 1; return -1; }
        b->e = v;
        b->cap = cap;
    }
    ob_align(buf, OM_ALIGN);
    size_t off = buf->len;
    ob_bytes(buf, p, n);
    if (buf->oom) { b->oom = 1; return -1; }
    b->e[b->n] = (om_bent){ region, off, n, crc };
    return b->n++;
}

static void w_shape(om_buf *o, const g_shape *s)
{
    ob_i32(o, s->rank);
    for (int i = 0; i < s->rank && i < G_MAX_RANK; i++) ob_i64(o, s->d[i]);
}

static int w_graph(om_buf *o, blobstore *bs, const om_wprog *m, const g_graph *g, int depth);

static int w_attr(om_buf *o, blobstore *bs, const g_attr *a, int depth)
{
    ob_str(o, a->name);
    ob_i32(o, a->type);
    switch (a->type) {
    case G_AT_FLOAT: ob_f32(o, a->f); break;
    case G_AT_INT: case G_AT_TYPE: ob_i64(o, a->i); break;
    case G_AT_STRING: ob_blob(o, a->s, a->s ? a->slen : 0); break;
    case G_AT_FLOATS:
        ob_u32(o, (uint32_t)a->n);
        ob_bytes(o, a->floats, (size_t)a->n * sizeof(float));
        break;
    case G_AT_INTS:
        ob_u32(o, (uint32_t)a->n);
        ob_bytes(o, a->ints, (size_t)a->n * sizeof(int64_t));
        break;
    case G_AT_STRINGS:
        ob_u32(o, (uint32_t)a->n);
        for (int i = 0; i < a->n; i++) ob_blob(o, a->strings[i], a->strings[i] ? strlen(a->strings[i]) : 0);
        break;
    case G_AT_TENSOR: {
        const g_tensor *t = a->t;
        if (!t) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "compiled model: tensor attribute '%s' is empty", a->name);
        ob_str(o, t->name);
        ob_i32(o, t->dtype);
        w_shape(o, &t->shape);
        ob_blob(o, t->data, t->data ? t->nbytes : 0);
        break;
    }
    case G_AT_GRAPH:
        if (!a->g) return acl_fail(ACL_ERROR_INTERNAL_ERROR, "compiled model: graph attribute '%s' is empty", a->name);
        return w_graph(o, bs, NULL, a->g, depth + 1);
    default:
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "compiled model: attribute '%s' has type %d, which "
                        "the format cannot hold", a->name, a->type);
    }
    return 0;
}

/* m: the program when g is its main graph (constants go to blobs, the
 * plan is written); NULL for subgraphs (constants inline). */
static int w_graph(om_buf *o, blobstore *bs, const om_wprog *m, const g_graph *g, int depth)
{
    if (depth > OM_MAX_SUBGRAPH_DEPTH)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "compiled model: subgraphs nested deeper than %d",
                        OM_MAX_SUBGRAPH_DEPTH);
    ob_i32(o, g->opset);
    ob_u32(o, (uint32_t)g->n_t);
    for (int t = 0; t < g->n_t; t++) {
        const g_tensor *x = &g->t[t];
        ob_str(o, x->name);
        ob_i32(o, x->dtype);
        ob_u8(o, (unsigned)x->kind);
        ob_u8(o, (unsigned)x->layout);
        ob_u8(o, x->is_output ? 1 : 0);
        int dk = OM_DK_NONE, rt = -1, pl = -1;
        if (x->kind == G_TK_CONST && (x->dtype == G_STR || g_is_container(x->dtype)) && x->data)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "compiled model: constant '%s' of type %s cannot be "
                            "stored", x->name, g_dtype_name(x->dtype));
        if (x->kind == G_TK_CONST && m) {
            if (m->const_rt[t]) rt = blob_add(bs, OM_REGION_WEIGHTS, m->const_rt[t], x->nbytes);
            else if (m->plain_only[t] && x->data) pl = blob_add(bs, OM_REGION_PLAIN, x->data, x->nbytes);
            if (bs->oom) return acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory");
            if (rt >= 0 || pl >= 0) {
                dk = OM_DK_BLOB;
                /* a packed-only constant keeps a plain copy too, for re-packing elsewhere */
            }
        } else if (x->kind == G_TK_CONST && x->data) {
            dk = OM_DK_INLINE;
        }
        ob_u8(o, (unsigned)dk);
        w_shape(o, &x->shape);
        ob_i64(o, x->mem_offset);
        ob_u64(o, x->nbytes);
        if (dk == OM_DK_BLOB) { ob_i32(o, rt); ob_i32(o, pl); }
        if (dk == OM_DK_INLINE) ob_blob(o, x->data, x->nbytes);
    }
    ob_u32(o, (uint32_t)g->n_inputs);
    for (int i = 0; i < g->n_inputs; i++) ob_i32(o, g->inputs[i]);
    ob_u32(o, (uint32_t)g->n_outputs);
    for (int i = 0; i < g->n_outputs; i++) ob_i32(o, g->outputs[i]);
    ob_u32(o, (uint32_t)g->n_nodes);
    for (int i = 0; i < g->n_nodes; i++) {
        const g_node *n = &g->nodes[i];
        ob_str(o, n->name);
        ob_str(o, n->op_type);
        ob_str(o, n->domain);
        ob_i32(o, n->opset);
        ob_str(o, m && m->impl[i] ? m->impl[i] : "");
        ob_u32(o, (uint32_t)n->n_in);
        for (int j = 0; j < n->n_in; j++) ob_i32(o, n->in[j]);
        ob_u32(o, (uint32_t)n->n_out);
        for (int j = 0; j < n->n_out; j++) ob_i32(o, n->out[j]);
        ob_u32(o, (uint32_t)n->n_attr);
        for (int a = 0; a < n->n_attr; a++) {
            int rc = w_attr(o, bs, &n->attr[a], depth);
            if (rc) return rc;
        }
        size_t pb = 0, so = 0, sb = 0;
        int pblob = -1;
        if (m && m->is_static && m->nodes) {
            const om_node_plan *st = &m->nodes[i];
            pb = st->packed_bytes;
            so = st->scratch_off;
            sb = st->scratch_bytes;
            if (pb && st->packed) {
                pblob = blob_add(bs, OM_REGION_WEIGHTS, st->packed, pb);
                if (pblob < 0) return acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory");
            }
        }
        ob_u64(o, pb);
        ob_i32(o, pblob);
        ob_u64(o, so);
        ob_u64(o, sb);
    }
    return o->oom ? acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory") : 0;
}

static void w_io(om_buf *o, const char *name, int dtype, const g_shape *s)
{
    ob_str(o, name);
    ob_i32(o, dtype);
    w_shape(o, s);
}

int om_write(const om_write_req *req, void **image, size_t *len)
{
    *image = NULL;
    *len = 0;
    if (!req || req->n_progs < 1 || !req->progs)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "compiled model: nothing to write");
    blobstore bs;
    memset(&bs, 0, sizeof bs);
    om_buf info = {0}, progs = {0}, blobs = {0}, exec = {0};
    int rc = 0;

    /* INFO */
    ob_u32(&info, OM_INFO_VERSION);
    ob_str(&info, req->producer);
    ob_str(&info, req->soc_version);
    ob_str(&info, req->precision_mode);
    ob_str(&info, req->input_format);
    ob_str(&info, req->framework);
    ob_str(&info, req->cmdline);
    ob_u32(&info, (uint32_t)req->gear_kind);
    ob_u32(&info, (uint32_t)(req->gear_kind ? req->n_progs : 0));
    ob_u32(&info, (uint32_t)req->gear_nvals);
    if (req->gear_kind)
        for (int i = 0; i < req->n_progs * req->gear_nvals; i++) ob_i64(&info, req->gear_vals[i]);
    ob_u32(&info, (uint32_t)req->n_in);
    for (int i = 0; i < req->n_in; i++) {
        w_io(&info, req->in_names[i], req->in_dtype[i], &req->in_shape[i]);
        for (int d = 0; d < req->in_shape[i].rank; d++) {
            ob_i64(&info, req->lo ? req->lo[(size_t)i * G_MAX_RANK + (size_t)d] : 1);
            ob_i64(&info, req->hi ? req->hi[(size_t)i * G_MAX_RANK + (size_t)d] : -1);
        }
    }
    ob_u32(&info, (uint32_t)req->n_out);
    for (int i = 0; i < req->n_out; i++) w_io(&info, req->out_names[i], req->out_dtype[i], &req->out_shape[i]);
    ob_u32(&info, (uint32_t)req->n_progs);

    /* PROGRAMS */
    ob_u32(&progs, (uint32_t)req->n_progs);
    for (int k = 0; k < req->n_progs && !rc; k++) {
        const om_wprog *m = &req->progs[k];
        ob_u32(&progs, m->is_static ? 1u : 0u);
        ob_u64(&progs, m->is_static ? m->work_size : 0);
        rc = w_graph(&progs, &bs, m, m->g, 0);
        if (req->progress) req->progress(req->progress_ctx, k, req->n_progs, "writing");
    }
    /* EXEC (format 1.1): the compute precision, and per node the thread
     * count it was planned and packed with (oneDNN's weight blocking can
     * depend on it: a load that plans another count must pack again) */
    int prec = req->precision;
    if (prec != OM_PREC_FP32 && prec != OM_PREC_BF16) {
        prec = OM_PREC_FP32;
        for (int k = 0; k < req->n_progs; k++)
            if (first_bf16_node(req->progs[k].g) >= 0) prec = OM_PREC_BF16;
    }
    ob_u32(&exec, OM_EXEC_VERSION);
    ob_u32(&exec, (uint32_t)prec);
    ob_u32(&exec, (uint32_t)req->n_progs);
    for (int k = 0; k < req->n_progs && !rc; k++) {
        const om_wprog *m = &req->progs[k];
        ob_u32(&exec, (uint32_t)m->g->n_nodes);
        for (int i = 0; i < m->g->n_nodes; i++)
            ob_u32(&exec, m->is_static && m->nodes ? (uint32_t)m->nodes[i].threads : 0u);
    }
    /* BLOBS */
    ob_u32(&blobs, (uint32_t)bs.n);
    for (int i = 0; i < bs.n; i++) {
        ob_u8(&blobs, (unsigned)bs.e[i].region);
        ob_zero(&blobs, 7);
        ob_u64(&blobs, bs.e[i].off);
        ob_u64(&blobs, bs.e[i].size);
    }
    if (!rc && (info.oom || progs.oom || blobs.oom || exec.oom || bs.oom))
        rc = acl_fail(ACL_ERROR_BAD_ALLOC, "compiled model: out of memory");
    if (!rc) {
        /* EXEC is optional: a 1.0 reader skips it and runs the programs as
         * they are (the bf16 marks are node attributes) */
        om_wsection sec[6] = {
            { OM_SEC_INFO, OM_SF_REQUIRED, info.p, info.len },
            { OM_SEC_PROGRAMS, OM_SF_REQUIRED, progs.p, progs.len },
            { OM_SEC_BLOBS, OM_SF_REQUIRED, blobs.p, blobs.len },
            { OM_SEC_WEIGHTS, OM_SF_REQUIRED | OM_SF_CHUNKED, bs.rt.p, bs.rt.len },
            { OM_SEC_PLAIN, OM_SF_REQUIRED | OM_SF_CHUNKED, bs.plain.p, bs.plain.len },
            { OM_SEC_EXEC, 0, exec.p, exec.len },
        };
        char producer[32];
        snprintf(producer, sizeof producer, "openacl atc %s", OPENACL_VERSION_STRING);
        rc = om_assemble(sec, 6, req->kernel_abi, producer, image, len);
    }
    ob_free(&info); ob_free(&progs); ob_free(&blobs); ob_free(&exec); ob_free(&bs.rt); ob_free(&bs.plain);
    free(bs.e);
    return rc;
}
