// Judges a run of endpoints.sh from the endpoints' own record, the steps it stamped and the
// topics kcat read back. Prints the figures and one line per verdict (PASS, FAIL, or N/A when
// the run's setup leaves nothing to judge); exits 1 when one fails.
// Rates and per-endpoint verdicts cover endpoints 1..N from the judged load's start on; a
// warm-up's calls (endpoints above N) are counted apart, but its 429s fail the run too.
//
//   node endpoints-judge.mjs WORK_DIR
import { existsSync, readFileSync } from "node:fs";

const dir = process.argv[2];
const lines = (file) => readFileSync(file, "utf8").split("\n").filter(Boolean);
const steps = Object.fromEntries(lines(`${dir}/steps.jsonl`).map((l) => JSON.parse(l)).map((s) => [s.step, s]));
const { endpoints, rate, sluiceRate, duration, faults } = steps.load;
const record = lines(`${dir}/records/endpoints.jsonl`).map((l) => JSON.parse(l));
const everyCall = record.filter((c) => c.endpoint);
const warmupCalls = everyCall.filter((c) => c.endpoint > endpoints);
const calls = everyCall.filter((c) => c.endpoint <= endpoints && c.t >= steps.load.t);   // the judged ones
const early = everyCall.filter((c) => c.endpoint <= endpoints && c.t < steps.load.t).length;   // none expected
const stalls = record.filter((r) => r.stallMs);   // the endpoints' own event loop held up
const fault = steps.load.fault ?? "slow-fail";
const pauseMode = fault.startsWith("pause");   // endpoint 1 paused
const failMode = fault !== "pause";            // endpoint 2 failing (500)
// The faulty endpoints: 1 slow or paused, 2 failing; or 1 paused alone.
const faulty = new Set(faults ? (failMode ? [1, 2] : [1]) : []);
const byEndpoint = Array.from({ length: endpoints + 1 }, () => []);
for (const c of calls) byEndpoint[c.endpoint].push(c);
const count = (pred) => calls.filter(pred).length;
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const fmt = (x) => x.toFixed(3);

// Rates: each healthy endpoint from its first accepted call to its last (it has a backlog all
// along: its load is 25% above its rate until the load ends, then it drains).
const rates = [];
for (let e = 1; e <= endpoints; e++) {
  if (faulty.has(e)) continue;
  const ok = byEndpoint[e].filter((c) => c.verdict === "accepted").map((c) => c.t).sort((a, b) => a - b);
  rates.push({ e, calls: ok.length, rate: ok.length > 1 ? (ok.length - 1) / ((ok.at(-1) - ok[0]) / 1000) : 0 });
}
const values = rates.map((r) => r.rate);
const slowest = [...rates].sort((a, b) => a.rate - b.rate).slice(0, 5).map((r) => ({ ...r, rate: fmt(r.rate) }));
const counts = (file) => (existsSync(file) && lines(file).length ? JSON.parse(readFileSync(file, "utf8")) : {});
const total = counts(`${dir}/produced.json`);
const warmupTotal = counts(`${dir}/produced-warmup.json`);
const span = (calls.at(-1)?.t ?? 0) - (calls[0]?.t ?? 0);

// Every event in sluice.outcomes or sluice.dlq, by id.
const idOf = (l) => (l.match(/"id"\s*:\s*"([^"]+)"/) ?? [])[1];
const settledIds = new Set([...lines(`${dir}/outcomes.txt`), ...lines(`${dir}/dlq.txt`)].map(idOf));
const dlq = lines(`${dir}/dlq.txt`);
const reasons = {};
for (const l of dlq) {
  const r = (l.match(/sluice-reason=([a-z_0-9]+)/) ?? [])[1] ?? "?";
  reasons[r] = (reasons[r] ?? 0) + 1;
}
let produced = 0;
const lost = [];
for (const [key, n] of [...Object.entries(warmupTotal), ...Object.entries(total)]) {
  const tenant = key.split(":")[1];
  for (let i = 0; i < n; i++) {
    produced++;
    const id = `hooks-${tenant}-${String(i).padStart(6, "0")}`;
    if (!settledIds.has(id)) lost.push(id);
  }
}

