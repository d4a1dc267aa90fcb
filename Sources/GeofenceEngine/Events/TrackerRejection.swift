/// Why the tracker refused an input. A refused input changes nothing.
///
/// Fixes are checked in this order: `coordinate`, `accuracy`, `order`. Region signals and
/// presence requests can fail with `order`, region signals also with `unknownFence`;
/// observations and fence updates made for another fence set with `wrongFenceSet`.
public enum TrackerRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// Latitude or longitude non-finite or out of range (the error the evaluator, the
    /// monitor and the planner throw for the same point).
    case coordinate(CoordinateError)
    /// Accuracy worse than `maxAccuracy`, negative, or not a number.
    case accuracy(Double, maximum: Double)
    /// Older than the latest input the tracker accepted (time never goes backwards per device).
    case order(latest: Timestamp, given: Timestamp)
    /// A region signal names a fence the set does not have.
    case unknownFence(String)
    /// The input was made for another fence set than the tracker's: an observation computed
    /// with an evaluator of another set, or a fence update from another set. (Slots of one
    /// set mean other fences in another, so the tracker never guesses.)
    case wrongFenceSet(String)

    /// The rejection's short name, as counted in summaries.
    public var reason: Reason {
        switch self {
        case .coordinate: .coordinate
        case .accuracy: .accuracy
        case .order: .order
        case .unknownFence: .unknownFence
        case .wrongFenceSet: .wrongFenceSet
        }
    }

    /// Short names of rejection reasons.
    public enum Reason: String, Hashable, Sendable, CaseIterable, Codable {
        case coordinate, accuracy, order, unknownFence, wrongFenceSet
    }

    /// One line for people: the reason's name, a colon, and ``detail``.
    public var description: String { "\(reason.rawValue): \(detail)" }

    /// What is wrong, in words, without the reason's name.
    public var detail: String {
        switch self {
        case .coordinate(let error):
            error.description
        case .accuracy(let accuracy, let maximum):
            accuracy >= 0
                ? "accuracy \(accuracy) m is worse than maxAccuracy \(maximum) m"
                : "accuracy \(accuracy) is not a number of metres >= 0"
        case .order(let latest, let given):
            "\(given) (\(given.milliseconds) ms) is earlier than the device's latest input \(latest) (\(latest.milliseconds) ms)"
        case .unknownFence(let id):
            "no fence has the id \(JSONWriter.quoted(id))"
        case .wrongFenceSet(let detail):
            detail
        }
    }
}
