/* ONNX ModelProto -> g_graph. Bytes come from untrusted files, so every size,
 * count, name and path is checked before it is used; the protobuf-c parser
 * itself bounds every length field by the buffer it was given. */
#include "onnx/onnx_import.h"
#include "onnx/onnx.pb-c.h"
#include "graph/errs.h"
#include "core/core.h"
#include "onnx/onnx_wire.h"
#include "onnx/onnx_tensor.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *nz(const char *s) { return s ? s : ""; }

/* ---- name -> tensor index map (open addressing, per scope) ---- */
typedef struct name_map {
    const char **key;
    int *val;
    size_t cap, n;
} name_map;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int map_grow(name_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    const char **k = calloc(cap, sizeof *k);
    int *v = calloc(cap, sizeof *v);
    if (!k || !v) { free(k); free(v); return -1; }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i]) continue;
        size_t j = str_hash(m->key[i]) & (cap - 1);
        while (k[j]) j = (j + 1) & (cap - 1);
        k[j] = m->key[i];
        v[j] = m->val[i];
    }
    free(m->key); free(m->val);
    m->key = k; m->val = v; m->cap = cap;
    return 0;
}

static int map_get(const name_map *m, const char *name)
{
    if (!m->cap) return -1;
    size_t j = str_hash(name) & (m->cap - 1);
    while (m->key[j]) {
        if (!strcmp(m->key[j], name)) return m->val[j];
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

/* `name` must outlive the map (we point at the tensor's own name). */
static int map_put(name_map *m, const char *name, int val)
{
    if ((m->n + 1) * 2 > m->cap && map_grow(m)) return -1;
    size_t j = str_hash(name) & (m->cap - 1);
    while (m->key[j]) {
        if (!strcmp(m->key[j], name)) { m->val[j] = val; return 0; }
        j = (j + 1) & (m->cap - 1);
    }
    m->key[j] = name;
    m->val[j] = val;
    m->n++;
    return 0;
}

static void map_free(name_map *m) { free(m->key); free(m->val); memset(m, 0, sizeof *m); }

/* ---- import context ---- */
typedef struct domain_ver { const char *domain; int version; } domain_ver;

typedef struct imp {
    const char *base_dir;
    domain_ver *doms; int n_doms;
    int opset;                  /* default domain */
    const Onnx__ModelProto *mp; /* for model-local functions */
    void **arena; int n_arena, cap_arena;   /* inlined nodes, freed after import */
    int calls;                  /* function calls inlined so far (unique prefixes) */
} imp;

typedef struct int_list { int *v; int n, cap; } int_list;

static int list_add_unique(int_list *l, int x)
{
    for (int i = 0; i < l->n; i++) if (l->v[i] == x) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        int *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        l->v = v; l->cap = cap;
    }
    l->v[l->n++] = x;
    return 0;
}

/* One graph being converted. `caps` collects, for the node of the parent
 * scope that owns this subgraph, the parent tensors this graph captures. */
typedef struct scope {
    g_graph *g;
    name_map names;
    struct scope *parent;
    int_list *caps;
    int depth;
    const char *what;           /* "main graph" or "subgraph 'body' of node 'x'" */
} scope;

#define OOM() acl_fail(ACL_ERROR_BAD_ALLOC, "ONNX import: out of memory")

static int dom_version(const imp *im, const char *domain)
{
    if (!domain || !*domain || !strcmp(domain, "ai.onnx")) return im->opset;
    for (int i = 0; i < im->n_doms; i++)
        if (!strcmp(im->doms[i].domain, domain)) return im->doms[i].version;
    return -1;
}

/* ---- type info ---- */

/* Container types: sequences of tensors and optionals of tensors or of such
 * sequences map to the G_SEQ_BASE / G_OPT_BASE codes; -1 for anything else. */
static int elem_code(const Onnx__TypeProto *tp)
{
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) return -1;
    int dt = G_UNDEF;
    if (tp->tensor_type->has_elem_type && tp->tensor_type->elem_type &&
        onnx_map_dtype(tp->tensor_type->elem_type, &dt))
        return -1;
    return dt;
}

static int container_code(const Onnx__TypeProto *tp)
{
    if (!tp) return -1;
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type) {
        int e = elem_code(tp->sequence_type->elem_type);
        return e < 0 ? -1 : G_SEQ_BASE + e;
    }
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && tp->optional_type) {
        const Onnx__TypeProto *in = tp->optional_type->elem_type;
        int e = elem_code(in);
        if (e >= 0) return G_OPT_BASE + e;
        int c = container_code(in);
        return c >= 0 && g_is_seq(c) ? G_OPT_BASE + c : -1;
    }
    return -1;
}

