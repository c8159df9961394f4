-- wrk script: drag the knob of scene SCENE_PREFIX<thread>: one "down" on
-- the knob, then "move"s back and forth by one unit, each a drag step.
local prefix = os.getenv("SCENE_PREFIX") or "bench-"
local counter = 0
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  path = "/scenes/" .. prefix .. id .. "/hit"
end

function request()
  counter = counter + 1
  -- A "down" now and then: a capture lost (or never made) is made again.
  local phase = counter % 200 == 1 and "down" or "move"
  local x = 50 + (counter % 2)
  return wrk.format("POST", path, { ["Content-Type"] = "application/json" },
    string.format('{"x":%d,"y":50,"pointer":"p%d","phase":"%s","trace":false}', x, id, phase))
end

