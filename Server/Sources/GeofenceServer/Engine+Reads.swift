import Foundation
import GeofenceEngine

/// What `GET /v1/devices/{id}` and `GET /healthz` read from the live state.
extension Engine {
    /// `{"deviceId","inside":[…],"places":{…},"lastFix":{…},"latestTime","events"}`, or nil
    /// for a device the server has never seen. `inside` are the fences the device is
    /// reported inside (an entrance was published, its exit not yet).
    func deviceJSON(_ id: String) -> Data? {
        guard let entry = devices[id] else { return nil }
        let tracker = self.tracker(id, entry)
        let set = fences.set
        var out = "{\"deviceId\":"
        JSONText.appendString(id, to: &out)
        out += ",\"inside\":"
        JSONText.appendValue(.array(tracker.reportedInside.map { .string(set.geofenceID(at: $0)) }), to: &out)
        let places = tracker.placesReading
        func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        out += ",\"places\":"
        JSONText.appendValue(.object(JSONObject(members: [
            .init(key: "current", value: optional(places.current)),
            .init(key: "lastEntered", value: optional(places.lastEntered)),
            .init(key: "lastExited", value: optional(places.lastExited)),
            .init(key: "entered", value: .array(places.entered.map { .string($0) })),
        ])), to: &out)
        out += ",\"lastFix\":"
        if let fix = tracker.lastFix {
            out += "{\"timestamp\":\(fix.timestamp.milliseconds),\"lat\":"
            JSONText.appendNumber(fix.latitude, to: &out)
            out += ",\"lng\":"
            JSONText.appendNumber(fix.longitude, to: &out)
            if let accuracy = fix.accuracy {
                out += ",\"accuracy\":"
                JSONText.appendNumber(accuracy, to: &out)
            }
            if let level = fix.level { out += ",\"level\":\(level)" }
            out += "}"
        } else {
            out += "null"
        }
        out += ",\"latestTime\":" + (tracker.latestTime.map { String($0.milliseconds) } ?? "null")
        out += ",\"events\":\(entry.events)}"
        return Data(out.utf8)
    }

    /// `{"status":"ok","fenceVersion","fences","devices","nextSeq"}`.
    func health() -> Data {
        Data("{\"status\":\"ok\",\"fenceVersion\":\(fences.version),\"fences\":\(fences.set.count),\"devices\":\(devices.count),\"nextSeq\":\(nextSeq)}".utf8)
    }
}
