import RESP
import RESPClient

/// The one Lua script through which every change reaches Redis: it checks,
/// writes the document, bumps `version` exactly once and PUBLISHes the
/// change, atomically (Redis runs a script with nothing in between).
///
/// `KEYS`: the scene's doc and version keys, the index set, the scene's
/// summary key.
/// `ARGV`: mode (`create`, `put`, `cas`, `delete`), scene id, the expected
/// version (`cas`), the document, the scene limit, the channel, the
/// announced kind, the summary (``RedisSceneSummary``; the script puts the
/// new version in front).
///
/// Replies: the new version (> 0); `1`/`0` for `delete` (removed / none);
/// `-1` exists (`create`); `-2` version mismatch (`cas`); `-3` no such scene
/// (`cas`); `-4` the scene limit is reached.
enum RedisWriteScript {
    static let source = """
        local mode = ARGV[1]
        local current = tonumber(redis.call('GET', KEYS[2]) or '0')
        if mode == 'delete' then
          if current == 0 then return 0 end
          redis.call('DEL', KEYS[1], KEYS[2], KEYS[4])
          redis.call('SREM', KEYS[3], ARGV[2])
          redis.call('PUBLISH', ARGV[6], 'delete 0 ' .. ARGV[2])
          return 1
        end
        if mode == 'create' and current ~= 0 then return -1 end
        if mode == 'cas' then
          if current == 0 then return -3 end
          if current ~= tonumber(ARGV[3]) then return -2 end
        end
        if current == 0 and redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[5]) then return -4 end
        local v = redis.call('INCR', KEYS[2])
        redis.call('SET', KEYS[1], ARGV[4])
        redis.call('SET', KEYS[4], v .. ' ' .. ARGV[8])
        redis.call('SADD', KEYS[3], ARGV[2])
        redis.call('PUBLISH', ARGV[6], ARGV[7] .. ' ' .. v .. ' ' .. ARGV[2])
        return v
        """

    /// SHA-1 of ``source``, as `SCRIPT LOAD` answers it (computed by the
    /// server once, then cached by the store).
    enum Mode: String { case create, put, cas, delete }

    /// Runs the script by its SHA (`EVALSHA`), loading it when the server
    /// does not know it (`NOSCRIPT`, after a restart).
    /// - Returns: the script's integer reply.
    static func run(
        _ client: RedisClient, sha: inout String?, keys: RedisKeys, mode: Mode, id: String, expected: Int = 0,
        doc: [UInt8] = [], summary: [UInt8] = [], maxScenes: Int, kind: Announcement.Kind
    ) throws(RedisError) -> Int {
        let args: [[UInt8]] = [
            keys.doc(id), keys.version(id), keys.index, keys.summary(id),
            Array(mode.rawValue.utf8), Array(id.utf8), Array(String(expected).utf8), doc,
            Array(String(maxScenes).utf8), Array(keys.channel.utf8), Array(kind.rawValue.utf8), summary,
        ]
        for _ in 0..<2 {
            if sha == nil {
                let loaded = try client.send([Array("SCRIPT".utf8), Array("LOAD".utf8), Array(source.utf8)])
                guard let s = loaded.string, loaded.errorMessage == nil else {
                    throw RedisError(.refused, "SCRIPT LOAD: \(loaded.errorMessage ?? "no SHA")")
                }
                sha = s
            }
            let reply = try client.send([Array("EVALSHA".utf8), Array(sha!.utf8), Array("4".utf8)] + args)
            if let n = reply.int { return n }
            if let m = reply.errorMessage, m.hasPrefix("NOSCRIPT") {
                sha = nil
                continue
            }
            throw RedisError(.refused, "write script: \(reply.errorMessage ?? "unexpected reply")")
        }
        throw RedisError(.refused, "write script: NOSCRIPT after SCRIPT LOAD")
    }
}
