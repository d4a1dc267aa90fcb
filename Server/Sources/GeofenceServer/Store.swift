import Foundation
import GRDB
import Synchronization

/// The server's database: SQLite in WAL mode under `--data`, through GRDB.
///
/// Tables:
/// - `events(seq, id, device, line, at)`: every event published (and not yet past
///   `--retain-events`), by its sequence number;
/// - `device_log(seq, bytes)`: the devices each write set changed, one blob a set
///   (`Store+Checkpoint.swift`): each device's tracker (`DeviceTracker.encodedState()`) and
///   how many events it has had (the ordinal in the next event's id), appended: a request's
///   thousand devices are one sequential row, where upserting them into a table rewrote a
///   page for each;
/// - `checkpoint(version, bytes)` and `devices(id, state, events)`: every device in one blob,
///   and rows, that folders of earlier versions wrote (read at start, deleted once a sweep
///   supersedes them);
/// - `requests(key, response, at)`: the response to each `Idempotency-Key`;
/// - `fences(version, at, bytes, log_from, on_removed)`: the fence sets as compiled files,
///   when each took effect, the first device log row made on it and the removal policy it
///   was applied with: the current set, and the earlier ones that rows still in force were
///   made on (a restart replays the updates since on those rows, `Store+FenceVersions.swift`);
/// - `meta(key, value)`: the tracker configuration the state was made with, the data clock,
///   the last sequence number `--retain-events` deleted, the first device log row in force.
///
/// Events and idempotency records carry `at`, the server's time when they were made; the
/// schema is set up by a GRDB migrator, so a folder of an earlier version is brought up to
/// date at start.
///
/// Each ``WriteSet`` of one group commit goes in one transaction, so a crash leaves a
/// request's events, device states and idempotency record all there or all absent.
final class Store: Sendable {
    let pool: DatabasePool

