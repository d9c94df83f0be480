/* openacl-run: loads a model on one or several devices, feeds it inputs
 * from files or generated data, writes its outputs and reports load time,
 * latency percentiles, throughput, H2D/compute/D2H split, CPU use and peak
 * RSS. Public AscendCL API only, so it runs unchanged against CANN.
 *
 * Structure: the main thread does all set-up (one context, stream and
 * loaded model per worker, datasets, gear selection) so that every error is
 * reported before anything runs; worker threads only copy, execute and
 * time; the main thread tears everything down in the documented order. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acl_run.h"

#ifndef OPENACL_RUN_VERSION
#define OPENACL_RUN_VERSION "0"
#endif

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- what the model says about itself ---- */

typedef struct io_info {
    const char *name;                 /* owned by the description */
    aclDataType dt;
    aclFormat fmt;
    size_t size;
    int ndim;
    int64_t dims[ACL_MAX_DIM_CNT];
} io_info;

typedef struct model_info {
    size_t n_in, n_out;
    io_info in[RUN_MAX_IO], out[RUN_MAX_IO];
    long gear_index;                  /* index of ascend_mbatch_shape_data, -1: none */
    int n_user;                       /* data inputs the user feeds (gear input excluded) */
    int user_to_model[RUN_MAX_IO];
    aclmdlBatch batch;
    aclmdlHW hw;
    size_t dims_gears;
    aclmdlIODims *dims_gear;          /* [dims_gears] */
    int user_dynamic[RUN_MAX_IO];     /* range-dynamic: shape passed per run with a tensor desc */
} model_info;

static int read_io(const aclmdlDesc *d, int input, size_t i, io_info *io)
{
    aclmdlIODims dims;
    aclError rc = input ? aclmdlGetInputDims(d, i, &dims) : aclmdlGetOutputDims(d, i, &dims);
    if (rc) {
        run_acl_err(rc, "%s(%zu)", input ? "aclmdlGetInputDims" : "aclmdlGetOutputDims", i);
        return -1;
    }
    io->name = input ? aclmdlGetInputNameByIndex(d, i) : aclmdlGetOutputNameByIndex(d, i);
    if (!io->name)
        io->name = "";
    io->dt = input ? aclmdlGetInputDataType(d, i) : aclmdlGetOutputDataType(d, i);
    io->fmt = input ? aclmdlGetInputFormat(d, i) : aclmdlGetOutputFormat(d, i);
    io->size = input ? aclmdlGetInputSizeByIndex((aclmdlDesc *)d, i) : aclmdlGetOutputSizeByIndex((aclmdlDesc *)d, i);
    io->ndim = (int)(dims.dimCount > ACL_MAX_DIM_CNT ? ACL_MAX_DIM_CNT : dims.dimCount);
    memcpy(io->dims, dims.dims, (size_t)io->ndim * sizeof io->dims[0]);
    return 0;
}

static int inspect_model(aclmdlDesc *d, model_info *m)
{
    memset(m, 0, sizeof *m);
    m->n_in = aclmdlGetNumInputs(d);
    m->n_out = aclmdlGetNumOutputs(d);
    if (m->n_in > RUN_MAX_IO || m->n_out > RUN_MAX_IO) {
        run_err("the model has %zu inputs and %zu outputs; openacl-run handles at most %d each", m->n_in, m->n_out,
                RUN_MAX_IO);
        return -1;
    }
    for (size_t i = 0; i < m->n_in; i++)
        if (read_io(d, 1, i, &m->in[i]))
            return -1;
    for (size_t i = 0; i < m->n_out; i++)
        if (read_io(d, 0, i, &m->out[i]))
            return -1;
    /* The gear input is found by name, never by position (acl-api.md 1.6).
     * A model without gears simply has no input of that name; the names are
     * compared here rather than asking aclmdlGetInputIndexByName, whose
     * failure would be logged as an error. */
    m->gear_index = -1;
    for (size_t i = 0; i < m->n_in; i++)
        if (!strcmp(m->in[i].name, ACL_DYNAMIC_TENSOR_NAME))
            m->gear_index = (long)i;
    for (size_t i = 0; i < m->n_in; i++)
        if ((long)i != m->gear_index)
            m->user_to_model[m->n_user++] = (int)i;
    aclError rc;
    if ((rc = aclmdlGetDynamicBatch(d, &m->batch))) {
        run_acl_err(rc, "aclmdlGetDynamicBatch");
        return -1;
    }
    if ((rc = aclmdlGetDynamicHW(d, (size_t)-1, &m->hw))) {
        run_acl_err(rc, "aclmdlGetDynamicHW");
        return -1;
    }
    if ((rc = aclmdlGetInputDynamicGearCount(d, (size_t)-1, &m->dims_gears))) {
        run_acl_err(rc, "aclmdlGetInputDynamicGearCount");
        return -1;
    }
    if (m->dims_gears) {
        m->dims_gear = calloc(m->dims_gears, sizeof *m->dims_gear);
        if (!m->dims_gear ||
            (rc = aclmdlGetInputDynamicDims(d, (size_t)-1, m->dims_gear, m->dims_gears))) {
            run_acl_err(rc, "aclmdlGetInputDynamicDims");
            return -1;
        }
    }
    for (int u = 0; u < m->n_user; u++) {
        const io_info *io = &m->in[m->user_to_model[u]];
        m->user_dynamic[u] = m->gear_index < 0 && run_elem_count(io->dims, io->ndim) < 0;
    }
    return 0;
}

static void print_io(FILE *f, const char *kind, size_t i, const io_info *io)
{
    char dims[512];
    fprintf(f, "  %s %zu: %-24s dims %-20s %-8s %-9s size %zu\n", kind, i, io->name,
            run_dims_str(io->dims, io->ndim, dims, sizeof dims), run_dtype_name(io->dt), run_format_name(io->fmt),
            io->size);
}

static void print_model(FILE *f, const char *path, const model_info *m)
{
    fprintf(f, "model %s: %zu input(s), %zu output(s)\n", path, m->n_in, m->n_out);
    for (size_t i = 0; i < m->n_in; i++)
        print_io(f, "input ", i, &m->in[i]);
    for (size_t i = 0; i < m->n_out; i++)
        print_io(f, "output", i, &m->out[i]);
    if (m->batch.batchCount) {
        fprintf(f, "  batch gears:");
        for (size_t g = 0; g < m->batch.batchCount; g++)
            fprintf(f, " %llu", (unsigned long long)m->batch.batch[g]);
        fputc('\n', f);
    }
    if (m->hw.hwCount) {
        fprintf(f, "  height/width gears:");
        for (size_t g = 0; g < m->hw.hwCount; g++)
            fprintf(f, " %llux%llu", (unsigned long long)m->hw.hw[g][0], (unsigned long long)m->hw.hw[g][1]);
        fputc('\n', f);
    }
    for (size_t g = 0; g < m->dims_gears; g++) {
        char dims[1024];
        fprintf(f, "  dims gear %zu: %s\n", g,
                run_dims_str(m->dims_gear[g].dims, (int)m->dims_gear[g].dimCount, dims, sizeof dims));
    }
}

