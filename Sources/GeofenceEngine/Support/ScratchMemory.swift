/// Memory one thread reuses from call to call: grown when asked for more, never shrunk, freed
/// with the object. Only its owning thread touches it, once ``prepare(_:)`` made it large
/// enough (on the thread that hands out the work, where a refusal can be reported).
final class ScratchMemory: @unchecked Sendable {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0

    init() {}

    deinit { if let base { Platform.free(base) } }

    /// Makes room for `bytes` bytes (16-byte aligned); false when the memory is refused.
    func prepare(_ bytes: Int) -> Bool {
        if bytes <= capacity && base != nil { return true }
        let wanted = Swift.max(bytes, 1 << 16)
        let generous = Swift.max(wanted, capacity * 2)
        var size = generous
        var memory = Platform.allocate(bytes: generous)  // malloc: 16-byte aligned
        if memory == nil && generous > wanted {
            size = wanted
            memory = Platform.allocate(bytes: wanted)
        }
        guard let memory else { return false }
        if let base { Platform.free(base) }
        base = memory
        capacity = size
        return true
    }

    /// At least `bytes` bytes, 16-byte aligned; the contents are undefined. Callers
    /// ``prepare(_:)`` first; growing here cannot report a refusal.
    func reserve(_ bytes: Int) -> UnsafeMutableRawPointer {
        if !prepare(bytes) { fatalError("scratch memory of \(bytes) bytes was not prepared and is refused") }
        return base!
    }
}
