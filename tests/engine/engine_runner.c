/* ONNX backend test data through the engine API (eng_load / eng_run): each
 * test case runs in a forked child with a time limit so a crash or a hang is
 * counted, not fatal. Prints per-suite passed / failed / unsupported /
 * crashed / timeout and writes one line per case to a results file.
 *
 * usage: engine_runner [--data DIR] [--suite NAME]... [--filter SUBSTR]
 *                      [--results FILE] [--timeout SEC] [--min-node-pass PCT]
 *                      [--verbose] [--inproc]
 * --inproc runs every case in this process (no isolation; for leak checkers
 * and debuggers).
 * Exit status: 1 when anything crashed or timed out, or when the node suite's
 * pass rate is below --min-node-pass; otherwise 0. */
#include "engine/engine.h"
#include "acl/acl_base.h"
#include "onnx_testdata.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *aclGetRecentErrMsg(void);

enum { R_PASS = 0, R_FAIL = 1, R_UNSUP = 2, R_CRASH = 3, R_TIMEOUT = 4, R_NDATA = 5 };
static const char *const rname[] = { "PASS", "FAIL", "UNSUPPORTED", "CRASH", "TIMEOUT", "NODATA" };

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted subdirectory names of dir matching prefix. */
static char **list_dirs(const char *dir, const char *prefix, int *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) return NULL;
    char **v = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix))) continue;
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) || !S_ISDIR(st.st_mode)) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (v) qsort(v, (size_t)*n, sizeof *v, cmp_str);
    return v;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void *alloc_out(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n ? n : 1);
}

static void one_line(char *s)
{
    for (; *s; s++) if (*s == '\n' || *s == '\r') *s = ' ';
}

static int value_kind(int dtype)
{
    return g_is_seq(dtype) ? OTD_SEQUENCE : g_is_opt(dtype) ? OTD_OPTIONAL : OTD_TENSOR;
}

static void tensor_view(const otd_tensor *t, k_tensor *x)
{
    memset(x, 0, sizeof *x);
    x->dtype = t->dtype;
    x->shape.rank = t->rank;
    for (int d = 0; d < t->rank && d < G_MAX_RANK; d++) x->shape.d[d] = t->dims[d];
    x->data = t->data;
    x->nbytes = t->nbytes;
}

/* A test-data value as an engine value: tensors point at the file's bytes,
 * containers become k_seq objects (released with k_value_free). */
static int to_engine(const otd_value *v, int want, k_tensor *x)
{
    if (v->kind == OTD_TENSOR) {
        tensor_view(&v->t, x);
        /* the 1.12 test data stores bfloat16 tensors as uint16 */
        if (x->dtype == 4 && want == G_BF16) x->dtype = G_BF16;
        return 0;
    }
    k_seq *q = k_seq_new();
    if (!q) return -1;
    int elem = g_container_elem(want), inner = G_UNDEF;
    for (int i = 0; i < v->n; i++) {
        k_tensor it;
        if (to_engine(&v->items[i], elem, &it)) { k_seq_free(q); return -1; }
        int rc = k_seq_insert(q, q->n, &it);
        inner = it.dtype;
        if (v->items[i].kind != OTD_TENSOR) k_value_free(&it);
        if (rc) { k_seq_free(q); return -1; }
    }
    memset(x, 0, sizeof *x);
    if (v->kind == OTD_SEQUENCE)
        x->dtype = G_SEQ_BASE + (inner != G_UNDEF ? inner : g_container_elem(want));
    else
        x->dtype = G_OPT_BASE + (inner != G_UNDEF ? inner : g_container_elem(want));
    x->data = q;
    x->nbytes = sizeof(k_seq);
    return 0;
}

static void release_engine(const otd_value *v, k_tensor *x)
{
    if (v->kind != OTD_TENSOR) k_value_free(x);
}

