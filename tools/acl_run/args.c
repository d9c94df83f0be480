/* openacl-run command line: msame / ais_bench flag names, "--flag value" or
 * "--flag=value". Every mistake is reported with the flag and the value and
 * ends the program with exit status 2 before anything is loaded. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acl_run.h"

static const char usage_text[] =
    "usage: openacl-run --model FILE [options]\n"
    "\n"
    "Runs a model (ONNX or compiled, told by content) through AscendCL, writes its\n"
    "outputs and reports load time, latency, throughput, CPU use and memory.\n"
    "\n"
    "  --model FILE          the model (required)\n"
    "  --input LIST          comma-separated .bin/.npy files or folders, one per model\n"
    "                        input in index order; a folder gives one file per inference\n"
    "                        (files matched across folders by sorted name). Without\n"
    "                        --input the inputs are generated (see --pure_data_type)\n"
    "  --pure_data_type T    zero (default) or random: generated input data\n"
    "  --output DIR          write outputs under DIR/<YYYYmmdd_HHMMSS>/ (msame layout)\n"
    "  --output_dirname NAME use DIR/NAME/ instead of the time stamp\n"
    "  --outfmt F            BIN (default), NPY or TXT\n"
    "  --loop N              measured passes over the inputs (default 1)\n"
    "  --warmup_count N      unmeasured runs first (default 1)\n"
    "  --device LIST         device id or ids, e.g. 0 or 0,1 (default 0): every device\n"
    "                        runs concurrently in its own thread, context and stream\n"
    "  --threads N           concurrent workers per device (default 1), each with its\n"
    "                        own context, stream and loaded copy of the model\n"
    "  --batchsize N         batch size for throughput (default: the first input's dim 0)\n"
    "  --dymBatch N          select a dynamic-batch gear (aclmdlSetDynamicBatchSize)\n"
    "  --dymHW H,W           select a dynamic image-size gear (aclmdlSetDynamicHWSize)\n"
    "  --dymDims SPEC        select a dynamic-dims gear, SPEC = name:1,3,224,224;name2:...\n"
    "  --dymShape SPEC       actual shapes of range-dynamic inputs (same SPEC form),\n"
    "                        passed with aclmdlSetDatasetTensorDesc\n"
    "  --outputSize LIST     bytes to allocate per output, for outputs whose size the\n"
    "                        model does not know (default: the runtime allocates them)\n"
    "  --json FILE           also write a machine-readable summary (FILE '-' = stdout;\n"
    "                        the human-readable report then goes to stderr)\n"
    "  --acl_json_path FILE  configuration passed to aclInit\n"
    "  --dump true|false     dump every node's outputs as .npy (with dump_index.json) under\n"
    "                        OUTPUT/dump (needs --output; the aclInit JSON written for it\n"
    "                        is OUTPUT/acl.json)\n"
    "  --profiler true|false per-operator trace and op summary under OUTPUT/profiler\n"
    "                        (op_trace.json, op_summary.csv; needs --output)\n"
    "  --profile FILE        per-operator profile of every run as a Chrome trace\n"
    "                        (OPENACL_PROFILE; open in chrome://tracing or Perfetto)\n"
    "  --debug true|false    print the time of every run (as msame)\n"
    "  --help                this text\n"
    "\n"
    "Exit status: 0 success, 1 run failure (file, size, ACL error), 2 bad command line.\n";

static int bad(const char *flag, const char *value, const char *why)
{
    fprintf(stderr, "openacl-run: error: %s '%s': %s (see --help)\n", flag, value ? value : "", why);
    return RUN_EXIT_USAGE;
}

static int parse_long(const char *flag, const char *v, long min, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno)
        return bad(flag, v, "not an integer");
    if (x < min) {
        char why[64];
        snprintf(why, sizeof why, "must be at least %ld", min);
        return bad(flag, v, why);
    }
    *out = x;
    return 0;
}

static int parse_u64(const char *flag, const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*v || *v == '-')
        return bad(flag, v, "not a positive integer");
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || errno || x == 0)
        return bad(flag, v, "not a positive integer");
    *out = x;
    return 0;
}

static int parse_bool(const char *flag, const char *v, int *out)
{
    if (!strcasecmp(v, "true") || !strcmp(v, "1")) {
        *out = 1;
        return 0;
    }
    if (!strcasecmp(v, "false") || !strcmp(v, "0")) {
        *out = 0;
        return 0;
    }
    return bad(flag, v, "expected true or false");
}

/* "0,1,3" -> ints; duplicates are refused (two workers on one device are
 * what --threads is for). */
