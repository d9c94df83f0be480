/* ONNX backend test data through the PUBLIC API, the way an application
 * drives openacl: aclInit → aclrtSetDevice → aclmdlLoadFromFile(model.onnx)
 * → aclrtMalloc'd inputs filled with aclrtMemcpy (actual shapes given with
 * aclmdlSetDatasetTensorDesc) → aclmdlExecute (outputs of known size
 * preallocated, the others (NULL,0) for the runtime to allocate) → actual
 * output shapes from aclmdlGetDatasetTensorDesc → aclrtMemcpy back →
 * compare with output_*.pb → aclmdlUnload → aclFinalize.
 *
 * Each case runs in a forked child with a time limit, so a crash or hang is
 * counted, never fatal. Prints per suite passed / failed / unsupported
 * (refused at load) / crashed / timeout, and writes one line per case
 * ("suite/test RESULT message") to the results file.
 *
 * usage: backend_runner [--data DIR] [--suite NAME]... [--filter SUBSTR]
 *                       [--results FILE] [--timeout SEC] [--min-node-pass PCT]
 *                       [--verbose]
 * Exit status: 1 when a case crashed or timed out or the node suite's pass
 * rate is below --min-node-pass, else 0. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl.h"
#include "onnx_testdata.h"

enum { R_PASS = 0, R_FAIL = 1, R_UNSUP = 2, R_CRASH = 3, R_TIMEOUT = 4, R_NDATA = 5, R_N = 6 };
static const char *const rname[R_N] = {"PASS", "FAIL", "UNSUPPORTED", "CRASH", "TIMEOUT", "NODATA"};

/* ONNX TensorProto numbering <-> aclDataType. */
static const struct { int onnx; aclDataType acl; } dtmap[] = {
    {1, ACL_FLOAT}, {2, ACL_UINT8}, {3, ACL_INT8}, {4, ACL_UINT16}, {5, ACL_INT16}, {6, ACL_INT32},
    {7, ACL_INT64}, {8, ACL_STRING}, {9, ACL_BOOL}, {10, ACL_FLOAT16}, {11, ACL_DOUBLE}, {12, ACL_UINT32},
    {13, ACL_UINT64}, {14, ACL_COMPLEX64}, {15, ACL_COMPLEX128}, {16, ACL_BF16},
};

static int onnx_of_acl(aclDataType t)
{
    for (size_t i = 0; i < sizeof dtmap / sizeof dtmap[0]; i++)
        if (dtmap[i].acl == t)
            return dtmap[i].onnx;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **list_dirs(const char *dir, const char *prefix, int *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d)
        return NULL;
    char **v = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)))
            continue;
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) || !S_ISDIR(st.st_mode))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (v)
        qsort(v, (size_t)*n, sizeof *v, cmp_str);
    return v;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

static const char *last_msg(void)
{
    const char *m = aclGetRecentErrMsg();
    return m ? m : "(no message)";
}

static void destroy_dataset(aclmdlDataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); i++) {
        aclDataBuffer *b = aclmdlGetDatasetBuffer(ds, i);
        void *p = aclGetDataBufferAddr(b);
        if (p)
            aclrtFree(p);
        aclDestroyDataBuffer(b);
    }
    aclmdlDestroyDataset(ds);
}

