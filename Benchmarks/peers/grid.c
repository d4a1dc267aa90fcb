/* The C grid peer: a uniform longitude/latitude grid over the fences' boxes, each cell listing
 * the fences whose box meets it (with the box, to skip the exact test early); per fix one cell,
 * box checks, then the exact test: the haversine term for a circle, even-odd point in polygon
 * over all rings for a polygon. One thread, no library.
 *
 * usage: grid FENCES.bin FIXES.f64 [REPEATS] [CELL_METRES] [LIMIT_FIXES]
 * Prints one JSON line (world.h's print_result): the median of REPEATS timed passes over
 * the fixes (the grid's build is timed apart, as build_s).
 */
#include "world.h"

typedef struct {
    double min_lon, min_lat, max_lon, max_lat;
    uint32_t fence;
} grid_entry;

typedef struct {
    double min_lon, min_lat, cell_lon, cell_lat;
    uint32_t nx, ny;
    uint32_t *cell_start; /* nx * ny + 1 */
    grid_entry *entries;
} grid;

typedef struct {
    double lat, lon, cos_lat, threshold; /* radians; circles only */
} circle_data;

static grid build_grid(const world_fences *w, double cell_metres) {
    grid g;
    double (*boxes)[4] = malloc(sizeof *boxes * (w->fence_count ? w->fence_count : 1));
    if (!boxes) die("out of memory", NULL);
    double lo_x = 1e300, lo_y = 1e300, hi_x = -1e300, hi_y = -1e300;
    for (uint32_t i = 0; i < w->fence_count; i++) {
        fence_box(w, &w->fences[i], boxes[i]);
        if (boxes[i][0] < lo_x) lo_x = boxes[i][0];
        if (boxes[i][1] < lo_y) lo_y = boxes[i][1];
        if (boxes[i][2] > hi_x) hi_x = boxes[i][2];
        if (boxes[i][3] > hi_y) hi_y = boxes[i][3];
    }
    if (w->fence_count == 0) lo_x = lo_y = 0, hi_x = hi_y = 1;
    double mid = 0.5 * (lo_y + hi_y);
    g.cell_lat = cell_metres / (EARTH_RADIUS_M * DEG_TO_RAD);
    g.cell_lon = g.cell_lat / fmax(cos(mid * DEG_TO_RAD), 0.01);
    /* At most 16M cells: coarser cells for a world too wide for the asked size. */
    while (((hi_x - lo_x) / g.cell_lon + 1) * ((hi_y - lo_y) / g.cell_lat + 1) > 16777216.0) {
        g.cell_lat *= 2;
        g.cell_lon *= 2;
    }
    g.min_lon = lo_x;
    g.min_lat = lo_y;
    g.nx = (uint32_t)((hi_x - lo_x) / g.cell_lon) + 1;
    g.ny = (uint32_t)((hi_y - lo_y) / g.cell_lat) + 1;
    size_t cells = (size_t)g.nx * g.ny;
    g.cell_start = calloc(cells + 1, sizeof *g.cell_start);
    if (!g.cell_start) die("out of memory", NULL);
    /* Two passes: count per cell, then fill (a CSR layout). */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < w->fence_count; i++) {
            uint32_t x0 = (uint32_t)((boxes[i][0] - lo_x) / g.cell_lon), x1 = (uint32_t)((boxes[i][2] - lo_x) / g.cell_lon);
            uint32_t y0 = (uint32_t)((boxes[i][1] - lo_y) / g.cell_lat), y1 = (uint32_t)((boxes[i][3] - lo_y) / g.cell_lat);
            if (x1 >= g.nx) x1 = g.nx - 1;
            if (y1 >= g.ny) y1 = g.ny - 1;
            for (uint32_t y = y0; y <= y1; y++) {
                for (uint32_t x = x0; x <= x1; x++) {
                    size_t c = (size_t)y * g.nx + x;
                    if (pass == 0) {
                        g.cell_start[c + 1]++;
                    } else {
                        grid_entry *e = &g.entries[g.cell_start[c]++];
                        e->min_lon = boxes[i][0]; e->min_lat = boxes[i][1];
                        e->max_lon = boxes[i][2]; e->max_lat = boxes[i][3];
                        e->fence = i;
                    }
                }
            }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++) g.cell_start[c + 1] += g.cell_start[c];
            g.entries = malloc(sizeof *g.entries * (g.cell_start[cells] ? g.cell_start[cells] : 1));
            if (!g.entries) die("out of memory", NULL);
        } else {
            /* Each start was moved to the next cell's: shift back. */
            for (size_t c = cells; c > 0; c--) g.cell_start[c] = g.cell_start[c - 1];
            g.cell_start[0] = 0;
        }
    }
    free(boxes);
    return g;
}

