import GeofenceEngine

/// The devices changed while a fence update is prepared, moved to its set as they change.
///
/// The finish step must move again, from their state then, the devices that fixes changed
/// since the begin step, and it holds ingest up while it does: under full load tens of
/// thousands of devices, 100 to 150 ms. So the engine makes each of those moves when it makes
/// the change (``Engine/noteChange(_:)``), from the state it has just stored, and the finish
/// step takes them as they are. The move is the one the finish step would make, from the same
/// state, so the result is the same; a device changed again is moved again, and one forgotten
/// loses its move. The cost, one move a fix while an update is prepared, is the one the
/// finish step had, spread over the requests instead of holding them all up.
///
/// Only the update begun first while none was prepared gets moves; another one started
/// meanwhile makes its own at its finish step. The moves are dropped once the set they were
/// made from is no longer in force.
extension Engine {
    struct Premove: Sendable {
        /// The update's ``FenceMove/serial``.
        let serial: Int
        /// The fence version the update starts from.
        let version: Int64
        let update: FenceUpdate
        let context: TrackerContext
        /// The changed devices, moved, with the due time the engine holds for them.
        var moved: [String: (entry: Device, events: [PreparedEvent], idle: Bool, previous: Int64)] = [:]
    }

    /// Moves `id`, just changed, to the prepared update's set.
    func premove(_ id: String) {
        guard premove!.version == fences.version else {
            premove = nil
            return
        }
        guard let entry = devices[id], let done = try? FenceMove.move(id, entry, premove!.update, from: premove!.context) else {
            // Forgotten, or the move failed: the finish step moves it (or reports why not).
            premove!.moved[id] = nil
            return
        }
        premove!.moved[id] = (done.entry, done.events.map { PreparedEvent($0, deviceID: id) }, done.idle, entry.nextDue)
    }

    /// The moves made for `move`'s update, none if it is not the one prepared.
    func premoves(for move: FenceMove) -> [String: (entry: Device, events: [PreparedEvent], idle: Bool, previous: Int64)] {
        guard let premove, premove.serial == move.serial, premove.version == fences.version else { return [:] }
        return premove.moved
    }
}
