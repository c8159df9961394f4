-- wrk script: POST /scenes/{id}/hits, 100 points per request, keep-alive.
--   HITS_PATH  default /scenes/ring-demo/hits
-- 8 different bodies of 100 points over the 240×240 ring canvas (and a
-- margin outside it), pre-formatted once per thread, sent in turn.
local path = os.getenv("HITS_PATH") or "/scenes/ring-demo/hits"
local requests = {}
local i = 0

function init(args)
  local headers = { ["Content-Type"] = "application/json" }
  local seed = 12345
  local function rand()
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  end
  for b = 1, 8 do
    local pts = {}
    for k = 1, 100 do
      pts[k] = string.format('{"x":%.2f,"y":%.2f}', rand() * 260 - 10, rand() * 260 - 10)
    end
    local body = '{"points":[' .. table.concat(pts, ",") .. '],"trace":false}'
    requests[#requests + 1] = wrk.format("POST", path, headers, body)
  end
end

function request()
  i = i % #requests + 1
  return requests[i]
end
