/* See small_net.h. */
#include "small_net.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onnx_writer.h"

void sn_weights_init(sn_weights *wt, unsigned seed)
{
    unsigned s = seed * 2654435761u + 12345u;
    float *all[4] = { wt->w, wt->b, wt->c, wt->m };
    size_t cnt[4] = { 54, 3, 3, 20 };
    for (int a = 0; a < 4; a++)
        for (size_t i = 0; i < cnt[a]; i++) {
            s = s * 1103515245u + 12345u;
            all[a][i] = (float)((int)((s >> 10) % 2001) - 1000) / 1000.0f;
        }
}

static void ints_attr(pb *attr, const char *name, const int64_t *v, int n)
{
    pb_str(attr, 1, name);
    for (int i = 0; i < n; i++) pb_int(attr, 8, v[i]);
    pb_int(attr, 20, 7);   /* AttributeProto.INTS */
}

int sn_write_model(const char *dir, const char *name, const sn_weights *wt)
{
    char path[4096], wname[512];
    snprintf(wname, sizeof wname, "%s.w.bin", name);
    snprintf(path, sizeof path, "%s/%s", dir, wname);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(wt->w, sizeof wt->w, 1, f) == 1;
    if (fclose(f) || !ok) return -1;

    static const int64_t dx[4] = { 1, 2, 4, 4 }, dw[4] = { 3, 2, 3, 3 }, db[1] = { 3 }, dc[3] = { 3, 1, 1 },
                         dm[2] = { 4, 5 }, dy[4] = { 1, 3, 4, 5 }, pads[4] = { 1, 1, 1, 1 };
    pb g = { 0 }, t = { 0 }, attr = { 0 }, model = { 0 };
    const char *conv_in[] = { "x", "W", "B", NULL }, *conv_out[] = { "c", NULL };
    const char *relu_in[] = { "c", NULL }, *relu_out[] = { "r", NULL };
    const char *add_in[] = { "r", "C", NULL }, *add_out[] = { "a", NULL };
    const char *mm_in[] = { "a", "M", NULL }, *mm_out[] = { "y", NULL };
    pb_str(&g, 2, name);
    ints_attr(&attr, "pads", pads, 4);
    onnx_node_attr(&g, "Conv", "conv", conv_in, conv_out, &attr);
    onnx_node(&g, "Relu", "relu", relu_in, relu_out);
    onnx_node(&g, "Add", "add", add_in, add_out);
    onnx_node(&g, "MatMul", "matmul", mm_in, mm_out);
    onnx_tensor(&t, "W", ONNX_FLOAT, 4, dw, NULL, 0);
    onnx_external(&t, wname, NULL, NULL);
    pb_msg(&g, 5, &t);
    onnx_tensor(&t, "B", ONNX_FLOAT, 1, db, wt->b, sizeof wt->b);
    pb_msg(&g, 5, &t);
    onnx_tensor(&t, "C", ONNX_FLOAT, 3, dc, wt->c, sizeof wt->c);
    pb_msg(&g, 5, &t);
    onnx_tensor(&t, "M", ONNX_FLOAT, 2, dm, wt->m, sizeof wt->m);
    pb_msg(&g, 5, &t);
    onnx_value_info(&g, 11, "x", ONNX_FLOAT, 4, dx);
    onnx_value_info(&g, 12, "y", ONNX_FLOAT, 4, dy);
    onnx_model(&model, &g, 13);
    snprintf(path, sizeof path, "%s/%s.onnx", dir, name);
    f = fopen(path, "wb");
    if (!f) { pb_free(&model); return -1; }
    ok = fwrite(model.p, model.n, 1, f) == 1;
    pb_free(&model);
    return fclose(f) || !ok ? -1 : 0;
}

void sn_reference(const sn_weights *wt, const float *x, float *y)
{
    float a[3][4][4];
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double s = wt->b[o];
                for (int ci = 0; ci < 2; ci++)
                    for (int ki = 0; ki < 3; ki++)
                        for (int kj = 0; kj < 3; kj++) {
                            int yi = i + ki - 1, xj = j + kj - 1;
                            if (yi < 0 || yi >= 4 || xj < 0 || xj >= 4) continue;
                            s += (double)wt->w[((o * 2 + ci) * 3 + ki) * 3 + kj] * x[(ci * 4 + yi) * 4 + xj];
                        }
                a[o][i][j] = (float)(s > 0 ? s : 0) + wt->c[o];
            }
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 5; k++) {
                double s = 0;
                for (int j = 0; j < 4; j++) s += (double)a[o][i][j] * wt->m[j * 5 + k];
                y[(o * 4 + i) * 5 + k] = (float)s;
            }
}

float sn_max_err(const float *a, const float *b, size_t n)
{
    float e = 0;
    for (size_t i = 0; i < n; i++) {
        float d = fabsf(a[i] - b[i]) / fmaxf(1.0f, fabsf(b[i]));
        if (!(d <= e)) e = d;   /* NaN counts as a huge error */
        if (isnan(d)) return INFINITY;
    }
    return e;
}
