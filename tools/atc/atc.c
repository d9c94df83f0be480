/* atc: openacl's offline model compiler, with the flag names of Huawei's ATC.
 * An ONNX model in, an openacl compiled model (<output>.om, docs/om-format.md)
 * out, with static shapes fixed, the graph optimised and planned, weights
 * packed, and optionally dynamic gears (batch / image size / dims). With
 * --mode=1 it writes a compiled model's structure as JSON. The bfloat16
 * precision modes build and pack the model for bf16 compute (recorded in
 * the file); OPENACL_THREADS, when set, is the thread count it plans for.
 *
 *   atc --model=m.onnx --framework=5 --output=out [--input_shape=...]
 *       [--dynamic_batch_size=1,2,4 | --dynamic_image_size=h,w;h,w | --dynamic_dims=...]
 *       [--input_format=NCHW|ND|NCDHW] [--input_fp16_nodes=a;b] [--output_type=FP16|node:i:T;...]
 *       [--precision_mode=...|--precision_mode_v2=...] [--soc_version=...] [--log=...]
 *   atc --mode=1 --om=out.om --json=out.json
 *
 * Messages follow ATC's shape ("E10001: Value [...] for parameter [...] is
 * invalid. Reason: ...", then "ATC run failed"); exit status 0 on success,
 * 1 on any error. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "core/log_internal.h"
#include "engine/compile.h"
#include "engine/engine.h"
#include "graph/aipp.h"
#include "rt/rt_internal.h"

#define MAX_GEARS 100
#define MAX_DIM_CNT 128       /* ACL_MAX_DIM_CNT: dims of all inputs of a dims gear */

typedef struct flag { const char *name; const char *val; int seen; } flag;

enum {
    F_MODEL, F_FRAMEWORK, F_OUTPUT, F_INPUT_SHAPE, F_INPUT_FORMAT, F_BATCH, F_IMAGE, F_DIMS, F_FP16, F_OUTPUT_TYPE,
    F_PRECISION, F_PRECISION_V2, F_LOG, F_MODE, F_SOC, F_OM, F_JSON, F_WEIGHT, F_INPUT_SHAPE_RANGE, F_AIPP, F_N
};
static flag g_flags[F_N] = {
    [F_MODEL] = {"model"}, [F_FRAMEWORK] = {"framework"}, [F_OUTPUT] = {"output"},
    [F_INPUT_SHAPE] = {"input_shape"}, [F_INPUT_FORMAT] = {"input_format"}, [F_BATCH] = {"dynamic_batch_size"},
    [F_IMAGE] = {"dynamic_image_size"}, [F_DIMS] = {"dynamic_dims"}, [F_FP16] = {"input_fp16_nodes"},
    [F_OUTPUT_TYPE] = {"output_type"}, [F_PRECISION] = {"precision_mode"}, [F_PRECISION_V2] = {"precision_mode_v2"},
    [F_LOG] = {"log"}, [F_MODE] = {"mode"}, [F_SOC] = {"soc_version"}, [F_OM] = {"om"}, [F_JSON] = {"json"},
    [F_WEIGHT] = {"weight"}, [F_INPUT_SHAPE_RANGE] = {"input_shape_range"},
    [F_AIPP] = {"insert_op_conf"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: atc --model=<model.onnx> --framework=5 --output=<path without .om> [options]\n"
            "       atc --mode=1 --om=<compiled.om> --json=<out.json>\n\n"
            "  --model               source model (ONNX)\n"
            "  --framework           5 = ONNX (0 Caffe, 1 MindSpore, 3 TensorFlow are not supported)\n"
            "  --output              output path; .om is appended\n"
            "  --input_shape         \"name:d0,d1,...;name2:...\"; -1 = dynamic dim, a~b = range\n"
            "  --input_format        NCHW (default), ND or NCDHW\n"
            "  --dynamic_batch_size  batch gears \"1,2,4,8\" (-1 at dim 0 of --input_shape)\n"
            "  --dynamic_image_size  image-size gears \"h,w;h,w\" (-1 at H and W, NCHW)\n"
            "  --dynamic_dims        dims gears \"v,v;v,v\": one value per -1 of --input_shape (ND)\n"
            "  --input_fp16_nodes    \"in1;in2\": these float32 inputs take float16\n"
            "  --output_type         FP32, FP16, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64,\n"
            "                        DOUBLE, or per output \"node:index:TYPE;...\"\n"
            "  --precision_mode      force_fp32 | cube_fp16in_fp32out | must_keep_origin_dtype (default) |\n"
            "                        allow_fp32_to_bf16 | allow_mix_precision_bf16 (convolutions and matrix\n"
            "                        products in bfloat16, float32 accumulation; CPUs with AVX512-BF16/AMX)\n"
            "  --precision_mode_v2   origin | cube_fp16in_fp32out | mixed_bfloat16\n"
            "  --insert_op_conf      AIPP configuration (aipp_op blocks): the input takes a uint8 image and\n"
            "                        the model crops, converts, normalises and pads it (docs/aipp.md)\n"
            "  --soc_version         recorded in the model\n"
            "  --log                 debug | info | warning | error | null (default)\n"
            "  --mode                0 = compile (default), 1 = compiled model to JSON (--om, --json)\n\n"
            "  environment: OPENACL_THREADS = the thread count the runtime will use (weights are packed for\n"
            "  it; default: the runtime's, the CPUs this process may use); OPENACL_PRECISION is not read (the precision flags decide)\n");
}

