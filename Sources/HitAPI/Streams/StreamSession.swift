import HTTPServer
import HitJSON
import HitRouting
import HitStore
import SceneCodec

/// One pointer stream (SPEC §11.2) on its event loop: each text message
/// is decoded and answered by the code that answers `POST …/hit`
/// (``Application/answerHit(_:in:granted:request:namespace:)``), with its
/// `seq` echoed; pointers live in the stream's own namespace; scene
/// changes are pushed.
///
/// Backpressure: while more than ``highWater`` bytes of answers wait
/// unsent, messages queue here instead of being answered, and a queued
/// `move` or `hover` of a pointer is replaced by a later `move` or `hover`
/// of the same pointer when nothing of that pointer lies between them
/// (the answer says `"coalesced": n`). Downs, ups, cancels, leaves, plain
/// hits and bad messages are never dropped and keep their order. Past
/// ``maxQueued`` messages, the stream is closed with 1008.
///
/// Every method runs on the stream's loop; a message that `RunWhere` places
/// on a worker (``Application/placeHit(_:in:_:)``, the decision `POST …/hit`
/// takes) is answered there while the stream's later messages wait, so
/// answers keep the messages' order.
final class StreamSession: WebSocketSession {
    /// Answers waiting unsent past this many bytes hold messages back: 64 KiB.
    static let highWater = 64 * 1024
    /// Messages held back past this many close the stream with 1008.
    static let maxQueued = 4096

    /// A message held back while answers wait.
    private struct Held {
        var query: HitQuery?
        var seq: StreamSeq?
        /// Why the message was refused, when it was.
        var problem: Problem?
        /// How many earlier moves or hovers this one replaced.
        var coalesced = 0
    }

    let app: Application
    let sceneID: String
    /// The scope of the key the stream was opened with.
    let granted: Scope
    /// The opening handshake (its key and `Origin` are what each message's
    /// checks read; it has no body).
    let handshake: HTTPRequest
    /// This stream's pointers' namespace (``PointerKey``).
    let namespace: UInt64
    let entry: StreamHub.Entry
    /// The version the stream last told of (at open: the version then).
    private var version: Int
    private var held: [Held] = []
    private var heldStart = 0
    /// A message's answer, or a push, is being computed on a worker.
    private var busy = false
    /// A change came while ``busy``: check for a push once the worker is back.
    private var pushWanted = false
    /// The scene was deleted while ``busy``: once the worker's answer is
    /// sent, push the delete and close.
    private var deleteWanted = false

    init(
        app: Application, stream: WebSocketStream, sceneID: String, version: Int, granted: Scope, handshake: HTTPRequest, namespace: UInt64
    ) {
        self.app = app
        self.sceneID = sceneID
        self.version = version
        self.granted = granted
        self.handshake = handshake
        self.namespace = namespace
        entry = StreamHub.Entry(stream.handle)
        app.streams.add(entry, scene: sceneID)
    }

    // MARK: Messages

    func received(_ message: UnsafeRawBufferPointer, on stream: WebSocketStream) {
        var item = Held()
        message.withMemoryRebound(to: UInt8.self) { bytes in
            do throws(DecodeFailure) {
                (item.query, item.seq) = try StreamMessage.decode(bytes)
            } catch {
                item.problem = Problem.invalidRequest(error)
                item.seq = StreamMessage.seqOnly(bytes)
            }
        }
        if heldCount == 0 && !busy && stream.queuedBytes <= Self.highWater {
            answer(item, on: stream)
        } else {
            hold(item, on: stream)
        }
    }

    /// Answers written: take up held messages while there is room.
    func wrote(_ stream: WebSocketStream) {
        while heldCount > 0, !busy, stream.isOpen, stream.queuedBytes <= Self.highWater {
            let item = held[heldStart]
            heldStart += 1
            if heldStart == held.count {
                held.removeAll(keepingCapacity: true)
                heldStart = 0
            }
            answer(item, on: stream)
        }
    }

    func closed(_ stream: WebSocketStream, code: WebSocketCloseCode) {
        app.streams.remove(entry, scene: sceneID)
        app.store.forgetPointers(sceneID, namespace: namespace)  // captures released, pointers forgotten
        held = []
        heldStart = 0
    }

    private var heldCount: Int { held.count - heldStart }

    private func hold(_ item: Held, on stream: WebSocketStream) {
        var item = item
        if let query = item.query, let pointer = query.point.pointer, Self.coalesces(query.point.phase) {
            // The last held message of this pointer, if it is a move or hover, gives way.
            var k = held.count - 1
            while k >= heldStart, held[k].query?.point.pointer != pointer { k -= 1 }
            if k >= heldStart, let earlier = held[k].query, Self.coalesces(earlier.point.phase) {
                item.coalesced = held[k].coalesced + 1
                held.remove(at: k)
                app.streams.coalesced.wrappingAdd(1, ordering: .relaxed)
            }
        }
        held.append(item)
        if heldCount > Self.maxQueued {
            held = []
            heldStart = 0
            stream.close(.policyViolation, reason: "the client reads its answers too slowly", immediately: true)
        }
    }

