// Times RedisClient reading one reply from a real redis-server: `LRANGE
// key 0 -1` of a list of small integers (one array of N elements; a big one
// arrives in many reads). Built against a revision's RESP and RESPClient
// sources by Benchmarks/resp-reply.sh, which compares two revisions.
//
//   resp-reply PORT KEY N CALLS   → the median milliseconds of CALLS calls,
//                                   after one that connects
import Glibc
import RESP
import RESPClient

let args = CommandLine.arguments
guard args.count == 5, let port = Int(args[1]), let n = Int(args[3]), let calls = Int(args[4]), calls > 0 else {
    fputs("usage: resp-reply PORT KEY N CALLS\n", stderr)
    exit(2)
}
let client = RedisClient(RedisEndpoint(host: "127.0.0.1", port: port), timeout: 60, maxElements: 1 << 22)
var ms: [Double] = []
for call in 0...calls {
    var t0 = timespec(), t1 = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t0)
    let reply: RESPValue
    do { reply = try client.send("LRANGE", args[2], "0", "-1") } catch {
        fputs("LRANGE: \(error)\n", stderr)
        exit(1)
    }
    clock_gettime(CLOCK_MONOTONIC, &t1)
    guard reply.elements?.count == n else {
        fputs("expected \(n) elements, got \(reply.elements?.count ?? -1)\n", stderr)
        exit(1)
    }
    if call > 0 { ms.append(Double(t1.tv_sec - t0.tv_sec) * 1e3 + Double(t1.tv_nsec - t0.tv_nsec) / 1e6) }
}
print(String(ms.sorted()[ms.count / 2]))
