// The ceiling: the least a node:http server can do per request. Every request, whatever its method,
// path or body, gets 200 and the same JSON array (a page of 20 pets, serialized once).
// Usage: node bench/ceiling-server.mjs --port N
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } });
const STATUSES = ['available', 'available', 'available', 'pending', 'sold'];
const body = Buffer.from(
  JSON.stringify(
    Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `Pet ${i + 1}`, categoryId: (i % 8) + 1, status: STATUSES[i % 5] })),
  ),
);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };

const server = http.createServer((req, res) => {
  req.resume(); // read the body, if any, so the connection stays usable
  req.once('end', () => {
    res.writeHead(200, headers);
    res.end(body);
  });
});
server.listen(Number(values.port), values.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : values.port;
  process.stdout.write(`ceiling: serving a constant answer at http://${values.host}:${port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)).closeAllConnections());
