// hitroute-bench: in-process benchmarks of the core and the codecs.
//
//     swift run -c release hitroute-bench ring | api | mask | big [N] | audit [N [rounds]] | ingest [N] | render [N] | patch [N] | work [case…] | generate [N]
//
// Prints medians over repeated runs; each run times a whole batch of points
// so that clock overhead does not count. Not a test: numbers, not verdicts.
import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first ?? "ring" {
case "ring": benchRing()
case "api": benchAPI()
case "big": benchBigScene(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
case "ingest": benchIngest(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
case "mask": benchMask()
case "render": benchRender(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
case "patch": benchPatch(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
case "work": benchWork(names: Array(arguments.dropFirst()))
case "audit":
    benchAudit(
        count: arguments.count > 1 ? Int(arguments[1])! : 100_000, rounds: arguments.count > 2 ? Int(arguments[2])! : 5,
        divisions: arguments.count > 3 ? Double(arguments[3])! : 512)
case "memory": benchMemory(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
case "generate":
    let bytes = polygonSceneJSON(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
    bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(1, buffer.baseAddress! + offset, buffer.count - offset)
            guard n > 0 else { exit(1) }
            offset += n
        }
    }
default:
    print(
        "usage: hitroute-bench ring | api | mask | big [polygons] | ingest [polygons] | patch [polygons] | generate [polygons] > scene.json"
    )
    exit(2)
}
