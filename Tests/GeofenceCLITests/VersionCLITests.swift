import Foundation
import GeofenceEngine
import Testing

@Suite("geofence --version")
struct VersionCLITests {
    @Test("prints the package's version, the newest one CHANGELOG.md lists")
    func version() throws {
        let r = try CLIRunner.run(["--version"])
        #expect(r.status == 0 && r.stdoutLines == [GeofenceEngineVersion.current], "\(r.stdout)\(r.stderr)")
        let changelog = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(GeofenceEngineVersion.current) ") == true, "\(newest ?? "none")")
    }
}
