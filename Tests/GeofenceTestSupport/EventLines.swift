import Foundation

/// Lookups in the CLI's NDJSON event lines for tests that read whole runs.
///
/// Foundation's `range(of:)` and `contains(_:)` on a `Substring` bridge each call and cost
/// microseconds in a debug build: seconds over the events of one run. These search the
/// line's UTF-8 bytes with `memchr` and `memcmp` instead.
public enum EventLines {
    /// True when `needle` occurs in `line`.
    /// - Complexity: O(n) for a line of n bytes.
    public static func contains(_ line: Substring, _ needle: String) -> Bool {
        offset(of: needle, in: line) != nil
    }

    /// The value of the first `"key":` in `line`: a string's text without its quotes (the
    /// tests' ids and names hold no escaped quote), or a number's or literal's text; nil when
    /// the key is absent.
    /// - Complexity: O(n) for a line of n bytes.
    public static func value(of key: String, in line: Substring) -> Substring? {
        guard let at = offset(of: "\"\(key)\":", in: line) else { return nil }
        let utf8 = line.utf8
        var start = utf8.index(utf8.startIndex, offsetBy: at + key.utf8.count + 3)
        let quoted = start < utf8.endIndex && utf8[start] == UInt8(ascii: "\"")
        if quoted { start = utf8.index(after: start) }
        var end = start
        while end < utf8.endIndex {
            let byte = utf8[end]
            if quoted ? byte == UInt8(ascii: "\"") : (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}")) { break }
            end = utf8.index(after: end)
        }
        return line[start..<end]
    }

    /// The integer value of `"key":` in `line`, or nil.
    public static func integer(of key: String, in line: Substring) -> Int64? {
        value(of: key, in: line).flatMap { Int64($0) }
    }

    /// The byte offset of `needle` in `line`, or nil.
    static func offset(of needle: String, in line: Substring) -> Int? {
        var line = line, needle = needle
        return line.withUTF8 { haystack in
            needle.withUTF8 { pattern -> Int? in
                guard let base = haystack.baseAddress, let p = pattern.baseAddress, pattern.count <= haystack.count else { return nil }
                // memchr to each candidate first byte, memcmp for the rest (Glibc's memmem
                // needs _GNU_SOURCE, which Swift's Glibc module does not set).
                var from = 0
                let last = haystack.count - pattern.count
                while from <= last, let hit = memchr(base + from, Int32(p.pointee), last - from + 1) {
                    let k = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + k, p, pattern.count) == 0 { return k }
                    from = k + 1
                }
                return nil
            }
        }
    }
}
