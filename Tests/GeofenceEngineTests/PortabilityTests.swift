import Foundation
import Testing

/// The package builds on Linux and macOS; this machine builds only the first, so these tests
/// guard what would break the second without anyone noticing here.
@Suite("Portability")
struct PortabilityTests {
    /// The package's root folder (this file is `Tests/GeofenceEngineTests/PortabilityTests.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The files allowed to talk to the C library directly: one per module.
    static let platformFiles: Set<String> = ["Sources/GeofenceEngine/Platform/Platform.swift"]

    /// Every Swift file under the folders of code that ships or builds here, relative to the root.
    static func swiftFiles() throws -> [String] {
        var found: [String] = []
        for folder in ["Sources", "Benchmarks", "Tests", "Examples", "Fuzz"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".swift") {
                // Build folders (an example package built in place) hold the dependencies'
                // checkouts, whose code is theirs.
                if path.split(separator: "/").contains(where: { $0.hasPrefix(".build") }) { continue }
                found.append("\(folder)/\(path)")
            }
        }
        return found.sorted()
    }

    /// A line that imports a libc module or calls through one by name.
    static func libcUse(in line: Substring) -> Bool {
        let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        for module in ["Glibc", "Darwin", "Musl"] {
            if trimmed.hasPrefix("import \(module)") || trimmed.hasPrefix("internal import \(module)")
                || trimmed.hasPrefix("@preconcurrency import \(module)") || code.contains("\(module).")
            {
                return true
            }
        }
        return false
    }

    @Test("only the platform file imports Glibc or Darwin, or calls through them")
    func libcOnlyInThePlatformFile() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 100, "found only \(files.count) Swift files under \(Self.root.path)")
        var offenders: [String] = []
        for file in files where !Self.platformFiles.contains(file) && !file.hasSuffix("PortabilityTests.swift") {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where Self.libcUse(in: line) {
                offenders.append("\(file):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "libc used outside the platform file:\n\(offenders.joined(separator: "\n"))")
    }

    @Test("the platform file has a Glibc and a Darwin branch")
    func platformFileHasBothBranches() throws {
        for file in Self.platformFiles {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains("#if canImport(Glibc)") && text.contains("canImport(Darwin)"), "\(file)")
        }
    }

    @Test("the detector sees what it must and ignores comments")
    func detector() {
        #expect(Self.libcUse(in: "import Glibc"))
        #expect(Self.libcUse(in: "  let n = Glibc.write(fd, p, n)"))
        #expect(Self.libcUse(in: "internal import Darwin"))
        #expect(!Self.libcUse(in: "// Glibc.write is not used here"))
        #expect(!Self.libcUse(in: "import GeofenceEngine"))
    }

    @Test("Package.swift states what macOS needs: GEOS from Homebrew, libc++, macOS 15 for Atomic and Mutex")
    func manifest() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(text.contains(".brew([\"geos\"])"))
        #expect(text.contains(".linkedLibrary(\"c++\", .when(platforms: [.macOS]))"))
        #expect(text.contains(".linkedLibrary(\"stdc++\", .when(platforms: [.linux]))"))
        #expect(text.contains(".macOS(.v15)"))
        // Atomic and Mutex come from Synchronization: only usable with macOS 15.
        let sources = try Self.swiftFiles().filter { $0.hasPrefix("Sources/") }
        let usesSynchronization = try sources.contains {
            try String(contentsOf: Self.root.appendingPathComponent($0), encoding: .utf8).contains("import Synchronization")
        }
        if usesSynchronization { #expect(text.contains(".macOS(.v15)")) }
    }
}
