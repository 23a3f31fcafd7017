// otlp_receiver.mjs — a real OTLP/HTTP receiver for the tests, and the
// checks of what it received. Every payload is decoded with the official
// OTLP schema (opentelemetry-proto, compiled for protobufjs in npm's
// @opentelemetry/otlp-transformer), never by a parser of our own: the JSON
// body goes through the schema's fromObject (OTLP's JSON mapping: ids in
// hex become bytes), is encoded to protobuf's wire format and decoded
// again; a field the schema does not know, or a value it does not keep, is
// a 400. The npm packages are found under $MCT_OTLP_NPM (scripts/deps
// mct_install_otlp).
//
//   node otlp_receiver.mjs serve PORTFILE RECORDS
//       listens on 127.0.0.1 (a free port, written to PORTFILE); each
//       accepted request is one line of RECORDS: {"path":..,"body":..}
//       with the decoded message (64-bit numbers as strings, ids in hex).
//       POST /control {"script":[{"status":503,"retryAfter":1,"delayMs":0},..]}
//       scripts the next answers (then 200); GET /stats says what came.
//   node otlp_receiver.mjs check-traces RECORDS CALLS [TRACEPARENT]
//       the spans received against the calls (SPEC §3 JSON lines): one
//       trace per call, one span per node in pre-order, names, parent
//       links, times (the layout of protocol/otlp.h), attributes
//   node otlp_receiver.mjs check-metrics RECORDS EXPECT
//       the histogram points against "path_hash<TAB>count" lines
//   node otlp_receiver.mjs check-summary RECORDS SUMMARY [COUNTS]
//       the histogram points against the summary object, the last line of
//       SUMMARY (-f json --aggregate): one point per node, found by its
//       path; its count, sum, min, max, times and temporality, and every
//       bucket of the node's hist in the bucket whose bounds are its edges
//       (protocol/otlp.h), the others empty; COUNTS (optional): lines
//       "PATH<TAB>COUNT" that the points' counts must be. SUMMARY "-":
//       no summary, each point's buckets add up to its count
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.resolve(process.env.MCT_OTLP_NPM || '.', 'package.json'));
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const proto = root.opentelemetry.proto;
const TYPES = {
  '/v1/traces': proto.collector.trace.v1.ExportTraceServiceRequest,
  '/v1/metrics': proto.collector.metrics.v1.ExportMetricsServiceRequest,
};
const ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

// OTLP's JSON mapping: trace and span ids are hex strings, not base64.
function idsToBytes(v, where) {
  if (Array.isArray(v)) return v.map((x, i) => idsToBytes(x, `${where}[${i}]`));
  if (v === null || typeof v !== 'object') return v;
  const o = {};
  for (const [k, x] of Object.entries(v)) {
    if (ID_KEYS.has(k)) {
      if (typeof x !== 'string' || !/^([0-9a-f]{2})*$/.test(x)) throw new Error(`${where}.${k}: not lowercase hex`);
      o[k] = Buffer.from(x, 'hex');
    } else {
      o[k] = idsToBytes(x, `${where}.${k}`);
    }
  }
  return o;
}

function idsToHex(v) {
  if (Array.isArray(v)) return v.map(idsToHex);
  if (v === null || typeof v !== 'object') return v;
  const o = {};
  for (const [k, x] of Object.entries(v)) o[k] = ID_KEYS.has(k) ? Buffer.from(x, 'base64').toString('hex') : idsToHex(x);
  return o;
}

const isDefault = (x) => x === 0 || x === '0' || x === '' || x === false || x === null ||
  (Array.isArray(x) && x.length === 0);

// Every key of what was sent must survive the schema with its value.
function compare(sent, kept, where) {
  if (Array.isArray(sent)) {
    if (!Array.isArray(kept) || kept.length !== sent.length) throw new Error(`${where}: the schema kept ${JSON.stringify(kept)}`);
    sent.forEach((x, i) => compare(x, kept[i], `${where}[${i}]`));
  } else if (sent !== null && typeof sent === 'object') {
    for (const [k, x] of Object.entries(sent)) {
      if (isDefault(x)) continue;
      if (kept === undefined || !(k in kept)) throw new Error(`${where}.${k}: not a field of the OTLP schema`);
      compare(x, kept[k], `${where}.${k}`);
    }
  } else if (String(sent) !== String(kept)) {
    throw new Error(`${where}: sent ${JSON.stringify(sent)}, the schema kept ${JSON.stringify(kept)}`);
  }
}

