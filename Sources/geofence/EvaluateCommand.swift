import ArgumentParser
import GeofenceEngine

/// `geofence evaluate`: a fix CSV into events, on every core, deterministic, shardable.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Turn location fixes (CSV) into geofence events (NDJSON), on every core.",
        discussion: """
            Fixes: CSV with a header naming at least device_id,timestamp,lat,lon (optional \
            accuracy, level) in any order; timestamp as epoch milliseconds or ISO-8601 with a \
            zone; quoted fields, CRLF and a UTF-8 BOM accepted. Rows may come in any order: \
            they are grouped by device and put in time order (stable for equal timestamps).

            Output: one event per line, ordered by device id, then timestamp, then fence id: \
            {"eventType","timestamp" (ms),"deviceId","geofenceId","lat","lng","radius" (m), \
            "level" (when the fence has one),"geofenceProperties"}. Events that fall due after a \
            device's last fix (an exit or dwell still in its window) are emitted at the end of \
            that device, with their due time, as if the device stayed where its last fix was. \
            --output and --summary files appear complete at the end of the run, or not at all \
            (the previous file stays, except that the previous summary is removed just before \
            the new events appear: a summary always belongs to the events beside it); neither \
            may name an input.

            The same output, byte for byte, for any --threads. With --shard K/N only devices \
            whose 64-bit FNV-1a hash of the id (UTF-8) is K mod N are evaluated; `geofence merge` \
            joins the shard outputs into the one-process output.

            Fence updates: --fence-update TIME=FILE replaces the fences at TIME. Events due \
            before TIME fire under the old fences; fixes at or after TIME are judged under the \
            new ones. A device reported inside a removed fence gets an exit at TIME ending in \
            "reason":"fenceRemoved" (--on-fence-removed silent drops it); changed fences keep \
            their state; events after TIME carry the new radius and properties.

            Carried state: --state-out STATE keeps what is pending at the end of the input \
            pending and writes every device's state to STATE; --state-in STATE starts from it \
            (devices only in STATE are carried too). Runs over consecutive periods then give, \
            device by device, the events of one run over all of them. When --fences differs \
            from the fences STATE was written on, the difference applies as a fence update at \
            STATE's watermark (its latest accepted fix time) + 1 ms. STATE must come from the \
            same --shard and tracker options; a damaged or foreign STATE exits with 2.

            Rejected rows are counted by reason, with line numbers: parse, coordinate, \
            accuracy, order (--sorted-input), encoding (a device id that is not UTF-8), \
            lineLength (a line longer than 1 MiB). Exit status 0 even when rows were rejected; \
            2 for bad arguments, unreadable input, or memory or threads the system refuses.
            """
    )

    @Option(help: "Fences: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file.")
    var fences: String

    @Option(help: "CSV file of fixes.")
    var fixes: String

    @Option(help: "Write events here (NDJSON) instead of standard output.")
    var output: String?

    @Option(help: "Write the run's summary here as JSON; - writes it as the last line of standard error (one line), where a pipe can carry it.")
    var summary: String?

    @Option(help: ArgumentHelp("The input has no header line: its columns, as a header line would name them (e.g. device_id,timestamp,lat,lon); line numbers then start at 1 with the first row.", valueName: "columns"))
    var header: String?

    @Option(parsing: .unconditional, help: "Add this to every line number the summary reports (for a piece of a larger file fed through a pipe).")
    var lineOffset: Int = 0

    @Option(parsing: .unconditional, help: "Worker threads, 1 to 256 (default: the cores this process may use: its CPU affinity, or fewer under a cgroup CPU quota).")
    var threads: Int?

    @Option(parsing: .unconditional, help: "Evaluate only shard K of N (K/N, 0 <= K < N) of the devices.")
    var shard: String?

    @Flag(help: "Input is sorted by device id (byte order), then time: stream it, holding one device at a time. Rows out of order are rejected (reason order).")
    var sortedInput = false

    @Option(parsing: .unconditional, help: "Ignore period in seconds: the quiet window each entrance/exit opens.")
    var ignorePeriod: Double = 30

    @Option(parsing: .unconditional, help: "Default dwell time in seconds (a fence's dwellSeconds wins; 0 disables).")
    var dwell: Double = 60

    @Option(parsing: .unconditional, help: "Enter tolerance, as a fraction of the fence radius.")
    var enterTolerance: Double = 0

    @Option(parsing: .unconditional, help: "Exit tolerance, as a fraction of the fence radius.")
    var exitTolerance: Double = 0

    @Option(parsing: .unconditional, help: "Fixes with a worse accuracy (metres) are rejected (reason accuracy).")
    var maxAccuracy: Double = 1000

    @Flag(help: "Count a fix as inside when its accuracy circle touches the fence.")
    var accuracyBuffer = false

    @Option(parsing: .unconditional, help: "Emit presence for each fence a device is inside at most once per this many seconds (default: off).")
    var presenceInterval: Double?

    @Option(parsing: .unconditional, help: "Seconds a device must stay within --stop-radius for venueConfirmed.")
    var stopSeconds: Double = 140

    @Option(parsing: .unconditional, help: "Metres: the radius of a stop, for venueConfirmed.")
    var stopRadius: Double = 70

    @Option(parsing: .unconditional, help: "Places membership TTL in seconds, or 'none'.")
    var ttl: String = "3600"

    @Flag(help: "Ignore fences that have a level.")
    var noLevelFences = false

    @Flag(help: "Ignore fences without a level.")
    var noGlobalFences = false

    @Flag(help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    @Flag(help: "No progress bar and no summary line on standard error.")
    var quiet = false

    @Option(help: ArgumentHelp("At TIME (epoch ms or ISO-8601 with a zone), replace the fences by FILE (any fence format); repeatable, times strictly increasing.", valueName: "TIME=FILE"))
    var fenceUpdate: [String] = []

    @Option(help: ArgumentHelp("What a fence update does for a device reported inside a removed fence: exit (an exit with \"reason\":\"fenceRemoved\") or silent.", valueName: "exit|silent"))
    var onFenceRemoved: String = "exit"

    @Option(help: "Keep pending events pending at the end of the input and write every device's state here (binary, atomic), for --state-in of the next run.")
    var stateOut: String?

    @Option(help: "Start from the device states a run wrote with --state-out (the same shard and tracker options).")
    var stateIn: String?

    func validate() throws {
        try ArgumentCheck.threads(threads)
        if let shard, ShardSpec(shard) == nil { throw ValidationError("--shard must be K/N with 0 <= K < N, got \(shard)") }
        if lineOffset < 0 { throw ValidationError("--line-offset must be 0 or more, got \(lineOffset)") }
        _ = try headerColumns()
        _ = try scheduledUpdates()
        if onFenceRemoved != "exit" && onFenceRemoved != "silent" {
            throw ValidationError("--on-fence-removed must be exit or silent, got \(onFenceRemoved)")
        }
        let configuration = try trackerConfiguration()
        do throws(TrackerConfigurationError) { try configuration.validate() } catch { throw ArgumentCheck.optionError(error) }
    }

    /// The columns given with `--header`, or nil when the input's first line names them.
    func headerColumns() throws -> FixCSVHeader? {
        guard let header else { return nil }
        do { return try FixCSVHeader(names: header) } catch { throw ValidationError("--header: \(error.reason)") }
    }

    func trackerConfiguration() throws(ValidationError) -> TrackerConfiguration {
        TrackerConfiguration(
            ignorePeriod: ignorePeriod, dwell: dwell, enterToleranceFraction: enterTolerance, exitToleranceFraction: exitTolerance,
            maxAccuracy: maxAccuracy, accuracyBuffer: accuracyBuffer, presenceInterval: presenceInterval,
            stopSeconds: stopSeconds, stopRadius: stopRadius, membershipTTL: try ArgumentCheck.membershipTTL(ttl),
            levelFences: !noLevelFences, globalFences: !noGlobalFences)
    }

    func run() throws {
        PhaseTrace.mark("evaluate: start")
        // Nothing is read or written before the outputs are known not to be inputs ("-" as
        // the summary is standard error, a stream).
        let summaryPath = summary == "-" ? nil : summary
        let updates = try scheduledUpdates()
        try OutputFiles.refuseOverlap(
            outputs: [("--output", output), ("--summary", summaryPath), ("--state-out", stateOut)],
            inputs: [("--fences", fences), ("--fixes", fixes)] + updates.map { ("--fence-update", $0.path) })
        let options = BatchOptions(
            configuration: try trackerConfiguration(), threads: min(threads ?? Self.coreCount, WorkerPool.maximumThreads),
            shard: shard.flatMap(ShardSpec.init) ?? .all, sortedInput: sortedInput, header: try headerColumns(),
            lineOffset: lineOffset)
        // The fixes are opened and their first block read while the fences load (a pipe's
        // producer need not wait for the load); a fence error is reported first.
        let loadStart = Platform.monotonicSeconds()
        var fenceLoadSeconds = 0.0
        let (fenceSet, reader) = try CLIError.reporting {
            try InputOpening.opening(fixes, { [fixes] () throws(FileError) in try BatchEvaluator.openFixes(fixes, options: options) }) {
                defer { fenceLoadSeconds = Platform.monotonicSeconds() - loadStart }
                return try FenceLoading.load(path: fences, repair: repair)
            }
        }
        PhaseTrace.mark("evaluate: fences loaded")
        let carried = try carriedState(shard: options.shard, configuration: options.configuration)
        if carried != nil { PhaseTrace.mark("evaluate: state read") }
        let epochs = try epochs(fenceSet: fenceSet, carried: carried, updates: updates, configuration: options.configuration)
        if epochs != nil { PhaseTrace.mark("evaluate: fence updates loaded") }
        let result: BatchSummary = try CLIError.reporting {
            let evaluator = try BatchEvaluator(
                fenceSet: fenceSet, options: options, epochs: epochs, carried: carried, keepPending: stateOut != nil)
            // The fixes' header is checked before an output is opened; outputs are temporary
            // files until the run is complete, then both appear, the events first. A summary
            // at --summary always describes the events at --output: the previous run's
            // summary is removed before the new events are renamed into place, so a run killed
            // between the two renames leaves the new events and no summary.
            let sink = try output.map { try OutputSink(path: $0) } ?? .standardOutput()
            let summaryFile = try summaryPath.map { try OutputSink(path: $0) }
            let stateFile = try stateOut.map { try OutputSink(path: $0) }
            let bar = ProgressBar(totalBytes: Self.fileSize(fixes), quiet: quiet)
            var result = try evaluator.run(reader, output: sink) { rows, bytes in bar.update(rows: rows, bytes: bytes) }
            PhaseTrace.mark("evaluate: fixes evaluated")
            result.fenceLoadSeconds = fenceLoadSeconds
            bar.finish()
            if let summaryFile {
                try summaryFile.write(Self.jsonLine(result))
                try summaryFile.flush()
            }
            summaryFile?.removePreviousFile()
            // The state is written in full before any output appears, and appears last.
            if let stateFile {
                try evaluator.writeCarriedState(to: stateFile)
                PhaseTrace.mark("evaluate: state encoded and written")
            }
            try sink.commit()
            try summaryFile?.commit()
            try stateFile?.commit()
            return result
        }
        if !quiet { FileHandleText.standardError(result.line + "\n") }
        // Last on standard error, after the line for people, so a reader takes the last line.
        if summary == "-" { FileHandleText.standardError(String(decoding: Self.jsonLine(result), as: UTF8.self)) }
        PhaseTrace.mark("evaluate: outputs committed")
    }

    /// The summary as one line of JSON (the writer puts no line break inside).
    static func jsonLine(_ result: BatchSummary) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.write(result.json, to: &bytes)
        bytes.append(0x0A)
        return bytes
    }

    static var coreCount: Int { Platform.coreCount }

    static func fileSize(_ path: String) -> Int {
        Platform.status(atPath: path)?.size ?? 0
    }
}
