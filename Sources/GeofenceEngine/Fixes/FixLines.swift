#if canImport(FoundationEssentials)
import FoundationEssentials  // ContiguousBytes: Data, [UInt8], a NIO buffer view
#else
import Foundation
#endif

/// Fixes read from a body of text with the batch's rules, each line accepted or rejected on
/// its own: CSV with a header, as `geofence evaluate` reads a file, or NDJSON lines
/// `{"deviceId","timestamp","lat","lng"[,"accuracy"][,"level"]}`.
///
/// For a service that takes fixes over the network: a bad line is refused with its line
/// number and the reason the CLI's summary would count it under, and the rest are read.
/// What a tracker refuses on its own (accuracy beyond its limit, a fix older than the
/// device's last) is left to the tracker.
public enum FixLines {
    /// How the lines are written.
    public enum Format: Sendable, Hashable {
        /// A header line naming the columns (``FixLines`` reads it as `evaluate` does), then rows.
        case csv
        /// One JSON object a line.
        case ndjson
    }

    /// A line read as a fix.
    public struct Accepted: Sendable, Hashable {
        /// 1-based, counting the CSV header.
        public var line: Int
        public var deviceID: String
        public var fix: Fix
    }

    /// A line refused, with the reason the CLI's summary counts it under and why, in words.
    public struct Rejected: Sendable, Hashable {
        /// 1-based, counting the CSV header.
        public var line: Int
        public var reason: BatchSummary.RejectionReason
        public var detail: String
    }

    /// Reads every line of `bytes`. Empty lines are skipped; a trailing CR is ignored.
    ///
    /// - Parameters:
    ///   - name: names the body in errors (a file name, "request body").
    ///   - maximumLineBytes: longer lines are refused with reason `lineLength`.
    /// - Returns: the accepted fixes and the refused lines, each in line order.
    /// - Throws: ``FileError`` when the body cannot be read as lines at all: CSV whose first
    ///   line is not a header naming the fix columns.
    /// - Complexity: O(n) for n bytes.
    public static func read(
        _ bytes: some ContiguousBytes, format: Format, name: String, maximumLineBytes: Int = 1 << 20
    ) throws(FileError) -> (accepted: [Accepted], rejected: [Rejected]) {
        let read = try read(bytes, format: format, name: name, maximumLineBytes: maximumLineBytes, fastJSON: true)
        return (read.accepted, read.rejected)
    }

    /// ``read(_:format:name:maximumLineBytes:)`` with the NDJSON fast path (``fastJSONFix(_:_:_:)``)
    /// on or off, and how many lines the fast path read: off, every line goes through the
    /// generic JSON parser, the twin the tests compare the fast path with.
    /// - Complexity: O(n) for n bytes.
    package static func read(
        _ bytes: some ContiguousBytes, format: Format, name: String, maximumLineBytes: Int = 1 << 20, fastJSON: Bool
    ) throws(FileError) -> (accepted: [Accepted], rejected: [Rejected], fastLines: Int) {
        let result: Result<([Accepted], [Rejected], Int), FileError> = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), !raw.isEmpty else {
                return format == .csv ? .failure(FileError(path: name, reason: "no header line")) : .success(([], [], 0))
            }
            var reader = Reader(p: base, count: raw.count, maximumLineBytes: maximumLineBytes, fastJSON: fastJSON)
            do throws(FileError) {
                try reader.readAll(format: format, name: name)
            } catch {
                return .failure(error)
            }
            return .success((reader.accepted, reader.rejected, reader.fastLines))
        }
        return try result.get()
    }

    /// The state of one read: the lines found so far.
    struct Reader {
        let p: UnsafePointer<UInt8>
        let count: Int
        let maximumLineBytes: Int
        /// False to read every NDJSON line with the generic JSON parser.
        let fastJSON: Bool
        /// NDJSON lines the fast path read (for the tests: it is taken).
        var fastLines = 0
        var accepted: [Accepted] = []
        var rejected: [Rejected] = []

        mutating func readAll(format: Format, name: String) throws(FileError) {
            var start = 0, line = 0
            var header: FixCSVHeader? = nil
            while start < count {
                let end = Platform.firstLineBreak(in: p, from: start, to: count)
                line += 1
                defer { start = end + 1 }
                var last = end
                if last > start && p[last - 1] == 0x0D { last -= 1 }
                if format == .csv && header == nil {
                    do {
                        header = try FixCSVHeader(line: UnsafeRawBufferPointer(start: p + start, count: last - start))
                    } catch {
                        throw FileError(path: name, reason: "line \(line): \(error.reason)")
                    }
                    continue
                }
                if last == start { continue }
                if last - start > maximumLineBytes {
                    refuse(line, .lineLength, "line of \(last - start) bytes, longer than the maximum of \(maximumLineBytes)")
                    continue
                }
                if let header { csvRow(start, last, line: line, header: header) } else { jsonLine(start, last, line: line) }
            }
            if format == .csv && header == nil { throw FileError(path: name, reason: "no header line") }
        }

        mutating func refuse(_ line: Int, _ reason: BatchSummary.RejectionReason, _ detail: String) {
            rejected.append(Rejected(line: line, reason: reason, detail: detail))
        }

        /// Accepts the fix unless its position is invalid.
        mutating func accept(_ line: Int, device: String, _ fix: Fix) {
            if let reason = fix.coordinate.invalidReason {
                refuse(line, .coordinate, reason)
            } else {
                accepted.append(Accepted(line: line, deviceID: device, fix: fix))
            }
        }

        /// A device id's bytes as a string, or nil (and the line refused) when not UTF-8.
        mutating func deviceID(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) -> String? {
            guard let base = bytes.baseAddress, UTF8Validation.isValid(base, 0, bytes.count) else {
                refuse(line, .encoding, "device_id \(UTF8Validation.escaped(bytes)) is not valid UTF-8")
                return nil
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        mutating func csvRow(_ start: Int, _ end: Int, line: Int, header: FixCSVHeader) {
            var row = FixCSVRow()
            if let failure = row.parse(p, start, end, header: header) {
                refuse(line, .parse, failure.reason)
                return
            }
            var unquoted: [UInt8] = []
            var k = row.deviceStart
            while k < row.deviceEnd {
                unquoted.append(p[k])
                k += row.deviceQuoted && p[k] == UInt8(ascii: "\"") ? 2 : 1
            }
            guard let device = unquoted.withUnsafeBufferPointer({ deviceID($0, line: line) }) else { return }
            let fix = Fix(
                timestamp: Timestamp(milliseconds: row.timestamp), latitude: row.latitude, longitude: row.longitude,
                accuracy: row.accuracy.isNaN ? nil : row.accuracy, level: row.level == Int.min ? nil : row.level)
            accept(line, device: device, fix)
        }
    }
}
