import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

/// Rows that cannot be kept faithfully are rejected with their own reason and counted:
/// device ids that are not UTF-8 (issue 13, measured failure 6) and lines past the length cap.
@Suite("Row rejections: encoding and line length")
struct RowRejectionCLITests {
    static func summary(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    static func rejected(_ json: [String: Any], _ reason: String) -> (count: Int, lines: [Int]) {
        let entry = (json["rejectedByReason"] as? [String: Any])?[reason] as? [String: Any]
        return (entry?["count"] as? Int ?? -1, entry?["lines"] as? [Int] ?? [])
    }

    /// The measured failure: `a\xFF` and `a\xFE` were evaluated as two devices that both
    /// printed as "a\u{FFFD}".
    @Test("device ids that are not UTF-8 are rejected (encoding) and counted, in both modes and on every thread count", arguments: [false, true])
    func invalidUTF8(sorted: Bool) throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = dir.appendingPathComponent("f.geojson").path
            try EvaluateCLITests.fences.write(toFile: fences, atomically: true, encoding: .utf8)
            var bytes = Array("device_id,timestamp,lat,lon\n".utf8)
            func row(_ id: [UInt8], _ t: Int) { bytes += id + Array(",\(t),40.75,-73.98\n".utf8) }
            row(Array("a".utf8) + [0xFF], 0)           // line 2: invalid
            row(Array("a".utf8) + [0xFE], 1000)        // line 3: invalid
            row(Array("b".utf8), 2000)                 // line 4: fine
            row(Array("caf\u{E9}".utf8), 3000)         // line 5: fine (two-byte UTF-8)
            row([0x22, 0x64, 0xC3, 0x22], 4000)        // line 6: quoted, truncated sequence
            row(Array("0123456789abcdef0".utf8) + [0xED, 0xA0, 0x80], 5000)  // line 7: long id, a surrogate
            let fixes = dir.appendingPathComponent("x.csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: fixes))
            var outputs: [String] = []
            for threads in ["1", "2"] {
                let summary = dir.appendingPathComponent("s\(threads).json").path
                var arguments = ["evaluate", "--fences", fences, "--fixes", fixes, "--summary", summary, "--threads", threads]
                if sorted { arguments.append("--sorted-input") }
                let r = try CLIRunner.run(arguments)
                #expect(r.status == 0, "\(r.stderr)")
                let json = try Self.summary(summary)
                let encoding = Self.rejected(json, "encoding")
                #expect(encoding.count == 4 && encoding.lines == [2, 3, 6, 7], "\(json)")
                #expect(json["rowsRead"] as? Int == 6 && json["processed"] as? Int == 2 && json["devices"] as? Int == 2)
                #expect(!r.stdout.contains("\u{FFFD}"))
                #expect(r.stderr.contains("encoding 4 (lines 2, 3, 6, 7)"), "\(r.stderr)")
                outputs.append(r.stdout)
            }
            #expect(outputs[0] == outputs[1])
            #expect(outputs[0].contains(#""deviceId":"café""#) && outputs[0].contains(#""deviceId":"b""#))
        }
    }

