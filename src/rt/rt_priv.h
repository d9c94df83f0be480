/* Private structures of the runtime (src/rt only): global state, handle
 * registry, devices, contexts, streams and their tasks, events, report
 * (callback) threads, and the memory table.
 *
 * Locking, outermost first (never take an earlier one while holding a later):
 *   g_rt.lock (rwlock: registry, devices, contexts, stream lists, reports,
 *              hooks; read-locked on the hot path to resolve handles)
 *   -> stream->lock (queue, seqs, sticky error, subscription, outstanding
 *              callbacks)
 *   -> report->lock (callback queue of one report thread)
 *   event->lock and g_mem.lock are leaves.
 * A stream worker never holds g_rt.lock while running a task; threads that
 * join workers never hold it either. */
#ifndef OPENACL_RT_PRIV_H
#define OPENACL_RT_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "core/core.h"
#include "rt/rt_internal.h"

#define RT_MAX_DEVICES 64
#define RT_MAX_REPORT_THREADS 1024
#define RT_MAX_HOOKS 32
#define RT_SYSOPT_N 4 /* aclSysParamOpt values 0..3 */

/* ---- handles ---- */
enum { RT_H_CTX = 1, RT_H_STREAM = 2, RT_H_EVENT = 3 };

/* Handles are never reused: (tag | kind | serial), not pointers. */
uint64_t rt_handle_add(int kind, void *obj);           /* write lock held */
void *rt_handle_get(uint64_t h, int kind);              /* read or write lock held */
void rt_handle_del(uint64_t h);                         /* write lock held */
void rt_handle_clear(void);                             /* write lock held */
#define RT_H(p) ((uint64_t)(uintptr_t)(p))
#define RT_P(h) ((void *)(uintptr_t)(h))

/* ---- config ---- */
typedef struct rt_config {
    int device_count;
    size_t device_memory;
    int threads;
    int log_level;        /* -1: leave as is */
    int spin_us;
    char dump_root[4096];           /* openacl.dump_root: dump paths must lie inside ("" none) */
    struct eng_dump_cfg *dump;      /* the `dump` section, owned (NULL none) */
    int prof_on;                    /* the `profiler` section's switch */
    char prof_dir[4096];            /* its output folder */
} rt_config;

/* Sections of the aclInit JSON beyond "openacl" (rt_dump.c, rt_config.c).
 * sec is the section's cJSON object; root the dump root or NULL. */
struct cJSON;
int rt_dump_parse(const char *api, const struct cJSON *sec, const char *root, struct eng_dump_cfg **out);
/* aclFinalize: a running aclprof session is stopped and written (rt_prof.c). */
void rt_prof_finalize(void);
int rt_config_file_json(const char *api, const char *path, struct cJSON **root);

int rt_config_load(const char *path, rt_config *cfg); /* file + environment */
/* rt_limits.c: the tightest CPU quota in whole CPUs, and memory limit in
 * bytes, of the cgroups named by self (the text of /proc/self/cgroup) under
 * root (where the cgroup filesystems are mounted), 0 when none sets one. */
long rt_cpus_quota(const char *root, const char *self);
long long rt_memory_limit(const char *root, const char *self);
/* The default device memory budget: cap, no more than the physical memory
 * and the cgroup memory limit (what it saw in physical and limit, 0: none
 * or unknown), at least 4096 bytes. */
size_t rt_memory_default(size_t cap, long long *physical, long long *limit);

/* ---- objects ---- */
typedef struct rt_ctx rt_ctx;
typedef struct rt_event rt_event;
typedef struct rt_report rt_report;
typedef struct rt_task rt_task;

enum {
    RT_TASK_FN = 1,
    RT_TASK_MEMCPY,
    RT_TASK_MEMCPY2D,
    RT_TASK_MEMSET,
    RT_TASK_EVENT_RECORD,
    RT_TASK_EVENT_RESET,
    RT_TASK_EVENT_WAIT,
    RT_TASK_CALLBACK,
    RT_TASK_HOSTFUNC,
};

