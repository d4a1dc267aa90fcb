import ArgumentParser
import GeofenceEngine

/// `geofence places`: replays a log of OS signals and prints each device's Places states
/// after every row.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Replay OS region signals and print each device's Places states after every row (NDJSON).",
        discussion: """
            Signals: CSV with the header timestamp,device_id,signal,geofence_id,lat,lon (any \
            column order; optional level and accuracy columns are used by nearby); timestamp \
            as epoch milliseconds or ISO-8601 with a zone. signal is entry or exit (needs \
            geofence_id; applied as given, no geometry test) or nearby (needs lat,lon; the \
            entered set becomes the fences containing the point). Rows apply in input order.

            Output: one line per data row, {"row":N,"deviceId":"..","current":.., \
            "lastEntered":..,"lastExited":..,"entered":[..]} (states right after the row; \
            null when none or expired; entered sorted by id), or {"row":N,"error":".."} for a \
            bad row, which changes nothing: unreadable (parse), a field that is not UTF-8 \
            (encoding), a line longer than 1 MiB (lineLength), an unknown fence id \
            (unknownFence), a bad coordinate or accuracy, or a time earlier than the \
            device's previous row (order). From a pipe that goes quiet (a live feed: \
            --signals /dev/stdin), each row's states are written as soon as it is read.
            """
    )

    @Option(name: .long, help: "Fences: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file.")
    var fences: String

    @Option(name: .long, help: "CSV file of signals.")
    var signals: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Membership TTL in seconds, or none (default 3600).", valueName: "seconds|none"))
    var ttl: String?

    @Option(name: .long, help: "Write the NDJSON here instead of standard output.")
    var output: String?

    @Flag(name: .long, help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    /// The TTL: seconds, or nil for none.
    func membershipTTL() throws(ValidationError) -> Double? {
        guard let ttl else { return TrackerConfiguration().membershipTTL }
        return try ArgumentCheck.membershipTTL(ttl)
    }

    func validate() throws { _ = try membershipTTL() }

    func run() throws {
        try OutputFiles.refuseOverlap(outputs: [("--output", output)], inputs: [("--fences", fences), ("--signals", signals)])
        let fenceSet = try FenceLoading.load(path: fences, repair: repair)
        let context: TrackerContext
        let evaluator: ContainmentEvaluator
        let reader: LineBlockReader
        do {
            context = try TrackerContext(fenceSet: fenceSet, configuration: TrackerConfiguration(membershipTTL: membershipTTL()))
            evaluator = try ContainmentEvaluator(fenceSet: fenceSet)
            reader = try LineBlockReader(path: signals)
        } catch {
            throw CLIError("\(error)")
        }
        // Opened once the header line is read and good.
        var out: OutputSink? = nil
        var replay = PlacesReplay(context: context, evaluator: evaluator)
        var header: SignalCSVHeader? = nil
        var tally = RowTally()
        try CLIError.reporting {
            try reader.forEachLine({ base, start, end, lineNumber in
                let line = Array(UnsafeBufferPointer(start: base + start, count: end - start))
                guard let columns = header else {
                    do { header = try SignalCSVHeader(line: line) } catch let problem as SignalCSVProblem {
                        throw CLIError("\(signals): line \(lineNumber): \(problem.reason)")
                    }
                    out = try output.map { try OutputSink(path: $0) } ?? .standardOutput()
                    return
                }
                if line.isEmpty || line == [0x0D] {
                    tally.blankLines += 1
                    return
                }
                tally.read += 1
                var text: [UInt8] = []
                text.append(contentsOf: "{\"row\":\(tally.read),".utf8)
                switch replay.apply(line: line, header: columns) {
                case .success(let (deviceID, reading)):
                    tally.answered += 1
                    Self.write(deviceID: deviceID, reading: reading, to: &text)
                case .failure(let failure):
                    tally.reject(failure.reason)
                    text.append(contentsOf: "\"error\":".utf8)
                    JSONWriter.writeString("\(failure.reason): line \(lineNumber): \(failure.detail)", to: &text)
                }
                text.append(contentsOf: "}\n".utf8)
                try out!.write(text)
            }, overlongLine: { lineNumber, bytes in
                guard header != nil else {
                    throw CLIError("\(signals): line 1: the header line has \(bytes) bytes or more, longer than the maximum of \(reader.maximumLineBytes) (is this a CSV text file?)")
                }
                tally.read += 1
                tally.reject("lineLength")
                var text: [UInt8] = Array("{\"row\":\(tally.read),\"error\":".utf8)
                JSONWriter.writeString("lineLength: line \(lineNumber): \(bytes) bytes or more, longer than the maximum of \(reader.maximumLineBytes)", to: &text)
                text.append(contentsOf: "}\n".utf8)
                try out!.write(text)
            }, beforeWaiting: {
                // A live feed's states reach the output before the wait for more signals.
                try out?.flush()
            })
            if header == nil {
                throw CLIError("\(signals): empty file (expected the header timestamp,device_id,signal,geofence_id,lat,lon)")
            }
            try out!.commit()
        }
        FileHandleText.standardError(tally.summary(file: signals) + "\n")
    }

    /// The members after `"row":N,` of a good row.
    static func write(deviceID: String, reading: PlacesReading, to text: inout [UInt8]) {
        func optional(_ id: String?) {
            if let id { JSONWriter.writeString(id, to: &text) } else { text.append(contentsOf: "null".utf8) }
        }
        text.append(contentsOf: "\"deviceId\":".utf8)
        JSONWriter.writeString(deviceID, to: &text)
        text.append(contentsOf: ",\"current\":".utf8)
        optional(reading.current)
        text.append(contentsOf: ",\"lastEntered\":".utf8)
        optional(reading.lastEntered)
        text.append(contentsOf: ",\"lastExited\":".utf8)
        optional(reading.lastExited)
        text.append(contentsOf: ",\"entered\":[".utf8)
        for (k, id) in reading.entered.enumerated() {
            if k > 0 { text.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(id, to: &text)
        }
        text.append(UInt8(ascii: "]"))
    }
}

/// The devices' trackers of one replay, fed row by row.
struct PlacesReplay {
    struct Failure: Error {
        var reason: String
        var detail: String
    }

    let context: TrackerContext
    let evaluator: ContainmentEvaluator
    var trackers: [String: DeviceTracker] = [:]

    init(context: TrackerContext, evaluator: ContainmentEvaluator) {
        self.context = context
        self.evaluator = evaluator
    }

    /// Applies one data row; the device's states right after it, or why the row is bad (and
    /// then nothing changed).
    mutating func apply(line: [UInt8], header: SignalCSVHeader) -> Result<(String, PlacesReading), Failure> {
        let row: SignalCSVRow
        do { row = try SignalCSVRow(line: line, header: header) } catch {
            return .failure(Failure(reason: error.isEncoding ? "encoding" : "parse", detail: error.reason))
        }
        var tracker = trackers[row.deviceID] ?? DeviceTracker(context: context)
        do {
            switch row.signal {
            case .entry(let id): try tracker.apply(.entry(id, at: row.timestamp))
            case .exit(let id): try tracker.apply(.exit(id, at: row.timestamp))
            case .nearby(let fix):
                let observation: FixObservation
                do { observation = try context.observe(fix, using: evaluator) } catch {
                    return .failure(Failure(reason: "geos", detail: "\(error)"))
                }
                try tracker.recalculateNearby(observation)
            }
        } catch {
            return .failure(Failure(reason: error.reason.rawValue, detail: error.detail))
        }
        trackers[row.deviceID] = tracker
        return .success((row.deviceID, tracker.placesReading(at: row.timestamp)))
    }
}
