extension PolygonCellIndex {
    /// Builds every fence's containment record and every polygon's classified grid, over the
    /// set's shapes (storage order). `circleRecord(p)` is the record of position p, both
    /// halves (``FenceSetBuilder/circleRecord(_:_:)``: threshold −1 for a polygon); it is
    /// called once per position, on the threads.
    ///
    /// The polygons are classified on `threads` threads, in ranges of ``rangePositions``
    /// positions taken in order; each range's cells and edges are appended to the set's as
    /// soon as the ranges before it are (``InOrderCommits``), so the result is the one-thread
    /// result, byte for byte (tested). A range's own arrays then serve a later range: they
    /// stay small and in cache, and the set's arrays, reserved up front, are the only memory
    /// the cells take (the first version kept every range's arrays to copy them at the end:
    /// a third of the page faults of a 100k-fence load).
    ///
    /// - Complexity: O(v + Σ rows per edge + listed pairs + cells) over the polygons (see
    ///   ``fill(_:shapes:rings:scratch:)``), divided among the threads.
    init(
        shapes: FenceShapes, count n: Int, threads: Int = 1,
        circleRecord: @escaping @Sendable (Int) -> (SIMD4<Double>, SIMD4<Double>)
    ) {
        let rangeCount = (n + Self.rangePositions - 1) / Self.rangePositions
        let records = SharedPointer<SIMD4<Double>>.allocate(2 * n)
        let output = Output(reserving: Self.expectedSizes(shapes: shapes, count: n))
        let commits = InOrderCommits<ClassifiedRange>()
        let workers = Swift.max(1, Swift.min(threads, WorkerPool.maximumThreads))
        let scratches = DisjointSlots<Scratch?>(repeating: nil, count: workers)
        ParallelWorkers.run(count: rangeCount, threads: workers) { k, worker in
            let from = k * Self.rangePositions, to = Swift.min(n, from + Self.rangePositions)
            let range = commits.reused() ?? ClassifiedRange()
            let scratch: Scratch
            if let s = scratches[worker] { scratch = s } else { scratch = Scratch(); scratches[worker] = scratch }
            for p in from..<to {
                let record = circleRecord(p)
                (records[2 * p], records[2 * p + 1]) = record
                guard record.0.w < 0,
                    let grid = Self.classify(shapes: shapes, rings: shapes.rings(position: p), scratch: scratch) else { continue }
                range.grids.append((p, grid, range.cells.count, range.edges.count))
                range.cells.append(scratch.cells)
                range.edges.append(scratch.listed)
            }
            commits.submit(k, range) { ready in
                let cellBase = output.cells.count, edgeBase = output.edges.count
                for g in ready.grids {
                    (records[2 * g.position], records[2 * g.position + 1]) =
                        g.grid.record(cellBase: cellBase + g.cellOffset, edgeBase: edgeBase + g.edgeOffset)
                }
                output.cells.append(ready.cells)
                output.edges.append(ready.edges)
                ready.clear()
                commits.recycle(ready)
            }
        }
        self.init(
            records: FrozenBuffer(adopting: records.base, count: 2 * n), cells: output.cells.frozen(), edges: output.edges.frozen())
    }

    /// ``init(shapes:count:threads:circleRecord:)`` with the circle records given by position.
    init(shapes: FenceShapes, circleRecords: [(SIMD4<Double>, SIMD4<Double>)], threads: Int = 1) {
        self.init(shapes: shapes, count: circleRecords.count, threads: threads) { circleRecords[$0] }
    }

    /// What to reserve for the set's cells and listed edges: at most the cells of every
    /// polygon's first grid (a grid is never larger), and a few listed edges per edge (4.4 on
    /// the peers' 100k world), so the arrays seldom grow. Reserved memory that is never
    /// written takes no pages.
    static func expectedSizes(shapes: FenceShapes, count n: Int) -> (cells: Int, edges: Int) {
        var cells = 0, edges = 0
        for p in 0..<n {
            var polygonEdges = 0
            for ring in shapes.rings(position: p) {
                polygonEdges += Swift.max(0, Int(shapes.vertexStarts[ring + 1]) - Int(shapes.vertexStarts[ring]) - 1)
            }
            guard polygonEdges > 0 else { continue }
            cells += cellTarget(edges: polygonEdges) + 1
            edges += polygonEdges
        }
        return (cells, 6 * edges)
    }

    /// Positions per work item of the build: small enough that a range's arrays stay in cache
    /// and the threads stay balanced, large enough that handing out ranges is not a cost.
    static let rangePositions = 256

    /// The set's cells and listed edges, appended range by range by the one committing.
    private final class Output: @unchecked Sendable {
        let cells: ScratchArray<UInt16>
        let edges: ScratchArray<UInt32>

        init(reserving sizes: (cells: Int, edges: Int)) {
            cells = ScratchArray(capacity: sizes.cells)
            edges = ScratchArray(capacity: sizes.edges)
        }
    }

    /// The polygons of one range of positions, classified: each grid with where its cells and
    /// edges start in the range's arrays.
    final class ClassifiedRange: @unchecked Sendable {
        var grids: [(position: Int, grid: PolygonGrid, cellOffset: Int, edgeOffset: Int)] = []
        let cells = ScratchArray<UInt16>(capacity: 1 << 12)
        let edges = ScratchArray<UInt32>(capacity: 1 << 12)

        /// Empties the range for reuse, keeping its memory.
        func clear() {
            grids.removeAll(keepingCapacity: true)
            cells.count = 0
            edges.count = 0
        }
    }
}
