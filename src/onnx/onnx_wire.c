/* The ONNX importer's work on the protobuf bytes themselves, before
 * protobuf-c sees them (core/pb.h walks the fields): the nesting pre-check
 * and the low-peak unpacking of large models. */
#include "onnx/onnx_wire.h"
#include "core/pb.h"
#include <stdlib.h>
#include <string.h>

/* ---- nesting pre-check ----
 * protobuf-c unpacks nested messages recursively, so bytes nesting graphs
 * in attributes (or types in sequence types) thousands deep would exhaust
 * the stack before any check of ours ran. This walks only the message fields
 * that can recurse, with a depth bound, before handing the bytes over. */
enum { MK_NONE = -1, MK_MODEL, MK_GRAPH, MK_NODE, MK_ATTR, MK_VINFO, MK_TYPE, MK_TSEQ, MK_TMAP,
       MK_TOPT, MK_TRAIN, MK_FUNC };

static int mk_child(int kind, uint64_t field)
{
    switch (kind) {
    case MK_MODEL: return field == 7 ? MK_GRAPH : field == 20 ? MK_TRAIN : field == 25 ? MK_FUNC : MK_NONE;
    case MK_GRAPH: return field == 1 ? MK_NODE : (field >= 11 && field <= 13) ? MK_VINFO : MK_NONE;
    case MK_NODE: return field == 5 ? MK_ATTR : MK_NONE;
    case MK_ATTR: return (field == 6 || field == 11) ? MK_GRAPH : (field == 14 || field == 15) ? MK_TYPE : MK_NONE;
    case MK_VINFO: return field == 2 ? MK_TYPE : MK_NONE;
    case MK_TYPE: return field == 4 ? MK_TSEQ : field == 5 ? MK_TMAP : field == 9 ? MK_TOPT : MK_NONE;
    case MK_TSEQ: case MK_TOPT: return field == 1 ? MK_TYPE : MK_NONE;
    case MK_TMAP: return field == 2 ? MK_TYPE : MK_NONE;
    case MK_TRAIN: return (field == 1 || field == 2) ? MK_GRAPH : MK_NONE;
    case MK_FUNC: return field == 7 ? MK_NODE : MK_NONE;
    default: return MK_NONE;
    }
}

/* 0: fine or malformed (protobuf-c will say); -1: nested too deep. */
static int pb_depth_check(const uint8_t *p, const uint8_t *end, int kind, int depth)
{
    if (depth > ONNX_WIRE_MAX_DEPTH) return -1;
    while (p < end) {
        uint64_t key;
        pb_span f;
        if (pb_read_field(&p, end, &key, &f)) return 0;
        int ck = (key & 7) == 2 ? mk_child(kind, key >> 3) : MK_NONE;
        if (ck != MK_NONE && pb_depth_check(f.p, f.p + f.n, ck, depth + 1)) return -1;
    }
    return 0;
}

int onnx_wire_depth_check(const void *buf, size_t len)
{
    return pb_depth_check(buf, (const uint8_t *)buf + len, MK_MODEL, 0);
}

/* ---- unpacking with a low peak ----
 * onnx__model_proto__unpack copies every initializer out of the buffer, so
 * a file mapping and the copies are resident together: twice the weights at
 * the peak of a load. When the caller says which bytes it no longer needs
 * (`drop`: a file mapping's pages can leave memory and would be read again
 * from the file), the model is unpacked in pieces instead: the model and
 * graph fields other than the initializers as two small messages, each
 * initializer on its own, its raw_data copied 1 MiB at a time with the
 * pages behind the copy dropped. Protobuf merges repeated occurrences of a
 * field, so a model with the graph (or a tensor with raw_data) twice, or
 * one whose non-initializer part is large (weights in Constant nodes),
 * takes the plain path. */
/* Splits one message's bytes into fields: the payloads of field `want`
 * (length-delimited) go to hits (at most max_hits; *n_hits counts all), the
 * encodings of every other field are appended to rest (when not NULL).
 * Returns -1 on a wire format it does not handle (protobuf-c will judge). */
static int pb_split(const uint8_t *p, const uint8_t *end, uint64_t want, pb_span *hits, size_t max_hits,
                    size_t *n_hits, uint8_t *rest, size_t *rest_len)
{
    *n_hits = 0;
    *rest_len = 0;
    while (p < end) {
        const uint8_t *f0 = p;
        uint64_t key;
        pb_span f;
        if (pb_read_field(&p, end, &key, &f)) return -1;
        if ((key & 7) == 2 && (key >> 3) == want) {
            if (*n_hits < max_hits) hits[*n_hits] = f;
            (*n_hits)++;
            continue;
        }
        if (rest) memcpy(rest + *rest_len, f0, (size_t)(p - f0));
        *rest_len += (size_t)(p - f0);
    }
    return 0;
}

