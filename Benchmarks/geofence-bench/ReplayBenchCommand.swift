import ArgumentParser
import GeofenceEngine

/// `geofence-bench replay`: the registration planner replayed on recorded bus traces.
struct ReplayBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay device traces against the OS registration planner and count missed entrances.",
        discussion: """
            Every fix is evaluated against every fence (full evaluation); an entrance is a fix \
            inside a fence its previous fix was not in. Each device plans at its first fix and \
            re-plans when it leaves its refresh region. Two models of when that happens:

            fixesOnly: only at recorded fixes. A strict model: the OS actually watches the \
            region continuously, so its misses measure the sampling of the traces, not the plan.

            continuous: at the points where the straight line between two fixes leaves the \
            region (what the OS does); an entrance is seen if its fence was monitored where the \
            line crosses into it. Missed entrances must be 0.

            Rates are per 1,000 fixes; adds/removes count re-plans only (initial registrations \
            apart); changes/replan is (adds + removes) per re-plan.
            """
    )

    @Option(name: .long, help: "GeoJSON fences (default: the Austin stops and neighbourhoods).")
    var fences = "data/austin/fences.geojson"

    @Option(name: .long, help: "Fix CSV (default: the Austin bus traces).")
    var fixes = "data/austin/capmetro_avl_traces.csv"

    @Option(name: .long, parsing: .upToNextOption, help: "Region budgets to replay (default: 20 100).")
    var budgets: [Int] = [20, 100]

    @Option(name: .long, help: "fixesOnly, continuous or both (default: both).")
    var model = "both"

    @Option(name: .long, help: "Minimum refresh radius in metres (default: 0; a clamp risks misses).")
    var minimumRefreshRadius = 0.0

    @Option(name: .long, parsing: .upToNextOption, help: "Hysteresis fractions to replay, each in [0, 1) (default: the planner's default).")
    var hysteresisFractions: [Double] = [RegistrationPlanner.recommendedHysteresisFraction]

    func run() throws {
        let models: [ReplayModel]
        switch model {
        case "both": models = [.fixesOnly, .continuous]
        default:
            guard let m = ReplayModel(rawValue: model) else { throw ValidationError("--model must be fixesOnly, continuous or both") }
            models = [m]
        }
        var t0 = RTreeBench.now()
        let set = try FenceSet.load(path: fences)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        let loadSeconds = RTreeBench.now() - t0
        t0 = RTreeBench.now()
        let (tracks, rejected, _) = try PlannerReplay.loadTracks(path: fixes, evaluator: evaluator)
        let evaluateSeconds = RTreeBench.now() - t0
        let fixCount = tracks.reduce(0) { $0 + $1.positions.count }
        print("fences: \(set.count) (\(fences), loaded in \(RTreeBench.fixed(loadSeconds, 2)) s)")
        print("fixes: \(fixCount) from \(tracks.count) devices, \(rejected) rejected rows; full evaluation in \(RTreeBench.fixed(evaluateSeconds, 2)) s")
        if minimumRefreshRadius > 0 { print("minimum refresh radius: \(minimumRefreshRadius) m") }
        print("")
        let header = ["model", "budget", "hyst.", "entrances", "missed", "missed@arrival", "initial", "replans/1k", "adds/1k", "removes/1k", "changes/replan", "max mon.", "r=0 plans", "forced", "s"]
        var rows: [[String]] = []
        var examples: [String] = []
        for m in models {
            for (budget, fraction) in budgets.flatMap({ b in hysteresisFractions.map { (b, $0) } }) {
                let planner = try RegistrationPlanner(
                    budget: .custom(budget), minimumRefreshRadius: minimumRefreshRadius, hysteresisFraction: fraction)
                let start = RTreeBench.now()
                let r = try PlannerReplay.run(tracks: tracks, model: m, planner: planner, evaluator: evaluator)
                let seconds = RTreeBench.now() - start
                rows.append([
                    m.rawValue, "\(budget)", "\(fraction)", "\(r.entrances)", "\(r.missedEntrances)",
                    m == .continuous ? "\(r.missedAtArrival)" : "-", "\(r.initialEntrances)",
                    RTreeBench.fixed(r.perThousandFixes(r.replans), 1), RTreeBench.fixed(r.perThousandFixes(r.adds), 1),
                    RTreeBench.fixed(r.perThousandFixes(r.removes), 1),
                    RTreeBench.fixed(r.replans == 0 ? 0 : Double(r.adds + r.removes) / Double(r.replans), 2),
                    "\(r.maxMonitored)/\(r.fenceSlots)",
                    "\(r.zeroRadiusPlans)", "\(r.forcedSteps)", RTreeBench.fixed(seconds, 1),
                ])
                for miss in r.misses.prefix(3) {
                    examples.append("  \(m.rawValue) budget \(budget) hysteresis \(fraction): \(miss.deviceID) at \(Timestamp(milliseconds: miss.timestamp)) entered \(miss.geofenceID) at \(miss.position)")
                }
                Platform.flushStandardStreams()
            }
        }
        print(RTreeBench.table(header: header, rows: rows))
        if !examples.isEmpty {
            print("\nfirst missed entrances:")
            examples.forEach { print($0) }
        }
    }
}
