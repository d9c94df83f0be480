/* The model repository and the execution side of openacl-server: the only
 * file that calls AscendCL. Layout <repo>/<model>/<version>/model.{om,onnx}
 * plus an optional <repo>/<model>/config.json. Each loaded model has one
 * bounded queue and N instances; an instance is a thread with its own
 * context, stream and loaded copy of the model, taking jobs from the queue,
 * grouping them onto the model's batch gears (padding to the nearest gear)
 * and splitting the outputs back.
 *
 * Locks: g_repo_mu guards the list of entries (never removed before
 * srv_repo_close); each model's `mu` guards its state, queue and instances.
 * Never take g_repo_mu while holding a model's mu. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "srv.h"

srv_settings g_srv = {0, 1024, 30000, 0};

typedef struct srv_instance {
    struct srv_model *m;
    int idx;
    int32_t device;
    pthread_t thread;
    int started, stop;
    int idle;                     /* waiting for work (guarded by the model's mu) */
    int borrowed;                 /* an HTTP thread runs a job on it right now */
    int load_state;               /* 0 pending, 1 loaded, -1 failed */
    char err[300];
    char path[4096];
    uint32_t model_id;
    int model_loaded;
    aclrtContext ctx;
    aclrtStream stream;
    aclmdlDesc *desc;
    aclmdlDataset *in_ds, *out_ds;
    size_t n_in, n_out;
    void *in_dev[SRV_MAX_IO + 1], *out_dev[SRV_MAX_IO];
    size_t in_size[SRV_MAX_IO + 1], out_size[SRV_MAX_IO];
} srv_instance;

struct srv_model {
    char name[SRV_NAME_MAX];
    struct srv_model *next;
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_state;
    int state;
    int busy;                     /* a load or unload is running */
    char reason[256], version[32], platform[32];
    uint64_t generation;
    srv_config cfg;
    srv_sig sig;
    int in_map[SRV_MAX_IO], out_map[SRV_MAX_IO];   /* public index -> model index */
    int gear_index;               /* ACL_DYNAMIC_TENSOR_NAME input, -1 without gears */
    int64_t gears[SRV_MAX_GEARS];
    int n_gears;
    size_t in_row[SRV_MAX_IO], out_row[SRV_MAX_IO];   /* bytes per batch row (whole tensor unbatched) */
    srv_job *head, *tail;
    int64_t qlen;
    srv_instance *inst;
    int n_inst;
    srv_model_metrics met;
};

static pthread_mutex_t g_repo_mu = PTHREAD_MUTEX_INITIALIZER;
static srv_model *g_models;
static char g_repo_dir[4096];

int64_t srv_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const char *srv_state_name(int s)
{
    switch (s) {
    case SRV_READY: return "READY";
    case SRV_LOADING: return "LOADING";
    case SRV_UNLOADING: return "UNLOADING";
    default: return "UNAVAILABLE";
    }
}

static void fmt_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmt_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* The library's own message for the last failed call of this thread. */
static const char *acl_msg(void)
{
    const char *m = aclGetRecentErrMsg();
    return m && *m ? m : "no message";
}

/* ---- config.json ---- */
static int parse_io_overrides(const cJSON *arr, const char *key, srv_io_override *ov, int *n, char *err,
                              size_t errlen)
{
    if (!cJSON_IsArray(arr)) {
        fmt_err(err, errlen, "config.json: '%s' must be an array", key);
        return -1;
    }
    *n = 0;
    for (const cJSON *e = arr->child; e; e = e->next) {
        if (*n >= SRV_MAX_IO || !cJSON_IsObject(e)) {
            fmt_err(err, errlen, "config.json: '%s' must hold at most %d objects", key, SRV_MAX_IO);
            return -1;
        }
        srv_io_override *o = &ov[(*n)++];
        memset(o, 0, sizeof *o);
        o->ndim = -1;
        for (const cJSON *f = e->child; f; f = f->next) {
            if (!strcmp(f->string, "name") || !strcmp(f->string, "alias")) {
                char *dst = !strcmp(f->string, "name") ? o->name : o->alias;
                if (!cJSON_IsString(f) || !*f->valuestring || strlen(f->valuestring) >= SRV_NAME_MAX) {
                    fmt_err(err, errlen, "config.json: %s[].%s must be a non-empty string", key, f->string);
                    return -1;
                }
                strcpy(dst, f->valuestring);
            } else if (!strcmp(f->string, "datatype")) {
                if (!cJSON_IsString(f) || srv_dtype_parse(f->valuestring, &o->dtype)) {
                    fmt_err(err, errlen, "config.json: %s[].datatype must be a v2 datatype name (FP32, INT64, ...)",
                            key);
                    return -1;
                }
                o->has_dtype = 1;
            } else if (!strcmp(f->string, "shape")) {
                int nd = 0;
                if (!cJSON_IsArray(f)) {
                    fmt_err(err, errlen, "config.json: %s[].shape must be an array", key);
                    return -1;
                }
                for (const cJSON *d = f->child; d; d = d->next) {
                    if (nd >= SRV_MAX_DIMS || !cJSON_IsNumber(d) || d->valuedouble < -1 || d->valuedouble > 1e12) {
                        fmt_err(err, errlen, "config.json: %s[].shape holds at most %d dims, each -1 or more", key,
                                SRV_MAX_DIMS);
                        return -1;
                    }
                    o->dims[nd++] = (int64_t)d->valuedouble;
                }
                o->ndim = nd;
            } else {
                fmt_err(err, errlen, "config.json: unknown key '%s' in '%s' (name, alias, datatype, shape)", f->string,
                        key);
                return -1;
            }
        }
        if (!o->name[0]) {
            fmt_err(err, errlen, "config.json: every entry of '%s' needs a 'name'", key);
            return -1;
        }
    }
    return 0;
}

