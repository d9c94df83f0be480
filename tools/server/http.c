/* The HTTP front end of openacl-server on libmicrohttpd: routes the v2 REST
 * paths, bounds what a client may send (body size, header size, idle time),
 * decodes inference requests, queues them on their model and suspends the
 * connection until a worker completes the job (so a few HTTP threads carry
 * thousands of waiting requests), then encodes the response. One access log
 * line (JSON) per request. */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "srv.h"

#ifndef OPENACL_SERVER_VERSION
#define OPENACL_SERVER_VERSION "0"
#endif

typedef struct {
    int64_t t0;
    char method[16];
    char path[512];
    char remote[64];
    char model[SRV_NAME_MAX];
    srv_buf body;
    size_t header_len;
    int has_header_len;
    /* inference */
    struct MHD_Connection *conn;
    srv_job *job;
    srv_model_info *info;
    int done, suspended;
    /* for the log */
    int status;
    size_t bytes_out;
    char err[256];
} conn_ctx;

static struct MHD_Daemon *g_daemon;
static srv_http_opts g_opts;
static atomic_long g_inflight;
static atomic_int g_ready;
static FILE *g_log;
/* Guards done/suspended of every connection: the worker that completes a
 * job and the handler that suspends the connection agree through it. It is
 * global, not per connection, because once the worker resumes a connection
 * the handler may answer and free the connection's state at once, while the
 * worker still holds the lock. */
static pthread_mutex_t g_done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_log_mu = PTHREAD_MUTEX_INITIALIZER;

void srv_http_set_ready(int ready) { atomic_store(&g_ready, ready); }
long srv_http_inflight(void) { return atomic_load(&g_inflight); }

/* ---- responses ---- */
static enum MHD_Result reply(struct MHD_Connection *c, conn_ctx *x, int status, const char *ctype, srv_buf *body,
                             size_t json_len, int binary)
{
    size_t len = body->len;
    char *data = body->p;
    memset(body, 0, sizeof *body);
    struct MHD_Response *r = MHD_create_response_from_buffer(len, len ? data : (void *)"",
                                                             len ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(data);
        return MHD_NO;
    }
    if (ctype)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (binary) {
        char v[32];
        snprintf(v, sizeof v, "%zu", json_len);
        MHD_add_response_header(r, "Inference-Header-Content-Length", v);
    }
    if (status == 503)
        MHD_add_response_header(r, "Retry-After", "1");
    x->status = status;
    x->bytes_out = len;
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result reply_json(struct MHD_Connection *c, conn_ctx *x, int status, srv_buf *b)
{
    if (b->oom) {
        srv_buf_free(b);
        srv_buf_puts(b, "{\"error\":\"out of memory building the response\"}");
        status = 500;
    }
    return reply(c, x, status, "application/json", b, 0, 0);
}

static enum MHD_Result reply_error(struct MHD_Connection *c, conn_ctx *x, int status, const char *msg)
{
    srv_buf b = {0};
    srv_buf_puts(&b, "{\"error\":");
    srv_buf_json_str(&b, msg);
    srv_buf_puts(&b, "}");
    snprintf(x->err, sizeof x->err, "%s", msg);
    return reply_json(c, x, status, &b);
}

static enum MHD_Result reply_empty(struct MHD_Connection *c, conn_ctx *x, int status)
{
    srv_buf b = {0};
    return reply(c, x, status, NULL, &b, 0, 0);
}

/* ---- access log ---- */
static void access_log(const conn_ctx *x)
{
    if (!g_log)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[64];
    snprintf(when, sizeof when, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000);
    srv_buf b = {0};
    srv_buf_printf(&b, "{\"ts\":\"%s\",\"remote\":", when);
    srv_buf_json_str(&b, x->remote);
    srv_buf_puts(&b, ",\"method\":");
    srv_buf_json_str(&b, x->method);
    srv_buf_puts(&b, ",\"path\":");
    srv_buf_json_str(&b, x->path);
    srv_buf_printf(&b, ",\"status\":%d,\"bytes_in\":%zu,\"bytes_out\":%zu,\"duration_us\":%" PRId64, x->status,
                   x->body.len, x->bytes_out, (srv_now_ns() - x->t0) / 1000);
    if (x->model[0]) {
        srv_buf_puts(&b, ",\"model\":");
        srv_buf_json_str(&b, x->model);
    }
    if (x->job && x->job->req.has_id) {
        srv_buf_puts(&b, ",\"id\":");
        srv_buf_json_str(&b, x->job->req.id);
    }
    if (x->err[0]) {
        srv_buf_puts(&b, ",\"error\":");
        srv_buf_json_str(&b, x->err);
    }
    srv_buf_puts(&b, "}\n");
    if (!b.oom) {
        pthread_mutex_lock(&g_log_mu);
        fwrite(b.p, 1, b.len, g_log);
        fflush(g_log);
        pthread_mutex_unlock(&g_log_mu);
    }
    srv_buf_free(&b);
}

static void job_free(srv_job *j)
{
    if (!j)
        return;
    for (int i = 0; i < SRV_MAX_IO; i++)
        free(j->out[i]);
    srv_request_clear(&j->req);
    free(j);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    conn_ctx *x = *con_cls;
    if (!x)
        return;
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && x->status == 0)
        x->status = 499;   /* the client went away before the response */
    if (x->status)
        srv_metrics_http(x->status);
    access_log(x);
    job_free(x->job);
    free(x->info);
    srv_buf_free(&x->body);
    free(x);
    *con_cls = NULL;
    atomic_fetch_sub(&g_inflight, 1);
}

