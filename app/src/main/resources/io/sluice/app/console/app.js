// Sluice's web console (docs/console.md): plain JavaScript over the admin API, served from the jar.
// Everything shown comes from outside (provider names and answers, reasons, tenant ids, pause
// reasons): it is only ever put in the page as text (textContent, createTextNode), never as HTML.
'use strict';

(() => {
  const TOKEN_KEY = 'sluice.adminToken';
  const POLL_MS = 1000;
  const HISTORY = 60; // seconds of calls per second plotted
  const SHARE_WINDOW = 10; // seconds of calls the tier shares are taken over
  const TIER_COLOURS = ['#2563eb', '#d97706', '#059669', '#7c3aed', '#db2777', '#0891b2', '#65a30d'];

  const state = {
    write: false,
    status: null,
    samples: [], // [{t, calls: {provider: {tier: count}}}] from /metrics, newest last
    history: {}, // provider -> [{t, calls, configured, paced}]
    replayFilters: null,
    tenant: null,
    timer: null,
  };

  const $ = (id) => document.getElementById(id);

  /** An element with attributes (never an event handler, never HTML) and text or element children. */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k === 'style') Object.assign(e.style, v); // CSSOM: CSP forbids style attributes
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return e;
  }

  function fill(tbody, rows) {
    tbody.replaceChildren(...rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c)))));
  }

  function token() {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  /** A call to the admin API: {status, body} with body the parsed JSON (or null). */
  async function api(method, path, body) {
    const headers = { Authorization: 'Bearer ' + token() };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await fetch(path, {
      method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let parsed = null;
    try { parsed = await r.json(); } catch (e) { parsed = null; }
    if (r.status === 401 && token()) {
      signOut('The token was refused (401): sign in again.');
    }
    return { status: r.status, body: parsed };
  }

  function errorText(r) {
    return (r.body && typeof r.body.error === 'string') ? r.body.error : 'HTTP ' + r.status;
  }

  // ---- signing in and out --------------------------------------------------------------------

  async function signIn(t) {
    sessionStorage.setItem(TOKEN_KEY, t);
    const r = await api('GET', '/admin/status');
    if (r.status !== 200) {
      sessionStorage.removeItem(TOKEN_KEY);
      $('login-error').textContent = 'Not signed in: ' + errorText(r);
      return;
    }
    // Which token it is: a resume without a scope is refused as a bad request (400) with the
    // write token and as forbidden (403) with the read token; it changes nothing either way.
    const probe = await api('POST', '/admin/resume', {});
    state.write = probe.status === 400;
    document.body.classList.toggle('read-only', !state.write);
    $('access').textContent = state.write ? 'write access' : 'read-only';
    for (const b of document.querySelectorAll('.write')) b.disabled = !state.write;
    $('login').hidden = true;
    $('tabs').hidden = false;
    $('session').hidden = false;
    $('login-error').textContent = '';
    show('providers');
    render(r.body);
    schedule();
  }

  function signOut(why) {
    sessionStorage.removeItem(TOKEN_KEY);
    clearTimeout(state.timer);
    state.timer = null;
    $('login').hidden = false;
    $('tabs').hidden = true;
    $('session').hidden = true;
    for (const p of document.querySelectorAll('.page')) p.hidden = true;
    $('login-error').textContent = why || '';
    $('token').value = '';
  }

  function show(tab) {
    for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.tab === tab);
    for (const p of document.querySelectorAll('.page')) p.hidden = p.id !== tab;
  }

  // ---- polling ---------------------------------------------------------------------------------

  /** Polls every second, one request in flight at most (a slow status never piles up). */
  function schedule(delay = POLL_MS) {
    clearTimeout(state.timer);
    state.timer = setTimeout(poll, delay);
  }

  async function poll() {
    if (!token()) return;
    const started = Date.now();
    try {
      const [status, metrics] = await Promise.all([api('GET', '/admin/status'), fetchMetrics()]);
      if (metrics) sample(metrics);
      if (status.status === 200) render(status.body);
      else $('status-errors').textContent = 'status: ' + errorText(status);
    } catch (e) {
      $('status-errors').textContent = 'status: ' + String(e && e.message);
    }
    if (token()) schedule(Math.max(0, POLL_MS - (Date.now() - started)));
  }

  async function fetchMetrics() {
    try {
      const r = await fetch('/metrics', { cache: 'no-store', credentials: 'omit' });
      return r.ok ? await r.text() : null;
    } catch (e) {
      return null;
    }
  }

  /** sluice_dispatch_calls_total{provider,tier} of this instance, summed, as one sample. */
  function sample(text) {
    const calls = {};
    for (const line of text.split('\n')) {
      if (!line.startsWith('sluice_dispatch_calls_total{')) continue;
      const close = line.lastIndexOf('}');
      const labels = parseLabels(line.slice(line.indexOf('{') + 1, close));
      const value = Number(line.slice(close + 1).trim().split(' ')[0]);
      if (!labels.provider || !Number.isFinite(value)) continue;
      const p = calls[labels.provider] || (calls[labels.provider] = {});
      const tier = labels.tier || '-';
      p[tier] = (p[tier] || 0) + value;
    }
    state.samples.push({ t: Date.now(), calls });
    while (state.samples.length > SHARE_WINDOW + 2) state.samples.shift();
  }

  function parseLabels(s) {
    const out = {};
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    let m;
    while ((m = re.exec(s)) !== null) out[m[1]] = m[2].replace(/\\(.)/g, (x, c) => (c === 'n' ? '\n' : c));
    return out;
  }

  function total(byTier) {
    return Object.values(byTier || {}).reduce((a, b) => a + b, 0);
  }

  /** Calls per second of a provider between the last two samples (null before two). */
  function rateNow(provider) {
    const n = state.samples.length;
    if (n < 2) return null;
    const a = state.samples[n - 2];
    const b = state.samples[n - 1];
    const dt = (b.t - a.t) / 1000;
    if (dt <= 0) return null;
    return Math.max(0, total(b.calls[provider]) - total(a.calls[provider])) / dt;
  }

  /** Calls by tier over the share window. */
  function shares(provider) {
    const n = state.samples.length;
    if (n < 2) return {};
    const a = state.samples[0].calls[provider] || {};
    const b = state.samples[n - 1].calls[provider] || {};
    const out = {};
    for (const [tier, v] of Object.entries(b)) {
      const d = v - (a[tier] || 0);
      if (d > 0) out[tier] = d;
    }
    return out;
  }

  // ---- rendering -------------------------------------------------------------------------------

  function render(s) {
    state.status = s;
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    const errors = s.errors ? Object.entries(s.errors).map(([k, v]) => k + ': ' + v).join('\n') : '';
    $('status-errors').textContent = errors;
    // Every tenant waits after Redis lost its data (its buckets start spent): say so and until when.
    const loss = s.redisLoss;
    $('redis-loss').textContent = loss ? 'Redis lost its data at ' + loss.lostAt + ': every tenant\'s bucket '
      + 'starts spent, so new admissions wait until about ' + loss.admissionsFrom + ' (buckets full by '
      + loss.refilledBy + ')' : '';
    renderProviders(s);
    fill($('pauses').tBodies[0], (s.pauses || []).map((p) =>
      [p.provider || '*', p.tenant || '*', p.by || '', p.at || '', p.reason || '']));
    renderBacklog(s);
  }

  function renderProviders(s) {
    const list = $('provider-list');
    const names = Object.keys(s.providers || {});
    const seen = new Set(names);
    for (const card of [...list.children]) if (!seen.has(card.dataset.provider)) card.remove();
    const instance = s.instance || {};
    for (const name of names) {
      const p = s.providers[name];
      let card = [...list.children].find((c) => c.dataset.provider === name);
      if (!card) {
        card = providerCard(name);
        list.appendChild(card);
      }
      const calls = rateNow(name);
      const h = state.history[name] || (state.history[name] = []);
      h.push({ t: Date.now(), calls, configured: p.configuredRate, paced: p.pacedRate });
      while (h.length > HISTORY) h.shift();
      const badge = card.querySelector('.badge');
      badge.textContent = p.paused ? 'paused' : 'running';
      badge.className = 'badge ' + (p.paused ? 'paused' : 'running');
      card.dataset.state = p.paused ? 'paused' : 'running';
      const limits = (p.learnedLimits || []).map((l) => l.quota + ' ' + l.unit + '/' + (l.windowMillis / 1000) + 's');
      card.querySelector('.figures').textContent =
        'calls/s ' + (calls === null ? '…' : calls.toFixed(1))
        + ' · configured ' + fmt(p.configuredRate) + '/s · paced ' + fmt(p.pacedRate) + '/s'
        + ' · buffered ' + num((instance.buffered || {})[name])
        + ' · in flight ' + num((instance.inFlight || {})[name])
        + (limits.length ? ' · learned ' + limits.join(', ') : '')
        + (p.maxDelay ? ' · deliverAt ≤ ' + p.maxDelay + ' ahead' : '')
        + (p.dedupWindow ? ' · ids kept ' + p.dedupWindow : '')
        + (p.ordering ? ' · ordered per key (dead head: ' + p.orderingOnDeadHead + ')' : '');
      card.querySelector('.waits').textContent = p.waits ? 'waiting: ' + waitsLine(p.waits) : '';
      const pauseReasons = (p.pauses || []).map((x) => (x.tenant ? 'tenant ' + x.tenant + ': ' : '') + (x.reason || '') + ' (' + (x.by || '') + ')');
      card.querySelector('.pause-reasons').textContent = pauseReasons.join('; ');
      card.querySelector('.pause').hidden = p.paused;
      card.querySelector('.resume').hidden = !p.paused;
      drawShares(card.querySelector('.shares'), card.querySelector('.share-legend'), shares(name));
      plot(card.querySelector('canvas'), h);
    }
  }

  // What a provider's events wait for, as `sluice status` says it (WaitsView.line).
  function waitsLine(w) {
    if (!w.instances) return 'no dispatcher instance reports (none running, or Redis away)';
    let out = num(w.queued) + ' queued for their slots, ' + num(w.inFlight) + ' in flight';
    if (w.heldByPause > 0) out += ', ' + num(w.heldByPause) + ' held by a pause';
    if (w.lanesHeld > 0) out += ', ' + num(w.lanesHeld) + ' lane(s) held (Retry-After, or an endpoint disabled until its probe) until ' + w.heldUntil;
    for (const [reason, n] of Object.entries(w.parked || {})) out += ', ' + num(n) + ' parked in Kafka (' + reason + ')';
    if (w.nextDue) out += ', back from ' + w.nextDue + ' to ' + w.lastDue;
    return out;
  }

  // A tenant's wait toward a provider, as `sluice status --tenant` says it (TenantWait.line).
  function tenantWaitLine(w) {
    const s = (ms) => (Number(ms || 0) / 1000).toFixed(1) + ' s';
    let out = w.oldestQueuedSince ? 'oldest queued ' + s(w.oldestQueuedAgeMillis) + ' (first seen ' + w.oldestQueuedSince + ')'
      : w.oldestKnown === false ? 'its oldest queued not known (not among the tenants waiting longest an instance tells)'
        : 'nothing queued in a dispatcher';
    if (w.etaAt) {
      out += '; backlog through by ' + w.etaAt + ' (in ' + s(w.etaMillis) + ': its tier\'s queue ' + s(w.tierDrainMillis)
        + (w.quotaDueAt ? ', its quota due at ' + w.quotaDueAt : '') + ')';
    } else if (w.quotaDueAt) {
      out += '; its quota due at ' + w.quotaDueAt + ' (its tier\'s queue: no estimate, a lane cannot call now)';
    }
    return out;
  }

  /** The tenant's wait toward each provider, from GET /admin/status?tenant=T. */
  async function showTenantWait(id) {
    $('tenant-wait').replaceChildren();
    const r = await api('GET', '/admin/status?' + new URLSearchParams({ tenant: id }).toString());
    const waiting = r.status === 200 && r.body && r.body.tenant ? r.body.tenant.waiting || {} : null;
    $('tenant-wait').replaceChildren(...(waiting === null ? [el('li', { text: 'not read: ' + errorText(r) })]
      : Object.entries(waiting).map(([provider, w]) => el('li', { class: 'tenant-wait-line', text: provider + ': ' + tenantWaitLine(w) }))));
  }

  function fmt(x) {
    return typeof x === 'number' ? (Math.round(x * 100) / 100).toString() : '-';
  }

  function num(x) {
    return typeof x === 'number' ? String(x) : '-';
  }

  function providerCard(name) {
    const reason = el('input', { placeholder: 'reason (optional)', maxlength: 200, class: 'reason' });
    const pause = el('button', { type: 'button', class: 'pause write', text: 'Pause' });
    const resume = el('button', { type: 'button', class: 'resume write', text: 'Resume', hidden: true });
    pause.disabled = resume.disabled = !state.write;
    pause.addEventListener('click', () => setPaused(name, true, reason.value, pause));
    resume.addEventListener('click', () => setPaused(name, false, '', resume));
    return el('div', { class: 'card', 'data-provider': name },
      el('h3', {}, el('span', { class: 'name', text: name }), el('span', { class: 'badge' })),
      el('div', { class: 'figures' }),
      el('div', { class: 'meta waits' }),
      el('canvas', { width: 360, height: 100, 'aria-label': 'calls per second of ' + name }),
      el('div', { class: 'legend' },
        el('span', {}, el('i', { style: { background: '#2563eb' } }), 'calls/s'),
        el('span', {}, el('i', { style: { background: '#98a2b3' } }), 'configured'),
        el('span', {}, el('i', { style: { background: '#d97706' } }), 'paced')),
      el('div', { class: 'shares', title: 'calls by tier, last ' + SHARE_WINDOW + ' s' }),
      el('div', { class: 'legend share-legend' }),
      el('div', { class: 'meta pause-reasons' }),
      el('div', { class: 'actions' }, reason, pause, resume));
  }

  async function setPaused(provider, pause, reason, button) {
    button.disabled = true;
    const body = { provider };
    if (pause && reason) body.reason = reason;
    const r = await api('POST', pause ? '/admin/pause' : '/admin/resume', body);
    button.disabled = !state.write;
    if (r.status !== 200) {
      $('status-errors').textContent = (pause ? 'pause' : 'resume') + ' ' + provider + ': ' + errorText(r);
      return;
    }
    schedule(0);
  }

  function drawShares(bar, legend, byTier) {
    const entries = Object.entries(byTier).sort((a, b) => b[1] - a[1]);
    const sum = entries.reduce((a, [, v]) => a + v, 0);
    const colours = state.tierColour || (state.tierColour = {});
    for (const [tier] of entries) {
      if (!colours[tier]) colours[tier] = TIER_COLOURS[Object.keys(colours).length % TIER_COLOURS.length];
    }
    bar.replaceChildren(...entries.map(([tier, v]) => el('span', {
      style: { width: (100 * v / sum).toFixed(2) + '%', background: state.tierColour[tier] }, title: tier,
    })));
    legend.replaceChildren(...(sum === 0 ? [el('span', { text: 'no calls in the last ' + SHARE_WINDOW + ' s' })]
      : entries.map(([tier, v]) => el('span', {}, el('i', { style: { background: state.tierColour[tier] } }),
        tier + ' ' + Math.round(100 * v / sum) + '%'))));
  }

  /** Calls per second (blue) against the configured (grey, dashed) and paced (orange) rates. */
  function plot(canvas, h) {
    const ratio = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 360;
    const ht = canvas.clientHeight || 100;
    if (canvas.width !== Math.round(w * ratio)) { canvas.width = Math.round(w * ratio); canvas.height = Math.round(ht * ratio); }
    const g = canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, w, ht);
    const top = Math.max(1, ...h.map((x) => Math.max(x.calls || 0, x.configured || 0, x.paced || 0))) * 1.15;
    const left = 34;
    const y = (v) => ht - 14 - (v / top) * (ht - 20);
    const x = (i) => left + (i + HISTORY - h.length) * ((w - left - 4) / (HISTORY - 1));
    g.font = '10px system-ui, sans-serif';
    g.fillStyle = '#667085';
    g.strokeStyle = '#eaecf0';
    g.lineWidth = 1;
    for (const v of [0, top / 2, top / 1.15]) {
      g.beginPath(); g.moveTo(left, y(v)); g.lineTo(w - 4, y(v)); g.stroke();
      g.fillText(fmt(v), 2, y(v) + 3);
    }
    g.fillText('-' + HISTORY + ' s', left, ht - 2);
    g.fillText('now', w - 24, ht - 2);
    const line = (key, colour, dash) => {
      g.strokeStyle = colour; g.lineWidth = 1.5; g.setLineDash(dash);
      g.beginPath();
      let started = false;
      h.forEach((p, i) => {
        const v = p[key];
        if (typeof v !== 'number') { started = false; return; }
        if (started) g.lineTo(x(i), y(v)); else { g.moveTo(x(i), y(v)); started = true; }
      });
      g.stroke();
      g.setLineDash([]);
    };
    line('paced', '#d97706', []);
    line('configured', '#98a2b3', [4, 3]); // dashed over the paced line, which it often equals
    line('calls', '#2563eb', []);
  }

  function renderBacklog(s) {
    const waiting = s.waiting || {};
    // The lag is read from Kafka at most every 2 s and shared by every caller (StatusCache): say
    // when, so a figure that stopped moving is not mistaken for a backlog that stopped moving.
    $('stages-as-of').textContent = waiting.asOf
      ? 'read from Kafka at ' + new Date(waiting.asOf).toLocaleTimeString() : 'not read yet';
    fill($('stages').tBodies[0], Object.entries(waiting.byStage || {}).map(([k, v]) => [k, String(v)]));
    fill($('lag').tBodies[0], (waiting.lag || []).map((l) => [l.group, l.topic, String(l.records)]));
    const inst = s.instance || {};
    const providers = Object.keys(Object.assign({}, inst.buffered, inst.inFlight, inst.heldByPause));
    fill($('buffered').tBodies[0], providers.map((p) => [p, num((inst.buffered || {})[p]),
      num((inst.inFlight || {})[p]), num((inst.heldByPause || {})[p])]));
    const dead = (s.deadLettersLastHour || {}).byReason || {};
    fill($('dead-hour').tBodies[0], Object.entries(dead).map(([k, v]) => [k, String(v)]));
  }

  // ---- dead letters ----------------------------------------------------------------------------

  function dlqFilters() {
    const f = new FormData($('dlq-form'));
    const out = {};
    for (const k of ['reason', 'provider', 'tenant', 'since']) {
      const v = String(f.get(k) || '').trim();
      if (v) out[k] = v;
    }
    const limit = Number(f.get('limit'));
    if (limit) out.limit = limit;
    return out;
  }

  function deadLetterRows(rows) {
    fill($('dlq-rows').tBodies[0], (rows || []).map((r) => [r.time || '', r.reason || '', r.tenant || '',
      r.provider || '', r.eventId || '', r.attempts === undefined ? '' : String(r.attempts),
      (r.replayOf ? '(replay of ' + r.replayOf + ') ' : '') + (r.detail || '')]));
  }

  async function listDeadLetters(e) {
    e.preventDefault();
    $('dlq-replay').hidden = true;
    const q = new URLSearchParams(dlqFilters());
    $('dlq-message').textContent = 'reading…';
    const r = await api('GET', '/admin/dlq?' + q.toString());
    if (r.status !== 200) {
      $('dlq-message').textContent = errorText(r);
      return;
    }
    deadLetterRows(r.body.deadLetters);
    $('dlq-message').textContent = r.body.deadLetters.length + ' dead letters shown (' + r.body.read
      + ' read' + (r.body.timedOut ? '; reading stopped at the time limit: narrow with since' : '') + ')';
  }

  async function previewReplay() {
    const filters = dlqFilters();
    $('dlq-message').textContent = 'working out what a replay would send…';
    const r = await api('POST', '/admin/dlq/replay', Object.assign({}, filters, { dryRun: true }));
    if (r.status !== 200) {
      $('dlq-message').textContent = errorText(r);
      return;
    }
    deadLetterRows(r.body.wouldSend);
    state.replayFilters = filters;
    const n = r.body.wouldSend.length;
    $('dlq-message').textContent = '';
    $('dlq-replay-text').textContent = 'A replay with these filters would send ' + n
      + ' events back to inbound (through the gate, with their ids), skipping ' + skippedText(r.body.skipped)
      + (r.body.more ? '. There are more: replay again afterwards.' : '.');
    $('dlq-confirm').textContent = 'Confirm: replay ' + n;
    $('dlq-confirm').disabled = !state.write || n === 0;
    $('dlq-replay').hidden = false;
  }

  function skippedText(skipped) {
    const parts = Object.entries(skipped || {}).map(([k, v]) => v + ' ' + k.toLowerCase().replace(/_/g, ' '));
    return parts.length ? parts.join(', ') : 'none';
  }

  async function confirmReplay() {
    $('dlq-confirm').disabled = true;
    const r = await api('POST', '/admin/dlq/replay', Object.assign({}, state.replayFilters, { dryRun: false }));
    $('dlq-replay').hidden = true;
    if (r.status !== 200) {
      $('dlq-message').textContent = 'replay: ' + errorText(r);
      return;
    }
    deadLetterRows(r.body.sent);
    $('dlq-message').textContent = 'sent ' + r.body.sent.length + ' events; skipped ' + skippedText(r.body.skipped)
      + (r.body.more ? '; there are more: replay again' : '');
  }

  // ---- an event's journey ----------------------------------------------------------------------

  async function traceEvent(e) {
    e.preventDefault();
    const id = $('event-id').value.trim();
    const since = $('event-since').value.trim();
    if (!id) return;
    $('event-stages').tBodies[0].replaceChildren();
    $('event-message').textContent = 'reading the topics…';
    const q = since ? '?' + new URLSearchParams({ since }).toString() : '';
    const r = await api('GET', '/admin/events/' + encodeURIComponent(id) + q);
    const body = r.body || {};
    if (r.status !== 200 && !(r.status === 404 && Array.isArray(body.stages))) {
      $('event-message').textContent = errorText(r);
      return;
    }
    const stages = Array.isArray(body.stages) ? body.stages : [];
    fill($('event-stages').tBodies[0], stages.map((s) => [s.at || '', s.where || '', s.what || '',
      Object.entries(s.details || {}).map(([k, v]) => k + '=' + v).join(' · ')]));
    $('event-message').textContent = (stages.length ? stages.length + ' records of the event' : 'no record of the event')
      + ' among ' + (body.recordsRead || 0) + ' read'
      + (body.bounded ? '; a bound stopped the search: older or later records may be missing (narrow with since)' : '');
  }

  // ---- tenants ---------------------------------------------------------------------------------

  function tenantPath(id) {
    return '/admin/tenants/' + encodeURIComponent(id);
  }

  /** A 404 from the admin API itself (no such route): this Sluice has no tenant registry. */
  function noRegistry(r) {
    return r.status === 404 && r.body && typeof r.body.error === 'string' && r.body.error.startsWith('not found: try');
  }

  async function findTenant(e) {
    e.preventDefault();
    const id = $('tenant-id').value.trim();
    $('tenant-matches').replaceChildren();
    const r = await api('GET', tenantPath(id));
    if (noRegistry(r)) {
      $('tenant-message').textContent = 'This Sluice has no tenant registry on its admin API (GET /admin/tenants answered 404); tenants come from the YAML file.';
      $('tenant-edit').hidden = true;
      return;
    }
    if (r.status === 404) {
      $('tenant-message').textContent = 'No tenant "' + id + '" in the registry' + (state.write ? ': fill in the form to add it.' : '.');
      editTenant({ tenant: id, tier: '', quotas: {}, shadow: false }, false);
      return;
    }
    if (r.status !== 200) {
      $('tenant-message').textContent = errorText(r);
      return;
    }
    $('tenant-message').textContent = '';
    editTenant(r.body, true);
  }

  async function listTenants() {
    const prefix = $('tenant-id').value.trim();
    const r = await api('GET', '/admin/tenants?' + new URLSearchParams({ prefix, limit: '50' }).toString());
    if (noRegistry(r) || r.status !== 200) {
      $('tenant-message').textContent = noRegistry(r)
        ? 'This Sluice has no tenant registry on its admin API (GET /admin/tenants answered 404).' : errorText(r);
      return;
    }
    const items = Array.isArray(r.body.tenants) ? r.body.tenants : [];
    $('tenant-message').textContent = items.length + ' tenants' + (r.body.truncated ? ' (more: narrow the prefix)' : '');
    $('tenant-matches').replaceChildren(...items.map((t) => {
      const id = String(t.tenant);
      const b = el('button', { type: 'button', text: id });
      b.addEventListener('click', () => { $('tenant-id').value = id; findTenant(new Event('submit')); });
      return el('li', {}, b, ' ' + (t.tier || '') + ' (' + (t.source || '') + ')');
    }));
  }

  function quotaRow(provider, q) {
    const remove = el('button', { type: 'button', class: 'write', text: 'Remove' });
    remove.disabled = !state.write;
    const row = el('tr', {},
      el('td', {}, el('input', { class: 'q-provider', value: provider || '' })),
      el('td', {}, el('input', { class: 'q-capacity', type: 'number', min: 1, value: q && q.capacity !== undefined ? q.capacity : '' })),
      el('td', {}, el('input', { class: 'q-refill', placeholder: '20/s', value: (q && q.refill) || '' })),
      el('td', {}, remove));
    remove.addEventListener('click', () => row.remove());
    return row;
  }

  async function editTenant(t, exists) {
    // The registry's endpoints, overall budget and rules are not edited here; a save keeps the
    // record's (a PUT sends the whole record; no overall and no rules leave the file's in force,
    // so the file's, shown for a yaml tenant, are not copied into a record).
    state.tenant = { id: String(t.tenant), exists, endpoints: t.endpoints || {},
      budgets: t.source === 'registry' && ('overall' in t || 'rules' in t) ? { overall: t.overall === undefined ? null : t.overall, rules: t.rules || {} } : null };
    $('tenant-title').textContent = 'Tenant ' + t.tenant;
    $('tenant-tier').value = t.tier || '';
    $('tenant-shadow').checked = !!t.shadow;
    $('tenant-quotas').tBodies[0].replaceChildren(...Object.entries(t.quotas || {}).map(([p, q]) => quotaRow(p, q)));
    $('tenant-meta').textContent = exists ? 'source ' + (t.source || '-') + ' · updated by ' + (t.updatedBy || '-') + ' at ' + (t.updatedAt || '-')
      + (Object.keys(t.endpoints || {}).length ? ' · endpoints in the registry (kept on save): ' + Object.keys(t.endpoints).join(', ') : '')
      + (t.note ? ' · ' + t.note : '') : '';
    // Only a registry record can be deleted; the file's entry and the default tier stay.
    $('tenant-delete').disabled = !state.write || t.source !== 'registry';
    for (const i of $('tenant-edit').querySelectorAll('input')) i.disabled = !state.write;
    $('tenant-edit').hidden = false;
    $('tenant-audit').replaceChildren();
    showTenantWait(t.tenant);
    if (exists) {
      const a = await api('GET', tenantPath(t.tenant) + '/audit');
      const changes = a.status === 200 && a.body && Array.isArray(a.body.changes) ? a.body.changes : [];
      $('tenant-audit').replaceChildren(...changes.map((c) => el('li', {
        text: (c.at || '') + ' ' + (c.by || '') + ': ' + (c.before ? JSON.stringify(c.before) : 'none')
          + ' → ' + (c.after ? JSON.stringify(c.after) : 'deleted'),
      })));
    }
  }

  async function saveTenant(e) {
    e.preventDefault();
    const quotas = {};
    for (const row of $('tenant-quotas').tBodies[0].rows) {
      const p = row.querySelector('.q-provider').value.trim();
      if (!p) continue;
      quotas[p] = { capacity: Number(row.querySelector('.q-capacity').value), refill: row.querySelector('.q-refill').value.trim() };
    }
    // The whole record: tier, quotas and shadow (the registry refuses other fields).
    const body = Object.assign({ tier: $('tenant-tier').value.trim(), quotas, shadow: $('tenant-shadow').checked,
      endpoints: state.tenant.endpoints }, state.tenant.budgets || {});
    const r = await api('PUT', tenantPath(state.tenant.id), body);
    $('tenant-message').textContent = r.status === 200 || r.status === 201 ? 'saved ' + state.tenant.id
      : noRegistry(r) ? 'This Sluice has no tenant registry (PUT answered 404).' : 'not saved: ' + errorText(r);
    if (r.status === 200 || r.status === 201) editTenant(r.body && r.body.tenant ? r.body : Object.assign({ tenant: state.tenant.id, source: 'registry' }, body), true);
  }

  async function deleteTenant() {
    const id = state.tenant.id;
    if (!window.confirm('Delete tenant ' + id + ' from the registry? It falls back to the YAML file\'s entry or the default tier.')) return;
    const r = await api('DELETE', tenantPath(id));
    $('tenant-message').textContent = r.status === 200 || r.status === 204 ? 'deleted ' + id : 'not deleted: ' + errorText(r);
    if (r.status === 200 || r.status === 204) $('tenant-edit').hidden = true;
  }

  // ---- wiring ----------------------------------------------------------------------------------

  document.addEventListener('DOMContentLoaded', () => {
    $('login-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const t = $('token').value.trim();
      $('token').value = '';
      if (t) signIn(t);
    });
    $('logout').addEventListener('click', () => signOut(''));
    for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => show(b.dataset.tab));
    $('dlq-form').addEventListener('submit', listDeadLetters);
    $('dlq-preview').addEventListener('click', previewReplay);
    $('dlq-confirm').addEventListener('click', confirmReplay);
    $('dlq-cancel').addEventListener('click', () => { $('dlq-replay').hidden = true; });
    $('event-form').addEventListener('submit', traceEvent);
    $('tenant-find').addEventListener('submit', findTenant);
    $('tenant-list').addEventListener('click', listTenants);
    $('tenant-edit').addEventListener('submit', saveTenant);
    $('tenant-add-quota').addEventListener('click', () => $('tenant-quotas').tBodies[0].appendChild(quotaRow('', null)));
    $('tenant-delete').addEventListener('click', deleteTenant);
    if (token()) signIn(token());
  });
})();