/* ---- input shapes: the model's dims with what the flags fill in ---- */

static const run_shape_spec *find_spec(const run_shape_spec *s, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].name, name))
            return &s[i];
    return NULL;
}

static int check_spec_names(const char *flag, const run_shape_spec *s, int n, const model_info *m)
{
    for (int k = 0; k < n; k++) {
        int found = 0;
        for (int u = 0; u < m->n_user && !found; u++)
            found = !strcmp(m->in[m->user_to_model[u]].name, s[k].name);
        if (!found) {
            char names[2048];
            size_t len = 0;
            names[0] = 0;
            for (int u = 0; u < m->n_user && len < sizeof names; u++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", u ? ", " : "",
                                        m->in[m->user_to_model[u]].name);
            run_err("%s: the model has no input named '%s' (its inputs: %s)", flag, s[k].name, names);
            return -1;
        }
    }
    return 0;
}

/* A given shape must keep the model's rank and fixed dims. */
static int apply_spec(const char *flag, const io_info *io, const run_shape_spec *s, int *ndim, int64_t *dims)
{
    char want[512], got[512];
    int ok = s->ndim == io->ndim;
    for (int k = 0; ok && k < s->ndim; k++)
        ok = io->dims[k] < 0 || io->dims[k] == s->dims[k];
    if (!ok) {
        run_err("%s: shape %s given for input '%s' does not fit the model's dims %s", flag,
                run_dims_str(s->dims, s->ndim, got, sizeof got), io->name,
                run_dims_str(io->dims, io->ndim, want, sizeof want));
        return -1;
    }
    *ndim = s->ndim;
    memcpy(dims, s->dims, (size_t)s->ndim * sizeof *dims);
    return 0;
}

static int resolve_shape(const run_opts *o, const io_info *io, int *ndim, int64_t *dims)
{
    *ndim = io->ndim;
    memcpy(dims, io->dims, (size_t)io->ndim * sizeof *dims);
    const run_shape_spec *s;
    if ((s = find_spec(o->dym_shape, o->n_dym_shape, io->name)) && apply_spec("--dymShape", io, s, ndim, dims))
        return -1;
    if ((s = find_spec(o->dym_dims, o->n_dym_dims, io->name)) && apply_spec("--dymDims", io, s, ndim, dims))
        return -1;
    if (o->has_dym_batch && *ndim >= 1 && dims[0] < 0)
        dims[0] = (int64_t)o->dym_batch;
    if (o->has_dym_hw && *ndim == 4) {
        int h = io->fmt == ACL_FORMAT_NHWC ? 1 : 2;
        if (dims[h] < 0)
            dims[h] = (int64_t)o->dym_h;
        if (dims[h + 1] < 0)
            dims[h + 1] = (int64_t)o->dym_w;
    }
    return 0;
}

/* Checks a blob against the input's resolved shape and stores the final
 * shape in it. A .npy file may fill in dims the flags left open. */
static int fit_blob(const char *what, const io_info *io, int ndim, const int64_t *dims, int gears, run_blob *b)
{
    char want[512], got[512];
    size_t es = run_dtype_size(io->dt);
    int64_t count = run_elem_count(dims, ndim);
    if (count < 0) {
        int ok = b->ndim == ndim;
        for (int k = 0; ok && k < ndim; k++)
            ok = dims[k] < 0 || dims[k] == b->dims[k];
        if (b->ndim < 0) {
            if (gears)
                run_err("input '%s' has gear dims %s: select a gear with --dymBatch, --dymHW or --dymDims",
                        io->name, run_dims_str(dims, ndim, want, sizeof want));
            else
                run_err("input '%s' has dynamic dims %s: give its shape with --dymShape %s:d0,d1,... "
                        "(or feed a .npy file, which carries its shape)", io->name,
                        run_dims_str(dims, ndim, want, sizeof want), io->name);
            return -1;
        }
        if (!ok) {
            run_err("%s: shape %s does not fit input '%s' dims %s", what, run_dims_str(b->dims, b->ndim, got, sizeof got),
                    io->name, run_dims_str(dims, ndim, want, sizeof want));
            return -1;
        }
        return 0;  /* the .npy's own shape is the shape */
    }
    if (es && b->size != (size_t)count * es) {
        run_err("%s has %zu bytes, input '%s' expects %lld bytes (%s %s)", what, b->size, io->name,
                (long long)count * (long long)es, run_dtype_name(io->dt), run_dims_str(dims, ndim, want, sizeof want));
        return -1;
    }
    b->ndim = ndim;
    memcpy(b->dims, dims, (size_t)ndim * sizeof *dims);
    return 0;
}

static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *s = strdup(base);
    char *dot = s ? strrchr(s, '.') : NULL;
    if (dot && dot != s)
        *dot = 0;
    return s;
}