static int get_int(const cJSON *v, const char *key, int64_t lo, int64_t hi, int64_t *out, char *err, size_t errlen)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < (double)lo || v->valuedouble > (double)hi ||
        v->valuedouble != (double)(int64_t)v->valuedouble) {
        fmt_err(err, errlen, "config.json: '%s' must be an integer from %" PRId64 " to %" PRId64, key, lo, hi);
        return -1;
    }
    *out = (int64_t)v->valuedouble;
    return 0;
}

int srv_config_parse(const char *text, size_t len, srv_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_batch_size = -1;
    cfg->instance_count = 1;
    cfg->max_queue_size = g_srv.default_queue;
    cfg->timeout_ms = g_srv.default_timeout_ms;
    cfg->max_queue_delay_us = 0;
    if (!text)
        return 0;
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        fmt_err(err, errlen, "config.json is not a JSON object");
        cJSON_Delete(root);
        return -1;
    }
    int rc = -1;
    int64_t v;
    for (const cJSON *f = root->child; f; f = f->next) {
        const char *k = f->string;
        if (!strcmp(k, "max_batch_size")) {
            if (get_int(f, k, 0, 1 << 20, &cfg->max_batch_size, err, errlen))
                goto out;
        } else if (!strcmp(k, "instance_count")) {
            if (get_int(f, k, 1, SRV_MAX_INSTANCES, &v, err, errlen))
                goto out;
            cfg->instance_count = (int)v;
        } else if (!strcmp(k, "device_ids")) {
            if (!cJSON_IsArray(f) || !f->child) {
                fmt_err(err, errlen, "config.json: 'device_ids' must be a non-empty array of device ids");
                goto out;
            }
            for (const cJSON *d = f->child; d; d = d->next) {
                if (cfg->n_devices >= SRV_MAX_INSTANCES) {
                    fmt_err(err, errlen, "config.json: at most %d device_ids", SRV_MAX_INSTANCES);
                    goto out;
                }
                if (get_int(d, "device_ids[]", 0, 1023, &v, err, errlen))
                    goto out;
                cfg->devices[cfg->n_devices++] = (int32_t)v;
            }
        } else if (!strcmp(k, "dynamic_batching")) {
            if (!cJSON_IsObject(f)) {
                fmt_err(err, errlen, "config.json: 'dynamic_batching' must be an object");
                goto out;
            }
            cfg->dynamic_batching = 1;
            for (const cJSON *g = f->child; g; g = g->next) {
                if (!strcmp(g->string, "max_queue_delay_us")) {
                    if (get_int(g, "dynamic_batching.max_queue_delay_us", 0, 10000000, &cfg->max_queue_delay_us, err,
                                errlen))
                        goto out;
                } else {
                    fmt_err(err, errlen, "config.json: unknown key '%s' in 'dynamic_batching' (max_queue_delay_us)",
                            g->string);
                    goto out;
                }
            }
        } else if (!strcmp(k, "max_queue_size")) {
            if (get_int(f, k, 1, 1 << 20, &cfg->max_queue_size, err, errlen))
                goto out;
        } else if (!strcmp(k, "timeout_ms")) {
            if (get_int(f, k, 1, 3600000, &cfg->timeout_ms, err, errlen))
                goto out;
        } else if (!strcmp(k, "inputs")) {
            if (parse_io_overrides(f, k, cfg->in_ov, &cfg->n_in_ov, err, errlen))
                goto out;
        } else if (!strcmp(k, "outputs")) {
            if (parse_io_overrides(f, k, cfg->out_ov, &cfg->n_out_ov, err, errlen))
                goto out;
        } else {
            fmt_err(err, errlen,
                    "config.json: unknown key '%s' (max_batch_size, instance_count, device_ids, dynamic_batching, "
                    "max_queue_size, timeout_ms, inputs, outputs)",
                    k);
            goto out;
        }
    }
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

/* ---- repository ---- */
static int valid_name(const char *s)
{
    if (!*s || *s == '.' || strlen(s) >= SRV_NAME_MAX)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-' || *s == '.'))
            return 0;
    return 1;
}

