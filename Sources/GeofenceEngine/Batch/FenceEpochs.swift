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
    /// With more than one epoch, the fence's rank of slot s of epoch k at
    /// `ranks[rankStarts[k] + s]` (one flat array: the device loop reads it without
    /// retaining an inner array); empty with one epoch, where the slot is the rank.
    let ranks: [Int32]
    let rankStarts: [Int]
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
        (ranks, rankStarts) = sets.count == 1 ? ([], []) : Self.ranks(of: sets)
    }

    /// Every set's slots ranked among the ids of all sets (equal ids, equal ranks), by a
    /// merge: each set's slots are already in id order (UTF-8 byte order).
    /// - Complexity: O(k · n) byte comparisons for k sets of n fences, no hashing.
    static func ranks(of sets: [FenceSet]) -> ([Int32], [Int]) {
        var starts: [Int] = [], total = 0
        for set in sets { starts.append(total); total += set.count }
        // A set opened from a crafted compiled file may break the order: ranked by sorting.
        for set in sets where set.count > 1 {
            for slot in 1..<set.count where !fenceIDPrecedes(set.idBytes(at: slot - 1), set.idBytes(at: slot)) {
                return (ranksBySorting(sets), starts)
            }
        }
        var ranks = [Int32](repeating: 0, count: total)
        var heads = [Int](repeating: 0, count: sets.count)
        var rank: Int32 = 0
        while true {
            // The least id among the sets' next slots.
            var least = -1
            for k in sets.indices where heads[k] < sets[k].count {
                if least < 0 || fenceIDPrecedes(sets[k].idBytes(at: heads[k]), sets[least].idBytes(at: heads[least])) { least = k }
            }
            guard least >= 0 else { break }
            let id = sets[least].idBytes(at: heads[least])
            for k in sets.indices where heads[k] < sets[k].count && fenceIDEquals(sets[k].idBytes(at: heads[k]), id) {
                ranks[starts[k] + heads[k]] = rank
                heads[k] += 1
            }
            rank += 1
        }
        return (ranks, starts)
    }

    /// The ranks by sorting every id as a string: the merge's slow twin (and its fallback).
    /// - Complexity: O(N log N) string comparisons for N fences in all.
    static func ranksBySorting(_ sets: [FenceSet]) -> [Int32] {
        var all = Set<String>()
        for set in sets { for slot in 0..<set.count { all.insert(set.geofenceID(at: slot)) } }
        var place: [String: Int32] = [:]
        for (k, id) in all.sorted(by: fenceIDPrecedes).enumerated() { place[id] = Int32(k) }
        return sets.flatMap { set in (0..<set.count).map { place[set.geofenceID(at: $0)]! } }
    }
}