static int load_inputs(const run_opts *o, const model_info *m, run_inputs *in)
{
    int ndims[RUN_MAX_IO];
    int64_t(*dims)[ACL_MAX_DIM_CNT] = calloc(RUN_MAX_IO, sizeof *dims);
    char *paths[RUN_MAX_IO] = {0};
    char **folder[RUN_MAX_IO] = {0};
    int folder_n[RUN_MAX_IO] = {0};
    int rc = -1, n_paths = 0;
    char *list = o->input_list ? strdup(o->input_list) : NULL;

    memset(in, 0, sizeof *in);
    in->n_inputs = m->n_user;
    if (!dims)
        goto out;
    if (check_spec_names("--dymShape", o->dym_shape, o->n_dym_shape, m) ||
        check_spec_names("--dymDims", o->dym_dims, o->n_dym_dims, m))
        goto out;
    for (int u = 0; u < m->n_user; u++)
        if (resolve_shape(o, &m->in[m->user_to_model[u]], &ndims[u], dims[u]))
            goto out;

    in->n_sets = 1;
    if (list) {
        for (char *save = NULL, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            if (n_paths == RUN_MAX_IO) {
                run_err("--input: too many paths");
                goto out;
            }
            paths[n_paths++] = p;
        }
        if (n_paths != m->n_user) {
            run_err("--input gives %d path(s), the model has %d data input(s)%s", n_paths, m->n_user,
                    m->gear_index >= 0 ? " (the gear input " ACL_DYNAMIC_TENSOR_NAME " is filled by the tool)" : "");
            goto out;
        }
        int first_folder = -1;
        for (int u = 0; u < n_paths; u++) {
            struct stat st;
            if (stat(paths[u], &st)) {
                run_err("--input %s: %s", paths[u], strerror(errno));
                goto out;
            }
            if (!S_ISDIR(st.st_mode))
                continue;
            if (run_list_folder(paths[u], &folder[u], &folder_n[u]))
                goto out;
            if (first_folder < 0) {
                first_folder = u;
                in->n_sets = folder_n[u];
            } else if (folder_n[u] != in->n_sets) {
                run_err("--input folders %s and %s hold %d and %d files: one file per inference in each",
                        paths[first_folder], paths[u], in->n_sets, folder_n[u]);
                goto out;
            }
        }
    }
    in->blobs = calloc((size_t)in->n_sets * (size_t)(m->n_user ? m->n_user : 1), sizeof *in->blobs);
    in->set_names = calloc((size_t)in->n_sets, sizeof *in->set_names);
    if (!in->blobs || !in->set_names)
        goto out;
    for (int s = 0; s < in->n_sets; s++) {
        /* msame names outputs after the model, or after the input file in
         * folder mode */
        const char *stem_src = o->model;
        for (int u = 0; u < n_paths; u++)
            if (folder[u]) {
                stem_src = folder[u][s];
                break;
            }
        in->set_names[s] = stem_of(stem_src);
        for (int u = 0; u < m->n_user; u++) {
            const io_info *io = &m->in[m->user_to_model[u]];
            run_blob *b = &in->blobs[s * m->n_user + u];
            if (!list) {
                if (s == 0 && run_elem_count(dims[u], ndims[u]) < 0) {
                    char d[512];
                    if (m->gear_index >= 0)
                        run_err("input '%s' has gear dims %s: select a gear with --dymBatch, --dymHW or --dymDims",
                                io->name, run_dims_str(dims[u], ndims[u], d, sizeof d));
                    else
                        run_err("input '%s' has dynamic dims %s: give its shape with --dymShape %s:d0,d1,... to "
                                "generate data for it", io->name, run_dims_str(dims[u], ndims[u], d, sizeof d),
                                io->name);
                    goto out;
                }
                if (run_make_blob(io->dt, dims[u], ndims[u], o->random_data, b))
                    goto out;
                continue;
            }
            if (!folder[u] && s > 0) {
                *b = in->blobs[u];  /* a plain file is the same for every set */
                continue;
            }
            char *path = paths[u];
            char *joined = NULL;
            if (folder[u]) {
                size_t len = strlen(paths[u]) + strlen(folder[u][s]) + 2;
                joined = malloc(len);
                if (!joined)
                    goto out;
                snprintf(joined, len, "%s/%s", paths[u], folder[u][s]);
                path = joined;
            }
            int bad = run_read_blob(path, io->dt, b) || fit_blob(path, io, ndims[u], dims[u], m->gear_index >= 0, b);
            free(joined);
            if (bad)
                goto out;
        }
    }
    rc = 0;
out:
    for (int u = 0; u < RUN_MAX_IO; u++) {
        if (folder[u]) {
            for (int k = 0; k < folder_n[u]; k++)
                free(folder[u][k]);
            free(folder[u]);
        }
    }
    free(list);
    free(dims);
    if (rc)
        run_free_inputs(in);
    return rc;
}

/* ---- workers ---- */

typedef struct worker {
    int index, device, thread;
    aclrtContext ctx;
    aclrtStream stream;
    uint32_t model_id;
    int loaded;
    aclmdlDesc *desc;
    aclmdlDataset *in_ds, *out_ds;
    aclDataBuffer *in_buf[RUN_MAX_IO], *out_buf[RUN_MAX_IO];
    void *in_dev[RUN_MAX_IO];         /* by user input */
    size_t in_cap[RUN_MAX_IO];
    void *gear_dev;
    void *out_dev[RUN_MAX_IO];
    size_t out_cap[RUN_MAX_IO];
    int out_by_runtime[RUN_MAX_IO];   /* (NULL, 0) buffer: the runtime allocates it per run */
    int any_by_runtime;
    void *out_host[RUN_MAX_IO];
    size_t out_host_cap[RUN_MAX_IO];
    size_t out_len[RUN_MAX_IO];       /* bytes of the last run's output */
    int out_ndim[RUN_MAX_IO];
    int64_t out_dims[RUN_MAX_IO][ACL_MAX_DIM_CNT];
    int last_set;                     /* set whose shapes the dataset describes */
    double load_ms, first_ms;
    double *lat, *h2d, *d2h;
    long n_runs;
    double start_ms, end_ms;
    int failed;
    atomic_int finished;              /* read by the progress watcher */
    struct run_ctx *run;
    pthread_t tid;
} worker;

typedef struct run_ctx {
    const run_opts *o;
    const model_info *m;
    const run_inputs *in;
    const char *out_dir;
    int gear_set;
    worker *w;
    int n_workers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    atomic_int abort_run;
    atomic_long done;
    struct rusage ru_start;
    double wall_start;
} run_ctx;

static int barrier_wait(run_ctx *c)
{
    pthread_mutex_lock(&c->mu);
    if (++c->arrived == c->n_workers)
        pthread_cond_broadcast(&c->cv);
    while (c->arrived < c->n_workers)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
    return atomic_load(&c->abort_run);
}

