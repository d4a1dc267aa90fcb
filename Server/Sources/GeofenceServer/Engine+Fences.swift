import Foundation
import GeofenceEngine

/// `PUT /v1/fences`: a new fence set for every device at once, without holding ingest up for
/// the time it takes to move every device.
///
/// Three steps. ``beginUpdate(to:at:)`` (in the actor) takes the devices as they are, a
/// copy-on-write value, and the update's time. ``FenceMove/run(_:)`` (outside the actor, on up
/// to three threads) moves each of them to the new set. ``finishUpdate(_:compiled:)`` (in the actor
/// again) takes, for the devices a fix or the clock changed meanwhile (and the new ones), the
/// moves made from their current state as they changed (`Engine+Premove.swift`), publishes
/// the events in device id order, installs the new set and commits it with the events (a
/// restart replays the moves, `Engine+Replay.swift`).
/// The result is the update applied at the moment of the finish step, to the devices as they
/// were then: the same as if ingest had waited.
extension Engine {
    /// Why an update was refused: the status and the message.
    struct UpdateRefusal: Error, Sendable {
        var status: Int
        var message: String
    }

    /// Another update was installed between the begin and finish steps: start again.
    struct UpdateOvertaken: Error, Sendable {}

    /// The first step: the update at `at` (epoch ms; nil: ``currentTime``) from the set in
    /// force, and the devices as they are now; from here every device changed is logged
    /// until ``endUpdate(_:)``.
    /// - Throws: ``UpdateRefusal`` (409) when `at` lies before a device's latest input.
    func beginUpdate(to newSet: FenceSet, at: Int64?) throws -> FenceMove {
        let time = at ?? currentTime
        // An explicit time before a device's input is refused; the server's own time is
        // taken per device as the later of it and the device's latest input, so that no fix
        // in flight is refused (`order`) for an update that came after it.
        if at != nil, let latest = latestInput(), latest.time > time {
            throw UpdateRefusal(
                status: 409,
                message: "the update time \(time) lies before device \(latest.id)'s latest input at \(latest.time): pass ?at= at or after it")
        }
        let update = try FenceUpdate(from: fences.context, to: newSet, at: Timestamp(milliseconds: time), onFenceRemoved: onFenceRemoved)
        if changeLog == nil { changeLog = [] }
        updatesInFlight += 1
        updateSerial += 1
        if premove == nil {
            premove = Premove(serial: updateSerial, version: fences.version, update: update, context: fences.context)
        }
        return FenceMove(
            update: update, context: fences.context, version: fences.version, serial: updateSerial, before: devices, logStart: changeLog!.count)
    }

    /// After each ``beginUpdate(to:at:)``, once its update is installed or abandoned.
    func endUpdate(_ move: FenceMove) {
        updatesInFlight -= 1
        if updatesInFlight == 0 { changeLog = nil }
        if premove?.serial == move.serial { premove = nil }
    }