/* Any supported type (tensor element type or container code), -1 if none. */
static int type_code(const Onnx__TypeProto *tp)
{
    int e = elem_code(tp);
    return e >= 0 ? e : container_code(tp);
}

static int apply_type(const Onnx__TypeProto *tp, g_tensor *t, int strict, const char *what)
{
    int cc = container_code(tp);
    if (cc >= 0) {
        if (t->kind != G_TK_CONST) {
            t->dtype = cc;
            memset(&t->shape, 0, sizeof t->shape);
        }
        return 0;
    }
    if (!tp) {
        if (strict)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s '%s' has no type", what, t->name);
        return 0;
    }
    if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
        if (!strict) return 0;
        const char *k = tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ? "a nested sequence" :
                        tp->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE ? "a map" :
                        tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE ? "a nested optional" :
                        tp->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE ? "a sparse tensor" :
                        "an unknown";
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: %s '%s' has %s type; only "
                        "tensors, sequences of tensors and optionals of those are supported",
                        what, t->name, k);
    }
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (strict && t->kind == G_TK_INPUT && (!tt->has_elem_type || !tt->elem_type))
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s '%s' has no element type", what,
                        t->name);
    if (tt->has_elem_type && tt->elem_type) {
        int dt;
        if (onnx_map_dtype(tt->elem_type, &dt)) {
            if (strict)
                return acl_fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "ONNX import: %s '%s' has "
                                "element type %s (%d), which is not supported", what, t->name,
                                onnx_dtype_name(tt->elem_type), tt->elem_type);
        } else if (t->kind != G_TK_CONST) {
            t->dtype = dt;
        }
    }
    if (tt->shape && t->kind != G_TK_CONST) {
        if (tt->shape->n_dim > G_MAX_RANK) {
            if (strict)
                return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: %s '%s' has rank "
                                "%zu; at most %d is supported", what, t->name, tt->shape->n_dim,
                                G_MAX_RANK);
            return 0;
        }
        g_shape sh = { .rank = (int)tt->shape->n_dim };
        uint64_t known = 1;
        int huge = 0;
        for (size_t i = 0; i < tt->shape->n_dim; i++) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
            int64_t v = -1;
            if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                d->dim_value >= 0)
                v = d->dim_value;
            sh.d[i] = v;
            if (v > 0) {
                if (known > MAX_TENSOR_BYTES / (uint64_t)v) huge = 1;
                else known *= (uint64_t)v;
            }
        }
        size_t es = g_dtype_size(t->dtype);
        if (huge || (es && known > MAX_TENSOR_BYTES / es)) {
            if (strict) {
                char buf[128];
                return acl_fail(ACL_ERROR_MODEL_SIZE_INVALID, "ONNX import: %s '%s' declares shape "
                                "%s, more than %llu bytes", what, t->name,
                                g_shape_str(&sh, buf, sizeof buf),
                                (unsigned long long)MAX_TENSOR_BYTES);
            }
            return 0;   /* an absurd hint is no hint */
        }
        t->shape = sh;
    }
    return 0;
}

/* ---- model-local functions ----
 * A node calling a FunctionProto of the model is replaced by the function's
 * body: formal inputs/outputs become the call's actual names, inner names get
 * a per-call prefix, attributes referring to the caller's (ref_attr_name) take
 * the caller's values. The new NodeProtos live in im->arena and point at the
 * parsed message's strings and attributes. */
#define MAX_FUNCTION_DEPTH 16
#define MAX_INLINED_NODES 1000000

typedef struct node_list {
    const Onnx__NodeProto **v;
    int *opset;                 /* default-domain opset for the node, -1: the model's */
    size_t n, cap;
} node_list;

static void *arena_alloc(imp *im, size_t n)
{
    if (im->n_arena == im->cap_arena) {
        int cap = im->cap_arena ? im->cap_arena * 2 : 64;
        void **a = realloc(im->arena, (size_t)cap * sizeof *a);
        if (!a) return NULL;
        im->arena = a;
        im->cap_arena = cap;
    }
    void *p = calloc(1, n ? n : 1);
    if (p) im->arena[im->n_arena++] = p;
    return p;
}

static void arena_free(imp *im)
{
    for (int i = 0; i < im->n_arena; i++) free(im->arena[i]);
    free(im->arena);
    im->arena = NULL;
    im->n_arena = im->cap_arena = 0;
}

