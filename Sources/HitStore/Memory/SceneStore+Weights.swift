import HitRouting

/// The table of scenes and what each weighs against `maxStoreBytes`.
extension SceneStore {
    /// The scenes by id.
    struct Table {
        var scenes: [String: Entry] = [:]
    }

    /// What each scene weighs against `maxStoreBytes` (its JSON as
    /// submitted, moved by each patch, plus its mask bytes), and the sum.
    ///
    /// Behind its own lock, always taken last and held for a few
    /// operations, so that a patch can weigh its scene while it holds that
    /// scene's lock (the table's lock is taken before a scene's, never
    /// after). A scene's weight changes only under its own lock (patch,
    /// replacement) or while the table's lock keeps its id from anyone
    /// else (create, delete, whose entry is marked removed first).
    struct Weights {
        var byID: [String: Weight] = [:]
        /// The sum of every scene's `total`.
        var bytes = 0

        /// Sets `id`'s weight; returns the one before (nil: none).
        @discardableResult
        mutating func set(_ id: String, _ weight: Weight?) -> Weight? {
            let previous = weight.map { byID.updateValue($0, forKey: id) } ?? byID.removeValue(forKey: id)
            bytes += (weight?.total ?? 0) - (previous?.total ?? 0)
            return previous
        }
    }

    /// What one scene weighs.
    struct Weight: Equatable {
        /// Bytes counted against `maxStoreBytes`: JSON and mask bytes.
        var total: Int
        /// The JSON part: as submitted, moved by each patch's rendering.
        var json: Int

        /// After a patch: never below zero (the JSON a layer was submitted
        /// as can be shorter than its rendering), saturating.
        func changed(by c: LayerPatch.WeightChange) -> Weight {
            Weight(total: Self.add(total, c.total), json: Self.add(json, c.json))
        }

        private static func add(_ a: Int, _ b: Int) -> Int {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? (b > 0 ? .max : 0) : max(0, sum)
        }
    }

    func checkCount(_ table: Table, adding id: String) throws(StoreError) {
        if table.scenes[id] == nil && table.scenes.count >= limits.maxScenes {
            throw StoreError.full(.scenes, "the store holds its maximum of \(limits.maxScenes) scenes; delete one first")
        }
    }

    /// Sets scene `id`'s weight to `weight` (in place of its own, when it
    /// has one) unless the store would pass `maxStoreBytes` (507), then
    /// runs `then` (the journal append); when `then` throws, the weight
    /// before is put back. The caller holds the table's lock (a new id) or
    /// the scene's (a replacement).
    func admit(_ id: String, weight: Weight, then: () throws(StoreError) -> Void) throws(StoreError) {
        let budget = limits.maxStoreBytes
        let previous = try weights.withLock { (w) throws(StoreError) -> Weight? in
            let existing = w.byID[id]?.total ?? 0
            if w.bytes - existing > budget - weight.total {
                throw StoreError.full(
                    .bytes,
                    "the scenes stored came as \(w.bytes) bytes of JSON; this one would pass the store's budget of \(budget) (--max-store-bytes); delete a scene first"
                )
            }
            return w.set(id, weight)
        }
        try run(then, orRestore: id, to: previous)
    }

    /// Runs `then` (the journal append); when it throws, sets `id`'s
    /// weight back to `previous`.
    func run(_ then: () throws(StoreError) -> Void, orRestore id: String, to previous: Weight?) throws(StoreError) {
        do throws(StoreError) {
            try then()
        } catch {
            weights.withLock { _ = $0.set(id, previous) }
            throw error
        }
    }

    /// Moves scene `id`'s weight by a patch's `change` (the caller holds
    /// the scene's lock) unless the store would pass `maxStoreBytes`: the
    /// check of a replacement of the scene by its patched self, so 507
    /// with nothing changed. A patch that does not grow the scene is always
    /// admitted (it can only free room). A patch that grows the scene's
    /// JSON past what an upload may carry is a 413 (`checkSceneSize`).
    /// Then runs `then` as `admit` does.
    func admit(_ id: String, _ patch: LayerPatch, change: LayerPatch.WeightChange, then: () throws(StoreError) -> Void) throws(StoreError) {
        let budget = limits.maxStoreBytes
        let previous = try weights.withLock { (w) throws(StoreError) -> Weight? in
            let existing = w.byID[id] ?? Weight(total: 0, json: 0)
            let weight = existing.changed(by: change)
            try patch.checkSceneSize(weight.json, growth: change.json)
            if weight.total > existing.total && w.bytes - existing.total > budget - weight.total {
                throw StoreError.full(
                    .bytes,
                    "the scenes stored weigh \(w.bytes) bytes (their JSON and decoded masks); this patch would bring scene \"\(id)\" from \(existing.total) to \(weight.total) bytes, past the store's budget of \(budget) (--max-store-bytes); delete a scene or shrink a layer first"
                )
            }
            return w.set(id, weight)
        }
        try run(then, orRestore: id, to: previous)
    }
}
