import Foundation
import GeofenceEngine

/// `PUT /v1/fences`: a new fence set for every device at once, without holding ingest up for
/// the time it takes to move every device.
///
/// Three steps. ``beginUpdate(to:at:)`` (in the actor) takes the devices as they are, a
/// copy-on-write value, and the update's time. ``FenceMove/run(_:)`` (outside the actor, on
/// every core) moves each of them to the new set. ``finishUpdate(_:compiled:)`` (in the actor
/// again) moves once more, from their current state, the devices a fix or the clock changed
/// meanwhile (and the new ones), publishes the events in device id order, installs the new
/// set and commits it with a checkpoint of every device. The result is the update applied at
/// the moment of the finish step, to the devices as they were then: the same as if ingest
/// had waited.
extension Engine {
    /// Why an update was refused: the status and the message.
    struct UpdateRefusal: Error, Sendable {
        var status: Int
        var message: String
    }

    /// Another update was installed between the begin and finish steps: start again.
    struct UpdateOvertaken: Error, Sendable {}

    /// Everything the work outside the actor needs, and what it makes.
    struct FenceMove: Sendable {
        var update: FenceUpdate
        /// The context of the set in force at the begin step (the devices' states are on it).
        var context: TrackerContext
        /// The fence version the update starts from: the finish step refuses to apply it on another.
        var version: Int64
        /// Every device as it was at the begin step.
        var before: [String: Device]
        /// Where the begin step's changes start in ``Engine/changeLog``.
        var logStart: Int
        /// Every device of ``before``, moved.
        var moved: [String: Device] = [:]
        /// The moved devices that have events, ascending by id, with their events.
        var events: [(id: String, events: [GeofenceEvent])] = []
        /// The moved devices whose next due time changed, with it.
        var dues: [(id: String, due: Int64)] = []
        /// The moved devices that are idle (`Engine+Forget.swift`).
        var idle: [String] = []

        /// Moves one device: the update at the later of its time and the device's latest
        /// input (an explicit `?at=` before a device's input was refused at the begin step).
        static func move(
            _ id: String, _ entry: Device, _ update: FenceUpdate, from context: TrackerContext
        ) throws -> (entry: Device, events: [GeofenceEvent], idle: Bool) {
            var tracker = try DeviceTracker(encodedState: entry.state, context: context)
            let own = entry.latest > update.time.milliseconds
                ? FenceUpdate(change: update.change, context: update.context, at: Timestamp(milliseconds: entry.latest), onFenceRemoved: update.onFenceRemoved)
                : update
            var events = try tracker.apply(own)
            for k in events.indices { events[k].deviceID = id }
            return (Device(tracker, events: entry.events), events, tracker.isIdle)
        }

        /// Moves every device of ``before``, in two halves on two tasks.
        static func run(_ move: FenceMove) async throws -> FenceMove {
            let ids = Array(move.before.keys)
            let parts = ids.count < 4_096 ? 1 : 2
            let context = move.context
            let halves = try await withThrowingTaskGroup(of: [(String, Device, [GeofenceEvent], Bool)].self) { group in
                for part in 0..<parts {
                    let slice = ids[ids.count * part / parts..<ids.count * (part + 1) / parts]
                    group.addTask {
                        try slice.map { id in
                            let (entry, events, idle) = try Self.move(id, move.before[id]!, move.update, from: context)
                            return (id, entry, events, idle)
                        }
                    }
                }
                var all: [[(String, Device, [GeofenceEvent], Bool)]] = []
                for try await half in group { all.append(half) }
                return all
            }
            var result = move
            result.moved.reserveCapacity(ids.count)
            for half in halves {
                for (id, entry, events, idle) in half {
                    result.moved[id] = entry
                    if idle { result.idle.append(id) }
                    if !events.isEmpty { result.events.append((id, events)) }
                    if entry.nextDue != move.before[id]!.nextDue && entry.nextDue != .max { result.dues.append((id, entry.nextDue)) }
                }
            }
            result.events.sort { $0.id < $1.id }
            return result
        }
    }

