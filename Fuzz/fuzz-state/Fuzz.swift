import GeofenceEngine

#if GEOFENCE_FUZZ
import CLibFuzzer

/// libFuzzer target "state" (`make fuzz`: built with -sanitize=fuzzer,address and
/// -DGEOFENCE_FUZZ). SwiftPM links `main` to the entry point it names for the target, so
/// that entry point runs libFuzzer's driver on the same function libFuzzer's own `main`
/// would call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntries.carriedState(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@main enum Fuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        Platform.exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
    }
}
#else
/// The ordinary build: replays the files named on the command line through the entry.
@main enum Replay {
    static func main() { FuzzReplay.run(FuzzEntries.carriedState) }
}
#endif