static int list_push(node_list *l, const Onnx__NodeProto *np, int opset)
{
    if (l->n >= MAX_INLINED_NODES)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: more than %d nodes after inlining "
                        "functions", MAX_INLINED_NODES);
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        const Onnx__NodeProto **v = realloc(l->v, cap * sizeof *v);
        int *o = realloc(l->opset, cap * sizeof *o);
        if (v) l->v = v;
        if (o) l->opset = o;
        if (!v || !o) return OOM();
        l->cap = cap;
    }
    l->v[l->n] = np;
    l->opset[l->n++] = opset;
    return 0;
}

static const Onnx__FunctionProto *find_function(const imp *im, const char *domain, const char *op)
{
    const Onnx__ModelProto *mp = im->mp;
    for (size_t i = 0; mp && i < mp->n_functions; i++) {
        const Onnx__FunctionProto *f = mp->functions[i];
        if (!strcmp(nz(f->name), op) && !strcmp(nz(f->domain), domain)) return f;
    }
    return NULL;
}

static char *fn_rename(imp *im, const Onnx__FunctionProto *f, const Onnx__NodeProto *call,
                       const char *prefix, const char *name)
{
    if (!*name) return (char *)"";
    for (size_t i = 0; i < f->n_input; i++)
        if (!strcmp(nz(f->input[i]), name)) return i < call->n_input ? call->input[i] : (char *)"";
    for (size_t i = 0; i < f->n_output; i++)
        if (!strcmp(nz(f->output[i]), name)) return i < call->n_output ? call->output[i] : (char *)"";
    size_t n = strlen(prefix) + strlen(name) + 1;
    char *r = arena_alloc(im, n);
    if (r) snprintf(r, n, "%s%s", prefix, name);
    return r;
}

static int expand_nodes(imp *im, Onnx__NodeProto *const *nodes, size_t n, int opset,
                        node_list *out, int depth);

static int inline_call(imp *im, const Onnx__NodeProto *call, const Onnx__FunctionProto *f,
                       node_list *out, int depth)
{
    const char *cname = nz(call->name), *fname = nz(f->name);
    if (depth >= MAX_FUNCTION_DEPTH)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: node '%s' calls function '%s': "
                        "functions nest more than %d deep (recursive?)", cname, fname,
                        MAX_FUNCTION_DEPTH);
    if (call->n_input > f->n_input || call->n_output > f->n_output)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: node '%s' calls function '%s' with "
                        "%zu inputs and %zu outputs; it takes %zu and %zu", cname, fname,
                        call->n_input, call->n_output, f->n_input, f->n_output);
    int opset = -1;
    for (size_t i = 0; i < f->n_opset_import; i++) {
        const char *d = nz(f->opset_import[i]->domain);
        if ((!*d || !strcmp(d, "ai.onnx")) && f->opset_import[i]->has_version)
            opset = (int)f->opset_import[i]->version;
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s/%d/", fname[0] ? "fn" : "f", ++im->calls);
    Onnx__NodeProto **body = arena_alloc(im, (f->n_node + 1) * sizeof *body);
    if (!body) return OOM();
    for (size_t k = 0; k < f->n_node; k++) {
        const Onnx__NodeProto *b = f->node[k];
        Onnx__NodeProto *nb = arena_alloc(im, sizeof *nb);
        if (!nb) return OOM();
        *nb = *b;   /* same op, domain, strings; lists rebuilt below */
        size_t nl = strlen(cname) + strlen(nz(b->name)) + 2;
        nb->name = arena_alloc(im, nl);
        nb->input = arena_alloc(im, (b->n_input + 1) * sizeof(char *));
        nb->output = arena_alloc(im, (b->n_output + 1) * sizeof(char *));
        nb->attribute = arena_alloc(im, (b->n_attribute + 1) * sizeof *nb->attribute);
        if (!nb->name || !nb->input || !nb->output || !nb->attribute) return OOM();
        snprintf(nb->name, nl, "%s/%s", cname, nz(b->name));
        for (size_t j = 0; j < b->n_input; j++)
            if (!(nb->input[j] = fn_rename(im, f, call, prefix, nz(b->input[j])))) return OOM();
        for (size_t j = 0; j < b->n_output; j++)
            if (!(nb->output[j] = fn_rename(im, f, call, prefix, nz(b->output[j])))) return OOM();
        nb->n_attribute = 0;
        for (size_t j = 0; j < b->n_attribute; j++) {
            Onnx__AttributeProto *a = b->attribute[j];
            if (a->g || a->n_graphs)
                return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: function '%s' has "
                                "a node with a subgraph attribute ('%s'); not supported", fname,
                                nz(a->name));
            if (a->ref_attr_name && *a->ref_attr_name) {
                const Onnx__AttributeProto *src = NULL;
                for (size_t q = 0; q < call->n_attribute; q++)
                    if (!strcmp(nz(call->attribute[q]->name), a->ref_attr_name)) src = call->attribute[q];
                if (!src) continue;   /* not given: the op's default applies */
                Onnx__AttributeProto *c = arena_alloc(im, sizeof *c);
                if (!c) return OOM();
                *c = *src;
                c->name = a->name;
                nb->attribute[nb->n_attribute++] = c;
            } else {
                nb->attribute[nb->n_attribute++] = a;
            }
        }
        body[k] = nb;
    }
    return expand_nodes(im, body, f->n_node, opset, out, depth + 1);
}

