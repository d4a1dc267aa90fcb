-- wrk script for Benchmarks/server/bench.sh: POST /v1/fixes with NDJSON bodies of BATCH fixes
-- (1000 for the batched ingest, 1 for the single-fix runs), and a JSON summary at the end.
--
-- Environment (bench.sh sets it): BATCH fixes a request, DEVICES devices in all (ids d0..),
-- WRK_THREADS (wrk's -t: the threads split the devices between them),
-- SEED, CENTER_LAT/CENTER_LNG/SIDE_M (the square the world's fences lie in), WRK_OUT (where
-- done() writes its JSON), TIMELINE=1 to also record each response's completion time.
--
-- Time order: thread t owns the devices [t*N/T, (t+1)*N/T) and walks through them in order,
-- BATCH at a time, so a device comes back only after N/T/BATCH requests of its thread (50 with
-- the full run's 100k devices). Every fix of a request is stamped with the wall clock when the
-- request is built (epoch ms), like a device's own clock: stamps grow per device, and a fence
-- update at the server's wall clock never lies before a device's latest fix (which ?at= would
-- have to guess, with requests in flight).
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *out);
]]
local ts = ffi.new("bench_timespec")
local function wall_ms()
  ffi.C.clock_gettime(0, ts) -- CLOCK_REALTIME: the server's wall clock and Python's time.time()
  return tonumber(ts.tv_sec) * 1000 + math.floor(tonumber(ts.tv_nsec) / 1e6)