static srv_model *entry_new(const char *name)
{
    srv_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    snprintf(m->name, sizeof m->name, "%s", name);
    pthread_mutex_init(&m->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->cv_work, &ca);
    pthread_cond_init(&m->cv_state, &ca);
    pthread_condattr_destroy(&ca);
    m->state = SRV_UNAVAILABLE;
    m->gear_index = -1;
    snprintf(m->reason, sizeof m->reason, "not loaded");
    /* kept sorted by name: the index and /metrics list models in that order */
    srv_model **p = &g_models;
    while (*p && strcmp((*p)->name, name) < 0)
        p = &(*p)->next;
    m->next = *p;
    *p = m;
    return m;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int srv_repo_open(const char *dir, char *err, size_t errlen)
{
    if (strlen(dir) >= sizeof g_repo_dir || !is_dir(dir)) {
        fmt_err(err, errlen, "model repository '%s' is not a folder", dir);
        return -1;
    }
    snprintf(g_repo_dir, sizeof g_repo_dir, "%s", dir);
    srv_repo_scan();
    return 0;
}

void srv_repo_scan(void)
{
    DIR *d = opendir(g_repo_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096 + SRV_NAME_MAX + 2];
    pthread_mutex_lock(&g_repo_mu);
    while ((e = readdir(d))) {
        if (!valid_name(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", g_repo_dir, e->d_name);
        if (!is_dir(path))
            continue;
        srv_model *m = g_models;
        while (m && strcmp(m->name, e->d_name))
            m = m->next;
        if (!m)
            entry_new(e->d_name);
    }
    pthread_mutex_unlock(&g_repo_mu);
    closedir(d);
}

srv_model *srv_repo_find(const char *name)
{
    pthread_mutex_lock(&g_repo_mu);
    srv_model *m = g_models;
    while (m && strcmp(m->name, name))
        m = m->next;
    pthread_mutex_unlock(&g_repo_mu);
    return m;
}

srv_model *srv_repo_first(void)
{
    pthread_mutex_lock(&g_repo_mu);
    srv_model *m = g_models;
    pthread_mutex_unlock(&g_repo_mu);
    return m;
}

srv_model *srv_model_next(srv_model *m)
{
    pthread_mutex_lock(&g_repo_mu);
    srv_model *n = m->next;
    pthread_mutex_unlock(&g_repo_mu);
    return n;
}

const char *srv_model_name(srv_model *m) { return m->name; }
srv_model_metrics *srv_model_get_metrics(srv_model *m) { return &m->met; }

void srv_model_get_info(srv_model *m, srv_model_info *info)
{
    pthread_mutex_lock(&m->mu);
    snprintf(info->name, sizeof info->name, "%s", m->name);
    snprintf(info->version, sizeof info->version, "%s", m->version);
    snprintf(info->platform, sizeof info->platform, "%s", m->platform);
    snprintf(info->reason, sizeof info->reason, "%s", m->reason);
    info->state = m->state;
    info->sig = m->sig;
    memcpy(info->gears, m->gears, sizeof info->gears);
    info->n_gears = m->n_gears;
    info->generation = m->generation;
    pthread_mutex_unlock(&m->mu);
}

/* Highest numeric version folder holding model.om (preferred) or model.onnx. */
static int find_version(const char *name, char *version, size_t vlen, char *path, size_t plen, char *platform,
                        size_t pflen, char *err, size_t errlen)
{
    char dir[4096 + SRV_NAME_MAX + 2];
    snprintf(dir, sizeof dir, "%s/%s", g_repo_dir, name);
    DIR *d = opendir(dir);
    if (!d) {
        fmt_err(err, errlen, "model '%s' is not in the repository", name);
        return 404;
    }
    long best = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        errno = 0;
        long v = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || v < 1 || errno || e->d_name[0] == '0')
            continue;
        for (int k = 0; k < 2; k++) {
            char p[sizeof dir + 64];
            snprintf(p, sizeof p, "%s/%ld/model.%s", dir, v, k ? "onnx" : "om");
            if (access(p, R_OK) == 0 && v > best)
                best = v;
        }
    }
    closedir(d);
    if (best < 0) {
        fmt_err(err, errlen, "model '%s': no version folder <n>/ with model.om or model.onnx", name);
        return 400;
    }
    snprintf(version, vlen, "%ld", best);
    snprintf(path, plen, "%s/%ld/model.om", dir, best);
    snprintf(platform, pflen, "openacl_om");
    if (access(path, R_OK) != 0) {
        snprintf(path, plen, "%s/%ld/model.onnx", dir, best);
        snprintf(platform, pflen, "openacl_onnx");
    }
    return 0;
}

static char *read_small_file(const char *path, size_t max, size_t *len, int *missing)
{
    FILE *f = fopen(path, "rb");
    *missing = !f && errno == ENOENT;
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    fclose(f);
    if (!buf || n > max) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* ---- instances ---- */
static void inst_release(srv_instance *in)
{
    if (in->in_ds) {
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(in->in_ds); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in->in_ds, i));
        aclmdlDestroyDataset(in->in_ds);
        in->in_ds = NULL;
    }
    if (in->out_ds) {
        for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(in->out_ds); i++)
            aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in->out_ds, i));
        aclmdlDestroyDataset(in->out_ds);
        in->out_ds = NULL;
    }
    for (size_t i = 0; i < SRV_MAX_IO + 1; i++)
        if (in->in_dev[i]) {
            aclrtFree(in->in_dev[i]);
            in->in_dev[i] = NULL;
        }
    for (size_t i = 0; i < SRV_MAX_IO; i++)
        if (in->out_dev[i]) {
            aclrtFree(in->out_dev[i]);
            in->out_dev[i] = NULL;
        }
    if (in->model_loaded) {
        aclmdlUnload(in->model_id);
        in->model_loaded = 0;
    }
    if (in->desc) {
        aclmdlDestroyDesc(in->desc);
        in->desc = NULL;
    }
    if (in->stream) {
        aclrtDestroyStream(in->stream);
        in->stream = NULL;
    }
    if (in->ctx) {
        aclrtDestroyContext(in->ctx);
        in->ctx = NULL;
    }
}

