import GeofenceGeometry

extension PackedRTree {
    /// Appends to `result` the value of every item whose box holds the point (edges included),
    /// in tree order; `result` is not cleared. An item reached through two boxes appears twice.
    ///
    /// Allocation-free once `result` has the capacity: the depth-first stack lives in a
    /// temporary allocation on the call stack.
    /// - Complexity: O(log n + k) expected for k hits on well-spread boxes (O(n) worst case,
    ///   when every box holds the point).
    package func search(latitude: Double, longitude: Double, into result: inout [Int32]) {
        // Rounding to nearest is monotonic, so a stored lane that is ≤ the exact coordinate is
        // also ≤ its rounding: no box that holds the point can be missed.
        let x = Float(longitude), y = Float(latitude)
        search(query: SIMD4(x, y, -x, -y), into: &result)
    }

    /// Appends to `result` the value of every item whose box shares a point with `box`, in
    /// tree order; `result` is not cleared.
    ///
    /// - Complexity: O(log n + k) expected for k hits.
    package func search(intersecting box: BoundingBox, into result: inout [Int32]) {
        guard !box.isEmpty else { return }
        // Stored (minX, minY, -maxX, -maxY) intersects the query when each lane is ≤
        // (qMaxX, qMaxY, -qMinX, -qMinY); round the query outward so nothing is missed.
        let q = SIMD4(
            Self.floatUp(box.maxLongitude), Self.floatUp(box.maxLatitude),
            Self.floatUp(-box.minLongitude), Self.floatUp(-box.minLatitude))
        search(query: q, into: &result)
    }

    /// The depth-first walk shared by the point and box searches: a stored box is visited
    /// when every lane of it is ≤ the matching lane of `query`.
    func search(query: SIMD4<Float>, into result: inout [Int32]) {
        let total = boxes.count
        guard total > 0 else { return }
        let n = count, nodeSize = nodeSize
        let boxes = self.boxes.pointer, refs = self.refs.pointer, levelEnds = self.levelEnds.pointer
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: stackCapacity) { stack in
            var top = 0
            // The root group: the last box alone.
            var group = total - 1
            var groupEnd = total
            while true {
                var p = group
                while p < groupEnd {
                    let b = boxes[p]
                    if all(b .<= query) {
                        if p < n {
                            result.append(refs[p])
                        } else {
                            stack[top] = refs[p]
                            top += 1
                        }
                    }
                    p += 1
                }
                if top == 0 { break }
                top -= 1
                group = Int(stack[top])
                var l = 0
                while levelEnds[l] <= group { l += 1 }
                groupEnd = Swift.min(group + nodeSize, levelEnds[l])
            }
        }
    }
}
