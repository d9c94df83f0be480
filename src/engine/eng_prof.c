/* Chrome-trace profile of kernel calls (see eng_prof.h). Events keep only
 * interned copies of names, so models may be unloaded before the trace is
 * written at exit. */
#include "engine/eng_prof.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int eng_prof_on;

typedef struct prof_ev {
    const char *name, *cat, *impl, *shape;
    double ts, dur;
    int tid, model;
} prof_ev;

#define PROF_MAX_EVENTS (1 << 21)

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char *g_path, *g_csv;         /* trace and op summary files */
static int g_owner = -1;             /* ENG_PROF_BY_* of the session recording, -1 none */
static prof_ev *g_ev;
static size_t g_nev, g_capev, g_dropped;
static char **g_str;                 /* interned strings, open addressing */
static size_t g_capstr, g_nstr;
static const void **g_models;        /* graphs seen, in order: their index names them */
static int g_nmodels, g_capmodels;
static double g_t0;
static __thread int t_tid;

/* OPENACL_PROFILE_CLOCK=cpu: the process's CPU time instead of wall time
 * (read once), so that on a host shared with other work a node's time
 * leaves out the time it waited for a core. */
static pthread_once_t g_clock_once = PTHREAD_ONCE_INIT;
static clockid_t g_clock = CLOCK_MONOTONIC;

static void clock_setup(void)
{
    const char *e = getenv("OPENACL_PROFILE_CLOCK");
    if (e && !strcmp(e, "cpu")) g_clock = CLOCK_PROCESS_CPUTIME_ID;
}

double eng_prof_now(void)
{
    struct timespec ts;
    pthread_once(&g_clock_once, clock_setup);
    clock_gettime(g_clock, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void prof_atexit(void) { eng_prof_flush(); }

static void prof_setup(void)
{
    const char *e = getenv("OPENACL_PROFILE");
    if (!e || !*e) return;
    g_path = strdup(e);
    size_t n = strlen(e);
    if (n > 5 && !strcmp(e + n - 5, ".json")) n -= 5;
    g_csv = malloc(n + 20);
    if (!g_path || !g_csv) { free(g_path); free(g_csv); g_path = g_csv = NULL; return; }
    snprintf(g_csv, n + 20, "%.*s_op_summary.csv", (int)n, e);
    g_owner = ENG_PROF_BY_ENV;
    g_t0 = eng_prof_now();
    atexit(prof_atexit);
    eng_prof_on = 1;
}

void eng_prof_init(void) { pthread_once(&g_once, prof_setup); }

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Interned copy of s (lock held); NULL on out of memory. */
static const char *intern(const char *s)
{
    if (!s) s = "";
    if (g_nstr * 2 >= g_capstr) {
        size_t nc = g_capstr ? g_capstr * 2 : 1024;
        char **nt = calloc(nc, sizeof *nt);
        if (!nt) return NULL;
        for (size_t i = 0; i < g_capstr; i++) {
            if (!g_str[i]) continue;
            size_t k = hash_str(g_str[i]) & (nc - 1);
            while (nt[k]) k = (k + 1) & (nc - 1);
            nt[k] = g_str[i];
        }
        free(g_str);
        g_str = nt;
        g_capstr = nc;
    }
    size_t k = hash_str(s) & (g_capstr - 1);
    while (g_str[k]) {
        if (!strcmp(g_str[k], s)) return g_str[k];
        k = (k + 1) & (g_capstr - 1);
    }
    g_str[k] = strdup(s);
    if (g_str[k]) g_nstr++;
    return g_str[k];
}

static int model_index(const void *g)
{
    for (int i = g_nmodels - 1; i >= 0; i--)
        if (g_models[i] == g) return i;
    if (g_nmodels == g_capmodels) {
        int nc = g_capmodels ? 2 * g_capmodels : 8;
        const void **v = realloc(g_models, (size_t)nc * sizeof *v);
        if (!v) return -1;
        g_models = v;
        g_capmodels = nc;
    }
    g_models[g_nmodels] = g;
    return g_nmodels++;
}

static prof_ev *new_event(void)
{
    if (g_nev >= PROF_MAX_EVENTS) { g_dropped++; return NULL; }
    if (g_nev == g_capev) {
        size_t nc = g_capev ? 2 * g_capev : 4096;
        prof_ev *v = realloc(g_ev, nc * sizeof *v);
        if (!v) { g_dropped++; return NULL; }
        g_ev = v;
        g_capev = nc;
    }
    return &g_ev[g_nev++];
}

static int tid(void)
{
    if (!t_tid) t_tid = (int)syscall(SYS_gettid);
    return t_tid;
}

void eng_prof_node(const g_graph *g, const g_node *n, const k_tensor *out0, double t0, double t1)
{
    char shape[160] = "";
    if (out0 && out0->shape.rank >= 0) {
        size_t k = 0;
        for (int i = 0; i < out0->shape.rank && k + 24 < sizeof shape; i++)
            k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", i ? "x" : "",
                                  (long long)out0->shape.d[i]);
        if (out0->layout == G_LAYOUT_NHWC && k + 8 < sizeof shape)
            snprintf(shape + k, sizeof shape - k, " nhwc");
    }
    int id = tid();
    pthread_mutex_lock(&g_lock);
    prof_ev *e = new_event();
    if (e) {
        e->name = intern(n->name && *n->name ? n->name : n->op_type);
        e->cat = intern(n->op_type);
        e->impl = intern(n->op && n->op->impl ? n->op->impl : "?");
        e->shape = intern(shape);
        e->ts = t0;
        e->dur = t1 - t0;
        e->tid = id;
        e->model = model_index(g);
        if (!e->name || !e->cat || !e->impl || !e->shape) { g_nev--; g_dropped++; }
    }
    pthread_mutex_unlock(&g_lock);
}

void eng_prof_run(const g_graph *g, int dynamic, double t0, double t1)
{
    int id = tid();
    pthread_mutex_lock(&g_lock);
    prof_ev *e = new_event();
    if (e) {
        e->name = intern(dynamic ? "run (dynamic)" : "run");
        e->cat = intern("run");
        e->impl = intern("");
        e->shape = intern("");
        e->ts = t0;
        e->dur = t1 - t0;
        e->tid = id;
        e->model = model_index(g);
        if (!e->name || !e->cat || !e->impl || !e->shape) { g_nev--; g_dropped++; }
    }
    pthread_mutex_unlock(&g_lock);
}

static void put_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* One row of the op summary: the events of one node (name, type, impl). */
typedef struct prof_row {
    const char *name, *cat, *impl;
    long calls;
    double total, max, min;
    int model;
} prof_row;

static int ev_cmp(const void *a, const void *b)
{
    const prof_ev *x = *(prof_ev *const *)a, *y = *(prof_ev *const *)b;
    if (x->model != y->model) return x->model < y->model ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->cat != y->cat) return x->cat < y->cat ? -1 : 1;
    return x->impl < y->impl ? -1 : x->impl > y->impl;
}

