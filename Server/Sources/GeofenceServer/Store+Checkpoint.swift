import Foundation
import GRDB

/// Devices' states as blobs: the device log (the devices one write set changed, a row a set)
/// and the checkpoint (every device in one row, which folders of earlier versions wrote at
/// each fence update; read at start until a sweep supersedes it).
///
/// Why blobs: an ingest request's thousand devices, upserted as rows of a 100,000-row table,
/// dirtied a page each (megabytes of WAL a request), where one appended row writes their
/// 80 KB.
///
/// The log's rows in force are those from `meta.logStart` on, in `seq` order. It is bounded by
/// sweeps (`Engine+DeviceLog.swift`); a fence update starts one, and rows made before it are
/// moved to its set at restart (`Store+FenceVersions.swift`). Superseded rows are deleted a
/// few a commit, since deleting megabytes of blobs at once holds the writer.
extension Store {
    enum Checkpoint {
        static let version: UInt8 = 1

        /// A device as stored: its id, its encoded tracker and its event count.
        struct Entry: Sendable {
            var id: String
            var state: [UInt8]
            var events: Int64
        }

        /// The blob: a version byte, the device count, then per device its id, its event count
        /// and its encoded state (lengths and counts as LEB128 varints).
        /// - Complexity: O(n) in the entries' bytes.
        static func encode(_ entries: some Sequence<Entry>, count: Int) -> Data {
            var out = [UInt8]()
            out.reserveCapacity(16 + count * 96)
            out.append(version)
            varint(UInt64(count), into: &out)
            for entry in entries {
                varint(UInt64(entry.id.utf8.count), into: &out)
                out.append(contentsOf: entry.id.utf8)
                varint(UInt64(bitPattern: entry.events), into: &out)
                varint(UInt64(entry.state.count), into: &out)
                out.append(contentsOf: entry.state)
            }
            return Data(out)
        }

        /// The entries of a blob ``encode(_:count:)`` made.
        /// - Parameter what: names the blob in errors.
        /// - Throws: ``ServerError`` naming the byte where the blob stops making sense.
        static func decode(_ data: Data, what: String = "the device checkpoint") throws -> [Entry] {
            let bytes = [UInt8](data)
            var at = 0
            func fail(_ problem: String) -> ServerError { ServerError("\(what) is damaged at byte \(at): \(problem)") }
            func read() throws -> UInt64 {
                var value: UInt64 = 0, shift: UInt64 = 0
                while at < bytes.count, shift < 64 {
                    let byte = bytes[at]
                    at += 1
                    value |= UInt64(byte & 0x7F) << shift
                    if byte < 0x80 { return value }
                    shift += 7
                }
                throw fail("a number runs past the end")
            }
            func take(_ count: UInt64) throws -> ArraySlice<UInt8> {
                guard count <= UInt64(bytes.count - at) else { throw fail("\(count) bytes announced, \(bytes.count - at) left") }
                defer { at += Int(count) }
                return bytes[at..<at + Int(count)]
            }
            guard bytes.first == version else { throw fail("version \(bytes.first.map(String.init) ?? "none"), expected \(version)") }
            at = 1
            let count = try read()
            guard count <= UInt64(bytes.count) else { throw fail("\(count) devices announced") }
            var entries: [Entry] = []
            entries.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let id = String(validating: try take(try read()), as: UTF8.self) else { throw fail("a device id is not UTF-8") }
                let events = Int64(bitPattern: try read())
                entries.append(Entry(id: id, state: Array(try take(try read())), events: events))
            }
            guard at == bytes.count else { throw fail("\(bytes.count - at) bytes after the last device") }
            return entries
        }

        static func varint(_ value: UInt64, into out: inout [UInt8]) {
            var v = value
            while v >= 0x80 {
                out.append(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            out.append(UInt8(v))
        }
    }

    /// The stored checkpoint's entries and the fence version they were made on; none for a
    /// folder without one.
    func checkpointEntries() throws -> (entries: [Checkpoint.Entry], version: Int64) {
        guard let row = try pool.read({ db in try Row.fetchOne(db, sql: "SELECT version, bytes FROM checkpoint ORDER BY version DESC LIMIT 1") }) else {
            return ([], 0)
        }
        return (try Checkpoint.decode(row["bytes"]), row["version"])
    }
}
