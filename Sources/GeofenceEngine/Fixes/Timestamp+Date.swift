// FoundationEssentials where the toolchain has it (Linux): `Date` and the JSON coders without
// the rest of Foundation, whose libraries (and ICU's) every process otherwise loads at start.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Timestamp {
    /// The instant `date` stands for, rounded to the millisecond.
    ///
    /// ```swift
    /// let fix = Fix(timestamp: Timestamp(Date()), latitude: 40.75, longitude: -73.98, accuracy: 12)
    /// ```
    public init(_ date: Date) {
        self.init(secondsSince1970: date.timeIntervalSince1970)
    }
}

extension Date {
    /// The instant `timestamp` stands for.
    public init(_ timestamp: Timestamp) {
        self.init(timeIntervalSince1970: timestamp.secondsSince1970)
    }
}

extension Fix {
    /// A fix taken at `date` (rounded to the millisecond).
    public init(timestamp date: Date, latitude: Double, longitude: Double, accuracy: Double? = nil, level: Int? = nil) {
        self.init(timestamp: Timestamp(date), latitude: latitude, longitude: longitude, accuracy: accuracy, level: level)
    }
}

extension GeofenceMonitor {
    /// ``advance(to:)-(Timestamp)`` at `date`.
    public func advance(to date: Date) throws(TrackerRejection) -> [GeofenceEvent] {
        try advance(to: Timestamp(date))
    }

    /// ``requestPresence(at:)-(Timestamp)`` at `date`.
    public func requestPresence(at date: Date) throws(TrackerRejection) -> [GeofenceEvent] {
        try requestPresence(at: Timestamp(date))
    }

    /// ``placesReading(at:)-(Timestamp)`` at `date`.
    public func placesReading(at date: Date) -> PlacesReading { placesReading(at: Timestamp(date)) }
}
