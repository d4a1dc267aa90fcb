import ArgumentParser
import GeofenceEngine

/// Argument checks and messages shared by the subcommands.
enum ArgumentCheck {
    /// Refuses `--name=` with nothing after the `=`: it is a mistake, not a request to take
    /// the next argument as the value (which numeric options, parsed unconditionally so that
    /// negative numbers are values, would otherwise do).
    static func refuseEmptyValues(_ arguments: [String]) throws(CLIError) {
        for argument in arguments {
            if argument == "--" { return }
            if argument.hasPrefix("--") && argument.hasSuffix("=") && argument.count > 3 {
                throw CLIError("\(argument) has no value after the '=' (see 'geofence \(subcommand(arguments)) --help')")
            }
        }
    }

    /// ArgumentParser's message for a bad argument as one line, with where to look.
    static func oneLine(_ message: String, arguments: [String]) -> String {
        let text = message.split(whereSeparator: \.isNewline).map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
            .joined(separator: "; ")
        let command = subcommand(arguments)
        return "geofence\(command.isEmpty ? "" : " " + command): \(text) (see 'geofence \(command.isEmpty ? "" : command + " ")--help')"
    }

    /// The subcommand named in `arguments`, or "" when there is none.
    static func subcommand(_ arguments: [String]) -> String {
        arguments.first { Geofence.subcommand(named: $0) != nil } ?? ""
    }

    /// The command-line option of a ``TrackerConfiguration`` property, for messages.
    static let optionOfSetting: [String: String] = [
        "ignorePeriod": "--ignore-period", "dwell": "--dwell", "presenceInterval": "--presence-interval",
        "stopSeconds": "--stop-seconds", "membershipTTL": "--ttl", "enterToleranceFraction": "--enter-tolerance",
        "exitToleranceFraction": "--exit-tolerance", "maxAccuracy": "--max-accuracy", "stopRadius": "--stop-radius",
    ]

    /// A configuration error in the words of the command line: the setting's name replaced
    /// by its option (`dwell must be …` → `--dwell must be …`).
    static func optionError(_ error: TrackerConfigurationError) -> ValidationError {
        let reason = error.reason
        for (setting, option) in optionOfSetting where reason.hasPrefix(setting + " ") {
            return ValidationError(option + reason.dropFirst(setting.count))
        }
        return ValidationError(reason)
    }

    /// `--ttl`: `none`, or seconds in [0, ``TrackerConfiguration/longestDuration``].
    static func membershipTTL(_ text: String) throws(ValidationError) -> Double? {
        let trimmed = text.trimmingSpaces().lowercased()
        if trimmed == "none" { return nil }
        guard let seconds = DecimalParser.parse(trimmed), seconds.isFinite, seconds >= 0,
            seconds <= TrackerConfiguration.longestDuration
        else {
            throw ValidationError(
                "--ttl must be none or a number of seconds in [0, \(Int64(TrackerConfiguration.longestDuration))], found \(text)")
        }
        return seconds
    }

    /// `--threads`: 1 to ``WorkerPool/maximumThreads``.
    static func threads(_ value: Int?) throws(ValidationError) {
        guard let value else { return }
        guard value >= 1, value <= WorkerPool.maximumThreads else {
            throw ValidationError("--threads must be 1 to \(WorkerPool.maximumThreads), found \(value)")
        }
    }
}
