import HTTPServer
import HitMetrics
import HitStore
import RESPClient

/// The service's metric families (SPEC §8), each read where it is counted:
/// the server's loops, the API's counters, the store, the key file, the
/// process. docs/operations.md lists them.
enum ServiceMetrics {
    /// The version in `hitroute_build_info` (as in openapi.yaml).
    static let version = "0.1.0"

    static var swiftVersion: String {
        #if compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #elseif compiler(>=6.1)
            return "6.1"
        #else
            return "6.0"
        #endif
    }

    /// A gauge in both formats, as the Prometheus client libraries expose
    /// build information (`go_build_info`), so the family reads the same in
    /// both; OpenMetrics' `info` type is valid, but tools that read the
    /// text format (promtool 2.42) reject it as an unknown type.
    static func buildInfo() -> [MetricFamily] {
        [
            MetricFamily(
                name: "hitroute_build_info", help: "The running build: its version and Swift compiler (value 1).", kind: .gauge,
                samples: [Sample(1, labels: [Label("version", version), Label("swift", swiftVersion)])])
        ]
    }

    /// Status codes counted as rejections, with their reason label.
    static let rejectionReasons: [(code: String, reason: String)] = [
        ("401", "unauthorized"), ("403", "forbidden"), ("408", "timeout"), ("413", "body_too_large"),
        ("414", "request_line_too_long"), ("429", "too_many_pointers"), ("431", "headers_too_large"),
    ]

    /// The server's families: requests, durations, in flight, connections,
    /// bytes, and rejections by reason (derived from the status counts, so
    /// they cost the request path nothing more).
    static func http(_ s: ServerStatistics) -> [MetricFamily] {
        let requests = s.requests.map { r in
            Sample(Double(r.count), labels: [Label("route", r.route), Label("method", r.method), Label("code", r.code)])
        }
        let durations = s.durations.map { d in
            HistogramSample(
                labels: [Label("route", d.route), Label("method", d.method), Label("code", d.code)], upperBounds: s.upperBounds,
                bucketCounts: d.bucketCounts, sum: d.sumSeconds)
        }
        var byCode: [String: UInt64] = [:]
        for r in s.requests { byCode[r.code, default: 0] &+= r.count }
        var rejected = rejectionReasons.map { Sample(Double(byCode[$0.code] ?? 0), labels: [Label("reason", $0.reason)]) }
        rejected.append(Sample(Double(s.refusedConnections), labels: [Label("reason", "too_many_connections")]))
        rejected.append(Sample(Double(s.bodyBuffer.refusals), labels: [Label("reason", "body_buffer_full")]))
        rejected.append(Sample(Double(s.responseBuffer.refusals), labels: [Label("reason", "response_buffer_full")]))
        return [
            MetricFamily(
                name: "hitroute_http_requests", help: "HTTP requests answered, by route template, method and status code.",
                kind: .counter, samples: requests),
            MetricFamily(
                name: "hitroute_http_request_duration_seconds",
                help:
                    "Time from a request's first byte to its response queued for sending, by route template, method and status class (2xx, 4xx, ...).",
                kind: .histogram, unit: "seconds", histograms: durations),
            .single("hitroute_http_requests_in_flight", .gauge, "Requests received and not yet answered.", Double(s.inFlight)),
            .single("hitroute_http_connections_open", .gauge, "TCP connections open now.", Double(s.openConnections)),
            .single("hitroute_http_connections_accepted", .counter, "TCP connections accepted.", Double(s.acceptedConnections)),
            MetricFamily(
                name: "hitroute_http_rejected_requests",
                help:
                    "Requests refused before their work was done, by reason (413, 414, 431, 408, 429, 401, 403; connections past --max-connections; 503 bodies past --max-buffered-body-bytes, responses past --max-buffered-response-bytes).",
                kind: .counter, samples: rejected),
            .single(
                "hitroute_http_received_bytes", .counter, "Bytes of requests received, heads and bodies.", unit: "bytes", Double(s.bytesIn)),
            .single(
                "hitroute_http_sent_bytes", .counter, "Bytes of responses queued for sending, heads and bodies.", unit: "bytes",
                Double(s.bytesOut)),
            .single(
                "hitroute_http_body_buffer_bytes", .gauge, "Bytes of request bodies (over 16 KiB) being received or handled now.",
                unit: "bytes", Double(s.bodyBuffer.reserved)),
            .single(
                "hitroute_http_body_buffer_capacity_bytes", .gauge, "What --max-buffered-body-bytes allows at once.", unit: "bytes",
                Double(s.bodyBuffer.capacity)),
            .single(
                "hitroute_http_response_buffer_bytes", .gauge,
                "Bytes of responses held in memory until sent (clients slow to read hold them longer).", unit: "bytes",
                Double(s.responseBuffer.queued)),
            .single(
                "hitroute_http_response_buffer_capacity_bytes", .gauge, "What --max-buffered-response-bytes allows at once.", unit: "bytes",
                Double(s.responseBuffer.capacity)),
            .single("hitroute_streams_open", .gauge, "WebSocket pointer streams open now.", Double(s.streams.open)),
            .single("hitroute_streams_opened", .counter, "WebSocket pointer streams opened.", Double(s.streams.opened)),
            .single("hitroute_streams_refused", .counter, "Stream upgrades refused at --max-streams.", Double(s.streams.refused)),
            .single("hitroute_stream_messages_received", .counter, "Text messages received on streams.", Double(s.streams.messagesIn)),
            .single(
                "hitroute_stream_messages_sent", .counter, "Text messages sent on streams (answers, errors and pushes).",
                Double(s.streams.messagesOut)),
        ]
    }

