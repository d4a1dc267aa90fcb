import ArgumentParser
import GeofenceEngine

/// `evaluate`'s fence updates and carried state: parsing `--fence-update TIME=FILE`, reading
/// `--state-in`, and the epochs the run goes through.
extension EvaluateCommand {
    /// One `--fence-update`: its time (epoch ms) and file.
    struct ScheduledUpdate {
        var time: Int64
        var path: String
    }

    /// The `--fence-update` values, checked: `TIME=FILE`, TIME as epoch milliseconds or
    /// ISO-8601 with a zone, times strictly increasing.
    func scheduledUpdates() throws(ValidationError) -> [ScheduledUpdate] {
        var out: [ScheduledUpdate] = []
        for value in fenceUpdate {
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex, value.index(after: equals) != value.endIndex else {
                throw ValidationError("--fence-update must be TIME=FILE, got \(value)")
            }
            let text = String(value[..<equals]), path = String(value[value.index(after: equals)...])
            guard case .success(let time) = TimestampParser.parse(text) else {
                throw ValidationError("--fence-update \(value): \(text) is not epoch milliseconds or ISO-8601 with a zone")
            }
            if let previous = out.last, time <= previous.time {
                throw ValidationError("--fence-update times must strictly increase: \(time) comes after \(previous.time)")
            }
            out.append(ScheduledUpdate(time: time, path: path))
        }
        return out
    }

    /// The epochs of the run: from the carried state's fences (or `--fences`), through the
    /// difference to `--fences` at the state's watermark + 1 ms when they differ, then each
    /// `--fence-update`. Nil for a plain run.
    func epochs(
        fenceSet: FenceSet, carried: CarriedState?, updates: [ScheduledUpdate], configuration: TrackerConfiguration
    ) throws(CLIError) -> FenceEpochs? {
        guard carried != nil || !updates.isEmpty else { return nil }
        var first = fenceSet
        var scheduled: [(time: Int64, set: FenceSet, name: String)] = []
        if let carried, let stateIn {
            if carried.fenceBytes != fenceSet.compiledBytes() {
                if let watermark = carried.watermark {
                    first = carried.fenceSet
                    scheduled.append((watermark &+ 1, fenceSet, "--state-in \(stateIn) to --fences \(fences)"))
                } else if !carried.ids.isEmpty {
                    throw CLIError("\(stateIn): the state holds devices but no watermark (damaged)")
                }
            } else {
                first = carried.fenceSet
            }
            if let watermark = carried.watermark, let early = updates.first(where: { $0.time <= watermark &+ 1 }) {
                throw CLIError(
                    "--fence-update \(early.time)=\(early.path): the time must come after the state's watermark + 1 ms (\(watermark &+ 1))")
            }
        }
        for update in updates {
            scheduled.append((update.time, try FenceLoading.load(path: update.path, repair: repair), update.path))
        }
        let removal: FenceUpdate.RemovalPolicy = onFenceRemoved == "silent" ? .silent : .exit
        do {
            return try FenceEpochs(first: first, updates: scheduled, configuration: configuration, onFenceRemoved: removal)
        } catch {
            throw CLIError("\(error)")
        }
    }

    /// Reads `--state-in` and checks that it belongs to this run: the same shard split and
    /// the same tracker options.
    func carriedState(shard: ShardSpec, configuration: TrackerConfiguration) throws(CLIError) -> CarriedState? {
        guard let stateIn else { return nil }
        let state: CarriedState
        do { state = try CarriedState(path: stateIn) } catch { throw CLIError(error.description) }
        guard state.shard == shard else {
            throw CLIError("\(stateIn): the state was written by shard \(state.shard), this run is shard \(shard) (use the state file of the same shard)")
        }
        guard state.configuration == configuration else {
            throw CLIError("\(stateIn): the state was written with other tracker options; run with the same options as the run that wrote it")
        }
        return state
    }
}
