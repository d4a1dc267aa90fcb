/// Asks the system for a step's memory before the step allocates it, so that a refusal is
/// a clear error (exit status 2) and not a trap.
///
/// Swift's own allocations (arrays, strings) end the process when the system refuses them:
/// under an address-space limit (`ulimit -v`, `prlimit --as`) or strict overcommit
/// accounting, a batch run that simply allocated as it went would abort in whichever thread
/// asked last. So before each block it parses, each window it evaluates and each grouping,
/// the batch checks that what the step will need, plus a margin for the small allocations
/// along the way, can be had right now (``Platform/canReserve(bytes:)`` maps it and drops it
/// at once, touching nothing). The large buffers themselves are allocated with calls that
/// return nil when refused.
///
/// Without a limit the checks cost a few microseconds a step and never fail.
enum MemoryHeadroom {
    /// Kept free beyond a step's own needs, for the allocations no step counts (ids,
    /// messages, GEOS's work space, the C library's per-thread heaps).
    static let margin = 64 << 20

    /// What `evaluate` can do about a refusal.
    static let evaluateAdvice = "raise the limit, or use fewer --threads, --shard or --sorted-input"

    /// Nil when `bytes` (plus the margin) can be had now; else why not, naming `purpose` and
    /// ending with `advice`.
    static func refusal(bytes: Int, for purpose: String, advice: String = evaluateAdvice) -> String? {
        let total = bytes.addingReportingOverflow(margin)
        if !total.overflow && Platform.canReserve(bytes: total.partialValue) { return nil }
        return message(bytes: bytes, for: purpose, advice: advice)
    }

    /// The words of a refusal of `bytes` for `purpose`.
    static func message(bytes: Int, for purpose: String, advice: String = evaluateAdvice) -> String {
        "out of memory: \(purpose) needs about \(mebibytes(bytes)) MiB more (plus a \(mebibytes(margin)) MiB margin) "
            + "and the system refuses it (a memory limit?): \(advice)"
    }

    /// Bytes as whole mebibytes, rounded up.
    static func mebibytes(_ bytes: Int) -> Int { (bytes + (1 << 20) - 1) >> 20 }
}