static int inst_load(srv_instance *in)
{
    aclError rc;
#define TRY(call, what)                                                                                       \
    do {                                                                                                      \
        if ((rc = (call)) != ACL_SUCCESS) {                                                                   \
            fmt_err(in->err, sizeof in->err, "%s failed (error %d): %s", what, (int)rc, acl_msg());           \
            return -1;                                                                                        \
        }                                                                                                     \
    } while (0)
    TRY(aclrtSetDevice(in->device), "aclrtSetDevice");
    TRY(aclrtCreateContext(&in->ctx, in->device), "aclrtCreateContext");
    TRY(aclrtCreateStream(&in->stream), "aclrtCreateStream");
    TRY(aclmdlLoadFromFile(in->path, &in->model_id), "aclmdlLoadFromFile");
    in->model_loaded = 1;
    in->desc = aclmdlCreateDesc();
    if (!in->desc) {
        fmt_err(in->err, sizeof in->err, "aclmdlCreateDesc failed");
        return -1;
    }
    TRY(aclmdlGetDesc(in->desc, in->model_id), "aclmdlGetDesc");
    in->n_in = aclmdlGetNumInputs(in->desc);
    in->n_out = aclmdlGetNumOutputs(in->desc);
    if (in->n_in > SRV_MAX_IO + 1 || in->n_out > SRV_MAX_IO || in->n_out == 0) {
        fmt_err(in->err, sizeof in->err, "the model has %zu inputs and %zu outputs; at most %d each, 1 output at least",
                in->n_in, in->n_out, SRV_MAX_IO);
        return -1;
    }
    in->in_ds = aclmdlCreateDataset();
    in->out_ds = aclmdlCreateDataset();
    if (!in->in_ds || !in->out_ds) {
        fmt_err(in->err, sizeof in->err, "aclmdlCreateDataset failed");
        return -1;
    }
    for (size_t i = 0; i < in->n_in + in->n_out; i++) {
        int is_in = i < in->n_in;
        size_t k = is_in ? i : i - in->n_in;
        size_t size = is_in ? aclmdlGetInputSizeByIndex(in->desc, k) : aclmdlGetOutputSizeByIndex(in->desc, k);
        void **dev = is_in ? &in->in_dev[k] : &in->out_dev[k];
        if (size == 0) {
            fmt_err(in->err, sizeof in->err, "%s %zu has no static size: compile the model with atc (fixed shapes or "
                    "batch gears) to serve it", is_in ? "input" : "output", k);
            return -1;
        }
        TRY(aclrtMalloc(dev, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
        aclDataBuffer *b = aclCreateDataBuffer(*dev, size);
        if (!b) {
            fmt_err(in->err, sizeof in->err, "aclCreateDataBuffer failed");
            return -1;
        }
        if ((rc = aclmdlAddDatasetBuffer(is_in ? in->in_ds : in->out_ds, b)) != ACL_SUCCESS) {
            aclDestroyDataBuffer(b);
            fmt_err(in->err, sizeof in->err, "aclmdlAddDatasetBuffer failed: %s", acl_msg());
            return -1;
        }
        if (is_in) {
            in->in_size[k] = size;
            TRY(aclrtMemset(*dev, size, 0, size), "aclrtMemset");
        } else {
            in->out_size[k] = size;
        }
    }
    return 0;
#undef TRY
}

static void job_finish(srv_job *j, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void job_finish(srv_job *j, int status, const char *fmt, ...)
{
    j->status = status;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->err, sizeof j->err, fmt, ap);
        va_end(ap);
    }
    srv_model_metrics *met = &j->model->met;
    int o = status == 200   ? SRV_OUT_SUCCESS
            : status == 504 ? SRV_OUT_TIMEOUT
            : status == 503 ? SRV_OUT_UNAVAILABLE
            : status >= 500 ? SRV_OUT_INTERNAL
                            : SRV_OUT_BAD_REQUEST;
    atomic_fetch_add(&met->outcome[o], 1);
    j->complete(j);   /* the job may be gone after this */
}

/* One execution: pack the jobs' rows into the inputs (zeros up to the
 * gear), run on the instance's stream, copy each job's rows back out. */
static void inst_execute(srv_instance *in, srv_job **jobs, int nj)
{
    srv_model *m = in->m;
    int64_t now = srv_now_ns(), rows = 0;
    int live = 0;
    for (int k = 0; k < nj; k++) {
        srv_job *j = jobs[k];
        srv_hist_observe(&m->met.queue_latency, (uint64_t)(now - j->t_enqueue_ns));
        if (now > j->deadline_ns) {
            job_finish(j, 504, "request timed out after %.1f ms in the queue of model '%s'",
                       (double)(now - j->t_enqueue_ns) / 1e6, m->name);
            continue;
        }
        jobs[live++] = j;
        rows += j->req.rows;
    }
    if (!live)
        return;
    int64_t gear = rows;
    if (m->sig.batched) {
        gear = m->gears[m->n_gears - 1];
        for (int g = 0; g < m->n_gears; g++)
            if (m->gears[g] >= rows) {
                gear = m->gears[g];
                break;
            }
    }
    aclError rc = ACL_SUCCESS;
    const char *what = "";
    for (int i = 0; i < m->sig.n_in && rc == ACL_SUCCESS; i++) {
        int mi = m->in_map[i];
        char *dev = in->in_dev[mi];
        size_t off = 0, cap = in->in_size[mi];
        for (int k = 0; k < live && rc == ACL_SUCCESS; k++) {
            const srv_tensor *t = &jobs[k]->req.in[i];
            what = "aclrtMemcpy (input)";
            rc = aclrtMemcpy(dev + off, cap - off, t->data, t->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
            off += t->bytes;
        }
        size_t used = (size_t)gear * m->in_row[i];
        if (rc == ACL_SUCCESS && off < used) {
            what = "aclrtMemset (padding)";
            rc = aclrtMemset(dev + off, cap - off, 0, used - off);
        }
    }
    if (rc == ACL_SUCCESS && m->gear_index >= 0) {
        what = "aclmdlSetDynamicBatchSize";
        rc = aclmdlSetDynamicBatchSize(in->model_id, in->in_ds, (size_t)m->gear_index, (uint64_t)gear);
    }
    int64_t t0 = srv_now_ns();
    if (rc == ACL_SUCCESS) {
        what = "aclmdlExecuteAsync";
        rc = aclmdlExecuteAsync(in->model_id, in->in_ds, in->out_ds, in->stream);
        if (rc == ACL_SUCCESS) {
            what = "aclrtSynchronizeStream";
            rc = aclrtSynchronizeStream(in->stream);
        }
    }
    srv_hist_observe(&m->met.compute_latency, (uint64_t)(srv_now_ns() - t0));
    if (rc != ACL_SUCCESS) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s", acl_msg());
        for (int k = 0; k < live; k++)
            job_finish(jobs[k], 500, "model '%s': %s failed (error %d): %s", m->name, what, (int)rc, msg);
        return;
    }
    srv_metrics_batch(&m->met, rows, gear);
    int64_t row0 = 0;
    for (int k = 0; k < live; k++) {
        srv_job *j = jobs[k];
        int fail = 0;
        for (int o = 0; o < j->req.n_out && !fail; o++) {
            int pi = j->req.out_idx[o], mo = m->out_map[pi];
            size_t bytes = (size_t)j->req.rows * m->out_row[pi];
            j->out[o] = malloc(bytes ? bytes : 1);
            if (!j->out[o] ||
                aclrtMemcpy(j->out[o], bytes, (char *)in->out_dev[mo] + (size_t)row0 * m->out_row[pi], bytes,
                            ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
                fail = 1;
        }
        row0 += j->req.rows;
        if (fail)
            job_finish(j, 500, "model '%s': copying the outputs back failed: %s", m->name, acl_msg());
        else
            job_finish(j, 200, NULL);
    }
}

#define SRV_MAX_BATCH_JOBS 256

static void *inst_main(void *arg)
{
    srv_instance *in = arg;
    srv_model *m = in->m;
    int ok = inst_load(in) == 0;
    pthread_mutex_lock(&m->mu);
    in->load_state = ok ? 1 : -1;
    pthread_cond_broadcast(&m->cv_state);
    pthread_mutex_unlock(&m->mu);
    srv_job *jobs[SRV_MAX_BATCH_JOBS];
    while (ok) {
        pthread_mutex_lock(&m->mu);
        while ((!m->head || in->borrowed) && !(in->stop && !in->borrowed && !m->head)) {
            in->idle = 1;
            pthread_cond_wait(&m->cv_work, &m->mu);
        }
        in->idle = 0;
        if (!m->head) {   /* stopping, the queue drained, not borrowed */
            pthread_mutex_unlock(&m->mu);
            break;
        }
        int nj = 0;
        /* the batch is bounded by max_batch_size (the largest gear unless
         * config.json lowers it): larger gears need not be faster per row */
        int64_t rows = 0, cap = m->sig.batched ? m->sig.max_batch : 1;
        int64_t until = m->head->t_enqueue_ns + m->cfg.max_queue_delay_us * 1000;
        for (;;) {
            while (m->head && nj < SRV_MAX_BATCH_JOBS && rows + m->head->req.rows <= cap &&
                   (nj == 0 || m->cfg.dynamic_batching)) {
                srv_job *j = m->head;
                m->head = j->next;
                if (!m->head)
                    m->tail = NULL;
                m->qlen--;
                jobs[nj++] = j;
                rows += j->req.rows;
            }
            /* Without dynamic batching each job runs alone (padded to its
             * gear); with it, wait up to the window for the gear to fill. */
            if (!m->cfg.dynamic_batching || !m->sig.batched || nj == 0 || rows >= cap || m->head ||
                nj >= SRV_MAX_BATCH_JOBS || in->stop)
                break;
            int64_t now = srv_now_ns();
            if (now >= until)
                break;
            /* jobs held for the window still wait: the gauge counts them */
            atomic_store(&m->met.queue_depth, m->qlen + nj);
            struct timespec ts = {(time_t)(until / 1000000000), (long)(until % 1000000000)};
            pthread_cond_timedwait(&m->cv_work, &m->mu, &ts);
        }
        atomic_store(&m->met.queue_depth, m->qlen);
        pthread_mutex_unlock(&m->mu);
        if (nj)
            inst_execute(in, jobs, nj);
        if (m->cfg.dynamic_batching)
            continue;
        /* wake the next worker too: the queue may hold more */
        pthread_mutex_lock(&m->mu);
        if (m->head)
            pthread_cond_signal(&m->cv_work);
        pthread_mutex_unlock(&m->mu);
    }
    inst_release(in);
    if (ok)
        aclrtResetDevice(in->device);
    return NULL;
}

/* Stops and joins every started instance (they drain the queue first). */
static void stop_instances(srv_model *m)
{
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < m->n_inst; i++)
        m->inst[i].stop = 1;
    pthread_cond_broadcast(&m->cv_work);
    pthread_mutex_unlock(&m->mu);
    for (int i = 0; i < m->n_inst; i++)
        if (m->inst[i].started)
            pthread_join(m->inst[i].thread, NULL);
    /* jobs that no instance could take (every instance failed to load) */
    pthread_mutex_lock(&m->mu);
    srv_job *j = m->head;
    m->head = m->tail = NULL;
    m->qlen = 0;
    atomic_store(&m->met.queue_depth, 0);
    pthread_mutex_unlock(&m->mu);
    while (j) {
        srv_job *n = j->next;
        job_finish(j, 503, "model '%s' was unloaded", m->name);
        j = n;
    }
    pthread_mutex_lock(&m->mu);
    free(m->inst);
    m->inst = NULL;
    m->n_inst = 0;
    pthread_mutex_unlock(&m->mu);
}

static int64_t elems(const int64_t *d, int from, int n)
{
    int64_t e = 1;
    for (int i = from; i < n; i++)
        e *= d[i];
    return e;
}

/* The public signature from the loaded model and config.json. */
static int build_sig(srv_model *m, const srv_instance *in, char *err, size_t errlen)
{
    const srv_config *cfg = &m->cfg;
    srv_sig *s = &m->sig;
    memset(s, 0, sizeof *s);
    m->gear_index = -1;
    m->n_gears = 0;
    for (size_t i = 0; i < in->n_in; i++) {
        const char *nm = aclmdlGetInputNameByIndex(in->desc, i);
        if (nm && !strcmp(nm, ACL_DYNAMIC_TENSOR_NAME)) {
            m->gear_index = (int)i;
            continue;
        }
        if (s->n_in >= SRV_MAX_IO) {
            fmt_err(err, errlen, "more than %d inputs", SRV_MAX_IO);
            return -1;
        }
        srv_io *io = &s->in[s->n_in];
        aclmdlIODims d;
        if (aclmdlGetInputDims(in->desc, i, &d) != ACL_SUCCESS || d.dimCount > SRV_MAX_DIMS) {
            fmt_err(err, errlen, "input %zu: no dims or more than %d", i, SRV_MAX_DIMS);
            return -1;
        }
        snprintf(io->name, sizeof io->name, "%s", nm ? nm : "");
        io->dtype = aclmdlGetInputDataType(in->desc, i);
        io->ndim = (int)d.dimCount;
        memcpy(io->dims, d.dims, d.dimCount * sizeof d.dims[0]);
        m->in_map[s->n_in++] = (int)i;
    }
    for (size_t i = 0; i < in->n_out; i++) {
        srv_io *io = &s->out[s->n_out];
        aclmdlIODims d;
        if (aclmdlGetOutputDims(in->desc, i, &d) != ACL_SUCCESS || d.dimCount > SRV_MAX_DIMS) {
            fmt_err(err, errlen, "output %zu: no dims or more than %d", i, SRV_MAX_DIMS);
            return -1;
        }
        const char *nm = aclmdlGetOutputNameByIndex(in->desc, i);
        snprintf(io->name, sizeof io->name, "%s", nm ? nm : "");
        io->dtype = aclmdlGetOutputDataType(in->desc, i);
        io->ndim = (int)d.dimCount;
        memcpy(io->dims, d.dims, d.dimCount * sizeof d.dims[0]);
        m->out_map[s->n_out++] = (int)i;
    }
    if (m->gear_index >= 0) {
        aclmdlBatch b;
        if (aclmdlGetDynamicBatch(in->desc, &b) != ACL_SUCCESS || b.batchCount == 0) {
            fmt_err(err, errlen, "the model has image-size or dims gears; openacl-server serves batch gears only");
            return -1;
        }
        for (size_t g = 0; g < b.batchCount && g < SRV_MAX_GEARS; g++) {
            int64_t v = (int64_t)b.batch[g];
            int at = m->n_gears++;
            while (at > 0 && m->gears[at - 1] > v) {   /* sorted ascending */
                m->gears[at] = m->gears[at - 1];
                at--;
            }
            m->gears[at] = v;
        }
        s->batched = 1;
    } else if (cfg->max_batch_size > 0) {
        /* a static model whose dim 0 is a batch: one gear, its own size */
        int64_t b0 = s->n_in && s->in[0].ndim ? s->in[0].dims[0] : -1;
        if (b0 < 1) {
            fmt_err(err, errlen, "max_batch_size needs a static dim 0 on every input");
            return -1;
        }
        m->gears[0] = b0;
        m->n_gears = 1;
        s->batched = 1;
    }
    int64_t gmax = s->batched ? m->gears[m->n_gears - 1] : 1;
    if (s->batched) {
        s->max_batch = gmax;
        if (cfg->max_batch_size > 0) {
            if (cfg->max_batch_size > gmax) {
                fmt_err(err, errlen, "max_batch_size %" PRId64 " exceeds the model's largest batch %" PRId64,
                        cfg->max_batch_size, gmax);
                return -1;
            }
            s->max_batch = cfg->max_batch_size;
        }
    }
    for (int k = 0; k < s->n_in + s->n_out; k++) {
        int is_in = k < s->n_in;
        srv_io *io = is_in ? &s->in[k] : &s->out[k - s->n_in];
        size_t es = srv_dtype_size(io->dtype);
        if (!srv_dtype_name(io->dtype) || !es) {
            fmt_err(err, errlen, "%s '%s': data type %d has no v2 datatype", is_in ? "input" : "output", io->name,
                    (int)io->dtype);
            return -1;
        }
        if (s->batched) {
            if (io->ndim < 1 || (io->dims[0] != -1 && io->dims[0] != gmax)) {
                fmt_err(err, errlen, "%s '%s': dim 0 is not the batch (%" PRId64 ")", is_in ? "input" : "output",
                        io->name, gmax);
                return -1;
            }
            io->dims[0] = -1;
        }
        for (int d = s->batched ? 1 : 0; d < io->ndim; d++)
            if (io->dims[d] < 0) {
                fmt_err(err, errlen,
                        "%s '%s' has a dynamic dim %d: compile the model with atc (fixed shapes, or -1 at dim 0 "
                        "with --dynamic_batch_size) to serve it",
                        is_in ? "input" : "output", io->name, d);
                return -1;
            }
        size_t row = (size_t)elems(io->dims, s->batched ? 1 : 0, io->ndim) * es;
        size_t have = is_in ? in->in_size[m->in_map[k]] : in->out_size[m->out_map[k - s->n_in]];
        if (row * (size_t)gmax > have) {
            fmt_err(err, errlen, "%s '%s': %zu bytes allocated for %zu needed", is_in ? "input" : "output", io->name,
                    have, row * (size_t)gmax);
            return -1;
        }
        if (is_in)
            m->in_row[k] = row;
        else
            m->out_row[k - s->n_in] = row;
    }
    /* config.json overrides: checked against the model, then renamed */
    for (int k = 0; k < cfg->n_in_ov + cfg->n_out_ov; k++) {
        int is_in = k < cfg->n_in_ov;
        const srv_io_override *ov = is_in ? &cfg->in_ov[k] : &cfg->out_ov[k - cfg->n_in_ov];
        srv_io *list = is_in ? s->in : s->out;
        int n = is_in ? s->n_in : s->n_out, at = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(list[i].name, ov->name))
                at = i;
        if (at < 0) {
            fmt_err(err, errlen, "config.json: the model has no %s '%s'", is_in ? "input" : "output", ov->name);
            return -1;
        }
        if (ov->has_dtype && ov->dtype != list[at].dtype) {
            fmt_err(err, errlen, "config.json: %s '%s' is %s in the model, not %s", is_in ? "input" : "output",
                    ov->name, srv_dtype_name(list[at].dtype), srv_dtype_name(ov->dtype));
            return -1;
        }
        if (ov->ndim >= 0 && (ov->ndim != list[at].ndim ||
                              memcmp(ov->dims, list[at].dims, (size_t)ov->ndim * sizeof ov->dims[0]))) {
            fmt_err(err, errlen, "config.json: the shape of %s '%s' differs from the model's (dim 0 of a batched "
                    "model is -1)", is_in ? "input" : "output", ov->name);
            return -1;
        }
    }
    for (int k = 0; k < cfg->n_in_ov + cfg->n_out_ov; k++) {
        int is_in = k < cfg->n_in_ov;
        const srv_io_override *ov = is_in ? &cfg->in_ov[k] : &cfg->out_ov[k - cfg->n_in_ov];
        srv_io *list = is_in ? s->in : s->out;
        for (int i = 0; i < (is_in ? s->n_in : s->n_out); i++)
            if (ov->alias[0] && !strcmp(list[i].name, ov->name))
                snprintf(list[i].name, sizeof list[i].name, "%s", ov->alias);
    }
    if (cfg->n_out_ov) {
        /* only the listed outputs are served, in the listed order */
        srv_io keep[SRV_MAX_IO];
        int map[SRV_MAX_IO];
        size_t row[SRV_MAX_IO];
        for (int k = 0; k < cfg->n_out_ov; k++) {
            const srv_io_override *ov = &cfg->out_ov[k];
            const char *pub = ov->alias[0] ? ov->alias : ov->name;
            for (int i = 0; i < s->n_out; i++)
                if (!strcmp(s->out[i].name, pub)) {
                    keep[k] = s->out[i];
                    map[k] = m->out_map[i];
                    row[k] = m->out_row[i];
                }
        }
        s->n_out = cfg->n_out_ov;
        memcpy(s->out, keep, (size_t)s->n_out * sizeof keep[0]);
        memcpy(m->out_map, map, (size_t)s->n_out * sizeof map[0]);
        memcpy(m->out_row, row, (size_t)s->n_out * sizeof row[0]);
    }
    for (int a = 0; a < s->n_in + s->n_out; a++)
        for (int b = a + 1; b < s->n_in + s->n_out; b++) {
            const char *x = a < s->n_in ? s->in[a].name : s->out[a - s->n_in].name;
            const char *y = b < s->n_in ? s->in[b].name : s->out[b - s->n_in].name;
            if (!strcmp(x, y) && ((a < s->n_in) == (b < s->n_in))) {
                fmt_err(err, errlen, "two tensors are named '%s'", x);
                return -1;
            }
        }
    return 0;
}

static void model_unload_locked_busy(srv_model *m, const char *reason)
{
    /* called with busy set and mu NOT held */
    stop_instances(m);
    pthread_mutex_lock(&m->mu);
    m->state = SRV_UNAVAILABLE;
    snprintf(m->reason, sizeof m->reason, "%s", reason);
    pthread_mutex_unlock(&m->mu);
}

int srv_model_load(const char *name, char *err, size_t errlen)
{
    if (!valid_name(name)) {
        fmt_err(err, errlen, "'%.64s' is not a valid model name", name);
        return 400;
    }
    srv_repo_scan();
    srv_model *m = srv_repo_find(name);
    if (!m) {
        fmt_err(err, errlen, "model '%s' is not in the repository", name);
        return 404;
    }
    pthread_mutex_lock(&m->mu);
    if (m->busy) {
        pthread_mutex_unlock(&m->mu);
        fmt_err(err, errlen, "model '%s' is being loaded or unloaded; retry", name);
        return 503;
    }
    m->busy = 1;
    int was_ready = m->state == SRV_READY;
    m->state = was_ready ? SRV_UNLOADING : SRV_LOADING;
    pthread_mutex_unlock(&m->mu);
    if (was_ready)
        stop_instances(m);   /* a reload: drain the old instances first */

    int status = 400;
    srv_config cfg;
    char version[32], path[4096], platform[32], cfg_path[4096 + SRV_NAME_MAX + 16];
    int st = find_version(name, version, sizeof version, path, sizeof path, platform, sizeof platform, err, errlen);
    if (st) {
        status = st;
        goto fail;
    }
    snprintf(cfg_path, sizeof cfg_path, "%s/%s/config.json", g_repo_dir, name);
    size_t cfg_len = 0;
    int missing = 0;
    char *cfg_text = read_small_file(cfg_path, 1 << 20, &cfg_len, &missing);
    if (!cfg_text && !missing) {
        fmt_err(err, errlen, "model '%s': config.json cannot be read or is over 1 MiB", name);
        goto fail;
    }
    char cerr[300];
    if (srv_config_parse(cfg_text, cfg_len, &cfg, cerr, sizeof cerr)) {
        free(cfg_text);
        fmt_err(err, errlen, "model '%s': %s", name, cerr);
        goto fail;
    }
    free(cfg_text);

    pthread_mutex_lock(&m->mu);
    m->state = SRV_LOADING;
    m->cfg = cfg;
    m->inst = calloc((size_t)cfg.instance_count, sizeof *m->inst);
    m->n_inst = m->inst ? cfg.instance_count : 0;
    pthread_mutex_unlock(&m->mu);
    if (!m->inst) {
        fmt_err(err, errlen, "out of memory");
        status = 500;
        goto fail;
    }
    for (int i = 0; i < m->n_inst; i++) {
        srv_instance *in = &m->inst[i];
        in->m = m;
        in->idx = i;
        in->device = cfg.n_devices ? cfg.devices[i % cfg.n_devices] : g_srv.default_device;
        snprintf(in->path, sizeof in->path, "%s", path);
        if (pthread_create(&in->thread, NULL, inst_main, in) == 0) {
            in->started = 1;
        } else {
            in->load_state = -1;
            snprintf(in->err, sizeof in->err, "cannot start a thread");
        }
    }
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < m->n_inst; i++)
        while (m->inst[i].load_state == 0)
            pthread_cond_wait(&m->cv_state, &m->mu);
    pthread_mutex_unlock(&m->mu);
    for (int i = 0; i < m->n_inst; i++)
        if (m->inst[i].load_state < 0) {
            fmt_err(err, errlen, "model '%s' version %s, instance %d on device %d: %s", name, version, i,
                    (int)m->inst[i].device, m->inst[i].err);
            stop_instances(m);
            goto fail;
        }
    char serr[300];
    /* under the lock: metadata requests read the signature meanwhile */
    pthread_mutex_lock(&m->mu);
    int bad_sig = build_sig(m, &m->inst[0], serr, sizeof serr);
    pthread_mutex_unlock(&m->mu);
    if (bad_sig) {
        fmt_err(err, errlen, "model '%s' version %s: %s", name, version, serr);
        stop_instances(m);
        goto fail;
    }
    pthread_mutex_lock(&m->mu);
    snprintf(m->version, sizeof m->version, "%s", version);
    snprintf(m->platform, sizeof m->platform, "%s", platform);
    m->reason[0] = 0;
    m->generation++;
    m->state = SRV_READY;
    m->busy = 0;
    pthread_mutex_unlock(&m->mu);
    if (g_srv.verbose)
        fprintf(stderr, "openacl-server: loaded model '%s' version %s (%d instance(s))\n", name, version, m->n_inst);
    return 200;
fail:
    pthread_mutex_lock(&m->mu);
    m->state = SRV_UNAVAILABLE;
    snprintf(m->reason, sizeof m->reason, "%s", err);
    m->busy = 0;
    pthread_mutex_unlock(&m->mu);
    return status;
}