static int parse_devices(const char *flag, const char *v, run_opts *o)
{
    const char *p = v;
    o->n_devices = 0;
    while (1) {
        char *end;
        errno = 0;
        long d = strtol(p, &end, 10);
        if (end == p || errno || d < 0 || d > 255)
            return bad(flag, v, "expected device ids 0..255 separated by commas");
        if (o->n_devices == RUN_MAX_DEVICES)
            return bad(flag, v, "too many devices");
        for (int i = 0; i < o->n_devices; i++)
            if (o->devices[i] == d)
                return bad(flag, v, "device listed twice");
        o->devices[o->n_devices++] = (int)d;
        if (*end == 0)
            return 0;
        if (*end != ',')
            return bad(flag, v, "expected device ids 0..255 separated by commas");
        p = end + 1;
    }
}

static int parse_sizes(const char *flag, const char *v, run_opts *o)
{
    const char *p = v;
    o->n_output_size = 0;
    while (1) {
        char *end;
        errno = 0;
        if (*p == '-')
            return bad(flag, v, "sizes must be positive");
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p || errno || x == 0)
            return bad(flag, v, "expected positive byte counts separated by commas");
        if (o->n_output_size == RUN_MAX_IO)
            return bad(flag, v, "too many sizes");
        o->output_size[o->n_output_size++] = (size_t)x;
        if (*end == 0)
            return 0;
        if (*end != ',')
            return bad(flag, v, "expected positive byte counts separated by commas");
        p = end + 1;
    }
}

int run_parse_shapes(const char *flag, const char *text, run_shape_spec **out, int *n)
{
    int cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == ';';
    run_shape_spec *s = calloc((size_t)cap, sizeof *s);
    int k = 0;
    const char *p = text;
    if (!s)
        return bad(flag, text, "out of memory");
    while (*p) {
        const char *semi = strchr(p, ';');
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        /* The name is everything before the LAST colon of the item: tensor
         * names may contain ':' (TensorFlow-style "x:0"). */
        for (const char *c = p; c < p + len; c++)
            if (*c == ':')
                colon = c;
        if (!colon || colon == p || (size_t)(colon - p) >= sizeof s[k].name) {
            free(s);
            return bad(flag, text, "expected name:d0,d1,... items separated by ';'");
        }
        memcpy(s[k].name, p, (size_t)(colon - p));
        const char *d = colon + 1;
        while (d < p + len) {
            char *end;
            errno = 0;
            long long x = strtoll(d, &end, 10);
            if (end == d || errno || x < 0 || end > p + len || s[k].ndim == ACL_MAX_DIM_CNT) {
                free(s);
                return bad(flag, text, "dims must be non-negative integers separated by ','");
            }
            s[k].dims[s[k].ndim++] = x;
            d = end;
            if (d < p + len) {
                if (*d != ',') {
                    free(s);
                    return bad(flag, text, "dims must be non-negative integers separated by ','");
                }
                d++;
            }
        }
        for (int j = 0; j < k; j++)
            if (!strcmp(s[j].name, s[k].name)) {
                free(s);
                return bad(flag, text, "an input is named twice");
            }
        k++;
        p += len;
        if (*p == ';')
            p++;
    }
    if (k == 0) {
        free(s);
        return bad(flag, text, "empty");
    }
    *out = s;
    *n = k;
    return 0;
}

