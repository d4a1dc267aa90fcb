/// Raw states, tolerances and the ignore period (semantics §4).
///
/// The quiet window is half-open: an event at `e` opens `[e, e + ignorePeriod)`. A raw flip
/// at `t < windowEnd` restarts it as `[t, t + ignorePeriod)`; a flip at or after the window's
/// end finds it closed. While raw ≠ reported the event is due at `max(last flip, window end)`.
/// A fix at exactly the due time is applied before the event is decided, so it can still
/// cancel it ("only if no fix has put the device back inside by then" includes "then").
extension DeviceTracker {
    /// Sets every touched fence's raw state from the observation (the fix and its nearby
    /// fences): a merge of the tracks and
    /// the nearby list, both ascending by slot. New tracks are made only for fences the fix
    /// is raw-inside of.
    ///
    /// The threshold depends on the reported state (hysteresis): while reported outside a
    /// fix is raw-inside within `enterTolerance × radius` of the fence, while reported inside
    /// within `exitTolerance × radius`; plus the fix's accuracy when `accuracyBuffer` is on.
    /// A fence whose level does not match the fix (or whose kind is switched off) is outside.
    /// - Complexity: O(k + m); a sort of the few tracks when one was added.
    mutating func applyRawStates(fix: Fix, nearby: [FenceDistance], at t: Int64) {
        let allowance = context.accuracyAllowance(fix.accuracy)
        let fenceCount = context.fenceCount
        let n = tracks.count
        var i = 0, j = 0
        var added = false
        while i < n || j < nearby.count {
            if j == nearby.count || (i < n && tracks[i].slot < nearby[j].slot) {
                flip(i, toInside: false, at: t)  // not near: outside whatever the tolerance
                i += 1
                continue
            }
            let entry = nearby[j]
            j += 1
            let slot = Int(entry.slot)
            precondition(slot >= 0 && slot < fenceCount, "observation names slot \(slot), the fence set has \(fenceCount)")
            let matches = context.levelMatches(slot: slot, level: fix.level)
            if i < n && tracks[i].slot == entry.slot {
                let reach = tracks[i].reported ? context.exitReach(slot) : context.enterReach(slot)
                flip(i, toInside: matches && entry.distance <= reach + allowance, at: t)
                i += 1
            } else if matches && entry.distance <= context.enterReach(slot) + allowance {
                tracks.append(FenceTrack(enteringSlot: entry.slot, at: t))
                added = true
            }
        }
        if added { tracks.sort { $0.slot < $1.slot } }
        recomputeNextDue()
    }

    /// Records the raw state of track `i` at `t`; a change is a flip, and a flip inside the
    /// open window restarts it from the flip.
    @inline(__always)
    mutating func flip(_ i: Int, toInside inside: Bool, at t: Int64) {
        guard tracks[i].raw != inside else { return }
        tracks[i].raw = inside
        tracks[i].lastFlip = t
        if tracks[i].windowEnd > t {
            tracks[i].windowEnd = t.addingSaturated(context.ignoreMilliseconds)
        }
    }

    /// Fires, in time order, everything due before `limit` (or at it, when `inclusive`):
    /// pending entrances and exits, and dwells. Each firing can change what is due next (an
    /// entrance schedules a dwell, an exit cancels one), so the earliest item is found
    /// afresh each time; at one instant a fence's entrance or exit goes before its dwell,
    /// so an exit at exactly `entrance + dwell` ends the visit without a dwell.
    /// - Complexity: O(k) per event fired, for k touched fences (a handful).
    mutating func settle(through limit: Int64, inclusive: Bool, into events: inout [GeofenceEvent]) {
        while nextDue < limit || (inclusive && nextDue == limit) {
            var best = -1
            var bestDue = FenceTrack.notDue
            var bestIsDwell = false
            for k in tracks.indices {
                let transition = tracks[k].transitionDue
                if transition < bestDue { best = k; bestDue = transition; bestIsDwell = false }
                let dwell = tracks[k].dwellDue(dwellMilliseconds: context.dwellMilliseconds(Int(tracks[k].slot)))
                if dwell < bestDue { best = k; bestDue = dwell; bestIsDwell = true }
            }
            guard best >= 0 else { break }
            if bestIsDwell {
                fireDwell(best, at: bestDue, into: &events)
            } else {
                fireTransition(best, at: bestDue, into: &events)
            }
            recomputeNextDue()
        }
    }

    /// The pending entrance or exit of track `i` fires at `time`: reported becomes raw, and
    /// a new quiet window opens. An entrance starts a visit.
    mutating func fireTransition(_ i: Int, at time: Int64, into events: inout [GeofenceEvent]) {
        let slot = tracks[i].slot
        tracks[i].reported = tracks[i].raw
        tracks[i].windowEnd = time.addingSaturated(context.ignoreMilliseconds)
        let position = duePosition
        if tracks[i].reported {
            tracks[i].visitStart = time
            tracks[i].visitFirstFix = fixCount
            tracks[i].dwellDone = context.dwellMilliseconds(Int(slot)) == 0
            tracks[i].venueDone = false
            tracks[i].lastPresence = time
            events.append(event(.entrance, slot: slot, at: time, latitude: position.latitude, longitude: position.longitude))
        } else {
            events.append(event(.exit, slot: slot, at: time, latitude: position.latitude, longitude: position.longitude))
        }
    }

    /// The cached earliest due time, recomputed from the tracks.
    /// - Complexity: O(k).
    mutating func recomputeNextDue() {
        var due = FenceTrack.notDue
        for track in tracks {
            due = Swift.min(due, track.transitionDue)
            due = Swift.min(due, track.dwellDue(dwellMilliseconds: context.dwellMilliseconds(Int(track.slot))))
        }
        nextDue = due
    }
}
