import Testing
@testable import geofence

/// `geofence` parses the named subcommand alone before parsing from the root (the root's
/// parse reflects every subcommand first: 2.3 of the 11.6 ms a command that fails at once
/// takes). The two must agree, and help and errors must always come from the root's parse.
@Suite("Subcommand parsed alone")
struct SubcommandParseTests {
    @Test("a subcommand parsed alone is what the root's parse gives")
    func sameCommand() throws {
        let valid: [[String]] = [
            ["contains", "--fences", "a.geojson", "--fixes", "b.csv", "--threads", "3", "--output", "o.ndjson"],
            ["contains", "--fixes=b.csv", "--fences=a.geojson", "--repair"],
            ["nearest", "--fences", "f.geojson", "--lat", "-40.75", "--lon", "-73.98", "--count", "2"],
            ["validate", "--fences", "f.geojson"],
            ["compile", "--fences", "f.geojson", "--output", "f.fences"],
            ["evaluate", "--fences", "f.geojson", "--fixes", "x.csv", "--dwell", "30", "--threads", "2", "--shard", "1/3"],
            ["plan", "--fences", "f.geojson", "--lat", "5", "--lon", "3", "--platform", "ios", "--reserved", "2"],
            ["places", "--fences", "f.geojson", "--signals", "s.csv", "--ttl", "none"],
            ["merge", "a.ndjson", "b.ndjson", "--output", "m.ndjson"],
        ]
        for arguments in valid {
            let alone = try #require(Geofence.parseSubcommandAlone(arguments), "\(arguments)")
            let root = try Geofence.parseAsRoot(arguments)
            #expect(type(of: alone) == type(of: root), "\(arguments)")
            #expect(String(describing: alone) == String(describing: root), "\(arguments)")
        }
    }

    @Test("every subcommand names itself, so the fast path reaches each one")
    func everySubcommandNamed() {
        for type in Geofence.configuration.subcommands {
            #expect(type.configuration.commandName != nil, "\(type) has no commandName")
        }
    }

    @Test("help, unknown commands and bad arguments are left to the root's parse")
    func leftToTheRoot() {
        let others: [[String]] = [
            [], ["help", "contains"], ["contains", "--help"], ["contains", "-h"], ["contains", "help"],
            ["bogus", "--fences", "a"], ["contains", "--fences", "a.geojson"],
            ["contains", "--fences", "a", "--fixes", "b", "--threads", "0"], ["contains", "--fences", "a", "--fixes", "b", "--bogus"],
            ["--generate-completion-script", "bash"], ["contains", "--generate-completion-script", "bash"],
        ]
        for arguments in others { #expect(Geofence.parseSubcommandAlone(arguments) == nil, "\(arguments)") }
    }
}