    @Test("places rejects ids that are not UTF-8 (encoding)")
    func placesEncoding() throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = dir.appendingPathComponent("f.geojson").path
            try EvaluateCLITests.fences.write(toFile: fences, atomically: true, encoding: .utf8)
            var bytes = Array("timestamp,device_id,signal,geofence_id,lat,lon\n".utf8)
            bytes += Array("0,d".utf8) + [0xFF] + Array(",entry,home,,\n".utf8)
            bytes += Array("0,d,entry,home".utf8) + [0xC0] + Array(",,\n".utf8)
            bytes += Array("0,d,entry,home,,\n".utf8)
            let signals = dir.appendingPathComponent("s.csv").path
            try Data(bytes).write(to: URL(fileURLWithPath: signals))
            let r = try CLIRunner.run(["places", "--fences", fences, "--signals", signals])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdoutLines.count == 3)
            #expect(r.stdoutLines[0].contains(#""error":"encoding: line 2: field 2 \"d\\xFF\" is not valid UTF-8""#), "\(r.stdoutLines[0])")
            #expect(r.stdoutLines[1].contains(#""error":"encoding: line 3"#), "\(r.stdoutLines[1])")
            #expect(r.stdoutLines[2].contains(#""current":"home""#))
            #expect(r.stderr.contains("2 rejected (encoding 2)"), "\(r.stderr)")
        }
    }

    /// Lines longer than the cap (1 MiB) are rejected with their own reason, counted, and not
    /// held: the same from a file (mapped) and from a pipe (read in blocks), whether the line
    /// fits in a block or not.
    @Test("lines past the 1 MiB cap are rejected (lineLength) and counted, from a file or a pipe")
    func longLines() throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = dir.appendingPathComponent("f.geojson").path
            try EvaluateCLITests.fences.write(toFile: fences, atomically: true, encoding: .utf8)
            var text = "device_id,timestamp,lat,lon\n"
            text += "a,0,40.75,-73.98\n"
            text += "a," + String(repeating: "9", count: 1 << 20) + ",40.75,-73.98\n"  // line 3: 1 MiB + 16 bytes
            text += "a,1000,40.75,-73.98\n"
            text += "b," + String(repeating: "x", count: 20 << 20) + "\n"  // line 5: longer than a block
            text += "b,2000,40.75,-73.98\n"
            text += "c,3000,40.75,-73.98," + String(repeating: " ", count: (1 << 20) - 40) + "\n"  // line 7: under the cap
            let fixes = dir.appendingPathComponent("x.csv").path
            try text.write(toFile: fixes, atomically: true, encoding: .utf8)
            for viaPipe in [false, true] {
                let summary = dir.appendingPathComponent("s.json").path
                let arguments = ["evaluate", "--fences", fences, "--fixes", viaPipe ? "/dev/stdin" : fixes, "--summary", summary]
                let r: ResourceLimitCLITests.Outcome
                r = try ResourceLimitCLITests.run(arguments, timeout: 120, stdin: viaPipe ? fixes : nil)
                #expect(r.status == 0 && !r.signalled, "\(r.stderr)")
                let json = try Self.summary(summary)
                let long = Self.rejected(json, "lineLength")
                #expect(long.count == 2 && long.lines == [3, 5], "pipe \(viaPipe): \(json)")
                // Line 7 is under the cap but has a field too many: a parse error, not lineLength.
                #expect(json["rowsRead"] as? Int == 6 && json["processed"] as? Int == 3, "pipe \(viaPipe): \(json)")
                if let peak = r.peakResidentKiB { #expect(peak < 150_000, "pipe \(viaPipe): peak \(peak) KiB") }
            }
            // contains reports it per row, in order.
            let contains = try CLIRunner.run(["contains", "--fences", fences, "--fixes", fixes])
            #expect(contains.status == 0)
            #expect(contains.stdoutLines.count == 6)
            #expect(contains.stdoutLines[1].hasPrefix(#"{"row":2,"error":"lineLength: line 3: 1048591 bytes or more"#), "\(contains.stdoutLines[1])")
            // Through a pipe the long lines come as skipped chunks, not in a block: the same rows.
            let piped = dir.appendingPathComponent("contains-piped.ndjson").path
            let viaPipe = try ResourceLimitCLITests.run(
                ["contains", "--fences", fences, "--fixes", "/dev/stdin", "--output", piped], timeout: 120, stdin: fixes)
            #expect(viaPipe.status == 0 && !viaPipe.signalled, "\(viaPipe.stderr)")
            let pipedLines = try String(contentsOfFile: piped, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(pipedLines.count == 6 && pipedLines[1].hasPrefix(#"{"row":2,"error":"lineLength: line 3: "#), "\(pipedLines.first ?? "")")
            #expect(pipedLines.map { $0.replacingOccurrences(of: #"\d+ bytes or more"#, with: "N", options: .regularExpression) }
                == contains.stdoutLines.map { $0.replacingOccurrences(of: #"\d+ bytes or more"#, with: "N", options: .regularExpression) })
            // As CSV pairs, from the file (long lines in a block) and the pipe (long lines skipped
            // as chunks): the same rows rejected, each a row of its own.
            for viaPipe in [false, true] {
                let output = dir.appendingPathComponent("contains.csv").path
                let csv = try ResourceLimitCLITests.run(
                    ["contains", "--fences", fences, "--fixes", viaPipe ? "/dev/stdin" : fixes, "--format", "csv", "--output", output],
                    timeout: 120, stdin: viaPipe ? fixes : nil)
                #expect(csv.status == 0 && !csv.signalled, "\(csv.stderr)")
                let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
                #expect(lines.count == 7, "pipe \(viaPipe): \(lines.map { $0.prefix(60) })")
                #expect(lines.first == "row,geofenceId,error")
                #expect(lines.count == 7 && lines[2].hasPrefix(#"2,,"lineLength: line 3: "#) && lines[4].hasPrefix(#"4,,"lineLength: line 5: "#),
                    "pipe \(viaPipe): \(lines.map { $0.prefix(60) })")
            }
        }
    }
}