static int expand_nodes(imp *im, Onnx__NodeProto *const *nodes, size_t n, int opset,
                        node_list *out, int depth)
{
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *np = nodes[i];
        const Onnx__FunctionProto *f = im->mp && im->mp->n_functions ?
            find_function(im, nz(np->domain), nz(np->op_type)) : NULL;
        int rc = f ? inline_call(im, np, f, out, depth) : list_push(out, np, opset);
        if (rc) return rc;
    }
    return 0;
}

/* ---- graphs ---- */

static int convert_graph(const imp *im, const Onnx__GraphProto *gp, scope *sc);

static int scope_add(scope *sc, const char *name, int idx)
{
    if (map_put(&sc->names, sc->g->t[idx].name, idx)) return OOM();
    (void)name;
    return 0;
}

/* Resolves a name used in scope sc; outer values become captures. Returns the
 * tensor index in sc->g or -1 when unknown (no message). */
static int resolve(scope *sc, const char *name)
{
    int i = map_get(&sc->names, name);
    if (i >= 0 || !sc->parent) return i;
    int pi = resolve(sc->parent, name);
    if (pi < 0) return -1;
    if (list_add_unique(sc->caps, pi)) return -2;
    int ti = g_tensor_add(sc->g, name);
    if (ti < 0) return -2;
    const g_tensor *pt = &sc->parent->g->t[pi];
    g_tensor *t = &sc->g->t[ti];
    t->kind = G_TK_INPUT;
    t->is_capture = 1;
    t->dtype = pt->dtype;
    t->shape = pt->shape;
    if (map_put(&sc->names, t->name, ti)) return -2;
    return ti;
}

static int convert_attr(const imp *im, const Onnx__AttributeProto *ap, scope *sc,
                        const char *node_name, const char *op, g_attr *a, int_list *caps)
{
    a->name = strdup(nz(ap->name));
    if (!a->name) return OOM();
    int type = ap->has_type ? (int)ap->type : 0;
    if (!type) {   /* old writers left the type out: go by the field present */
        if (ap->g) type = G_AT_GRAPH;
        else if (ap->t) type = G_AT_TENSOR;
        else if (ap->n_floats) type = G_AT_FLOATS;
        else if (ap->n_ints) type = G_AT_INTS;
        else if (ap->n_strings) type = G_AT_STRINGS;
        else if (ap->has_s) type = G_AT_STRING;
        else if (ap->has_f) type = G_AT_FLOAT;
        else if (ap->has_i) type = G_AT_INT;
        else if (ap->tp) type = G_AT_TYPE;
    }
    a->type = type;
    switch (type) {
    case G_AT_FLOAT: a->f = ap->f; break;
    case G_AT_INT: a->i = ap->i; break;
    case G_AT_STRING:
        a->s = malloc(ap->s.len + 1);
        if (!a->s) return OOM();
        if (ap->s.len) memcpy(a->s, ap->s.data, ap->s.len);
        a->s[ap->s.len] = 0;
        a->slen = ap->s.len;
        break;
    case G_AT_FLOATS:
        if (ap->n_floats > INT_MAX) return OOM();
        a->n = (int)ap->n_floats;
        a->floats = malloc((ap->n_floats ? ap->n_floats : 1) * sizeof(float));
        if (!a->floats) return OOM();
        if (ap->n_floats) memcpy(a->floats, ap->floats, ap->n_floats * sizeof(float));
        break;
    case G_AT_INTS:
        if (ap->n_ints > INT_MAX) return OOM();
        a->n = (int)ap->n_ints;
        a->ints = malloc((ap->n_ints ? ap->n_ints : 1) * sizeof(int64_t));
        if (!a->ints) return OOM();
        if (ap->n_ints) memcpy(a->ints, ap->ints, ap->n_ints * sizeof(int64_t));
        break;
    case G_AT_STRINGS:
        if (ap->n_strings > INT_MAX) return OOM();
        a->strings = calloc(ap->n_strings ? ap->n_strings : 1, sizeof(char *));
        if (!a->strings) return OOM();
        a->n = (int)ap->n_strings;
        for (size_t i = 0; i < ap->n_strings; i++) {
            a->strings[i] = malloc(ap->strings[i].len + 1);
            if (!a->strings[i]) return OOM();
            if (ap->strings[i].len) memcpy(a->strings[i], ap->strings[i].data, ap->strings[i].len);
            a->strings[i][ap->strings[i].len] = 0;
        }
        break;
    case G_AT_TENSOR: {
        if (!ap->t)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: node '%s' (%s): tensor attribute "
                            "'%s' has no tensor", node_name, op, a->name);
        a->t = calloc(1, sizeof *a->t);
        if (!a->t) return OOM();
        a->t->name = strdup(ap->t->name && *ap->t->name ? ap->t->name : a->name);
        if (!a->t->name) return OOM();
        a->t->producer = -1;
        a->t->mem_offset = -1;
        int rc = onnx_tensor_from_proto(im->base_dir, ap->t, a->t->name, a->t);
        if (rc) return rc;
        break;
    }
    case G_AT_TYPE: {
        int c = type_code(ap->tp);
        if (c < 0)
            return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: node '%s' (%s): type "
                            "attribute '%s' names a type that is not supported", node_name, op,
                            a->name);
        a->i = c;
        break;
    }
    case G_AT_GRAPH: {
        if (!ap->g)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: node '%s' (%s): graph attribute "
                            "'%s' has no graph", node_name, op, a->name);
        if (sc->depth + 1 > ONNX_MAX_SUBGRAPH_DEPTH)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: node '%s' (%s): subgraphs nest "
                            "deeper than %d levels", node_name, op, ONNX_MAX_SUBGRAPH_DEPTH);
        a->g = g_graph_new();
        if (!a->g) return OOM();
        a->g->parent = sc->g;
        a->g->opset = im->opset;
        char what[256];
        snprintf(what, sizeof what, "subgraph '%s' of node '%s' (%s)", a->name, node_name, op);
        scope sub = { .g = a->g, .parent = sc, .caps = caps, .depth = sc->depth + 1, .what = what };
        int rc = convert_graph(im, ap->g, &sub);
        map_free(&sub.names);
        if (rc) return rc;
        break;
    }
    default:
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: node '%s' (%s): attribute "
                        "'%s' has type %d (tensors/graphs lists, sparse tensors or type protos), "
                        "which is not supported", node_name, op, a->name, type);
    }
    return 0;
}

