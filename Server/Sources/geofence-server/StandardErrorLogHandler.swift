import Logging

/// swift-log's `StreamLogHandler` on standard error, with its metadata made into text only
/// for a line that is written.
///
/// `StreamLogHandler` formats its metadata each time a key is set. Hummingbird sets the
/// request id on every request's logger, so the server formatted metadata for every request
/// and logged nothing with it: 3 to 4 % of the server's CPU under single-fix requests
/// (`perf`). Here a key set is a dictionary write; the formatting happens in ``log(event:)``,
/// which the logger calls only for a line at or above ``logLevel``.
struct StandardErrorLogHandler: LogHandler {
    private let label: String
    var metadata = Logger.Metadata()
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level

    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
        handler.logLevel = logLevel
        handler.metadata = metadata
        handler.log(event: event)
    }
}