/* ---- messages ---- */

static int g_failed;

static int fail_value(const char *param, const char *value, const char *fmt, ...) OA_PRINTF(3, 4);
static int fail_value(const char *param, const char *value, const char *fmt, ...)
{
    char reason[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    fprintf(stderr, "E10001: Value [%s] for parameter [--%s] is invalid. Reason: %s\n", value ? value : "", param,
            reason);
    g_failed = 1;
    return 1;
}

static int fail(const char *code, const char *fmt, ...) OA_PRINTF(2, 3);
static int fail(const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", code);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    g_failed = 1;
    return 1;
}

/* The library's message for a failed call (newest first). */
static int fail_lib(const char *what, int rc)
{
    char *m = acl_err_take();
    fprintf(stderr, "E19999: %s failed (%s, %d)%s%s\n", what, acl_err_name(rc), rc, m ? ": " : "", m ? m : "");
    free(m);
    g_failed = 1;
    return 1;
}

/* ---- parsing helpers ---- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
    return s;
}

static int parse_i64(const char *s, int64_t *v)
{
    if (!s || !*s) return 0;
    char *e;
    errno = 0;
    long long x = strtoll(s, &e, 10);
    if (errno || *e) return 0;
    *v = x;
    return 1;
}

/* Splits s (modified in place) at sep; returns the count (at most max). */
static int split(char *s, char sep, char **out, int max)
{
    int n = 0;
    char *p = s;
    for (;;) {
        char *q = strchr(p, sep);
        if (q) *q = 0;
        if (n < max) out[n] = trim(p);
        n++;
        if (!q) break;
        p = q + 1;
    }
    return n;
}

typedef struct shape_arg {
    char *name;
    g_shape s;
    int64_t lo[G_MAX_RANK], hi[G_MAX_RANK];
    int has_range;
} shape_arg;

static int parse_input_shape(const char *val, shape_arg **out, int *n_out)
{
    char *dup = strdup(val);
    char *items[256];
    int n = split(dup, ';', items, 256);
    if (n > 256) { free(dup); return fail_value("input_shape", val, "more than 256 inputs"); }
    shape_arg *v = calloc((size_t)n + 1, sizeof *v);
    int k = 0, err = 0;
    for (int i = 0; i < n && !err; i++) {
        if (!*items[i]) continue;   /* a trailing ';' */
        char *colon = strrchr(items[i], ':');
        if (!colon || colon == items[i]) {
            err = fail_value("input_shape", val, "\"%s\" is not \"name:d0,d1,...\"", items[i]);
            break;
        }
        *colon = 0;
        shape_arg *a = &v[k];
        a->name = strdup(trim(items[i]));
        for (int j = 0; j < k; j++)
            if (!strcmp(v[j].name, a->name)) err = fail_value("input_shape", val, "input \"%s\" is given twice", a->name);
        char *dims[G_MAX_RANK + 1];
        char *rest = trim(colon + 1);
        int nd = *rest ? split(rest, ',', dims, G_MAX_RANK + 1) : 0;
        if (nd > G_MAX_RANK) {
            err = fail_value("input_shape", val, "input \"%s\" has %d dims, at most %d are supported", a->name, nd,
                             G_MAX_RANK);
            break;
        }
        a->s.rank = nd;
        for (int d = 0; d < nd && !err; d++) {
            char *tl = strchr(dims[d], '~');
            int64_t x = 0, lo = 0, hi = 0;
            if (tl) {
                *tl = 0;
                if (!parse_i64(trim(dims[d]), &lo) || !parse_i64(trim(tl + 1), &hi) || lo < 0 || hi < -1 ||
                    (hi >= 0 && hi < lo)) {
                    err = fail_value("input_shape", val, "dim %d of \"%s\" is not a range \"a~b\" with 0 <= a <= b "
                                     "(b = -1: unbounded)", d, a->name);
                    break;
                }
                a->s.d[d] = -1;
                a->lo[d] = lo;
                a->hi[d] = hi;
                a->has_range = 1;
            } else if (!parse_i64(dims[d], &x) || x < -1) {
                err = fail_value("input_shape", val, "dim %d of \"%s\" is \"%s\": expected a size >= 0, -1 or a~b", d,
                                 a->name, dims[d]);
            } else {
                a->s.d[d] = x;
                a->lo[d] = x < 0 ? 1 : x;
                a->hi[d] = x;
            }
        }
        k++;
    }
    free(dup);
    if (err) {
        for (int i = 0; i < k; i++) free(v[i].name);
        free(v);
        return 1;
    }
    *out = v;
    *n_out = k;
    return 0;
}

/* Gear lists: groups separated by ';' (or one group of ',' values for
 * batch gears), values by ','. vals receives n_gears * width values. */
static int parse_gears(const char *param, const char *val, int per_gear_sep, int width_want, const char *what,
                       int64_t **vals, int *n_gears, int *width)
{
    char *dup = strdup(val);
    char *groups[MAX_GEARS + 2];
    int ng;
    if (per_gear_sep) {
        ng = split(dup, ';', groups, MAX_GEARS + 2);
        if (ng > 0 && !*groups[ng - 1] && ng <= MAX_GEARS + 2) ng--;   /* trailing ';' */
    } else {
        ng = split(dup, ',', groups, MAX_GEARS + 2);
    }
    int err = 0;
    if (ng > MAX_GEARS)
        err = fail_value(param, val, "%d gears; at most %d are allowed", ng, MAX_GEARS);
    else if (ng < 2)
        err = fail_value(param, val, "%d gear; at least 2 are required", ng);
    int w = per_gear_sep ? -1 : 1;
    int64_t *v = NULL;
    if (!err) v = calloc((size_t)ng * MAX_DIM_CNT + 1, sizeof *v);
    for (int g = 0; g < ng && !err; g++) {
        char *items[MAX_DIM_CNT + 1];
        int ni = 1;
        if (per_gear_sep) ni = split(groups[g], ',', items, MAX_DIM_CNT + 1);
        else items[0] = groups[g];
        if (ni > MAX_DIM_CNT) { err = fail_value(param, val, "gear %d has %d values", g + 1, ni); break; }
        if (w < 0) w = ni;
        if (ni != w) {
            err = fail_value(param, val, "gear %d has %d values, gear 1 has %d: every gear needs the same count", g + 1,
                             ni, w);
            break;
        }
        if (width_want > 0 && ni != width_want) {
            err = fail_value(param, val, "gear %d has %d values; each gear is %d values (%s)", g + 1, ni, width_want,
                             what);
            break;
        }
        for (int i = 0; i < ni && !err; i++) {
            int64_t x = 0;
            if (!parse_i64(items[i], &x) || x < 1)
                err = fail_value(param, val, "gear %d value \"%s\" is not a positive integer", g + 1, items[i]);
            v[(size_t)g * (size_t)w + (size_t)i] = x;
        }
        for (int h = 0; h < g && !err; h++)
            if (!memcmp(v + (size_t)h * (size_t)w, v + (size_t)g * (size_t)w, (size_t)w * sizeof *v))
                err = fail_value(param, val, "gear %d repeats gear %d: gears must be distinct", g + 1, h + 1);
    }
    free(dup);
    if (err) { free(v); return 1; }
    *vals = v;
    *n_gears = ng;
    *width = w;
    return 0;
}

static int dtype_by_name(const char *s)
{
    static const struct { const char *n; int d; } t[] = {
        {"FP32", G_F32}, {"FP16", G_F16}, {"INT8", G_I8}, {"INT16", G_I16}, {"UINT16", G_U16}, {"UINT8", G_U8},
        {"INT32", G_I32}, {"INT64", G_I64}, {"UINT32", G_U32}, {"UINT64", G_U64}, {"DOUBLE", G_F64},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].n)) return t[i].d;
    return G_UNDEF;
}