/* A Constant node becomes a constant tensor (its output). */
static int convert_constant(const imp *im, const Onnx__NodeProto *np, g_tensor *t)
{
    const char *nm = nz(np->name);
    if (np->n_attribute != 1 || !np->attribute[0])
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: Constant node '%s' (output '%s') "
                        "must have exactly one attribute, has %zu", nm, t->name, np->n_attribute);
    const Onnx__AttributeProto *ap = np->attribute[0];
    const char *an = nz(ap->name);
    free(t->data);
    t->data = NULL;
    t->kind = G_TK_CONST;
    if (!strcmp(an, "value")) {
        if (!ap->t) return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: Constant node '%s': "
                                    "attribute 'value' has no tensor", nm);
        return onnx_tensor_from_proto(im->base_dir, ap->t, t->name, t);
    }
    if (!strcmp(an, "value_float") || !strcmp(an, "value_int")) {
        int isf = an[6] == 'f';
        t->dtype = isf ? G_F32 : G_I64;
        t->shape.rank = 0;
        t->nbytes = isf ? 4 : 8;
        t->data = malloc(t->nbytes);
        if (!t->data) return OOM();
        if (isf) *(float *)t->data = ap->f; else *(int64_t *)t->data = ap->i;
        return 0;
    }
    if (!strcmp(an, "value_floats") || !strcmp(an, "value_ints")) {
        int isf = an[6] == 'f';
        size_t n = isf ? ap->n_floats : ap->n_ints;
        t->dtype = isf ? G_F32 : G_I64;
        t->shape.rank = 1;
        t->shape.d[0] = (int64_t)n;
        t->nbytes = n * (isf ? 4 : 8);
        t->data = malloc(t->nbytes ? t->nbytes : 1);
        if (!t->data) return OOM();
        if (n) memcpy(t->data, isf ? (void *)ap->floats : (void *)ap->ints, t->nbytes);
        return 0;
    }
    return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: Constant node '%s' (output '%s'):"
                    " attribute '%s' is not supported (string and sparse constants are not)",
                    nm, t->name, an);
}

static int convert_graph_nodes(const imp *im, const Onnx__GraphProto *gp, scope *sc,
                               const node_list *nl);

