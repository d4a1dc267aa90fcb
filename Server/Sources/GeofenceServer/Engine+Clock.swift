import Foundation
import GeofenceEngine
import HeapModule

/// The server's clock: events due without a new fix (a dwell, an exit at the end of its
/// ignore window, an entrance confirmed after its quiet window) fire once the clock passes
/// their due time.
///
/// Each device with something pending has an entry in a min-heap of due times. An entry is
/// pushed whenever a device's next due time changes, and an entry whose time no longer is
/// its device's next due time is skipped when it comes out: cheaper than finding it in the
/// heap, and the heap is rebuilt from the devices when such entries pile up.
extension Engine {
    /// A device's next due time, ordered by time, then device id: the clock fires in the same
    /// order in every run.
    struct Due: Comparable, Sendable {
        var time: Int64
        var device: String

        static func < (a: Due, b: Due) -> Bool { a.time != b.time ? a.time < b.time : a.device < b.device }
    }

    /// Pushes `id`'s next due time when it differs from `previous` (its time before a change).
    func schedule(_ id: String, _ entry: Device, previous: Int64) {
        guard entry.nextDue != .max, entry.nextDue != previous else { return }
        dues.insert(Due(time: entry.nextDue, device: id))
        if dues.count > 2 * devices.count + 1_024 { rebuildDues() }
    }

    /// The heap from the devices alone (at start, and when stale entries pile up).
    func rebuildDues() {
        dues = Self.dues(of: devices)
    }

    static func dues(of devices: [String: Device]) -> Heap<Due> {
        Heap(devices.compactMap { id, entry in entry.nextDue == .max ? nil : Due(time: entry.nextDue, device: id) })
    }

    /// Fires every event due strictly before `now`, device by device in due order: each
    /// device's tracker advances to its due time (never further, so a fix of that device
    /// at or after it is still judged as the batch evaluator judges it). Strictly before:
    /// a fix at exactly the due time comes first, as in the batch evaluator.
    /// - Returns: the events, published, and the devices whose state changed.
    /// - Complexity: O((k + s) log h) for k devices with something due, s stale entries and
    ///   a heap of h entries.
    func fireDue(before now: Int64) -> (lines: [EventLine], devices: [String]) {
        var lines: [EventLine] = []
        var touched: [String] = []
        var buffer: [GeofenceEvent] = []
        while let first = dues.min, first.time < now {
            dues.removeMin()
            guard var entry = devices[first.device], entry.nextDue == first.time else { continue }
            var tracker = self.tracker(first.device, entry)
            buffer.removeAll(keepingCapacity: true)
            do {
                try tracker.advance(to: Timestamp(milliseconds: first.time), appendingTo: &buffer)
            } catch {
                // A due time is never before the device's latest input; if one were, firing
                // it would break the device's order, so it stays pending.
                logger.error("device \(first.device): the clock cannot fire its events due at \(first.time): \(error)")
                continue
            }
            for k in buffer.indices { buffer[k].deviceID = first.device }
            entry = Device(tracker, events: entry.events)
            publish(buffer, device: first.device, entry: &entry, into: &lines)
            devices[first.device] = entry
            noteChange(first.device)
            touched.append(first.device)
            schedule(first.device, entry, previous: .max)
            watchIdle(first.device, entry, idle: tracker.isIdle)
        }
        return (lines, touched)
    }

    /// `--clock wall`'s tick, to ``currentTime`` (the wall clock less `--clock-delay`).
    func tick() { tick(now: currentTime) }

    /// `--clock wall`'s tick: fires what is due before `now` and queues it for commit. The
    /// events go to the log and to subscribers once durable; no request waits for them.
    func tick(now: Int64) {
        guard now > clockTime else { return }
        clockTime = now
        let (lines, touched) = fireDue(before: now)
        let forgotten = forgetIdle(before: now)
        guard !lines.isEmpty || !touched.isEmpty || !forgotten.isEmpty else { return }
        var set = Store.WriteSet()
        set.events = lines
        let kept = Self.unique(touched)
        storeDevices(forgotten.isEmpty ? kept : kept.filter { devices[$0] != nil }, forgotten: forgotten, in: &set)
        set.at = now
        _ = committer.enqueue(set)
    }

    /// `ids` without repeats, in first-seen order.
    static func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// The wall clock in epoch milliseconds.
    static var wallMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
