import HTTPServer
import HitMetrics

/// SPEC §8: `GET /metrics`, in the Prometheus text format 0.0.4, or in
/// OpenMetrics 1.0.0 when the `Accept` field prefers it.
extension Application {
    func scrape(_ request: HTTPRequest) -> HTTPResponse {
        let format = ExpositionFormat.negotiate(accept: request.headers["Accept"])
        var h = HTTPHeaders()
        h.set("Content-Type", format.contentType)
        h.set("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: h, body: metrics.exposition(format: format))
    }
}
