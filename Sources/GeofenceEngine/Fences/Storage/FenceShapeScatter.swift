/// Copies the records' polygon shapes into ``FenceShapes`` in storage order.
enum FenceShapeScatter {
    /// The shapes of the slots' records, by storage position (`order[k]` is the slot at
    /// position k). Each chunk's vertices are freed as soon as they are copied, so the records
    /// and the new arrays are not both whole at any moment.
    ///
    /// - Precondition: fewer than 2³¹ vertices (``FenceSetLimits`` checks it before).
    /// - Complexity: O(n + v).
    static func scatter(_ chunks: inout [FenceRecords], slots: [RecordReference], order: [Int]) -> FenceShapes {
        let n = order.count
        // Offsets in storage order.
        var partStarts = [UInt32](), ringStarts = [UInt32](), vertexStarts = [UInt32]()
        partStarts.reserveCapacity(n + 1)
        partStarts.append(0)
        ringStarts.append(0)
        vertexStarts.append(0)
        // For each record: its storage position's first vertex, for the copy below.
        var destination = chunks.map { [Int](repeating: -1, count: $0.count) }
        for slot in order {
            let ref = slots[slot]
            let r = chunks[Int(ref.chunk)], i = Int(ref.index)
            destination[Int(ref.chunk)][i] = Int(vertexStarts[vertexStarts.count - 1])
            for part in Int(r.partStarts[i])..<Int(r.partStarts[i + 1]) {
                for ring in Int(r.ringStarts[part])..<Int(r.ringStarts[part + 1]) {
                    let size = r.vertexStarts[ring + 1] - r.vertexStarts[ring]
                    vertexStarts.append(vertexStarts[vertexStarts.count - 1] + size)
                }
                ringStarts.append(UInt32(vertexStarts.count - 1))
            }
            partStarts.append(UInt32(ringStarts.count - 1))
        }
        let vertexCount = Int(vertexStarts[vertexStarts.count - 1])
        let vertices = UnsafeMutablePointer<Double>.allocate(capacity: Swift.max(1, 2 * vertexCount))
        for c in chunks.indices {
            let r = chunks[c]
            r.vertices.withUnsafeBufferPointer { source in
                for i in 0..<r.count where destination[c][i] >= 0 {
                    let firstRing = Int(r.ringStarts[Int(r.partStarts[i])])
                    let endRing = Int(r.ringStarts[Int(r.partStarts[i + 1])])
                    let from = 2 * Int(r.vertexStarts[firstRing]), to = 2 * Int(r.vertexStarts[endRing])
                    guard to > from else { continue }
                    (vertices + 2 * destination[c][i]).initialize(from: source.baseAddress! + from, count: to - from)
                }
            }
            chunks[c].release()
        }
        return FenceShapes(
            partStarts: FrozenBuffer(partStarts), ringStarts: FrozenBuffer(ringStarts),
            vertexStarts: FrozenBuffer(vertexStarts), vertices: FrozenBuffer(adopting: vertices, count: 2 * vertexCount))
    }
}
