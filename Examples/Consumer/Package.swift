// swift-tools-version:6.0
import PackageDescription

// A package that uses geofence-engine as a library, the way an app would, through what the
// documentation shows (Sources/GeofenceEngine/GeofenceEngine.docc). `make consumer` builds
// (in .build-consumer at the root) and runs it; it exits non-zero when a check fails.
let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A path dependency's package identity is the last component of its path (the folder's
        // name), not the `name:` in its manifest: `name:` here gives the identity the
        // `.product(package:)` below uses, whatever the checkout's folder is called.
        .package(name: "geofence-engine", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "Consumer",
            dependencies: [.product(name: "GeofenceEngine", package: "geofence-engine")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
