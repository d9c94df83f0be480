/* Engine internals shared by engine.c (load, plan, bind, run), eng_om.c
 * (the compiled-model reader and writer) and eng_compile.c (atc's driver).
 * Nothing outside src/engine includes this. */
#ifndef OPENACL_ENGINE_PRIV_H
#define OPENACL_ENGINE_PRIV_H
#include "engine/engine.h"
#include "engine/exec.h"
#include "om/program.h"

enum { REF_NONE = 0, REF_ARENA, REF_WEIGHT, REF_INPUT, REF_OUTPUT };

typedef struct slot_ref {
    k_tensor *slot;
    int kind;
    int64_t idx;              /* offset (arena/weight) or io index */
} slot_ref;

typedef struct step {
    g_node *n;
    k_tensor *in, *out;
    size_t scratch_off, scratch_bytes;
    size_t packed_off, packed_bytes;
    int threads;              /* 1: a small node run on the calling thread alone; 0: the model's */
} step;

/* An output whose value must be copied at the end of a run. */
typedef struct out_copy {
    int out;                  /* destination output index */
    int kind;                 /* REF_INPUT / REF_WEIGHT / REF_OUTPUT */
    int64_t idx;
    size_t nbytes;
} out_copy;

/* What a compiled program recorded about its plan (om/program.h). */
typedef om_rec eng_rec;

struct eng_model {
    g_graph *g;
    int threads;
    int is_static;
    eng_io *ins, *outs;
    int n_in, n_out;
    int *in_t, *out_t;        /* tensor index of each input / output */

    size_t work_size, weight_size;
    int64_t *const_off;       /* per tensor: offset in the weight area or -1 */
    unsigned char *pack_only; /* per tensor: a constant only packed kernels read */
    void *weights;
    int weights_owned, bound;
    int described_only;       /* eng_describe: inputs and outputs known, nothing planned */
    void *own_work;

    /* static plan */
    step *steps; int n_steps;
    k_tensor *slots;
    slot_ref *refs; int n_refs;
    out_copy *copies; int n_copies;

    /* dynamic */
    eng_dyn *dyn;
    k_tensor *vals;
    unsigned char *owned;

    /* ---- compiled models ---- */
    unsigned char *borrowed;  /* per tensor: data points into the image, not owned */
    int keep_plain;           /* compiling: binding keeps packed-only constants' plain data */
    int adopt;                /* binding adopts the image's packed weights instead of packing */
    eng_rec *rec;             /* the program's recorded plan while loading */
    int plan_recorded;        /* the memory plan is the image's, not planned here */
    const unsigned char *img_w;  /* the image's run-time weight region (adopt) */
    size_t img_w_len;
    void (*release)(void *);  /* image handed over by the caller (eng_opts.keep_image) */
    void *release_ctx;
    int img_in_use;           /* weights live in the image: keep it until eng_free */
    size_t weight_base;       /* this program's offset in a shared weight area */

    /* gears: a model of several static programs (one per gear) sharing weights */
    int gear_kind, n_gears, gear_nvals, largest;
    int64_t *gear_vals;       /* n_gears * gear_nvals */
    eng_model **gears;
    int io_names_owned;       /* ins/outs names are malloc'd (gear models) */
    int gear_input;           /* index of the gear input in ins, -1 none */
    eng_om_meta *meta;        /* compile-time facts of a compiled model */

    /* dynamic ONNX models: static programs per input-shape signature (eng_shapes.c) */
    struct eng_shapes *shapes;
    int bind_spent;           /* a bind released plain weights: no second attempt */

    /* operator data dump (eng_dump.h); gear programs share their model's */
    struct eng_dump *dump;
    int dump_owner;
};

/* The run loop's side of the dump (eng_dump.c): begin returns 1 when this
 * run dumps (step directory and index open), node writes one node's inputs
 * (outputs 0, before it runs) or outputs (after), end closes the index.
 * None fails the run: a write error stops the model's dump and is left as
 * the thread's recent error message. */
typedef struct eng_dump eng_dump;
int eng_dump_begin(eng_dump *d);
void eng_dump_node(eng_dump *d, const g_graph *g, int task, const g_node *n, const k_tensor *v, int outputs);
void eng_dump_end(eng_dump *d);

/* Static programs per input shape for dynamic models (eng_shapes.c). keep:
 * after a load, remembers the source of a dynamic model (no-op for static
 * ones; OPENACL_SHAPE_CACHE=0 disables). run: serves a run from the program
 * for these input shapes, building it on first sight; *handled 0 when the
 * dynamic path must run instead. free: from eng_free. */
typedef struct eng_shapes eng_shapes;
int eng_shapes_keep(eng_model *m, const void *buf, size_t len, const eng_opts *o);
int eng_shapes_run(eng_model *m, const k_tensor *in, k_tensor *out, eng_alloc_fn alloc,
                   void *actx, int *handled);
void eng_shapes_free(eng_model *m);
/* Counters for tests and logs; all 0 for a model without a shape cache. */
typedef struct eng_shapes_stats {
    int capacity, programs;   /* entries allowed; static programs held now */
    long builds, hits, evictions, dynamic_runs;
} eng_shapes_stats;
void eng_shapes_get_stats(const eng_model *m, eng_shapes_stats *st);
/* The precision a load uses: o->precision, else OPENACL_PRECISION
 * (ENG_PRECISION_FP32 or ENG_PRECISION_BF16). */
int eng_precision_of(const eng_opts *o);
/* Threads node n runs with given the budget `threads` (eng_threads.c):
 * 1 for nodes too small to gain from a parallel region, else `threads`. */
int eng_node_threads(const g_node *n, const k_tensor *in, const k_tensor *out, int threads);
/* eng_load without the shape cache (what the cache itself loads with). */
int eng_load_fixed(const void *buf, size_t len, const eng_opts *o, eng_model **out);

/* Builds a model from an imported (and possibly rewritten) graph: optimise,
 * plan. Takes ownership of g (freed on failure too). */
int eng_build(g_graph *g, const eng_opts *o, eng_model **out);

/* Plans a bound, inferred graph: I/O table, static or dynamic preparation.
 * With m->rec set, recorded plans are reused where this build agrees. */
int eng_prepare(eng_model *m);
/* The I/O table and whether the graph is static (first step of eng_prepare). */
int eng_prepare_io(eng_model *m);
/* The two halves of static preparation: steps + memory plan, then the
 * weight layout (recorded or fresh) and the run-time references. */
int eng_prepare_steps(eng_model *m);
int eng_prepare_refs(eng_model *m, int adopt);
/* Dynamic preparation: weight layout (recorded when adopting) and the executor. */
int eng_prepare_dynamic(eng_model *m, int adopt);
/* Whether a planned program can adopt the image's packed weights. */
int eng_can_adopt(const eng_model *m);
/* Lays out a fresh weight area for m starting at `base`. */
int eng_layout_weights(eng_model *m, size_t base);

/* What atc hands the writer: bound programs (one per gear, weights packed,
 * packed-only constants' plain data kept) and the model-level facts as the
 * writer takes them (om/program.h; eng_export fills its programs, outputs
 * and kernel ABI). facts.precision: enum eng_precision the programs were
 * built for; ENG_PRECISION_DEFAULT: bf16 when a node carries the bf16 mark. */
typedef struct eng_export_req {
    eng_model **progs;
    int n_progs;
    om_write_req facts;
} eng_export_req;
int eng_export(const eng_export_req *req, void **image, size_t *len);

/* Kernel ABI of this build and CPU: the packed weights a compiled model
 * stores are valid only where this string is the same. */
const char *eng_kernel_abi(void);

#endif
