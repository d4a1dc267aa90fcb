/// A fence's content fingerprint: what decides whether a fence republished under the same id
/// has changed (its geometry, radius or level; not its properties, library, rank or dwell).
extension FenceSet {
    /// The 64-bit fingerprint of the fence in `slot`: XXH64 over its kind, level and shape
    /// (a circle's centre and radius; a polygon's parts, rings and vertices, as stored).
    /// Equal fingerprints mean the same geometry, radius and level, up to a 2^-64 chance.
    /// A compiled file stores every fence's (section `FPRT`), so a set opened from one
    /// answers without hashing.
    ///
    /// - Complexity: O(1) for a set opened from a compiled file with fingerprints; else O(v)
    ///   for the fence's v vertices, computed on each call.
    public func fingerprint(at slot: Int) -> UInt64 {
        if let stored = storage.fingerprints { return stored[slot] }
        return computedFingerprint(at: slot)
    }

    /// The fingerprint computed from the stored shape: what ``fingerprint(at:)`` answers for
    /// a set without stored fingerprints, and what a compiled file's `FPRT` must hold.
    /// - Complexity: O(v) for the fence's v vertices.
    package func computedFingerprint(at slot: Int) -> UInt64 {
        var words: [UInt64] = []
        let level = storage.levels[slot]
        if isCircle(at: slot) {
            let c = storage.enclosingCircles[slot]
            words = [1, UInt64(bitPattern: Int64(level)), c.x.bitPattern, c.y.bitPattern, c.z.bitPattern]
        } else {
            let shapes = storage.shapes
            let p = Int(storage.storageIndex[slot])
            words = [2, UInt64(bitPattern: Int64(level))]
            for part in Int(shapes.partStarts[p])..<Int(shapes.partStarts[p + 1]) {
                words.append(0xFFFF_0000_0000_0001)  // a part starts
                for r in Int(shapes.ringStarts[part])..<Int(shapes.ringStarts[part + 1]) {
                    let ring = shapes.ring(r)
                    words.append(0xFFFF_0000_0000_0002 &+ UInt64(ring.count))  // a ring of this many numbers
                    for value in ring { words.append(value.bitPattern) }
                }
            }
        }
        return words.withUnsafeBytes { XXH64.hash($0, seed: 0x6765_6f66_656e_6365) }
    }
}