/* Compares an engine value with the expected one; 0 when they match. */
static int compare_value(const otd_value *e, const k_tensor *a, char *msg, size_t len)
{
    if (e->kind == OTD_TENSOR) {
        if (g_is_container(a->dtype)) {
            snprintf(msg, len, "got a %s, expected a tensor", g_dtype_name(a->dtype));
            return 1;
        }
        otd_tensor t = e->t;
        if (t.dtype == 4 && a->dtype == G_BF16) t.dtype = G_BF16;
        return otd_compare(&t, a->dtype, a->shape.rank, a->shape.d, a->data, a->nbytes,
                           otd_default_tol(t.dtype), msg, len);
    }
    int want_seq = e->kind == OTD_SEQUENCE;
    if (want_seq ? !g_is_seq(a->dtype) : !g_is_opt(a->dtype)) {
        snprintf(msg, len, "got a %s, expected a %s", g_dtype_name(a->dtype),
                 want_seq ? "sequence" : "optional");
        return 1;
    }
    const k_seq *q = a->data;
    if (!q || q->n != e->n) {
        snprintf(msg, len, "%d elements, expected %d", q ? q->n : -1, e->n);
        return 1;
    }
    for (int i = 0; i < e->n; i++) {
        char sub[400];
        if (compare_value(&e->items[i], &q->items[i], sub, sizeof sub)) {
            snprintf(msg, len, "element %d: %s", i, sub);
            return 1;
        }
    }
    return 0;
}

/* Runs one test case in this (child) process. Writes its message to msg. */
static int run_case(const char *dir, char *msg, size_t len)
{
    char path[8448];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    void *buf;
    size_t blen;
    if (otd_read_file(path, &buf, &blen)) {
        snprintf(msg, len, "no model.onnx: %s", strerror(errno));
        return R_NDATA;
    }
    eng_opts o = { .threads = 0, .base_dir = dir };
    eng_model *m = NULL;
    int rc = eng_load(buf, blen, &o, &m);
    free(buf);
    if (rc) {
        snprintf(msg, len, "load refused (%d): %s", rc, aclGetRecentErrMsg());
        return R_UNSUP;
    }
    int nset = 0, result = R_PASS;
    char **sets = list_dirs(dir, "test_data_set_", &nset);
    if (!nset) { snprintf(msg, len, "no test_data_set_*"); eng_free(m); return R_NDATA; }
    int ni = eng_num_inputs(m), no = eng_num_outputs(m);
    k_tensor *in = calloc((size_t)ni + 1, sizeof *in), *out = calloc((size_t)no + 1, sizeof *out);
    otd_value *vi = calloc((size_t)ni + 1, sizeof *vi), *vo = calloc((size_t)no + 1, sizeof *vo);
    int *slot = calloc((size_t)ni + 1, sizeof *slot);
    msg[0] = 0;
    for (int s = 0; s < nset && result == R_PASS; s++) {
        char sd[4096];
        snprintf(sd, sizeof sd, "%s/%s", dir, sets[s]);
        char err[256];
        int nin_files = 0;
        for (;; nin_files++) {
            snprintf(path, sizeof path, "%s/input_%d.pb", sd, nin_files);
            if (access(path, R_OK)) break;
        }
        if (nin_files != ni) {
            snprintf(msg, len, "%s: %d input files, the model has %d inputs", sets[s], nin_files, ni);
            result = R_FAIL;
            break;
        }
        int loaded = 0;
        for (int i = 0; i < ni && result == R_PASS; i++, loaded++) {
            snprintf(path, sizeof path, "%s/input_%d.pb", sd, i);
            int want = eng_input(m, i)->dtype;
            if (otd_load_value(path, value_kind(want), &vi[i], err, sizeof err)) {
                snprintf(msg, len, "input_%d.pb: %s", i, err);
                result = R_UNSUP;
                break;
            }
            /* match by name when the file names a model input */
            int k = i;
            for (int j = 0; j < ni && vi[i].kind == OTD_TENSOR && vi[i].t.name[0]; j++)
                if (!strcmp(eng_input(m, j)->name, vi[i].t.name)) k = j;
            slot[i] = k;
            if (to_engine(&vi[i], eng_input(m, k)->dtype, &in[k])) {
                snprintf(msg, len, "input_%d.pb: out of memory", i);
                result = R_FAIL;
            }
        }
        for (int i = 0; i < no; i++) memset(&out[i], 0, sizeof out[i]);
        if (result == R_PASS) {
            rc = eng_run(m, NULL, in, ni, out, no, alloc_out, NULL);
            if (rc) {
                snprintf(msg, len, "%s: run failed (%d): %s", sets[s], rc, aclGetRecentErrMsg());
                /* a feature refused with its own code when the value that
                 * decides it is only known at run time (training-mode
                 * Dropout) is a refusal, not a wrong answer */
                result = rc == ACL_ERROR_FEATURE_UNSUPPORTED ? R_UNSUP : R_FAIL;
            }
        }
        for (int i = 0; i < no && result == R_PASS; i++) {
            snprintf(path, sizeof path, "%s/output_%d.pb", sd, i);
            if (otd_load_value(path, value_kind(eng_output(m, i)->dtype), &vo[i], err, sizeof err)) {
                snprintf(msg, len, "output_%d.pb: %s", i, err);
                result = R_UNSUP;
                break;
            }
            char cm[1024];
            if (compare_value(&vo[i], &out[i], cm, sizeof cm)) {
                snprintf(msg, len, "%s output %d '%s': %s", sets[s], i, eng_output(m, i)->name, cm);
                result = R_FAIL;
            }
            otd_value_free(&vo[i]);
        }
        for (int i = 0; i < no; i++) { k_value_free(&out[i]); }
        for (int i = 0; i < loaded && i < ni; i++) {
            release_engine(&vi[i], &in[slot[i]]);
            otd_value_free(&vi[i]);
        }
    }
    free(in); free(out); free(vi); free(vo); free(slot);
    free_list(sets, nset);
    eng_free(m);
    return result;
}

