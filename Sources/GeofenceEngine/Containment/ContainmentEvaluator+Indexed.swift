import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry
import RealModule

extension ContainmentEvaluator {
    /// Clears `result` and fills it with the slots of every fence containing the point on
    /// `level` (nil: no level), ascending — that is, in ascending id order.
    ///
    /// The hot path of batch evaluation: it allocates nothing once `result` has grown to the
    /// largest answer (plus duplicate candidates) it has seen. The R-tree appends candidate
    /// slots straight into `result`; they are sorted and deduplicated in place (a fence split
    /// at the antimeridian can be reached twice), then filtered in place by level and the
    /// exact test. `cos(latitude)` is computed only if a circle candidate needs it.
    /// Same answer as ``containingByScan(latitude:longitude:level:options:)``.
    /// - Complexity: O(log n + k log k) expected for k candidate boxes, plus k exact tests.
    ///
    /// Inlinable: the directory's coverage (``PointCoverage``) answers most points with few
    /// fences in the caller's own loop; the rest go on to the full query.
    @inlinable
    package func containing(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions = ContainmentOptions(),
        into result: inout [Int32]
    ) throws(GEOSError) {
        if !result.isEmpty { result.removeAll(keepingCapacity: true) }
        let cell = coverage.candidateCell(latitude: latitude, longitude: longitude)
        guard cell != -1 else { return }
        try containingCandidates(latitude: latitude, longitude: longitude, level: level, options: options, cell: cell, into: &result)
    }

    /// ``containing(latitude:longitude:level:options:into:)`` past the coverage's first look,
    /// `result` empty: `cell` is the directory cell it found (−2: the query finds it).
    @usableFromInline
    func containingCandidates(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions, cell: Int, into result: inout [Int32]
    ) throws(GEOSError) {
        // `self.hot` read in place: a local copy of the path's pointers was a 136-byte memcpy
        // call for every fix that reaches here.
        if hot.directoryEnabled {
            // Sorted by slot and without repeats already.
            let (first, end) = cell >= 0 ? hot.directory.entries(cell: cell) : hot.directory.entries(latitude: latitude, longitude: longitude)
            let count = hot.directory.keys(latitude: latitude, longitude: longitude, entries: first, end, writingTo: keyScratch)
            if count > 0 {
                let kept = try keepContaining(keys: keyScratch, count: count, latitude: latitude, longitude: longitude, level: level, options: options)
                for k in 0..<kept { result.append(Int32(truncatingIfNeeded: keyScratch[k] >> 32)) }
            }
        } else {
            try containingThroughTree(latitude: latitude, longitude: longitude, level: level, options: options, into: &result)
        }
    }

    /// The point query when the grid directory is off: the R-tree's candidates.
    private func containingThroughTree(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions, into result: inout [Int32]
    ) throws(GEOSError) {
        fenceSet.index.search(latitude: latitude, longitude: longitude, into: &result)
        guard !result.isEmpty else { return }
        Self.sortRemovingDuplicates(&result)
        var keys = result.map { CellDirectory.key(slot: $0, storage: hot.storage[Int($0)]) }
        result.removeAll(keepingCapacity: true)
        try keys.withUnsafeMutableBufferPointer { buffer throws(GEOSError) in
            let kept = try keepContaining(keys: buffer.baseAddress!, count: buffer.count, latitude: latitude, longitude: longitude, level: level, options: options)
            for k in 0..<kept { result.append(Int32(truncatingIfNeeded: buffer[k] >> 32)) }
        }
    }

    /// The exact step of every point query: keeps, in place and in order, the candidate keys
    /// whose fence holds the point on `level`, and returns how many it kept.
    @inline(__always)
    func keepContaining(
        keys: UnsafeMutablePointer<UInt64>, count: Int, latitude: Double, longitude: Double, level: Int?,
        options: ContainmentOptions
    ) throws(GEOSError) -> Int {
        // `self.hot` read in place, as in `containingCandidates`: a local copy was a 249-byte
        // memcpy call for every fix with a candidate (the polygon test takes the path by address).
        // The same constant as Sphere.degreesToRadians, as a literal: the cross-module static
        // costs an accessor call per query.
        let degreesToRadians = Double.pi / 180.0
        let latR = latitude * degreesToRadians, lonR = longitude * degreesToRadians
        var kept = 0
        for k in 0..<count {
            let key = keys[k]
            let position = Int(UInt32(truncatingIfNeeded: key))
            guard hot.levelMatches(position: position, level: level, options: options) else { continue }
            let circle = hot.records[2 &* position], high = hot.records[2 &* position &+ 1]
            // The answers are counted without branching on them: inside and outside follow no
            // pattern a predictor could learn.
            let inside: Int
            if circle.w >= 0 {
                inside = Sphere.capCount(
                    circle.w, latitude1: latR, longitude1: lonR,
                    latitude2: circle.x, longitude2: circle.y, cosLatitude2: circle.z, sinLatitude2: high.x)
            } else {
                let result = HotPath.polygonTest(hot.polygons, hot.cells, position: position, circle, high, x: longitude, y: latitude)
                inside = try answerBit(result, slot: Int(key >> 32), latitude: latitude, longitude: longitude)
            }
            keys[kept] = key
            kept &+= inside
        }
        return kept
    }

