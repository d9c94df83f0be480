/* Loading and unloading models: reading the image (mmap for files), the
 * engine's parse/plan, work and weight memory from the runtime's device
 * allocator (or the caller's), and the registry of live model ids.
 *
 * Life of a model: load (planned, weights packed) → executions (serialised
 * by run_lock) → unload (marks it dead under run_lock, so a running
 * execution finishes first and queued ones fail cleanly) → freed when the
 * last reference (registry or in-flight execution) is dropped. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "mdl/mdl_internal.h"
#include "rt/rt_internal.h"

/* ---- registry ---- */

static pthread_mutex_t g_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static mdl_model **g_models;
static size_t g_n_models, g_cap_models;
static uint32_t g_next_id = 1;

static mdl_model *reg_find_locked(uint32_t id, size_t *pos)
{
    for (size_t i = 0; i < g_n_models; i++) {
        if (g_models[i]->id == id) {
            if (pos)
                *pos = i;
            return g_models[i];
        }
    }
    return NULL;
}

/* Ids grow monotonically: an unloaded id is not handed out again until the
 * 32-bit counter wraps (and then only if it is free). */
static uint32_t reg_reserve_id(void)
{
    pthread_mutex_lock(&g_reg_lock);
    uint32_t id;
    do {
        id = g_next_id++;
    } while (id == 0 || reg_find_locked(id, NULL));
    pthread_mutex_unlock(&g_reg_lock);
    return id;
}

/* Publishes a fully built model under its reserved id. */
static int reg_insert(mdl_model *m)
{
    pthread_mutex_lock(&g_reg_lock);
    if (g_n_models == g_cap_models) {
        size_t cap = g_cap_models ? g_cap_models * 2 : 16;
        mdl_model **v = realloc(g_models, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&g_reg_lock);
            return acl_fail(ACL_ERROR_BAD_ALLOC, "model registry: out of host memory");
        }
        g_models = v;
        g_cap_models = cap;
    }
    g_models[g_n_models++] = m;
    pthread_mutex_unlock(&g_reg_lock);
    return ACL_SUCCESS;
}

int mdl_get(const char *api, uint32_t id, mdl_model **out)
{
    pthread_mutex_lock(&g_reg_lock);
    mdl_model *m = reg_find_locked(id, NULL);
    if (m)
        atomic_fetch_add(&m->refs, 1);
    pthread_mutex_unlock(&g_reg_lock);
    if (!m)
        return acl_fail(ACL_ERROR_INVALID_MODEL_ID, "%s: model id %u is not loaded (never loaded, or already "
                        "unloaded)", api, id);
    *out = m;
    return ACL_SUCCESS;
}

static void model_free(mdl_model *m)
{
    eng_free(m->eng);
    if (m->own_work)
        rt_dev_free(m->work);
    if (m->own_weight)
        rt_dev_free(m->weight);
    mdl_info_free(&m->info);
    pthread_mutex_destroy(&m->run_lock);
    free(m);
}

int mdl_model_cur_gear(uint32_t id)
{
    pthread_mutex_lock(&g_reg_lock);
    mdl_model *m = reg_find_locked(id, NULL);
    int g = m ? atomic_load(&m->cur_gear) : -1;
    pthread_mutex_unlock(&g_reg_lock);
    return g;
}

void mdl_put(mdl_model *m)
{
    if (m && atomic_fetch_sub(&m->refs, 1) == 1)
        model_free(m);
}

int mdl_check_context(const char *api, const mdl_model *m)
{
    void *ctx = NULL;
    int rc = rt_current_context(api, &ctx);
    if (rc)
        return rc;
    if (ctx != m->ctx)
        return acl_fail(ACL_ERROR_RESOURCE_NOT_MATCH,
                        "%s: model %u was loaded under context %p (device %d) but the current context is %p: "
                        "load, execute and unload of a model must use the same context (aclrtSetCurrentContext)",
                        api, m->id, m->ctx, m->device, ctx);
    return ACL_SUCCESS;
}

/* ---- reading images ---- */

int mdl_file_open(const char *api, const char *path, mdl_file *f)
{
    memset(f, 0, sizeof *f);
    /* O_NONBLOCK: a FIFO given as the model path must be refused (not a
     * regular file, below), not block the caller forever in open(). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return acl_fail(ACL_ERROR_INVALID_FILE, "%s: cannot open model file \"%s\": %s", api, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return acl_fail(ACL_ERROR_INVALID_FILE, "%s: model path \"%s\" is not a regular file", api, path);
    }
    if (st.st_size == 0) {
        close(fd);
        return acl_fail(ACL_ERROR_INVALID_FILE_SIZE, "%s: model file \"%s\" is empty", api, path);
    }
    f->size = (size_t)st.st_size;
    f->data = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (f->data == MAP_FAILED) {
        f->data = NULL;
        return acl_fail(ACL_ERROR_READ_MODEL_FAILURE, "%s: cannot map model file \"%s\" (%zu bytes): %s", api, path,
                        f->size, strerror(errno));
    }
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) : 1;
    if (slash && dl == 0)
        dl = 1;  /* file in "/" */
    f->base_dir = malloc(dl + 1);
    if (!f->base_dir) {
        mdl_file_close(f);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    }
    memcpy(f->base_dir, slash ? path : ".", dl);
    f->base_dir[dl] = 0;
    return ACL_SUCCESS;
}

