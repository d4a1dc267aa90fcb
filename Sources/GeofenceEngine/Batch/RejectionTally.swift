extension BatchSummary {
    /// Why a fix row was not processed.
    public enum RejectionReason: String, CaseIterable, Hashable, Sendable, Codable, Comparable {
        /// The row could not be read (bad number, bad timestamp, wrong field count, …).
        case parse
        /// Latitude or longitude non-finite or out of range.
        case coordinate
        /// Horizontal accuracy worse than `maxAccuracy`.
        case accuracy
        /// With sorted input: the row breaks the device/time order.
        case order
        /// A text field the engine keeps (the device id) is not valid UTF-8: two such ids would
        /// otherwise print alike (invalid bytes become U+FFFD) and look like one device.
        case encoding
        /// The line is longer than the longest line accepted (1 MiB by default); it is skipped
        /// without being held in memory.
        case lineLength

        public static func < (a: Self, b: Self) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }
}

extension BatchSummary {
    /// Counts of rejected rows by reason, with the first few line numbers and messages of each.
    public struct RejectionTally: Hashable, Sendable {
        /// How many examples (line numbers and messages) are kept per reason.
        package static let examplesKept = 5

        /// One rejected row: its line number and why.
        public struct Example: Hashable, Sendable {
            public var line: Int
            public var message: String
        }

        public private(set) var counts: [BatchSummary.RejectionReason: Int] = [:]
        public private(set) var examples: [BatchSummary.RejectionReason: [Example]] = [:]

        package init() {}

        /// Total rejected rows.
        public var total: Int { counts.values.reduce(0, +) }

        /// Records one rejected row.
        package mutating func add(_ reason: BatchSummary.RejectionReason, line: Int, message: @autoclosure () -> String) {
            counts[reason, default: 0] += 1
            if examples[reason, default: []].count < Self.examplesKept {
                examples[reason, default: []].append(Example(line: line, message: message()))
            }
        }

        /// Records `count` rejected rows whose examples are not kept (they come after the kept ones).
        mutating func add(_ reason: BatchSummary.RejectionReason, count: Int) {
            guard count > 0 else { return }
            counts[reason, default: 0] += count
        }

        /// Adds another tally whose rows all come after this one's in the file.
        package mutating func merge(_ other: BatchSummary.RejectionTally) {
            for (reason, n) in other.counts { counts[reason, default: 0] += n }
            for (reason, list) in other.examples {
                let room = Self.examplesKept - examples[reason, default: []].count
                if room > 0 { examples[reason, default: []].append(contentsOf: list.prefix(room)) }
            }
        }

        /// `parse 3 (lines 4, 7, 9), coordinate 1 (line 12)`, or "none".
        public var summary: String {
            let parts = BatchSummary.RejectionReason.allCases.compactMap { reason -> String? in
                guard let n = counts[reason], n > 0 else { return nil }
                let lines = examples[reason, default: []].map { String($0.line) }
                let more = n > lines.count ? ", …" : ""
                return "\(reason.rawValue) \(n) (line\(lines.count == 1 ? "" : "s") \(lines.joined(separator: ", "))\(more))"
            }
            return parts.isEmpty ? "none" : parts.joined(separator: ", ")
        }
    }
}
