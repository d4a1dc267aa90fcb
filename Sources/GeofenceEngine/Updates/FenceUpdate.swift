/// One fence update: at `time`, the set ``FenceSet/Change/old`` is replaced by
/// ``FenceSet/Change/new``, and trackers move to `context` (built on the new set).
public struct FenceUpdate: Sendable {
    public let change: FenceSet.Change
    /// The trackers' context after the update (the new set, the same configuration).
    public let context: TrackerContext
    /// When the update happens: events due before it fire under the old set; fixes at or
    /// after it are judged under the new one.
    public let time: Timestamp
    public let onFenceRemoved: FenceUpdate.RemovalPolicy

    /// An update of trackers of `oldContext` to `newSet` at `time`.
    /// - Throws: ``TrackerConfigurationError`` only if the old context's configuration cannot
    ///   make a context for the new set (it always can once it made the old one).
    public init(
        from oldContext: TrackerContext, to newSet: FenceSet, at time: Timestamp, onFenceRemoved: FenceUpdate.RemovalPolicy = .exit
    ) throws(TrackerConfigurationError) {
        self.init(
            change: FenceSet.Change(from: oldContext.fenceSet, to: newSet),
            context: try TrackerContext(fenceSet: newSet, configuration: oldContext.configuration, idsInEvents: oldContext.idsInEvents),
            at: time, onFenceRemoved: onFenceRemoved)
    }

    /// An update from a change computed before and the new context (which must be built
    /// on `change.new`; ``DeviceTracker/apply(_:)`` refuses it otherwise).
    public init(change: FenceSet.Change, context: TrackerContext, at time: Timestamp, onFenceRemoved: FenceUpdate.RemovalPolicy = .exit) {
        self.change = change
        self.context = context
        self.time = time
        self.onFenceRemoved = onFenceRemoved
    }
}

extension FenceUpdate {
    /// What a tracker does with its state at a fence that an update removes.
    public enum RemovalPolicy: String, Hashable, Sendable, Codable, CaseIterable {
        /// A device reported inside gets an exit at the update's time, with
        /// ``GeofenceEvent/Reason/fenceRemoved`` (the default).
        case exit
        /// The state is dropped without an event.
        case silent
    }
}
