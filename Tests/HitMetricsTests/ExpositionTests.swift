import TestSupport
import XCTest

@testable import HitMetrics

final class ExpositionTests: XCTestCase {
    let families: [MetricFamily] = [
        MetricFamily(name: "demo_build", help: "Build.", kind: .info, samples: [Sample(1, labels: [Label("version", "1.0")])]),
        MetricFamily(
            name: "demo_requests", help: "Requests \\ with \"quotes\"\nand a newline.", kind: .counter,
            samples: [
                Sample(3, labels: [Label("route", "/a/{id}"), Label("odd", "q\"b\\s\nn")]), Sample(0, labels: [Label("route", "/b")]),
            ]),
        .single("demo_temperature", .gauge, "A gauge.", 0.25),
        MetricFamily(
            name: "demo_duration_seconds", help: "Durations.", kind: .histogram, unit: "seconds",
            histograms: [HistogramSample(labels: [Label("route", "/a")], upperBounds: [0.001, 0.01], bucketCounts: [2, 0, 1], sum: 0.5)]),
    ]

    func testTextFormatParsesAndKeepsEveryValue() throws {
        let text = String(decoding: Exposition.render(families, format: .prometheusText), as: UTF8.self)
        let parsed = try ParsedExposition(text)
        try parsed.checkHistograms()
        XCTAssertEqual(
            parsed.families.map(\.name), ["demo_build_info", "demo_requests_total", "demo_temperature", "demo_duration_seconds"])
        XCTAssertEqual(parsed.families.map(\.type), ["gauge", "counter", "gauge", "histogram"])
        XCTAssertEqual(parsed.value("demo_requests_total", ["route": "/a/{id}"]), 3)
        // The label value comes back byte for byte through the escapes.
        XCTAssertEqual(parsed.family("demo_requests_total")?.samples.first?.labels["odd"], "q\"b\\s\nn")
        XCTAssertEqual(parsed.value("demo_temperature"), 0.25)
        XCTAssertEqual(parsed.value("demo_duration_seconds_bucket", ["le": "0.001"]), 2)
        XCTAssertEqual(parsed.value("demo_duration_seconds_bucket", ["le": "0.01"]), 2)
        XCTAssertEqual(parsed.value("demo_duration_seconds_bucket", ["le": "+Inf"]), 3)
        XCTAssertEqual(parsed.value("demo_duration_seconds_count"), 3)
        XCTAssertEqual(parsed.value("demo_duration_seconds_sum"), 0.5)
        XCTAssertFalse(text.contains("# EOF"))
        XCTAssertFalse(text.contains("# UNIT"))
        // Help text escapes only backslash and newline in this format.
        XCTAssertTrue(text.contains(#"# HELP demo_requests_total Requests \\ with "quotes"\nand a newline."#), text)
    }

    func testOpenMetricsNamesCountersWithoutTotalAndEndsWithEOF() throws {
        let text = String(decoding: Exposition.render(families, format: .openMetrics), as: UTF8.self)
        let parsed = try ParsedExposition(text, openMetrics: true)
        try parsed.checkHistograms()
        XCTAssertTrue(parsed.sawEOF)
        XCTAssertTrue(text.hasSuffix("\n# EOF\n"))
        XCTAssertEqual(parsed.families.map(\.name), ["demo_build", "demo_requests", "demo_temperature", "demo_duration_seconds"])
        XCTAssertEqual(parsed.families.map(\.type), ["info", "counter", "gauge", "histogram"])
        XCTAssertEqual(parsed.family("demo_duration_seconds")?.unit, "seconds")
        XCTAssertEqual(parsed.value("demo_requests_total", ["route": "/a/{id}"]), 3)
        XCTAssertEqual(parsed.value("demo_build_info", ["version": "1.0"]), 1)
        XCTAssertTrue(text.contains(#"# HELP demo_requests Requests \\ with \"quotes\"\nand a newline."#), text)
    }

    func testNumbers() {
        XCTAssertEqual(Exposition.number(3), "3")
        XCTAssertEqual(Exposition.number(-2), "-2")
        XCTAssertEqual(Exposition.number(0.25), "0.25")
        XCTAssertEqual(Exposition.number(2.5e-05), "2.5e-05")
        XCTAssertEqual(Exposition.number(.infinity), "+Inf")
        XCTAssertEqual(Exposition.number(-.infinity), "-Inf")
        XCTAssertEqual(Exposition.number(.nan), "NaN")
        XCTAssertEqual(Exposition.number(1e300), "1e+300")
        XCTAssertEqual(Double(Exposition.number(5e-324)), 5e-324)
    }

    func testNegotiation() {
        XCTAssertEqual(ExpositionFormat.negotiate(accept: nil), .prometheusText)
        XCTAssertEqual(ExpositionFormat.negotiate(accept: "*/*"), .prometheusText)
        XCTAssertEqual(ExpositionFormat.negotiate(accept: "text/plain;version=0.0.4"), .prometheusText)
        // What Prometheus 2.x/3.x sends.
        XCTAssertEqual(
            ExpositionFormat.negotiate(
                accept:
                    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
            ),
            .openMetrics)
        XCTAssertEqual(ExpositionFormat.negotiate(accept: "application/openmetrics-text"), .openMetrics)
        XCTAssertEqual(ExpositionFormat.negotiate(accept: "application/openmetrics-text; q=0"), .prometheusText)
        XCTAssertEqual(ExpositionFormat.negotiate(accept: "text/plain, application/openmetrics-text;q=0.5"), .prometheusText)
        XCTAssertEqual(ExpositionFormat.negotiate(accept: "application/json"), .prometheusText)
        XCTAssertEqual(ExpositionFormat.negotiate(accept: ";;,,=;q"), .prometheusText)
    }

    func testRegistryKeepsOrderAndTheFirstOfARepeatedFamily() {
        let registry = MetricsRegistry()
        registry.register { [.single("b_one", .gauge, "first", 1)] }
        registry.register { [.single("a_two", .gauge, "second", 2), .single("b_one", .gauge, "again", 9)] }
        let names = registry.collect().map(\.name)
        XCTAssertEqual(names, ["b_one", "a_two"])
        XCTAssertEqual(registry.collect().first?.samples.first?.value, 1)
    }
}

final class CounterCellsTests: XCTestCase {
    func testShardsSumExactlyUnderConcurrentWriters() {
        let cells = CounterCells(shards: 4, cells: 3)
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            for i in 0..<10_000 {
                if worker < 4 {
                    cells.bump(shard: worker, cell: i % 3)
                } else {
                    cells.addShared(cell: i % 3, by: 2)
                }
            }
        }
        // 4 single writers × (3334, 3333, 3333) + the shared one twice that.
        let expected: [UInt64] = [6 * 3334, 6 * 3333, 6 * 3333]
        XCTAssertEqual(cells.sums(), expected)
        XCTAssertEqual(cells.value(shard: 2, cell: 0), 3334)
        XCTAssertEqual(cells.value(shard: cells.sharedShard, cell: 1), 2 * 3333)
        XCTAssertEqual(cells.value(shard: 9, cell: 0), 0)
        XCTAssertEqual(cells.sum(cell: -1), 0)
    }

    func testBucketIndexIsTheFirstBoundNotExceeded() {
        let b = DurationBuckets.standard
        XCTAssertEqual(b.nanoseconds.first, 10_000)
        XCTAssertEqual(b.nanoseconds.last, 10_000_000_000)
        XCTAssertEqual(b.nanoseconds.count, 19)
        XCTAssertEqual(b.nanoseconds, b.nanoseconds.sorted())
        XCTAssertEqual(b.index(of: 0), 0)
        XCTAssertEqual(b.index(of: 10_000), 0)  // le: a bound includes itself
        XCTAssertEqual(b.index(of: 10_001), 1)
        XCTAssertEqual(b.index(of: 50_000), 2)  // a 50 µs hit has a bucket of its own
        XCTAssertEqual(b.index(of: 10_000_000_000), 18)
        XCTAssertEqual(b.index(of: .max), 19)  // +Inf
        XCTAssertEqual(b.seconds[3], 0.0001)
    }

    func testHistogramFromBucketCountsIsCumulative() {
        let h = HistogramSample(labels: [], upperBounds: [1, 2, 3], bucketCounts: [1, 0, 4, 2], sum: 9)
        XCTAssertEqual(h.cumulativeCounts, [1, 1, 5])
        XCTAssertEqual(h.count, 7)
    }
}

final class ProcessMetricsTests: XCTestCase {
    func testProcessFamiliesFromProc() throws {
        let text = String(decoding: Exposition.render(ProcessMetrics().collect(), format: .prometheusText), as: UTF8.self)
        let parsed = try ParsedExposition(text)
        XCTAssertEqual(
            Set(parsed.families.map(\.name)),
            [
                "process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                "process_start_time_seconds", "process_threads", "process_open_fds", "process_max_fds",
            ])
        XCTAssertGreaterThan(parsed.value("process_resident_memory_bytes"), 1_048_576)
        XCTAssertGreaterThanOrEqual(parsed.value("process_virtual_memory_bytes"), parsed.value("process_resident_memory_bytes"))
        XCTAssertGreaterThanOrEqual(parsed.value("process_threads"), 1)
        XCTAssertGreaterThanOrEqual(parsed.value("process_open_fds"), 3)
        XCTAssertGreaterThanOrEqual(parsed.value("process_max_fds"), parsed.value("process_open_fds"))
        let now = Double(time(nil))
        let start = parsed.value("process_start_time_seconds")
        XCTAssertLessThanOrEqual(start, now + 1)
        XCTAssertGreaterThan(start, now - 86_400 * 365)
        // The fields after a command holding spaces and parentheses.
        XCTAssertEqual(ProcessMetrics.statFields("12 (a b) c) S 1 2")?.first, "S")
    }
}
