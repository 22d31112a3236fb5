import http from 'node:http';
import net from 'node:net';
let turn = 0;
const tick = () => setImmediate(() => { turn++; tick(); });
tick();
const server = http.createServer((req, res) => { console.log('req', req.url, 'turn', turn); res.end('ok'); });
server.on('connection', () => console.log('conn turn', turn));
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address() as net.AddressInfo;
  const sockets = await Promise.all(Array.from({ length: 10 }, () => new Promise<net.Socket>((r) => { const s = net.connect(port, '127.0.0.1', () => r(s)); })));
  await new Promise((r) => setTimeout(r, 50)); console.log('connected turn', turn);
  sockets.forEach((s, i) => s.write(`GET /${i} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`));
  await Promise.all(sockets.map((s) => new Promise((r) => s.on('end', r).resume())));
  server.close(); process.exit(0);
});
