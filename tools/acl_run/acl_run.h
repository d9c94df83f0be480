/* openacl-run: the runner/benchmark CLI (msame / ais_bench flags) over the
 * public AscendCL API only. This header holds what the three files share:
 * the parsed options (args.c), the input/output data helpers (data.c) and
 * the driver (acl_run.c). */
#ifndef OPENACL_ACL_RUN_H
#define OPENACL_ACL_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

#define RUN_MAX_DEVICES 64
#define RUN_MAX_IO 256

/* Exit codes: 2 for a bad command line (as getopt tools do), 1 for
 * everything that fails later (missing file, size mismatch, ACL error). */
enum { RUN_EXIT_FAIL = 1, RUN_EXIT_USAGE = 2 };

enum run_outfmt { OUTFMT_BIN, OUTFMT_NPY, OUTFMT_TXT };

/* One "name:d0,d1,...;name2:..." item of --dymDims / --dymShape. */
typedef struct run_shape_spec {
    char name[256];
    int ndim;
    int64_t dims[ACL_MAX_DIM_CNT];
} run_shape_spec;

typedef struct run_opts {
    const char *model;
    char *input_list;                 /* --input as given (comma-separated) */
    const char *output;               /* --output folder, NULL: outputs not written */
    const char *output_dirname;       /* --output_dirname: subfolder name instead of a time stamp */
    int outfmt;                       /* enum run_outfmt */
    long loop;                        /* measured passes over the input sets */
    long warmup;                      /* unmeasured runs before them */
    int devices[RUN_MAX_DEVICES];
    int n_devices;
    int threads;                      /* workers per device, each with its own context/stream/model */
    long batchsize;                   /* 0: taken from the model's first input */
    int random_data;                  /* --pure_data_type random */
    int has_dym_batch;
    uint64_t dym_batch;
    int has_dym_hw;
    uint64_t dym_h, dym_w;
    run_shape_spec *dym_dims;         /* --dymDims */
    int n_dym_dims;
    run_shape_spec *dym_shape;        /* --dymShape */
    int n_dym_shape;
    size_t output_size[RUN_MAX_IO];   /* --outputSize */
    int n_output_size;
    const char *json_path;            /* --json: "-" is stdout */
    const char *acl_json_path;        /* --acl_json_path: aclInit configuration */
    int debug;                        /* per-run times, as msame prints them */
    const char *profile_path;         /* --profile: Chrome trace of every operator (OPENACL_PROFILE) */
    int dump, profiler;               /* --dump / --profiler (ais_bench): an aclInit JSON under --output */
    char *gen_acl_json;               /* the aclInit JSON written for them (malloc'd), NULL none */
} run_opts;

/* Parses argv; on error prints a message and returns RUN_EXIT_USAGE; for
 * --help prints the usage and returns -1; 0 when the run should go on. */
int run_parse_args(int argc, char **argv, run_opts *o);
void run_free_opts(run_opts *o);
/* Parses "name:1,3,224,224;name2:4" into a freshly allocated array. */
int run_parse_shapes(const char *flag, const char *text, run_shape_spec **out, int *n);

/* ---- data.c ---- */

/* The data of one model input for one inference. */
typedef struct run_blob {
    void *data;
    size_t size;
    int ndim;                         /* shape the data carries (a .npy file's), -1: none */
    int64_t dims[ACL_MAX_DIM_CNT];
} run_blob;

/* Everything fed to the model: n_sets inferences' worth of inputs for each
 * user input (the gear input excluded). A file given directly is shared by
 * every set; a folder gives one file per set. */
typedef struct run_inputs {
    int n_inputs;
    int n_sets;
    run_blob *blobs;                  /* [set * n_inputs + input] */
    char **set_names;                 /* output file stem per set */
} run_inputs;

const char *run_dtype_name(aclDataType t);
const char *run_format_name(aclFormat f);
size_t run_dtype_size(aclDataType t);
/* "[1,3,224,224]" into buf. */
const char *run_dims_str(const int64_t *dims, int ndim, char *buf, size_t len);
int64_t run_elem_count(const int64_t *dims, int ndim);

/* Lists the data files of a folder (regular files, sorted by name). */
int run_list_folder(const char *dir, char ***names, int *n);
/* Reads one .npy or raw file. */
int run_read_blob(const char *path, aclDataType want, run_blob *b);
/* Zero or pseudo-random data of a given size (random: same bytes every run). */
int run_make_blob(aclDataType t, const int64_t *dims, int ndim, int random, run_blob *b);
void run_free_inputs(run_inputs *in);

/* Writes one output as <dir>/<stem>_output_<index>.<bin|npy|txt>. */
int run_write_output(const char *dir, const char *stem, int index, int fmt, aclDataType t,
                     const int64_t *dims, int ndim, const void *data, size_t size);
/* Creates <output>/<name or time stamp>, returns it (malloc'd) or NULL. */
char *run_make_output_dir(const char *output, const char *dirname);
/* --dump / --profiler: writes OUTPUT/acl.json and points acl_json_path at it
 * (debug_json.c); 0, or -1 after reporting why. */
int run_write_debug_json(run_opts *o);

/* Prints "openacl-run: error: ..." to stderr. */
void run_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, with the ACL code and aclGetRecentErrMsg() of this thread appended. */
void run_acl_err(aclError rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
