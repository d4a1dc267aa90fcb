#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Accepted fixes by *slot*: a 32-byte ``FixRecord`` and a 4-byte device index per slot, in
/// address space reserved up front and paid for (resident) only where rows are written.
///
/// The batch reader gives every slice of a block as many slots as it could possibly hold
/// rows, so the threads parsing one block know where their rows go before they start (no
/// copy into a table afterwards), and slots grow with the line number. A slice writes its
/// rows at the start of its slots; the rest stay untouched and cost no memory.
///
/// Worker threads write disjoint slot ranges through the pointers; the pointers stay valid
/// until the next ``reserve(_:)``.
final class FixStore: @unchecked Sendable {
    /// Slots are addressed by `UInt32`.
    static let maximumSlots = Int(UInt32.max)

    private var recordMemory: ReservedMemory<FixRecord>
    private var deviceMemory: ReservedMemory<UInt32>
    var records: UnsafeMutablePointer<FixRecord> { recordMemory.base }
    var devices: UnsafeMutablePointer<UInt32> { deviceMemory.base }
    var capacity: Int { recordMemory.count }
    /// Slots in use so far (a move to a bigger reservation copies this prefix).
    var used = 0

    /// Reserves `capacity` slots (address space only).
    init(capacity: Int) {
        let n = Swift.max(1 << 12, Swift.min(capacity, Self.maximumSlots))
        recordMemory = ReservedMemory(count: n)
        deviceMemory = ReservedMemory(count: n)
    }

    deinit {
        recordMemory.release()
        deviceMemory.release()
    }

    /// Drops the pages written so far on `pool`'s threads, each a share of the used range
    /// (the mapping itself goes in `deinit`, then cheaply). Freeing hundreds of megabytes of
    /// pages is a real part of a batch run; spread over the threads it takes less wall time.
    func discardPages(pool: WorkerPool) {
        let records = recordMemory, devices = deviceMemory, used = used
        let parts = pool.threads
        pool.run(count: parts) { part, _ in
            records.discard(from: used * part / parts, to: used * (part + 1) / parts)
            devices.discard(from: used * part / parts, to: used * (part + 1) / parts)
        }
    }

    /// Makes room for `slots` slots, keeping the first ``used``.
    ///
    /// - Returns: false when `slots` exceeds ``maximumSlots``.
    /// - Complexity: O(1) when the reservation holds; else O(used) to move the rows.
    func reserve(_ slots: Int) -> Bool {
        guard slots <= Self.maximumSlots else { return false }
        guard slots > capacity else { return true }
        let bigger = Swift.min(Self.maximumSlots, Swift.max(slots, capacity * 2))
        let newRecords = ReservedMemory<FixRecord>(count: bigger)
        let newDevices = ReservedMemory<UInt32>(count: bigger)
        newRecords.base.update(from: records, count: used)
        newDevices.base.update(from: devices, count: used)
        recordMemory.release()
        deviceMemory.release()
        recordMemory = newRecords
        deviceMemory = newDevices
        return true
    }
}

/// `count` elements of anonymous memory mapped without a swap reservation: a page becomes
/// resident when first written, so a generous reservation costs address space only. Falls
/// back to the allocator when the system refuses the mapping.
struct ReservedMemory<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>
    let count: Int
    private let mapped: Bool

    init(count: Int) {
        self.count = count
        let bytes = Swift.max(1, count) * MemoryLayout<Element>.stride
        let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if let p, p != UnsafeMutableRawPointer(bitPattern: -1) {
            base = p.bindMemory(to: Element.self, capacity: count)
            mapped = true
        } else {
            base = .allocate(capacity: Swift.max(1, count))
            mapped = false
        }
    }

    /// Drops the pages wholly inside elements `[from, to)` (a mapping only; their contents
    /// are lost, and the memory reads as zeros again).
    func discard(from: Int, to: Int) {
        guard mapped, to > from else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = UnsafeMutableRawPointer(base + from), end = UnsafeMutableRawPointer(base + to)
        let first = (Int(bitPattern: start) + page - 1) / page * page
        let last = Int(bitPattern: end) / page * page
        if last > first { madvise(UnsafeMutableRawPointer(bitPattern: first), last - first, MADV_DONTNEED) }
    }

    /// Gives the memory back (elements are trivial: nothing to deinitialise).
    func release() {
        if mapped {
            munmap(UnsafeMutableRawPointer(base), Swift.max(1, count) * MemoryLayout<Element>.stride)
        } else {
            base.deallocate()
        }
    }
}
