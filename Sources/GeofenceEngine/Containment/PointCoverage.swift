/// The first step of a per-fix query, small enough to be inlined into the caller's loop:
/// whether any fence can hold a point, from the cell directory's coverage (a bit per fine
/// cell that some fence's box reaches; see ``CellDirectory``).
///
/// With 1k fences about nine fixes in ten are answered here, by a few arithmetic operations
/// and one bit of a table that stays in the cache, with no call at all (the call and the
/// evaluator's prologue were a third of such a fix's cost). It answers "maybe" whenever the
/// directory cannot answer alone (no directory, or entries too large for its cells).
@usableFromInline
struct PointCoverage {
    @usableFromInline let minX, maxX, minY, maxY: Double
    @usableFromInline let scaleX, scaleY: Double
    @usableFromInline let lastColumn, lastRow, fineWidth: Int
    @usableFromInline let bits: UnsafePointer<UInt64>
    /// True when every point must go on to the full query.
    @usableFromInline let everyPoint: Bool

    /// The coverage of `directory` (valid while it lives).
    init(_ directory: CellDirectory) {
        let view = directory.view
        let scale = Double(1 << view.fineShift)
        minX = view.minLongitude; maxX = view.maxLongitude; minY = view.minLatitude; maxY = view.maxLatitude
        scaleX = view.inverseCellWidth * scale; scaleY = view.inverseCellHeight * scale
        lastColumn = (view.columns << view.fineShift) - 1
        lastRow = (view.rows << view.fineShift) - 1
        fineWidth = view.columns << view.fineShift
        bits = view.occupied
        everyPoint = !directory.isEnabled || view.largeCount > 0
    }

    /// False when no fence can hold the point (outside every box the directory knows, or not
    /// a number); true when the full query must decide. The fine cell is computed exactly as
    /// ``CellDirectory/View/locate(latitudes:longitudes:count:indexes:fine:)`` computes it.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func mayHold(latitude y: Double, longitude x: Double) -> Bool {
        if everyPoint { return true }
        guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return false }
        let fx = Swift.min(lastColumn, Self.truncated((x - minX) * scaleX))
        let fy = Swift.min(lastRow, Self.truncated((y - minY) * scaleY))
        let f = fy &* fineWidth &+ fx
        return (bits[f &>> 6] &>> UInt64(truncatingIfNeeded: f & 63)) & 1 != 0
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