int srv_model_unload(const char *name, char *err, size_t errlen)
{
    srv_model *m = valid_name(name) ? srv_repo_find(name) : NULL;
    if (!m) {
        fmt_err(err, errlen, "model '%.64s' is not in the repository", name);
        return 404;
    }
    pthread_mutex_lock(&m->mu);
    if (m->busy) {
        pthread_mutex_unlock(&m->mu);
        fmt_err(err, errlen, "model '%s' is being loaded or unloaded; retry", name);
        return 503;
    }
    if (m->state != SRV_READY) {
        pthread_mutex_unlock(&m->mu);
        return 200;   /* already unloaded */
    }
    m->busy = 1;
    m->state = SRV_UNLOADING;
    pthread_mutex_unlock(&m->mu);
    model_unload_locked_busy(m, "unloaded");
    pthread_mutex_lock(&m->mu);
    m->busy = 0;
    pthread_mutex_unlock(&m->mu);
    return 200;
}

int srv_model_submit(srv_model *m, srv_job *job, char *err, size_t errlen)
{
    pthread_mutex_lock(&m->mu);
    int rc = 0;
    if (m->state != SRV_READY) {
        rc = m->state == SRV_UNAVAILABLE ? 404 : 503;
        fmt_err(err, errlen, "model '%s' is %s", m->name,
                m->state == SRV_UNAVAILABLE ? "not loaded" : m->state == SRV_LOADING ? "loading" : "unloading");
    } else if (job->generation != m->generation) {
        rc = 503;
        fmt_err(err, errlen, "model '%s' was reloaded while the request was read; retry", m->name);
    } else if (m->qlen >= m->cfg.max_queue_size) {
        rc = 503;
        fmt_err(err, errlen, "model '%s': the queue is full (%" PRId64 " requests)", m->name, m->qlen);
        atomic_fetch_add(&m->met.outcome[SRV_OUT_REJECTED], 1);
    } else {
        job->model = m;
        job->next = NULL;
        job->t_enqueue_ns = srv_now_ns();
        int64_t tmo_ns = job->req.timeout_us ? job->req.timeout_us * 1000 : m->cfg.timeout_ms * 1000000;
        job->deadline_ns = job->t_enqueue_ns + tmo_ns;
        /* Fast path: nothing queued, no batching window, an instance idle.
         * The calling thread runs the job on that instance (its context and
         * stream) instead of handing it over and back: two thread wake-ups
         * less per request on a lightly loaded server. */
        srv_instance *idle = NULL;
        if (!m->head && !m->cfg.dynamic_batching)
            for (int i = 0; i < m->n_inst && !idle; i++)
                if (m->inst[i].idle && !m->inst[i].borrowed && !m->inst[i].stop)
                    idle = &m->inst[i];
        if (idle) {
            idle->borrowed = 1;
            pthread_mutex_unlock(&m->mu);
            /* the HTTP thread keeps this context current until it runs a
             * job on another instance: no thread of ours needs another one */
            if (aclrtSetCurrentContext(idle->ctx) == ACL_SUCCESS)
                inst_execute(idle, &job, 1);
            else
                job_finish(job, 500, "model '%s': aclrtSetCurrentContext failed: %s", m->name, acl_msg());
            pthread_mutex_lock(&m->mu);
            idle->borrowed = 0;
            pthread_cond_broadcast(&m->cv_work);   /* its thread may take queued jobs again */
            pthread_mutex_unlock(&m->mu);
            return 0;
        }
        if (m->tail)
            m->tail->next = job;
        else
            m->head = job;
        m->tail = job;
        m->qlen++;
        atomic_store(&m->met.queue_depth, m->qlen);
        if (m->cfg.dynamic_batching)
            pthread_cond_broadcast(&m->cv_work);
        else
            pthread_cond_signal(&m->cv_work);
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

void srv_repo_stop_all(void)
{
    for (srv_model *m = srv_repo_first(); m; m = srv_model_next(m)) {
        pthread_mutex_lock(&m->mu);
        int loaded = m->n_inst > 0 && !m->busy;
        if (loaded) {
            m->busy = 1;
            m->state = SRV_UNLOADING;
        }
        pthread_mutex_unlock(&m->mu);
        if (loaded) {
            model_unload_locked_busy(m, "server shutting down");
            pthread_mutex_lock(&m->mu);
            m->busy = 0;
            pthread_mutex_unlock(&m->mu);
        }
    }
}

void srv_repo_close(void)
{
    pthread_mutex_lock(&g_repo_mu);
    srv_model *m = g_models;
    g_models = NULL;
    pthread_mutex_unlock(&g_repo_mu);
    while (m) {
        srv_model *n = m->next;
        pthread_mutex_lock(&m->mu);
        int loaded = m->n_inst > 0;
        pthread_mutex_unlock(&m->mu);
        if (loaded)
            stop_instances(m);
        pthread_mutex_destroy(&m->mu);
        pthread_cond_destroy(&m->cv_work);
        pthread_cond_destroy(&m->cv_state);
        free(m);
        m = n;
    }
}
