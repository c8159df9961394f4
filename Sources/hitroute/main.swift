// hitroute: the HTTP hit-testing service.
//
//     swift run -c release hitroute [--port 8080] [--host 127.0.0.1] [--help]
//
// Reads its configuration from flags and HITROUTE_* variables, serves until
// SIGTERM or SIGINT, then drains in-flight requests and exits 0.
import Glibc
import HitAPI
import HitJournal

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

// SPEC §9: a durable store when --data-dir is given (locked before the
// server starts; loaded while /readyz says 503).
var journal: JournalStore?
if let options = configuration.journal {
    signal(SIGXFSZ, SIG_IGN)  // a file-size limit fails the write (EFBIG, a 507) instead of killing the process
    do {
        journal = try JournalStore(options: options, limits: configuration.store, log: { printError($0) })
    } catch {
        printError("hitroute: cannot use --data-dir \(options.directory): \(error)\(error.errno == EWOULDBLOCK ? " (another process holds the directory)" : "")\n")
        exit(1)
    }
}

let (server, _) = Application.makeServer(configuration, store: journal)
do {
    try server.stopOnSignals([SIGTERM, SIGINT])
    let port = try server.start()
    printError("hitroute listening on \(configuration.server.host):\(port)\n")
} catch {
    printError("hitroute: cannot listen on \(configuration.server.host):\(configuration.server.port): \(error)\n")
    exit(1)
}
if let journal {
    do {
        try journal.recover()
    } catch {
        printError("hitroute: cannot start from --data-dir \(configuration.dataDir ?? ""): \(error)\n")
        exit(1)
    }
}
server.waitUntilStopped()
journal?.close()
printError("hitroute stopped\n")
exit(0)
