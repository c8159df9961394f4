import XCTest

@testable import HitAPI
@testable import HitStore

/// The flags, key layout and announcement format of Redis mode (no server needed).
final class RedisConfigurationTests: XCTestCase {
    func testStoreFlagAndPassword() throws {
        let c = try Configuration.parse(
            arguments: ["--store", "redis://10.0.0.5:7000/2", "--cache-bytes", "4096"],
            environment: ["HITROUTE_REDIS_PASSWORD": "pw-pw-pw-pw"])
        XCTAssertEqual(c.storeURL, "redis://10.0.0.5:7000/2")
        XCTAssertEqual(c.cacheBytes, 4096)
        XCTAssertEqual(c.redisPassword, "pw-pw-pw-pw")
        XCTAssertEqual(try Configuration.parse(arguments: [], environment: ["HITROUTE_STORE": "redis://h"]).storeURL, "redis://h")
        XCTAssertNil(try Configuration.parse(arguments: [], environment: [:]).storeURL)
        for bad in ["http://h", "redis://user:pw@h", "redis://h:0"] {
            XCTAssertThrowsError(try Configuration.parse(arguments: ["--store", bad], environment: [:]), bad)
        }
        XCTAssertThrowsError(try Configuration.parse(arguments: ["--cache-bytes", "0"], environment: [:]))
        XCTAssertFalse(Configuration.usage.contains("pw-pw"))
    }

    /// The image sets HITROUTE_DATA_DIR; a manifest that passes --store
    /// clears it with an empty value, which counts as not set.
    func testEmptyVariableIsUnsetAndDataDirExcludesStore() throws {
        let image = ["HITROUTE_HOST": "0.0.0.0", "HITROUTE_PORT": "8080", "HITROUTE_DATA_DIR": "/data"]
        let args = ["--store=redis://redis:6379/0"]
        XCTAssertThrowsError(try Configuration.parse(arguments: args, environment: image)) { error in
            let message = (error as? ConfigurationError)?.message ?? ""
            XCTAssertTrue(message.contains("HITROUTE_DATA_DIR (environment) and --store (command line) are exclusive"), message)
        }
        XCTAssertThrowsError(try Configuration.parse(arguments: ["--data-dir", "/d"], environment: ["HITROUTE_STORE": "redis://h"])) {
            error in
            let message = (error as? ConfigurationError)?.message ?? ""
            XCTAssertTrue(message.contains("--data-dir (command line) and HITROUTE_STORE (environment)"), message)
        }
        var cleared = image
        cleared["HITROUTE_DATA_DIR"] = ""
        let c = try Configuration.parse(arguments: args, environment: cleared)
        XCTAssertNil(c.dataDir)
        XCTAssertEqual(c.storeURL, "redis://redis:6379/0")
        XCTAssertEqual(c.server.port, 8080)
        // Every variable: empty is the default, never an invalid value.
        let empty = Dictionary(uniqueKeysWithValues: Configuration.options.map { ($0.environmentName, "") })
        let d = try Configuration.parse(arguments: [], environment: empty)
        XCTAssertEqual(d.corsOrigins, ["*"])
        XCTAssertTrue(d.server.logRequests)
        XCTAssertEqual(d.server.port, Configuration().server.port)
        // A flag given on the command line after the environment set it still counts as the command line's.
        XCTAssertThrowsError(
            try Configuration.parse(arguments: ["--data-dir", "/d", "--store", "redis://h"], environment: ["HITROUTE_DATA_DIR": "/x"])
        ) { error in
            XCTAssertTrue(((error as? ConfigurationError)?.message ?? "").contains("--data-dir (command line) and --store (command line)"))
        }
    }

    func testKeysShareTheScenesHashTag() {
        let k = RedisKeys()
        XCTAssertEqual(String(decoding: k.doc("ring-demo"), as: UTF8.self), "hitroute:{ring-demo}:doc")
        XCTAssertEqual(String(decoding: k.version("ring-demo"), as: UTF8.self), "hitroute:{ring-demo}:version")
        XCTAssertEqual(k.channel, "hitroute:changes")
    }

    func testAnnouncements() {
        let a = Announcement(kind: .patch, version: 7, id: "ring-demo")
        XCTAssertEqual(Announcement(a.bytes), a)
        for bad in ["", "patch", "patch 7", "fly 7 x", "patch -1 x", "patch x y", "patch 7 bad/id", "patch 7 "] {
            XCTAssertNil(Announcement(Array(bad.utf8)), bad)
        }
    }

    /// Without --store the one process is always current: X-Min-Version
    /// is checked for its form (400) and answers as without the header.
    func testMemoryModeChecksTheFormOfMinVersionOnly() {
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=1&y=1", headers: [("X-Min-Version", "1")]).status, 200)
        XCTAssertEqual(
            app.call("POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":1}]}"#, headers: [("X-Min-Version", "1")]).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=1&y=1", headers: [("X-Min-Version", "99")]).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo", headers: [("X-Min-Version", "858296970861170604900352")]).status, 200)
        XCTAssertEqual(try? Application.minVersion("858296970861170604900352"), Int.max, "past Int.max: more than any scene holds")
        XCTAssertEqual(try? Application.minVersion(" 007 "), 7)
        for bad in ["0", "000", "-1", "+1", "x", "1.5", "", "1e3", "١"] {
            XCTAssertEqual(app.call("GET", "/scenes/ring-demo", headers: [("X-Min-Version", bad)]).status, 400, bad)
        }
        XCTAssertEqual(app.call("GET", "/scenes/nope", headers: [("X-Min-Version", "1")]).status, 404)
    }
}
