import ArgumentParser
import GeofenceEngine

/// `geofence-bench peer-csv`: turns a gen_world.py fix set into the CSV `geofence evaluate` reads.
struct PeerCSVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peer-csv",
        abstract: "Write fixes_N.f64 (+ .t.f64, .dev.u32) from Benchmarks/peers/gen_world.py as a fix CSV.",
        discussion: """
            Columns device_id,timestamp,lat,lon; rows in the file's time order (devices \
            interleaved, as a batch export would be). Timestamps are epoch milliseconds from \
            2023-11-14T22:13:20Z plus the fix's seconds; coordinates are written with 7 decimals \
            (about 1 cm, what GPS receivers report).
            """
    )

    @Option(help: "The fixes file, e.g. data/fixes_1000000.f64; .t.f64 and .dev.u32 beside it are read too.")
    var fixes: String

    @Option(help: "Output CSV path.")
    var output: String

    func run() throws {
        guard fixes.hasSuffix(".f64") else { throw ValidationError("--fixes must end in .f64") }
        let stem = String(fixes.dropLast(4))
        let positions = try PeerWorld.readFixes(fixes)
        let times = try FileBytes.read(stem + ".t.f64")
        let devices = try FileBytes.read(stem + ".dev.u32")
        let n = positions.count / 2
        guard times.count == n * 8, devices.count == n * 4 else {
            throw BenchError("\(stem).t.f64 / .dev.u32 do not hold \(n) entries")
        }
        let sink = try OutputSink(path: output)
        try sink.write("device_id,timestamp,lat,lon\n")
        var line: [UInt8] = []
        try times.withUnsafeBytes { t in
            try devices.withUnsafeBytes { d in
                for i in 0..<n {
                    let seconds = t.loadUnaligned(fromByteOffset: i * 8, as: Double.self)
                    let device = d.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                    line.removeAll(keepingCapacity: true)
                    line.append(contentsOf: "dev-\(device),\(1_700_000_000_000 + Int64((seconds * 1000).rounded())),".utf8)
                    Self.appendFixed(positions[2 * i], to: &line)
                    line.append(UInt8(ascii: ","))
                    Self.appendFixed(positions[2 * i + 1], to: &line)
                    line.append(0x0A)
                    try sink.write(line)
                }
            }
        }
        try sink.commit()
        print("wrote \(n) fixes to \(output)")
    }

    /// `value` with exactly 7 decimals.
    static func appendFixed(_ value: Double, to out: inout [UInt8]) {
        let scaled = Int64((abs(value) * 10_000_000).rounded())
        if value < 0 && scaled != 0 { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: String(scaled / 10_000_000).utf8)
        out.append(UInt8(ascii: "."))
        let fraction = String(scaled % 10_000_000)
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 7 - fraction.count))
        out.append(contentsOf: fraction.utf8)
    }
}
