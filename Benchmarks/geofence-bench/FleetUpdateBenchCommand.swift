import ArgumentParser
import GeofenceEngine

/// `geofence-bench fleet-update`: a fence update applied to a live fleet of trackers in
/// memory (`DeviceTracker.apply` on every device, on every thread), timed and measured.
struct FleetUpdateBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-update",
        abstract: "Time a fence update on a live fleet of device trackers in memory.",
        discussion: """
            Builds --fences circles (50-300 m) in a 40 x 40 km square and --devices trackers, \
            each fed two fixes so that it stands in 0-2 fences, then republishes the catalog \
            with --fraction of the fences removed or changed (half each) and 1 % added, and \
            applies the update to every tracker on --threads threads. Prints, per round, the \
            time to compare the sets and make the update, the time to apply it to the fleet, \
            the removal exits, and the peak resident memory the update added against the \
            fleet's own (the target: update within 100 ms on 2 threads for 100k devices at \
            10k fences, memory at most 1.2x the fleet's).
            """
    )

    @Option(help: "Devices in the fleet.") var devices = 100_000
    @Option(help: "Fences in the catalog.") var fences = 10_000
    @Option(help: "Fraction of the fences removed or changed.") var fraction = 0.1
    @Option(help: "Threads applying the update.") var threads = 2
    @Option(help: "Rounds (a fresh copy of the fleet each).") var rounds = 5
    @Option(help: "Seed of the world.") var seed: UInt64 = 42

    func run() throws {
        var rng = IndexBenchRandom(seed: seed)
        let base = (latitude: 30.2, longitude: -97.8)
        func point() -> (Double, Double) { (base.latitude + rng.unit() * 0.36, base.longitude + rng.unit() * 0.42) }
        var catalog: [Fence] = []
        for k in 0..<fences {
            let (lat, lng) = point()
            catalog.append(Fence(geofenceID: "f\(k)", shape: .circle(center: Coordinate(latitude: lat, longitude: lng), radius: 50 + rng.unit() * 250)))
        }
        let old = try FenceSet(catalog)
        var republished: [Fence] = []
        for var fence in catalog {
            let roll = rng.unit()
            if roll < fraction / 2 { continue }
            if roll < fraction, case .circle(let center, let radius) = fence.shape { fence.shape = .circle(center: center, radius: radius * 1.5) }
            republished.append(fence)
        }
        for k in 0..<fences / 100 {
            let (lat, lng) = point()
            republished.append(Fence(geofenceID: "n\(k)", shape: .circle(center: Coordinate(latitude: lat, longitude: lng), radius: 100)))
        }
        let new = try FenceSet(republished)
        let context = try TrackerContext(fenceSet: old)
        let evaluator = try ContainmentEvaluator(fenceSet: old)
        let positions = (0..<devices).map { _ in point() }
        /// The fleet: each device fed two fixes 20 m apart, 10 s apart.
        func buildFleet() throws -> (fleet: [DeviceTracker], inside: Int) {
            var fleet: [DeviceTracker] = []
            fleet.reserveCapacity(devices)
            var inside = 0
            for (d, (lat, lng)) in positions.enumerated() {
                var tracker = DeviceTracker(context: context)
                for step in 0..<2 {
                    let fix = Fix(
                        timestamp: Timestamp(milliseconds: Int64(d % 1000) + Int64(step) * 10_000), latitude: lat,
                        longitude: lng + Double(step) * 0.0002)
                    _ = try tracker.update(context.observe(fix, using: evaluator))
                }
                inside += tracker.reportedInside.count
                fleet.append(tracker)
            }
            return (fleet, inside)
        }
        for round in 1...rounds {
            // Memory as pages first touched (minor faults): while the fleet is built, and
            // while the update is applied to it in place.
            let f0 = Platform.minorPageFaults()
            var (fleet, inside) = try buildFleet()
            let f1 = Platform.minorPageFaults()
            let t0 = Measure.now()
            let update = try FenceUpdate(from: context, to: new, at: Timestamp(milliseconds: 60_000))
            let t1 = Measure.now()
            let exits = try FleetApply.apply(update, to: &fleet, threads: threads)
            let t2 = Measure.now()
            let f2 = Platform.minorPageFaults()
            let fleetBytes = (f1 - f0) * 4096, updateBytes = (f2 - f1) * 4096
            print(
                "round \(round): \(devices) devices, \(inside) pairs inside, fleet ~\(fleetBytes >> 20) MiB; change \(update.change.removed.count) removed, "
                    + "\(update.change.changed.count) changed, \(update.change.added.count) added in \(ms(t1 - t0)) ms; applied in \(ms(t2 - t1)) ms "
                    + "(\(threads) threads), \(exits) removal exits; total \(ms(t2 - t0)) ms; memory touched by the update \(updateBytes >> 10) KiB "
                    + "(\(Self.decimals(Double(fleetBytes + updateBytes) / Double(max(1, fleetBytes))))x the fleet's)")
        }
    }

    func ms(_ seconds: Double) -> String { Self.decimals(seconds * 1000) }

    static func decimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100).\(String(repeating: "0", count: 2 - fraction.count))\(fraction)"
    }
}

/// Applies one update to every tracker of a fleet, a contiguous range per thread.
enum FleetApply {
    final class Shared: @unchecked Sendable {
        let base: UnsafeMutablePointer<DeviceTracker>
        let update: FenceUpdate
        var exits: [Int]
        init(base: UnsafeMutablePointer<DeviceTracker>, update: FenceUpdate, parts: Int) {
            self.base = base
            self.update = update
            exits = [Int](repeating: 0, count: parts)
        }
    }

    static func apply(_ update: FenceUpdate, to fleet: inout [DeviceTracker], threads: Int) throws -> Int {
        let n = fleet.count
        let pool = try WorkerPool(threads: threads)
        return fleet.withUnsafeMutableBufferPointer { buffer in
            let shared = Shared(base: buffer.baseAddress!, update: update, parts: threads)
            pool.run(count: threads) { part, _ in
                var events: [GeofenceEvent] = []
                for i in (n * part / threads)..<(n * (part + 1) / threads) {
                    events.removeAll(keepingCapacity: true)
                    // Cannot fail: the fleet is on the update's old set, before its time.
                    try? shared.base[i].apply(shared.update, appendingTo: &events)
                    shared.exits[part] += events.count
                }
            }
            return shared.exits.reduce(0, +)
        }
    }
}
