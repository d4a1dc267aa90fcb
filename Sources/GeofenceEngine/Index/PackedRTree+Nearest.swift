import GeofenceGeometry
import HeapModule

extension PackedRTree {
    /// One entry of the best-first queue.
    ///
    /// Ordered by `key` (metres), then `stage`, then `index`: at equal keys, nodes and
    /// unresolved items are expanded before a resolved item is reported, and resolved items
    /// come out by ascending value — which is how ties are broken by value (by fence id).
    @usableFromInline
    struct Pending: Comparable {
        /// Lower bound (stages 0 and 1) or exact distance (stage 2), metres.
        var key: Double
        /// 0: a node at `index` (a position); 1: an item at `index` (a position) whose exact
        /// distance is not known yet; 2: a value `index` with its exact distance.
        var stage: UInt8
        var index: Int32

        @usableFromInline
        static func < (a: Pending, b: Pending) -> Bool {
            if a.key != b.key { return a.key < b.key }
            if a.stage != b.stage { return a.stage < b.stage }
            return a.index < b.index
        }
    }

    /// The `count` values with the smallest exact distances to `point`, ascending by distance
    /// then value; each value at most once even when several items carry it.
    ///
    /// Best-first search (Hjaltason & Samet): a min-heap holds nodes and items keyed by the
    /// great-circle distance to their box (``BoundingBox/distance(to:)``, a lower bound of
    /// anything inside), and items once resolved keyed by `exactDistance`. A resolved item
    /// popped from the heap is nearer than anything not yet popped, so it is final.
    ///
    /// - Parameters:
    ///   - accept: whether an item's value takes part (filters); called once per item reached.
    ///   - exactDistance: metres from `point` to the thing the value stands for, given the
    ///     value and the lower bound of the first (nearest-boxed) item that carries it — 0 when
    ///     the point is in that box, more when it is outside every box of the value. The result
    ///     must be at least that bound; it is called at most once per value.
    /// - Complexity: O((m + k) log m) heap work for the m boxes whose lower bound is below the
    ///   k-th distance, plus k' exact distances for the k' ≥ k items reached — typically
    ///   O(log n + k) boxes on well-spread data; O(n log n) in the worst case.
    package func nearest<E: Error>(
        to point: Coordinate, count wanted: Int,
        accept: (Int32) -> Bool,
        exactDistance: (_ value: Int32, _ lowerBound: Double) throws(E) -> Double
    ) throws(E) -> [(value: Int32, distance: Double)] {
        let total = boxes.count
        guard total > 0, wanted > 0 else { return [] }
        var result: [(value: Int32, distance: Double)] = []
        result.reserveCapacity(Swift.min(wanted, count))
        var seen = Set<Int32>()
        var heap = Heap<Pending>()
        let n = count

        // Queue a box position: an item (if accepted) or a node.
        func enqueue(_ p: Int, into heap: inout Heap<Pending>) {
            if p < n {
                guard accept(refs[p]) else { return }
                heap.insert(Pending(key: boundingBox(at: p).distance(to: point), stage: 1, index: Int32(p)))
            } else {
                heap.insert(Pending(key: boundingBox(at: p).distance(to: point), stage: 0, index: Int32(p)))
            }
        }

        enqueue(total - 1, into: &heap)
        while let next = heap.popMin() {
            switch next.stage {
            case 0:
                let first = Int(refs[Int(next.index)])
                let end = Swift.min(first + nodeSize, levelEnd(containing: first))
                for child in first..<end { enqueue(child, into: &heap) }
            case 1:
                let value = refs[Int(next.index)]
                guard seen.insert(value).inserted else { continue }
                let d = try exactDistance(value, next.key)
                heap.insert(Pending(key: d, stage: 2, index: value))
            default:
                result.append((next.index, next.key))
                if result.count == wanted { return result }
            }
        }
        return result
    }
}