static int prepare_worker(const run_opts *o, const model_info *m, const run_inputs *in, worker *w)
{
    aclError rc;
    if ((rc = aclrtSetCurrentContext(w->ctx))) {
        run_acl_err(rc, "aclrtSetCurrentContext (device %d)", w->device);
        return -1;
    }
    w->in_ds = aclmdlCreateDataset();
    w->out_ds = aclmdlCreateDataset();
    if (!w->in_ds || !w->out_ds) {
        run_acl_err(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDataset");
        return -1;
    }
    /* Device buffers sized for the largest data any set brings (and at
     * least the model's size: gear models report their largest gear). */
    for (int u = 0; u < m->n_user; u++) {
        const io_info *io = &m->in[m->user_to_model[u]];
        size_t cap = io->size;
        for (int s = 0; s < in->n_sets; s++)
            if (in->blobs[s * m->n_user + u].size > cap)
                cap = in->blobs[s * m->n_user + u].size;
        w->in_cap[u] = cap;
        if ((rc = aclrtMalloc(&w->in_dev[u], cap ? cap : 1, ACL_MEM_MALLOC_HUGE_FIRST))) {
            run_acl_err(rc, "aclrtMalloc(%zu) for input '%s' on device %d", cap, io->name, w->device);
            return -1;
        }
    }
    if (m->gear_index >= 0) {
        size_t gsz = m->in[m->gear_index].size ? m->in[m->gear_index].size : 8;
        if ((rc = aclrtMalloc(&w->gear_dev, gsz, ACL_MEM_MALLOC_HUGE_FIRST))) {
            run_acl_err(rc, "aclrtMalloc(%zu) for the gear input", gsz);
            return -1;
        }
    }
    /* The dataset is in model input order: position = input index. */
    for (size_t i = 0, u = 0; i < m->n_in; i++) {
        aclDataBuffer *b;
        if ((long)i == m->gear_index) {
            b = aclCreateDataBuffer(w->gear_dev, m->in[i].size ? m->in[i].size : 8);
        } else {
            b = aclCreateDataBuffer(w->in_dev[u], in->blobs[u].size);
            u++;
        }
        w->in_buf[i] = b;
        if (!b || (rc = aclmdlAddDatasetBuffer(w->in_ds, b))) {
            run_acl_err(b ? rc : ACL_ERROR_BAD_ALLOC, "adding input %zu to the dataset", i);
            return -1;
        }
    }
    for (size_t i = 0; i < m->n_out; i++) {
        size_t cap = m->out[i].size;
        if (!cap && (int)i < o->n_output_size)
            cap = o->output_size[i];
        if (cap) {
            if ((rc = aclrtMalloc(&w->out_dev[i], cap, ACL_MEM_MALLOC_HUGE_FIRST))) {
                run_acl_err(rc, "aclrtMalloc(%zu) for output '%s' on device %d", cap, m->out[i].name, w->device);
                return -1;
            }
        } else {
            /* Size unknown before the run: an empty buffer asks aclmdlExecute
             * to allocate it (acl-api.md 1.6, output auto-allocation). */
            w->out_by_runtime[i] = 1;
            w->any_by_runtime = 1;
        }
        w->out_cap[i] = cap;
        aclDataBuffer *b = aclCreateDataBuffer(w->out_dev[i], cap);
        w->out_buf[i] = b;
        if (!b || (rc = aclmdlAddDatasetBuffer(w->out_ds, b))) {
            run_acl_err(b ? rc : ACL_ERROR_BAD_ALLOC, "adding output %zu to the dataset", i);
            return -1;
        }
    }
    w->last_set = -1;
    return 0;
}

/* Gear selection, after the dataset holds its buffers. On a model without
 * gears the call still goes to the library, with the last input's index, so
 * the user sees the library's own verdict and message. */
static int select_gear(const run_opts *o, const model_info *m, worker *w)
{
    size_t idx = m->gear_index >= 0 ? (size_t)m->gear_index : (m->n_in ? m->n_in - 1 : 0);
    const char *hint = m->gear_index >= 0 ? "" : "the model has no " ACL_DYNAMIC_TENSOR_NAME " input: it was not "
                                                 "compiled with gears (for range-dynamic inputs use --dymShape)";
    aclError rc = ACL_SUCCESS;
    if (o->has_dym_batch) {
        if ((rc = aclmdlSetDynamicBatchSize(w->model_id, w->in_ds, idx, o->dym_batch)))
            run_acl_err(rc, "--dymBatch %llu: aclmdlSetDynamicBatchSize", (unsigned long long)o->dym_batch);
    } else if (o->has_dym_hw) {
        if ((rc = aclmdlSetDynamicHWSize(w->model_id, w->in_ds, idx, o->dym_h, o->dym_w)))
            run_acl_err(rc, "--dymHW %llu,%llu: aclmdlSetDynamicHWSize", (unsigned long long)o->dym_h,
                        (unsigned long long)o->dym_w);
    } else if (o->dym_dims) {
        /* one aclmdlIODims with every data input's full shape, concatenated
         * in input order (acl-api.md 1.6) */
        aclmdlIODims d;
        memset(&d, 0, sizeof d);
        for (int u = 0; u < m->n_user; u++) {
            const io_info *io = &m->in[m->user_to_model[u]];
            const run_shape_spec *s = find_spec(o->dym_dims, o->n_dym_dims, io->name);
            if (!s) {
                run_err("--dymDims must give the shape of every data input; '%s' is missing", io->name);
                return -1;
            }
            if (d.dimCount + (size_t)s->ndim > ACL_MAX_DIM_CNT) {
                run_err("--dymDims: more than %d dims in all", ACL_MAX_DIM_CNT);
                return -1;
            }
            memcpy(d.dims + d.dimCount, s->dims, (size_t)s->ndim * sizeof s->dims[0]);
            d.dimCount += (size_t)s->ndim;
        }
        if ((rc = aclmdlSetInputDynamicDims(w->model_id, w->in_ds, idx, &d)))
            run_acl_err(rc, "--dymDims: aclmdlSetInputDynamicDims");
    }
    if (rc) {
        if (*hint)
            fprintf(stderr, "openacl-run: note: %s\n", hint);
        return -1;
    }
    return 0;
}

static int set_input_shapes(const run_ctx *c, worker *w, int set)
{
    const model_info *m = c->m;
    for (int u = 0; u < m->n_user; u++) {
        const run_blob *b = &c->in->blobs[set * m->n_user + u];
        int mi = m->user_to_model[u];
        aclError rc;
        if (aclGetDataBufferSizeV2(w->in_buf[mi]) != b->size &&
            (rc = aclUpdateDataBuffer(w->in_buf[mi], w->in_dev[u], b->size))) {
            run_acl_err(rc, "aclUpdateDataBuffer for input %d", mi);
            return -1;
        }
        if (!m->user_dynamic[u])
            continue;
        aclTensorDesc *td = aclCreateTensorDesc(m->in[mi].dt, b->ndim, b->dims, m->in[mi].fmt);
        if (!td) {
            run_acl_err(ACL_ERROR_INVALID_PARAM, "aclCreateTensorDesc for input '%s'", m->in[mi].name);
            return -1;
        }
        rc = aclmdlSetDatasetTensorDesc(w->in_ds, td, (size_t)mi);
        aclDestroyTensorDesc(td);
        if (rc) {
            run_acl_err(rc, "aclmdlSetDatasetTensorDesc for input '%s'", m->in[mi].name);
            return -1;
        }
    }
    w->last_set = set;
    return 0;
}

/* The shape and byte count an output really has after a run. */
static void output_extent(const run_ctx *c, worker *w, size_t i, size_t buf_size)
{
    const model_info *m = c->m;
    size_t es = run_dtype_size(m->out[i].dt);
    aclTensorDesc *td = aclmdlGetDatasetTensorDesc(w->out_ds, i);
    w->out_ndim[i] = m->out[i].ndim;
    memcpy(w->out_dims[i], m->out[i].dims, (size_t)m->out[i].ndim * sizeof(int64_t));
    if (td) {
        size_t nd = aclGetTensorDescNumDims(td);
        if (nd != ACL_UNKNOWN_RANK && nd <= ACL_MAX_DIM_CNT) {
            w->out_ndim[i] = (int)nd;
            for (size_t k = 0; k < nd; k++)
                if (aclGetTensorDescDimV2(td, k, &w->out_dims[i][k]))
                    w->out_dims[i][k] = -1;
        }
    } else if (c->gear_set) {
        aclmdlIODims d;
        if (aclmdlGetCurOutputDims(w->desc, i, &d) == ACL_SUCCESS && d.dimCount <= ACL_MAX_DIM_CNT) {
            w->out_ndim[i] = (int)d.dimCount;
            memcpy(w->out_dims[i], d.dims, d.dimCount * sizeof(int64_t));
        }
    }
    int64_t count = run_elem_count(w->out_dims[i], w->out_ndim[i]);
    size_t len = count >= 0 && es ? (size_t)count * es : buf_size;
    w->out_len[i] = len < buf_size ? len : buf_size;
}

static int run_once(run_ctx *c, worker *w, int set, int measured, int write)
{
    const model_info *m = c->m;
    aclError rc;
    if (set != w->last_set && set_input_shapes(c, w, set))
        return -1;

    double t0 = now_ms();
    for (int u = 0; u < m->n_user; u++) {
        const run_blob *b = &c->in->blobs[set * m->n_user + u];
        if (b->size && (rc = aclrtMemcpy(w->in_dev[u], w->in_cap[u], b->data, b->size, ACL_MEMCPY_HOST_TO_DEVICE))) {
            run_acl_err(rc, "aclrtMemcpy of input %d to device %d", m->user_to_model[u], w->device);
            return -1;
        }
    }
    double t1 = now_ms();
    if (w->any_by_runtime) {
        rc = aclmdlExecute(w->model_id, w->in_ds, w->out_ds);
    } else {
        rc = aclmdlExecuteAsync(w->model_id, w->in_ds, w->out_ds, w->stream);
        if (!rc)
            rc = aclrtSynchronizeStream(w->stream);
    }
    double t2 = now_ms();
    if (rc) {
        run_acl_err(rc, "executing the model on device %d", w->device);
        return -1;
    }
    for (size_t i = 0; i < m->n_out; i++) {
        void *addr = aclGetDataBufferAddr(w->out_buf[i]);
        size_t bsize = aclGetDataBufferSizeV2(w->out_buf[i]);
        output_extent(c, w, i, bsize);
        size_t len = w->out_len[i];
        if (len > w->out_host_cap[i]) {
            void *p = realloc(w->out_host[i], len);
            if (!p) {
                run_err("out of memory for output %zu (%zu bytes)", i, len);
                return -1;
            }
            w->out_host[i] = p;
            w->out_host_cap[i] = len;
        }
        if (len && addr && (rc = aclrtMemcpy(w->out_host[i], w->out_host_cap[i], addr, len, ACL_MEMCPY_DEVICE_TO_HOST))) {
            run_acl_err(rc, "aclrtMemcpy of output %zu from device %d", i, w->device);
            return -1;
        }
    }
    double t3 = now_ms();
    /* Runtime-allocated outputs belong to the caller after the run: free
     * them and hand the runtime an empty buffer again for the next run. */
    for (size_t i = 0; i < m->n_out; i++)
        if (w->out_by_runtime[i]) {
            void *addr = aclGetDataBufferAddr(w->out_buf[i]);
            if (addr)
                aclrtFree(addr);
            aclUpdateDataBuffer(w->out_buf[i], NULL, 0);
        }

    if (w->first_ms < 0)
        w->first_ms = t2 - t1;
    if (measured) {
        w->h2d[w->n_runs] = t1 - t0;
        w->lat[w->n_runs] = t2 - t1;
        w->d2h[w->n_runs] = t3 - t2;
        w->n_runs++;
        atomic_fetch_add(&c->done, 1);
        if (c->o->debug)
            printf("device %d worker %d run %ld: Inference time: %.3f ms\n", w->device, w->thread, w->n_runs,
                   t2 - t1);
    }
    if (write)
        for (size_t i = 0; i < m->n_out; i++)
            if (run_write_output(c->out_dir, c->in->set_names[set], (int)i, c->o->outfmt, m->out[i].dt,
                                 w->out_dims[i], w->out_ndim[i], w->out_host[i], w->out_len[i]))
                return -1;
    return 0;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    run_ctx *c = w->run;
    const run_opts *o = c->o;
    aclError rc;
    /* A context is per thread: this thread adopts the one its model was
     * loaded under (load, execute and unload must share a context). */
    if ((rc = aclrtSetCurrentContext(w->ctx))) {
        run_acl_err(rc, "aclrtSetCurrentContext on device %d", w->device);
        w->failed = 1;
        atomic_store(&c->abort_run, 1);
    }
    for (long r = 0; r < o->warmup && !w->failed && !atomic_load(&c->abort_run); r++)
        if (run_once(c, w, 0, 0, 0)) {
            w->failed = 1;
            atomic_store(&c->abort_run, 1);
        }
    if (barrier_wait(c)) {
        atomic_store(&w->finished, 1);
        return NULL;
    }
    w->start_ms = now_ms();
    if (w->index == 0) {
        getrusage(RUSAGE_SELF, &c->ru_start);
        c->wall_start = w->start_ms;
    }
    for (long p = 0; p < o->loop && !w->failed; p++)
        for (int s = 0; s < c->in->n_sets && !w->failed; s++) {
            if (atomic_load(&c->abort_run)) {
                atomic_store(&w->finished, 1);
                return NULL;
            }
            int write = c->out_dir && w->index == 0 && p == 0;
            if (run_once(c, w, s, 1, write)) {
                w->failed = 1;
                atomic_store(&c->abort_run, 1);
            }
        }
    w->end_ms = now_ms();
    atomic_store(&w->finished, 1);
    return NULL;
}

/* ---- statistics and report ---- */

typedef struct stats {
    long n;
    double min, mean, median, p90, p99, max;
} stats;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentiles over a sorted copy; the median averages the two
 * middle values of an even count. */
static stats compute_stats(const double *v, long n)
{
    stats s;
    memset(&s, 0, sizeof s);
    s.n = n;
    if (n <= 0)
        return s;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t)
        return s;
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    double sum = 0;
    for (long i = 0; i < n; i++)
        sum += t[i];
    s.min = t[0];
    s.max = t[n - 1];
    s.mean = sum / (double)n;
    s.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    long r90 = (long)ceil(0.90 * (double)n), r99 = (long)ceil(0.99 * (double)n);
    s.p90 = t[(r90 < 1 ? 1 : r90) - 1];
    s.p99 = t[(r99 < 1 ? 1 : r99) - 1];
    free(t);
    return s;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_stats(FILE *f, const stats *s)
{
    fprintf(f, "{\"count\": %ld, \"min\": %.6f, \"mean\": %.6f, \"median\": %.6f, \"p90\": %.6f, \"p99\": %.6f, "
               "\"max\": %.6f}", s->n, s->min, s->mean, s->median, s->p90, s->p99, s->max);
}

static void json_io(FILE *f, const io_info *io, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"index\": %zu, \"name\": ", i ? ", " : "", i);
        json_str(f, io[i].name);
        fprintf(f, ", \"dims\": [");
        for (int k = 0; k < io[i].ndim; k++)
            fprintf(f, "%s%lld", k ? ", " : "", (long long)io[i].dims[k]);
        fprintf(f, "], \"dtype\": \"%s\", \"format\": \"%s\", \"size\": %zu}", run_dtype_name(io[i].dt),
                run_format_name(io[i].fmt), io[i].size);
    }
    fputc(']', f);
}

