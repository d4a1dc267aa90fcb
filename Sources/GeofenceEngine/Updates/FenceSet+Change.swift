extension FenceSet {
    /// What replacing one fence set by another changes, fence by fence, matched by id.
    ///
    /// A fence is *added* (only in the new set), *removed* (only in the old set), *changed*
    /// (in both, with another geometry, radius or level: ``FenceSet/fingerprint(at:)`` differs) or
    /// *unchanged* (in both with the same fingerprint; its properties may differ). Ids are listed
    /// in the sets' order (UTF-8 byte order).
    ///
    /// The change also maps the old set's slots to the new set's, which is what a tracker needs
    /// to carry its state across (``DeviceTracker/apply(_:)``): make one change per update and
    /// share it among every device.
    public struct Change: Sendable {
        /// The set before the update.
        public let old: FenceSet
        /// The set after it.
        public let new: FenceSet
        public let added: [String]
        public let removed: [String]
        public let changed: [String]
        public let unchanged: [String]
        /// By old slot: the fence's slot in the new set, or -1 when it was removed.
        package let newSlots: [Int32]

        /// Compares the two sets.
        /// - Complexity: O(n + m) hash look-ups for n and m fences, plus O(v) to fingerprint the
        ///   v vertices of the fences both sets have (none when `old === new`).
        public init(from old: FenceSet, to new: FenceSet) {
            self.old = old
            self.new = new
            var newSlots = [Int32](repeating: -1, count: old.count)
            var removed: [String] = [], changed: [String] = [], unchanged: [String] = []
            var kept = [Bool](repeating: false, count: new.count)
            for slot in 0..<old.count {
                let id = old.geofenceID(at: slot)
                guard let target = old === new ? slot : new.slot(of: id) else {
                    removed.append(id)
                    continue
                }
                newSlots[slot] = Int32(target)
                kept[target] = true
                if old === new || old.fingerprint(at: slot) == new.fingerprint(at: target) {
                    unchanged.append(id)
                } else {
                    changed.append(id)
                }
            }
            self.newSlots = newSlots
            self.removed = removed
            self.changed = changed
            self.unchanged = unchanged
            added = (0..<new.count).filter { !kept[$0] }.map { new.geofenceID(at: $0) }
        }

        /// True when the update changes nothing a tracker sees: no fence added, removed or
        /// changed (properties may still differ).
        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }
    }
}
