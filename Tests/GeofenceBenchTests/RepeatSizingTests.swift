import Testing
@testable import geofence_bench

/// How `geofence-bench contains` sizes its timed repeats: from warm passes, not from the
/// first (cold) one, so a repeat lasts the 50 ms its help promises.
@Suite("The benchmark's repeats")
struct RepeatSizingTests {
    @Test("passes are counted from warm passes: a slow first pass does not shorten the repeats")
    func warmPassesIgnoreTheColdOne() {
        // The first repeat (one cold pass, 12 ms) is over before `warmPasses` is asked; the
        // passes after it take 4 ms each.
        var calls = 0
        let passes = ContainmentRun.warmPasses { () -> Double in
            calls += 1
            return 0.004
        }
        // 13 passes of 4 ms reach 50 ms; a repeat then makes 13 (52 ms), not the 5 that a
        // 12 ms pass would give.
        #expect(calls == 13)
        #expect(passes == 13)
        #expect(Double(passes) * 0.004 >= ContainmentRun.repeatSeconds)
        #expect(ContainmentRun.passes(secondsPerPass: 0.012) == 5)
    }

    @Test("the mean of the warm passes sizes the repeat")
    func meanOfWarmPasses() {
        // 30, 12, 12 ms: 54 ms in three passes, 18 ms a pass, three passes a repeat (the
        // first alone would give two).
        var times: [Double] = [0.030, 0.012, 0.012, 0.012]
        let passes = ContainmentRun.warmPasses { times.removeFirst() }
        #expect(times.count == 1)
        #expect(passes == 3)
        #expect(ContainmentRun.passes(secondsPerPass: 0.030) == 2)
    }

    @Test("passes are bounded: at least 1 for a slow pass, at most 1,000 for an instant one")
    func bounds() {
        #expect(ContainmentRun.passes(secondsPerPass: 3.0) == 1)
        #expect(ContainmentRun.passes(secondsPerPass: 0) == 1_000)
        var calls = 0
        #expect(ContainmentRun.warmPasses { calls += 1; return 0 } == 1_000)
        #expect(calls == 1_000)
        calls = 0
        #expect(ContainmentRun.warmPasses { calls += 1; return 0.2 } == 1)
        #expect(calls == 1)
    }
}
