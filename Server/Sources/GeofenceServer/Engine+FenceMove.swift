import Foundation
import GeofenceEngine

/// The work of a fence update outside the actor: every device moved to the new set, on two
/// tasks, while fixes keep flowing (the finish step moves again those they changed).
extension Engine {
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
        /// The moved devices that have events, with their events.
        var events: [String: [GeofenceEvent]] = [:]
        /// The moved devices whose next due time changed, with it.
        var dues: [String: Int64] = [:]
        /// The moved devices that are idle (`Engine+Forget.swift`).
        var idle = Set<String>()

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
            let devices = Array(move.before)
            let parts = devices.count < 4_096 ? 1 : 2
            let (update, context) = (move.update, move.context)
            typealias Moved = (id: String, from: Device, entry: Device, events: [GeofenceEvent], idle: Bool)
            let halves = try await withThrowingTaskGroup(of: [Moved].self) { group in
                for part in 0..<parts {
                    let slice = devices[devices.count * part / parts..<devices.count * (part + 1) / parts]
                    group.addTask {
                        try slice.map { id, from in
                            let done = try Self.move(id, from, update, from: context)
                            return (id, from, done.entry, done.events, done.idle)
                        }
                    }
                }
                var all: [[Moved]] = []
                for try await half in group { all.append(half) }
                return all
            }
            var result = move
            result.moved.reserveCapacity(devices.count)
            for half in halves {
                for done in half {
                    result.moved[done.id] = done.entry
                    if !done.events.isEmpty { result.events[done.id] = done.events }
                    // The engine holds the device's due time from before the move.
                    if done.entry.nextDue != done.from.nextDue && done.entry.nextDue != .max { result.dues[done.id] = done.entry.nextDue }
                    if done.idle { result.idle.insert(done.id) }
                }
            }
            return result
        }
    }
}
