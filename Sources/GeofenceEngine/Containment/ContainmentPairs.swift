/// The (fix, fence) pairs of a batch containment query, in input order: fix indexes
/// ascending, and the fences of one fix by slot ascending (ascending id).
///
/// The caller owns it and passes it to every query: the arrays keep their capacity between
/// queries, so a warm batch allocates nothing.
public struct ContainmentPairs: Sendable, Equatable {
    /// For pair k, the index of the fix in the query's input.
    package internal(set) var fixes: [Int32] = []
    /// For pair k, the slot of a fence containing that fix.
    package internal(set) var slots: [Int32] = []

    public init() {}

    /// Number of pairs.
    public var count: Int { fixes.count }

    /// Pair `k`.
    public subscript(k: Int) -> (fix: Int, slot: Int) { (Int(fixes[k]), Int(slots[k])) }

    /// Empties both arrays, keeping their capacity.
    public mutating func removeAll() {
        fixes.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
    }

    /// Adds a pair.
    @inline(__always)
    mutating func append(fix: Int32, slot: Int32) {
        fixes.append(fix)
        slots.append(slot)
    }

    /// Replaces the pairs with `count` pairs that `body` writes through the two arrays'
    /// memory (fix indexes, then slots; not called for none), keeping capacity. `body` must
    /// write all `count` of each.
    ///
    /// The arrays are resized, not cleared first: what they held is overwritten, so only
    /// growth beyond their count is zeroed (an array cannot grow uninitialised). A warm call
    /// of the same size then writes each pair once; clearing and zeroing first was a second
    /// pass, 42 MB for the 5.3M pairs of 1M fixes at 100k fences, on the calling thread
    /// before the threads' copies in ``ParallelContainmentEvaluator``.
    /// - Complexity: O(count).
    mutating func fill(count: Int, _ body: (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> Void) {
        let had = fixes.count
        if had > count {
            fixes.removeLast(had &- count)
            slots.removeLast(had &- count)
        } else if had < count {
            fixes.append(contentsOf: repeatElement(0, count: count &- had))
            slots.append(contentsOf: repeatElement(0, count: count &- had))
        }
        guard count > 0 else { return }
        fixes.withUnsafeMutableBufferPointer { f in
            slots.withUnsafeMutableBufferPointer { s in body(f.baseAddress!, s.baseAddress!) }
        }
    }

    /// Replaces the pairs with `count` packed ones (`fix << 32 | slot`), keeping capacity.
    mutating func fill(from packed: UnsafePointer<UInt64>, count: Int) {
        fill(count: count) { f, s in Self.unpack(packed, count: count, fixes: f, slots: s, adding: 0) }
    }

    /// Writes `count` packed pairs (`fix << 32 | slot`) to `fixes` and `slots`, each fix index
    /// moved up by `offset` (a range's first fix, when a range's pairs join the batch's).
    @inline(__always)
    static func unpack(
        _ packed: UnsafePointer<UInt64>, count: Int, fixes f: UnsafeMutablePointer<Int32>, slots s: UnsafeMutablePointer<Int32>,
        adding offset: Int32
    ) {
        for k in 0..<count {
            f[k] = Int32(truncatingIfNeeded: packed[k] >> 32) &+ offset
            s[k] = Int32(truncatingIfNeeded: packed[k])
        }
    }
}

extension ContainmentPairs {
    /// The order in which a batch containment query visits its fixes (the answer is the same).
    public enum Order: Sendable, Hashable {
        /// Tile order when the fences' hot data outgrows the caches
        /// (``ContainmentEvaluator/sortingThreshold``) and the batch is large enough to gain from it;
        /// input order otherwise.
        case automatic
        /// Input order, in blocks whose cell lookups are issued together.
        case input
        /// Grouped by the directory's cells (by squares of cells when the fixes are too few for
        /// that), in input order within a group, so a cell's fences stay in cache while its fixes
        /// are tested; the pairs are put back in input order.
        case tiles
    }
}
