import GeofenceEngine

/// What the subcommands check about the files they write before they touch anything.
///
/// Every output path is written atomically (``OutputSink``: a temporary file beside it,
/// renamed over it when complete), so a failed run leaves the previous file in place. An
/// output that is also an input would still be replaced by what was made of it, so it is
/// refused first.
enum OutputFiles {
    /// Refuses (exit status 2) an output that names one of the inputs — the same file, by
    /// device and inode, whatever the spelling or the link — or the same file as another
    /// output.
    /// - Parameters:
    ///   - outputs: option and path of each output (nil: not given, standard output).
    ///   - inputs: option and path of each input.
    static func refuseOverlap(outputs: [(option: String, path: String?)], inputs: [(option: String, path: String)]) throws(CLIError) {
        let given = outputs.compactMap { output in output.path.map { (option: output.option, path: $0) } }
        for (k, output) in given.enumerated() {
            for input in inputs where sameFile(output.path, input.path) {
                throw CLIError("\(output.option) \(output.path) is the same file as \(input.option) \(input.path): refusing to overwrite an input")
            }
            for other in given[(k + 1)...] where sameFile(output.path, other.path) {
                throw CLIError("\(output.option) and \(other.option) name the same file (\(output.path)): give each its own")
            }
        }
    }

    /// True when `a` and `b` name one regular file (or, when neither exists yet, are the same
    /// path). Devices and pipes (`/dev/stdout`, `/dev/null`) are streams, never "the same file".
    static func sameFile(_ a: String, _ b: String) -> Bool {
        switch (Platform.status(atPath: a), Platform.status(atPath: b)) {
        case (let x?, let y?): x.kind == .regular && y.kind == .regular && x.device == y.device && x.inode == y.inode
        case (nil, nil): a == b
        default: false
        }
    }
}
