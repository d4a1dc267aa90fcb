import Dispatch
import Foundation
import GeofenceEngine
import Synchronization

/// The work of a fence update outside the actor: every device moved to the new set, on
/// threads of its own, while fixes keep flowing (those they change are moved again as they
/// change, `Engine+Premove.swift`).
extension Engine {
    /// Everything the work outside the actor needs, and what it makes.
    struct FenceMove: Sendable {
        var update: FenceUpdate
        /// The context of the set in force at the begin step (the devices' states are on it).
        var context: TrackerContext
        /// The fence version the update starts from: the finish step refuses to apply it on another.
        var version: Int64
        /// The update's number among those begun (``Engine/Premove``).
        var serial: Int
        /// Every device as it was at the begin step.
        var before: [String: Device]
        /// Where the begin step's changes start in ``Engine/changeLog``.
        var logStart: Int
        /// Every device of ``before``, moved.
        var moved: [String: Device] = [:]
        /// The moved devices that have events, with their events, formatted for publishing.
        var events: [String: [PreparedEvent]] = [:]
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

        /// Moves every device of ``before``, in ``moveThreads`` parts on threads of its own.
        ///
        /// Not on two tasks, nor on Dispatch's threads: Swift's cooperative pool has one thread
        /// a core, and so has Dispatch's on Linux, which runs GRDB's writer. Two moves that
        /// compute for a quarter of a second took either pool, and with it the engine actor or
        /// the group commit: ingest stalled for 150 to 300 ms at each update's start.
        static func run(_ move: FenceMove) async throws -> FenceMove {
            try await withCheckedThrowingContinuation { continuation in
                Self.onThread { continuation.resume(with: Result { try runHere(move) }) }
            }
        }

        /// Runs `body` on a new thread.
        static func onThread(_ body: @escaping @Sendable () -> Void) {
            let thread = Thread(block: body)
            thread.stackSize = 8 << 20
            thread.start()
        }

        /// Threads that move the devices of a large update. They share the cores with ingest
        /// at the operating system's fair share: with three rather than two, a 10k-fence
        /// update over 100,000 devices under full batched load took 0.66-0.94 s in the
        /// benchmark instead of 0.72-1.10 s, for the same stalls.
        static let moveThreads = 3

        /// ``run(_:)`` on the calling thread and, for many devices, ``moveThreads`` - 1 more.
        static func runHere(_ move: FenceMove) throws -> FenceMove {
            let devices = Array(move.before)
            let parts = devices.count < 4_096 ? 1 : moveThreads
            let (update, context) = (move.update, move.context)
            typealias Moved = (id: String, from: Device, entry: Device, events: [PreparedEvent], idle: Bool)
            @Sendable func part(_ k: Int) -> Result<[Moved], any Error> {
                Result {
                    try devices[devices.count * k / parts..<devices.count * (k + 1) / parts].map { id, from in
                        let done = try Self.move(id, from, update, from: context)
                        return (id, from, done.entry, done.events.map { PreparedEvent($0, deviceID: id) }, done.idle)
                    }
                }
            }
            let others = Mutex<[Int: Result<[Moved], any Error>]>([:])
            let done = DispatchSemaphore(value: 0)
            for k in 1..<parts {
                Self.onThread {
                    let result = part(k)
                    others.withLock { $0[k] = result }
                    done.signal()
                }
            }
            var parted = [part(0)]
            for _ in 1..<parts { done.wait() }
            others.withLock { results in parted += (1..<parts).map { results[$0]! } }
            var result = move
            result.moved.reserveCapacity(devices.count)
            for half in parted {
                for done in try half.get() {
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
