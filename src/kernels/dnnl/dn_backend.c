/* The oneDNN backend as the compiled format and the compiler see it
 * (k_backend): the tag of its packed formats, part of the kernel ABI, and
 * whether it computes in bfloat16 on this CPU. */
#include "kernels/dnnl/dn_common.h"
#include "kernels/dnnl/dn_conv_phase.h"
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

static char g_base[32];   /* "dnnl <version> <isa>" */
static pthread_once_t g_abi_once = PTHREAD_ONCE_INIT;

static void abi_init(void)
{
    const dnnl_version_t *v = dnnl_version();
    int isa = (int)dnnl_get_effective_cpu_isa();
    const char *nm = isa_name(isa);
    char ib[24];
    if (!nm) { snprintf(ib, sizeof ib, "isa%#x", isa); nm = ib; }
    snprintf(g_base, sizeof g_base, "dnnl %d.%d.%d %s", v->major, v->minor, v->patch, nm);
}

/* "p11": revision of the kernels' packed formats; bump it whenever a kernel
 * packs differently (p2: constant-B MatMuls over 3-D inputs flattened to
 * 2-D, bf16 packing; p3: one-row products packed for the streamed
 * matrix-vector loop; p4: convolutions with few input channels packed for
 * the direct loop of dn_stem.c; p5: Winograd weights for 3x3 layers on
 * planes of 28x28 and more, by default; p6: Winograd by output tiles and
 * channel product, dn_conv.c; p7: int8 products with runtime scales, W
 * plain for oneDNN's gemm, dn_qmatmul.c, and int8 convolutions without
 * oneDNN's zero-point compensation, dn_qconv.c; int8 depthwise layers
 * that carry dn_qdw.c's packing after oneDNN's; p8: dn_qdw.c's second weight
 * copy for row pairs, dn_qstem.c's packing after a stem's; p9: Winograd
 * F(2x2,3x3) weights for 3x3 layers on planes under 7x7 tiles, dn_conv.c;
 * 7x7 stems since carry dn_qstem.c's packing after oneDNN's too, which
 * changes their packed size, so an older p9 file repacks them at load;
 * p10: int8 SiLU convolutions' output scales carry -log2 e, dn_silu_form;
 * p11: dilated 3x3 layers carry Winograd weights, run over their phase
 * planes, dn_conv_phase.c).
 * The switches that change packed formats follow as letters: "n" OPENACL_NO_GEMV, "s"
 * OPENACL_NO_STEM, "w" Winograd on (the default; OPENACL_WINOGRAD=0 drops
 * it), "u" for Winograd without its small planes (OPENACL_WINO_SMALL=0),
 * or "v" for Winograd by the earlier rule (OPENACL_WINO_PLANE=1), "d" after
 * it for dilated layers kept off Winograd (OPENACL_WINO_DILATED=0), then
 * one letter for the int8 switches when any is set, "a" + their bits - 1
 * (1 OPENACL_QMM_BINARY=1, 2 OPENACL_QCONV_ZP_RT=1, 4 OPENACL_QCONV_ZPAD=0,
 * 8 a set OPENACL_SILU_FOLD): one letter, so that the default
 * "openacl 0.1.0 dnnl 2.6.x avx512_core_vnni p11w" (46) stays within the
 * header's 47 (a rare combination of switches past it is cut in the file,
 * never equals this string and so repacks at load, as another ABI does).
 * The switches are read per load; the string
 * is the calling thread's until its next call. */
static const char *dn_abi_tag(void)
{
    static _Thread_local char tag[48];
    pthread_once(&g_abi_once, abi_init);
    int wino = dn_winograd() ? (dn_wino_plane() ? 2 : dn_wino_small() ? 1 : 3) : 0;
    int q8 = (dn_qmm_binary() ? 1 : 0) | (dn_qconv_zp_rt() ? 2 : 0) | (dn_qconv_zpad_off() ? 4 : 0) |
             (dn_silu_fold_set() ? 8 : 0);
    char q8s[2] = { q8 ? (char)('a' + q8 - 1) : 0, 0 };
    static const char *const wl[] = { "", "w", "v", "u" };
    snprintf(tag, sizeof tag, "%s p11%s%s%s%s%s", g_base, dn_gemv_disabled() ? "n" : "",
             dn_stem_disabled() ? "s" : "", wl[wino], wino && dn_wino_dilated_off() ? "d" : "", q8s);
    return tag;
}

/* The ABI string (k_abi) is "openacl <version> " and this tag: at most 47
 * characters in all (the compiled header's field). */
static const k_backend k_backend_dnnl = {
    .name = "dnnl", .abi_tag = dn_abi_tag, .has_bf16 = dn_has_bf16,
};
K_REGISTER_BACKEND(k_backend_dnnl);
