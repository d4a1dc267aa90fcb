/// Accepted fixes by *slot*: time and position (24 bytes), accuracy and level (8 bytes, only
/// when the file has either column) and a 4-byte device index, in address space reserved up
/// front and paid for (resident) only where rows are written.
///
/// The batch reader gives every slice of a block as many slots as it could possibly hold
/// rows, so the threads parsing one block know where their rows go before they start (no
/// copy into a table afterwards), and slots grow with the line number. A slice writes its
/// rows at the start of its slots; the rest stay untouched and cost no memory. A file
/// without accuracy and level columns never touches the extras, so a fix costs 28 bytes.
///
/// Worker threads write disjoint slot ranges through ``writer``; its pointers stay valid
/// until the next ``reserve(_:)``.
final class FixStore: @unchecked Sendable {
    /// Slots are addressed by `UInt32`.
    static let maximumSlots = Int(UInt32.max)

    /// Time and position of a fix.
    struct Core {
        var timestamp: Int64
        var latitude: Double
        var longitude: Double
    }

    /// Accuracy (metres as a 32-bit float, NaN when absent) and level (`Int32.min` when absent).
    struct Extras {
        var accuracy: Float
        var level: Int32
    }

    /// Whether accuracy and level are kept (the file has an accuracy or level column).
    let keepsExtras: Bool
    private var cores: ReservedMemory<Core>
    private var extras: ReservedMemory<Extras>
    private var deviceMemory: ReservedMemory<UInt32>
    var devices: UnsafeMutablePointer<UInt32> { deviceMemory.base }
    var capacity: Int { cores.count }
    /// Slots in use so far (a move to a bigger reservation copies this prefix).
    var used = 0

    /// Reserves `capacity` slots (address space only). When the system refuses a reservation
    /// that large, or it would leave too little for the rest of the run (an address-space
    /// limit: ``MemoryHeadroom``), a smaller one is taken and ``reserve(_:)`` grows it. Nil
    /// when not even 4,096 slots can be had.
    init?(capacity: Int, keepsExtras: Bool) {
        self.keepsExtras = keepsExtras
        var n = Swift.max(1 << 12, Swift.min(capacity, Self.maximumSlots))
        while true {
            if let (c, e, d) = Self.reservation(n) {
                (cores, extras, deviceMemory) = (c, e, d)
                return
            }
            // 4,096 slots are a few hundred kilobytes: refused only when the process is out
            // of memory altogether.
            guard n > 1 << 12 else { return nil }
            n = Swift.max(1 << 12, n / 4)
        }
    }

    /// The three arrays of `n` slots, or nil when they cannot be had with room to spare
    /// (an eighth of their size, at least the headroom margin, still free after them).
    private static func reservation(_ n: Int) -> (ReservedMemory<Core>, ReservedMemory<Extras>, ReservedMemory<UInt32>)? {
        guard let c = ReservedMemory<Core>(count: n) else { return nil }
        guard let e = ReservedMemory<Extras>(count: n) else { c.release(); return nil }
        guard let d = ReservedMemory<UInt32>(count: n) else { c.release(); e.release(); return nil }
        let bytes = n * (MemoryLayout<Core>.stride + MemoryLayout<Extras>.stride + MemoryLayout<UInt32>.stride)
        guard MemoryHeadroom.refusal(bytes: bytes / 8, for: "the fix store") == nil else {
            c.release(); e.release(); d.release()
            return nil
        }
        return (c, e, d)
    }

    deinit {
        cores.release()
        extras.release()
        deviceMemory.release()
    }

    /// Writes rows into the store from worker threads (a value of pointers: no reference
    /// counting in the parsing loop).
    struct Writer: @unchecked Sendable {
        let cores: UnsafeMutablePointer<Core>
        let extras: UnsafeMutablePointer<Extras>
        let devices: UnsafeMutablePointer<UInt32>
        let keepsExtras: Bool

        /// Stores a parsed row. Levels have at most 9 digits (``FixCSVRow``), so they fit in
        /// an `Int32`.
        @inline(__always)
        func write(_ row: FixCSVRow, device: UInt32, at slot: Int) {
            cores[slot] = Core(timestamp: row.timestamp, latitude: row.latitude, longitude: row.longitude)
            if keepsExtras {
                extras[slot] = Extras(accuracy: Float(row.accuracy), level: row.level == Int.min ? Int32.min : Int32(row.level))
            }
            devices[slot] = device
        }
    }

    var writer: Writer { Writer(cores: cores.base, extras: extras.base, devices: deviceMemory.base, keepsExtras: keepsExtras) }

