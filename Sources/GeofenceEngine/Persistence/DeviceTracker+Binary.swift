/// A tracker's state in the compact binary form of state files (``CarriedState``): slots of
/// the set it was written on, times as zigzag varints relative to the tracker's clock (most
/// are within minutes of it, so a few bytes each), coordinates as raw doubles (exact).
///
/// The form holds exactly what ``DeviceSnapshot`` holds; reading it back gives a tracker
/// that carries on as if it had never stopped (tested against the snapshot round trip).
extension DeviceTracker {
    private struct Flags {
        static let clock: UInt8 = 1, lastFix: UInt8 = 2, accuracy: UInt8 = 4, level: UInt8 = 8, lastUpdate: UInt8 = 16
    }

    private struct TrackFlags {
        static let raw: UInt8 = 1, reported: UInt8 = 2, dwellDone: UInt8 = 4, venueDone: UInt8 = 8, window: UInt8 = 16
    }

    /// Appends the state to `out`.
    /// - Complexity: O(k + s + e) for k touched fences, s kept fixes, e entered fences.
    func encodeBinary(to out: inout ByteWriter) {
        let base = clock == FenceTrack.never ? 0 : clock
        func time(_ t: Int64) { out.signed(base &- t) }
        var flags: UInt8 = 0
        if clock != FenceTrack.never { flags |= Flags.clock }
        if let fix = lastFix {
            flags |= Flags.lastFix
            if fix.accuracy != nil { flags |= Flags.accuracy }
            if fix.level != nil { flags |= Flags.level }
        }
        if places.lastUpdate != nil { flags |= Flags.lastUpdate }
        out.byte(flags)
        if clock != FenceTrack.never { out.signed(clock) }
        out.signed(fixCount)
        if let fix = lastFix {
            time(fix.timestamp.milliseconds)
            out.double(fix.latitude)
            out.double(fix.longitude)
            if let accuracy = fix.accuracy { out.double(accuracy) }
            if let level = fix.level { out.signed(Int64(level)) }
        }
        out.varint(UInt64(tracks.count))
        for track in tracks {
            out.varint(UInt64(track.slot))
            var f: UInt8 = 0
            if track.raw { f |= TrackFlags.raw }
            if track.reported { f |= TrackFlags.reported }
            if track.dwellDone { f |= TrackFlags.dwellDone }
            if track.venueDone { f |= TrackFlags.venueDone }
            if track.windowEnd != FenceTrack.never { f |= TrackFlags.window }
            out.byte(f)
            time(track.lastFlip)
            if track.windowEnd != FenceTrack.never { time(track.windowEnd) }
            time(track.visitStart)
            out.signed(fixCount &- track.visitFirstFix)
            time(track.lastPresence)
        }
        let points = stops.points
        out.varint(UInt64(points.count))
        for point in points {
            out.signed(fixCount &- point.sequence)
            time(point.time)
            out.double(point.latitude)
            out.double(point.longitude)
        }
        out.varint(UInt64(places.entered.count))
        for entry in places.entered {
            out.varint(UInt64(entry.slot))
            time(entry.since.milliseconds)
        }
        // One by one: an array literal here was an allocation per encoding.
        out.varint(places.current.map { UInt64($0) + 1 } ?? 0)
        out.varint(places.lastEntered.map { UInt64($0) + 1 } ?? 0)
        out.varint(places.lastExited.map { UInt64($0) + 1 } ?? 0)
        if let update = places.lastUpdate { time(update.milliseconds) }
    }

