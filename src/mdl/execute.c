/* Execution: validating datasets against the model, turning them into the
 * engine's tensors, running (inline for aclmdlExecute/V2, as a stream task
 * for the async forms) and writing back actual output shapes and
 * runtime-allocated outputs.
 *
 * Concurrency: executions of one model are serialised by its run_lock (one
 * work arena per model), so one model id may be used from several threads
 * and streams without corrupting results; different models run in
 * parallel. An execution holds a reference to the model, so an unload that
 * races with it waits for the running one and makes queued ones fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

typedef struct exec_job {
    mdl_model *m;
    const char *api;
    int n_in, n_out;
    k_tensor *in, *out;
    aclmdlDataset *out_ds;
    unsigned char *auto_out;  /* output i is runtime-allocated */
    void **allocs;            /* what the engine asked us to allocate */
    int n_allocs;
    void *work;
    int gear;                 /* gear models: the gear this execution runs */
} exec_job;

static void job_free(exec_job *j)
{
    if (!j)
        return;
    mdl_put(j->m);
    free(j);
}

static char *shape_str(const g_shape *s, char *buf, size_t len)
{
    return g_shape_str(s, buf, len);
}

/* Checks one data buffer's memory: openacl accepts memory from aclrtMalloc*
 * (on the model's device) and from aclrtMallocHost. */
static int check_mem(const char *api, const mdl_model *m, const char *kind, int i, const char *name, void *p,
                     size_t size)
{
    int dev = -1, is_dev = 0;
    if (rt_mem_find(p, size ? size : 1, &dev, &is_dev) != ACL_SUCCESS)
        return acl_fail(ACL_ERROR_INVALID_PARAM,
                        "%s: model %u %s %d \"%s\": buffer %p (%zu bytes) is not memory from aclrtMalloc or "
                        "aclrtMallocHost (or extends past the end of that allocation); model inputs and outputs "
                        "must be device memory", api, m->id, kind, i, name, p, size);
    if (is_dev && dev != m->device)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u %s %d \"%s\": buffer %p is memory of device %d but "
                        "the model is loaded on device %d", api, m->id, kind, i, name, p, dev, m->device);
    return ACL_SUCCESS;
}

/* Actual shape of input i: the dataset's tensor descriptor where one is
 * set, else the model's declared (then necessarily static) shape. */
static int input_shape(const char *api, const mdl_model *m, int i, aclTensorDesc *td, g_shape *out)
{
    const mdl_io *io = &m->info.in[i];
    char b1[128], b2[128];
    if (!td) {
        if (!g_shape_known(&io->shape))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\" has dynamic shape %s: describe "
                            "its actual shape with aclmdlSetDatasetTensorDesc", api, m->id, i, io->name,
                            shape_str(&io->shape, b1, sizeof b1));
        *out = io->shape;
        return ACL_SUCCESS;
    }
    size_t nd = aclGetTensorDescNumDims(td);
    if (nd > G_MAX_RANK)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\": tensor descriptor rank %zu is not "
                        "supported (max %d)", api, m->id, i, io->name, nd, G_MAX_RANK);
    g_shape s;
    s.rank = (int)nd;
    for (int k = 0; k < s.rank; k++) {
        if (aclGetTensorDescDimV2(td, (size_t)k, &s.d[k]) != ACL_SUCCESS || s.d[k] < 0)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\": tensor descriptor dim %d is "
                            "not a concrete size", api, m->id, i, io->name, k);
    }
    int ok = io->shape.rank < 0 || io->shape.rank == s.rank;
    for (int k = 0; ok && io->shape.rank >= 0 && k < s.rank; k++)
        ok = io->shape.d[k] < 0 || io->shape.d[k] == s.d[k];
    if (!ok)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\": tensor descriptor shape %s does not "
                        "fit the model's shape %s", api, m->id, i, io->name, shape_str(&s, b1, sizeof b1),
                        shape_str(&io->shape, b2, sizeof b2));
    /* ranges a compiled model records (atc --input_shape "a~b") */
    for (int k = 0; m->info.lo && k < s.rank && k < G_MAX_RANK; k++) {
        int64_t lo = m->info.lo[(size_t)i * G_MAX_RANK + (size_t)k], hi = m->info.hi[(size_t)i * G_MAX_RANK + (size_t)k];
        if (io->shape.d[k] < 0 && (s.d[k] < lo || (hi >= 0 && s.d[k] > hi)))
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\": dim %d is %lld, outside the "
                            "range [%lld, %lld] the model was compiled for", api, m->id, i, io->name, k,
                            (long long)s.d[k], (long long)lo, (long long)hi);
    }
    *out = s;
    return ACL_SUCCESS;
}

