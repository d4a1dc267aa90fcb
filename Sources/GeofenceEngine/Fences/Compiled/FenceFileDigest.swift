/// Section digests of the compiled fence file, computed in parallel (see `FenceFileFormat`).
enum FenceFileDigest {
    /// A region to digest: `payload` followed by zeros up to `paddedLength`.
    struct Region: @unchecked Sendable {
        let payload: UnsafeRawBufferPointer
        let paddedLength: Int

        var blockCount: Int { (paddedLength + FenceFileFormat.blockSize - 1) / FenceFileFormat.blockSize }
    }

    /// The digest of every region, its blocks hashed on `threads` threads. `extra` work items
    /// (checks that can run beside the hashing) are run on the same threads, as items
    /// `0 ..< extraCount` of `extra`.
    /// - Complexity: O(total bytes / threads).
    static func digests(
        _ regions: [Region], threads: Int, extraCount: Int = 0, extra: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> [UInt64] {
        var firstBlock: [Int] = [], blocks: [(region: Int, block: Int)] = []
        for (r, region) in regions.enumerated() {
            firstBlock.append(blocks.count)
            for b in 0..<region.blockCount { blocks.append((r, b)) }
        }
        let blockDigests = DisjointSlots<UInt64>(repeating: 0, count: blocks.count)
        let work = WorkList(regions: regions, blocks: blocks)
        // Extra items first: they are few and long, the blocks many and short.
        ParallelWorkers.run(count: extraCount + blocks.count, threads: threads) { item, _ in
            if item < extraCount { extra(item); return }
            let (r, b) = work.blocks[item - extraCount]
            blockDigests[item - extraCount] = blockDigest(work.regions[r], block: b)
        }
        return regions.indices.map { r in
            let digests = (0..<regions[r].blockCount).map { UInt64(littleEndian: blockDigests[firstBlock[r] + $0]) }
            return digests.withUnsafeBytes { XXH64.hash($0, seed: UInt64(regions[r].paddedLength)) }
        }
    }

    private struct WorkList: @unchecked Sendable {
        let regions: [Region]
        let blocks: [(region: Int, block: Int)]
    }

    /// XXH64, seeded with its number, of one block of a region (padding zeros included).
    static func blockDigest(_ region: Region, block: Int) -> UInt64 {
        let from = block * FenceFileFormat.blockSize
        let to = Swift.min(from + FenceFileFormat.blockSize, region.paddedLength)
        if to <= region.payload.count {
            return XXH64.hash(UnsafeRawBufferPointer(rebasing: region.payload[from..<to]), seed: UInt64(block))
        }
        // The block holding the end of the payload: payload bytes then zeros.
        var tail = [UInt8](repeating: 0, count: to - from)
        if region.payload.count > from {
            tail.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: region.payload[from...])) }
        }
        return tail.withUnsafeBytes { XXH64.hash($0, seed: UInt64(block)) }
    }
}
