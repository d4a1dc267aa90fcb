import Foundation
import GeofenceGEOS
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The streaming reader against the tree decoder and validator it replaced (the whole text
/// parsed into a `JSONValue`, every polygon through GEOS's validity check and minimum
/// bounding circle): the same fences, or the same problems, or the same file error.
@Suite("GeoJSON reader twin")
struct GeoJSONReaderTwinTests {
    /// What a reader made of a text.
    enum Result: Equatable, CustomStringConvertible {
        case error(String)
        case fences([Fence], problems: [FenceValidationError.Problem], repairs: [FenceValidationError.Problem])

        var description: String {
            switch self {
            case .error(let text): "error \(text)"
            case .fences(let f, let p, let r): "\(f.count) fences, problems \(p), repairs \(r)"
            }
        }
    }

    /// The old path: the tree, the tree decoder, the GEOS validator.
    static func old(_ text: [UInt8], repair: Bool = false) -> Result {
        let document: JSONValue
        do {
            document = try JSONParser.parse(text)
        } catch {
            return .error("f.geojson: not valid JSON (\(error))")
        }
        do {
            let decoded = try TreeFenceDecoder.decode(document, path: "f.geojson")
            let outcome = try TreeFenceValidator.validate(decoded.fences, repair: repair)
            let problems = (decoded.problems + outcome.problems).sorted { $0.featureIndex < $1.featureIndex }
            return .fences(outcome.fences.sorted { $0.featureIndex < $1.featureIndex }, problems: problems, repairs: outcome.repairs)
        } catch {
            return .error("\(error)")
        }
    }

    /// The new path, with `threads` and slices of `sliceBytes` bytes.
    static func new(_ text: [UInt8], repair: Bool = false, threads: Int = 2, sliceBytes: Int? = nil) -> Result {
        do {
            var report = try text.withUnsafeBytes {
                try FenceSet.inspect(bytes: $0, name: "f.geojson", repair: repair, threads: threads, sliceBytes: sliceBytes)
            }
            let problems = report.problems, repairs = report.repairs
            let set = FenceSet(report: &report)
            return .fences(Array(set.fences).sorted { $0.featureIndex < $1.featureIndex }, problems: problems, repairs: repairs)
        } catch {
            return .error("\(error)")
        }
    }

    /// The results agree: the same error, or the same problems and fences, with enclosing
    /// circles of equal radius (the events print it) and centres within 1e-9° (GEOS's planar
    /// circle and Welzl's agree to rounding).
    static func agree(_ a: Result, _ b: Result) -> String? {
        switch (a, b) {
        case (.error(let x), .error(let y)): return x == y ? nil : "errors differ:\n  \(x)\n  \(y)"
        case (.fences(let f, let p, let r), .fences(let g, let q, let s)):
            if p != q { return "problems differ:\n  \(p.prefix(3))\n  \(q.prefix(3))" }
            if r != s { return "repairs differ: \(r) \(s)" }
            if f.count != g.count { return "\(f.count) against \(g.count) fences" }
            for (x, y) in zip(f, g) {
                var x2 = x, y2 = y
                x2.enclosingCircle = nil
                y2.enclosingCircle = nil
                if x2 != y2 { return "fence \(x.featureIndex) differs:\n  \(x)\n  \(y)" }
                guard let c = x.enclosingCircle, let d = y.enclosingCircle else { return "fence \(x.geofenceID) has no circle" }
                if c.radius != d.radius { return "fence \(x.geofenceID): radius \(c.radius) against \(d.radius)" }
                if abs(c.center.latitude - d.center.latitude) > 1e-9 || abs(c.center.longitude - d.center.longitude) > 1e-9 {
                    return "fence \(x.geofenceID): centre \(c.center) against \(d.center)"
                }
            }
            return nil
        default: return "\(a) against \(b)"
        }
    }

    /// The repository's data folder.
    static var data: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("data") }

    /// The fence files of data/ and, when present, the benchmark's world (1k and 10k; 100k with
    /// GEOFENCE_TWIN_LARGE=1).
    static var files: [String] {
        var files = ["austin/fences.geojson", "austin/neighborhoods.geojson", "polygons/neighborhoods_multicity.geojson"]
            .map { data.appendingPathComponent($0).path }
        // The world `make bench` generates inside the clone (or another, named by the variable).
        let peers = ProcessInfo.processInfo.environment["GEOFENCE_PEERS_DATA"]
            ?? data.deletingLastPathComponent().appendingPathComponent(".build-peers/world").path
        var sizes = [1000, 10000]
        if ProcessInfo.processInfo.environment["GEOFENCE_TWIN_LARGE"] != nil { sizes.append(100_000) }
        for n in sizes where FileManager.default.fileExists(atPath: "\(peers)/fences_\(n).geojson") {
            files.append("\(peers)/fences_\(n).geojson")
        }
        return files
    }

    @Test("every fence file: the same fences, problems and repairs, as a FeatureCollection and as GeoJSONSeq")
    func dataFiles() throws {
        for path in Self.files {
            let text = try FileBytes.read(path)
            // `make test` reads files over 2 MB (the 10 MB of multi-city polygons) once: as a
            // FeatureCollection, without repair; the smaller ones in every way.
            let every = TestSize.long || text.count <= 2 << 20
            for repair in every ? [false, true] : [false] {
                let expected = Self.old(text, repair: repair)
                #expect(Self.agree(expected, Self.new(text, repair: repair)) == nil, "\(path) repair \(repair)")
                guard every else { continue }
                #expect(Self.agree(expected, Self.new(Self.sequence(text, separator: [0x0A]), repair: repair)) == nil, "\(path) as GeoJSONSeq")
            }
        }
    }

    /// The features of a FeatureCollection text as a GeoJSONSeq text: each feature compact,
    /// followed by `separator` (RFC 8142's RS before each when `rs`).
    static func sequence(_ text: [UInt8], separator: [UInt8], rs: Bool = false) -> [UInt8] {
        guard case .object(let root)? = try? JSONParser.parse(text), let features = root["features"]?.arrayValue else { return [] }
        var out: [UInt8] = []
        for feature in features {
            if rs { out.append(0x1E) }
            JSONWriter.write(feature, to: &out)
            out += separator
        }
        return out
    }
}

