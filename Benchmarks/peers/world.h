/* The world files of gen_world.py for the C peers, the pair checksum and timing helpers.
 *
 * fences_F.bin (little-endian):
 *   header   char magic[8] = "GFWORLD1"; u32 fences; u32 rings; u32 points; u32 unused (24 bytes)
 *   fences   per fence: f64 lat, f64 lon, f64 radius (metres; 0 for a polygon),
 *            u32 first ring, u32 ring count (0 for a circle)            -- 32 bytes
 *   rings    rings + 1 x u32: ring k's points are [start[k], start[k + 1])
 *   points   points x (f64 lon, f64 lat); each ring closed (last point = first);
 *            a polygon's first ring is its shell, the others its holes
 * fixes_N.f64: N x (f64 lat, f64 lon).
 *
 * Containment (the engine's rule): a circle holds a fix when the haversine term between
 * them is at most sin^2(radius / 2R), R = 6371008.8 m; a polygon when the fix lies inside
 * it in the plane of longitude and latitude (even-odd over all its rings).
 * Checksum: the wrapping sum over (fix, fence) pairs of mix64(fix << 20 | fence), 0-based
 * indices in file order, mix64 being SplitMix64's finaliser.
 */
#ifndef GEOFENCE_PEERS_WORLD_H
#define GEOFENCE_PEERS_WORLD_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define EARTH_RADIUS_M 6371008.8
#define DEG_TO_RAD (M_PI / 180.0)

typedef struct {
    double lat, lon, radius;
    uint32_t first_ring, ring_count;
} fence_record;

typedef struct {
    uint32_t fence_count, ring_count, point_count;
    const fence_record *fences;
    const uint32_t *ring_start;
    const double *points; /* lon, lat interleaved */
    void *storage;
} world_fences;

typedef struct {
    size_t count;
    double *latlon; /* lat, lon interleaved */
} world_fixes;

static void die(const char *what, const char *detail) {
    fprintf(stderr, "error: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open (run gen_world.py first)", path);
    if (fseek(f, 0, SEEK_END) != 0) die("cannot seek", path);
    long length = ftell(f);
    if (length < 0) die("cannot size", path);
    rewind(f);
    void *data = malloc(length > 0 ? (size_t)length : 1);
    if (!data) die("out of memory reading", path);
    if (fread(data, 1, (size_t)length, f) != (size_t)length) die("short read", path);
    fclose(f);
    *size = (size_t)length;
    return data;
}

static world_fences load_fences(const char *path) {
    world_fences w;
    size_t size;
    unsigned char *data = read_file(path, &size);
    uint32_t header[4];
    if (size < 24 || memcmp(data, "GFWORLD1", 8) != 0) die("not a GFWORLD1 fence file", path);
    memcpy(header, data + 8, sizeof header);
    w.fence_count = header[0];
    w.ring_count = header[1];
    w.point_count = header[2];
    size_t need = 24 + (size_t)w.fence_count * sizeof(fence_record) + ((size_t)w.ring_count + 1) * 4 +
                  (size_t)w.point_count * 16;
    if (size != need) die("fence file has the wrong size", path);
    /* Copied to aligned storage: the sections follow a 24-byte header. */
    size_t body = size - 24;
    unsigned char *aligned = malloc(body + 16);
    if (!aligned) die("out of memory", path);
    memcpy(aligned, data + 24, body);
    free(data);
    w.fences = (const fence_record *)aligned;
    size_t offset = (size_t)w.fence_count * sizeof(fence_record);
    w.ring_start = (const uint32_t *)(aligned + offset);
    offset += ((size_t)w.ring_count + 1) * 4;
    if (offset % 8 != 0) { /* move the points to an 8-byte boundary */
        memmove(aligned + offset + 4, aligned + offset, (size_t)w.point_count * 16);
        offset += 4;
    }
    w.points = (const double *)(aligned + offset);
    w.storage = aligned;
    return w;
}

