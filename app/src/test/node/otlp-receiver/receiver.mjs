// An OTLP/HTTP trace receiver outside the JVM (TracingIT). Listens on 127.0.0.1 (port 0: the
// system's choice), prints "listening <port>" and then one JSON line per span received:
// {"traceId","spanId","parentSpanId","name","kind","start","end","attributes","status"}.
// Requests are decoded as ExportTraceServiceRequest (application/x-protobuf) with the official
// opentelemetry-proto files in proto/ (v1.11.0); anything else is answered 415 and printed as
// {"error": ...}, so a test sees it.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = new protobuf.Root();
root.resolvePath = (origin, target) => path.join(here, 'proto', target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
const Request = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const Response = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

const hex = (bytes) => Buffer.from(bytes || []).toString('hex');
const value = (v) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue ?? null;

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/traces'
        || !String(req.headers['content-type']).startsWith('application/x-protobuf')) {
      console.log(JSON.stringify({ error: `${req.method} ${req.url} ${req.headers['content-type']}` }));
      res.writeHead(415).end();
      return;
    }
    let decoded;
    try {
      decoded = Request.toObject(Request.decode(Buffer.concat(chunks)), { longs: Number, defaults: false });
    } catch (e) {
      console.log(JSON.stringify({ error: String(e) }));
      res.writeHead(400).end();
      return;
    }
    for (const rs of decoded.resourceSpans || []) {
      const resource = Object.fromEntries((rs.resource?.attributes || []).map((a) => [a.key, value(a.value)]));
      for (const ss of rs.scopeSpans || []) {
        for (const s of ss.spans || []) {
          console.log(JSON.stringify({
            service: resource['service.name'],
            traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId),
            name: s.name, kind: s.kind,
            start: s.startTimeUnixNano, end: s.endTimeUnixNano,
            attributes: Object.fromEntries((s.attributes || []).map((a) => [a.key, value(a.value)])),
            status: s.status ? { code: s.status.code, message: s.status.message } : null,
          }));
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end(Buffer.from(Response.encode(Response.create({})).finish()));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.stdin.resume();
