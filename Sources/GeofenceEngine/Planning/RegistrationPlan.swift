import GeofenceGeometry

extension RegistrationPlanner {
    /// How many regions the operating system lets one app monitor at once.
    public enum Budget: Hashable, Sendable, CustomStringConvertible {
        /// iOS Core Location: 20 regions per app.
        case ios
        /// Android Geofencing API: 100 geofences per app (and per device user).
        case android
        /// Any other limit.
        case custom(Int)

        /// The number of regions.
        public var regionLimit: Int {
            switch self {
            case .ios: 20
            case .android: 100
            case .custom(let n): n
            }
        }

        /// `ios`, `android` or a whole number (the CLI's `--platform`); nil for anything else.
        public init?(argument: String) {
            switch argument.lowercased() {
            case "ios": self = .ios
            case "android": self = .android
            default:
                guard let n = Int(argument) else { return nil }
                self = .custom(n)
            }
        }

        public var description: String {
            switch self {
            case .ios: "ios (20)"
            case .android: "android (100)"
            case .custom(let n): "\(n)"
            }
        }
    }
}

extension RegistrationPlan {
    /// A fence to register with the OS, as the circle the OS monitors.
    public struct MonitoredFence: Hashable, Sendable {
        /// The fence's slot in its ``FenceSet``.
        public var slot: Int
        /// The fence's id.
        public var geofenceID: String
        /// A circle fence's own centre, or a polygon's minimum enclosing circle's centre.
        public var center: Coordinate
        /// Metres: the circle's radius, or the polygon's minimum enclosing circle's.
        public var radius: Double
        /// Metres from the fix to the fence's edge (0 inside).
        public var distance: Double
        /// True when the fence counted as holding the device (see ``RegistrationPlanner``).
        public var isInside: Bool
    }
}

extension RegistrationPlan {
    /// The circle whose exit tells the app to plan again: it stops short of every fence not
    /// monitored, so the device cannot enter one without leaving it first.
    public struct RefreshRegion: Hashable, Sendable {
        /// The fix the plan was made for.
        public var center: Coordinate
        /// Metres.
        public var radius: Double
    }
}

/// What to register: the fences to monitor, the refresh region, and the change from what is
/// registered now.
///
/// Apply it as a diff: stop monitoring ``remove``, start monitoring ``add`` (their circles are
/// in ``monitor``), replace the refresh region; then plan again when the OS reports the exit
/// from ``refreshRegion`` (see ``RegistrationPlanner``).
public struct RegistrationPlan: Hashable, Sendable {
    /// Fences holding the device first, then the others (see ``RegistrationPlanner`` for which);
    /// each group by distance, then id.
    public var monitor: [RegistrationPlan.MonitoredFence]
    /// Nil when every fence the filter allows is monitored, so no movement calls for a new plan.
    public var refreshRegion: RegistrationPlan.RefreshRegion?
    /// Ids to register that are not registered now, ascending.
    public var add: [String]
    /// Ids registered now that are no longer wanted, ascending: fences left out, and ids the
    /// fence set does not have (removed by a fence update).
    public var remove: [String]
    /// Fences that hold the device but found no slot (more of them than the budget allows);
    /// empty in any normal plan. Ascending id.
    public var unmonitoredInside: [String]
    /// Metres from the fix to the edge of the nearest fence *not* monitored, before the safety
    /// margin and ``RegistrationPlanner/minimumRefreshRadius``; nil when there is none.
    public var nearestUnmonitoredDistance: Double?

    /// The monitored slots, ascending (the set the next plan's diff starts from).
    public var monitoredSlots: [Int] { monitor.map(\.slot).sorted() }
}

extension RegistrationPlanner {
    /// Why a planner cannot be made, or a slot-form plan cannot be made.
    ///
    /// A bad fix (coordinate or accuracy) is a ``TrackerRejection``, as for the monitor.
    public enum PlanError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The budget leaves no slot for the refresh region after the host app's reserved slots.
        case budgetTooSmall(budget: Int, reserved: Int)
        /// Reserved slots below 0.
        case negativeReserved(Int)
        /// The minimum refresh radius is negative or not finite.
        case invalidMinimumRefreshRadius(Double)
        /// The hysteresis fraction is outside [0, 1) or not a number.
        case invalidHysteresisFraction(Double)
        /// A registered slot outside the fence set (slot form only: unknown *ids* are removed).
        case unknownRegisteredSlot(Int)

        public var description: String {
            switch self {
            case .budgetTooSmall(let budget, let reserved):
                "budget \(budget) is smaller than the reserved slots (\(reserved)) + 1 for the refresh region"
            case .negativeReserved(let k): "reserved slots must be >= 0, found \(k)"
            case .invalidMinimumRefreshRadius(let r): "minimum refresh radius must be a finite number of metres >= 0, found \(r)"
            case .invalidHysteresisFraction(let f): "hysteresis fraction must be in [0, 1), found \(f)"
            case .unknownRegisteredSlot(let slot): "registered slot \(slot) is not a slot of the fence set"
            }
        }
    }
}