    /// Reads rows back (a value of pointers, for worker threads).
    struct Reader: @unchecked Sendable {
        let cores: UnsafePointer<Core>
        let extras: UnsafePointer<Extras>
        let keepsExtras: Bool

        @inline(__always)
        func timestamp(_ slot: Int) -> Int64 { cores[slot].timestamp }

        /// The fix in `slot` as the tracker's record.
        @inline(__always)
        func record(_ slot: Int) -> FixRecord {
            let c = cores[slot]
            let e = keepsExtras ? extras[slot] : Extras(accuracy: .nan, level: Int32.min)
            return FixRecord(timestamp: c.timestamp, latitude: c.latitude, longitude: c.longitude, accuracy: e.accuracy, level: e.level)
        }
    }

    var reader: Reader { Reader(cores: cores.base, extras: extras.base, keepsExtras: keepsExtras) }

    /// Bytes a fix takes in the store.
    var bytesPerFix: Int {
        MemoryLayout<Core>.stride + (keepsExtras ? MemoryLayout<Extras>.stride : 0) + MemoryLayout<UInt32>.stride
    }

    /// Drops the pages written so far on `pool`'s threads, each a share of the used range
    /// (the mappings themselves go in `deinit`, then cheaply). Freeing hundreds of megabytes
    /// of pages is a real part of a batch run; spread over the threads it takes less wall time.
    func discardPages(pool: WorkerPool) {
        let cores = cores, extras = extras, devices = deviceMemory, used = used, keepsExtras = keepsExtras
        let parts = pool.threads
        pool.run(count: parts) { part, _ in
            let from = used * part / parts, to = used * (part + 1) / parts
            cores.discard(from: from, to: to)
            if keepsExtras { extras.discard(from: from, to: to) }
            devices.discard(from: from, to: to)
        }
    }

    /// Makes room for `slots` slots, keeping the first ``used``.
    ///
    /// - Returns: nil, or why there is no room: more slots than ``maximumSlots``, or memory
    ///   the system refuses.
    /// - Complexity: O(1) when the reservation holds; else O(used) to move the rows.
    func reserve(_ slots: Int) -> String? {
        guard slots <= Self.maximumSlots else {
            return "more than \(Self.maximumSlots) possible rows: split the file, or use --sorted-input or --shard"
        }
        guard slots > capacity else { return nil }
        for size in [Swift.min(Self.maximumSlots, Swift.max(slots, capacity * 2)), slots] {
            guard let (c, e, d) = Self.reservation(size) else { continue }
            c.base.update(from: cores.base, count: used)
            if keepsExtras { e.base.update(from: extras.base, count: used) }
            d.base.update(from: deviceMemory.base, count: used)
            cores.release()
            extras.release()
            deviceMemory.release()
            (cores, extras, deviceMemory) = (c, e, d)
            return nil
        }
        return "out of memory: cannot reserve memory for \(slots) fixes (\((slots * bytesPerFix) >> 20) MiB, and room to spare): use --sorted-input or --shard"
    }
}

/// `count` elements of anonymous memory mapped without a swap reservation: a page becomes
/// resident when first written, so a generous reservation costs address space only. Falls
/// back to the allocator when the system refuses the mapping.
struct ReservedMemory<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>
    let count: Int
    private let mapped: Bool

    /// Nil when neither a mapping nor the allocator can provide `count` elements.
    init?(count: Int) {
        self.count = count
        let bytes = Swift.max(1, count) * MemoryLayout<Element>.stride
        if let p = Platform.reserveAnonymous(bytes: bytes) {
            base = p.bindMemory(to: Element.self, capacity: count)
            mapped = true
        } else if let p = Platform.allocate(bytes: bytes) {  // nil when refused (Swift's allocate would trap)
            base = p.bindMemory(to: Element.self, capacity: count)
            mapped = false
        } else {
            return nil
        }
    }

    /// Drops the pages wholly inside elements `[from, to)` (a mapping only; their contents
    /// are lost, and the memory reads as zeros again).
    func discard(from: Int, to: Int) {
        guard mapped, to > from else { return }
        Platform.dropPages(inside: UnsafeRawPointer(base + from), bytes: (to - from) * MemoryLayout<Element>.stride)
    }

    /// Gives the memory back (elements are trivial: nothing to deinitialise).
    func release() {
        if mapped {
            Platform.unmap(UnsafeRawPointer(base), size: Swift.max(1, count) * MemoryLayout<Element>.stride)
        } else {
            Platform.free(UnsafeMutableRawPointer(base))
        }
    }
}