static int convert_graph(const imp *im, const Onnx__GraphProto *gp, scope *sc)
{
    node_list nl = { 0 };
    int rc = expand_nodes((imp *)im, gp->node, gp->n_node, -1, &nl, 0);
    if (!rc) rc = convert_graph_nodes(im, gp, sc, &nl);
    free(nl.v);
    free(nl.opset);
    return rc;
}

/* Node i of the list (after every tensor has its index): a Constant
 * becomes its output's data, any other node a g_node with its attributes
 * (subgraphs converted, their captures appended to the inputs). */
static int convert_node(const imp *im, scope *sc, const node_list *nl, size_t i)
{
    g_graph *g = sc->g;
    int rc;
    const Onnx__NodeProto *np = nl->v[i];
    const char *op = nz(np->op_type), *nm = nz(np->name), *dom = nz(np->domain);
    if (!*op)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: node %zu ('%s') has no "
                        "op_type", sc->what, i, nm);
    int ver = (!*dom || !strcmp(dom, "ai.onnx")) && nl->opset[i] > 0 ? nl->opset[i]
                                                                    : dom_version(im, dom);
    if (ver < 0)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: node '%s' (%s) uses domain "
                        "'%s', which the model does not import (no opset_import entry)",
                        sc->what, nm, op, dom);
    if (!strcmp(op, "Constant") && (!*dom || !strcmp(dom, "ai.onnx"))) {
        if (np->n_output != 1 || !*nz(np->output[0]))
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: Constant node '%s' must have "
                            "one output, has %zu", nm, np->n_output);
        int ti = map_get(&sc->names, np->output[0]);
        return convert_constant(im, np, &g->t[ti]);
    }
    if (np->n_input > 100000 || np->n_output > 100000)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: node '%s' (%s) has %zu inputs "
                        "and %zu outputs", nm, op, np->n_input, np->n_output);
    int n_in = (int)np->n_input, n_out = (int)np->n_output, has_graph = 0;
    for (size_t a = 0; a < np->n_attribute; a++) has_graph |= np->attribute[a]->g != NULL;
    /* a subgraph owner keeps its trailing empty inputs: captured values
     * are appended after the ONNX ones and must not shift into them */
    while (!has_graph && n_in > 0 && !*nz(np->input[n_in - 1])) n_in--;
    while (n_out > 0 && !*nz(np->output[n_out - 1])) n_out--;
    /* attributes first: subgraphs add captured outer values to caps */
    int_list caps = { 0 };
    g_attr *attrs = calloc(np->n_attribute ? np->n_attribute : 1, sizeof *attrs);
    if (!attrs) return OOM();
    int n_attr = 0;
    rc = 0;
    for (size_t a = 0; a < np->n_attribute && !rc; a++) {
        rc = convert_attr(im, np->attribute[a], sc, nm, op, &attrs[a], &caps);
        n_attr = (int)a + 1;
    }
    int *ins = NULL, *outs = NULL;
    if (!rc) {
        ins = malloc((size_t)(n_in + caps.n + 1) * sizeof(int));
        outs = malloc((size_t)(n_out + 1) * sizeof(int));
        if (!ins || !outs) rc = OOM();
    }
    for (int j = 0; j < n_in && !rc; j++) {
        const char *name = nz(np->input[j]);
        if (!*name) { ins[j] = -1; continue; }
        int ti = resolve(sc, name);
        if (ti == -2) rc = OOM();
        else if (ti < 0)
            rc = acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: node '%s' (%s) input %d "
                          "'%s' is not a graph input, initializer or output of any node",
                          sc->what, nm, op, j, name);
        else ins[j] = ti;
    }
    for (int j = 0; j < caps.n && !rc; j++) {
        /* caps holds indices in this graph (the subgraph's parent) */
        ins[n_in + j] = caps.v[j];
    }
    for (int j = 0; j < n_out && !rc; j++) {
        const char *name = nz(np->output[j]);
        outs[j] = *name ? map_get(&sc->names, name) : -1;
    }
    if (!rc) rc = g_node_check_outputs("ONNX import", sc->what, nm, dom, op, n_out, outs);
    int ni = -1;
    if (!rc) {
        ni = g_node_add(g, op, dom, nm, n_in + caps.n, ins, n_out, outs);
        if (ni < 0) rc = OOM();
    }
    free(ins); free(outs); free(caps.v);
    if (rc) {
        for (int a = 0; a < n_attr; a++) g_attr_clear(&attrs[a]);
        free(attrs);
        return rc;
    }
    g_node *n = &g->nodes[ni];
    n->opset = ver;
    n->attr = attrs;
    n->n_attr = (int)np->n_attribute;
    return 0;
}

