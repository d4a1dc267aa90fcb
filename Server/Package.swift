// swift-tools-version:6.1
import PackageDescription

// geofence-server: the engine as a live HTTP service (issue 41), in a package of its own so
// that an app depending on the library (Examples/Consumer) never fetches or builds the
// server stack (Hummingbird, SwiftNIO, GRDB). It uses the library's public API only.
//
//   GeofenceServer   the service: options, storage (SQLite through GRDB, WAL), the engine
//                    actor, the HTTP routes (Hummingbird 2)
//   geofence-server  the executable: argument parsing, exit codes
let package = Package(
    name: "geofence-server",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "geofence-server", targets: ["geofence-server"]),
    ],
    dependencies: [
        // A path dependency's identity is its folder's name: `name:` keeps it "geofence-engine"
        // whatever the checkout's folder is called.
        .package(name: "geofence-engine", path: ".."),
        // Without the default ConfigurationSupport trait: swift-configuration is not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "GeofenceServer",
            dependencies: [
                .product(name: "GeofenceEngine", package: "geofence-engine"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "geofence-server",
            dependencies: [
                "GeofenceServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The baseline of the single-fix benchmark (Benchmarks/server/bench.sh): a bare
        // Hummingbird POST handler that reads the body and answers, nothing else.
        .executableTarget(
            name: "geofence-bare-server",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // The tests run the built executable as a child process (a dependency, so SwiftPM
        // builds it first) and compare its events with the library's own trackers.
        .testTarget(
            name: "GeofenceServerTests",
            dependencies: [
                "geofence-server",
                .product(name: "GeofenceEngine", package: "geofence-engine"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
