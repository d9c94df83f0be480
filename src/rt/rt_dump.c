/* The `dump` section of the aclInit JSON and of aclmdlSetDump's file, and
 * the dump configuration in force (what model loads attach). The section's
 * keys are CANN's; anything else is refused by name, so a misspelt key
 * never silently turns the dump off. With a dump root configured
 * (openacl.dump_root or OPENACL_DUMP_ROOT) dump_path must lie inside it,
 * after symlinks are resolved and with no ".." component. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "rt/rt_priv.h"
#include "rt/rt_internal.h"
#include "engine/eng_dump.h"

static pthread_mutex_t g_dump_lock = PTHREAD_MUTEX_INITIALIZER;
static eng_dump_cfg *g_dump;

#define DUMP_FAIL(...) acl_fail(ACL_ERROR_INVALID_DUMP_CONFIG, __VA_ARGS__)

static int has_dotdot(const char *p)
{
    for (const char *s = p; (s = strstr(s, "..")); s += 2)
        if ((s == p || s[-1] == '/') && (s[2] == 0 || s[2] == '/')) return 1;
    return 0;
}

/* Checks dump_path and stores its resolved form in c->path. */
static int dump_check_path(const char *api, const char *path, const char *root, eng_dump_cfg *c)
{
    if (!*path) return DUMP_FAIL("%s: dump.dump_path is empty", api);
    if (root && *root && has_dotdot(path))
        return DUMP_FAIL("%s: dump.dump_path \"%s\" has a \"..\" component, which a dump root (\"%s\") "
                         "does not allow", api, path, root);
    char real[PATH_MAX], rroot[PATH_MAX];
    if (!realpath(path, real))
        return DUMP_FAIL("%s: dump.dump_path \"%s\": %s (the folder must exist)", api, path, strerror(errno));
    if (access(real, W_OK | X_OK))
        return DUMP_FAIL("%s: dump.dump_path \"%s\" is not a writable folder: %s", api, path, strerror(errno));
    if (root && *root) {
        if (!realpath(root, rroot))
            return DUMP_FAIL("%s: the dump root \"%s\": %s", api, root, strerror(errno));
        size_t n = strlen(rroot);
        if (strncmp(real, rroot, n) || (real[n] != '/' && real[n] != 0 && !(n == 1 && rroot[0] == '/')))
            return DUMP_FAIL("%s: dump.dump_path \"%s\" resolves to \"%s\", outside the dump root \"%s\"", api,
                             path, real, rroot);
    }
    return (c->path = strdup(real)) ? 0 : acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
}

static int dump_list_entry(const char *api, const cJSON *e, int i, eng_dump_model *m)
{
    if (!cJSON_IsObject(e)) return DUMP_FAIL("%s: dump.dump_list[%d] must be an object", api, i);
    for (const cJSON *it = e->child; it; it = it->next) {
        if (!strcmp(it->string, "model_name")) {
            if (m->name) return DUMP_FAIL("%s: dump.dump_list[%d].model_name is given twice", api, i);
            if (!cJSON_IsString(it) || !*it->valuestring)
                return DUMP_FAIL("%s: dump.dump_list[%d].model_name must be a non-empty string", api, i);
            if (!(m->name = strdup(it->valuestring))) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
        } else if (!strcmp(it->string, "layer")) {
            int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
            if (n < 0) return DUMP_FAIL("%s: dump.dump_list[%d].layer must be an array of node names", api, i);
            if (m->layers || m->n_layers) return DUMP_FAIL("%s: dump.dump_list[%d].layer is given twice", api, i);
            if (n && !(m->layers = calloc((size_t)n, sizeof *m->layers)))
                return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
            for (const cJSON *l = it->child; l; l = l->next) {
                if (!cJSON_IsString(l))
                    return DUMP_FAIL("%s: dump.dump_list[%d].layer[%d] is not a string", api, i, m->n_layers);
                if (!(m->layers[m->n_layers++] = strdup(l->valuestring)))
                    return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
            }
        } else {
            return DUMP_FAIL("%s: dump.dump_list[%d]: unknown key \"%s\" (model_name, layer)", api, i, it->string);
        }
    }
    if (!m->name) return DUMP_FAIL("%s: dump.dump_list[%d] has no model_name", api, i);
    return 0;
}

static int dump_list(const char *api, const cJSON *it, eng_dump_cfg *c)
{
    int n = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
    if (n < 0) return DUMP_FAIL("%s: dump.dump_list must be an array", api);
    if (c->models || c->n_models) return DUMP_FAIL("%s: dump.dump_list is given twice", api);
    if (n && !(c->models = calloc((size_t)n, sizeof *c->models)))
        return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    int rc = 0;
    for (const cJSON *e = it->child; e && !rc; e = e->next) {
        /* counted before it is filled: a half-filled entry is freed with the rest */
        eng_dump_model *m = &c->models[c->n_models++];
        rc = dump_list_entry(api, e, c->n_models - 1, m);
    }
    return rc;
}