void mdl_file_close(mdl_file *f)
{
    if (f->data)
        munmap(f->data, f->size);
    free(f->base_dir);
    memset(f, 0, sizeof *f);
}

/* ---- load ---- */

static void mdl_finalize_all(void);

static int check_user_mem(const char *api, const char *what, void *p, size_t given, size_t need)
{
    if (given < need)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s memory too small: the model needs %zu bytes, %zu given "
                        "(ask aclmdlQuerySize)", api, what, need, given);
    if ((uintptr_t)p % 64 != 0)
        return acl_fail(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, "%s: %s memory %p is not 64-byte aligned (use the "
                        "pointer aclrtMalloc returned)", api, what, p);
    if (need > 0 && rt_mem_find(p, need, NULL, NULL) != ACL_SUCCESS)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s memory %p (%zu bytes) is not memory from aclrtMalloc", api,
                        what, p, need);
    return ACL_SUCCESS;
}

int mdl_load(const mdl_load_req *r, uint32_t *model_id)
{
    const char *api = r->api;
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!model_id)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: modelId is NULL", api);
    if (!r->path && (!r->mem || r->mem_size == 0))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s", api, r->mem ? "modelSize is 0" : "model is NULL");
    void *ctx = NULL;
    if ((rc = rt_current_context(api, &ctx)))
        return rc;
    int device = rt_context_device(ctx);
    if (device < 0)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: the current context is not live", api);

    mdl_file f;
    memset(&f, 0, sizeof f);
    const void *buf = r->mem;
    size_t len = r->mem_size;
    const char *src = "memory image";
    const char *base_dir = r->base_dir;
    if (r->path) {
        if ((rc = mdl_file_open(api, r->path, &f)))
            return rc;
        buf = f.data;
        len = f.size;
        src = r->path;
        if (!base_dir)
            base_dir = f.base_dir;
    }

    mdl_model *m = calloc(1, sizeof *m);
    if (!m) {
        mdl_file_close(&f);
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    }
    pthread_mutex_init(&m->run_lock, NULL);
    atomic_init(&m->refs, 1);
    atomic_init(&m->priority, (unsigned)r->priority);
    m->ctx = ctx;
    m->device = device;
    atomic_init(&m->cur_gear, -1);

    /* a compiled model may keep the file mapping (weights used in place);
     * it is released with the model, or once weights are copied */
    rc = mdl_engine_open(api, src, buf, len, base_dir, device, &f, &m->eng);
    if (rc) {
        mdl_file_close(&f);
        goto fail;
    }

    m->work_size = eng_work_size(m->eng);
    m->weight_size = eng_weight_size(m->eng);
    if (r->work) {
        if ((rc = check_user_mem(api, "work", r->work, r->work_size, m->work_size)))
            goto fail;
        m->work = r->work;
    } else if (m->work_size) {
        m->work = rt_dev_alloc(device, m->work_size, RT_MEM_WORK);
        if (!m->work) {
            rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: cannot allocate %zu bytes of work memory on device %d", api,
                          m->work_size, device);
            goto fail;
        }
        m->own_work = 1;
    }
    if (r->weight) {
        if ((rc = check_user_mem(api, "weight", r->weight, r->weight_size, m->weight_size)))
            goto fail;
        m->weight = r->weight;
    } else if (m->weight_size && !eng_weights_in_image(m->eng)) {
        m->weight = rt_dev_alloc(device, m->weight_size, RT_MEM_WEIGHT);
        if (!m->weight) {
            rc = acl_fail(ACL_ERROR_BAD_ALLOC, "%s: cannot allocate %zu bytes of weight memory on device %d", api,
                          m->weight_size, device);
            goto fail;
        }
        m->own_weight = 1;
    }
    rc = eng_bind_weights(m->eng, m->weight);
    mdl_file_close(&f);  /* the engine keeps what it needs */
    if (rc) {
        acl_fail(rc, "%s: packing the weights of %s failed", api, src);
        goto fail;
    }
    m->id = reg_reserve_id();
    if ((rc = mdl_info_build(api, m->eng, m->id, &m->info)))
        goto fail;
    if ((rc = mdl_dump_attach(m, r->path)))
        goto fail;
    if ((rc = reg_insert(m)))
        goto fail;
    rt_on_finalize(mdl_finalize_all);
    *model_id = m->id;
    acl_log(1, "%s: loaded %s as model %u (work %zu bytes, weights %zu bytes, device %d)", api, src, m->id,
            m->work_size, m->weight_size, device);
    return ACL_SUCCESS;
