import Foundation
import GeofenceEngine
import Testing

@Suite("GET /v1/nearest and /v1/plan")
struct QueryTests {
    @Test("nearest: the library's nearest fences and distances (to the millimetre); bad positions 400")
    func nearest() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let result = try server.request("GET", "/v1/nearest?lat=40.7505&lng=-73.9790&count=3")
        #expect(result.status == 200)
        let served = result.json["nearest"] as? [[String: Any]] ?? []
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet.load(path: folder.path("fences.geojson")))
        let expected = try evaluator.nearest(latitude: 40.7505, longitude: -73.9790, count: 3)
        #expect(served.map { $0["geofenceId"] as? String ?? "" } == expected.map(\.geofenceID))
        for (entry, fence) in zip(served, expected) {
            #expect(abs((entry["distance"] as? Double ?? -1) - fence.distance) <= 0.0005)
        }
        #expect(try server.request("GET", "/v1/nearest?lat=91&lng=0").status == 400)
        #expect(try server.request("GET", "/v1/nearest?lat=x&lng=0").status == 400)
    }

    @Test("plan: the library planner's regions, refresh region and difference against what is registered")
    func plan() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let result = try server.request("GET", "/v1/plan?lat=40.7505&lng=-73.9790&platform=3&registered=gym,gone")
        #expect(result.status == 200)
        let set = try FenceSet.load(path: folder.path("fences.geojson"))
        let expected = try RegistrationPlanner(budget: .custom(3)).plan(
            latitude: 40.7505, longitude: -73.9790, registered: ["gym", "gone"], evaluator: try ContainmentEvaluator(fenceSet: set))
        let monitor = result.json["monitor"] as? [[String: Any]] ?? []
        #expect(monitor.map { $0["geofenceId"] as? String ?? "" } == expected.monitor.map(\.geofenceID))
        #expect(result.json["add"] as? [String] == expected.add)
        #expect(result.json["remove"] as? [String] == expected.remove)
        let region = result.json["refreshRegion"] as? [String: Any]
        #expect(expected.refreshRegion != nil && region != nil)
        #expect(abs((region?["radius"] as? Double ?? -1) - (expected.refreshRegion?.radius ?? 0)) <= 0.001)
        #expect(try server.request("GET", "/v1/plan?lat=40.75&lng=-73.98&platform=phone").status == 400)
    }
}