// Dead letters: only endpoint_disabled (whileDisabled: dead_letter), and only of the faulty
// endpoints' tenants. A line is kcat's '%h\t%s': the headers, a tab, the event's JSON.
const tenantOf = (l) => {
  try {
    return JSON.parse(l.slice(l.lastIndexOf("\t") + 1)).tenant;
  } catch {
    return (l.match(/"tenant"\s*:\s*"([^"]+)"/) ?? [])[1];
  }
};
const faultyTenants = new Set([...faulty].map((e) => `t${e}`));
const unexpectedDead = dlq.filter((l) => !(/sluice-reason=endpoint_disabled\b/.test(l) && faultyTenants.has(tenantOf(l))));

const warm429 = warmupCalls.filter((c) => c.status === 429).length;
const refused = everyCall.filter((c) => c.verdict === "refused").length;
const verdicts = [
  [`0 answers 429 (${count((c) => c.status === 429)} in the judged load, ${warm429} in the warm-up)`,
    count((c) => c.status === 429) === 0 && warm429 === 0],
  [`every call's signature verified by standardwebhooks (${refused} refused of ${everyCall.length}, the warm-up's included)`,
    refused === 0 && calls.length > 0],
  [`each endpoint's accepted rate while it has a backlog >= 95% of ${rate}/s (lowest ${fmt(Math.min(...values))}/s)`,
    values.length > 0 && Math.min(...values) >= 0.95 * rate],
  [`0 lost: every event in sluice.outcomes or sluice.dlq (${produced} produced, ${lost.length} in neither)`,
    produced > 0 && lost.length === 0],
  [`no dead letters except endpoint_disabled of the faulty endpoints (${faulty.size ? [...faultyTenants].join("/") : "none"}): ${unexpectedDead.length} others of ${dlq.length}`,
    unexpectedDead.length === 0],
];

// Where the 429s fell: within a second of a stall of the endpoints' own process (counted
// apart, the other counts include them); among an endpoint's first three calls (a cold lane), within 5 s before
// and 3 s after a measure's full GC (`jcmd GC.run` stalls the JVM; the calls due meanwhile go
// late, the next ones on time), or elsewhere.
const firstThree = new Set();
for (let e = 1; e <= endpoints; e++) byEndpoint[e].slice(0, 3).forEach((c) => firstThree.add(c));
// (a measure with heapUsedKiB ran no GC)
const gcs = ["ready", "busy", "idle"].map((s) => steps[`measure-${s}`]).filter((m) => m?.heapKiB !== undefined).map((m) => m.t);
const rejected = calls.filter((c) => c.status === 429);
const nearGc = (c) => gcs.some((g) => c.t >= g - 5000 && c.t <= g + 3000);
// A stall is reported at the end of the second it happened in.
const nearStall = (c) => stalls.some((s) => c.t >= s.t - 1000 && c.t <= s.t + 1000);
const rateLimited = {
  afterEndpointStall: rejected.filter(nearStall).length,
  endpointStalls: { count: stalls.length, longestMs: Math.max(0, ...stalls.map((s) => s.stallMs)) },
  coldLane: rejected.filter((c) => firstThree.has(c)).length,
  nearFullGc: rejected.filter((c) => !firstThree.has(c) && nearGc(c)).length,
  elsewhere: rejected.filter((c) => !firstThree.has(c) && !nearGc(c)).length,
  endpoints: new Set(rejected.map((c) => c.endpoint)).size,
};

const report = {
  endpoints, rate, sluiceRate, duration, calls: calls.length, callsPerSecond: Math.round(calls.length / (span / 1000)),
  accepted: count((c) => c.verdict === "accepted"), rateLimited,
  ratePerEndpoint: { min: fmt(Math.min(...values)), p01: fmt(quantile(values, 0.01)), median: fmt(quantile(values, 0.5)),
    max: fmt(Math.max(...values)) },
  slowest, deadLetters: dlq.length, reasons, unexpectedDeadLetterSample: unexpectedDead.slice(0, 3),
  lostSample: lost.slice(0, 5), callsBeforeTheLoad: early,
  measures: ["ready", "busy", "idle"].map((s) => steps[`measure-${s}`]),
};

