/* The runtime's internal API for the other layers of libascendcl (the model
 * layer above all): init state, current context, streams as task queues,
 * device memory with per-device accounting, and finalize hooks. Stable:
 * grows only by addition. Every function here is thread-safe unless its
 * comment says otherwise; on failure each records a message with acl_fail()
 * (naming `api` where it takes one) and returns the ACL error code. */
#ifndef OPENACL_RT_INTERNAL_H
#define OPENACL_RT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operator data dump in force (engine/eng_dump.h): set by aclInit's
 * `dump` section or aclmdlSetDump, cleared by aclmdlFinalizeDump and
 * aclFinalize. current returns a new reference (release with
 * eng_dump_cfg_unref) or NULL; install takes over the caller's reference
 * (NULL clears) and stops the configuration it replaces. */
struct eng_dump_cfg;
struct eng_dump_cfg *rt_dump_current(void);
void rt_dump_install(struct eng_dump_cfg *c);
/* Parses the `dump` section of the JSON file `path` (aclmdlSetDump) into a
 * new configuration in *out (NULL when the file has no dump section, or one
 * whose dump_list is empty: no model dumps); *has_section says which.
 * ACL_ERROR_INVALID_DUMP_CONFIG names the bad key or value. */
int rt_dump_parse_file(const char *api, const char *path, struct eng_dump_cfg **out, int *has_section);

/* 1 between a successful aclInit and aclFinalize, else 0. Lock-free. */
int rt_initialized(void);

/* ACL_ERROR_UNINITIALIZE with "<api>: aclInit has not been called" when not
 * initialised, else ACL_SUCCESS. For the first line of public functions. */
int rt_check_init(const char *api);

/* The calling thread's current context (an aclrtContext handle) in *ctx.
 * ACL_ERROR_UNINITIALIZE before aclInit; ACL_ERROR_RT_CONTEXT_NULL (107002,
 * as CANN) when the thread has none or it was destroyed. */
int rt_current_context(const char *api, void **ctx);

/* Device id of a context handle obtained from rt_current_context (or an
 * aclrtContext from the application); -1 if the handle is not live. */
int rt_context_device(void *ctx);

/* The calling thread's current device in *device (as aclrtGetDevice). */
int rt_current_device(const char *api, int32_t *device);

/* Thread budget of a device (config "threads_per_device"); all compute for
 * work submitted to that device should stay within it. 1 for a bad id. */
int rt_device_threads(int device);

/* The default thread budget (rt_limits.c), threads_per_device when neither
 * the configuration nor OPENACL_THREADS sets it: the affinity mask's CPU
 * count, capped by the cgroup CPU quota; what it saw in online, mask and
 * quota (0: none). Any time, before aclInit too (atc plans with it). */
int rt_cpus_default(long *online, long *mask, long *quota);

/* Number of configured devices (0 before aclInit). */
int rt_device_count(void);

/* ---- streams ---- */
typedef struct rt_stream rt_stream;

/* Resolves an application stream handle: NULL → the default stream of the
 * current context; otherwise checks that the handle is a live stream
 * (ACL_ERROR_INVALID_PARAM / "destroyed or unknown stream" if not) and that
 * it belongs to the current context's device (ACL_ERROR_RT_STREAM_CONTEXT).
 * The result stays valid until the stream is destroyed; the caller must not
 * race its use with aclrtDestroyStream of the same stream. */
int rt_stream_resolve(const char *api, aclrtStream s, rt_stream **out);

/* Enqueues a task: the stream's worker calls fn(arg) after every earlier
 * task of the stream has completed. fn returns an aclError; non-zero (with
 * the acl_fail message fn left on the worker thread) becomes the stream's
 * sticky error, reported with `what` (a static string, e.g. "aclmdlExecuteAsync
 * model 3") by the next synchronize. release(arg) (may be NULL) runs after
 * fn, or instead of it when the task is discarded (stream destroyed with
 * force, aclFinalize, ACL_STOP_ON_FAILURE after an error). fn runs on the
 * stream's worker thread with the stream's context current; it must not
 * synchronize the stream that runs it. Returns ACL_ERROR_INVALID_PARAM if
 * the stream is being destroyed; on any error release(arg) has NOT been
 * called (the caller still owns arg). */
int rt_stream_enqueue(rt_stream *s, int (*fn)(void *arg), void (*release)(void *arg), void *arg,
                      const char *what);

/* Blocks until every task enqueued on s so far has completed; returns and
 * clears the sticky error like aclrtSynchronizeStream (messages name `api`). */
int rt_stream_sync(const char *api, rt_stream *s);

/* Device id of a stream. */
int rt_stream_device(const rt_stream *s);

/* The application handle of s (never NULL, also for default streams). */
aclrtStream rt_stream_handle(const rt_stream *s);

/* ---- device memory ---- */
enum { RT_MEM_USER = 0, RT_MEM_WEIGHT = 1, RT_MEM_WORK = 2, RT_MEM_IO = 3, RT_MEM_CATEGORIES = 4 };

/* Device memory for the runtime's own use (model weights, work arenas,
 * runtime-allocated outputs), counted against `device`'s capacity under
 * `category`; start 128-byte aligned, content uninitialised. NULL (with an
 * acl_fail ACL_ERROR_RT_MEMORY_ALLOCATION message) when over capacity, on
 * size 0 or a bad device. Freed with rt_dev_free or aclrtFree. */
void *rt_dev_alloc(int device, size_t size, int category);

/* Frees memory from rt_dev_alloc / aclrtMalloc. NULL is a no-op; unknown
 * pointers are logged and ignored. */
void rt_dev_free(void *p);

/* 0 if [p, p+len) lies inside one live allocation (device memory, or host
 * memory from aclrtMallocHost); then *device (may be NULL) gets its device
 * (-1 for host memory) and *is_device (may be NULL) 1 for device memory.
 * ACL_ERROR_INVALID_PARAM otherwise (no message recorded: callers word it). */
int rt_mem_find(const void *p, size_t len, int *device, int *is_device);

/* Bytes currently allocated on a device in a category (RT_MEM_CATEGORIES =
 * all categories together). 0 for bad arguments. */
size_t rt_mem_used(int device, int category);

/* ---- lifecycle ---- */

/* Registers fn to run at aclFinalize (and aclFinalizeReference reaching 0)
 * before streams, contexts, devices and memory are torn down; hooks run in
 * reverse order of registration, on the finalizing thread, with the runtime
 * still fully usable (they may free memory, sync streams). Registering the
 * same fn twice has no effect. Hooks stay registered across init cycles. */
void rt_on_finalize(void (*fn)(void));

#ifdef __cplusplus
}
#endif
#endif
