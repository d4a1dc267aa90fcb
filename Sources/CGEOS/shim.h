// GEOS's reentrant C API. Only the `_r` functions are used: every call names its context.
#ifndef GEOFENCE_CGEOS_SHIM_H
#define GEOFENCE_CGEOS_SHIM_H
#ifndef GEOS_USE_ONLY_R_API
#define GEOS_USE_ONLY_R_API
#endif
#include <geos_c.h>
#endif
