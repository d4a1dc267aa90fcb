import GeofenceGeometry

// Memory layout (flatbush-style packed Hilbert R-tree, no node objects)
// ----------------------------------------------------------------------
// `n` items and every node live in ONE flat array of boxes, level by level, leaves first:
//
//     position:  0 ........ n-1 | n ...... n+m1-1 | ... | total-1
//     level:     items (level 0) | level 1 nodes    | ... | root
//
// * `boxes[p]` is a `SIMD4<Float>` = (minLon, minLat, -maxLon, -maxLat). Each component is the
//   Float32 rounded DOWN from the Double value (`nextDown` when rounding went up), so the stored
//   box always holds the true one. Storing the negated maxima turns "point in box" and
//   "box intersects box" into one 4-lane `<=` compare, and the union of boxes into a 4-lane min.
//   16 bytes per box instead of 32 for Double; the cost is up to one Float ulp of slack
//   (about 0.85 m at |lon| near 180, less elsewhere), which only adds rare candidates that the
//   exact test then rejects.
// * `refs[p]`: for an item (p < n) its value (a fence slot); for a node, the position of its
//   first child. A node's children are consecutive: up to `nodeSize`, cut at the end of the
//   child level.
// * `levelEnds[l]`: one past the last position of level l (`levelEnds[0] == n`).
//
// Items are ordered along a Hilbert curve of their box centres (16 bits per axis over the
// items' extent); groups of `nodeSize` consecutive items make the level-1 nodes, and so on up
// to a single root. The tree is built once and never changes: immutable flat buffers (owned,
// or ranges of a compiled fence file), freely `Sendable`.
//
// Memory: 20 bytes per item and per node: about 20 · n · (1 + 1/15 + 1/225 + …) ≈ 21.4 · n bytes.

/// A static packed R-tree over lon/lat boxes, bulk-loaded in Hilbert order.
///
/// Build it once from boxes that do not wrap (split antimeridian-crossing shapes into two
/// boxes first, as ``FenceSet`` does); query it from any number of threads.
package final class PackedRTree: Sendable {
    /// Children per node.
    package let nodeSize: Int
    /// Number of items (boxes given to the initialiser).
    package let count: Int
    /// Item and node boxes, see the layout above.
    let boxes: FrozenBuffer<SIMD4<Float>>
    /// Item values, then nodes' first-child positions.
    let refs: FrozenBuffer<Int32>
    /// One past the last position of each level, leaves first.
    let levelEnds: FrozenBuffer<Int>

    /// Default children per node: 16 boxes of 16 bytes are four cache lines, and a wider node
    /// makes the tree shallower at little extra compare cost.
    package static let defaultNodeSize = 16

    /// Bulk-loads the tree.
    ///
    /// - Parameters:
    ///   - boxes: non-empty, non-wrapping boxes with finite bounds, one per item.
    ///   - values: the value reported for each item (same count as `boxes`).
    ///   - nodeSize: children per node, 2…65,536.
    /// - Complexity: O(n log n) for n items (one sort of Hilbert keys), O(n) memory.
    package convenience init(boxes items: [BoundingBox], values: [Int32], nodeSize: Int = PackedRTree.defaultNodeSize) {
        self.init(boxes: items, values: values, order: Self.hilbertOrder(items), nodeSize: nodeSize)
    }

    /// The tree with the items' Hilbert order already computed (``hilbertOrder(_:)`` of `items`).
    init(boxes items: [BoundingBox], values: [Int32], order: [Int], nodeSize: Int = PackedRTree.defaultNodeSize) {
        precondition(items.count == values.count, "one value per box")
        precondition(nodeSize >= 2 && nodeSize <= 65_536, "nodeSize must be in 2...65536")
        precondition(items.count < Int(Int32.max) / 2, "too many items for 32-bit positions")
        self.nodeSize = nodeSize
        count = items.count
        let n = items.count
        guard n > 0 else {
            boxes = FrozenBuffer([])
            refs = FrozenBuffer([])
            levelEnds = FrozenBuffer([])
            stackCapacity = 1
            return
        }
        var total = n, levelSize = n
        repeat {
            levelSize = (levelSize + nodeSize - 1) / nodeSize
            total += levelSize
        } while levelSize > 1
        if n == 1 { total = 1 }

        var boxes = [SIMD4<Float>](repeating: .zero, count: total)
        var refs = [Int32](repeating: 0, count: total)
        var levelEnds: [Int] = [n]
        for (position, item) in order.enumerated() {
            boxes[position] = Self.packed(items[item])
            refs[position] = values[item]
        }
        // Each level: groups of nodeSize consecutive boxes of the level below, unioned.
        var start = 0, end = n, next = n
        while end - start > 1 {
            var first = start
            while first < end {
                let last = Swift.min(first + nodeSize, end)
                var union = boxes[first]
                for p in (first + 1)..<last { union = pointwiseMin(union, boxes[p]) }
                boxes[next] = union
                refs[next] = Int32(first)
                next += 1
                first = last
            }
            levelEnds.append(next)
            start = end
            end = next
        }
        self.boxes = FrozenBuffer(boxes)
        self.refs = FrozenBuffer(refs)
        self.levelEnds = FrozenBuffer(levelEnds)
        stackCapacity = levelEnds.count * nodeSize + 1
    }

    /// A tree read from a compiled file (its reader checks the shape: positions in range,
    /// levels ascending, the last level one root).
    init(nodeSize: Int, count: Int, boxes: FrozenBuffer<SIMD4<Float>>, refs: FrozenBuffer<Int32>, levelEnds: FrozenBuffer<Int>) {
        self.nodeSize = nodeSize
        self.count = count
        self.boxes = boxes
        self.refs = refs
        self.levelEnds = levelEnds
        stackCapacity = levelEnds.count * nodeSize + 1
    }

    /// Number of levels (1 for a tree of one item, 0 for an empty tree).
    package var levelCount: Int { levelEnds.count }

    /// Bytes held by the tree's arrays (boxes, refs, level table), excluding array headers.
    package var memoryBytes: Int {
        boxes.count * MemoryLayout<SIMD4<Float>>.stride + refs.count * 4 + levelEnds.count * 8
    }

    /// Largest number of pending groups a depth-first search can hold: a popped group pushes
    /// at most `nodeSize` entries, and the stack holds at most one popped group's worth per level.
    let stackCapacity: Int

    /// The box stored for `position`, widened back to Doubles (it holds the original box).
    func boundingBox(at position: Int) -> BoundingBox {
        let b = boxes[position]
        return BoundingBox(
            minLongitude: Double(b.x), minLatitude: Double(b.y),
            maxLongitude: -Double(b.z), maxLatitude: -Double(b.w))
    }

    /// `box` as stored: (minLon, minLat, -maxLon, -maxLat), every lane rounded down to Float.
    @inlinable
    static func packed(_ box: BoundingBox) -> SIMD4<Float> {
        SIMD4(
            floatDown(box.minLongitude), floatDown(box.minLatitude),
            floatDown(-box.maxLongitude), floatDown(-box.maxLatitude))
    }

    /// The largest Float not above `x`.
    @inlinable
    static func floatDown(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) > x ? f.nextDown : f
    }

    /// The smallest Float not below `x`.
    @inlinable
    static func floatUp(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) < x ? f.nextUp : f
    }

    /// One past the last position of the level holding `position`.
    ///
    /// - Complexity: O(levels), at most 8 for a billion items at node size 16.
    @inline(__always)
    func levelEnd(containing position: Int) -> Int {
        var l = 0
        while levelEnds[l] <= position { l += 1 }
        return levelEnds[l]
    }
}