    private static func coalesces(_ phase: PointerSessions.Phase?) -> Bool { phase == .move || phase == .hover }

    private func answer(_ item: Held, on stream: WebSocketStream) {
        guard let query = item.query else {
            stream.send(text: Self.error(item.problem ?? Problem(500, "internal", "Internal error", ""), seq: item.seq))
            return
        }
        let (here, held) = app.placeHit(query, in: sceneID, .loop)
        if here {
            do throws(Problem) {
                let answer = try app.answerHit(
                    query, in: sceneID, held: held, granted: granted, request: handshake, namespace: namespace, .loop)
                Self.send(answer, seq: item.seq, coalesced: item.coalesced, on: stream)
            } catch {
                stream.send(text: Self.error(error, seq: item.seq))
            }
        } else {
            // On a worker, while the stream's later messages wait.
            busy = true
            let (app, id, granted, request, namespace) = (self.app, sceneID, self.granted, handshake, self.namespace)
            stream.offload({ () -> [UInt8] in
                do throws(Problem) {
                    let answer = try app.answerHit(
                        query, in: id, held: held, granted: granted, request: request, namespace: namespace, .worker)
                    return Self.message(answer, seq: item.seq, coalesced: item.coalesced)
                } catch {
                    return Self.error(error, seq: item.seq)
                }
            }) { [self] bytes in
                busy = false
                stream.send(text: bytes)
                resume(stream)
            }
        }
    }

    /// A worker is back: the delete or the push that waited, then the held
    /// messages (none after a delete: the stream closes).
    private func resume(_ stream: WebSocketStream) {
        if deleteWanted {
            deleteWanted = false
            pushWanted = false
            push(.deleted, on: stream)
            return
        }
        if pushWanted {
            pushWanted = false
            sceneMayHaveChanged(on: stream, deleted: false)
        }
        wrote(stream)
    }

    // MARK: Pushes

    /// What a push reads of the store (``refreshed(_:_:namespace:mayFetch:)``).
    enum Refreshed: Sendable {
        /// Nothing known now (not held here, or the store cannot answer):
        /// nothing is pushed; the next change tries again.
        case unknown
        case deleted
        /// The scene's current version and this stream's pointers whose
        /// hovered set or target changed under it, already counted as
        /// reported (they must be pushed).
        case current(SceneSnapshot, [PointerSessions.Change])
    }

    /// The scene may have changed (any client, any replica): push its new
    /// version and then each boundary that changed with it; or, when it is
    /// `deleted` or gone, `{"type":"scene","deleted":true}` and close with
    /// 4404, after the answer a worker is computing, if any (the close
    /// never overtakes an answer to a message already taken up).
    ///
    /// Routing this stream's pointers again is placed by `RunWhere` like a
    /// batch of that many points (a costly scene, or a scene that must be
    /// fetched, goes to a worker); meanwhile the stream's messages wait,
    /// so pushes and answers keep their order.
    func sceneMayHaveChanged(on stream: WebSocketStream, deleted: Bool) {
        guard stream.isOpen else { return }
        if busy {
            if deleted { deleteWanted = true } else { pushWanted = true }
            return
        }
        if deleted {
            push(.deleted, on: stream)
            return
        }
        let work = RunWhere.Work(
            kind: .pointerRefresh(pointers: app.configuration.store.maxPointers), snapshot: app.store.residentSnapshot(sceneID),
            namesScene: true)
        if app.runsHere(work, .loop) {
            push(Self.refreshed(app, sceneID, namespace: namespace, mayFetch: !app.capabilities.readsMayBlock), on: stream)
            return
        }
        busy = true
        let (app, id, namespace) = (self.app, sceneID, self.namespace)
        stream.offload({ Self.refreshed(app, id, namespace: namespace, mayFetch: true) }) { [self] refreshed in
            busy = false
            push(refreshed, on: stream)
            resume(stream)
        }
    }

    /// Routes the stream's pointers again against the scene's current
    /// version (`SceneStoring.refreshPointers`). A scene not held here is
    /// read from the store when `mayFetch` (a shared store's fetch: on a
    /// worker); it then has no pointers of this stream.
    /// - Complexity: one routing per remembered pointer of the stream.
    static func refreshed(_ app: Application, _ id: String, namespace: UInt64, mayFetch: Bool) -> Refreshed {
        if let (current, changes) = app.store.refreshPointers(id, namespace: namespace) { return .current(current, changes) }
        guard mayFetch else { return .unknown }
        do throws(StoreError) {
            guard let snapshot = try app.store.snapshot(id) else { return .deleted }
            return .current(snapshot, [])  // fetched anew: none of this stream's pointers are in it
        } catch {
            return .unknown
        }
    }