struct rt_task {
    rt_task *next;      /* stream queue / free list */
    rt_task *rnext;     /* report queue */
    rt_task *onext;     /* stream's outstanding-callback list */
    rt_stream *stream;
    uint64_t seq;
    uint8_t kind;
    uint8_t block;
    uint8_t done;
    uint8_t discarded;
    uint8_t direct;     /* callback handed straight to the report thread */
    uint32_t tid;       /* enqueuing thread */
    const char *what;
    union {
        struct { int (*fn)(void *); void (*release)(void *); void *arg; } fn;
        struct { void *dst; const void *src; size_t n; void *staging; } cp;
        struct { void *dst; size_t dpitch; const void *src; size_t spitch; size_t w, h; } cp2;
        struct { void *dst; int v; size_t n; } ms;
        /* timeout_ms: a wait's limit (0 = none); timed_out set by the worker */
        struct { rt_event *ev; uint64_t gen; int32_t timeout_ms; int timed_out; } ev;
        struct { aclrtCallback fn; void *data; } cb;
        struct { aclrtHostFunc fn; void *args; } hf;
    } u;
};

struct rt_stream {
    uint64_t handle;
    uint32_t id;              /* small number for exception info */
    rt_ctx *ctx;
    int device;
    int is_default;
    uint32_t flags;
    uint64_t failure_mode;
    rt_stream *ctx_next;

    pthread_mutex_t lock;
    pthread_cond_t work_cv;   /* worker sleeps here */
    pthread_cond_t done_cv;   /* synchronizers and blocked callbacks */
    rt_task *head, *tail;
    rt_task *free_list;
    int free_count;
    uint64_t enq_seq;                 /* under lock */
    _Atomic uint64_t enq_seq_a;       /* mirror for lock-free spinning */
    _Atomic uint64_t done_seq;        /* every task with seq <= done_seq has run */
    int running;
    int worker_sleeping;
    int waiters;
    int closing;              /* no more enqueues */
    atomic_int aborting;      /* discard what is queued */
    int stop;                 /* worker exits when the queue is empty */
    int worker_started;
    pthread_t worker;
    rt_task *out_head, *out_tail;     /* callbacks handed to the report thread */
    atomic_int out_n;                 /* their number, for lock-free spinning */
    rt_task *blocked_by;      /* a BLOCK callback handed over directly: later tasks wait */
    rt_report *report;

    int sticky_code;
    char *sticky_msg;
    const char *sticky_what;
    uint64_t sticky_seq;
    unsigned sticky_more;     /* failures after the first one */
};

struct rt_ctx {
    uint64_t handle;
    int device;
    int is_default;
    rt_stream *def_stream;
    rt_stream *streams;       /* every stream of the context, default included */
    int64_t sysopt[RT_SYSOPT_N]; /* aclrtCtxSetSysParamOpt values */
    unsigned sysopt_set;      /* bit o: sysopt[o] was set */
    rt_ctx *next;
};

struct rt_event {
    uint64_t handle;
    uint32_t id;              /* aclrtGetEventId */
    int device;
    uint32_t flags;
    atomic_int refs;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    uint64_t rec_gen;         /* records enqueued */
    uint64_t done_gen;        /* newest record that has run */
    int recorded;             /* last completed operation was a record */
    uint64_t ts_ns;
    int waits_pending;
    rt_event *next;
    rt_event *prev;
};

struct rt_report {
    uint64_t tid;
    int device;
    atomic_int nstreams;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    rt_task *qhead, *qtail;
    atomic_int qcount;
    int waiting;
    int inside;               /* threads inside aclrtProcessReport */
    int closing;
    rt_report *next;
};

typedef struct rt_device {
    int refcount;             /* aclrtSetDevice uses */
    rt_ctx *def_ctx;
    int sat_mode;
    uint64_t peer_enabled;    /* bit p: aclrtDeviceEnablePeerAccess(p) from this device */
} rt_device;