fail:
    mdl_file_close(&f);
    model_free(m);
    return rc;
}

aclError aclmdlLoadFromFile(const char *modelPath, uint32_t *modelId)
{
    mdl_load_req r = {.api = "aclmdlLoadFromFile", .path = modelPath};
    if (!modelPath)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlLoadFromFile: modelPath is NULL");
    return mdl_load(&r, modelId);
}

aclError aclmdlLoadFromMem(const void *model, size_t modelSize, uint32_t *modelId)
{
    mdl_load_req r = {.api = "aclmdlLoadFromMem", .mem = model, .mem_size = modelSize};
    return mdl_load(&r, modelId);
}

aclError aclmdlLoadFromFileWithMem(const char *modelPath, uint32_t *modelId, void *workPtr, size_t workSize,
                                   void *weightPtr, size_t weightSize)
{
    mdl_load_req r = {.api = "aclmdlLoadFromFileWithMem", .path = modelPath, .work = workPtr,
                      .work_size = workSize, .weight = weightPtr, .weight_size = weightSize};
    if (!modelPath)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlLoadFromFileWithMem: modelPath is NULL");
    return mdl_load(&r, modelId);
}

aclError aclmdlLoadFromMemWithMem(const void *model, size_t modelSize, uint32_t *modelId, void *workPtr,
                                  size_t workSize, void *weightPtr, size_t weightSize)
{
    mdl_load_req r = {.api = "aclmdlLoadFromMemWithMem", .mem = model, .mem_size = modelSize, .work = workPtr,
                      .work_size = workSize, .weight = weightPtr, .weight_size = weightSize};
    return mdl_load(&r, modelId);
}

/* ---- unload ---- */

/* Removes m from the registry (caller holds g_reg_lock) and drops the
 * registry's reference after waiting for a running execution. */
static void unload_model(mdl_model *m)
{
    pthread_mutex_lock(&m->run_lock);
    m->dead = 1;
    pthread_mutex_unlock(&m->run_lock);
    mdl_put(m);
}

aclError aclmdlUnload(uint32_t modelId)
{
    static const char api[] = "aclmdlUnload";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    mdl_model *m = NULL;
    if ((rc = mdl_get(api, modelId, &m)))
        return rc;
    if ((rc = mdl_check_context(api, m))) {
        mdl_put(m);
        return rc;
    }
    pthread_mutex_lock(&g_reg_lock);
    size_t pos = 0;
    int found = reg_find_locked(modelId, &pos) == m;
    if (found)
        g_models[pos] = g_models[--g_n_models];
    pthread_mutex_unlock(&g_reg_lock);
    if (!found) {  /* another thread unloaded it meanwhile */
        mdl_put(m);
        return acl_fail(ACL_ERROR_INVALID_MODEL_ID, "%s: model id %u is not loaded (already unloaded)", api, modelId);
    }
    unload_model(m);
    mdl_put(m);
    return ACL_SUCCESS;
}

/* aclFinalize: every model still loaded is unloaded (runtime-owned memory
 * back to the allocator before the runtime tears down). */
static void mdl_finalize_all(void)
{
    pthread_mutex_lock(&g_reg_lock);
    mdl_model **v = g_models;
    size_t n = g_n_models;
    g_models = NULL;
    g_n_models = g_cap_models = 0;
    pthread_mutex_unlock(&g_reg_lock);
    if (n)
        acl_log(2, "aclFinalize: unloading %zu model(s) the application left loaded", n);
    for (size_t i = 0; i < n; i++)
        unload_model(v[i]);
    free(v);
}

/* ---- size queries ---- */

static int query_sizes(const char *api, const char *src, const void *buf, size_t len, const char *base_dir,
                       size_t *workSize, size_t *weightSize)
{
    eng_model *em = NULL;
    int rc = mdl_engine_open(api, src, buf, len, base_dir, 0, NULL, &em);
    if (rc)
        return rc;
    *workSize = eng_work_size(em);
    *weightSize = eng_weight_size(em);
    eng_free(em);
    return ACL_SUCCESS;
}

aclError aclmdlQuerySize(const char *fileName, size_t *workSize, size_t *weightSize)
{
    static const char api[] = "aclmdlQuerySize";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!fileName || !workSize || !weightSize)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api,
                        !fileName ? "fileName" : !workSize ? "workSize" : "weightSize");
    mdl_file f;
    if ((rc = mdl_file_open(api, fileName, &f)))
        return rc;
    rc = query_sizes(api, fileName, f.data, f.size, f.base_dir, workSize, weightSize);
    mdl_file_close(&f);
    return rc;
}

