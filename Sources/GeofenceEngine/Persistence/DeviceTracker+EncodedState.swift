/// A tracker's state as compact bytes, for a store that keeps many devices and rewrites
/// them often (a server's database): the binary form of state files, a few dozen bytes a
/// device, made and read without `Codable`.
///
/// The form names fences by slot, so it is only meaningful on the fence set it was made
/// on: it starts with a digest of that set (each fence's id and fingerprint, in slot
/// order), and reading it onto a context on any other set throws rather than give one
/// fence's state to another. To carry a device across sets, use ``DeviceSnapshot`` and
/// ``DeviceTracker/restore(_:context:onFenceRemoved:)``, which match fences by id.
extension DeviceTracker {
    /// The first byte of an encoded state: the form's version.
    static let encodedStateVersion: UInt8 = 0xB1

    /// The tracker's state as bytes that ``init(encodedState:context:)`` reads back onto a
    /// context on the same fence set, to a tracker that carries on as this one would.
    /// - Complexity: O(k + s + e) for k fences touched, s kept stop fixes and e entered
    ///   fences; the first call on a context also hashes its fence set, O(n).
    public func encodedState() -> [UInt8] {
        var out = ByteWriter()
        // Enough for the usual sizes (a track about 10 bytes, a stop fix about 20), so the
        // buffer is not grown while written.
        out.bytes.reserveCapacity(48 + 24 * tracks.count + 24 * stops.count + 8 * places.entered.count)
        out.byte(Self.encodedStateVersion)
        out.word(context.fenceSetDigest)
        encodeBinary(to: &out)
        return out.bytes
    }

    /// The tracker ``encodedState()`` encoded, on `context`.
    /// - Throws: ``SnapshotError`` (no path): `wrongVersion` for another form's version,
    ///   `truncated` for bytes that end early, `corrupt` for bytes made on another fence set
    ///   or that no tracker writes.
    public init(encodedState bytes: [UInt8], context: TrackerContext) throws(SnapshotError) {
        func corrupt(_ detail: String) -> SnapshotError { SnapshotError(path: nil, problem: .corrupt("an encoded device state: \(detail)")) }
        guard let version = bytes.first else { throw SnapshotError(path: nil, problem: .truncated("an encoded device state: no bytes")) }
        guard version == Self.encodedStateVersion else {
            throw SnapshotError(path: nil, problem: .wrongVersion(found: Int(version), expected: Int(Self.encodedStateVersion)))
        }
        // Returned straight out of the closure: a `Result` in between cost a copy of the
        // tracker (its arrays retained and released) on every decoding.
        do {
            self = try bytes.withUnsafeBytes { (raw) throws(SnapshotError) -> DeviceTracker in
                var reader = ByteReader(raw, from: 1)
                do throws(ByteReadError) {
                    let digest = try reader.word("the fence set's digest")
                    guard digest == context.fenceSetDigest else {
                        throw reader.fail("it was made on another fence set than the context's (digest \(digest), the context's \(context.fenceSetDigest))")
                    }
                    let tracker = try DeviceTracker(decodingBinary: &reader, context: context)
                    guard reader.isAtEnd else { throw reader.fail("\(raw.count - reader.offset) bytes after the state") }
                    return tracker
                } catch {
                    throw error.truncated ? SnapshotError(path: nil, problem: .truncated("an encoded device state \(error.detail)"))
                        : corrupt("\(error.detail) (byte \(error.offset))")
                }
            }
        } catch let error as SnapshotError {
            throw error
        } catch {
            // `withUnsafeBytes` rethrows untyped; the closure throws nothing else.
            throw corrupt("\(error)")
        }
    }
}

extension TrackerContext {
    /// A 64-bit digest of the fence set: its count, then each fence's fingerprint (shape,
    /// radius, level) and id, in slot order. Two sets with the same digest hold the same
    /// fences in the same slots, barring a hash collision.
    /// - Complexity: O(n) on first use, then O(1).
    var fenceSetDigest: UInt64 {
        if let known = digest.lock.withLock({ digest.value }) { return known }
        var out = ByteWriter()
        out.word(UInt64(fenceSet.count))
        for slot in 0..<fenceSet.count {
            out.word(fenceSet.fingerprint(at: slot))
            out.blob(fenceSet.geofenceID(at: slot).utf8)
        }
        let value = out.bytes.withUnsafeBytes { XXH64.hash($0) }
        digest.lock.withLock { digest.value = value }
        return value
    }

    /// The digest once made, behind a pthread mutex (which ThreadSanitizer sees): contexts
    /// are shared by every thread, and two may make it at once (both get the same value).
    final class DigestCache: @unchecked Sendable {
        let lock = Platform.Lock()
        var value: UInt64?
    }
}