/* ---- progress (stderr, only on a terminal) ---- */

typedef struct prog { int tty; struct timespec t0; int last_len; } prog;

static double secs_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_progress(void *ctx, int k, int n, const char *stage)
{
    prog *p = ctx;
    if (!p->tty) return;
    static const char *const stages[] = { "import", "optimise", "pack", "write" };
    int si = 0;
    for (int i = 0; i < 4; i++) if (!strcmp(stage, stages[i])) si = i;
    int pct = (int)(100.0 * (k * 4 + si) / (n * 4));
    char bar[21];
    for (int i = 0; i < 20; i++) bar[i] = i < pct / 5 ? '#' : '.';
    bar[20] = 0;
    int len = fprintf(stderr, "\r[%s] %3d%%  %s %d/%d: %-8s %6.1f s", bar, pct, n > 1 ? "gear" : "program", k + 1, n,
                      stage, secs_since(&p->t0));
    if (len < p->last_len) fprintf(stderr, "%*s", p->last_len - len, "");
    p->last_len = len;
    fflush(stderr);
}

static void progress_done(prog *p)
{
    if (p->tty && p->last_len) fprintf(stderr, "\r%*s\r", p->last_len, "");
}

/* ---- files ---- */

static void *map_file(const char *path, size_t *len, const char *param)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { fail_value(param, path, "cannot open the file: %s", strerror(errno)); return NULL; }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        fail_value(param, path, "not a regular, non-empty file");
        return NULL;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) { fail_value(param, path, "cannot map the file: %s", strerror(errno)); return NULL; }
    *len = (size_t)st.st_size;
    return p;
}

