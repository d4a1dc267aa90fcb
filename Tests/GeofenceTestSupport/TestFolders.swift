import Foundation
import GeofenceEngine

/// Temporary folders for tests, all inside one folder per test process that is removed when
/// the process exits: a test that forgets, or fails before, its own cleanup leaves nothing
/// behind in the system's temporary folder.
public enum TestFolders {
    /// `<system temporary folder>/geofence-tests-<pid>`, created on first use.
    public static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-tests-\(Platform.processID)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        Platform.atExit { try? FileManager.default.removeItem(at: TestFolders.root) }
        return url
    }()

    /// A fresh, empty folder inside ``root``, named `<label>-<uuid>`.
    public static func make(_ label: String) throws -> URL {
        let url = root.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `body` with a fresh folder and removes the folder afterwards.
    public static func with<T>(_ label: String, _ body: (URL) throws -> T) throws -> T {
        let url = try make(label)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }
}
