/* openacl-server: serves a model repository over the Open Inference Protocol
 * (KServe v2 REST). Flags, AscendCL set-up, start-up loads, and the SIGTERM
 * drain: stop accepting, let requests in flight finish, unload, exit 0. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "acl/acl.h"
#include "srv.h"

#ifndef OPENACL_SERVER_VERSION
#define OPENACL_SERVER_VERSION "0"
#endif

static const char k_usage[] =
    "usage: openacl-server --model-repository DIR [options]\n"
    "\n"
    "Serves the models of DIR (<model>/<version>/model.om or model.onnx, optional\n"
    "<model>/config.json) over the Open Inference Protocol (KServe v2 REST).\n"
    "\n"
    "  --host ADDR             numeric address to listen on (default 0.0.0.0)\n"
    "  --port N                port (default 8000; 0: any free port)\n"
    "  --port-file FILE        write the bound port to FILE once listening\n"
    "  --http-threads N        HTTP threads (default 4)\n"
    "  --max-connections N     concurrent connections (default 4096)\n"
    "  --idle-timeout S        close a connection idle or stalled for S seconds,\n"
    "                          also while sending headers or a body (default 30)\n"
    "  --max-body-mb N         largest request body (default 64)\n"
    "  --max-header-kb N       largest request line + headers (default 32)\n"
    "  --model-control-mode M  none (default): load every model at start;\n"
    "                          explicit: load only --load-model ones (and via the API)\n"
    "  --load-model NAME       load NAME at start (repeatable; explicit mode)\n"
    "  --device N              default device for model instances (default 0)\n"
    "  --queue-size N          default per-model queue bound (default 1024)\n"
    "  --timeout-ms N          default per-request timeout (default 30000)\n"
    "  --drain-timeout-ms N    on SIGTERM, wait at most N ms for requests in\n"
    "                          flight (default 30000)\n"
    "  --acl-config FILE       aclInit JSON configuration\n"
    "  --access-log DEST       '-' stderr (default), 'off', or a file (JSON lines)\n"
    "  --verbose               log model loads\n"
    "  --version, --help\n";

static int parse_long(const char *flag, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || end == v || x < lo || x > hi) {
        fprintf(stderr, "openacl-server: %s needs an integer from %ld to %ld\n", flag, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int main(int argc, char **argv)
{
    srv_http_opts ho = {"0.0.0.0", 8000, 4, 4096, 30, 64u << 20, 32u << 10, NULL};
    const char *repo = NULL, *port_file = NULL, *acl_cfg = NULL;
    const char *loads[64];
    int n_loads = 0, explicit_mode = 0;
    long drain_ms = 30000, v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NUM(flag, lo, hi, dst)                                                                                \
    if (!strcmp(a, flag)) {                                                                                   \
        if (parse_long(flag, val, lo, hi, &v))                                                                \
            return 2;                                                                                         \
        dst;                                                                                                  \
        i++;                                                                                                  \
        continue;                                                                                             \
    }
#define STR(flag, dst)                                                                                        \
    if (!strcmp(a, flag)) {                                                                                   \
        if (!val) {                                                                                           \
            fprintf(stderr, "openacl-server: %s needs a value\n", flag);                                      \
            return 2;                                                                                         \
        }                                                                                                     \
        dst = val;                                                                                            \
        i++;                                                                                                  \
        continue;                                                                                             \
    }
        STR("--model-repository", repo)
        STR("--host", ho.host)
        STR("--port-file", port_file)
        STR("--acl-config", acl_cfg)
        STR("--access-log", ho.access_log)
        NUM("--port", 0, 65535, ho.port = (int)v)
        NUM("--http-threads", 1, 64, ho.threads = (int)v)
        NUM("--max-connections", 1, 1000000, ho.max_connections = (unsigned)v)
        NUM("--idle-timeout", 1, 3600, ho.idle_timeout_s = (unsigned)v)
        NUM("--max-body-mb", 1, 4096, ho.max_body = (size_t)v << 20)
        NUM("--max-header-kb", 4, 1024, ho.max_header = (size_t)v << 10)
        NUM("--device", 0, 1023, g_srv.default_device = (int32_t)v)
        NUM("--queue-size", 1, 1 << 20, g_srv.default_queue = v)
        NUM("--timeout-ms", 1, 3600000, g_srv.default_timeout_ms = v)
        NUM("--drain-timeout-ms", 0, 3600000, drain_ms = v)
        if (!strcmp(a, "--load-model") && val) {
            if (n_loads == (int)(sizeof loads / sizeof loads[0])) {
                fprintf(stderr, "openacl-server: at most %d --load-model\n", n_loads);
                return 2;
            }
            loads[n_loads++] = val;
            i++;
            continue;
        }
        if (!strcmp(a, "--model-control-mode") && val && (!strcmp(val, "none") || !strcmp(val, "explicit"))) {
            explicit_mode = !strcmp(val, "explicit");
            i++;
            continue;
        }
        if (!strcmp(a, "--verbose")) {
            g_srv.verbose = 1;
            continue;
        }
        if (!strcmp(a, "--version")) {
            printf("openacl-server %s\n", OPENACL_SERVER_VERSION);
            return 0;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(k_usage, stdout);
            return 0;
        }
        fprintf(stderr, "openacl-server: unknown or incomplete option '%s'\n%s", a, k_usage);
        return 2;
    }
    if (!repo) {
        fprintf(stderr, "openacl-server: --model-repository is required\n%s", k_usage);
        return 2;
    }

    /* Thousands of connections need descriptors: take the hard limit. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    /* Signals are taken by sigwait in this thread only; every thread started
     * from here on inherits the mask. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    aclError rc = aclInit(acl_cfg);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "openacl-server: aclInit failed (error %d): %s\n", (int)rc, aclGetRecentErrMsg());
        return 1;
    }
    char err[512];
    if (srv_repo_open(repo, err, sizeof err)) {
        fprintf(stderr, "openacl-server: %s\n", err);
        aclFinalize();
        return 1;
    }
    int port = 0;
    if (srv_http_start(&ho, &port, err, sizeof err)) {
        fprintf(stderr, "openacl-server: %s\n", err);
        srv_repo_close();
        aclFinalize();
        return 1;
    }
    fprintf(stderr, "openacl-server %s: listening on %s:%d, repository %s\n", OPENACL_SERVER_VERSION, ho.host, port,
            repo);
    /* live now, ready once the start-up loads are done (failures included:
     * the index tells why a model is not ready) */
    int failed = 0;
    if (!explicit_mode) {
        for (srv_model *m = srv_repo_first(); m; m = srv_model_next(m))
            if (srv_model_load(srv_model_name(m), err, sizeof err) != 200) {
                fprintf(stderr, "openacl-server: %s\n", err);
                failed++;
            }
    }
    for (int i = 0; i < n_loads; i++)
        if (srv_model_load(loads[i], err, sizeof err) != 200) {
            fprintf(stderr, "openacl-server: %s\n", err);
            failed++;
        }
    srv_http_set_ready(1);
    if (port_file) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) || rename(tmp, port_file)) {
            fprintf(stderr, "openacl-server: cannot write --port-file %s\n", port_file);
            srv_http_drain(0);
            srv_repo_stop_all();
            srv_http_stop();
            srv_repo_close();
            aclFinalize();
            return 1;
        }
    }
    fprintf(stderr, "openacl-server: ready (%d model(s) failed to load)\n", failed);

    int sig = 0;
    sigwait(&sigs, &sig);
    fprintf(stderr, "openacl-server: %s: draining %ld request(s) in flight\n", sig == SIGTERM ? "SIGTERM" : "SIGINT",
            srv_http_inflight());
    srv_http_drain((int)drain_ms);
    long left = srv_http_inflight();
    srv_repo_stop_all();   /* finishes whatever is still queued */
    srv_http_drain(2000);  /* let those responses go out */
    srv_http_stop();
    srv_repo_close();
    aclFinalize();
    fprintf(stderr, "openacl-server: stopped%s\n", left ? " (drain timeout: some requests were cut short)" : "");
    return 0;
}