static world_fixes load_fixes(const char *path, size_t limit) {
    world_fixes x;
    size_t size;
    x.latlon = read_file(path, &size);
    if (size % 16 != 0) die("fix file is not a whole number of (lat, lon) pairs", path);
    x.count = size / 16;
    if (limit > 0 && limit < x.count) x.count = limit;
    return x;
}

static inline uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t pair_key(uint64_t fix, uint64_t fence) { return mix64(fix << 20 | fence); }

/* sin^2(r / 2R): the haversine term of a distance of r metres. */
static inline double cap_threshold(double radius) {
    double s = sin(radius / (2.0 * EARTH_RADIUS_M));
    return s * s;
}

/* The haversine term between a fix (radians, with its latitude's cosine) and a centre. */
static inline double haversine_term(double lat1, double lon1, double cos1, double lat2, double lon2, double cos2) {
    double sdp = sin(0.5 * (lat1 - lat2));
    double sdl = sin(0.5 * (lon1 - lon2));
    return sdp * sdp + cos1 * cos2 * sdl * sdl;
}

/* Even-odd point in polygon over every ring of fence `f`, in (lon, lat). */
static inline int polygon_holds(const world_fences *w, const fence_record *f, double lon, double lat) {
    int inside = 0;
    for (uint32_t r = f->first_ring; r < f->first_ring + f->ring_count; r++) {
        const double *p = w->points + 2 * (size_t)w->ring_start[r];
        uint32_t n = w->ring_start[r + 1] - w->ring_start[r];
        for (uint32_t i = 0, j = n - 1; i < n; j = i++) {
            double xi = p[2 * i], yi = p[2 * i + 1], xj = p[2 * j], yj = p[2 * j + 1];
            if ((yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi) inside = !inside;
        }
    }
    return inside;
}

/* Bounding box (lon, lat degrees) of a fence; a circle's covers its whole cap. */
static void fence_box(const world_fences *w, const fence_record *f, double box[4]) {
    if (f->ring_count == 0) {
        double delta = f->radius / EARTH_RADIUS_M;
        double dlat = delta / DEG_TO_RAD;
        double reach = fabs(f->lat) + dlat;
        double s = reach >= 90.0 ? 1.0 : sin(delta) / cos(reach * DEG_TO_RAD);
        double dlon = s >= 1.0 ? 180.0 : asin(s) / DEG_TO_RAD;
        dlat = dlat * (1 + 1e-9) + 1e-9;
        dlon = dlon * (1 + 1e-9) + 1e-9;
        box[0] = f->lon - dlon; box[1] = f->lat - dlat; box[2] = f->lon + dlon; box[3] = f->lat + dlat;
        return;
    }
    const double *p = w->points + 2 * (size_t)w->ring_start[f->first_ring];
    uint32_t n = w->ring_start[f->first_ring + 1] - w->ring_start[f->first_ring];
    box[0] = box[2] = p[0];
    box[1] = box[3] = p[1];
    for (uint32_t i = 1; i < n; i++) {
        if (p[2 * i] < box[0]) box[0] = p[2 * i];
        if (p[2 * i] > box[2]) box[2] = p[2 * i];
        if (p[2 * i + 1] < box[1]) box[1] = p[2 * i + 1];
        if (p[2 * i + 1] > box[3]) box[3] = p[2 * i + 1];
    }
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_rss_mib(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* The one JSON line geofence-bench reads. */
static void print_result(const char *peer, uint32_t fences, size_t fixes, int repeats, double build_s,
                         double seconds, uint64_t pairs, uint64_t checksum) {
    printf("{\"peer\":\"%s\",\"fences\":%u,\"fixes\":%zu,\"repeats\":%d,\"build_s\":%.6f,\"seconds\":%.6f,"
           "\"fixes_per_s\":%.1f,\"pairs\":%llu,\"checksum\":\"%016llx\",\"peak_rss_mb\":%.1f}\n",
           peer, fences, fixes, repeats, build_s, seconds, (double)fixes / seconds, (unsigned long long)pairs,
           (unsigned long long)checksum, peak_rss_mib());
}

#endif
