/// The fence sets a batch run goes through: the first, then one per fence update, in time
/// order (`geofence evaluate --fence-update`, or a carried state written on other fences).
///
/// Each epoch has its tracker context (events named by slot), its event line formatter, and,
/// when there is more than one epoch, a rank per slot: the fence id's place among the ids of
/// every set, so that a device's events sort by fence id across sets.
package final class FenceEpochs: Sendable {
    package let sets: [FenceSet]
    let contexts: [TrackerContext]
    /// `updates[k]` moves epoch k to epoch k + 1.
    let updates: [FenceUpdate]
    let formatters: [EventLineFormatter]
    let ranks: [[Int32]]
    /// Where each update came from (a file name, or the carried state), for the summary.
    package let names: [String]

    /// Epochs from `first`, then `(time, set, name)` in strictly increasing time.
    /// - Throws: ``TrackerConfigurationError`` for a bad configuration.
    package init(
        first: FenceSet, updates scheduled: [(time: Int64, set: FenceSet, name: String)], configuration: TrackerConfiguration,
        onFenceRemoved: FenceUpdate.RemovalPolicy
    ) throws(TrackerConfigurationError) {
        sets = [first] + scheduled.map(\.set)
        var contexts: [TrackerContext] = []
        for set in sets { contexts.append(try TrackerContext(fenceSet: set, configuration: configuration, idsInEvents: false)) }
        self.contexts = contexts
        updates = scheduled.indices.map { k in
            FenceUpdate(
                change: FenceSet.Change(from: contexts[k].fenceSet, to: contexts[k + 1].fenceSet), context: contexts[k + 1],
                at: Timestamp(milliseconds: scheduled[k].time), onFenceRemoved: onFenceRemoved)
        }
        formatters = sets.map { EventLineFormatter(fenceSet: $0) }
        names = scheduled.map(\.name)
        if sets.count == 1 {
            ranks = []
        } else {
            // Every id of every set, in byte order, once.
            var all = Set<String>()
            for set in sets { for slot in 0..<set.count { all.insert(set.geofenceID(at: slot)) } }
            let sorted = all.sorted(by: fenceIDPrecedes)
            var place: [String: Int32] = [:]
            for (k, id) in sorted.enumerated() { place[id] = Int32(k) }
            ranks = sets.map { set in (0..<set.count).map { place[set.geofenceID(at: $0)]! } }
        }
    }
}
