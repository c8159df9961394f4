-- wrk script: POST /scenes/{id}/hit, one point per request, keep-alive.
--   HIT_PATH   default /scenes/ring-demo/hit
--   HIT_TRACE  "1" asks for the trace ({"trace":true}); default off
--   HIT_KEY    when set, sent as "Authorization: Bearer <key>"
-- Cycles through 64 fixed points of the 240×240 ring canvas (band, hole,
-- corners, and a few outside), pre-formatted once per thread.
local path = os.getenv("HIT_PATH") or "/scenes/ring-demo/hit"
local trace = os.getenv("HIT_TRACE") == "1" and "true" or "false"
local requests = {}
local i = 0

function init(args)
  local headers = { ["Content-Type"] = "application/json" }
  local key = os.getenv("HIT_KEY")
  if key and key ~= "" then headers["Authorization"] = "Bearer " .. key end
  for k = 0, 63 do
    local x = (k * 37) % 260 - 10
    local y = (k * 53 + 17) % 260 - 10
    local body = string.format('{"x":%d,"y":%d,"trace":%s}', x, y, trace)
    requests[#requests + 1] = wrk.format("POST", path, headers, body)
  end
end

function request()
  i = i % #requests + 1
  return requests[i]
end
