/* Mutation fuzzing of the load path (importer, passes, kernel init/infer,
 * folding, planning) and of runs of whatever still loads: every model under
 * a folder tree gets N deterministic mutations (bit flips, random and 0xff
 * bytes); each is loaded and, when it loads with static inputs, run on zeros.
 * Refusals are expected; a crash or sanitizer report fails the test.
 *
 * usage: engine_fuzz [--iters N] [--seed S] [--save FILE] MODEL.onnx...
 * --save writes each case before it is tried, so a crash leaves its input. */
#include "engine/engine.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *aclGetRecentErrMsg(void);

/* Under AddressSanitizer a mutated model may declare a huge arena: let the
 * allocation fail (the engine reports it) instead of aborting the process. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static void *alloc_out(void *c, size_t n)
{
    (void)c;
    return n > (1u << 28) ? NULL : malloc(n ? n : 1);
}

static unsigned rng;
static unsigned rnd(void) { rng = rng * 1103515245u + 12345u; return rng >> 8; }

int main(int argc, char **argv)
{
    int iters = 20, nmodels = 0;
    const char *save = NULL;
    rng = 7;
    long loads = 0, accepted = 0, runs = 0, runs_ok = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--iters") && a + 1 < argc) { iters = atoi(argv[++a]); continue; }
        if (!strcmp(argv[a], "--seed") && a + 1 < argc) { rng = (unsigned)atoi(argv[++a]); continue; }
        if (!strcmp(argv[a], "--save") && a + 1 < argc) { save = argv[++a]; continue; }
        FILE *f = fopen(argv[a], "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        if (n <= 0) { fclose(f); continue; }
        unsigned char *orig = malloc((size_t)n), *m = malloc((size_t)n);
        if (fread(orig, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(orig); free(m); continue; }
        fclose(f);
        nmodels++;
        for (int it = 0; it < iters; it++) {
            memcpy(m, orig, (size_t)n);
            int k = 1 + (int)(rnd() % 4);
            for (int j = 0; j < k; j++) {
                size_t p = rnd() % (size_t)n;
                switch (rnd() % 3) {
                case 0: m[p] ^= (unsigned char)(1u << (rnd() % 8)); break;
                case 1: m[p] = (unsigned char)rnd(); break;
                default: m[p] = 0xff;
                }
            }
            if (save) {
                FILE *sf = fopen(save, "wb");
                if (sf) { fwrite(m, 1, (size_t)n, sf); fclose(sf); }
            }
            eng_model *e = NULL;
            eng_opts o = { .threads = 1 };
            loads++;
            int rc = eng_load(m, (size_t)n, &o, &e);
            aclGetRecentErrMsg();
            if (rc) continue;
            accepted++;
            int ni = eng_num_inputs(e), no = eng_num_outputs(e), ok = ni <= 64 && no <= 64;
            k_tensor in[64], out[64];
            memset(in, 0, sizeof in);
            memset(out, 0, sizeof out);
            for (int i = 0; ok && i < ni; i++) {
                const eng_io *io = eng_input(e, i);
                if (g_is_container(io->dtype) || !g_shape_known(&io->shape) || io->nbytes > (1u << 24)) {
                    ok = 0;   /* containers need k_seq values; zeros only fit tensors */
                    break;
                }
                in[i].dtype = io->dtype;
                in[i].shape = io->shape;
                in[i].nbytes = io->nbytes;
                in[i].data = calloc(1, io->nbytes + 1);
            }
            if (ok) {
                runs++;
                if (eng_run(e, NULL, in, ni, out, no, alloc_out, NULL) == 0) runs_ok++;
                aclGetRecentErrMsg();
                for (int i = 0; i < no; i++) k_value_free(&out[i]);   /* containers too */
            }
            for (int i = 0; i < ni && i < 64; i++) free(in[i].data);
            eng_free(e);
        }
        free(orig);
        free(m);
    }
    printf("%d models, %ld mutated loads, %ld accepted, %ld runs (%ld succeeded)\n", nmodels, loads,
           accepted, runs, runs_ok);
    return nmodels ? 0 : 77;
}
