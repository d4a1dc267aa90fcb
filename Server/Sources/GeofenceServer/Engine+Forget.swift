import GeofenceEngine
import HeapModule

/// `--forget-after`: devices that have gone quiet are dropped, so the device limit clears.
///
/// A device is forgotten once the server's clock passes its latest input by the duration
/// while it is *idle*: in no fence (raw or reported), no window open, nothing pending
/// (`DeviceTracker.isIdle`, no next due time). Its next fix then starts a new tracker, which
/// judges it as the old one would have: the old one had nothing open to carry. A device
/// inside a fence is kept however long it is quiet, since forgetting it would leave its
/// entrance without an exit.
///
/// Each device that becomes idle pushes (latest input + duration) to a min-heap, as the due
/// times do (`Engine+Clock.swift`); an entry that no longer matches its device's latest
/// input is skipped when it comes out, and stale entries are dropped when they pile up.
extension Engine {
    /// Watches `id` for forgetting when `tracker` (its state in `entry`) is idle.
    func watchIdle(_ id: String, _ entry: Device, idle: Bool) {
        guard let forgetAfter, idle, entry.nextDue == .max, entry.latest != .min else { return }
        idles.insert(Due(time: entry.latest + forgetAfter, device: id))
        if idles.count > 2 * devices.count + 1_024 {
            idles = Heap(idles.unordered.filter { devices[$0.device].map { $0.latest + forgetAfter } == $0.time })
        }
    }

    /// Forgets every device idle since before `now` less `--forget-after`, in time then id
    /// order; returns their ids.
    /// - Complexity: O(k log h) for k entries that come out of a heap of h, each checked by
    ///   decoding its device.
    func forgetIdle(before now: Int64) -> [String] {
        guard let forgetAfter else { return [] }
        var forgotten: [String] = []
        while let first = idles.min, first.time < now {
            idles.removeMin()
            guard let entry = devices[first.device], entry.latest + forgetAfter == first.time, entry.nextDue == .max,
                  tracker(first.device, entry).isIdle
            else { continue }
            devices[first.device] = nil
            noteChange(first.device)
            forgotten.append(first.device)
        }
        if !forgotten.isEmpty {
            metrics.devicesForgotten.increment(by: Int64(forgotten.count))
            metrics.devices.set(Double(devices.count))
        }
        return forgotten
    }

    /// The heap of the idle devices (at start, from their decoded trackers).
    static func idles(of devices: [String: Device], idle: Set<String>, forgetAfter: Int64?) -> Heap<Due> {
        guard let forgetAfter else { return Heap() }
        return Heap(idle.compactMap { id in
            devices[id].flatMap { $0.nextDue == .max && $0.latest != .min ? Due(time: $0.latest + forgetAfter, device: id) : nil }
        })
    }
}
