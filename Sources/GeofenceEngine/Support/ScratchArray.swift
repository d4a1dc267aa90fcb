/// A growable array of plain values that one thread reuses in its hot loops: raw memory, no
/// copy-on-write and no uniqueness check per write (Swift arrays held in a scratch struct
/// paid one per element: measured 4 % of a 100k-fence load).
///
/// Only its owning thread touches it. Growing keeps the elements; nothing is ever shrunk.
/// The memory comes from the C allocator, so growing is a `realloc`: a large array grows by
/// remapping its pages, neither copying them nor touching new ones twice (elements aligned to
/// more than 16 bytes, which `malloc` does not promise, are copied instead). ``frozen()``
/// hands the elements to a ``FrozenBuffer`` without a copy.
final class ScratchArray<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var capacity: Int
    /// Elements in use: `base[0 ..< count]`.
    var count = 0

    /// True when `malloc`'s 16-byte alignment serves the elements.
    private static var fromC: Bool { MemoryLayout<Element>.alignment <= 16 }

    init(capacity: Int = 64) {
        self.capacity = Swift.max(1, capacity)
        base = Self.allocate(self.capacity)
    }

    deinit { Self.free(base) }

    private static func allocate(_ n: Int) -> UnsafeMutablePointer<Element> {
        guard fromC else { return .allocate(capacity: n) }
        guard let memory = Platform.allocate(bytes: n * MemoryLayout<Element>.stride) else { Self.refused(n) }
        return memory.bindMemory(to: Element.self, capacity: n)
    }

    private static func free(_ p: UnsafeMutablePointer<Element>) {
        if fromC { Platform.free(UnsafeMutableRawPointer(p)) } else { p.deallocate() }
    }

    private static func refused(_ n: Int) -> Never {
        fatalError("out of memory: \(n * MemoryLayout<Element>.stride) bytes for a scratch array")
    }

    /// Makes room for `n` elements in all, keeping those in use.
    /// - Complexity: O(1) amortised; O(count) when it grows and the block must move.
    @inline(__always)
    func reserve(_ n: Int) {
        if n > capacity { grow(n) }
    }

    private func grow(_ n: Int) {
        let wanted = Swift.max(n, 2 * capacity)
        if Self.fromC {
            guard let grown = Platform.reallocate(UnsafeMutableRawPointer(base), bytes: wanted * MemoryLayout<Element>.stride) else {
                Self.refused(wanted)
            }
            base = grown.bindMemory(to: Element.self, capacity: wanted)
        } else {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: wanted)
            grown.initialize(from: base, count: count)
            base.deallocate()
            base = grown
        }
        capacity = wanted
    }

    /// `n` elements, every one `value` (count becomes `n`).
    func reset(count n: Int, to value: Element) {
        reserve(n)
        base.initialize(repeating: value, count: n)
        count = n
    }

    @inline(__always)
    func append(_ value: Element) {
        if count == capacity { grow(count + 1) }
        base[count] = value
        count &+= 1
    }

    /// Appends `n` elements from `source`.
    @inline(__always)
    func append(_ source: UnsafePointer<Element>, count n: Int) {
        reserve(count + n)
        (base + count).initialize(from: source, count: n)
        count += n
    }

    @inline(__always)
    subscript(i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }

    /// The elements in use as a frozen buffer, without a copy (the block is trimmed to them);
    /// this array is left empty, with fresh memory of its own.
    func frozen() -> FrozenBuffer<Element> {
        var memory = base
        if Self.fromC, count < capacity, let trimmed = Platform.reallocate(UnsafeMutableRawPointer(base), bytes: Swift.max(1, count) * MemoryLayout<Element>.stride) {
            memory = trimmed.bindMemory(to: Element.self, capacity: Swift.max(1, count))
        }
        let buffer = Self.fromC
            ? FrozenBuffer(adoptingAllocation: UnsafeMutableRawPointer(memory), count: count)
            : FrozenBuffer(adopting: memory, count: count)
        capacity = 1
        base = Self.allocate(1)
        count = 0
        return buffer
    }
}

extension ScratchArray {
    /// Appends another scratch array's elements.
    func append(_ other: ScratchArray<Element>) { append(other.base, count: other.count) }
}
