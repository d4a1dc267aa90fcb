import Foundation

/// The start of a text file, read without making lines of the whole file (splitting the
/// 8.8 MB Austin traces into lines takes about a second in a debug build).
public enum FilePrefix {
    /// The file's first `count` lines, each with its line break; the whole file when it has
    /// fewer.
    /// - Throws: when the file cannot be read.
    /// - Complexity: O(b) for the b bytes of those lines.
    public static func lines(_ path: String, count: Int) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return bytes.withUnsafeBytes { raw -> String in
            guard let base = raw.baseAddress else { return "" }
            var end = 0, seen = 0
            while seen < count, end < raw.count, let hit = memchr(base + end, 0x0A, raw.count - end) {
                end = base.distance(to: UnsafeRawPointer(hit)) + 1
                seen += 1
            }
            if seen < count { end = raw.count }
            return String(decoding: UnsafeRawBufferPointer(start: base, count: end), as: UTF8.self)
        }
    }
}