static int row_cmp(const void *a, const void *b)
{
    const prof_row *x = a, *y = b;
    return x->total > y->total ? -1 : x->total < y->total;
}

static void put_csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
    fputc('"', f);
}

/* The op summary of the recorded node events (lock held); 0 or -1. */
static int write_summary(const char *path)
{
    prof_ev **v = malloc((g_nev ? g_nev : 1) * sizeof *v);
    prof_row *rows = malloc((g_nev ? g_nev : 1) * sizeof *rows);
    FILE *f = (v && rows) ? fopen(path, "w") : NULL;
    if (!f) { free(v); free(rows); return -1; }
    size_t n = 0, nr = 0;
    double all = 0;
    for (size_t i = 0; i < g_nev; i++)
        if (strcmp(g_ev[i].cat, "run")) { v[n++] = &g_ev[i]; all += g_ev[i].dur; }
    qsort(v, n, sizeof *v, ev_cmp);
    for (size_t i = 0; i < n; i++) {
        const prof_ev *e = v[i];
        if (!i || ev_cmp(&v[i - 1], &v[i]))
            rows[nr++] = (prof_row){ e->name, e->cat, e->impl, 0, 0, e->dur, e->dur, e->model };
        prof_row *r = &rows[nr - 1];
        r->calls++;
        r->total += e->dur;
        if (e->dur > r->max) r->max = e->dur;
        if (e->dur < r->min) r->min = e->dur;
    }
    qsort(rows, nr, sizeof *rows, row_cmp);
    fputs("Model,Op Name,OP Type,Implementation,Calls,Total Time(us),Avg Time(us),Max Time(us),"
          "Min Time(us),Ratio(%)\n", f);
    for (size_t i = 0; i < nr; i++) {
        const prof_row *r = &rows[i];
        fprintf(f, "%d,", r->model);
        put_csv_str(f, r->name);
        fputc(',', f);
        put_csv_str(f, r->cat);
        fputc(',', f);
        put_csv_str(f, r->impl);
        fprintf(f, ",%ld,%.3f,%.3f,%.3f,%.3f,%.2f\n", r->calls, r->total, r->total / (double)r->calls,
                r->max, r->min, all > 0 ? 100.0 * r->total / all : 0.0);
    }
    free(v);
    free(rows);
    int bad = ferror(f);
    if (fclose(f)) bad = 1;
    return bad ? -1 : 0;
}

