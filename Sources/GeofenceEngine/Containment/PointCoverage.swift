/// The first step of a per-fix query, small enough to be inlined into the caller's loop:
/// whether any fence can hold a point, from the cell directory's coverage (a bit per fine
/// cell that some fence's box reaches; see ``CellDirectory``).
///
/// With 1k fences about nine fixes in ten are answered here, by a few arithmetic operations
/// and one bit of a table that stays in the cache, with no call at all (the call and the
/// evaluator's prologue were a third of such a fix's cost). It answers "maybe" whenever the
/// directory cannot answer alone (no directory, or entries too large for its cells).
///
/// It is the directory's fine grid in the one form every lookup uses. The per-fix query's
/// first look (``candidateCell(latitude:longitude:)``, inlined into the caller's loop) and the
/// batch's first pass (``CellDirectory/View/locate(latitudes:longitudes:count:indexes:fine:)``)
/// use ``fineCell(latitude:longitude:)``, both coordinates in one vector and no branch; the
/// directory's point lookup and the tests use the plain ``fine(latitude:longitude:)``, its twin.
@usableFromInline
struct PointCoverage {
    @usableFromInline let lastColumn, lastRow, fineWidth: Int
    /// Fine cells per cell side, as a shift, and the grid's columns (a fine cell's cell).
    @usableFromInline let shift, columns: Int
    @usableFromInline let bits: UnsafePointer<UInt64>
    /// The grid's corners (longitude, latitude), the fine cells per degree, and the last fine
    /// column and row (`lastColumn`, `lastRow` as doubles: derived, kept for the vector form
    /// ``fineCell(latitude:longitude:)``; `fineWidth` is `lastColumn + 1`, likewise).
    @usableFromInline let low, high, scale, last: SIMD2<Double>
    /// True when every point must go on to the full query (no directory, or entries too large
    /// for its cells, which every point's query checks).
    @usableFromInline let everyPoint: Bool

    /// The coverage of `directory` (valid while it lives).
    init(_ directory: CellDirectory) {
        self.init(directory.view, enabled: directory.isEnabled)
    }

    /// The coverage of a directory's view (valid while the directory lives).
    init(_ view: CellDirectory.View, enabled: Bool = true) {
        let fineScale = Double(1 << view.fineShift)
        lastColumn = (view.columns << view.fineShift) - 1
        lastRow = (view.rows << view.fineShift) - 1
        fineWidth = view.columns << view.fineShift
        shift = view.fineShift
        columns = view.columns
        bits = view.occupied
        low = SIMD2(view.minLongitude, view.minLatitude); high = SIMD2(view.maxLongitude, view.maxLatitude)
        scale = SIMD2(view.inverseCellWidth, view.inverseCellHeight) * fineScale
        last = SIMD2(Double(lastColumn), Double(lastRow))
        everyPoint = !enabled || view.largeCount > 0
    }

    /// The point's fine cell (column, row), or nil outside the grid or for NaN.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func fine(latitude y: Double, longitude x: Double) -> (column: Int, row: Int)? {
        guard x >= low.x, x <= high.x, y >= low.y, y <= high.y else { return nil }
        return (
            Swift.min(lastColumn, Self.truncated((x - low.x) * scale.x)), Swift.min(lastRow, Self.truncated((y - low.y) * scale.y))
        )
    }

    /// ``fine(latitude:longitude:)`` with both coordinates in one vector and no branch: the
    /// same fine cell when `inside`; for a point outside the grid or not a number `inside` is
    /// false and each coordinate outside (or not a number) is taken as the grid's first
    /// column or row, so its table lookups stay in bounds.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func fineCell(latitude y: Double, longitude x: Double) -> (column: Int, row: Int, inside: Bool) {
        let p = SIMD2(x, y)
        let inside = (p .>= low) .& (p .<= high)
        // The clamp as a compare and a select: `pointwiseMin` keeps IEEE's rules for NaN, which
        // took a compare and a branch for each coordinate (NaN is not `inside` and becomes 0).
        let scaled = (p - low) * scale
        let v = scaled.replacing(with: last, where: scaled .> last).replacing(with: 0, where: .!inside)
        // `truncated` for both: the nearest integer in the low bits of v + 2⁵², less one
        // where that rounded up (the mask's lanes are −1 where true).
        let magic = SIMD2<Double>(repeating: 4_503_599_627_370_496.0)
        let t = v + magic
        let nearest = unsafeBitCast(t, to: SIMD2<Int64>.self) & 0xF_FFFF_FFFF_FFFF
        let cell = nearest &+ unsafeBitCast((t - magic) .> v, to: SIMD2<Int64>.self)
        return (Int(truncatingIfNeeded: cell.x), Int(truncatingIfNeeded: cell.y), all(inside))
    }

    /// Whether some entry's box reaches the fine cell.
    @inlinable @inline(__always)
    func isReached(_ fine: (column: Int, row: Int)) -> Bool { reachedBit(fine) != 0 }

    /// ``isReached(_:)`` as 1 or 0 (for loops that count without a branch).
    @inlinable @inline(__always)
    func reachedBit(_ fine: (column: Int, row: Int)) -> Int {
        let f = fine.row &* fineWidth &+ fine.column
        return Int(truncatingIfNeeded: (bits[f &>> 6] &>> UInt64(truncatingIfNeeded: f & 63)) & 1)
    }

    /// The directory cell holding the fine cell.
    @inlinable @inline(__always)
    func cell(_ fine: (column: Int, row: Int)) -> Int {
        (fine.row &>> shift) &* columns &+ (fine.column &>> shift)
    }

    /// The directory cell whose entries may hold the point: −1 when none can (outside every
    /// box the directory knows, or not a number), −2 when the full query must find it
    /// (``everyPoint``).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func candidateCell(latitude y: Double, longitude x: Double) -> Int {
        if everyPoint { return -2 }
        // One branch, on "inside the grid and reached" (the fine cell without one).
        let f = fineCell(latitude: y, longitude: x)
        guard reachedBit((f.column, f.row)) & (f.inside ? 1 : 0) != 0 else { return -1 }
        return cell((f.column, f.row))
    }

    /// False when no fence can hold the point; true when the full query must decide.
    @inlinable @inline(__always)
    func mayHold(latitude y: Double, longitude x: Double) -> Bool {
        candidateCell(latitude: y, longitude: x) != -1
    }

    /// `Int(v)` for `0 ≤ v < 2⁵²`, without the conversion's checks for NaN and overflow (their
    /// branches and spills were a fifth of a rejected fix): `v + 2⁵²` holds the nearest integer
    /// to `v` in its low bits, one less when that integer is above `v`.
    @inlinable @inline(__always)
    static func truncated(_ v: Double) -> Int {
        let magic = 4_503_599_627_370_496.0  // 2⁵²
        let t = v + magic
        let nearest = Int(truncatingIfNeeded: t.bitPattern & 0xF_FFFF_FFFF_FFFF)
        return nearest &- (t - magic > v ? 1 : 0)
    }
}