static void gear_str(const mdl_info *x, const int64_t *v, int n, char *buf, size_t len)
{
    size_t p = 0;
    buf[0] = 0;
    const char *sep = x->gear_kind == ENG_GEAR_HW ? "x" : ",";
    for (int i = 0; i < n && p + 24 < len; i++)
        p += (size_t)snprintf(buf + p, len - p, "%s%lld", i ? sep : "", (long long)v[i]);
}

/* The model's gears for messages: "1, 2, 4" or "224x224, 320x320". */
static void gears_str(const mdl_info *x, char *buf, size_t len)
{
    size_t p = 0;
    buf[0] = 0;
    for (int g = 0; g < x->n_gears && p + 40 < len; g++) {
        char one[256];
        gear_str(x, x->gear_vals + (size_t)g * (size_t)x->gear_nvals, x->gear_nvals, one, sizeof one);
        p += (size_t)snprintf(buf + p, len - p, "%s%s%s%s", g ? "; " : "", x->gear_kind == ENG_GEAR_DIMS ? "(" : "",
                              one, x->gear_kind == ENG_GEAR_DIMS ? ")" : "");
    }
}

static const char *gear_setter(const mdl_info *x)
{
    return x->gear_kind == ENG_GEAR_BATCH ? "aclmdlSetDynamicBatchSize" :
           x->gear_kind == ENG_GEAR_HW ? "aclmdlSetDynamicHWSize" : "aclmdlSetInputDynamicDims";
}

/* Which gear an execution runs: the one selected on the input dataset, and
 * the gear input's buffer must still hold it. */
static int pick_gear(const char *api, const mdl_model *m, const aclmdlDataset *input, int *gear)
{
    const mdl_info *x = &m->info;
    char gl[1024], v1[256], v2[256];
    gears_str(x, gl, sizeof gl);
    if (input->gear_n == 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u has dynamic gears (%s) but no gear was selected on "
                        "the input dataset: call %s with the index of input \"%s\" (%d) before executing", api,
                        m->id, gl, gear_setter(x), ACL_DYNAMIC_TENSOR_NAME, x->gear_input);
    int g = eng_gear_find(m->eng, input->gear_vals, input->gear_n);
    if (g < 0) {
        gear_str(x, input->gear_vals, input->gear_n, v1, sizeof v1);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u: the gear selected on the input dataset (%s, for "
                        "model %u) is not one of this model's gears (%s)", api, m->id, v1, input->gear_model, gl);
    }
    aclDataBuffer *b = input->bufs[x->gear_input];
    int64_t vals[MDL_GEAR_VALS];
    int got = eng_gear_decode(m->eng, aclGetDataBufferAddr(b), aclGetDataBufferSizeV2(b), vals);
    if (got != g) {
        gear_str(x, input->gear_vals, input->gear_n, v1, sizeof v1);
        if (got == -2)
            snprintf(v2, sizeof v2, "too small a buffer (%zu bytes)", aclGetDataBufferSizeV2(b));
        else
            gear_str(x, vals, x->gear_nvals, v2, sizeof v2);
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u: inconsistent gear: %s selected gear %s on this "
                        "dataset but its \"%s\" buffer now holds %s (select the gear again after changing that "
                        "buffer)", api, m->id, gear_setter(x), v1, ACL_DYNAMIC_TENSOR_NAME, v2);
    }
    *gear = g;
    return ACL_SUCCESS;
}

