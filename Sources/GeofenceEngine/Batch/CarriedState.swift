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
///   24–31: the file's length; 32–39: the content's checksum (``contentHash(_:)`` of its five
///   parts); 40–47: XXH64 of bytes 0–39;
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
    /// Where each device's entry (its id, then its tracker) starts in `bytes`, and one more:
    /// where the last ends.
    private let entryStarts: [Int]
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
        let parsed: (Meta, Range<Int>, [String], [Int], [Int]) = try Self.reading(bytes) { raw throws(SnapshotError) in
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
            var reader = ByteReader(raw, from: Self.headerSize)
            do throws(ByteReadError) {
                let metaRange = try reader.blob("the description")
                let fenceRange = try reader.blob("the fence set")
                let count = try reader.count("the device count", below: raw.count)
                let parts = [
                    Self.headerSize..<metaRange.upperBound, metaRange.upperBound..<fenceRange.lowerBound, fenceRange,
                    fenceRange.upperBound..<reader.offset, reader.offset..<raw.count,
                ]
                guard Self.contentHash(parts.map { XXH64.hash(UnsafeRawBufferPointer(rebasing: raw[$0])) }) == word(32) else {
                    throw reader.fail("the content's checksum does not match (damaged)")
                }
                let meta: Meta
                do { meta = try JSONDecoder().decode(Meta.self, from: Data(raw[metaRange])) } catch {
                    throw reader.fail("the description is not valid: \(error)")
                }
                guard count == meta.devices else { throw reader.fail("\(count) devices, the description says \(meta.devices)") }
                var ids: [String] = [], starts: [Int] = [], entries: [Int] = []
                ids.reserveCapacity(count)
                starts.reserveCapacity(count)
                entries.reserveCapacity(count + 1)
                var previous: UnsafeRawBufferPointer? = nil
                for _ in 0..<count {
                    entries.append(reader.offset)
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
                entries.append(reader.offset)
                return (meta, fenceRange, ids, starts, entries)
            } catch {
                throw error.truncated ? truncated("at byte \(error.offset): \(error.detail)") : corrupt("at byte \(error.offset): \(error.detail)")
            }
        }
        let (meta, fenceRange, ids, starts, entries) = parsed
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
        entryStarts = entries
    }

    /// Appends device `index`'s entry to `out` as it is in the file: what
    /// ``deviceEntry(id:tracker:to:)`` writes for its decoded tracker (encoding is
    /// canonical, a test checks it), without decoding it. For a device a run leaves as it was.
    /// - Complexity: O(b) for the entry's b bytes.
    package func appendEntry(_ index: Int, to out: inout [UInt8]) {
        out.append(contentsOf: bytes[entryStarts[index]..<entryStarts[index + 1]])
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

    /// The checksum of a file's content: XXH64 over the XXH64s of its five parts (the
    /// description, the fence set's length and bytes, the device count and the devices), so a
    /// writer hashes each part where it lies and hands the parts over without joining them.
    static func contentHash(_ hashes: [UInt64]) -> UInt64 {
        var words = ByteWriter()
        for h in hashes { words.word(h) }
        return words.bytes.withUnsafeBytes { XXH64.hash($0) }
    }

    /// Hands a state file's bytes to `put`, in order, without copying the fence set's or
    /// the devices' bytes: the header, the description, the fence set, the devices.
    /// - Parameter devices: each device's id and its tracker's binary form, ascending by id.
    package static func write<E: Error>(
        fenceSet: FenceSet, watermark: Int64?, shard: ShardSpec, configuration: TrackerConfiguration, deviceCount: Int,
        devices: [UInt8], to put: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        var meta = ByteWriter()
        let description = Meta(shard: shard.description, watermark: watermark, configuration: configuration, devices: deviceCount)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        meta.blob((try? encoder.encode(description)).map(Array.init) ?? [])
        let fences = fenceSet.compiledBytes()
        var fenceLength = ByteWriter()
        fenceLength.varint(UInt64(fences.count))
        var count = ByteWriter()
        count.varint(UInt64(deviceCount))
        let parts = [meta.bytes, fenceLength.bytes, fences, count.bytes, devices]
        let hashes = parts.map { $0.withUnsafeBytes { XXH64.hash($0) } }
        var header = ByteWriter()
        header.bytes = magic
        header.word(UInt64(version))
        header.word(UInt64(headerSize + meta.bytes.count + fenceLength.bytes.count + fences.count + count.bytes.count + devices.count))
        header.word(contentHash(hashes))
        header.word(header.bytes.withUnsafeBytes { XXH64.hash($0) })
        for part in [header.bytes] + parts {
            let result: Result<Void, E> = part.withUnsafeBytes { raw in
                do throws(E) { try put(raw); return .success(()) } catch { return .failure(error) }
            }
            try result.get()
        }
    }

    /// The bytes of a state file, joined (tests and the fuzz target).
    package static func fileBytes(
        fenceSet: FenceSet, watermark: Int64?, shard: ShardSpec, configuration: TrackerConfiguration, deviceCount: Int,
        devices: [UInt8]
    ) -> [UInt8] {
        var out: [UInt8] = []
        write(fenceSet: fenceSet, watermark: watermark, shard: shard, configuration: configuration, deviceCount: deviceCount, devices: devices) {
            (raw: UnsafeRawBufferPointer) throws(Never) in out.append(contentsOf: raw)
        }
        return out
    }

    /// One device's entry in the file's device list: its id, then its tracker, as a blob.
    static func deviceEntry(id: String, tracker: DeviceTracker, to out: inout ByteWriter) {
        var scratch = ByteWriter()
        deviceEntry(id: id, tracker: tracker, to: &out, scratch: &scratch)
    }

    /// ``deviceEntry(id:tracker:to:)`` with a scratch writer for the tracker's bytes, reused
    /// device after device (no allocation per device once it has grown).
    static func deviceEntry(id: String, tracker: DeviceTracker, to out: inout ByteWriter, scratch: inout ByteWriter) {
        out.varint(UInt64(id.utf8.count))
        out.bytes.append(contentsOf: id.utf8)
        scratch.bytes.removeAll(keepingCapacity: true)
        tracker.encodeBinary(to: &scratch)
        out.blob(scratch.bytes)
    }
}
