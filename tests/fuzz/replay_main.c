/* Replays inputs through a fuzz target without libFuzzer: every file named
 * on the command line, or every file inside a named folder, is passed to
 * LLVMFuzzerTestOneInput once. Used by the regression CTests in every build
 * (the committed crash inputs under tests/fuzz/regressions/) and handy to
 * re-run a crash under a debugger. Exit 0 when every input was replayed;
 * 77 (skip) when there was none. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); return -1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(buf);
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    fclose(f);
    printf("replay %s (%ld bytes)\n", path, n);
    fflush(stdout);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int count = 0, bad = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) { fprintf(stderr, "no such input %s\n", argv[a]); bad++; continue; }
        if (!S_ISDIR(st.st_mode)) { bad += replay_file(argv[a]) != 0; count++; continue; }
        DIR *d = opendir(argv[a]);
        if (!d) { bad++; continue; }
        char **names = NULL;
        size_t nn = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char **nx = realloc(names, (nn + 1) * sizeof *names);
            if (!nx) break;
            names = nx;
            names[nn] = malloc(strlen(argv[a]) + strlen(e->d_name) + 2);
            sprintf(names[nn], "%s/%s", argv[a], e->d_name);
            nn++;
        }
        closedir(d);
        qsort(names, nn, sizeof *names, by_name);   /* a stable order for reproducible logs */
        for (size_t i = 0; i < nn; i++) {
            if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) { bad += replay_file(names[i]) != 0; count++; }
            free(names[i]);
        }
        free(names);
    }
    printf("%d inputs replayed, %d unreadable\n", count, bad);
    return bad ? 1 : count ? 0 : 77;
}
