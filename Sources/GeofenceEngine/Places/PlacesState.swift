/// One device's Places states (semantics §6, Adobe Places): the entered fences with their
/// entry times, the current POI, the last entered and the last exited POI, and their TTL.
///
/// Fences are named by slot in the ``FenceSet`` given to each call. Signals are applied as
/// given, with no geometry test and no check of time order (``DeviceTracker`` checks order).
///
/// - Membership TTL: the three states are valid through `lastUpdate + TTL` (inclusive), where
///   `lastUpdate` is the time of the latest entry, exit or recalculation; a signal later than
///   that first clears them (``expire(at:)``), and reads at a later time see none
///   (``reading(at:fences:)``). The entered set never expires.
/// - A repeated entry for an entered fence moves its entry time to the new signal's and
///   makes it the last entered. An exit for a fence not entered still makes it the last
///   exited (applied as given).
package struct PlacesState: Hashable, Sendable {
    /// An entered fence and when it was entered.
    package struct Entry: Hashable, Sendable {
        package var slot: Int32
        package var since: Timestamp

        package init(slot: Int32, since: Timestamp) {
            self.slot = slot
            self.since = since
        }
    }

    /// TTL in seconds; nil = the states never expire.
    package var membershipTTL: Double? {
        didSet { ttlMilliseconds = membershipTTL.map(TrackerConfiguration.milliseconds) }
    }
    private var ttlMilliseconds: Int64?
    /// The entered fences, ascending by slot (so by id).
    package internal(set) var entered: [Entry] = []
    /// The current POI as of the latest signal (not checked against the TTL).
    package internal(set) var current: Int32?
    /// The fence of the latest entry, as of the latest signal.
    package internal(set) var lastEntered: Int32?
    /// The fence of the latest exit, as of the latest signal.
    package internal(set) var lastExited: Int32?
    /// Time of the latest entry, exit or recalculation.
    package internal(set) var lastUpdate: Timestamp?

    /// Empty states. - Parameter membershipTTL: seconds (≥ 0), nil for never.
    package init(membershipTTL: Double? = 3600) {
        self.membershipTTL = membershipTTL
        ttlMilliseconds = membershipTTL.map(TrackerConfiguration.milliseconds)
    }

    /// The last time at which the states are valid, or nil when they never expire (or no
    /// signal has come yet).
    package var validUntil: Timestamp? {
        guard let ttl = ttlMilliseconds, let last = lastUpdate else { return nil }
        return Timestamp(milliseconds: last.milliseconds.addingSaturated(ttl))
    }

    /// True when the states have expired at `time`.
    package func isExpired(at time: Timestamp) -> Bool {
        guard let until = validUntil else { return false }
        return time > until
    }

    /// Clears current, last entered and last exited when they have expired at `time`.
    /// Applied before each new signal.
    package mutating func expire(at time: Timestamp) {
        if isExpired(at: time) {
            current = nil
            lastEntered = nil
            lastExited = nil
        }
    }

    /// Whether the fence in `slot` is in the entered set.
    package func isEntered(_ slot: Int32) -> Bool { index(of: slot).found }

    /// Index of `slot` in `entered`, or where it would go.
    func index(of slot: Int32) -> (index: Int, found: Bool) {
        var low = 0, high = entered.count
        while low < high {
            let mid = (low + high) / 2
            if entered[mid].slot < slot { low = mid + 1 } else { high = mid }
        }
        return (low, low < entered.count && entered[low].slot == slot)
    }

    /// An entry signal: expiry, then the fence joins the entered set (or its entry time
    /// moves), becomes the last entered, and the current POI is chosen again.
    /// - Complexity: O(e) for e entered fences.
    package mutating func enter(_ slot: Int32, at time: Timestamp, fences: FenceSet) {
        expire(at: time)
        let (index, found) = self.index(of: slot)
        if found {
            entered[index].since = time
        } else {
            entered.insert(Entry(slot: slot, since: time), at: index)
        }
        lastEntered = slot
        lastUpdate = time
        current = Self.currentByEntry(entered, fences: fences)
    }

    /// An exit signal: expiry, then the fence leaves the entered set, becomes the last
    /// exited, and the current POI is chosen again.
    /// - Complexity: O(e).
    package mutating func exit(_ slot: Int32, at time: Timestamp, fences: FenceSet) {
        expire(at: time)
        let (index, found) = self.index(of: slot)
        if found { entered.remove(at: index) }
        lastExited = slot
        lastUpdate = time
        current = Self.currentByEntry(entered, fences: fences)
    }

    /// A nearby recalculation: expiry, then the entered set becomes exactly `containing`
    /// (fences already entered keep their entry time, the others are entered at `time`),
    /// and the current POI is chosen by the nearby rule (distance from `position` to the
    /// fence's centre). Last entered and last exited do not change (no events), but the
    /// TTL restarts.
    /// - Complexity: O(e + c log c) for c containing fences.
    package mutating func recalculate(containing: [Int32], position: Coordinate, at time: Timestamp, fences: FenceSet) {
        expire(at: time)
        var next: [Entry] = []
        next.reserveCapacity(containing.count)
        for slot in containing.sorted() where next.last?.slot != slot {
            let (index, found) = self.index(of: slot)
            next.append(Entry(slot: slot, since: found ? entered[index].since : time))
        }
        entered = next
        lastUpdate = time
        current = Self.currentByDistance(entered, from: position, fences: fences)
    }

    /// The states as they read at `time` (expired ones read none), with fence ids.
    package func reading(at time: Timestamp, fences: FenceSet) -> PlacesReading {
        let expired = isExpired(at: time)
        func id(_ slot: Int32?) -> String? {
            guard !expired, let slot else { return nil }
            return fences.geofenceID(at: Int(slot))
        }
        return PlacesReading(
            current: id(current), lastEntered: id(lastEntered), lastExited: id(lastExited),
            entered: entered.map { fences.geofenceID(at: Int($0.slot)) })
    }
}

/// The Places states of a device at one time, by fence id.
public struct PlacesReading: Hashable, Sendable {
    public var current: String?
    public var lastEntered: String?
    public var lastExited: String?
    /// Entered fences, ascending by id (UTF-8 byte order).
    public var entered: [String]

    public init(current: String?, lastEntered: String?, lastExited: String?, entered: [String]) {
        self.current = current
        self.lastEntered = lastEntered
        self.lastExited = lastExited
        self.entered = entered
    }
}
