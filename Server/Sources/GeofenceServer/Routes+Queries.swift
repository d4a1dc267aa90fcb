import Foundation
import GeofenceEngine
import Hummingbird

/// `GET /v1/nearest?lat&lng&count[&level]` and
/// `GET /v1/plan?lat&lng&platform=ios|android|N[&accuracy][&registered=a,b][&reserved=K][&hysteresis=F][&level]`
/// (scope `read`): a bad or missing parameter, or a position out of range, is a 400.
extension Routes {
    func register(queriesOn router: Router<BasicRequestContext>) {
        router.get("v1/nearest") { request, _ in await getNearest(request) }
        router.get("v1/plan") { request, _ in await getPlan(request) }
    }

    /// The query's position, or the 400 to answer.
    func position(_ request: Request) -> Result<(Double, Double, Int?), BodyRefusal> {
        let query = request.uri.queryParameters
        guard let lat = query.get("lat").flatMap(Double.init), let lng = query.get("lng").flatMap(Double.init) else {
            return .failure(BodyRefusal(response: HTTPReply.error(.badRequest, "lat and lng must be numbers (degrees)")))
        }
        var level: Int? = nil
        if let text = query.get("level") {
            guard let value = Int(text) else { return .failure(BodyRefusal(response: HTTPReply.error(.badRequest, "level must be an integer"))) }
            level = value
        }
        return .success((lat, lng, level))
    }

    func getNearest(_ request: Request) async -> Response {
        if let refusal = refusal(request, needs: .read) { return refusal }
        let (lat, lng, level): (Double, Double, Int?)
        switch position(request) {
        case .success(let value): (lat, lng, level) = value
        case .failure(let refusal): return refusal.response
        }
        let count = request.uri.queryParameters.get("count").map { Int($0) } ?? 10
        guard let count, (1...1000).contains(count) else { return HTTPReply.error(.badRequest, "count must be 1 to 1000") }
        do {
            return HTTPReply.json(try await engine.nearestJSON(latitude: lat, longitude: lng, count: count, level: level))
        } catch {
            return HTTPReply.error(.badRequest, "\(error)")
        }
    }

    func getPlan(_ request: Request) async -> Response {
        if let refusal = refusal(request, needs: .read) { return refusal }
        let (lat, lng, level): (Double, Double, Int?)
        switch position(request) {
        case .success(let value): (lat, lng, level) = value
        case .failure(let refusal): return refusal.response
        }
        let query = request.uri.queryParameters
        guard let platform = query.get("platform"), let budget = RegistrationPlanner.Budget(argument: platform) else {
            return HTTPReply.error(.badRequest, "platform must be ios, android or a number of regions")
        }
        let accuracy = query.get("accuracy").map { Double($0) } ?? 0
        let reserved = query.get("reserved").map { Int($0) } ?? 0
        let hysteresis = query.get("hysteresis").map { Double($0) } ?? RegistrationPlanner.defaultHysteresisFraction
        guard let accuracy, let reserved, let hysteresis else {
            return HTTPReply.error(.badRequest, "accuracy, reserved and hysteresis must be numbers")
        }
        let registered = query.get("registered").map { $0.split(separator: ",").map(String.init) } ?? []
        do {
            let planner = try RegistrationPlanner(
                budget: budget, reservedSlots: reserved, hysteresisFraction: hysteresis)
            return HTTPReply.json(try await engine.planJSON(
                latitude: lat, longitude: lng, accuracy: accuracy, level: level, registered: registered, planner: planner))
        } catch {
            return HTTPReply.error(.badRequest, "\(error)")
        }
    }
}
