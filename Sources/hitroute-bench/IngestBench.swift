// `hitroute-bench ingest N`: decode, validate and compile a big scene.
import HitAPI
import HitRouting
import SceneCodec

func benchIngest(count: Int) {
    let body = polygonSceneJSON(count: count)
    let mb = Double(body.count) / 1e6
    var decodeTimes: [Double] = []
    var compileTimes: [Double] = []
    resetPeakRSS()  // the body was just built here: measure from now on
    let rssBefore = residentMemory().current
    var firstPeak = 0
    var resident = 0
    for round in 0..<3 {
        let t0 = now()
        let scene = try! body.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: SceneLimits()) }
        let t1 = now()
        let compiled = LiveScene(scene)
        let t2 = now()
        if round == 0 { (resident, firstPeak) = residentMemory() }
        consume(compiled)
        decodeTimes.append(t1 - t0)
        compileTimes.append(t2 - t1)
    }
    let decode = median(decodeTimes)
    let compile = median(compileTimes)
    print("ingest: \(count) polygons, \(fixed(mb, width: 1)) MB of JSON (median of 3)")
    print("  decode + validate: \(fixed(decode * 1000)) ms  \(fixed(mb / decode)) MB/s")
    print("  compile + index:   \(fixed(compile * 1000)) ms")
    print("  end to end:        \(fixed(mb / (decode + compile))) MB/s")
    // The first ingest, into a process that holds only the body.
    let growth = Double(firstPeak - rssBefore)
    let kept = Double(resident - rssBefore)
    print(
        "  peak RSS growth:   \(fixed(growth / 1e6)) MB (\(fixed(growth / Double(body.count), width: 1))× the body; the body itself adds 1×)"
    )
    print("  resident scene:    \(fixed(kept / 1e6)) MB")
}
