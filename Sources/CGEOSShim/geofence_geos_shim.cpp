// Implementation of geofence_geos_shim.h.
//
// Point location must not build a GEOS geometry per point: in GEOS 3.11 every point
// geometry touches a reference count shared by all contexts, so that path stops scaling
// at one thread. GEOS >= 3.12 locates raw coordinates through the C API
// (GEOSPreparedIntersectsXY_r); GEOS 3.11 has no such call, so the shim uses GEOS's own
// C++ IndexedPointInAreaLocator (libgeos++-dev, same library version), which allocates
// nothing per point.
#include "geofence_geos_shim.h"

#include <cstdio>
#include <cmath>
#include <cstring>
#include <exception>
#include <new>

#if GEOS_VERSION_MAJOR > 3 || (GEOS_VERSION_MAJOR == 3 && GEOS_VERSION_MINOR >= 12)
#define GFS_HAVE_PREPARED_XY 1
#else
#define GFS_HAVE_PREPARED_XY 0
#include <geos/algorithm/locate/IndexedPointInAreaLocator.h>
#include <geos/geom/Coordinate.h>
#include <geos/geom/Geometry.h>
#include <geos/geom/Location.h>
#endif

struct gfs_context {
    GEOSContextHandle_t handle;
    char last_error[1024];
};

static void gfs_set_error(gfs_context *context, const char *message) {
    std::snprintf(context->last_error, sizeof context->last_error, "%s", message ? message : "unknown GEOS error");
}

// GEOS calls this with a formatted message; userdata is the owning gfs_context.
static void gfs_error_handler(const char *message, void *userdata) {
    gfs_set_error(static_cast<gfs_context *>(userdata), message);
}

extern "C" gfs_context *gfs_context_create(void) {
    gfs_context *context = new (std::nothrow) gfs_context;
    if (!context) return nullptr;
    context->last_error[0] = '\0';
    context->handle = GEOS_init_r();  // NULL on allocation failure
    if (!context->handle) {
        delete context;
        return nullptr;
    }
    GEOSContext_setErrorMessageHandler_r(context->handle, gfs_error_handler, context);
    return context;
}

extern "C" void gfs_context_destroy(gfs_context *context) {
    if (!context) return;
    GEOS_finish_r(context->handle);
    delete context;
}

extern "C" GEOSContextHandle_t gfs_context_handle(const gfs_context *context) { return context->handle; }
extern "C" const char *gfs_context_last_error(const gfs_context *context) { return context->last_error; }
extern "C" void gfs_context_clear_error(gfs_context *context) { context->last_error[0] = '\0'; }

#if GFS_HAVE_PREPARED_XY

struct gfs_locator {
    gfs_context *context;
    const GEOSPreparedGeometry *prepared;
};

extern "C" gfs_locator *gfs_locator_create(gfs_context *context, const GEOSGeometry *polygonal) {
    int type = GEOSGeomTypeId_r(context->handle, polygonal);  // -1 on exception
    if (type != GEOS_POLYGON && type != GEOS_MULTIPOLYGON) {
        gfs_set_error(context, "locator needs a Polygon or MultiPolygon");
        return nullptr;
    }
    const GEOSPreparedGeometry *prepared = GEOSPrepare_r(context->handle, polygonal);  // NULL on exception
    if (!prepared) return nullptr;
    gfs_locator *locator = new (std::nothrow) gfs_locator{context, prepared};
    if (!locator) GEOSPreparedGeom_destroy_r(context->handle, prepared);
    return locator;
}

extern "C" int gfs_locator_covers(gfs_locator *locator, double x, double y) {
    // 1 true, 0 false, 2 exception. For a point, intersects == covered by.
    char r = GEOSPreparedIntersectsXY_r(locator->context->handle, locator->prepared, x, y);
    return r == 2 ? -1 : (int)r;
}

extern "C" void gfs_locator_destroy(gfs_locator *locator) {
    if (!locator) return;
    GEOSPreparedGeom_destroy_r(locator->context->handle, locator->prepared);
    delete locator;
}

extern "C" const char *gfs_locator_backend(void) { return "GEOSPreparedIntersectsXY_r"; }

#else

using geos::algorithm::locate::IndexedPointInAreaLocator;

struct gfs_locator {
    gfs_context *context;
    IndexedPointInAreaLocator locator;
    gfs_locator(gfs_context *c, const geos::geom::Geometry &g) : context(c), locator(g) {}
};

extern "C" gfs_locator *gfs_locator_create(gfs_context *context, const GEOSGeometry *polygonal) {
    try {
        // The C API's GEOSGeometry is GEOS's geos::geom::Geometry (geos_ts_c.cpp defines it so).
        const auto *geometry = reinterpret_cast<const geos::geom::Geometry *>(polygonal);
        auto type = geometry->getGeometryTypeId();
        if (type != geos::geom::GEOS_POLYGON && type != geos::geom::GEOS_MULTIPOLYGON) {
            gfs_set_error(context, "locator needs a Polygon or MultiPolygon");
            return nullptr;
        }
        return new gfs_locator(context, *geometry);
    } catch (const std::exception &e) {
        gfs_set_error(context, e.what());
    } catch (...) {
        gfs_set_error(context, "unknown C++ exception while building a locator");
    }
    return nullptr;
}

extern "C" int gfs_locator_covers(gfs_locator *locator, double x, double y) {
    try {
        geos::geom::Coordinate point(x, y);
        return locator->locator.locate(&point) != geos::geom::Location::EXTERIOR ? 1 : 0;
    } catch (const std::exception &e) {
        gfs_set_error(locator->context, e.what());
    } catch (...) {
        gfs_set_error(locator->context, "unknown C++ exception while locating a point");
    }
    return -1;
}

extern "C" void gfs_locator_destroy(gfs_locator *locator) { delete locator; }

extern "C" const char *gfs_locator_backend(void) {
    return "geos::algorithm::locate::IndexedPointInAreaLocator (GEOS " GEOS_VERSION " C++)";
}

#endif

extern "C" const char *gfs_compiled_geos_version(void) { return GEOS_VERSION; }

#if defined(__GLIBC__)
#include <malloc.h>
extern "C" int gfs_heap_trim(void) { return malloc_trim(0); }
#else
extern "C" int gfs_heap_trim(void) { return 0; }
#endif

#ifdef __APPLE__
extern "C" void gfs_sincos(double x, double *sine, double *cosine) { __sincos(x, sine, cosine); }
#else
extern "C" void gfs_sincos(double x, double *sine, double *cosine) { sincos(x, sine, cosine); }
#endif
