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
    *out = s;
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
    int rc = ACL_SUCCESS;
    char b1[128];

    for (int i = 0; i < (int)ni && rc == ACL_SUCCESS; i++) {
        const mdl_io *io = &info->in[i];
        aclDataBuffer *b = input->bufs[i];
        void *p = aclGetDataBufferAddr(b);
        size_t size = aclGetDataBufferSizeV2(b);
        g_shape s;
        if (!p) {
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\": the data buffer's address is NULL",
                          api, m->id, i, io->name);
            break;
        }
        if ((rc = input_shape(api, m, i, input->descs[i], &s)))
            break;
        size_t esz = g_dtype_size(io->gdtype);
        if (esz == 0) {
            rc = acl_fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "%s: model %u input %d \"%s\" has element type %s, which "
                          "cannot be passed in a data buffer", api, m->id, i, io->name, g_dtype_name(io->gdtype));
            break;
        }
        size_t need = (size_t)g_shape_numel(&s) * esz;
        if (size < need) {
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u input %d \"%s\" (%s %s): buffer too small: "
                          "expected %zu bytes, given %zu", api, m->id, i, io->name, g_dtype_name(io->gdtype),
                          shape_str(&s, b1, sizeof b1), need, size);
            break;
        }
        if ((rc = check_mem(api, m, "input", i, io->name, p, size)))
            break;
        j->in[i].dtype = io->gdtype;
        j->in[i].shape = s;
        j->in[i].data = p;
        j->in[i].nbytes = need;
        j->in[i].layout = G_LAYOUT_PLAIN;
    }
    for (int i = 0; i < (int)no && rc == ACL_SUCCESS; i++) {
        const mdl_io *io = &info->out[i];
        aclDataBuffer *b = output->bufs[i];
        void *p = aclGetDataBufferAddr(b);
        size_t size = aclGetDataBufferSizeV2(b);
        j->out[i].dtype = io->gdtype;
        j->out[i].shape = io->shape;
        j->out[i].layout = G_LAYOUT_PLAIN;
        if (!p && size == 0) {
            j->auto_out[i] = 1;  /* runtime-allocated during execution */
            continue;
        }
        if (!p) {
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u output %d \"%s\": the data buffer's address is NULL "
                          "with size %zu (use (NULL, 0) to have the runtime allocate it)", api, m->id, i, io->name,
                          size);
            break;
        }
        if (io->nbytes && size < io->nbytes) {
            rc = acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u output %d \"%s\" (%s %s): buffer too small: "
                          "expected %zu bytes, given %zu", api, m->id, i, io->name, g_dtype_name(io->gdtype),
                          shape_str(&io->shape, b1, sizeof b1), io->nbytes, size);
            break;
        }
        if ((rc = check_mem(api, m, "output", i, io->name, p, size)))
            break;
        j->out[i].data = p;
        j->out[i].nbytes = size;
    }
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
    rc = eng_run(m->eng, j->work, j->in, j->n_in, j->out, j->n_out, alloc_output, j);
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

/* ---- gear setters: ONNX models have no gears ---- */

static int gear_args(const char *api, uint32_t modelId, aclmdlDataset *dataset, size_t index)
{
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    mdl_model *m = NULL;
    if ((rc = mdl_get(api, modelId, &m)))
        return rc;
    mdl_put(m);
    if (!dataset)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dataset is NULL", api);
    if (index >= dataset->n)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu out of range: the dataset holds %zu buffers", api,
                        index, dataset->n);
    if (!aclGetDataBufferAddr(dataset->bufs[index]))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the buffer at index %zu has a NULL address", api, index);
    return ACL_SUCCESS;
}

static int no_gears(const char *api, uint32_t modelId, const char *what)
{
    return acl_fail((int)ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "%s: model %u has no %s gears (no \"%s\" input): "
                    "set the actual shapes of dynamic inputs with aclmdlSetDatasetTensorDesc instead", api, modelId,
                    what, ACL_DYNAMIC_TENSOR_NAME);
}

aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset *dataset, size_t index, uint64_t batchSize)
{
    static const char api[] = "aclmdlSetDynamicBatchSize";
    int rc = gear_args(api, modelId, dataset, index);
    if (rc)
        return rc;
    if (batchSize == 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: batchSize is 0", api);
    return no_gears(api, modelId, "batch");
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset *dataset, size_t index, uint64_t height,
                                uint64_t width)
{
    static const char api[] = "aclmdlSetDynamicHWSize";
    int rc = gear_args(api, modelId, dataset, index);
    if (rc)
        return rc;
    if (height == 0 || width == 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is 0", api, height ? "width" : "height");
    return no_gears(api, modelId, "height/width");
}

aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset *dataset, size_t index, const aclmdlIODims *dims)
{
    static const char api[] = "aclmdlSetInputDynamicDims";
    int rc = gear_args(api, modelId, dataset, index);
    if (rc)
        return rc;
    if (!dims || dims->dimCount == 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s", api, dims ? "dims->dimCount is 0" : "dims is NULL");
    return no_gears(api, modelId, "dims");
}
