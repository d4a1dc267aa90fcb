/// The state of one device at one fence it has touched (semantics §4, §5).
///
/// Times are milliseconds. A track exists only while it carries information: the device is
/// raw or reported inside, or a quiet window is still open (a flip inside it would restart
/// it). Everything else reads as "outside, never touched", so the tracker keeps its tracks
/// sparse.
struct FenceTrack: Hashable, Sendable {
    var slot: Int32
    /// What the latest fix says (after tolerances and the accuracy buffer).
    var raw: Bool
    /// What the events have said.
    var reported: Bool
    /// Time of the latest raw flip.
    var lastFlip: Int64
    /// End of the quiet window, exclusive: the window is open at `t` when `t < windowEnd`.
    /// `Int64.min` when no event has opened one.
    var windowEnd: Int64
    /// The current (or latest) visit's entrance time.
    var visitStart: Int64
    /// Sequence number of the visit's first fix: the first fix processed once the entrance
    /// had fired (the fix that fired it, or the next one). Stop detection counts from it.
    var visitFirstFix: Int64
    /// Dwell fired this visit, or dwell is disabled for the fence.
    var dwellDone: Bool
    /// venueConfirmed fired this visit.
    var venueDone: Bool
    /// Time of the latest presence event, or the entrance time before the first one.
    var lastPresence: Int64

    /// "No time": no window yet.
    static let never = Int64.min
    /// "Not due".
    static let notDue = Int64.max

    /// A track for a fence the device has just come raw-inside of, never reported.
    init(enteringSlot slot: Int32, at time: Int64) {
        self.slot = slot
        raw = true
        reported = false
        lastFlip = time
        windowEnd = Self.never
        visitStart = time
        visitFirstFix = 0
        dwellDone = false
        venueDone = false
        lastPresence = time
    }

    init(
        slot: Int32, raw: Bool, reported: Bool, lastFlip: Int64, windowEnd: Int64, visitStart: Int64,
        visitFirstFix: Int64, dwellDone: Bool, venueDone: Bool, lastPresence: Int64
    ) {
        self.slot = slot
        self.raw = raw
        self.reported = reported
        self.lastFlip = lastFlip
        self.windowEnd = windowEnd
        self.visitStart = visitStart
        self.visitFirstFix = visitFirstFix
        self.dwellDone = dwellDone
        self.venueDone = venueDone
        self.lastPresence = lastPresence
    }

    /// When the pending entrance or exit falls due: `max(last raw flip, window end)` while
    /// the raw state differs from the reported one (semantics §4), else never.
    @inline(__always)
    var transitionDue: Int64 {
        raw != reported ? Swift.max(lastFlip, windowEnd) : Self.notDue
    }

    /// When the dwell of the current visit falls due, or never.
    @inline(__always)
    func dwellDue(dwellMilliseconds: Int64) -> Int64 {
        reported && !dwellDone ? visitStart.addingSaturated(dwellMilliseconds) : Self.notDue
    }

    /// True when the track says nothing a fresh one would not: outside on both counts and
    /// no window open at `now`.
    @inline(__always)
    func isSettled(at now: Int64) -> Bool {
        !raw && !reported && windowEnd <= now
    }
}

extension Int64 {
    /// `self + other`, clamped to the representable range (timestamps near the ends of
    /// `Int64` must not trap).
    @inline(__always)
    func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if !overflow { return sum }
        return other > 0 ? .max : .min
    }
}
