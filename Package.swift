// swift-tools-version:6.0
import PackageDescription

// Module map (one concern per module):
//   CGEOS            system library: GEOS's C API (`pkg-config geos`, Debian libgeos-dev)
//   CGEOSShim        the one C/C++ shim: GEOS's indexed point-in-area locator behind `extern "C"`
//   GeofenceGeometry pure Swift: coordinates, great-circle maths, boxes, local projections
//   GeofenceGEOS     the only Swift module that imports CGEOS / CGEOSShim (internal import)
//   GeofenceEngine   fences, GeoJSON, index, containment, events, batch (the library product)
//   geofence         the command-line tool
//   geofence-bench   the benchmark executable (sources under Benchmarks/)
let package = Package(
    name: "geofence-engine",
    // macOS 15: the engine uses the standard library's Atomic and Mutex (Synchronization).
    platforms: [.iOS(.v18), .macOS(.v15)],
    products: [
        .library(name: "GeofenceEngine", targets: ["GeofenceEngine"]),
        .executable(name: "geofence", targets: ["geofence"]),
        .executable(name: "geofence-bench", targets: ["geofence-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // RealModule: sin, cos, atan2 … on Linux and macOS alike, without importing Glibc.
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        // `make docs`: the DocC catalog Sources/GeofenceEngine/GeofenceEngine.docc as a static site.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev", "libgeos++-dev"]), .brew(["geos"])]
        ),
        .target(
            name: "CGEOSShim",
            dependencies: ["CGEOS"],
            cxxSettings: [.define("USE_UNSTABLE_GEOS_CPP_API")],
            // GEOS's C++ library, and the C++ runtime each platform ships.
            linkerSettings: [
                .linkedLibrary("geos"),
                .linkedLibrary("stdc++", .when(platforms: [.linux])),
                .linkedLibrary("c++", .when(platforms: [.macOS])),
            ]
        ),
        .target(name: "GeofenceGeometry", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        .target(
            name: "GeofenceGEOS",
            dependencies: ["CGEOS", "CGEOSShim", "GeofenceGeometry"]
        ),
        .target(
            name: "GeofenceEngine",
            dependencies: [
                "GeofenceGeometry",
                "GeofenceGEOS",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "RealModule", package: "swift-numerics"),
            ]
        ),
        .executableTarget(
            name: "geofence",
            dependencies: [
                "GeofenceEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "geofence-bench",
            dependencies: [
                "GeofenceEngine",
                "GeofenceGEOS",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            path: "Benchmarks/geofence-bench"
        ),
        // libFuzzer targets (Fuzz/README.md, `make fuzz`): each calls one entry of
        // GeofenceEngine's FuzzEntries; built without -DGEOFENCE_FUZZ they replay files.
        // CLibFuzzer only declares libFuzzer's driver (linked by -sanitize=fuzzer).
        .target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .executableTarget(name: "fuzz-geojson", dependencies: ["GeofenceEngine", "CLibFuzzer"], path: "Fuzz/fuzz-geojson"),
        .executableTarget(name: "fuzz-csv-row", dependencies: ["GeofenceEngine", "CLibFuzzer"], path: "Fuzz/fuzz-csv-row"),
        .executableTarget(name: "fuzz-timestamp", dependencies: ["GeofenceEngine", "CLibFuzzer"], path: "Fuzz/fuzz-timestamp"),
        .executableTarget(name: "fuzz-snapshot", dependencies: ["GeofenceEngine", "CLibFuzzer"], path: "Fuzz/fuzz-snapshot"),
        .executableTarget(name: "fuzz-fence-file", dependencies: ["GeofenceEngine", "CLibFuzzer"], path: "Fuzz/fuzz-fence-file"),
        .executableTarget(name: "fuzz-state", dependencies: ["GeofenceEngine", "CLibFuzzer"], path: "Fuzz/fuzz-state"),
        // Shared helpers for the test targets (seeded random generator); not a product.
        .target(name: "GeofenceTestSupport", dependencies: ["GeofenceEngine"], path: "Tests/GeofenceTestSupport"),
        .testTarget(name: "GeofenceGeometryTests", dependencies: ["GeofenceGeometry", "GeofenceTestSupport"]),
        .testTarget(name: "GeofenceGEOSTests", dependencies: ["GeofenceGEOS", "GeofenceGeometry", "GeofenceTestSupport"]),
        .testTarget(
            name: "GeofenceEngineTests",
            dependencies: ["GeofenceEngine", "GeofenceGEOS", "GeofenceTestSupport"]
        ),
        .testTarget(name: "GeofenceCLITests", dependencies: ["geofence", "GeofenceEngine", "GeofenceTestSupport"]),
        .testTarget(name: "GeofenceBenchTests", dependencies: ["geofence-bench"]),
    ],
    swiftLanguageModes: [.v6]
)