if (faults) {
  // The others' rates in the 60 s before the faults and after them (5 s in), while every
  // healthy endpoint still has a backlog (until the load ends).
  const f = steps.faults.t;
  const end = steps["load-end"].t;
  // (none when the faults begin less than 16 s into the load or end less than 6 s after)
  const w = Math.min(f - steps.load.t - 15000, end - f - 5000);
  const windowed = w >= 1000;
  const inWindow = (c, a, b) => c.verdict === "accepted" && !faulty.has(c.endpoint) && c.t >= a && c.t < b;
  const before = count((c) => inWindow(c, f - w, f)) / (w / 1000);
  const after = count((c) => inWindow(c, f + 5000, f + 5000 + w)) / (w / 1000);
  // And over the whole time the faults lasted (ten minutes with --fault-start 60 --duration 660).
  const during = count((c) => inWindow(c, f + 5000, end)) / ((end - f - 5000) / 1000);
  const of = (e) => byEndpoint[e].filter((c) => c.t >= f && c.t < end);
  const failing = failMode ? of(2) : [];
  const late = failing.filter((c) => c.t >= f + 15000);   // past disableAfter (10 s) and a call
  const gaps = late.slice(1).map((c, i) => Math.round((c.t - late[i].t) / 1000));
  const mended = steps.mended.t;
  const enabled = (e) => byEndpoint[e].find((c) => c.t >= mended && c.verdict === "accepted");
  report.faults = {
    ...(windowed ? {
      windowSeconds: Math.round(w / 1000), othersBefore: before.toFixed(2), othersAfter: after.toFixed(2),
      change: `${(((after - before) / before) * 100).toFixed(2)}%`,
    } : { windowSeconds: null }),
    faultSeconds: Math.round((end - f) / 1000), othersDuringFaults: during.toFixed(2),
    ...(windowed ? { changeDuringFaults: `${(((during - before) / before) * 100).toFixed(2)}%` } : {}),
    ...(pauseMode ? { pausedCalls: of(1).filter((c) => c.t >= f + 1000).length } : { slowCalls: of(1).length }),
    ...(failMode ? { failingCalls: failing.length, secondsBetweenFailingCalls: gaps } : {}),
    enabledAfterMended: [...faulty].map((e) => (enabled(e) ? Math.round((enabled(e).t - mended) / 1000) : null)),
    queuedForFaulty: Object.fromEntries([...faulty].map((e) => [`t${e}`, Object.entries(total).find(([k]) => k.split(":")[1] === `t${e}`)?.[1] ?? null])),
  };
  // No partition stall: each healthy endpoint's accepted calls in every whole minute of the
  // faults (from 5 s in), as a rate; the lowest of them all.
  const minutes = Math.floor((end - f - 5000) / 60000);
  let lowestMinute = Infinity;
  for (let m = 0; m < minutes; m++) {
    const a = f + 5000 + m * 60000;
    for (let e = 1; e <= endpoints; e++) {
      if (faulty.has(e)) continue;
      const n = byEndpoint[e].filter((c) => c.verdict === "accepted" && c.t >= a && c.t < a + 60000).length;
      lowestMinute = Math.min(lowestMinute, n / 60);
    }
  }
  report.faults.minutesJudged = minutes;
  report.faults.lowestMinuteRate = minutes > 0 ? fmt(lowestMinute) : null;
  if (minutes > 0) {
    verdicts.push([`no stall: every healthy endpoint in every whole minute of the faults at >= 95% of Sluice's rate ${sluiceRate}/s (lowest ${fmt(lowestMinute)}/s over ${minutes} minutes; ${fmt(lowestMinute / rate * 100)}% of the endpoint's ${rate}/s)`,
      lowestMinute >= 0.95 * sluiceRate]);
  }
  const noWindow = `cannot be judged: no window of the others' calls before and after the faults (${Math.round(w / 1000)} s: they began ${Math.round((f - steps.load.t) / 1000)} s into the load)`;
  verdicts.push(
    [windowed ? `the others' calls/s unchanged within 2% by a slow and a failing endpoint (${before.toFixed(2)} -> ${after.toFixed(2)})`
      : `the others' calls/s unchanged by the faults: ${noWindow}`, windowed && Math.abs(after - before) <= 0.02 * before],
    [windowed ? `... and over all ${Math.round((end - f) / 1000)} s of the faults (${before.toFixed(2)} -> ${during.toFixed(2)})`
      : `... and over all ${Math.round((end - f) / 1000)} s of the faults: ${noWindow}`, windowed && Math.abs(during - before) <= 0.02 * before],
  );
  if (pauseMode) {
    // Paused: not called from a second after the pause (a call already in flight may land), and
    // after the resume its backlog drains at its paced rate.
    const paused = of(1).filter((c) => c.t >= f + 1000);
    const after = byEndpoint[1].filter((c) => c.verdict === "accepted" && c.t >= mended).map((c) => c.t);
    const drain = after.length > 1 ? (after.length - 1) / ((after.at(-1) - after[0]) / 1000) : 0;
    const faultyRate = steps.load.faultyRate ?? rate;
    report.faults.drainAfterResume = { calls: after.length, rate: fmt(drain) };
    verdicts.push(
      [`the paused endpoint not called during the pause (${paused.length} calls)`, paused.length === 0],
      [`after the resume its backlog (${after.length} calls) drained at >= 95% of its paced rate ${fmt(faultyRate * 0.96)}/s (${fmt(drain)}/s)`,
        after.length > 1 && drain >= 0.95 * faultyRate * 0.96],
    );
  }
  if (failMode) {
    verdicts.push([`the failing endpoint disabled then probed: called ${failing.length} times in ${Math.round((end - f) / 1000)} s, from 15 s on at least 9 s apart (${gaps.length ? gaps : "no probe seen"})`,
      failing.length > 0 && gaps.length > 0 && gaps.every((g) => g >= 9)]);
  }
  // With whileDisabled dead_letter a disabled endpoint's events are dead-lettered: none is left
  // to call it once the load has ended and it mends.
  if (steps.load.whileDisabled === "dead_letter") {
    verdicts.push(["both faulty endpoints called again once mended: not judged (whileDisabled dead_letter left them no event)", null]);
  } else {
    verdicts.push([`the faulty endpoints called again and accepted once mended`, [...faulty].every((e) => enabled(e))]);
  }
}

