/* Post-processing of the DB text detector (PaddleOCR's DBPostProcess):
 * threshold the probability map, take 8-connected components, fit each a
 * minimum-area (rotated) rectangle, keep it when the map's mean inside is
 * high enough, grow it by the "unclip" distance and scale it to the source
 * image. Contours are not traced: the convex hull of each component (built
 * from its leftmost and rightmost pixel per row) has the same minimum-area
 * rectangle as OpenCV's contour of it, so the boxes agree with PaddleOCR's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ocr.h"

typedef struct {
    ocr_pt c[4];  /* corners in order around the rectangle */
    float w, h;   /* side lengths: c0-c1 and c1-c2 */
} rrect;

static int pt_cmp(const void *a, const void *b)
{
    const ocr_pt *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

static double cross(ocr_pt o, ocr_pt a, ocr_pt b)
{
    return (double)(a.x - o.x) * (b.y - o.y) - (double)(a.y - o.y) * (b.x - o.x);
}

/* Andrew's monotone chain; pts is sorted in place, the hull (counter-
 * clockwise in y-down coordinates does not matter here) goes to hull. */
static int convex_hull(ocr_pt *pts, int n, ocr_pt *hull)
{
    qsort(pts, (size_t)n, sizeof *pts, pt_cmp);
    if (n < 3) {
        memcpy(hull, pts, sizeof *pts * (size_t)n);
        return n;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0)
            k--;
        hull[k++] = pts[i];
    }
    for (int i = n - 2, lo = k + 1; i >= 0; i--) {
        while (k >= lo && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0)
            k--;
        hull[k++] = pts[i];
    }
    return k - 1;
}

/* Minimum-area enclosing rectangle: one of its sides lies on a hull edge. */
static int min_area_rect(const ocr_pt *hull, int n, rrect *r)
{
    if (n < 3)
        return -1;
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        ocr_pt a = hull[i], b = hull[(i + 1) % n];
        double dx = b.x - a.x, dy = b.y - a.y, len = hypot(dx, dy);
        if (len == 0)
            continue;
        double ux = dx / len, uy = dy / len;
        double u0 = INFINITY, u1 = -INFINITY, v0 = INFINITY, v1 = -INFINITY;
        for (int k = 0; k < n; k++) {
            double pu = hull[k].x * ux + hull[k].y * uy, pv = -hull[k].x * uy + hull[k].y * ux;
            u0 = fmin(u0, pu);
            u1 = fmax(u1, pu);
            v0 = fmin(v0, pv);
            v1 = fmax(v1, pv);
        }
        double area = (u1 - u0) * (v1 - v0);
        if (area < best) {
            best = area;
            double us[4] = {u0, u1, u1, u0}, vs[4] = {v0, v0, v1, v1};
            for (int k = 0; k < 4; k++) {
                r->c[k].x = (float)(us[k] * ux - vs[k] * uy);
                r->c[k].y = (float)(us[k] * uy + vs[k] * ux);
            }
            r->w = (float)(u1 - u0);
            r->h = (float)(v1 - v0);
        }
    }
    return best < INFINITY ? 0 : -1;
}

/* PaddleOCR's get_mini_boxes corner order: of the two leftmost corners the
 * upper is first and the lower last; of the two rightmost the upper second. */
static void mini_box_order(const rrect *r, ocr_pt out[4])
{
    ocr_pt p[4];
    memcpy(p, r->c, sizeof p);
    qsort(p, 4, sizeof *p, pt_cmp);
    int i1 = p[1].y > p[0].y ? 0 : 1, i4 = 1 - i1;
    int i2 = p[3].y > p[2].y ? 2 : 3, i3 = 5 - i2;
    out[0] = p[i1];
    out[1] = p[i2];
    out[2] = p[i3];
    out[3] = p[i4];
}

/* Mean of the map over the pixels inside the box (PaddleOCR's "fast"
 * score: the box is filled as a polygon with integer corners). */
