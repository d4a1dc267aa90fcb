internal import CGEOSShim

/// The C heap that GEOS (and everything else) allocates from.
public enum CHeap {
    /// Hands memory already freed to the C heap back to the operating system
    /// (`gfs_heap_trim`, glibc's `malloc_trim(0)`): after fences are loaded and validated, the
    /// GeoJSON tree and GEOS's temporary geometries are freed but stay in the process unless
    /// given back. Call it before a large allocation of fresh pages, so the peak resident
    /// size is the larger of the two phases rather than their sum.
    ///
    /// - Returns: true when memory was released.
    /// - Complexity: O(heap size); a few milliseconds after loading 100k fences.
    @discardableResult
    public static func returnFreedMemory() -> Bool { gfs_heap_trim() == 1 }  // 1 released, 0 not
}