    /// ``containing(latitude:longitude:level:options:into:)`` as fence distances (all 0): the
    /// observation of a fix when no tolerance or accuracy buffer is asked for.
    package func containingDistances(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions = ContainmentOptions(),
        into result: inout [FenceDistance]
    ) throws(GEOSError) {
        var slots = candidates
        candidates = []
        defer { candidates = slots }
        try containingDistances(latitude: latitude, longitude: longitude, level: level, options: options, slots: &slots, into: &result)
    }

    /// ``containingDistances(latitude:longitude:level:options:into:)`` with the caller's slot
    /// buffer: the batch's per-fix path, which keeps its own buffers instead of swapping the
    /// evaluator's in and out (a property access with an exclusivity check) on every fix.
    @inline(__always)
    package func containingDistances(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions,
        slots: inout [Int32], into result: inout [FenceDistance]
    ) throws(GEOSError) {
        try containing(latitude: latitude, longitude: longitude, level: level, options: options, into: &slots)
        if !result.isEmpty { result.removeAll(keepingCapacity: true) }
        for s in slots { result.append(FenceDistance(slot: s, distance: 0)) }
    }

    /// Clears `result` and fills it with every fence whose edge is within `buffer(slot)`
    /// metres of the point (distance 0 when it covers the point), on `level`, ascending by
    /// slot. `maximumBuffer` must be at least every `buffer(slot)`.
    ///
    /// Candidates come from the R-tree: the boxes meeting the box(es) of the cap of radius
    /// `maximumBuffer` around the point (the point itself when it is 0), from
    /// ``CircleBounds/boxPair(center:radius:)``, which allocates nothing. Allocation-free once
    /// warm (each polygon's edge runs are built on its first distance), apart from what
    /// `buffer` does. Same answer as
    /// ``fencesWithinByScan(latitude:longitude:level:options:maximumBuffer:buffer:)``.
    /// - Complexity: O(log n + k log k) expected for k candidate boxes, plus their exact
    ///   distances (O(v) for a polygon of v vertices).
    package func fencesWithin(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions = ContainmentOptions(),
        maximumBuffer: Double, buffer: (Int) -> Double, into result: inout [FenceDistance]
    ) throws(GEOSError) {
        result.removeAll(keepingCapacity: true)
        var slots = candidates
        candidates = []
        defer { candidates = slots }
        slots.removeAll(keepingCapacity: true)
        if maximumBuffer > 0 {
            let (first, second) = CircleBounds.boxPair(
                center: Coordinate(latitude: latitude, longitude: longitude), radius: maximumBuffer)
            fenceSet.index.search(intersecting: first, into: &slots)
            fenceSet.index.search(intersecting: second, into: &slots)
        } else if hot.directoryEnabled {
            var keys = candidateKeys
            candidateKeys = []
            defer { candidateKeys = keys }
            keys.removeAll(keepingCapacity: true)
            hot.directory.search(latitude: latitude, longitude: longitude, into: &keys)
            for k in keys { slots.append(Int32(truncatingIfNeeded: k >> 32)) }
        } else {
            fenceSet.index.search(latitude: latitude, longitude: longitude, into: &slots)
        }
        guard !slots.isEmpty else { return }
        Self.sortRemovingDuplicates(&slots)
        for s in slots {
            let slot = Int(s)
            guard fenceSet.levelMatches(slot: slot, level: level, options: options) else { continue }
            let limit = buffer(slot)
            if limit <= 0 {
                if try covers(slot: slot, latitude: latitude, longitude: longitude) {
                    result.append(FenceDistance(slot: s, distance: 0))
                }
                continue
            }
            let d = try indexedDistance(slot: slot, latitude: latitude, longitude: longitude, outsideBoxes: false)
            if d <= limit { result.append(FenceDistance(slot: s, distance: d)) }
        }
    }

    /// Sorts `a` ascending and removes repeats, in place and without allocating: insertion
    /// sort for the usual handful of candidates, heapsort beyond that.
    /// - Complexity: O(k²) for k ≤ 32, O(k log k) above.
    @inline(__always)
    static func sortRemovingDuplicates(_ a: inout [Int32]) {
        let k = a.count
        guard k > 1 else { return }
        let unique = a.withUnsafeMutableBufferPointer { p -> Int in
            if k <= 32 {
                for i in 1..<k {
                    let x = p[i]
                    var j = i
                    while j > 0 && p[j - 1] > x { p[j] = p[j - 1]; j -= 1 }
                    p[j] = x
                }
            } else {
                heapSort(p)
            }
            var w = 1
            for r in 1..<k where p[r] != p[w - 1] {
                p[w] = p[r]
                w += 1
            }
            return w
        }
        a.removeLast(k - unique)
    }

    /// In-place ascending heapsort (no scratch memory, unlike the standard library's sort).
    static func heapSort(_ p: UnsafeMutableBufferPointer<Int32>) {
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while 2 * root + 1 < end {
                var child = 2 * root + 1
                if child + 1 < end && p[child] < p[child + 1] { child += 1 }
                if p[root] >= p[child] { return }
                p.swapAt(root, child)
                root = child
            }
        }
        let k = p.count
        var start = k / 2 - 1
        while start >= 0 { siftDown(start, k); start -= 1 }
        var end = k - 1
        while end > 0 {
            p.swapAt(0, end)
            siftDown(0, end)
            end -= 1
        }
    }
}
