/// An instant, as whole milliseconds since 1970-01-01T00:00:00Z.
///
/// Files carry milliseconds; durations in the public API are seconds (`Double`).
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    @inlinable
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The instant `seconds` after the epoch, rounded to the millisecond.
    public init(secondsSince1970 seconds: Double) {
        milliseconds = Int64((seconds * 1000).rounded())
    }

    /// Seconds since the epoch.
    @inlinable
    public var secondsSince1970: Double { Double(milliseconds) / 1000 }

    /// This instant moved by `seconds` (rounded to the millisecond).
    @inlinable
    public func adding(seconds: Double) -> Timestamp {
        Timestamp(milliseconds: milliseconds &+ Int64((seconds * 1000).rounded()))
    }

    /// Seconds from `other` to `self`.
    @inlinable
    public func seconds(since other: Timestamp) -> Double {
        Double(milliseconds &- other.milliseconds) / 1000
    }

    @inlinable
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    public var description: String { TimestampParser.iso8601(self) }
}

/// Reads the two timestamp forms of fix files: epoch milliseconds, or ISO-8601 / RFC 3339
/// with a zone (`2016-11-24T06:00:00Z`, `2016-11-24 00:00:00.250-06:00`).
package enum TimestampParser {
    /// Why a timestamp did not parse.
    package enum Failure: Error, Hashable, Sendable {
        case empty
        case malformed
        case missingZone
        case outOfRange(String)

        package var reason: String {
            switch self {
            case .empty: "empty timestamp"
            case .malformed: "timestamp is neither epoch milliseconds nor ISO-8601 (YYYY-MM-DDTHH:MM:SS[.fff]Z or ±HH:MM)"
            case .missingZone: "ISO-8601 timestamp has no time zone (add Z or ±HH:MM)"
            case .outOfRange(let what): "timestamp \(what) is out of range"
            }
        }
    }

    /// Parses the bytes `[start, end)` of `base`. Fractions below a millisecond are truncated;
    /// a leap second (:60) counts as the first second of the next minute.
    ///
    /// - Complexity: O(length), no allocation.
    @inlinable
    package static func parse(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Result<Int64, Failure> {
        if start >= end { return .failure(.empty) }
        // Epoch milliseconds: an optional minus and 1 to 18 digits.
        var i = start
        var negative = false
        if base[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var allDigits = i < end && end - i <= 18
        var value: Int64 = 0
        var j = i
        while allDigits && j < end {
            let d = base[j] &- 0x30
            if d > 9 { allDigits = false; break }
            value = value &* 10 &+ Int64(d)
            j += 1
        }
        if allDigits { return .success(negative ? -value : value) }
        return parseISO(base, start, end)
    }

    @usableFromInline
    static func parseISO(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Result<Int64, Failure> {
        // YYYY-MM-DD[T ]HH:MM:SS[.f+](Z|±HH[:MM])
        guard end - start >= 19 else { return .failure(.malformed) }
        @inline(__always) func digits(_ at: Int, _ n: Int) -> Int? {
            var v = 0
            for k in 0..<n {
                let d = Int(p[at + k]) - 0x30
                if d < 0 || d > 9 { return nil }
                v = v * 10 + d
            }
            return v
        }
        let s = start
        guard let year = digits(s, 4), p[s + 4] == UInt8(ascii: "-"),
            let month = digits(s + 5, 2), p[s + 7] == UInt8(ascii: "-"),
            let day = digits(s + 8, 2),
            p[s + 10] == UInt8(ascii: "T") || p[s + 10] == UInt8(ascii: "t") || p[s + 10] == UInt8(ascii: " "),
            let hour = digits(s + 11, 2), p[s + 13] == UInt8(ascii: ":"),
            let minute = digits(s + 14, 2), p[s + 16] == UInt8(ascii: ":"),
            let second = digits(s + 17, 2)
        else { return .failure(.malformed) }
        guard (1...12).contains(month) else { return .failure(.outOfRange("month \(month)")) }
        guard day >= 1 && day <= daysIn(month: month, year: year) else { return .failure(.outOfRange("day \(day)")) }
        guard hour <= 23 else { return .failure(.outOfRange("hour \(hour)")) }
        guard minute <= 59 else { return .failure(.outOfRange("minute \(minute)")) }
        guard second <= 60 else { return .failure(.outOfRange("second \(second)")) }
        var i = s + 19
        var millis = 0
        if i < end && (p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: ",")) {
            i += 1
            var n = 0
            while i < end, p[i] >= 0x30, p[i] <= 0x39 {
                if n < 3 { millis = millis * 10 + Int(p[i] - 0x30) }
                n += 1
                i += 1
            }
            if n == 0 { return .failure(.malformed) }
            while n < 3 { millis *= 10; n += 1 }
        }
        guard i < end else { return .failure(.missingZone) }
        var offsetSeconds = 0
        switch p[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = p[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard end - i >= 2, let oh = digits(i, 2) else { return .failure(.malformed) }
            i += 2
            var om = 0
            if i < end {
                if p[i] == UInt8(ascii: ":") { i += 1 }
                guard end - i >= 2, let m = digits(i, 2) else { return .failure(.malformed) }
                om = m
                i += 2
            }
            guard oh <= 23, om <= 59 else { return .failure(.outOfRange("zone offset")) }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return .failure(.malformed)
        }
        guard i == end else { return .failure(.malformed) }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return .success(seconds * 1000 + Int64(millis))
    }

    @usableFromInline
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    @usableFromInline
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Parses a whole string (convenience for tests and small inputs).
    package static func parse(_ text: String) -> Result<Int64, Failure> {
        var text = text
        return text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return .failure(.empty) }
            return parse(base, 0, buffer.count)
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS.fffZ` for an instant.
    package static func iso8601(_ t: Timestamp) -> String {
        let ms = t.milliseconds
        var days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let msOfDay = ms - days * 86_400_000
        // civil from days (Hinnant)
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: Swift.max(0, n - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(msOfDay / 3_600_000, 2)):\(pad(msOfDay / 60_000 % 60, 2)):"
            + "\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }
}
