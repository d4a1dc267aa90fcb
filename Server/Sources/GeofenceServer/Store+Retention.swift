import Foundation
import GRDB

/// `--retain-events`: events and idempotency records older than the retention are deleted,
/// so the database stays bounded while the server runs for ever.
///
/// Events go from the oldest, as a prefix of the log: a reader resuming after a sequence
/// number learns that events after it were deleted (``Store/deletedThrough``), never finds
/// a hole in the middle. The log is otherwise gap-free (commits go in sequence order, one
/// transaction each), so a page whose first event is not the one after the cursor also
/// tells a reader that the events it wanted were deleted meanwhile.
extension Store {
    /// Rows deleted in one transaction at most, so that a group commit never waits long.
    static let deletionBatch = 5_000

    /// Deletes the events made before `cutoff` (epoch ms, the server's clock) from the start
    /// of the log up to the first one made later, and the idempotency records made before it.
    /// - Returns: how many events and records went.
    func deleteOlder(than cutoff: Int64) async throws -> (events: Int, requests: Int) {
        var events = 0, requests = 0
        while true {
            let (deleted, last) = try await pool.write { db -> (Int, Int64?) in
                let rows = try Row.fetchAll(db, sql: "SELECT seq, at FROM events ORDER BY seq LIMIT ?", arguments: [Self.deletionBatch])
                // The prefix made before the cutoff (the wall clock may have stepped back).
                var count = 0, last: Int64? = nil
                for row in rows {
                    let at: Int64 = row["at"]
                    guard at < cutoff else { break }
                    last = row["seq"]
                    count += 1
                }
                guard let last else { return (0, nil) }
                try db.execute(sql: "DELETE FROM events WHERE seq <= ?", arguments: [last])
                try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('deletedThrough', ?)", arguments: [String(last)])
                return (count, last)
            }
            if let last { deletedThrough.withLock { $0 = max($0, last) } }
            events += deleted
            if deleted < Self.deletionBatch { break }
        }
        while true {
            let deleted = try await pool.write { db -> Int in
                try db.execute(
                    sql: "DELETE FROM requests WHERE key IN (SELECT key FROM requests WHERE at < ? LIMIT ?)",
                    arguments: [cutoff, Self.deletionBatch])
                return db.changesCount
            }
            requests += deleted
            if deleted < Self.deletionBatch { break }
        }
        return (events, requests)
    }
}