#define LOWPEAK_RAW_MIN ((size_t)64 << 10)   /* raw_data copied by hand from this size */
#define LOWPEAK_CHUNK ((size_t)1 << 20)

/* One initializer: its fields but raw_data through protobuf-c, raw_data
 * copied by hand (pages dropped behind the copy). NULL: not valid. */
static Onnx__TensorProto *unpack_tensor_lowpeak(pb_span t, void (*drop)(void *, const void *, size_t), void *ctx,
                                                 int *oom)
{
    pb_span raw;
    size_t nraw = 0, rest_len = 0;
    if (pb_split(t.p, t.p + t.n, 9, &raw, 1, &nraw, NULL, &rest_len) || nraw != 1 || raw.n < LOWPEAK_RAW_MIN) {
        Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, t.n, t.p);
        drop(ctx, t.p, t.n);
        return tp;
    }
    uint8_t *rest = malloc(rest_len + 1);
    if (!rest) { *oom = 1; return NULL; }
    pb_split(t.p, t.p + t.n, 9, &raw, 1, &nraw, rest, &rest_len);
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, rest_len, rest);
    free(rest);
    if (!tp) return NULL;
    uint8_t *data = malloc(raw.n);
    if (!data) { onnx__tensor_proto__free_unpacked(tp, NULL); *oom = 1; return NULL; }
    for (size_t off = 0; off < raw.n; off += LOWPEAK_CHUNK) {
        size_t k = raw.n - off < LOWPEAK_CHUNK ? raw.n - off : LOWPEAK_CHUNK;
        memcpy(data + off, raw.p + off, k);
        drop(ctx, raw.p + off, k);
    }
    tp->has_raw_data = 1;   /* (the one raw_data field was split out of rest) */
    tp->raw_data.data = data;
    tp->raw_data.len = raw.n;
    return tp;
}

/* NULL with *plain 1: take the plain path; NULL with *plain 0: not a valid
 * model; NULL with *plain -1: out of memory. */
Onnx__ModelProto *onnx_wire_unpack_lowpeak(const uint8_t *buf, size_t len,
                                              void (*drop)(void *, const void *, size_t), void *ctx, int *plain)
{
    *plain = 1;
    pb_span gsp;
    size_t ng = 0, mrest = 0, grest = 0, ninit = 0;
    if (pb_split(buf, buf + len, 7, &gsp, 1, &ng, NULL, &mrest) || ng != 1) return NULL;
    if (pb_split(gsp.p, gsp.p + gsp.n, 5, NULL, 0, &ninit, NULL, &grest) || ninit == 0) return NULL;
    /* only worth it when the initializers are most of the file */
    if (mrest + grest > len / 4 && mrest + grest > ((size_t)16 << 20)) return NULL;
    *plain = 0;
    pb_span *ts = malloc(ninit * sizeof *ts);
    uint8_t *rest = malloc((mrest > grest ? mrest : grest) + 1);
    Onnx__TensorProto **tps = calloc(ninit, sizeof *tps);
    Onnx__ModelProto *mp = NULL;
    Onnx__GraphProto *gp = NULL;
    int ok = ts && rest && tps, oom = !ok;
    if (ok) {
        pb_split(buf, buf + len, 7, &gsp, 1, &ng, rest, &mrest);
        mp = onnx__model_proto__unpack(NULL, mrest, rest);
        pb_split(gsp.p, gsp.p + gsp.n, 5, ts, ninit, &ninit, rest, &grest);
        gp = mp ? onnx__graph_proto__unpack(NULL, grest, rest) : NULL;
        ok = mp && gp && !mp->graph && gp->n_initializer == 0;
    }
    for (size_t i = 0; ok && i < ninit; i++) ok = (tps[i] = unpack_tensor_lowpeak(ts[i], drop, ctx, &oom)) != NULL;
    if (ok) {
        free(gp->initializer);
        gp->initializer = tps;
        gp->n_initializer = ninit;
        mp->graph = gp;
        tps = NULL;
        gp = NULL;
    } else {
        for (size_t i = 0; tps && i < ninit; i++)
            if (tps[i]) onnx__tensor_proto__free_unpacked(tps[i], NULL);
        if (mp) onnx__model_proto__free_unpacked(mp, NULL);
        mp = NULL;
    }
    if (gp) onnx__graph_proto__free_unpacked(gp, NULL);
    free(tps);
    free(ts);
    free(rest);
    if (oom) *plain = -1;
    return mp;
}
