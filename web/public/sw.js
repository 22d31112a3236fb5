// The installed app's service worker (docs/push.md). It caches the app's
// shell and its static files only: requests under the app's own path, GET,
// same origin. The API lives outside that path, so no API answer (none
// carries a session here, and none is ever a write) passes through a cache:
// those requests are not even intercepted. Pages are network first, the
// cached shell only when offline; hashed assets never change, so cache first.
// It also shows Web Push notices and opens their page when clicked.
const VERSION = 'v1';
const SHELL = `paper-bets-shell-${VERSION}`;
const ASSETS = `paper-bets-assets-${VERSION}`;
const scope = new URL(self.registration.scope);
const SHELL_FILES = ['./', 'manifest.webmanifest', 'favicon.svg', 'icon-192.png', 'icon-512.png'].map((f) => new URL(f, scope).href);
const MAX_ASSETS = 80;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => cache.addAll(SHELL_FILES.map((url) => new Request(url, { credentials: 'omit', cache: 'no-cache' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('paper-bets-') && k !== SHELL && k !== ASSETS).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** Whether an answer may be kept: a plain, successful, same-origin one that does not ask not to be stored. */
function cacheable(response) {
  if (response?.status !== 200 || response.type !== 'basic') return false;
  const control = response.headers.get('cache-control') || '';
  return !/no-store|private/i.test(control);
}

async function trim(cache) {
  const keys = await cache.keys();
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ASSETS))) await cache.delete(k);
}

async function networkFirstPage(request) {
  try {
    return await fetch(request);
  } catch (err) {
    const shell = await caches.match(new URL('./', scope).href, { cacheName: SHELL });
    if (shell) return shell;
    throw err;
  }
}

async function cacheFirstAsset(request) {
  const hit = await caches.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (cacheable(response)) {
    const cache = await caches.open(ASSETS);
    await cache.put(request, response.clone());
    await trim(cache);
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  // Writes, other origins and everything outside the app's path (the API) go to the network untouched.
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirstPage(request));
    return;
  }
  if (url.pathname.startsWith(`${scope.pathname}assets/`)) {
    event.respondWith(cacheFirstAsset(request));
    return;
  }
  if (SHELL_FILES.includes(url.href)) {
    // Small, unhashed files: the network's answer, the cached one offline.
    event.respondWith(fetch(request).catch(() => caches.match(url.href, { cacheName: SHELL })));
  }
});

/** A notice's page: inside the app, or the notices page. */
function pageOf(data) {
  try {
    const url = new URL(String(data?.url || ''), scope);
    if (url.origin === scope.origin && url.pathname.startsWith(scope.pathname)) return url.href;
  } catch {}
  return new URL('notifications', scope).href;
}

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const title = typeof data.title === 'string' && data.title !== '' ? data.title : 'Paper Bets';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof data.body === 'string' ? data.body : '',
      tag: typeof data.tag === 'string' ? data.tag : undefined,
      icon: new URL('icon-192.png', scope).href,
      badge: new URL('icon-192.png', scope).href,
      data: { url: pageOf(data), kind: typeof data.kind === 'string' ? data.kind : null },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = pageOf(event.notification.data);
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      for (const w of windows) {
        if (w.url.startsWith(scope.href) && 'navigate' in w) return w.focus().then(() => w.navigate(target));
      }
      return self.clients.openWindow(target);
    }),
  );
});