/* Flags of msame / ais_bench that need hardware tools openacl does not
 * have: refused by name rather than as unknown. */
static const char *const unsupported_flags[] = {"--aipp_config", "--run_mode",
                                                "--pipeline", "--energy_consumption", NULL};

int run_parse_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->outfmt = OUTFMT_BIN;
    o->loop = 1;
    o->warmup = 1;
    o->n_devices = 1;
    o->threads = 1;
    if (argc < 2) {
        fputs(usage_text, stderr);
        return bad("--model", NULL, "is required");
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return -1;
        }
        if (strncmp(a, "--", 2) != 0)
            return bad("argument", a, "flags start with --");
        char flag[64];
        const char *v;
        const char *eq = strchr(a, '=');
        if (eq) {
            size_t n = (size_t)(eq - a);
            if (n >= sizeof flag)
                return bad("flag", a, "unknown flag");
            memcpy(flag, a, n);
            flag[n] = 0;
            v = eq + 1;
        } else {
            if (strlen(a) >= sizeof flag)
                return bad("flag", a, "unknown flag");
            strcpy(flag, a);
            v = NULL;
        }
        for (int u = 0; unsupported_flags[u]; u++)
            if (!strcmp(flag, unsupported_flags[u]))
                return bad(flag, v, "not supported by openacl-run (no profiler/dump hardware)");