typedef struct dev_summary {
    int device;
    long runs;
    stats lat, h2d, d2h;
    double throughput;
    double load_ms, first_ms;
} dev_summary;

static double *gather(const run_ctx *c, int device, int which, long *n)
{
    long total = 0;
    for (int i = 0; i < c->n_workers; i++)
        if (device < 0 || c->w[i].device == device)
            total += c->w[i].n_runs;
    double *v = malloc((size_t)(total ? total : 1) * sizeof *v);
    long k = 0;
    if (!v)
        return NULL;
    for (int i = 0; i < c->n_workers; i++)
        if (device < 0 || c->w[i].device == device) {
            const double *src = which == 0 ? c->w[i].lat : which == 1 ? c->w[i].h2d : c->w[i].d2h;
            memcpy(v + k, src, (size_t)c->w[i].n_runs * sizeof *v);
            k += c->w[i].n_runs;
        }
    *n = total;
    return v;
}

static stats stats_of(const run_ctx *c, int device, int which)
{
    long n = 0;
    double *v = gather(c, device, which, &n);
    stats s = compute_stats(v, v ? n : 0);
    free(v);
    return s;
}

static void report(run_ctx *c, long batch, double wall_ms, const struct rusage *ru_end)
{
    const run_opts *o = c->o;
    const model_info *m = c->m;
    int to_stdout_json = o->json_path && !strcmp(o->json_path, "-");
    FILE *f = to_stdout_json ? stderr : stdout;
    dev_summary ds[RUN_MAX_DEVICES];
    double total_tp = 0;
    long total_runs = 0;
    for (int d = 0; d < o->n_devices; d++) {
        dev_summary *s = &ds[d];
        memset(s, 0, sizeof *s);
        s->device = o->devices[d];
        s->lat = stats_of(c, s->device, 0);
        s->h2d = stats_of(c, s->device, 1);
        s->d2h = stats_of(c, s->device, 2);
        s->runs = s->lat.n;
        s->first_ms = -1;
        for (int i = 0; i < c->n_workers; i++) {
            const worker *w = &c->w[i];
            if (w->device != s->device)
                continue;
            if (w->n_runs) {
                stats ws = compute_stats(w->lat, w->n_runs);
                if (ws.mean > 0)
                    s->throughput += 1000.0 * (double)batch / ws.mean;
            }
            if (w->load_ms > s->load_ms)
                s->load_ms = w->load_ms;
            if (s->first_ms < 0 || w->first_ms > s->first_ms)
                s->first_ms = w->first_ms;
        }
        total_tp += s->throughput;
        total_runs += s->runs;
    }
    stats lat = stats_of(c, -1, 0), h2d = stats_of(c, -1, 1), d2h = stats_of(c, -1, 2);
    double user_s = (double)(ru_end->ru_utime.tv_sec - c->ru_start.ru_utime.tv_sec) +
                    (double)(ru_end->ru_utime.tv_usec - c->ru_start.ru_utime.tv_usec) / 1e6;
    double sys_s = (double)(ru_end->ru_stime.tv_sec - c->ru_start.ru_stime.tv_sec) +
                   (double)(ru_end->ru_stime.tv_usec - c->ru_start.ru_stime.tv_usec) / 1e6;
    double cpu_pct = wall_ms > 0 ? 100.0 * (user_s + sys_s) / (wall_ms / 1e3) : 0;
    double rss_mb = (double)ru_end->ru_maxrss / 1024.0;
    double wall_tp = wall_ms > 0 ? (double)total_runs * (double)batch / (wall_ms / 1e3) : 0;
    const worker *w0 = &c->w[0];

    fprintf(f, "load time             : %.3f ms", w0->load_ms);
    if (c->n_workers > 1) {
        double mx = 0;
        for (int i = 0; i < c->n_workers; i++)
            mx = c->w[i].load_ms > mx ? c->w[i].load_ms : mx;
        fprintf(f, " (slowest of %d loads: %.3f ms)", c->n_workers, mx);
    }
    fprintf(f, "\nfirst run             : %.3f ms\n", w0->first_ms);
    fprintf(f, "inferences            : %ld measured (%ld loop x %d input set(s) x %d worker(s)), %ld warm-up per worker\n",
            total_runs, o->loop, c->in->n_sets, c->n_workers, o->warmup);
    fprintf(f, "latency (ms)          : min %.3f  mean %.3f  median %.3f  p90 %.3f  p99 %.3f  max %.3f\n", lat.min,
            lat.mean, lat.median, lat.p90, lat.p99, lat.max);
    fprintf(f, "H2D / compute / D2H   : %.3f / %.3f / %.3f ms (means)\n", h2d.mean, lat.mean, d2h.mean);
    fprintf(f, "throughput            : %.2f inferences/s x batch %ld = %.2f items/s (1000 x batch / mean latency",
            total_tp / (double)batch, batch, total_tp);
    if (o->n_devices > 1 || o->threads > 1)
        fprintf(f, ", summed over workers");
    fprintf(f, ")\n");
    if (o->n_devices > 1)
        for (int d = 0; d < o->n_devices; d++)
            fprintf(f, "  device %-3d          : %.2f items/s, mean %.3f ms, p99 %.3f ms, %ld runs\n", ds[d].device,
                    ds[d].throughput, ds[d].lat.mean, ds[d].lat.p99, ds[d].runs);
    fprintf(f, "throughput (wall)     : %.2f items/s over %.4g s\n", wall_tp, wall_ms / 1e3);
    fprintf(f, "cpu use               : %.0f%% (user %.3f s + sys %.3f s over %.4g s wall)\n", cpu_pct, user_s, sys_s,
            wall_ms / 1e3);
    fprintf(f, "peak rss              : %.1f MiB\n", rss_mb);
    /* the two lines msame users grep for */
    fprintf(f, "Inference average time: %f ms\n", lat.mean);
    if (w0->n_runs > 1) {
        double sum = 0;
        for (long i = 1; i < w0->n_runs; i++)
            sum += w0->lat[i];
        fprintf(f, "Inference average time without first time: %f ms\n", sum / (double)(w0->n_runs - 1));
    }

    if (!o->json_path)
        return;
    FILE *j = to_stdout_json ? stdout : fopen(o->json_path, "w");
    if (!j) {
        run_err("--json %s: %s", o->json_path, strerror(errno));
        return;
    }
    fprintf(j, "{\"tool\": \"openacl-run\", \"version\": \"%s\", \"model\": ", OPENACL_RUN_VERSION);
    json_str(j, o->model);
    fprintf(j, ",\n \"devices\": [");
    for (int d = 0; d < o->n_devices; d++)
        fprintf(j, "%s%d", d ? ", " : "", o->devices[d]);
    fprintf(j, "], \"threads_per_device\": %d, \"batchsize\": %ld, \"loop\": %ld, \"warmup_count\": %ld, "
               "\"input_sets\": %d, \"inferences\": %ld,\n \"inputs\": ",
            o->threads, batch, o->loop, o->warmup, c->in->n_sets, total_runs);
    json_io(j, m->in, m->n_in);
    fprintf(j, ",\n \"outputs\": ");
    json_io(j, m->out, m->n_out);
    fprintf(j, ",\n \"gears\": {\"batch\": [");
    for (size_t g = 0; g < m->batch.batchCount; g++)
        fprintf(j, "%s%llu", g ? ", " : "", (unsigned long long)m->batch.batch[g]);
    fprintf(j, "], \"hw\": [");
    for (size_t g = 0; g < m->hw.hwCount; g++)
        fprintf(j, "%s[%llu, %llu]", g ? ", " : "", (unsigned long long)m->hw.hw[g][0],
                (unsigned long long)m->hw.hw[g][1]);
    fprintf(j, "], \"dims\": [");
    for (size_t g = 0; g < m->dims_gears; g++) {
        fprintf(j, "%s[", g ? ", " : "");
        for (size_t k = 0; k < m->dims_gear[g].dimCount; k++)
            fprintf(j, "%s%lld", k ? ", " : "", (long long)m->dims_gear[g].dims[k]);
        fputc(']', j);
    }
    fprintf(j, "]},\n \"output_dir\": ");
    if (c->out_dir)
        json_str(j, c->out_dir);
    else
        fputs("null", j);
    fprintf(j, ", \"outfmt\": \"%s\",\n", o->outfmt == OUTFMT_NPY ? "NPY" : o->outfmt == OUTFMT_TXT ? "TXT" : "BIN");
    fprintf(j, " \"load_ms\": %.6f, \"first_run_ms\": %.6f,\n \"latency_ms\": ", w0->load_ms, w0->first_ms);
    json_stats(j, &lat);
    fprintf(j, ",\n \"h2d_ms\": ");
    json_stats(j, &h2d);
    fprintf(j, ",\n \"compute_ms\": ");
    json_stats(j, &lat);
    fprintf(j, ",\n \"d2h_ms\": ");
    json_stats(j, &d2h);
    fprintf(j, ",\n \"throughput\": %.6f, \"throughput_wall\": %.6f, \"wall_s\": %.6f,\n \"per_device\": [", total_tp,
            wall_tp, wall_ms / 1e3);
    for (int d = 0; d < o->n_devices; d++) {
        fprintf(j, "%s\n  {\"device\": %d, \"inferences\": %ld, \"load_ms\": %.6f, \"first_run_ms\": %.6f, "
                   "\"throughput\": %.6f, \"latency_ms\": ",
                d ? "," : "", ds[d].device, ds[d].runs, ds[d].load_ms, ds[d].first_ms, ds[d].throughput);
        json_stats(j, &ds[d].lat);
        fprintf(j, ", \"h2d_ms\": ");
        json_stats(j, &ds[d].h2d);
        fprintf(j, ", \"d2h_ms\": ");
        json_stats(j, &ds[d].d2h);
        fputc('}', j);
    }
    fprintf(j, "],\n \"cpu\": {\"user_s\": %.6f, \"sys_s\": %.6f, \"wall_s\": %.6f, \"percent\": %.3f},\n"
               " \"peak_rss_mb\": %.3f}\n", user_s, sys_s, wall_ms / 1e3, cpu_pct, rss_mb);
    if (j != stdout)
        fclose(j);
    else
        fflush(stdout);
}

