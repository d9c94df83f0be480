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
static char *g_path;
static prof_ev *g_ev;
static size_t g_nev, g_capev, g_dropped;
static char **g_str;                 /* interned strings, open addressing */
static size_t g_capstr, g_nstr;
static const void **g_models;        /* graphs seen, in order: their index names them */
static int g_nmodels, g_capmodels;
static double g_t0;
static __thread int t_tid;

double eng_prof_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void prof_atexit(void) { eng_prof_flush(); }

static void prof_setup(void)
{
    const char *e = getenv("OPENACL_PROFILE");
    if (!e || !*e) return;
    g_path = strdup(e);
    if (!g_path) return;
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

int eng_prof_flush(void)
{
    if (!eng_prof_on || !g_path) return 0;
    pthread_mutex_lock(&g_lock);
    FILE *f = fopen(g_path, "w");
    if (!f) {
        pthread_mutex_unlock(&g_lock);
        return acl_fail(ACL_ERROR_INVALID_FILE, "OPENACL_PROFILE: cannot write %s", g_path);
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
    pthread_mutex_unlock(&g_lock);
    return bad ? acl_fail(ACL_ERROR_INVALID_FILE, "OPENACL_PROFILE: writing %s failed", g_path) : 0;
}
