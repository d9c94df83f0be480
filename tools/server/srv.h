/* openacl-server: the Open Inference Protocol (KServe v2 REST) over the
 * public AscendCL API. This header ties the parts together:
 *   codec.c    JSON / binary tensor request decoding and response encoding
 *              (no sockets, no runtime: the fuzz target drives it directly)
 *   repo.c     model repository, config.json, model instances, queues,
 *              dynamic batching onto batch gears (the only AscendCL user)
 *   metrics.c  Prometheus counters and histograms
 *   http.c     libmicrohttpd front end: routing, limits, suspend/resume
 *   main.c     flags, signals, drain on SIGTERM */
#ifndef OPENACL_SERVER_SRV_H
#define OPENACL_SERVER_SRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#define SRV_MAX_IO 16
#define SRV_MAX_DIMS 8
#define SRV_NAME_MAX 128
#define SRV_MAX_GEARS 100
#define SRV_MAX_INSTANCES 16

/* ---- growable byte buffer ---- */
typedef struct {
    char *p;
    size_t len, cap;
    int oom;              /* an append failed: the content is incomplete */
} srv_buf;
void srv_buf_put(srv_buf *b, const void *data, size_t n);
void srv_buf_puts(srv_buf *b, const char *s);
void srv_buf_printf(srv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void srv_buf_json_str(srv_buf *b, const char *s);   /* a quoted, escaped JSON string */
void srv_buf_free(srv_buf *b);

/* ---- datatypes: v2 names <-> aclDataType ---- */
const char *srv_dtype_name(aclDataType dt);          /* NULL when v2 has no name for it */
int srv_dtype_parse(const char *name, aclDataType *dt); /* 0 on success */
size_t srv_dtype_size(aclDataType dt);               /* 0 when not a fixed-size type */
uint16_t srv_f32_to_f16(float f);
float srv_f16_to_f32(uint16_t h);
uint16_t srv_f32_to_bf16(float f);
float srv_bf16_to_f32(uint16_t h);

/* ---- a model's public signature, as the protocol shows it ---- */
typedef struct {
    char name[SRV_NAME_MAX];
    aclDataType dtype;
    int ndim;
    int64_t dims[SRV_MAX_DIMS];   /* dims[0] == -1 on batched models */
} srv_io;

typedef struct {
    int n_in, n_out;
    srv_io in[SRV_MAX_IO], out[SRV_MAX_IO];
    int batched;          /* dim 0 of every input and output is the batch */
    int64_t max_batch;    /* rows one request may carry (batched models) */
} srv_sig;

/* ---- a decoded inference request ---- */
typedef struct {
    int ndim;
    int64_t dims[SRV_MAX_DIMS];
    size_t bytes;
    const void *data;     /* into the request body (binary) or into `owned` */
    void *owned;
} srv_tensor;

typedef struct {
    char id[SRV_NAME_MAX];
    int has_id;
    srv_tensor in[SRV_MAX_IO];      /* indexed like srv_sig.in */
    int64_t rows;                   /* batch rows (1 on unbatched models) */
    int n_out;                      /* outputs to return, in response order */
    int out_idx[SRV_MAX_IO];        /* index into srv_sig.out */
    int out_binary[SRV_MAX_IO];
    int64_t timeout_us;             /* parameters.timeout, 0: the model's */
} srv_request;

/* Decodes an inference request body: `len` bytes of which the first
 * `header_len` are the JSON object (header_len == len when there is no
 * binary data; Inference-Header-Content-Length otherwise). Binary tensors
 * point into `body`, which must outlive the request. Every input of `sig`
 * must be given exactly once with the model's datatype and a shape the
 * model accepts; at most `max_elems` elements in all. Returns 0, or -1 with
 * a message in err. Always srv_request_clear the result. */
int srv_decode_infer(const srv_sig *sig, const char *body, size_t len, size_t header_len, size_t max_elems,
                     srv_request *req, char *err, size_t errlen);
void srv_request_clear(srv_request *req);
/* A header value holding a byte count (Content-Length,
 * Inference-Header-Content-Length): decimal digits only, at most `max`.
 * 0 on success. */
int srv_parse_size(const char *s, size_t max, size_t *out);

/* ---- routing: a request path to an endpoint (pure; fuzzed) ---- */
typedef enum {
    SRV_EP_NOT_FOUND, SRV_EP_METRICS, SRV_EP_SERVER, SRV_EP_LIVE, SRV_EP_READY, SRV_EP_MODEL, SRV_EP_MODEL_READY,
    SRV_EP_MODEL_CONFIG, SRV_EP_INFER, SRV_EP_REPO_INDEX, SRV_EP_REPO_LOAD, SRV_EP_REPO_UNLOAD
} srv_endpoint;
typedef struct {
    srv_endpoint ep;
    int post;                        /* the method the endpoint takes: 1 POST, 0 GET */
    char model[SRV_NAME_MAX];        /* "" when none; over-long names are cut and never match */
    char version[32];
    int has_version;
    const char *why;                 /* for SRV_EP_NOT_FOUND */
} srv_route;
/* Splits the path (a query string is ignored) into an endpoint of the v2
 * REST API and its model and version. Never fails: unknown paths give
 * SRV_EP_NOT_FOUND with a reason. */
void srv_route_parse(const char *path, srv_route *r);

/* Encodes the response: JSON object, then the binary outputs. out[i] holds
 * output out_idx[i] of the request with rows * (per-row elements). Sets
 * *json_len to the JSON part's length (the Inference-Header-Content-Length
 * when any output is binary, else the whole body). */
int srv_encode_infer(const srv_sig *sig, const char *model, const char *version, const srv_request *req,
                     void *const out[], srv_buf *body, size_t *json_len, int *any_binary);

/* ---- metrics ---- */
#define SRV_LAT_BUCKETS 14
#define SRV_BATCH_BUCKETS 8
typedef struct {
    atomic_ullong count, sum_ns;
    atomic_ullong bucket[SRV_LAT_BUCKETS + 1];   /* last: +Inf */
} srv_hist;

enum { SRV_OUT_SUCCESS, SRV_OUT_BAD_REQUEST, SRV_OUT_UNAVAILABLE, SRV_OUT_TIMEOUT, SRV_OUT_INTERNAL,
       SRV_OUT_REJECTED, SRV_OUT_COUNT };

typedef struct {
    atomic_ullong outcome[SRV_OUT_COUNT];
    srv_hist request_latency;     /* arrival to response queued */
    srv_hist queue_latency;       /* enqueue to execution start */
    srv_hist compute_latency;     /* one execution */
    atomic_ullong batch_rows[SRV_BATCH_BUCKETS + 1];
    atomic_ullong batch_rows_sum, executions, padded_rows;
    atomic_llong queue_depth;
} srv_model_metrics;

void srv_hist_observe(srv_hist *h, uint64_t ns);
void srv_metrics_batch(srv_model_metrics *m, int64_t rows, int64_t gear);
void srv_metrics_http(int status);
void srv_metrics_render(srv_buf *b);   /* walks the repository (repo lock taken) */

/* ---- repository, models, jobs ---- */
enum srv_state { SRV_UNAVAILABLE, SRV_LOADING, SRV_READY, SRV_UNLOADING };
const char *srv_state_name(int s);

typedef struct srv_job srv_job;
struct srv_job {
    srv_request req;
    struct srv_model *model;
    uint64_t generation;          /* the load the request was decoded for */
    int64_t t_arrive_ns, t_enqueue_ns, deadline_ns;
    /* result, written by the worker before `complete` */
    int status;                   /* HTTP status: 200 or an error */
    char err[256];
    void *out[SRV_MAX_IO];        /* per requested output, malloc'ed */
    void (*complete)(srv_job *);  /* called once, from a worker thread */
    void *user;
    srv_job *next;
};

typedef struct {
    char name[SRV_NAME_MAX];      /* the model's own name */
    char alias[SRV_NAME_MAX];     /* the public name, "" when the same */
    int has_dtype, ndim;
    aclDataType dtype;
    int64_t dims[SRV_MAX_DIMS];
} srv_io_override;

typedef struct {
    int64_t max_batch_size;       /* -1: not given */
    int instance_count;
    int n_devices;
    int32_t devices[SRV_MAX_INSTANCES];
    int dynamic_batching;
    int64_t max_queue_delay_us;
    int64_t max_queue_size;
    int64_t timeout_ms;
    int n_in_ov, n_out_ov;
    srv_io_override in_ov[SRV_MAX_IO], out_ov[SRV_MAX_IO];
} srv_config;

/* Parses a model's config.json text; fills defaults. 0, or -1 and err. */
int srv_config_parse(const char *text, size_t len, srv_config *cfg, char *err, size_t errlen);

typedef struct srv_model srv_model;
int srv_repo_open(const char *dir, char *err, size_t errlen);
void srv_repo_close(void);
/* Scans the folder for models (new folders become UNAVAILABLE entries). */
void srv_repo_scan(void);
srv_model *srv_repo_find(const char *name);   /* entries live until srv_repo_close */
srv_model *srv_repo_first(void);
srv_model *srv_model_next(srv_model *m);
/* Loads (or reloads) a model; blocks until ready or failed. Returns an HTTP
 * status (200, 404, 400, 503, 500) and a message in err. */
int srv_model_load(const char *name, char *err, size_t errlen);
/* Stops taking requests, lets queued and running ones finish, unloads. */
int srv_model_unload(const char *name, char *err, size_t errlen);
/* Queues a job: 0, or an HTTP status (404 not loaded, 503 queue full or
 * unloading) and err; on 0 `complete` will be called exactly once. */
int srv_model_submit(srv_model *m, srv_job *job, char *err, size_t errlen);

/* A copy of the model's state for the front end, taken under its lock. */
typedef struct {
    char name[SRV_NAME_MAX];
    char version[32];
    char platform[32];
    char reason[256];
    int state;
    srv_sig sig;
    int64_t gears[SRV_MAX_GEARS];
    int n_gears;
    uint64_t generation;          /* changes at every load */
} srv_model_info;
void srv_model_get_info(srv_model *m, srv_model_info *info);
srv_model_metrics *srv_model_get_metrics(srv_model *m);
const char *srv_model_name(srv_model *m);

/* Server-wide settings used by repo.c */
typedef struct {
    int32_t default_device;
    int64_t default_queue;
    int64_t default_timeout_ms;
    int verbose;
} srv_settings;
extern srv_settings g_srv;

int64_t srv_now_ns(void);
/* Stops every model's instances (their queues drain first); entries stay. */
void srv_repo_stop_all(void);

/* ---- HTTP front end (http.c) ---- */
typedef struct {
    const char *host;             /* numeric IPv4 or IPv6 address */
    int port;                     /* 0: any free port */
    int threads;                  /* HTTP threads */
    unsigned max_connections;
    unsigned idle_timeout_s;      /* also bounds slow request headers and bodies */
    size_t max_body;              /* bytes */
    size_t max_header;            /* bytes of request line + headers */
    const char *access_log;       /* NULL or "-": stderr; "off": none; else a file */
} srv_http_opts;
int srv_http_start(const srv_http_opts *o, int *bound_port, char *err, size_t errlen);
void srv_http_set_ready(int ready);   /* /v2/health/ready */
/* Stops accepting, waits up to timeout_ms for requests in flight. */
void srv_http_drain(int timeout_ms);
long srv_http_inflight(void);
void srv_http_stop(void);

#endif