/* One data set of a loaded model. Returns R_PASS/R_FAIL/R_UNSUP. */
static int run_set(uint32_t id, aclmdlDesc *desc, const char *sd, const char *set, char *msg, size_t len)
{
    int ni = (int)aclmdlGetNumInputs(desc), no = (int)aclmdlGetNumOutputs(desc);
    char path[4096], err[256];
    int nfiles = 0;
    for (;; nfiles++) {
        snprintf(path, sizeof path, "%s/input_%d.pb", sd, nfiles);
        if (access(path, R_OK))
            break;
    }
    if (nfiles != ni) {
        snprintf(msg, len, "%s: %d input files, the model has %d inputs", set, nfiles, ni);
        return R_FAIL;
    }
    int result = R_PASS;
    aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
    otd_tensor *ti = calloc((size_t)ni + 1, sizeof *ti);
    int *slot = calloc((size_t)ni + 1, sizeof *slot);
    aclDataBuffer **bufs = calloc((size_t)ni + 1, sizeof *bufs);
    /* read every input file and place it at the model input it names */
    for (int i = 0; i < ni && result == R_PASS; i++) {
        snprintf(path, sizeof path, "%s/input_%d.pb", sd, i);
        if (otd_load_tensor(path, &ti[i], err, sizeof err)) {
            snprintf(msg, len, "%s input_%d.pb: %s", set, i, err);
            result = R_UNSUP;
            break;
        }
        size_t k = (size_t)i;
        if (ti[i].name[0] && aclmdlGetInputIndexByName(desc, ti[i].name, &k) != ACL_SUCCESS) {
            (void)aclGetRecentErrMsg();
            k = (size_t)i;
        }
        slot[i] = (int)k;
    }
    for (int k = 0; k < ni && result == R_PASS; k++) {
        int i = 0;
        while (i < ni && slot[i] != k)
            i++;
        if (i == ni) {
            snprintf(msg, len, "%s: no input file for model input %d", set, k);
            result = R_FAIL;
            break;
        }
        otd_tensor *t = &ti[i];
        aclDataType want = aclmdlGetInputDataType(desc, (size_t)k);
        /* the 1.12 test data stores bfloat16 tensors as uint16 */
        if (t->dtype == 4 && want == ACL_BF16)
            t->dtype = 16;
        if (onnx_of_acl(want) != t->dtype) {
            snprintf(msg, len, "%s input %d: data is %s, the model declares aclDataType %d", set, k,
                     otd_dtype_name(t->dtype), (int)want);
            result = R_FAIL;
            break;
        }
        void *dev = NULL;
        if (aclrtMalloc(&dev, t->nbytes ? t->nbytes : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
            snprintf(msg, len, "%s: aclrtMalloc(%zu) failed: %s", set, t->nbytes, last_msg());
            result = R_FAIL;
            break;
        }
        if (t->nbytes && aclrtMemcpy(dev, t->nbytes, t->data, t->nbytes, ACL_MEMCPY_HOST_TO_DEVICE)) {
            snprintf(msg, len, "%s: aclrtMemcpy failed: %s", set, last_msg());
            aclrtFree(dev);
            result = R_FAIL;
            break;
        }
        bufs[k] = aclCreateDataBuffer(dev, t->nbytes);
    }
    for (int k = 0; k < ni && result == R_PASS; k++)
        aclmdlAddDatasetBuffer(in, bufs[k]);
    for (int k = 0; k < ni && result == R_PASS; k++) {
        int i = 0;
        while (slot[i] != k)
            i++;
        aclTensorDesc *td = aclCreateTensorDesc(aclmdlGetInputDataType(desc, (size_t)k), ti[i].rank, ti[i].dims,
                                                ti[i].rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_ND);
        if (!td || aclmdlSetDatasetTensorDesc(in, td, (size_t)k) != ACL_SUCCESS) {
            snprintf(msg, len, "%s: tensor descriptor for input %d: %s", set, k, last_msg());
            result = R_FAIL;
        }
        aclDestroyTensorDesc(td);
    }
    if (result != R_PASS) {
        for (int k = 0; k < ni; k++) {
            if (bufs[k] && aclmdlGetDatasetNumBuffers(in) == 0) {
                aclrtFree(aclGetDataBufferAddr(bufs[k]));
                aclDestroyDataBuffer(bufs[k]);
            }
        }
    }
    /* outputs: preallocated when the model knows the size, else (NULL, 0) */
    for (int o = 0; o < no && result == R_PASS; o++) {
        size_t sz = aclmdlGetOutputSizeByIndex(desc, (size_t)o);
        void *dev = NULL;
        if (sz && aclrtMalloc(&dev, sz, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
            snprintf(msg, len, "%s: aclrtMalloc(%zu) failed: %s", set, sz, last_msg());
            result = R_FAIL;
            break;
        }
        aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(dev, dev ? sz : 0));
    }
    if (result == R_PASS) {
        aclError erc = aclmdlExecute(id, in, out);
        if (erc != ACL_SUCCESS) {
            snprintf(msg, len, "%s: aclmdlExecute failed: %s", set, last_msg());
            /* refused at run time (e.g. training-mode Dropout, decided by an
             * input value): unsupported, not a wrong answer */
            result = erc == ACL_ERROR_FEATURE_UNSUPPORTED ? R_UNSUP : R_FAIL;
        }
    }
    for (int o = 0; o < no && result == R_PASS; o++) {
        otd_tensor e;
        snprintf(path, sizeof path, "%s/output_%d.pb", sd, o);
        if (otd_load_tensor(path, &e, err, sizeof err)) {
            snprintf(msg, len, "%s output_%d.pb: %s", set, o, err);
            result = R_UNSUP;
            break;
        }
        aclTensorDesc *td = aclmdlGetDatasetTensorDesc(out, (size_t)o);
        aclDataBuffer *b = aclmdlGetDatasetBuffer(out, (size_t)o);
        int dt = onnx_of_acl(aclGetTensorDescType(td));
        if (e.dtype == 4 && dt == 16)
            e.dtype = 16;
        size_t rank = aclGetTensorDescNumDims(td);
        int64_t dims[OTD_MAX_RANK] = {0};
        if (!td || rank > OTD_MAX_RANK) {
            snprintf(msg, len, "%s output %d: no usable tensor descriptor after execution", set, o);
            result = R_FAIL;
            otd_tensor_free(&e);
            break;
        }
        for (size_t d = 0; d < rank; d++)
            aclGetTensorDescDimV2(td, d, &dims[d]);
        size_t nb = aclGetTensorDescSize(td);
        if (nb > aclGetDataBufferSizeV2(b)) {
            snprintf(msg, len, "%s output %d: actual size %zu exceeds the buffer's %zu bytes", set, o, nb,
                     aclGetDataBufferSizeV2(b));
            result = R_FAIL;
            otd_tensor_free(&e);
            break;
        }
        void *host = malloc(nb ? nb : 1);
        if (nb)
            aclrtMemcpy(host, nb, aclGetDataBufferAddr(b), nb, ACL_MEMCPY_DEVICE_TO_HOST);
        char cm[512];
        if (otd_compare(&e, dt, (int)rank, dims, host, nb, otd_default_tol(e.dtype), cm, sizeof cm)) {
            snprintf(msg, len, "%s output %d '%s': %s", set, o, aclmdlGetOutputNameByIndex(desc, (size_t)o), cm);
            result = R_FAIL;
        }
        free(host);
        otd_tensor_free(&e);
    }
    for (int i = 0; i < ni; i++)
        otd_tensor_free(&ti[i]);
    free(ti);
    free(slot);
    free(bufs);
    destroy_dataset(in);
    destroy_dataset(out);
    return result;
}

/* One test case, in the (child) process. */
static int run_case(const char *dir, char *msg, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if (access(path, R_OK)) {
        snprintf(msg, len, "no model.onnx");
        return R_NDATA;
    }
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        snprintf(msg, len, "aclInit/aclrtSetDevice failed: %s", last_msg());
        return R_FAIL;
    }
    uint32_t id = 0;
    if (aclmdlLoadFromFile(path, &id) != ACL_SUCCESS) {
        snprintf(msg, len, "load refused: %s", last_msg());
        aclFinalize();
        return R_UNSUP;
    }
    aclmdlDesc *desc = aclmdlCreateDesc();
    int result = R_PASS;
    if (aclmdlGetDesc(desc, id) != ACL_SUCCESS) {
        snprintf(msg, len, "aclmdlGetDesc failed: %s", last_msg());
        result = R_FAIL;
    }
    int nset = 0;
    char **sets = list_dirs(dir, "test_data_set_", &nset);
    if (result == R_PASS && !nset) {
        snprintf(msg, len, "no test_data_set_*");
        result = R_NDATA;
    }
    msg[0] = 0;
    for (int s = 0; s < nset && result == R_PASS; s++) {
        char sd[4096];
        snprintf(sd, sizeof sd, "%s/%s", dir, sets[s]);
        result = run_set(id, desc, sd, sets[s], msg, len);
    }
    free_list(sets, nset);
    aclmdlDestroyDesc(desc);
    if (aclmdlUnload(id) != ACL_SUCCESS && result == R_PASS) {
        snprintf(msg, len, "aclmdlUnload failed: %s", last_msg());
        result = R_FAIL;
    }
    aclrtResetDevice(0);
    aclFinalize();
    return result;
}

