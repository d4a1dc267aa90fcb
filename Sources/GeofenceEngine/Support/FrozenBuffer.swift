/// An immutable array of plain values at a fixed address, for the fence set's flat storage
/// and the per-fix hot paths.
///
/// The elements live either in memory this buffer allocated (a set built in code or from
/// GeoJSON) or in a read-only mapping of a compiled fence file, which the buffer keeps alive
/// through a reference to it (``MappedFile``). Either way the contents never change after
/// `init`.
///
/// Reading a Swift array held by a class costs reference-count traffic per access that the
/// optimizer cannot always remove (measured: 40 % of a 1k-fence containment query). The hot
/// paths instead read through plain pointers (see `ContainmentEvaluator.HotPath`), which stay
/// valid as long as this buffer lives — the fence set owns its buffers, and every evaluator
/// keeps its fence set alive.
final class FrozenBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    /// The first element's address (valid while `self` lives; never nil, even when empty).
    let pointer: UnsafePointer<Element>
    let count: Int
    /// Who owns the elements, and so how they are freed.
    private let owner: Owner

    private enum Owner {
        /// Memory from `UnsafeMutablePointer.allocate`, freed by this buffer.
        case swift
        /// A block of the C allocator (``Platform/allocate(bytes:)``), freed by this buffer.
        case c
        /// A mapping the elements live in, kept alive by this buffer.
        case mapping(AnyObject)
    }

    /// A copy of `elements` in memory of its own.
    ///
    /// The copy is made inside `withUnsafeBufferPointer`: the pointer it lends is only valid
    /// there (an array that is a temporary, or whose last use this is, may be freed as soon as
    /// the closure returns; measured: a temporary's last words read back as a freed block's).
    convenience init(_ elements: [Element]) {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(1, elements.count))
        elements.withUnsafeBufferPointer { source in
            if let from = source.baseAddress, source.count > 0 { base.initialize(from: from, count: source.count) }
        }
        self.init(adopting: base, count: elements.count)
    }

    /// A copy of the elements in memory of its own (valid only during the call: they are copied).
    convenience init(copying elements: UnsafeBufferPointer<Element>) {
        // Never empty, so `pointer` is never nil.
        let base = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(1, elements.count))
        if let source = elements.baseAddress, elements.count > 0 {
            base.initialize(from: source, count: elements.count)
        }
        self.init(adopting: base, count: elements.count)
    }

    /// Takes over memory the caller allocated with `UnsafeMutablePointer.allocate` (at least
    /// one element's room) and filled: the buffer frees it.
    init(adopting base: UnsafeMutablePointer<Element>, count: Int) {
        pointer = UnsafePointer(base)
        self.count = count
        owner = .swift
    }

    /// Takes over a block of the C allocator (``Platform/allocate(bytes:)``, at least one
    /// element's room, aligned for the elements) holding `count` elements: the buffer frees it.
    init(adoptingAllocation block: UnsafeMutableRawPointer, count: Int) {
        pointer = UnsafePointer(block.assumingMemoryBound(to: Element.self))
        self.count = count
        owner = .c
    }

    /// `count` elements at `base` inside `mapping`, which this buffer keeps alive.
    init(mapped base: UnsafePointer<Element>, count: Int, in mapping: AnyObject) {
        pointer = base
        self.count = count
        owner = .mapping(mapping)
    }

    /// `count` elements built in place by `fill`, which must initialise all of them.
    convenience init(count: Int, fill: (UnsafeMutableBufferPointer<Element>) throws -> Void) rethrows {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(1, count))
        do {
            try fill(UnsafeMutableBufferPointer(start: base, count: count))
        } catch {
            base.deallocate()
            throw error
        }
        self.init(adopting: base, count: count)
    }

    deinit {
        switch owner {
        case .swift: UnsafeMutablePointer(mutating: pointer).deallocate()
        case .c: Platform.free(UnsafeMutableRawPointer(mutating: pointer))
        case .mapping: break
        }
    }

    /// The elements as a buffer (valid while `self` lives).
    var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: pointer, count: count) }

    /// The elements' bytes (valid while `self` lives).
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(buffer) }

    /// Element `i` (checked in debug builds only).
    @inline(__always)
    subscript(i: Int) -> Element {
        assert(i >= 0 && i < count, "index \(i) out of 0..<\(count)")
        return pointer[i]
    }

    /// Whether the elements live in a mapped file rather than in memory of their own.
    var isMapped: Bool {
        if case .mapping = owner { return true }
        return false
    }
}

/// A pointer into a ``FrozenBuffer``, for `Sendable` types that read it on every call: the
/// memory never changes and lives as long as the buffer, which the holder keeps alive.
struct FrozenPointer<Element: BitwiseCopyable>: @unchecked Sendable {
    let base: UnsafePointer<Element>

    /// The buffer's elements; the caller keeps `buffer` (or its owner) alive.
    init(_ buffer: FrozenBuffer<Element>) { base = buffer.pointer }

    @inline(__always)
    subscript(i: Int) -> Element { base[i] }
}
