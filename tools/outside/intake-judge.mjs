// The intake check's judge (intake.sh): reads the providers' own records, the outcomes and dead
// letters, what was sent and when, and prints each verdict; exit 1 when one fails. Figures go to
// verdicts.json in the work directory.
//
//   node intake-judge.mjs WORK_DIR EVENTS
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const [w, eventsText] = process.argv.slice(2);
const events = Number(eventsText);
const lines = (f) => (existsSync(`${w}/${f}`) ? readFileSync(`${w}/${f}`, "utf8").split("\n").filter((l) => l) : []);
const jsonl = (f) => lines(f).map((l) => { try { return JSON.parse(l); } catch { return null; } }).filter((o) => o);
const verdicts = [];
const check = (name, ok, detail) => verdicts.push({ name, ok: Boolean(ok), detail });
const figures = {};
const outcomes = jsonl("outcomes.jsonl");
const deadLetters = jsonl("dlq.jsonl");
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);

const verify = lines("verify.txt")[0] ?? "";
const missing = Number((verify.match(/missing (\d+)/) ?? [])[1] ?? NaN);
if (!existsSync(`${w}/priority.tsv`)) { // the priority part stops before the lows' backlog ends
  check("0 lost: every id in sluice.outcomes or sluice.dlq (sluice verify)", missing === 0, verify);
}

// The dedup part: each id accepted once by the provider, each copy one `duplicate` outcome.
const dedupCalls = jsonl("records/dedup-api.jsonl");
if (existsSync(`${w}/dedup.tsv`)) {
  const accepted = new Map();
  dedupCalls.filter((c) => c.status === 200).forEach((c) => accepted.set(c.id, (accepted.get(c.id) ?? 0) + 1));
  const twice = [...accepted.values()].filter((n) => n > 1).length;
  const duplicates = new Map();
  outcomes.filter((o) => o.outcome === "duplicate" && String(o.id).startsWith("dd-"))
    .forEach((o) => duplicates.set(o.id, (duplicates.get(o.id) ?? 0) + 1));
  const dupTotal = [...duplicates.values()].reduce((a, b) => a + b, 0);
  const killed = jsonl("steps.jsonl").find((s) => s.step === "gate-killed");
  figures.dedup = {
    events, copiesSent: lines("dedup.tsv.sent").length, calls: dedupCalls.length,
    idsAccepted: accepted.size, idsAcceptedMoreThanOnce: twice, answers429: dedupCalls.filter((c) => c.status === 429).length,
    duplicateOutcomes: dupTotal, idsWithADuplicateOutcome: duplicates.size,
    idsWithMoreThanOneDuplicateOutcome: [...duplicates.values()].filter((n) => n > 1).length,
    deadLettered: deadLetters.filter((d) => String(d.id ?? d.event?.id ?? "").startsWith("dd-")).length,
    gateKilledAt: killed ? new Date(killed.t).toISOString() : null,
  };
  check(`every id called and accepted exactly once (${events} ids, each sent twice)`,
    accepted.size === events && twice === 0, `${accepted.size} ids accepted, ${twice} more than once`);
  check(`exactly ${events} duplicate outcomes, one per id`,
    dupTotal === events && duplicates.size === events, `${dupTotal} outcomes over ${duplicates.size} ids`);
  check("the gate was SIGKILLed during the sending", killed !== undefined, figures.dedup.gateKilledAt);
}

// The schedule part: none called before its deliverAt; how late; the records it cost.
if (existsSync(`${w}/schedule.tsv`)) {
  const sent = new Map(jsonl("schedule.tsv.sent").map((s) => [s.id, s]));
  const calls = jsonl("records/at-api.jsonl");
  const first = new Map();
  const firstOk = new Map();
  for (const c of calls) {
    if (!first.has(c.id) || c.t < first.get(c.id)) first.set(c.id, c.t);
    if (c.status === 200 && (!firstOk.has(c.id) || c.t < firstOk.get(c.id))) firstOk.set(c.id, c.t);
  }
  const early = [...first.entries()].filter(([id, t]) => sent.has(id) && t < sent.get(id).deliverAt);
  const late = [...firstOk.entries()].filter(([id]) => sent.has(id)).map(([id, t]) => t - sent.get(id).deliverAt)
    .sort((a, b) => a - b);
  const records = lines("delay-records.txt").map((l) => l.split(" ")).filter(([, kind]) => kind === "at")
    .reduce((a, [, , n]) => a + Number(n), 0);
  figures.schedule = {
    events, sent: sent.size, calledOnceOrMore: first.size, accepted: firstOk.size,
    calledEarly: early.length, earliestByMs: early.length ? Math.round(Math.max(...early.map(([id, t]) => sent.get(id).deliverAt - t))) : 0,
    latenessMs: { p50: pct(late, 50) && Math.round(pct(late, 50)), p99: pct(late, 99) && Math.round(pct(late, 99)), max: late.length ? Math.round(late[late.length - 1]) : null },
    delayRecords: records, delayRecordsPerEvent: sent.size ? +(records / sent.size).toFixed(2) : null,
    delayRecordsByTopic: lines("delay-records.txt").filter((l) => l.includes(" at ")),
  };
  check("no scheduled event called before its deliverAt", early.length === 0, `${early.length} early`);
  check(`every scheduled event accepted (${events})`, firstOk.size === events, `${firstOk.size}`);
}