static float box_score(const float *prob, int w, int h, const ocr_pt box[4])
{
    float fx0 = box[0].x, fx1 = box[0].x, fy0 = box[0].y, fy1 = box[0].y;
    for (int i = 1; i < 4; i++) {
        fx0 = fminf(fx0, box[i].x);
        fx1 = fmaxf(fx1, box[i].x);
        fy0 = fminf(fy0, box[i].y);
        fy1 = fmaxf(fy1, box[i].y);
    }
    int x0 = (int)floorf(fx0), x1 = (int)ceilf(fx1), y0 = (int)floorf(fy0), y1 = (int)ceilf(fy1);
    x0 = x0 < 0 ? 0 : x0 > w - 1 ? w - 1 : x0;
    x1 = x1 < 0 ? 0 : x1 > w - 1 ? w - 1 : x1;
    y0 = y0 < 0 ? 0 : y0 > h - 1 ? h - 1 : y0;
    y1 = y1 < 0 ? 0 : y1 > h - 1 ? h - 1 : y1;
    ocr_pt q[4];
    for (int i = 0; i < 4; i++) {
        q[i].x = (float)(int)(box[i].x - x0) + x0;
        q[i].y = (float)(int)(box[i].y - y0) + y0;
    }
    double sum = 0;
    long cnt = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            ocr_pt p = {(float)x, (float)y};
            int pos = 0, neg = 0;
            for (int i = 0; i < 4; i++) {
                double c = cross(q[i], q[(i + 1) % 4], p);
                pos |= c > 1e-6;
                neg |= c < -1e-6;
            }
            if (!(pos && neg)) {
                sum += prob[(size_t)y * w + x];
                cnt++;
            }
        }
    return cnt ? (float)(sum / cnt) : 0.0f;
}

/* Corners clockwise from top-left: smallest x+y first, largest x+y third,
 * the other two by y-x (PaddleOCR's order_points_clockwise). */
static void order_clockwise(const ocr_pt in[4], ocr_pt out[4])
{
    int smin = 0, smax = 0;
    for (int i = 1; i < 4; i++) {
        if (in[i].x + in[i].y < in[smin].x + in[smin].y)
            smin = i;
        if (in[i].x + in[i].y > in[smax].x + in[smax].y)
            smax = i;
    }
    int rest[2], k = 0;
    for (int i = 0; i < 4 && k < 2; i++)
        if (i != smin && i != smax)
            rest[k++] = i;
    if (smin == smax || k < 2) {
        memcpy(out, in, sizeof(ocr_pt) * 4);
        return;
    }
    int a = rest[0], b = rest[1];
    int d_lo = (in[a].y - in[a].x) <= (in[b].y - in[b].x) ? a : b;
    out[0] = in[smin];
    out[1] = in[d_lo];
    out[2] = in[smax];
    out[3] = in[d_lo == a ? b : a];
}

static int reading_order(const void *pa, const void *pb)
{
    const ocr_box *a = pa, *b = pb;
    if (a->p[0].y != b->p[0].y)
        return a->p[0].y < b->p[0].y ? -1 : 1;
    return (a->p[0].x > b->p[0].x) - (a->p[0].x < b->p[0].x);
}

