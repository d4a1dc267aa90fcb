/// Carrying a device across a fence update (the behaviour contract's "Fence updates").
extension DeviceTracker {
    /// Moves the tracker to the update's fence set at the update's time, and returns the
    /// events the move causes.
    ///
    /// In order: events due strictly before the update's time fire under the old set (as
    /// ``advance(to:)`` would fire them); then, at that time, each fence's state moves by id:
    /// - **removed**: a device reported inside (an entrance was emitted and its exit was not,
    ///   including one still in its exit's quiet window) gets an exit at the update's time,
    ///   at the position of its last fix, with ``GeofenceEvent/Reason/fenceRemoved`` (none
    ///   with ``FenceUpdate.RemovalPolicy/silent``); a pending entrance, dwell, venueConfirmed or
    ///   presence of the fence is dropped;
    /// - **changed** and **unchanged**: the state is kept (visit, dwell timer, quiet window);
    ///   the next fix is judged against the new shape;
    /// - **added**: nothing until a fix finds the device in it.
    ///
    /// The Places states keep only fences of the new set: a removed fence leaves the entered
    /// fences, and the current, last entered and last exited POI (which become nil); when the
    /// current POI was removed it is chosen again among the fences still entered. With
    /// ``FenceUpdate.RemovalPolicy/exit`` a removal exit counts as a Places update at the update's
    /// time, as any exit does.
    ///
    /// The tracker's time moves to the update's time: a later fix earlier than it is refused
    /// (`order`); a fix exactly at it is judged under the new set.
    ///
    /// - Throws: ``TrackerRejection/order(latest:given:)`` when the update's time is before
    ///   the tracker's latest input, ``TrackerRejection/wrongFenceSet(_:)`` when the update is
    ///   not from the tracker's fence set or its context is not built on its new set. Nothing
    ///   changes then.
    /// - Complexity: O(k + e) for k touched fences and e entered fences.
    public mutating func apply(_ update: FenceUpdate) throws(TrackerRejection) -> [GeofenceEvent] {
        var events: [GeofenceEvent] = []
        try apply(update, appendingTo: &events)
        return events
    }

    /// ``apply(_:)``, appending to a buffer.
    public mutating func apply(_ update: FenceUpdate, appendingTo events: inout [GeofenceEvent]) throws(TrackerRejection) {
        guard update.change.old === context.fenceSet else {
            throw .wrongFenceSet("the update is from another fence set than the tracker's")
        }
        guard update.context.fenceSet === update.change.new else {
            throw .wrongFenceSet("the update's context is not built on the update's new fence set")
        }
        let t = update.time.milliseconds
        if t < clock { throw .order(latest: Timestamp(milliseconds: clock), given: update.time) }
        // What falls due before the update fires under the old set, and feeds Places.
        let start = events.count
        if nextDue < t { settle(through: t, inclusive: false, into: &events) }
        clock = t
        endCall(eventsFrom: start, events: &events)
        let map = update.change.newSlots
        let old = context
        // Compacted in place (no allocation per device); slots are id-ordered in both sets,
        // so the kept tracks stay in slot order.
        var kept = 0
        var exits = 0
        for k in tracks.indices {
            let target = map[Int(tracks[k].slot)]
            if target < 0 {
                if tracks[k].reported && update.onFenceRemoved == .exit {
                    events.append(removalExit(slot: tracks[k].slot, at: t, context: old))
                    exits += 1
                }
                continue
            }
            tracks[kept] = tracks[k]
            tracks[kept].slot = target
            kept += 1
        }
        if kept < tracks.count { tracks.removeLast(tracks.count - kept) }
        places.move(slots: map, to: update.change.new, removalExitAt: exits > 0 ? update.time : nil)
        self = DeviceTracker(moving: self, to: update.context)
        recomputeNextDue()
        if tracks.contains(where: { $0.isSettled(at: t) }) { tracks.removeAll { $0.isSettled(at: t) } }
    }

    /// The exit of a removed fence, made under the old set (its id, radius, level and
    /// properties are the removed fence's).
    private func removalExit(slot: Int32, at time: Int64, context old: TrackerContext) -> GeofenceEvent {
        let position = duePosition
        var event = GeofenceEvent(
            type: .exit, timestamp: Timestamp(milliseconds: time), slot: slot, latitude: position.latitude,
            longitude: position.longitude, source: old.eventSource(Int(slot)))
        event.reason = .fenceRemoved
        return event
    }
}

extension PlacesState {
    /// Renumbers the Places states for a new fence set (`slots`: old slot to new, -1 for a
    /// removed fence), dropping removed fences; when the current POI was removed it is chosen
    /// again among the entered fences. A removal exit at `removalExitAt` counts as an update
    /// then (the TTL is checked first, as for any exit).
    mutating func move(slots: [Int32], to fences: FenceSet, removalExitAt time: Timestamp?) {
        if let time { expire(at: time) }
        func moved(_ slot: Int32?) -> Int32? {
            guard let slot, slots[Int(slot)] >= 0 else { return nil }
            return slots[Int(slot)]
        }
        if !entered.isEmpty {
            var kept = 0
            for k in entered.indices {
                guard let slot = moved(entered[k].slot) else { continue }
                entered[kept] = Entry(slot: slot, since: entered[k].since)
                kept += 1
            }
            if kept < entered.count { entered.removeLast(entered.count - kept) }
        }
        let currentRemoved = current != nil && moved(current) == nil
        current = currentRemoved ? Self.currentByEntry(entered, fences: fences) : moved(current)
        lastEntered = moved(lastEntered)
        lastExited = moved(lastExited)
        if let time { lastUpdate = time }
    }
}