// The order part: each key's accepted calls in production order, none called before the one
// before it was accepted; the ordered provider's rate beside its unordered twin's.
if (existsSync(`${w}/order.tsv`)) {
  const parse = (id) => { const [, k, n] = id.split("-"); return { key: Number(k), n: Number(n) }; };
  const steps = jsonl("steps.jsonl");
  const sentAt = (steps.find((s) => s.step === "order-sent") ?? {}).t;
  const judgeProvider = (name) => {
    const calls = jsonl(`records/${name}.jsonl`).filter((c) => typeof c.id === "string").sort((a, b) => a.t - b.t);
    const accepted = new Map(); // key -> [n in acceptance order]
    const acceptedAt = new Map(); // id -> first accepted time
    for (const c of calls) {
      if (c.status !== 200) continue;
      const { key, n } = parse(c.id);
      if (!accepted.has(key)) accepted.set(key, []);
      accepted.get(key).push(n);
      if (!acceptedAt.has(c.id)) acceptedAt.set(c.id, c.t);
    }
    let outOfOrder = 0;
    const examples = [];
    for (const [key, ns] of accepted) {
      const firsts = ns.filter((n, i) => ns.indexOf(n) === i);
      for (let i = 1; i < firsts.length; i++) {
        if (firsts[i] < firsts[i - 1]) { outOfOrder++; if (examples.length < 5) examples.push(`key ${key}: ${firsts[i - 1]} before ${firsts[i]}`); }
      }
    }
    // A call of event n before event n-1 of its key was accepted.
    let early = 0;
    const earlyExamples = [];
    const prefix = name === "order-api" ? "ok" : "fk";
    for (const c of calls) {
      const { key, n } = parse(c.id);
      if (n === 0) continue;
      const prev = acceptedAt.get(`${prefix}-${String(key).padStart(3, "0")}-${String(n - 1).padStart(3, "0")}`);
      if (prev === undefined || prev > c.t) { early++; if (earlyExamples.length < 5) earlyExamples.push(`${c.id} at ${c.t} (previous accepted ${prev ?? "never"})`); }
    }
    const last = calls.filter((c) => c.status === 200).reduce((m, c) => Math.max(m, c.t), 0);
    return {
      calls: calls.length, accepted: acceptedAt.size, answers500: calls.filter((c) => c.status === 500).length,
      answers429: calls.filter((c) => c.status === 429).length,
      keysOutOfOrder: outOfOrder, outOfOrderExamples: examples, calledBeforeItsPredecessorAccepted: early,
      earlyExamples: earlyExamples,
      lastAcceptedAfterSendSeconds: sentAt ? +((last - sentAt) / 1000).toFixed(1) : null,
      eventsPerSecond: sentAt && last > sentAt ? +(acceptedAt.size / ((last - sentAt) / 1000)).toFixed(2) : null,
    };
  };
  const expected = lines("order.tsv").length / 2;
  figures.order = { perProvider: expected, dispatcherKills: steps.filter((s) => s.step === "dispatch-killed").length,
    ordered: judgeProvider("order-api"), unordered: judgeProvider("free-api") };
  const o = figures.order.ordered;
  check("every ordered event accepted", o.accepted === expected, `${o.accepted} of ${expected}`);
  check("every key's accepted calls in production order", o.keysOutOfOrder === 0, `${o.keysOutOfOrder} out of order ${o.outOfOrderExamples.join("; ")}`);
  check("no ordered event called before the one before it was accepted", o.calledBeforeItsPredecessorAccepted === 0,
    `${o.calledBeforeItsPredecessorAccepted} ${o.earlyExamples.join("; ")}`);
  check("every unordered event accepted", figures.order.unordered.accepted === expected, `${figures.order.unordered.accepted} of ${expected}`);
  check("the dispatcher was SIGKILLed twice", figures.order.dispatcherKills === 2, `${figures.order.dispatcherKills}`);
}

