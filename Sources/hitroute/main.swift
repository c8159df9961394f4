// hitroute: the HTTP hit-testing service.
//
//     swift run -c release hitroute [--port 8080] [--host 127.0.0.1] [--help]
//
// Reads its configuration from flags and HITROUTE_* variables, serves until
// SIGTERM or SIGINT, then drains in-flight requests and exits 0.
import Glibc
import HitAPI

/// Writes a line to stderr (unbuffered, safe from any thread).
func printError(_ line: String) {
    var bytes = Array(line.utf8)
    if bytes.last != 10 { bytes.append(10) }
    _ = bytes.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
}

var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let pair = String(cString: pointer)
    if let eq = pair.firstIndex(of: "=") {
        environment[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
    }
    entry += 1
}

let configuration: Configuration
do {
    configuration = try Configuration.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
} catch {
    if error.isHelp {
        print(error.message)
        exit(0)
    }
    printError("hitroute: \(error.message)\n")
    exit(2)
}

let redis = Application.redisStore(configuration)
if let redis { printError("hitroute: scenes in Redis at \(redis.client.endpoint), cache \(configuration.cacheBytes) bytes\n") }
let (server, _) = Application.makeServer(configuration, store: redis)
do {
    try server.stopOnSignals([SIGTERM, SIGINT])
    let port = try server.start()
    printError("hitroute listening on \(configuration.server.host):\(port)\n")
} catch {
    printError("hitroute: cannot listen on \(configuration.server.host):\(configuration.server.port): \(error)\n")
    exit(1)
}
server.waitUntilStopped()
printError("hitroute stopped\n")
exit(0)
