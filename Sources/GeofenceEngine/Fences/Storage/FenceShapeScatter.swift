/// Copies the records' polygon shapes into ``FenceShapes`` in storage order.
enum FenceShapeScatter {
    /// The shapes of the set by storage position (`order[k]` is the slot at position k;
    /// `sizes` gives each slot's parts, rings and positions, `recordSlots` each record's slot).
    /// The offsets are laid out first; then each chunk of records writes its shapes to their
    /// places (chunks on `threads` threads) and is freed at once, so the records and the new
    /// arrays are not both whole at any moment.
    ///
    /// - Precondition: fewer than 2³¹ vertices.
    /// - Complexity: O(n + v).
    static func scatter(
        _ chunks: inout [FenceRecords], order: [Int], sizes: [SIMD3<UInt32>], recordSlots: [[Int32]], threads: Int
    ) -> FenceShapes {
        let n = order.count
        // Where each slot's parts, rings and positions go.
        var base = [SIMD3<UInt32>](repeating: .zero, count: n)
        var total = SIMD3<UInt32>.zero
        for slot in order {
            base[slot] = total
            total &+= sizes[slot]
        }
        let partStarts = SharedPointer<UInt32>.allocate(n + 1), ringStarts = SharedPointer<UInt32>.allocate(Int(total.x) + 1)
        let vertexStarts = SharedPointer<UInt32>.allocate(Int(total.y) + 1), vertices = SharedPointer<Double>.allocate(2 * Int(total.z))
        for (k, slot) in order.enumerated() { partStarts[k] = base[slot].x }
        partStarts[n] = total.x
        ringStarts[Int(total.x)] = total.y
        vertexStarts[Int(total.y)] = total.z
        let places = base
        chunks.withUnsafeMutableBufferPointer { buffer in
            let records = SharedPointer(buffer.baseAddress!)
            ParallelWorkers.run(count: buffer.count, threads: threads) { c, _ in
                let r = records[c]
                r.vertices.withUnsafeBufferPointer { source in
                    for i in 0..<r.count {
                        let slot = Int(recordSlots[c][i])
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
                // Free this chunk's records now (each chunk is touched by one worker only).
                (records.base + c).pointee.release()
            }
        }
        return FenceShapes(
            partStarts: FrozenBuffer(adopting: partStarts.base, count: n + 1),
            ringStarts: FrozenBuffer(adopting: ringStarts.base, count: Int(total.x) + 1),
            vertexStarts: FrozenBuffer(adopting: vertexStarts.base, count: Int(total.y) + 1),
            vertices: FrozenBuffer(adopting: vertices.base, count: 2 * Int(total.z)))
    }
}