static void query_all(const world_fences *w, const grid *g, const circle_data *circles, const world_fixes *fx,
                      uint64_t *pairs_out, uint64_t *sum_out) {
    uint64_t pairs = 0, sum = 0;
    for (size_t k = 0; k < fx->count; k++) {
        double lat = fx->latlon[2 * k], lon = fx->latlon[2 * k + 1];
        double fx_cell = (lon - g->min_lon) / g->cell_lon, fy_cell = (lat - g->min_lat) / g->cell_lat;
        if (!(fx_cell >= 0 && fy_cell >= 0 && fx_cell < g->nx && fy_cell < g->ny)) continue;
        size_t c = (size_t)(uint32_t)fy_cell * g->nx + (uint32_t)fx_cell;
        double lat_r = lat * DEG_TO_RAD, lon_r = lon * DEG_TO_RAD, cos_lat = 0;
        int have_cos = 0;
        for (uint32_t e = g->cell_start[c]; e < g->cell_start[c + 1]; e++) {
            const grid_entry *en = &g->entries[e];
            if (lon < en->min_lon || lon > en->max_lon || lat < en->min_lat || lat > en->max_lat) continue;
            const fence_record *f = &w->fences[en->fence];
            int holds;
            if (f->ring_count == 0) {
                if (!have_cos) { cos_lat = cos(lat_r); have_cos = 1; }
                const circle_data *cd = &circles[en->fence];
                holds = haversine_term(lat_r, lon_r, cos_lat, cd->lat, cd->lon, cd->cos_lat) <= cd->threshold;
            } else {
                holds = polygon_holds(w, f, lon, lat);
            }
            if (holds) {
                pairs++;
                sum += pair_key(k, en->fence);
            }
        }
    }
    *pairs_out = pairs;
    *sum_out = sum;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FENCES.bin FIXES.f64 [REPEATS] [CELL_METRES] [LIMIT_FIXES]\n", argv[0]);
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    double cell_metres = argc > 4 ? atof(argv[4]) : 200.0;
    size_t limit = argc > 5 ? (size_t)atoll(argv[5]) : 0;
    if (repeats < 1 || repeats > 1000 || !(cell_metres > 0)) die("REPEATS must be 1 to 1000 and CELL_METRES positive", NULL);
    world_fences w = load_fences(argv[1]);
    world_fixes fx = load_fixes(argv[2], limit);

    double t0 = now_seconds();
    grid g = build_grid(&w, cell_metres);
    circle_data *circles = malloc(sizeof *circles * (w.fence_count ? w.fence_count : 1));
    if (!circles) die("out of memory", NULL);
    for (uint32_t i = 0; i < w.fence_count; i++) {
        const fence_record *f = &w.fences[i];
        circles[i].lat = f->lat * DEG_TO_RAD;
        circles[i].lon = f->lon * DEG_TO_RAD;
        circles[i].cos_lat = cos(circles[i].lat);
        circles[i].threshold = cap_threshold(f->radius);
    }
    double build_s = now_seconds() - t0;

    double *times = malloc(sizeof *times * (size_t)repeats);
    uint64_t pairs = 0, sum = 0;
    for (int r = 0; r < repeats; r++) {
        uint64_t p, s;
        double start = now_seconds();
        query_all(&w, &g, circles, &fx, &p, &s);
        times[r] = now_seconds() - start;
        if (r > 0 && (p != pairs || s != sum)) die("the repeats disagree", NULL);
        pairs = p;
        sum = s;
    }
    print_result("c-grid", w.fence_count, fx.count, repeats, build_s, median(times, repeats), pairs, sum);
    return 0;
}
