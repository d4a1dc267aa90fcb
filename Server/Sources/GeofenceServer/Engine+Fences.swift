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
        /// Each moved device and its events, by id.
        var moved: [String: (entry: Device, events: [GeofenceEvent])] = [:]

        /// Moves one device: the update at the later of its time and the device's latest
        /// input (an explicit `?at=` before a device's input was refused at the begin step).
        static func move(_ id: String, _ entry: Device, _ update: FenceUpdate, from context: TrackerContext) throws -> (entry: Device, events: [GeofenceEvent]) {
            var tracker = try DeviceTracker(encodedState: entry.state, context: context)
            let own = entry.latest > update.time.milliseconds
                ? FenceUpdate(change: update.change, context: update.context, at: Timestamp(milliseconds: entry.latest), onFenceRemoved: update.onFenceRemoved)
                : update
            var events = try tracker.apply(own)
            for k in events.indices { events[k].deviceID = id }
            return (Device(tracker, events: entry.events), events)
        }

        /// Moves every device of ``before``, in two halves on two tasks.
        static func run(_ move: FenceMove) async throws -> FenceMove {
            let ids = Array(move.before.keys)
            let parts = ids.count < 4_096 ? 1 : 2
            let context = move.context
            let halves = try await withThrowingTaskGroup(of: [(String, Device, [GeofenceEvent])].self) { group in
                for part in 0..<parts {
                    let slice = ids[ids.count * part / parts..<ids.count * (part + 1) / parts]
                    group.addTask {
                        try slice.map { id in
                            let (entry, events) = try Self.move(id, move.before[id]!, move.update, from: context)
                            return (id, entry, events)
                        }
                    }
                }
                var all: [[(String, Device, [GeofenceEvent])]] = []
                for try await half in group { all.append(half) }
                return all
            }
            var result = move
            result.moved.reserveCapacity(ids.count)
            for half in halves { for (id, entry, events) in half { result.moved[id] = (entry, events) } }
            return result
        }
    }

    /// The first step: the update at `at` (epoch ms; nil: ``currentTime``) from the set in
    /// force, and the devices as they are now.
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
        return FenceMove(update: update, context: fences.context, version: fences.version, before: devices)
    }

    /// The last step: devices changed since the begin step moved again from their current
    /// state, events published in device id order (deterministic sequence numbers), the new
    /// set installed, and the set, the events and a checkpoint of every device committed in
    /// one transaction.
    /// - Throws: ``UpdateOvertaken`` when another update was installed since the begin step.
    func finishUpdate(_ move: FenceMove, compiled: Data) throws -> (ticket: CommitTicket, response: Data) {
        let started = ContinuousClock.now
        guard move.version == fences.version else { throw UpdateOvertaken() }
        let update = move.update
        let time = update.time.milliseconds
        // Every result first (moving may throw), then publishing and installing (which cannot).
        var results: [(id: String, previous: Int64, entry: Device, events: [GeofenceEvent])] = []
        results.reserveCapacity(devices.count)
        var again = 0
        for id in devices.keys.sorted() {
            let now = devices[id]!
            if let before = move.before[id], before.state == now.state, before.events == now.events, let done = move.moved[id] {
                results.append((id, now.nextDue, done.entry, done.events))
                continue
            }
            again += 1
            do {
                let done = try FenceMove.move(id, now, update, from: fences.context)
                results.append((id, now.nextDue, done.entry, done.events))
            } catch {
                throw UpdateRefusal(status: 409, message: "device \(id): \(error)")
            }
        }
        var lines: [EventLine] = []
        var removalExits = 0
        for var result in results {
            removalExits += result.events.filter { $0.reason == .fenceRemoved }.count
            publish(result.events, device: result.id, entry: &result.entry, into: &lines)
            devices[result.id] = result.entry
            schedule(result.id, result.entry, previous: result.previous)
        }
        let change = update.change
        fences = Fences(context: update.context, version: fences.version + 1, at: time)
        evaluator = try ContainmentEvaluator(fenceSet: change.new)
        metrics.fenceVersion.set(Double(fences.version))
        metrics.fences.set(Double(change.new.count))
        var set = Store.WriteSet()
        set.events = lines
        set.fences = (fences.version, time, compiled)
        set.checkpoint = Store.Checkpoint.encode(devices)
        set.at = currentTime
        let response = "{\"version\":\(fences.version),\"at\":\(time),\"added\":\(change.added.count),\"removed\":\(change.removed.count),"
            + "\"changed\":\(change.changed.count),\"unchanged\":\(change.unchanged.count),\"removalExits\":\(removalExits),"
            + "\"events\":\(lines.count)}"
        logger.info("fence set version \(fences.version): \(change.new.count) fences, \(devices.count) devices (\(again) moved again in the actor), \(ContinuousClock.now - started) in the actor")
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
