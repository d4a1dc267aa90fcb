import HeapModule
@testable import GeofenceEngine

/// The slow, obvious twin of ``ShardMerger``: every line is split out, parsed as JSON and its
/// top-level `deviceId` decoded; whole devices are taken smallest id first.
enum SimpleShardMerger {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func merge(inputs: [String]) throws -> [UInt8] {
        var files = try inputs.map { path -> [(line: Int, bytes: [UInt8], device: [UInt8])] in
            let bytes = try FileBytes.read(path)
            var lines: [(Int, [UInt8], [UInt8])] = []
            for (number, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                guard case .object(let object)? = try? JSONParser.parse(Array(line)), let id = object["deviceId"]?.stringValue else {
                    throw Failure(description: "\(path) line \(number + 1): not an event")
                }
                lines.append((number + 1, Array(line) + [0x0A], Array(id.utf8)))
            }
            return lines
        }
        var out: [UInt8] = []
        var positions = [Int](repeating: 0, count: files.count)
        var heap = Heap<ShardMerger.HeapEntry>()
        for (i, file) in files.enumerated() where !file.isEmpty { heap.insert(.init(device: file[0].device, input: i)) }
        var last: (device: [UInt8], input: Int)? = nil
        while let entry = heap.popMin() {
            if let last, last.device == entry.device, last.input != entry.input {
                throw Failure(description: "device in two files")
            }
            let file = files[entry.input]
            var k = positions[entry.input]
            while k < file.count && file[k].device == entry.device {
                out += file[k].bytes
                k += 1
            }
            positions[entry.input] = k
            last = (entry.device, entry.input)
            if k < file.count {
                guard entry.device.lexicographicallyPrecedes(file[k].device) else {
                    throw Failure(description: "\(inputs[entry.input]) line \(file[k].line): not in ascending order")
                }
                heap.insert(.init(device: file[k].device, input: entry.input))
            }
        }
        files.removeAll()
        return out
    }
}
