import Foundation
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// The slow, obvious twin of ``DeviceTracker`` for the property tests.
///
/// Dense state (an entry for every fence), time stepped one second at a time (every time in
/// the random walks is a whole second), and every rule written the way semantics §4–§5
/// states it: at each tick, a fence whose raw state differs from its reported state and
/// whose window is closed fires; a dwell fires at the tick when the visit has lasted its
/// dwell time; a stop is searched for among all the visit's fixes. No due-time formula, no
/// sparse tracks, no pruning, no cached minimum.
struct ReferenceTracker {
    enum Input {
        case fix(Fix)
        case presence(Timestamp)
    }

    let fenceSet: FenceSet
    let config: TrackerConfiguration
    let evaluator: ContainmentEvaluator
    var raw: [Bool], reported: [Bool], dwellDone: [Bool], venueDone: [Bool]
    var windowEnd: [Int64?], visitStart: [Int64], visitFirst: [Int], lastPresence: [Int64]
    var accepted: [Fix] = []
    var lastTime: Int64?
    var events: [GeofenceEvent] = []

    init(fenceSet: FenceSet, config: TrackerConfiguration) throws {
        self.fenceSet = fenceSet
        self.config = config
        evaluator = try ContainmentEvaluator(fenceSet: fenceSet)
        let n = fenceSet.count
        raw = Array(repeating: false, count: n)
        reported = raw
        dwellDone = raw
        venueDone = raw
        windowEnd = Array(repeating: nil, count: n)
        visitStart = Array(repeating: 0, count: n)
        visitFirst = Array(repeating: 0, count: n)
        lastPresence = visitStart
    }

    static func ms(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }
    var ignore: Int64 { Self.ms(config.ignorePeriod) }
    func dwell(_ i: Int) -> Int64 {
        let s = fenceSet.fences[i].dwellSeconds ?? config.dwell
        return s > 0 ? Swift.max(1, Self.ms(s)) : 0
    }

    /// Feeds one input; false when the tracker must reject it.
    mutating func feed(_ input: Input) -> Bool {
        let t: Int64
        switch input {
        case .fix(let fix):
            guard fix.coordinate.isValid else { return false }
            if let a = fix.accuracy, !(a >= 0 && a <= config.maxAccuracy) { return false }
            t = fix.timestamp.milliseconds
        case .presence(let time):
            t = time.milliseconds
        }
        if let last = lastTime {
            guard t >= last else { return false }
            var tick = last + 1000
            while tick < t {
                fireChecks(at: tick, currentFix: nil)
                tick += 1000
            }
        }
        lastTime = t
        switch input {
        case .fix(let fix):
            accepted.append(fix)
            let index = accepted.count - 1
            applyRaw(fix, at: t)
            fireChecks(at: t, currentFix: index)
            venue(fix, index: index, at: t)
            if let interval = config.presenceInterval.map(Self.ms) {
                for i in 0..<fenceSet.count where reported[i] && t - lastPresence[i] >= interval {
                    lastPresence[i] = t
                    emit(.presence, i, t)
                }
            }
        case .presence:
            fireChecks(at: t, currentFix: nil)
            for i in 0..<fenceSet.count where reported[i] {
                lastPresence[i] = t
                emit(.presence, i, t)
            }
        }
        return true
    }

    /// The end of input: tick on until nothing is pending.
    mutating func finish() {
        guard var tick = lastTime else { return }
        while (0..<fenceSet.count).contains(where: { raw[$0] != reported[$0] || (reported[$0] && !dwellDone[$0] && dwell($0) > 0) }) {
            tick += 1000
            fireChecks(at: tick, currentFix: nil)
        }
    }

    mutating func emit(_ type: GeofenceEvent.EventType, _ i: Int, _ t: Int64) {
        let p = accepted.last!
        events.append(
            GeofenceEvent(
                type: type, timestamp: Timestamp(milliseconds: t), slot: Int32(i), geofenceID: fenceSet.fences[i].geofenceID,
                latitude: p.latitude, longitude: p.longitude))
    }

    func levelOK(_ i: Int, _ level: Int?) -> Bool {
        guard let fenceLevel = fenceSet.fences[i].level else { return config.globalFences }
        return config.levelFences && level == fenceLevel
    }

    mutating func applyRaw(_ fix: Fix, at t: Int64) {
        for i in 0..<fenceSet.count {
            let d = try! evaluator.distance(slot: i, latitude: fix.latitude, longitude: fix.longitude)
            let tolerance = reported[i] ? config.exitToleranceFraction : config.enterToleranceFraction
            var threshold = tolerance * fenceSet.fences[i].radius
            if config.accuracyBuffer, let a = fix.accuracy, a > 0 { threshold += a }
            let now = levelOK(i, fix.level) && d <= threshold
            if now != raw[i] {
                raw[i] = now
                if let end = windowEnd[i], end > t { windowEnd[i] = t + ignore }
            }
        }
    }

    mutating func fireChecks(at t: Int64, currentFix: Int?) {
        for i in 0..<fenceSet.count where raw[i] != reported[i] && (windowEnd[i] ?? .min) <= t {
            reported[i] = raw[i]
            windowEnd[i] = t + ignore
            if reported[i] {
                visitStart[i] = t
                visitFirst[i] = currentFix ?? accepted.count
                dwellDone[i] = false
                venueDone[i] = false
                lastPresence[i] = t
                emit(.entrance, i, t)
            } else {
                emit(.exit, i, t)
            }
        }
        for i in 0..<fenceSet.count where reported[i] && !dwellDone[i] && dwell(i) > 0 && t >= visitStart[i] + dwell(i) {
            dwellDone[i] = true
            emit(.dwell, i, t)
        }
    }

    static func unit(_ f: Fix) -> (Double, Double, Double) {
        let phi = f.latitude * Double.pi / 180, lambda = f.longitude * Double.pi / 180
        return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }

    mutating func venue(_ fix: Fix, index: Int, at t: Int64) {
        let chord = 2 * sin(config.stopRadius / (2 * Sphere.radius))
        let stop = Self.ms(config.stopSeconds)
        for i in 0..<fenceSet.count where reported[i] && !venueDone[i] && (dwellDone[i] || dwell(i) == 0) {
            guard visitFirst[i] < index else { continue }
            var stopped = false
            for f in visitFirst[i]..<index where accepted[f].timestamp.milliseconds <= t - stop {
                let vectors = accepted[f...index].map(Self.unit)
                let s = vectors.reduce((0.0, 0.0, 0.0)) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2) }
                let norm = (s.0 * s.0 + s.1 * s.1 + s.2 * s.2).squareRoot()
                let m = (s.0 / norm, s.1 / norm, s.2 / norm)
                if vectors.allSatisfy({ let d = ($0.0 - m.0, $0.1 - m.1, $0.2 - m.2); return (d.0 * d.0 + d.1 * d.1 + d.2 * d.2).squareRoot() <= chord }) {
                    stopped = true
                    break
                }
            }
            if stopped {
                venueDone[i] = true
                emit(.venueConfirmed, i, t)
            }
        }
    }
}
