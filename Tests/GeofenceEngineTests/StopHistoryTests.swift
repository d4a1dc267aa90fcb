import Foundation
import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// The stop detector's bookkeeping: pruning, the bound on kept fixes, and the search.
@Suite("Stop history")
struct StopHistoryTests {
    typealias F = EventsFixtures
    static let r = 70.0
    static let chord = 2 * sin(r / (2 * Sphere.radius))
    static let pruneChord = 2 * sin(r / Sphere.radius)

    @Test("a fix more than 2 × stopRadius away drops every older fix")
    func prunesFarFixes() {
        var h = StopHistory()
        for k in 0..<10 { h.append(F.fix(Double(k), east: Double(k)), sequence: Int64(k), keepingFrom: 0, pruneChord: Self.pruneChord) }
        #expect(h.points.count == 10)
        h.append(F.fix(10, east: 144.5), sequence: 10, keepingFrom: 0, pruneChord: Self.pruneChord)  // > 140 m from fixes at 0...4
        #expect(h.points.map(\.sequence) == [5, 6, 7, 8, 9, 10])
        h.append(F.fix(11, east: 500), sequence: 11, keepingFrom: 0, pruneChord: Self.pruneChord)
        #expect(h.points.map(\.sequence) == [11])
    }

    @Test("fixes before the oldest open visit are dropped")
    func dropsBeforeVisit() {
        var h = StopHistory()
        for k in 0..<5 { h.append(F.fix(Double(k), east: 0), sequence: Int64(k), keepingFrom: 0, pruneChord: Self.pruneChord) }
        h.append(F.fix(5, east: 0), sequence: 5, keepingFrom: 3, pruneChord: Self.pruneChord)
        #expect(h.points.map(\.sequence) == [3, 4, 5])
    }

    @Test("at most StopHistory.limit fixes are kept, the newest")
    func bounded() {
        var h = StopHistory()
        let n = StopHistory.limit + 500
        for k in 0..<n {
            // Hovering within a few metres: nothing is ever pruned by distance.
            h.append(F.fix(Double(k), east: Double(k % 5)), sequence: Int64(k), keepingFrom: 0, pruneChord: Self.pruneChord)
        }
        #expect(h.points.count == StopHistory.limit)
        #expect(h.points.first?.sequence == Int64(n - StopHistory.limit) && h.points.last?.sequence == Int64(n - 1))
    }

    @Test("the latest fix from which the device has stayed within stopRadius of the mean")
    func search() {
        var h = StopHistory()
        // 0...10 s moving 50 m per second, then still at 500 m from 10 s to 200 s.
        var sequence: Int64 = 0
        for s in stride(from: 0, through: 200, by: 10) {
            h.append(F.fix(Double(s), east: Double(min(s, 10)) * 50), sequence: sequence, keepingFrom: 0, pruneChord: Self.pruneChord)
            sequence += 1
        }
        // At 200 s with stopSeconds 140: candidates are the fixes at ≤ 60 s; the latest is 60 s (sequence 6).
        #expect(h.latestStopStart(now: 200_000, stopMilliseconds: 140_000, earliest: 0, chord: Self.chord) == 6)
        // Not before the visit's first fix.
        #expect(h.latestStopStart(now: 200_000, stopMilliseconds: 140_000, earliest: 7, chord: Self.chord) == nil)
        // Too soon.
        #expect(h.latestStopStart(now: 200_000, stopMilliseconds: 195_000, earliest: 0, chord: Self.chord) == nil)
    }
}
