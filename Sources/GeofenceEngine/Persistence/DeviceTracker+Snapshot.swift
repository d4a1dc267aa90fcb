/// Converting a tracker to and from its ``DeviceSnapshot``.
extension DeviceTracker {
    /// The tracker's whole state, by fence id.
    /// - Complexity: O(k + s + e) for k touched fences, s kept fixes, e entered fences.
    public func snapshot() -> DeviceSnapshot {
        let fences = context.fenceSet
        func id(_ slot: Int32?) -> String? { slot.map { fences.id(at: Int($0)) } }
        return DeviceSnapshot(
            version: DeviceSnapshot.currentVersion,
            latestTime: clock == FenceTrack.never ? nil : clock,
            fixCount: fixCount,
            lastFix: lastFix.map {
                DeviceSnapshot.FixRecord(
                    timestamp: $0.timestamp.milliseconds, latitude: $0.latitude, longitude: $0.longitude,
                    accuracy: $0.accuracy, level: $0.level)
            },
            fences: tracks.map {
                DeviceSnapshot.FenceRecord(
                    id: fences.id(at: Int($0.slot)), raw: $0.raw, reported: $0.reported, lastFlip: $0.lastFlip,
                    windowEnd: $0.windowEnd == FenceTrack.never ? nil : $0.windowEnd, visitStart: $0.visitStart,
                    visitFirstFix: $0.visitFirstFix, dwellDone: $0.dwellDone, venueDone: $0.venueDone, lastPresence: $0.lastPresence)
            },
            stopHistory: stops.points.map {
                DeviceSnapshot.StopRecord(sequence: $0.sequence, timestamp: $0.time, latitude: $0.latitude, longitude: $0.longitude)
            },
            places: DeviceSnapshot.PlacesRecord(
                entered: places.entered.map { DeviceSnapshot.EnteredRecord(id: fences.id(at: Int($0.slot)), since: $0.since.milliseconds) },
                current: id(places.current), lastEntered: id(places.lastEntered), lastExited: id(places.lastExited),
                lastUpdate: places.lastUpdate?.milliseconds))
    }

    /// A tracker that carries on exactly where the snapshot's tracker stopped, with the
    /// fences and configuration of `context` (the membership TTL comes from it).
    ///
    /// - Throws: ``SnapshotError`` for a version this build does not read, a fence id the
    ///   set does not have, or values that cannot come from a tracker (a fence twice, stop
    ///   fixes out of time order).
    public init(restoring snapshot: DeviceSnapshot, context: TrackerContext) throws(SnapshotError) {
        func fail(_ detail: String) -> SnapshotError { SnapshotError(path: nil, problem: .corrupt(detail)) }
        guard snapshot.version == DeviceSnapshot.currentVersion else {
            throw SnapshotError(path: nil, problem: .wrongVersion(found: snapshot.version, expected: DeviceSnapshot.currentVersion))
        }
        let fenceSet = context.fenceSet
        func slot(_ id: String) throws(SnapshotError) -> Int32 {
            guard let slot = fenceSet.slot(of: id) else { throw SnapshotError(path: nil, problem: .unknownFence(id)) }
            return Int32(slot)
        }
        func optionalSlot(_ id: String?) throws(SnapshotError) -> Int32? {
            guard let id else { return nil }
            return try slot(id)
        }
        self.init(context: context)
        clock = snapshot.latestTime ?? FenceTrack.never
        fixCount = snapshot.fixCount
        lastFix = snapshot.lastFix.map {
            Fix(timestamp: Timestamp(milliseconds: $0.timestamp), latitude: $0.latitude, longitude: $0.longitude,
                accuracy: $0.accuracy, level: $0.level)
        }
        var restored: [FenceTrack] = []
        for record in snapshot.fences {
            restored.append(
                FenceTrack(
                    slot: try slot(record.id), raw: record.raw, reported: record.reported, lastFlip: record.lastFlip,
                    windowEnd: record.windowEnd ?? FenceTrack.never, visitStart: record.visitStart,
                    visitFirstFix: record.visitFirstFix, dwellDone: record.dwellDone, venueDone: record.venueDone, lastPresence: record.lastPresence))
        }
        restored.sort { $0.slot < $1.slot }
        for k in restored.indices.dropFirst() where restored[k - 1].slot == restored[k].slot {
            throw fail("fence \(JSONWriter.quoted(fenceSet.id(at: Int(restored[k].slot)))) appears twice")
        }
        tracks = restored
        var points: [StopHistory.Point] = []
        for record in snapshot.stopHistory {
            if let previous = points.last, previous.time > record.timestamp || previous.sequence >= record.sequence {
                throw fail("stop fixes are not in order")
            }
            points.append(
                StopHistory.Point(
                    sequence: record.sequence, time: record.timestamp, latitude: record.latitude, longitude: record.longitude))
        }
        stops = StopHistory(points: points)
        var entered: [PlacesState.Entry] = []
        for record in snapshot.places.entered {
            entered.append(PlacesState.Entry(slot: try slot(record.id), since: Timestamp(milliseconds: record.since)))
        }
        entered.sort { $0.slot < $1.slot }
        for k in entered.indices.dropFirst() where entered[k - 1].slot == entered[k].slot {
            throw fail("entered fence \(JSONWriter.quoted(fenceSet.id(at: Int(entered[k].slot)))) appears twice")
        }
        places.entered = entered
        places.current = try optionalSlot(snapshot.places.current)
        places.lastEntered = try optionalSlot(snapshot.places.lastEntered)
        places.lastExited = try optionalSlot(snapshot.places.lastExited)
        places.lastUpdate = snapshot.places.lastUpdate.map(Timestamp.init(milliseconds:))
        recomputeNextDue()
    }
}
