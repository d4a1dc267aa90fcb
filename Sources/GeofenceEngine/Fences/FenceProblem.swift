extension FenceValidationError {
    /// One problem with one fence of the input, named by its feature index (0-based) and id.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var featureIndex: Int
        public var id: String?
        public var reason: String

        public init(featureIndex: Int, id: String?, reason: String) {
            self.featureIndex = featureIndex
            self.id = id
            self.reason = reason
        }

        /// `feature <index> (<id>): <reason>`, the line `geofence validate` prints.
        public var description: String {
            "feature \(featureIndex) (\(id ?? "no id")): \(reason)"
        }
    }
}

/// The fences could not form a set: every problem found, in feature order.
public struct FenceValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var problems: [FenceValidationError.Problem]

    public init(problems: [FenceValidationError.Problem]) { self.problems = problems }

    public var description: String {
        let shown = problems.prefix(5).map(\.description).joined(separator: "; ")
        let more = problems.count > 5 ? " (and \(problems.count - 5) more)" : ""
        return "\(problems.count) invalid fence(s): \(shown)\(more)"
    }
}

