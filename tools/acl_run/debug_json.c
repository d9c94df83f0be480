/* --dump / --profiler (ais_bench's flags): the aclInit JSON that turns the
 * library's dump and profiler on, written to OUTPUT/acl.json so the run can
 * be repeated with --acl_json_path. The dump selects the model by its file
 * name without extension, as CANN's dump_list does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acl_run.h"

static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static int make_dir(const char *p)
{
    if (!mkdir(p, 0755) || errno == EEXIST) return 0;
    run_err("cannot create folder %s: %s", p, strerror(errno));
    return -1;
}

int run_write_debug_json(run_opts *o)
{
    if (!o->dump && !o->profiler) return 0;
    size_t n = strlen(o->output) + 32;
    char *dump = malloc(n), *prof = malloc(n), *json = malloc(n);
    char name[256];
    const char *b = strrchr(o->model, '/');
    snprintf(name, sizeof name, "%s", b ? b + 1 : o->model);
    char *dot = strrchr(name, '.');
    if (dot && dot != name) *dot = 0;
    int rc = -1;
    FILE *f = NULL;
    if (!dump || !prof || !json) { run_err("out of memory"); goto out; }
    snprintf(dump, n, "%s/dump", o->output);
    snprintf(prof, n, "%s/profiler", o->output);
    snprintf(json, n, "%s/acl.json", o->output);
    if (make_dir(o->output) || (o->dump && make_dir(dump)) || (o->profiler && make_dir(prof))) goto out;
    if (!(f = fopen(json, "w"))) { run_err("cannot write %s: %s", json, strerror(errno)); goto out; }
    fputs("{", f);
    if (o->dump) {
        fputs("\n  \"dump\": {\"dump_path\": ", f);
        put_str(f, dump);
        fputs(", \"dump_mode\": \"output\", \"dump_list\": [{\"model_name\": ", f);
        put_str(f, name);
        fputs("}]}", f);
    }
    if (o->profiler) {
        fprintf(f, "%s\n  \"profiler\": {\"switch\": \"on\", \"output\": ", o->dump ? "," : "");
        put_str(f, prof);
        fputs("}", f);
    }
    fputs("\n}\n", f);
    if (fclose(f)) { f = NULL; run_err("writing %s failed", json); goto out; }
    f = NULL;
    o->gen_acl_json = json;
    o->acl_json_path = json;
    json = NULL;
    rc = 0;
out:
    if (f) fclose(f);
    free(dump);
    free(prof);
    free(json);
    return rc;
}