// The ETA part (issue 37): each event's ETA at admission (its first receipt) against its first
// call at the provider; the deadlines the gate judged unreachable and those it did not.
if (existsSync(`${w}/eta.tsv`)) {
  const sent = new Map(jsonl("eta.tsv.sent").map((s) => [s.id, s]));
  const firstReceipt = new Map(); // a tenant's receipts are on one partition, in decision order
  const decisions = {};
  for (const r of jsonl("receipts.jsonl")) {
    if (typeof r.id !== "string" || !r.id.startsWith("eta-")) continue;
    if (!firstReceipt.has(r.id)) {
      firstReceipt.set(r.id, r);
      decisions[r.decision] = (decisions[r.decision] ?? 0) + 1;
    }
  }
  const firstCall = new Map();
  const calls = jsonl("records/eta-api.jsonl");
  for (const c of calls) if (!firstCall.has(c.id) || c.t < firstCall.get(c.id)) firstCall.set(c.id, c.t);
  const signed = [];
  const byDecision = {};
  for (const [id, r] of firstReceipt) {
    if (r.etaMillis == null || r.decision === "dead" || !firstCall.has(id)) continue;
    const e = firstCall.get(id) - r.etaMillis;
    signed.push(e);
    (byDecision[r.decision] ??= []).push(e);
  }
  const summary = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const abs = xs.map(Math.abs).sort((a, b) => a - b);
    return { events: xs.length, medianMs: pct(sorted, 50), p1Ms: pct(sorted, 1), p99Ms: pct(sorted, 99),
      absMedianMs: pct(abs, 50), absP99Ms: pct(abs, 99), calledMoreThan1sBeforeEta: xs.filter((x) => x < -1000).length };
  };
  const deadlineIds = (ms) => [...sent.values()].filter((s) => s.deadline != null && s.deadline - s.sent === ms).map((s) => s.id);
  const unreachable = deadlineIds(3_000);
  const feasible = deadlineIds(3_600_000);
  const judgedDead = (id) => firstReceipt.get(id)?.decision === "dead" && firstReceipt.get(id)?.reason === "deadline_unreachable";
  const dlqIds = new Set(deadLetters.map((d) => d.id).filter((id) => typeof id === "string"));
  const sentAt = (jsonl("steps.jsonl").find((s) => s.step === "eta-sent") ?? {}).t;
  const lastCall = calls.filter((c) => c.status === 200).reduce((m, c) => Math.max(m, c.t), 0);
  figures.eta = {
    events, sent: sent.size, receipts: firstReceipt.size, firstDecisions: decisions, called: firstCall.size,
    answers429: calls.filter((c) => c.status === 429).length, answers500: calls.filter((c) => c.status === 500).length,
    errorCallMinusEta: summary(signed),
    errorByFirstDecision: Object.fromEntries(Object.entries(byDecision).map(([k, v]) => [k, summary(v)])),
    unreachableDeadlines: { given: unreachable.length, deadLetteredDeadlineUnreachable: unreachable.filter(judgedDead).length,
      inDlq: unreachable.filter((id) => dlqIds.has(id)).length, called: unreachable.filter((id) => firstCall.has(id)).length },
    feasibleDeadlines: { given: feasible.length, deadLetteredDeadlineUnreachable: feasible.filter(judgedDead).length,
      called: feasible.filter((id) => firstCall.has(id)).length },
    lastAcceptedAfterSendSeconds: sentAt ? +((lastCall - sentAt) / 1000).toFixed(1) : null,
    trace: lines("trace.txt").slice(0, 40),
  };
  const u = figures.eta.unreachableDeadlines;
  const f = figures.eta.feasibleDeadlines;
  check("every event got a receipt", firstReceipt.size === sent.size, `${firstReceipt.size} of ${sent.size}`);
  check("every event but the unreachable ones called", firstCall.size === sent.size - u.given, `${firstCall.size} of ${sent.size - u.given}`);
  check("every unreachable deadline dead-lettered deadline_unreachable at the gate, never called",
    u.deadLetteredDeadlineUnreachable === u.given && u.inDlq === u.given && u.called === 0 && u.given > 0, JSON.stringify(u));
  check("no feasible deadline judged unreachable, each called", f.deadLetteredDeadlineUnreachable === 0 && f.called === f.given && f.given > 0, JSON.stringify(f));
  check("a deferred, retried event traced (trace.txt)", lines("trace.txt").length > 0, `${lines("trace.txt").length} lines`);
}

