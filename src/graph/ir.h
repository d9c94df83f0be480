/* The graph IR: what the ONNX importer (and later the compiled-model reader)
 * produces, what passes rewrite and what the planner and executor consume.
 * Tensors and nodes live in flat arrays and refer to each other by index. */
#ifndef OPENACL_GRAPH_IR_H
#define OPENACL_GRAPH_IR_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define G_MAX_RANK 8

/* Element types use ONNX TensorProto numbering; the API layer maps them to
 * aclDataType at the boundary. */
enum g_dtype {
    G_UNDEF = 0, G_F32 = 1, G_U8 = 2, G_I8 = 3, G_U16 = 4, G_I16 = 5, G_I32 = 6,
    G_I64 = 7, G_STR = 8, G_BOOL = 9, G_F16 = 10, G_F64 = 11, G_U32 = 12,
    G_U64 = 13, G_BF16 = 16
};
size_t g_dtype_size(int dtype);          /* 0 for G_UNDEF/G_STR/unknown */
const char *g_dtype_name(int dtype);     /* "float32", ..., "seq(float32)" */

/* Container types (addition; openacl numbering, not ONNX's): a sequence of
 * tensors of element type e is G_SEQ_BASE + e, an optional tensor
 * G_OPT_BASE + e, an optional sequence G_OPT_BASE + G_SEQ_BASE + e (e may be
 * G_UNDEF when not known). Their value is a k_seq (kernels/kernel.h); their
 * g_dtype_size is 0, their shape rank 0. */
#define G_SEQ_BASE 100
#define G_OPT_BASE 200
static inline int g_is_container(int dt) { return dt >= G_SEQ_BASE && dt < G_OPT_BASE + G_SEQ_BASE + G_SEQ_BASE; }
static inline int g_is_seq(int dt) { return dt >= G_SEQ_BASE && dt < G_OPT_BASE; }
static inline int g_is_opt(int dt) { return dt >= G_OPT_BASE && dt < G_OPT_BASE + 2 * G_SEQ_BASE; }
/* Element type: of a sequence, its tensors' type; of an optional, what it holds. */
static inline int g_container_elem(int dt)
{
    return g_is_seq(dt) ? dt - G_SEQ_BASE : g_is_opt(dt) ? dt - G_OPT_BASE : G_UNDEF;
}

/* Physical layout of a 4-D activation; the shape is always the logical
 * (ONNX, NCHW) shape whatever the layout. */
enum g_layout { G_LAYOUT_PLAIN = 0, G_LAYOUT_NHWC = 1 };

typedef struct g_shape {
    int rank;                 /* -1: rank unknown */
    int64_t d[G_MAX_RANK];    /* d[i] < 0: dimension unknown (dynamic) */
} g_shape;

int64_t g_shape_numel(const g_shape *s);    /* -1 if any dim unknown */
int g_shape_known(const g_shape *s);        /* rank >= 0 and all dims >= 0 */
int g_shape_eq(const g_shape *a, const g_shape *b);
/* Writes "[1,3,224,224]" (or "[?]" / "[1,-1,...]") into buf; returns buf. */
char *g_shape_str(const g_shape *s, char *buf, size_t len);

enum g_tensor_kind {
    G_TK_ACT = 0,     /* produced by a node */
    G_TK_INPUT = 1,   /* graph input fed by the caller */
    G_TK_CONST = 2,   /* initializer / folded constant: data is owned */
};

typedef struct g_tensor {
    char *name;
    int dtype;
    g_shape shape;
    int kind;                 /* enum g_tensor_kind */
    int is_output;            /* listed in graph outputs */
    void *data;               /* G_TK_CONST: owned, dense, numel*size bytes */
    size_t nbytes;
    int producer;             /* node index, -1 for inputs and constants */
    int nuse;                 /* consumer slots; computed by g_graph_link() */
    int layout;               /* enum g_layout, chosen by the layout pass */
    int64_t mem_offset;       /* planner: offset in the work arena, -1 none */
    int is_capture;           /* in a subgraph: a value of an enclosing graph the body
                                 reads by name (G_TK_INPUT, not one of the body's formal
                                 inputs), marked by the importer that built the body */
} g_tensor;

/* Attribute types use ONNX AttributeProto numbering. */
enum g_attr_type {
    G_AT_FLOAT = 1, G_AT_INT = 2, G_AT_STRING = 3, G_AT_TENSOR = 4,
    G_AT_GRAPH = 5, G_AT_FLOATS = 6, G_AT_INTS = 7, G_AT_STRINGS = 8,
    G_AT_TYPE = 13            /* addition: a type; `i` holds its dtype code */
};

