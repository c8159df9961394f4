import HitRouting

/// A change to the store as a durable backend records it (SPEC §9).
enum StoreChange: Sendable {
    /// A create or replace: the JSON as submitted, the resulting version.
    case upload(id: String, version: Int, json: [UInt8])
    /// A delete; `version` is the scene's last one.
    case delete(id: String, version: Int)
    /// A merge patch of one layer and the version it produced.
    case patch(id: String, version: Int, layer: String, json: [UInt8])
    /// A drag step: the layer's translation after it, and the version.
    case drag(id: String, version: Int, layer: String, translation: Point)
}

/// Where `SceneStore` writes its changes when it backs a durable store.
///
/// A write runs `admitting { … }`; inside, under the scene's (or table's)
/// lock, it calls `append` just before publishing the change, so records
/// of one scene are in version order and a failed append leaves memory as
/// it was; after the locks it calls `await` and answers only when that
/// returns.
protocol ChangeLog: AnyObject, Sendable {
    /// Runs a write's critical section, excluded from the snapshot barrier.
    func admitting<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R
    /// Buffers the change's record; returns its ticket.
    func append(_ change: StoreChange) throws(StoreError) -> UInt64
    /// Returns once the record of `ticket` is durable.
    func await(_ ticket: UInt64) throws(StoreError)
    /// What replaying the change just recorded will cost beyond its own
    /// bytes, in bytes of the scene it re-derives (a patch of a layer
    /// re-derives its subtree, and every layer when it touched an edge of
    /// the scene's bounds): compaction weighs it with the journal's bytes.
    func noteReplayCost(_ bytes: Int)
}

/// The ticket of a write's last appended record.
struct LogTicket {
    let log: (any ChangeLog)?
    var lsn: UInt64 = 0

    mutating func append(_ change: StoreChange) throws(StoreError) {
        if let log { lsn = try log.append(change) }
    }

    /// `ChangeLog.noteReplayCost` for a change that read `work` layers
    /// (`LayerPatch.apply`) of a scene of `layers` layers and `jsonBytes` of JSON.
    /// (`jsonBytes` is read only when there is a log.)
    func noteReplayCost(work: Int, layers: Int, jsonBytes: @autoclosure () -> Int) {
        guard let log else { return }
        log.noteReplayCost(LogTicket.replayCost(work: work, layers: layers, jsonBytes: jsonBytes()))
    }

    /// The bytes of `work` layers at the scene's mean, at most the scene's
    /// JSON (`work` counts some layers twice): what replaying the change
    /// costs beyond its record, as a journal's bytes are weighed.
    static func replayCost(work: Int, layers: Int, jsonBytes: Int) -> Int {
        guard work > 0, layers > 0, jsonBytes > 0 else { return 0 }
        let (product, overflow) = jsonBytes.multipliedReportingOverflow(by: min(work, layers))
        return overflow ? jsonBytes : product / layers
    }
}

extension Transform? {
    /// The translation a drag reads back: `translate` of the parts form,
    /// `(e, f)` of a matrix, zero without a transform.
    var translation: Point {
        switch self {
        case .none: return .zero
        case .some(.matrix(let m)): return Point(m.e, m.f)
        case .some(.parts(let p)): return p.translate ?? .zero
        }
    }
}
