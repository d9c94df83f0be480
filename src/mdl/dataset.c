/* Datasets: ordered lists of aclDataBuffer pointers (position = model
 * input/output index) with optional tensor descriptors. The dataset owns
 * only the container and copies of the descriptors set on it. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mdl/mdl_internal.h"

aclmdlDataset *aclmdlCreateDataset(void)
{
    aclmdlDataset *ds = calloc(1, sizeof *ds);
    if (!ds)
        acl_fail(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDataset: out of host memory");
    return ds;
}

aclError aclmdlDestroyDataset(const aclmdlDataset *dataset)
{
    if (!dataset)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlDestroyDataset: dataset is NULL");
    aclmdlDataset *ds = (aclmdlDataset *)dataset;
    for (size_t i = 0; i < ds->n; i++)
        aclDestroyTensorDesc(ds->descs[i]);
    free(ds->bufs);
    free(ds->descs);
    free(ds);
    return ACL_SUCCESS;
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset, aclDataBuffer *dataBuffer)
{
    static const char api[] = "aclmdlAddDatasetBuffer";
    if (!dataset || !dataBuffer)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is NULL", api, dataset ? "dataBuffer" : "dataset");
    if (dataset->n == dataset->cap) {
        size_t cap = dataset->cap ? dataset->cap * 2 : 4;
        aclDataBuffer **b = realloc(dataset->bufs, cap * sizeof *b);
        if (!b)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
        dataset->bufs = b;
        aclTensorDesc **d = realloc(dataset->descs, cap * sizeof *d);
        if (!d)
            return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
        dataset->descs = d;
        dataset->cap = cap;
    }
    dataset->bufs[dataset->n] = dataBuffer;
    dataset->descs[dataset->n] = NULL;
    dataset->n++;
    return ACL_SUCCESS;
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset)
{
    if (!dataset) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetDatasetNumBuffers: dataset is NULL");
        return 0;
    }
    return dataset->n;
}

aclDataBuffer *aclmdlGetDatasetBuffer(const aclmdlDataset *dataset, size_t index)
{
    if (!dataset) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetDatasetBuffer: dataset is NULL");
        return NULL;
    }
    if (index >= dataset->n) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "aclmdlGetDatasetBuffer: index %zu out of range: the dataset holds %zu "
                 "buffers", index, dataset->n);
        return NULL;
    }
    return dataset->bufs[index];
}

/* A copy made through the public descriptor API, so the dataset does not
 * depend on the descriptor's internals. */
static aclTensorDesc *desc_clone(aclTensorDesc *src)
{
    size_t nd = aclGetTensorDescNumDims(src);
    int64_t dims[ACL_MAX_DIM_CNT];
    int n;
    if (nd == (size_t)ACL_UNKNOWN_RANK) {
        dims[0] = -2;
        n = 1;
    } else {
        if (nd > ACL_MAX_DIM_CNT)
            return NULL;
        n = (int)nd;
        for (int i = 0; i < n; i++) {
            if (aclGetTensorDescDimV2(src, (size_t)i, &dims[i]) != ACL_SUCCESS)
                return NULL;
        }
    }
    aclTensorDesc *d = aclCreateTensorDesc(aclGetTensorDescType(src), n, n ? dims : NULL,
                                           aclGetTensorDescFormat(src));
    if (d) {
        const char *name = aclGetTensorDescName(src);
        if (name && *name)
            aclSetTensorDescName(d, name);
    }
    return d;
}

aclError aclmdlSetDatasetTensorDesc(aclmdlDataset *dataset, aclTensorDesc *tensorDesc, size_t index)
{
    static const char api[] = "aclmdlSetDatasetTensorDesc";
    if (!dataset)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dataset is NULL", api);
    if (index >= dataset->n)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu out of range: the dataset holds %zu buffers (add "
                        "the buffer first)", api, index, dataset->n);
    aclTensorDesc *copy = NULL;
    if (tensorDesc) {
        copy = desc_clone(tensorDesc);
        if (!copy)
            return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: entry %zu: the tensor descriptor could not be copied "
                            "(rank over %d or out of memory)", api, index, ACL_MAX_DIM_CNT);
    }
    aclDestroyTensorDesc(dataset->descs[index]);
    dataset->descs[index] = copy;
    return ACL_SUCCESS;
}

aclTensorDesc *aclmdlGetDatasetTensorDesc(const aclmdlDataset *dataset, size_t index)
{
    static const char api[] = "aclmdlGetDatasetTensorDesc";
    if (!dataset) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "%s: dataset is NULL", api);
        return NULL;
    }
    if (index >= dataset->n) {
        acl_fail(ACL_ERROR_INVALID_PARAM, "%s: index %zu out of range: the dataset holds %zu buffers", api, index,
                 dataset->n);
        return NULL;
    }
    return dataset->descs[index];
}

int mdl_dataset_set_actual(aclmdlDataset *ds, size_t i, aclDataType dtype, const g_shape *shape)
{
    int64_t dims[G_MAX_RANK];
    int n = shape->rank < 0 ? 0 : shape->rank;
    for (int k = 0; k < n; k++)
        dims[k] = shape->d[k];
    aclTensorDesc *old = ds->descs[i];
    if (old && aclGetTensorDescType(old) == dtype &&
        aclSetTensorShape(old, n, n ? dims : NULL) == ACL_SUCCESS) {
        aclSetTensorFormat(old, mdl_format_for_rank(n));
        return ACL_SUCCESS;
    }
    aclTensorDesc *d = aclCreateTensorDesc(dtype, n, n ? dims : NULL, mdl_format_for_rank(n));
    if (!d)
        return acl_fail(ACL_ERROR_BAD_ALLOC, "output %zu: out of host memory for its tensor descriptor", i);
    aclDestroyTensorDesc(old);
    ds->descs[i] = d;
    return ACL_SUCCESS;
}