if (steps.flushall) {
  // Redis wiped mid-run: every healthy endpoint (the registry's tenants' among them) called
  // again within 5 s: the longest gap between its accepted calls from 5 s before the wipe to 30 s
  // after it, less its usual spacing.
  const w = steps.flushall.t;
  const registryFrom = endpoints - (steps.load.registryTenants ?? 0) + 1;
  let longest = { gapMs: 0 };
  for (let e = 1; e <= endpoints; e++) {
    if (faulty.has(e)) continue;
    const ts = byEndpoint[e].filter((c) => c.verdict === "accepted" && c.t >= w - 5000 && c.t < w + 30000).map((c) => c.t);
    for (let i = 1; i < ts.length; i++) {
      if (ts[i] >= w && ts[i] - ts[i - 1] > longest.gapMs) longest = { gapMs: ts[i] - ts[i - 1], endpoint: e, registry: e >= registryFrom };
    }
  }
  const registryCalled = [];
  for (let e = registryFrom; e <= endpoints; e++) registryCalled.push(byEndpoint[e].some((c) => c.verdict === "accepted" && c.t >= w + 5000 + 1000 / sluiceRate));
  report.flushall = { secondsIntoLoad: Math.round((w - steps.load.t) / 1000), longestGap: longest, registryTenants: steps.load.registryTenants ?? 0 };
  verdicts.push(
    [`after FLUSHALL every healthy endpoint called again within 5 s (longest gap ${longest.gapMs} ms, endpoint ${longest.endpoint}${longest.registry ? ", a registry tenant's" : ""})`,
      longest.gapMs <= 5000 + 1000 / sluiceRate],
    [`the registry's tenants (${registryCalled.length}) still called after the wipe`, registryCalled.every(Boolean)],
  );
}

if (steps.warmup) {
  const produced = Object.values(warmupTotal).reduce((a, b) => a + b, 0);
  report.warmup = {
    seconds: steps.warmup.seconds, endpoints: `${steps.warmup.first}..${steps.warmup.last}`, produced,
    calls: warmupCalls.length, accepted: warmupCalls.filter((c) => c.verdict === "accepted").length, rateLimited: warm429,
    settledSeconds: steps["warmup-settled"] ? Math.round((steps["warmup-settled"].t - steps.warmup.t) / 1000) : null,
  };
}

console.log(JSON.stringify(report, null, 1));
let ok = true;
for (const [what, holds] of verdicts) {
  console.log(`${holds === null ? "N/A " : holds ? "PASS" : "FAIL"}  ${what}`);
  ok &&= holds !== false;
}
process.exit(ok ? 0 : 1);
