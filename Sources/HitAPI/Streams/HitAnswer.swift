import HitJSON
import HitRouting
import HitStore

/// A routed hit query and what it routed to: the answer `POST …/hit` sends
/// as its body and a stream sends as a message (with `seq`), written by
/// the same code.
struct HitAnswer {
    var query: HitQuery
    var result: HitResult
    /// Nil without a pointer.
    var captured: Bool?
    /// What the pointer entered and left (SPEC §11.1); nil without a
    /// pointer, or when nothing changed.
    var boundary: Boundary? = nil
    var snapshot: SceneSnapshot

    /// Writes the answer object (SPEC §4.2).
    func write(to w: inout JSONWriter) {
        snapshot.withCompiled { scene in
            HitResponseEncoder.writeHit(
                result, query: query, captured: captured, boundary: boundary, sceneID: snapshot.id, version: snapshot.version,
                scene: scene, to: &w)
        }
    }
}