/* Input i of an execution: its buffer checked against the model (or the
 * selected gear) and recorded in j->in[i]. */
static int prepare_input(const char *api, const mdl_model *m, const aclmdlDataset *input, int i, exec_job *j)
{
    const mdl_info *info = &m->info;
    int nu = mdl_info_users(info);
    char b1[128], b2[128];
    int rc;
    const mdl_io *io = &info->in[i];
    aclDataBuffer *b = input->bufs[i];
    void *p = aclGetDataBufferAddr(b);
    size_t size = aclGetDataBufferSizeV2(b);
    g_shape s;
    if (!p) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\": the data buffer's address is NULL",
                        api, m->id, i, io->name);
    }
    if (i == info->gear_input) {
        /* read by pick_gear; the engine does not look at it again */
        j->in[i].dtype = io->gdtype;
        j->in[i].shape = io->shape;
        j->in[i].data = p;
        j->in[i].nbytes = size;
        return ACL_SUCCESS;
    }
    if (j->gear >= 0) {
        s = info->gear_in[(size_t)j->gear * (size_t)nu + (size_t)i];
        if (input->descs[i]) {
            g_shape d;
            if ((rc = input_shape(api, m, i, input->descs[i], &d)))
                return rc;
            if (!g_shape_eq(&d, &s)) {
                return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\": tensor descriptor shape %s "
                                "contradicts the selected gear's shape %s", api, m->id, i, io->name,
                                shape_str(&d, b1, sizeof b1), shape_str(&s, b2, sizeof b2));
            }
        }
    } else if ((rc = input_shape(api, m, i, input->descs[i], &s))) {
        return rc;
    }
    size_t esz = g_dtype_size(io->gdtype);
    if (esz == 0) {
        return acl_fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "%s: model %u input %d \"%s\" has element type %s, which "
                        "cannot be passed in a data buffer", api, m->id, i, io->name, g_dtype_name(io->gdtype));
    }
    size_t need = (size_t)g_shape_numel(&s) * esz;
    if (size < need) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\" (%s %s): buffer too small: "
                        "expected %zu bytes, given %zu", api, m->id, i, io->name, g_dtype_name(io->gdtype),
                        shape_str(&s, b1, sizeof b1), need, size);
    }
    if ((rc = check_mem(api, m, "input", i, io->name, p, size)))
        return rc;
    j->in[i].dtype = io->gdtype;
    j->in[i].shape = s;
    j->in[i].data = p;
    j->in[i].nbytes = need;
    j->in[i].layout = G_LAYOUT_PLAIN;
    return ACL_SUCCESS;
}

/* Output i of an execution: its buffer checked (or marked for the runtime
 * to allocate) and recorded in j->out[i]. */
static int prepare_output(const char *api, const mdl_model *m, const aclmdlDataset *output, int i, exec_job *j)
{
    const mdl_info *info = &m->info;
    size_t no = (size_t)info->n_out;
    char b1[128];
    int rc;
    const mdl_io *io = &info->out[i];
    aclDataBuffer *b = output->bufs[i];
    void *p = aclGetDataBufferAddr(b);
    size_t size = aclGetDataBufferSizeV2(b);
    if (g_is_container(io->gdtype)) {
        /* a sequence/optional output has no data-buffer form; running
         * would hand back the engine's container (leaked, not freeable) */
        return acl_fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "%s: model %u output %d \"%s\" has element type %s, "
                        "which cannot be returned in a data buffer", api, m->id, i, io->name,
                        g_dtype_name(io->gdtype));
    }
    j->out[i].dtype = io->gdtype;
    j->out[i].shape = j->gear >= 0 ? info->gear_out[(size_t)j->gear * (size_t)no + (size_t)i] : io->shape;
    j->out[i].layout = G_LAYOUT_PLAIN;
    /* a gear's outputs need that gear's size: buffers for it are enough */
    size_t need_out = j->gear >= 0 ? info->gear_out_bytes[(size_t)j->gear * no + (size_t)i] : io->nbytes;
    if (!p && size == 0) {
        j->auto_out[i] = 1;  /* runtime-allocated during execution */
        return ACL_SUCCESS;
    }
    if (!p) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u output %d \"%s\": the data buffer's address is NULL "
                        "with size %zu (use (NULL, 0) to have the runtime allocate it)", api, m->id, i, io->name,
                        size);
    }
    if (need_out && size < need_out) {
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u output %d \"%s\" (%s %s%s): buffer too small: "
                        "expected %zu bytes, given %zu", api, m->id, i, io->name, g_dtype_name(io->gdtype),
                        shape_str(&j->out[i].shape, b1, sizeof b1), j->gear >= 0 ? " in the selected gear" : "",
                        need_out, size);
    }
    if ((rc = check_mem(api, m, "output", i, io->name, p, size)))
        return rc;
    j->out[i].data = p;
    j->out[i].nbytes = size;
    return ACL_SUCCESS;
}