static int write_file(const char *path, const void *p, size_t n)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    snprintf(tmp, pl + 16, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f)) ok = 0;
    if (ok && rename(tmp, path)) ok = 0;
    if (!ok) {
        fail("E10002", "cannot write \"%s\": %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok ? 0 : 1;
}

static int looks_onnx(const unsigned char *p, size_t n)
{
    /* ModelProto starts with ir_version (field 1, varint): byte 0x08 */
    return n > 2 && p[0] == 0x08;
}

/* ---- modes ---- */

static int mode_json(void)
{
    const char *om = g_flags[F_OM].val, *json = g_flags[F_JSON].val;
    if (!om) return fail("E10004", "--mode=1 needs --om=<compiled model>");
    if (!json) return fail("E10004", "--mode=1 needs --json=<output file>");
    size_t len;
    void *img = map_file(om, &len, "om");
    if (!img) return 1;
    if (!eng_is_compiled(img, len)) {
        int onnx = looks_onnx(img, len);
        munmap(img, len);
        return fail_value("om", om, "%s; --mode=1 reads openacl compiled models (compile it first with --mode=0)",
                          onnx ? "this is an ONNX model" : "not an openacl compiled model");
    }
    char *text = NULL;
    int rc = eng_om_dump_json(om, img, len, &text);
    munmap(img, len);
    if (rc) return fail_lib("reading the compiled model", rc);
    FILE *f = fopen(json, "w");
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f)) ok = 0;
    free(text);
    if (!ok) return fail("E10002", "cannot write \"%s\": %s", json, strerror(errno));
    printf("ATC run success, welcome to the next use.\n");
    return 0;
}