/* Called once by a model worker: wake the connection if it is suspended;
 * the handler reads the result when MHD calls it again. */
static void on_job_done(srv_job *j)
{
    conn_ctx *x = j->user;
    pthread_mutex_lock(&g_done_mu);
    x->done = 1;
    if (x->suspended) {
        x->suspended = 0;
        MHD_resume_connection(x->conn);   /* the last touch of x here */
    }
    pthread_mutex_unlock(&g_done_mu);
}

static enum MHD_Result finish_infer(struct MHD_Connection *c, conn_ctx *x)
{
    srv_job *j = x->job;
    srv_model *m = srv_repo_find(x->model);
    if (m)
        srv_hist_observe(&srv_model_get_metrics(m)->request_latency, (uint64_t)(srv_now_ns() - x->t0));
    if (j->status != 200)
        return reply_error(c, x, j->status, j->err);
    srv_buf b = {0};
    size_t json_len = 0;
    int binary = 0;
    if (srv_encode_infer(&x->info->sig, x->info->name, x->info->version, &j->req, j->out, &b, &json_len, &binary)) {
        srv_buf_free(&b);
        return reply_error(c, x, 500, "out of memory encoding the response");
    }
    return reply(c, x, 200, binary ? "application/octet-stream" : "application/json", &b, json_len, binary);
}

static size_t g_max_elems = (size_t)1 << 31;

