/// Accepted fixes held column by column, in fixed-size chunks, 36 bytes a fix.
///
/// Chunks never reallocate, so holding N fixes costs 36 × N bytes (rounded up to a chunk)
/// with no doubling slack; grouping adds a 4-byte row index per fix (40 bytes in all, the
/// bound of the batch issue). Accuracy is kept as a 32-bit float (about 7 significant
/// digits); level as a 32-bit integer.
struct FixColumns {
    static let chunkShift = 16
    static let chunkSize = 1 << chunkShift

    struct Chunk {
        var device: [UInt32] = []
        var timestamp: [Int64] = []
        var latitude: [Double] = []
        var longitude: [Double] = []
        /// NaN when the row had none.
        var accuracy: [Float] = []
        /// `Int32.min` when the row had none.
        var level: [Int32] = []

        init() {
            device.reserveCapacity(FixColumns.chunkSize)
            timestamp.reserveCapacity(FixColumns.chunkSize)
            latitude.reserveCapacity(FixColumns.chunkSize)
            longitude.reserveCapacity(FixColumns.chunkSize)
            accuracy.reserveCapacity(FixColumns.chunkSize)
            level.reserveCapacity(FixColumns.chunkSize)
        }
    }

    private(set) var chunks: [Chunk] = []
    private(set) var count = 0

    /// Appends one fix.
    @inline(__always)
    mutating func append(device: UInt32, timestamp: Int64, latitude: Double, longitude: Double, accuracy: Float, level: Int32) {
        if count & (Self.chunkSize - 1) == 0 { chunks.append(Chunk()) }
        let c = chunks.count - 1
        chunks[c].device.append(device)
        chunks[c].timestamp.append(timestamp)
        chunks[c].latitude.append(latitude)
        chunks[c].longitude.append(longitude)
        chunks[c].accuracy.append(accuracy)
        chunks[c].level.append(level)
        count += 1
    }

    /// Replaces every device index through `map` (old index → new index).
    mutating func remapDevices(_ map: [UInt32]) {
        for c in chunks.indices {
            chunks[c].device.withUnsafeMutableBufferPointer { d in
                for i in d.indices { d[i] = map[Int(d[i])] }
            }
        }
    }

    @inline(__always) func device(_ row: Int) -> UInt32 { chunks[row >> Self.chunkShift].device[row & (Self.chunkSize - 1)] }
    @inline(__always) func timestamp(_ row: Int) -> Int64 { chunks[row >> Self.chunkShift].timestamp[row & (Self.chunkSize - 1)] }
    @inline(__always) func latitude(_ row: Int) -> Double { chunks[row >> Self.chunkShift].latitude[row & (Self.chunkSize - 1)] }
    @inline(__always) func longitude(_ row: Int) -> Double { chunks[row >> Self.chunkShift].longitude[row & (Self.chunkSize - 1)] }
    @inline(__always) func accuracy(_ row: Int) -> Float { chunks[row >> Self.chunkShift].accuracy[row & (Self.chunkSize - 1)] }
    @inline(__always) func level(_ row: Int) -> Int32 { chunks[row >> Self.chunkShift].level[row & (Self.chunkSize - 1)] }

    /// Bytes held by the columns (capacity, not count).
    var memoryBytes: Int { chunks.count * Self.chunkSize * 36 }
}
