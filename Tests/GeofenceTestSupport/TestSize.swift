import Foundation

/// How large the long tests run: the seeded sweeps over many seeds and the end-to-end runs
/// on large inputs.
///
/// `make test` runs them at a quick size that still checks every behaviour (fewer seeds,
/// fewer fixes), so the suite stays within a few minutes on two cores; `make test-long`
/// sets `GEOFENCE_TEST_LONG=1` and runs the whole suite at full size. `make sanitize` runs
/// the quick size too (the sanitizers slow everything 5-20 times). Tests read the switch
/// only through ``sized(full:quick:)`` and ``TestSize/long``.
public enum TestSize {
    /// True when `GEOFENCE_TEST_LONG=1`: the long tests run at full size.
    public static let long: Bool = ProcessInfo.processInfo.environment["GEOFENCE_TEST_LONG"] == "1"
}

/// `full` under `make test-long` (`GEOFENCE_TEST_LONG=1`), else `quick`: the size of a long
/// sweep or input.
public func sized<T>(full: T, quick: T) -> T { TestSize.long ? full : quick }
