/* The Winograd rule of the oneDNN Conv kernels (dn_conv.c): whether and
 * which of oneDNN's Winograd kernels a 3x3 stride-1 float32 layer takes,
 * and the switches that change it (all part of the kernel ABI: Winograd
 * weights have their own packed formats, dn_backend.c). */
#include "kernels/dnnl/dn_common.h"
#include <stdlib.h>
#include <string.h>

/* 3x3 stride-1 float32 convolutions through oneDNN's Winograd kernels
 * (F(4x4,3x3); F(2x2,3x3) on small planes), where they pay (dn_wino_kind).
 * On 28x28 planes and more F(4x4,3x3) takes 40 % less time than the direct
 * kernel even with the reorders to and from the blocked layout it needs
 * (ResNet-50 at 1 thread: 28x28 layers 1.02 -> 0.59 ms, 56x56 layers
 * faster too), while on 14x14 planes it is a third slower (1.0 -> 1.4 ms):
 * there F(2x2,3x3) takes over. ResNet-50 fp32 end to end on the Zen 5
 * benchmark VM: -7 % at 1 thread, -1 % at 2 (where 14x14 planes included
 * were level at 1 thread).
 * OPENACL_WINOGRAD=0 turns it off. Part of the compiled-model kernel ABI
 * (Winograd weights have their own packed format). Read per load. */
int dn_winograd(void)
{
    const char *e = getenv("OPENACL_WINOGRAD");
    return !(e && !strcmp(e, "0"));
}

/* Whether a C -> M channel 3x3 layer with an oh x ow output plane suits the
 * Winograd kernel. What its transformed products save per output pixel
 * grows with C x M, what its transforms and reorders cost with C + M, and
 * one transformed weight set serves all the output tiles (4x4 pixels each).
 * So it takes at least 7x7 tiles (planes of 25x25 to 28x28 and more) and
 * C x M / (C + M) of at least 24. Measured at 1 thread on the benchmark
 * host (Intel Xeon, AVX-512), Winograd with its reorders against the direct
 * kernel: SqueezeNet's 27x27 layers 48 -> 192 0.70 -> 0.40 ms, 64 -> 256
 * 1.31 -> 0.80; GoogLeNet's 32 -> 96 at 28x28 (ratio 24) 0.27 -> 0.19;
 * level at 32 -> 64 (21) on Inception-v3's 147x147 plane and SqueezeNet's
 * 16 -> 64 at 54x54 (13); slower for Inception-v3's 32 -> 32 at 147x147
 * (16): 3.85 ms against 2.46. OPENACL_WINO_PLANE=1 restores the earlier rule
 * (a 28x28 plane, any channel count); read per load. */
int dn_wino_plane(void)
{
    const char *e = getenv("OPENACL_WINO_PLANE");
    return e && !strcmp(e, "1");
}

/* OPENACL_WINO_SMALL=0 (read per load): planes under 7x7 tiles of 4x4
 * pixels stay on the direct kernel, as before F(2x2,3x3) took those of
 * 9x9 to 24x24 (dn_wino_kind). */
int dn_wino_small(void)
{
    const char *e = getenv("OPENACL_WINO_SMALL");
    return !(e && !strcmp(e, "0"));
}

/* Which Winograd kernel a C -> M 3x3 stride-1 layer with an oh x ow output
 * takes: DN_WINO_4X3, DN_WINO_2X3 or 0 (the direct kernel). Planes under
 * 7x7 tiles of 4x4 pixels (7x7 to 24x24) have too few tiles for F(4x4,3x3)
 * to pay back its transforms, but F(2x2,3x3), whose tiles are 2x2 pixels
 * and whose transforms cost a quarter as much, still saves 2.25x of the
 * products where the channel product is large (C x M / (C + M) of at least
 * 48: the weights, not the plane, dominate). Measured at 1 thread on the
 * Intel benchmark host, with the reorders to and from the blocked layout,
 * against oneDNN's brgemm kernel: Inception-v3's 448 -> 384 at 8x8 0.90 ->
 * 0.54 ms, ResNet-18's 256 -> 256 at 14x14 0.99 -> 0.72, AlexNet's 13x13
 * layers 1.07-1.58 -> 0.65-0.91 (4x3: 1.1-1.7), SqueezeNet's 64 -> 256 at
 * 13x13 0.29 -> 0.22, ResNet-18's 512 -> 512 at 7x7 1.12 -> 0.87.
 * Inside the models the 7x7 and 8x8 planes (16 tiles of 2x2) lost that
 * lead: per-node p25 at 1 thread with the rule against OPENACL_WINO_SMALL=0,
 * Inception-v3's two 448 -> 384 8x8 layers 2.44 against 1.53 ms,
 * GoogLeNet's 7x7 ones 0.39 / 0.54 against 0.34 / 0.47, ResNet-18's and
 * Wide-ResNet-50-2's level, while every 14x14 layer won (Wide-ResNet's
 * 512 -> 512 3.7 against 5.6 ms; GoogLeNet's 0.39-0.80 against 0.54-1.07).
 * So F(2x2,3x3) takes planes of at least 5x5 such tiles (9x9 and more). */
int dn_wino_kind(int64_t C, int64_t M, int64_t oh, int64_t ow)
{
    if (dn_wino_plane()) return oh * ow >= 28 * 28 ? DN_WINO_4X3 : 0;
    if (((oh + 3) / 4) * ((ow + 3) / 4) >= 49) return C * M >= 24 * (C + M) ? DN_WINO_4X3 : 0;
    return dn_wino_small() && oh >= 9 && ow >= 9 && C * M >= 48 * (C + M) ? DN_WINO_2X3 : 0;
}
