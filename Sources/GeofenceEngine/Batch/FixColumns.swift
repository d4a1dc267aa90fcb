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

/// Accepted fixes in fixed-size chunks: a 32-byte record and a 4-byte device index each.
///
/// Chunks never reallocate, so holding N fixes costs 36 × N bytes (rounded up to a chunk)
/// with no doubling slack; grouping adds a 4-byte row index per fix (40 bytes in all, the
/// bound of the batch issue).
struct FixColumns {
    static let chunkShift = 16
    static let chunkSize = 1 << chunkShift

    struct Chunk {
        var records: [FixRecord] = []
        var device: [UInt32] = []

        init() {
            records.reserveCapacity(FixColumns.chunkSize)
            device.reserveCapacity(FixColumns.chunkSize)
        }
    }

    private(set) var chunks: [Chunk] = []
    private(set) var count = 0

    /// Appends one fix.
    @inline(__always)
    mutating func append(device: UInt32, record: FixRecord) {
        if count & (Self.chunkSize - 1) == 0 { chunks.append(Chunk()) }
        let c = chunks.count - 1
        chunks[c].records.append(record)
        chunks[c].device.append(device)
        count += 1
    }

    /// The record of `row`.
    @inline(__always)
    func record(_ row: Int) -> FixRecord {
        chunks[row >> Self.chunkShift].records.withUnsafeBufferPointer { $0[row & (Self.chunkSize - 1)] }
    }

    /// Bytes held (capacity, not count).
    var memoryBytes: Int { chunks.count * Self.chunkSize * (MemoryLayout<FixRecord>.stride + 4) }
}