typedef struct g_graph g_graph;

typedef struct g_attr {
    char *name;
    int type;                 /* enum g_attr_type */
    float f;
    int64_t i;
    char *s; size_t slen;     /* G_AT_STRING (bytes, NUL-terminated too) */
    int n;                    /* count for FLOATS / INTS / STRINGS */
    float *floats;
    int64_t *ints;
    char **strings;
    g_tensor *t;              /* G_AT_TENSOR: standalone, kind CONST */
    g_graph *g;               /* G_AT_GRAPH: subgraph (parent set) */
} g_attr;

struct k_op;

typedef struct g_node {
    char *name;
    char *op_type;
    char *domain;             /* "" for the default ONNX domain */
    int opset;                /* opset version in force for this domain */
    int n_in, n_out;
    int *in, *out;            /* tensor indices; -1 = omitted optional */
    int n_attr;
    g_attr *attr;
    /* Bound by the engine when kernels are chosen. */
    const struct k_op *op;
    void *state;
} g_node;

struct g_graph {
    g_tensor *t; int n_t, cap_t;
    g_node *nodes; int n_nodes, cap_nodes;
    int *inputs; int n_inputs;     /* G_TK_INPUT tensors, in model order */
    int *outputs; int n_outputs;   /* in model order */
    int opset;                     /* default-domain opset of the model */
    g_graph *parent;               /* enclosing graph for subgraphs */
};

/* Construction helpers (src/graph/ir.c). All return -1 / NULL on OOM. */
g_graph *g_graph_new(void);
void g_graph_free(g_graph *g);
int g_tensor_add(g_graph *g, const char *name);      /* new tensor, returns index */
int g_tensor_find(const g_graph *g, const char *name);  /* -1 if absent */
/* Whether a node's outputs (outs[0..n_out), -1 where absent) suit its
 * operator: 0 yes; 1 an output it requires is absent (*slot: the first
 * one); 2 it lists more than the operator has (*slot: how many it has).
 * ONNX makes output 0 of every operator but LSTM, GRU and RNN required, and
 * TopK's indices and DynamicQuantizeLinear's scale and zero point; every
 * output of openacl's own operators is required (the passes make them
 * whole). A standard operator has one output unless its schema lists more
 * (the most over its versions; Split, If, Loop, Scan, SequenceMap: any
 * number). Other slots are optional (kernels see data NULL for an absent
 * one). Importers refuse such nodes: a kernel would write to no storage, or
 * a listed output would never be written. */
int g_node_outputs_bad(const char *domain, const char *op_type, int n_out, const int *outs, int *slot);
/* The same as an error naming the node after "<who>: <what>: " (e.g.
 * "ONNX import", "main graph"): ACL_ERROR_PARSE_MODEL with the message, or
 * 0. */
int g_node_check_outputs(const char *who, const char *what, const char *name, const char *domain,
                         const char *op_type, int n_out, const int *outs);
int g_node_add(g_graph *g, const char *op_type, const char *domain, const char *name,
               int n_in, const int *in, int n_out, const int *out);
void g_attr_clear(g_attr *a);
/* Recomputes producer/nuse for every tensor; fails (acl_fail) on a tensor
 * produced twice. */
int g_graph_link(g_graph *g);

/* Attribute lookup (NULL / default when absent). */
const g_attr *g_node_attr(const g_node *n, const char *name);
int64_t g_attr_int(const g_node *n, const char *name, int64_t def);
float g_attr_float(const g_node *n, const char *name, float def);
const char *g_attr_str(const g_node *n, const char *name, const char *def);
/* Returns the count and sets *v, or -1 when absent. */
int g_attr_ints(const g_node *n, const char *name, const int64_t **v);
int g_attr_floats(const g_node *n, const char *name, const float **v);

/* Precision marks, read by the passes and the kernels alike (set by
 * graph/precision.c): "_oa_bf16" (int 1) on a node that may compute in
 * bfloat16, "_oa_bf16_out" on a convolution whose output is stored as
 * bfloat16. They survive fusion, show in OPENACL_DUMP_GRAPH and are stored
 * by compiled models. */
#define G_ATTR_BF16 "_oa_bf16"
#define G_ATTR_BF16_OUT "_oa_bf16_out"
/* Whether n carries the G_ATTR_BF16 mark. */
int graph_node_bf16(const g_node *n);

#ifdef __cplusplus
}
#endif
#endif
