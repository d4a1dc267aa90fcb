/// Memory one thread reuses from call to call: grown when asked for more, never shrunk, freed
/// with the object. Only its owning thread touches it.
final class ScratchMemory: @unchecked Sendable {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0

    init() {}

    deinit { base?.deallocate() }

    /// At least `bytes` bytes, 16-byte aligned; the contents are undefined.
    func reserve(_ bytes: Int) -> UnsafeMutableRawPointer {
        if bytes > capacity || base == nil {
            base?.deallocate()
            capacity = Swift.max(bytes, capacity * 2, 1 << 16)
            base = .allocate(byteCount: capacity, alignment: 16)
        }
        return base!
    }
}
