// The one C door the Swift side uses beyond GEOS's own C API.
//
// Every function has the `gfs_` prefix. Return conventions are written beside each
// declaration; GEOS errors never escape as C++ exceptions: they become a return code
// plus a message kept in the context (`gfs_context_last_error`).
//
// Threading: a context, and every locator created with it, serves one thread at a time.
// Locators build their index lazily on first use, so sharing one between threads races.
#ifndef GEOFENCE_GEOS_SHIM_H
#define GEOFENCE_GEOS_SHIM_H

#ifndef GEOS_USE_ONLY_R_API
#define GEOS_USE_ONLY_R_API
#endif
#include <geos_c.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A GEOS context handle plus the last error message GEOS reported on it.
typedef struct gfs_context gfs_context;

/// Returns a new context, or NULL when GEOS could not allocate one.
gfs_context *gfs_context_create(void);
/// Frees the context. NULL is ignored.
void gfs_context_destroy(gfs_context *context);
/// The GEOS handle to pass to GEOS's `_r` functions. Never NULL for a live context.
GEOSContextHandle_t gfs_context_handle(const gfs_context *context);
/// The last message GEOS's error handler reported on this context; "" when none.
const char *gfs_context_last_error(const gfs_context *context);
/// Forgets the last error message.
void gfs_context_clear_error(gfs_context *context);

/// An indexed point-in-area locator over one polygonal geometry.
typedef struct gfs_locator gfs_locator;

/// Builds a locator over `polygonal` (Polygon or MultiPolygon), which must outlive it.
/// Returns NULL, with the reason in the context's last error, when the geometry is not
/// polygonal or GEOS throws. Allocates; call it once per geometry, never per point.
gfs_locator *gfs_locator_create(gfs_context *context, const GEOSGeometry *polygonal);
/// 1 when the geometry covers (x, y): interior or boundary. 0 when (x, y) is exterior.
/// -1 when GEOS threw (the message is in the context). Allocates nothing.
int gfs_locator_covers(gfs_locator *locator, double x, double y);
/// Frees the locator (not its geometry). NULL is ignored.
void gfs_locator_destroy(gfs_locator *locator);

/// Which GEOS path the locator uses: the C++ IndexedPointInAreaLocator (GEOS < 3.12)
/// or the C API's GEOSPreparedIntersectsXY_r (GEOS >= 3.12). A static string.
const char *gfs_locator_backend(void);

/// The GEOS version the shim was compiled against, e.g. "3.11.1". A static string.
const char *gfs_compiled_geos_version(void);

/// Returns memory freed to the C heap (GEOS geometries built while validating fences, and
/// everything else freed so far) to the operating system: glibc's malloc_trim(0). 1 when
/// memory was released, 0 when none could be, or when the C library has no such call.
int gfs_heap_trim(void);

/// The sine and cosine of `x` in one call: the C library's `sincos` (`__sincos` on
/// Apple's), which gives the same two values as its `sin` and `cos` for about the price of one.
void gfs_sincos(double x, double *sine, double *cosine);

#ifdef __cplusplus
}
#endif
#endif