static int on_off(const cJSON *it, int *v)
{
    if (!cJSON_IsString(it)) return -1;
    if (!strcasecmp(it->valuestring, "on")) *v = 1;
    else if (!strcasecmp(it->valuestring, "off")) *v = 0;
    else return -1;
    return 0;
}

static int dump_key(const char *api, const cJSON *it, eng_dump_cfg *c, const char **path)
{
    const char *k = it->string;
    int v = 0;
    if (!strcmp(k, "dump_path")) {
        if (!cJSON_IsString(it)) return DUMP_FAIL("%s: dump.dump_path must be a string", api);
        *path = it->valuestring;
    } else if (!strcmp(k, "dump_mode")) {
        const char *s = cJSON_IsString(it) ? it->valuestring : "";
        c->mode = !strcmp(s, "input") ? ENG_DUMP_INPUT : !strcmp(s, "output") ? ENG_DUMP_OUTPUT :
                  !strcmp(s, "all") ? ENG_DUMP_ALL : 0;
        if (!c->mode) return DUMP_FAIL("%s: dump.dump_mode must be \"input\", \"output\" or \"all\"", api);
    } else if (!strcmp(k, "dump_list")) {
        return dump_list(api, it, c);
    } else if (!strcmp(k, "dump_op_switch")) {
        if (on_off(it, &c->op_switch)) return DUMP_FAIL("%s: dump.dump_op_switch must be \"on\" or \"off\"", api);
    } else if (!strcmp(k, "dump_debug")) {
        if (on_off(it, &v) || v)
            return DUMP_FAIL("%s: dump.dump_debug (overflow detection) can only be \"off\" in openacl", api);
    } else if (!strcmp(k, "dump_data")) {
        if (!cJSON_IsString(it) || strcmp(it->valuestring, "tensor"))
            return DUMP_FAIL("%s: dump.dump_data can only be \"tensor\" in openacl", api);
    } else {
        return DUMP_FAIL("%s: unknown key dump.%s (dump_path, dump_mode, dump_list, dump_op_switch, "
                         "dump_data, dump_debug)", api, k);
    }
    return 0;
}

int rt_dump_parse(const char *api, const cJSON *sec, const char *root, eng_dump_cfg **out)
{
    *out = NULL;
    if (!cJSON_IsObject(sec)) return DUMP_FAIL("%s: \"dump\" must be an object", api);
    if (!root || !*root) root = getenv("OPENACL_DUMP_ROOT");
    eng_dump_cfg *c = eng_dump_cfg_new();
    if (!c) return acl_fail(ACL_ERROR_BAD_ALLOC, "%s: out of memory", api);
    c->mode = ENG_DUMP_OUTPUT;   /* CANN's default */
    const char *path = NULL;
    int rc = 0;
    for (const cJSON *it = sec->child; it && !rc; it = it->next) rc = dump_key(api, it, c, &path);
    /* CANN: an empty dump_list dumps no model (dump_op_switch is for single
     * operators, which openacl does not run): the dump is off */
    if (!rc && !path && c->n_models) rc = DUMP_FAIL("%s: the dump section has no dump_path", api);
    if (!rc && path) rc = dump_check_path(api, path, root, c);
    if (rc || !c->n_models) { eng_dump_cfg_unref(c); return rc; }
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(c->time, sizeof c->time, "%Y%m%d%H%M%S", &tm);
    *out = c;
    return 0;
}

void rt_dump_install(eng_dump_cfg *c)
{
    pthread_mutex_lock(&g_dump_lock);
    eng_dump_cfg *old = g_dump;
    if (old) atomic_store((atomic_int *)&old->stopped, 1);
    g_dump = c;
    pthread_mutex_unlock(&g_dump_lock);
    eng_dump_cfg_unref(old);
}

eng_dump_cfg *rt_dump_current(void)
{
    pthread_mutex_lock(&g_dump_lock);
    eng_dump_cfg *c = g_dump;
    eng_dump_cfg_ref(c);
    pthread_mutex_unlock(&g_dump_lock);
    return c;
}

int rt_dump_parse_file(const char *api, const char *path, eng_dump_cfg **out, int *has_section)
{
    *out = NULL;
    *has_section = 0;
    cJSON *root = NULL;
    int rc = rt_config_file_json(api, path, &root);
    if (rc) return rc;
    const cJSON *d = root ? cJSON_GetObjectItemCaseSensitive(root, "dump") : NULL;
    const cJSON *oa = root ? cJSON_GetObjectItemCaseSensitive(root, "openacl") : NULL;
    const cJSON *r = oa ? cJSON_GetObjectItemCaseSensitive(oa, "dump_root") : NULL;
    *has_section = d != NULL;
    if (d) rc = rt_dump_parse(api, d, cJSON_IsString(r) ? r->valuestring : NULL, out);
    cJSON_Delete(root);
    return rc;
}
