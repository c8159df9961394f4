// `hitroute-bench api`: the API in process, without sockets.
import HTTPServer
import HitAPI

/// The API without sockets: one request through routing, decoding, the
/// router and encoding, as the server's handler sees it.
func benchAPI() {
    let app = Application(configuration: Configuration())
    let ring = Array(
        #"{"id":"ring-demo","layers":[{"id":"button","action":"below.press","shape":{"type":"rect","x":0,"y":0,"width":240,"height":240}},{"id":"ring","action":"ring.select","shape":{"type":"compound","fillRule":"evenodd","shapes":[{"type":"ellipse","cx":120,"cy":120,"rx":120,"ry":120},{"type":"ellipse","cx":120,"cy":120,"rx":48,"ry":48}]}},{"id":"frame","pointerEvents":"none","shape":{"type":"rect","x":2,"y":2,"width":236,"height":236,"fill":false,"stroke":4}}]}"#
            .utf8)
    _ = app.respond(to: HTTPRequest(method: "PUT", target: "/scenes/ring-demo", body: ring))
    func request(_ body: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", target: "/scenes/ring-demo/hit", headers: HTTPHeaders([("Host", "x"), ("Content-Type", "application/json")]),
            body: Array(body.utf8))
    }
    let plain = request(#"{"x":210,"y":120,"trace":false}"#)
    let traced = request(#"{"x":210,"y":120}"#)
    let batchBody = "{\"points\":[" + (0..<100).map { i in "{\"x\":\(i * 2),\"y\":120}" }.joined(separator: ",") + "]}"
    let batch = HTTPRequest(
        method: "POST", target: "/scenes/ring-demo/hits", headers: HTTPHeaders([("Host", "x")]), body: Array(batchBody.utf8))
    let once = CommandLine.arguments.contains("--once")  // one short run, for profilers
    let runs = once ? 1 : 15
    let a = measure(runs: runs, perRun: once ? 2_000 : 50_000) { _ in consume(app.respond(to: plain).body.count) }
    let b = measure(runs: runs, perRun: once ? 2_000 : 50_000) { _ in consume(app.respond(to: traced).body.count) }
    let c = measure(runs: runs, perRun: once ? 100 : 2_000) { _ in consume(app.respond(to: batch).body.count) }
    print("API in process (no sockets), ring scene, median of 15 runs")
    print("  POST …/hit, no trace:   \(fixed(a * 1e9)) ns/request")
    print("  POST …/hit, with trace: \(fixed(b * 1e9)) ns/request")
    print("  POST …/hits, 100 points: \(fixed(c * 1e6)) µs/request = \(fixed(100 / c / 1e6, width: 1)) M points/s")
}
