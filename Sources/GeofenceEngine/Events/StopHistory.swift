import RealModule
@_spi(Engine) import GeofenceGeometry
/// The recent fixes of a device's open visits, to tell when it is *stopped* (semantics §5):
/// for some earlier fix *f* of the visit, *f* and every fix after it lie within `stopRadius`
/// of their mean position, and at least `stopSeconds` have passed since *f*.
///
/// The fixes of a visit are those processed once its entrance had fired (by sequence number,
/// not by time: a fix at the entrance's instant that was still outside is not of the visit).
///
/// The mean position is the normalised mean of the fixes as unit vectors (the spherical
/// centroid); "within" is great-circle distance, tested as a chord length. Exact, with two
/// safe prunings: fixes older than every open visit are dropped, and when a new fix lies more
/// than `2 × stopRadius` from an older one, that one and all before it are dropped (any set
/// holding both has a point farther than `stopRadius` from its mean, now and for every later
/// fix). One bound is not exact: at most ``limit`` fixes are kept (a device hovering within
/// 140 m of itself for over an hour of 1 Hz fixes without ever being stopped); the oldest go.
struct StopHistory: Sendable {
    struct Point: Hashable, Sendable {
        /// The fix's sequence number among the device's accepted fixes.
        var sequence: Int64
        var time: Int64
        var latitude: Double
        var longitude: Double
        var x: Double, y: Double, z: Double

        init(sequence: Int64, time: Int64, latitude: Double, longitude: Double) {
            self.sequence = sequence
            self.time = time
            self.latitude = latitude
            self.longitude = longitude
            let phi = latitude * Sphere.degreesToRadians, lambda = longitude * Sphere.degreesToRadians
            let c = Double.cos(phi)
            x = c * Double.cos(lambda)
            y = c * Double.sin(lambda)
            z = Double.sin(phi)
        }

        @inline(__always)
        func chord(_ other: Point) -> Double { chordSquared(other.x, other.y, other.z).squareRoot() }

        @inline(__always)
        func chordSquared(_ x: Double, _ y: Double, _ z: Double) -> Double {
            let dx = self.x - x, dy = self.y - y, dz = self.z - z
            return dx * dx + dy * dy + dz * dz
        }
    }

    /// The most fixes kept.
    static let limit = 4096

    /// Time-ordered; the kept points are `storage[head...]` (the front is dropped lazily, so
    /// dropping is O(1) amortised).
    private var storage: [Point] = []
    private var head = 0
    /// Index in `storage` of the last point found too far from a mean: tested first next
    /// time, since it usually still is (speed only; results do not depend on it).
    private var witness = -1
    /// A reference point and a chord such that every kept point lies within `spread` of it
    /// (an upper bound: dropping points keeps it true).
    private var anchor: Point?
    private var spread = 0.0

    init() {}

    init(points: [Point]) {
        storage = points
        if let last = points.last {
            anchor = last
            for q in points { spread = Swift.max(spread, last.chord(q)) }
        }
    }

    /// The kept fixes, oldest first.
    var points: ArraySlice<Point> { storage[head...] }

    var isEmpty: Bool { head == storage.count }

    /// How many fixes are kept.
    var count: Int { storage.count - head }

    mutating func clear() {
        if storage.isEmpty { return }
        storage.removeAll(keepingCapacity: true)
        head = 0
        witness = -1
        anchor = nil
        spread = 0
    }

    /// Adds a fix, after dropping what can no longer matter.
    ///
    /// The scan for kept points more than `2 × stopRadius` from the new fix is skipped when
    /// the triangle inequality rules them out (every kept point lies within `spread` of the
    /// anchor, so none is farther than `chord(anchor, new) + spread` from the new fix); a
    /// device hovering in one place, the long case, thus pays O(1) here. After a scan the new
    /// fix becomes the anchor.
    /// - Complexity: O(1) amortised usually; O(n) for n kept fixes when a scan is due.
    mutating func append(_ fix: Fix, sequence: Int64, keepingFrom earliest: Int64, pruneChord: Double) {
        let point = Point(sequence: sequence, time: fix.timestamp.milliseconds, latitude: fix.latitude, longitude: fix.longitude)
        var first = head
        while first < storage.count && storage[first].sequence < earliest { first += 1 }
        if first < storage.count, let anchor, anchor.chord(point) + spread > pruneChord {
            // Scan back from the newest; the points kept are those scanned before a far one.
            var newSpread = 0.0
            var k = storage.count - 1
            while k >= first {
                let d = storage[k].chord(point)
                if d > pruneChord { first = k + 1; break }
                newSpread = Swift.max(newSpread, d)
                k -= 1
            }
            self.anchor = point
            spread = newSpread
        }
        if storage.count + 1 - first > Self.limit { first = storage.count + 1 - Self.limit }
        head = first
        if head == storage.count {
            clear()
            anchor = point
        } else if head >= 1024 && head * 2 >= storage.count {
            storage.removeFirst(head)
            witness -= head
            head = 0
        }
        if witness < head { witness = -1 }
        storage.append(point)
        if let anchor { spread = Swift.max(spread, anchor.chord(point)) } else { anchor = point }
    }

    /// With the newest point being the fix at `now`: the sequence number of the latest
    /// earlier fix *f* with `sequence(f) ≥ earliest` and `time(f) ≤ now − stopMilliseconds`
    /// such that every fix from *f* on lies within the chord of the mean; nil when none.
    /// - Complexity: O(n) to walk back with running sums, plus O(n) per candidate tested
    ///   (usually O(1): the witness fails it at once, or the first candidate succeeds).
    mutating func latestStopStart(now: Int64, stopMilliseconds: Int64, earliest: Int64, chord: Double) -> Int64? {
        guard storage.count - head >= 2 else { return nil }
        let last = storage.count - 1
        let newest = now &- stopMilliseconds
        let chord2 = chord * chord
        var sx = storage[last].x, sy = storage[last].y, sz = storage[last].z
        var f = last - 1
        while f >= head {
            let p = storage[f]
            if p.sequence < earliest { break }
            sx += p.x
            sy += p.y
            sz += p.z
            if p.time <= newest {
                let norm = (sx * sx + sy * sy + sz * sz).squareRoot()
                if norm > 0 && allWithin(from: f, through: last, mean: (sx / norm, sy / norm, sz / norm), chord2) {
                    return p.sequence
                }
            }
            f -= 1
        }
        return nil
    }

    private mutating func allWithin(from f: Int, through last: Int, mean m: (Double, Double, Double), _ chord2: Double) -> Bool {
        if witness >= f && witness <= last && storage[witness].chordSquared(m.0, m.1, m.2) > chord2 { return false }
        for k in stride(from: last, through: f, by: -1) where storage[k].chordSquared(m.0, m.1, m.2) > chord2 {
            witness = k
            return false
        }
        return true
    }
}
