import ArgumentParser
import GeofenceEngine

/// The `geofence` command-line tool.
///
/// Exit status: 0 success; 1 when `validate` finds a problem that remains; 2 for bad
/// arguments or unreadable input, with a message naming the file and the problem.
@main
struct Geofence: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geofence",
        abstract: "Exact, fast geofence containment and events for moving devices.",
        version: GeofenceEngineVersion.current,
        subcommands: [
            ValidateCommand.self, CompileCommand.self, ContainsCommand.self, NearestCommand.self, PlanCommand.self, PlacesCommand.self,
            EvaluateCommand.self, MergeCommand.self,
        ]
    )

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        Platform.shareOneHeapUnderAddressSpaceLimit()
        do {
            try ArgumentCheck.refuseEmptyValues(arguments)
            var command = try parseSubcommandAlone(arguments) ?? parseAsRoot(arguments)
            try command.run()
        } catch let failure as CLIError {
            FileHandleText.standardError("geofence: \(failure.message)\n")
            Platform.exit(failure.exitStatus)
        } catch let code as ExitCode {
            Platform.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                FileHandleText.standardOutput(fullMessage(for: error) + "\n")
                Platform.exit(0)
            }
            // Argument errors (ArgumentParser would use 64): the tool's contract is status 2,
            // and one line (ArgumentParser's own message has the usage and a hint below it).
            FileHandleText.standardError(ArgumentCheck.oneLine(message(for: error), arguments: arguments) + "\n")
            Platform.exit(2)
        }
    }
}

extension Geofence {
    /// The subcommand called `name`, or nil.
    static func subcommand(named name: String) -> ParsableCommand.Type? {
        configuration.subcommands.first { $0.configuration.commandName == name }
    }

    /// The subcommand `arguments` name, parsed (and validated) as a command of its own, or
    /// nil when it does not parse that way; the tool then parses from the root, which gives
    /// help and error messages in full.
    ///
    /// Parsing from the root reflects every subcommand's options before it reads one: a
    /// command that fails at once took 11.6 ms, 9.3 ms this way (`perf stat -r 30`). Help
    /// (`-h`, `--help`, `help`) and anything that fails go the full way, so what is printed
    /// never changes. Every subcommand names itself in its configuration; one that did not
    /// would simply never match here.
    static func parseSubcommandAlone(_ arguments: [String]) -> ParsableCommand? {
        guard let name = arguments.first, let type = subcommand(named: name) else { return nil }
        let rest = Array(arguments.dropFirst())
        if rest.contains(where: { $0 == "-h" || $0 == "--help" || $0 == "help" || $0.hasPrefix("--generate-completion") }) { return nil }
        return try? type.parseAsRoot(rest)
    }
}

/// A failure the tool reports in one line and ends with.
struct CLIError: Error {
    var message: String
    var exitStatus: Int32 = 2

    init(_ message: String, exitStatus: Int32 = 2) {
        self.message = message
        self.exitStatus = exitStatus
    }

    /// Runs `body`; a `CLIError` passes through, any other error becomes one with its
    /// description (the library's errors already name their file and say why).
    static func reporting<T>(_ body: () throws -> T) throws(CLIError) -> T {
        do {
            return try body()
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("\(error)")
        }
    }
}

/// Unbuffered writes of whole messages to the standard streams.
enum FileHandleText {
    static func standardError(_ text: String) { Platform.writeStandardError(text) }
    static func standardOutput(_ text: String) { Platform.writeStandardOutput(text) }
}
