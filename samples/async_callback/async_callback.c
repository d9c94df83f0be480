/* async_callback: asynchronous inference with host callbacks.
 *
 * Executions are queued on a stream with aclmdlExecuteAsync and return at
 * once. Every CALLBACK_EVERY executions a host callback is queued behind
 * them with aclrtLaunchCallback; when the stream reaches it, the runtime
 * runs it on a thread of ours that registered with aclrtSubscribeReport and
 * waits in aclrtProcessReport. The protocol, in order:
 *
 *   1. start the report thread (it makes the context current, then loops
 *      on aclrtProcessReport until told to stop)
 *   2. aclrtSubscribeReport(thread, stream)
 *   3. aclmdlExecuteAsync ... aclrtLaunchCallback ... (repeated)
 *   4. aclrtSynchronizeStream(stream): all executions and callbacks done
 *   5. aclrtUnSubscribeReport, stop the thread, join it
 *
 * Usage: async_callback MODEL OUT_DIR INPUT.bin [INPUT.bin ...]
 *   one execution per input file (the model has one input); the outputs of
 *   input dir/NAME.bin are written by the callback as
 *   OUT_DIR/NAME_output_<i>.bin. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "sample_utils.h"

#define CALLBACK_EVERY 2     /* one callback per this many executions */
#define REPORT_TIMEOUT_MS 100
#define MAX_OUT 8

/* Everything one execution needs. The buffers stay alive until the stream
 * has been synchronized: the device may still use them until then. */
typedef struct job {
    char stem[256];
    void *in_dev;
    void *out_dev[MAX_OUT];
    aclmdlDataset *in, *out;
} job;

/* What one callback handles: a run of consecutive jobs. */
typedef struct batch {
    job *jobs;
    int first, count;
} batch;

static aclmdlDesc *g_desc;
static const char *g_out_dir;
static size_t g_n_out;
static atomic_int g_subscribed;    /* main has subscribed the report thread */
static atomic_int g_stop;          /* tells the report thread to finish */
static atomic_int g_done;          /* executions whose outputs were saved */
static atomic_int g_callback_errors;

/* The report thread. A new thread has no current context, so it adopts the
 * one the stream belongs to before anything else. It starts processing once
 * main has subscribed it (before that, aclrtProcessReport would only answer
 * "not subscribed"). aclrtProcessReport waits up to the timeout for a
 * callback of a subscribed stream and runs it here; a timeout
 * (ACL_ERROR_RT_REPORT_TIMEOUT) just means "nothing yet", and
 * ACL_ERROR_RT_THREAD_SUBSCRIBE after main unsubscribed means "done". */
static void *report_thread(void *arg)
{
    aclrtContext context = arg;
    struct timespec ms = {0, 1000 * 1000};
    if (aclrtSetCurrentContext(context) != ACL_SUCCESS) {
        atomic_fetch_add(&g_callback_errors, 1);
        return NULL;
    }
    while (!atomic_load(&g_subscribed) && !atomic_load(&g_stop))
        nanosleep(&ms, NULL);
    while (!atomic_load(&g_stop)) {
        aclError rc = aclrtProcessReport(REPORT_TIMEOUT_MS);
        if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE)
            break;
    }
    return NULL;
}

/* The host callback: runs on the report thread once the executions queued
 * before it are complete, so their outputs can be read. Callbacks must stay
 * short and must not allocate or free device memory, synchronize, or queue
 * work; a plain aclrtMemcpy to host memory is fine. */
