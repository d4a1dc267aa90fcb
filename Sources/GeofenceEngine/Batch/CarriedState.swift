#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every device's state at the end of a batch run, carried into the next run
/// (`geofence evaluate --state-out` / `--state-in`): the device trackers with their pending
/// events, the fence set they are on, the watermark (the latest accepted fix time of the runs
/// that wrote it), the shard and the tracker options.
///
/// File format (binary, little-endian), written atomically:
/// - bytes 0–15: the magic `GEOFENCE-STATE\n\0`; 16–19: the version (1); 20–23: zero;
///   24–31: the file's length; 32–39: XXH64 of bytes 48 to the end; 40–47: XXH64 of bytes 0–39;
/// - then a length-prefixed JSON object (`shard`, `watermark`, `configuration`, `devices`),
///   the fence set as a length-prefixed compiled fence file, the device count, and per device
///   (ascending id, UTF-8 byte order) its id and its tracker (``DeviceTracker`` binary form,
///   slots of the carried set).
///
/// A file that is too short, damaged, of another version or not a state file is refused
/// with a ``SnapshotError`` naming the file and the problem.
package final class CarriedState: @unchecked Sendable {
    static let magic: [UInt8] = Array("GEOFENCE-STATE\n\0".utf8)
    static let version: UInt32 = 1
    static let headerSize = 48

    /// The set the trackers are on.
    package let fenceSet: FenceSet
    /// The compiled bytes of ``fenceSet`` (to tell whether a run's fences are the same).
    package let fenceBytes: [UInt8]
    /// The latest accepted fix time of the runs that wrote the state, nil when none was.
    package let watermark: Int64?
    package let shard: ShardSpec
    package let configuration: TrackerConfiguration
    /// Device ids, ascending by UTF-8 bytes, and where each device's tracker starts in `bytes`.
    package let ids: [String]
    private let trackerStarts: [Int]
    private let bytes: [UInt8]
    private let path: String

    /// Reads and checks a state file.
    /// - Throws: ``SnapshotError`` naming `path`: `io`, `truncated`, `wrongVersion`, `corrupt`.
    package convenience init(path: String) throws(SnapshotError) {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path) } catch { throw SnapshotError(path: path, problem: .io(error.reason)) }
        try self.init(bytes: bytes, path: path)
    }

    /// Reads and checks a state file's bytes; errors name `path`.
    package init(bytes: [UInt8], path: String) throws(SnapshotError) {
        self.bytes = bytes
        self.path = path
        func corrupt(_ detail: String) -> SnapshotError { SnapshotError(path: path, problem: .corrupt(detail)) }
        func truncated(_ detail: String) -> SnapshotError { SnapshotError(path: path, problem: .truncated(detail)) }
        let parsed: (Meta, Range<Int>, [String], [Int]) = try Self.reading(bytes) { raw throws(SnapshotError) in
            guard raw.count >= Self.magic.count else {
                throw raw.count > 0 && Self.magic.starts(with: raw) ? truncated("\(raw.count) bytes, the header needs \(Self.headerSize)")
                    : corrupt("not a state file (no GEOFENCE-STATE header)")
            }
            guard Self.magic.elementsEqual(raw.prefix(Self.magic.count)) else { throw corrupt("not a state file (no GEOFENCE-STATE header)") }
            guard raw.count >= Self.headerSize else { throw truncated("\(raw.count) bytes, the header needs \(Self.headerSize)") }
            func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            guard XXH64.hash(UnsafeRawBufferPointer(rebasing: raw[0..<40])) == word(40) else { throw corrupt("the header's checksum does not match (damaged)") }
            let version = UInt32(truncatingIfNeeded: word(16))
            guard version == Self.version else {
                throw SnapshotError(path: path, problem: .wrongVersion(found: Int(version), expected: Int(Self.version)))
            }
            let length = word(24)
            guard length == UInt64(raw.count) else {
                throw length > UInt64(raw.count) ? truncated("the header announces \(length) bytes, the file holds \(raw.count)")
                    : corrupt("the header announces \(length) bytes, the file holds \(raw.count)")
            }
            guard XXH64.hash(UnsafeRawBufferPointer(rebasing: raw[Self.headerSize...])) == word(32) else {
                throw corrupt("the content's checksum does not match (damaged)")
            }
            var reader = ByteReader(raw, from: Self.headerSize)
            do throws(ByteReadError) {
                let metaRange = try reader.blob("the description")
                let meta: Meta
                do { meta = try JSONDecoder().decode(Meta.self, from: Data(raw[metaRange])) } catch {
                    throw reader.fail("the description is not valid: \(error)")
                }
                let fenceRange = try reader.blob("the fence set")
                let count = try reader.count("the device count", below: raw.count)
                guard count == meta.devices else { throw reader.fail("\(count) devices, the description says \(meta.devices)") }
                var ids: [String] = [], starts: [Int] = []
                ids.reserveCapacity(count)
                starts.reserveCapacity(count)
                var previous: UnsafeRawBufferPointer? = nil
                for _ in 0..<count {
                    let idRange = try reader.blob("a device id")
                    let id = UnsafeRawBufferPointer(rebasing: raw[idRange])
                    if let previous, !previous.lexicographicallyPrecedes(id) { throw reader.fail("device ids out of order") }
                    previous = id
                    guard let text = String(validating: id, as: UTF8.self) else { throw reader.fail("a device id that is not UTF-8") }
                    ids.append(text)
                    let length = try reader.blob("a device's state")
                    starts.append(length.lowerBound)
                }
                guard reader.isAtEnd else { throw reader.fail("\(reader.end - reader.offset) bytes after the last device") }
                return (meta, fenceRange, ids, starts)
            } catch {
                throw error.truncated ? truncated("at byte \(error.offset): \(error.detail)") : corrupt("at byte \(error.offset): \(error.detail)")
            }
        }
        let (meta, fenceRange, ids, starts) = parsed
        guard let shard = ShardSpec(meta.shard) else { throw corrupt("shard \(JSONWriter.quoted(meta.shard)) is not K/N") }
        fenceBytes = Array(bytes[fenceRange])
        do { fenceSet = try FenceSet.load(bytes: fenceBytes, name: "\(path) (its fence set)") } catch {
            throw corrupt("its fence set cannot be read: \(error)")
        }
        watermark = meta.watermark
        self.shard = shard
        configuration = meta.configuration
        self.ids = ids
        trackerStarts = starts
    }

    /// The tracker of device `index`, on `context` (built on ``fenceSet``).
    /// - Throws: ``SnapshotError`` naming the file when the record does not decode.
    package func tracker(_ index: Int, context: TrackerContext) throws(SnapshotError) -> DeviceTracker {
        try Self.reading(bytes) { raw throws(SnapshotError) in
            var reader = ByteReader(raw, from: trackerStarts[index])
            do throws(ByteReadError) {
                return try DeviceTracker(decodingBinary: &reader, context: context)
            } catch {
                throw SnapshotError(path: path, problem: .corrupt("device \(JSONWriter.quoted(ids[index])): \(error.detail)"))
            }
        }
    }

    /// `body` on the bytes, with its typed error (`withUnsafeBytes` rethrows untyped ones).
    private static func reading<T>(
        _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(SnapshotError) -> T
    ) throws(SnapshotError) -> T {
        let result: Result<T, SnapshotError> = bytes.withUnsafeBytes { raw in
            do throws(SnapshotError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// What the file describes besides its devices.
    struct Meta: Codable {
        var shard: String
        var watermark: Int64?
        var configuration: TrackerConfiguration
        var devices: Int
    }

    /// The bytes of a state file.
    /// - Parameter devices: each device's id and its tracker's binary form, ascending by id.
    package static func fileBytes(
        fenceSet: FenceSet, watermark: Int64?, shard: ShardSpec, configuration: TrackerConfiguration, deviceCount: Int,
        devices: [UInt8]
    ) -> [UInt8] {
        var out = ByteWriter()
        out.bytes = Array(repeating: 0, count: headerSize)
        let meta = Meta(shard: shard.description, watermark: watermark, configuration: configuration, devices: deviceCount)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        out.blob((try? encoder.encode(meta)).map(Array.init) ?? [])
        out.blob(fenceSet.compiledBytes())
        out.varint(UInt64(deviceCount))
        out.bytes.append(contentsOf: devices)
        var header = ByteWriter()
        header.bytes = magic
        header.word(UInt64(version))
        header.word(UInt64(out.bytes.count))
        header.word(out.bytes.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) })
        header.word(header.bytes.withUnsafeBytes { XXH64.hash($0) })
        out.bytes.replaceSubrange(0..<headerSize, with: header.bytes)
        return out.bytes
    }

    /// One device's entry in the file's device list: its id, then its tracker, as a blob.
    static func deviceEntry(id: String, tracker: DeviceTracker, to out: inout ByteWriter) {
        out.blob(Array(id.utf8))
        var state = ByteWriter()
        tracker.encodeBinary(to: &state)
        out.blob(state.bytes)
    }
}
