/// An error reported by the GEOS library, carrying GEOS's own message.
///
/// Validation problems in the input (an unclosed ring, a self-intersection found by
/// `isValid`) are not library errors: the engine reports those as its own validation
/// errors, with the feature they came from.
public struct GEOSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The GEOS function (or shim function) that failed.
    public var function: String
    /// GEOS's message, or a description of the return code when GEOS gave none.
    public var message: String

    public init(function: String, message: String) {
        self.function = function
        self.message = message
    }

    public var description: String { "GEOS \(function) failed: \(message)" }
}
