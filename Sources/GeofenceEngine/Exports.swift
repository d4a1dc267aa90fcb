// Users import one module: the geometry types (Coordinate, BoundingBox, MultiPolygon, …)
// come with the engine.
@_exported import GeofenceGeometry
