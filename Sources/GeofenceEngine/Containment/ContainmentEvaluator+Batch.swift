import GeofenceGEOS

/// The answers of a batch containment query, in the input's order: the fences of point `i`
/// are `slots[offsets[i] ..< offsets[i + 1]]`, ascending.
package struct ContainmentAnswers: Sendable {
    package var offsets: [Int32] = [0]
    package var slots: [Int32] = []

    package init() {}

    /// Number of points answered.
    package var count: Int { offsets.count - 1 }

    /// The slots containing point `i`, ascending.
    package subscript(i: Int) -> ArraySlice<Int32> { slots[Int(offsets[i])..<Int(offsets[i + 1])] }
}

extension ContainmentEvaluator {
    /// Answers containment for many points at once, faster than one query per point: the
    /// points are put in grid-cell order first (a radix sort of their cell numbers), so that
    /// consecutive queries read the same cell and the same fences while they are in cache;
    /// the answers are then put back in the input's order.
    ///
    /// Same answers as ``containing(latitude:longitude:level:options:into:)`` point by point.
    /// `coordinates` holds `[lat0, lon0, lat1, lon1, …]`. `sortByCell` forces the choice;
    /// by default the points are sorted only when the fences' hot data is larger than
    /// ``sortingThreshold`` (below it the data stays in cache and the sort costs more than it saves).
    /// - Complexity: O(n) for the sort and the scatter, plus the per-point queries.
    package func containing(
        coordinates: UnsafeBufferPointer<Double>, level: Int? = nil, options: ContainmentOptions = ContainmentOptions(),
        sortByCell: Bool? = nil, into answers: inout ContainmentAnswers
    ) throws(GEOSError) {
        let n = coordinates.count / 2
        answers.offsets.removeAll(keepingCapacity: true)
        answers.slots.removeAll(keepingCapacity: true)
        answers.offsets.append(0)
        guard n > 0 else { return }
        let hot = self.hot
        guard hot.directoryEnabled, n < Int(UInt32.max), sortByCell ?? (fenceSet.hotBytes >= Self.sortingThreshold) else {
            // No grid to order by, or the fences' hot data fits in cache anyway (then the sort
            // costs more than it saves: measured at 1k and 10k fences): one query per point.
            var buffer: [Int32] = []
            for i in 0..<n {
                try containing(latitude: coordinates[2 * i], longitude: coordinates[2 * i + 1], level: level, options: options, into: &buffer)
                answers.slots.append(contentsOf: buffer)
                answers.offsets.append(Int32(answers.slots.count))
            }
            return
        }
        // Sort the points themselves (24 bytes: cell << 32 | input index, and the coordinates)
        // so the queries read them in sequence. Points outside the grid sort last.
        var points = [SortedPoint](unsafeUninitializedCapacity: n) { buffer, count in
            for i in 0..<n {
                let lat = coordinates[2 * i], lon = coordinates[2 * i + 1]
                let cell = hot.directory.cell(latitude: lat, longitude: lon)
                buffer[i] = SortedPoint(key: UInt64(cell) << 32 | UInt64(i), latitude: lat, longitude: lon)
            }
            count = n
        }
        Self.radixSortByHighWord(&points)
        // Query in cell order; remember (input index, slot) pairs.
        var found: [UInt64] = []
        found.reserveCapacity(n / 4)
        var counts = [Int32](repeating: 0, count: n + 1)
        var buffer: [Int32] = []
        for point in points {
            let i = Int(UInt32(truncatingIfNeeded: point.key))
            try containing(latitude: point.latitude, longitude: point.longitude, level: level, options: options, into: &buffer)
            if buffer.isEmpty { continue }
            counts[i + 1] = Int32(buffer.count)
            for s in buffer { found.append(UInt64(i) << 32 | UInt64(UInt32(bitPattern: s))) }
        }
        // Back to input order: prefix sums, then each point's slots in place (already ascending).
        for i in 0..<n { counts[i + 1] += counts[i] }
        answers.offsets = counts
        answers.slots = [Int32](repeating: 0, count: Int(counts[n]))
        var cursor = counts
        for pair in found {
            let i = Int(pair >> 32)
            answers.slots[Int(cursor[i])] = Int32(bitPattern: UInt32(truncatingIfNeeded: pair))
            cursor[i] += 1
        }
    }

    /// Bytes of hot fence data (directory, circle records, polygon edges) above which sorting
    /// the points pays: measured 1.7× faster at 100k fences (about 40 MB), slower at 10k (4 MB).
    package static let sortingThreshold = 16 << 20

    /// A point in the sort: `cell << 32 | input index`, and its coordinates.
    struct SortedPoint {
        var key: UInt64
        var latitude: Double
        var longitude: Double
    }

    /// Sorts by the upper 32 bits of the key (stable), two passes of 16 bits.
    static func radixSortByHighWord(_ points: inout [SortedPoint]) {
        var scratch = points
        for shift in [32, 48] as [UInt64] {
            var counts = [Int](repeating: 0, count: 65_537)
            let first = (points.first?.key ?? 0) >> shift & 0xFFFF
            var allSame = true
            for p in points {
                let b = Int(p.key >> shift & 0xFFFF)
                counts[b + 1] += 1
                if UInt64(b) != first { allSame = false }
            }
            if allSame { continue }
            for b in 0..<65_536 { counts[b + 1] += counts[b] }
            scratch.withUnsafeMutableBufferPointer { out in
                for p in points {
                    let b = Int(p.key >> shift & 0xFFFF)
                    out[counts[b]] = p
                    counts[b] += 1
                }
            }
            swap(&points, &scratch)
        }
    }
}