aclError aclmdlQuerySizeFromMem(const void *model, size_t modelSize, size_t *workSize, size_t *weightSize)
{
    static const char api[] = "aclmdlQuerySizeFromMem";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!model || !modelSize || !workSize || !weightSize)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s", api,
                        !model ? "model is NULL" : !modelSize ? "modelSize is 0" :
                        !workSize ? "workSize is NULL" : "weightSize is NULL");
    return query_sizes(api, "memory image", model, modelSize, NULL, workSize, weightSize);
}

static int check_mem_mode(const char *api, size_t mode, const size_t *workSize)
{
    if (!workSize)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: workSize is NULL", api);
    if (mode != ACL_WORKSPACE_MEM_OPTIMIZE_DEFAULT && mode != ACL_WORKSPACE_MEM_OPTIMIZE_INPUTOUTPUT)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: memOptimizeMode %zu is not ACL_WORKSPACE_MEM_OPTIMIZE_DEFAULT "
                        "(0) or ACL_WORKSPACE_MEM_OPTIMIZE_INPUTOUTPUT (1)", api, mode);
    return ACL_SUCCESS;
}

aclError aclmdlQueryWorkspaceSize(const char *fileName, size_t memOptimizeMode, size_t *workSize)
{
    static const char api[] = "aclmdlQueryWorkspaceSize";
    int rc = rt_check_init(api);
    if (rc || (rc = check_mem_mode(api, memOptimizeMode, workSize)))
        return rc;
    if (!fileName)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: fileName is NULL", api);
    mdl_file f;
    if ((rc = mdl_file_open(api, fileName, &f)))
        return rc;
    size_t weight;
    rc = query_sizes(api, fileName, f.data, f.size, f.base_dir, workSize, &weight);
    mdl_file_close(&f);
    return rc;
}

aclError aclmdlQueryWorkspaceSizeFromMem(const void *model, size_t modelSize, size_t memOptimizeMode,
                                         size_t *workSize)
{
    static const char api[] = "aclmdlQueryWorkspaceSizeFromMem";
    int rc = rt_check_init(api);
    if (rc || (rc = check_mem_mode(api, memOptimizeMode, workSize)))
        return rc;
    if (!model || !modelSize)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s", api, model ? "modelSize is 0" : "model is NULL");
    size_t weight;
    return query_sizes(api, "memory image", model, modelSize, NULL, workSize, &weight);
}

aclError aclmdlQueryExeOMDesc(const char *fileName, aclmdlExeOMDesc *mdlPartitionSize)
{
    if (!mdlPartitionSize)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlQueryExeOMDesc: mdlPartitionSize is NULL");
    memset(mdlPartitionSize, 0, sizeof *mdlPartitionSize);
    size_t work = 0, weight = 0;
    int rc = aclmdlQuerySize(fileName, &work, &weight);
    if (rc)
        return acl_fail(rc, "aclmdlQueryExeOMDesc: querying the sizes of %s failed", fileName ? fileName : "(NULL)");
    mdlPartitionSize->workSize = work;
    mdlPartitionSize->weightSize = weight;
    return ACL_SUCCESS;
}

/* ---- per-model attributes ---- */

aclError aclmdlSetAttribute(uint32_t modelId, aclmdlAttr attr, aclmdlAttrValue_t *attrValue)
{
    static const char api[] = "aclmdlSetAttribute";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!attrValue)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: attrValue is NULL", api);
    if (attr != ACL_MDL_ATTR_PRIORITY_INT32)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: unknown attribute %d", api, (int)attr);
    if (attrValue->mdlPriority > 7)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: model %u: priority %u out of range [0, 7]", api, modelId,
                        attrValue->mdlPriority);
    mdl_model *m = NULL;
    if ((rc = mdl_get(api, modelId, &m)))
        return rc;
    atomic_store(&m->priority, attrValue->mdlPriority);
    mdl_put(m);
    return ACL_SUCCESS;
}

aclError aclmdlGetAttribute(uint32_t modelId, aclmdlAttr attr, aclmdlAttrValue_t *attrValue)
{
    static const char api[] = "aclmdlGetAttribute";
    int rc = rt_check_init(api);
    if (rc)
        return rc;
    if (!attrValue)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: attrValue is NULL", api);
    if (attr != ACL_MDL_ATTR_PRIORITY_INT32)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: unknown attribute %d", api, (int)attr);
    mdl_model *m = NULL;
    if ((rc = mdl_get(api, modelId, &m)))
        return rc;
    memset(attrValue, 0, sizeof *attrValue);
    attrValue->mdlPriority = atomic_load(&m->priority);
    mdl_put(m);
    return ACL_SUCCESS;
}
