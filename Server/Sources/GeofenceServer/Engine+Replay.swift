import Foundation
import GeofenceEngine
import Logging

/// Restoring devices at start, on the set in force: rows made on an earlier set get the fence
/// updates since replayed (`Store+FenceVersions.swift`).
///
/// A replayed update is the move ``FenceMove/move(_:_:_:from:)`` made when the update ran: the
/// same state (the device's last row before the update, since every change made before the
/// update's finish step was committed before it), the same two sets, time and policy. Its
/// events are already in the log; only their count goes on the device, as publishing did.
extension Engine {
    /// Every stored device decoded on `current`, and the idle ones.
    /// - Parameters:
    ///   - older: the devices whose entry was made on an earlier version, with it.
    ///   - versions: the stored sets, oldest first; the last is `current`.
    /// - Throws: ``ServerError`` for a state that cannot be decoded or replayed.
    /// - Complexity: O(n) decodings for n devices, and one move per update a device missed.
    static func restore(
        _ entries: [String: Store.Checkpoint.Entry], older: [String: Int64], versions: [Store.FenceVersion],
        current: Fences, onFenceRemoved: FenceUpdate.RemovalPolicy, logger: Logger
    ) throws -> (devices: [String: Device], idle: Set<String>) {
        var devices: [String: Device] = [:]
        devices.reserveCapacity(entries.count)
        var idle = Set<String>()
        var replay = Replay(versions: versions, current: current)
        for row in entries.values {
            let version = older[row.id] ?? current.version
            let context = try replay.context(version)
            var tracker: DeviceTracker
            if row.state.first == 0x7B {
                // A folder of an earlier version: JSON snapshots, taken on the stored set
                // (restoring causes no event); rewritten in the compact form at their next change.
                let snapshot = try SnapshotStore.decode(DeviceSnapshot.self, from: row.state)
                let (restored, events) = try DeviceTracker.restore(snapshot, context: context, onFenceRemoved: onFenceRemoved)
                if !events.isEmpty { logger.warning("device \(row.id): restoring made \(events.count) events, dropped") }
                tracker = restored
            } else {
                // Decoded once, to check the bytes against the set and read the two times.
                do {
                    tracker = try DeviceTracker(encodedState: row.state, context: context)
                } catch {
                    throw ServerError("device \(row.id): its stored state does not decode on fence set version \(version): \(error)")
                }
            }
            var entry = Device(tracker, events: row.events)
            var idleNow = tracker.isIdle
            var from = version
            while from < current.version {
                let (update, next) = try replay.update(after: from)
                do {
                    let moved = try FenceMove.move(row.id, entry, update, from: try replay.context(from))
                    entry = moved.entry
                    entry.events += Int64(moved.events.count)
                    idleNow = moved.idle
                } catch {
                    throw ServerError("device \(row.id): replaying fence update \(next) on its stored state failed: \(error)")
                }
                from = next
            }
            devices[row.id] = entry
            if idleNow { idle.insert(row.id) }
        }
        return (devices, idle)
    }

    /// The stored sets' contexts and the updates between them, each made once, when first needed.
    struct Replay {
        let versions: [Store.FenceVersion]
        let current: Fences
        let configuration: TrackerConfiguration
        var contexts: [Int64: TrackerContext] = [:]
        var updates: [Int64: FenceUpdate] = [:]

        init(versions: [Store.FenceVersion], current: Fences) {
            self.versions = versions
            self.current = current
            configuration = current.context.configuration
            contexts[current.version] = current.context
        }

        /// The context of stored version `version`.
        mutating func context(_ version: Int64) throws -> TrackerContext {
            if let known = contexts[version] { return known }
            guard let stored = versions.first(where: { $0.version == version }) else {
                throw ServerError("a device row was made on fence set version \(version), which is not stored")
            }
            let set = try FenceSet.load(bytes: stored.bytes, name: "the stored fence set, version \(stored.version)")
            let context = try TrackerContext(fenceSet: set, configuration: configuration)
            contexts[version] = context
            return context
        }

        /// The update that followed version `version`, and the version it made.
        mutating func update(after version: Int64) throws -> (FenceUpdate, Int64) {
            guard let index = versions.firstIndex(where: { $0.version == version }), index + 1 < versions.count else {
                throw ServerError("fence set version \(version) has no stored successor")
            }
            let next = versions[index + 1]
            if let known = updates[next.version] { return (known, next.version) }
            guard let policy = FenceUpdate.RemovalPolicy(rawValue: next.onRemoved) else {
                throw ServerError("fence set version \(next.version): unknown removal policy \(next.onRemoved)")
            }
            let update = try FenceUpdate(
                from: try context(version), to: try context(next.version).fenceSet, at: Timestamp(milliseconds: next.at ?? 0),
                onFenceRemoved: policy)
            updates[next.version] = update
            return (update, next.version)
        }
    }
}
