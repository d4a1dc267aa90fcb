/// What a fuzz target's executable does in the ordinary build (without libFuzzer): runs its
/// entry on each file named on the command line and says so, so that a crash file can be
/// replayed under the debugger or a plain debug build.
package enum FuzzReplay {
    package static func run(_ entry: ([UInt8]) -> Void) {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            print("usage: \(CommandLine.arguments[0]) FILE... (replays each file through the fuzz entry)")
            return
        }
        for path in paths {
            do {
                entry(try FileBytes.read(path))
                print("\(path): ok")
            } catch {
                print("\(error)")
            }
        }
    }
}
