/* Prometheus metrics of openacl-server (text exposition format 0.0.4).
 * Counters are atomics updated on the request path without locks; /metrics
 * reads them as they are (each value is exact, the set is not a snapshot). */
#include <stdio.h>
#include <string.h>

#include "srv.h"

/* latency buckets, seconds: 100 us .. 10 s */
static const double k_lat_le[SRV_LAT_BUCKETS] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                 0.025,  0.05,    0.1,    0.25,  0.5,    1.0,  10.0};
static const int64_t k_batch_le[SRV_BATCH_BUCKETS] = {1, 2, 4, 8, 16, 32, 64, 128};

static const int k_codes[] = {200, 400, 404, 405, 408, 413, 431, 500, 503, 504};
#define N_CODES (sizeof k_codes / sizeof k_codes[0])
static atomic_ullong g_http[N_CODES + 1];   /* last: any other code */

void srv_hist_observe(srv_hist *h, uint64_t ns)
{
    double s = (double)ns / 1e9;
    int b = 0;
    while (b < SRV_LAT_BUCKETS && s > k_lat_le[b])
        b++;
    atomic_fetch_add(&h->bucket[b], 1);
    atomic_fetch_add(&h->count, 1);
    atomic_fetch_add(&h->sum_ns, ns);
}

void srv_metrics_batch(srv_model_metrics *m, int64_t rows, int64_t gear)
{
    int b = 0;
    while (b < SRV_BATCH_BUCKETS && rows > k_batch_le[b])
        b++;
    atomic_fetch_add(&m->batch_rows[b], 1);
    atomic_fetch_add(&m->batch_rows_sum, (unsigned long long)rows);
    atomic_fetch_add(&m->executions, 1);
    atomic_fetch_add(&m->padded_rows, (unsigned long long)(gear - rows));
}

void srv_metrics_http(int status)
{
    size_t i = 0;
    while (i < N_CODES && k_codes[i] != status)
        i++;
    atomic_fetch_add(&g_http[i], 1);
}

static void render_hist(srv_buf *b, const char *name, const char *model, srv_hist *h)
{
    unsigned long long cum = 0;
    for (int i = 0; i <= SRV_LAT_BUCKETS; i++) {
        cum += atomic_load(&h->bucket[i]);
        if (i < SRV_LAT_BUCKETS)
            srv_buf_printf(b, "%s_bucket{model=\"%s\",le=\"%g\"} %llu\n", name, model, k_lat_le[i], cum);
        else
            srv_buf_printf(b, "%s_bucket{model=\"%s\",le=\"+Inf\"} %llu\n", name, model, cum);
    }
    srv_buf_printf(b, "%s_sum{model=\"%s\"} %.9f\n", name, model, (double)atomic_load(&h->sum_ns) / 1e9);
    srv_buf_printf(b, "%s_count{model=\"%s\"} %llu\n", name, model, atomic_load(&h->count));
}

static const char *k_outcome[SRV_OUT_COUNT] = {"success", "bad_request", "unavailable", "timeout", "internal",
                                               "rejected"};

void srv_metrics_render(srv_buf *b)
{
    srv_buf_puts(b, "# HELP openacl_http_responses_total HTTP responses by status code.\n"
                    "# TYPE openacl_http_responses_total counter\n");
    for (size_t i = 0; i <= N_CODES; i++) {
        if (i < N_CODES)
            srv_buf_printf(b, "openacl_http_responses_total{code=\"%d\"} %llu\n", k_codes[i],
                           atomic_load(&g_http[i]));
        else
            srv_buf_printf(b, "openacl_http_responses_total{code=\"other\"} %llu\n", atomic_load(&g_http[i]));
    }
    srv_buf_printf(b, "# HELP openacl_http_inflight_requests Requests received and not yet answered.\n"
                      "# TYPE openacl_http_inflight_requests gauge\nopenacl_http_inflight_requests %ld\n",
                   srv_http_inflight());
    static const struct {
        const char *name, *type, *help;
    } fam[] = {
        {"openacl_model_ready", "gauge", "1 when the model is loaded and serving."},
        {"openacl_inference_requests_total", "counter",
         "Inference requests that reached a model, by outcome (rejected: queue full)."},
        {"openacl_inference_queue_depth", "gauge",
         "Requests waiting for an instance: queued, or held for the batching window."},
        {"openacl_inference_request_duration_seconds", "histogram",
         "Inference request latency, body received to response queued."},
        {"openacl_inference_queue_duration_seconds", "histogram", "Time a request waited in the queue."},
        {"openacl_inference_compute_duration_seconds", "histogram", "One model execution (a whole batch)."},
        {"openacl_inference_batch_size", "histogram", "Rows (requests' batch dims summed) per model execution."},
        {"openacl_inference_padded_rows_total", "counter", "Zero rows added to reach a batch gear."},
    };
    for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
        srv_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", fam[f].name, fam[f].help, fam[f].name, fam[f].type);
        for (srv_model *m = srv_repo_first(); m; m = srv_model_next(m)) {
            const char *n = srv_model_name(m);   /* repository names need no escaping */
            srv_model_metrics *mm = srv_model_get_metrics(m);
            switch (f) {
            case 0: {
                srv_model_info info;
                srv_model_get_info(m, &info);
                srv_buf_printf(b, "%s{model=\"%s\"} %d\n", fam[f].name, n, info.state == SRV_READY);
                break;
            }
            case 1:
                for (int o = 0; o < SRV_OUT_COUNT; o++)
                    srv_buf_printf(b, "%s{model=\"%s\",outcome=\"%s\"} %llu\n", fam[f].name, n, k_outcome[o],
                                   atomic_load(&mm->outcome[o]));
                break;
            case 2: srv_buf_printf(b, "%s{model=\"%s\"} %lld\n", fam[f].name, n, atomic_load(&mm->queue_depth)); break;
            case 3: render_hist(b, fam[f].name, n, &mm->request_latency); break;
            case 4: render_hist(b, fam[f].name, n, &mm->queue_latency); break;
            case 5: render_hist(b, fam[f].name, n, &mm->compute_latency); break;
            case 6: {
                unsigned long long cum = 0;
                for (int i = 0; i <= SRV_BATCH_BUCKETS; i++) {
                    cum += atomic_load(&mm->batch_rows[i]);
                    if (i < SRV_BATCH_BUCKETS)
                        srv_buf_printf(b, "%s_bucket{model=\"%s\",le=\"%lld\"} %llu\n", fam[f].name, n,
                                       (long long)k_batch_le[i], cum);
                    else
                        srv_buf_printf(b, "%s_bucket{model=\"%s\",le=\"+Inf\"} %llu\n", fam[f].name, n, cum);
                }
                srv_buf_printf(b, "%s_sum{model=\"%s\"} %llu\n%s_count{model=\"%s\"} %llu\n", fam[f].name, n,
                               atomic_load(&mm->batch_rows_sum), fam[f].name, n, atomic_load(&mm->executions));
                break;
            }
            default:
                srv_buf_printf(b, "%s{model=\"%s\"} %llu\n", fam[f].name, n, atomic_load(&mm->padded_rows));
                break;
            }
        }
    }
}
