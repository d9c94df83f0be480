/* Engine internals shared by eng_program.c (build, plan, bind a program),
 * engine.c (models: load, bind, gears), eng_run.c, eng_om.c (the
 * compiled-model reader and writer) and eng_compile.c (atc's driver).
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

/* A program: one graph as the passes left it, planned at the shapes it was
 * built for (eng_program.c). Static programs (all shapes known) carry the
 * whole run: steps, their argument slots, the fix-up table that points the
 * slots at arena / weight / caller memory each run, and the output copies.
 * Programs whose shapes are known only at run time carry the graph and the
 * weight layout the model's dynamic executor reads. A program never owns a
 * weight area: its constants and packed weights live at offsets into an area
 * its model binds (gear programs share one), nor a work area. A static model
 * has one program, a gear model one per gear, the shape cache one per input
 * signature; the compiled format stores programs (eng_om.c). */
typedef struct eng_program {
    g_graph *g;
    int threads;              /* the thread budget it was planned (and packs) for; 0: OpenMP's */
    int is_static;
    eng_io *ins, *outs;       /* inputs / outputs at this program's shapes */
    int n_in, n_out;
    int *in_t, *out_t;        /* tensor index of each input / output */

    /* memory plan and weight layout */
    size_t work_size;         /* arena bytes (static programs) */
    size_t weight_base;       /* this program's offset in a shared weight area */
    size_t weight_size;       /* its bytes there */
    int64_t *const_off;       /* per tensor: offset in the weight area or -1 */
    unsigned char *pack_only; /* per tensor: a constant only packed kernels read */

    /* the static plan */
    step *steps; int n_steps;
    k_tensor *slots;
    slot_ref *refs; int n_refs;
    out_copy *copies; int n_copies;

    /* binding (eng_program_bind) */
    char *weights;            /* the area it is bound to (not owned) */
    int bound;
    int bind_spent;           /* a bind released plain weights: no second attempt */
    int keep_plain;           /* compiling: binding keeps packed-only constants' plain data */

    /* what loading a compiled program needs (eng_om.c) */
    unsigned char *borrowed;  /* per tensor: data points into the image, not owned */
    int adopt;                /* binding adopts the image's packed weights instead of packing */
    eng_rec *rec;             /* the program's recorded plan while loading */
    int plan_recorded;        /* the memory plan is the image's, not planned here */
    const unsigned char *img_w;  /* the image's run-time weight region (adopt) */
    size_t img_w_len;
} eng_program;

/* A loaded model (what aclmdl holds): its inputs and outputs as the
 * application sees them, the weight area and who owns it, its programs
 * (one, or one per gear) or, for shapes known only at run time, the dynamic
 * executor over its program's graph and the shape cache of static programs;
 * the compiled image it may keep, the operator dump. */
struct eng_model {
    eng_program *prog;        /* the program (models without gears); NULL for gear models */
    int threads;
    int is_static;
    eng_io *ins, *outs;       /* prog's own (io_owned 0) or the gear model's */
    int n_in, n_out;
    int io_owned;             /* ins/outs and their names are malloc'd here (gear models) */
    int described_only;       /* eng_describe: inputs and outputs known, nothing planned */

    /* memory */
    size_t work_size, weight_size;   /* the largest program's arena; the whole weight area */
    void *weights;
    int weights_owned, bound;
    void *own_work;

    /* dynamic: the executor over prog->g, its values, the shape cache (eng_shapes.c) */
    eng_dyn *dyn;
    k_tensor *vals;
    unsigned char *owned;
    struct eng_shapes *shapes;

    /* gears: one static program per gear, sharing the weight area */
    int gear_kind, n_gears, gear_nvals, largest;
    int64_t *gear_vals;       /* n_gears * gear_nvals */
    eng_program **gears;
    int gear_input;           /* index of the gear input in ins, -1 none */

    /* compiled models */
    eng_om_meta *meta;        /* compile-time facts */
    int adopt;                /* the programs adopt the image's packed weights */
    const unsigned char *img_w;  /* the image's run-time weight region */
    size_t img_w_len;
    void (*release)(void *);  /* image handed over by the caller (eng_opts.keep_image) */
    void *release_ctx;
    int img_in_use;           /* weights live in the image: keep it until eng_free */

    /* operator data dump (eng_dump.h): covers every program the model runs */
    struct eng_dump *dump;
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
/* Reads OPENACL_SMALL_OP_US again (each load's planning calls it). */
void eng_threads_reload(void);

/* ---- programs (eng_program.c) ---- */

/* Builds a program from an imported (and possibly rewritten) graph: fixed
 * shapes applied, optimised, planned (static) or its weights laid out
 * (dynamic). Takes ownership of g (freed on failure too). */
int eng_program_build(g_graph *g, const eng_opts *o, eng_program **out);
/* A program for eng_describe: shapes fixed, graph_describe, I/O table. */
int eng_program_describe(g_graph *g, const eng_opts *o, eng_program **out);
void eng_program_free(eng_program *p);          /* NULL is a no-op */
/* The I/O table and whether the graph is static (the first step of planning). */
int eng_program_io(eng_program *p);
/* The two halves of static planning: steps + memory plan (with p->rec set,
 * the recorded plan where this build agrees), then the weight layout
 * (recorded when adopting, else fresh from p->weight_base) and the
 * run-time references. */
int eng_program_steps(eng_program *p);
int eng_program_refs(eng_program *p, int adopt);
/* A dynamic program's weight layout (recorded when adopting). */
int eng_program_layout_dynamic(eng_program *p, int adopt);
/* Whether a planned program can adopt the image's packed weights. */
int eng_program_can_adopt(const eng_program *p);
/* Fills p's part of the weight area w and packs (or adopts) its kernels'
 * weights; dyn: the executor that reads p's constants from w (dynamic
 * programs), else NULL. Plain copies are released as they are consumed, so
 * a failure leaves the program unusable. */
int eng_program_bind(eng_program *p, char *w, eng_dyn *dyn);
/* Data pointers into a caller's image are forgotten (not freed). */
void eng_program_drop_borrowed(eng_program *p);
/* One run of a bound static program: work is its work_size bytes; threads:
 * the model's budget (0: OpenMP's); dump: the model's operator dump or NULL. */
int eng_program_run(eng_program *p, int threads, struct eng_dump *dump, char *work, const k_tensor *in,
                    k_tensor *out, eng_alloc_fn alloc, void *actx);

/* ---- models (engine.c) ---- */

/* A model of one program (taken over, freed on failure too): its I/O, sizes
 * and, for a dynamic program, the executor. */
int eng_model_of(eng_program *p, int threads, eng_model **out);

/* What atc hands the writer: bound programs (one per gear, weights packed,
 * packed-only constants' plain data kept) and the model-level facts as the
 * writer takes them (om/program.h; eng_export fills its programs, outputs
 * and kernel ABI). facts.precision: enum eng_precision the programs were
 * built for; ENG_PRECISION_DEFAULT: bf16 when a node carries the bf16 mark. */
typedef struct eng_export_req {
    eng_program **progs;
    int n_progs;
    om_write_req facts;
} eng_export_req;
int eng_export(const eng_export_req *req, void **image, size_t *len);

/* Kernel ABI of this build and CPU: the packed weights a compiled model
 * stores are valid only where this string is the same. */
const char *eng_kernel_abi(void);

#endif