static int prepare(const char *api, mdl_model *m, const aclmdlDataset *input, aclmdlDataset *output,
                   const aclmdlExecConfigHandle *cfg, exec_job **out)
{
    if (!input || !output)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u: %s dataset is NULL", api, m->id,
                        input ? "output" : "input");
    const mdl_info *info = &m->info;
    if (input->n != (size_t)info->n_in)
        return acl_fail(ACL_ERROR_MODEL_INPUT_NOT_MATCH, "%s: model %u has %d input%s but the input dataset holds "
                        "%zu buffer%s", api, m->id, info->n_in, info->n_in == 1 ? "" : "s", input->n,
                        input->n == 1 ? "" : "s");
    if (output->n != (size_t)info->n_out)
        return acl_fail(ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, "%s: model %u has %d output%s but the output dataset holds "
                        "%zu buffer%s", api, m->id, info->n_out, info->n_out == 1 ? "" : "s", output->n,
                        output->n == 1 ? "" : "s");
    size_t ni = (size_t)info->n_in, no = (size_t)info->n_out;
    size_t bytes = sizeof(exec_job) + (ni + no) * sizeof(k_tensor) + no * sizeof(void *) + no;
    exec_job *j = calloc(1, bytes);
    if (!j)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    j->in = (k_tensor *)(j + 1);
    j->out = j->in + ni;
    j->allocs = (void **)(j->out + no);
    j->auto_out = (unsigned char *)(j->allocs + no);
    j->n_in = (int)ni;
    j->n_out = (int)no;
    j->api = api;
    j->out_ds = output;
    j->gear = -1;
    int rc = ACL_SUCCESS;
    if (info->n_gears > 0) {
        if ((rc = pick_gear(api, m, input, &j->gear))) {
            free(j);
            return rc;
        }
    }

    for (int i = 0; i < (int)ni && rc == ACL_SUCCESS; i++) rc = prepare_input(api, m, input, i, j);
    for (int i = 0; i < (int)no && rc == ACL_SUCCESS; i++) rc = prepare_output(api, m, output, i, j);
    j->work = m->work;
    if (rc == ACL_SUCCESS && cfg && cfg->work) {
        if (cfg->work_size < m->work_size)
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u: ACL_MDL_WORK_ADDR_PTR area too small: the model "
                          "needs %zu bytes, ACL_MDL_WORK_SIZET is %zu", api, m->id, m->work_size, cfg->work_size);
        else if ((uintptr_t)cfg->work % 64 != 0)
            rc = acl_fail(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, "%s: model %u: work memory %p is not 64-byte aligned",
                          api, m->id, cfg->work);
        else if (m->work_size && rt_mem_find(cfg->work, m->work_size, NULL, NULL) != ACL_SUCCESS)
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u: work memory %p is not memory from aclrtMalloc",
                          api, m->id, cfg->work);
        else if (m->work_size)
            j->work = cfg->work;
    }
    if (rc) {
        free(j);
        return rc;
    }
    j->m = m;  /* takes over the caller's reference */
    *out = j;
    return ACL_SUCCESS;
}