int eng_prof_start(const char *dir, int owner)
{
    eng_prof_init();
    if (!dir || !*dir) return acl_fail(ACL_ERROR_INVALID_PARAM, "profiler: the output folder is empty");
    pthread_mutex_lock(&g_lock);
    if (g_owner >= 0) {
        pthread_mutex_unlock(&g_lock);
        return acl_fail(ACL_ERROR_PROF_ALREADY_RUN, "profiler: a profile is already being recorded (by %s)",
                        g_owner == ENG_PROF_BY_ENV ? "OPENACL_PROFILE" :
                        g_owner == ENG_PROF_BY_CONFIG ? "the aclInit profiler section" : "aclprofStart");
    }
    size_t n = strlen(dir) + 20;
    char *p = malloc(n), *c = malloc(n);
    if (!p || !c) {
        free(p); free(c);
        pthread_mutex_unlock(&g_lock);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "profiler: out of memory");
    }
    /* a process that exits without aclFinalize / aclprofStop still gets its files */
    static int at_exit;
    if (!at_exit && g_owner < 0 && !atexit(prof_atexit)) at_exit = 1;
    snprintf(p, n, "%s/op_trace.json", dir);
    snprintf(c, n, "%s/op_summary.csv", dir);
    free(g_path); free(g_csv);
    g_path = p; g_csv = c;
    g_nev = g_dropped = 0;
    g_nmodels = 0;
    g_t0 = eng_prof_now();
    g_owner = owner;
    eng_prof_on = 1;
    pthread_mutex_unlock(&g_lock);
    return 0;
}

int eng_prof_stop(int owner)
{
    eng_prof_init();
    pthread_mutex_lock(&g_lock);
    int mine = g_owner == owner && owner != ENG_PROF_BY_ENV;
    pthread_mutex_unlock(&g_lock);
    if (!mine) return 0;
    int rc = eng_prof_flush();
    pthread_mutex_lock(&g_lock);
    eng_prof_on = 0;
    g_owner = -1;
    g_nev = g_dropped = 0;
    pthread_mutex_unlock(&g_lock);
    return rc;
}

int eng_prof_flush(void)
{
    if (!eng_prof_on || !g_path) return 0;
    pthread_mutex_lock(&g_lock);
    FILE *f = fopen(g_path, "w");
    if (!f) {
        pthread_mutex_unlock(&g_lock);
        return acl_fail(ACL_ERROR_INVALID_FILE, "profiler: cannot write %s", g_path);
    }
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"openacl\",\"events\":%zu,"
               "\"dropped\":%zu},\n\"traceEvents\":[\n", g_nev, g_dropped);
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"openacl\"}}");
    for (size_t i = 0; i < g_nev; i++) {
        const prof_ev *e = &g_ev[i];
        fputs(",\n{\"name\":", f);
        put_json_str(f, e->name);
        fputs(",\"cat\":", f);
        put_json_str(f, e->cat);
        fprintf(f, ",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"op\":",
                e->tid, e->ts - g_t0, e->dur);
        put_json_str(f, e->cat);
        fputs(",\"impl\":", f);
        put_json_str(f, e->impl);
        fputs(",\"shape\":", f);
        put_json_str(f, e->shape);
        fprintf(f, ",\"model\":%d}}", e->model);
    }
    fputs("\n]}\n", f);
    int bad = ferror(f);
    if (fclose(f)) bad = 1;
    int bad_csv = g_csv && write_summary(g_csv);
    pthread_mutex_unlock(&g_lock);
    if (bad) return acl_fail(ACL_ERROR_INVALID_FILE, "profiler: writing %s failed", g_path);
    return bad_csv ? acl_fail(ACL_ERROR_INVALID_FILE, "profiler: writing %s failed", g_csv) : 0;
}
