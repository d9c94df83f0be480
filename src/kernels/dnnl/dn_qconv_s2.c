/* A stride-2 1x1 int8 convolution (ResNet's downsample layers) runs as a
 * stride-1 1x1 convolution on the input taken at every second row and
 * column (the float32 Conv does the same on small planes, dn_conv.c
 * sub_build, with this file's window test and gather): output pixel (i, j)
 * reads input pixel (2i, 2j) alone, so the product is the same integer sum
 * term for term and the outputs are the same bytes. On a small output
 * plane oneDNN 2.6 runs the stride-1 form
 * faster (its 1x1 kernels walk the plane as one contiguous run of pixels);
 * the copy here is a quarter of the input's pixels. dn_qconv.c decides,
 * keeps the weights in the stride-2 primitive's packed format (so the
 * switch leaves the packed form, and the kernel ABI, alone) and falls back
 * to the stride-2 primitive when oneDNN has no implementation but its
 * reference one for the stride-1 form. */
#include "kernels/dnnl/dn_qconv_s2.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Output planes of at most this many pixels by default. Measured (ResNet-50
 * int8, one thread, CPU-time profiles, three runs each way): layer4.0's
 * 1024 -> 2048 layer on 14x14 -> 7x7 0.49-0.53 -> 0.45-0.49 ms; layer3.0's
 * 512 -> 1024 on 28x28 -> 14x14 no change (0.36-0.38 both ways); layer2.0's
 * 256 -> 512 on 56x56 -> 28x28 0.37-0.39 -> 0.38-0.41 ms (the copy costs
 * what the stride-1 blocking saves). */
#define DN_QCONV_S2_PIX 64

int dn_s2_window(const nn_win *w)
{
    if (w->nsp != 2) return 0;
    for (int i = 0; i < 2; i++)
        if (w->k[i] != 1 || w->s[i] != 2 || w->d[i] != 1 || w->pb[i] != 0 || w->pe[i] != 0) return 0;
    return 1;
}

int dn_conv_s2_off(void)
{
    const char *e = getenv("OPENACL_CONV_S2");
    return e && !strcmp(e, "0");
}

int dn_qconv_s2_applies(const nn_win *w, int64_t G, int64_t opix)
{
    const char *e = getenv("OPENACL_QCONV_S2");
    if ((e && !strcmp(e, "0")) || G != 1 || (opix > DN_QCONV_S2_PIX && !(e && !strcmp(e, "1")))) return 0;
    return dn_s2_window(w);
}

void dn_qconv_s2_gather(const uint8_t *x, uint8_t *y, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH,
                        int64_t OW, int nthr)
{
    int64_t rows = N * OH;
    size_t c = (size_t)C;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1 && rows * OW * C >= 65536)
    for (int64_t r = 0; r < rows; r++) {
        int64_t nb = r / OH, i = r % OH;
        const uint8_t *src = x + ((size_t)(nb * H + 2 * i) * (size_t)W) * c;
        uint8_t *dst = y + (size_t)r * (size_t)OW * c;
        for (int64_t j = 0; j < OW; j++) memcpy(dst + (size_t)j * c, src + (size_t)(2 * j) * c, c);
    }
}