// Decodes one OTLP/HTTP JSON body for path; the message, or throws.
export function decode(p, text) {
  const T = TYPES[p];
  if (!T) throw new Error(`no OTLP service at ${p}`);
  const sent = JSON.parse(text);
  const msg = T.fromObject(idsToBytes(sent, 'body'));
  const back = T.decode(T.encode(msg).finish());
  const kept = idsToHex(T.toObject(back, { longs: String, enums: Number, bytes: String }));
  compare(sent, kept, 'body');
  return kept;
}

function serve(portFile, records) {
  let script = [];
  const stats = { requests: 0, accepted: 0, refused: 0, bad: 0, spans: 0, points: 0, lastError: '' };
  const out = fs.openSync(records, 'a');
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/control') {
        script = JSON.parse(text).script || [];
        res.end('{}');
        return;
      }
      if (req.url === '/stats') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(stats));
        return;
      }
      stats.requests++;
      const a = script.length ? script.shift() : { status: 200 };
      setTimeout(() => {
        if (a.status !== 200) {
          stats.refused++;
          if (a.retryAfter) res.setHeader('Retry-After', String(a.retryAfter));
          res.statusCode = a.status;
          res.end();
          return;
        }
        let body;
        try {
          body = decode(req.url, text);
        } catch (e) {
          stats.bad++;
          stats.lastError = String(e.message);
          res.statusCode = 400;
          res.end(JSON.stringify({ code: 3, message: String(e.message) }));
          return;
        }
        stats.accepted++;
        for (const rs of body.resourceSpans || []) for (const ss of rs.scopeSpans || []) stats.spans += (ss.spans || []).length;
        for (const rm of body.resourceMetrics || [])
          for (const sm of rm.scopeMetrics || []) for (const m of sm.metrics || []) stats.points += (m.histogram?.dataPoints || []).length;
        fs.writeSync(out, JSON.stringify({ path: req.url, body }) + '\n');
        res.setHeader('Content-Type', 'application/json');
        res.end('{"partialSuccess":{}}');
      }, a.delayMs || 0);
    });
  });
  server.listen(0, '127.0.0.1', () => fs.writeFileSync(portFile, String(server.address().port)));
}

const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l !== '');
const attrs = (list) => Object.fromEntries((list || []).map((a) => [a.key, Object.values(a.value)[0]]));
let failures = 0;
function fail(msg) {
  failures++;
  if (failures <= 20) console.error(msg);
}

