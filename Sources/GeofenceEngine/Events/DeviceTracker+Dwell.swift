/// Dwell, presence and venueConfirmed (semantics §5, Pilgrim).
///
/// - `dwell`: once per visit, at `entrance + dwell` (the fence's `dwellSeconds`, else the
///   configured default; 0 disables), when the visit has not ended by then. It falls due like
///   an exit, between fixes, and carries its due time.
/// - `presence`: on request (``requestPresence(at:)``) for every fence the device is
///   reported inside; with `presenceInterval` set, also at the first fix at least that long
///   after the entrance or the fence's previous presence (so never at the entrance itself
///   unless the interval is 0). A requested presence restarts the interval.
/// - `venueConfirmed`: once per visit, at the first fix at which the device is stopped
///   (see ``StopHistory``) after the dwell fired; when dwell is disabled for the fence, the
///   stop alone is enough. Its time is the fix's time.
extension DeviceTracker {
    /// Track `i`'s dwell fires at `time`.
    mutating func fireDwell(_ i: Int, at time: Int64, into events: inout [GeofenceEvent]) {
        tracks[i].dwellDone = true
        let position = duePosition
        events.append(event(.dwell, slot: tracks[i].slot, at: time, latitude: position.latitude, longitude: position.longitude))
    }

    /// The events a fix produces at its own time once entrances, exits and dwells are
    /// settled: venueConfirmed, then periodic presence.
    mutating func fixDrivenEvents(_ fix: Fix, into events: inout [GeofenceEvent]) {
        let t = fix.timestamp.milliseconds
        // Stop detection only while a visit may still be confirmed; otherwise forget.
        var oldestOpenVisit = FenceTrack.notDue
        var oldestAwaiting = FenceTrack.notDue
        for track in tracks where track.reported && !track.venueDone {
            oldestOpenVisit = Swift.min(oldestOpenVisit, track.visitFirstFix)
            if track.dwellDone { oldestAwaiting = Swift.min(oldestAwaiting, track.visitFirstFix) }
        }
        if oldestOpenVisit == FenceTrack.notDue {
            stops.clear()
        } else {
            stops.append(fix, sequence: fixCount, keepingFrom: oldestOpenVisit, pruneChord: context.stopPruneChord)
            if oldestAwaiting != FenceTrack.notDue,
                let stopStart = stops.latestStopStart(
                    now: t, stopMilliseconds: context.stopMilliseconds, earliest: oldestAwaiting, chord: context.stopChord)
            {
                for k in tracks.indices
                where tracks[k].reported && !tracks[k].venueDone && tracks[k].dwellDone && tracks[k].visitFirstFix <= stopStart {
                    tracks[k].venueDone = true
                    events.append(event(.venueConfirmed, slot: tracks[k].slot, at: t, latitude: fix.latitude, longitude: fix.longitude))
                }
            }
        }
        if let interval = context.presenceMilliseconds {
            for k in tracks.indices where tracks[k].reported && t - tracks[k].lastPresence >= interval {
                tracks[k].lastPresence = t
                events.append(event(.presence, slot: tracks[k].slot, at: t, latitude: fix.latitude, longitude: fix.longitude))
            }
        }
    }

    /// A location request at `time`: what fell due by then fires, then one `presence` per
    /// fence the device is reported inside, at `time` and at the last fix's position.
    /// - Throws: ``TrackerRejection/order(latest:given:)`` when `time` is earlier than the
    ///   latest input (nothing changes).
    public mutating func requestPresence(at time: Timestamp) throws(TrackerRejection) -> [GeofenceEvent] {
        var events: [GeofenceEvent] = []
        try requestPresence(at: time, appendingTo: &events)
        return events
    }

    /// ``requestPresence(at:)``, appending to a buffer.
    public mutating func requestPresence(at time: Timestamp, appendingTo events: inout [GeofenceEvent]) throws(TrackerRejection) {
        let start = try moveClock(to: time, appendingTo: &events)
        let t = time.milliseconds
        let position = duePosition
        for k in tracks.indices where tracks[k].reported {
            tracks[k].lastPresence = t
            events.append(event(.presence, slot: tracks[k].slot, at: t, latitude: position.latitude, longitude: position.longitude))
        }
        endCall(eventsFrom: start, events: &events)
    }
}
