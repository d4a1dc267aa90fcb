/// Chooses which fences to register with the OS's region monitoring (semantics §7).
///
/// The OS watches a few circles (iOS 20, Android 100, less the host app's own); the engine
/// may hold thousands of fences. A plan, for one fix, registers:
/// 1. every fence that holds the device (always kept: leaving it must be noticed);
/// 2. then other fences, nearest first by edge distance (ties by id), up to
///    budget − reserved − 1, preferring those registered already (the hysteresis below);
/// 3. one **refresh region**: a circle at the fix whose radius is the edge distance to the
///    nearest fence *not* monitored, less a ``refreshMargin`` of 1 m. While the device stays
///    inside it, it cannot touch an unmonitored fence.
///
/// **How to use it: re-plan when the device leaves the refresh region.** Register the plan's
/// fences and its refresh region with the OS. When the OS reports the exit from the refresh
/// region (or the app gets a fix outside it), plan again from there, passing the ids
/// registered now, and apply the diff. The same call syncs after a fence update: registered
/// ids that the new set no longer has come back in ``RegistrationPlan/remove``.
///
/// ```swift
/// let planner = try RegistrationPlanner(budget: .ios, reservedSlots: 2)
/// var registered: [String] = []                  // the fence ids the OS monitors now
/// func replan(latitude: Double, longitude: Double, accuracy: Double) throws -> RegistrationPlan {
///     let plan = try planner.plan(latitude: latitude, longitude: longitude, accuracy: accuracy,
///                                 registered: registered, evaluator: evaluator)
///     // OS: stop monitoring plan.remove; start monitoring plan.add (circles in plan.monitor);
///     // replace the refresh region with plan.refreshRegion (nil: every fence is monitored).
///     registered = plan.monitor.map(\.geofenceID)
///     return plan
/// }
/// // Call replan at start, on the OS's exit from the refresh region, after a fence update,
/// // and when the device changes floor.
/// ```
///
/// **Hysteresis** (``hysteresisFraction`` f; default 0, the contract's plain nearest plan;
/// 0.5 recommended for apps, ``recommendedHysteresisFraction``). A fence registered already
/// stays while it is still among the nearest within a margin, so the OS regions do not churn
/// as the device moves. Let D be the distance to the nearest fence a plan *without* hysteresis
/// would leave out (the largest refresh distance any plan can have). Then:
/// - every fence nearer than (1 − f)·D is monitored (so the refresh region's radius is at
///   least (1 − f)·D − 1 m: the device still moves that far before the next plan);
/// - the remaining slots go to registered fences within D / (1 − f), nearest first;
/// - then to the nearest of the others.
///
/// With f = 0 the plan is exactly the nearest fences (a tie for the last slot goes to a
/// registered fence). Whatever f, the refresh region stops short of every fence not monitored,
/// so no entrance is missed: hysteresis trades refresh radius (more re-plans, each with fewer
/// changes) for fewer adds and removes in all.
///
/// Polygons are registered as their minimum enclosing circle (the OS reports the entry into
/// that circle; the app then tests the polygon itself).
///
/// **Level.** Only the fences the ``NearestFilter`` allows take part, and its `level` is the
/// fix's: a fix on a floor sees the global fences and that floor's fences; a fix without a
/// level sees only global fences (the containment rule, semantics §2). A plan is valid for
/// one level: plan again when the device changes floor.
///
/// **Accuracy** (metres, 0 = exact; +∞ = anywhere). A fence whose edge lies within
/// `accuracy` of the fix may hold the device, so it counts as *inside* for rule 1. Since
/// monitoring is ranked by edge distance anyway, such fences come first in any case; accuracy
/// changes the plan only when more fences are "inside" than there are slots: the budget is
/// never exceeded, the nearest of them are kept, the others are listed in
/// ``RegistrationPlan/unmonitoredInside`` and the refresh region stops short of the nearest
/// of those (radius 0 for one that holds the fix), so the app hears from the OS soon. Accuracy does not shrink the refresh region:
/// the region is centred on the reported fix and never overlaps an unmonitored fence,
/// wherever in the accuracy circle the device really is.
///
/// **Minimum refresh radius** (default 0). Some apps clamp the refresh region to a floor
/// (OSes handle regions under ~100–200 m poorly, and a tiny region means frequent wake-ups).
/// The risk: a fence *nearer* than the clamp and not monitored can then be entered while the
/// device is still inside the refresh region, and that entrance is missed until the next plan.
/// With the default 0 no entrance is missed this way.
///
/// Plans are pure values: the same fence set, fix, budget and registered set give the same
/// plan, and the change is a diff — never remove-everything-then-add.
public struct RegistrationPlanner: Sendable {
    public let budget: RegistrationPlanner.Budget
    /// Slots the host app keeps for its own regions.
    public let reservedSlots: Int
    /// Metres; the refresh radius is never smaller (see the type's documentation for the risk).
    public let minimumRefreshRadius: Double
    /// In [0, 1): how far a plan may favour the fences registered already (see the type's
    /// documentation). 0 = always exactly the nearest fences.
    public let hysteresisFraction: Double

    /// The default ``hysteresisFraction``, 0: a plan holds exactly the nearest fences, as the
    /// behaviour contract (semantics §7) states it. Apps that re-plan often should pass
    /// ``recommendedHysteresisFraction``.
    public static let defaultHysteresisFraction: Double = 0

    /// The fraction apps should use to keep OS region changes few: the refresh radius may
    /// shrink to half the largest possible, and a registered fence stays up to twice that
    /// distance. On the Austin bus replay it cuts adds plus removes per re-plan by 53 %
    /// (budget 20) and 66 % (budget 100), and in all by 28 % and 39 %, for 55 % and 81 % more
    /// re-plans, with no entrance missed (docs/rtree-nearest-planner.md has the figures for
    /// other fractions).
    public static let recommendedHysteresisFraction: Double = 0.5

    /// Metres subtracted from the distance to the nearest unmonitored fence to get the refresh
    /// radius: polygon edge distances are computed within centimetres (never below the true
    /// value by construction, but possibly above it), so 1 m keeps the region clear of it.
    public static let refreshMargin: Double = 1

    /// - Throws: ``RegistrationPlanner/PlanError`` when the budget leaves no slot for the refresh
    ///   region, `reservedSlots` < 0, the minimum radius is negative or not finite, or the
    ///   hysteresis fraction is outside [0, 1).
    public init(
        budget: RegistrationPlanner.Budget, reservedSlots: Int = 0, minimumRefreshRadius: Double = 0,
        hysteresisFraction: Double = RegistrationPlanner.defaultHysteresisFraction
    ) throws(RegistrationPlanner.PlanError) {
        guard reservedSlots >= 0 else { throw .negativeReserved(reservedSlots) }
        guard reservedSlots < budget.regionLimit else {
            throw .budgetTooSmall(budget: budget.regionLimit, reserved: reservedSlots)
        }
        guard minimumRefreshRadius.isFinite, minimumRefreshRadius >= 0 else {
            throw .invalidMinimumRefreshRadius(minimumRefreshRadius)
        }
        guard hysteresisFraction >= 0, hysteresisFraction < 1 else {
            throw .invalidHysteresisFraction(hysteresisFraction)
        }
        self.budget = budget
        self.reservedSlots = reservedSlots
        self.minimumRefreshRadius = minimumRefreshRadius
        self.hysteresisFraction = hysteresisFraction
    }

    /// Fences a plan can monitor: the budget less the reserved slots and the refresh region.
    public var fenceSlots: Int { budget.regionLimit - reservedSlots - 1 }
}
