@_spi(Engine) import GeofenceGeometry

/// Reading one fence's attributes from the flat storage, by slot.
extension FenceSet {
    /// The id of the fence in `slot`.
    public func geofenceID(at slot: Int) -> String { storage.ids.string(slot) }

    /// The id's UTF-8 bytes (valid while the set lives).
    package func idBytes(at slot: Int) -> UnsafeBufferPointer<UInt8> { storage.ids[slot] }

    /// The level of the fence in `slot`, or nil for a global fence.
    public func level(at slot: Int) -> Int? {
        let level = storage.levels[slot]
        return level == Self.noLevel ? nil : level
    }

    /// The radius wherever one is needed: the circle's, or the polygon's minimum enclosing
    /// circle's, in metres.
    @inline(__always)
    public func radius(at slot: Int) -> Double {
        if !isCircle(at: slot) { storage.requireEverything("a polygon's radius") }
        return storage.enclosingCircles[slot].z
    }

    /// The circle, or the polygon's minimum enclosing circle.
    public func enclosingCircle(at slot: Int) -> Fence.EnclosingCircle {
        if !isCircle(at: slot) { storage.requireEverything("a polygon's enclosing circle") }
        let c = storage.enclosingCircles[slot]
        return Fence.EnclosingCircle(center: Coordinate(latitude: c.x, longitude: c.y), radius: c.z)
    }

    /// True when the fence in `slot` is a circle.
    @inline(__always)
    public func isCircle(at slot: Int) -> Bool { !storage.attributes[slot].contains(.polygon) }

    /// Priority for the current POI (lower first).
    @inline(__always)
    public func rank(at slot: Int) -> Int { storage.ranks[slot] }

    /// The library name, or nil.
    public func library(at slot: Int) -> String? {
        storage.attributes[slot].contains(.library) ? storage.libraries.string(slot) : nil
    }

    /// The library name's bytes, or nil (valid while the set lives).
    func libraryBytes(at slot: Int) -> UnsafeBufferPointer<UInt8>? {
        storage.attributes[slot].contains(.library) ? storage.libraries[slot] : nil
    }

    /// The fence's own dwell time in seconds, or nil.
    public func dwellSeconds(at slot: Int) -> Double? {
        storage.attributes[slot].contains(.dwell) ? storage.dwellSeconds[slot] : nil
    }

    /// The feature's 0-based position in its file (or in the array the set was built from).
    public func featureIndex(at slot: Int) -> Int { storage.featureIndexes[slot] }

    /// The pass-through properties as compact JSON text (valid while the set lives).
    func propertiesJSON(at slot: Int) -> UnsafeBufferPointer<UInt8> { storage.properties[slot] }

    /// The pass-through properties.
    public func properties(at slot: Int) -> JSONObject {
        // Written by JSONWriter (or checked when a compiled file was opened): valid JSON.
        (try? JSONParser.parse(UnsafeRawBufferPointer(storage.properties[slot])))?.objectValue ?? JSONObject()
    }

    /// The shape of the fence in `slot`.
    public func shape(at slot: Int) -> Fence.Shape {
        if isCircle(at: slot) {
            let c = storage.enclosingCircles[slot]
            return .circle(center: Coordinate(latitude: c.x, longitude: c.y), radius: c.z)
        }
        return .polygon(storage.shapes.multiPolygon(position: Int(storage.storageIndex[slot])))
    }

    /// The rings of the polygon in `slot` (exterior first in each part), as flat
    /// `[lon, lat, …]` buffers valid while the set lives; none for a circle.
    func rings(at slot: Int) -> [UnsafeBufferPointer<Double>] {
        storage.shapes.rings(position: Int(storage.storageIndex[slot])).map { storage.shapes.ring($0) }
    }

    /// One or two non-wrapping boxes around the fence in `slot`, as the index holds them
    /// (before its rounding to Float).
    public func boundingBoxes(at slot: Int) -> [BoundingBox] {
        if isCircle(at: slot) {
            let c = storage.enclosingCircles[slot]
            return CircleBounds.boxes(center: Coordinate(latitude: c.x, longitude: c.y), radius: c.z)
        }
        let p = Int(storage.storageIndex[slot])
        let exteriors = (Int(storage.shapes.partStarts[p])..<Int(storage.shapes.partStarts[p + 1])).map {
            BoundingBox(positions: storage.shapes.ring(Int(storage.shapes.ringStarts[$0])))
        }
        return BoundingBox.covering(exteriors)
    }

    /// Every fence's boxes with its slot, in slot order (the index entries): for the slow
    /// scans the indexed queries are checked against.
    /// - Complexity: O(n + v).
    package var entries: (boxes: [BoundingBox], slots: [Int32]) {
        var boxes: [BoundingBox] = [], slots: [Int32] = []
        for slot in 0..<count {
            for box in boundingBoxes(at: slot) {
                boxes.append(box)
                slots.append(Int32(slot))
            }
        }
        return (boxes, slots)
    }

    /// The fence in `slot`, made from the flat storage.
    /// - Complexity: O(v + p) for its vertices and properties.
    public func fence(at slot: Int) -> Fence {
        var fence = Fence(
            geofenceID: geofenceID(at: slot), shape: shape(at: slot), level: level(at: slot), library: library(at: slot),
            rank: rank(at: slot), dwellSeconds: dwellSeconds(at: slot), properties: properties(at: slot),
            featureIndex: featureIndex(at: slot))
        fence.enclosingCircle = enclosingCircle(at: slot)
        return fence
    }

    /// The fences in slot order (ascending id), each made on access.
    public var fences: Fences { Fences(fenceSet: self) }

    /// The fences of a set in slot order, made one at a time from its flat storage.
    public struct Fences: RandomAccessCollection, Sendable {
        let fenceSet: FenceSet
        public var startIndex: Int { 0 }
        public var endIndex: Int { fenceSet.count }
        public subscript(slot: Int) -> Fence { fenceSet.fence(at: slot) }
    }
}
