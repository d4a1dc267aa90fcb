/// Copies the records' polygon shapes into ``FenceShapes`` in storage order.
///
/// The offsets are laid out when it is made; then each chunk of records writes its shapes to
/// their places (``copy(_:slots:)``, chunks on any threads, each once) and can be freed at
/// once, so the records and the new arrays are not both whole at any moment. The builder runs
/// the chunks among its other independent tasks, so they fill the threads those leave idle.
final class FenceShapeScatter: @unchecked Sendable {
    private let n: Int
    /// By slot: where its parts, rings and positions go.
    private let places: [SIMD3<UInt32>]
    private let total: SIMD3<UInt32>
    private let partStarts, ringStarts, vertexStarts: SharedPointer<UInt32>
    private let vertices: SharedPointer<Double>

    /// Lays out the shapes: `order[k]` is the slot at position k; `sizes` gives each slot's
    /// parts, rings and positions.
    ///
    /// - Precondition: fewer than 2³¹ vertices.
    /// - Complexity: O(n).
    init(order: [Int], sizes: [SIMD3<UInt32>]) {
        n = order.count
        var base = [SIMD3<UInt32>](repeating: .zero, count: n)
        var total = SIMD3<UInt32>.zero
        for slot in order {
            base[slot] = total
            total &+= sizes[slot]
        }
        places = base
        self.total = total
        partStarts = .allocate(n + 1)
        ringStarts = .allocate(Int(total.x) + 1)
        vertexStarts = .allocate(Int(total.y) + 1)
        vertices = .allocate(2 * Int(total.z))
        for (k, slot) in order.enumerated() { partStarts[k] = base[slot].x }
        partStarts[n] = total.x
        ringStarts[Int(total.x)] = total.y
        vertexStarts[Int(total.y)] = total.z
    }

    /// Writes the shapes of one chunk of records (`slots[i]`: record i's slot, or −1 when it is
    /// not in the set).
    /// - Complexity: O(records + their parts, rings and positions).
    func copy(_ r: FenceRecords, slots: [Int32]) {
        r.vertices.withUnsafeBufferPointer { source in
            for i in 0..<r.count {
                let slot = Int(slots[i])
                guard slot >= 0 else { continue }
                let to = places[slot]
                let firstPart = Int(r.partStarts[i]), endPart = Int(r.partStarts[i + 1])
                let firstRing = Int(r.ringStarts[firstPart]), endRing = Int(r.ringStarts[endPart])
                let firstVertex = r.vertexStarts[firstRing], endVertex = r.vertexStarts[endRing]
                for part in firstPart..<endPart {
                    ringStarts[Int(to.x) + part - firstPart] = to.y + r.ringStarts[part] - UInt32(firstRing)
                }
                for ring in firstRing..<endRing {
                    vertexStarts[Int(to.y) + ring - firstRing] = to.z + r.vertexStarts[ring] - firstVertex
                }
                guard endVertex > firstVertex else { continue }
                (vertices.base + 2 * Int(to.z)).initialize(
                    from: source.baseAddress! + 2 * Int(firstVertex), count: 2 * Int(endVertex - firstVertex))
            }
        }
    }

    /// The shapes, once every chunk has been copied (call once).
    func shapes() -> FenceShapes {
        FenceShapes(
            partStarts: FrozenBuffer(adopting: partStarts.base, count: n + 1),
            ringStarts: FrozenBuffer(adopting: ringStarts.base, count: Int(total.x) + 1),
            vertexStarts: FrozenBuffer(adopting: vertexStarts.base, count: Int(total.y) + 1),
            vertices: FrozenBuffer(adopting: vertices.base, count: 2 * Int(total.z)))
    }
}