function checkTraces(records, callsFile, traceparent) {
  const traces = new Map();
  let resource = null;
  for (const r of lines(records).map((l) => JSON.parse(l))) {
    if (r.path !== '/v1/traces') continue;
    for (const rs of r.body.resourceSpans) {
      resource = attrs(rs.resource.attributes);
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          if (!traces.has(s.traceId)) traces.set(s.traceId, []);
          traces.get(s.traceId).push(s);
        }
      }
    }
  }
  for (const k of ['service.name', 'host.name', 'process.pid']) if (!resource || !resource[k]) fail(`resource: no ${k}`);
  // With a parent context every call joins its trace: group by the root's seq.
  const bySeq = new Map();
  for (const spans of traces.values()) {
    let cur = null;
    for (const s of spans) {
      const a = attrs(s.attributes);
      if (a['mcalltree.seq'] !== undefined) bySeq.set(a['mcalltree.seq'], (cur = []));
      if (cur) cur.push(s);
    }
  }
  const [ptrace, pspan] = traceparent ? traceparent.split('-').slice(1, 3) : [null, null];
  let calls = 0, spansSeen = 0;
  for (const line of lines(callsFile)) {
    // start_ns is past 2^53: read its digits, not a double
    const call = JSON.parse(line), startNs = BigInt(/"start_ns":(\d+)/.exec(line)[1]);
    calls++;
    const spans = bySeq.get(String(call.seq));
    if (!spans) { fail(`call ${call.seq}: no trace`); continue; }
    if (!traceparent && traces.get(spans[0].traceId).length !== spans.length) fail(`call ${call.seq}: its trace holds other spans`);
    let i = 0;
    const walk = (node, parentId, start, dur) => {
      const s = spans[i++];
      spansSeen++;
      if (!s) { fail(`call ${call.seq}: fewer spans than nodes`); return; }
      const a = attrs(s.attributes);
      const where = `call ${call.seq} span ${i - 1}`;
      if (s.name !== `${node.class}.${node.method}`) fail(`${where}: name ${s.name}`);
      if ((s.parentSpanId || null) !== parentId) fail(`${where}: parent ${s.parentSpanId}, want ${parentId}`);
      if (!/^[0-9a-f]{32}$/.test(s.traceId) || !/^[0-9a-f]{16}$/.test(s.spanId)) fail(`${where}: ids ${s.traceId} ${s.spanId}`);
      if (ptrace && s.traceId !== ptrace) fail(`${where}: trace ${s.traceId}, want ${ptrace}`);
      if (BigInt(s.startTimeUnixNano) !== start || BigInt(s.endTimeUnixNano) !== start + dur)
        fail(`${where}: ${s.startTimeUnixNano}..${s.endTimeUnixNano}, want ${start}..${start + dur}`);
      for (const k of ['calls', 'min_ns', 'max_ns', 'self_ns', 'throws'])
        if (a[`mcalltree.${k}`] !== String(node[k])) fail(`${where}: mcalltree.${k} ${a[`mcalltree.${k}`]}, want ${node[k]}`);
      const exc = node === call.root ? node.exception : undefined;
      if (exc ? s.status?.code !== 2 || s.status.message !== exc : s.status?.code)
        fail(`${where}: status ${JSON.stringify(s.status)}`);
      let at = start;
      const end = start + dur;
      for (const kid of node.children || []) {
        let w = BigInt(kid.total_ns);
        if (w > end - at) w = end - at;
        walk(kid, s.spanId, at, w);
        at += w;
      }
    };
    walk(call.root, pspan, startNs, BigInt(call.root.total_ns));
    if (i !== spans.length) fail(`call ${call.seq}: ${spans.length} spans, ${i} nodes`);
  }
  console.log(`traces: ${calls} calls, ${spansSeen} spans checked, ${failures} failures`);
}

function checkMetrics(records, expectFile) {
  const points = new Map();
  for (const r of lines(records).map((l) => JSON.parse(l))) {
    if (r.path !== '/v1/metrics') continue;
    for (const rm of r.body.resourceMetrics)
      for (const sm of rm.scopeMetrics)
        for (const m of sm.metrics) for (const dp of m.histogram.dataPoints) points.set(attrs(dp.attributes)['mcalltree.path_hash'], dp);
  }
  let n = 0;
  for (const l of lines(expectFile)) {
    const [hash, count] = l.split('\t');
    const dp = points.get(hash);
    n++;
    if (!dp) { fail(`path ${hash}: no point`); continue; }
    const sum = dp.bucketCounts.reduce((s, c) => s + BigInt(c), 0n);
    if (dp.count !== count || sum !== BigInt(count)) fail(`path ${hash}: count ${dp.count}, buckets ${sum}, want ${count}`);
    if (dp.bucketCounts.length !== (dp.explicitBounds || []).length + 1) fail(`path ${hash}: bounds and counts`);
  }
  if (n !== points.size) fail(`${points.size} points, ${n} nodes`);
  console.log(`metrics: ${n} points checked, ${failures} failures`);
}

// The edges of summary bucket idx (protocol/PROTOCOL.md): [lo, hi].
function bucketEdges(idx) {
  const g = Math.floor(idx / 128), k = BigInt(idx % 128);
  if (g === 0) return [k, k];
  const lo = (128n + k) << BigInt(g - 1);
  return [lo, lo + (1n << BigInt(g - 1)) - 1n];
}