static enum MHD_Result do_infer(struct MHD_Connection *c, conn_ctx *x, const char *model, const char *version)
{
    snprintf(x->model, sizeof x->model, "%s", model);
    srv_model *m = srv_repo_find(model);
    if (!m)
        return reply_error(c, x, 404, "unknown model");
    x->info = malloc(sizeof *x->info);
    if (!x->info)
        return reply_error(c, x, 500, "out of memory");
    srv_model_get_info(m, x->info);
    char err[300];
    if (x->info->state != SRV_READY) {
        atomic_fetch_add(&srv_model_get_metrics(m)->outcome[SRV_OUT_UNAVAILABLE], 1);
        snprintf(err, sizeof err, "model '%s' is %s", model,
                 x->info->state == SRV_UNAVAILABLE ? "not loaded" : "loading or unloading");
        return reply_error(c, x, x->info->state == SRV_UNAVAILABLE ? 404 : 503, err);
    }
    if (version && strcmp(version, x->info->version)) {
        snprintf(err, sizeof err, "model '%s' has no version '%.32s' loaded (version %s is)", model, version,
                 x->info->version);
        return reply_error(c, x, 404, err);
    }
    size_t hl = x->body.len;
    if (x->has_header_len)
        hl = x->header_len;
    x->job = calloc(1, sizeof *x->job);
    if (!x->job)
        return reply_error(c, x, 500, "out of memory");
    srv_job *j = x->job;
    srv_model_metrics *met = srv_model_get_metrics(m);
    if (srv_decode_infer(&x->info->sig, x->body.p ? x->body.p : "", x->body.len, hl, g_max_elems, &j->req, err,
                         sizeof err)) {
        atomic_fetch_add(&met->outcome[SRV_OUT_BAD_REQUEST], 1);
        return reply_error(c, x, 400, err);
    }
    j->generation = x->info->generation;
    j->t_arrive_ns = x->t0;
    j->complete = on_job_done;
    j->user = x;
    x->conn = c;
    int rc = srv_model_submit(m, j, err, sizeof err);
    if (rc) {
        if (rc != 503 || !strstr(err, "queue is full"))   /* a full queue counts as rejected */
            atomic_fetch_add(&met->outcome[SRV_OUT_UNAVAILABLE], 1);
        return reply_error(c, x, rc, err);
    }
    pthread_mutex_lock(&g_done_mu);
    if (!x->done) {
        x->suspended = 1;
        MHD_suspend_connection(c);
        pthread_mutex_unlock(&g_done_mu);
        return MHD_YES;
    }
    pthread_mutex_unlock(&g_done_mu);
    return finish_infer(c, x);
}

static void put_io_list(srv_buf *b, const srv_io *io, int n)
{
    for (int i = 0; i < n; i++) {
        srv_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        srv_buf_json_str(b, io[i].name);
        srv_buf_printf(b, ",\"datatype\":\"%s\",\"shape\":[", srv_dtype_name(io[i].dtype));
        for (int d = 0; d < io[i].ndim; d++)
            srv_buf_printf(b, "%s%" PRId64, d ? "," : "", io[i].dims[d]);
        srv_buf_puts(b, "]}");
    }
}

/* GET /v2/models/{m}[/versions/{v}][/ready|/config] */
static enum MHD_Result do_model_get(struct MHD_Connection *c, conn_ctx *x, const char *model, const char *version,
                                    const char *what)
{
    snprintf(x->model, sizeof x->model, "%s", model);
    srv_model *m = srv_repo_find(model);
    if (!m)
        return reply_error(c, x, 404, "unknown model");
    srv_model_info info;
    srv_model_get_info(m, &info);
    int ready = info.state == SRV_READY && (!version || !strcmp(version, info.version));
    char err[300];
    if (!strcmp(what, "ready"))
        return reply_empty(c, x, ready ? 200 : 400);
    if (!ready) {
        snprintf(err, sizeof err, "model '%s'%s%s is not loaded%s%s", model, version ? " version " : "",
                 version ? version : "", info.reason[0] ? ": " : "", info.reason);
        return reply_error(c, x, 404, err);
    }
    srv_buf b = {0};
    srv_buf_puts(&b, "{\"name\":");
    srv_buf_json_str(&b, info.name);
    if (!strcmp(what, "config")) {
        srv_buf_printf(&b, ",\"version\":\"%s\",\"max_batch_size\":%" PRId64 ",\"batch_gears\":[", info.version,
                       info.sig.batched ? info.sig.max_batch : 0);
        for (int g = 0; g < info.n_gears; g++)
            srv_buf_printf(&b, "%s%" PRId64, g ? "," : "", info.gears[g]);
        srv_buf_puts(&b, "]}");
        return reply_json(c, x, 200, &b);
    }
    srv_buf_printf(&b, ",\"versions\":[\"%s\"],\"platform\":\"%s\",\"inputs\":[", info.version, info.platform);
    put_io_list(&b, info.sig.in, info.sig.n_in);
    srv_buf_puts(&b, "],\"outputs\":[");
    put_io_list(&b, info.sig.out, info.sig.n_out);
    srv_buf_puts(&b, "]}");
    return reply_json(c, x, 200, &b);
}

