/// Memory for the large flat arrays the hot paths read at random (the fence set's index,
/// records, cells, edges and vertices) and the batch query's per-fix scratch: the allocator's
/// block, with huge pages asked for (``Platform/adviseHugePages(_:bytes:)``) when it is large.
///
/// Measured on the peers' world (one thread, 2026-11-26, glibc's `hugetlb` tunable, which
/// does the same for every block): one query per fix 8 % faster at 100k fences (TLB misses
/// on the cells, edges and vertices), 3 % at 10k; the batch 3 % at 100k; loading 100k
/// fences about a tenth faster (one fault per 2 MiB). Freed as usual (`deallocate`).
enum LargeAllocation {
    /// Blocks of at least this many bytes get the advice (smaller ones hold no whole huge
    /// page once aligned, or too few to matter).
    static let minimumBytes = 4 << 20

    /// Room for `count` elements (at least one), uninitialised.
    /// - Complexity: O(1).
    @inline(__always)
    static func allocate<Element>(_ type: Element.Type = Element.self, capacity count: Int) -> UnsafeMutablePointer<Element> {
        let capacity = Swift.max(1, count)
        let base = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        advise(UnsafeMutableRawPointer(base), bytes: capacity * MemoryLayout<Element>.stride)
        return base
    }

    /// Asks for huge pages over a fresh block of `bytes` (nothing for a small one).
    @inline(__always)
    static func advise(_ base: UnsafeMutableRawPointer, bytes: Int) {
        if bytes >= minimumBytes { Platform.adviseHugePages(base, bytes: bytes) }
    }
}