static void *alloc_output(void *ctx, size_t nbytes)
{
    exec_job *j = ctx;
    if (j->n_allocs >= j->n_out)
        return NULL;
    void *p = rt_dev_alloc(j->m->device, nbytes ? nbytes : 1, RT_MEM_IO);
    if (p)
        j->allocs[j->n_allocs++] = p;
    return p;
}

static int run_job(exec_job *j)
{
    mdl_model *m = j->m;
    pthread_mutex_lock(&m->run_lock);
    int rc;
    if (m->dead) {
        pthread_mutex_unlock(&m->run_lock);
        return acl_fail(ACL_ERROR_INVALID_MODEL_ID, "%s: model %u was unloaded before this execution ran", j->api,
                        m->id);
    }
    if (j->gear >= 0) {
        rc = eng_run_gear(m->eng, j->gear, j->work, j->in, j->n_in, j->out, j->n_out, alloc_output, j);
        atomic_store(&m->cur_gear, j->gear);
    } else {
        rc = eng_run(m->eng, j->work, j->in, j->n_in, j->out, j->n_out, alloc_output, j);
    }
    pthread_mutex_unlock(&m->run_lock);
    if (rc) {
        for (int k = 0; k < j->n_allocs; k++)
            rt_dev_free(j->allocs[k]);
        j->n_allocs = 0;
        return acl_fail(rc, "%s: model %u: execution failed (%s)", j->api, m->id, acl_err_name(rc));
    }
    for (int i = 0; i < j->n_out; i++) {
        k_tensor *o = &j->out[i];
        int64_t n = g_shape_numel(&o->shape);
        size_t actual = n > 0 ? (size_t)n * g_dtype_size(o->dtype) : 0;
        if (j->auto_out[i])
            aclUpdateDataBuffer(j->out_ds->bufs[i], o->data, actual);
        int r2 = mdl_dataset_set_actual(j->out_ds, (size_t)i, mdl_acl_dtype(o->dtype), &o->shape);
        if (r2 && !rc)
            rc = r2;
    }
    return rc;
}

static int job_task(void *arg)
{
    return run_job(arg);
}

static void job_release(void *arg)
{
    job_free(arg);
}

/* Common entry: init, model lookup, context check. */
static int begin(const char *api, uint32_t modelId, mdl_model **m)
{
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if ((rc = mdl_get(api, modelId, m)))
        return rc;
    if ((rc = mdl_check_context(api, *m))) {
        mdl_put(*m);
        return rc;
    }
    return ACL_SUCCESS;
}

static int exec_sync(const char *api, uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                     aclrtStream stream, int use_stream, const aclmdlExecConfigHandle *cfg)
{
    mdl_model *m = NULL;
    int rc = begin(api, modelId, &m);
    if (rc)
        return rc;
    if (use_stream) {
        /* V2 runs after the stream's earlier work (synchronises it first). */
        rt_stream *s;
        if ((rc = rt_stream_resolve(api, stream, &s)) || (rc = rt_stream_sync(api, s))) {
            mdl_put(m);
            return rc;
        }
    }
    exec_job *j;
    if ((rc = prepare(api, m, input, output, cfg, &j))) {
        mdl_put(m);
        return rc;
    }
    rc = run_job(j);
    job_free(j);
    return rc;
}

static int exec_async(const char *api, uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                      aclrtStream stream, const aclmdlExecConfigHandle *cfg)
{
    mdl_model *m = NULL;
    int rc = begin(api, modelId, &m);
    if (rc)
        return rc;
    rt_stream *s;
    if ((rc = rt_stream_resolve(api, stream, &s))) {
        mdl_put(m);
        return rc;
    }
    exec_job *j;
    if ((rc = prepare(api, m, input, output, cfg, &j))) {
        mdl_put(m);
        return rc;
    }
    if ((rc = rt_stream_enqueue(s, job_task, job_release, j, api))) {
        job_free(j);
        return rc;
    }
    return ACL_SUCCESS;
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output)
{
    return exec_sync("aclmdlExecute", modelId, input, output, NULL, 0, NULL);
}

