import ArgumentParser
import Foundation
import GeofenceEngine
import GeofenceServer
import Logging

/// `geofence-server`: the engine as a live HTTP service. Bad arguments or a problem found
/// before listening print one line and exit with status 2, as the `geofence` CLI does.
@main
struct GeofenceServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geofence-server",
        abstract: "Geofencing over HTTP: fixes in, events out, durable in SQLite (docs/server.md).")

    @Option(help: "Fences for a new --data: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file. A --data that holds a fence set keeps it (PUT /v1/fences replaces it).")
    var fences: String

    @Option(help: "Folder of the server's database (created when missing). One server at a time.")
    var data: String

    @Option(help: "Address to listen on. Without --token-file only a loopback address is allowed.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one (printed on standard output).")
    var port = 8080

    @Option(help: "Bearer tokens: lines 'TOKEN SCOPE', scopes ingest, read, admin.")
    var tokenFile: String?

    @Option(help: "always: fsync every group commit before answering; interval: answer once the commit is in the OS (survives kill -9, not a power loss) and checkpoint every --fsync-interval seconds.")
    var fsync: String = "always"

    @Option(help: "Seconds between checkpoints with --fsync interval.")
    var fsyncInterval: Double = 1

    @Option(help: "Largest request body in bytes; larger ones get 413.")
    var maxBodyBytes: Int = 64 << 20

    @Option(help: "Most lines in one POST /v1/fixes body (blank lines and a CSV header included); more get 413, nothing applied.")
    var maxLines: Int = 100_000

    @Option(help: "Most devices the server holds; a POST /v1/fixes that would add devices beyond it gets 429, nothing applied.")
    var maxDevices: Int = 1_000_000

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

    @Option(help: "What a fence update does for a device reported inside a removed fence: exit or silent.")
    var onFenceRemoved: String = "exit"

    @Option(help: "The clock that fires events due without a new fix (a dwell, an exit at the end of its ignore window): wall (the wall clock less --clock-delay) or data (the latest fix time accepted, for replaying history).")
    var clock: String = "wall"

    @Option(help: "Seconds the wall clock is held back, so that a fix arriving this late is judged before the events its time would have fired.")
    var clockDelay: Double = 2

    @Option(help: "Keep events and idempotency records this long (by the server's clock when published), e.g. 7d, 24h, 90m, 3600s; older ones are deleted. Default: keep all.")
    var retainEvents: String?

    @Option(help: "Seconds between ': keep-alive' comments on an idle Server-Sent Events stream.")
    var keepAlive: Double = 15

    @Option(help: "Bytes of device log past which (and past 512 bytes a device) every device is written to the log again, a share with each commit, and the log before dropped.")
    var deviceLogBytes: Int = 4 << 20

    @Option(help: "Forget a device this long after its latest input (by the server's clock) once it is in no fence and nothing is pending, e.g. 30d, 12h, 90m; its next fix starts anew. Default: keep all.")
    var forgetAfter: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    /// Parses and runs; a bad argument, or a failure to listen, prints one line and exits with
    /// status 2 (ArgumentParser's own would be 64, with the usage below the message).
    static func main() async {
        do {
            let command = try parseAsRoot()
            guard let server = command as? GeofenceServerCommand else {
                // --help and the like come back as errors; anything else is not a server run.
                throw CleanExit.helpRequest(command)
            }
            try await server.run()
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data("geofence-server: \(message(for: error))\n".utf8))
            Foundation.exit(2)
        }
    }

    func run() async throws {
        guard let mode = ServerOptions.FsyncMode(rawValue: fsync) else { fail("--fsync must be always or interval") }
        guard let policy = FenceUpdate.RemovalPolicy(rawValue: onFenceRemoved) else { fail("--on-fence-removed must be exit or silent") }
        guard let level = Logger.Level(rawValue: logLevel) else { fail("--log-level \(logLevel) is not a log level") }
        guard let clockMode = ServerOptions.ClockMode(rawValue: clock) else { fail("--clock must be wall or data") }
        var retain: Double? = nil
        if let retainEvents {
            guard let seconds = ServerOptions.seconds(fromDuration: retainEvents) else {
                fail("--retain-events \(retainEvents) is not a duration (a number with s, m, h or d, e.g. 7d)")
            }
            retain = seconds
        }
        var forget: Double? = nil
        if let forgetAfter {
            guard let seconds = ServerOptions.seconds(fromDuration: forgetAfter) else {
                fail("--forget-after \(forgetAfter) is not a duration (a number with s, m, h or d, e.g. 30d)")
            }
            forget = seconds
        }
        let configuration = TrackerConfiguration(
            ignorePeriod: ignorePeriod, dwell: dwell, enterToleranceFraction: enterTolerance, exitToleranceFraction: exitTolerance,
            maxAccuracy: maxAccuracy)
        let options = ServerOptions(
            fencesPath: fences, dataPath: data, host: host, port: port, tokenFile: tokenFile, fsync: mode,
            fsyncInterval: fsyncInterval, maximumBodyBytes: maxBodyBytes,
            maximumLines: maxLines, maximumDevices: maxDevices, configuration: configuration, onFenceRemoved: policy,
            clock: clockMode, clockDelay: clockDelay, retainEvents: retain, keepAlive: keepAlive, deviceLogBytes: deviceLogBytes, forgetAfter: forget)
        // Logs go to standard error: standard output carries only the listening line.
        LoggingSystem.bootstrap { label in StandardErrorLogHandler(label: label, logLevel: level) }
        let logger = Logger(label: "geofence-server")
        do {
            try await GeofenceServerRunner.run(options, logger: logger)
        } catch let error as ServerError {
            fail(error.description)
        }
    }

    /// Prints `geofence-server: MESSAGE` on standard error and exits with status 2.
    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("geofence-server: \(message)\n".utf8))
        Foundation.exit(2)
    }
}
