/// How the Places states are fed (semantics §6).
///
/// - The tracker's own `entrance` and `exit` events are entry and exit signals for the
///   Places states, applied at the event's timestamp in event order (so the Places states
///   follow the reported states).
/// - OS region signals (``apply(_:)``) and nearby recalculations (``recalculateNearby(_:)``)
///   change only the Places states: they emit no events and leave the fix-driven raw and
///   reported states alone (the OS has already decided; the next fix keeps its own count).
///   Like every input they first let time pass to their timestamp, so entrances and exits
///   that fell due before them are applied first, and they are rejected (`order`) when
///   older than the latest input.
extension DeviceTracker {
    /// Applies a region signal as given, after the tracker's own events due by its time.
    /// - Returns: the tracker's events that fell due by the signal's time (usually none).
    /// - Throws: ``TrackerRejection/unknownFence(_:)`` for an id not in the fence set,
    ///   ``TrackerRejection/order(latest:given:)`` for a signal older than the latest input;
    ///   nothing changes then.
    @discardableResult
    public mutating func apply(_ signal: RegionSignal) throws(TrackerRejection) -> [GeofenceEvent] {
        guard let slot = context.fenceSet.slot(of: signal.geofenceID) else { throw .unknownFence(signal.geofenceID) }
        var events: [GeofenceEvent] = []
        try advance(to: signal.timestamp, appendingTo: &events)
        switch signal.kind {
        case .entry: places.enter(Int32(slot), at: signal.timestamp, fences: context.fenceSet)
        case .exit: places.exit(Int32(slot), at: signal.timestamp, fences: context.fenceSet)
        }
        return events
    }

    /// A nearby recalculation (`getNearbyPointsOfInterest`) from a fix: the entered set
    /// becomes exactly the fences containing the fix (level rules and switches applied; the
    /// accuracy circle counts when `accuracyBuffer` is on; tolerances do not apply), and the
    /// current POI is chosen by the nearby rule. No events; the fix does not count as a fix
    /// for the raw states.
    /// - Returns: the tracker's events that fell due by the fix's time (usually none).
    /// - Throws: the fix's rejection (`coordinate`, `accuracy`, `order`); nothing changes then.
    @discardableResult
    public mutating func recalculateNearby(_ observation: FixObservation) throws(TrackerRejection) -> [GeofenceEvent] {
        let fix = observation.fix
        if let set = observation.fenceSet, set !== context.fenceSet {
            throw .wrongFenceSet("the observation was made with an evaluator of another fence set than the tracker's")
        }
        if let rejection = context.rejection(of: fix) { throw rejection }
        var events: [GeofenceEvent] = []
        try advance(to: fix.timestamp, appendingTo: &events)
        let allowance = context.accuracyAllowance(fix.accuracy)
        var containing: [Int32] = []
        for entry in observation.nearby
        where entry.distance <= allowance && context.levelMatches(slot: Int(entry.slot), level: fix.level) {
            containing.append(entry.slot)
        }
        places.recalculate(containing: containing, position: fix.coordinate, at: fix.timestamp, fences: context.fenceSet)
        return events
    }

    /// The Places states as they read at `time` (expired states read none), by fence id.
    public func placesReading(at time: Timestamp) -> PlacesReading {
        places.reading(at: time, fences: context.fenceSet)
    }

    /// The Places states as they read at the tracker's latest input time.
    public var placesReading: PlacesReading {
        places.reading(at: Timestamp(milliseconds: clock), fences: context.fenceSet)
    }

    /// Applies a call's entrances and exits (already in event order) to the Places states.
    mutating func feedPlaces(_ events: ArraySlice<GeofenceEvent>) {
        for event in events {
            switch event.type {
            case .entrance: places.enter(event.slot, at: event.timestamp, fences: context.fenceSet)
            case .exit: places.exit(event.slot, at: event.timestamp, fences: context.fenceSet)
            case .dwell, .venueConfirmed, .presence: continue
            }
        }
    }
}
