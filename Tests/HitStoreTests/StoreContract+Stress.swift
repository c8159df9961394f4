import Foundation
import HitRouting
import HitStore
import Synchronization
import XCTest

extension StoreContract {
    /// Readers on several threads read one id without pause while a writer
    /// creates it, patches it, replaces it, deletes it and creates it again,
    /// and another thread creates and deletes other ids (each delete moves
    /// the store's generation). Each write's outcome is announced once it
    /// returned (`token`, life << 20 | version); a read that starts after
    /// that sees it or a later one, never a deleted scene's, never a scene
    /// whose content is not its version's (a half-changed one).
    func residentReadsUnderChurn(lives: Int, patchesPerLife: Int = 4, readers: Int = 4) throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        let deleted = (1 << 20) - 1
        func json(_ life: Int, _ version: Int) -> String {
            #"{"id": "s", "layers": [{"id": "a", "shape": {"type": "rect", "x": 0, "y": 0, "width": 10, "height": 10}}, "#
                + #"{"id": "b", "action": "L\#(life)-v\#(version)", "shape": {"type": "rect", "x": 20, "y": 0, "width": 10, "height": 10}}]}"#
        }
        let token = Atomic<Int>(0)
        let running = Atomic<Bool>(true)
        let problems = Mutex<[String]>([])
        let reads = Atomic<Int>(0)
        let group = DispatchGroup()

        @Sendable func check(_ s: SceneSnapshot?, before t0: Int, _ path: String) {
            guard let s else {
                // None: allowed before the first create, or once it was deleted
                // (then the token moved past t0 or t0 already said deleted).
                if t0 != 0, t0 & deleted < deleted - 1 {
                    let t1 = token.load(ordering: .acquiring)
                    if t1 == t0 { problems.withLock { $0.append("\(path): nil read while \(t0 >> 20)/\(t0 & deleted) was current") } }
                }
                return
            }
            let layers = s.live.model.layers
            guard s.id == "s", layers.count == 2, let action = layers[1].action else {
                problems.withLock { $0.append("\(path): half a scene: \(s.id) \(layers.count) layers") }
                return
            }
            let parts = action.dropFirst().split(separator: "-")
            guard parts.count == 2, let life = Int(parts[0]), let v = Int(parts[1].dropFirst()) else {
                problems.withLock { $0.append("bad action \(action)") }
                return
            }
            if v != s.version { problems.withLock { $0.append("\(path): version \(s.version) with content of \(v) (life \(life))") } }
            let seen = life << 20 | s.version
            // While deleting, the last version returned is the life's last.
            let floor = t0 & deleted == deleted - 1 ? (t0 >> 20) << 20 | (patchesPerLife + 1) : t0
            if seen < floor {
                let what = "\(path): stale: read \(life)/\(s.version) after \(t0 >> 20)/\(t0 & deleted) returned"
                problems.withLock { $0.append(what) }
            }
        }

        for _ in 0..<readers {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var n = 0
                while running.load(ordering: .acquiring) {
                    let t0 = token.load(ordering: .acquiring)
                    check(store.residentSnapshot("s"), before: t0, "resident")
                    let t1 = token.load(ordering: .acquiring)
                    check(try? store.snapshot("s"), before: t1, "snapshot")
                    n += 2
                }
                reads.add(n, ordering: .relaxed)
            }
        }
        let other = try upload(Self.squares)
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            var k = 0
            while running.load(ordering: .acquiring) {
                k += 1
                _ = try? store.put(other, id: "o\(k % 8)")
                _ = try? store.snapshot("o\((k + 3) % 8)")
                if k % 2 == 0 { _ = try? store.delete("o\((k + 5) % 8)") }
            }
        }
        defer {
            running.store(false, ordering: .releasing)
            group.wait()
        }
        for life in 1...lives {
            var version = 1
            _ = try store.create(upload(json(life, version)))
            token.store(life << 20 | version, ordering: .releasing)
            for k in 0..<patchesPerLife {
                version += 1
                if k == patchesPerLife / 2 {
                    let (s, created) = try store.put(upload(json(life, version)), id: "s")
                    XCTAssertFalse(created)
                    XCTAssertEqual(s.version, version)
                } else {
                    let (s, _) = try store.patch("s", patch("b", #"{"action": "L\#(life)-v\#(version)"}"#))
                    XCTAssertEqual(s.version, version)
                }
                token.store(life << 20 | version, ordering: .releasing)
            }
            token.store(life << 20 | (deleted - 1), ordering: .releasing)  // deleting
            XCTAssertTrue(try store.delete("s"))
            token.store(life << 20 | deleted, ordering: .releasing)
        }
        running.store(false, ordering: .releasing)
        group.wait()
        let found = problems.withLock { $0 }
        XCTAssertEqual(found.count, 0, "\(found.prefix(10))")
        XCTAssertGreaterThan(reads.load(ordering: .relaxed), 0)
    }
}
