/// Every knob of the event engine, in one value with documented defaults (semantics §3–§6).
///
/// Durations are seconds (`Double`, or `Duration` through the initializer that takes them)
/// and are rounded to the millisecond when a tracker is built; distances are metres; the
/// enter and exit tolerances are fractions of each fence's radius (0.1 = 10 % of the radius).
/// ``validate()`` says what is out of range.
///
/// ```swift
/// let configuration = TrackerConfiguration(ignorePeriod: .seconds(30), dwell: .seconds(60), exitToleranceFraction: 0.1)
/// ```
public struct TrackerConfiguration: Hashable, Sendable, Codable {
    /// Quiet window after each entrance or exit, per device and fence (Pointr). Default 30 s.
    public var ignorePeriod: Double
    /// Default dwell time for fences without their own `dwellSeconds`. Default 60 s; 0 disables.
    public var dwell: Double
    /// A fraction of the radius (not metres): while reported outside, a fix enters when
    /// within the fence grown by this fraction of the fence's radius (0.1 on a 200 m circle:
    /// within 220 m of the centre). Default 0.
    public var enterToleranceFraction: Double
    /// A fraction of the radius (not metres): while reported inside, a fix stays inside until
    /// outside the fence grown by this fraction of the fence's radius. Default 0.
    public var exitToleranceFraction: Double
    /// Fixes with a worse horizontal accuracy (metres) are rejected (`accuracy`). Default 1,000 m.
    public var maxAccuracy: Double
    /// When on, a fix counts as inside a fence its accuracy circle touches. Default off.
    public var accuracyBuffer: Bool
    /// When set, a `presence` event per fence the device is reported inside, at the first fix
    /// at least this long after the entrance or the previous presence. Default nil (off).
    public var presenceInterval: Double?
    /// How long a device must have been within ``stopRadius`` to count as stopped. Default 140 s.
    public var stopSeconds: Double
    /// Radius around the mean position of the recent fixes within which a device is stopped.
    /// Default 70 m.
    public var stopRadius: Double
    /// Places states (current, last entered, last exited) expire this long after the last
    /// entry, exit or recalculation. Default 3,600 s; nil = never.
    public var membershipTTL: Double?
    /// Fences with a level take part. Default on.
    public var levelFences: Bool
    /// Fences without a level take part. Default on.
    public var globalFences: Bool

    /// Durations in seconds, tolerances as fractions of the radius, distances in metres.
    public init(
        ignorePeriod: Double = 30, dwell: Double = 60, enterToleranceFraction: Double = 0, exitToleranceFraction: Double = 0,
        maxAccuracy: Double = 1000, accuracyBuffer: Bool = false, presenceInterval: Double? = nil,
        stopSeconds: Double = 140, stopRadius: Double = 70, membershipTTL: Double? = 3600,
        levelFences: Bool = true, globalFences: Bool = true
    ) {
        self.ignorePeriod = ignorePeriod
        self.dwell = dwell
        self.enterToleranceFraction = enterToleranceFraction
        self.exitToleranceFraction = exitToleranceFraction
        self.maxAccuracy = maxAccuracy
        self.accuracyBuffer = accuracyBuffer
        self.presenceInterval = presenceInterval
        self.stopSeconds = stopSeconds
        self.stopRadius = stopRadius
        self.membershipTTL = membershipTTL
        self.levelFences = levelFences
        self.globalFences = globalFences
    }

    /// The switches for level and global fences, as containment queries take them.
    public var containmentOptions: ContainmentOptions {
        ContainmentOptions(levelFences: levelFences, globalFences: globalFences)
    }

    /// Longest duration accepted, in seconds (about 317 years): milliseconds stay far from
    /// `Int64` overflow when added to any timestamp a fix file can hold.
    public static let longestDuration: Double = 1e10

    /// Checks every value. Durations and tolerances must be finite and ≥ 0 (and at most
    /// ``longestDuration``); `maxAccuracy` ≥ 0 (infinity = no limit); `stopRadius` > 0.
    public func validate() throws(TrackerConfigurationError) {
        func duration(_ name: String, _ value: Double?) throws(TrackerConfigurationError) {
            guard let value else { return }
            guard value.isFinite, value >= 0, value <= Self.longestDuration else {
                throw TrackerConfigurationError(
                    reason: "\(name) must be a number of seconds in [0, \(Int64(Self.longestDuration))], found \(value)")
            }
        }
        try duration("ignorePeriod", ignorePeriod)
        try duration("dwell", dwell)
        try duration("presenceInterval", presenceInterval)
        try duration("stopSeconds", stopSeconds)
        try duration("membershipTTL", membershipTTL)
        for (name, value) in [("enterToleranceFraction", enterToleranceFraction), ("exitToleranceFraction", exitToleranceFraction)] {
            guard value.isFinite, value >= 0 else {
                throw TrackerConfigurationError(reason: "\(name) must be a fraction of the radius >= 0, found \(value)")
            }
        }
        guard !maxAccuracy.isNaN, maxAccuracy >= 0 else {
            throw TrackerConfigurationError(reason: "maxAccuracy must be a number of metres >= 0, found \(maxAccuracy)")
        }
        guard stopRadius.isFinite, stopRadius > 0, stopRadius < 1_000_000 else {
            throw TrackerConfigurationError(reason: "stopRadius must be a number of metres in (0, 1000000), found \(stopRadius)")
        }
    }

    /// The encoded names (`enterTolerance`, `exitTolerance`: the names before the Swift
    /// properties said "fraction"), so stored configurations still decode.
    enum CodingKeys: String, CodingKey {
        case ignorePeriod, dwell, maxAccuracy, accuracyBuffer, presenceInterval, stopSeconds, stopRadius
        case membershipTTL, levelFences, globalFences
        case enterToleranceFraction = "enterTolerance"
        case exitToleranceFraction = "exitTolerance"
    }

    /// Seconds to whole milliseconds, rounded (values already validated).
    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }
}

/// A configuration value out of range, in words.
public struct TrackerConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The setting's name, then what is wrong ("dwell must be a number of seconds …").
    public var reason: String
    public var description: String { reason }
}
