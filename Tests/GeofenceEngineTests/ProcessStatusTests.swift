import Foundation
import Testing
@testable import GeofenceEngine

/// What ``Platform`` reads from `/proc/self/status`: the peak resident memory the summaries
/// report and the CPUs of the affinity mask the default threads follow.
@Suite("Process status")
struct ProcessStatusTests {
    @Test("the peak resident memory is read, and grows with memory touched", .enabled(if: Platform.smallTextFile("/proc/self/status") != nil))
    func peakResident() {
        let before = Platform.peakResidentBytes()
        // A test process holds more than a megabyte (its code, libraries and the test runner).
        #expect(before > 1 << 20, "peak \(before) bytes")
        // 64 MiB touched: the peak passes it.
        let bytes = 64 << 20
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 1, count: bytes)
        #expect(Platform.peakResidentBytes() >= bytes, "peak \(Platform.peakResidentBytes()) bytes after touching \(bytes)")
    }

    @Test("the affinity's CPUs are at least one and at most the cores online")
    func affinity() {
        #expect(Platform.coreCount >= 1)
        #expect(Platform.coreCount <= ProcessInfo.processInfo.processorCount)
    }
}
