/* Operator data dump (the `dump` section of the aclInit JSON, aclmdlSetDump):
 * while a dump is attached to a model, every node its static program runs
 * writes its inputs and/or outputs as .npy files under
 *   dump_path/{time}/{device}/{model}/{model_id}/{step}/
 * named {op_type}.{op_name}.{task}.{timestamp}.{input|output}.{i}.npy, and
 * each step directory gets dump_index.json mapping every file to its node,
 * the ONNX nodes that node stands for (fusion) and its tensor. Values are
 * written in their logical form: NHWC activations transposed back to NCHW,
 * bfloat16 ones widened to float32 (the index keeps the stored type).
 *
 * Off, the run loop pays one never-taken branch per node. A failed write
 * never fails the run: the model's dump stops, the failure is logged and
 * left as the executing thread's recent error message. */
#ifndef OPENACL_ENG_DUMP_H
#define OPENACL_ENG_DUMP_H
#include <stdint.h>
#include "engine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { ENG_DUMP_INPUT = 1, ENG_DUMP_OUTPUT = 2, ENG_DUMP_ALL = 3 };

typedef struct eng_dump_model {
    char *name;               /* model file name without its extension */
    char **layers;            /* node names to dump (ONNX names of fused nodes match); NULL: all */
    int n_layers;
} eng_dump_model;

/* One dump configuration, shared (reference counted) by the models it is
 * attached to; immutable once published except for `stopped`. */
typedef struct eng_dump_cfg {
    int refs;                 /* atomic; eng_dump_cfg_unref frees at 0 */
    char *path;               /* dump_path, an existing writable directory */
    int mode;                 /* ENG_DUMP_* */
    int op_switch;            /* dump_op_switch "on" (recorded; openacl has no single-op mode) */
    eng_dump_model *models;   /* dump_list (never empty: an empty list turns the dump off) */
    int n_models;
    char time[24];            /* YYYYMMDDhhmmss of the configuration, the {time} level */
    int stopped;              /* atomic: aclmdlFinalizeDump */
} eng_dump_cfg;

/* A new configuration with refs 1 (fields filled by the caller); NULL on OOM. */
eng_dump_cfg *eng_dump_cfg_new(void);
void eng_dump_cfg_ref(eng_dump_cfg *c);
void eng_dump_cfg_unref(eng_dump_cfg *c);   /* NULL is a no-op */

/* The dump_list entry for a model name, NULL when the model is not selected. */
const eng_dump_model *eng_dump_select(const eng_dump_cfg *c, const char *model);

/* Attaches cfg to a loaded model (its gear programs too) for the model
 * named `model`, id `model_id` on `device`; takes a reference to cfg. A
 * model holds one dump: a second attach replaces the first. */
int eng_dump_attach(eng_model *m, eng_dump_cfg *cfg, const eng_dump_model *sel, const char *model,
                    uint32_t model_id, int device);
/* Releases the model's dump (eng_free does it too). */
void eng_dump_detach(eng_model *m);

#ifdef __cplusplus
}
#endif
#endif