extension GeoJSONReaderTwinTests {
    /// A small FeatureCollection with every kind of feature, good and bad.
    static let sample: [UInt8] = Array("""
        {"type":"FeatureCollection","name":"x","features":[
         {"type":"Feature","properties":{"id":"c1","radius":25.5,"level":2,"library":"stops","rank":-1,"dwellSeconds":90,"name":"Caf\\u00e9 \\"x\\"","tags":[{"a":1},{"b":[1,2]}]},"geometry":{"type":"Point","coordinates":[-97.7,30.2,150]}},
         {"type":"Feature","id":42,"properties":null,"geometry":{"coordinates":[[[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]]],"type":"Polygon"}},
         {"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[2,2],[3,2],[3,3],[2,2]],[[2.5,2.2],[2.9,2.2],[2.9,2.6],[2.5,2.2]]]]},"properties":{"id":"m","level":"3","radius":7},"type":"Feature"},
         {"type":"Feature","properties":{"id":"bow"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[2,2],[2,0],[0,2],[0,0]]]}},
         {"type":"Feature","properties":{"id":"c1","radius":3},"geometry":{"type":"Point","coordinates":[1,2]}},
         {"type":"Feature","properties":{"id":"p","radius":"big"},"geometry":{"type":"Point","coordinates":[1,2]}},
         [1,2],
         {"type":"Feature","properties":{"id":"t","radius":1},"geometry":{"type":"Point","coordinates":[1,2]},"geometry":{"type":"Polygon","coordinates":[[[5,5],[6,5],[6,6],[5,5]]]}}
        ]}
        """.utf8)

