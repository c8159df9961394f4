// libFuzzer harness for the whole API, in process: every input is a short
// session of requests answered by `Application.respond(to:)` of a fresh
// application (fresh store, a clock that stands still, so an input replays
// exactly). Built by Fuzz/build-api.sh, run by Fuzz/run-api.sh.
//
// The input is a decision stream (`Decisions`): its bytes choose what the
// structured generator (APIFuzz+Scene.swift, APIFuzz+Requests.swift) writes,
// so libFuzzer's mutations become mutations of scenes and requests, not of
// JSON syntax. An input whose first byte is below 0x10 is sent raw instead:
// its bytes become the body of a request to a route it picks. A first byte
// of 0x10-0x1F runs the session against a keyed service; every request
// carries a credential and an `Origin` drawn from the input, judged by
// `checkAccess` (APIFuzz+Access.swift).
//
// After every answer (`checkAnswer`, APIFuzz+Check.swift) it traps, so
// that libFuzzer keeps the input, when:
//  1. the status is not 2xx or 4xx (503 and 507 are allowed too);
//  2. a JSON answer (application/json, application/problem+json) does not
//     parse with HitJSON's own parser (built once more without coverage as
//     FuzzCheckJSON: see build-api.sh), or holds a non-finite number
//     (SPEC §1: "no number in any answer is ever non-finite");
//  3. a 2xx hit or batch answer lacks its `scene`/`version`;
//  4. a hit without a pointer, or a small batch without pointer phases,
//     asked again with the trace the other way round, names other targets
//     (the traced visit reads every layer, the untraced one takes the
//     sibling indexes and covers, and a batch interleaves its points).
// Any trap inside the service (precondition, overflow, Int(Double), force
// unwrap) and any AddressSanitizer report is a finding too.

import Glibc
import HTTPServer
import HitAPI
import HitStore

/// `APIFUZZ_PRINT=1` prints every request and its status (to replay a
/// finding by hand, or to write its regression test).
let printRequests = getenv("APIFUZZ_PRINT") != nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPI(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    var d = Decisions(input)
    var session = FuzzSession(keyed: size > 0 && data[0] & 0xF0 == 0x10, input: input)
    if size > 0, data[0] < 0x10 {
        session.sendRaw(&d)
    } else {
        d.skip(1)
        session.run(&d)
    }
    return 0
}

/// One input's requests against one fresh application.
struct FuzzSession {
    let app: Application
    /// Scene ids this session created (targets for later requests).
    var scenes: [String] = []
    /// Layer ids of the scenes sent, for patches (any scene's: a wrong one is a fine 404).
    var layers: [String] = []
    /// Requests answered so far (for the failure message).
    var count = 0
    /// Whether the service has keys (APIFuzz+Access.swift).
    let keyed: Bool
    /// Each request's credential and `Origin`.
    var credentials: FuzzCredentials

    init(keyed: Bool, input: UnsafeBufferPointer<UInt8>) {
        self.keyed = keyed
        credentials = FuzzCredentials(seedingWith: input, keyed: keyed)
        var configuration = Configuration()
        // Just past the grid order's threshold (GridOrder.minimumPoints: 2048), so that the
        // batches that reach it (FuzzSession.batch) also reach the limit, at half the points of 4096.
        configuration.maxBatchPoints = 2049
        // Low enough that batches over long outlines and paths reach `--max-batch-work`
        // (its refusal is fuzzed too), and no input's batches take more than a few
        // milliseconds of routing.
        configuration.maxBatchWork = 2_000_000
        // Audits, reaches and diffs of at most 128² samples (finer grids are
        // refused, which is fuzzed too): a few milliseconds each.
        configuration.maxAnalysisSamples = 16_384
        // Low enough that renders with overlays and scenes of a few masks reach
        // their refusals too (--max-render-bytes, --max-scene-mask-pixels).
        configuration.maxRenderBytes = 16_384
        configuration.scene.maxSceneMaskPixels = 1_024
        let store = SceneStore(limits: configuration.store, clock: { 1000 })
        app = Application(configuration: configuration, store: store, access: FuzzSession.access(keyed: keyed))
    }

    /// Sends `method target` with `body` and checks the answer.
    @discardableResult
    mutating func send(_ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = []) -> HTTPResponse {
        let credential = credentials.draw()
        let headers = headers + credential.headers
        var h = HTTPHeaders(headers)
        if !body.isEmpty, !headers.contains(where: { $0.0 == "Content-Type" }) {
            h.add("Content-Type", "application/json")
        }
        // What the server asks before it reads or reserves any of a body;
        // an admitted head's note goes with its request, as the server
        // passes it on.
        var head = HTTPRequest(method: method, target: target, headers: h, body: [])
        let headRefusal = app.admitHead(&head)
        var request = HTTPRequest(method: method, target: target, headers: h, body: body)
        if headRefusal == nil, !body.isEmpty { request.admission = head.admission }
        let response = app.respond(to: request)
        count += 1
        if printRequests {
            print(
                "\(method) \(target) \(headers.map { "\($0.0): \($0.1)" }.joined(separator: "; "))\n\(String(decoding: body, as: UTF8.self))\n-> \(response.status) \(String(decoding: response.body.prefix(600), as: UTF8.self))\n"
            )
        }
        checkAnswer(response, to: request, index: count)
        checkAccess(response, to: request, credential, keyed: keyed, headRefusal: headRefusal, index: count)
        return response
    }

    @discardableResult
    mutating func send(_ method: String, _ target: String, json: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(method, target, body: Array(json.utf8), headers: headers)
    }
}

/// The fuzzer's bytes read as choices. Past the end every choice is 0
/// (the first option), so every input is a complete session.
struct Decisions {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isExhausted: Bool { offset >= bytes.count }

    mutating func skip(_ n: Int) { offset += n }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A choice in `0..<n` (n ≥ 1): one byte up to 256 options, two beyond.
    mutating func below(_ n: Int) -> Int {
        if n <= 1 { return 0 }
        if n <= 256 { return Int(byte()) % n }
        return (Int(byte()) << 8 | Int(byte())) % n
    }

    /// True with probability about `percent`/100.
    mutating func chance(_ percent: Int) -> Bool { Int(byte()) * 100 < percent * 256 }

    mutating func u64() -> UInt64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(byte()) }
        return v
    }

    /// Up to `max` raw bytes.
    mutating func raw(max: Int) -> [UInt8] {
        let n = min(below(max + 1), bytes.count - min(offset, bytes.count))
        defer { offset += n }
        return Array(bytes[offset..<(offset + n)])
    }

    mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }
}
