import ArgumentParser
import GeofenceEngine

/// `geofence evaluate`: a fix CSV into events, on every core, deterministic, shardable.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Turn location fixes (CSV) into geofence events (NDJSON), on every core.",
        discussion: """
            Fixes: CSV with a header naming at least device_id,timestamp,lat,lon (optional
            accuracy, level) in any order; timestamp as epoch milliseconds or ISO-8601 with a
            zone; quoted fields, CRLF and a UTF-8 BOM accepted. Rows may come in any order:
            they are grouped by device and put in time order (stable for equal timestamps).

            Output: one event per line, ordered by device id, then timestamp, then fence id:
            {"eventType","timestamp" (ms),"deviceId","geofenceId","lat","lng","radius" (m),
            "level" (when the fence has one),"geofenceProperties"}. Events that fall due after a
            device's last fix (an exit or dwell still in its window) are emitted at the end of
            that device, with their due time, as if the device stayed where its last fix was.

            The same output, byte for byte, for any --threads. With --shard K/N only devices
            whose 64-bit FNV-1a hash of the id (UTF-8) is K mod N are evaluated; `geofence merge`
            joins the shard outputs into the one-process output.

            Exit status 0 even when rows were rejected (the summary counts them by reason, with
            line numbers); 2 for bad arguments or unreadable input.
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

    @Option(help: "Add this to every line number the summary reports (for a piece of a larger file fed through a pipe).")
    var lineOffset: Int = 0

    @Option(help: "Worker threads (default: the number of cores).")
    var threads: Int?

    @Option(help: "Evaluate only shard K of N (K/N, 0 <= K < N) of the devices.")
    var shard: String?

    @Flag(help: "Input is sorted by device id (byte order), then time: stream it, holding one device at a time. Rows out of order are rejected (reason order).")
    var sortedInput = false

    @Option(help: "Ignore period in seconds: the quiet window each entrance/exit opens.")
    var ignorePeriod: Double = 30

    @Option(help: "Default dwell time in seconds (a fence's dwellSeconds wins; 0 disables).")
    var dwell: Double = 60

    @Option(help: "Enter tolerance, as a fraction of the fence radius.")
    var enterTolerance: Double = 0

    @Option(help: "Exit tolerance, as a fraction of the fence radius.")
    var exitTolerance: Double = 0

    @Option(help: "Fixes with a worse accuracy (metres) are rejected (reason accuracy).")
    var maxAccuracy: Double = 1000

    @Flag(help: "Count a fix as inside when its accuracy circle touches the fence.")
    var accuracyBuffer = false

    @Option(help: "Emit presence for each fence a device is inside at most once per this many seconds (default: off).")
    var presenceInterval: Double?

    @Option(help: "Seconds a device must stay within --stop-radius for venueConfirmed.")
    var stopSeconds: Double = 140

    @Option(help: "Metres: the radius of a stop, for venueConfirmed.")
    var stopRadius: Double = 70

    @Option(help: "Places membership TTL in seconds, or 'none'.")
    var ttl: String = "3600"

    @Flag(help: "Ignore fences that have a level.")
    var noLevelFences = false

    @Flag(help: "Ignore fences without a level.")
    var noGlobalFences = false

    @Flag(help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    @Flag(help: "No progress bar and no summary line on standard error.")
    var quiet = false

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let shard, ShardSpec(shard) == nil { throw ValidationError("--shard must be K/N with 0 <= K < N, got \(shard)") }
        if lineOffset < 0 { throw ValidationError("--line-offset must be 0 or more, got \(lineOffset)") }
        _ = try headerColumns()
        if ttl != "none" && (Double(ttl) == nil || Double(ttl)! < 0) {
            throw ValidationError("--ttl must be a number of seconds >= 0, or none")
        }
        do { try trackerConfiguration().validate() } catch { throw ValidationError(error.reason) }
    }

    /// The columns given with `--header`, or nil when the input's first line names them.
    func headerColumns() throws -> FixCSVHeader? {
        guard let header else { return nil }
        do { return try FixCSVHeader(names: header) } catch { throw ValidationError("--header: \(error.reason)") }
    }

    func trackerConfiguration() -> TrackerConfiguration {
        TrackerConfiguration(
            ignorePeriod: ignorePeriod, dwell: dwell, enterTolerance: enterTolerance, exitTolerance: exitTolerance,
            maxAccuracy: maxAccuracy, accuracyBuffer: accuracyBuffer, presenceInterval: presenceInterval,
            stopSeconds: stopSeconds, stopRadius: stopRadius, membershipTTL: ttl == "none" ? nil : Double(ttl),
            levelFences: !noLevelFences, globalFences: !noGlobalFences)
    }

    func run() throws {
        let loadStart = Platform.monotonicSeconds()
        let fenceSet = try FenceLoading.load(path: fences, repair: repair)
        let fenceLoadSeconds = Platform.monotonicSeconds() - loadStart
        let options = BatchOptions(
            configuration: trackerConfiguration(), threads: threads ?? Self.coreCount,
            shard: shard.flatMap(ShardSpec.init) ?? .all, sortedInput: sortedInput, header: try headerColumns(),
            lineOffset: lineOffset)
        let result: BatchSummary = try CLIError.reporting {
            let evaluator = try BatchEvaluator(fenceSet: fenceSet, options: options)
            let sink = try output.map { try OutputSink(path: $0) } ?? .standardOutput()
            let bar = ProgressBar(totalBytes: Self.fileSize(fixes), quiet: quiet)
            var result = try evaluator.run(fixes: fixes, output: sink) { rows, bytes in bar.update(rows: rows, bytes: bytes) }
            result.fenceLoadSeconds = fenceLoadSeconds
            bar.finish()
            if let summary, summary != "-" {
                let file = try OutputSink(path: summary)
                try file.write(Self.jsonLine(result))
                try file.flush()
            }
            return result
        }
        if !quiet { FileHandleText.standardError(result.line + "\n") }
        // Last on standard error, after the line for people, so a reader takes the last line.
        if summary == "-" { FileHandleText.standardError(String(decoding: Self.jsonLine(result), as: UTF8.self)) }
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
