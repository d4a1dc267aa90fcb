/// An immutable copy of an array in memory this object owns, for the per-fix hot paths.
///
/// Reading a Swift array held by a class costs reference-count traffic per access that the
/// optimizer cannot always remove (measured: 40 % of a 1k-fence containment query). The hot
/// paths instead read through plain pointers (see `ContainmentEvaluator.HotPath`), which stay
/// valid as long as this buffer lives — the fence set owns its buffers, and every evaluator
/// keeps its fence set alive. The contents never change after `init`.
final class FrozenBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    let base: UnsafeMutableBufferPointer<Element>

    init(_ elements: [Element]) {
        // Never empty, so `pointer` is never nil.
        base = .allocate(capacity: Swift.max(1, elements.count))
        _ = base.initialize(from: elements)
    }

    deinit { base.deallocate() }

    /// The first element's address (valid while `self` lives).
    var pointer: UnsafePointer<Element> { UnsafePointer(base.baseAddress!) }

    var count: Int { base.count }
}