aclError aclmdlExecuteV2(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output, aclrtStream stream,
                         const aclmdlExecConfigHandle *handle)
{
    return exec_sync("aclmdlExecuteV2", modelId, input, output, stream, 1, handle);
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output, aclrtStream stream)
{
    return exec_async("aclmdlExecuteAsync", modelId, input, output, stream, NULL);
}

aclError aclmdlExecuteAsyncV2(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                              aclrtStream stream, const aclmdlExecConfigHandle *handle)
{
    return exec_async("aclmdlExecuteAsyncV2", modelId, input, output, stream, handle);
}

/* ---- gear setters ---- */

/* Common checks: the model, the dataset and its buffer at index, which must
 * be the gear input of a model with gears of `kind`. On success *mp holds a
 * reference (mdl_put) and *buf the gear buffer. */
static int gear_args(const char *api, uint32_t modelId, aclmdlDataset *dataset, size_t index, int kind,
                     mdl_model **mp, aclDataBuffer **buf)
{
    static const char *const what[] = { "", "batch", "image-size (height/width)", "dims" };
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    mdl_model *m = NULL;
    if ((rc = mdl_get(api, modelId, &m)))
        return rc;
    const mdl_info *x = &m->info;
    if (!dataset)
        rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dataset is NULL", api);
    else if (index >= dataset->n)
        rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu out of range: the dataset holds %zu buffers", api,
                      index, dataset->n);
    else if (!aclGetDataBufferAddr(dataset->bufs[index]))
        rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the buffer at index %zu has a NULL address", api, index);
    else if (x->n_gears <= 0)
        rc = acl_fail((int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "%s: model %u has no %s gears (no \"%s\" input): "
                      "set the actual shapes of dynamic inputs with aclmdlSetDatasetTensorDesc instead", api, modelId,
                      what[kind], ACL_DYNAMIC_TENSOR_NAME);
    else if (x->gear_kind != kind)
        rc = acl_fail((int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "%s: model %u has %s gears, not %s gears: use %s",
                      api, modelId, what[x->gear_kind], what[kind], gear_setter(x));
    else if (index != (size_t)x->gear_input)
        rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu is input \"%s\" of model %u; the gear input \"%s\" is "
                      "index %d (aclmdlGetInputIndexByName)", api, index,
                      index < (size_t)x->n_in ? x->in[index].name : "?", modelId, ACL_DYNAMIC_TENSOR_NAME,
                      x->gear_input);
    if (rc) {
        mdl_put(m);
        return rc;
    }
    *mp = m;
    *buf = dataset->bufs[index];
    return ACL_SUCCESS;
}

/* Checks vals against the gears, writes them into the gear buffer (uint64
 * each when it holds 8 bytes per value, else uint32) and records the gear
 * on the dataset and the model. */
static int gear_select(const char *api, mdl_model *m, aclmdlDataset *ds, aclDataBuffer *b, const int64_t *vals)
{
    const mdl_info *x = &m->info;
    int k = x->gear_nvals;
    char gl[1024], v1[256];
    int g = eng_gear_find(m->eng, vals, k);
    if (g < 0) {
        gears_str(x, gl, sizeof gl);
        gear_str(x, vals, k, v1, sizeof v1);
        return acl_fail((int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "%s: model %u: %s is not one of its gears (%s)",
                        api, m->id, v1, gl);
    }
    void *p = aclGetDataBufferAddr(b);
    size_t size = aclGetDataBufferSizeV2(b);
    if (size < (size_t)k * 4)
        return acl_fail((int)ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, "%s: model %u: the \"%s\" buffer holds %zu "
                        "bytes, at least %d are needed (%d value%s of 4 or 8 bytes)", api, m->id,
                        ACL_DYNAMIC_TENSOR_NAME, size, k * 4, k, k == 1 ? "" : "s");
    int wide = size >= (size_t)k * 8;
    if (rt_mem_find(p, (size_t)k * (wide ? 8 : 4), NULL, NULL) != ACL_SUCCESS)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u: the \"%s\" buffer %p is not memory from aclrtMalloc "
                        "or aclrtMallocHost", api, m->id, ACL_DYNAMIC_TENSOR_NAME, p);
    for (int i = 0; i < k; i++) {
        if (wide) {
            uint64_t v = (uint64_t)vals[i];
            memcpy((char *)p + 8 * (size_t)i, &v, 8);
        } else {
            uint32_t v = (uint32_t)vals[i];
            memcpy((char *)p + 4 * (size_t)i, &v, 4);
        }
    }
    ds->gear_n = k;
    ds->gear_model = m->id;
    memcpy(ds->gear_vals, vals, (size_t)k * sizeof *vals);
    atomic_store(&m->cur_gear, g);
    return ACL_SUCCESS;
}

aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset *dataset, size_t index, uint64_t batchSize)
{
    static const char api[] = "aclmdlSetDynamicBatchSize";
    if (batchSize == 0) {
        int rc = rt_check_init(api);
        return rc ? rc : acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batchSize is 0", api);
    }
    mdl_model *m;
    aclDataBuffer *b;
    int rc = gear_args(api, modelId, dataset, index, ENG_GEAR_BATCH, &m, &b);
    if (rc)
        return rc;
    int64_t v = batchSize > INT64_MAX ? -1 : (int64_t)batchSize;
    rc = gear_select(api, m, dataset, b, &v);
    mdl_put(m);
    return rc;
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset *dataset, size_t index, uint64_t height,
                                uint64_t width)
{
    static const char api[] = "aclmdlSetDynamicHWSize";
    if (height == 0 || width == 0) {
        int rc = rt_check_init(api);
        return rc ? rc : acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is 0", api, height ? "width" : "height");
    }
    mdl_model *m;
    aclDataBuffer *b;
    int rc = gear_args(api, modelId, dataset, index, ENG_GEAR_HW, &m, &b);
    if (rc)
        return rc;
    int64_t v[2] = { height > INT64_MAX ? -1 : (int64_t)height, width > INT64_MAX ? -1 : (int64_t)width };
    rc = gear_select(api, m, dataset, b, v);
    mdl_put(m);
    return rc;
}

aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset *dataset, size_t index, const aclmdlIODims *dims)
{
    static const char api[] = "aclmdlSetInputDynamicDims";
    if (!dims || dims->dimCount == 0) {
        int rc = rt_check_init(api);
        return rc ? rc : acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s", api, dims ? "dims->dimCount is 0" : "dims is NULL");
    }
    mdl_model *m;
    aclDataBuffer *b;
    int rc = gear_args(api, modelId, dataset, index, ENG_GEAR_DIMS, &m, &b);
    if (rc)
        return rc;
    /* dims: the full shapes of every data input, concatenated; the -1
     * positions of the declared shapes carry the gear values */
    const mdl_info *x = &m->info;
    int nu = mdl_info_users(x), total = 0, k = 0;
    for (int i = 0; i < nu; i++)
        total += x->in[i].shape.rank;
    int64_t vals[MDL_GEAR_VALS];
    if (dims->dimCount != (size_t)total)
        rc = acl_fail((int)ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, "%s: model %u: dims->dimCount is %zu, the "
                      "model's %d data input%s have %d dims together", api, modelId, dims->dimCount, nu,
                      nu == 1 ? "" : "s", total);
    size_t at = 0;
    for (int i = 0; i < nu && !rc; i++) {
        const g_shape *s = &x->in[i].shape;
        for (int d = 0; d < s->rank && !rc; d++, at++) {
            int64_t v = dims->dims[at];
            if (s->d[d] >= 0 && v != s->d[d])
                rc = acl_fail((int)ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID, "%s: model %u: input %d \"%s\" dim %d is "
                              "fixed at %lld, dims gives %lld", api, modelId, i, x->in[i].name, d,
                              (long long)s->d[d], (long long)v);
            else if (s->d[d] < 0 && k < MDL_GEAR_VALS)
                vals[k++] = v;
        }
    }
    if (!rc)
        rc = gear_select(api, m, dataset, b, vals);
    mdl_put(m);
    return rc;
}
