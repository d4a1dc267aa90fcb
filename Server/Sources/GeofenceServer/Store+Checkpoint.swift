import Foundation
import GRDB

/// Every device's state in one row, written by a fence update: a fence update changes every
/// device (each is re-encoded on the new set), and one blob of a few megabytes commits in a
/// few milliseconds where 100,000 row upserts held the writer, and every ingest commit behind
/// it, for about half a second.
///
/// The update's transaction empties `devices` and replaces the checkpoint; rows written
/// after it are newer than the checkpoint's entry for the same device. At start the
/// checkpoint is read first and the rows over it.
extension Store {
    enum Checkpoint {
        static let version: UInt8 = 1

        /// The blob: a version byte, the device count, then per device its id, its event count
        /// and its encoded state (lengths and counts as LEB128 varints).
        static func encode(_ devices: [String: Engine.Device]) -> Data {
            var out = [UInt8]()
            out.reserveCapacity(16 + devices.count * 96)
            out.append(version)
            varint(UInt64(devices.count), into: &out)
            for (id, entry) in devices {
                varint(UInt64(id.utf8.count), into: &out)
                out.append(contentsOf: id.utf8)
                varint(UInt64(bitPattern: entry.events), into: &out)
                varint(UInt64(entry.state.count), into: &out)
                out.append(contentsOf: entry.state)
            }
            return Data(out)
        }

        /// The entries of a blob ``encode(_:)`` made.
        /// - Throws: ``ServerError`` naming the byte where the blob stops making sense.
        static func decode(_ data: Data) throws -> [(id: String, state: Data, events: Int64)] {
            let bytes = [UInt8](data)
            var at = 0
            func fail(_ what: String) -> ServerError { ServerError("the device checkpoint is damaged at byte \(at): \(what)") }
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
            var entries: [(id: String, state: Data, events: Int64)] = []
            entries.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let id = String(validating: try take(try read()), as: UTF8.self) else { throw fail("a device id is not UTF-8") }
                let events = Int64(bitPattern: try read())
                entries.append((id, Data(try take(try read())), events))
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

    /// The stored checkpoint's entries, none for a folder without one.
    func checkpointEntries() throws -> [(id: String, state: Data, events: Int64)] {
        guard let blob = try pool.read({ db in try Data.fetchOne(db, sql: "SELECT bytes FROM checkpoint ORDER BY version DESC LIMIT 1") }) else {
            return []
        }
        return try Checkpoint.decode(blob)
    }
}