static void on_batch_done(void *user_data)
{
    batch *b = user_data;
    for (int k = b->first; k < b->first + b->count; k++) {
        job *j = &b->jobs[k];
        for (size_t i = 0; i < g_n_out; i++) {
            size_t size = aclmdlGetOutputSizeByIndex(g_desc, i);
            void *host = malloc(size);
            char path[4096];
            if (host == NULL || aclrtMemcpy(host, size, j->out_dev[i], size, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
                atomic_fetch_add(&g_callback_errors, 1);
                free(host);
                continue;
            }
            snprintf(path, sizeof path, "%s/%s_output_%zu.bin", g_out_dir, j->stem, i);
            if (sample_write_file(path, host, size))
                atomic_fetch_add(&g_callback_errors, 1);
            if (i == 0 && aclmdlGetOutputDataType(g_desc, 0) == ACL_FLOAT)
                sample_print_top(j->stem, host, size / sizeof(float), 3);
            free(host);
        }
        atomic_fetch_add(&g_done, 1);
    }
    printf("callback: executions %d..%d done\n", b->first, b->first + b->count - 1);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL OUT_DIR INPUT.bin [INPUT.bin ...]\n", argv[0]);
        return 2;
    }
    const char *model_path = argv[1];
    int n_jobs = argc - 3;
    int status = 1, acl_ready = 0, device_set = 0, model_loaded = 0, subscribed = 0, thread_started = 0;
    int32_t device_id = 0;
    aclrtContext context = NULL;
    aclrtStream stream = NULL;
    uint32_t model_id = 0;
    pthread_t tid;
    job *jobs = calloc((size_t)n_jobs, sizeof *jobs);
    batch *batches = calloc((size_t)n_jobs, sizeof *batches);
    g_out_dir = argv[2];
    if (jobs == NULL || batches == NULL)
        goto cleanup;

    /* The usual set-up (see sync_infer): library, device, context, stream,
     * model, description. */
    CHECK_ACL(aclInit(NULL));
    acl_ready = 1;
    CHECK_ACL(aclrtSetDevice(device_id));
    device_set = 1;
    CHECK_ACL(aclrtCreateContext(&context, device_id));
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclmdlLoadFromFile(model_path, &model_id));
    model_loaded = 1;
    g_desc = aclmdlCreateDesc();
    if (g_desc == NULL)
        goto cleanup;
    CHECK_ACL(aclmdlGetDesc(g_desc, model_id));
    g_n_out = aclmdlGetNumOutputs(g_desc);
    if (aclmdlGetNumInputs(g_desc) != 1 || g_n_out > MAX_OUT) {
        fprintf(stderr, "this sample needs a model with one input and at most %d outputs\n", MAX_OUT);
        goto cleanup;
    }
    size_t in_size = aclmdlGetInputSizeByIndex(g_desc, 0);

    /* Steps 1 and 2: the report thread, subscribed to our stream. The
     * thread id handed to the runtime is the pthread_t of that thread. */
    if (pthread_create(&tid, NULL, report_thread, context) != 0) {
        fprintf(stderr, "cannot start the report thread\n");
        goto cleanup;
    }
    thread_started = 1;
    CHECK_ACL(aclrtSubscribeReport((uint64_t)tid, stream));
    subscribed = 1;
    atomic_store(&g_subscribed, 1);

    /* Step 3: queue every execution, and a callback after each group. */
    int n_batches = 0;
    for (int k = 0; k < n_jobs; k++) {
        job *j = &jobs[k];
        size_t file_size = 0;
        sample_stem(argv[3 + k], j->stem, sizeof j->stem);
        void *host = sample_read_file(argv[3 + k], &file_size);
        if (host == NULL)
            goto cleanup;
        if (file_size != in_size) {
            fprintf(stderr, "%s has %zu bytes, the input needs %zu\n", argv[3 + k], file_size, in_size);
            free(host);
            goto cleanup;
        }
        /* Each execution gets its own buffers, so nothing is overwritten
         * while earlier executions are still queued. */
        aclError rc = aclrtMalloc(&j->in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST);
        if (rc == ACL_SUCCESS)
            rc = aclrtMemcpy(j->in_dev, in_size, host, in_size, ACL_MEMCPY_HOST_TO_DEVICE);
        free(host);
        CHECK_ACL(rc);
        j->in = aclmdlCreateDataset();
        j->out = aclmdlCreateDataset();
        if (j->in == NULL || j->out == NULL)
            goto cleanup;
        CHECK_ACL(aclmdlAddDatasetBuffer(j->in, aclCreateDataBuffer(j->in_dev, in_size)));
        for (size_t i = 0; i < g_n_out; i++) {
            size_t size = aclmdlGetOutputSizeByIndex(g_desc, i);
            CHECK_ACL(aclrtMalloc(&j->out_dev[i], size, ACL_MEM_MALLOC_HUGE_FIRST));
            CHECK_ACL(aclmdlAddDatasetBuffer(j->out, aclCreateDataBuffer(j->out_dev[i], size)));
        }
        /* Returns at once; the stream runs the model in order. */
        CHECK_ACL(aclmdlExecuteAsync(model_id, j->in, j->out, stream));

        if ((k + 1) % CALLBACK_EVERY == 0 || k == n_jobs - 1) {
            batch *b = &batches[n_batches++];
            b->jobs = jobs;
            b->count = (k % CALLBACK_EVERY) + 1;
            b->first = k + 1 - b->count;
            /* ACL_CALLBACK_BLOCK: later tasks on the stream wait until the
             * callback has returned, which is what you want when buffers
             * are reused; ACL_CALLBACK_NO_BLOCK would let them run on. */
            CHECK_ACL(aclrtLaunchCallback(on_batch_done, b, ACL_CALLBACK_BLOCK, stream));
        }
    }

    /* Step 4: wait for everything queued, callbacks included. */
    CHECK_ACL(aclrtSynchronizeStream(stream));
    printf("async_callback: %d execution(s), %d callback(s), %d saved\n", n_jobs, n_batches, atomic_load(&g_done));
    if (atomic_load(&g_done) == n_jobs && atomic_load(&g_callback_errors) == 0)
        status = 0;

cleanup:
    /* Step 5: detach the thread from the stream, then stop and join it. */
    if (subscribed) {
        aclrtSynchronizeStream(stream);  /* on the error path too: no callback may still be pending */
        aclrtUnSubscribeReport((uint64_t)tid, stream);
    }
    if (thread_started) {
        atomic_store(&g_stop, 1);
        pthread_join(tid, NULL);
    }
    /* Then the usual release order: buffers and datasets, device memory,
     * model, description, stream, context, device, library. */
    for (int k = 0; jobs != NULL && k < n_jobs; k++) {
        aclmdlDataset *sets[2] = {jobs[k].in, jobs[k].out};
        for (int s = 0; s < 2; s++) {
            if (sets[s] == NULL)
                continue;
            for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(sets[s]); i++)
                aclDestroyDataBuffer(aclmdlGetDatasetBuffer(sets[s], i));
            aclmdlDestroyDataset(sets[s]);
        }
        if (jobs[k].in_dev != NULL)
            aclrtFree(jobs[k].in_dev);
        for (size_t i = 0; i < MAX_OUT; i++)
            if (jobs[k].out_dev[i] != NULL)
                aclrtFree(jobs[k].out_dev[i]);
    }
    if (model_loaded)
        aclmdlUnload(model_id);
    if (g_desc != NULL)
        aclmdlDestroyDesc(g_desc);
    if (stream != NULL)
        aclrtDestroyStream(stream);
    if (context != NULL)
        aclrtDestroyContext(context);
    if (device_set)
        aclrtResetDevice(device_id);
    if (acl_ready)
        aclFinalize();
    free(jobs);
    free(batches);
    return status;
}