    /// A tracker on `context` from the binary form, reading from `reader`.
    /// - Throws: ``ByteReadError`` when the bytes end early or hold what no tracker writes
    ///   (a slot outside the set, tracks or entered fences out of order).
    init(decodingBinary reader: inout ByteReader, context: TrackerContext) throws(ByteReadError) {
        self.init(context: context)
        let fences = context.fenceCount
        let flags = try reader.byte("the device's flags")
        guard flags & ~(Flags.clock | Flags.lastFix | Flags.accuracy | Flags.level | Flags.lastUpdate) == 0 else {
            throw reader.fail("unknown device flags \(flags)")
        }
        if flags & Flags.clock != 0 { clock = try reader.signed("the clock") }
        let base = clock == FenceTrack.never ? 0 : clock
        func time(_ what: String) throws(ByteReadError) -> Int64 { base &- (try reader.signed(what)) }
        fixCount = try reader.signed("the fix count")
        if flags & Flags.lastFix != 0 {
            let t = try time("the last fix's time")
            let latitude = try reader.double("the last fix's latitude"), longitude = try reader.double("the last fix's longitude")
            let accuracy = flags & Flags.accuracy != 0 ? try reader.double("the last fix's accuracy") : nil
            let level = flags & Flags.level != 0 ? Int(truncatingIfNeeded: try reader.signed("the last fix's level")) : nil
            lastFix = Fix(timestamp: Timestamp(milliseconds: t), latitude: latitude, longitude: longitude, accuracy: accuracy, level: level)
        }
        let trackCount = try reader.count("the number of fences touched", below: fences + 1)
        tracks.reserveCapacity(trackCount)
        for _ in 0..<trackCount {
            let slot = Int32(try reader.count("a fence slot", below: fences))
            if let previous = tracks.last, previous.slot >= slot { throw reader.fail("fence slots out of order") }
            let f = try reader.byte("a fence's flags")
            guard f < 32 else { throw reader.fail("unknown fence flags \(f)") }
            let lastFlip = try time("a fence's last flip")
            let windowEnd = f & TrackFlags.window != 0 ? try time("a fence's window end") : FenceTrack.never
            let visitStart = try time("a fence's visit start")
            let visitFirstFix = fixCount &- (try reader.signed("a fence's first visit fix"))
            let lastPresence = try time("a fence's last presence")
            tracks.append(
                FenceTrack(
                    slot: slot, raw: f & TrackFlags.raw != 0, reported: f & TrackFlags.reported != 0, lastFlip: lastFlip,
                    windowEnd: windowEnd, visitStart: visitStart, visitFirstFix: visitFirstFix,
                    dwellDone: f & TrackFlags.dwellDone != 0, venueDone: f & TrackFlags.venueDone != 0, lastPresence: lastPresence))
        }
        let stopCount = try reader.count("the number of stop fixes", below: StopHistory.limit + 1)
        var points: [StopHistory.Point] = []
        points.reserveCapacity(stopCount)
        for _ in 0..<stopCount {
            let sequence = fixCount &- (try reader.signed("a stop fix's number"))
            let t = try time("a stop fix's time")
            let point = StopHistory.Point(
                sequence: sequence, time: t, latitude: try reader.double("a stop fix's latitude"),
                longitude: try reader.double("a stop fix's longitude"))
            if let previous = points.last, previous.time > point.time || previous.sequence >= point.sequence {
                throw reader.fail("stop fixes out of order")
            }
            points.append(point)
        }
        stops = StopHistory(points: points)
        let enteredCount = try reader.count("the number of entered fences", below: fences + 1)
        var entered: [PlacesState.Entry] = []
        entered.reserveCapacity(enteredCount)
        for _ in 0..<enteredCount {
            let slot = Int32(try reader.count("an entered fence's slot", below: fences))
            if let previous = entered.last, previous.slot >= slot { throw reader.fail("entered fences out of order") }
            entered.append(PlacesState.Entry(slot: slot, since: Timestamp(milliseconds: try time("an entered fence's time"))))
        }
        // Slot + 1, 0 for none.
        func named(_ what: String) throws(ByteReadError) -> Int32? {
            let v = try reader.count(what, below: fences + 1)
            return v == 0 ? nil : Int32(v - 1)
        }
        places.entered = entered
        places.current = try named("the current POI")
        places.lastEntered = try named("the last entered fence")
        places.lastExited = try named("the last exited fence")
        if flags & Flags.lastUpdate != 0 { places.lastUpdate = Timestamp(milliseconds: try time("the Places update time")) }
        recomputeNextDue()
    }
}
