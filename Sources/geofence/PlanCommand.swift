import ArgumentParser
import GeofenceEngine

/// `geofence plan`: which fences to register with the OS's region monitoring now.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Plan the OS region registrations for a position (one JSON object).",
        discussion: """
            Output: {"monitor":[{"geofenceId":"..","lat":..,"lon":..,"radius":..}], \
            "refreshRegion":{"lat":..,"lon":..,"radius":..},"add":[..],"remove":[..]}

            monitor: every fence holding the position first (within --accuracy of it counts), \
            then the nearest others by edge distance, up to budget - reserved - 1 fences; each \
            as the circle the OS watches (a polygon as its minimum enclosing circle; radius in \
            metres, rounded up to the millimetre). refreshRegion: a circle at the position whose \
            radius (metres, rounded down) stops 1 m short of the nearest fence not monitored; \
            re-plan when the OS reports leaving it. It is null when every fence is monitored.

            add/remove: the change from --registered, ids ascending (never remove-all-then-add; \
            the refresh region itself is replaced on every plan and is not in the diff). \
            Registered ids the fence file no longer has are in remove, so one call syncs the \
            OS regions after a fence update.

            Hysteresis: fences in --registered are preferred while they are among the nearest \
            within the margin --hysteresis-fraction f: every fence nearer than (1 - f) D is \
            monitored, D being the distance to the nearest fence left out without hysteresis; \
            registered fences within D / (1 - f) keep the other slots. f = 0 (the default): \
            exactly the nearest fences; 0.5 is recommended for apps that re-plan often.

            Use: register the plan; when the OS reports leaving the refresh region, plan again \
            there with --registered set to the monitored ids.

            Levels: without --level only global fences; with --level L, global fences and \
            those on level L.
            """
    )

    @OptionGroup var position: PositionArguments
    var fences: String { position.fences }
    var lat: Double { position.lat }
    var lon: Double { position.lon }

    // Options whose value may begin with "-" (a negative number, an id) parse `.unconditional`ly:
    // `--platform -5` is the value -5 (and its range error), not a missing value.

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Horizontal accuracy of the position, metres; fences within it count as holding the device.", valueName: "metres"))
    var accuracy: Double = 0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Region budget: ios (20), android (100) or a number of regions.", valueName: "ios|android|N"))
    var platform: String

    @Option(name: .long, parsing: .unconditional, help: "Regions the host app keeps for itself.")
    var reserved: Int = 0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Fence ids registered now, comma-separated. Default: none.", valueName: "id,id,..."))
    var registered: String = ""

    @Option(name: .long, parsing: .unconditional, help: "The position's floor (integer). Default: none, so only global fences.")
    var level: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Smallest refresh radius, metres. Above 0 it risks missing an unmonitored fence nearer than it.", valueName: "metres"))
    var minimumRefreshRadius: Double = 0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How far registered fences are preferred, in [0, 1); 0 = always the nearest fences.", valueName: "fraction"))
    var hysteresisFraction: Double = RegistrationPlanner.defaultHysteresisFraction

    @Flag(name: .long, help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    /// The parsed budget (valid after `validate()`).
    var budget: RegistrationPlanner.Budget { RegistrationPlanner.Budget(argument: platform) ?? .custom(0) }

    /// The ids of --registered, in order.
    var registeredIDs: [String] { registered.isEmpty ? [] : registered.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }

    func validate() throws {
        guard let budget = RegistrationPlanner.Budget(argument: platform) else {
            throw ValidationError("--platform must be ios, android or a number of regions, found \(platform)")
        }
        guard accuracy >= 0 else { throw ValidationError("--accuracy must be a number of metres >= 0 (inf: anywhere), found \(accuracy)") }
        guard reserved >= 0 else { throw ValidationError("--reserved must be >= 0, found \(reserved)") }
        guard reserved < budget.regionLimit else {
            throw ValidationError("budget \(budget.regionLimit) is smaller than --reserved \(reserved) + 1 (the refresh region needs a slot)")
        }
        guard minimumRefreshRadius.isFinite, minimumRefreshRadius >= 0 else {
            throw ValidationError("--minimum-refresh-radius must be a number of metres >= 0, found \(minimumRefreshRadius)")
        }
        guard hysteresisFraction >= 0, hysteresisFraction < 1 else {
            throw ValidationError("--hysteresis-fraction must be in [0, 1), found \(hysteresisFraction)")
        }
        if registeredIDs.contains("") { throw ValidationError("--registered has an empty id (ids are separated by single commas)") }
    }

    func run() throws {
        let fenceSet = try FenceLoading.load(path: fences, repair: repair)
        let plan: RegistrationPlan
        do {
            let planner = try RegistrationPlanner(
                budget: budget, reservedSlots: reserved, minimumRefreshRadius: minimumRefreshRadius,
                hysteresisFraction: hysteresisFraction)
            let evaluator = try ContainmentEvaluator(fenceSet: fenceSet)
            plan = try planner.plan(
                latitude: lat, longitude: lon, accuracy: accuracy, filter: NearestFilter(level: level),
                registered: registeredIDs, evaluator: evaluator)
        } catch {
            throw CLIError("\(error)")
        }
        if !plan.unmonitoredInside.isEmpty {
            FileHandleText.standardError("geofence: warning: \(plan.unmonitoredInside.count) fence(s) holding the position do not fit the budget and are not monitored: \(plan.unmonitoredInside.joined(separator: ","))\n")
        }
        var text: [UInt8] = Array("{\"monitor\":[".utf8)
        for (i, f) in plan.monitor.enumerated() {
            if i > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: "{\"geofenceId\":".utf8)
            JSONWriter.writeString(f.geofenceID, to: &text)
            text.append(contentsOf: ",\"lat\":\(CLINumber.degrees(f.center.latitude)),\"lon\":\(CLINumber.degrees(f.center.longitude))".utf8)
            text.append(contentsOf: ",\"radius\":\(CLINumber.millimetres(f.radius, rounding: .up))}".utf8)
        }
        text.append(contentsOf: "],\"refreshRegion\":".utf8)
        if let region = plan.refreshRegion {
            text.append(contentsOf: "{\"lat\":\(CLINumber.degrees(region.center.latitude)),\"lon\":\(CLINumber.degrees(region.center.longitude))".utf8)
            text.append(contentsOf: ",\"radius\":\(CLINumber.millimetres(region.radius, rounding: .down))}".utf8)
        } else {
            text.append(contentsOf: "null".utf8)
        }
        for (name, ids) in [("add", plan.add), ("remove", plan.remove)] {
            text.append(contentsOf: ",\"\(name)\":[".utf8)
            for (i, id) in ids.enumerated() {
                if i > 0 { text.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(id, to: &text)
            }
            text.append(UInt8(ascii: "]"))
        }
        text.append(contentsOf: "}\n".utf8)
        try CLIError.reporting {
            let out = OutputSink.standardOutput()
            try out.write(text)
            try out.flush()
        }
    }
}