    /// What the streams' sessions counted: pushes and coalesced moves.
    static func streams(_ hub: StreamHub) -> [MetricFamily] {
        [
            .single(
                "hitroute_stream_pushes", .counter, "Scene changes pushed to streams (a new version, or deleted).",
                Double(hub.pushes.load(ordering: .relaxed))),
            .single(
                "hitroute_stream_coalesced_moves", .counter,
                "Moves and hovers held back under backpressure and replaced by a later one of the same pointer.",
                Double(hub.coalesced.load(ordering: .relaxed))),
        ]
    }

    static func api(_ counters: APICounters) -> [MetricFamily] {
        let points = counters.pointsRouted
        let unrouted = counters.pointsUnrouted
        return [
            MetricFamily(
                name: "hitroute_points_routed", help: "Points routed to a layer (or to none), by single hit or batch.",
                kind: .counter,
                samples: [
                    Sample(Double(points.single), labels: [Label("kind", "single")]),
                    Sample(Double(points.batch), labels: [Label("kind", "batch")]),
                ]),
            MetricFamily(
                name: "hitroute_points_unrouted", help: "Points of answered requests that routed to no layer, by single hit or batch.",
                kind: .counter,
                samples: [
                    Sample(Double(unrouted.single), labels: [Label("kind", "single")]),
                    Sample(Double(unrouted.batch), labels: [Label("kind", "batch")]),
                ]),
        ]
    }

    /// What the process holds: the store's scenes (with Redis, the
    /// replica's cache of them), their layers, weight and live captures.
    static func store(_ stats: StoreStats, compileTimes: CompileTimes) -> [MetricFamily] {
        [
            .single("hitroute_scenes", .gauge, "Scenes held (with Redis: in this replica's cache).", Double(stats.scenes)),
            .single("hitroute_layers", .gauge, "Layers held over all scenes held, whole trees.", Double(stats.layers)),
            .single(
                "hitroute_store_bytes", .gauge,
                "Bytes the scenes held weigh: their JSON and masks (what --max-store-bytes, with Redis --cache-bytes, bounds).",
                unit: "bytes", Double(stats.bytes)),
            .single("hitroute_pointer_captures", .gauge, "Live pointer captures over all scenes held.", Double(stats.captures)),
            MetricFamily(
                name: "hitroute_scene_compile_seconds", help: "Time to compile an uploaded scene (create or replace).",
                kind: .histogram, unit: "seconds", histograms: [compileTimes.histogram()]),
        ]
    }

