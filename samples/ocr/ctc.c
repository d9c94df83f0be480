/* The recogniser's character set and greedy CTC decoding. PaddleOCR's
 * class list is: blank, the dictionary file's lines, then a space. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocr.h"

int ocr_dict_load(const char *path, ocr_dict *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    /* Room for the text, its terminator and the blank/space entries. */
    d->blob = malloc((size_t)(size > 0 ? size : 0) + 4);
    if (!d->blob || (size > 0 && fread(d->blob, 1, (size_t)size, f) != (size_t)size)) {
        fclose(f);
        free(d->blob);
        d->blob = NULL;
        snprintf(err, errlen, "%s: cannot read", path);
        return -1;
    }
    fclose(f);
    char *text = d->blob;
    text[size] = '\0';
    int lines = 1;
    for (long i = 0; i < size; i++)
        lines += text[i] == '\n';
    d->sym = malloc(sizeof(char *) * (size_t)(lines + 2));
    if (!d->sym) {
        ocr_dict_free(d);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    char *blank = text + size + 1, *space = text + size + 2;
    blank[0] = '\0';
    space[0] = ' ';
    space[1] = '\0';
    d->sym[d->n++] = blank;
    for (char *p = text; p < text + size;) {
        char *nl = memchr(p, '\n', (size_t)(text + size - p));
        char *end = nl ? nl : text + size;
        if (end > p && end[-1] == '\r')
            end[-1] = '\0';
        *end = '\0';
        d->sym[d->n++] = p;
        p = end + 1;
    }
    d->sym[d->n++] = space;
    return 0;
}

void ocr_dict_free(ocr_dict *d)
{
    free(d->sym);
    free(d->blob);
    memset(d, 0, sizeof *d);
}

char *ocr_ctc_decode(const ocr_dict *d, const float *probs, int steps, int classes, float *score)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    double sum = 0;
    int kept = 0, prev = -1;
    for (int t = 0; t < steps; t++) {
        const float *row = probs + (size_t)t * classes;
        int best = 0;
        for (int c = 1; c < classes; c++)
            if (row[c] > row[best])
                best = c;
        int keep = best != 0 && best != prev;
        prev = best;
        if (!keep)
            continue;
        sum += row[best];
        kept++;
        const char *sym = best < d->n ? d->sym[best] : "?";
        size_t sl = strlen(sym);
        if (len + sl + 1 > cap) {
            while (len + sl + 1 > cap)
                cap *= 2;
            char *ns = realloc(s, cap);
            if (!ns) {
                free(s);
                return NULL;
            }
            s = ns;
        }
        memcpy(s + len, sym, sl + 1);
        len += sl;
    }
    *score = kept ? (float)(sum / kept) : 0.0f;
    return s;
}
