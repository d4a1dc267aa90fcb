// The compiled fence file (`geofence compile`, `FenceSet.write(to:)`, `FenceSet.open(path:)`)
// -------------------------------------------------------------------------------------------
// A fence set's flat storage as it is in memory, so opening it is a read-only `mmap` and a
// check, with no parsing. All integers little-endian; every section starts at a multiple of
// 64 bytes. Layout (docs/compiled-fence-file.md has the section catalogue):
//
//   [0, 64)            header
//     0   8 bytes      magic 89 47 46 53 0D 0A 1A 0A ("\x89GFS\r\n\x1A\n", PNG-style: a text-mode
//                      transfer or a truncated copy changes it)
//     8   UInt32       format version (3)
//     12  UInt32       section count k
//     16  UInt64       file size in bytes
//     24  UInt64       fence count
//     32  UInt64       content hash: XXH64 (seed 0) of the section table, padding included
//                      (the table holds every section's digest, so this covers everything)
//     40  UInt64       header hash: XXH64 (seed 0) of these 64 bytes with this field zeroed
//     48  16 bytes     zero
//   [64, T)            section table: k entries of 32 bytes, zero-padded to a multiple of 64
//     0   UInt32       section id (four ASCII characters, e.g. "VERT")
//     4   UInt32       element size in bytes (1, 2, 4, 8, 16 or 32)
//     8   UInt64       offset of the section from the start of the file
//     16  UInt64       byte count (a multiple of the element size)
//     24  UInt64       digest (below)
//   [T, end)           the sections, back to back in table order, each zero-padded to a
//                      multiple of 64; the file ends at the end of the last one's padding.
//
// Section digest: the section's bytes and padding, cut into blocks of 1 MiB (the last one
// shorter); block i's XXH64 with seed i; the digest is the XXH64, seeded with the padded
// length, of those block digests as little-endian UInt64s. Blocks are verified in parallel.
//
// Versions: a reader opens only its own version and refuses others with a message that says
// to recompile. Sections with ids it does not know are skipped (checked, not used), so a
// section that only adds information needs no new version; a section a reader must use to
// answer correctly, or a changed meaning, needs a version bump.

/// Constants and the section catalogue of the compiled fence file.
enum FenceFileFormat {
    static let magic: [UInt8] = [0x89, 0x47, 0x46, 0x53, 0x0D, 0x0A, 0x1A, 0x0A]
    /// 2: containment records (`FREC`, 64 bytes per fence) replace the circle records
    /// (`CREC`), polygons carry classified cells (`PCCL`, `PCED`), and the directory an
    /// occupancy bit per cell (`CDOC`).
    /// 3: `CDOC` is the directory's coverage, a bit per fine cell (2^s × 2^s per cell, s the
    /// new 17th word of `META`).
    static let version: UInt32 = 3
    static let elementSizes = [1, 2, 4, 8, 16, 32]
    static let alignment = 64
    static let headerSize = 64
    static let entrySize = 32
    static let blockSize = 1 << 20

    /// `n` rounded up to the alignment.
    static func padded(_ n: Int) -> Int { (n + alignment - 1) / alignment * alignment }

    /// True when `bytes` start with the magic.
    static func hasMagic(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= magic.count && zip(bytes.prefix(magic.count), magic).allSatisfy { $0 == $1 }
    }
}

/// A section's id: four ASCII characters, stored as their bytes (a little-endian UInt32).
struct FenceSectionID: Hashable, Sendable, CustomStringConvertible {
    let raw: UInt32

    init(raw: UInt32) { self.raw = raw }

    init(_ tag: StaticString) {
        precondition(tag.utf8CodeUnitCount == 4, "a section id has four characters")
        var raw: UInt32 = 0
        for i in (0..<4).reversed() { raw = raw << 8 | UInt32(tag.utf8Start[i]) }
        self.raw = raw
    }

    /// The four characters (bytes outside printable ASCII as `?`).
    var description: String {
        String((0..<4).map { i -> Character in
            let b = UInt8(truncatingIfNeeded: raw >> (8 * UInt32(i)))
            return b >= 0x20 && b < 0x7F ? Character(UnicodeScalar(b)) : "?"
        })
    }

