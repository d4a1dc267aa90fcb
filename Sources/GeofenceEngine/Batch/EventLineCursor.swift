/// One NDJSON event file read for ``ShardMerger``: positioned on a line whose top-level
/// `deviceId` it knows, and able to copy that device's whole run of lines to an output.
///
/// Lines are found with `memchr` and the device id by a scan of the line's start that steps
/// over the members before `deviceId` (strings, numbers, nested objects) without decoding
/// them; the engine writes `deviceId` third, so the scan reads about 60 bytes of a line.
/// The rest of a line is copied unread.
final class EventLineCursor {
    let path: String
    private let reader: LineBlockReader
    private var block = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Physical line number of the current line (1-based; blank lines counted).
    private(set) var lineNumber = 0
    /// False once the file is exhausted.
    private(set) var hasLine = false
    // The current line `[lineStart, lineEnd)` (lineEnd at its break, or the block's end for a
    // last line without one) and its device id's raw bytes `[idStart, idEnd)` between quotes.
    private var lineStart = 0, lineEnd = 0, idStart = 0, idEnd = 0
    /// The raw id holds a backslash escape: compare it decoded.
    private var idEscaped = false
    /// Bytes of the block taken for the output but not yet handed to it.
    private var pendingStart = 0, pendingEnd = 0

    /// Opens the file and reads up to its first event line.
    /// - Throws: ``FileError``, or ``ShardMerger/Failure`` for a line that is not an event.
    init(path: String) throws {
        self.path = path
        reader = try LineBlockReader(path: path, blockSize: 4 << 20)
        try advance(from: 0) { _ in }  // nothing is pending yet
    }

    /// The current line's device id, unescaped (its UTF-8 bytes).
    func deviceKey() -> [UInt8] {
        let raw = UnsafeRawBufferPointer(rebasing: block[idStart..<idEnd])
        return idEscaped ? Self.decoded(UnsafeRawBufferPointer(rebasing: block[(idStart - 1)..<(idEnd + 1)])) : Array(raw)
    }

    /// Copies the current device's run of lines to `write` and moves to the first line of
    /// the next device (or the end). Returns the number of lines copied.
    func copyRun(write: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let raw = Array(UnsafeRawBufferPointer(rebasing: block[idStart..<idEnd]))
        let escaped = idEscaped
        let key = deviceKey()
        var lines = 0
        repeat {
            let hasBreak = lineEnd < block.count
            let end = hasBreak ? lineEnd + 1 : lineEnd
            if pendingEnd > pendingStart && pendingEnd == lineStart {
                pendingEnd = end
            } else {
                try flush(write)
                (pendingStart, pendingEnd) = (lineStart, end)
            }
            lines += 1
            if !hasBreak {
                // The file's last line has no line break: it gets one, as a re-read line would.
                try flush(write)
                try [UInt8(0x0A)].withUnsafeBytes { try write($0) }
            }
            try advance(from: end, write: write)
        } while hasLine && sameDevice(raw: raw, escaped: escaped, key: key)
        try flush(write)
        return lines
    }

    private func sameDevice(raw: [UInt8], escaped: Bool, key: [UInt8]) -> Bool {
        let count = idEnd - idStart
        if count == raw.count
            && raw.withUnsafeBytes({ Platform.bytesEqual($0.baseAddress!, block.baseAddress! + idStart, count: count) })
        {
            return true
        }
        // Different bytes name different ids unless an escape is involved (`\u0041` is `A`).
        return (escaped || idEscaped) && deviceKey() == key
    }

    private func flush(_ write: (UnsafeRawBufferPointer) throws -> Void) throws {
        if pendingEnd > pendingStart { try write(UnsafeRawBufferPointer(rebasing: block[pendingStart..<pendingEnd])) }
        (pendingStart, pendingEnd) = (0, 0)
    }

    /// Moves to the next non-blank line at or after `position`, reading blocks as needed
    /// (what is pending goes to `write` before its block is replaced).
    private func advance(from position: Int, write: (UnsafeRawBufferPointer) throws -> Void) throws {
        var position = position
        while true {
            if position >= block.count {
                try flush(write)
                guard let next = try reader.nextBlock() else {
                    hasLine = false
                    return
                }
                block = next
                position = 0
                continue
            }
            let base = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let end = Platform.firstLineBreak(in: base, from: position, to: block.count)
            lineNumber += 1
            if end == position {
                position = end + 1
                continue
            }
            guard let id = Self.deviceField(base, from: position, to: end) else {
                throw ShardMerger.Failure(description: "\(path) line \(lineNumber): not an event (a JSON object with a string deviceId)")
            }
            (lineStart, lineEnd) = (position, end)
            (idStart, idEnd, idEscaped) = (id.start, id.end, id.escaped)
            hasLine = true
            return
        }
    }

    /// The decoded text of a JSON string literal (quotes included in `literal`).
    static func decoded(_ literal: UnsafeRawBufferPointer) -> [UInt8] {
        guard case .string(let s)? = try? JSONParser.parse(literal) else { return Array(literal) }
        return Array(s.utf8)
    }
}

extension EventLineCursor {
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let deviceIdKey = Array("deviceId".utf8)

    /// The raw bytes (between the quotes) of the top-level `deviceId` string of the JSON
    /// object on `p[start ..< end]`, and whether they hold an escape; nil when the line does
    /// not start like an object with one.
    ///
    /// Members before it are stepped over: strings to their closing quote, nested objects and
    /// arrays by depth, other values to the next delimiter. Only the start of the line is
    /// read; the rest is not checked.
    static func deviceField(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> (start: Int, end: Int, escaped: Bool)? {
        var i = skipSpace(p, start, end)
        guard i < end, p[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while true {
            i = skipSpace(p, i, end)
            guard i < end, p[i] == quote, let key = stringEnd(p, i + 1, end) else { return nil }
            let keyStart = i + 1
            i = skipSpace(p, key.end + 1, end)
            guard i < end, p[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(p, i + 1, end)
            guard i < end else { return nil }
            let isDevice = key.escaped
                ? decoded(UnsafeRawBufferPointer(start: p + keyStart - 1, count: key.end - keyStart + 2)) == deviceIdKey
                : key.end - keyStart == 8 && deviceIdKey.withUnsafeBytes { Platform.bytesEqual($0.baseAddress!, p + keyStart, count: 8) }
            if isDevice {
                guard p[i] == quote, let value = stringEnd(p, i + 1, end) else { return nil }
                return (i + 1, value.end, value.escaped)
            }
            guard let after = skipValue(p, i, end) else { return nil }
            i = skipSpace(p, after, end)
            guard i < end, p[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    /// The index of the closing quote of a string whose text starts at `i`.
    private static func stringEnd(_ p: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> (end: Int, escaped: Bool)? {
        var i = i
        var escaped = false
        while i < end {
            let b = p[i]
            if b == quote { return (i, escaped) }
            if b == backslash {
                escaped = true
                i += 2
            } else {
                i += 1
            }
        }
        return nil
    }

    /// The index just after the value starting at `i`.
    private static func skipValue(_ p: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> Int? {
        var i = i
        switch p[i] {
        case quote:
            return stringEnd(p, i + 1, end).map { $0.end + 1 }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < end {
                switch p[i] {
                case quote:
                    guard let s = stringEnd(p, i + 1, end) else { return nil }
                    i = s.end
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            let first = i
            while i < end {
                let b = p[i]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || isSpace(b) { break }
                i += 1
            }
            return i > first ? i : nil
        }
    }

    private static func skipSpace(_ p: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> Int {
        var i = i
        while i < end && isSpace(p[i]) { i += 1 }
        return i
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
}
