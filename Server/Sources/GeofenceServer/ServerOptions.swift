import GeofenceEngine

/// Everything a server run is told on its command line, checked: what
/// ``GeofenceServerRunner`` needs to start.
public struct ServerOptions: Sendable {
    /// When a commit reaches the disk: with every commit, or by a periodic checkpoint.
    public enum FsyncMode: String, Sendable, CaseIterable {
        /// SQLite `synchronous=FULL`: each group commit fsyncs the WAL before it is
        /// acknowledged. Survives a power loss.
        case always
        /// SQLite `synchronous=NORMAL`: a commit is in the operating system's cache when it
        /// is acknowledged (it survives `kill -9`, not a power loss); a checkpoint every
        /// ``ServerOptions/fsyncInterval`` seconds syncs it.
        case interval
    }

    /// What the server's clock reads: the time before which pending events (a dwell, an exit
    /// at the end of its ignore window) fire without a new fix.
    public enum ClockMode: String, Sendable, CaseIterable {
        /// The wall clock, less ``ServerOptions/clockDelay`` seconds: live devices.
        case wall
        /// The latest fix time the server accepted: a replay of history gives what the batch
        /// evaluator gives, whatever the wall clock says.
        case data
    }

    /// The fence file used when `data` holds no fence set yet (GeoJSON, GeoJSONSeq or compiled).
    public var fencesPath: String
    /// The folder of the server's database and lock file; created when missing.
    public var dataPath: String
    public var host: String
    /// 0: any free port (the line printed at start names it).
    public var port: Int
    /// `TOKEN SCOPE` lines; nil: no authentication, and only a loopback address may be bound.
    public var tokenFile: String?
    public var fsync: FsyncMode
    /// Seconds between checkpoints with ``FsyncMode/interval``.
    public var fsyncInterval: Double
    /// A request body larger than this is refused with 413.
    public var maximumBodyBytes: Int
    /// A `POST /v1/fixes` body with more lines than this (blank lines and a CSV's header
    /// included) is refused with 413; lines are counted as the body arrives, before any is read.
    public var maximumLines: Int
    /// The most devices the server holds: a `POST /v1/fixes` whose new devices would take it
    /// past this is refused with 429, and nothing of it applied.
    public var maximumDevices: Int
    /// The trackers' options, as `geofence evaluate` takes them.
    public var configuration: TrackerConfiguration
    /// What a fence update does for a device reported inside a removed fence.
    public var onFenceRemoved: FenceUpdate.RemovalPolicy
    public var clock: ClockMode
    /// Seconds the wall clock is held back (``ClockMode/wall``): a fix that reaches the server
    /// this much late is still judged before the events its time would have fired.
    public var clockDelay: Double
    /// Seconds of events (by the server's clock when each was published) and idempotency
    /// records kept; older ones are deleted. nil: kept for ever.
    public var retainEvents: Double?
    /// Seconds between `: keep-alive` comments on an idle event stream.
    public var keepAlive: Double
    /// Bytes of device log (the devices' states as each commit changed them) past which, and
    /// past 512 bytes a device, a sweep writes every device to the log again, a share with each
    /// commit, and then drops the log before it: the stored state stays within a few times
    /// the live one.
    public var deviceLogBytes: Int
    /// Seconds after its latest input that an idle device (in no fence, nothing pending) is
    /// forgotten; nil: devices are kept for ever.
    public var forgetAfter: Double?

    public init(
        fencesPath: String, dataPath: String, host: String = "127.0.0.1", port: Int = 8080, tokenFile: String? = nil,
        fsync: FsyncMode = .always, fsyncInterval: Double = 1, maximumBodyBytes: Int = 64 << 20,
        maximumLines: Int = 100_000, maximumDevices: Int = 1_000_000,
        configuration: TrackerConfiguration = TrackerConfiguration(), onFenceRemoved: FenceUpdate.RemovalPolicy = .exit,
        clock: ClockMode = .wall, clockDelay: Double = 2, retainEvents: Double? = nil, keepAlive: Double = 15,
        deviceLogBytes: Int = 4 << 20, forgetAfter: Double? = nil
    ) {
        self.forgetAfter = forgetAfter
        self.deviceLogBytes = deviceLogBytes
        self.fencesPath = fencesPath
        self.dataPath = dataPath
        self.host = host
        self.port = port
        self.tokenFile = tokenFile
        self.fsync = fsync
        self.fsyncInterval = fsyncInterval
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumLines = maximumLines
        self.maximumDevices = maximumDevices
        self.configuration = configuration
        self.onFenceRemoved = onFenceRemoved
        self.clock = clock
        self.clockDelay = clockDelay
        self.retainEvents = retainEvents
        self.keepAlive = keepAlive
    }

    /// True for the addresses only this machine reaches: `localhost`, 127.0.0.0/8 and `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Why these options cannot start a server, or nil. An open server without tokens on a
    /// reachable address would let anyone post fixes and replace the fences.
    public var problem: String? {
        if tokenFile == nil && !Self.isLoopback(host) {
            return "--host \(host) is not a loopback address: without --token-file the server binds only 127.0.0.1, ::1 or localhost"
        }
        if !(0...65535).contains(port) { return "--port \(port) is not a port number (0 to 65535; 0: any free port)" }
        if maximumBodyBytes < 1 { return "--max-body-bytes must be at least 1" }
        if maximumLines < 1 { return "--max-lines must be at least 1" }
        if maximumDevices < 1 { return "--max-devices must be at least 1" }
        if deviceLogBytes < 1 { return "--device-log-bytes must be at least 1" }
        if let forgetAfter, !(forgetAfter >= 1 && forgetAfter <= 100 * 365 * 86_400) {
            return "--forget-after must be at least 1 s and at most 100 years"
        }
        if !(fsyncInterval > 0) { return "--fsync-interval must be a positive number of seconds" }
        if !(0...86_400).contains(clockDelay) { return "--clock-delay must be 0 to 86400 seconds" }
        if !(0.01...3_600).contains(keepAlive) { return "--keep-alive must be 0.01 to 3600 seconds" }
        if let retainEvents, !(retainEvents >= 1 && retainEvents <= 100 * 365 * 86_400) {
            return "--retain-events must be at least 1 s and at most 100 years"
        }
        do { try configuration.validate() } catch { return error.description }
        return nil
    }
}

/// A problem that stops the server from starting (bad options, an unreadable fence file, a
/// data folder in use): the executable prints it on one line and exits with status 2.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}

extension ServerOptions {
    /// Seconds from a duration as the command line takes it: a number with an optional unit,
    /// `s`, `m`, `h` or `d` (`90`, `90s`, `15m`, `24h`, `7d`); nil for anything else.
    public static func seconds(fromDuration text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var number = Substring(text), scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = text.dropLast()
            scale = unit
        }
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return value * scale
    }
}
