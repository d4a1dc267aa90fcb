/// Writing event lines through a pointer: the batch's hot path.
///
/// The first writer appended a line to an array piece by piece, each piece paying a
/// uniqueness and a capacity check, and formatted both coordinates of every event; on 20×
/// Austin (10.9M events) formatting was a third of the run (it is kept in the tests as this
/// writer's twin). Here room for the whole line is made once and the pieces are copied in,
/// and a device's events, which mostly repeat the coordinates of the event before them (the
/// events of one fix), reuse their text. The lines are byte for byte the twin's
/// (tested over seeded events).
extension EventLineFormatter {
    /// The text of the coordinates last written, reused while they repeat. One per device
    /// loop of one thread.
    struct CoordinateText {
        fileprivate var latitude = NumberText()
        fileprivate var longitude = NumberText()

        init() {}
    }

    /// Appends the lines of one device's `events`, in order, to `out`, and counts them by type
    /// into `counts` (indexed by the type's raw value).
    ///
    /// Not inlined into its caller on purpose: the device loop it would join holds the
    /// containment query, whose SIMD box tests stopped being inlined (6 % of a run) when this
    /// writer was inlined beside them.
    /// - Complexity: O(bytes written).
    @inline(never)
    func write(_ events: [GeofenceEvent], device: UnsafeBufferPointer<UInt8>, counts: inout [Int], to out: ScratchArray<UInt8>) {
        var text = CoordinateText()
        events.withUnsafeBufferPointer { write($0[...], device: device, counts: &counts, text: &text, to: out) }
    }

    /// Appends the lines of `events` (a device's, or the part of them made under this
    /// formatter's set), in order, as ``write(_:device:counts:to:)`` does; a removal exit's
    /// line ends with `"reason":"fenceRemoved"`. The events are read in place (copying one
    /// out costs a retain and a release of its source).
    /// - Complexity: O(bytes written).
    @inline(never)
    func write(
        _ events: Slice<UnsafeBufferPointer<GeofenceEvent>>, device: UnsafeBufferPointer<UInt8>, counts: inout [Int],
        text: inout CoordinateText, to out: ScratchArray<UInt8>
    ) {
        let base = events.base
        for i in events.indices {
            counts[Int(base[i].type.rawValue)] &+= 1
            write(
                type: base[i].type, timestamp: base[i].timestamp.milliseconds, device: device, slot: Int(base[i].slot),
                latitude: base[i].latitude, longitude: base[i].longitude, text: &text, to: out)
            if base[i].reason == .fenceRemoved { Self.endWithRemovalReason(out) }
        }
    }

    /// Replaces the closing `}` and line break of the line just written by
    /// `,"reason":"fenceRemoved"}` and a line break.
    static func endWithRemovalReason(_ out: ScratchArray<UInt8>) {
        let tail: StaticString = #","reason":"fenceRemoved"}\#n"#
        out.count -= 2
        out.reserve(out.count &+ tail.utf8CodeUnitCount)
        (out.base + out.count).update(from: tail.utf8Start, count: tail.utf8CodeUnitCount)
        out.count &+= tail.utf8CodeUnitCount
    }

    /// Appends one event line to `out`: the head (`{"eventType":"…","timestamp":`), the time,
    /// the device fragment, the fence's first fragment, the coordinates and its second.
    /// - Complexity: O(line length).
    @inline(__always)
    func write(
        type: GeofenceEvent.EventType, timestamp: Int64, device: UnsafeBufferPointer<UInt8>, slot: Int,
        latitude: Double, longitude: Double, text: inout CoordinateText, to out: ScratchArray<UInt8>
    ) {
        let head = Int(type.rawValue), headFrom = headStarts.pointer[head], headTo = headStarts.pointer[head &+ 1]
        let offsets = fences.offsets.pointer
        let first = Int(truncatingIfNeeded: offsets[2 &* slot]), middle = Int(truncatingIfNeeded: offsets[2 &* slot &+ 1])
        let last = Int(truncatingIfNeeded: offsets[2 &* slot &+ 2])
        let latitudeHead: StaticString = #""lat":"#, longitudeHead: StaticString = #","lng":"#
        out.reserve(
            out.count &+ (headTo &- headFrom) &+ DecimalText.maximumBytes &+ 1 &+ device.count &+ (last &- first)
                &+ latitudeHead.utf8CodeUnitCount &+ longitudeHead.utf8CodeUnitCount &+ 2 &* NumberText.capacity)
        var p = out.base + out.count
        p = Self.put(heads.pointer + headFrom, headTo &- headFrom, at: p)
        p = DecimalText.put(timestamp, at: p)
        p.pointee = UInt8(ascii: ",")
        p += 1
        p = Self.put(device.baseAddress!, device.count, at: p)
        p = Self.put(fences.bytes.pointer + first, middle &- first, at: p)
        p = Self.put(latitudeHead.utf8Start, latitudeHead.utf8CodeUnitCount, at: p)
        p = text.latitude.put(latitude, at: p)
        p = Self.put(longitudeHead.utf8Start, longitudeHead.utf8CodeUnitCount, at: p)
        p = text.longitude.put(longitude, at: p)
        p = Self.put(fences.bytes.pointer + middle, last &- middle, at: p)
        out.count = p - out.base
    }

    @inline(__always)
    private static func put(_ source: UnsafePointer<UInt8>, _ count: Int, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        p.update(from: source, count: count)
        return p + count
    }
}

/// One number's JSON text (``JSONNumber/put(_:at:)``), kept with the number's bits so the
/// same number is not formatted twice in a row.
private struct NumberText {
    static let capacity = JSONNumber.maximumDoubleBytes
    private var bits: UInt64 = 0
    private var count = 0  // 0: nothing kept yet (a number's text is never empty)
    private var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// Writes `value`'s text at `p`; returns the position after it.
    @inline(__always)
    mutating func put(_ value: Double, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if count == 0 || value.bitPattern != bits { remember(value) }
        let n = count
        withUnsafeBytes(of: &bytes) { p.update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n) }
        return p + n
    }

    private mutating func remember(_ value: Double) {
        var kept: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: `capacity`
        let n = withUnsafeMutableBytes(of: &kept) { raw -> Int in
            let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return JSONNumber.put(value, at: p) - p
        }
        bits = value.bitPattern
        count = n
        bytes = kept
    }
}