    /// The first step: the update at `at` (epoch ms; nil: ``currentTime``) from the set in
    /// force, and the devices as they are now; from here every device changed is logged
    /// until ``endUpdate()``.
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
        return FenceMove(update: update, context: fences.context, version: fences.version, before: devices, logStart: changeLog!.count)
    }

    /// After each ``beginUpdate(to:at:)``, once its update is installed or abandoned.
    func endUpdate() {
        updatesInFlight -= 1
        if updatesInFlight == 0 { changeLog = nil }
    }

    /// The last step: the devices changed since the begin step (the change log) moved again
    /// from their current state, the events published in device id order (deterministic
    /// sequence numbers), the moved devices and the new set installed, and the set, the
    /// events and a checkpoint of every device committed in one transaction. Its cost is in
    /// the devices changed meanwhile and those with events, not in all devices.
    /// - Throws: ``UpdateOvertaken`` when another update was installed since the begin step.
    func finishUpdate(_ move: FenceMove, compiled: Data) throws -> (ticket: CommitTicket, response: Data) {
        let started = ContinuousClock.now
        guard move.version == fences.version else { throw UpdateOvertaken() }
        let update = move.update
        let time = update.time.milliseconds
        // Moved again, from their state now: every device a fix or the clock changed (new ones too).
        let changed = Set(changeLog![move.logStart...])
        var again: [String: (entry: Device, events: [GeofenceEvent], previous: Int64, idle: Bool)] = [:]
        var installed = move.moved
        for id in changed {
            // Forgotten meanwhile (`--forget-after`): gone for the update too.
            guard let now = devices[id] else {
                installed[id] = nil
                continue
            }
            do {
                let done = try FenceMove.move(id, now, update, from: fences.context)
                again[id] = (done.entry, done.events, now.nextDue, done.idle)
            } catch {
                throw UpdateRefusal(status: 409, message: "device \(id): \(error)")
            }
        }
        for (id, result) in again { installed[id] = result.entry }
        // The events in device id order: those made outside, but for the devices moved again.
        let later = again.filter { !$0.value.events.isEmpty }.map { (id: $0.key, events: $0.value.events) }.sorted { $0.id < $1.id }
        var lines: [EventLine] = []
        var removalExits = 0
        var k = 0, j = 0
        while k < move.events.count || j < later.count {
            let next: (id: String, events: [GeofenceEvent])
            if j < later.count && (k == move.events.count || later[j].id <= move.events[k].id) {
                next = later[j]
                if k < move.events.count && move.events[k].id == later[j].id { k += 1 }
                j += 1
            } else {
                next = move.events[k]
                k += 1
                if changed.contains(next.id) { continue }
            }
            var entry = installed[next.id]!
            removalExits += next.events.filter { $0.reason == .fenceRemoved }.count
            publish(next.events, device: next.id, entry: &entry, into: &lines)
            installed[next.id] = entry
        }
        devices = installed
        for (id, due) in move.dues where !changed.contains(id) { dues.insert(Due(time: due, device: id)) }
        for (id, result) in again { schedule(id, result.entry, previous: result.previous) }
        for id in move.idle where !changed.contains(id) { watchIdle(id, devices[id]!, idle: true) }
        for (id, result) in again { watchIdle(id, result.entry, idle: result.idle) }
        if dues.count > 2 * devices.count + 1_024 { rebuildDues() }
        let change = update.change
        fences = Fences(context: update.context, version: fences.version + 1, at: time)
        evaluator = try ContainmentEvaluator(fenceSet: change.new)
        metrics.fenceVersion.set(Double(fences.version))
        metrics.fences.set(Double(change.new.count))
        var set = Store.WriteSet()
        set.events = lines
        set.fences = (fences.version, time, compiled)
        // Encoded by the committer, off the engine (the dictionary is shared, not copied). It
        // supersedes the whole device log: a sweep under way is moot.
        set.checkpoint = devices
        set.dropLogBefore = nextLogSeq
        logBytes = 0
        sweep = nil
        set.at = currentTime
        let response = "{\"version\":\(fences.version),\"at\":\(time),\"added\":\(change.added.count),\"removed\":\(change.removed.count),"
            + "\"changed\":\(change.changed.count),\"unchanged\":\(change.unchanged.count),\"removalExits\":\(removalExits),"
            + "\"events\":\(lines.count)}"
        logger.info("fence set version \(fences.version): \(change.new.count) fences, \(devices.count) devices (\(again.count) moved again in the engine), \(ContinuousClock.now - started) in the engine")
        return (committer.enqueue(set), Data(response.utf8))
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
