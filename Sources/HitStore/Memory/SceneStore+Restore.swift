import HitRouting

/// Recovery: a journal's records replayed into the memory store, without
/// its log or its limits.
extension SceneStore {
    /// Sets scene `id` to `scene` at `version` (a replayed upload), weighing
    /// `json` bytes of JSON and `scene.maskBytes` as the upload did.
    func restore(_ id: String, scene: Scene, version: Int, json: Int) {
        let weight = Weight(total: json + scene.maskBytes, json: json)
        var scene = scene
        scene.id = id
        let snapshot = SceneSnapshot(id: id, version: version, live: LiveScene(scene))
        entries.withLock { table in
            let replaced = table.scenes.updateValue(Entry(.init(snapshot: snapshot, sessions: newSessions())), forKey: id)
            if let replaced {
                replaced.state.withLock { $0.remove() }
                directory.changed()
            }
            weights.withLock { _ = $0.set(id, weight) }
        }
    }

    /// Removes scene `id` (a replayed delete); false if there was none.
    func restoreDelete(_ id: String) -> Bool {
        entries.withLock { table in
            guard let removed = table.scenes.removeValue(forKey: id) else { return false }
            removed.state.withLock { $0.remove() }
            directory.changed()
            weights.withLock { _ = $0.set(id, nil) }
            return true
        }
    }

    /// Changes scene `id` and sets its version to `version` (a replayed
    /// patch or drag); `change` returns how the scene's weight changed
    /// (a patch's `admit` figure; nil for a drag, which moves a layer and
    /// keeps what the scene holds), applied as the live store applied it,
    /// without limits. Throws what `change` throws, or 404.
    func restoreChange(
        _ id: String, version: Int, _ change: (inout LiveScene, _ current: Int) throws(StoreError) -> LayerPatch.WeightChange?
    ) throws(StoreError) {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw StoreError.notFound("no scene \"\(id)\"") }
        try entry.state.withLock { (state) throws(StoreError) in
            var weightChange: LayerPatch.WeightChange?
            try state.changeInPlace { (live, current) throws(StoreError) -> Bool in
                weightChange = try change(&live, current)
                return true
            }
            state.snapshot = SceneSnapshot(id: id, version: version, live: state.snapshot.live)
            if let weightChange {
                weights.withLock { w in _ = w.set(id, (w.byID[id] ?? Weight(total: 0, json: 0)).changed(by: weightChange)) }
            }
        }
    }

    /// Bytes held over all scenes as `maxStoreBytes` counts them (what
    /// compaction weighs the journal against, and `/metrics` shows).
    var storedBytes: Int { weights.withLock { $0.bytes } }

    /// What scene `id` weighs against `maxStoreBytes`; nil when there is none.
    func weight(of id: String) -> Int? { weights.withLock { $0.byID[id]?.total } }

    /// The JSON part of scene `id`'s weight (0 for none).
    func jsonBytes(of id: String) -> Int { weights.withLock { $0.byID[id]?.json ?? 0 } }
}
