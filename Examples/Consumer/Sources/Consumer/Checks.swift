/// Counts the walk-through's checks and names each one that fails.
struct Checks {
    private(set) var passed = 0
    private(set) var failed = 0

    mutating func expect(_ condition: Bool, _ what: @autoclosure () -> String) {
        if condition {
            passed += 1
        } else {
            fail(what())
        }
    }

    mutating func fail(_ message: String) {
        failed += 1
        print("FAILED: \(message)")
    }
}