end
local function wall_s()
  ffi.C.clock_gettime(0, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

local BATCH = tonumber(os.getenv("BATCH") or "1000")
local DEVICES = tonumber(os.getenv("DEVICES") or "100000")
local TRACK = 8 -- positions per device, walked back and forth (period 14)

wrk.method = "POST"
wrk.path = "/v1/fixes"
wrk.headers["Content-Type"] = "application/x-ndjson"

-- Main state: number the threads, and keep them for done().
local threads = {}
local count = 0
function setup(thread)
  thread:set("tid", count)
  count = count + 1
  table.insert(threads, thread)
end

-- Thread state. Each device drives back and forth along a straight track of TRACK points
-- (10-140 m apart: 1-14 m/s for 10 s, as Benchmarks/peers/gen_world.py's walks) from a seeded
-- start in the world's square, so it enters and leaves fences. The points are formatted once
-- here: building a body is then string concatenation, which keeps wrk's own CPU low on a
-- machine whose two cores the server shares.
local prefix, points, first, owned, cursor, round
function init(args)
  local threads_total = tonumber(os.getenv("WRK_THREADS") or "2")
  first = math.floor(tid * DEVICES / threads_total)
  owned = math.floor((tid + 1) * DEVICES / threads_total) - first
  assert(owned >= BATCH, "fewer devices per thread than fixes per request: a request would repeat a device")
  math.randomseed(tonumber(os.getenv("SEED") or "20240601") + tid)
  local lat0 = tonumber(os.getenv("CENTER_LAT") or "48.8566")
  local lng0 = tonumber(os.getenv("CENTER_LNG") or "2.3522")
  local half = tonumber(os.getenv("SIDE_M") or "50000") / 2
  local mlat = 6371008.8 * math.pi / 180
  local mlng = mlat * math.cos(math.rad(lat0))
  prefix, points = {}, {}
  for i = 0, owned - 1 do
    prefix[i] = string.format('{"deviceId":"d%d","timestamp":', first + i)
    local x, y = (math.random() * 2 - 1) * half, (math.random() * 2 - 1) * half
    local heading, step = math.random() * 2 * math.pi, 10 + math.random() * 130
    local track = {}
    for k = 0, TRACK - 1 do
      track[k] = string.format(',"lat":%.7f,"lng":%.7f}\n', lat0 + (y + k * step * math.sin(heading)) / mlat,
        lng0 + (x + k * step * math.cos(heading)) / mlng)
    end
    points[i] = track
  end
  cursor, round = 0, 0
  requests_sent, accepted, rejected, events, bad, statuses, timeline = 0, 0, 0, 0, 0, {}, {}
  record_timeline = os.getenv("TIMELINE") == "1"
end

local parts = {}
function request()
  local stamp = tostring(wall_ms())
  local phase = round % (2 * TRACK - 2)
  if phase >= TRACK then phase = 2 * TRACK - 2 - phase end
  local n = 0
  for _ = 1, BATCH do
    parts[n + 1] = prefix[cursor]
    parts[n + 2] = stamp
    parts[n + 3] = points[cursor][phase]
    n = n + 3
    cursor = cursor + 1
    if cursor == owned then cursor, round = 0, round + 1 end
  end
  for j = n + 1, #parts do parts[j] = nil end
  requests_sent = requests_sent + 1
  return wrk.format(nil, nil, nil, table.concat(parts))
end

-- Counts occurrences of a plain string.
local function occurrences(text, needle)
  local c, at = 0, 1
  while true do
    local i = string.find(text, needle, at, true)
    if not i then return c end
    c, at = c + 1, i + #needle
  end
end

-- Every answer is checked, so a run whose fixes were refused is reported, not hidden: the
-- accepted count, the refused lines ({"line":...}, one per refusal) and the events ("seq").
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  local a = body and string.match(body, '^{"accepted":(%d+)')
  if status ~= 200 or not a then
    bad = bad + 1
    return
  end
  a = tonumber(a)
  accepted = accepted + a
  rejected = rejected + occurrences(body, '{"line":')
  events = events + occurrences(body, '"seq":')
  if record_timeline then
    -- Flat (time, accepted, time, accepted...): wrk's thread:get() cannot copy nested tables.
    timeline[#timeline + 1] = wall_s()
    timeline[#timeline + 1] = a
  end
end

local function num(x)
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  return string.format("%.6g", x)
end

function done(summary, latency, requests)
  local acc, rej, ev, badn, sent, st, tl = 0, 0, 0, 0, 0, {}, {}
  for _, thread in ipairs(threads) do
    acc = acc + thread:get("accepted")
    rej = rej + thread:get("rejected")
    ev = ev + thread:get("events")
    badn = badn + thread:get("bad")
    sent = sent + thread:get("requests_sent")
    for code, n in pairs(thread:get("statuses")) do st[code] = (st[code] or 0) + n end
    local flat = thread:get("timeline")
    for i = 1, #flat, 2 do tl[#tl + 1] = { flat[i], flat[i + 1] } end
  end
  local e = summary.errors
  local out = {}
  local function add(s) out[#out + 1] = s end
  add(string.format('{"batch":%d,"devices":%d,"duration_s":%s,"requests":%d,"sent":%d,', BATCH, DEVICES,
    num(summary.duration / 1e6), summary.requests, sent))
  add(string.format('"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},', e.connect, e.read,
    e.write, e.status, e.timeout))
  add(string.format('"latency_ms":{"mean":%s,"p50":%s,"p90":%s,"p99":%s,"p999":%s,"max":%s},', num(latency.mean / 1e3),
    num(latency:percentile(50) / 1e3), num(latency:percentile(90) / 1e3), num(latency:percentile(99) / 1e3),
    num(latency:percentile(99.9) / 1e3), num(latency.max / 1e3)))
  add(string.format('"accepted":%d,"rejected":%d,"events":%d,"bad_responses":%d,"statuses":{', acc, rej, ev, badn))
  local first_status = true
  for code, n in pairs(st) do
    add(string.format('%s"%d":%d', first_status and "" or ",", code, n))
    first_status = false
  end
  add('},"timeline":[')
  for i, point in ipairs(tl) do add(string.format('%s[%.6f,%d]', i > 1 and "," or "", point[1], point[2])) end
  add("]}\n")
  local f = assert(io.open(assert(os.getenv("WRK_OUT"), "WRK_OUT is not set"), "w"))
  f:write(table.concat(out))
  f:close()
end
