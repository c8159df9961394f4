import Dispatch
import HitRouting
import RESP
import RESPClient

/// Which replica holds each pointer's capture (SPEC §10), kept in the hash
/// ``RedisKeys/pointers(_:)`` as pointer → `<replica id> <layer id>`.
///
/// Records and releases are fire-and-forget: they run in order on
/// ``RedisSceneStore/captureQueue`` after the answer is decided, so a `down`
/// or an `up` waits for no round trip. The one synchronous look-up is on a
/// `move`/`up`/`cancel` for a pointer this replica holds no capture of;
/// ordinary hits never touch the hash.
extension RedisSceneStore {
    /// The replica that holds `pointer`'s capture of a layer of scene `id`,
    /// when it is another replica: then its layer, and the field is deleted
    /// (the capture is reported dropped once). Nil when no replica or this
    /// one recorded it. One round trip, before anything changed.
    func captureHeldElsewhere(_ id: String, pointer: String) throws(StoreError) -> String? {
        let key = keys.pointers(id)
        let reply = try call { () throws(RedisError) in try client.send([Array("HGET".utf8), key, Array(pointer.utf8)]) }
        guard let value = reply.string else { return nil }
        forget(id, pointer: pointer)
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] != replicaID else { return nil }  // ours: it expired here
        return String(parts[1])
    }

    /// Records, after the event that made it, that this replica holds
    /// `pointer`'s capture by `layer`, and renews the hash's TTL to the
    /// capture timeout.
    func recordCapture(_ id: String, pointer: String, layer: String) {
        let key = keys.pointers(id)
        let value = Array("\(replicaID) \(layer)".utf8)
        // Finite and within Int whatever the configuration says.
        let ms = Int(max(1, min(limits.captureTimeout, 1e9)) * 1000)
        captureQueue.async { [client] in
            _ = try? client.pipeline([
                [Array("HSET".utf8), key, Array(pointer.utf8), value],
                [Array("PEXPIRE".utf8), key, Array(String(ms).utf8)],
            ])
        }
    }

    /// Deletes `pointer`'s field (its capture was released or reported).
    func forget(_ id: String, pointer: String) {
        let key = keys.pointers(id)
        captureQueue.async { [client] in
            _ = try? client.send([Array("HDEL".utf8), key, Array(pointer.utf8)])
        }
    }

    /// Deletes the whole hash (the scene was deleted).
    func forgetAllCaptures(_ id: String) {
        let key = keys.pointers(id)
        captureQueue.async { [client] in _ = try? client.send([Array("DEL".utf8), key]) }
    }

    /// Keeps the hash in step with what one event did to `pointer`.
    /// Only the HTTP clients' pointers are recorded: a stream's pointers
    /// live and die with the stream, on this replica.
    func bookkeep(_ id: String, _ event: PointerEvent, hadCapture: Bool, capture: PointerSessions.Capture?) {
        guard event.pointer.namespace == PointerKey.http else { return }
        if event.phase == .down, let capture {
            recordCapture(id, pointer: event.pointer.id, layer: capture.layer)
        } else if hadCapture && event.phase != .move {
            forget(id, pointer: event.pointer.id)  // up, cancel, hover, leave, or a down that hit nothing
        }
    }

    /// Waits until every queued record and release has been sent (tests).
    func flushCaptureRecords() { captureQueue.sync {} }
}