function checkPoint(p, dp, node, start, end, cumulative) {
  const bounds = (dp.explicitBounds || []).map((b) => BigInt(b));
  const counts = dp.bucketCounts.map(BigInt);
  const used = new Set();
  let total = 0n;
  for (let i = 0; i < node.hist.length; i += 2) {
    const [lo, hi] = bucketEdges(node.hist[i]);
    const cnt = BigInt(node.hist[i + 1]);
    const j = bounds.findIndex((b) => b === hi);
    total += cnt;
    if (j < 1 || bounds[j - 1] !== lo - 1n) { fail(`${p}: no bucket (${lo - 1n}, ${hi}]`); continue; }
    if (counts[j] !== cnt) fail(`${p}: bucket (${lo - 1n}, ${hi}] counts ${counts[j]}, the summary ${cnt}`);
    used.add(j);
  }
  counts.forEach((c, j) => { if (!used.has(j) && c !== 0n) fail(`${p}: bucket ${j} counts ${c}, the summary none`); });
  if (counts.length !== bounds.length + 1) fail(`${p}: ${counts.length} counts, ${bounds.length} bounds`);
  if (dp.count !== String(total)) fail(`${p}: count ${dp.count}, the summary's hist ${total}`);
  if (BigInt(dp.sum) !== BigInt(node.total_ns)) fail(`${p}: sum ${dp.sum}, total_ns ${node.total_ns}`);
  if (BigInt(dp.min) !== BigInt(node.entry_min_ns) || BigInt(dp.max) !== BigInt(node.entry_max_ns))
    fail(`${p}: min/max ${dp.min}/${dp.max}, the summary ${node.entry_min_ns}/${node.entry_max_ns}`);
  if (dp.startTimeUnixNano !== start || dp.timeUnixNano !== end) fail(`${p}: times ${dp.startTimeUnixNano}..${dp.timeUnixNano}, the summary ${start}..${end}`);
  if (cumulative !== 2) fail(`${p}: temporality ${cumulative}, want cumulative (2) for a final summary`);
}

function checkSummary(records, summaryFile, countsFile) {
  const points = new Map();
  let temporality = null;
  for (const r of lines(records).map((l) => JSON.parse(l))) {
    if (r.path !== '/v1/metrics') continue;
    for (const rm of r.body.resourceMetrics)
      for (const sm of rm.scopeMetrics)
        for (const m of sm.metrics) {
          temporality = m.histogram.aggregationTemporality;
          for (const dp of m.histogram.dataPoints) points.set(attrs(dp.attributes)['mcalltree.path'], dp);
        }
  }
  let n = 0;
  if (summaryFile === '-') {
    // no summary at hand: each point's buckets add up to its count
    for (const [p, dp] of points) {
      n++;
      if (dp.bucketCounts.reduce((a, c) => a + BigInt(c), 0n) !== BigInt(dp.count)) fail(`${p}: buckets do not add up to ${dp.count}`);
      if (temporality !== 2) fail(`${p}: temporality ${temporality}, want cumulative (2) for a final summary`);
    }
  }
  const text = summaryFile === '-' ? '{}' : lines(summaryFile).pop();
  const s = JSON.parse(text);
  // times of the epoch in ns are past a double's 53 bits: read as text
  const start = (text.match(/"start_ns":(\d+)/) || [])[1], end = (text.match(/"end_ns":(\d+)/) || [])[1];
  const walk = (node, above) => {
    const p = (above ? `${above} / ` : '') + `${node.class}.${node.method}${node.desc}`;
    const dp = points.get(p);
    n++;
    if (!dp) fail(`${p}: no point`);
    else checkPoint(p, dp, node, start, end, temporality);
    for (const k of node.children || []) walk(k, p);
  };
  for (const r of [s.root, ...(s.more_roots || [])]) if (r) walk(r, '');
  if (n !== points.size) fail(`${points.size} points, ${n} nodes`);
  for (const l of countsFile ? lines(countsFile) : []) {
    const [p, count] = l.split('\t');
    if (points.get(p)?.count !== count) fail(`${p}: count ${points.get(p)?.count}, want ${count}`);
  }
  console.log(`summary: ${n} points checked, ${failures} failures`);
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'serve') serve(...args);
else if (cmd === 'check-traces') checkTraces(...args);
else if (cmd === 'check-metrics') checkMetrics(...args);
else if (cmd === 'check-summary') checkSummary(...args);
else { console.error('usage: otlp_receiver.mjs serve|check-traces|check-metrics|check-summary ...'); process.exit(2); }
if (cmd !== 'serve') process.exit(failures ? 1 : 0);
