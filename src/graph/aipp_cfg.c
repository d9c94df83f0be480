/* The aipp_op text format of atc --insert_op_conf (protobuf text of CANN's
 * InsertNewOps): blocks "aipp_op { field : value ... }", '#' comments. Every
 * field is checked against its documented range and may appear once; what is
 * unknown is refused with its line, since the file is untrusted input. */
#include "graph/aipp.h"
#include "core/core.h"
#include "acl/acl_base.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { FK_BOOL, FK_INT, FK_FLOAT, FK_MODE, FK_FORMAT, FK_STR, FK_EDGE };
/* which modes may set a field */
enum { FM_ANY = 0, FM_STATIC = 1, FM_DYNAMIC = 2 };

typedef struct field {
    const char *name;
    int kind, modes;
    double lo, hi;
    size_t off;
} field;

#define OFF(m) offsetof(aipp_cfg, m)
static const field g_fields[] = {
    {"aipp_mode", FK_MODE, FM_ANY, 0, 0, OFF(mode)},
    {"related_input_rank", FK_INT, FM_ANY, 0, 4095, OFF(rank)},
    {"related_input_name", FK_STR, FM_ANY, 0, 0, OFF(related_name)},
    {"input_edge_idx", FK_EDGE, FM_ANY, 0, 4095, OFF(n_edge)},
    {"max_src_image_size", FK_INT, FM_DYNAMIC, 1, 2147483647.0, OFF(max_src_size)},
    {"support_rotation", FK_BOOL, FM_DYNAMIC, 0, 1, OFF(support_rotation)},
    {"input_format", FK_FORMAT, FM_STATIC, 0, 0, OFF(format)},
    {"src_image_size_w", FK_INT, FM_STATIC, 0, 4096, OFF(src_w)},
    {"src_image_size_h", FK_INT, FM_STATIC, 0, 4096, OFF(src_h)},
    {"crop", FK_BOOL, FM_STATIC, 0, 1, OFF(crop)},
    {"load_start_pos_w", FK_INT, FM_STATIC, 0, 4095, OFF(crop_x)},
    {"load_start_pos_h", FK_INT, FM_STATIC, 0, 4095, OFF(crop_y)},
    {"crop_size_w", FK_INT, FM_STATIC, 0, 4096, OFF(crop_w)},
    {"crop_size_h", FK_INT, FM_STATIC, 0, 4096, OFF(crop_h)},
    {"resize", FK_BOOL, FM_STATIC, 0, 1, OFF(resize)},
    {"resize_output_w", FK_INT, FM_STATIC, 0, 1920, OFF(resize_w)},
    {"resize_output_h", FK_INT, FM_STATIC, 0, 4096, OFF(resize_h)},
    {"padding", FK_BOOL, FM_STATIC, 0, 1, OFF(pad)},
    {"left_padding_size", FK_INT, FM_STATIC, 0, 32, OFF(pad_l)},
    {"right_padding_size", FK_INT, FM_STATIC, 0, 32, OFF(pad_r)},
    {"top_padding_size", FK_INT, FM_STATIC, 0, 32, OFF(pad_t)},
    {"bottom_padding_size", FK_INT, FM_STATIC, 0, 32, OFF(pad_b)},
    {"padding_value", FK_FLOAT, FM_STATIC, -65504, 65504, OFF(pad_value)},
    {"cpadding_value", FK_FLOAT, FM_STATIC, -65504, 65504, OFF(cpad_value)},
    {"rotation_angle", FK_INT, FM_STATIC, 0, 3, OFF(rotation_angle)},
    {"raw_rgbir_to_f16_n", FK_INT, FM_STATIC, 0, 31, OFF(raw_n)},
    {"single_line_mode", FK_BOOL, FM_STATIC, 0, 1, OFF(single_line)},
    {"csc_switch", FK_BOOL, FM_STATIC, 0, 1, OFF(csc)},
    {"rbuv_swap_switch", FK_BOOL, FM_STATIC, 0, 1, OFF(rbuv_swap)},
    {"ax_swap_switch", FK_BOOL, FM_STATIC, 0, 1, OFF(ax_swap)},
#define MX(r, c) {"matrix_r" #r "c" #c, FK_INT, FM_STATIC, -32677, 32676, OFF(matrix[(r) * 3 + (c)])}
    MX(0, 0), MX(0, 1), MX(0, 2), MX(1, 0), MX(1, 1), MX(1, 2), MX(2, 0), MX(2, 1), MX(2, 2),
#undef MX
    {"output_bias_0", FK_INT, FM_STATIC, 0, 255, OFF(out_bias[0])},
    {"output_bias_1", FK_INT, FM_STATIC, 0, 255, OFF(out_bias[1])},
    {"output_bias_2", FK_INT, FM_STATIC, 0, 255, OFF(out_bias[2])},
    {"input_bias_0", FK_INT, FM_STATIC, 0, 255, OFF(in_bias[0])},
    {"input_bias_1", FK_INT, FM_STATIC, 0, 255, OFF(in_bias[1])},
    {"input_bias_2", FK_INT, FM_STATIC, 0, 255, OFF(in_bias[2])},
#define CH(i)                                                                    \
    {"mean_chn_" #i, FK_INT, FM_STATIC, 0, 255, OFF(mean[i])},                   \
    {"min_chn_" #i, FK_FLOAT, FM_STATIC, 0, 255, OFF(min[i])},                   \
    {"var_reci_chn_" #i, FK_FLOAT, FM_STATIC, -65504, 65504, OFF(var_reci[i])}
    CH(0), CH(1), CH(2), CH(3),
#undef CH
};
#undef OFF
#define N_FIELDS ((int)(sizeof g_fields / sizeof g_fields[0]))

static const char *const g_formats[] = {
    [AIPP_YUV420SP_U8] = "YUV420SP_U8", [AIPP_XRGB8888_U8] = "XRGB8888_U8", [AIPP_RGB888_U8] = "RGB888_U8",
    [AIPP_YUV400_U8] = "YUV400_U8", [AIPP_NC1HWC0DI_FP16] = "NC1HWC0DI_FP16", [AIPP_NC1HWC0DI_S8] = "NC1HWC0DI_S8",
    [AIPP_ARGB8888_U8] = "ARGB8888_U8", [AIPP_YUYV_U8] = "YUYV_U8", [AIPP_YUV422SP_U8] = "YUV422SP_U8",
    [AIPP_AYUV444_U8] = "AYUV444_U8", [AIPP_RAW10] = "RAW10", [AIPP_RAW12] = "RAW12", [AIPP_RAW16] = "RAW16",
    [AIPP_RAW24] = "RAW24",
};

const char *aipp_format_name(int f)
{
    return f > 0 && f <= AIPP_RAW24 ? g_formats[f] : "undefined";
}

/* ---- tokens ---- */
enum { T_END, T_WORD, T_NUM, T_STR, T_COLON, T_OPEN, T_CLOSE, T_BAD };
typedef struct lexer {
    const char *p, *end, *src;
    int line;
    int tok, tline;
    char text[256];
} lexer;

static void lex_next(lexer *L)
{
    for (;;) {
        while (L->p < L->end && (*L->p == ' ' || *L->p == '\t' || *L->p == '\r' || *L->p == '\n' || *L->p == ';' ||
                                 *L->p == ',')) {
            if (*L->p == '\n') L->line++;
            L->p++;
        }
        if (L->p < L->end && *L->p == '#') {
            while (L->p < L->end && *L->p != '\n') L->p++;
            continue;
        }
        break;
    }
    L->tline = L->line;
    L->text[0] = 0;
    if (L->p >= L->end) { L->tok = T_END; return; }
    char ch = *L->p;
    if (ch == ':') { L->p++; L->tok = T_COLON; return; }
    if (ch == '{') { L->p++; L->tok = T_OPEN; return; }
    if (ch == '}') { L->p++; L->tok = T_CLOSE; return; }
    size_t k = 0;
    if (ch == '"' || ch == '\'') {
        L->p++;
        while (L->p < L->end && *L->p != ch && *L->p != '\n') {
            if (k + 1 >= sizeof L->text) { L->tok = T_BAD; return; }
            L->text[k++] = *L->p++;
        }
        L->text[k] = 0;
        if (L->p >= L->end || *L->p != ch) { L->tok = T_BAD; return; }
        L->p++;
        L->tok = T_STR;
        return;
    }
    int num = ch == '-' || ch == '+' || ch == '.' || isdigit((unsigned char)ch);
    if (!num && !isalpha((unsigned char)ch) && ch != '_') {
        L->text[0] = ch; L->text[1] = 0;
        L->tok = T_BAD;
        return;
    }
    while (L->p < L->end && (isalnum((unsigned char)*L->p) || *L->p == '_' || *L->p == '.' || *L->p == '-' ||
                             *L->p == '+')) {
        if (k + 1 >= sizeof L->text) { L->tok = T_BAD; return; }
        L->text[k++] = *L->p++;
    }
    L->text[k] = 0;
    L->tok = num ? T_NUM : T_WORD;
}

static int bad(const lexer *L, int line, const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    return acl_fail(ACL_ERROR_INVALID_PARAM, "--insert_op_conf: %s line %d: %s", L->src, line, msg);
}

static int num_value(const lexer *L, const field *f, double *v)
{
    char *e = NULL;
    if (L->tok != T_NUM) return bad(L, L->tline, "%s takes a number, not \"%s\"", f->name, L->text);
    *v = strtod(L->text, &e);
    if (!e || *e || !isfinite(*v)) return bad(L, L->tline, "%s: \"%s\" is not a number", f->name, L->text);
    if (f->kind == FK_INT && *v != floor(*v)) return bad(L, L->tline, "%s takes an integer, not %s", f->name, L->text);
    if (*v < f->lo || *v > f->hi) {
        char r[96];
        snprintf(r, sizeof r, "%s is out of range [%g, %g]", L->text, f->lo, f->hi);
        return bad(L, L->tline, "%s: %s", f->name, r);
    }
    return 0;
}

static int set_value(lexer *L, const field *f, aipp_cfg *c)
{
    char *at = (char *)c + f->off;
    double v = 0;
    int rc;
    switch (f->kind) {
    case FK_BOOL:
        if (L->tok == T_WORD && !strcmp(L->text, "true")) v = 1;
        else if (L->tok == T_WORD && !strcmp(L->text, "false")) v = 0;
        else if (L->tok == T_NUM && (!strcmp(L->text, "0") || !strcmp(L->text, "1"))) v = L->text[0] - '0';
        else return bad(L, L->tline, "%s takes true or false, not \"%s\"", f->name, L->text);
        *(int *)at = (int)v;
        return 0;
    case FK_INT:
    case FK_EDGE:
        if ((rc = num_value(L, f, &v))) return rc;
        if (f->kind == FK_EDGE) (*(int *)at)++;
        else *(int *)at = (int)v;
        return 0;
    case FK_FLOAT:
        if ((rc = num_value(L, f, &v))) return rc;
        *(float *)at = (float)v;
        return 0;
    case FK_MODE:
        if (L->tok == T_WORD && !strcmp(L->text, "static")) *(int *)at = AIPP_MODE_STATIC;
        else if (L->tok == T_WORD && !strcmp(L->text, "dynamic")) *(int *)at = AIPP_MODE_DYNAMIC;
        else return bad(L, L->tline, "aipp_mode is static or dynamic, not \"%s\"%s", L->text, "");
        return 0;
    case FK_FORMAT:
        for (int i = 1; i <= AIPP_RAW24; i++)
            if (L->tok == T_WORD && !strcmp(L->text, g_formats[i])) { *(int *)at = i; return 0; }
        return bad(L, L->tline, "input_format \"%s\" is not one of YUV420SP_U8, XRGB8888_U8, RGB888_U8, "
                   "YUV400_U8, NC1HWC0DI_FP16, NC1HWC0DI_S8, ARGB8888_U8, YUYV_U8, YUV422SP_U8, AYUV444_U8, "
                   "RAW10, RAW12, RAW16, RAW24%s", L->text, "");
    default:
        if (L->tok != T_STR && L->tok != T_WORD)
            return bad(L, L->tline, "%s takes a name, not \"%s\"", f->name, L->text);
        snprintf(at, sizeof c->related_name, "%s", L->text);
        return 0;
    }
}

static void defaults(aipp_cfg *c, int line)
{
    memset(c, 0, sizeof *c);
    c->line = line;
    c->raw_n = 8;
    for (int i = 0; i < 3; i++) c->out_bias[i] = c->in_bias[i] = i ? 128 : 16;
    for (int i = 0; i < 4; i++) c->var_reci[i] = 1.0f;
}

/* Rules between fields of one block, once it is read. */
static int check_block(const lexer *L, aipp_cfg *c, const unsigned char *seen)
{
    int ln = c->line;
    if (c->mode == AIPP_MODE_UNDEF) return bad(L, ln, "aipp_op has no aipp_mode (static or dynamic)%s%s", "", "");
    for (int i = 0; i < N_FIELDS; i++) {
        const field *f = &g_fields[i];
        if (!seen[i] || !f->modes || f->modes == c->mode) continue;
        return bad(L, ln, "%s is not allowed with aipp_mode %s", f->name,
                   c->mode == AIPP_MODE_STATIC ? "static" : "dynamic");
    }
    if (c->mode == AIPP_MODE_DYNAMIC) {
        if (!c->max_src_size) return bad(L, ln, "aipp_mode dynamic needs max_src_image_size > 0%s%s", "", "");
        return 0;
    }
    if (!c->format) return bad(L, ln, "aipp_mode static needs input_format%s%s", "", "");
    if (c->src_w == 1) return bad(L, ln, "src_image_size_w 1 is out of range: 0 or [2, 4096]%s%s", "", "");
    if (c->format == AIPP_YUV420SP_U8 && ((c->src_w & 1) || (c->src_h & 1)))
        return bad(L, ln, "YUV420SP_U8 needs an even src_image_size_w and src_image_size_h%s%s", "", "");
    if (c->format == AIPP_YUV420SP_U8 && c->crop && ((c->crop_x & 1) || (c->crop_y & 1)))
        return bad(L, ln, "YUV420SP_U8 needs an even load_start_pos_w and load_start_pos_h%s%s", "", "");
    if ((c->format == AIPP_YUV422SP_U8 || c->format == AIPP_YUYV_U8) && ((c->src_w & 1) || (c->crop && (c->crop_x & 1))))
        return bad(L, ln, "%s needs an even src_image_size_w and load_start_pos_w%s", aipp_format_name(c->format), "");
    if (c->crop && c->src_w && ((int64_t)c->crop_x + c->crop_w > c->src_w || (int64_t)c->crop_y + c->crop_h > c->src_h)) {
        char m[160];
        snprintf(m, sizeof m, "(%d,%d)+%dx%d", c->crop_x, c->crop_y, c->crop_w, c->crop_h);
        char s[64];
        snprintf(s, sizeof s, "%dx%d", c->src_w, c->src_h);
        return bad(L, ln, "the crop %s lies outside the %s source image", m, s);
    }
    if (c->csc && (c->format == AIPP_YUV400_U8 || c->format >= AIPP_RAW10))
        return bad(L, ln, "csc_switch cannot be on for %s%s", aipp_format_name(c->format), "");
    if (c->csc && !c->matrix_given) {
        /* ATC's defaults: BT.601 narrow range, YUV->BGR for YUV420SP, RGB->YUV otherwise */
        static const int yuv[9] = { 298, 516, 0, 298, -100, -208, 298, 0, 409 };
        static const int rgb[9] = { 66, 129, 25, -38, -74, 112, 112, -94, -18 };
        memcpy(c->matrix, c->format == AIPP_YUV420SP_U8 ? yuv : rgb, sizeof c->matrix);
    }
    if (!c->crop) c->crop_x = c->crop_y = c->crop_w = c->crop_h = 0;
    if (!c->pad) c->pad_l = c->pad_r = c->pad_t = c->pad_b = 0;
    if (!c->resize) c->resize_w = c->resize_h = 0;
    return 0;
}

static int parse_block(lexer *L, aipp_cfg *c)
{
    unsigned char seen[N_FIELDS];
    memset(seen, 0, sizeof seen);
    int rc;
    for (;;) {
        lex_next(L);
        if (L->tok == T_CLOSE) break;
        if (L->tok == T_END) return bad(L, c->line, "aipp_op block is not closed with '}'%s%s", "", "");
        if (L->tok != T_WORD) return bad(L, L->tline, "expected a field name, found \"%s\"%s", L->text, "");
        int fi = -1;
        for (int i = 0; i < N_FIELDS && fi < 0; i++) if (!strcmp(g_fields[i].name, L->text)) fi = i;
        if (fi < 0) return bad(L, L->tline, "unknown field \"%s\" in aipp_op%s", L->text, "");
        const field *f = &g_fields[fi];
        if (seen[fi] && f->kind != FK_EDGE) return bad(L, L->tline, "%s is given twice%s", f->name, "");
        seen[fi] = 1;
        if (!strncmp(f->name, "matrix_", 7)) c->matrix_given = 1;
        int fl = L->tline;
        lex_next(L);
        if (L->tok != T_COLON) return bad(L, fl, "expected ':' after %s%s", f->name, "");
        lex_next(L);
        if (L->tok == T_END || L->tok == T_BAD || L->tok == T_OPEN || L->tok == T_CLOSE || L->tok == T_COLON)
            return bad(L, fl, "%s has no value%s", f->name, "");
        if ((rc = set_value(L, f, c))) return rc;
    }
    return check_block(L, c, seen);
}

int aipp_parse(const char *src, const char *text, size_t len, aipp_cfg **out, int *n)
{
    *out = NULL;
    *n = 0;
    lexer L = { .p = text, .end = text + len, .src = src ? src : "(config)", .line = 1 };
    aipp_cfg *v = calloc(AIPP_MAX_BLOCKS, sizeof *v);
    if (!v) return acl_fail(ACL_ERROR_BAD_ALLOC, "--insert_op_conf: out of memory");
    int k = 0, rc = 0;
    for (lex_next(&L); L.tok != T_END && !rc; lex_next(&L)) {
        if (L.tok != T_WORD || strcmp(L.text, "aipp_op")) {
            rc = bad(&L, L.tline, "expected \"aipp_op {\", found \"%s\"%s", L.text, "");
            break;
        }
        if (k == AIPP_MAX_BLOCKS) { rc = bad(&L, L.tline, "more than 64 aipp_op blocks%s%s", "", ""); break; }
        int line = L.tline;
        lex_next(&L);
        if (L.tok == T_COLON) lex_next(&L);
        if (L.tok != T_OPEN) { rc = bad(&L, line, "expected '{' after aipp_op%s%s", "", ""); break; }
        defaults(&v[k], line);
        if ((rc = parse_block(&L, &v[k]))) break;
        for (int j = 0; j < k && !rc; j++)
            if (v[j].rank == v[k].rank && !v[j].related_name[0] && !v[k].related_name[0]) {
                char r[32];
                snprintf(r, sizeof r, "%d", v[k].rank);
                rc = bad(&L, line, "related_input_rank %s already has an aipp_op (a static and a dynamic AIPP "
                         "cannot share an input either)%s", r, "");
            }
        k++;
    }
    if (!rc && k == 0) rc = bad(&L, L.line, "no aipp_op block in the file%s%s", "", "");
    if (rc) { free(v); return rc; }
    *out = v;
    *n = k;
    return 0;
}
