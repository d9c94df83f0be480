/* The oneDNN backend as the compiled format and the compiler see it
 * (k_backend): the tag of its packed formats, part of the kernel ABI, and
 * whether it computes in bfloat16 on this CPU. */
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_gemv.h"
#include "kernels/dnnl/dn_stem.h"
#include <pthread.h>
#include <stdio.h>

static const char *isa_name(int isa)
{
    switch (isa) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return NULL;
    }
}

static char g_abi[48][40];  /* [OPENACL_NO_GEMV | OPENACL_NO_STEM << 1 | Winograd's rule << 2
                                (0 off, 1 on (default), 2 the earlier rule), + 12 with
                                OPENACL_QMM_BINARY, + 24 with OPENACL_QCONV_ZP_RT] */
static pthread_once_t g_abi_once = PTHREAD_ONCE_INIT;

static void abi_init(void)
{
    const dnnl_version_t *v = dnnl_version();
    int isa = (int)dnnl_get_effective_cpu_isa();
    const char *nm = isa_name(isa);
    char ib[24];
    if (!nm) { snprintf(ib, sizeof ib, "isa%#x", isa); nm = ib; }
    /* "p5": revision of the kernels' packed formats; bump it whenever a
     * kernel packs differently (p2: constant-B MatMuls over 3-D inputs
     * flattened to 2-D, bf16 packing; p3: one-row products packed for the
     * streamed matrix-vector loop; p4: convolutions with few input channels
     * packed for the direct loop of dn_stem.c; p5: Winograd weights for 3x3
     * layers on planes of 28x28 and more, by default; p6: Winograd by
     * output tiles and channel product, dn_conv.c; p7: int8 products with
     * runtime scales, W plain for oneDNN's gemm, dn_qmatmul.c; unpadded
     * int8 convolutions without oneDNN's zero-point compensation,
     * dn_qconv.c). The
     * switches that change packed formats follow as letters: "n"
     * OPENACL_NO_GEMV, "s" OPENACL_NO_STEM, "w" Winograd on (the default;
     * OPENACL_WINOGRAD=0 drops it), or "v" for Winograd by the earlier rule
     * (OPENACL_WINO_PLANE=1), "q" OPENACL_QMM_BINARY=1, "z"
     * OPENACL_QCONV_ZP_RT=1. At most 47
     * characters (the header's field). */
    for (int g = 0; g < 48; g++) {
        int h = g % 12;
        snprintf(g_abi[g], sizeof g_abi[g], "dnnl %d.%d.%d %s p7%s%s%s%s%s",
                 v->major, v->minor, v->patch, nm, h & 1 ? "n" : "", h & 2 ? "s" : "",
                 (h >> 2) == 1 ? "w" : (h >> 2) == 2 ? "v" : "", (g / 12) & 1 ? "q" : "",
                 g >= 24 ? "z" : "");
    }
}

static const char *dn_abi_tag(void)
{
    pthread_once(&g_abi_once, abi_init);
    /* the switches are read per load */
    int wino = dn_winograd() ? (dn_wino_plane() ? 2 : 1) : 0;
    return g_abi[((dn_gemv_disabled() ? 1 : 0) | (dn_stem_disabled() ? 2 : 0) | wino << 2) + (dn_qmm_binary() ? 12 : 0) +
                 (dn_qconv_zp_rt() ? 24 : 0)];
}

/* The ABI string (k_abi) is "openacl <version> " and this tag: at most 47
 * characters in all (the compiled header's field). */
static const k_backend k_backend_dnnl = {
    .name = "dnnl", .abi_tag = dn_abi_tag, .has_bf16 = dn_has_bf16,
};
K_REGISTER_BACKEND(k_backend_dnnl);
