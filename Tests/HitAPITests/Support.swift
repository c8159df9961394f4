import Foundation
import XCTest

@testable import HTTPServer
@testable import HitAPI
@testable import HitStore

/// A response as a test sees it: status, headers and the body parsed by
/// Foundation (an independent oracle for our JSON writer).
struct Reply {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// `errors[*].pointer` of a problem.
    var pointers: [String] { (object["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String } }
    var messages: [String] { (object["errors"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String } }
}

extension Application {
    /// Answers a request in-process, without sockets.
    func call(_ method: String, _ target: String, _ body: String? = nil, headers: [(String, String)] = []) -> Reply {
        var h = HTTPHeaders(headers)
        if body != nil && !h.contains("Content-Type") { h.add("Content-Type", "application/json") }
        let request = HTTPRequest(method: method, target: target, headers: h, body: Array((body ?? "").utf8))
        let response = respond(to: request)
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    static func testing(_ edit: (inout Configuration) -> Void = { _ in }, clock: @escaping @Sendable () -> Double = { 0 }) -> Application {
        var config = Configuration()
        edit(&config)
        return Application(configuration: config, store: SceneStore(limits: config.store, clock: clock))
    }
}

/// The repository's top level, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The SPEC's reference scene, as JSON.
let ringScene = """
    {"id": "ring-demo", "width": 240, "height": 240, "layers": [
      {"id": "button", "action": "below.press", "color": "#2f6fed",
       "shape": {"type": "rect", "x": 0, "y": 0, "width": 240, "height": 240}},
      {"id": "ring", "action": "ring.select", "color": "#f5a623",
       "shape": {"type": "compound", "fillRule": "evenodd", "shapes": [
         {"type": "ellipse", "cx": 120, "cy": 120, "rx": 120, "ry": 120},
         {"type": "ellipse", "cx": 120, "cy": 120, "rx": 48, "ry": 48}]}},
      {"id": "frame", "pointerEvents": "none", "color": "#888888",
       "shape": {"type": "rect", "x": 0, "y": 0, "width": 240, "height": 240, "fill": false, "stroke": 4}}
    ]}
    """

/// Squares of size 100, 200, 300 at (50,50), (75,75), (100,100), zIndex 3..1,
/// hit regions their centre halves; square3 is draggable.
let squaresScene = """
    {"id": "squares", "layers": [
      {"id": "square1", "zIndex": 3, "shape": {"type": "rect", "x": 50, "y": 50, "width": 100, "height": 100},
       "hitShape": {"type": "rect", "x": 75, "y": 75, "width": 50, "height": 50}},
      {"id": "square2", "zIndex": 2, "shape": {"type": "rect", "x": 75, "y": 75, "width": 200, "height": 200},
       "hitShape": {"type": "rect", "x": 125, "y": 125, "width": 100, "height": 100}},
      {"id": "square3", "zIndex": 1, "draggable": true,
       "shape": {"type": "rect", "x": 100, "y": 100, "width": 300, "height": 300},
       "hitShape": {"type": "rect", "x": 175, "y": 175, "width": 150, "height": 150}}
    ]}
    """

/// Where a request received on an event loop ran: answered there (its
/// status), or handed to a worker by `RunWhere` before its work began.
enum Ran: Equatable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    case loop(Int)
    case worker

    init(integerLiteral status: Int) { self = .loop(status) }
    init(_ reply: Reply?) { self = reply.map { .loop($0.status) } ?? .worker }

    var description: String {
        switch self {
        case .loop(let status): return "answered on the loop with \(status)"
        case .worker: return "handed to a worker"
        }
    }
}

extension Application {
    /// Answers a request as an event loop would: nil when `RunWhere`
    /// hands it to a worker (nothing of it has run).
    func callOnLoop(_ method: String, _ target: String, _ body: String? = nil, headers: [(String, String)] = []) -> Reply? {
        var h = HTTPHeaders(headers)
        if body != nil && !h.contains("Content-Type") { h.add("Content-Type", "application/json") }
        let request = HTTPRequest(method: method, target: target, headers: h, body: Array((body ?? "").utf8))
        return callOnLoop(request)
    }

    /// `request` as an event loop would answer it (see above).
    func callOnLoop(_ request: HTTPRequest) -> Reply? {
        switch handle(request, on: .loop) {
        case .response(let r): return Reply(status: r.status, headers: r.headers, body: r.body)
        case .onWorker: return nil
        }
    }

    /// Where a request received on an event loop runs (see `Ran`).
    func onLoop(_ method: String, _ target: String, _ body: String? = nil, headers: [(String, String)] = []) -> Ran {
        Ran(callOnLoop(method, target, body, headers: headers))
    }
}