typedef struct counts { int n[6]; } counts;

int main(int argc, char **argv)
{
    const char *data = "/usr/share/libonnx-testdata/data", *filter = NULL, *results = NULL;
    const char *suites[16];
    int nsuites = 0, timeout = 60, verbose = 0, inproc = 0;
    double min_node = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--suite") && i + 1 < argc && nsuites < 16) suites[nsuites++] = argv[++i];
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
        else if (!strcmp(argv[i], "--results") && i + 1 < argc) results = argv[++i];
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min-node-pass") && i + 1 < argc) min_node = atof(argv[++i]);
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else if (!strcmp(argv[i], "--inproc")) inproc = 1;
        else { fprintf(stderr, "engine_runner: unknown argument '%s'\n", argv[i]); return 2; }
    }
    int nall = 0;
    char **all = NULL;
    if (!nsuites) {
        all = list_dirs(data, "", &nall);
        for (int i = 0; i < nall && nsuites < 16; i++) suites[nsuites++] = all[i];
    }
    FILE *rf = results ? fopen(results, "w") : NULL;
    if (results && !rf) { fprintf(stderr, "engine_runner: cannot write %s\n", results); return 2; }
    counts tot = { { 0 } }, node = { { 0 } };
    fflush(stdout);
    for (int s = 0; s < nsuites; s++) {
        char sdir[4096];
        snprintf(sdir, sizeof sdir, "%s/%s", data, suites[s]);
        int nt = 0;
        char **tests = list_dirs(sdir, "test_", &nt);
        counts c = { { 0 } };
        for (int t = 0; t < nt; t++) {
            if (filter && !strstr(tests[t], filter)) continue;
            char dir[8192];
            snprintf(dir, sizeof dir, "%s/%s", sdir, tests[t]);
            if (access(dir, F_OK)) continue;
            char mpath[8300];
            snprintf(mpath, sizeof mpath, "%s/model.onnx", dir);
            if (access(mpath, R_OK)) { c.n[R_NDATA]++; continue; }   /* e.g. real/: data elsewhere */
            if (inproc) {
                static char imsg[8192];
                int res = run_case(dir, imsg, sizeof imsg);
                one_line(imsg);
                c.n[res]++;
                if (rf) fprintf(rf, "%s/%s %s %s\n", suites[s], tests[t], rname[res], imsg);
                if (verbose) printf("%s/%s %s %s\n", suites[s], tests[t], rname[res], imsg);
                continue;
            }
            int pfd[2];
            if (pipe(pfd)) { perror("pipe"); return 2; }
            fflush(stdout);
            pid_t pid = fork();
            if (pid < 0) { perror("fork"); return 2; }
            if (pid == 0) {
                close(pfd[0]);
                alarm((unsigned)timeout);
                static char msg[8192];
                int r = run_case(dir, msg, sizeof msg);
                one_line(msg);
                size_t ml = strlen(msg);
                ssize_t w = write(pfd[1], msg, ml);
                (void)w;
                close(pfd[1]);
                _exit(r);
            }
            close(pfd[1]);
            char msg[8192];
            size_t got = 0;
            for (;;) {
                ssize_t r = read(pfd[0], msg + got, sizeof msg - 1 - got);
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) break;
                got += (size_t)r;
                if (got >= sizeof msg - 1) break;
            }
            msg[got] = 0;
            close(pfd[0]);
            int st = 0, res;
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            if (WIFEXITED(st) && WEXITSTATUS(st) <= R_NDATA) res = WEXITSTATUS(st);
            else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
                res = R_TIMEOUT;
                snprintf(msg, sizeof msg, "no result after %d s", timeout);
            } else {
                res = R_CRASH;
                snprintf(msg + strlen(msg), sizeof msg - strlen(msg), " [%s %d]",
                         WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            }
            c.n[res]++;
            if (rf) fprintf(rf, "%s/%s %s %s\n", suites[s], tests[t], rname[res], msg);
            if (verbose || res == R_CRASH || res == R_TIMEOUT)
                printf("%s/%s %s %s\n", suites[s], tests[t], rname[res], msg);
        }
        int ran = c.n[R_PASS] + c.n[R_FAIL] + c.n[R_UNSUP] + c.n[R_CRASH] + c.n[R_TIMEOUT];
        printf("%-20s passed %4d / %4d (%5.1f%%)  failed %3d  unsupported %3d  crashed %d  timeout %d%s\n",
               suites[s], c.n[R_PASS], ran, ran ? 100.0 * c.n[R_PASS] / ran : 0.0, c.n[R_FAIL],
               c.n[R_UNSUP], c.n[R_CRASH], c.n[R_TIMEOUT],
               c.n[R_NDATA] ? "  (some without data)" : "");
        for (int k = 0; k < 6; k++) tot.n[k] += c.n[k];
        if (!strcmp(suites[s], "node")) node = c;
        free_list(tests, nt);
    }
    int ran = tot.n[R_PASS] + tot.n[R_FAIL] + tot.n[R_UNSUP] + tot.n[R_CRASH] + tot.n[R_TIMEOUT];
    printf("%-20s passed %4d / %4d (%5.1f%%)  failed %3d  unsupported %3d  crashed %d  timeout %d\n",
           "total", tot.n[R_PASS], ran, ran ? 100.0 * tot.n[R_PASS] / ran : 0.0, tot.n[R_FAIL],
           tot.n[R_UNSUP], tot.n[R_CRASH], tot.n[R_TIMEOUT]);
    if (rf) fclose(rf);
    int bad = tot.n[R_CRASH] + tot.n[R_TIMEOUT] > 0;
    int node_ran = node.n[R_PASS] + node.n[R_FAIL] + node.n[R_UNSUP] + node.n[R_CRASH] + node.n[R_TIMEOUT];
    if (min_node >= 0 && node_ran) {
        double pct = 100.0 * node.n[R_PASS] / node_ran;
        if (pct < min_node) {
            printf("node pass rate %.1f%% is below the floor %.1f%%\n", pct, min_node);
            bad = 1;
        }
    }
    if (all) free_list(all, nall);
    return bad;
}
