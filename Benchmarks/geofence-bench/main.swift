import ArgumentParser

/// `geofence-bench`: the benchmark executable users run and profile.
/// Each case is a subcommand; see `geofence-bench --help`.
struct GeofenceBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geofence-bench",
        abstract: "Benchmarks for geofence-engine (build with -c release).",
        subcommands: [SuiteCommand.self, LoadBenchCommand.self, WorldCommand.self, ContainsBenchCommand.self, IndexBenchCommand.self, ReplayBenchCommand.self, PeerCSVCommand.self, CSVBenchCommand.self, FleetUpdateBenchCommand.self, EvaluateUpdatesBenchCommand.self],
        defaultSubcommand: SuiteCommand.self
    )
}

GeofenceBench.main()
