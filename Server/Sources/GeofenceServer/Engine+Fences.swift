import Foundation
import GeofenceEngine

/// `PUT /v1/fences`: a new fence set for every device at once.
extension Engine {
    /// Why an update was refused: the status and the message.
    struct UpdateRefusal: Error, Sendable {
        var status: Int
        var message: String
    }

    /// Moves every device to `newSet` at `at` (epoch ms; nil: ``currentTime``, or for a device
    /// whose latest input is later, that input's time), by the
    /// library's fence update rules: events due before that time fire first, a device
    /// reported inside a removed fence gets a removal exit. Devices go in id order, so the
    /// events' sequence numbers are the same in every run. The new set, every device's
    /// state and the events are committed together.
    /// - Throws: ``UpdateRefusal`` (409) when `at` lies before a device's latest input.
    func updateFences(to newSet: FenceSet, compiled: Data, at: Int64?) throws -> (ticket: CommitTicket, response: Data) {
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
        var lines: [EventLine] = []
        var removalExits = 0
        var buffer: [GeofenceEvent] = []
        var set = Store.WriteSet()
        // Applied to `devices` only once every device has moved: a refusal leaves all as they were.
        var updated: [String: Device] = [:]
        updated.reserveCapacity(devices.count)
        for id in devices.keys.sorted() {
            var entry = devices[id]!
            var tracker = self.tracker(id, entry)
            buffer.removeAll(keepingCapacity: true)
            let due = entry.nextDue
            let own = entry.latest > time
                ? FenceUpdate(change: update.change, context: update.context, at: Timestamp(milliseconds: entry.latest), onFenceRemoved: onFenceRemoved)
                : update
            do {
                try tracker.apply(own, appendingTo: &buffer)
            } catch {
                // Checked above: no device's time lies after the update's.
                throw UpdateRefusal(status: 409, message: "device \(id): \(error)")
            }
            for k in buffer.indices { buffer[k].deviceID = id }
            removalExits += buffer.filter { $0.reason == .fenceRemoved }.count
            // Encoded on the new set (the tracker moved to the update's context).
            entry = Device(tracker, events: entry.events)
            publish(buffer, device: id, entry: &entry, into: &lines)
            updated[id] = entry
            schedule(id, entry, previous: due)
            // Every device: its clock moved to the update's time even when nothing fired.
            set.devices.append(record(id, entry))
        }
        for (id, entry) in updated { devices[id] = entry }
        let change = update.change
        fences = Fences(context: update.context, version: fences.version + 1, at: time)
        evaluator = try ContainmentEvaluator(fenceSet: newSet)
        metrics.fenceVersion.set(Double(fences.version))
        metrics.fences.set(Double(newSet.count))
        set.events = lines
        set.fences = (fences.version, time, compiled)
        set.at = currentTime
        let response = "{\"version\":\(fences.version),\"at\":\(time),\"added\":\(change.added.count),\"removed\":\(change.removed.count),"
            + "\"changed\":\(change.changed.count),\"unchanged\":\(change.unchanged.count),\"removalExits\":\(removalExits),"
            + "\"events\":\(lines.count)}"
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
