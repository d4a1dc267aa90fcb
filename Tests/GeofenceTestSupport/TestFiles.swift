import Foundation
import GeofenceEngine

/// Changes to files that tests make on purpose.
public enum TestFiles {
    /// Flips one bit of the byte at `offset` in place (same inode, same size), then sets the
    /// modification time back to the nanosecond: a change only the change time shows.
    /// - Returns: the file's status before.
    @discardableResult
    package static func flipBitKeepingModificationTime(_ path: String, at offset: Int) throws -> Platform.FileStatus {
        guard let before = Platform.status(atPath: path), let handle = FileHandle(forUpdatingAtPath: path) else {
            throw CocoaError(.fileNoSuchFile)
        }
        try handle.seek(toOffset: UInt64(offset))
        guard let byte = try handle.read(upToCount: 1)?.first else { throw CocoaError(.fileReadUnknown) }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ 0x10])
        try handle.close()
        guard Platform.setModified(path, nanoseconds: before.modified) else { throw CocoaError(.fileWriteUnknown) }
        return before
    }
}