    @Test("seeded mutations of a document: the same result or the same error", arguments: [1, 2, 3] as [UInt64])
    func mutations(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let alphabet = Array(#"{}[],:" \-0123456789eE.tfnu"#.utf8) + [0x0A, 0x09, 0x1E, 0x00, 0x80, 0xC3, 0xFF, 0x5C]
        for round in 0..<300 {
            var text = Self.sample
            for _ in 0..<rng.int(1...3) {
                let at = rng.int(0...(text.count - 1))
                switch rng.int(0...3) {
                case 0: text.remove(at: at)
                case 1: text.insert(alphabet[rng.int(0...(alphabet.count - 1))], at: at)
                case 2: text[at] = alphabet[rng.int(0...(alphabet.count - 1))]
                default: text.removeLast(text.count - Swift.max(1, at))
                }
            }
            let problem = Self.agree(Self.old(text), Self.new(text, sliceBytes: rng.chance(0.5) ? rng.int(8...200) : nil))
            #expect(problem == nil, "seed \(seed) round \(round): \(String(decoding: text, as: UTF8.self))\n\(problem ?? "")")
        }
    }

    @Test("tiny slices read in parallel, with wrong guesses, give the one-thread answer", arguments: [1, 7, 60, 500])
    func slices(size: Int) throws {
        let austin = try FileBytes.read(Self.data.appendingPathComponent("austin/fences.geojson").path)
        // The Austin file in 1-byte slices is the slow case: `make test` reads it in 7 and 500.
        for text in [Self.sample] + (TestSize.long || size >= 7 ? [austin] : []) {
            let expected = Self.new(text, threads: 1)
            #expect(Self.agree(expected, Self.new(text, threads: 3, sliceBytes: size)) == nil)
            let seq = Self.sequence(text, separator: [0x0A])
            #expect(Self.agree(expected, Self.new(seq, threads: 3, sliceBytes: size)) == nil, "GeoJSONSeq, slices of \(size)")
        }
        // Pretty-printed records after RS: lines inside a feature start with `{` too.
        guard case .object(let root)? = try? JSONParser.parse(Self.sample), let features = root["features"]?.arrayValue else { return }
        var pretty: [UInt8] = []
        for feature in features {
            pretty.append(0x1E)
            let data = try JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: Data(JSONWriter.string(feature).utf8), options: .fragmentsAllowed), options: [.prettyPrinted, .fragmentsAllowed])
            pretty += Array(data) + [0x0A]
        }
        let result = Self.new(pretty, threads: 3, sliceBytes: size)
        guard case .fences(let f, let p, _) = result, case .fences(let g, let q, _) = Self.new(Self.sample, threads: 1) else {
            Issue.record("\(result)")
            return
        }
        #expect(f.map(\.geofenceID) == g.map(\.geofenceID) && p.map(\.reason) == q.map(\.reason))
    }

    @Test("GeoJSONSeq: RS prefixes, CRLF, blank lines and a BOM read as the FeatureCollection; syntax errors name line and column")
    func sequenceForms() {
        let expected = Self.new(Self.sample)
        for (separator, rs) in [([UInt8]([0x0A]), false), ([0x0D, 0x0A], false), ([0x0A, 0x0A, 0x20, 0x0A], false), ([0x0A], true), ([], true)] {
            let text = Self.sequence(Self.sample, separator: separator, rs: rs)
            #expect(Self.agree(expected, Self.new(text)) == nil, "separator \(separator) rs \(rs)")
            #expect(Self.agree(expected, Self.new([0xEF, 0xBB, 0xBF] + text)) == nil, "with a BOM")
        }
        let broken = Array("{\"type\":\"Feature\",\"properties\":{\"id\":\"a\",\"radius\":1},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}\n{\"type\":\"Feature\",\"id\":\"b\" \"x\"}\n".utf8)
        #expect(Self.new(broken) == .error("f.geojson: not valid JSON (line 2, column 28: expected ',' or '}' in object, found '\"')"))
    }

    @Test("deep nesting at and past the limit, huge strings, truncation: the tree reader's answer")
    func hostileInputs() throws {
        // Nesting: the document's depth counts (root 1, features 2, feature 3, properties 4).
        for depth in [508, 509, 510, 511, 512, 513, 600] {
            let nested = String(repeating: "[", count: depth - 4) + String(repeating: "]", count: depth - 4)
            let text = Array(collection([#"{"type":"Feature","properties":{"id":"d","radius":1,"x":\#(nested)},"geometry":{"type":"Point","coordinates":[1,2]}}"#]).utf8)
            #expect(Self.agree(Self.old(text), Self.new(text)) == nil, "depth \(depth)")
        }
        let deep = Array((String(repeating: "[", count: 100_000)).utf8)
        #expect(Self.agree(Self.old(deep), Self.new(deep)) == nil)
        // A 64 MB string (20 MB under `make test`: still several slices): kept as a property;
        // unterminated: an error, not a crash.
        let big = String(repeating: "x", count: sized(full: 64 << 20, quick: 20 << 20))
        let text = Array(collection([#"{"type":"Feature","properties":{"id":"s","radius":1,"note":"\#(big)"},"geometry":{"type":"Point","coordinates":[1,2]}}"#]).utf8)
        guard case .fences(let fences, _, _) = Self.new(text) else { Issue.record("not read"); return }
        #expect(fences.first?.properties["note"]?.stringValue?.count == big.count)
        #expect(Self.new(Array(text.prefix(big.count * 5 / 8))) == .error("f.geojson: not valid JSON (line 1, column 100: unterminated string)"))
        // Truncated anywhere: the tree reader's error.
        let austin = try FileBytes.read(Self.data.appendingPathComponent("austin/fences.geojson").path)
        var rng = SplitMix64(seed: 5)
        for _ in 0..<12 {
            let cut = Array(austin.prefix(rng.int(0...(austin.count - 1))))
            #expect(Self.agree(Self.old(cut), Self.new(cut, sliceBytes: 4096)) == nil)
        }
    }
}
