/// One accepted fix as the batch holds it: 32 bytes, so one cache line holds two and a fix
/// is read with one memory access.
struct FixRecord: Sendable {
    var timestamp: Int64
    var latitude: Double
    var longitude: Double
    /// Metres as a 32-bit float (about 7 significant digits); NaN when the row had none.
    var accuracy: Float
    /// `Int32.min` when the row had none.
    var level: Int32

    /// The record as the tracker's fix.
    @inline(__always)
    var fix: Fix {
        Fix(
            timestamp: Timestamp(milliseconds: timestamp), latitude: latitude, longitude: longitude,
            accuracy: accuracy.isNaN ? nil : Double(accuracy), level: level == Int32.min ? nil : Int(level))
    }
}
