-- wrk script: the same POST /scenes/{id}/hit on every request, keep-alive,
-- so that every answer is the same bytes (what nginx is given to serve).
--   HIT_PATH   default /scenes/ring-demo/hit
--   HIT_BODY   default {"x":120,"y":120}
--   HIT_KEY    when set, sent as "Authorization: Bearer <key>"
local path = os.getenv("HIT_PATH") or "/scenes/ring-demo/hit"
local body = os.getenv("HIT_BODY") or '{"x":120,"y":120}'
local request_bytes

function init(args)
  local headers = { ["Content-Type"] = "application/json" }
  local key = os.getenv("HIT_KEY")
  if key and key ~= "" then headers["Authorization"] = "Bearer " .. key end
  request_bytes = wrk.format("POST", path, headers, body)
end

function request()
  return request_bytes
end