// The priority part (issue 36): bulk's highs behind its 20,000 lows, against the others' shares.
if (existsSync(`${w}/priority.tsv`)) {
  const sent = new Map(jsonl("priority.tsv.sent").map((s) => [s.id, s.sent]));
  const calls = jsonl("records/prio-api.jsonl").filter((c) => typeof c.id === "string");
  const firstCall = new Map();
  for (const c of calls) if (!firstCall.has(c.id) || c.t < firstCall.get(c.id)) firstCall.set(c.id, c.t);
  const highs = [...sent.keys()].filter((id) => id.startsWith("hi-"));
  const highWait = highs.filter((id) => firstCall.has(id)).map((id) => firstCall.get(id) - sent.get(id)).sort((a, b) => a - b);
  const highFrom = Math.min(...highs.map((id) => sent.get(id)));
  const highTo = Math.max(...highs.map((id) => firstCall.get(id) ?? sent.get(id)));
  const rate = (prefix, from, to) => calls.filter((c) => c.status === 200 && c.id.startsWith(prefix) && c.t >= from && c.t < to).length / ((to - from) / 1000);
  const before = [highFrom - 20_000, highFrom];
  const during = [highFrom, Math.max(highTo, highFrom + 10_000) + 10_000];
  // Each other tenant asks less than its fair share (10/s of 50/s shared by three), so its share is
  // what it offers: its calls/s in the window against its events sent then (the window before the
  // highs holds the start's catch-up, shown beside).
  const offered = (prefix, from, to) => [...sent.entries()].filter(([id, t]) => id.startsWith(prefix) && t >= from && t < to).length / ((to - from) / 1000);
  const others = ["other1", "other2"].map((o) => ({ tenant: o, before: +rate(o, ...before).toFixed(3),
    offeredDuring: +offered(o, ...during).toFixed(3), during: +rate(o, ...during).toFixed(3) }));
  others.forEach((o) => { o.changePercent = o.offeredDuring > 0 ? +(100 * (o.during - o.offeredDuring) / o.offeredDuring).toFixed(2) : null; });
  const lowsDuring = calls.filter((c) => c.status === 200 && c.id.startsWith("lo-") && c.t >= during[0] && c.t < during[1]).length;
  figures.priority = {
    highs: highs.length, highsCalled: highWait.length,
    highProduceToCallMs: { p50: pct(highWait, 50), p99: pct(highWait, 99), max: highWait[highWait.length - 1] ?? null },
    lowsCalledBeforeTheHighs: calls.filter((c) => c.status === 200 && c.id.startsWith("lo-") && c.t < highFrom).length,
    lowsCalledDuringTheHighsWindow: lowsDuring, windowSeconds: +((during[1] - during[0]) / 1000).toFixed(1),
    others, answers429: calls.filter((c) => c.status === 429).length,
    providerCallsPerSecondDuring: +rate("", ...during).toFixed(2),
  };
  const p = figures.priority;
  check("every high called", p.highsCalled === p.highs, `${p.highsCalled} of ${p.highs}`);
  check("the highs' p99 from produce to call within 10 s", p.highProduceToCallMs.p99 !== null && p.highProduceToCallMs.p99 <= 10_000, `p99 ${p.highProduceToCallMs.p99} ms`);
  check("the other tenants' calls/s during the highs within 2% of what they offered", others.every((o) => o.changePercent !== null && Math.abs(o.changePercent) <= 2), JSON.stringify(others));
  check("the lows still called while the highs went", lowsDuring > 0, `${lowsDuring} lows in ${p.windowSeconds} s`);
  check("no 429 at prio-api", p.answers429 === 0, `${p.answers429}`);
}

writeFileSync(`${w}/verdicts.json`, JSON.stringify({ verdicts, figures }, null, 2) + "\n");
console.log(JSON.stringify(figures, null, 2));
for (const v of verdicts) console.log(`${v.ok ? "PASS" : "FAIL"}  ${v.name} (${v.detail})`);
process.exit(verdicts.every((v) => v.ok) ? 0 : 1);