typedef struct rt_global {
    pthread_rwlock_t lock;
    atomic_int initialized;
    int init_count;
    rt_config cfg;
    rt_device devs[RT_MAX_DEVICES];
    rt_ctx *ctxs;
    rt_event *events;
    rt_report *reports;
    int nreports;
    atomic_uint stream_ids;
    atomic_ulong epoch;       /* bumped at each finalize */
    void (*hooks[RT_MAX_HOOKS])(void);
    int nhooks;
    _Atomic(aclrtExceptionInfoCallback) exc_cb;
    uint64_t spin_ns;
    int64_t sysopt[RT_SYSOPT_N]; /* aclrtSetSysParamOpt values (write lock) */
    unsigned sysopt_set;      /* bit o: sysopt[o] was set; cleared by aclInit */
} rt_global;

extern rt_global g_rt;

/* ---- shared helpers ---- */
static inline uint64_t rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void rt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Absolute CLOCK_MONOTONIC deadline `ms` from now. */
void rt_deadline(struct timespec *ts, int32_t ms);
void rt_cond_init(pthread_cond_t *cv);   /* monotonic clock */
/* Adaptive mutex: spins briefly under contention before sleeping, since the
 * critical sections are a few pointer moves and a futex round trip costs
 * more than the wait. */
void rt_mutex_init(pthread_mutex_t *m);
uint32_t rt_tid(void);

/* Context of the calling thread under a held g_rt lock; NULL if none. */
rt_ctx *rt_ctx_current_locked(void);
void rt_ctx_set_current(rt_ctx *ctx);
/* Resolve with g_rt.lock already read-locked. */
int rt_stream_resolve_locked(const char *api, aclrtStream s, rt_ctx *ctx, rt_stream **out);

/* streams */
rt_stream *rt_stream_new(rt_ctx *ctx, int is_default, uint32_t flags);  /* write lock held */
void rt_stream_unlink(rt_stream *s);          /* write lock held: registry + ctx list */
void rt_stream_teardown(rt_stream *s, int force); /* no g lock: drain/abort, join, free */
rt_task *rt_task_alloc(rt_stream *s);          /* stream lock held */
void rt_task_recycle(rt_stream *s, rt_task *t);/* stream lock held */
int rt_stream_submit(const char *api, rt_stream *s, const rt_task *tmpl, uint64_t *seq); /* copies tmpl */
int rt_stream_wait(const char *api, rt_stream *s, uint64_t target, int32_t timeout_ms, int report);
void rt_stream_abort_callbacks(rt_stream *s);

/* contexts */
rt_ctx *rt_ctx_new(int device, int is_default); /* write lock held */
void rt_ctx_unlink(rt_ctx *ctx);                 /* write lock held */
void rt_ctx_teardown(rt_ctx *ctx, int force);    /* no g lock */

/* events */
void rt_event_unref(rt_event *e);
void rt_event_finalize_all(void);                /* at aclFinalize, no g lock */
void rt_event_run(rt_task *t, rt_stream *s);

/* callbacks */
int rt_report_deliver(rt_stream *s, rt_task *t); /* worker: hand a callback task over */
void rt_report_complete(rt_task *t, int discarded);
void rt_report_finalize_all(void);               /* at aclFinalize */
void rt_report_detach_stream(rt_stream *s);      /* stream being destroyed */

/* memory */
void rt_mem_reset(void);                         /* frees everything (finalize) */
int rt_mem_dvpp_alloc(const char *api, void **p, size_t size); /* rt_ext.h */
/* aclrtSynchronizeDevice with api named in messages (the *WithDevSync frees). */
int rt_sync_current_device(const char *api);
int rt_mem_dvpp_free(const char *api, void *p);
int rt_mem_kind(const void *p, size_t len, int *kind, int *device); /* kind: OPENACL_EXT_MEM_* */
int rt_mem_check_range(const char *api, const char *which, const void *p, size_t n, int *is_dev, int *dev,
                       int *pinned);

/* exceptions */
void rt_exception_raise(rt_stream *s, rt_task *t, int code);

#endif
