/// A growable array of plain values that one thread reuses in its hot loops: raw memory, no
/// copy-on-write and no uniqueness check per write (Swift arrays held in a scratch struct
/// paid one per element: measured 4 % of a 100k-fence load).
///
/// Only its owning thread touches it. Growing keeps the elements; nothing is ever shrunk.
final class ScratchArray<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var capacity: Int
    /// Elements in use: `base[0 ..< count]`.
    var count = 0

    init(capacity: Int = 64) {
        self.capacity = Swift.max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `n` elements in all, keeping those in use.
    /// - Complexity: O(count) when it grows (to at least twice the capacity), else O(1).
    @inline(__always)
    func reserve(_ n: Int) {
        if n > capacity { grow(n) }
    }

    private func grow(_ n: Int) {
        let wanted = Swift.max(n, 2 * capacity)
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: wanted)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
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

    @inline(__always)
    subscript(i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }
}
