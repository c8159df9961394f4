import Glibc
// `hitroute-bench patch [N]`: what a PATCH of one small layer costs in a
// big scene, through `Application.respond` (decoding, the store's
// weighing, journal-free memory store; with HITROUTE_STORE=redis://… the
// Redis store). In memory mode a patch's weighing against the store budget
// costs O(the patched layer).
import HTTPServer
import HitAPI
import HitStore

func benchPatch(count: Int) {
    var configuration = Configuration()
    let body = polygonSceneJSON(count: count)
    // As a server that takes this scene must be configured (a patch may then grow it up to that).
    configuration.server.limits.maxBodyBytes = max(configuration.server.limits.maxBodyBytes, 2 * body.count)
    if let url = getenv("HITROUTE_STORE").map({ String(cString: $0) }) { configuration.storeURL = url }
    guard let store = try? StoreFactory.make(configuration.storeConfiguration) else {
        print("no store for \(configuration.storeURL ?? "memory")")
        exit(1)
    }
    while store.health() != .ready { usleep(1_000) }
    let app = Application(configuration: configuration, store: store)
    var headers = HTTPHeaders()
    headers.set("Content-Type", "application/json")
    func call(_ method: String, _ target: String, _ body: [UInt8]) -> Int {
        app.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: body)).status
    }
    let id = "polygons-\(count)"  // the id the generated body carries
    let put = call("PUT", "/scenes/\(id)", body)
    guard put == 200 || put == 201 else {
        print("PUT answered \(put)")
        exit(1)
    }
    // Two small patches of one layer in turn, so every call changes it.
    let patches = [Array(#"{"hidden":true,"hitSlop":2}"#.utf8), Array(#"{"hidden":null,"hitSlop":null}"#.utf8)]
    let backend = configuration.storeURL == nil ? "memory" : "redis"
    print("patch: \(backend) store, scene of \(count) polygons (\(body.count) bytes of JSON)")
    if let n = getenv("HITROUTE_BENCH_PATCHES").map({ Int(String(cString: $0)) ?? 100 }) {
        // For callgrind: one pass, `valgrind --tool=callgrind --toggle-collect='*patchLayers*'`.
        let failures = patchLayers(n, id: id, layers: count, patches: patches, call)
        print("  \(n) patches, \(failures) failed")
        return
    }
    let perRun = configuration.storeURL == nil ? 200 : 5
    var failures = 0
    let seconds =
        measure(runs: 15, perRun: 1) { _ in
            failures += patchLayers(perRun, id: id, layers: count, patches: patches, call)
        } / Double(perRun)
    print("  PATCH of one layer: \(fixed(seconds * 1e6)) µs median of 15 runs × \(perRun)\(failures > 0 ? " (\(failures) failed)" : "")")
}

/// `n` patches of spread-out layers, in turn from `patches`; how many failed.
/// Out of line so that callgrind can single it out.
@inline(never)
func patchLayers(_ n: Int, id: String, layers: Int, patches: [[UInt8]], _ call: (String, String, [UInt8]) -> Int) -> Int {
    var failures = 0
    for i in 0..<n where call("PATCH", "/scenes/\(id)/layers/p\((i * 7919) % layers)", patches[i & 1]) != 200 { failures += 1 }
    return failures
}
