import Foundation
import GRDB

/// The fence sets a restart needs: the current one, and each earlier one that device rows
/// still in force were made on.
///
/// A fence update changes every device's state, but its commit stores only the new set, its
/// time, its removal policy and `log_from`, the number the next device log row will have. A
/// row numbered below it was made on an earlier set, and a restart replays on it the updates
/// it missed (`Engine+Replay.swift`): the very moves the update made, since a move depends on
/// the device's state, the two sets, the time and the policy, and on nothing else.
///
/// Why not a checkpoint of every device in the update's commit, as before: its tens of
/// megabytes held the writer for a fifth of a second at 100,000 devices, and every request
/// acknowledged after the update waited behind it. Now the update starts a sweep
/// (`Engine+DeviceLog.swift`) that writes every device again on the new set, a share with each
/// commit; the commit that ends it drops the sets before (``dropFenceVersions(before:_:)``).
extension Store {
    /// One stored fence set.
    struct FenceVersion: Sendable {
        /// 1 for the first set, one more per update.
        var version: Int64
        /// When it took effect (epoch ms), nil for the first.
        var at: Int64?
        /// The compiled fence file.
        var bytes: Data
        /// The first device log row made on this set: rows numbered below it were made on an
        /// earlier one.
        var logFrom: Int64
        /// What a device inside a removed fence got (`--on-fence-removed` when the update ran).
        var onRemoved: String
    }

    static func insert(_ fences: FenceVersion, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO fences(version, at, bytes, log_from, on_removed) VALUES (?, ?, ?, ?, ?)",
            arguments: [fences.version, fences.at, fences.bytes, fences.logFrom, fences.onRemoved])
    }

    /// Deletes the sets before the one that rows numbered `start` on are made on: a sweep
    /// that started at `start` ended, so every device has a row on it or a later set.
    static func dropFenceVersions(before start: Int64, _ db: Database) throws {
        try db.execute(
            sql: "DELETE FROM fences WHERE version < (SELECT MAX(version) FROM fences WHERE log_from <= ?)",
            arguments: [start])
    }

    /// Every stored set, oldest first (none for a new folder).
    func fenceVersions() throws -> [FenceVersion] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT version, at, bytes, log_from, on_removed FROM fences ORDER BY version").map { row in
                FenceVersion(version: row["version"], at: row["at"], bytes: row["bytes"], logFrom: row["log_from"], onRemoved: row["on_removed"])
            }
        }
    }

    /// The version a device log row numbered `seq` was made on: the last set whose
    /// `log_from` is at or below it (`versions` oldest first).
    /// - Throws: ``ServerError`` when no stored set is that old: the set the row was made on
    ///   was dropped, and decoding the row on another would answer for the wrong fences.
    /// - Complexity: O(v) for v stored sets (a few at most: each update's sweep drops them).
    static func version(ofRow seq: Int64, in versions: [FenceVersion], what: String) throws -> Int64 {
        guard let found = versions.last(where: { $0.logFrom <= seq }) else {
            throw ServerError("\(what) was made before every stored fence set (the first from device log row \(versions.first?.logFrom ?? 0) on)")
        }
        return found.version
    }
}