int ocr_db_boxes(const float *prob, int mw, int mh, int sw, int sh, const ocr_db_params *prm, ocr_box **out)
{
    size_t npx = (size_t)mw * mh;
    uint8_t *state = malloc(npx);          /* 0 background, 1 text, 2 visited */
    int32_t *queue = malloc(npx * sizeof(int32_t));
    int *rmin = malloc(sizeof(int) * (size_t)mh * 2);
    ocr_pt *pts = malloc(sizeof(ocr_pt) * ((size_t)mh * 2 + 1));
    ocr_pt *hull = malloc(sizeof(ocr_pt) * ((size_t)mh * 2 + 2));
    int cap = 16, n = 0;
    ocr_box *boxes = malloc(sizeof(ocr_box) * (size_t)cap);
    if (!state || !queue || !rmin || !pts || !hull || !boxes) {
        n = -1;
        goto done;
    }
    int *rmax = rmin + mh;
    for (size_t i = 0; i < npx; i++)
        state[i] = prob[i] > prm->thresh;

    int components = 0;
    for (size_t start = 0; start < npx && components < prm->max_candidates; start++) {
        if (state[start] != 1)
            continue;
        components++;
        /* Breadth-first flood fill; the queue keeps every pixel of the component. */
        size_t head = 0, tail = 0;
        queue[tail++] = (int32_t)start;
        state[start] = 2;
        int ymin = (int)(start / (size_t)mw), ymax = ymin;
        rmin[ymin] = rmax[ymin] = (int)(start % (size_t)mw);
        while (head < tail) {
            int32_t p = queue[head++];
            int py = p / mw, px = p % mw;
            for (int dy = -1; dy <= 1; dy++) {
                int y = py + dy;
                if (y < 0 || y >= mh)
                    continue;
                for (int dx = -1; dx <= 1; dx++) {
                    int x = px + dx;
                    if (x < 0 || x >= mw)
                        continue;
                    int32_t q = y * mw + x;
                    if (state[q] != 1)
                        continue;
                    state[q] = 2;
                    queue[tail++] = q;
                    if (y > ymax) {
                        ymax = y;
                        rmin[y] = rmax[y] = x;
                    }
                    if (x < rmin[y])
                        rmin[y] = x;
                    if (x > rmax[y])
                        rmax[y] = x;
                }
            }
        }
        /* The start pixel is the component's first in raster order, so ymin
         * never changes, and ymax grows one row at a time: each row's extremes
         * are initialised when the row is first reached. */
        int np = 0;
        for (int y = ymin; y <= ymax; y++) {
            pts[np++] = (ocr_pt){(float)rmin[y], (float)y};
            if (rmax[y] != rmin[y])
                pts[np++] = (ocr_pt){(float)rmax[y], (float)y};
        }
        int nh = convex_hull(pts, np, hull);
        rrect r;
        if (min_area_rect(hull, nh, &r) || fminf(r.w, r.h) < 3)
            continue;
        ocr_pt box[4];
        mini_box_order(&r, box);
        float score = box_score(prob, mw, mh, box);
        if (score < prm->box_thresh)
            continue;
        /* Unclip: offsetting a rectangle outward by d (round joins) and taking
         * the minimum-area rectangle again adds d to every side. */
        double d = (double)r.w * r.h * prm->unclip_ratio / (2.0 * (r.w + r.h));
        float cx = (r.c[0].x + r.c[2].x) / 2, cy = (r.c[0].y + r.c[2].y) / 2;
        double ux = (r.c[1].x - r.c[0].x) / r.w, uy = (r.c[1].y - r.c[0].y) / r.w;
        double hw = r.w / 2.0 + d, hh = r.h / 2.0 + d;
        rrect g;
        const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; k++) {
            g.c[k].x = (float)(cx + su[k] * hw * ux - sv[k] * hh * uy);
            g.c[k].y = (float)(cy + su[k] * hw * uy + sv[k] * hh * ux);
        }
        g.w = (float)(2 * hw);
        g.h = (float)(2 * hh);
        if (fminf(g.w, g.h) < 3 + 2)
            continue;
        ocr_pt gb[4], scaled[4];
        mini_box_order(&g, gb);
        for (int k = 0; k < 4; k++) {
            float x = (float)nearbyint((double)gb[k].x / mw * sw), y = (float)nearbyint((double)gb[k].y / mh * sh);
            scaled[k].x = x < 0 ? 0 : x > sw ? (float)sw : x;
            scaled[k].y = y < 0 ? 0 : y > sh ? (float)sh : y;
        }
        ocr_box b;
        memset(&b, 0, sizeof b);
        order_clockwise(scaled, b.p);
        for (int k = 0; k < 4; k++) {
            b.p[k].x = fminf(fmaxf(b.p[k].x, 0), (float)(sw - 1));
            b.p[k].y = fminf(fmaxf(b.p[k].y, 0), (float)(sh - 1));
        }
        int bw = (int)hypotf(b.p[0].x - b.p[1].x, b.p[0].y - b.p[1].y);
        int bh = (int)hypotf(b.p[0].x - b.p[3].x, b.p[0].y - b.p[3].y);
        if (bw <= 3 || bh <= 3)
            continue;
        b.det_score = score;
        if (n == cap) {
            ocr_box *nb = realloc(boxes, sizeof(ocr_box) * (size_t)cap * 2);
            if (!nb) {
                n = -1;
                goto done;
            }
            boxes = nb;
            cap *= 2;
        }
        boxes[n++] = b;
    }

    /* Top to bottom, then left to right within a line (tops within 10 px). */
    qsort(boxes, (size_t)n, sizeof *boxes, reading_order);
    for (int i = 0; i + 1 < n; i++)
        for (int j = i; j >= 0; j--) {
            if (fabsf(boxes[j + 1].p[0].y - boxes[j].p[0].y) < 10 && boxes[j + 1].p[0].x < boxes[j].p[0].x) {
                ocr_box t = boxes[j];
                boxes[j] = boxes[j + 1];
                boxes[j + 1] = t;
            } else {
                break;
            }
        }

done:
    free(state);
    free(queue);
    free(rmin);
    free(pts);
    free(hull);
    if (n < 0) {
        free(boxes);
        boxes = NULL;
    }
    *out = boxes;
    return n;
}
