import Foundation
import GeofenceEngine

/// `POST /v1/fixes`: a body's fixes through the devices' trackers.
extension Engine {
    /// The answer to one ingest request, and when it may be sent.
    struct Outcome: Sendable {
        /// Completes when the request's effect is durable.
        var ticket: CommitTicket
        /// `{"accepted":N,"rejected":[…],"events":[…]}`.
        var response: Data
        /// True when an earlier request with the same `Idempotency-Key` made the response.
        var replayed: Bool
    }

    /// One refused line of a request, by the CLI's reason names.
    struct Refusal: Sendable {
        var line: Int
        var reason: String
        var detail: String
    }

    /// A request refused because its new devices would take the server past `--max-devices`
    /// (429); nothing of it was applied.
    struct DeviceLimitRefusal: Error, Sendable {
        var message: String
    }

    /// Applies the accepted lines in line order; each fix is refused on its own when its
    /// tracker refuses it (`accuracy` beyond the limit, `order`: older than its device's
    /// latest accepted fix). With an `Idempotency-Key` seen before, applies nothing and
    /// answers what the first request answered.
    /// - Throws: ``DeviceLimitRefusal`` when the request's devices the server does not hold
    ///   yet (those of its well-formed lines, whether or not their fixes will be accepted)
    ///   would take it past ``maximumDevices``; nothing is applied.
    func ingest(accepted: [FixLines.Accepted], rejected: [FixLines.Rejected], key: String?) throws -> Outcome {
        if let key {
            if let pending = inflight[key] { return Outcome(ticket: pending.ticket, response: pending.response, replayed: true) }
            // Read here, inside the actor: a retry racing its first request cannot miss both
            // the in-flight entry and the stored record.
            if let stored = try store.response(forKey: key) { return Outcome(ticket: .done, response: stored, replayed: true) }
        }
        // Before any fix is applied, and only when the request could pass the limit at all.
        if devices.count + accepted.count > maximumDevices {
            var fresh = Set<String>()
            for item in accepted where devices[item.deviceID] == nil {
                fresh.insert(item.deviceID)
                if devices.count + fresh.count > maximumDevices {
                    throw DeviceLimitRefusal(message:
                        "the request would add devices beyond the server's limit of \(maximumDevices) (--max-devices; it holds \(devices.count)); nothing was applied")
                }
            }
        }
        var refusals = rejected.map { Refusal(line: $0.line, reason: $0.reason.rawValue, detail: $0.detail) }
        var lines: [EventLine] = []
        // The stored form of each device changed, in first-change order, and its place there.
        var records: [Store.Checkpoint.Entry] = []
        var seen: [String: Int] = [:]
        seen.reserveCapacity(accepted.count)
        var buffer: [GeofenceEvent] = []
        var count = 0
        var latestFix = Int64.min
        let context = fences.context
        for item in accepted {
            // By index: the device is found once for reading and writing.
            let index = devices.index(forKey: item.deviceID)
            let known = index.map { devices.values[$0] }
            if let known, item.fix.timestamp.milliseconds < known.latest {
                refusals.append(Refusal(
                    line: item.line, reason: "order",
                    detail: "\(item.fix.timestamp.milliseconds) ms is earlier than the device's latest input at \(known.latest) ms (its latest fix, or an event the server's clock fired)"))
                continue
            }
            if let rejection = context.rejection(of: item.fix) {
                refusals.append(Refusal(line: item.line, reason: rejection.reason.rawValue, detail: rejection.detail))
                continue
            }
            let observation: FixObservation
            do {
                observation = try context.observe(item.fix, using: evaluator)
            } catch {
                refusals.append(Refusal(line: item.line, reason: "coordinate", detail: "\(error)"))
                continue
            }
            var tracker = known.map { self.tracker(item.deviceID, $0) } ?? DeviceTracker(context: context)
            buffer.removeAll(keepingCapacity: true)
            if let rejection = tracker.update(observation, appendingTo: &buffer) {
                refusals.append(Refusal(line: item.line, reason: rejection.reason.rawValue, detail: rejection.detail))
                continue
            }
            for k in buffer.indices { buffer[k].deviceID = item.deviceID }
            var entry = Device(tracker, events: known?.events ?? 0)
            publish(buffer, device: item.deviceID, entry: &entry, into: &lines)
            if let index { devices.values[index] = entry } else { devices[item.deviceID] = entry }
            noteChange(item.deviceID)
            schedule(item.deviceID, entry, previous: known?.nextDue ?? .max)
            watchIdle(item.deviceID, entry, idle: tracker.isIdle)
            let stored = record(item.deviceID, entry)
            if let first = seen.updateValue(records.count, forKey: item.deviceID) {
                // A device's second fix in the request: its latest state, in its first place.
                seen[item.deviceID] = first
                records[first] = stored
            } else {
                records.append(stored)
            }
            latestFix = max(latestFix, item.fix.timestamp.milliseconds)
            count += 1
        }
        // The data clock moves to the latest fix accepted; what falls due before it fires,
        // after this request's own events, and goes to the log (not into this response).
        var clockLines: [EventLine] = []
        var forgotten: [String] = []
        var clockMoved = false
        if clockMode == .data && latestFix > clockTime {
            clockTime = latestFix
            clockMoved = true
            let fired = fireDue(before: clockTime)
            clockLines = fired.lines
            forgotten = forgetIdle(before: clockTime)
            if !fired.devices.isEmpty || !forgotten.isEmpty {
                // Devices the clock changed or forgot: every record is read again from the
                // devices, the fired ones after the request's own, the forgotten ones left out.
                let ids = Self.unique(records.map(\.id) + fired.devices)
                records = (forgotten.isEmpty ? ids : ids.filter { devices[$0] != nil }).map { record($0, devices[$0]!) }
            }
        }
        refusals.sort { $0.line < $1.line }
        metrics.record(accepted: count, rejectedReasons: refusals.map(\.reason))
        metrics.devices.set(Double(devices.count))
        let response = Self.responseBody(accepted: count, refusals: refusals, events: lines)
        var set = Store.WriteSet()
        set.events = lines + clockLines
        storeDevices(records: records, forgotten: forgotten, in: &set)
        if clockMoved { set.meta.append(("clock", String(clockTime))) }
        set.at = currentTime
        if let key { set.idempotency = (key, response) }
        let ticket = set.isEmpty ? CommitTicket.done : committer.enqueue(set)
        if let key { inflight[key] = (ticket, response) }
        return Outcome(ticket: ticket, response: response, replayed: false)
    }

    /// Drops a key's in-flight entry once its commit completed (the database answers for it
    /// from then on).
    func settled(key: String) {
        inflight[key] = nil
    }

    /// The response's JSON; the events are their stored lines, so a replay is byte for byte
    /// the first answer.
    static func responseBody(accepted: Int, refusals: [Refusal], events: [EventLine]) -> Data {
        var out = "{\"accepted\":\(accepted),\"rejected\":["
        for (k, refusal) in refusals.enumerated() {
            if k > 0 { out += "," }
            out += "{\"line\":\(refusal.line),\"reason\":"
            JSONText.appendString(refusal.reason, to: &out)
            out += ",\"detail\":"
            JSONText.appendString(refusal.detail, to: &out)
            out += "}"
        }
        out += "],\"events\":["
        for (k, line) in events.enumerated() {
            if k > 0 { out += "," }
            out += line.text
        }
        out += "]}"
        return Data(out.utf8)
    }
}
