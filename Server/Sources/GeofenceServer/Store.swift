import Foundation
import GRDB
import Synchronization

/// The server's database: SQLite in WAL mode under `--data`, through GRDB.
///
/// Tables:
/// - `events(seq, id, device, line, at)`: every event published (and not yet past
///   `--retain-events`), by its sequence number;
/// - `devices(id, state, events)`: each device's tracker (`DeviceTracker.encodedState()`) and how
///   many events it has had (the ordinal in the next event's id);
/// - `requests(key, response, at)`: the response to each `Idempotency-Key`;
/// - `fences(version, at, bytes)`: the current fence set as a compiled file, and when it
///   took effect;
/// - `checkpoint(version, bytes)`: every device at the last fence update, in one blob (the
///   `devices` rows are those written since);
/// - `meta(key, value)`: the tracker configuration the state was made with, the data clock,
///   the last sequence number `--retain-events` deleted.
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
        // A fence update's checkpoint of every device (Store+Checkpoint.swift).
        migrator.registerMigration("v3 checkpoint") { db in
            try db.execute(sql: "CREATE TABLE checkpoint(version INTEGER PRIMARY KEY, bytes BLOB NOT NULL)")
        }
        return migrator
    }

    /// The largest sequence number `--retain-events` deleted (0: none): a reader asking for
    /// events after an earlier one would miss some, and is told so.
    let deletedThrough: Mutex<Int64>

    /// What one or more requests changed, written in one transaction.
    struct WriteSet: Sendable {
        var events: [EventLine] = []
        /// Device id, encoded tracker, events so far.
        var devices: [(id: String, state: Data, events: Int64)] = []
        var idempotency: (key: String, response: Data)?
        var fences: (version: Int64, at: Int64?, bytes: Data)?
        /// `meta` rows to set (the data clock).
        var meta: [(key: String, value: String)] = []
        /// The server's time when the set was made (epoch ms): its events' and idempotency
        /// record's age for `--retain-events`.
        var at: Int64 = 0
        /// Every device, after a fence update (``Store/Checkpoint``): replaces the stored
        /// checkpoint and the device rows, before this set's own rows are written.
        var checkpoint: [String: Engine.Device]?

        var isEmpty: Bool { events.isEmpty && devices.isEmpty && idempotency == nil && fences == nil && meta.isEmpty && checkpoint == nil }
    }

    /// Writes every set in one transaction, in order (a later set's device state wins).
    func commit(_ sets: [WriteSet]) async throws {
        try await pool.write { db in
            let event = try db.cachedStatement(sql: "INSERT INTO events(seq, id, device, line, at) VALUES (?, ?, ?, ?, ?)")
            let device = try db.cachedStatement(sql: "INSERT OR REPLACE INTO devices(id, state, events) VALUES (?, ?, ?)")
            let request = try db.cachedStatement(sql: "INSERT OR REPLACE INTO requests(key, response, at) VALUES (?, ?, ?)")
            let meta = try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
            for set in sets {
                if let checkpoint = set.checkpoint {
                    try db.execute(sql: "DELETE FROM devices")
                    try db.execute(sql: "DELETE FROM checkpoint")
                    try db.execute(
                        sql: "INSERT INTO checkpoint(version, bytes) VALUES (?, ?)", arguments: [set.fences?.version ?? 0, Checkpoint.encode(checkpoint)])
                }
                for line in set.events { try event.execute(arguments: [line.seq, line.id, line.deviceID, line.text, set.at]) }
                for entry in set.devices { try device.execute(arguments: [entry.id, entry.state, entry.events]) }
                if let record = set.idempotency { try request.execute(arguments: [record.key, record.response, set.at]) }
                for row in set.meta { try meta.execute(arguments: [row.key, row.value]) }
                if let fences = set.fences {
                    // Only the current set is needed to restart; older versions are dropped.
                    try db.execute(sql: "DELETE FROM fences")
                    try db.execute(
                        sql: "INSERT INTO fences(version, at, bytes) VALUES (?, ?, ?)",
                        arguments: [fences.version, fences.at, fences.bytes])
                }
            }
        }
    }

    // MARK: Reads at start

    /// The stored fence set (version, time it took effect, compiled bytes), or nil for a new folder.
    func currentFences() throws -> (version: Int64, at: Int64?, bytes: Data)? {
        try pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT version, at, bytes FROM fences ORDER BY version DESC LIMIT 1") else {
                return nil
            }
            let version: Int64 = row["version"]
            let at: Int64? = row["at"]
            let bytes: Data = row["bytes"]
            return (version, at, bytes)
        }
    }

    func meta(_ key: String) throws -> String? {
        try pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    func setMeta(_ key: String, _ value: String) throws {
        try pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// Every device's stored state: the last fence update's checkpoint, with the rows written
    /// since over it.
    func devices() throws -> [(id: String, state: Data, events: Int64)] {
        var byID: [String: (state: Data, events: Int64)] = [:]
        for entry in try checkpointEntries() { byID[entry.id] = (entry.state, entry.events) }
        try pool.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT id, state, events FROM devices")
            while let row = try rows.next() { byID[row["id"]] = (row["state"], row["events"]) }
        }
        return byID.map { (id: $0.key, state: $0.value.state, events: $0.value.events) }
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
