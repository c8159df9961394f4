import HitRouting
import RESP
import RESPClient

/// `GET /scenes` in Redis mode: every scene's summary, read from the
/// summary keys the write script keeps beside each document, so that a
/// listing compiles nothing and leaves this replica's cache as it was
/// (listing a thousand scenes must not evict the hot ones or compile them).
extension RedisSceneStore {
    /// Ids per `MGET` round trip.
    static let listChunk = 256

    /// The summary of every scene in Redis, ordered by id.
    ///
    /// A summary whose version is not the scene's (written by a replica
    /// older than summary keys) is made from this replica's cached copy of
    /// that version, else from the document, compiled and not cached.
    /// - Complexity: about ⌈scenes / 1,000⌉ `SSCAN`s and ⌈scenes / 256⌉
    ///   `MGET`s; O(scenes) memory. No compile unless a summary is missing
    ///   or stale.
    public func summaries() throws(StoreError) -> [SceneSummary] {
        let ids = try indexedIDs()
        var out: [SceneSummary] = []
        out.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            // Two values an id: within the reply element cap as SSCAN's pages are.
            let chunk = ids[start..<min(start + min(RedisSceneStore.listChunk, listPage), ids.count)]
            start += chunk.count
            let command = [Array("MGET".utf8)] + chunk.flatMap { [keys.version($0), keys.summary($0)] }
            let reply = try call { () throws(RedisError) in try client.send(command) }
            guard let values = reply.elements, values.count == 2 * chunk.count else {
                throw StoreError.unavailable("MGET of scene summaries: \(reply.errorMessage ?? "unexpected reply")")
            }
            for (k, id) in chunk.enumerated() {
                guard let version = values[2 * k].int else { continue }  // deleted meanwhile
                if let s = RedisSceneSummary.decode(values[2 * k + 1].bytes ?? [], id: id), s.version == version {
                    out.append(s)
                } else if let cached = cache.peek(id)?.snapshot, cached.version == version {
                    out.append(SceneSummary(cached))
                } else if let (snapshot, _) = try fetch(id) {
                    out.append(SceneSummary(snapshot))
                }
            }
        }
        return out
    }

    /// Every id in the index set, sorted, read a page at a time by `SSCAN`:
    /// each reply holds about ``listPage`` ids however many scenes there
    /// are (one `SMEMBERS` of more than 2^20 ids would pass the reply
    /// parser's element cap), and Redis serves its other clients between
    /// pages. An id that `SSCAN` returns twice (it may,
    /// while the set changes) is listed once.
    /// - Complexity: O(scenes log scenes), in about ⌈scenes / ``listPage``⌉
    ///   round trips; a cursor that does not come back to 0 within the bound
    ///   below (a broken server) is a 503.
    func indexedIDs() throws(StoreError) -> [String] {
        let size = try call { () throws(RedisError) in try client.send([Array("SCARD".utf8), keys.index]) }.int ?? 0
        var ids = Set<String>()
        var cursor = Array("0".utf8)
        var pages = 0
        while true {
            let reply = try call { () throws(RedisError) in
                try client.send([Array("SSCAN".utf8), keys.index, cursor, Array("COUNT".utf8), Array(String(listPage).utf8)])
            }
            guard let parts = reply.elements, parts.count == 2, let next = parts[0].bytes, let page = parts[1].elements else {
                throw StoreError.unavailable("SSCAN of the scene index: \(reply.errorMessage ?? "unexpected reply")")
            }
            for id in page { if let s = id.string { ids.insert(s) } }
            cursor = next
            pages += 1
            if cursor == Array("0".utf8) { break }
            // One SSCAN returns `listPage` members or steps over 10 × `listPage`
            // buckets, empty ones included; the set's table may be far larger
            // than the set (Redis shrinks it only on a removal, and not while
            // it saves), so the bound allows a table of 2^27 buckets (a set of
            // 2^26 members) besides every member, twice.
            guard pages < 16 + 2 * max(size, ids.count) / listPage + (1 << 27) / (10 * listPage) else {
                throw StoreError.unavailable("SSCAN of the scene index did not end after \(pages) pages")
            }
        }
        return ids.sorted()
    }
}

/// The text of a summary key: `<version> <layers>`, then the bounds as
/// `<minX> <minY> <maxX> <maxY>` when there are any. Numbers are written
/// in Swift's shortest form that reads back to the same double, so a
/// listing says exactly what the compiled scene would.
enum RedisSceneSummary {
    /// Everything after the version (the write script puts it in front).
    static func encode(layers: Int, bounds: Box?) -> [UInt8] {
        var text = String(layers)
        if let b = bounds { text += " \(b.minX) \(b.minY) \(b.maxX) \(b.maxY)" }
        return Array(text.utf8)
    }

    /// Nil for anything but `<version> <layers>` with 0 or 4 finite bounds
    /// that make an ordered box of finite width and height (a listing writes
    /// those: a key another writer put there must not make it non-finite).
    static func decode(_ bytes: [UInt8], id: String) -> SceneSummary? {
        let parts = bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 2 || parts.count == 6, let version = Int(parts[0]), version > 0,
            let layers = Int(parts[1]), layers >= 0
        else { return nil }
        guard parts.count == 6 else { return SceneSummary(id: id, version: version, layers: layers, bounds: nil) }
        let n = parts[2...].compactMap { Double($0) }
        guard n.count == 4, n.allSatisfy(\.isFinite) else { return nil }
        let box = Box(minX: n[0], minY: n[1], maxX: n[2], maxY: n[3])
        guard box.minX <= box.maxX, box.minY <= box.maxY, box.width.isFinite, box.height.isFinite else { return nil }
        return SceneSummary(id: id, version: version, layers: layers, bounds: box)
    }
}