    // The catalogue (docs/compiled-fence-file.md says what each holds).
    static let meta = FenceSectionID("META")
    static let ids = FenceSectionID("IDS "), idOffsets = FenceSectionID("IDOF"), idTable = FenceSectionID("IDHT")
    static let properties = FenceSectionID("PRPS"), propertyOffsets = FenceSectionID("PROF")
    static let libraries = FenceSectionID("LIBS"), libraryOffsets = FenceSectionID("LIBO")
    static let attributes = FenceSectionID("ATTR"), levels = FenceSectionID("LEVL"), ranks = FenceSectionID("RANK")
    static let dwellSeconds = FenceSectionID("DWLS"), dwellMilliseconds = FenceSectionID("DWLM")
    static let featureIndexes = FenceSectionID("FIDX"), enclosingCircles = FenceSectionID("CIRC")
    static let fragments = FenceSectionID("EVTF"), fragmentOffsets = FenceSectionID("EVTO")
    static let storageIndex = FenceSectionID("STIX"), records = FenceSectionID("FREC")
    static let levelBuffer = FenceSectionID("LVLB")
    static let partStarts = FenceSectionID("PRTS"), ringStarts = FenceSectionID("RNGS")
    static let vertexStarts = FenceSectionID("VTXS"), vertices = FenceSectionID("VERT")
    static let chunkBounds = FenceSectionID("ECBD"), chunkRanges = FenceSectionID("ECRG")
    static let slotChunks = FenceSectionID("ECSL")
    static let polygonCells = FenceSectionID("PCCL"), polygonCellEdges = FenceSectionID("PCED")
    static let treeBoxes = FenceSectionID("RTBX"), treeRefs = FenceSectionID("RTRF"), treeLevels = FenceSectionID("RTLV")
    static let cellStarts = FenceSectionID("CDST"), cellBoxes = FenceSectionID("CDBX"), cellSlots = FenceSectionID("CDSL")
    static let largeBoxes = FenceSectionID("CDLB"), largeSlots = FenceSectionID("CDLS")
    static let cellOccupancy = FenceSectionID("CDOC")
    /// Added in 0.2 without a version bump (it only adds information): a reader that does not
    /// find it computes the fingerprints on demand.
    static let fingerprints = FenceSectionID("FPRT")
}

/// The scalars of a set, stored as the META section: 16 little-endian 64-bit words.
struct FenceFileMeta {
    var count: Int
    var repairedCount: Int
    var anyLevelFence: Bool
    var largestRadius: Double
    var treeNodeSize: Int
    var treeCount: Int
    var grid: CellDirectory.Grid

    static let wordCount = 17

    var words: [UInt64] {
        [
            UInt64(count), UInt64(repairedCount), anyLevelFence ? 1 : 0, largestRadius.bitPattern,
            UInt64(treeNodeSize), UInt64(treeCount), grid.isEnabled ? 1 : 0,
            grid.minLongitude.bitPattern, grid.minLatitude.bitPattern, grid.maxLongitude.bitPattern,
            grid.maxLatitude.bitPattern, grid.inverseCellWidth.bitPattern, grid.inverseCellHeight.bitPattern,
            UInt64(grid.columns), UInt64(grid.rows), UInt64(grid.maximumCandidates), UInt64(grid.fineShift),
        ]
    }

    /// The scalars from the words, or nil when a count is out of range.
    init?(words w: UnsafeBufferPointer<UInt64>) {
        guard w.count == Self.wordCount, w[2] <= 1, w[6] <= 1 else { return nil }
        let limit = UInt64(Int32.max)
        guard w[0] < limit, w[1] <= w[0], w[4] >= 2, w[4] <= 65_536, w[5] < limit, w[13] <= limit, w[14] <= limit,
            w[15] < limit, w[16] <= UInt64(CellDirectory.fineShift)
        else { return nil }
        count = Int(w[0])
        repairedCount = Int(w[1])
        anyLevelFence = w[2] == 1
        largestRadius = Double(bitPattern: w[3])
        treeNodeSize = Int(w[4])
        treeCount = Int(w[5])
        grid = CellDirectory.Grid(
            isEnabled: w[6] == 1, minLongitude: Double(bitPattern: w[7]), minLatitude: Double(bitPattern: w[8]),
            maxLongitude: Double(bitPattern: w[9]), maxLatitude: Double(bitPattern: w[10]),
            inverseCellWidth: Double(bitPattern: w[11]), inverseCellHeight: Double(bitPattern: w[12]),
            columns: Int(w[13]), rows: Int(w[14]), maximumCandidates: Int(w[15]), fineShift: Int(w[16]))
    }

    init(_ set: FenceSet) {
        count = set.count
        repairedCount = set.repairedCount
        anyLevelFence = set.storage.anyLevelFence
        largestRadius = set.storage.largestRadius
        treeNodeSize = set.index.nodeSize
        treeCount = set.index.count
        grid = set.directory.grid
    }
}