typedef struct counts { int n[R_N]; } counts;

/* The current suite's case list: a forked child frees its copy before it
 * exits, so a leak-checking build reports only the case's own leaks. */
static char **g_tests;
static int g_nt;

static int ran_of(const counts *c)
{
    return c->n[R_PASS] + c->n[R_FAIL] + c->n[R_UNSUP] + c->n[R_CRASH] + c->n[R_TIMEOUT];
}

static void print_counts(const char *name, const counts *c)
{
    int ran = ran_of(c);
    printf("%-20s passed %4d / %4d (%5.1f%%)  failed %3d  unsupported %3d  crashed %d  timeout %d%s\n", name,
           c->n[R_PASS], ran, ran ? 100.0 * c->n[R_PASS] / ran : 0.0, c->n[R_FAIL], c->n[R_UNSUP], c->n[R_CRASH],
           c->n[R_TIMEOUT], c->n[R_NDATA] ? "  (some without data)" : "");
}

int main(int argc, char **argv)
{
    const char *data = "/usr/share/libonnx-testdata/data", *filter = NULL, *results = NULL;
    const char *suites[16];
    int nsuites = 0, timeout = 60, verbose = 0;
    double min_node = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc)
            data = argv[++i];
        else if (!strcmp(argv[i], "--suite") && i + 1 < argc && nsuites < 16)
            suites[nsuites++] = argv[++i];
        else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
            filter = argv[++i];
        else if (!strcmp(argv[i], "--results") && i + 1 < argc)
            results = argv[++i];
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
            timeout = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--min-node-pass") && i + 1 < argc)
            min_node = atof(argv[++i]);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else {
            fprintf(stderr, "backend_runner: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!nsuites) {
        static const char *const def[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
        for (int i = 0; i < 4; i++)
            suites[nsuites++] = def[i];
    }
    /* The library logs every failure at ERROR level; the results file has
     * the messages, so keep the console readable unless asked. */
    if (!verbose)
        setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 0);
    FILE *rf = results ? fopen(results, "w") : NULL;
    if (results && !rf) {
        fprintf(stderr, "backend_runner: cannot write %s\n", results);
        return 2;
    }
    counts tot = {{0}}, node = {{0}};
    for (int s = 0; s < nsuites; s++) {
        char sdir[4096];
        snprintf(sdir, sizeof sdir, "%s/%s", data, suites[s]);
        int nt = 0;
        char **tests = g_tests = list_dirs(sdir, "test_", &nt);
        g_nt = nt;
        counts c = {{0}};
        for (int t = 0; t < nt; t++) {
            if (filter && !strstr(tests[t], filter))
                continue;
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/%s", sdir, tests[t]);
            int pfd[2];
            if (pipe(pfd)) {
                perror("pipe");
                return 2;
            }
            fflush(stdout);
            fflush(rf);
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 2;
            }
            if (pid == 0) {
                close(pfd[0]);
                alarm((unsigned)timeout);
                static char msg[8192];
                int r = run_case(dir, msg, sizeof msg);
                free_list(g_tests, g_nt);
                if (rf)
                    fclose(rf);
                one_line(msg);
                ssize_t w = write(pfd[1], msg, strlen(msg));
                (void)w;
                close(pfd[1]);
                /* exit (not _exit) so a LeakSanitizer build checks each case:
                 * a leak turns into exit status 23, counted as a crash */
                exit(r);
            }
            close(pfd[1]);
            char msg[8192];
            size_t got = 0;
            for (;;) {
                ssize_t r = read(pfd[0], msg + got, sizeof msg - 1 - got);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r <= 0)
                    break;
                got += (size_t)r;
                if (got >= sizeof msg - 1)
                    break;
            }
            msg[got] = 0;
            close(pfd[0]);
            int st = 0, res;
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
            if (WIFEXITED(st) && WEXITSTATUS(st) < R_N) {
                res = WEXITSTATUS(st);
            } else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
                res = R_TIMEOUT;
                snprintf(msg, sizeof msg, "no result after %d s", timeout);
            } else {
                res = R_CRASH;
                size_t l = strlen(msg);
                snprintf(msg + l, sizeof msg - l, " [%s %d]", WIFSIGNALED(st) ? "signal" : "exit",
                         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            }
            c.n[res]++;
            if (rf)
                fprintf(rf, "%s/%s %s %s\n", suites[s], tests[t], rname[res], msg);
            if (verbose || res == R_CRASH || res == R_TIMEOUT)
                printf("%s/%s %s %s\n", suites[s], tests[t], rname[res], msg);
        }
        print_counts(suites[s], &c);
        for (int k = 0; k < R_N; k++)
            tot.n[k] += c.n[k];
        if (!strcmp(suites[s], "node"))
            node = c;
        free_list(tests, nt);
        g_tests = NULL;
    }
    print_counts("total", &tot);
    if (rf)
        fclose(rf);
    int bad = tot.n[R_CRASH] + tot.n[R_TIMEOUT] > 0;
    if (min_node >= 0 && ran_of(&node)) {
        double pct = 100.0 * node.n[R_PASS] / ran_of(&node);
        if (pct < min_node) {
            printf("node pass rate %.1f%% is below the floor %.1f%%\n", pct, min_node);
            bad = 1;
        }
    }
    return bad;
}
