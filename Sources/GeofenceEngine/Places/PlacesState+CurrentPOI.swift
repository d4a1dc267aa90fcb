@_spi(Engine) import GeofenceGeometry
/// The current POI rule (semantics §6): among the entered fences, the first by rank
/// ascending, then radius ascending (a polygon's is its minimum enclosing circle's), then a
/// third key, then id ascending. Total and deterministic.
///
/// The third key is the most recent entry (later entry time first) after fixes and
/// entry/exit signals, and the smaller distance from the fix to the fence's centre (the
/// circle's centre, or the polygon's minimum enclosing circle's) after a nearby
/// recalculation — the edge distance is 0 for every fence containing the fix, so it could
/// not break a tie.
extension PlacesState {
    /// The current POI after an entry or exit.
    /// - Complexity: O(e).
    static func currentByEntry(_ entered: [Entry], fences: FenceSet) -> Int32? {
        fences.storage.requireEverything("Places")
        let ranks = fences.storage.ranks.pointer, radii = fences.storage.enclosingCircles.pointer
        var best: Entry? = nil
        for entry in entered {
            guard let b = best else { best = entry; continue }
            let a = Int(entry.slot), c = Int(b.slot)
            if ranks[a] != ranks[c] {
                if ranks[a] < ranks[c] { best = entry }
            } else if radii[a].z != radii[c].z {
                if radii[a].z < radii[c].z { best = entry }
            } else if entry.since != b.since {
                if entry.since > b.since { best = entry }
            } else if entry.slot < b.slot {
                best = entry
            }
        }
        return best?.slot
    }

    /// The current POI after a nearby recalculation from `position`.
    /// - Complexity: O(e).
    static func currentByDistance(_ entered: [Entry], from position: Coordinate, fences: FenceSet) -> Int32? {
        fences.storage.requireEverything("Places")
        let ranks = fences.storage.ranks.pointer, radii = fences.storage.enclosingCircles.pointer
        var best: (slot: Int32, distance: Double)? = nil
        for entry in entered {
            let a = Int(entry.slot)
            let distance = Sphere.distance(position, fences.enclosingCircle(at: a).center)
            guard let b = best else { best = (entry.slot, distance); continue }
            let c = Int(b.slot)
            if ranks[a] != ranks[c] {
                if ranks[a] < ranks[c] { best = (entry.slot, distance) }
            } else if radii[a].z != radii[c].z {
                if radii[a].z < radii[c].z { best = (entry.slot, distance) }
            } else if distance != b.distance {
                if distance < b.distance { best = (entry.slot, distance) }
            } else if entry.slot < b.slot {
                best = (entry.slot, distance)
            }
        }
        return best?.slot
    }
}
