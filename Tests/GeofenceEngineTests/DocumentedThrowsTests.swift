import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// What each public entry point throws for its documented bad inputs, checked twice: the
/// error really thrown is of the documented type, and the entry point's doc comment names
/// that type on its `- Throws:` lines. One error type per problem: a fix refused is a
/// `TrackerRejection` wherever it is refused, a bad position given to a geometry query is a
/// `CoordinateError`, any file is a `FileError`.
@Suite("Documented throws")
struct DocumentedThrowsTests {
    typealias F = EventsFixtures

    /// The `///` lines right above the first line of `file` containing `signature`.
    static func docComment(_ file: String, _ signature: String) throws -> String {
        let text = try String(contentsOf: CLIRoot.url.appendingPathComponent(file), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard var at = lines.firstIndex(where: { $0.contains(signature) }) else { return "" }
        // The declaration starts at the nearest line above (or at) the signature that is `public`.
        while at > 0, !lines[at].trimmingCharacters(in: .whitespaces).hasPrefix("public") { at -= 1 }
        var k = at - 1
        var doc: [String] = []
        while k >= 0, lines[k].trimmingCharacters(in: .whitespaces).hasPrefix("///") || lines[k].trimmingCharacters(in: .whitespaces).hasPrefix("@") {
            doc.insert(lines[k], at: 0)
            k -= 1
        }
        return doc.joined(separator: "\n")
    }

    /// One entry point: its file and signature, the type its docs must name, and a call
    /// with a bad input that must throw that type.
    struct Case {
        var file: String
        var signature: String
        var documented: String
        var call: () throws -> Void
        var check: (any Error) -> Bool
    }

    static func cases(_ dir: URL) throws -> [Case] {
        let fences = try FenceSet([F.circle("a", radius: 100)])
        let evaluator = try ContainmentEvaluator(fenceSet: fences)
        let context = try TrackerContext(fenceSet: fences)
        let planner = try RegistrationPlanner(budget: .ios)
        let monitor = try GeofenceMonitor(fenceSet: fences)
        _ = try monitor.update(F.fix(10, east: 0))
        let other = try FenceSet([F.circle("b", radius: 5)])
        let missing = dir.appendingPathComponent("missing").path
        let garbage = dir.appendingPathComponent("garbage.fences").path
        try Data("not fences".utf8).write(to: URL(fileURLWithPath: garbage))
        let c = "Sources/GeofenceEngine/"
        func isRejection(_ reason: TrackerRejection.Reason) -> (any Error) -> Bool { { ($0 as? TrackerRejection)?.reason == reason } }
        return [
            Case(file: c + "Containment/ContainmentEvaluator+Queries.swift", signature: "public func containingIDs(", documented: "CoordinateError",
                 call: { _ = try evaluator.containingIDs(latitude: 91, longitude: 0) }, check: { $0 is CoordinateError }),
            Case(file: c + "Containment/ContainmentEvaluator+Queries.swift", signature: "public func nearest(", documented: "NearestCountError",
                 call: { _ = try evaluator.nearest(latitude: 0, longitude: 0, count: -1) }, check: { $0 is ContainmentEvaluator.NearestCountError }),
            Case(file: c + "Events/GeofenceMonitor.swift", signature: "public func update(_ fix: Fix)", documented: "TrackerRejection",
                 call: { _ = try monitor.update(Fix(timestamp: F.time(20), latitude: 91, longitude: 0)) }, check: isRejection(.coordinate)),
            Case(file: c + "Events/GeofenceMonitor.swift", signature: "public func update(_ fix: Fix)", documented: "TrackerRejection",
                 call: { _ = try monitor.update(F.fix(5, east: 0)) }, check: isRejection(.order)),
            Case(file: c + "Events/GeofenceMonitor.swift", signature: "public func recalculateNearby(", documented: "TrackerRejection",
                 call: { _ = try monitor.recalculateNearby(Fix(timestamp: F.time(30), latitude: 0, longitude: 200)) }, check: isRejection(.coordinate)),
            Case(file: c + "Planning/RegistrationPlanner+Plan.swift", signature: "registered: [String], evaluator", documented: "TrackerRejection",
                 call: { _ = try planner.plan(latitude: 91, longitude: 0, registered: [], evaluator: evaluator) }, check: isRejection(.coordinate)),
            Case(file: c + "Planning/RegistrationPlanner+Plan.swift", signature: "registered: [String], evaluator", documented: "TrackerRejection",
                 call: { _ = try planner.plan(latitude: 0, longitude: 0, accuracy: -1, registered: [], evaluator: evaluator) }, check: isRejection(.accuracy)),
            Case(file: c + "Planning/RegistrationPlanner+Plan.swift", signature: "registeredSlots: [Int], evaluator", documented: "PlanError",
                 call: { _ = try planner.plan(latitude: 0, longitude: 0, registeredSlots: [7], evaluator: evaluator) }, check: { $0 is RegistrationPlanner.PlanError }),
            Case(file: c + "Events/TrackerContext.swift", signature: "public func observe(_ fix: Fix, using evaluator: ContainmentEvaluator) throws", documented: "wrongFenceSet",
                 call: { _ = try context.observe(F.fix(0, east: 0), using: ContainmentEvaluator(fenceSet: other)) }, check: isRejection(.wrongFenceSet)),
            Case(file: c + "Updates/DeviceTracker+FenceUpdate.swift", signature: "public mutating func apply(_ update: FenceUpdate) throws", documented: "wrongFenceSet",
                 call: {
                     var tracker = DeviceTracker(context: context)
                     _ = try tracker.apply(FenceUpdate(from: TrackerContext(fenceSet: other), to: fences, at: F.time(0)))
                 }, check: isRejection(.wrongFenceSet)),
            Case(file: c + "Events/DeviceTracker.swift", signature: "public init(fenceSet: FenceSet, configuration:", documented: "TrackerConfigurationError",
                 call: { _ = try DeviceTracker(fenceSet: fences, configuration: TrackerConfiguration(ignorePeriod: -1)) }, check: { $0 is TrackerConfigurationError }),
            Case(file: c + "Fences/FenceSet.swift", signature: "public convenience init(_ fences: [Fence]", documented: "FenceValidationError",
                 call: { _ = try FenceSet([F.circle("a", radius: 1), F.circle("a", radius: 2)]) }, check: { $0 is FenceValidationError }),
            Case(file: c + "Fences/FenceSet+Loading.swift", signature: "public static func load(path:", documented: "FileError",
                 call: { _ = try FenceSet.load(path: missing) }, check: { $0 is FileError }),
            Case(file: c + "Fences/FenceSet+Compiled.swift", signature: "public static func open(path:", documented: "FileError",
                 call: { _ = try FenceSet.open(path: garbage) }, check: { $0 is FileError }),
            Case(file: c + "Fixes/FixLines.swift", signature: "public static func read(", documented: "FileError",
                 call: { _ = try FixLines.read(Array("no,header\n".utf8), format: .csv, name: "body") }, check: { ($0 as? FileError)?.path == "body" }),
            Case(file: c + "Fences/FenceSet+Compiled.swift", signature: "public func write(to path: String) throws", documented: "FileError",
                 call: { try fences.write(to: missing + "/no/such/folder/x.fences") }, check: { $0 is FileError }),
            Case(file: c + "Fences/FenceSet+Bytes.swift", signature: "public static func load(bytes:", documented: "FileError",
                 call: { _ = try FenceSet.load(bytes: Array("\u{1}".utf8)) }, check: { $0 is FileError || $0 is FenceValidationError }),
            Case(file: c + "Persistence/DeviceTracker+EncodedState.swift", signature: "public init(encodedState", documented: "SnapshotError",
                 call: { _ = try DeviceTracker(encodedState: [0xB1, 1, 2], context: TrackerContext(fenceSet: fences)) }, check: { $0 is SnapshotError }),
            Case(file: c + "Persistence/SnapshotStore.swift", signature: "public static func read<", documented: "SnapshotError",
                 call: { _ = try SnapshotStore.read(DeviceSnapshot.self, from: missing) }, check: { $0 is SnapshotError }),
            Case(file: c + "Batch/BatchEvaluator.swift", signature: "public func run(fixes path: String, output: String", documented: "FileError",
                 call: { _ = try BatchEvaluator(fenceSet: fences, options: BatchOptions()).run(fixes: missing, output: missing + ".out") },
                 check: { $0 is FileError }),
        ]
    }

    @Test("each entry point throws the type its documentation names, for its documented bad input")
    func documentedThrows() throws {
        let dir = try TestFolders.make("documented-throws")
        defer { try? FileManager.default.removeItem(at: dir) }
        for c in try Self.cases(dir) {
            let doc = try Self.docComment(c.file, c.signature)
            let throwsLines = doc.split(separator: "\n").drop { !$0.contains("- Throws:") }.prefix { !$0.contains("- Complexity") && !$0.contains("- Returns") }
            #expect(throwsLines.joined().contains(c.documented), "\(c.signature): the docs' Throws do not name \(c.documented):\n\(doc)")
            do {
                try c.call()
                Issue.record("\(c.signature): nothing thrown")
            } catch {
                #expect(c.check(error), "\(c.signature): threw \(type(of: error)) \(error), documented \(c.documented)")
            }
        }
    }

    @Test("the public API has at most 45 top-level types")
    func publicTypeCount() throws {
        var names = Set<String>()
        for module in ["Sources/GeofenceEngine", "Sources/GeofenceGeometry"] {
            let root = CLIRoot.url.appendingPathComponent(module)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
            for file in files where file.pathExtension == "swift" {
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                    let words = line.split(separator: " ")
                    // Top level: no indentation; `public` then a type keyword.
                    if line.hasPrefix("public "), words.count >= 3, ["struct", "enum", "class", "protocol", "typealias", "actor", "final"].contains(words[1]) {
                        let name = words[1] == "final" ? words[3] : words[2]
                        names.insert(String(name.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
                    }
                }
            }
        }
        #expect(names.count >= 30 && names.count <= 45, "\(names.count) public top-level types: \(names.sorted())")
    }
}

/// The repository's root, from this file's place in it.
enum CLIRoot {
    static var url: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
}