    /// The last step: the devices changed since the begin step (the change log) taken as
    /// they were moved when they changed (``Premove``; moved here when that could not be),
    /// the events published in device id order (deterministic sequence numbers), the moved
    /// devices and the new set installed, and the set and the events committed in one
    /// transaction. Its cost is in the devices changed meanwhile and those with events, not in
    /// all devices.
    /// - Throws: ``UpdateOvertaken`` when another update was installed since the begin step.
    func finishUpdate(_ move: consuming FenceMove, compiled: Data) throws -> Finished {
        let started = ContinuousClock.now
        guard move.version == fences.version else { throw UpdateOvertaken() }
        // Made before anything is installed: if it fails, the update changes nothing.
        let newEvaluator = try ContainmentEvaluator(fenceSet: move.update.change.new)
        let update = move.update
        let time = update.time.milliseconds
        // Moved again, from their state now: every device a fix or the clock changed (new ones too).
        let changed = Set(changeLog![move.logStart...])
        var again: [String: (entry: Device, events: [PreparedEvent], previous: Int64, idle: Bool)] = [:]
        again.reserveCapacity(changed.count)
        // Taken out of the move, so that the dictionary is not copied when first written.
        var installed = move.moved
        move.moved = [:]
        let premoved = premoves(for: move)
        premove = nil
        for id in changed {
            // Forgotten meanwhile (`--forget-after`): gone for the update too.
            guard let now = devices[id] else {
                installed[id] = nil
                continue
            }
            if let done = premoved[id] {
                again[id] = (done.entry, done.events, done.previous, done.idle)
                continue
            }
            do {
                let done = try FenceMove.move(id, now, update, from: fences.context)
                again[id] = (done.entry, done.events.map { PreparedEvent($0, deviceID: id) }, now.nextDue, done.idle)
            } catch {
                throw UpdateRefusal(status: 409, message: "device \(id): \(error)")
            }
        }
        // The events in device id order: those made outside, but for the devices moved again.
        var events = move.events
        for id in changed { events[id] = nil }
        for (id, result) in again {
            installed[id] = result.entry
            if !result.events.isEmpty { events[id] = result.events }
        }
        var lines: [EventLine] = []
        var removalExits = 0
        for id in events.keys.sorted() {
            let made = events[id]!
            var entry = installed[id]!
            removalExits += made.count { $0.event.reason == .fenceRemoved }
            publish(made, device: id, entry: &entry, into: &lines)
            installed[id] = entry
        }
        // Handed back to be freed outside the engine: 100,000 states took 10 ms.
        let retired = devices
        devices = installed
        for (id, due) in move.dues where !changed.contains(id) { dues.insert(Due(time: due, device: id)) }
        for (id, result) in again { schedule(id, result.entry, previous: result.previous) }
        if forgetAfter != nil {
            for id in move.idle where !changed.contains(id) { watchIdle(id, devices[id]!, idle: true) }
            for (id, result) in again { watchIdle(id, result.entry, idle: result.idle) }
        }
        if dues.count > 2 * devices.count + 1_024 { rebuildDues() }
        let change = update.change
        fences = Fences(context: update.context, version: fences.version + 1, at: time)
        evaluator = newEvaluator
        metrics.fenceVersion.set(Double(fences.version))
        metrics.fences.set(Double(change.new.count))
        var set = Store.WriteSet()
        set.events = lines
        // No device is written: a restart replays the update on the rows made before it
        // (`Store+FenceVersions.swift`), and a sweep from here on writes every device again
        // on the new set (one under way is moot: it started on the earlier set).
        let logFrom = nextLogSeq
        set.fences = Store.FenceVersion(
            version: fences.version, at: time, bytes: compiled, logFrom: logFrom, onRemoved: update.onFenceRemoved.rawValue)
        logBytes = 0
        fenceVersionsKept += 1
        if fenceVersionsKept > Self.maximumFenceVersions {
            // Updates come faster than sweeps end (few fixes between them): every device is
            // written now, one row on the new set (none without devices), and the earlier
            // sets are dropped with it: every row from `logFrom` on is on the new set.
            sweep = nil
            storeDevices(records: devices.map { record($0.key, $0.value) }, in: &set)
            set.dropLogBefore = logFrom
            fenceVersionsKept = 1
        } else {
            sweep = LogSweep(start: logFrom, ids: Array(devices.keys))
        }
        set.at = currentTime
        let response = "{\"version\":\(fences.version),\"at\":\(time),\"added\":\(change.added.count),\"removed\":\(change.removed.count),"
            + "\"changed\":\(change.changed.count),\"unchanged\":\(change.unchanged.count),\"removalExits\":\(removalExits),"
            + "\"events\":\(lines.count)}"
        logger.info("fence set version \(fences.version): \(change.new.count) fences, \(devices.count) devices (\(again.count) moved again, \(premoved.count) as they changed), \(ContinuousClock.now - started) in the engine")
        return Finished(ticket: committer.enqueue(set), response: Data(response.utf8), retired: retired)
    }

    /// What the finish step hands back: the commit to wait for, the answer, and the devices
    /// as they were before, to be freed outside the engine.
    struct Finished: Sendable {
        var ticket: CommitTicket
        var response: Data
        var retired: [String: Device]
    }

    /// The server's time now: the wall clock less `--clock-delay`, or with `--clock data` the
    /// latest fix time accepted (0 before the first).
    var currentTime: Int64 {
        switch clockMode {
        case .wall: Self.wallMilliseconds - clockDelay
        case .data: Swift.max(clockTime, 0)
        }
    }

    /// The device with the latest input time and that time, or nil without devices.
    func latestInput() -> (id: String, time: Int64)? {
        var best: (id: String, time: Int64)? = nil
        for (id, entry) in devices {
            let time = entry.latest
            guard time != .min else { continue }
            if best == nil || time > best!.time { best = (id, time) }
        }
        return best
    }
}
