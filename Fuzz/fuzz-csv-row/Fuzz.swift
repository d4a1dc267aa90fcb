import GeofenceEngine

// libFuzzer target "csv-row": `make fuzz` builds it with -sanitize=fuzzer,address and
// -DGEOFENCE_FUZZ; the ordinary build makes a program that replays the files it is given.
#if GEOFENCE_FUZZ
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntries.csvRows(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#else
@main enum Replay {
    static func main() { FuzzReplay.run(FuzzEntries.csvRows) }
}
#endif
