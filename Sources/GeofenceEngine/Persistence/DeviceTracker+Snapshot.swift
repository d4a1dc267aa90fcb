/// Converting a tracker to and from its ``DeviceSnapshot``.
extension DeviceTracker {
    /// The tracker's whole state, by fence id, with each touched fence's fingerprint, radius,
    /// level and properties.
    /// - Complexity: O(k + s + e) for k touched fences, s kept fixes, e entered fences (plus
    ///   the touched fences' vertices, for their fingerprints).
    public func snapshot() -> DeviceSnapshot {
        let fences = context.fenceSet
        func id(_ slot: Int32?) -> String? { slot.map { fences.geofenceID(at: Int($0)) } }
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
                let slot = Int($0.slot)
                return DeviceSnapshot.FenceRecord(
                    geofenceID: fences.geofenceID(at: slot), raw: $0.raw, reported: $0.reported, lastFlip: $0.lastFlip,
                    windowEnd: $0.windowEnd == FenceTrack.never ? nil : $0.windowEnd, visitStart: $0.visitStart,
                    visitFirstFix: $0.visitFirstFix, dwellDone: $0.dwellDone, venueDone: $0.venueDone, lastPresence: $0.lastPresence,
                    fingerprint: fences.fingerprint(at: slot), radius: fences.radius(at: slot), level: fences.level(at: slot),
                    properties: fences.properties(at: slot))
            },
            stopHistory: stops.points.map {
                DeviceSnapshot.StopRecord(sequence: $0.sequence, timestamp: $0.time, latitude: $0.latitude, longitude: $0.longitude)
            },
            places: DeviceSnapshot.PlacesRecord(
                entered: places.entered.map { DeviceSnapshot.EnteredRecord(geofenceID: fences.geofenceID(at: Int($0.slot)), since: $0.since.milliseconds) },
                current: id(places.current), lastEntered: id(places.lastEntered), lastExited: id(places.lastExited),
                lastUpdate: places.lastUpdate?.milliseconds))
    }

    /// A tracker that carries on where the snapshot's tracker stopped, with the fences and
    /// configuration of `context` (the membership TTL comes from it), and the events that
    /// restoring onto these fences causes.
    ///
    /// The set may differ from the one the snapshot was taken on: the fence update rules of
    /// ``apply(_:)`` apply at the snapshot's latest time. A fence the set no longer has is
    /// removed (an exit with ``GeofenceEvent/Reason/fenceRemoved`` when the device was
    /// reported inside and `onFenceRemoved` is ``FenceUpdate/RemovalPolicy/exit``; the
    /// exit carries the radius, level and properties the snapshot stored); any other fence
    /// keeps its state, changed or not. Restoring onto the same fences causes no event.
    ///
    /// - Throws: ``SnapshotError`` for a version this build does not read, or values that
    ///   cannot come from a tracker (a fence twice, stop fixes out of time order). Never for
    ///   a removed or changed fence.
    public static func restore(
        _ snapshot: DeviceSnapshot, context: TrackerContext, onFenceRemoved: FenceUpdate.RemovalPolicy = .exit
    ) throws(SnapshotError) -> (tracker: DeviceTracker, events: [GeofenceEvent]) {
        func fail(_ detail: String) -> SnapshotError { SnapshotError(path: nil, problem: .corrupt(detail)) }
        guard snapshot.version >= DeviceSnapshot.oldestReadableVersion && snapshot.version <= DeviceSnapshot.currentVersion else {
            throw SnapshotError(path: nil, problem: .wrongVersion(found: snapshot.version, expected: DeviceSnapshot.currentVersion))
        }
        let fenceSet = context.fenceSet
        func slot(_ id: String?) -> Int32? { id.flatMap { fenceSet.slot(of: $0) }.map(Int32.init) }
        var tracker = DeviceTracker(context: context)
        tracker.clock = snapshot.latestTime ?? FenceTrack.never
        tracker.fixCount = snapshot.fixCount
        tracker.lastFix = snapshot.lastFix.map {
            Fix(timestamp: Timestamp(milliseconds: $0.timestamp), latitude: $0.latitude, longitude: $0.longitude,
                accuracy: $0.accuracy, level: $0.level)
        }
        var seen = Set<String>()
        var restored: [FenceTrack] = []
        var events: [GeofenceEvent] = []
        let removalTime = Timestamp(milliseconds: snapshot.latestTime ?? 0)
        for record in snapshot.fences {
            guard seen.insert(record.geofenceID).inserted else { throw fail("fence \(JSONWriter.quoted(record.geofenceID)) appears twice") }
            guard let slot = slot(record.geofenceID) else {
                if record.reported && onFenceRemoved == .exit {
                    let position = tracker.duePosition
                    events.append(
                        GeofenceEvent(
                            type: .exit, timestamp: removalTime, geofenceID: record.geofenceID, latitude: position.latitude,
                            longitude: position.longitude, radius: record.radius ?? 0, level: record.level,
                            properties: record.properties ?? JSONObject(), reason: .fenceRemoved))
                }
                continue
            }
            restored.append(
                FenceTrack(
                    slot: slot, raw: record.raw, reported: record.reported, lastFlip: record.lastFlip,
                    windowEnd: record.windowEnd ?? FenceTrack.never, visitStart: record.visitStart,
                    visitFirstFix: record.visitFirstFix, dwellDone: record.dwellDone, venueDone: record.venueDone, lastPresence: record.lastPresence))
        }
        restored.sort { $0.slot < $1.slot }
        tracker.tracks = restored
        var points: [StopHistory.Point] = []
        for record in snapshot.stopHistory {
            if let previous = points.last, previous.time > record.timestamp || previous.sequence >= record.sequence {
                throw fail("stop fixes are not in order")
            }
            points.append(
                StopHistory.Point(
                    sequence: record.sequence, time: record.timestamp, latitude: record.latitude, longitude: record.longitude))
        }
        tracker.stops = StopHistory(points: points)
        var entered: [PlacesState.Entry] = []
        var enteredIDs = Set<String>()
        for record in snapshot.places.entered {
            guard enteredIDs.insert(record.geofenceID).inserted else { throw fail("entered fence \(JSONWriter.quoted(record.geofenceID)) appears twice") }
            if let slot = slot(record.geofenceID) { entered.append(PlacesState.Entry(slot: slot, since: Timestamp(milliseconds: record.since))) }
        }
        entered.sort { $0.slot < $1.slot }
        var places = tracker.places
        places.entered = entered
        let currentRemoved = snapshot.places.current != nil && slot(snapshot.places.current) == nil
        places.current = currentRemoved ? PlacesState.currentByEntry(entered, fences: fenceSet) : slot(snapshot.places.current)
        places.lastEntered = slot(snapshot.places.lastEntered)
        places.lastExited = slot(snapshot.places.lastExited)
        places.lastUpdate = snapshot.places.lastUpdate.map(Timestamp.init(milliseconds:))
        if !events.isEmpty {
            places.expire(at: removalTime)
            places.lastUpdate = removalTime
        }
        tracker.places = places
        tracker.recomputeNextDue()
        return (tracker, events)
    }
}
