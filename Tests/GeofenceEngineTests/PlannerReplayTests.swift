import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// The registration planner replayed on real movement: the Austin bus traces against the
/// Austin stops (50 m circles) and neighbourhood polygons. See ``ReplayModel`` for the model.
@Suite("Planner replay", .serialized)
struct PlannerReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fencesPath = root.appendingPathComponent("data/austin/fences.geojson").path
    static let fixesPath = root.appendingPathComponent("data/austin/capmetro_avl_traces.csv").path

    /// Every ``deviceStride``-th device of the traces; only their fixes are evaluated (debug
    /// builds are slow; `geofence-bench replay` runs all of them in release, with the same code).
    static func austin() throws -> (ContainmentEvaluator, [ReplayTrack]) {
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet.load(path: fencesPath))
        let (tracks, rejected, devices) = try PlannerReplay.loadTracks(path: fixesPath, evaluator: evaluator, deviceStride: deviceStride)
        #expect(rejected == 0 && devices == 379)
        #expect(tracks.count == (379 + deviceStride - 1) / deviceStride)
        return (evaluator, tracks)
    }

    /// Every 16th device under `make test-long`, every 96th under `make test`.
    static let deviceStride = sized(full: 16, quick: 96)

    @Test("continuous model with hysteresis: no missed entrance with budgets 20 and 100")
    func austinContinuous() throws {
        let (evaluator, tracks) = try Self.austin()
        // Full evaluation (tree) agrees with the scan on a sample of the fixes.
        for track in tracks.prefix(5) {
            for (i, p) in track.positions.enumerated() where i % 7 == 0 {
                let scan = try evaluator.containingByScan(latitude: p.latitude, longitude: p.longitude, level: nil)
                #expect(track.inside[i].map(Int.init) == scan, "\(track.deviceID) fix \(i)")
            }
        }
        for budget in [20, 100] {
            // The recommended planner, with hysteresis (the walk in PlannerHysteresisTests bounds
            // its churn; `geofence-bench replay --hysteresis-fractions 0 0.5` compares both here;
            // the plain nearest planner is replayed on the synthetic line below and in the bench).
            let planner = try RegistrationPlanner(
                budget: .custom(budget), hysteresisFraction: RegistrationPlanner.recommendedHysteresisFraction)
            let r = try PlannerReplay.run(tracks: tracks, model: .continuous, planner: planner, evaluator: evaluator)
            let summary = "budget \(budget): \(r.entrances) entrances, \(r.missedEntrances) missed, \(r.missedAtArrival) missed at arrival, "
                + "re-plans/1k \(r.perThousandFixes(r.replans)), adds/1k \(r.perThousandFixes(r.adds)), removes/1k \(r.perThousandFixes(r.removes)), first misses \(r.misses.prefix(3))"
            #expect(r.entrances > 16_000 / Self.deviceStride, "\(summary)")
            #expect(r.missedEntrances == 0, "\(summary)")
            #expect(r.missedAtArrival == 0, "\(summary)")
            #expect(r.maxMonitored <= budget - 1, "\(summary)")
            #expect(r.replans > 0 && r.adds > 0, "\(summary)")
        }
    }

    @Test("fixes-only model sees the same entrances but misses some; a clamped refresh radius misses too")
    func austinFixesOnlyAndClamp() throws {
        let (evaluator, tracks) = try Self.austin()
        let planner = try RegistrationPlanner(budget: .ios)
        let strict = try PlannerReplay.run(tracks: tracks, model: .fixesOnly, planner: planner, evaluator: evaluator)
        let continuous = try PlannerReplay.run(tracks: tracks, model: .continuous, planner: planner, evaluator: evaluator)
        #expect(strict.entrances == continuous.entrances && strict.fixes == continuous.fixes)
        // Fixes minutes apart: a bus jumps from inside its refresh region into an unmonitored
        // stop in one step. This is the sampling, not the planner (continuous finds 0).
        #expect(strict.missedEntrances > 0 && strict.missedEntrances <= strict.entrances)
        #expect(continuous.missedEntrances == 0)
        // The check can fail: a 3 km floor on the refresh radius lets buses reach unmonitored
        // stops without leaving the region.
        let clamped = try RegistrationPlanner(budget: .ios, minimumRefreshRadius: 3_000)
        let risky = try PlannerReplay.run(tracks: tracks, model: .continuous, planner: clamped, evaluator: evaluator)
        #expect(risky.missedEntrances > 0)
        #expect(risky.replans < continuous.replans)
    }

    @Test("synthetic line of stops: continuous model catches every entrance, sparse fixes do not")
    func lineOfStops() throws {
        // 30 stops of 40 m every 200 m along a parallel; a device drives along it.
        let start = Coordinate(latitude: 51.5, longitude: -0.2)
        let fences = (0..<30).map { i in
            Fence(geofenceID: String(format: "s%02d", i),
                  shape: .circle(center: Sphere.destination(from: start, distance: 200 * Double(i), bearing: .pi / 2), radius: 40))
        }
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        func track(every metres: Double) throws -> ReplayTrack {
            let positions = stride(from: 0.0, through: 5_900, by: metres).map {
                Sphere.destination(from: start, distance: $0, bearing: .pi / 2)
            }
            var inside: [[Int32]] = []
            for p in positions {
                inside.append(try evaluator.containing(latitude: p.latitude, longitude: p.longitude, level: nil).map(Int32.init))
            }
            return ReplayTrack(deviceID: "d", timestamps: positions.indices.map { Int64($0) * 1000 }, positions: positions, inside: inside)
        }
        let planner = try RegistrationPlanner(budget: .custom(4))  // 3 stops at a time
        let sparse = try track(every: 1_000)  // lands on every fifth stop
        let strict = try PlannerReplay.run(tracks: [sparse], model: .fixesOnly, planner: planner, evaluator: evaluator)
        let continuous = try PlannerReplay.run(tracks: [sparse], model: .continuous, planner: planner, evaluator: evaluator)
        #expect(strict.entrances == 5 && continuous.entrances == 5)
        #expect(strict.missedEntrances == 5, "every fix jumps 1 km, past the 3 monitored stops")
        #expect(continuous.missedEntrances == 0)
        #expect(continuous.replans >= 10, "re-plans on the way: at least one per 500 m")
        // Fixes closer together than the 1 m refresh margin: even the strict model misses nothing.
        let dense = try track(every: 0.5)
        let denseStrict = try PlannerReplay.run(tracks: [dense], model: .fixesOnly, planner: planner, evaluator: evaluator)
        #expect(denseStrict.entrances == 29 && denseStrict.missedEntrances == 0, "\(denseStrict.misses)")
    }
}
