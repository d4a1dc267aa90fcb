import GeofenceEngine
import Metrics
import Prometheus
import Synchronization

/// The server's Prometheus metrics, served by `GET /metrics`: fixes accepted and rejected
/// by reason, events by type, devices, the fence version, group commits (latency and size),
/// and, through swift-metrics and Hummingbird's `MetricsMiddleware`, request counts and
/// latency histograms by route.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let fixesAccepted: Prometheus.Counter
    let fixesRejected: [String: Prometheus.Counter]
    let events: [String: Prometheus.Counter]
    let devices: Prometheus.Gauge
    let fenceVersion: Prometheus.Gauge
    let fenceSetsStored: Prometheus.Gauge
    let fences: Prometheus.Gauge
    let commitDuration: DurationHistogram
    let commitSets: ValueHistogram
    let eventsDeleted: Prometheus.Counter
    let requestsDeleted: Prometheus.Counter
    let logCompactions: Prometheus.Counter
    let devicesForgotten: Prometheus.Counter

    init() {
        fixesAccepted = registry.makeCounter(name: "geofence_fixes_accepted_total", help: "Fixes applied to their device's tracker.")
        var rejected: [String: Prometheus.Counter] = [:]
        for reason in Set(BatchSummary.RejectionReason.allCases.map(\.rawValue)).union(["order", "accuracy", "coordinate"]) {
            rejected[reason] = registry.makeCounter(
                name: "geofence_fixes_rejected_total", labels: [("reason", reason)], help: "Lines of POST /v1/fixes refused, by reason.")
        }
        fixesRejected = rejected
        var events: [String: Prometheus.Counter] = [:]
        for type in GeofenceEvent.EventType.allCases {
            events[type.name] = registry.makeCounter(name: "geofence_events_total", labels: [("type", type.name)], help: "Events published, by type.")
        }
        self.events = events
        devices = registry.makeGauge(name: "geofence_devices", help: "Devices with a tracker.")
        fenceVersion = registry.makeGauge(name: "geofence_fence_version", help: "Version of the fence set in force.")
        fences = registry.makeGauge(name: "geofence_fences", help: "Fences in the set in force.")
        fenceSetsStored = registry.makeGauge(
            name: "geofence_fence_sets_stored",
            help: "Fence sets stored: the one in force, and the earlier ones a restart replays updates from until a sweep ends.")
        commitDuration = registry.makeDurationHistogram(
            name: "geofence_commit_duration_seconds",
            buckets: [.microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                      .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1)],
            help: "Time of one durable group commit (the transaction and its fsync).")
        commitSets = registry.makeValueHistogram(
            name: "geofence_commit_requests", buckets: [1, 2, 4, 8, 16, 32, 64, 128],
            help: "Write sets (requests) per group commit.")
        eventsDeleted = registry.makeCounter(name: "geofence_events_deleted_total", help: "Events deleted by --retain-events.")
        requestsDeleted = registry.makeCounter(
            name: "geofence_idempotency_records_deleted_total", help: "Idempotency records deleted by --retain-events.")
        logCompactions = registry.makeCounter(
            name: "geofence_device_log_compactions_total",
            help: "Sweeps that wrote every device to the device log again and dropped the log before them.")
        devicesForgotten = registry.makeCounter(
            name: "geofence_devices_forgotten_total", help: "Idle devices forgotten after --forget-after without input.")
    }

    /// Counts a request's outcome.
    func record(accepted: Int, rejectedReasons: [String]) {
        if accepted > 0 { fixesAccepted.increment(by: Int64(accepted)) }
        for reason in rejectedReasons { fixesRejected[reason]?.increment() }
    }

    /// The text exposition format.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    private static let bootstrapped = Mutex(false)

    /// Makes swift-metrics (Hummingbird's request metrics) report into `registry`; only the
    /// first server of a process does.
    func bootstrapMetricsSystem() {
        let first = Self.bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        if first { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry)) }
    }
}
