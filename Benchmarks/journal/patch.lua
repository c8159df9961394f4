-- wrk script: PATCH a layer of scene SCENE_PREFIX<thread> (one scene per wrk
-- thread, so writers do not queue on one scene's lock), keep-alive.
local prefix = os.getenv("SCENE_PREFIX") or "bench-"
local counter = 0
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  path = "/scenes/" .. prefix .. id .. "/layers/bg"
end

function request()
  counter = counter + 1
  return wrk.format("PATCH", path, { ["Content-Type"] = "application/json" },
    string.format('{"action":"bg.%d"}', counter))
end