    /// Opens (creating when needed) `folder/server.sqlite`.
    /// - Parameter synchronousFull: fsync the WAL at every commit (`--fsync always`).
    init(folder: String, synchronousFull: Bool) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: synchronousFull ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        // A DatabasePool opens the file in WAL mode: readers (GET /v1/events) never wait
        // for the writer's group commits.
        pool = try DatabasePool(path: folder + "/server.sqlite", configuration: configuration)
        try Self.migrator.migrate(pool)
        deletedThrough = Mutex(try pool.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'deletedThrough'").flatMap { Int64($0) } ?? 0
        })
    }

    /// The schema, step by step: a folder made by an earlier version gains what it lacks.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS events(seq INTEGER PRIMARY KEY, id TEXT NOT NULL, device TEXT NOT NULL, line TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS devices(id TEXT PRIMARY KEY, state BLOB NOT NULL, events INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS requests(key TEXT PRIMARY KEY, response BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS fences(version INTEGER PRIMARY KEY, at INTEGER, bytes BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        // `--retain-events`: when each event and idempotency record was made, by the server's
        // clock (rows from before this version count as made at 0, the oldest).
        migrator.registerMigration("v2 retention") { db in
            try db.execute(sql: """
                ALTER TABLE events ADD COLUMN at INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE requests ADD COLUMN at INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX requests_at ON requests(at);
                """)
        }
        // A fence update's checkpoint of every device, as versions before v5 wrote it.
        migrator.registerMigration("v3 checkpoint") { db in
            try db.execute(sql: "CREATE TABLE checkpoint(version INTEGER PRIMARY KEY, bytes BLOB NOT NULL)")
        }
        // Device states appended a write set at a time (`Engine+DeviceLog.swift`).
        migrator.registerMigration("v4 device log") { db in
            try db.execute(sql: "CREATE TABLE device_log(seq INTEGER PRIMARY KEY, bytes BLOB NOT NULL)")
        }
        // Fence updates replayed at restart on the rows made before them, instead of a
        // checkpoint of every device (`Store+FenceVersions.swift`). Sets stored before this
        // version were installed with a checkpoint, so no row in force is older: 0 is right.
        migrator.registerMigration("v5 fence versions") { db in
            try db.execute(sql: """
                ALTER TABLE fences ADD COLUMN log_from INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE fences ADD COLUMN on_removed TEXT NOT NULL DEFAULT 'exit';
                """)
        }
        return migrator
    }

    /// Device log rows before this number are superseded (a sweep ended; 0: none); each commit
    /// deletes a few of them. Deleting a sweep's worth at once (tens of megabytes of blobs,
    /// page by page) held the writer, and every request behind it, for 100 ms and more. Rows
    /// left at a crash are harmless: a restart reads the log in order, and the next sweep's
    /// deletions take them too.
    let dropLogBefore = Mutex<Int64>(0)

    /// Rows a commit deletes of the superseded log: a commit adds one row a request, and a
    /// group commit holds several requests, so the deletions keep up.
    static let logRowsDroppedPerCommit = 8

    /// Deletes up to ``logRowsDroppedPerCommit`` superseded device log rows.
    func dropSupersededLog(_ db: Database) throws {
        let start = dropLogBefore.withLock { $0 }
        if start > 0 {
            try db.execute(
                sql: "DELETE FROM device_log WHERE seq IN (SELECT seq FROM device_log WHERE seq < ? ORDER BY seq LIMIT ?)",
                arguments: [start, Self.logRowsDroppedPerCommit])
            if db.changesCount == 0 { dropLogBefore.withLock { if $0 == start { $0 = 0 } } }
        }
    }

    /// The largest sequence number `--retain-events` deleted (0: none): a reader asking for
    /// events after an earlier one would miss some, and is told so.
    let deletedThrough: Mutex<Int64>

    /// What one or more requests changed, written in one transaction.
    struct WriteSet: Sendable {
        var events: [EventLine] = []
        /// Device id, encoded tracker, events so far: one `device_log` row, numbered `logSeq`.
        var devices: [Checkpoint.Entry] = []
        var logSeq: Int64 = 0
        /// A compaction sweep ended with this set (`Engine+DeviceLog.swift`): the log rows
        /// before this number are superseded, and so are the stored checkpoint, an earlier
        /// version's rows and the fence sets before the one those rows were made on.
        var dropLogBefore: Int64?
        var idempotency: (key: String, response: Data)?
        /// A fence update: the new set, kept beside the earlier ones.
        var fences: FenceVersion?
        /// `meta` rows to set (the data clock).
        var meta: [(key: String, value: String)] = []
        /// The server's time when the set was made (epoch ms): its events' and idempotency
        /// record's age for `--retain-events`.
        var at: Int64 = 0

        var isEmpty: Bool { events.isEmpty && devices.isEmpty && idempotency == nil && fences == nil && meta.isEmpty && dropLogBefore == nil }
    }

    /// Writes every set in one transaction, in order (a later set's device state wins).
    func commit(_ sets: [WriteSet]) async throws {
        try await pool.write { db in
            let event = try db.cachedStatement(sql: "INSERT INTO events(seq, id, device, line, at) VALUES (?, ?, ?, ?, ?)")
            let device = try db.cachedStatement(sql: "INSERT INTO device_log(seq, bytes) VALUES (?, ?)")
            let request = try db.cachedStatement(sql: "INSERT OR REPLACE INTO requests(key, response, at) VALUES (?, ?, ?)")
            let meta = try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
            for set in sets {
                for line in set.events { try event.execute(arguments: [line.seq, line.id, line.deviceID, line.text, set.at]) }
                if !set.devices.isEmpty { try device.execute(arguments: [set.logSeq, Checkpoint.encode(set.devices, count: set.devices.count)]) }
                // Before a sweep's end below: a set that writes every device on a new set ends
                // its own sweep, and drops the sets before it.
                if let fences = set.fences { try Self.insert(fences, db) }
                if let start = set.dropLogBefore {
                    // Every device has a row from `start` on: the rows before are superseded (a
                    // restart skips them), and deleted a few a commit (below); so are the
                    // checkpoint, the legacy rows and the sets no row in force was made on.
                    try meta.execute(arguments: ["logStart", String(start)])
                    try db.execute(sql: "DELETE FROM checkpoint")
                    try db.execute(sql: "DELETE FROM devices")
                    try Self.dropFenceVersions(before: start, db)
                    dropLogBefore.withLock { $0 = Swift.max($0, start) }
                }
                if let record = set.idempotency { try request.execute(arguments: [record.key, record.response, set.at]) }
                for row in set.meta { try meta.execute(arguments: [row.key, row.value]) }
            }
            try dropSupersededLog(db)
        }
    }

    // MARK: Reads at start

    func meta(_ key: String) throws -> String? {
        try pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    func setMeta(_ key: String, _ value: String) throws {
        try pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// Every device's stored state: the checkpoint, then an earlier version's `devices` rows
    /// over it, then the device log in force in order (a later entry of a device wins); the
    /// devices whose entry was made on a set before the last of `versions` (oldest first),
    /// with its version; the log's size in bytes (superseded rows aside) and its last row's
    /// number (0 for none).
    func devices(versions: [FenceVersion]) throws
        -> (entries: [String: Checkpoint.Entry], older: [String: Int64], logBytes: Int, lastLogSeq: Int64)
    {
        var byID: [String: Checkpoint.Entry] = [:]
        var older: [String: Int64] = [:]
        let current = versions.last?.version ?? 0
        let checkpoint = try checkpointEntries()
        for entry in checkpoint.entries {
            byID[entry.id] = entry
            if checkpoint.version < current { older[entry.id] = checkpoint.version }
        }
        var logBytes = 0, lastLogSeq: Int64 = 0
        let logStart = try meta("logStart").flatMap { Int64($0) } ?? 0
        // Superseded rows a crash left are deleted by the next commits.
        dropLogBefore.withLock { $0 = logStart }
        try pool.read { db in
            lastLogSeq = Swift.max(logStart - 1, try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM device_log") ?? 0)
            // Older than every log row: on the set the first rows were made on.
            var legacy: Int64? = nil
            let rows = try Row.fetchCursor(db, sql: "SELECT id, state, events FROM devices")
            while let row = try rows.next() {
                let id: String = row["id"], state: Data = row["state"]
                if legacy == nil { legacy = try Self.version(ofRow: 0, in: versions, what: "the devices table of an earlier version") }
                byID[id] = Checkpoint.Entry(id: id, state: [UInt8](state), events: row["events"])
                older[id] = legacy! < current ? legacy : nil
                logBytes += id.utf8.count + state.count
            }
            let blobs = try Row.fetchCursor(db, sql: "SELECT seq, bytes FROM device_log WHERE seq >= ? ORDER BY seq", arguments: [logStart])
            while let row = try blobs.next() {
                let bytes: Data = row["bytes"], seq: Int64 = row["seq"]
                logBytes += bytes.count
                let version = try Self.version(ofRow: seq, in: versions, what: "the device log's row \(seq)")
                // An empty state: the device was forgotten (`--forget-after`).
                for entry in try Checkpoint.decode(bytes, what: "the device log's row \(seq)") {
                    byID[entry.id] = entry.state.isEmpty ? nil : entry
                    older[entry.id] = version < current && !entry.state.isEmpty ? version : nil
                }
            }
        }
        return (byID, older, logBytes, lastLogSeq)
    }

    /// The largest sequence number handed out so far, 0 for none (also when `--retain-events`
    /// deleted every event: numbering goes on after the deleted ones).
    func lastSeq() throws -> Int64 {
        try max(pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM events") ?? 0 }, deletedThrough.withLock { $0 })
    }

    // MARK: Reads while serving

    /// The response stored for an idempotency key.
    func response(forKey key: String) throws -> Data? {
        try pool.read { db in try Data.fetchOne(db, sql: "SELECT response FROM requests WHERE key = ?", arguments: [key]) }
    }

    /// Up to `limit` event lines with a sequence number above `after`, in order, each with
    /// its sequence number.
    func eventsWithSeq(after: Int64, limit: Int) async throws -> [(seq: Int64, line: String)] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, line FROM events WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [after, limit])
                .map { row -> (seq: Int64, line: String) in (seq: row["seq"], line: row["line"]) }
        }
    }

    /// Moves the WAL's content into the database file and syncs it (`--fsync interval`'s
    /// periodic sync, and at shutdown).
    func checkpoint() throws {
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    }
}
