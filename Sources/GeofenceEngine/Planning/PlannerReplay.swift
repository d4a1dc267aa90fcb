import GeofenceGEOS
import GeofenceGeometry

/// Replays recorded device tracks against a registration planner and checks that the OS
/// would have reported every entrance that full evaluation finds.
///
/// **Entrances.** Full evaluation (``ContainmentEvaluator``, every fence) runs on every fix.
/// An *entrance* is a fix inside a fence whose previous fix (same device) was not. Entrances
/// at a device's first fix are counted apart (`initialEntrances`): there is no earlier plan;
/// the initial registration's state query (iOS `requestState(for:)`, Android
/// `INITIAL_TRIGGER_ENTER`) reports them.
///
/// **Which plan was in force.** The OS reports an entry only if the fence was registered when
/// the device crossed into it, so an entrance is *missed* when its fence is not in the plan in
/// force at that moment. A plan made because of the very fix that shows the entrance does not
/// count: it came too late. Two models of "that moment" are offered (``ReplayModel``), because
/// the fixes are minutes apart and the crossing itself is never observed.
package enum ReplayModel: String, Hashable, Sendable, CaseIterable {
    /// The app hears only the recorded fixes: it re-plans when a fix lies outside the refresh
    /// region, and an entrance counts as seen if its fence is in the plan in force before
    /// that fix. This is *not* how region monitoring works (the OS watches the refresh region
    /// continuously); with fixes minutes and kilometres apart a device jumps from inside its
    /// region into an unmonitored fence in one step, so this model reports misses that say
    /// more about the sampling than about the planner.
    case fixesOnly
    /// What the OS does: between two fixes the device moves on the straight lon/lat line
    /// joining them (the only path the data supports); the OS watches the refresh region
    /// continuously, so the app re-plans at each point where that line leaves the current
    /// region (found to 1 mm), possibly several times between two fixes. An entrance is seen
    /// when its fence is in the plan in force at the point where the line crosses into the
    /// fence (found by bisection on the exact test, to 1 mm). `missedAtArrival` also counts
    /// entrances whose fence is not in the plan in force on arrival at the fix.
    case continuous
}

/// One device's recorded fixes, time-ordered, with what full evaluation found at each.
package struct ReplayTrack: Sendable {
    package var deviceID: String
    /// Milliseconds since the epoch, ascending (stable for equal times).
    package var timestamps: [Int64]
    package var positions: [Coordinate]
    /// Slots of the fences containing each fix, ascending.
    package var inside: [[Int32]]
}

/// A missed entrance.
package struct ReplayMiss: Hashable, Sendable {
    package var deviceID: String
    package var timestamp: Int64
    package var geofenceID: String
    /// The fix showing the entrance.
    package var position: Coordinate
}

/// What a replay found. Rates are per 1,000 processed fixes.
package struct ReplayReport: Sendable {
    package var model: ReplayModel
    /// The planner's region limit and the fence slots it leaves.
    package var budget: Int
    package var fenceSlots: Int
    package var devices = 0
    package var fixes = 0
    /// Entrances at fixes after a device's first.
    package var entrances = 0
    /// Fences holding a device at its first fix (reported by the initial state query).
    package var initialEntrances = 0
    /// Entrances whose fence was not monitored at the crossing (``ReplayModel``).
    package var missedEntrances = 0
    /// Continuous model: entrances whose fence was not monitored on arrival at the fix.
    package var missedAtArrival = 0
    /// The first misses, in replay order (at most ``PlannerReplay/keptMisses``).
    package var misses: [ReplayMiss] = []
    /// Plans after each device's first.
    package var replans = 0
    package var initialPlans = 0
    /// Ids added and removed by re-plans (initial registrations apart).
    package var adds = 0
    package var removes = 0
    package var initialAdds = 0
    /// Largest number of fences monitored at once (must not exceed `fenceSlots`).
    package var maxMonitored = 0
    /// Plans whose refresh radius came out 0 (an unmonitored fence within the 1 m margin).
    package var zeroRadiusPlans = 0
    /// Continuous model: re-plans placed by the 1 m minimum step (refresh regions under 1 m)
    /// rather than at a region exit.
    package var forcedSteps = 0

    /// `count` per 1,000 processed fixes.
    package func perThousandFixes(_ count: Int) -> Double {
        fixes == 0 ? 0 : Double(count) * 1000 / Double(fixes)
    }
}