    /// Sends what `refreshed` says: `{"type":"scene","version":N}` when N is
    /// not the version last told, then `{"type":"boundary","pointer",
    /// "version":N,"layer","boundary"}` for each changed pointer, all of
    /// version N; or the delete and the close.
    func push(_ refreshed: Refreshed, on stream: WebSocketStream) {
        guard stream.isOpen else { return }
        switch refreshed {
        case .unknown:
            return
        case .deleted:
            var w = JSONWriter(capacity: 48)
            w.beginObject()
            w.field("type")
            w.string("scene")
            w.field("deleted")
            w.bool(true)
            w.endObject()
            stream.send(text: w.finish())
            app.streams.pushes.wrappingAdd(1, ordering: .relaxed)
            stream.close(Self.sceneDeleted, reason: "scene deleted")
        case .current(let current, let changes):
            if current.version != version {
                version = current.version
                var w = JSONWriter(capacity: 48)
                w.beginObject()
                w.field("type")
                w.string("scene")
                w.field("version")
                w.int(current.version)
                w.endObject()
                stream.send(text: w.finish())
                app.streams.pushes.wrappingAdd(1, ordering: .relaxed)
            }
            guard !changes.isEmpty else { return }
            current.withCompiled { scene in
                for change in changes {
                    var b = JSONWriter(capacity: 192)
                    HitResponseEncoder.writeBoundaryPush(change, version: current.version, scene: scene, to: &b)
                    stream.send(text: b.finish())
                    app.streams.pushes.wrappingAdd(1, ordering: .relaxed)
                }
            }
        }
    }

    /// The close code of a stream whose scene was deleted.
    static let sceneDeleted = WebSocketCloseCode(4404)

    // MARK: Encoding

    /// An answer: exactly `POST …/hit`'s object, then `seq` and `coalesced` when there are.
    static func message(_ answer: HitAnswer, seq: StreamSeq?, coalesced: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        writeMessage(answer, seq: seq, coalesced: coalesced) { head, tail in
            bytes.reserveCapacity(head.count + tail.count)
            bytes.append(contentsOf: head)
            bytes.append(contentsOf: tail)
        }
        return bytes
    }

    /// Sends ``message(_:seq:coalesced:)`` as one text frame, without
    /// building it as an array first.
    static func send(_ answer: HitAnswer, seq: StreamSeq?, coalesced: Int, on stream: WebSocketStream) {
        writeMessage(answer, seq: seq, coalesced: coalesced) { head, tail in stream.send(text: head, tail) }
    }

    /// Writes the answer object and after it, when there are, the members
    /// `"seq"` and `"coalesced"` and a closing brace, into one writer;
    /// `body` gets the message in two pieces: the answer without its
    /// closing brace, then the rest (`,"seq":…}`), or the whole answer and
    /// nothing.
    /// - Complexity: O(answer); one buffer.
    private static func writeMessage(
        _ answer: HitAnswer, seq: StreamSeq?, coalesced: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) {
        var w = JSONWriter(capacity: answer.query.trace ? 1024 : 256)
        answer.write(to: &w)
        let end = w.count
        let extended = seq != nil || coalesced > 0
        if extended {
            if let seq {
                w.field("seq")  // after the answer's `}`: `,"seq":`
                seq.write(to: &w)
            }
            if coalesced > 0 {
                w.field("coalesced")
                w.int(coalesced)
            }
            let brace: StaticString = "}"
            w.rawMembers(UnsafeBufferPointer(start: brace.utf8Start, count: 1))
        }
        w.withBytes { all in
            let raw = UnsafeRawBufferPointer(all)
            guard extended, end > 0, all[end - 1] == UInt8(ascii: "}") else {
                body(UnsafeRawBufferPointer(rebasing: raw[..<end]), UnsafeRawBufferPointer(start: nil, count: 0))
                return
            }
            body(UnsafeRawBufferPointer(rebasing: raw[..<(end - 1)]), UnsafeRawBufferPointer(rebasing: raw[end...]))
        }
    }

    /// `{"type":"error","seq":…,"problem":"/problems/<slug>","title",…,"status",…,"detail",…,"errors":[…]}`.
    static func error(_ problem: Problem, seq: StreamSeq?) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("type")
        w.string("error")
        if let seq {
            w.field("seq")
            seq.write(to: &w)
        }
        w.field("problem")
        w.string("/problems/\(problem.slug)")
        w.field("title")
        w.string(problem.title)
        w.field("status")
        w.int(problem.status)
        w.field("detail")
        w.string(problem.detail)
        if !problem.issues.isEmpty {
            w.field("errors")
            w.beginArray()
            for issue in problem.issues {
                w.beginObject()
                w.field("pointer")
                w.string(issue.pointer)
                w.field("message")
                w.string(issue.message)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        return w.finish()
    }
}