    /// A shared store's cache of compiled scenes: its bound, evictions and loads.
    static func cache(_ cache: CacheStats) -> [MetricFamily] {
        [
            .single(
                "hitroute_cache_capacity_bytes", .gauge, "The bound of this replica's scene cache (--cache-bytes).", unit: "bytes",
                Double(cache.capacity)),
            .single(
                "hitroute_cache_evictions", .counter, "Scenes evicted from this replica's cache to make room.", Double(cache.evictions)),
            .single(
                "hitroute_cache_loads", .counter,
                "Scenes fetched from Redis and compiled after a cache miss (concurrent misses of one scene share a load).",
                Double(cache.loads)),
        ]
    }

    /// This replica's traffic with Redis: round trips, failures by kind,
    /// connections opened, recoveries after a failure, subscriptions made
    /// and announcements received (pub/sub).
    static func redis(_ s: RedisStatistics.Snapshot) -> [MetricFamily] {
        [
            MetricFamily(
                name: "hitroute_redis_exchange_duration_seconds",
                help:
                    "Round trips to Redis (a connection borrowed or opened, the commands written, every reply read), failed ones included.",
                kind: .histogram, unit: "seconds",
                histograms: [HistogramSample(labels: [], upperBounds: s.upperBounds, bucketCounts: s.bucketCounts, sum: s.sumSeconds)]),
            MetricFamily(
                name: "hitroute_redis_errors",
                help: "Exchanges with Redis that got no reply, by kind (fast failures while backing off not counted).",
                kind: .counter,
                samples: zip(RedisStatistics.errorKinds, s.errors).map { Sample(Double($1), labels: [Label("kind", $0)]) }),
            .single(
                "hitroute_redis_connections_opened", .counter,
                "Connections to Redis opened for commands (the subscription's not included).", Double(s.connectionsOpened)),
            .single(
                "hitroute_redis_recoveries", .counter, "Returns to health: the first good exchange after a failed one (a reconnect).",
                Double(s.recoveries)),
            .single(
                "hitroute_redis_subscriptions", .counter,
                "Subscriptions to the announcement channel made (1, plus one per resubscription).", Double(s.subscriptions)),
            .single(
                "hitroute_redis_pubsub_messages", .counter, "Announcements of changes received over pub/sub (this replica's own included).",
                Double(s.messages)),
        ]
    }

    /// Whether the store takes writes (what `/readyz` reports), by backend:
    /// 1 when ready, 0 while it loads its journal or when a journal write or
    /// sync failed or Redis is unreachable (SPEC §8, §9, §10).
    static func health(of store: any SceneStoring) -> [MetricFamily] {
        let backend = store.capabilities.backend
        let ready: Double = store.health() == .ready ? 1 : 0
        return [
            MetricFamily(
                name: "hitroute_store_ready",
                help: "1 when the store takes writes, 0 while it loads or after a failed write (see /readyz).",
                kind: .gauge, samples: [Sample(ready, labels: [Label("backend", backend)])])
        ]
    }

    static func access(_ access: AccessControl) -> [MetricFamily] {
        let reloads = access.reloadCounts
        return [
            .single("hitroute_auth_enabled", .gauge, "1 when API keys are required, 0 when the service is open.", access.isOpen ? 0 : 1),
            .single("hitroute_auth_keys", .gauge, "API keys in force.", Double(access.keyCount)),
            MetricFamily(
                name: "hitroute_auth_reloads", help: "Reloads of the key file (SIGHUP), by result.", kind: .counter,
                samples: [
                    Sample(Double(reloads.succeeded), labels: [Label("result", "success")]),
                    Sample(Double(reloads.failed), labels: [Label("result", "failure")]),
                ]),
        ]
    }
}