static int convert_graph_nodes(const imp *im, const Onnx__GraphProto *gp, scope *sc,
                               const node_list *nl)
{
    g_graph *g = sc->g;
    int rc;

    /* 1. initializers */
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        const char *name = nz(tp->name);
        if (!*name)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: initializer %zu has no name",
                            sc->what, i);
        if (map_get(&sc->names, name) >= 0)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: initializer '%s' is "
                            "defined twice", sc->what, name);
        int ti = g_tensor_add(g, name);
        if (ti < 0) return OOM();
        if ((rc = onnx_tensor_from_proto(im->base_dir, tp, name, &g->t[ti]))) return rc;
        if ((rc = scope_add(sc, name, ti))) return rc;
    }
    if (gp->n_sparse_initializer)
        return acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: %s: sparse initializers "
                        "('%s') are not supported", sc->what,
                        gp->sparse_initializer[0]->values ? nz(gp->sparse_initializer[0]->values->name) : "?");

    /* 2. inputs that are not initializers */
    int n_real = 0;
    g->inputs = malloc((gp->n_input ? gp->n_input : 1) * sizeof(int));
    if (!g->inputs) return OOM();
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        const char *name = nz(vi->name);
        if (!*name)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: input %zu has no name",
                            sc->what, i);
        int ti = map_get(&sc->names, name);
        if (ti >= 0) {
            if (g->t[ti].kind == G_TK_CONST) continue;   /* an initializer with a default */
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: input '%s' is listed twice",
                            sc->what, name);
        }
        ti = g_tensor_add(g, name);
        if (ti < 0) return OOM();
        g->t[ti].kind = G_TK_INPUT;
        if ((rc = apply_type(vi->type, &g->t[ti], sc->parent == NULL, "input"))) return rc;
        if ((rc = scope_add(sc, name, ti))) return rc;
        g->inputs[n_real++] = ti;
    }
    g->n_inputs = n_real;

    /* 3. node outputs: every name gets exactly one producer */
    for (size_t i = 0; i < nl->n; i++) {
        const Onnx__NodeProto *np = nl->v[i];
        for (size_t j = 0; j < np->n_output; j++) {
            const char *name = nz(np->output[j]);
            if (!*name) continue;
            int prev = map_get(&sc->names, name);
            if (prev >= 0) {
                const g_tensor *pt = &g->t[prev];
                if (pt->kind == G_TK_ACT && pt->producer >= 0) {
                    const Onnx__NodeProto *pn = nl->v[pt->producer];
                    return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: tensor '%s' is "
                                    "produced twice, by node '%s' (%s) and node '%s' (%s)",
                                    sc->what, name, nz(pn->name), nz(pn->op_type), nz(np->name),
                                    nz(np->op_type));
                }
                return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: tensor '%s' is produced "
                                "by node '%s' (%s) but is already %s", sc->what, name,
                                nz(np->name), nz(np->op_type),
                                pt->kind == G_TK_INPUT ? "a graph input" : "an initializer");
            }
            int ti = g_tensor_add(g, name);
            if (ti < 0) return OOM();
            g->t[ti].producer = (int)i;   /* proto node index, for the message above */
            if ((rc = scope_add(sc, name, ti))) return rc;
        }
    }
    for (int i = 0; i < g->n_t; i++) g->t[i].producer = -1;

    /* 4. value_info hints */
    for (size_t i = 0; i < gp->n_value_info; i++) {
        const Onnx__ValueInfoProto *vi = gp->value_info[i];
        int ti = map_get(&sc->names, nz(vi->name));
        if (ti >= 0 && g->t[ti].kind == G_TK_ACT) apply_type(vi->type, &g->t[ti], 0, "value");
    }

    /* 5. nodes */
    for (size_t i = 0; i < nl->n; i++)
        if ((rc = convert_node(im, sc, nl, i))) return rc;

    /* 6. outputs (may name an outer value inside a subgraph) */
    g->outputs = malloc((gp->n_output ? gp->n_output : 1) * sizeof(int));
    if (!g->outputs) return OOM();
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        const char *name = nz(vi->name);
        int ti = *name ? resolve(sc, name) : -1;
        if (ti == -2) return OOM();
        if (ti < 0)
            return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: %s: output %zu '%s' is not "
                            "produced by any node, input or initializer", sc->what, i, name);
        g_tensor *t = &g->t[ti];
        if (t->kind == G_TK_ACT || t->kind == G_TK_INPUT) {
            /* keep what we already know; the declared type fills the gaps */
            int dt = t->dtype; g_shape sh = t->shape;
            if ((rc = apply_type(vi->type, t, sc->parent == NULL, "output"))) return rc;
            if (t->kind == G_TK_INPUT && dt) { t->dtype = dt; t->shape = sh; }
        }
        t->is_output = 1;
        g->outputs[i] = ti;
        g->n_outputs = (int)i + 1;
    }
    return 0;
}

