/* The GEOS C API peer: what a C programmer would write with GEOS alone. Polygons (holes
 * included) become GEOS polygons, prepared (GEOSPrepare_r); circles enter the tree as their
 * box (GEOSGeom_createRectangle_r) and are tested with the haversine term. One GEOS STRtree
 * holds both; per fix: a GEOS point, GEOSSTRtree_query_r, and in its callback
 * GEOSPreparedIntersects_r (a point on the boundary counts, as in the engine) or the circle
 * test. One thread.
 *
 * usage: geos_loop FENCES.bin FIXES.f64 [REPEATS] [LIMIT_FIXES]
 * Prints one JSON line (world.h's print_result): the median of REPEATS timed passes;
 * build_s is the geometries, preparation and the tree's build (forced by a first query).
 */
#include <geos_c.h>
#include <stdarg.h>

#include "world.h"

typedef struct {
    GEOSContextHandle_t ctx;
    const world_fences *w;
    const GEOSPreparedGeometry **prepared; /* polygons; NULL for circles */
    double *circle;                        /* lat, lon, cos lat, threshold (radians) per fence */
    const GEOSGeometry *point;
    double lat_r, lon_r, cos_lat;
    size_t fix;
    uint64_t pairs, sum;
} query_state;

static void on_geos_message(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "GEOS: ");
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n");
    va_end(args);
}

static GEOSGeometry *ring(GEOSContextHandle_t ctx, const world_fences *w, uint32_t r) {
    uint32_t first = w->ring_start[r], n = w->ring_start[r + 1] - first;
    GEOSCoordSequence *seq = GEOSCoordSeq_create_r(ctx, n, 2);
    if (!seq) die("GEOSCoordSeq_create_r failed", NULL);
    for (uint32_t i = 0; i < n; i++) {
        const double *p = w->points + 2 * (size_t)(first + i);
        GEOSCoordSeq_setXY_r(ctx, seq, i, p[0], p[1]);
    }
    GEOSGeometry *g = GEOSGeom_createLinearRing_r(ctx, seq);
    if (!g) die("GEOSGeom_createLinearRing_r failed", NULL);
    return g;
}

static void visit(void *item, void *userdata) {
    query_state *s = userdata;
    uint32_t i = (uint32_t)(uintptr_t)item;
    int holds;
    if (s->prepared[i]) {
        holds = GEOSPreparedIntersects_r(s->ctx, s->prepared[i], s->point) == 1;
    } else {
        const double *c = s->circle + 4 * (size_t)i;
        holds = haversine_term(s->lat_r, s->lon_r, s->cos_lat, c[0], c[1], c[2]) <= c[3];
    }
    if (holds) {
        s->pairs++;
        s->sum += pair_key(s->fix, i);
    }
}

static void query_all(GEOSSTRtree *tree, query_state *s, const world_fixes *fx) {
    s->pairs = 0;
    s->sum = 0;
    for (size_t k = 0; k < fx->count; k++) {
        double lat = fx->latlon[2 * k], lon = fx->latlon[2 * k + 1];
        GEOSGeometry *point = GEOSGeom_createPointFromXY_r(s->ctx, lon, lat);
        s->point = point;
        s->fix = k;
        s->lat_r = lat * DEG_TO_RAD;
        s->lon_r = lon * DEG_TO_RAD;
        s->cos_lat = cos(s->lat_r);
        GEOSSTRtree_query_r(s->ctx, tree, point, visit, s);
        GEOSGeom_destroy_r(s->ctx, point);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FENCES.bin FIXES.f64 [REPEATS] [LIMIT_FIXES]\n", argv[0]);
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    size_t limit = argc > 4 ? (size_t)atoll(argv[4]) : 0;
    if (repeats < 1 || repeats > 1000) die("REPEATS must be 1 to 1000", NULL);
    world_fences w = load_fences(argv[1]);
    world_fixes fx = load_fixes(argv[2], limit);

    GEOSContextHandle_t ctx = GEOS_init_r();
    GEOSContext_setNoticeHandler_r(ctx, on_geos_message);
    GEOSContext_setErrorHandler_r(ctx, on_geos_message);
    double t0 = now_seconds();
    GEOSGeometry **geoms = calloc(w.fence_count ? w.fence_count : 1, sizeof *geoms);
    query_state s = {.ctx = ctx, .w = &w};
    s.prepared = calloc(w.fence_count ? w.fence_count : 1, sizeof *s.prepared);
    s.circle = calloc(4 * (size_t)(w.fence_count ? w.fence_count : 1), sizeof *s.circle);
    if (!geoms || !s.prepared || !s.circle) die("out of memory", NULL);
    GEOSSTRtree *tree = GEOSSTRtree_create_r(ctx, 10);
    for (uint32_t i = 0; i < w.fence_count; i++) {
        const fence_record *f = &w.fences[i];
        if (f->ring_count == 0) {
            double box[4];
            fence_box(&w, f, box);
            geoms[i] = GEOSGeom_createRectangle_r(ctx, box[0], box[1], box[2], box[3]);
            double *c = s.circle + 4 * (size_t)i;
            c[0] = f->lat * DEG_TO_RAD;
            c[1] = f->lon * DEG_TO_RAD;
            c[2] = cos(c[0]);
            c[3] = cap_threshold(f->radius);
        } else {
            GEOSGeometry *shell = ring(ctx, &w, f->first_ring);
            uint32_t hole_count = f->ring_count - 1;
            GEOSGeometry **holes = hole_count ? malloc(sizeof *holes * hole_count) : NULL;
            for (uint32_t h = 0; h < hole_count; h++) holes[h] = ring(ctx, &w, f->first_ring + 1 + h);
            geoms[i] = GEOSGeom_createPolygon_r(ctx, shell, holes, hole_count);
            free(holes);
            s.prepared[i] = GEOSPrepare_r(ctx, geoms[i]);
        }
        if (!geoms[i]) die("GEOS could not make a fence", NULL);
        GEOSSTRtree_insert_r(ctx, tree, geoms[i], (void *)(uintptr_t)i);
    }
    /* The tree is built on its first query: one outside the world, so the build is timed here. */
    GEOSGeometry *far = GEOSGeom_createPointFromXY_r(ctx, 1000.0, 1000.0);
    s.point = far;
    GEOSSTRtree_query_r(ctx, tree, far, visit, &s);
    GEOSGeom_destroy_r(ctx, far);
    double build_s = now_seconds() - t0;

    double *times = malloc(sizeof *times * (size_t)repeats);
    uint64_t pairs = 0, sum = 0;
    for (int r = 0; r < repeats; r++) {
        double start = now_seconds();
        query_all(tree, &s, &fx);
        times[r] = now_seconds() - start;
        if (r > 0 && (s.pairs != pairs || s.sum != sum)) die("the repeats disagree", NULL);
        pairs = s.pairs;
        sum = s.sum;
    }
    print_result("geos-loop", w.fence_count, fx.count, repeats, build_s, median(times, repeats), pairs, sum);

    GEOSSTRtree_destroy_r(ctx, tree);
    for (uint32_t i = 0; i < w.fence_count; i++) {
        if (s.prepared[i]) GEOSPreparedGeom_destroy_r(ctx, s.prepared[i]);
        GEOSGeom_destroy_r(ctx, geoms[i]);
    }
    GEOS_finish_r(ctx);
    return 0;
}