/* A bar on stderr while the workers run, only for a terminal and only once
 * a run has lasted half a second (short runs print nothing). */
static void watch_progress(run_ctx *c, long total)
{
    int tty = isatty(2);
    double t0 = now_ms();
    int drawn = 0;
    while (1) {
        int running = 0;
        for (int i = 0; i < c->n_workers; i++)
            running |= !atomic_load(&c->w[i].finished);
        long done = atomic_load(&c->done);
        if (!running || atomic_load(&c->abort_run) || done >= total)
            break;
        if (tty && total > 1 && now_ms() - t0 > 500) {
            int width = 30, fill = (int)((double)done / (double)total * width);
            double rate = done / ((now_ms() - t0) / 1e3);
            fprintf(stderr, "\r[%.*s%.*s] %ld/%ld  %.1f runs/s ", fill, "##############################",
                    width - fill, "..............................", done, total, rate);
            drawn = 1;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (drawn)
        fprintf(stderr, "\r\033[K");
}

/* ---- set-up, run, tear-down ---- */

static int teardown(run_ctx *c, int n_ready, const run_opts *o, int *dev_set, int n_dev_set)
{
    int bad = 0;
    aclError rc;
    /* The documented release order: datasets and buffers, device memory,
     * the model, its description, then stream and context, then devices. */
    for (int i = 0; i < n_ready; i++) {
        worker *w = &c->w[i];
        if (w->ctx && aclrtSetCurrentContext(w->ctx))
            continue;
        for (size_t k = 0; k < RUN_MAX_IO; k++) {
            if (w->in_buf[k])
                aclDestroyDataBuffer(w->in_buf[k]);
            if (w->out_buf[k])
                aclDestroyDataBuffer(w->out_buf[k]);
            if (w->in_dev[k])
                aclrtFree(w->in_dev[k]);
            if (w->out_dev[k])
                aclrtFree(w->out_dev[k]);
            free(w->out_host[k]);
        }
        if (w->gear_dev)
            aclrtFree(w->gear_dev);
        if (w->in_ds)
            aclmdlDestroyDataset(w->in_ds);
        if (w->out_ds)
            aclmdlDestroyDataset(w->out_ds);
        if (w->loaded && (rc = aclmdlUnload(w->model_id))) {
            run_acl_err(rc, "aclmdlUnload");
            bad = 1;
        }
        if (w->desc)
            aclmdlDestroyDesc(w->desc);
        if (w->stream && (rc = aclrtDestroyStream(w->stream))) {
            run_acl_err(rc, "aclrtDestroyStream");
            bad = 1;
        }
        if (w->ctx && (rc = aclrtDestroyContext(w->ctx))) {
            run_acl_err(rc, "aclrtDestroyContext");
            bad = 1;
        }
        free(w->lat);
        free(w->h2d);
        free(w->d2h);
    }
    for (int d = 0; d < n_dev_set; d++)
        aclrtResetDevice(dev_set[d]);
    (void)o;
    return bad;
}

int main(int argc, char **argv)
{
    run_opts o;
    int rc = run_parse_args(argc, argv, &o);
    if (rc < 0)
        return 0;  /* --help */
    if (rc)
        return rc;
    setvbuf(stdout, NULL, _IOLBF, 0);

    int status = RUN_EXIT_FAIL;
    model_info *m = calloc(1, sizeof *m);
    run_inputs in;
    run_ctx c;
    int dev_set[RUN_MAX_DEVICES], n_dev_set = 0, n_ready = 0, initialised = 0;
    char *out_dir = NULL;
    memset(&in, 0, sizeof in);
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    c.o = &o;
    c.m = m;
    c.in = &in;
    if (!m)
        goto out;

    struct stat st;
    errno = 0;
    if (stat(o.model, &st) || !S_ISREG(st.st_mode)) {
        run_err("--model %s: %s", o.model, errno ? strerror(errno) : "not a regular file");
        goto out;
    }
    /* --profile: the engine reads OPENACL_PROFILE at the first run and
     * writes the trace when the process exits */
    if (o.profile_path)
        setenv("OPENACL_PROFILE", o.profile_path, 1);
    if (run_write_debug_json(&o))
        goto out;
    aclError arc = aclInit(o.acl_json_path);
    if (arc && arc != ACL_ERROR_REPEAT_INITIALIZE) {
        run_acl_err(arc, "aclInit(%s)", o.acl_json_path ? o.acl_json_path : "NULL");
        goto out;
    }
    initialised = 1;
    uint32_t n_dev = 0;
    if ((arc = aclrtGetDeviceCount(&n_dev))) {
        run_acl_err(arc, "aclrtGetDeviceCount");
        goto out;
    }
    for (int d = 0; d < o.n_devices; d++)
        if ((uint32_t)o.devices[d] >= n_dev) {
            run_err("--device %d: there are %u device(s), ids 0..%u (openacl: set OPENACL_DEVICE_COUNT or "
                    "device_count in the aclInit configuration for more)", o.devices[d], n_dev, n_dev - 1);
            goto out;
        }

    c.n_workers = o.n_devices * o.threads;
    c.w = calloc((size_t)c.n_workers, sizeof *c.w);
    if (!c.w)
        goto out;
    FILE *info = o.json_path && !strcmp(o.json_path, "-") ? stderr : stdout;
    for (int d = 0; d < o.n_devices; d++) {
        if ((arc = aclrtSetDevice(o.devices[d]))) {
            run_acl_err(arc, "aclrtSetDevice(%d)", o.devices[d]);
            goto out;
        }
        dev_set[n_dev_set++] = o.devices[d];
        for (int t = 0; t < o.threads; t++) {
            worker *w = &c.w[n_ready];
            w->index = n_ready;
            w->device = o.devices[d];
            w->thread = t;
            w->first_ms = -1;
            w->run = &c;
            n_ready++;
            /* Each worker has its own context and stream; the model is
             * loaded here, under that context, and executed by the worker's
             * thread after it makes the context current. */
            if ((arc = aclrtCreateContext(&w->ctx, w->device))) {
                run_acl_err(arc, "aclrtCreateContext(device %d)", w->device);
                goto out;
            }
            if ((arc = aclrtCreateStream(&w->stream))) {
                run_acl_err(arc, "aclrtCreateStream(device %d)", w->device);
                goto out;
            }
            double t0 = now_ms();
            arc = aclmdlLoadFromFile(o.model, &w->model_id);
            w->load_ms = now_ms() - t0;
            if (arc) {
                run_acl_err(arc, "loading model %s on device %d: aclmdlLoadFromFile", o.model, w->device);
                goto out;
            }
            w->loaded = 1;
            w->desc = aclmdlCreateDesc();
            if (!w->desc || (arc = aclmdlGetDesc(w->desc, w->model_id))) {
                run_acl_err(arc ? arc : ACL_ERROR_BAD_ALLOC, "aclmdlGetDesc");
                goto out;
            }
            if (n_ready == 1) {
                if (inspect_model(w->desc, m))
                    goto out;
                print_model(info, o.model, m);
                if (load_inputs(&o, m, &in))
                    goto out;
            }
        }
    }
    if (o.n_output_size && o.n_output_size != (int)m->n_out) {
        run_err("--outputSize gives %d size(s), the model has %zu output(s)", o.n_output_size, m->n_out);
        goto out;
    }
    long runs_per_worker = o.loop * in.n_sets;
    for (int i = 0; i < c.n_workers; i++) {
        worker *w = &c.w[i];
        w->lat = calloc((size_t)runs_per_worker, sizeof(double));
        w->h2d = calloc((size_t)runs_per_worker, sizeof(double));
        w->d2h = calloc((size_t)runs_per_worker, sizeof(double));
        if (!w->lat || !w->h2d || !w->d2h) {
            run_err("out of memory for %ld timings", runs_per_worker);
            goto out;
        }
        if (prepare_worker(&o, m, &in, w) || select_gear(&o, m, w))
            goto out;
    }
    c.gear_set = o.has_dym_batch || o.has_dym_hw || o.dym_dims;

    long batch = o.batchsize;
    if (!batch) {
        batch = 1;
        if (m->n_user && in.blobs[0].ndim >= 1 && in.blobs[0].dims[0] > 0)
            batch = (long)in.blobs[0].dims[0];
    }
    if (o.output) {
        if (!(out_dir = run_make_output_dir(o.output, o.output_dirname)))
            goto out;
        fprintf(info, "output folder: %s\n", out_dir);
        c.out_dir = out_dir;
    }
    fprintf(info, "running: device(s)");
    for (int d = 0; d < o.n_devices; d++)
        fprintf(info, "%s%d", d ? "," : " ", o.devices[d]);
    fprintf(info, " x %d worker(s), batch %ld, %ld warm-up + %ld measured run(s) each\n", o.threads, batch, o.warmup,
            runs_per_worker);

    int started = 0;
    for (int i = 0; i < c.n_workers; i++) {
        if (pthread_create(&c.w[i].tid, NULL, worker_main, &c.w[i])) {
            run_err("cannot start worker thread %d", i);
            atomic_store(&c.abort_run, 1);
            /* the workers already waiting at the barrier need the missing
             * arrivals to be let go */
            pthread_mutex_lock(&c.mu);
            c.arrived += c.n_workers - i;
            pthread_cond_broadcast(&c.cv);
            pthread_mutex_unlock(&c.mu);
            break;
        }
        started++;
    }
    watch_progress(&c, (long)c.n_workers * runs_per_worker);
    for (int i = 0; i < started; i++)
        pthread_join(c.w[i].tid, NULL);
    struct rusage ru_end;
    getrusage(RUSAGE_SELF, &ru_end);
    int failed = started < c.n_workers;
    double end = 0;
    for (int i = 0; i < c.n_workers; i++) {
        failed |= c.w[i].failed;
        if (c.w[i].end_ms > end)
            end = c.w[i].end_ms;
    }
    if (failed || atomic_load(&c.abort_run))
        goto out;
    /* the main thread must be back on a context for the tear-down */
    report(&c, batch, end - c.wall_start, &ru_end);
    status = 0;
out:
    if (c.w && teardown(&c, n_ready, &o, dev_set, n_dev_set) && status == 0)
        status = RUN_EXIT_FAIL;
    if (initialised)
        aclFinalize();
    if (m)
        free(m->dims_gear);
    free(m);
    free(c.w);
    free(out_dir);
    run_free_inputs(&in);
    run_free_opts(&o);
    return status;
}