/* Whether any node of the graph, or of a subgraph in its attributes, is in
 * the default ONNX domain. Depth is bounded by the nesting check (onnx_wire.h). */
static int uses_default_domain(const Onnx__GraphProto *gp, int depth)
{
    if (!gp || depth > ONNX_WIRE_MAX_DEPTH) return 0;
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *n = gp->node[i];
        const char *d = nz(n->domain);
        if (!*d || !strcmp(d, "ai.onnx")) return 1;
        for (size_t a = 0; a < n->n_attribute; a++) {
            const Onnx__AttributeProto *at = n->attribute[a];
            if (uses_default_domain(at->g, depth + 1)) return 1;
            for (size_t k = 0; k < at->n_graphs; k++)
                if (uses_default_domain(at->graphs[k], depth + 1)) return 1;
        }
    }
    return 0;
}

int onnx_import(const void *buf, size_t len, const char *base_dir, g_graph **out)
{
    return onnx_import_ex(buf, len, base_dir, NULL, NULL, out);
}

int onnx_import_ex(const void *buf, size_t len, const char *base_dir, void (*drop)(void *ctx, const void *p, size_t n),
                   void *drop_ctx, g_graph **out)
{
    if (!out) return acl_fail(ACL_ERROR_INVALID_PARAM, "ONNX import: output pointer is NULL");
    *out = NULL;
    if (!buf || len == 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "ONNX import: model buffer is %s",
                        buf ? "empty (0 bytes)" : "NULL");
    if (onnx_wire_depth_check(buf, len))
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: the model nests messages (graphs in "
                        "attributes or types in types) more than %d levels deep", ONNX_WIRE_MAX_DEPTH);
    int plain = 1;
    Onnx__ModelProto *mp = drop ? onnx_wire_unpack_lowpeak(buf, len, drop, drop_ctx, &plain) : NULL;
    if (plain > 0) mp = onnx__model_proto__unpack(NULL, len, buf);
    if (plain < 0) return OOM();
    if (!mp)
        return acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: the %zu bytes are not a valid ONNX "
                        "ModelProto (truncated or corrupt protobuf)", len);
    int rc = 0;
    imp im = { .base_dir = base_dir, .opset = -1, .mp = mp };
    g_graph *g = NULL;
    if (!mp->graph) {
        rc = acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: the model has no graph (%zu bytes; "
                      "not an ONNX model?)", len);
        goto done;
    }
    im.doms = calloc(mp->n_opset_import + 1, sizeof *im.doms);
    if (!im.doms) { rc = OOM(); goto done; }
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *os = mp->opset_import[i];
        const char *d = nz(os->domain);
        int64_t v = os->has_version ? os->version : 0;
        if (v < 0 || v > 100000) v = 100000;
        if (!*d || !strcmp(d, "ai.onnx")) im.opset = (int)v;
        else im.doms[im.n_doms++] = (domain_ver){ d, (int)v };
    }
    if (im.opset < 0 && !uses_default_domain(mp->graph, 0)) {
        /* A model made only of other domains' ops (e.g. the training
         * optimisers) need not import the default domain at all. */
        im.opset = ONNX_OPSET_MAX;
    }
    if (im.opset < 0) {
        /* ONNX says opset_import must list the default domain; a model without
         * any entry predates opset versioning (version 1). */
        rc = acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: the model does not import the default "
                      "ONNX domain (no opset_import entry for ai.onnx); supported opsets are "
                      "%d to %d", ONNX_OPSET_MIN, ONNX_OPSET_MAX);
        goto done;
    }
    if (im.opset < ONNX_OPSET_MIN || im.opset > ONNX_OPSET_MAX) {
        rc = acl_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "ONNX import: the model uses default-domain "
                      "opset %d; supported opsets are %d to %d", im.opset, ONNX_OPSET_MIN,
                      ONNX_OPSET_MAX);
        goto done;
    }
    g = g_graph_new();
    if (!g) { rc = OOM(); goto done; }
    g->opset = im.opset;
    scope top = { .g = g, .what = "main graph" };
    rc = convert_graph(&im, mp->graph, &top);
    map_free(&top.names);
    if (!rc && g->n_outputs == 0)
        rc = acl_fail(ACL_ERROR_PARSE_MODEL, "ONNX import: the graph has no outputs");
done:
    arena_free(&im);
    free(im.doms);
    onnx__model_proto__free_unpacked(mp, NULL);
    if (rc) { g_graph_free(g); return rc; }
    *out = g;
    return 0;
}
