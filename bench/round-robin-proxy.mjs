// The load balancer of the replica rows (replicas.mjs): a TCP proxy that hands each new connection to
// the next upstream in turn (round-robin per connection, as HAProxy's `mode tcp` does) and then only
// copies bytes both ways. It never parses HTTP: a keep-alive connection stays on the replica it was
// given, so autocannon's 32 connections are split 16/16 over two replicas for a whole run.
// Usage: node bench/round-robin-proxy.mjs --port N --upstream 127.0.0.1:P1 --upstream 127.0.0.1:P2
import net from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    upstream: { type: 'string', multiple: true, default: [] },
  },
});
const upstreams = (values.upstream ?? []).map((address) => {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
});
if (upstreams.length === 0) throw new Error('round-robin-proxy: give at least one --upstream host:port');
let next = 0;

const server = net.createServer({ noDelay: true }, (client) => {
  const target = upstreams[next];
  next = (next + 1) % upstreams.length;
  const upstream = net.connect({ ...target, noDelay: true });
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.once('error', close).once('close', close);
  upstream.once('error', close).once('close', close);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(Number(values.port), values.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : values.port;
  const to = upstreams.map((u) => `${u.host}:${u.port}`).join(', ');
  process.stdout.write(`round-robin-proxy: ${values.host}:${port} -> ${to}, per connection\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));