static char *join_args(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    s[0] = 0;
    for (int i = 0; i < argc; i++) {
        if (i) strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static int mode_compile(int argc, char **argv)
{
    const char *model = g_flags[F_MODEL].val, *fw = g_flags[F_FRAMEWORK].val, *output = g_flags[F_OUTPUT].val;
    if (!model) return fail("E10004", "Argument [--model] is required when --mode=0");
    if (!fw) return fail("E10004", "Argument [--framework] is required when --mode=0 (5 = ONNX)");
    if (!output) return fail("E10004", "Argument [--output] is required when --mode=0");
    int64_t fwv;
    if (!parse_i64(fw, &fwv)) return fail_value("framework", fw, "not a number (5 = ONNX)");
    if (fwv == 0 || fwv == 1 || fwv == 3)
        return fail_value("framework", fw, "%s models are not supported: openacl's atc compiles ONNX models "
                          "(--framework=5)", fwv == 0 ? "Caffe" : fwv == 1 ? "MindSpore" : "TensorFlow");
    if (fwv != 5) return fail_value("framework", fw, "expected 0, 1, 3 or 5; only 5 (ONNX) is supported");
    if (g_flags[F_WEIGHT].val) return fail_value("weight", g_flags[F_WEIGHT].val, "only Caffe models take --weight");
    if (g_flags[F_INPUT_SHAPE_RANGE].val)
        return fail_value("input_shape_range", g_flags[F_INPUT_SHAPE_RANGE].val,
                          "deprecated and not supported: give ranges in --input_shape (\"name:1~8,3,224,224\")");

    /* precision: float32 unless a bfloat16 mode is asked for (the cube
     * operators, convolutions and matrix products, then compute in bf16
     * with float32 accumulation; every other operator stays float32) */
    const char *pm = g_flags[F_PRECISION].val, *pm2 = g_flags[F_PRECISION_V2].val;
    if (pm && pm2) return fail("E10001", "--precision_mode and --precision_mode_v2 cannot be used together");
    const char *precision = "must_keep_origin_dtype";
    int prec = ENG_PRECISION_FP32;
    if (pm) {
        if (!strcmp(pm, "force_fp32") || !strcmp(pm, "cube_fp16in_fp32out") || !strcmp(pm, "must_keep_origin_dtype"))
            precision = pm;
        else if (!strcmp(pm, "allow_fp32_to_bf16") || !strcmp(pm, "allow_mix_precision_bf16"))
            precision = pm, prec = ENG_PRECISION_BF16;
        else if (!strcmp(pm, "force_fp16") || !strcmp(pm, "allow_fp32_to_fp16") || !strcmp(pm, "allow_mix_precision") ||
                 !strcmp(pm, "allow_mix_precision_fp16"))
            return fail_value("precision_mode", pm, "openacl's kernels compute in the model's own types (float32); "
                              "use force_fp32 or must_keep_origin_dtype");
        else
            return fail_value("precision_mode", pm, "expected force_fp32, cube_fp16in_fp32out, must_keep_origin_dtype, "
                              "force_fp16, allow_fp32_to_fp16, allow_mix_precision, allow_mix_precision_bf16 or "
                              "allow_fp32_to_bf16");
    }
    if (pm2) {
        if (!strcmp(pm2, "origin") || !strcmp(pm2, "cube_fp16in_fp32out")) precision = pm2;
        else if (!strcmp(pm2, "mixed_bfloat16")) precision = pm2, prec = ENG_PRECISION_BF16;
        else if (!strcmp(pm2, "fp16") || !strcmp(pm2, "mixed_float16") || !strcmp(pm2, "cube_hif8") ||
                 !strcmp(pm2, "mixed_hif8"))
            return fail_value("precision_mode_v2", pm2, "openacl's kernels compute in the model's own types; use "
                              "origin, cube_fp16in_fp32out or mixed_bfloat16");
        else
            return fail_value("precision_mode_v2", pm2, "expected fp16, origin, cube_fp16in_fp32out, mixed_float16, "
                              "mixed_bfloat16, cube_hif8 or mixed_hif8");
    }
    if (prec == ENG_PRECISION_BF16 && !eng_cpu_bf16())
        return fail_value(pm ? "precision_mode" : "precision_mode_v2", pm ? pm : pm2,
                          "bfloat16 compute needs a CPU with AVX512-BF16 or AMX, and this one has neither (%s); "
                          "weights are packed for the compiling machine, so compile on the target machine or use "
                          "%s", eng_kernel_abi(), pm ? "force_fp32" : "origin");
    const char *env_prec = getenv("OPENACL_PRECISION");
    if (env_prec && *env_prec)
        printf("ATC: OPENACL_PRECISION=%s is not read by atc (it applies to ONNX models at load); the precision "
               "comes from --precision_mode / --precision_mode_v2: %s here\n", env_prec,
               prec == ENG_PRECISION_BF16 ? "bfloat16" : "float32");
    /* the thread count the runtime will use: oneDNN packs some weights per
     * thread count, and a load with another count packs them again */
    int threads = 0;
    {
        int64_t t = 0;
        const char *et = getenv("OPENACL_THREADS");
        if (et && *et && parse_i64(et, &t) && t >= 1 && t <= 1024) threads = (int)t;
        long online, mask, quota;
        if (!threads) threads = rt_cpus_default(&online, &mask, &quota);
    }

    /* formats and shapes */
    const char *fmt = g_flags[F_INPUT_FORMAT].val ? g_flags[F_INPUT_FORMAT].val : "NCHW";
    if (strcmp(fmt, "NCHW") && strcmp(fmt, "ND") && strcmp(fmt, "NCDHW"))
        return fail_value("input_format", fmt, "ONNX models take NCHW, ND or NCDHW");
    shape_arg *shapes = NULL;
    int n_shapes = 0;
    if (g_flags[F_INPUT_SHAPE].val && parse_input_shape(g_flags[F_INPUT_SHAPE].val, &shapes, &n_shapes)) return 1;
    int n_dyn = 0, n_range = 0, total_dims = 0;
    for (int i = 0; i < n_shapes; i++) {
        total_dims += shapes[i].s.rank;
        for (int d = 0; d < shapes[i].s.rank; d++) n_dyn += shapes[i].s.d[d] < 0;
        n_range += shapes[i].has_range;
    }

    /* gears */
    int gflag = -1, ngf = 0;
    const int gfl[3] = { F_BATCH, F_IMAGE, F_DIMS };
    for (int i = 0; i < 3; i++) if (g_flags[gfl[i]].val) { gflag = gfl[i]; ngf++; }
    int rc = 0, gear_kind = ENG_GEAR_NONE, n_gears = 0, width = 0;
    int64_t *gvals = NULL;
    const char *in_shape_val = g_flags[F_INPUT_SHAPE].val;
    if (ngf > 1) {
        rc = fail("E10001", "--dynamic_batch_size, --dynamic_image_size and --dynamic_dims are mutually exclusive: "
                  "give only one");
    } else if (ngf == 1) {
        const char *pname = g_flags[gflag].name, *pval = g_flags[gflag].val;
        if (!in_shape_val)
            rc = fail_value(pname, pval, "--input_shape is required with gears, with -1 at the dims that vary");
        else if (n_range)
            rc = fail_value(pname, pval, "--input_shape has a range (a~b); gears take -1 dims only");
        else if (!n_dyn)
            rc = fail_value(pname, pval, "--input_shape \"%s\" has no -1 dim for the gears to fill", in_shape_val);
        if (!rc && gflag == F_BATCH) {
            gear_kind = ENG_GEAR_BATCH;
            rc = parse_gears(pname, pval, 0, 1, "a batch size", &gvals, &n_gears, &width);
            for (int i = 0; i < n_shapes && !rc; i++)
                for (int d = 1; d < shapes[i].s.rank && !rc; d++)
                    if (shapes[i].s.d[d] < 0)
                        rc = fail_value("input_shape", in_shape_val, "with --dynamic_batch_size only the batch "
                                        "(first) dim may be -1; \"%s\" has -1 at dim %d", shapes[i].name, d);
        } else if (!rc && gflag == F_IMAGE) {
            gear_kind = ENG_GEAR_HW;
            if (strcmp(fmt, "NCHW"))
                rc = fail_value("input_format", fmt, "--dynamic_image_size needs NCHW (it must know where H and W are)");
            if (!rc) rc = parse_gears(pname, pval, 1, 2, "height,width", &gvals, &n_gears, &width);
            for (int i = 0; i < n_shapes && !rc; i++) {
                const g_shape *s = &shapes[i].s;
                int dyn = 0;
                for (int d = 0; d < s->rank; d++) dyn += s->d[d] < 0;
                if (dyn && (s->rank != 4 || s->d[2] >= 0 || s->d[3] >= 0 || s->d[0] < 0 || s->d[1] < 0))
                    rc = fail_value("input_shape", in_shape_val, "with --dynamic_image_size an input's -1 dims must be "
                                    "exactly H and W of an NCHW shape (\"%s\" is not)", shapes[i].name);
            }
        } else if (!rc) {
            gear_kind = ENG_GEAR_DIMS;
            if (strcmp(fmt, "ND"))
                rc = fail_value("input_format", fmt, "--dynamic_dims needs --input_format=ND");
            if (!rc) rc = parse_gears(pname, pval, 1, n_dyn, "one per -1 dim of --input_shape", &gvals, &n_gears, &width);
            if (!rc && total_dims > MAX_DIM_CNT)
                rc = fail_value("input_shape", in_shape_val, "the inputs have %d dims together; a --dynamic_dims gear "
                                "holds at most %d", total_dims, MAX_DIM_CNT);
        }
    }
    if (!rc && gear_kind == ENG_GEAR_NONE && n_dyn)
        printf("ATC: %d dim(s) of --input_shape are dynamic and no gears are given: the model is compiled with "
               "dynamic shapes (callers describe actual shapes with aclmdlSetDatasetTensorDesc)\n", n_dyn);

    /* fp16 inputs and output types */
    char **fp16 = NULL;
    int n_fp16 = 0;
    char *fp16dup = NULL, *otdup = NULL;
    int out_dtype = G_UNDEF, n_ot = 0;
    char *ot_items[256];
    const char *ot_node[256];
    int ot_index[256], ot_dtype[256];
    if (!rc && g_flags[F_FP16].val) {
        fp16dup = strdup(g_flags[F_FP16].val);
        fp16 = calloc(257, sizeof *fp16);
        n_fp16 = split(fp16dup, ';', fp16, 256);
        if (n_fp16 > 256) rc = fail_value("input_fp16_nodes", g_flags[F_FP16].val, "more than 256 inputs");
        for (int i = 0; i < n_fp16 && !rc; i++)
            if (!*fp16[i]) rc = fail_value("input_fp16_nodes", g_flags[F_FP16].val, "an empty input name");
    }
    if (!rc && g_flags[F_OUTPUT_TYPE].val) {
        const char *v = g_flags[F_OUTPUT_TYPE].val;
        if (!strchr(v, ':')) {
            out_dtype = dtype_by_name(v);
            if (out_dtype == G_UNDEF)
                rc = fail_value("output_type", v, "expected FP32, FP16, INT8, INT16, UINT16, UINT8, INT32, INT64, "
                                "UINT32, UINT64 or DOUBLE");
        } else {
            otdup = strdup(v);
            int n = split(otdup, ';', ot_items, 256);
            if (n > 256) rc = fail_value("output_type", v, "more than 256 entries");
            for (int i = 0; i < n && !rc; i++) {
                if (!*ot_items[i]) continue;
                char *c2 = strrchr(ot_items[i], ':');
                char *c1 = c2 ? memrchr(ot_items[i], ':', (size_t)(c2 - ot_items[i])) : NULL;
                int64_t idx;
                if (!c1 || c1 == ot_items[i]) { rc = fail_value("output_type", v, "\"%s\" is not node:index:TYPE", ot_items[i]); break; }
                *c1 = 0;
                *c2 = 0;
                if (!parse_i64(c1 + 1, &idx) || idx < 0) { rc = fail_value("output_type", v, "bad output index in \"%s\"", ot_items[i]); break; }
                int dt = dtype_by_name(c2 + 1);
                if (dt == G_UNDEF) { rc = fail_value("output_type", v, "unknown type \"%s\"", c2 + 1); break; }
                ot_node[n_ot] = ot_items[i];
                ot_index[n_ot] = (int)idx;
                ot_dtype[n_ot] = dt;
                n_ot++;
            }
        }
    }

    /* log level: the library's own messages stay quiet unless asked for */
    const char *log = g_flags[F_LOG].val;
    if (!rc && log) {
        static const char *const lv[] = { "debug", "info", "warning", "error", "null" };
        int l = -1;
        for (int i = 0; i < 5; i++) if (!strcmp(log, lv[i])) l = i;
        if (l < 0) rc = fail_value("log", log, "expected debug, info, warning, error or null");
        else {
            setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
            acl_log_reload_env();
            acl_log_set_level(l);
        }
    }

    void *onnx = NULL;
    size_t onnx_len = 0;
    if (!rc) {
        onnx = map_file(model, &onnx_len, "model");
        if (!onnx) rc = 1;
        else if (eng_is_compiled(onnx, onnx_len))
            rc = fail_value("model", model, "this is already an openacl compiled model");
    }
    aipp_cfg *aipp = NULL;
    int n_aipp = 0;
    const char *aipp_path = g_flags[F_AIPP].val;
    if (!rc && aipp_path) {
        size_t alen = 0;
        void *text = map_file(aipp_path, &alen, "insert_op_conf");
        if (!text) rc = 1;
        else {
            int prc = aipp_parse(aipp_path, text, alen, &aipp, &n_aipp);
            munmap(text, alen);
            if (prc) rc = fail_lib("reading --insert_op_conf", prc);
        }
    }
    if (!rc) {
        printf("ATC start working now, please wait for a moment.\n");
        fflush(stdout);
        prog pr = { isatty(2), {0, 0}, 0 };
        clock_gettime(CLOCK_MONOTONIC, &pr.t0);
        const char **snames = calloc((size_t)n_shapes + 1, sizeof *snames);
        g_shape *sv = calloc((size_t)n_shapes + 1, sizeof *sv);
        int64_t *lo = calloc(((size_t)n_shapes + 1) * G_MAX_RANK, sizeof *lo);
        int64_t *hi = calloc(((size_t)n_shapes + 1) * G_MAX_RANK, sizeof *hi);
        for (int i = 0; i < n_shapes; i++) {
            snames[i] = shapes[i].name;
            sv[i] = shapes[i].s;
            memcpy(lo + (size_t)i * G_MAX_RANK, shapes[i].lo, sizeof shapes[i].lo);
            memcpy(hi + (size_t)i * G_MAX_RANK, shapes[i].hi, sizeof shapes[i].hi);
        }
        char *dir = strdup(model), *slash = strrchr(dir, '/');
        if (slash) *(slash == dir ? slash + 1 : slash) = 0;
        else strcpy(dir, ".");
        char *cmd = join_args(argc, argv);
        eng_compile_req r = {
            .base_dir = dir, .threads = threads, .n_shapes = n_shapes, .shape_names = snames, .shapes = sv,
            .lo = lo, .hi = hi, .gear_kind = gear_kind, .n_gears = n_gears, .gear_nvals = width,
            .gear_vals = gvals, .n_fp16 = n_fp16, .fp16_inputs = (const char *const *)fp16, .out_dtype = out_dtype,
            .n_out_types = n_ot, .out_type_node = ot_node, .out_type_index = ot_index, .out_type_dtype = ot_dtype,
            .soc_version = g_flags[F_SOC].val ? g_flags[F_SOC].val : "", .precision_mode = precision,
            .input_format = fmt, .framework = "5 (ONNX)", .cmdline = cmd, .progress = on_progress,
            .progress_ctx = &pr, .precision = prec, .n_aipp = n_aipp, .aipp = aipp, .aipp_src = aipp_path,
        };
        void *img = NULL;
        size_t img_len = 0;
        int crc = eng_compile(onnx, onnx_len, &r, &img, &img_len);
        progress_done(&pr);
        double secs = secs_since(&pr.t0);
        if (crc) {
            rc = fail_lib("compiling the model", crc);
        } else {
            size_t ol = strlen(output);
            char *path = malloc(ol + 4);
            memcpy(path, output, ol);
            memcpy(path + ol, ".om", 4);
            rc = write_file(path, img, img_len);
            if (!rc)
                printf("ATC: wrote %s (%zu bytes, %s%d program%s, %s compute) in %.2f s\n", path, img_len,
                       gear_kind ? "gears: " : "", gear_kind ? n_gears : 1, (gear_kind ? n_gears : 1) > 1 ? "s" : "",
                       prec == ENG_PRECISION_BF16 ? "bfloat16" : "float32", secs);
            free(path);
        }
        free(img);
        free(snames); free(sv); free(lo); free(hi); free(dir); free(cmd);
        munmap(onnx, onnx_len);
    } else if (onnx) {
        munmap(onnx, onnx_len);
    }
    for (int i = 0; i < n_shapes; i++) free(shapes[i].name);
    free(shapes); free(gvals); free(fp16); free(fp16dup); free(otdup); free(aipp);
    if (!rc) printf("ATC run success, welcome to the next use.\n");
    return rc;
}

int main(int argc, char **argv)
{
    acl_log_set_level(4);   /* errors are printed below, once, in ATC's form */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "--version")) { printf("atc (openacl) %s\n", eng_kernel_abi()); return 0; }
        if (strncmp(a, "--", 2)) {
            fail("E10001", "unexpected argument \"%s\": parameters are --name=value", a);
            goto out;
        }
        const char *eq = strchr(a + 2, '=');
        size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        const char *val = eq ? eq + 1 : NULL;
        int f = -1;
        for (int k = 0; k < F_N; k++)
            if (strlen(g_flags[k].name) == nl && !strncmp(g_flags[k].name, a + 2, nl)) f = k;
        if (f < 0) {
            fail("E10001", "[--%.*s] is not a valid parameter (see atc --help)", (int)nl, a + 2);
            goto out;
        }
        if (!val) {
            if (i + 1 >= argc) { fail("E10004", "parameter [--%s] needs a value", g_flags[f].name); goto out; }
            val = argv[++i];
        }
        if (g_flags[f].seen) { fail("E10001", "parameter [--%s] is given twice", g_flags[f].name); goto out; }
        if (!*val) { fail("E10004", "parameter [--%s] is empty", g_flags[f].name); goto out; }
        g_flags[f].val = val;
        g_flags[f].seen = 1;
    }
    {
        int64_t mode = 0;
        if (g_flags[F_MODE].val && (!parse_i64(g_flags[F_MODE].val, &mode) || (mode != 0 && mode != 1))) {
            const char *v = g_flags[F_MODE].val;
            if (parse_i64(v, &mode) && (mode == 3 || mode == 5 || mode == 6 || mode == 7 || mode == 30))
                fail_value("mode", v, "mode %lld is not supported by openacl's atc (0 = compile, 1 = compiled model "
                           "to JSON)", (long long)mode);
            else
                fail_value("mode", v, "expected 0 (compile) or 1 (compiled model to JSON)");
            goto out;
        }
        if (argc < 2) {
            usage(stderr);
            g_failed = 1;
            goto out;
        }
        if (mode == 1) mode_json();
        else mode_compile(argc, argv);
    }
out:
    if (g_failed) {
        fprintf(stderr, "ATC run failed, Please check the detail log, Try 'atc --help' for more information\n");
        return 1;
    }
    return 0;
}
