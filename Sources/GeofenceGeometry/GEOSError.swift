/// An error reported by the GEOS library, carrying GEOS's own message.
///
/// Declared here, in the pure-Swift geometry module that `GeofenceEngine` re-exports, so that
/// a program importing only `GeofenceEngine` can name it (`catch let error as GEOSError`);
/// the GEOS wrapper module that throws it is not a product.
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