/// A fix file that cannot be replayed.
package struct ReplayInputError: Error, Hashable, Sendable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "\(path): \(reason)" }
}

/// Loading tracks and running replays; see ``ReplayModel`` for what is checked.
package enum PlannerReplay {
    /// How many misses a report keeps as examples.
    package static let keptMisses = 20

    /// Reads a fix CSV (header naming at least device_id,timestamp,lat,lon), groups fixes by
    /// device (devices in ascending id order; fixes by timestamp, stable), and runs full
    /// evaluation on every fix. Unreadable rows and invalid coordinates are skipped and
    /// counted in `rejected`. With `deviceStride` k, only every k-th device (in id order, the
    /// first included) becomes a track, and only its fixes are evaluated; `devices` counts
    /// them all.
    /// - Complexity: O(f log f) for f fixes, plus a containment query per kept fix.
    package static func loadTracks(
        path: String, evaluator: ContainmentEvaluator, filter: NearestFilter = NearestFilter(), deviceStride: Int = 1
    ) throws -> (tracks: [ReplayTrack], rejected: Int, devices: Int) {
        let reader: LineBlockReader
        do { reader = try LineBlockReader(path: path) } catch { throw ReplayInputError(path: path, reason: error.reason) }
        var header: FixCSVHeader? = nil
        var row = FixCSVRow()
        var deviceIndex: [String: Int] = [:]
        var rows: [[(time: Int64, order: Int, position: Coordinate)]] = []
        var ids: [String] = []
        var rejected = 0, order = 0
        try reader.forEachLine { base, start, end, _ in
            guard let columns = header else {
                do {
                    header = try FixCSVHeader(line: UnsafeRawBufferPointer(start: base + start, count: end - start))
                } catch {
                    throw ReplayInputError(path: path, reason: "line 1: \(error)")
                }
                return
            }
            if end - start == 0 || (end - start == 1 && base[start] == 0x0D) { return }
            guard row.parse(base, start, end, header: columns) == nil,
                Coordinate(latitude: row.latitude, longitude: row.longitude).isValid
            else { rejected += 1; return }
            let id = row.deviceID(in: base)
            let d: Int
            if let known = deviceIndex[id] { d = known } else {
                d = rows.count
                deviceIndex[id] = d
                rows.append([])
                ids.append(id)
            }
            rows[d].append((row.timestamp, order, Coordinate(latitude: row.latitude, longitude: row.longitude)))
            order += 1
        }
        if header == nil { throw ReplayInputError(path: path, reason: "empty file (expected a header line)") }
        var tracks: [ReplayTrack] = []
        let stride = max(1, deviceStride)
        for (rank, d) in ids.indices.sorted(by: { fenceIDPrecedes(ids[$0], ids[$1]) }).enumerated() where rank % stride == 0 {
            let fixes = rows[d].sorted { ($0.time, $0.order) < ($1.time, $1.order) }
            var inside: [[Int32]] = []
            inside.reserveCapacity(fixes.count)
            var buffer: [Int32] = []
            for fix in fixes {
                try evaluator.containing(
                    latitude: fix.position.latitude, longitude: fix.position.longitude,
                    level: filter.level, options: filter.options, into: &buffer)
                inside.append(buffer.filter { evaluator.fenceSet.accepts(slot: Int($0), filter: filter) })
            }
            tracks.append(ReplayTrack(
                deviceID: ids[d], timestamps: fixes.map(\.time), positions: fixes.map(\.position), inside: inside))
        }
        return (tracks, rejected, ids.count)
    }
}
