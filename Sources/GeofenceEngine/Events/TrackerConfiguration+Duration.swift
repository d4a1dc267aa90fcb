extension TrackerConfiguration {
    /// The configuration with its durations as `Duration` values (kept to the millisecond
    /// when a tracker is built); tolerances are fractions of the radius, distances metres.
    ///
    /// ```swift
    /// let configuration = TrackerConfiguration(ignorePeriod: .seconds(30), dwell: .seconds(60), presenceInterval: .seconds(300))
    /// ```
    @_disfavoredOverload  // `TrackerConfiguration()` and plain numbers take the seconds form
    public init(
        ignorePeriod: Duration = .seconds(30), dwell: Duration = .seconds(60), enterToleranceFraction: Double = 0,
        exitToleranceFraction: Double = 0, maxAccuracy: Double = 1000, accuracyBuffer: Bool = false,
        presenceInterval: Duration? = nil, stopSeconds: Duration = .seconds(140), stopRadius: Double = 70,
        membershipTTL: Duration? = .seconds(3600), levelFences: Bool = true, globalFences: Bool = true
    ) {
        self.init(
            ignorePeriod: ignorePeriod.inSeconds, dwell: dwell.inSeconds, enterToleranceFraction: enterToleranceFraction,
            exitToleranceFraction: exitToleranceFraction, maxAccuracy: maxAccuracy, accuracyBuffer: accuracyBuffer,
            presenceInterval: presenceInterval?.inSeconds, stopSeconds: stopSeconds.inSeconds, stopRadius: stopRadius,
            membershipTTL: membershipTTL?.inSeconds, levelFences: levelFences, globalFences: globalFences)
    }

    /// ``ignorePeriod`` as a `Duration`.
    public var ignorePeriodDuration: Duration {
        get { .seconds(ignorePeriod) }
        set { ignorePeriod = newValue.inSeconds }
    }

    /// ``dwell`` as a `Duration`.
    public var dwellDuration: Duration {
        get { .seconds(dwell) }
        set { dwell = newValue.inSeconds }
    }

    /// ``presenceInterval`` as a `Duration` (nil: off).
    public var presenceIntervalDuration: Duration? {
        get { presenceInterval.map { .seconds($0) } }
        set { presenceInterval = newValue?.inSeconds }
    }
}

extension Duration {
    /// The duration in seconds, attoseconds included (a `Double` keeps about 15 digits).
    var inSeconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}
