import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

/// Argument errors are one line; numeric options take negative values as values; help text
/// wraps cleanly (issue 13 measured failure 7, issue 12 item 10).
@Suite("Arguments and help")
struct ArgumentCLITests {
    static let commands = ["validate", "compile", "contains", "nearest", "plan", "places", "evaluate", "merge"]

    @Test("bad arguments: exit 2 and one line naming the problem and where to look")
    func oneLineErrors() throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = dir.appendingPathComponent("f.geojson").path
            try EvaluateCLITests.fences.write(toFile: fences, atomically: true, encoding: .utf8)
            let fixes = dir.appendingPathComponent("x.csv").path
            try "device_id,timestamp,lat,lon\n".write(toFile: fixes, atomically: true, encoding: .utf8)
            let base = ["evaluate", "--fences", fences, "--fixes", fixes]
            let cases: [([String], String)] = [
                (["evaluate", "--fences", fences], "Missing expected argument '--fixes <fixes>'"),
                (base + ["--bogus"], "Unknown option '--bogus'"),
                (base + ["--dwell", "-1"], "--dwell must be a number of seconds in [0, 10000000000], found -1"),
                (base + ["--dwell=-1"], "--dwell must be a number of seconds in [0, 10000000000], found -1"),
                (base + ["--threads", "-1"], "--threads must be 1 to 256, found -1"),
                (base + ["--ignore-period", "-5"], "--ignore-period must be"),
                (base + ["--stop-radius", "-5"], "--stop-radius must be"),
                (base + ["--ttl", "-1"], "--ttl must be none or a number of seconds in [0, 10000000000], found -1"),
                (["places", "--fences", fences, "--signals", fixes, "--ttl", "1e15"], "--ttl must be none or a number of seconds in [0, 10000000000], found 1e15"),
                (["nearest", "--fences", fences, "--lat=", "5", "--lon", "3", "--count", "1"], "--lat= has no value"),
                (["nearest", "--fences", fences, "--lat", "5", "--lon", "3", "--count", "-2"], "--count must be at least 1, found -2"),
                (["plan", "--fences", fences, "--lat", "5", "--lon", "3", "--platform", "ios", "--reserved", "-1"], "--reserved must be >= 0, found -1"),
                (["plan", "--fences", fences, "--lat", "5", "--lon", "3", "--platform", "ios", "--accuracy=-3"], "--accuracy must be a number of metres >= 0 (inf: anywhere), found -3"),
                (["plan", "--fences", fences, "--lat", "5", "--lon", "3", "--platform", "-5"], "budget -5 is smaller than --reserved 0 + 1"),
                (["plan", "--fences", fences, "--lat", "5", "--lon", "3", "--platform=-5"], "budget -5 is smaller than --reserved 0 + 1"),
                (base + ["--shard", "-1/2"], "--shard must be K/N with 0 <= K < N, got -1/2"),
                (base + ["--shard=-1/2"], "--shard must be K/N with 0 <= K < N, got -1/2"),
            ]
            for (arguments, message) in cases {
                let r = try CLIRunner.run(arguments)
                #expect(r.status == 2, "\(arguments): \(r.stderr)")
                let lines = r.stderr.split(separator: "\n")
                #expect(lines.count == 1, "\(arguments): \(lines.count) lines: \(r.stderr)")
                #expect(r.stderr.hasPrefix("geofence"), "\(arguments): \(r.stderr)")
                #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
            }
            // The same error, whichever way the value is attached.
            let spaced = try CLIRunner.run(base + ["--dwell", "-1"]), attached = try CLIRunner.run(base + ["--dwell=-1"])
            #expect(spaced.stderr == attached.stderr)
            let plan = ["plan", "--fences", fences, "--lat", "5", "--lon", "3"]
            for (spacedArguments, attachedArguments) in [
                (plan + ["--platform", "-5"], plan + ["--platform=-5"]), (base + ["--shard", "-1/2"], base + ["--shard=-1/2"]),
            ] {
                let spaced = try CLIRunner.run(spacedArguments), attached = try CLIRunner.run(attachedArguments)
                #expect(spaced.stderr == attached.stderr, "\(spacedArguments)")
            }
            // A negative value is a value, not an option: accepted where it is in range.
            let west = try CLIRunner.run(["nearest", "--fences", fences, "--lat", "-40.75", "--lon", "-73.98", "--count", "1", "--level", "-1"])
            #expect(west.status == 0, "\(west.stderr)")
            // Fence ids and libraries are free text: one beginning with "-" is a value too.
            let registered = try CLIRunner.run(plan + ["--platform", "ios", "--registered", "-gone,home"])
            #expect(registered.status == 0, "\(registered.stderr)")
            #expect(registered.stdout.contains(#""remove":["-gone"]"#), "\(registered.stdout)")
            let library = try CLIRunner.run(["nearest", "--fences", fences, "--lat", "5", "--lon", "3", "--count", "1", "--library", "-none"])
            #expect(library.status == 0 && library.stdout.isEmpty, "\(library.stderr)")
        }
    }

    /// The width the help is laid out in when standard output is not a terminal.
    static let width = 80

    /// True when `line` could have taken the first word of `next` and still fit (ArgumentParser
    /// wraps after the last space within the width, so a word fits when it and the space
    /// after it do): the break between them is a hard break in the text, which leaves a
    /// short line (an orphan word on `next`'s side when the source line was only a little too
    /// long).
    static func isOrphanBreak(_ line: Substring, _ next: Substring) -> Bool {
        let indent = { (s: Substring) in s.prefix { $0 == " " }.count }
        guard indent(line) == indent(next), !next.drop(while: { $0 == " " }).hasPrefix("-") else { return false }
        let firstWord = next.drop { $0 == " " }.prefix { $0 != " " }
        return line.count + 1 + firstWord.count + 1 <= width
    }

    @Test("help texts wrap cleanly: no hard line breaks inside a paragraph", arguments: commands)
    func helpWraps(command: String) throws {
        let r = try CLIRunner.run([command, "--help"])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count > 5)
        var orphans: [String] = []
        for (a, b) in zip(lines, lines.dropFirst()) where !a.isEmpty && !b.isEmpty && !a.hasPrefix("USAGE:") && Self.isOrphanBreak(a, b) {
            orphans.append("\(a)⏎\(b)")
        }
        #expect(orphans.isEmpty, "\(command) --help: \(orphans.count) short lines, first: \(orphans.first ?? "")")
        // The overview and discussion (lines not indented): no run of spaces inside a line,
        // which a source line continued with its indentation leaves.
        let gaps = lines.filter { !$0.hasPrefix(" ") && !$0.hasPrefix("USAGE:") && $0.contains("   ") }
        #expect(gaps.isEmpty, "\(command) --help: a run of spaces in \(gaps.first ?? "")")
    }
}