static enum MHD_Result do_index(struct MHD_Connection *c, conn_ctx *x)
{
    int only_ready = 0;
    if (x->body.len) {
        /* {"ready": true|false} is the only field the protocol defines */
        cJSON *r = cJSON_ParseWithLength(x->body.p, x->body.len);
        if (!cJSON_IsObject(r)) {
            cJSON_Delete(r);
            return reply_error(c, x, 400, "the index request must be a JSON object");
        }
        const cJSON *ready = cJSON_GetObjectItemCaseSensitive(r, "ready");
        if (ready && !cJSON_IsBool(ready)) {
            cJSON_Delete(r);
            return reply_error(c, x, 400, "'ready' must be a boolean");
        }
        only_ready = cJSON_IsTrue(ready);
        cJSON_Delete(r);
    }
    srv_repo_scan();
    srv_buf b = {0};
    srv_buf_puts(&b, "[");
    int first = 1;
    for (srv_model *m = srv_repo_first(); m; m = srv_model_next(m)) {
        srv_model_info info;
        srv_model_get_info(m, &info);
        if (only_ready && info.state != SRV_READY)
            continue;
        srv_buf_puts(&b, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        srv_buf_json_str(&b, info.name);
        if (info.state == SRV_READY)
            srv_buf_printf(&b, ",\"version\":\"%s\"", info.version);
        srv_buf_printf(&b, ",\"state\":\"%s\",\"reason\":", srv_state_name(info.state));
        srv_buf_json_str(&b, info.reason);
        srv_buf_puts(&b, "}");
    }
    srv_buf_puts(&b, "]");
    return reply_json(c, x, 200, &b);
}

/* ---- routing ---- */
static enum MHD_Result route(struct MHD_Connection *c, conn_ctx *x)
{
    srv_route r;
    srv_route_parse(x->path, &r);
    if (r.ep == SRV_EP_NOT_FOUND)
        return reply_error(c, x, 404, r.why);
    if (strcmp(x->method, r.post ? "POST" : "GET"))
        return reply_error(c, x, 405, r.ep == SRV_EP_INFER ? "use POST for inference"
                                      : r.post             ? "use POST"
                                                           : "use GET");
    const char *version = r.has_version ? r.version : NULL;
    switch (r.ep) {
    case SRV_EP_METRICS: {
        srv_buf b = {0};
        srv_metrics_render(&b);
        if (b.oom) {
            srv_buf_free(&b);
            return reply_error(c, x, 500, "out of memory");
        }
        return reply(c, x, 200, "text/plain; version=0.0.4", &b, 0, 0);
    }
    case SRV_EP_SERVER: {
        srv_buf b = {0};
        srv_buf_puts(&b, "{\"name\":\"openacl-server\",\"version\":\"" OPENACL_SERVER_VERSION
                         "\",\"extensions\":[\"binary_tensor_data\",\"model_repository\"]}");
        return reply_json(c, x, 200, &b);
    }
    case SRV_EP_LIVE:
        return reply_empty(c, x, 200);
    case SRV_EP_READY:
        return atomic_load(&g_ready) ? reply_empty(c, x, 200) : reply_error(c, x, 503, "not ready");
    case SRV_EP_INFER:
        return do_infer(c, x, r.model, version);
    case SRV_EP_MODEL:
        return do_model_get(c, x, r.model, version, "");
    case SRV_EP_MODEL_READY:
        return do_model_get(c, x, r.model, version, "ready");
    case SRV_EP_MODEL_CONFIG:
        return do_model_get(c, x, r.model, version, "config");
    case SRV_EP_REPO_INDEX:
        return do_index(c, x);
    default: {   /* SRV_EP_REPO_LOAD, SRV_EP_REPO_UNLOAD */
        snprintf(x->model, sizeof x->model, "%s", r.model);
        char err[400] = "";
        int st = r.ep == SRV_EP_REPO_LOAD ? srv_model_load(r.model, err, sizeof err)
                                          : srv_model_unload(r.model, err, sizeof err);
        return st == 200 ? reply_empty(c, x, 200) : reply_error(c, x, st, err);
    }
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    conn_ctx *x = *con_cls;
    if (!x) {
        x = calloc(1, sizeof *x);
        if (!x)
            return MHD_NO;
        atomic_fetch_add(&g_inflight, 1);
        *con_cls = x;
        x->t0 = srv_now_ns();
        snprintf(x->method, sizeof x->method, "%s", method);
        snprintf(x->path, sizeof x->path, "%s", url);
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (ci && ci->client_addr) {
            const struct sockaddr *sa = ci->client_addr;
            if (sa->sa_family == AF_INET)
                inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, x->remote, sizeof x->remote);
            else if (sa->sa_family == AF_INET6)
                inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, x->remote, sizeof x->remote);
        }
        if (strlen(url) >= sizeof x->path)
            return reply_error(c, x, 414, "the URL is too long");
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        size_t v;
        if (cl && srv_parse_size(cl, SIZE_MAX, &v))
            return reply_error(c, x, 400, "Content-Length is not a valid size");
        if (cl && v > g_opts.max_body) {
            char e[128];
            snprintf(e, sizeof e, "the body is larger than the server's limit of %zu bytes", g_opts.max_body);
            return reply_error(c, x, 413, e);   /* answered before the body is read */
        }
        const char *ih = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Inference-Header-Content-Length");
        if (ih) {
            if (srv_parse_size(ih, g_opts.max_body, &v))
                return reply_error(c, x, 400, "Inference-Header-Content-Length is not a valid size");
            x->header_len = v;
            x->has_header_len = 1;
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (x->status)   /* already answered (early error): drop the rest */
            return MHD_NO;
        if (x->body.len + *upload_data_size > g_opts.max_body)
            return MHD_NO;   /* chunked body over the limit: close the connection */
        srv_buf_put(&x->body, upload_data, *upload_data_size);
        if (x->body.oom)
            return MHD_NO;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (x->status)
        return MHD_YES;
    if (x->job)   /* resumed: the worker has finished */
        return finish_infer(c, x);
    return route(c, x);
}

int srv_http_start(const srv_http_opts *o, int *bound_port, char *err, size_t errlen)
{
    g_opts = *o;
    if (!o->access_log || !strcmp(o->access_log, "-"))
        g_log = stderr;
    else if (!strcmp(o->access_log, "off"))
        g_log = NULL;
    else if (!(g_log = fopen(o->access_log, "a"))) {
        snprintf(err, errlen, "cannot open the access log '%s': %s", o->access_log, strerror(errno));
        return -1;
    }
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, o->host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)o->port);
    } else if (inet_pton(AF_INET6, o->host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)o->port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errlen, "--host '%s' is not a numeric IPv4 or IPv6 address", o->host);
        return -1;
    }
    g_daemon = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, NULL,
                                MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                                MHD_OPTION_THREAD_POOL_SIZE, (unsigned)o->threads,
                                MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
                                MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout_s,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->max_header,
                                MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
                                MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
                                MHD_OPTION_END);
    if (!g_daemon) {
        snprintf(err, errlen, "cannot listen on %s:%d (in use, or not an address of this machine)", o->host, o->port);
        return -1;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(g_daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = di ? di->port : o->port;
    return 0;
}

void srv_http_drain(int timeout_ms)
{
    atomic_store(&g_ready, 0);
    MHD_socket fd = MHD_quiesce_daemon(g_daemon);
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
    int64_t until = srv_now_ns() + (int64_t)timeout_ms * 1000000;
    while (atomic_load(&g_inflight) > 0 && srv_now_ns() < until) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

void srv_http_stop(void)
{
    if (g_daemon)
        MHD_stop_daemon(g_daemon);
    g_daemon = NULL;
    if (g_log && g_log != stderr)
        fclose(g_log);
    g_log = NULL;
}
