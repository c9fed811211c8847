-- Drives wrk from a file of requests, one per line: METHOD<TAB>PATH[<TAB>BODY].
-- Lines are taken in turn, each thread from its own starting point; "{ref}" in a body becomes a
-- reference unique to the run, the thread and the request (a distinct merchantReference).
-- At the end it prints one line, BENCH_JSON {...}: counts by status, latency percentiles in µs.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_id", #threads)
end

function init(args)
  statuses = {}
  sent = 0
  requests_list = {}
  for line in io.lines(os.getenv("BENCH_REQUESTS")) do
    local method, path, body = line:match("^(%S+)\t([^\t]+)\t?(.*)$")
    if method then table.insert(requests_list, { method = method, path = path, body = body }) end
  end
  position = (thread_id * 7919) % #requests_list
  nonce = os.getenv("BENCH_NONCE") or "run"
  get_headers = { ["api-key"] = os.getenv("BENCH_API_KEY"), ["secret-key"] = os.getenv("BENCH_SECRET_KEY") }
  post_headers = {
    ["api-key"] = os.getenv("BENCH_API_KEY"),
    ["secret-key"] = os.getenv("BENCH_SECRET_KEY"),
    ["content-type"] = "application/json",
  }
end

function request()
  position = position % #requests_list + 1
  local entry = requests_list[position]
  if entry.body == "" then return wrk.format(entry.method, entry.path, get_headers) end
  sent = sent + 1
  local reference = nonce .. "-" .. thread_id .. "-" .. sent
  local body = entry.body:gsub("{ref}", reference)
  return wrk.format(entry.method, entry.path, post_headers, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      counts[status] = (counts[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(counts) do table.insert(parts, string.format('"%d":%d', status, count)) end
  local errors = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d,' ..
    '"socketErrors":%d,"timeouts":%d,"statuses":{%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, errors.connect + errors.read + errors.write, errors.timeout,
    table.concat(parts, ",")))
end