#define TAKE_VALUE()                                                   \
    do {                                                               \
        if (!v) {                                                      \
            if (i + 1 >= argc)                                         \
                return bad(flag, NULL, "needs a value");               \
            v = argv[++i];                                             \
        }                                                              \
    } while (0)
        int rc = 0;
        long x;
        if (!strcmp(flag, "--model")) {
            TAKE_VALUE();
            o->model = v;
        } else if (!strcmp(flag, "--input")) {
            TAKE_VALUE();
            if (!*v)
                return bad(flag, v, "empty");
            free(o->input_list);
            o->input_list = strdup(v);
        } else if (!strcmp(flag, "--output")) {
            TAKE_VALUE();
            if (!*v)
                return bad(flag, v, "empty");
            o->output = v;
        } else if (!strcmp(flag, "--output_dirname")) {
            TAKE_VALUE();
            if (!*v || strchr(v, '/') || !strcmp(v, ".") || !strcmp(v, ".."))
                return bad(flag, v, "must be a plain folder name");
            o->output_dirname = v;
        } else if (!strcmp(flag, "--outfmt")) {
            TAKE_VALUE();
            if (!strcasecmp(v, "BIN"))
                o->outfmt = OUTFMT_BIN;
            else if (!strcasecmp(v, "NPY"))
                o->outfmt = OUTFMT_NPY;
            else if (!strcasecmp(v, "TXT"))
                o->outfmt = OUTFMT_TXT;
            else
                return bad(flag, v, "expected BIN, NPY or TXT");
        } else if (!strcmp(flag, "--loop")) {
            TAKE_VALUE();
            if (!(rc = parse_long(flag, v, 1, &x)))
                o->loop = x;
        } else if (!strcmp(flag, "--warmup_count")) {
            TAKE_VALUE();
            if (!(rc = parse_long(flag, v, 0, &x)))
                o->warmup = x;
        } else if (!strcmp(flag, "--device")) {
            TAKE_VALUE();
            rc = parse_devices(flag, v, o);
        } else if (!strcmp(flag, "--threads")) {
            TAKE_VALUE();
            if (!(rc = parse_long(flag, v, 1, &x))) {
                if (x > 64)
                    return bad(flag, v, "at most 64 workers per device");
                o->threads = (int)x;
            }
        } else if (!strcmp(flag, "--batchsize")) {
            TAKE_VALUE();
            if (!(rc = parse_long(flag, v, 1, &x)))
                o->batchsize = x;
        } else if (!strcmp(flag, "--pure_data_type")) {
            TAKE_VALUE();
            if (!strcmp(v, "zero"))
                o->random_data = 0;
            else if (!strcmp(v, "random"))
                o->random_data = 1;
            else
                return bad(flag, v, "expected zero or random");
        } else if (!strcmp(flag, "--dymBatch")) {
            TAKE_VALUE();
            if (!(rc = parse_u64(flag, v, &o->dym_batch)))
                o->has_dym_batch = 1;
        } else if (!strcmp(flag, "--dymHW")) {
            TAKE_VALUE();
            char *end;
            errno = 0;
            if (*v == '-')
                return bad(flag, v, "expected H,W (positive integers)");
            unsigned long long h = strtoull(v, &end, 10);
            if (end == v || *end != ',' || errno || h == 0)
                return bad(flag, v, "expected H,W (positive integers)");
            const char *w_text = end + 1;
            if (*w_text == '-')
                return bad(flag, v, "expected H,W (positive integers)");
            unsigned long long w = strtoull(w_text, &end, 10);
            if (end == w_text || *end || errno || w == 0)
                return bad(flag, v, "expected H,W (positive integers)");
            o->dym_h = h;
            o->dym_w = w;
            o->has_dym_hw = 1;
        } else if (!strcmp(flag, "--dymDims")) {
            TAKE_VALUE();
            free(o->dym_dims);
            o->dym_dims = NULL;
            rc = run_parse_shapes(flag, v, &o->dym_dims, &o->n_dym_dims);
        } else if (!strcmp(flag, "--dymShape")) {
            TAKE_VALUE();
            free(o->dym_shape);
            o->dym_shape = NULL;
            rc = run_parse_shapes(flag, v, &o->dym_shape, &o->n_dym_shape);
        } else if (!strcmp(flag, "--outputSize")) {
            TAKE_VALUE();
            rc = parse_sizes(flag, v, o);
        } else if (!strcmp(flag, "--json")) {
            TAKE_VALUE();
            if (!*v)
                return bad(flag, v, "empty");
            o->json_path = v;
        } else if (!strcmp(flag, "--acl_json_path")) {
            TAKE_VALUE();
            o->acl_json_path = v;
        } else if (!strcmp(flag, "--profile")) {   /* performance helper's addition */
            TAKE_VALUE();
            if (!*v)
                return bad(flag, v, "empty");
            o->profile_path = v;
        } else if (!strcmp(flag, "--debug")) {
            TAKE_VALUE();
            rc = parse_bool(flag, v, &o->debug);
        } else if (!strcmp(flag, "--dump")) {
            TAKE_VALUE();
            rc = parse_bool(flag, v, &o->dump);
        } else if (!strcmp(flag, "--profiler")) {
            TAKE_VALUE();
            rc = parse_bool(flag, v, &o->profiler);
        } else {
            return bad("flag", flag, "unknown flag");
        }
#undef TAKE_VALUE
        if (rc)
            return rc;
    }
    if (!o->model)
        return bad("--model", NULL, "is required");
    int gears = o->has_dym_batch + o->has_dym_hw + (o->dym_dims != NULL);
    if (gears > 1)
        return bad("--dymBatch/--dymHW/--dymDims", NULL, "only one gear flag may be given (a model has one kind of gears)");
    if (o->output_dirname && !o->output)
        return bad("--output_dirname", o->output_dirname, "needs --output");
    if ((o->dump || o->profiler) && !o->output)
        return bad(o->dump ? "--dump" : "--profiler", "true", "needs --output (the files go under it)");
    if ((o->dump || o->profiler) && o->acl_json_path)
        return bad(o->dump ? "--dump" : "--profiler", "true", "writes its own aclInit configuration; give "
                   "either it or --acl_json_path (put a dump or profiler section in that file instead)");
    if (o->profiler && o->profile_path)
        return bad("--profiler", "true", "and --profile both record a profile; give one");
    return 0;
}

void run_free_opts(run_opts *o)
{
    free(o->input_list);
    free(o->dym_dims);
    free(o->dym_shape);
    free(o->gen_acl_json);
    memset(o, 0, sizeof *o);
}
