import Foundation
import Testing
@testable import GeofenceEngine

/// Large blocks of the hot paths ask for transparent huge pages (``LargeAllocation``): checked
/// where the kernel reports it, in the flags of the mapping that holds the block.
@Suite("Large allocations")
struct LargeAllocationTests {
    /// The `VmFlags` of the mapping of `/proc/self/smaps` that holds `address`, or nil when the
    /// file cannot be read (not Linux) or no mapping holds it.
    static func mappingFlags(of address: UnsafeRawPointer) -> [Substring]? {
        // Read to the end (a /proc file reports a size of 0, which a whole-file read trusts).
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let target = UInt(bitPattern: address)
        var inside = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let ends = range.split(separator: "-")
                if ends.count == 2, let low = UInt(ends[0], radix: 16), let high = UInt(ends[1], radix: 16) {
                    inside = low <= target && target < high
                    continue
                }
            }
            if inside && line.hasPrefix("VmFlags:") { return Array(fields.dropFirst()) }
        }
        return nil
    }

    /// True where the kernel has transparent huge pages and honours `MADV_HUGEPAGE`.
    static var hugePagesOffered: Bool {
        guard let mode = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8) else {
            return false
        }
        return !mode.contains("[never]")
    }

    @Test("a large block is advised for huge pages over its aligned middle")
    func largeBlocksAreAdvised() throws {
        guard Self.hugePagesOffered else { return }  // nothing to observe here
        let count = 3 << 20  // 24 MiB of UInt64
        let block = LargeAllocation.allocate(UInt64.self, capacity: count)
        defer { block.deallocate() }
        // The middle of the block is inside its 2 MiB-aligned part.
        let middle = UnsafeRawPointer(block + count / 2)
        let flags = try #require(Self.mappingFlags(of: middle), "no mapping holds the block in /proc/self/smaps")
        #expect(flags.contains("hg"), "VmFlags of a 24 MiB block: \(flags.joined(separator: " "))")
        // Touched, it still reads and writes as plain memory.
        block.initialize(repeating: 7, count: count)
        #expect(block[count - 1] == 7 && block[0] == 7)
    }

    @Test("the advice covers only whole 2 MiB pages inside the range")
    func adviceStaysInsideTheRange() throws {
        guard Self.hugePagesOffered else { return }
        // A fresh mapping of 8 MiB, advised from 1 MiB past its first 2 MiB boundary for 4 MiB:
        // only the huge page from 2 to 4 MiB lies whole inside that range, so only it is advised
        // (the kernel splits the mapping around it).
        let size = 8 << 20
        let base = try #require(Platform.reserveAnonymous(bytes: size))
        defer { Platform.unmap(base, size: size) }
        let aligned = (Int(bitPattern: base) + Platform.hugePageBytes - 1) & ~(Platform.hugePageBytes - 1)
        let start = UnsafeMutableRawPointer(bitPattern: aligned)!
        let slack = aligned - Int(bitPattern: base)
        try #require(slack + (6 << 20) <= size)
        Platform.adviseHugePages(start + (1 << 20), bytes: 4 << 20)
        let advised = try #require(Self.mappingFlags(of: start + (3 << 20)))
        let before = try #require(Self.mappingFlags(of: start + (3 << 19)))
        let after = try #require(Self.mappingFlags(of: start + (9 << 19)))
        #expect(advised.contains("hg"), "2–4 MiB: \(advised.joined(separator: " "))")
        #expect(!before.contains("hg"), "1.5 MiB: \(before.joined(separator: " "))")
        #expect(!after.contains("hg"), "4.5 MiB: \(after.joined(separator: " "))")
    }
}
