// hitroute: the HTTP hit-testing service.
//
//     swift run -c release hitroute [--port 8080] [--host 127.0.0.1] [--help]
//
// Reads its configuration from flags and HITROUTE_* variables, serves until
// SIGTERM or SIGINT, then drains in-flight requests and exits 0. SIGHUP
// reloads the API key file.
import Glibc
import HTTPServer
import HitAPI
import HitJournal
import HitStore

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
    // The format is not known yet; a JSON line is what a log shipper expects
    // when the environment asks for JSON.
    let json =
        environment["HITROUTE_LOG_FORMAT"]?.lowercased() == "json" || CommandLine.arguments.contains { $0 == "--log-format=json" }
        || zip(CommandLine.arguments, CommandLine.arguments.dropFirst()).contains { $0 == "--log-format" && $1.lowercased() == "json" }
    ServiceLog(format: json ? .json : .text)(.error, error.message)
    exit(2)
}
/// Every line the process writes, in the request log's format (SPEC §8).
let log = ServiceLog(format: configuration.server.logFormat)

// The store the configuration names (StoreFactory); a journal's directory
// is locked before the server starts, and loaded while /readyz says 503.
if configuration.dataDir != nil {
    signal(SIGXFSZ, SIG_IGN)  // a file-size limit fails the write (EFBIG, a 507) instead of killing the process
}
let store: any SceneStoring
do {
    store = try StoreFactory.make(configuration.storeConfiguration, log: { log($0.contains("failed") ? .warning : .info, $0) })
} catch {
    log(.error, "\(error.message)\(error.errno == EWOULDBLOCK ? " (another process holds the directory)" : "")")
    exit(error.errno == nil ? 2 : 1)
}
if store.capabilities.shared { log(.info, "scenes in \(store.location)") }
let access: AccessControl
if let file = configuration.apiKeysFile {
    do {
        access = try AccessControl(file: file)
    } catch {
        log(.error, "--api-keys-file \(error.message)")
        exit(2)
    }
} else {
    access = .open
}

let (server, _) = Application.makeServer(configuration, store: store, access: access)
do {
    try server.stopOnSignals([SIGTERM, SIGINT])
    if access.file != nil {
        try SignalWatcher.watch(SIGHUP) {
            switch access.reload() {
            case .success(let n): log(.info, "SIGHUP: reloaded \(n) API key\(n == 1 ? "" : "s")")
            case .failure(let error): log(.warning, "SIGHUP: key file not reloaded, the keys in force stay: \(error.message)")
            }
        }
    }
    let port = try server.start()
    log(.info, "listening on \(configuration.server.host):\(port)", ["host": .string(configuration.server.host), "port": .int(port)])
    for note in Application.startupNotes(host: configuration.server.host, access: access) { log(note.level, note.message) }
} catch {
    log(.error, "cannot listen on \(configuration.server.host):\(configuration.server.port): \(error)")
    exit(1)
}
do {
    try store.start()
} catch {
    log(.error, "cannot start from --data-dir \(configuration.dataDir ?? ""): \(error)")
    exit(1)
}
server.waitUntilStopped()
store.close()
log(.info, "stopped")
exit(0)
