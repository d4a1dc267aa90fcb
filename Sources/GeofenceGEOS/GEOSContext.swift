internal import CGEOS
internal import CGEOSShim
import GeofenceGeometry

/// One GEOS context: the handle every GEOS call on this thread goes through, plus the last
/// error message GEOS reported on it.
///
/// Not `Sendable`: a context and everything made with it serve one thread at a time. Give
/// each worker thread its own (the engine's per-thread evaluator does).
public final class GEOSContext {
    let raw: OpaquePointer  // gfs_context *

    /// Starts a GEOS context. Throws when GEOS cannot allocate one.
    public init() throws(GEOSError) {
        guard let raw = gfs_context_create() else {  // NULL on allocation failure
            throw GEOSError(function: "GEOS_init_r", message: "could not create a GEOS context")
        }
        self.raw = raw
    }

    deinit { gfs_context_destroy(raw) }

    var handle: GEOSContextHandle_t { gfs_context_handle(raw) }

    /// The version of the GEOS library loaded at run time, e.g. "3.11.1-CAPI-1.17.1".
    public static var runtimeVersion: String { String(cString: GEOSversion()) }

    /// The GEOS version the shim was compiled against, e.g. "3.11.1".
    public static var compiledVersion: String { String(cString: gfs_compiled_geos_version()) }

    /// The point-location path in use (C++ locator before GEOS 3.12, C API after).
    public static var locatorBackend: String { String(cString: gfs_locator_backend()) }

    // MARK: - The funnel: every C return convention becomes a typed error here.

    /// The error for a failed call, with GEOS's message (then forgotten).
    func failure(_ function: String, _ fallback: String = "GEOS reported an error") -> GEOSError {
        let message = String(cString: gfs_context_last_error(raw))
        gfs_context_clear_error(raw)
        return GEOSError(function: function, message: message.isEmpty ? fallback : message)
    }

    /// Pointer-returning calls: NULL means an exception.
    func check<T>(_ pointer: T?, _ function: String) throws(GEOSError) -> T {
        guard let pointer else { throw failure(function, "returned NULL") }
        return pointer
    }

    /// Predicate calls (`char`): 0 false, 1 true, 2 exception.
    func checkPredicate(_ value: CChar, _ function: String) throws(GEOSError) -> Bool {
        switch value {
        case 0: return false
        case 1: return true
        default: throw failure(function, "returned \(value)")
        }
    }

    /// Status calls (`int`): 0 means an exception, anything else success.
    func checkStatus(_ value: Int32, _ function: String) throws(GEOSError) {
        if value == 0 { throw failure(function, "returned 0") }
    }

    /// Count calls (`int`): -1 means an exception.
    func checkCount(_ value: Int32, _ function: String) throws(GEOSError) -> Int {
        if value < 0 { throw failure(function, "returned \(value)") }
        return Int(value)
    }
}
