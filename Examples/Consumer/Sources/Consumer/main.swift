// The consumer: the getting-started article's walk-through (WalkThrough.swift), run against the
// small world in data/ (run from Examples/Consumer: `make consumer`), with every answer checked.
// Exit status 0 when every check passes, 1 when one fails or an error is thrown.
import Foundation

let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("geofence-consumer-\(ProcessInfo.processInfo.processIdentifier)")
var checks = Checks()
do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try walkThrough(folder: folder, checks: &checks)
} catch {
    checks.fail("error thrown: \(error)")
}
try? FileManager.default.removeItem(at: folder)
print("\(checks.passed) passed, \(checks.failed) failed")
exit(checks.failed == 0 ? 0 : 1)
